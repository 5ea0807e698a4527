r"""Model selection across cross-validation folds: the Bayesian correlated t-test in utility units.

Cross-validation tests every model on the same folds: k folds, repeated r times, n = k r in
all. The per-fold utility yield ``y[m, f]`` of model m is its mean utility per test item of
fold f, eq. (9). Folds that share training data are correlated, and the usual t-test on the
per-fold differences is too sure of itself; the Bayesian correlated t-test (Corani & Benavoli
2015, with Nadeau & Bengio's 2003 correction) models that correlation, rho = the test fraction
(1/k for k-fold), and gives, for a pair (A, B) with ``d_f = y[B, f] - y[A, f]``, a Student t
posterior of the mean difference:

.. math:: \mu \mid d \sim t_{n-1}\Big(\bar d,\; s^2 \big(\tfrac1n + \tfrac{\rho}{1-\rho}\big)\Big),
          \qquad s^2 = \tfrac{1}{n-1}\textstyle\sum_f (d_f - \bar d)^2 .

With a region of practical equivalence ``rope`` >= 0 in utility units, ``F`` the posterior
CDF: P(A better) = F(-rope), P(equivalent) = F(rope) - F(-rope), P(B better) = 1 - F(rope);
with ``rope = 0`` the middle one is 0. These are ``baycomp.two_on_single(y_A, y_B, rope,
runs=r)``. Beside them, the corrected resampled t-test's two-sided p-value (Nadeau & Bengio),
``2 P(T_{n-1} > |d̄| / scale)`` with the same scale. A pair whose difference is the same on
every fold (zero variance) is certain: its probabilities are 0 or 1, its p-value 0; with a
zero difference the two models are identical on every fold (``zero_variance`` and a difference
of 0), P(equivalent) is 1 with a rope and, as in baycomp, each direction 1/2 without one, and
the p-value is 1. No division by zero.

Several models: every pair, and each model's probability of being best, from the joint
posterior of the vector of mean yields (:func:`compare_folds`, which says why that posterior).

Per-fold yields come from labels with a fold column (:func:`fold_yields`, ``mcrank evaluate
--labels FILE --folds-column NAME``) or from scikit-learn's ``cross_validate`` with
:func:`mcrank.sklearn.make_utility_scorer` (see :func:`compare_folds`). The report is
:mod:`mcrank.evaluate.folds.report`; ``docs/evaluate-folds.md``, "Comparing models across
cross-validation folds", explains how to read it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from mcrank._rng import FOLD_POSTERIOR, root_of, stream_generator
from mcrank._validation import MAX_EVALUATE_SAMPLES, as_float, check_count, check_name
from mcrank.evaluate.input import ItemLabels, _sorted_labels, load_labels, predictions_in_class_order, read_utility
from mcrank.evaluate.protocol import ResultProtocol
from mcrank.evaluate.result import DEFAULT_FOLD_SAMPLES, SEPARATED, rendering
from mcrank.evaluate.targets import reads_alike

__all__ = ["DEFAULT_FOLD_SAMPLES", "SEPARATED", "FoldComparison", "FoldModel", "FoldPair", "check_rope", "compare_folds",
           "compare_folds_file", "fold_yields", "student_t_cdf", "student_t_sf", "yields_from_labels"]  # fmt: skip

# Larger yields are refused: the squares of their differences would overflow in the variance.
_MAX_YIELD = 1e150
# Work space of the posterior draws, in float64 elements per block: memory stays flat
# whatever the number of draws.
_BLOCK_ELEMENTS = 1 << 20


# --- the Student t distribution -------------------------------------------------------------

# The continued fraction of the incomplete beta function (Numerical Recipes, betacf, by the
# modified Lentz method): converges in O(sqrt(a)) steps; the cap is never met below 10^8 folds.
_CF_STEPS, _CF_TINY, _CF_EPS = 100_000, 1e-300, 1e-16


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _CF_TINY else _CF_TINY)
    h = d
    for m in range(1, _CF_STEPS):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)), -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _CF_TINY else _CF_TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _CF_TINY else _CF_TINY
            h *= d * c
        if abs(d * c - 1.0) < _CF_EPS:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float, rest: float) -> float:
    """The regularised incomplete beta function I_x(a, b), with ``rest = 1 - x`` given apart
    so that neither loses digits."""
    if x <= 0.0:
        return 0.0
    if rest <= 0.0:
        return 1.0
    log_front = a * math.log(x) + b * math.log(rest) - (math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, rest) / b


def student_t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with ``df`` degrees of freedom: ``I_x(df/2, 1/2) / 2`` at
    ``x = df / (df + t^2)`` (Abramowitz & Stegun 26.7.1), relative to about 1e-13 in both tails
    up to 100 degrees of freedom, 1e-9 at 10^5 (``lgamma``'s cancellation in the beta function)."""
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    if t == 0.0:
        return 0.5
    square = t * t
    x, rest = (df / (df + square), square / (df + square)) if math.isfinite(square) else (0.0, 1.0)
    tail = 0.5 * _incomplete_beta(0.5 * df, 0.5, x, rest)
    return tail if t > 0 else 1.0 - tail


