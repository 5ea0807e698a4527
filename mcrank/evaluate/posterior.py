"""The one test-set posterior of every mode of :func:`mcrank.evaluate.evaluate`: its prior, its
draws and its guard against underflow.

Every mode's test-set uncertainty is the same model: the population frequencies of the full
joint table of the test set, (true class, every model's output), are Dirichlet with a prior
of total count ``prior_count`` spread evenly over the cells (:func:`prior_per_cell`), and so
the posterior is Dirichlet(counts + prior). Merging cells of a Dirichlet sums their parameters
(aggregation), so every smaller table (one model's own, a pair's, the class totals) gets the
exact marginal of that one posterior, and the prior weighs as ``prior_count`` test items
however many cells there are. The modes draw it in the form their inputs allow:

- confusion matrices and labels (:mod:`mcrank.evaluate.uncertainty`) and decision curves
  (:mod:`mcrank.evaluate.curves`): the Dirichlet of a table's counts, :func:`dirichlet`;
- per-item utilities (:mod:`mcrank.evaluate.per_item`): the Bayesian bootstrap, one weight per
  item plus one pseudo-item per joint cell carrying the prior, :func:`bootstrap_means`;
- scoring classifiers (:mod:`mcrank.evaluate.scoring`): the Bayesian bootstrap of the items,
  whose thresholds are re-chosen on each draw, plus the prior's part drawn by stick-breaking,
  :func:`prior_part`, since its joint table has 2^(models + 1) cells.

The prior's range, [:data:`MIN_PRIOR_COUNT`, :data:`MAX_PRIOR_COUNT`], is checked once
(:func:`check_prior_count`): above it a cell's gamma variate, of relative sd
``sqrt(cells / prior_count)``, is too narrow for double precision (at 1e50 every draw is its
mean, ties everywhere); below it the prior on a cell underflows. Where every gamma variate of a
draw still underflows to 0, :func:`dirichlet` takes the limit of such a Dirichlet instead of
0 / 0: the one underflow guard.

The default prior is the weight of one test item (:data:`DEFAULT_PRIOR_COUNT`), but for the
scoring classifiers' (:data:`SCORING_PRIOR_COUNT`, 2: Jeffreys's 1/2 on each cell of one
model's own 2 x 2 table, whatever the number of models), which without it would not see the
errors a model with few costly ones has not made on the test set.
"""

from __future__ import annotations

import numpy as np

from mcrank._jit import jit
from mcrank._validation import as_float

__all__ = ["DEFAULT_PRIOR_COUNT", "MAX_PRIOR_COUNT", "MIN_PRIOR_COUNT", "PRIOR_NOTE_SHARE", "SCORING_PRIOR_COUNT", "bootstrap_means",
           "check_prior_count", "dirichlet", "prior_part", "prior_per_cell"]  # fmt: skip

#: The Dirichlet prior's total count, spread evenly over the cells of the table (see
#: :func:`prior_per_cell`): the weight of one test item, whatever the number of classes and
#: classifiers. docs/evaluate-uncertainty.md gives its sensitivity on a real test set.
DEFAULT_PRIOR_COUNT = 1.0
#: The scoring classifiers' prior's total count: each cell of one model's own 2 x 2 table gets
#: 1/2, Jeffreys's prior, whatever the number of models. Without it a model with few costly
#: errors on the test set gets an interval that does not see the errors it has not made
#: (``docs/evaluate-scoring.md``, "How sure is the choice of a scoring classifier?").
SCORING_PRIOR_COUNT = 2.0
#: Above this share of the test set's items, the prior's total count is worth a note: the
#: intervals and the probabilities then lean on it, not only on the test set.
PRIOR_NOTE_SHARE = 0.03
#: The prior's total count is at least this: a cell of a pair's joint table then has a prior
#: of at least 1e-6 / n^3, whose gamma variates, where they do not underflow, are numbers.
MIN_PRIOR_COUNT = 1e-6
#: ... and at most this: the weight of 10^12 test items, when a cell's gamma variate still has
#: a relative sd above 1e-6, far above double precision (at 1e50 every draw was its mean and
#: every pair tied; at 1e308 the sums overflowed).
MAX_PRIOR_COUNT = 1e12
#: Atoms of the truncated stick-breaking draw of :func:`prior_part`; the last stick takes what
#: is left, on average ``(c / (1 + c))^atoms`` of the prior's mass, c its count: 4e-9 at c = 2.
PRIOR_ATOMS = 48


def prior_per_cell(prior_count: float, cells: int) -> float:
    """The Dirichlet prior count of each of ``cells`` cells: the total ``prior_count`` spread evenly.

    The one prior rule of the test-set posterior. Merging cells of a Dirichlet sums their
    parameters, so a table whose cells merge into those of a smaller one (a pair's n^3 joint
    cells into A's n^2, A's n^2 into the n class totals) gets, from the even spread of the
    same total, the even spread of that total again: every table's posterior is a marginal
    of the one posterior of the full joint table, and the prior weighs as ``prior_count``
    test items, however many cells there are.
    """
    return prior_count / cells


