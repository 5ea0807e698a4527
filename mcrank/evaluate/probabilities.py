r"""Probabilistic classifiers: class probabilities in, a ranking by the yield of their decisions out.

A classifier that states class probabilities ``p_k`` for item ``k`` (``predict_proba``) is put to
use by deciding each item by maximal expected utility, eq. (20):

.. math:: d_k = \arg\max_i \sum_j U_{ij}\, p_{kj}

(:func:`mcrank.decisions.optimal_decisions`; ties to the lowest index). Its worth under the
problem's utility matrix is the yield of those decisions on the test set,
:math:`\frac1N \sum_k U_{d_k y_k}`, eq. (9): a miscalibrated classifier decides with the wrong
odds, and loses utility for it. :func:`rank_probabilities` ranks the models by that yield, gives
each one's Brier score and log loss (seed 003: lower is better) beside it, and flags the pairs that
either orders otherwise. The scores, with ``o_{kj} = [y_k = j]``:

- Brier score, two classes: :math:`\frac1N \sum_k (p_{k,+} - o_{k,+})^2`, that of either class;
  ``n`` classes: :math:`\frac1N \sum_k \sum_j (p_{kj} - o_{kj})^2`, the sum over the classes (for
  two classes twice the first). scikit-learn's ``brier_score_loss`` with its default
  ``scale_by_half="auto"`` gives the same numbers.
- log loss: :math:`-\frac1N \sum_k \log p_{k y_k}`; infinite when a model gives probability 0 to
  a class that occurs (scikit-learn's ``log_loss`` clips the probabilities to machine epsilon,
  36.04 per such item, instead).

With ``test_uncertainty`` the yields have the test-set posterior of
:mod:`mcrank.evaluate.uncertainty` on the labels the decisions make (the pairs' joint tables,
exact flip probabilities): a 95 % interval per model and, for each pair ``(a, b)`` with ``a``
ranked above ``b``, the posterior probability that ``a``'s yield in the population is above
``b``'s.

**Recalibration.** How much of a model's loss is miscalibration: its probabilities recalibrated,
cross-fitted over ``folds`` folds (dealt at random within each class, from the stream
:data:`mcrank._rng.PROBABILITY_RECALIBRATION`), each fold's items by a map fitted on the other
folds, then decided and scored as before. ``"platt"``: logistic regression on ``logit p`` (two
classes), or multinomial logistic regression on ``log p`` (``n`` classes); ``"isotonic"``
(two classes): isotonic regression of the class on its probability. Both are scikit-learn's,
imported only here; without scikit-learn the result says so. The gain is the recalibrated yield
less the yield as given.

The utility matrix is read as at every door of the package (:mod:`mcrank.evaluate.targets`):
rows = decision, columns = true class, in the one class order, which two classes must name
(``classes=``, or a utility with its classes), even labels 0/1: a plain matrix whose order is
not named is refused, not guessed (:func:`mcrank.evaluate.targets.class_order`), unless it
reads alike in both orders, as the identity does (:func:`mcrank.evaluate.targets.reads_alike`).
``docs/probabilities.md`` has the CLI.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field

import numpy as np

from mcrank._rng import PROBABILITY_RECALIBRATION, root_of, root_seed_sequence, stream_generator
from mcrank._validation import MAX_EVALUATE_SAMPLES, check_choice, check_count, check_name
from mcrank.decisions import SUM_TOLERANCE, optimal_decisions
from mcrank.evaluate.input import ItemLabels, UtilityAssessment, label_array, parse_utility, read_csv_columns
from mcrank.evaluate.protocol import ResultProtocol
from mcrank.evaluate.result import DEFAULT_SAMPLES, _compare, _competition_ranks
from mcrank.evaluate.targets import class_order, positive_class, reads_alike
from mcrank.evaluate.uncertainty import DEFAULT_PRIOR_COUNT, check_prior_count, posterior_uncertainty

__all__ = ["DEFAULT_RECALIBRATION_FOLDS", "RECALIBRATIONS", "ProbabilityEvaluation", "ProbabilityModel", "ProbabilityTestSet",
           "brier_score", "evaluate_probabilities", "load_probabilities", "log_loss", "probability_test_set",
           "rank_probabilities"]  # fmt: skip

#: The recalibrations offered (module docstring); None (or "none", as on the command line) in
#: their place skips it.
RECALIBRATIONS = ("platt", "isotonic")
_NO_RECALIBRATION = "none"
#: Folds of the cross-fitted recalibration by default.
DEFAULT_RECALIBRATION_FOLDS = 5
#: The separator of a class column's name, ``MODEL:CLASS``.
CLASS_SEPARATOR = ":"
#: Probabilities are clipped to [this, 1 - this] before their logarithm is a recalibration's
#: feature, so that 0 and 1 give finite features.
_FEATURE_CLIP = 1e-12
#: What the recalibration says when scikit-learn is missing.
NO_SKLEARN = "scikit-learn is not installed (pip install scikit-learn): the recalibration gain is not computed"


# --- the test set ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProbabilityTestSet:
    """A test set of probabilistic classifiers, item by item, checked.

    Attributes
    ----------
    truth : ndarray of int, shape (items,)
        Each item's true class, an index into ``classes``.
    probabilities : dict of str to ndarray of shape (items, n)
        Each model's class probabilities, columns in the order of ``classes``; each row in
        [0, 1] and summing to 1 within :data:`mcrank.decisions.SUM_TOLERANCE`.
    classes : tuple of str
        The class order (:func:`mcrank.evaluate.targets.class_order`).
    order_source : {"given", "utility", "natural"}
        Which rule gave it.
    positive : str or None
        With one column per model for two classes: the class those are the probabilities of.
    source : str
        Where it came from, for messages.
    """

    truth: np.ndarray
    probabilities: dict
    classes: tuple
    order_source: str
    positive: str | None = None
    source: str = "y_true"

    @property
    def items(self) -> int:
        return int(self.truth.size)


def _check_rows(p: np.ndarray, where) -> np.ndarray:
    """``p`` (items, n) as probabilities: each in [0, 1], not NaN, each row summing to 1 within
    :data:`~mcrank.decisions.SUM_TOLERANCE`; ``where(item, column)`` names a cell (column None: the row)."""
    bad = np.argwhere(np.isnan(p))
    if len(bad):
        raise ValueError(f"{where(*bad[0])}: the probability is NaN")
    bad = np.argwhere((p < 0) | (p > 1))
    if len(bad):
        k, j = bad[0]
        # repr: the shortest text that is the value, so that 1.0000000001 does not read as 1.
        raise ValueError(f"{where(k, j)}: probability {float(p[k, j])!r} is outside [0, 1]")
    if p.shape[1] > 1:
        off = np.flatnonzero(np.abs(p.sum(axis=1) - 1.0) > SUM_TOLERANCE)
        if off.size:
            k = off[0]
            raise ValueError(f"{where(k, None)}: the class probabilities sum to {p[k].sum():.10g}, not 1 (within {SUM_TOLERANCE:g})")
    return p


def _matrix_of(values, items: int, n: int, name: str) -> tuple[np.ndarray, bool]:
    """One model's probabilities given in Python, as (items, n), and whether they were one column
    (a two-class positive probability)."""
    what = f"probabilities[{name!r}]"
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: not an array of numbers") from None
    if array.ndim == 1:
        if n != 2:
            raise ValueError(f"{what}: one probability per item is a two-class form, but there are {n} classes: give (items, {n})")
        array = array[:, None]
    elif array.ndim != 2 or array.shape[1] != n:
        raise ValueError(f"{what}: shape {array.shape}, expected (items, {n}) (one column per class, in class order)"
                         + (" or (items,) (the positive class's probability)" if n == 2 else ""))  # fmt: skip
    if array.shape[0] != items:
        raise ValueError(f"{what}: {array.shape[0]} items but y_true has {items}")
    _check_rows(array, lambda k, j: f"{what}: item {k}" + ("" if j is None or array.shape[1] == 1 else f", column {j}"))
    return array, array.shape[1] == 1


def _check_utility_size(probabilities: dict, n: int) -> None:
    """A ValueError naming the utility when every model's probabilities agree on a number of
    classes other than its ``n``: the utility is then the odd one out, not the probabilities
    (a model out of step with the others is :func:`_matrix_of`'s to name)."""
    try:
        shapes = {np.shape(values) for values in probabilities.values()}
    except ValueError:  # ragged: _matrix_of says so
        return
    if len(shapes) != 1:
        return
    (shape,) = shapes
    matrix = f"utility: the utility matrix is {n}x{n}, {n} classes,"
    if len(shape) == 1 and n != 2:
        raise ValueError(f"{matrix} but the probabilities are one per item, the two-class form: give a 2x2 utility, or each "
                         f"model's probabilities as (items, {n}), a column per class")  # fmt: skip
    if len(shape) == 2 and shape[1] >= 2 and shape[1] != n:
        k = shape[1]
        raise ValueError(f"{matrix} but the probabilities have {k} columns, one per class: give a {k}x{k} utility, or "
                         f"{n} columns per model")  # fmt: skip


def _completed(columns: dict, order: tuple, positive):
    """The models' probabilities in class order: one column (the positive class's) completed by
    its complement, the positive class checked to be one of the classes."""
    index = None
    if positive is not None:
        names = [str(c) for c in order]
        if str(positive) not in names:
            raise ValueError(f"positive: {positive!r} is not one of the classes {', '.join(names)}")
        index = names.index(str(positive))
    out = {}
    for name, p in columns.items():
        if p.shape[1] == 1:
            full = np.empty((p.shape[0], 2))
            full[:, index], full[:, 1 - index] = p[:, 0], 1.0 - p[:, 0]
            p = full
        out[name] = p
    return out, None if index is None else str(order[index])


def probability_test_set(y_true, probabilities, *, n_classes: int, classes=None, utility_classes=None, positive=None,
                         order_free: bool = False) -> ProbabilityTestSet:  # fmt: skip
    """A checked test set from label and probability arrays.

    Parameters
    ----------
    y_true : array_like of shape (items,)
        The true labels.
    probabilities : dict of str to array_like
        Per model, shape (items, n): one column per class in class order (as ``predict_proba``
        with ``classes_`` in that order); for two classes also shape (items,): the probability
        of the class ``positive``. Every model in the same form.
    n_classes : int
        The number of classes (the utility matrix's columns).
    classes : sequence, optional
        The class order (:func:`mcrank.evaluate.targets.class_order`).
    utility_classes : sequence of str, optional
        The utility's own class names.
    positive : label, optional
        The class of one-column probabilities (:func:`mcrank.evaluate.targets.positive_class`).
    order_free : bool, default False
        The utility reads alike in both orders of two classes
        (:func:`mcrank.evaluate.targets.reads_alike`): labels 0/1 need no named order.

    Raises
    ------
    ValueError
        Naming the parameter: no items or models, an unknown label, a bad shape, a probability
        outside [0, 1] or NaN, a row not summing to 1.
    """
    labels = label_array(y_true, "y_true").tolist()
    if not labels:
        raise ValueError("y_true: no items")
    if not isinstance(probabilities, dict) or not probabilities:
        raise ValueError("probabilities: give a non-empty mapping of model names to arrays of probabilities")
    _check_utility_size(probabilities, n_classes)
    columns, one_column = {}, set()
    for name, values in probabilities.items():
        check_name(name, "model", "probabilities")
        columns[name], single = _matrix_of(values, len(labels), n_classes, name)
        if single:
            one_column.add(name)
    if one_column and len(one_column) != len(columns):
        raise ValueError("probabilities: give every model in one form: all (items,) or all (items, 2)")
    order, source = class_order(dict.fromkeys(labels, "y_true"), n_classes, classes=classes, utility_classes=utility_classes,
                                order_free=order_free)  # fmt: skip
    if one_column:
        named = None if source == "natural" else order
        positive = positive_class(list(dict.fromkeys(labels)), positive=positive, classes=named, what="probabilities")
    elif positive is not None:
        raise ValueError("positive: the probabilities have a column per class, so no class is singled out: leave positive out")
    completed, positive = _completed(columns, order, positive if one_column else None)
    truth = _indices(order, labels)
    return ProbabilityTestSet(truth, completed, tuple(map(str, order)), source, positive, "y_true")


def _indices(order, labels) -> np.ndarray:
    """The position in ``order`` of each label, matched as it is or by its text."""
    lookup = {str(c): k for k, c in enumerate(order)} | {c: k for k, c in enumerate(order)}
    return np.array([lookup[v] if v in lookup else lookup[str(v)] for v in labels], dtype=np.int64)


def load_probabilities(path, *, n_classes: int, truth: str = "true", positive=None, classes=None,
                       utility_classes=None, order_free: bool = False) -> ProbabilityTestSet:  # fmt: skip
    """Read a test set of class probabilities: a CSV file, one row per item.

    The header names the columns: ``truth`` (the true class), then either, for two classes, one
    column per model holding the probability of the class ``positive``::

        true,logistic,forest
        ill,0.93,0.80

    or, for any number of classes, one column per model and class, ``MODEL:CLASS``, every class
    for every model, each row of a model summing to 1 within 1e-6::

        true,logistic:ill,logistic:healthy,forest:ill,forest:healthy
        ill,0.93,0.07,0.80,0.20

    Parameters
    ----------
    path : str or Path
        A CSV file of at most :data:`mcrank.evaluate.MAX_INPUT_BYTES`.
    n_classes : int
        The number of classes (the utility matrix's columns).
    truth : str, default "true"
    positive : str, optional
        The class of one-column probabilities; by default the first of the named classes, or 1
        for labels 0/1 (:func:`mcrank.evaluate.targets.positive_class`).
    classes, utility_classes : sequence of str, optional
        The class order as named by the user, and the utility's own names.
    order_free : bool, default False
        As :func:`probability_test_set`.

    Raises
    ------
    ValueError
        Naming the line and column: no truth column, a column named twice, a missing class
        column, a class no column of the order names, a row of the wrong length, a probability
        that is not a number in [0, 1], a row not summing to 1, an unknown class in ``truth``.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be the path of a file (str or Path), got {path!r}")
    source = os.fspath(path)
    header, table = read_csv_columns(source, truth, models="model columns: give one column of probabilities per model")
    rows, lines = [], []
    for line, row in table:
        rows.append(row)
        lines.append(line)
    if not rows:
        raise ValueError(f"{source}: no data rows below the header")
    cells = dict(zip(header, (list(column) for column in zip(*rows))))
    labels = cells.pop(truth)
    if "" in labels:
        raise ValueError(f"{source}, line {lines[labels.index('')]}, column {truth!r}: empty label")
    per_class = all(CLASS_SEPARATOR in name for name in cells)
    if not per_class and any(CLASS_SEPARATOR in name for name in cells):
        odd = next(name for name in cells if CLASS_SEPARATOR not in name)
        raise ValueError(f"{source}, line 1: column {odd!r} is not MODEL:CLASS like the others: give every model's columns "
                         "as MODEL:CLASS, or one column per model (two classes)")  # fmt: skip
    if not per_class and n_classes != 2:
        raise ValueError(f"{source}, line 1: one column per model is the two-class form, but the utility has {n_classes} classes: "
                         "name the columns MODEL:CLASS, one per model and class")  # fmt: skip
    holders = dict.fromkeys(labels, f"{source}, column {truth!r}")
    models = {}
    if per_class:
        for name in cells:
            model, _, label = name.rpartition(CLASS_SEPARATOR)
            if not model or not label:
                raise ValueError(f"{source}, line 1: column {name!r}: give MODEL:CLASS")
            models.setdefault(model, {})[label] = name
            holders.setdefault(label, f"{source}, line 1, column {name!r}")
    order, order_source = class_order(holders, n_classes, classes=classes, utility_classes=utility_classes, where=source,
                                      order_free=order_free)  # fmt: skip
    order = tuple(map(str, order))

    def number_column(name):
        column = cells[name]
        try:
            return np.array(column, dtype=float)
        except ValueError:
            k = next(i for i, text in enumerate(column) if not _is_float(text))
            raise ValueError(f"{source}, line {lines[k]}, column {name!r}: {column[k]!r} is not a number") from None

    probabilities = {}
    if per_class:
        for model, named in models.items():
            if missing := [c for c in order if c not in named]:
                raise ValueError(f"{source}, line 1: no column {model + CLASS_SEPARATOR + missing[0]!r}: every model needs a column "
                                 f"per class ({', '.join(order)})")  # fmt: skip
            names = [named[c] for c in order]
            p = np.column_stack([number_column(name) for name in names])
            probabilities[model] = _check_rows(
                p,
                lambda k, j, names=names, model=model: (
                    f"{source}, line {lines[k]}, " + (f"columns {model}:*" if j is None else f"column {names[j]!r}")
                ),
            )
        if positive is not None:
            raise ValueError(f"{source}: positive: the file has a column per class, so no class is singled out: leave positive out")
    else:
        for model in cells:
            p = number_column(model)[:, None]
            probabilities[model] = _check_rows(p, lambda k, j, model=model: f"{source}, line {lines[k]}, column {model!r}")
        named = None if order_source == "natural" else order
        positive = positive_class(list(dict.fromkeys(labels)), positive=positive, classes=named, where=f"{source}, column {truth!r}",
                                  what="probabilities")  # fmt: skip
    completed, positive = _completed(probabilities, order, positive if not per_class else None)
    return ProbabilityTestSet(_indices(order, labels), completed, order, order_source, positive, source)


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# --- the scores ---------------------------------------------------------------------------------


def brier_score(truth, probabilities) -> float:
    r"""The Brier score (seed 003), lower is better.

    .. math:: \frac{1}{N c} \sum_k \sum_j (p_{kj} - [y_k = j])^2, \quad c = 2 \text{ for two classes, else } 1

    For two classes it is the usual :math:`\frac1N \sum_k (p_{k,+} - [y_k = +])^2`, of either
    class; for more, the sum over the classes (Brier's own), as scikit-learn's
    ``brier_score_loss`` with ``scale_by_half="auto"``.

    Parameters
    ----------
    truth : ndarray of int, shape (items,)
        Class indices.
    probabilities : ndarray of shape (items, n)
    """
    p = np.asarray(probabilities, dtype=float)
    outcome = np.eye(p.shape[1])[truth]
    return float(np.mean(np.sum((p - outcome) ** 2, axis=1)) / (2.0 if p.shape[1] == 2 else 1.0))


def log_loss(truth, probabilities) -> float:
    r"""The log loss (seed 003), lower is better: :math:`-\frac1N \sum_k \log p_{k y_k}`.

    Infinite when a true class has probability 0 (scikit-learn clips to machine epsilon instead).
    """
    p = np.asarray(probabilities, dtype=float)
    with np.errstate(divide="ignore"):
        return float(-np.mean(np.log(p[np.arange(p.shape[0]), truth])))


# --- the result ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProbabilityModel:
    """One probabilistic classifier under :func:`rank_probabilities`.

    Attributes
    ----------
    name : str
    rank : int
        By ``utility_yield`` (1 = best; ties share a rank).
    utility_yield : float
        The mean utility per item of its expected-utility decisions.
    brier_score, log_loss : float
        Seed 003's, lower is better (:func:`brier_score`, :func:`log_loss`).
    brier_rank, log_loss_rank : int
        Ranks by them (1 = lowest).
    interval : (float, float) or None
        With the test-set uncertainty, the central 95 % posterior interval of the yield.
    recalibrated_yield, recalibration_gain : float or None
        The yield of the cross-fitted recalibrated probabilities' decisions, and that less
        ``utility_yield``; None without a recalibration.
    recalibrated_brier_score, recalibrated_log_loss : float or None
        The recalibrated probabilities' scores.
    decisions : ndarray of int, shape (items,)
        Each item's decision (a row of the utility).
    """

    name: str
    rank: int
    utility_yield: float
    brier_score: float
    brier_rank: int
    log_loss: float
    log_loss_rank: int
    interval: tuple | None = None
    recalibrated_yield: float | None = None
    recalibration_gain: float | None = None
    recalibrated_brier_score: float | None = None
    recalibrated_log_loss: float | None = None
    decisions: np.ndarray = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, repr=False)
class ProbabilityEvaluation(ResultProtocol):
    """What :func:`rank_probabilities` returns.

    Attributes
    ----------
    models : tuple of ProbabilityModel
        In rank order.
    disagreements : dict of str to tuple of (str, str)
        For ``"brier_score"`` and ``"log_loss"``: the pairs ``(a, b)``, ``a`` ranked above ``b``
        by yield, that the score orders the other way or ties, or that the yield ties and the
        score does not (then ``a`` is the one first in ``models``, not the score's better).
    utility : ndarray of shape (n, n)
        Rows = decision, columns = true class, in the order of ``classes``.
    classes : tuple of str
    order_source : {"given", "utility", "natural"}
    positive : str or None
        The class of one-column probabilities.
    items : int
    class_counts : ndarray of int, shape (n,)
    probability_above : dict of (str, str) to (float, float) or None
        With the test-set uncertainty, for each pair ``(a, b)``, ``a`` ranked above ``b``: the
        posterior probability that ``a``'s population yield is above ``b``'s and its Monte Carlo
        SE (NaN where exact); NaN for a pair tied on the test set.
    samples, prior_count : int, float or None
        Of the test-set posterior.
    recalibration : str or None
        One of :data:`RECALIBRATIONS`, when its gain was computed.
    recalibration_folds : int or None
    recalibration_note : str or None
        Why a recalibration asked for was not computed (scikit-learn missing, a class with
        fewer items than folds).
    seed : int or None
        The root seed of the posterior and the folds (None when nothing was drawn or a
        Generator was given).
    recalibration_unconverged : tuple of str
        The models whose recalibration fit (a logistic regression) stopped at its iteration
        limit in some fold: their recalibrated numbers are those of the last iteration.
    """

    models: tuple
    disagreements: dict
    utility: np.ndarray
    classes: tuple
    order_source: str
    positive: str | None
    items: int
    class_counts: np.ndarray
    probability_above: dict | None = None
    samples: int | None = None
    prior_count: float | None = None
    recalibration: str | None = None
    recalibration_folds: int | None = None
    recalibration_note: str | None = None
    seed: int | None = None
    recalibration_unconverged: tuple = ()


# --- the ranking --------------------------------------------------------------------------------


def _checked_utility(utility, n: int) -> np.ndarray:
    """The utility matrix of :func:`rank_probabilities`: a matrix of :func:`parse_utility`, n x n, no sd."""
    assessment = utility if isinstance(utility, UtilityAssessment) else parse_utility(utility)
    if assessment.sd is not None:
        raise ValueError("utility: an error sd is not used with probabilities; give the matrix alone")
    u = assessment.matrix
    if u.shape != (n, n):
        raise ValueError(f"utility: {u.shape[0]}x{u.shape[0]} but the probabilities have {n} classes")
    return u


def rank_probabilities(test_set: ProbabilityTestSet, utility, *, test_uncertainty: bool = False, samples: int = DEFAULT_SAMPLES,
                       prior_count: float = DEFAULT_PRIOR_COUNT, recalibration: str | None = "platt",
                       folds: int | None = None, rng=None) -> ProbabilityEvaluation:  # fmt: skip
    """Rank probabilistic classifiers by the yield of their expected-utility decisions.

    Parameters
    ----------
    test_set : ProbabilityTestSet
        From :func:`probability_test_set` or :func:`load_probabilities`.
    utility : array_like of shape (n, n), dict or UtilityAssessment
        Rows = decision, columns = true class, in the test set's class order; any form of
        :func:`mcrank.evaluate.parse_utility` without an error sd (a distribution ranks by its
        expected matrix, eq. 17).
    test_uncertainty : bool, default False
        Also the test-set posterior (:mod:`mcrank.evaluate.uncertainty`) of the yields.
    samples : int, default 100000
        Its draws (for the intervals; the pairs' probabilities are exact where they converge).
    prior_count : float, default 1
        Its prior's total count.
    recalibration : {"platt", "isotonic", "none"} or None, default "platt"
        The cross-fitted recalibration whose gain is reported (module docstring); None or
        ``"none"`` (as ``--recalibration none``): none. ``"isotonic"`` is for two classes.
    folds : int, optional
        Its folds (:data:`DEFAULT_RECALIBRATION_FOLDS` by default, as ``--folds``); every class
        needs at least as many items. Refused without a recalibration, which it would not change.
    rng : int, SeedSequence, Generator or None
        The root of the posterior's streams and of the folds; None draws a fresh seed,
        recorded in the result.

    Returns
    -------
    ProbabilityEvaluation

    Raises
    ------
    ValueError
        Naming the parameter: a utility of the wrong size or with an sd, a plain matrix for
        one-column probabilities whose class order was not named and whose positive class is
        not first (``classes``), an unknown ``recalibration``, bad ``folds``, ``samples``,
        ``prior_count`` or seed; ``folds`` without a recalibration.
    """
    n = len(test_set.classes)
    u = _checked_utility(utility, n)
    recalibration = None if recalibration == _NO_RECALIBRATION else recalibration
    if recalibration is not None:
        check_choice(recalibration, (*RECALIBRATIONS, _NO_RECALIBRATION), "recalibration")
        if recalibration == "isotonic" and n != 2:
            raise ValueError(f"recalibration: 'isotonic' is for two classes; {n} classes take 'platt' (multinomial logistic on log p)")
        folds = check_count(DEFAULT_RECALIBRATION_FOLDS if folds is None else folds, "folds", minimum=2)
    elif folds is not None:  # as --folds with --recalibration none: it would change nothing
        raise ValueError("folds: the folds of the recalibration, which recalibration=None (or 'none') turns off: leave folds out")
    if test_uncertainty:
        samples = check_count(samples, "samples", maximum=MAX_EVALUATE_SAMPLES)
        prior_count = check_prior_count(prior_count)
    root, seed = None, None
    if test_uncertainty or recalibration is not None:
        if isinstance(rng, np.random.Generator):
            root = root_of(rng)
        else:
            root = root_seed_sequence(rng)
            seed = int(root.entropy) if root.spawn_key == () else None
    truth, names = test_set.truth, list(test_set.probabilities)
    decisions = {name: optimal_decisions(test_set.probabilities[name], u) for name in names}
    totals = np.array([float(u[decisions[name], truth].sum()) for name in names])
    briers = np.array([brier_score(truth, test_set.probabilities[name]) for name in names])
    losses = np.array([log_loss(truth, test_set.probabilities[name]) for name in names])
    # Totals of the same items are compared exactly for whole-number utilities, as evaluate does.
    scale = float(np.max(np.abs(u))) * truth.size
    scale = 0.0 if np.all(u == np.round(u)) and scale <= 2.0**53 else scale
    ranks = _competition_ranks(totals, scale)
    order = sorted(range(len(names)), key=lambda k: (ranks[k], k))
    brier_ranks, loss_ranks = _competition_ranks(-briers), _competition_ranks(-losses)
    pairs = [(order[a], order[b]) for a in range(len(order)) for b in range(a + 1, len(order))]
    signs = [int(_compare(totals[a], totals[b], scale)) for a, b in pairs]
    disagreements = {
        key: tuple((names[a], names[b]) for (a, b), sign in zip(pairs, signs) if sign != _score_sign(values[a], values[b]))
        for key, values in (("brier_score", briers), ("log_loss", losses))
    }
    intervals, above = {}, None
    if test_uncertainty:
        counts = np.array([np.bincount(decisions[name] * n + truth, minlength=n * n).reshape(n, n) for name in names])
        labels = ItemLabels(truth, decisions)
        posterior = posterior_uncertainty(u, counts, names, order, signs, labels=labels, samples=samples, prior_count=prior_count,
                                          rng=root)  # fmt: skip
        intervals = posterior.intervals
        above = {(names[a], names[b]): (1.0 - float(posterior.flip_test[p]), float(posterior.flip_test_se[p]))
                 for p, (a, b) in enumerate(pairs)}  # fmt: skip
    recalibrated, note, unconverged = {}, None, ()
    if recalibration is not None:
        recalibrated, note, unconverged = _recalibrated(
            test_set, u, recalibration, folds, stream_generator(root, PROBABILITY_RECALIBRATION)
        )
    models = []
    for k in order:
        name = names[k]
        again = recalibrated.get(name)
        yield_ = float(totals[k] / truth.size)
        models.append(ProbabilityModel(
            name, ranks[k], yield_, float(briers[k]), brier_ranks[k], float(losses[k]), loss_ranks[k], intervals.get(name),
            None if again is None else again[0], None if again is None else again[0] - yield_,
            None if again is None else again[1], None if again is None else again[2], decisions[name],
        ))  # fmt: skip
    computed = recalibration is not None and note is None
    return ProbabilityEvaluation(
        tuple(models), disagreements, u, test_set.classes, test_set.order_source, test_set.positive, test_set.items,
        np.bincount(truth, minlength=n), above, samples if test_uncertainty else None, prior_count if test_uncertainty else None,
        recalibration if computed else None, folds if computed else None, note, seed, unconverged,
    )  # fmt: skip


def _score_sign(a: float, b: float) -> int:
    """The order of two lower-is-better scores as the yields' sign: 1 when ``a`` is the better
    (lower), 0 when they tie (two infinite log losses tie; an infinite one is worse than any
    finite one, :func:`~mcrank.evaluate.result._compare`)."""
    return int(_compare(-a, -b))


# --- recalibration ------------------------------------------------------------------------------


def _stratified_folds(truth: np.ndarray, n: int, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Each item's fold: the items of each class shuffled and dealt in turn, so that every fold
    holds every class (and so every fit, on the other folds, sees each)."""
    fold = np.empty(truth.size, dtype=np.int64)
    for j in range(n):
        members = np.flatnonzero(truth == j)
        fold[members[rng.permutation(members.size)]] = np.arange(members.size) % folds
    return fold


def _recalibrated(test_set: ProbabilityTestSet, u: np.ndarray, method: str, folds: int, rng):
    """Per model, the yield, Brier score and log loss of its cross-fitted recalibrated
    probabilities, no note and the models whose fit did not converge; or ``({}, note, ())`` when
    they cannot be computed."""
    n, truth = len(test_set.classes), test_set.truth
    counts = np.bincount(truth, minlength=n)
    if counts.min() < folds:
        j = int(np.argmin(counts))
        return {}, (f"the recalibration is not computed: class {test_set.classes[j]!r} has {counts[j]} items, fewer than the "
                    f"{folds} folds"), ()  # fmt: skip
    try:
        import sklearn  # noqa: F401  (lazily: the rest of mcrank runs without it)
    except ImportError:
        return {}, NO_SKLEARN, ()
    from sklearn.exceptions import ConvergenceWarning

    fold = _stratified_folds(truth, n, folds, rng)
    out, unconverged = {}, []
    for name, p in test_set.probabilities.items():
        q = np.empty_like(p)
        # A fit that stops at its iteration limit is said in the result, not as a warning on
        # stderr; any other warning passes on.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for f in range(folds):
                held = fold == f
                q[held] = _fit_and_map(method, p[~held], truth[~held], p[held], n)
        for warning in caught:
            if issubclass(warning.category, ConvergenceWarning):
                unconverged.append(name)
            else:
                warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
        d = optimal_decisions(q, u)
        out[name] = (float(u[d, truth].mean()), brier_score(truth, q), log_loss(truth, q))
    return out, None, tuple(dict.fromkeys(unconverged))


def _fit_and_map(method: str, p_fit, y_fit, p_map, n: int) -> np.ndarray:
    """Recalibrated probabilities of ``p_map`` by a map fitted on ``(p_fit, y_fit)``."""
    if method == "isotonic":
        from sklearn.isotonic import IsotonicRegression

        model = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(p_fit[:, 0], (y_fit == 0).astype(float))
        first = np.clip(model.predict(p_map[:, 0]), 0.0, 1.0)
        return np.column_stack([first, 1.0 - first])
    from sklearn.linear_model import LogisticRegression

    def features(p):
        clipped = np.clip(p, _FEATURE_CLIP, 1.0 - _FEATURE_CLIP)
        if n == 2:  # Platt: logistic on logit p
            return (np.log(clipped[:, 0]) - np.log1p(-clipped[:, 0]))[:, None]
        return np.log(clipped)

    model = LogisticRegression(max_iter=1000).fit(features(p_fit), y_fit)
    # The columns of predict_proba are model.classes_, here every class index in order (each
    # fold's fit sees every class).
    return model.predict_proba(features(p_map))


# --- the one call ------------------------------------------------------------------------------


def evaluate_probabilities(y_true, probabilities, utility, *, classes=None, positive=None, test_uncertainty: bool = False,
                           samples: int = DEFAULT_SAMPLES, prior_count: float = DEFAULT_PRIOR_COUNT,
                           recalibration: str | None = "platt", folds: int | None = None,
                           rng=None) -> ProbabilityEvaluation:  # fmt: skip
    """Rank probabilistic classifiers by the yield of their expected-utility decisions, beside the
    Brier score and the log loss.

    Parameters
    ----------
    y_true : array_like of shape (items,)
        The true labels.
    probabilities : dict of str to array_like
        Per model, (items, n) with a column per class in class order (``predict_proba``), or,
        for two classes, (items,): the probability of the class ``positive``.
    utility : array_like of shape (n, n) or dict
        Rows = decision, columns = true class, in class order (:func:`rank_probabilities`); a
        dict ``{"utility": [[...]], "classes": [...]}`` names its classes.
    classes : sequence, optional
        The class order (:func:`mcrank.evaluate.targets.class_order`): needed unless the labels
        are ``0..n-1`` or booleans, or the utility names its classes.
    positive : label, optional
        The class of one-column probabilities (:func:`mcrank.evaluate.targets.positive_class`).
    test_uncertainty, samples, prior_count, recalibration, folds, rng
        As :func:`rank_probabilities`.

    Returns
    -------
    ProbabilityEvaluation

    Examples
    --------
    >>> result = evaluate_probabilities([0, 1, 1, 0], {"m": [[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.9, 0.1]]},
    ...                                 [[1, 0], [0, 1]], recalibration=None)
    >>> result.models[0].utility_yield, round(result.models[0].brier_score, 4)
    (0.75, 0.125)
    """
    utility_classes = None
    if isinstance(utility, dict) and "utility" in utility:
        if unknown := sorted(set(utility) - {"utility", "classes"}):
            raise ValueError(f"utility: unknown key {unknown[0]!r}; give 'utility' and optionally 'classes'")
        utility_classes = None if utility.get("classes") is None else tuple(map(str, utility["classes"]))
        utility = utility["utility"]
    assessment = parse_utility(utility)
    test_set = probability_test_set(y_true, probabilities, n_classes=len(assessment.matrix), classes=classes,
                                    utility_classes=utility_classes, positive=positive,
                                    order_free=reads_alike(assessment.matrix))  # fmt: skip
    return rank_probabilities(test_set, assessment, test_uncertainty=test_uncertainty, samples=samples, prior_count=prior_count,
                              recalibration=recalibration, folds=folds, rng=rng)  # fmt: skip