def student_t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom (:func:`student_t_sf`)."""
    return student_t_sf(-t, df)


# --- results --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FoldModel:
    """One model across the folds.

    Attributes
    ----------
    name : str
    rank : int
        By mean yield across the folds, 1 = best; models with the same mean share a rank.
    mean_yield : float
        The mean of its per-fold yields: the posterior mean of its expected yield.
    yield_sd : float
        The standard deviation of its per-fold yields (ddof 1).
    probability_best : float
        The posterior probability that its expected yield is the highest (ties in a draw
        shared equally: models identical on every fold split their share).
    probability_best_se : float
        Its Monte Carlo standard error.
    yields : ndarray of shape (folds,)
        Its per-fold yields, in the folds' order.
    """

    name: str
    rank: int
    mean_yield: float
    yield_sd: float
    probability_best: float
    probability_best_se: float
    yields: np.ndarray = field(repr=False, compare=False)


@dataclass(frozen=True)
class FoldPair:
    """The Bayesian correlated t-test of one pair, and the corrected resampled t-test.

    ``first`` is ranked at least as high as ``second``; the differences are ``d_f =
    y[second, f] - y[first, f]``, so that P(first better) = F(-rope).

    Attributes
    ----------
    first, second : str
    difference : float
        ``mean_f (y[first, f] - y[second, f])`` >= 0, in utility units per item.
    scale : float
        The posterior's scale, ``sqrt(var(d, ddof=1) (1/n + rho/(1 - rho)))``; 0 for a
        difference that is the same on every fold.
    probability_first_better, probability_equivalent, probability_second_better : float
        F(-rope), F(rope) - F(-rope), 1 - F(rope); they sum to 1.
    p_value : float
        The corrected resampled t-test's two-sided p-value.
    zero_variance : bool
        The difference is the same on every fold: the test is certain (or, with a difference
        of 0, the two are identical on every fold).
    """

    first: str
    second: str
    difference: float
    scale: float
    probability_first_better: float
    probability_equivalent: float
    probability_second_better: float
    p_value: float
    zero_variance: bool

    @property
    def identical(self) -> bool:
        """The two models have the same yield on every fold."""
        return self.zero_variance and self.difference == 0.0

    def verdict(self, rope: float) -> str:
        """``"first better"``, ``"equivalent"``, ``"second better"`` when that has probability
        at least :data:`SEPARATED`, else ``"not separated"`` (identical models: ``"identical"``)."""
        if self.identical:
            return "identical"
        for probability, verdict in ((self.probability_first_better, "first better"), (self.probability_equivalent, "equivalent"),
                                     (self.probability_second_better, "second better")):  # fmt: skip
            if probability >= SEPARATED and (verdict != "equivalent" or rope > 0):
                return verdict
        return "not separated"


@dataclass(frozen=True, repr=False)
class FoldComparison(ResultProtocol):
    """The result of :func:`compare_folds`.

    Attributes
    ----------
    models : tuple of FoldModel
        In rank order (best mean yield first; ties in input order). The first is the choice.
    pairs : tuple of FoldPair
        Every pair, in rank order of ``first`` then ``second``.
    folds : int
        n, the number of folds (k folds times r repeats).
    repeats : int or None
        r, when the test fraction was derived from it (rho = r / n).
    test_fraction : float
        rho, the share of the items in a fold's test set (1/k for k-fold).
    rope : float
        The region of practical equivalence, in utility units per item.
    samples : int
        Posterior draws of the probabilities of being best.
    seed : int or None
        The root seed of the draws (None when a Generator was given).
    fold_names : tuple of str or None
        The folds' names (a fold column's values), in the order of the yields.
    """

    models: tuple[FoldModel, ...]
    pairs: tuple[FoldPair, ...]
    folds: int
    repeats: int | None
    test_fraction: float
    rope: float
    samples: int
    seed: int | None = None
    fold_names: tuple[str, ...] | None = None

    @property
    def chosen(self) -> FoldModel:
        """The model of highest mean yield: the choice of maximal expected utility."""
        return self.models[0]

    def pair(self, a: str, b: str) -> FoldPair:
        """The pair of models ``a`` and ``b`` (in either order)."""
        for p in self.pairs:
            if {p.first, p.second} == {a, b}:
                return p
        raise KeyError(f"no pair of models {a!r} and {b!r}")

    def __str__(self) -> str:
        """The report ``mcrank evaluate --folds-column`` prints (:func:`mcrank.evaluate.folds.report.render_table`)."""
        return rendering(self, "text")(self)

    def to_dict(self) -> dict:
        """A JSON-ready dict: the settings, ``models`` in rank order (with their per-fold
        yields) and ``pairs``, each pair with its ``verdict`` (:func:`mcrank.evaluate.folds.report.to_dict`)."""
        return rendering(self, "dict")(self)


# --- the test -------------------------------------------------------------------------------


def _pair_test(d: np.ndarray, factor: float, rope: float) -> tuple[float, float, float, float, float, bool]:
    """(scale, P(A better), P(equivalent), P(B better), p-value, zero variance) for the
    differences ``d = y_B - y_A``; ``factor = 1/n + rho/(1 - rho)``."""
    n = d.size
    variance = float(d.var(ddof=1))
    # All equal, not var == 0 alone (the mean of n equal floats need not be one of them); var
    # == 0 too, for differences so small that their squares underflow.
    if np.all(d == d[0]) or variance == 0.0:
        mean = float(d[0]) if np.all(d == d[0]) else float(d.mean())
        if mean == 0.0:  # identical on every fold; baycomp splits a rope of 0 evenly
            return 0.0, *((0.0, 1.0, 0.0) if rope > 0 else (0.5, 0.0, 0.5)), 1.0, True
        a_better, b_better = float(mean < -rope), float(mean > rope)
        return 0.0, a_better, 1.0 - a_better - b_better, b_better, 0.0, True
    mean = float(d.mean())
    scale = math.sqrt(variance * factor)
    df = n - 1
    a_better = student_t_cdf((-rope - mean) / scale, df)
    b_better = student_t_sf((rope - mean) / scale, df)
    p_value = min(1.0, 2.0 * student_t_sf(abs(mean) / scale, df))
    return scale, a_better, max(0.0, 1.0 - a_better - b_better), b_better, p_value, False


def _probability_best(y: np.ndarray, factor: float, samples: int, generator: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """P(best) of each row of ``y`` (models x folds) and its Monte Carlo SE, from the
    multivariate t posterior of the mean yields (see :func:`compare_folds`)."""
    m, n = y.shape
    means = y.mean(axis=1)
    # A model whose difference from an earlier one is the same on every fold moves with it in
    # every draw, by that difference: identical models tie exactly, and split their share.
    representative = np.arange(m)
    for j in range(m):
        for i in range(j):
            if representative[i] == i and np.all((d := y[j] - y[i]) == d[0]):
                representative[j] = i
                break
    own = np.flatnonzero(representative == np.arange(m))
    offset = np.where(representative == np.arange(m), 0.0, np.array([float((y[j] - y[representative[j]])[0]) for j in range(m)]))
    centred = (y[own] - means[own, None]).T / math.sqrt(n - 1)  # (n, models): centred.T @ centred = Sigma
    # Draws of N(0, Sigma) as z @ factor_matrix, z standard normal: the centred yields
    # themselves, or their QR factor R (R.T @ R = Sigma), whichever has fewer rows.
    root = centred if n <= own.size else np.linalg.qr(centred, mode="r")
    width = root.shape[0]
    total, squares = np.zeros(m), np.zeros(m)
    step = max(1, _BLOCK_ELEMENTS // (width + m))
    for start in range(0, samples, step):
        size = min(step, samples - start)
        z = generator.standard_normal((size, width)) @ root
        w = generator.chisquare(n - 1, size) / (n - 1)
        draws = means[own] + z * (math.sqrt(factor) / np.sqrt(w))[:, None]
        if own.size == m:  # no model tied to another: a tie has probability 0, one winner a draw
            wins = np.bincount(draws.argmax(axis=1), minlength=m)
            total += wins
            squares += wins
            continue
        draws = draws[:, np.searchsorted(own, representative)] + offset
        winners = draws == draws.max(axis=1, keepdims=True)
        share = winners / winners.sum(axis=1, keepdims=True)
        total += share.sum(axis=0)
        squares += (share * share).sum(axis=0)
    probability = total / samples
    variance = np.maximum(squares / samples - probability * probability, 0.0)
    return probability, np.sqrt(variance / samples)


def _check_yields(yields) -> tuple[list[str], np.ndarray]:
    if not isinstance(yields, Mapping) or len(yields) < 2:
        raise ValueError("yields: give a mapping of at least two model names to their per-fold utility yields")
    names, rows, first = [], [], None
    for name, values in yields.items():
        check_name(name, "model", "yields")
        try:
            row = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"yields: model {name!r}: the per-fold yields are not numbers") from None
        if row.ndim != 1:
            raise ValueError(f"yields: model {name!r}: give one yield per fold (a 1-D array), got shape {row.shape}")
        if row.size < 2:
            raise ValueError(
                f"yields: model {name!r} has {row.size} fold{'s' * (row.size != 1)}: the comparison needs at least 2 folds per model"
            )
        if first is not None and row.size != rows[0].size:
            raise ValueError(f"yields: model {name!r} has {row.size} folds but model {first!r} has {rows[0].size}: the folds of different "
                             "models differ; give every model's yields on the same folds, in the same order")  # fmt: skip
        if len(bad := np.flatnonzero(~np.isfinite(row))):
            raise ValueError(f"yields: model {name!r}, fold {bad[0]}: yield {row[bad[0]]} is not finite")
        if len(bad := np.flatnonzero(np.abs(row) > _MAX_YIELD)):  # their differences' squares would overflow
            raise ValueError(f"yields: model {name!r}, fold {bad[0]}: yield {row[bad[0]]:g} is beyond +-{_MAX_YIELD:g}, where the "
                             "variance of differences overflows; give the utility in smaller units")  # fmt: skip
        first = name if first is None else first
        names.append(name)
        rows.append(row)
    return names, np.array(rows)


def _test_fraction(folds: int, repeats, test_fraction) -> tuple[int | None, float]:
    if repeats is not None and test_fraction is not None:
        raise ValueError("give repeats or test_fraction, not both: the test fraction of k-fold is repeats / folds")
    if test_fraction is not None:
        rho = as_float(test_fraction, "test_fraction")
        if not 0.0 < rho < 1.0:
            raise ValueError(f"test_fraction must be between 0 and 1 (the share of the items in a fold's test set), got {test_fraction!r}")
        return None, rho
    repeats = 1 if repeats is None else check_count(repeats, "repeats")
    if folds % repeats:
        raise ValueError(f"repeats: {folds} folds do not divide into {repeats} repeats of k-fold cross-validation")
    if folds // repeats < 2:
        raise ValueError(f"repeats: {folds} folds in {repeats} repeats is 1 fold a repeat; k-fold cross-validation has k >= 2")
    return repeats, repeats / folds


def check_rope(rope) -> float:
    """The region of practical equivalence: a finite number >= 0, in utility units."""
    value = as_float(rope, "rope")
    if value < 0:
        raise ValueError(f"rope must be non-negative (a half-width in utility units per item), got {rope!r}")
    return value


def compare_folds(yields, *, repeats=None, test_fraction=None, rope=0.0, samples=DEFAULT_FOLD_SAMPLES, rng=None,
                  fold_names=None) -> FoldComparison:  # fmt: skip
    r"""Compare models by their utility yields on the same cross-validation folds.

    Every pair by the Bayesian correlated t-test (module docstring), and each model's
    probability of being best from the joint posterior of the mean yields ``mu`` (one per
    model): the multivariate t

    .. math:: \mu \mid y \sim t_{n-1}\Big(\bar y,\; \Sigma \big(\tfrac1n + \tfrac{\rho}{1-\rho}\big)\Big),

    with :math:`\bar y` the mean and :math:`\Sigma` the sample covariance (ddof 1) of the
    per-fold yield vectors, drawn ``samples`` times. Why this posterior: it is the one the pair
    test generalises to. Any contrast :math:`a^\top\mu` of a multivariate t is a Student t with
    the same degrees of freedom, location :math:`a^\top\bar y` and scale
    :math:`a^\top\Sigma a\,(1/n + \rho/(1-\rho))`; for :math:`a = e_B - e_A`,
    :math:`a^\top\Sigma a` is the variance of the per-fold differences, so every pair's marginal
    is exactly that pair's correlated t-test, and with two models P(best) is P(better) of the
    pair. It is what the pair test's own model gives for vectors: per-fold yield vectors normal
    with an unknown covariance, folds correlated by rho (Nadeau & Bengio's compound symmetry),
    and the prior :math:`|\Sigma|^{-m}` that is the pair test's :math:`1/\sigma^2` at m = 1.
    (The usual multivariate prior :math:`|\Sigma|^{-(m+1)/2}` would give n - m degrees of
    freedom: pair marginals that disagree with the pair tests, and no posterior at all with as
    many models as folds.) :math:`\Sigma` may be singular (more models than folds, a model
    that is another plus a constant): the draws use its factor from the centred yields, and
    models tied in every draw share it.

    Parameters
    ----------
    yields : mapping of str to array_like of shape (folds,)
        Each model's utility yield per item on each fold, the folds in the same order for
        every model (at least 2 models and 2 folds).
    repeats : int, optional
        r, how many times k-fold cross-validation was repeated: rho = r / n (default 1).
    test_fraction : float, optional
        Instead, rho itself: a fold's test items over all items, for splits that are not
        k-fold (``ShuffleSplit(test_size=0.2)``: 0.2).
    rope : float, default 0
        The half-width of the region of practical equivalence, in utility units per item.
    samples : int, default 100000
        Posterior draws of the probabilities of being best.
    rng : int, SeedSequence, Generator or None
        Their randomness (:mod:`mcrank._rng`, stream ``FOLD_POSTERIOR``); None draws a fresh
        seed, recorded in the result.
    fold_names : sequence of str, optional
        The folds' names, for the report.

    Returns
    -------
    FoldComparison

    Raises
    ------
    ValueError
        Naming the parameter: fewer than 2 models or 2 folds, models with different numbers
        of folds, a yield that is NaN or infinite, a negative ``rope``, ``repeats`` that do
        not divide the folds, a ``test_fraction`` outside (0, 1), both given.

    Examples
    --------
    With scikit-learn's ``cross_validate`` and mcrank's utility scorer: the same splits for
    every model (a splitter with a fixed ``random_state``), one utility yield per split.

    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import RepeatedStratifiedKFold, cross_validate
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from mcrank.sklearn import make_utility_scorer
    >>> X, y = load_breast_cancer(return_X_y=True)  # 0 = malignant, 1 = benign
    >>> scorer = make_utility_scorer([[0, -1], [-10, 0]], labels=[0, 1])  # a missed malignancy costs 10, a needless biopsy 1
    >>> cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    >>> models = {"logistic": make_pipeline(StandardScaler(), LogisticRegression()), "naive_bayes": GaussianNB()}
    >>> yields = {name: cross_validate(model, X, y, cv=cv, scoring=scorer)["test_score"] for name, model in models.items()}
    >>> result = compare_folds(yields, repeats=2, rope=0.01, rng=1)
    >>> result.chosen.name
    'logistic'
    >>> p = result.pairs[0]
    >>> print(f"{p.probability_first_better:.3f} {p.probability_equivalent:.3f} {p.probability_second_better:.3f}")
    0.946 0.011 0.043
    """
    names, y = _check_yields(yields)
    m, n = y.shape
    repeats, rho = _test_fraction(n, repeats, test_fraction)
    rope = check_rope(rope)
    samples = check_count(samples, "samples", maximum=MAX_EVALUATE_SAMPLES)
    if fold_names is not None:
        fold_names = tuple(str(f) for f in fold_names)
        if len(fold_names) != n:
            raise ValueError(f"fold_names: {len(fold_names)} names for {n} folds")
    generator_given = isinstance(rng, np.random.Generator)
    root = root_of(rng)
    seed = int(root.entropy) if not generator_given and root.spawn_key == () else None
    factor = 1.0 / n + rho / (1.0 - rho)
    means = y.mean(axis=1)
    order = sorted(range(m), key=lambda i: -means[i])  # stable: ties in input order
    best, best_se = _probability_best(y, factor, samples, stream_generator(root, FOLD_POSTERIOR))
    models = tuple(
        FoldModel(
            names[i],
            1 + int(np.count_nonzero(means > means[i])),
            float(means[i]),
            float(y[i].std(ddof=1)),
            float(best[i]),
            float(best_se[i]),
            y[i].copy(),
        )  # fmt: skip
        for i in order
    )
    pairs = []
    for a_position, a in enumerate(order):
        for b in order[a_position + 1 :]:
            d = y[b] - y[a]
            scale, a_better, equivalent, b_better, p_value, zero = _pair_test(d, factor, rope)
            difference = -float(d[0]) if zero else -float(d.mean())
            pairs.append(FoldPair(names[a], names[b], difference + 0.0, scale, a_better, equivalent, b_better, p_value, zero))
    return FoldComparison(models, tuple(pairs), n, repeats, rho, rope, samples, seed, fold_names)


# --- per-fold yields from labels ------------------------------------------------------------


def yields_from_labels(labels: ItemLabels, utility: np.ndarray, folds: np.ndarray, count: int) -> dict[str, np.ndarray]:
    """Each classifier's utility yield per item on each fold: the mean of ``utility[output,
    truth]`` over the items of the fold. ``labels`` holds class indices, ``folds`` each item's
    fold index in ``0..count-1``, every fold having at least one item."""
    items = np.bincount(folds, minlength=count)
    return {
        name: np.bincount(folds, weights=utility[output, labels.truth], minlength=count) / items for name, output in labels.outputs.items()
    }


def fold_yields(y_true, predictions, folds, *, utility, classes=None) -> dict[str, np.ndarray]:
    """Per-fold utility yields from the predictions of cross-validation, item by item.

    Parameters
    ----------
    y_true : array_like of shape (items,)
        The true labels of the test items of every fold, one after the other (an item that
        is tested once per repeat appears once per repeat).
    predictions : dict of str to array_like of shape (items,)
        Per model, its output for each of those items, by the model trained on the other folds.
    folds : array_like of shape (items,), or dict of str to such arrays
        The fold of each item (any labels: a split's number); per model, they must be the same.
    utility : array_like of shape (n, n), or dict
        The utility matrix (rows = decision, columns = true class), any form of
        :func:`mcrank.evaluate.parse_utility`, or ``{"utility": matrix, "classes": names}``.
    classes : sequence, optional
        The labels in the utility matrix's order; by default the utility's classes, else
        labels ``0..n-1`` in their natural order (text labels need one of the two), as for
        :func:`mcrank.evaluate.evaluate_predictions`.

    Returns
    -------
    dict of str to ndarray of shape (folds,)
        Each model's yield per item on each fold, the folds in sorted order of their labels
        (``numpy.unique``): :func:`compare_folds`'s ``yields``.

    Raises
    ------
    ValueError
        Naming the parameter: fewer than 2 folds, folds that differ between models, arrays
        of different lengths, labels that are not the utility's classes.

    Examples
    --------
    The per-fold predictions of a scikit-learn splitter:

    >>> import numpy as np
    >>> from sklearn.base import clone
    >>> from sklearn.datasets import load_wine
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import StratifiedKFold
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from mcrank.evaluate import compare_folds, fold_yields
    >>> X, y = load_wine(return_X_y=True)
    >>> models = {"logistic": make_pipeline(StandardScaler(), LogisticRegression()), "naive_bayes": GaussianNB()}
    >>> truth, outputs, fold = [], {name: [] for name in models}, []
    >>> for f, (train, test) in enumerate(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y)):
    ...     truth.append(y[test])
    ...     fold.append(np.full(test.size, f))
    ...     for name, model in models.items():
    ...         outputs[name].append(clone(model).fit(X[train], y[train]).predict(X[test]))
    >>> utility = [[10, -20, -20], [4, 4, 0], [4, 0, 4]]
    >>> yields = fold_yields(np.concatenate(truth), {n: np.concatenate(o) for n, o in outputs.items()}, np.concatenate(fold),
    ...                      utility=utility)
    >>> print(np.round(yields["naive_bayes"], 3))
    [5.889 5.833 5.333 5.943 5.714]
    >>> print(compare_folds(yields, rng=1).chosen.name)
    logistic
    """
    if isinstance(folds, Mapping):
        if set(folds) != set(predictions):
            raise ValueError("folds: give one array of folds per model of predictions, or one for all")
        arrays = {name: np.asarray(f).ravel() for name, f in folds.items()}
        first = next(iter(predictions))
        for name in predictions:
            if arrays[name].shape != arrays[first].shape or np.any(different := arrays[name] != arrays[first]):
                where = "" if arrays[name].shape != arrays[first].shape else f" at item {int(np.argmax(different))}"
                raise ValueError(f"folds: model {name!r}'s folds differ from model {first!r}'s{where}: compare models on the same folds")
        folds = arrays[first]
    folds = np.asarray(folds).ravel()
    truth = np.asarray(y_true).ravel()
    if folds.shape != truth.shape:
        raise ValueError(f"folds: {folds.size} fold labels for {truth.size} items of y_true")
    names, index = np.unique(folds, return_inverse=True)
    if names.size < 2:
        raise ValueError(f"folds: one fold ({names[0]!r}): the comparison needs at least 2 folds")
    assessment, _, _, labels, _ = predictions_in_class_order(truth, predictions, utility, classes)
    return yields_from_labels(labels, assessment.matrix, index.ravel(), names.size)


def compare_folds_file(path, *, utility, folds_column: str, truth: str = "true", repeats=None, rope=0.0, samples=DEFAULT_FOLD_SAMPLES,
                       rng=None, classes=None) -> FoldComparison:  # fmt: skip
    """:func:`compare_folds` on a CSV file of labels with a fold column (``mcrank evaluate
    --labels FILE --folds-column NAME``).

    Parameters
    ----------
    path : str or Path
        Labels, one row per test item and fold (:func:`mcrank.evaluate.load_labels`): the true
        class, each classifier's output, and in ``folds_column`` the fold that tested the item,
        each fold of each repeat named apart (the split's number, ``0..n-1``, as
        ``enumerate(splitter.split(X, y))`` numbers them). Repeated k-fold cross-validation
        has one row per item and repeat.
    utility : str or Path
        The utility matrix, JSON text or file (:func:`mcrank.evaluate.read_utility`); its
        ``classes`` give the class order, else for three classes or more labels ``0..n-1``
        are read in their natural order (:func:`mcrank.evaluate.targets.class_order`; two
        classes and text labels need the classes, here or as ``classes``).
    folds_column : str
        The column of folds.
    truth, repeats, rope, samples, rng
        As for :func:`mcrank.evaluate.load_labels` and :func:`compare_folds`.
    classes : sequence of str, optional
        The class order of the utility's rows and columns, as the user names it; equal to the
        utility's ``classes`` when both are given.

    Returns
    -------
    FoldComparison
        Its folds in sorted order of their names (numerically if every one is an integer).

    Raises
    ------
    ValueError
        As :func:`compare_folds`, and for a fold column that names one fold, a file with
        one classifier, or a utility with an error sd.
    """
    assessment, utility_classes = read_utility(utility)
    if assessment.sd is not None:
        raise ValueError(f"{assessment.source}: an error sd is not used across folds; give the matrix alone")
    data = load_labels(
        path,
        classes=None if classes is None else tuple(map(str, classes)),
        utility_classes=utility_classes,
        truth=truth,
        n_classes=len(assessment.matrix),
        folds=folds_column,
        order_free=reads_alike(assessment.matrix),
    )
    names = _sorted_labels(set(data.folds.tolist()))
    if len(names) < 2:
        raise ValueError(f"{data.source}: the column {folds_column!r} of folds (the parameter folds_column) names one fold ({names[0]!r}): "
                         "the comparison needs at least 2 folds")  # fmt: skip
    if len(data.labels.outputs) < 2:
        raise ValueError(f"{data.source}: one classifier ({next(iter(data.labels.outputs))!r}): the comparison needs at least two")
    index = {name: k for k, name in enumerate(names)}
    folds = np.array([index[name] for name in data.folds.tolist()], dtype=np.int64)
    yields = yields_from_labels(data.labels, assessment.matrix, folds, len(names))
    return compare_folds(yields, repeats=repeats, rope=rope, samples=samples, rng=rng, fold_names=names)