def check_prior_count(value, what: str = "prior_count") -> float:
    """The prior's total count: a finite number in [:data:`MIN_PRIOR_COUNT`, :data:`MAX_PRIOR_COUNT`]."""
    number = as_float(value, what)
    if not MIN_PRIOR_COUNT <= number <= MAX_PRIOR_COUNT:
        raise ValueError(f"{what} must be from {MIN_PRIOR_COUNT:g} to {MAX_PRIOR_COUNT:g} (the prior weighs as that many test "
                         f"items; outside, its draws are not numbers in double precision), got {number:g}")  # fmt: skip
    return number


def dirichlet(rng: np.random.Generator, alpha: np.ndarray, size: int) -> np.ndarray:
    """``size`` draws of Dirichlet(alpha) along the last axis (alpha broadcast), by gammas.

    Where every gamma variate of a draw underflows to 0 (a Dirichlet without counts, whose
    prior alone is below 1e-3 a cell), the draw is the limit of such a Dirichlet: one vertex,
    component ``i`` with probability ``alpha_i / sum(alpha)``, rather than 0 / 0.
    """
    gamma = rng.standard_gamma(np.broadcast_to(alpha, (size, *np.shape(alpha))))
    total = gamma.sum(axis=-1, keepdims=True)
    if np.all(total > 0):
        return gamma / total
    empty = total[..., 0] == 0
    weights = np.broadcast_to(alpha, gamma.shape)[empty]  # (m, components)
    chosen = (rng.random((len(weights), 1)) * weights.sum(axis=-1, keepdims=True) < np.cumsum(weights, axis=-1)).argmax(axis=-1)
    gamma[empty] = np.eye(gamma.shape[-1])[chosen]
    total[empty] = 1.0
    return gamma / total


def bootstrap_means(values: np.ndarray, samples: int, rng, *, extra_values=None, extra_weights=None) -> np.ndarray:
    """Draws of ``sum_k w_k values[k]`` with ``w ~ Dirichlet(1, ..., 1, extra_weights)``: the
    Bayesian bootstrap of the mean of ``values`` over items, with optional pseudo-items (the
    prior's cells).

    The weights are independent gammas divided by their sum. The items' gammas (exponential
    variates) are drawn and summed one at a time by a compiled kernel (:func:`_weigh_items`):
    no items x draws array is ever held, and the memory is that of the results. An item's
    weight never underflows (its parameter is 1), so no draw is 0 / 0.

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
    m = values.shape[1]
    total = np.zeros(samples)
    weighted = np.zeros((samples, m))
    if extra_values is not None:
        gamma = rng.standard_gamma(np.broadcast_to(extra_weights, (samples, extra_weights.shape[0])))
        total += gamma.sum(axis=1)
        weighted += gamma @ extra_values
    _weigh_items(rng, np.ascontiguousarray(values, dtype=float), weighted, total)
    return weighted / total[:, None]


@jit
def _weigh_items(rng, values, weighted, total):
    """Add, for every draw ``d`` and item ``k``, an exponential variate ``g`` times ``values[k]``
    to ``weighted[d]`` and ``g`` to ``total[d]``. Items outer, draws inner: the draws' sums
    (draws x models) stay in cache while the items stream past once."""
    items, m = values.shape
    samples = total.shape[0]
    for k in range(items):
        for d in range(samples):
            g = rng.standard_exponential()
            total[d] += g
            for j in range(m):
                weighted[d, j] += g * values[k, j]


def prior_part(samples: int, models: int, utility, prior_count: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """The prior's part of each draw of a two-class Bayesian bootstrap: its mass, and its mass
    times each model's utility.

    The prior is Dirichlet with ``prior_count`` spread evenly over the cells of the joint table
    (true class, every model's output), 2^(models + 1) cells (:func:`prior_per_cell`): the
    Dirichlet process of concentration ``prior_count`` whose base measure draws the class and
    each model's output uniformly and independently. Its mass is Gamma(prior_count); its
    normalised part is drawn by stick-breaking (Sethuraman 1994), :data:`PRIOR_ATOMS` atoms,
    never the 2^(models + 1) cells.
    """
    mass = rng.standard_gamma(prior_count, size=samples)
    sticks = rng.beta(1.0, prior_count, size=(samples, PRIOR_ATOMS))
    sticks[:, -1] = 1.0
    left = np.cumprod(1.0 - sticks[:, :-1], axis=1)
    share = sticks * np.concatenate((np.ones((samples, 1)), left), axis=1)
    truth = rng.integers(2, size=(samples, PRIOR_ATOMS, 1))
    output = rng.integers(2, size=(samples, PRIOR_ATOMS, models))
    return mass, mass[:, None] * np.einsum("sa,sam->sm", share, utility[output, truth])
