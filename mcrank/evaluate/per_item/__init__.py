r"""Per-item utilities: when each item's decision is worth its own amount.

A **per-item utility** is an array ``U[k, i, j]``: the utility, for item ``k``, of decision
``i`` when the true class is ``j`` (decisions by row, classes in the one class order of
:mod:`mcrank.evaluate.targets`). A missed fraud costs its amount; a refused legitimate
transaction forfeits a fee proportional to it. The yield of decisions ``d_k`` on items of
true class ``y_k`` is the mean utility per item, :math:`\frac1N \sum_k U_{k, d_k, y_k}`; with
``U[k] = U`` for every ``k`` it is the yield of eq. (9).

The common form is **affine** in named columns of the items' table (:class:`AffineUtility`):
each cell is a constant plus coefficients times columns, as JSON::

    {"classes": ["fraud", "legitimate"], "decisions": ["refuse", "accept"],
     "cells": {"refuse": {"fraud": 50, "legitimate": -5},
               "accept": {"fraud": {"amount": -1}, "legitimate": {"amount": 0.02}}}}

A cell is a number (a constant) or an object of coefficients by column name, with an
optional ``"constant"``; every cell is given. ``decisions`` defaults to the classes (a square
utility); more decisions than classes ("ask for another check") work as everywhere.

**The average-cost matrix** is the per-item utility averaged over the items,
:func:`average_matrix`: the one matrix that gives the same yield to every set of decisions
when the amounts are independent of the decisions and classes. It is what a confusion
matrix can be ranked by; where per-item utilities matter, it can rank otherwise.

**Test-set uncertainty** (:func:`bayesian_bootstrap`): the Bayesian bootstrap (Rubin 1981),
item weights ``w ~ Dirichlet(1, ..., 1)``, plus one pseudo-item per cell of the full joint
table (true class, every model's decision) of weight ``C / cells`` (``C`` the prior's total
count, 1 by default: the weight of one test item), whose utility for a model is the average
per-item utility of that model's decision and the cell's class over the test set
(:func:`average_matrix`). The weights of the items of a joint cell, and of its pseudo-item,
sum (by aggregation of a Dirichlet) to the cell's weight under Dirichlet(counts + C / cells):
with a constant utility it is exactly the joint-cell posterior of
:mod:`mcrank.evaluate.uncertainty`, so there is one posterior.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from mcrank._rng import PER_ITEM_POSTERIOR, root_of, stream_generator
from mcrank._validation import (
    MAX_EVALUATE_SAMPLES,
    array_input,
    check_count,
    check_kept_draws,
    check_real,
    columns_input,
    parse_float,
    parse_floats,
)
from mcrank.evaluate.posterior import DEFAULT_PRIOR_COUNT, bootstrap_means
from mcrank.evaluate.protocol import ResultProtocol
from mcrank.evaluate.result import DEFAULT_PER_ITEM_SAMPLES, rendering

__all__ = [
    "CONSTANT",
    "AffineUtility",
    "PerItemPosterior",
    "average_matrix",
    "bayesian_bootstrap",
    "check_item_columns",
    "PerItemEvaluation",
    "check_per_item",
    "dirichlet_weighted_means",
    "evaluate_per_item",
    "evaluate_per_item_scores",
    "is_affine",
    "item_utilities",
    "load_item_table",
    "parse_affine",
    "per_item_yield",
    "read_affine",
]

#: The key of a cell's constant term in the affine JSON form.
CONSTANT = "constant"
#: The most cells of the full joint table (true class, every model's decision) the posterior
#: draws a pseudo-item for: 2^16, 15 two-class models (or 9 three-class ones) at once; each cell
#: costs one gamma variate per draw, held as draws x cells.
MAX_JOINT_CELLS = 1 << 16
#: The central interval of a yield.
INTERVAL = 0.95


@dataclass(frozen=True)
class AffineUtility:
    """A utility affine in named columns of the items' table: per cell, a constant plus
    coefficients times columns.

    Attributes
    ----------
    classes : tuple of str
        The true classes, in the order of the columns of every matrix.
    decisions : tuple of str
        The decisions, in the order of the rows.
    constant : ndarray of shape (decisions, classes)
    coefficients : dict of str to ndarray of shape (decisions, classes)
        Per column name, its coefficient in every cell (0 where a cell does not name it).
    """

    classes: tuple
    decisions: tuple
    constant: np.ndarray
    coefficients: dict

    @property
    def columns(self) -> tuple[str, ...]:
        """The names of the columns the utility reads."""
        return tuple(self.coefficients)

    def array(self, columns: Mapping) -> np.ndarray:
        """``U[k, i, j]`` for the items whose columns are ``columns`` (checked by
        :func:`check_item_columns`)."""
        values = check_item_columns(columns, self.columns)
        n_items = len(next(iter(values.values()))) if values else 1
        u = np.broadcast_to(self.constant, (n_items, *self.constant.shape)).copy()
        for name, coefficient in self.coefficients.items():
            u += values[name][:, None, None] * coefficient
        return u

    def to_dict(self) -> dict:
        """The JSON form (:func:`parse_affine` reads it back)."""
        cells = {}
        for i, decision in enumerate(self.decisions):
            row = {}
            for j, label in enumerate(self.classes):
                terms = {name: float(c[i, j]) for name, c in self.coefficients.items() if c[i, j] != 0}
                if not terms:
                    row[label] = float(self.constant[i, j])
                else:
                    row[label] = ({CONSTANT: float(self.constant[i, j])} if self.constant[i, j] != 0 else {}) | terms
            cells[decision] = row
        return {"classes": list(self.classes), "decisions": list(self.decisions), "cells": cells}


def is_affine(value) -> bool:
    """Whether a parsed JSON value is the affine per-item form (an object with ``"cells"``)."""
    return isinstance(value, Mapping) and "cells" in value


def _number(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{where}: {value!r} is not a finite number")
    check_real(value, where)  # an integer of 400 digits: too large, which isfinite cannot say
    if not math.isfinite(value):
        raise ValueError(f"{where}: {value!r} is not a finite number")
    return float(value)


def _names(value, key: str, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{source}: {key!r} must be a non-empty list of names (strings)")
    if len(set(value)) != len(value):
        raise ValueError(f"{source}: {next(v for v in value if value.count(v) > 1)!r} appears twice in {key!r}")
    return tuple(value)


def parse_affine(value, *, source: str = "utility") -> AffineUtility:
    """Read the affine per-item form (the module's docstring) from its parsed JSON.

    Raises
    ------
    ValueError
        Naming ``source`` and the place: an unknown key, no classes, a decision or class in
        ``cells`` that does not exist, a cell not given, a coefficient that is not a finite
        number.
    """
    if not is_affine(value):
        raise ValueError(f'{source}: a per-item utility is an object {{"classes": [...], "decisions": [...], "cells": {{...}}}}')
    if unknown := sorted(set(value) - {"classes", "decisions", "cells", "description"}):
        raise ValueError(f"{source}: unknown key {unknown[0]!r} (a per-item utility has classes, decisions, cells)")
    if "classes" not in value:
        raise ValueError(f"{source}: a per-item utility names its 'classes' (the order of its columns)")
    classes = _names(value["classes"], "classes", source)
    decisions = _names(value["decisions"], "decisions", source) if "decisions" in value else classes
    cells = value["cells"]
    if not isinstance(cells, Mapping):
        raise ValueError(f"{source}: 'cells' must be an object of decisions, each an object of classes")
    if unknown := [d for d in cells if d not in decisions]:
        raise ValueError(f"{source}: cells: {unknown[0]!r} is not a decision (the decisions are {', '.join(decisions)})")
    constant = np.zeros((len(decisions), len(classes)))
    coefficients: dict[str, np.ndarray] = {}
    for i, decision in enumerate(decisions):
        row = cells.get(decision)
        if not isinstance(row, Mapping):
            raise ValueError(f"{source}: cells: no row for decision {decision!r} (an object of its utility per class)")
        if unknown := [c for c in row if c not in classes]:
            raise ValueError(f"{source}: cells: {decision}: {unknown[0]!r} is not a class (the classes are {', '.join(classes)})")
        for j, label in enumerate(classes):
            where = f"{source}: cells: {decision}: {label}"
            if label not in row:
                raise ValueError(f"{where}: not given (give every cell: a number, or coefficients by column)")
            cell = row[label]
            if isinstance(cell, Mapping):
                for name, coefficient in cell.items():
                    if not isinstance(name, str) or not name:
                        raise ValueError(f"{where}: {name!r} is not a column name")
                    if name == CONSTANT:
                        constant[i, j] = _number(coefficient, f"{where}: {CONSTANT}")
                    else:
                        coefficients.setdefault(name, np.zeros_like(constant))[i, j] = _number(coefficient, f"{where}: {name}")
            else:
                constant[i, j] = _number(cell, where)
    return AffineUtility(classes, decisions, constant, coefficients)


def check_item_columns(columns: Mapping, names, *, n_items: int | None = None, what: str = "columns") -> dict[str, np.ndarray]:
    """The named columns of the items' table as finite float arrays of one length.

    Raises
    ------
    ValueError
        Naming ``what`` and the column: missing, not one-dimensional, not numeric, NaN or
        infinite, or of another length than ``n_items`` (or than the others).
    """
    values = {}
    columns = columns_input(columns, what)
    for name in names:
        if name not in columns:
            given = ", ".join(map(repr, columns)) or "none"
            raise ValueError(f"{what}: no column {name!r}, which the per-item utility reads (the columns given: {given})")
        column = array_input(columns[name], f"{what}: column {name!r}")
        try:
            array = np.asarray(column, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{what}: column {name!r} is not numeric") from None
        if array.ndim != 1:
            raise ValueError(f"{what}: column {name!r} must be one value per item, got shape {array.shape}")
        if not np.all(np.isfinite(array)):
            k = int(np.flatnonzero(~np.isfinite(array))[0])
            raise ValueError(f"{what}: column {name!r} is {array[k]} at item {k}: per-item utilities must be finite")
        if n_items is None:
            n_items = array.shape[0]
        if array.shape[0] != n_items:
            raise ValueError(f"{what}: column {name!r} has {array.shape[0]} values but there are {n_items} items")
        values[name] = array
    return values


def check_per_item(utility, n_items: int, *, n_classes: int | None = None, what: str = "utility") -> np.ndarray:
    """A per-item utility array ``U[k, i, j]`` of ``n_items`` items, checked.

    Raises
    ------
    ValueError
        Naming ``what``: not numeric, not of shape (items, decisions, classes), another number
        of items or classes, NaN or infinite values.
    """
    utility = array_input(utility, what)
    try:
        u = np.asarray(utility, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a numeric array of shape (items, decisions, classes)") from None
    if u.ndim != 3 or 0 in u.shape[1:]:
        raise ValueError(f"{what} must have shape (items, decisions, classes), got shape {u.shape}")
    if u.shape[0] != n_items:
        raise ValueError(f"{what} has {u.shape[0]} items (its first axis) but there are {n_items}")
    if n_classes is not None and u.shape[2] != n_classes:
        raise ValueError(f"{what} has {u.shape[2]} classes (its last axis) but there are {n_classes}")
    if not np.all(np.isfinite(u)):
        raise ValueError(f"{what} contains NaN or infinite values")
    return u


def _check_sums(u: np.ndarray) -> None:
    """Refuse utilities whose sums over the items, weighted by the bootstrap (whose weights
    exceed 1 by a factor of at most a few dozen), could overflow: naming the items, where NumPy
    warned of an overflow and the yield was infinite."""
    limit = np.finfo(float).max / (64 * u.shape[0])
    largest = np.max(np.abs(u), axis=(1, 2))
    if np.any(largest > limit):
        items = np.flatnonzero(largest > limit)
        named = ", ".join(map(str, items[:5].tolist())) + (f" and {items.size - 5} more" if items.size > 5 else "")
        raise ValueError(f"utility: the utilities of item{'s' if items.size > 1 else ''} {named} (up to {largest.max():.3g} in "
                         f"absolute value) overflow in their sum over the {u.shape[0]} items: at most {limit:.3g}; scale the utility down")  # fmt: skip


def item_utilities(utility: np.ndarray, truth: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """``U[k, d_k, y_k]`` for every item: the utility each item's decision earned."""
    return utility[np.arange(truth.shape[0]), decisions, truth]


def per_item_yield(utility: np.ndarray, truth: np.ndarray, decisions: np.ndarray) -> float:
    """The mean utility per item of decisions ``decisions`` on items of true class ``truth``."""
    return float(item_utilities(utility, truth, decisions).mean())


def average_matrix(utility: np.ndarray) -> np.ndarray:
    """The average-cost matrix: the per-item utility averaged over the items, (decisions, classes)."""
    return utility.mean(axis=0)


#: The Bayesian bootstrap of the mean over items, with pseudo-items: the one posterior's
#: (:func:`mcrank.evaluate.posterior.bootstrap_means`).
dirichlet_weighted_means = bootstrap_means


@dataclass(frozen=True)
class PerItemPosterior:
    """The Bayesian bootstrap's answer (:func:`bayesian_bootstrap`).

    Attributes
    ----------
    intervals : dict of str to (float, float)
        Each model's central 95 % posterior interval of its per-item yield.
    probability_above : ndarray of shape (m, m)
        ``[a, b]``: the posterior probability that model ``a``'s yield is above ``b``'s.
    probability_best : dict of str to float
        The posterior probability that the model's yield is the highest.
    samples, prior_count : int, float
    draws : ndarray of shape (samples, m)
        The posterior draws of the yields, in the order of the models (for differences).
    """

    intervals: dict
    probability_above: np.ndarray
    probability_best: dict
    samples: int
    prior_count: float
    draws: np.ndarray = field(repr=False, compare=False, default=None)


def bayesian_bootstrap(utility: np.ndarray, truth: np.ndarray, decisions: Mapping, *, samples: int = DEFAULT_PER_ITEM_SAMPLES,
                       prior_count: float = DEFAULT_PRIOR_COUNT, rng=None) -> PerItemPosterior:  # fmt: skip
    """The test-set posterior of models' per-item yields: items plus one pseudo-item per joint cell.

    The Bayesian bootstrap over the items, ``Dirichlet(1, ..., 1)``, plus one pseudo-item per
    cell of the full joint table (true class, each model's decision), of weight
    ``prior_count / cells``, whose value for a model is the average-cost matrix
    (:func:`average_matrix`) at that model's decision and the cell's class. With a constant
    utility this is the joint-cell posterior Dirichlet(counts + prior_count / cells) of
    :mod:`mcrank.evaluate.uncertainty`.

    Parameters
    ----------
    utility : ndarray of shape (items, decisions, classes)
    truth : ndarray of int of shape (items,)
    decisions : dict of str to ndarray of int of shape (items,)
        Each model's decisions (row indices of the utility).
    samples : int
    prior_count : float
    rng : int, SeedSequence, Generator or None
        Root of the streams; the draws come from the stream ``PER_ITEM_POSTERIOR``.
    """
    names = list(decisions)
    n_items, n_decisions, n_classes = utility.shape
    values = np.column_stack([item_utilities(utility, truth, decisions[name]) for name in names])
    average = average_matrix(utility)
    # The full joint table: class, then each model's decision; cells = classes x decisions^m.
    shape = (n_classes, *([n_decisions] * len(names)))
    cells = math.prod(shape)
    if cells > MAX_JOINT_CELLS:
        raise ValueError(f"test_uncertainty: {len(names)} models make a joint table of {cells:,} cells (one pseudo-item each), "
                         f"above {MAX_JOINT_CELLS:,}: compare fewer models at once")  # fmt: skip
    grid = np.indices(shape).reshape(len(shape), cells)
    extra_values = np.column_stack([average[grid[1 + m], grid[0]] for m in range(len(names))])
    extra_weights = np.full(cells, prior_count / cells)
    generator = stream_generator(root_of(rng), PER_ITEM_POSTERIOR)
    draws = bootstrap_means(values, samples, generator, extra_values=extra_values, extra_weights=extra_weights)
    tail = (1 - INTERVAL) / 2
    intervals = {name: tuple(float(q) for q in np.quantile(draws[:, m], (tail, 1 - tail))) for m, name in enumerate(names)}
    above = (draws[:, :, None] > draws[:, None, :]).mean(axis=0)
    best = np.bincount(np.argmax(draws, axis=1), minlength=len(names)) / samples
    return PerItemPosterior(intervals, above, dict(zip(names, best.tolist(), strict=True)), samples, prior_count, draws)


# --- evaluate with per-item utilities ------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class PerItemEvaluation(ResultProtocol):
    """Models ranked by their per-item yield, beside the average-cost matrix and the popular metrics.

    Attributes
    ----------
    classes, decisions : tuple
        The class order (columns) and the decisions (rows) of the utility.
    class_order : str
        Where the class order came from (:data:`mcrank.evaluate.targets.CLASS_ORDERS`).
    items : int
    class_counts : ndarray of int, shape (classes,)
    columns : tuple of str
        The item columns the utility reads (empty for an array given in Python).
    yields : dict of str to float
        Each model's mean utility per item.
    ranks : dict of str to int
        By yield, 1 = best; ties share a rank.
    average_matrix : ndarray of shape (decisions, classes)
        The per-item utility averaged over the items (:func:`average_matrix`).
    average_yields, average_ranks : dict
        Each model's yield and rank under the average-cost matrix (from its confusion matrix).
    scores, metric_ranks : dict of str to dict
        Per metric id, each model's score and rank (empty when decisions are not classes).
    disagreements : dict of str to list of (str, str)
        Per ranking ("average-cost matrix" or a metric id), the pairs ``(a, b)`` whose per-item
        yields put ``a`` above ``b`` while it puts ``b`` above ``a``.
    posterior : PerItemPosterior or None
    """

    classes: tuple
    decisions: tuple
    class_order: str
    items: int
    class_counts: np.ndarray
    columns: tuple
    yields: dict
    ranks: dict
    average_matrix: np.ndarray
    average_yields: dict
    average_ranks: dict
    scores: dict
    metric_ranks: dict
    disagreements: dict
    posterior: PerItemPosterior | None = None

    def __str__(self) -> str:
        return rendering(self, "text")(self)

    def to_records(self) -> list[dict]:
        """One dict per model, best first (:func:`mcrank.evaluate.per_item.report.records`)."""
        return rendering(self, "records")(self)

    def to_dict(self) -> dict:
        """JSON-ready (:func:`mcrank.evaluate.per_item.report.to_dict`)."""
        return rendering(self, "dict")(self)


def _ranks(values: dict) -> dict:
    """Competition ranks, 1 = highest; equal values share a rank."""
    return {name: 1 + sum(other > value for other in values.values()) for name, value in values.items()}


def _disagreeing(yields: dict, other: dict, higher_is_better: bool = True) -> list[tuple[str, str]]:
    names = sorted(yields, key=lambda m: -yields[m])
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if yields[a] > yields[b] and math.isfinite(other[a]) and math.isfinite(other[b]):
                if (other[b] > other[a]) if higher_is_better else (other[b] < other[a]):
                    pairs.append((a, b))
    return pairs


def _indexer(order: tuple, values, what: str) -> np.ndarray:
    """Positions in ``order`` of every label of ``values`` (labels matched as they are or by their text)."""
    lookup = {label: k for k, label in enumerate(order)} | {str(label): k for k, label in enumerate(order)}
    values = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    try:
        return np.fromiter(map(lookup.__getitem__, values.tolist()), dtype=np.intp, count=len(values))
    except (KeyError, TypeError):
        bad = next(v for v in values.tolist() if not isinstance(v, (str, int, float, bool)) or v not in lookup)
        raise ValueError(f"{what}: label {bad!r} is not one of {', '.join(map(str, order))}") from None


def evaluate_per_item(y_true, predictions, utility, *, columns=None, classes=None, decisions=None, metrics=None,
                      test_uncertainty: bool = False, samples: int = DEFAULT_PER_ITEM_SAMPLES, prior_count: float = DEFAULT_PRIOR_COUNT, rng=None) -> PerItemEvaluation:  # fmt: skip
    """Rank models by their mean utility per item, with a per-item utility.

    Parameters
    ----------
    y_true : array_like of shape (items,)
        The true classes.
    predictions : dict of str to array_like of shape (items,)
        Each model's decisions for the same items (labels of ``decisions``).
    utility : AffineUtility, dict (the affine JSON form) or array_like of shape (items, decisions, classes)
    columns : mapping of str to array_like of shape (items,), optional
        The item columns an affine utility reads (``{"amount": ...}``).
    classes : sequence, optional
        The class order (columns of the utility); an affine utility names its own, and they must
        agree. For an array, as :func:`mcrank.evaluate.targets.class_order` finds it.
    decisions : sequence, optional
        The decisions (rows); by default an affine utility's own, else the classes.
    metrics : sequence of str, optional
        The popular metrics to compare (default: all), when the decisions are the classes.
    test_uncertainty : bool
        Add the Bayesian bootstrap's intervals, P(a above b) and P(best) (:func:`bayesian_bootstrap`).
    samples, prior_count, rng
        Of the posterior.

    Raises
    ------
    ValueError
        Naming the parameter: a bad utility or column, labels that the classes or decisions
        do not name, lengths that differ.
    """
    from mcrank.evaluate.targets import class_order, reads_alike

    truth_labels = np.asarray(array_input(y_true, "y_true"), dtype=object)
    predictions = columns_input(predictions, "predictions")
    n_items = truth_labels.shape[0]
    if n_items == 0 or not predictions:
        raise ValueError("y_true: a per-item evaluation needs items and at least one model")
    if is_affine(utility):
        utility = parse_affine(utility)
    if isinstance(utility, AffineUtility):
        order, source = class_order(set(truth_labels.tolist()), len(utility.classes), classes=classes,
                                    utility_classes=utility.classes, where="y_true")  # fmt: skip
        rows = utility.decisions if decisions is None else tuple(decisions)
        if utility.columns:
            u = check_per_item(utility.array(columns or {}), n_items, what="columns")
        else:  # constants only: one matrix for every item
            u = np.broadcast_to(utility.constant, (n_items, *utility.constant.shape))
        reads = utility.columns
    else:
        if columns:
            raise ValueError("columns: item columns are read by an affine per-item utility only")
        u = check_per_item(utility, n_items)
        order_free = decisions is None and reads_alike(u[0]) and bool(np.array_equal(u, u[:, ::-1, ::-1]))
        order, source = class_order(set(truth_labels.tolist()), u.shape[2], classes=classes, where="y_true", order_free=order_free)
        rows = order if decisions is None else tuple(decisions)
        reads = ()
    if len(rows) != u.shape[1]:
        raise ValueError(f"decisions: {len(rows)} decisions but the utility has {u.shape[1]} rows")
    truth = _indexer(order, truth_labels, "y_true")
    chosen = {}
    if not isinstance(predictions, Mapping):
        raise ValueError(f"predictions must be a dict of model name to decisions, got a {type(predictions).__name__}")
    for name, values in predictions.items():
        if len(values) != n_items:
            raise ValueError(f"predictions: {name!r} has {len(values)} decisions but y_true has {n_items} items")
        chosen[str(name)] = _indexer(rows, values, f"predictions: {name}")
    checked = _CheckedItems(u, truth, chosen, tuple(order), tuple(rows), source, tuple(reads))
    return _evaluate_indices(checked, metrics=metrics, test_uncertainty=test_uncertainty, samples=samples, prior_count=prior_count,
                             rng=rng)  # fmt: skip


class _CheckedItems(NamedTuple):
    """The inputs of :func:`evaluate_per_item`, checked: labels as indices."""

    #: The per-item utility, items x decisions x classes.
    u: np.ndarray
    #: Each item's true class, an index into ``order``.
    truth: np.ndarray
    #: Each model's decision of each item, an index into ``rows``.
    chosen: dict
    #: The class order (columns), the decisions (rows), where the order came from
    #: (:data:`mcrank.evaluate.targets.CLASS_ORDERS`) and the item columns the utility reads.
    order: tuple
    rows: tuple
    source: str
    reads: tuple


def _evaluate_indices(checked: _CheckedItems, *, metrics, test_uncertainty, samples, prior_count, rng) -> PerItemEvaluation:
    """:func:`evaluate_per_item` on checked inputs (its options as keywords)."""
    from mcrank.evaluate.pipeline import evaluate

    u, truth, chosen, order, rows, source, reads = checked
    n_items, n_decisions, n_classes = u.shape
    _check_sums(u)
    if test_uncertainty:
        from mcrank.evaluate.uncertainty import check_prior_count

        samples = check_count(samples, "samples", maximum=MAX_EVALUATE_SAMPLES)
        check_kept_draws(samples, len(chosen))
        prior_count = check_prior_count(prior_count)
    yields = {name: per_item_yield(u, truth, d) for name, d in chosen.items()}
    average = average_matrix(u)
    confusions = {name: np.bincount(d * n_classes + truth, minlength=n_decisions * n_classes).reshape(n_decisions, n_classes)
                  for name, d in chosen.items()}  # fmt: skip
    average_yields = {name: float((average * c).sum() / n_items) for name, c in confusions.items()}
    scores, metric_ranks = {}, {}
    if n_decisions == n_classes:  # decision i is the output of class i, as everywhere in mcrank
        ranked = evaluate(confusions, average, classes=[str(c) for c in order], metrics=metrics)
        for result in ranked.classifiers:
            for metric, score in result.scores.items():
                scores.setdefault(metric, {})[result.name] = float(score)
                metric_ranks.setdefault(metric, {})[result.name] = result.ranks[metric]
    disagreements = {"average-cost matrix": _disagreeing(yields, average_yields)}
    for metric, ranks in metric_ranks.items():
        rank_values = {name: -float(r) if r is not None else math.nan for name, r in ranks.items()}
        if pairs := _disagreeing(yields, rank_values):
            disagreements[metric] = pairs
    posterior = None
    if test_uncertainty:
        posterior = bayesian_bootstrap(u, truth, chosen, samples=samples, prior_count=prior_count, rng=rng)
    return PerItemEvaluation(
        classes=tuple(order), decisions=tuple(rows), class_order=source, items=n_items,
        class_counts=np.bincount(truth, minlength=n_classes), columns=tuple(reads), yields=yields, ranks=_ranks(yields),
        average_matrix=average, average_yields=average_yields, average_ranks=_ranks(average_yields), scores=scores,
        metric_ranks=metric_ranks, disagreements=disagreements, posterior=posterior,
    )  # fmt: skip


# --- files ---------------------------------------------------------------------------------------


def read_affine(text, *, source: str = "--utility") -> AffineUtility | None:
    """The affine per-item utility of JSON text or a JSON file, or None when it is another
    form of utility (a matrix, a distribution: :func:`mcrank.evaluate.input.read_utility`)."""
    import os

    from mcrank.evaluate.input import _loads, read_input_text

    if isinstance(text, str) and text.strip().startswith(("[", "{")):
        raw = text
    else:
        raw = read_input_text(text)
        source = os.fspath(text)
    value = _loads(raw, source)  # the one JSON reader of evaluate: duplicate keys, nesting, syntax
    return parse_affine(value, source=source) if is_affine(value) else None


def load_item_table(path, *, columns, truth: str = "true") -> tuple[np.ndarray, dict, dict]:
    """Read a table of labels, one row per item, with the numeric item columns a per-item
    utility reads: ``truth`` (true classes), the ``columns`` (numbers), and one column per model
    (its decisions).

    Returns
    -------
    truth : ndarray of str, shape (items,)
    predictions : dict of str to ndarray of str
    values : dict of str to ndarray of float

    Raises
    ------
    ValueError
        Naming the file, line and column: a column the utility reads that is missing, a value in
        it that is not a finite number, no model column, and every error of
        :func:`mcrank.evaluate.input.read_csv_columns`.
    """
    from mcrank.evaluate.input import read_csv_columns

    header, _ = read_csv_columns(path, truth, models="model columns", truth_hint=" (name it with --truth)")
    if missing := [name for name in columns if name not in header]:
        raise ValueError(f"{path}, line 1: no column {missing[0]!r}, which the per-item utility reads (the columns are "
                         f"{', '.join(map(repr, header))})")  # fmt: skip
    models = [name for name in header if name != truth and name not in columns]
    if not models:
        raise ValueError(f"{path}, line 1: no model columns beside {truth!r} and the utility's columns {', '.join(columns)}")
    lines, table = _columns_of(path, header)
    values = {}
    for name in columns:
        try:
            array = parse_floats(table[name])
        except ValueError:
            k = next(k for k, cell in enumerate(table[name]) if not _is_number(cell))
            raise ValueError(f"{path}, line {lines[k]}, column {name!r}: {table[name][k]!r} is not a number") from None
        if not np.all(np.isfinite(array)):
            k = int(np.flatnonzero(~np.isfinite(array))[0])
            raise ValueError(f"{path}, line {lines[k]}, column {name!r}: {table[name][k]!r}: per-item utilities must be finite")
        values[name] = array
    return np.array(table[truth], dtype=object), {m: np.array(table[m], dtype=object) for m in models}, values


def _is_number(text: str) -> bool:
    try:
        parse_float(text)
    except ValueError:
        return False
    return True


def _columns_of(path, header: list[str]) -> tuple[list[int], dict[str, list[str]]]:
    """The line of every item and the table's cells column by column (stripped, blank rows
    skipped): the rows of :func:`mcrank.evaluate.input.read_csv_columns`, read by the csv module
    in one pass and transposed in C, as a million items need."""
    import csv
    import io

    from mcrank.evaluate.input import read_input_text

    text = read_input_text(path)
    width = len(header)
    if '"' not in text and "\r" not in text and "\n\n" not in text.strip("\n"):
        # No quoting, no blank row: the fields are what lies between the commas, split at once.
        body = text.strip("\n").split("\n", 1)[1] if "\n" in text.strip("\n") else ""
        cells = body.replace("\n", ",").split(",") if body else []
        lines = body.count("\n") + 1 if body else 0
        if len(cells) == lines * width:
            spaced = " " in text or "\t" in text
            table = {name: cells[k::width] for k, name in enumerate(header)}
            if spaced:
                table = {name: [cell.strip() for cell in column] for name, column in table.items()}
            if not lines:
                raise ValueError(f"{path}: no items (only a header)")
            return list(range(2, lines + 2)), table
    if '"' not in text:  # no quoting: the fields are what lies between the commas
        rows = [line.split(",") for line in text.splitlines()[1:]]
    else:
        reader = csv.reader(io.StringIO(text, newline=""))
        try:
            rows = list(reader)[1:]
        except csv.Error as error:
            raise ValueError(f"{path}, line {reader.line_num}: not valid CSV: {error}") from None
    spaced = " " in text or "\t" in text
    # Line numbers count rows (a quoted cell holding a line break is not expected in a table of labels).
    kept = [k for k, row in enumerate(rows) if any(cell.strip() for cell in row)]
    rows = [rows[k] for k in kept]
    lines = [k + 2 for k in kept]
    if not rows:
        raise ValueError(f"{path}: no items (only a header)")
    if bad := next((k for k, row in enumerate(rows) if len(row) != len(header)), None):
        raise ValueError(f"{path}, line {lines[bad]}: expected {len(header)} fields, got {len(rows[bad])}")
    if len(rows[0]) != len(header):
        raise ValueError(f"{path}, line {lines[0]}: expected {len(header)} fields, got {len(rows[0])}")
    columns = zip(*rows, strict=True)
    if not spaced:
        return lines, dict(zip(header, map(list, columns), strict=True))
    return lines, {name: [cell.strip() for cell in column] for name, column in zip(header, columns, strict=True)}


def evaluate_per_item_scores(y_true, scores, utility, *, columns=None, positive=None, **options) -> PerItemEvaluation:
    """Rank scoring models (two classes) by the per-item yield of their per-item optimal decisions.

    Each model's score of an item is its probability of the positive class; the item's decision
    is the one of maximal expected utility under the item's own matrix,
    ``argmax_i sum_j U[k, i, j] p_k[j]`` (:func:`mcrank.decisions.optimal_decisions`), and the
    decisions are ranked by :func:`evaluate_per_item`.

    Parameters
    ----------
    y_true : array_like of shape (items,)
    scores : dict of str to array_like of shape (items,)
        Each model's probability of the positive class, in [0, 1].
    utility : AffineUtility, dict or array_like of shape (items, decisions, 2)
    columns : mapping, optional
        The item columns an affine utility reads.
    positive : label, optional
        The class the scores are for; by default the first of the utility's classes (or of
        ``classes=``).
    **options
        Those of :func:`evaluate_per_item` (``classes``, ``metrics``, ``test_uncertainty``, ...).
    """
    from mcrank.decisions import optimal_decisions

    if is_affine(utility):
        utility = parse_affine(utility)
    n_items = len(y_true)
    if isinstance(utility, AffineUtility):
        u = (
            check_per_item(utility.array(columns or {}), n_items, what="columns")
            if utility.columns
            else np.broadcast_to(utility.constant, (n_items, *utility.constant.shape))
        )
        classes, rows = tuple(options.get("classes") or utility.classes), utility.decisions
    else:
        u = check_per_item(utility, n_items)
        classes = options.get("classes")
        if classes is None:
            raise ValueError("classes: name the class order of a per-item array (the scores are for one of its classes)")
        rows = tuple(options.get("decisions") or classes)
    if u.shape[2] != 2:
        raise ValueError(f"utility: scores are probabilities of one class of two, but the utility has {u.shape[2]} classes")
    positive = classes[0] if positive is None else positive
    if positive not in classes and str(positive) not in map(str, classes):
        raise ValueError(f"positive: {positive!r} is not one of the classes {', '.join(map(str, classes))}")
    column = [str(c) for c in classes].index(str(positive))
    predictions = {}
    for name, values in scores.items():
        p = np.asarray(values, dtype=float)
        probabilities = np.column_stack([p, 1 - p]) if column == 0 else np.column_stack([1 - p, p])
        try:
            chosen = optimal_decisions(probabilities, u)
        except ValueError as error:
            raise ValueError(f"scores: {name}: {error}") from None
        predictions[name] = np.asarray(rows, dtype=object)[chosen]
    return evaluate_per_item(y_true, predictions, utility, columns=columns, **options)
