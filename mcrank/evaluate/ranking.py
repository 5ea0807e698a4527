"""Ranking by utility yield, the popular metrics' disagreements, and flip probabilities.

:func:`evaluate` ranks classifiers by their utility yield per test item, eq. (9) of
``docs/method.md``, scores them with the popular metrics (:func:`metrics_for`), and lists
every metric whose ranking disagrees; with an error sd on the utility matrix, it gives how
likely each pair's ranking is to flip (paper §4.2): exactly under gaussian errors, by Monte
Carlo under truncated ones.
:func:`evaluate_file` does the same for an input file (:mod:`mcrank.evaluate.input`).
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

import numpy as np

from mcrank._jit import jit
from mcrank._rng import UTILITY_ERRORS, root_of, stream_generator
from mcrank._validation import MAX_EVALUATE_SAMPLES, check_choice, check_count, check_positive
from mcrank.estimators import ESTIMATORS, default_estimator
from mcrank.evaluate.input import (
    ERROR_MODELS,
    UtilityAssessment,
    _check_confusions,
    load_input,
    load_labels,
    parse_utility,
    read_utility,
)
from mcrank.evaluate.targets import DEFAULT_ORIENTATION, check_orientation
from mcrank.evaluate.uncertainty import DEFAULT_PRIOR_COUNT, PRIOR_NOTE_SHARE, check_prior_count, posterior_uncertainty, prior_per_cell
from mcrank.metrics import METRICS, get_metric
from mcrank.samplers import perturb_um
from mcrank.utility_space import normalise_um, utility_yield

__all__ = [
    "CONDITIONAL",
    "DEFAULT_SAMPLES",
    "ESTIMATORS",
    "FREQUENCY_TOLERANCE",
    "MAX_SAMPLES",
    "TIE_TOLERANCE",
    "ClassifierResult",
    "Disagreement",
    "Evaluation",
    "PairFlip",
    "SAMPLE",
    "evaluate",
    "evaluate_file",
    "evaluate_predictions",
    "metrics_for",
]

#: Monte Carlo samples of perturbed utility matrices, unless told otherwise.
DEFAULT_SAMPLES = 100_000
#: At most this many (:data:`mcrank._validation.MAX_EVALUATE_SAMPLES`, which says why).
MAX_SAMPLES = MAX_EVALUATE_SAMPLES
#: How the flip probabilities under the utility's errors are estimated: the study's registry
#: :data:`mcrank.estimators.ESTIMATORS` (``docs/method.md``, "The conditional estimator"):
#: ``conditional``, the exact probability given the confusion matrices (gaussian errors only);
#: ``sample``, the fraction of perturbed matrices drawn (Monte Carlo) that flip the pair.
CONDITIONAL, SAMPLE = ESTIMATORS["conditional"].name, ESTIMATORS["sample"].name
#: Deprecated: evaluate's names of the estimators before issue 22, still accepted as values of
#: ``estimator`` and ``method`` and still given by :attr:`Evaluation.method`.
CLOSED_FORM, MONTE_CARLO = "closed form", "monte carlo"
METHODS = (CLOSED_FORM, MONTE_CARLO)
_DEPRECATED_ESTIMATOR_NAMES = {CLOSED_FORM: CONDITIONAL, MONTE_CARLO: SAMPLE}
_DEPRECATED_METHOD_NAMES = {CONDITIONAL: CLOSED_FORM, SAMPLE: MONTE_CARLO}
#: The flip probability of a pair under gaussian errors of sd ``sd`` on the normalised
#: utility matrix: ``d`` is the pair's yield difference and ``C_A``, ``C_B`` its confusion
#: matrices as fractions of the test set, all under eq. (11).
FLIP_FORMULA = "Phi(-d / (sd * ||C_A - C_B||_F))"
#: Deployment class frequencies must sum to 1 within this (then they are divided by their sum):
#: frequencies written to 6 decimals, or computed in floating point, pass; a typo does not.
FREQUENCY_TOLERANCE = 1e-6
#: The deployment's class counts sum to at most this, as a confusion matrix's counts.
_MAX_CLASS_COUNTS = 2**53 - 1
#: Binary metrics left out by default: F-beta with beta = 1 is F1.
_BINARY_SKIPPED = ("fbeta",)
# Work space of the flip counts, in float64 elements per array (16 MiB): a chunk of samples
# holds at most this many elements of perturbed matrices and of their yields. A few such
# arrays at once (30-50 MiB measured), whatever the numbers of classifiers, pairs and samples.
_CHUNK_ELEMENTS = 1 << 21
# Gaussian errors are drawn with at most this sd (see _count_flips): any finite sd is taken,
# as `mcrank run` takes it, but U + sd * Z overflows to inf near sd = 1e308.
_MAX_DRAWN_SD = 1e300


# --- the popular metrics --------------------------------------------------------------------


def metrics_for(n_classes: int, names=None) -> list:
    """The popular metrics that :func:`evaluate` reports for ``n_classes`` classes.

    Parameters
    ----------
    n_classes : int
    names : sequence of str, optional
        Metric ids (binary aliases such as ``"recall"`` accepted): any metric defined for
        ``n_classes`` (``macro_f1`` at two classes too, as ``mcrank run`` counts it). By
        default every metric with a two-class form but ``fbeta`` (with beta = 1 it is ``f1``)
        for two classes, every metric with an n-class form for more. A list even for one metric,
        ``["accuracy"]``, as :class:`mcrank.study.StudyConfig` takes them.

    Returns
    -------
    list of Metric

    Raises
    ------
    TypeError
        If ``names`` is a string (or bytes) or not a sequence.
    ValueError
        For an unknown metric name, with the list of known ones; for a metric listed twice,
        by its id or an alias (``"recall"`` and ``"tpr"``), as :class:`mcrank.study.StudyConfig`
        refuses it.
    """
    binary = n_classes == 2
    # Two classes: every metric with a two-class form (the scikit-learn-exact arithmetic);
    # more: every metric with an n-class form.
    offered = [m for m in METRICS.values() if (m.binary if binary else m.general) is not None and m.id not in _BINARY_SKIPPED]
    if names is None:
        return offered
    # A string is a sequence too, of one-letter names: "accuracy" would be 'a', 'c', ...
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise TypeError(f"metrics must be a list of metric ids, got {names!r}")
    chosen, given = [], {}
    for name in names:
        try:
            metric = get_metric(name)
        except KeyError:
            metric = None
        if binary and metric is not None and metric.id in _BINARY_SKIPPED:
            raise ValueError(f"metrics: metric {name!r} is not offered: with beta = 1 it is 'f1'")
        if metric is None or not metric.defined_for(n_classes):  # macro_f1 too, asked for, at n = 2
            known = ", ".join(m.id for m in METRICS.values() if m.defined_for(n_classes) and m.id not in _BINARY_SKIPPED)
            raise ValueError(f"metrics: unknown metric {name!r} for {n_classes} classes; known: {known}") from None
        if metric.id in given:
            how = "" if given[metric.id] == name else f" (as {given[metric.id]!r} and {name!r})"
            raise ValueError(f"metrics: metric {metric.id!r} is listed twice{how}")
        given[metric.id] = name
        chosen.append(metric)
    if not chosen:
        raise ValueError("metrics: none chosen; give at least one metric id")
    return chosen


# --- results --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClassifierResult:
    """One classifier in the ranking.

    Attributes
    ----------
    name : str
    rank : int
        By utility yield, 1 = best; tied classifiers share a rank.
    utility_yield : float
        Utility per test item, eq. (9), in the units of the utility matrix.
    scores : dict of str to float
        Score under each popular metric, by id (NaN where undefined).
    ranks : dict of str to int or None
        Rank under each metric, 1 = best (None where the score is undefined).
    confusion : ndarray of shape (n, n)
        The counts.
    utility_yield_interval : (float, float) or None
        With the test-set uncertainty, the central 95 % posterior interval of the utility
        yield per item (:mod:`mcrank.evaluate.uncertainty`).
    deployment_confusion : ndarray of shape (n, n) or None
        With deployment class frequencies ``pi``: the confusion matrix as frequencies,
        re-weighted column by column, ``C_ij / sum_i C_ij * pi_j`` (it sums to 1). The
        utility yield and the scores are those of this matrix.
    """

    name: str
    rank: int
    utility_yield: float
    scores: dict[str, float]
    ranks: dict[str, int | None]
    confusion: np.ndarray = field(repr=False, compare=False)
    utility_yield_interval: tuple[float, float] | None = None
    deployment_confusion: np.ndarray | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Disagreement:
    """A metric whose ranking disagrees with the utility yield, and the pairs on which it does.

    Each pair is ``(first, second)`` with ``first`` ranked at least as high as ``second`` by
    the utility yield.

    Attributes
    ----------
    metric, name : str
        The metric's id and display name.
    flipped : tuple of (str, str)
        The utility yield prefers ``first``, the metric prefers ``second``.
    tied : tuple of (str, str)
        One of the two (utility yield or metric) ties the pair, the other does not.
    undefined : tuple of (str, str)
        The metric is undefined (0/0) for one of the two.
    best : tuple of str
        The classifiers the metric ranks first.
    """

    metric: str
    name: str
    flipped: tuple[tuple[str, str], ...]
    tied: tuple[tuple[str, str], ...]
    undefined: tuple[tuple[str, str], ...]
    best: tuple[str, ...] = ()


@dataclass(frozen=True)
class PairFlip:
    """How likely the utility ranking of a pair is to flip, given errors on the utility matrix.

    Attributes
    ----------
    better, worse : str
        The pair, ``better`` ranked at least as high by the utility yield.
    utility_difference : float
        ``yield(better) - yield(worse)`` per test item, in the units of the utility matrix.
    flip_probability : float or None
        Probability that a perturbed utility matrix does not put ``better`` strictly ahead
        (ties count as flips, as in the paper's §4.2 and the study's step 6): exact with the
        ``conditional`` estimator (gaussian errors), else the fraction of the perturbed
        matrices drawn (``sample``). None when the two are tied under the utility matrix
        itself (no ranking to flip).
    standard_error : float or None
        Monte Carlo standard error of ``flip_probability``, ``sqrt(f (1 - f) / samples)``;
        None when it is exact.
    flips : int or None
        Number of perturbed matrices under which the ranking flips (``sample`` estimator only).
    flip_probability_test, flip_probability_test_se : float or None
        With the test-set uncertainty: the posterior probability that the population order
        of the pair differs from the observed one (a population tie differs from an observed
        strict order: ties count as flips here too), and its Monte Carlo SE (None where it is
        exact: with labels, by a one-dimensional integral, to 1e-11).
    flip_probability_both, flip_probability_both_se : float or None
        The same with the utility matrix perturbed too, given an error sd.
    """

    better: str
    worse: str
    utility_difference: float
    flip_probability: float | None
    standard_error: float | None
    flips: int | None
    flip_probability_test: float | None = None
    flip_probability_test_se: float | None = None
    flip_probability_both: float | None = None
    flip_probability_both_se: float | None = None


def _clean(value):
    """JSON-safe: NaN becomes None."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    classifiers : tuple of ClassifierResult
        In rank order by utility yield (best first; ties in input order).
    disagreements : tuple of Disagreement
        One per metric whose ranking disagrees with the utility yield, in metric order.
    pairs : tuple of PairFlip or None
        With an error sd: every pair of classifiers, in rank order; otherwise None.
    classes : tuple of str
    class_totals : ndarray of shape (n,)
        Test items of each true class.
    utility : UtilityAssessment
    normalised_utility : ndarray of shape (n, n)
        The ranking matrix in the standard form of eq. (11), to which ``sd`` refers.
    metrics : tuple of (str, str)
        The (id, name) of every metric reported.
    samples : int or None
        Monte Carlo samples, with an error sd and the ``sample`` estimator, or with the
        test-set uncertainty.
    seed : int or None
        Root seed of the Monte Carlo run (None if a Generator was passed, or no Monte Carlo).
    estimator : str or None
        How the flip probabilities under the utility's errors were obtained (:data:`ESTIMATORS`),
        with an error sd.
    method : {"closed form", "monte carlo"} or None
        Deprecated: ``estimator`` in the names evaluate used before issue 22.
    test_uncertainty : dict or None
        With the test-set uncertainty: ``model`` ("labels" or "confusion matrices"),
        ``prior_mass`` (the prior's total count, spread evenly over the cells),
        ``prior_share`` (``prior_mass`` over the test set's items), ``samples``, ``seed``,
        ``interval``, ``exact_pairs`` (how many pairs' test-set flip probabilities are exact,
        not Monte Carlo: with labels and the test set's class proportions, all unless the
        integral does not converge within its budget, not met in the tests) and, when
        ``prior_share`` is above :data:`~mcrank.evaluate.uncertainty.PRIOR_NOTE_SHARE`, a
        ``note``. ``prior_count`` is a deprecated name of ``prior_mass`` (until issue 24 it
        was the count on every cell).
    class_frequencies : dict or None
        With deployment class frequencies: ``source`` ("given" or "counts"),
        ``deployment`` (the frequencies used, by class), ``test_set`` (the test set's own),
        ``tolerance`` (:data:`FREQUENCY_TOLERANCE`) and, from counts, ``counts`` and
        ``prior_per_class`` (the posterior mean is used).
    description : str or None
        The input file's description.
    class_order : {"given", "utility", "natural"} or None
        For labels (:func:`evaluate_file` with ``labels=True``, :func:`evaluate_predictions`):
        which rule of :func:`mcrank.evaluate.targets.class_order` gave the class order.
    """

    classifiers: tuple[ClassifierResult, ...]
    disagreements: tuple[Disagreement, ...]
    pairs: tuple[PairFlip, ...] | None
    classes: tuple[str, ...]
    class_totals: np.ndarray
    utility: UtilityAssessment
    normalised_utility: np.ndarray
    metrics: tuple[tuple[str, str], ...]
    samples: int | None = None
    seed: int | None = None
    method: str | None = None
    test_uncertainty: dict | None = None
    description: str | None = None
    class_order: str | None = None
    class_frequencies: dict | None = None
    estimator: str | None = None

    def __str__(self) -> str:
        """The report that ``mcrank evaluate`` prints, 80 characters wide
        (:func:`mcrank.evaluate.report.render_table`, which takes another width)."""
        from mcrank.evaluate.report import render_table

        return render_table(self)

    def to_records(self) -> list[dict]:
        """The ranking as a table without pandas: one dict per classifier, in rank order, with
        ``rank``, ``classifier``, ``utility_yield``, each metric's score (NaN where undefined)
        and ``<metric>_rank`` and, with the test-set uncertainty, ``utility_yield_low`` and
        ``utility_yield_high``: the CSV output's first columns (:func:`mcrank.evaluate.report.records`)."""
        from mcrank.evaluate.report import records

        return records(self)

    def to_frame(self):
        """:meth:`to_records` as a pandas DataFrame: one row per classifier, in rank order.

        Raises
        ------
        ImportError
            If pandas is not installed (:meth:`to_records` needs no pandas).
        """
        try:
            import pandas
        except ImportError:
            raise ImportError("Evaluation.to_frame needs pandas (pip install pandas); to_records() gives the same table "
                              "as a list of dicts, one per classifier") from None  # fmt: skip
        return pandas.DataFrame.from_records(self.to_records())

    def metric_agreement(self) -> list[dict]:
        """Per metric, how its ranking agrees with the utility yield's: pairs it orders the
        other way, ties differently or cannot score, and Kendall's tau-b
        (:func:`mcrank.evaluate.report.metric_agreement`)."""
        from mcrank.evaluate.report import metric_agreement

        return metric_agreement(self)

    def to_dict(self) -> dict:
        """A JSON-ready dict: ``classifiers`` in rank order, ``disagreements``, and ``pairs``
        (with an error sd), plus the classes, the test set and the utility matrix used.
        Undefined scores are None."""
        u = self.utility
        utility = {"matrix": u.matrix.tolist(), "normalised": self.normalised_utility.tolist(), "form": u.describe()}
        if u.matrices is not None:
            utility["matrices"] = u.matrices.tolist()
            utility["probabilities"] = u.probabilities.tolist()
        result = {
            "description": self.description,
            "classes": list(self.classes),
            **({} if self.class_order is None else {"class_order": self.class_order}),
            "test_set": {
                "items": int(self.class_totals.sum()),
                "class_totals": {name: int(t) for name, t in zip(self.classes, self.class_totals)},
            },
            **({} if self.class_frequencies is None else {"class_frequencies": dict(self.class_frequencies)}),
            "utility": utility,
            "metrics": [{"id": mid, "name": name} for mid, name in self.metrics],
            "classifiers": [
                {
                    "name": c.name,
                    "rank": c.rank,
                    "utility_yield": c.utility_yield,
                    "scores": {k: _clean(v) for k, v in c.scores.items()},
                    "ranks": dict(c.ranks),
                    "confusion": c.confusion.astype(int).tolist(),
                    **({} if c.utility_yield_interval is None else {"utility_yield_interval": list(c.utility_yield_interval)}),
                    **({} if c.deployment_confusion is None else {"deployment_confusion": c.deployment_confusion.tolist()}),
                }
                for c in self.classifiers
            ],
            "disagreements": [
                {
                    "metric": d.metric,
                    "name": d.name,
                    "flipped": [list(p) for p in d.flipped],
                    "tied": [list(p) for p in d.tied],
                    "undefined": [list(p) for p in d.undefined],
                    "best": list(d.best),
                }
                for d in self.disagreements
            ],
            "metric_agreement": self.metric_agreement(),
        }
        if self.test_uncertainty is not None:
            result["test_uncertainty"] = dict(self.test_uncertainty)
        if self.pairs is not None and u.sd is not None:
            utility["sd"] = u.sd
            utility["error"] = u.error
            # ``closed_form`` and ``monte_carlo`` are the deprecated names of ``estimator``'s two forms.
            if self.estimator == CONDITIONAL:
                settings = {"sd": u.sd, "error": u.error, "formula": FLIP_FORMULA, "exact": True}
                result["estimator"] = {"name": CONDITIONAL, **settings}
                result["closed_form"] = settings
            else:
                settings = {"sd": u.sd, "error": u.error, "samples": self.samples, "seed": self.seed}
                result["estimator"] = {"name": SAMPLE, **settings}
                result["monte_carlo"] = settings
        if self.pairs is not None:
            result["pairs"] = [
                {
                    "better": p.better,
                    "worse": p.worse,
                    "utility_difference": p.utility_difference,
                    "flip_probability": p.flip_probability,
                    "standard_error": p.standard_error,
                    "flips": p.flips,
                    **(
                        {}
                        if self.test_uncertainty is None
                        else {
                            "flip_probability_test": _clean(p.flip_probability_test),
                            "flip_probability_test_se": _clean(p.flip_probability_test_se),
                            "flip_probability_both": _clean(p.flip_probability_both),
                            "flip_probability_both_se": _clean(p.flip_probability_both_se),
                        }
                    ),
                }
                for p in self.pairs
            ]
        return result


# --- the evaluation -------------------------------------------------------------------------


#: Relative tolerance of a tie (see :func:`evaluate`): differences of metric values within
#: this fraction of ``max(1, |a|, |b|)``, and of total utilities that are not exact within
#: this fraction of ``max|U| N``, are rounding errors.
TIE_TOLERANCE = 1e-12


def _compare(a, b, scale=None) -> np.ndarray:
    """The sign of ``a - b`` (-1, 0 or 1, elementwise), 0 when the difference is within
    :data:`TIE_TOLERANCE` of ``scale`` (``scale = 0``: exact comparison).

    ``scale`` defaults to ``max(1, |a|, |b|)``, right for metrics (values of order 1). NaN
    compares as -1: callers set undefined values aside first.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if scale is None:
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    with np.errstate(over="ignore", invalid="ignore"):
        difference = a - b
        sign = np.where(difference > 0, np.int8(1), np.int8(-1))
        return np.where(np.abs(difference) <= TIE_TOLERANCE * scale, np.int8(0), sign)


#: Comparisons made at once by :func:`_competition_ranks`: its work space, whatever the
#: number of classifiers.
_RANK_BLOCK = 1 << 20


def _competition_ranks(values: np.ndarray, scale: float | None = None) -> list[int | None]:
    """Rank 1 = highest; equal values share the best rank among them; NaN gets None."""
    values = np.asarray(values, dtype=float)
    defined = values[~np.isnan(values)]
    ranks = np.empty(values.size, dtype=np.int64)
    step = max(1, _RANK_BLOCK // max(1, defined.size))
    for start in range(0, values.size, step):
        block = values[start : start + step]
        ranks[start : start + step] = 1 + np.count_nonzero(_compare(defined[None, :], block[:, None], scale) > 0, axis=1)
    return [None if np.isnan(v) else int(r) for v, r in zip(values, ranks)]


def evaluate(
    confusions,
    utility,
    *,
    classes=None,
    orientation: str = DEFAULT_ORIENTATION,
    sd: float | None = None,
    error: str | None = None,
    samples: int = DEFAULT_SAMPLES,
    rng=None,
    estimator: str | None = None,
    method: str | None = None,
    test_uncertainty: bool = False,
    prior_count: float = DEFAULT_PRIOR_COUNT,
    labels=None,
    class_frequencies=None,
    class_counts=None,
    metrics=None,
    source: str = "",
    progress: bool = False,
) -> Evaluation:
    """Rank classifiers by utility yield, and compare with the popular metrics.

    Parameters
    ----------
    confusions : dict of str to array_like of shape (n, n)
        Counts per classifier, all on the same test set, in ``orientation``.
    utility : array_like of shape (n, n), dict or UtilityAssessment
        The utility matrix, in any form of :func:`parse_utility`: rows = decision, columns =
        true class, in the class order of the confusion matrices.
    classes : sequence of str, optional
        Class names, in order; ``"0"``, ``"1"``, ... by default.
    orientation : {"decision-by-class", "sklearn"}, default "decision-by-class"
        How ``confusions`` are laid out: rows = decision (output), columns = true class,
        mcrank's layout; or ``"sklearn"``, rows = true class, as scikit-learn's
        ``confusion_matrix`` returns them (:mod:`mcrank.evaluate.targets`).
    sd : float, optional
        Error standard deviation on the utility matrix *normalised by eq. (11)*; overrides
        one in ``utility``. With it, the flip probability of every pair is estimated.
    error : {"gaussian", "truncated"}, optional
        Error model for ``sd`` (see :func:`mcrank.samplers.perturb_um`); overrides one in
        ``utility``; ``"gaussian"`` by default.
    samples : int, default 100000
        Monte Carlo samples of perturbed utility matrices, at most :data:`MAX_SAMPLES`.
    rng : int, SeedSequence, Generator or None
        Randomness of the Monte Carlo estimate.
    estimator : str, optional
        How the flip probabilities under the utility's errors are obtained, in the study's
        words (:data:`ESTIMATORS`; ``docs/method.md``, "The conditional estimator"). By
        default ``"conditional"`` under gaussian errors: the perturbed yield difference of a
        pair is normal, and ``P(flip) = Phi(-d / (sd ||C_A - C_B||_F))`` exactly
        (:data:`FLIP_FORMULA`, :func:`mcrank.engine.conditional.incorrect_probability`), with
        no ``samples`` and no ``rng``. The truncated model has no closed form: ``"sample"``
        draws the perturbed matrices (Monte Carlo); under gaussian errors it gives the
        estimate, as a check.
    method : {"closed form", "monte carlo"}, optional
        Deprecated name of ``estimator``, with its deprecated values (``"closed form"`` is
        ``"conditional"``, ``"monte carlo"`` is ``"sample"``; the new values are taken too).
    test_uncertainty : bool, default False
        Also say how sure the ranking is, given that the test set is finite
        (:mod:`mcrank.evaluate.uncertainty`): a 95 % posterior interval of each yield, and
        for each pair the probability that its population order differs from the observed
        one, alone and, with an error sd, together with the utility errors. ``samples``
        posterior draws from ``rng``.
    prior_count : float, default 1
        The Dirichlet prior's total count, > 0, spread evenly over the cells of the test
        set's joint table (:func:`mcrank.evaluate.uncertainty.prior_per_cell`): the weight
        of ``prior_count`` test items, whatever the number of classes. Also the prior of
        ``class_counts``, spread over the classes.
    labels : ItemLabels, optional
        The test set item by item (:func:`load_labels`), the classifiers named as in
        ``confusions``: the pairs' joint tables then keep the pairing of the items.
        Without them the posterior treats the classifiers' columns as independent
        (conservative).
    class_frequencies : array_like of shape (n,), optional
        The class frequencies ``pi`` of the deployment, if they differ from the test set's
        (paper §6): every confusion matrix is re-weighted column by column,
        ``C'_ij = C_ij / sum_i C_ij * pi_j``, before the ranking, the metrics, the flip
        probabilities and the test-set uncertainty. Non-negative, summing to 1 within
        :data:`FREQUENCY_TOLERANCE`; a class without test items must have frequency 0 (its
        column is unknown).
    class_counts : array_like of shape (n,), optional
        Instead of ``class_frequencies``, counts of the classes in deployment (a registry of
        cases), whole non-negative numbers, not all 0: the frequencies are uncertain, with posterior
        Dirichlet(class_counts + prior_count / n). The point ranking uses their posterior
        mean; the test-set uncertainty draws them.
    metrics : sequence of str, optional
        Metric ids to report (see :func:`metrics_for`): a list, even of one id.
    source : str, optional
        Where the confusion matrices come from (a file name), to prefix messages.
    progress : bool, default False
        Show a progress bar of the Monte Carlo samples on stderr.

    Returns
    -------
    Evaluation

    Raises
    ------
    ValueError
        For bad input, naming the fault and where it is (an unknown metric too).
    TypeError
        If ``metrics`` is a string rather than a list of them.

    Notes
    -----
    The steps, each a function of this module: :func:`_read` (check the inputs),
    :func:`_reweight` (to the deployment's class frequencies), :func:`_rank` (by utility
    yield), :func:`_score` and :func:`_disagreements` (the popular metrics),
    :func:`_flips_under_utility_error`, :func:`_flips_under_test_set`, and :func:`_pairs`.

    Ties. With whole-number utilities whose largest magnitude times the number of test
    items ``N`` is at most 2**53, every total utility is an exact integer: yields are
    compared exactly, and one item apart is never a tie. With fractional utilities (an
    expected matrix, eq. 17, often has them), rounding can split yields that are equal in
    exact arithmetic (``0.1 + 0.2 != 0.3``): total utilities within :data:`TIE_TOLERANCE`
    (1e-12) of ``max|U| N`` tie. Metric values tie within 1e-12 of ``max(1, |a|, |b|)``.
    Tied classifiers share a rank. A pair that a perturbed matrix (or a posterior draw)
    ties counts as flipped, as in the study's step 6 (``docs/method.md``).
    """
    given = _read(confusions, utility, classes, sd, error, samples, rng, estimator, method, test_uncertainty, prior_count,
                  class_counts, metrics, source, orientation)  # fmt: skip
    weighted = _reweight(given, class_frequencies, class_counts)
    ranking = _rank(given, weighted)
    scores, metric_ranks = _score(given, weighted)
    results = _classifier_results(given, weighted, ranking, scores, metric_ranks)
    disagreements = _disagreements(given, ranking, scores, metric_ranks)
    normalised = normalise_um(given.utility.matrix)
    posterior = None
    if test_uncertainty:
        posterior = _flips_under_test_set(given, weighted, ranking, normalised, labels)
        results = tuple(replace(c, utility_yield_interval=posterior.intervals[c.name]) for c in results)
    pairs = None
    if given.utility.sd is not None or test_uncertainty:
        if not _has_closed_form(given.utility.error):
            _check_truncated(normalised, given.classes, given.utility.source)
        under_error = _flips_under_utility_error(given, weighted, ranking, normalised, progress)
        pairs = _pairs(given, weighted, ranking, under_error, posterior)
    sampled = given.utility.sd is not None and given.estimator == SAMPLE
    seed = given.root_seed if sampled or test_uncertainty else None
    with_sd = given.utility.sd is not None
    return Evaluation(
        classifiers=results,
        disagreements=disagreements,
        pairs=pairs,
        classes=given.classes,
        class_totals=given.class_totals,
        utility=given.utility,
        normalised_utility=normalised,
        metrics=tuple((m.id, m.name) for m in given.metrics),
        samples=given.samples if sampled or test_uncertainty else None,
        seed=seed,
        method=_DEPRECATED_METHOD_NAMES[given.estimator] if with_sd else None,
        test_uncertainty=None
        if posterior is None
        else _test_uncertainty_settings(posterior, given.samples, seed, float(given.class_totals.sum())),
        class_frequencies=None
        if weighted.deployment is None
        else _frequency_report(weighted.deployment, given.class_totals, given.classes),
        estimator=given.estimator if with_sd else None,
    )


# --- the steps of evaluate ------------------------------------------------------------------


@dataclass(frozen=True)
class _Given:
    """The inputs of :func:`evaluate`, checked (:func:`_read`)."""

    names: list[str]
    counts: np.ndarray  # (k, n, n) counts, in the input order of the classifiers
    classes: tuple[str, ...]
    class_totals: np.ndarray  # (n,) test items of each true class
    utility: UtilityAssessment  # with the sd and error model that apply
    estimator: str  # one of ESTIMATORS
    samples: int
    rng: np.random.SeedSequence  # the root of every stream (mcrank._rng)
    root_seed: int | None  # the root seed, to record, or None for a Generator
    prior_count: float
    metrics: list


@dataclass(frozen=True)
class _Weighted:
    """The confusion matrices that rank and score (:func:`_reweight`)."""

    fractions: np.ndarray  # (k, n, n) as frequencies: of the test set, or re-weighted to the deployment
    scored: np.ndarray  # what the metrics score: the counts, or the re-weighted frequencies
    items: float  # what a total utility is divided by to give the yield per item: N, or 1 re-weighted
    deployment: dict | None  # from _deployment_frequencies


@dataclass(frozen=True)
class _Ranking:
    """The ranking by utility yield (:func:`_rank`)."""

    totals: np.ndarray  # (k,) eq. (9) on the counts (or re-weighted frequencies), compared
    yields: np.ndarray  # (k,) per item
    scale: float  # of a tie of two totals: 0 when they are exact (see _compare)
    ranks: list  # competition ranks, 1 = best
    order: list  # classifier indices, best first (ties in input order)
    rows: list  # per a: (order[a], order[a + 1:]), the pairs in rank order, a row at a time
    signs: list  # per row: the sign of each pair's total-utility difference (0: tied)


def _read(confusions, utility, classes, sd, error, samples, rng, estimator, method, test_uncertainty, prior_count, class_counts,
          metrics, source, orientation) -> _Given:  # fmt: skip
    """Step 1: every input checked, in the order its faults are reported."""
    checked, classes = _check_confusions(confusions, classes, source, check_orientation(orientation))
    if not isinstance(utility, UtilityAssessment):
        utility = parse_utility(utility)
    n = len(classes)
    if utility.matrix.shape != (n, n):
        m = utility.matrix.shape[0]
        raise ValueError(f"{utility.source}: the utility matrix is {m}x{m} but the confusion matrices are {n}x{n}")
    if sd is not None:
        utility = replace(utility, sd=check_positive(sd, "sd"))
    if error is not None:
        utility = replace(utility, error=check_choice(error, ERROR_MODELS, "error model"))
        if utility.sd is None:
            raise ValueError(f"an error model ({error!r}) needs an error sd")
    samples = check_count(samples, "samples", maximum=MAX_SAMPLES)
    estimator = _check_estimator(estimator, method, utility.error)
    if test_uncertainty or class_counts is not None:
        prior_count = check_prior_count(prior_count)
    generator_given = isinstance(rng, np.random.Generator)
    # One root for every stream (mcrank._rng): a bad seed fails here, sd or not; a Generator
    # gives a root drawn from it, once.
    rng = root_of(rng)
    root_seed = int(rng.entropy) if not generator_given and rng.spawn_key == () else None
    chosen = metrics_for(n, metrics)
    names = list(checked)
    counts = np.array([checked[name] for name in names])
    return _Given(names, counts, classes, counts[0].sum(axis=0), utility, estimator, samples, rng, root_seed, prior_count, chosen)


def _estimator_name(value, what: str) -> str:
    """One of :data:`ESTIMATORS`, from its name or its deprecated name."""
    if isinstance(value, str):
        value = _DEPRECATED_ESTIMATOR_NAMES.get(value, value)
    return check_choice(value, ESTIMATORS, what).name


def _check_estimator(estimator, method, error: str) -> str:
    """The estimator of the flips under the utility's errors, by its name in :data:`ESTIMATORS`."""
    if method is not None:  # the deprecated name, with either vocabulary
        method = _estimator_name(method, "method")
        if estimator is not None and _estimator_name(estimator, "estimator") != method:
            raise ValueError(
                f"estimator {estimator!r} and method {method!r} disagree: give estimator alone (method is its deprecated name)"
            )
        estimator = method
    if estimator is None:
        return default_estimator(_has_closed_form(error)).name
    estimator = _estimator_name(estimator, "estimator")
    if ESTIMATORS[estimator].needs_closed_form and not _has_closed_form(error):
        raise ValueError(f"the {error} error model has no closed form: its flip probabilities take the estimator {SAMPLE!r} "
                         "(the conditional estimator needs gaussian errors)")  # fmt: skip
    return estimator


def _has_closed_form(error: str) -> bool:
    """Whether the error model's perturbed yield difference is normal (the conditional estimator
    applies), as its record in :data:`mcrank.error_models.ERROR_MODELS` says."""
    from mcrank.error_models import ERROR_MODELS as records

    return records[error].closed_form


def _reweight(given: _Given, class_frequencies, class_counts) -> _Weighted:
    """Step 2: the confusion matrices as frequencies, re-weighted to the deployment's class
    frequencies when they are given (paper §6)."""
    counts, class_totals = given.counts, given.class_totals
    deployment = _deployment_frequencies(class_frequencies, class_counts, class_totals, given.classes, given.prior_count)
    if deployment is None:
        return _Weighted(counts / class_totals.sum(), counts, class_totals.sum(), None)
    # Each column j scaled from the test set's class total to the deployment's pi_j (§6).
    # (C_ij / sum_i C_ij) * pi_j in that order: a full column is then exactly pi_j.
    fractions = np.divide(counts, class_totals, out=np.zeros(counts.shape), where=class_totals > 0) * deployment["pi"]
    return _Weighted(fractions, fractions, 1.0, deployment)


def _rank(given: _Given, weighted: _Weighted) -> _Ranking:
    """Step 3: the ranking by utility yield, eq. (9), with its ties (see :func:`evaluate`'s Notes)."""
    u = given.utility
    # Total utilities (eq. 9 on counts) are compared, then divided by N once; re-weighted,
    # the matrices are frequencies already, and their yields per item are compared.
    with np.errstate(over="ignore", invalid="ignore"):
        totals = utility_yield(u.matrix, given.counts if weighted.deployment is None else weighted.fractions)
    if not np.all(np.isfinite(totals)):
        raise ValueError(
            f"{u.source}: the utility yields overflow (utilities times counts beyond the largest float): "
            "rescale the utility matrix, which changes no ranking (eq. 10)"
        )
    with np.errstate(over="ignore"):  # the scale of a tie, at most the largest float
        largest = float(np.max(np.abs(u.matrix)) * weighted.items)
    # Whole utilities and counts below 2**53: exact totals, compared exactly (see Notes).
    exact = weighted.deployment is None and largest <= 2**53 and np.all(u.matrix == np.round(u.matrix))
    scale = 0.0 if exact else min(largest, sys.float_info.max)
    ranks = _competition_ranks(totals, scale)
    order = sorted(range(len(given.names)), key=lambda k: (ranks[k], -totals[k], k))
    # Pairs (order[a], order[b]) with a < b, a row of them per a: each row is compared at
    # once, so that the Python work grows with the number of classifiers, not of pairs.
    ranked = np.array(order, dtype=np.int64)
    rows = [(ranked[a], ranked[a + 1 :]) for a in range(len(order) - 1)]
    signs = [_compare(totals[first], totals[seconds], scale) for first, seconds in rows]
    return _Ranking(totals, totals / weighted.items, scale, ranks, order, rows, signs)


def _score(given: _Given, weighted: _Weighted) -> tuple[dict, dict]:
    """Step 4: each metric's score of every classifier (input order), and its ranks."""
    k = len(given.names)
    scores = {metric.id: np.asarray(metric(weighted.scored), dtype=float).reshape(k) for metric in given.metrics}
    return scores, {mid: _competition_ranks(values) for mid, values in scores.items()}


def _classifier_results(given: _Given, weighted: _Weighted, ranking: _Ranking, scores, metric_ranks) -> tuple:
    """The classifiers in rank order, with their yields, scores and ranks."""
    return tuple(
        ClassifierResult(
            name=given.names[k],
            rank=ranking.ranks[k],
            utility_yield=float(ranking.yields[k]),
            scores={mid: float(values[k]) for mid, values in scores.items()},
            ranks={mid: ranks[k] for mid, ranks in metric_ranks.items()},
            confusion=given.counts[k],
            deployment_confusion=None if weighted.deployment is None else weighted.fractions[k],
        )
        for k in ranking.order
    )


def _disagreements(given: _Given, ranking: _Ranking, scores, metric_ranks) -> tuple[Disagreement, ...]:
    """Step 4, continued: every metric whose ranking of a pair differs from the utility yield's."""
    names, disagreements = given.names, []
    for metric in given.metrics:
        values = scores[metric.id]
        flipped, tied, undefined = [], [], []
        for (first, seconds), by_utility in zip(ranking.rows, ranking.signs):
            nan = np.isnan(values[first]) | np.isnan(values[seconds])
            by_metric = _compare(values[first], values[seconds])
            disagree = ~nan & (by_utility != by_metric)
            flip = disagree & (by_utility * by_metric < 0)
            for kind, mask in ((undefined, nan), (flipped, flip), (tied, disagree & ~flip)):
                kind.extend((names[first], names[second]) for second in seconds[mask])
        if flipped or tied or undefined:
            best = tuple(names[k] for k in ranking.order if metric_ranks[metric.id][k] == 1)
            disagreements.append(Disagreement(metric.id, metric.name, tuple(flipped), tuple(tied), tuple(undefined), best))
    return tuple(disagreements)


def _flips_under_utility_error(given: _Given, weighted: _Weighted, ranking: _Ranking, normalised, progress) -> tuple:
    """Step 5: per pair in rank order, the probability that the utility's errors flip it, and
    the number of perturbed matrices that did (``sample`` estimator) or None; both None
    without an error sd."""
    u, pairs = given.utility, len(given.names) * (len(given.names) - 1) // 2
    if u.sd is None:
        return [None] * pairs, None
    if given.estimator == CONDITIONAL:
        # The yield differences from the totals that ranked, so that their signs agree;
        # under eq. (11) they are divided by the range of U.
        scale = float(np.max(u.matrix)) - float(np.min(u.matrix))
        with np.errstate(over="ignore"):
            ranked = ranking.yields[ranking.order] / scale
        return _conditional_flips(ranked, weighted.fractions[ranking.order], u.sd).tolist(), None
    counts = _count_flips(normalised, weighted.fractions, ranking.order, u.sd, u.error, given.samples, given.rng, progress)
    return (counts / given.samples).tolist(), counts.tolist()


def _flips_under_test_set(given: _Given, weighted: _Weighted, ranking: _Ranking, normalised, labels):
    """Step 6: the test set's posterior (:func:`posterior_uncertainty`): the yields'
    intervals, and per pair the flip probabilities under it, alone and with the utility's errors."""
    u, deployment = given.utility, weighted.deployment
    if labels is not None:
        _check_labels(labels, given.names, given.counts)
    perturbed = None
    if u.sd is not None:
        if not _has_closed_form(u.error):
            _check_truncated(normalised, given.classes, u.source)
        perturbed = partial(perturb_um, normalised, min(u.sd, _MAX_DRAWN_SD), error=u.error)
    frequencies = {} if deployment is None else ({"frequency_counts": deployment["counts"]} if deployment["source"] == "counts"
                                                 else {"frequencies": deployment["pi"]})  # fmt: skip
    signs = np.concatenate(ranking.signs) if ranking.rows else np.zeros(0)
    return posterior_uncertainty(u.matrix, given.counts, given.names, ranking.order, signs, labels=labels, samples=given.samples,
                                 prior_count=given.prior_count, perturbed=perturbed, rng=given.rng, **frequencies)  # fmt: skip


def _pairs(given: _Given, weighted: _Weighted, ranking: _Ranking, under_error, posterior) -> tuple[PairFlip, ...]:
    """Step 7: every pair in rank order, with its flip probabilities."""
    names, totals, sampled = given.names, ranking.totals, given.estimator == SAMPLE
    probabilities, counts = under_error
    pairs, index = [], 0
    for (a, seconds), by_utility in zip(ranking.rows, ranking.signs):
        for b, sign in zip(seconds.tolist(), by_utility.tolist()):
            difference = float((totals[a] - totals[b]) / weighted.items)
            f = probabilities[index]
            if sign == 0 or f is None:
                pair = PairFlip(names[a], names[b], difference, None, None, None)
            elif not sampled:
                pair = PairFlip(names[a], names[b], difference, f, None, None)
            else:
                pair = PairFlip(names[a], names[b], difference, f, math.sqrt(f * (1 - f) / given.samples), int(counts[index]))
            if posterior is not None and sign != 0:
                both = (
                    (None, None)
                    if posterior.flip_both is None
                    else (float(posterior.flip_both[index]), float(posterior.flip_both_se[index]))
                )
                pair = replace(pair, flip_probability_test=float(posterior.flip_test[index]),
                               flip_probability_test_se=None if posterior.flip_test_exact[index] else float(posterior.flip_test_se[index]),
                               flip_probability_both=both[0], flip_probability_both_se=both[1])  # fmt: skip
            index += 1
            pairs.append(pair)
    return tuple(pairs)


def _test_uncertainty_settings(posterior, samples: int, seed, items: float) -> dict:
    """The settings of the test-set posterior, as :attr:`Evaluation.test_uncertainty` holds them."""
    share = posterior.prior_count / items
    settings = {"model": posterior.model, "prior_mass": posterior.prior_count, "prior_share": share,
                "prior_count": posterior.prior_count,  # deprecated name of prior_mass (was the count on every cell)
                "samples": samples, "seed": seed, "interval": 0.95, "exact_pairs": int(posterior.flip_test_exact.sum())}  # fmt: skip
    if share > PRIOR_NOTE_SHARE:
        settings["note"] = (f"the prior weighs as {posterior.prior_count:g} of the {items:g} test items ({100 * share:.0f} %): "
                            "the intervals and probabilities lean on it as well as on the test set")  # fmt: skip
    return settings


def _check_frequency_vector(values, n: int, classes, what: str) -> np.ndarray:
    """``values`` as n finite, non-negative floats, with the first fault named by its class."""
    if isinstance(values, (str, bytes, dict)):
        raise ValueError(f"{what} must be a sequence of {n} numbers, one per class, got {values!r}")
    try:
        array = np.array([float(v) for v in values], dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{what} must be a sequence of {n} numbers, one per class ({', '.join(classes)})") from None
    if array.size != n:
        raise ValueError(f"{what} has {array.size} values but there are {n} classes ({', '.join(classes)})")
    for test, problem in ((np.isnan(array), "is NaN"), (np.isinf(array), "is infinite"), (array < 0, "is negative")):
        if len(bad := np.flatnonzero(test)):
            raise ValueError(f"{what}: the value of class {classes[bad[0]]!r}, {array[bad[0]]:g}, {problem}")
    return array


def _deployment_frequencies(class_frequencies, class_counts, class_totals, classes, prior_count) -> dict | None:
    """The deployment's class frequencies ``pi`` (paper §6), checked: given, or the posterior
    mean from registry counts; None when neither is given (the test set's own are used)."""
    if class_frequencies is None and class_counts is None:
        return None
    if class_frequencies is not None and class_counts is not None:
        raise ValueError("give class_frequencies or class_counts, not both: the counts make the frequencies uncertain")
    n = len(classes)
    if class_frequencies is not None:
        what = "class_frequencies"
        pi = _check_frequency_vector(class_frequencies, n, classes, what)
        if abs(pi.sum() - 1.0) > FREQUENCY_TOLERANCE:
            raise ValueError(f"{what} sum to {pi.sum():.10g}, not 1 (within {FREQUENCY_TOLERANCE:g})")
        pi, source, counts = pi / pi.sum(), "given", None
    else:
        what = "class_counts"
        counts = _check_frequency_vector(class_counts, n, classes, what)
        if len(bad := np.flatnonzero(counts != np.floor(counts))):
            raise ValueError(f"{what}: the value of class {classes[bad[0]]!r}, {counts[bad[0]]:g}, is not a whole number (they are counts)")
        if (total := sum(counts.tolist())) > _MAX_CLASS_COUNTS:  # inf when the sum overflows
            raise ValueError(f"{what} sum to {total:g}: at most 2**53 - 1 = {_MAX_CLASS_COUNTS}, as counts, above which they are "
                             "not exact in floating point")  # fmt: skip
        if not counts.any():
            raise ValueError(f"{what} are all 0: no cases to learn the deployment's class frequencies from")
        alpha = counts + prior_per_cell(prior_count, n)
        pi, source = alpha / alpha.sum(), "counts"
    if len(bad := np.flatnonzero((pi > 0) & (class_totals == 0))):
        j = bad[0]
        raise ValueError(f"{what}: class {classes[j]!r} has no test items but a deployment frequency of {pi[j]:.4g}: its "
                         "column of the confusion matrices is unknown; test on items of it"
                         + (" or give it frequency 0" if source == "given" else ""))  # fmt: skip
    return {"pi": pi, "source": source, "counts": counts, "prior_per_class": None if counts is None else prior_per_cell(prior_count, n)}


def _frequency_report(deployment: dict, class_totals, classes) -> dict:
    """What :attr:`Evaluation.class_frequencies` holds: the frequencies used, and the test set's own."""
    report = {
        "source": deployment["source"],
        "deployment": {name: float(p) for name, p in zip(classes, deployment["pi"])},
        "test_set": {name: float(t / class_totals.sum()) for name, t in zip(classes, class_totals)},
        "tolerance": FREQUENCY_TOLERANCE,
    }
    if deployment["counts"] is not None:
        report["counts"] = {name: float(k) for name, k in zip(classes, deployment["counts"])}
        report["prior_per_class"] = deployment["prior_per_class"]
    return report


def _check_labels(labels, names, counts) -> None:
    """Labels that are the test set of ``counts``: every classifier's, as many as the truths,
    and tabulating to its confusion matrix."""
    n = counts.shape[1]
    for name, confusion in zip(names, counts):
        if name not in labels.outputs:
            raise ValueError(f"labels: no outputs of classifier {name!r}")
        outputs = np.asarray(labels.outputs[name])
        if outputs.shape != np.shape(labels.truth):
            raise ValueError(f"labels: classifier {name!r} has {outputs.size} labels but the truth has {np.size(labels.truth)}")
        for what, codes in (("the truth", np.asarray(labels.truth)), (f"classifier {name!r}", outputs)):
            if bad := [k for k in np.unique(codes).tolist() if not 0 <= k < n]:  # else a bincount of the wrong size
                raise ValueError(f"labels: {what} has class index {bad[0]!r}, not one of 0..{n - 1}")
        table = np.bincount(outputs * n + labels.truth, minlength=n * n).reshape(n, n)
        if not np.array_equal(table, confusion):
            raise ValueError(f"labels: the labels of classifier {name!r} do not tabulate to its confusion matrix")


def _check_truncated(normalised: np.ndarray, classes, where: str) -> None:
    """The truncated error model keeps correct classification best in each column: so must ``U``."""
    if len(bad := np.argwhere((normalised > np.diagonal(normalised)).T)):
        j, i = bad[0]
        raise ValueError(
            f"{where}: the truncated error model keeps correct classification best in each column, "
            f"but in column {j} (true {classes[j]!r}) row {i} has a higher utility than row {j}"
        )


def _conditional_flips(ranked_yields, ranked_confusions, sd) -> np.ndarray:
    """Exactly, for each pair ``(a, b)`` of classifiers in rank order, ``a < b``, in the order
    (0, 1), (0, 2), ..., (1, 2), ...: the probability that gaussian errors of sd ``sd`` on the
    normalised utility matrix do not put ``a`` strictly ahead. ``ranked_yields`` are the
    yields under the normalised matrix (or differ from them by a constant), and
    ``ranked_confusions`` the confusion matrices as fractions of the test set.

    The perturbed yield difference ``sum((U + sd Z) * (C_a - C_b))`` is normal, with mean
    the difference ``d`` under ``U`` and sd ``sd ||C_a - C_b||_F``: the flip probability is
    ``Phi(-d / (sd ||C_a - C_b||_F))``, the study's conditional estimator
    (:func:`mcrank.engine.conditional.incorrect_probability`). A pair with equal matrices
    (``d = 0``) gets 1, step 6's tie; the caller reports it as a tie.
    """
    # Imported here: mcrank.engine's package imports every kernel and the study layer, which a
    # ranking without an error sd does not need.
    from mcrank.engine.conditional import incorrect_probability

    flat = ranked_confusions.reshape(len(ranked_confusions), -1)
    probabilities = []
    for a in range(len(flat) - 1):
        difference = flat[a] - flat[a + 1 :]
        spread = np.sqrt(np.sum(difference * difference, axis=1))
        with np.errstate(over="ignore", invalid="ignore"):
            margin = ranked_yields[a] - ranked_yields[a + 1 :]
        probabilities.append(incorrect_probability(margin, spread, sd))
    return np.concatenate(probabilities) if probabilities else np.zeros(0)


def _count_flips(normalised, confusions, order, sd, error, samples, rng, progress=False):
    """Monte Carlo: for each pair ``(order[a], order[b])``, ``a < b``, in that order, how many
    of ``samples`` perturbed utility matrices fail to put ``order[a]`` strictly ahead.

    All pairs share the same perturbed matrices (common random numbers), drawn in chunks from
    one Generator, the stream ``UTILITY_ERRORS`` of the root ``rng``
    (:func:`mcrank._rng.stream_generator`; the test-set posterior draws its perturbed matrices
    from it too), so that the counts depend neither on the chunk size nor on the options that
    draw other quantities. A chunk holds at most
    :data:`_CHUNK_ELEMENTS` elements of perturbed matrices and of yields, and the pairs are
    compared by :func:`_count_not_ahead` in tiles of samples, so that the work space grows
    with neither the number of samples nor that of pairs (the square of the number of
    classifiers).

    Gaussian errors larger than :data:`_MAX_DRAWN_SD` are drawn with that sd. Above it, the
    perturbed matrix ``U + sd * Z`` (``U`` in [0, 1], ``|Z| < 14``) is ``sd * Z`` to double
    precision, and the rankings are those of ``Z`` whatever the sd (on the examples, the
    counts are identical for sds from 1e20 to 1e307); drawn with a larger sd, ``sd * Z``
    could overflow to inf, and the yields become NaN (inf - inf) with a RuntimeWarning.
    """
    if _has_closed_form(error):  # unbounded normal errors: see above
        sd = min(sd, _MAX_DRAWN_SD)
    generator = stream_generator(root_of(rng), UTILITY_ERRORS)
    n, classifiers = normalised.shape[0], len(confusions)
    chunk = max(1, _CHUNK_ELEMENTS // (n * n + classifiers))
    flips = np.zeros(classifiers * (classifiers - 1) // 2, dtype=np.int64)
    flat_confusions = confusions.reshape(classifiers, -1)
    from tqdm import tqdm  # only when drawing: the command line starts without it

    with tqdm(total=samples, unit="sample", unit_scale=True, disable=not progress, file=sys.stderr, leave=False) as bar:
        for done in range(0, samples, chunk):
            size = min(chunk, samples - done)
            perturbed = perturb_um(normalised, sd, error=error, size=size, rng=generator)
            # Eq. (9) as one matrix product, (size, n*n) @ (n*n, classifiers): utility_yield would
            # broadcast through a (size, classifiers, n, n) temporary, classifiers times the chunk.
            # Then one row per classifier, in rank order: the pairs of order[a] are rows a + 1 on.
            ranked_yields = (perturbed.reshape(size, -1) @ flat_confusions.T).T[order]
            _count_not_ahead(ranked_yields, flips)
            bar.update(size)
    return flips


#: Samples whose yields :func:`_count_not_ahead` compares together: the yields of every
#: classifier at this many samples stay in cache while every pair is compared.
_FLIP_TILE = 256


@jit
def _count_not_ahead(ranked_yields, flips):
    """For each pair ``a < b`` of rows of ``ranked_yields`` (classifiers in rank order, one
    column per perturbed matrix), in the order (0, 1), (0, 2), ..., (1, 2), ...: add to
    ``flips`` the number of columns in which row ``b`` is not strictly below row ``a``.

    The columns are taken :data:`_FLIP_TILE` at a time, all pairs for each tile, so that
    the work space stays in cache whatever the numbers of classifiers and samples. Each
    tile is copied into a buffer of its own: rows of a whole buffer, indexed from 0, are
    what the compiler vectorises (eight times faster than rows of a slice, measured).
    """
    classifiers, size = ranked_yields.shape
    tile = np.empty((classifiers, _FLIP_TILE))
    for first in range(0, size, _FLIP_TILE):
        m = min(_FLIP_TILE, size - first)
        for a in range(classifiers):
            for s in range(m):
                tile[a, s] = ranked_yields[a, first + s]
        pair = 0
        for a in range(classifiers - 1):
            ahead = tile[a]
            for b in range(a + 1, classifiers):
                other = tile[b]
                count = 0
                for s in range(m):
                    count += other[s] >= ahead[s]
                flips[pair] += count
                pair += 1


def evaluate_file(
    path,
    *,
    utility=None,
    labels: bool = False,
    truth: str = "true",
    classes=None,
    orientation: str | None = None,
    sd: float | None = None,
    error: str | None = None,
    samples: int = DEFAULT_SAMPLES,
    rng=None,
    estimator: str | None = None,
    test_uncertainty: bool = False,
    prior_count: float = DEFAULT_PRIOR_COUNT,
    class_frequencies=None,
    class_counts=None,
    metrics=None,
    progress: bool = False,
) -> Evaluation:
    """Evaluate the classifiers of an input file: :func:`load_input` (or :func:`load_labels`),
    then :func:`evaluate`.

    Parameters
    ----------
    path : str or Path
        A JSON or CSV file of confusion matrices (see :func:`load_input`), or with
        ``labels=True`` a CSV file of labels, one row per test item (see :func:`load_labels`).
    utility : str or Path, optional
        JSON text or a JSON file with the utility matrix (see :func:`read_utility`); it
        overrides the file's. Its class names, if any, give the class order of a CSV file
        and must match those of a JSON file. A CSV file that names its classes (rather than
        numbering them 0..n-1) needs them (or ``classes``): ValueError otherwise, since the
        order in which the names first appear is no order the user chose. A file of labels
        needs a utility; its class order is :func:`mcrank.evaluate.targets.class_order`'s,
        and the result's ``class_order`` says which rule gave it.
    labels : bool, default False
        Read ``path`` as labels, one row per test item.
    truth : str, default "true"
        With ``labels``, the column of true classes.
    classes : sequence of str, optional
        The class order of the utility matrix's rows and columns, as the user names it
        (``--classes``): as the utility's ``classes`` do, and equal to them when both are
        given (:func:`mcrank.evaluate.targets.class_order`).
    orientation : {"decision-by-class", "sklearn"}, optional
        The orientation of a JSON file's confusion matrices (:func:`load_input`).
    sd, error, samples, rng, estimator, test_uncertainty, prior_count, class_frequencies, class_counts, metrics, progress
        As for :func:`evaluate`; ``sd`` and ``error`` override those of the utility. With
        ``labels``, the test-set uncertainty keeps the pairing of the items.

    Returns
    -------
    Evaluation

    Raises
    ------
    TypeError
        If ``path`` is not a path (``None``), or ``utility`` neither JSON text nor a path.
    """
    utility_classes, classes_source = None, "classes"
    assessment = None
    if utility is not None:
        assessment, utility_classes = read_utility(utility)
        # The file (or option) the class names came from, for a message about them.
        classes_source = assessment.source.removesuffix(": utility")
    if classes is not None:
        classes = tuple(map(str, classes))
        if utility_classes is not None and classes != utility_classes:
            raise ValueError(f"classes: {', '.join(map(repr, classes))} but the utility names its classes "
                             f"{', '.join(map(repr, utility_classes))}: give one order")  # fmt: skip
    if labels and orientation is not None:
        raise ValueError(f"orientation: {os.fspath(path)} holds labels, which name each item's output and true class; the "
                         "orientation is that of confusion matrices given as arrays (JSON)")  # fmt: skip
    if labels:
        if assessment is None:
            raise ValueError(
                f"{os.fspath(path)}: labels need a utility matrix: give one with the parameter utility (and its 'classes' to fix their order)"
            )
        # The utility's size checked before the n^2 cells of each classifier are tabulated.
        data = load_labels(path, classes=classes, utility_classes=utility_classes, classes_source=classes_source, truth=truth,
                           n_classes=len(assessment.matrix))  # fmt: skip
        result = evaluate(data.confusions, assessment, classes=data.classes, sd=sd, error=error, samples=samples, rng=rng, estimator=estimator,
                          test_uncertainty=test_uncertainty, prior_count=prior_count, labels=data.labels, metrics=metrics,
                          class_frequencies=class_frequencies, class_counts=class_counts,
                          source=data.source, progress=progress)  # fmt: skip
        return replace(result, class_order=data.class_order)
    utility_classes = classes if classes is not None else utility_classes
    data = load_input(
        path, classes=utility_classes, orientation=orientation, classes_source="classes" if classes is not None else classes_source
    )
    csv_input = Path(data.source).suffix.lower() == ".csv"  # a CSV holds no utility matrix
    if assessment is None:
        assessment = data.utility
    # A CSV that names its classes needs their order from the utility; else it would be that
    # in which the names first appear, and reordering the rows of the file would swap the
    # utility matrix's rows and columns, silently.
    named_csv = csv_input and data.classes is not None and utility_classes is None
    with_classes = ('as {"utility": ..., "classes": [...]}, the matrix (or distribution) with the classes in its order, '
                    "or name the order with the parameter classes")  # fmt: skip
    if assessment is None:
        where = "add a 'utility' to the file or give one with the parameter utility"
        if csv_input:
            where = f"give one with the parameter utility{', ' + with_classes if named_csv else ''}"
        raise ValueError(f"{data.source}: no utility matrix: the ranking needs the problem's utilities; {where}")
    if named_csv:
        names = ", ".join(map(repr, data.classes))
        raise ValueError(
            f"{data.source}: the file names its classes ({names}), so the utility matrix must say their order: "
            f"give it {with_classes} (or number the classes 0..n-1 in the file)"
        )
    if data.classes is not None and utility_classes is not None and tuple(data.classes) != tuple(utility_classes):
        named_by = "the parameter classes names" if classes is not None else f"{assessment.source} has"
        raise ValueError(
            f"class names do not match: {data.source} has {', '.join(data.classes)} but {named_by} {', '.join(utility_classes)}"
        )
    classes = data.classes if data.classes is not None else utility_classes
    result = evaluate(
        data.confusions,
        assessment,
        classes=classes,
        sd=sd,
        error=error,
        samples=samples,
        rng=rng,
        estimator=estimator,
        test_uncertainty=test_uncertainty,
        prior_count=prior_count,
        class_frequencies=class_frequencies,
        class_counts=class_counts,
        metrics=metrics,
        source=data.source,
        progress=progress,
    )
    return replace(result, description=data.description)


def evaluate_predictions(y_true, predictions, utility, *, classes=None, **evaluate_options) -> Evaluation:
    """Rank classifiers from their predictions on one labelled test set, in one call.

    The labels stay paired item by item (:func:`mcrank.evaluate.input.labels_from_predictions`),
    so that with ``test_uncertainty=True`` each pair's test-set flip probability is the exact
    one of its joint table (true class, one's output, the other's), as ``mcrank evaluate``
    gives it for a file of labels.

    Parameters
    ----------
    y_true : array_like of shape (items,)
        The true labels.
    predictions : dict of str to array_like of shape (items,)
        Per classifier, its outputs (``predict(X)``) for the same items, in the same order.
    utility : array_like of shape (n, n), dict or UtilityAssessment
        The utility matrix (rows = decision, columns = true class), in any form of
        :func:`parse_utility`, or ``{"utility": ..., "classes": [...]}`` with its class names.
    classes : sequence, optional
        The labels in the utility matrix's order. Without it, the utility's class names give
        the order, else labels that are the integers ``0..n-1`` or booleans their natural
        one; other labels (text) are refused: the order is not guessed
        (:func:`mcrank.evaluate.targets.class_order`). Their ``str`` names the classes.
    **evaluate_options
        Any keyword of :func:`evaluate` but ``classes`` and ``labels`` (``sd``,
        ``test_uncertainty``, ``rng``, ``class_frequencies``, ``metrics``, ...).

    Returns
    -------
    Evaluation
        ``str()`` of it is the report, ``to_records()`` and ``to_frame()`` the table.

    Examples
    --------
    >>> from mcrank.evaluate import evaluate_predictions
    >>> y_true = ["long"] * 50 + ["short"] * 50
    >>> y_a = ["long"] * 27 + ["short"] * 23 + ["long"] * 15 + ["short"] * 35
    >>> y_b = ["long"] * 43 + ["short"] * 7 + ["long"] * 18 + ["short"] * 32
    >>> result = evaluate_predictions(y_true, {"A": y_a, "B": y_b}, [[15, -335], [-35, 165]], classes=["long", "short"])
    >>> [(row["classifier"], row["utility_yield"], row["accuracy"]) for row in result.to_records()]
    [('A', 3.5, 0.62), ('B', -3.5, 0.75)]
    """
    from mcrank.evaluate.input import predictions_in_class_order

    for taken in ("labels", "source"):
        if taken in evaluate_options:
            raise TypeError(f"evaluate_predictions() takes no {taken!r}: the labels are y_true and predictions")
    assessment, confusions, order, labels, source = predictions_in_class_order(y_true, predictions, utility, classes)
    result = evaluate(confusions, assessment, classes=[str(c) for c in order], labels=labels, **evaluate_options)
    return replace(result, class_order=source)
