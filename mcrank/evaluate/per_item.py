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
from dataclasses import dataclass

import numpy as np

from mcrank._rng import PER_ITEM_POSTERIOR, root_of, stream_generator

__all__ = [
    "CONSTANT",
    "AffineUtility",
    "PerItemPosterior",
    "average_matrix",
    "bayesian_bootstrap",
    "check_item_columns",
    "check_per_item",
    "dirichlet_weighted_means",
    "is_affine",
    "item_utilities",
    "parse_affine",
    "per_item_yield",
]

#: The key of a cell's constant term in the affine JSON form.
CONSTANT = "constant"
#: Items x draws held at once by :func:`dirichlet_weighted_means` (8 MiB of float64).
_WORK = 1 << 20
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
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
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
    for name in names:
        if name not in columns:
            given = ", ".join(map(repr, columns)) or "none"
            raise ValueError(f"{what}: no column {name!r}, which the per-item utility reads (the columns given: {given})")
        try:
            array = np.asarray(columns[name], dtype=float)
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


def item_utilities(utility: np.ndarray, truth: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """``U[k, d_k, y_k]`` for every item: the utility each item's decision earned."""
    return utility[np.arange(truth.shape[0]), decisions, truth]


def per_item_yield(utility: np.ndarray, truth: np.ndarray, decisions: np.ndarray) -> float:
    """The mean utility per item of decisions ``decisions`` on items of true class ``truth``."""
    return float(item_utilities(utility, truth, decisions).mean())


def average_matrix(utility: np.ndarray) -> np.ndarray:
    """The average-cost matrix: the per-item utility averaged over the items, (decisions, classes)."""
    return utility.mean(axis=0)


def dirichlet_weighted_means(values: np.ndarray, samples: int, rng, *, extra_values=None, extra_weights=None) -> np.ndarray:
    """Draws of ``sum_k w_k values[k]`` with ``w ~ Dirichlet(1, ..., 1, extra_weights)``: the
    Bayesian bootstrap of the mean of ``values`` over items, with optional pseudo-items.

    The weights are independent gammas divided by their sum, drawn in blocks of at most
    :data:`_WORK` items x draws: the memory does not grow with items x draws.

    Parameters
    ----------
    values : ndarray of shape (items, m)
        Each item's value for each of ``m`` quantities (models); the draws share the weights.
    samples : int
    rng : numpy.random.Generator
    extra_values : ndarray of shape (pseudo, m), optional
        The pseudo-items' values.
    extra_weights : ndarray of shape (pseudo,), optional
        Their Dirichlet parameters (the items' are 1).

    Returns
    -------
    ndarray of shape (samples, m)
    """
    n_items, m = values.shape
    total = np.zeros(samples)
    weighted = np.zeros((samples, m))
    if extra_values is not None:
        gamma = rng.standard_gamma(np.broadcast_to(extra_weights, (samples, extra_weights.shape[0])))
        total += gamma.sum(axis=1)
        weighted += gamma @ extra_values
    block = max(1, _WORK // max(samples, 1))
    for start in range(0, n_items, block):
        chunk = values[start : start + block]
        gamma = rng.standard_exponential((samples, chunk.shape[0]))  # Gamma(1): the Dirichlet(1, ..., 1) of the items
        total += gamma.sum(axis=1)
        weighted += gamma @ chunk
    return weighted / total[:, None]


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
    """

    intervals: dict
    probability_above: np.ndarray
    probability_best: dict
    samples: int
    prior_count: float


def bayesian_bootstrap(utility: np.ndarray, truth: np.ndarray, decisions: Mapping, *, samples: int = 2000,
                       prior_count: float = 1.0, rng=None) -> PerItemPosterior:  # fmt: skip
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
    grid = np.indices(shape).reshape(len(shape), cells)
    extra_values = np.column_stack([average[grid[1 + m], grid[0]] for m in range(len(names))])
    extra_weights = np.full(cells, prior_count / cells)
    generator = stream_generator(root_of(rng), PER_ITEM_POSTERIOR)
    draws = dirichlet_weighted_means(values, samples, generator, extra_values=extra_values, extra_weights=extra_weights)
    tail = (1 - INTERVAL) / 2
    intervals = {name: tuple(float(q) for q in np.quantile(draws[:, m], (tail, 1 - tail))) for m, name in enumerate(names)}
    above = (draws[:, :, None] > draws[:, None, :]).mean(axis=0)
    best = np.bincount(np.argmax(draws, axis=1), minlength=len(names)) / samples
    return PerItemPosterior(intervals, above, dict(zip(names, best.tolist(), strict=True)), samples, prior_count)
