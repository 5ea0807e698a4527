"""How sure is the ranking? The test set's uncertainty, alone and with uncertain utilities.

A ranking by utility yield rests on one finite test set. The population frequencies it
estimates are uncertain, and Bayes's theorem says how. **One posterior**: the population
frequencies of the full joint table of the test set, (true class, every classifier's output),
have a Dirichlet prior of total count ``prior_count`` spread evenly over its cells
(:func:`prior_per_cell`), and so the posterior Dirichlet(counts + prior). Merging cells of a
Dirichlet sums their parameters (aggregation), and the even spread of a fixed total is the
rule that survives merging: a pair's joint table of (true class, A's output, B's output), n^3
cells, gets ``prior_count / n^3`` a cell, and one classifier's own table, n^2 cells,
``prior_count / n^2`` a cell, each the exact marginal of the one posterior. (A count of 1 on
every cell, the rule before, put n on each cell of A's marginal in the pair's table but 1 in
A's own: the intervals and the flips came from two posteriors.) From this posterior:

- for each classifier, a central 95 % interval of its utility yield per item, from its own
  n^2 cells drawn as the class proportions, Dirichlet(class totals + prior_count / n), times
  its columns ``P(. | j)``, Dirichlet(column counts + prior_count / n^2), independently (the
  same Dirichlet over the n^2 cells, by its neutrality);
- for each pair, the posterior probability that its population order differs from the
  observed one (a tie counts as a flip, as everywhere in mcrank: a tie in the population
  differs from an observed strict order), with its Monte Carlo standard error, or
  exactly with labels (below); and, given an error sd on the utility matrix, the same
  probability when each draw also takes a perturbed utility matrix.

**With item-level labels** the yield difference of a pair is the sum over the cells of its
joint table of the cell frequency times ``U[A's output, true] - U[B's output, true]``. The
cells where A and B agree add nothing, and by aggregation they are drawn as one component:
n^2 (n - 1) + 1 components. The pairing of the items is kept: two classifiers that differ on
2 items of 1,000 get a real doubt. The flip probability needs no sampling here: a Dirichlet
vector is independent gammas ``G_c`` divided by their sum, so the difference has the sign of
``S = sum_c w_c G_c``, whose characteristic function is a product, and
``P(S < 0) = 1/2 - (1/pi) int_0^inf Im phi(t) / t dt`` (Gil-Pelaez), one integral for any n
(:func:`_flip_exact`).

**With confusion matrices only** the pairing is unknown. Each draw takes the class proportions
once, shared by all classifiers, and each classifier's columns independently. That ignores
the positive correlation between classifiers tested on the same items, and so overstates the
doubt: it is conservative. Each classifier's own posterior, and so its interval, is the same
as with labels.

**Deployment class frequencies** ``pi`` replace the class proportions of the test set: the
yield is ``sum_j pi_j sum_i U_ij P(i | j)``, and only the columns ``P(. | j)`` (with labels,
``P(A's output, B's output | j)``, Dirichlet(counts of class j + prior_count / n^3), one per
class, independent) are drawn. ``pi`` is fixed, or drawn once per draw, shared by every
classifier and pair, from Dirichlet(registry counts + prior_count / n). The yield difference
is then no longer a linear form in one set of gammas (each class has its own normaliser): the
flip probabilities are Monte Carlo.

Utilities are those of the normalised matrix (eq. 11), which ranks as the matrix does; the
draws never touch the items: the counts are tabulated once.

**Streams and memory.** Each random quantity has a stream of its own from the root seed
(:func:`mcrank._rng.stream_generator`): the class proportions and columns
(``TEST_SET, 0``), each pair's joint table (``TEST_SET, 1 + pair``), the perturbed utility
matrices (``UTILITY_ERRORS``, the stream of :func:`mcrank.evaluate.flips._count_flips`
too, so both see the same matrices) and the deployment's frequencies
(``DEPLOYMENT_FREQUENCIES``). Adding an error sd or deployment counts leaves every other
number as it was. The draws are made in blocks of :data:`_BLOCK` and reduced as they come:
sums for the flip probabilities, and for the intervals :class:`_IntervalQuantiles`, which
keeps the draws (exact quantiles) while ``samples x classifiers`` is at most
:data:`EXACT_QUANTILE_DRAWS`, and above it counts them in fine histograms around the
quantiles: the memory does not grow with ``samples``.

**The prior** and the Dirichlet draws, with their range and their guard against underflow,
are those of every mode, :mod:`mcrank.evaluate.posterior`'s.
"""

from __future__ import annotations

import functools
import math
import sys
from dataclasses import dataclass

import numpy as np

from mcrank._rng import DEPLOYMENT_FREQUENCIES, TEST_SET, UTILITY_ERRORS, root_of, stream_generator
from mcrank.evaluate.posterior import (  # noqa: F401 - the prior is posterior.py's, named here too
    DEFAULT_PRIOR_COUNT,
    MAX_PRIOR_COUNT,
    MIN_PRIOR_COUNT,
    PRIOR_NOTE_SHARE,
    check_prior_count,
    dirichlet,
    prior_per_cell,
)

__all__ = ["DEFAULT_PRIOR_COUNT", "EXACT_QUANTILE_DRAWS", "EXACT_TOLERANCE", "MAX_PRIOR_COUNT", "MIN_PRIOR_COUNT",
           "PRIOR_NOTE_SHARE", "RankingUncertainty", "check_prior_count", "posterior_uncertainty", "prior_per_cell"]  # fmt: skip

#: Posterior draws per block: the work space is a few blocks of draws x components.
_BLOCK = 2048
#: Up to this many draws (samples x classifiers) the intervals are the exact quantiles of the
#: kept draws (32 MiB); above it, of histograms (:class:`_IntervalQuantiles`).
EXACT_QUANTILE_DRAWS = 1 << 22
#: Draws per classifier kept to place the histograms of :class:`_IntervalQuantiles`.
_PILOT_DRAWS = 1 << 16
#: Half-width of a histogram's window around a quantile, in standard errors of the pilot's
#: quantile: the full run's quantile lies outside with probability below 1e-15.
_WINDOW_SE = 8.0
#: The central interval of the utility yield.
INTERVAL = 0.95
#: The absolute error the exact flip probabilities are computed to.
EXACT_TOLERANCE = 1e-11
#: Gauss-Legendre nodes per panel of the composite rule of :func:`_flip_exact`.
_NODES = 16


@dataclass(frozen=True)
class RankingUncertainty:
    """What :func:`posterior_uncertainty` estimates.

    Attributes
    ----------
    intervals : dict of str to (float, float)
        Per classifier, the central 95 % posterior interval of its utility yield per item,
        in the units of the utility matrix.
    flip_test, flip_test_se : ndarray of shape (pairs,)
        Per pair (``order[a]``, ``order[b]``), ``a < b``, in that order: the posterior
        probability that the population order differs from the observed one, and its Monte
        Carlo SE (NaN where it is exact). NaN for a pair tied in the observed yields (nothing
        to flip).
    flip_test_exact : ndarray of bool, shape (pairs,)
        Where ``flip_test`` is the Gil-Pelaez integral (labels; absolute error below
        :data:`EXACT_TOLERANCE`), not a Monte Carlo estimate.
    flip_both, flip_both_se : ndarray of shape (pairs,) or None
        The same with each draw's utility matrix perturbed (given an error sd).
    model : {"labels", "confusion matrices"}
    samples : int
    prior_count : float
        The prior's total count, spread evenly over the cells (:func:`prior_per_cell`).
    """

    intervals: dict
    flip_test: np.ndarray
    flip_test_se: np.ndarray
    flip_test_exact: np.ndarray
    flip_both: np.ndarray | None
    flip_both_se: np.ndarray | None
    model: str
    samples: int
    prior_count: float


class _IntervalQuantiles:
    """The quantiles ``probabilities`` of each of ``k`` streams of ``samples`` draws, in memory
    that does not grow with ``samples``.

    While ``samples * k <= exact_draws`` every draw is kept and the quantiles are numpy's
    (``method="linear"``), exactly. Above, the first ``pilot`` draws of each stream are kept;
    from them, around each quantile ``q``, a window between the pilot's quantiles at
    ``q -+ _WINDOW_SE sqrt(q (1 - q) / pilot)`` gets a histogram of ``bins`` bins, fine enough
    that a bin holds about a quarter of the final quantile's Monte Carlo standard error,
    ``sqrt(q (1 - q) / samples)``, in probability; every draw, the pilot's included, is
    counted (below the window, or in its bin). The quantile is read at numpy's rank
    ``q (samples - 1)`` in its bin, the bin's draws taken as evenly spread: its error is at
    most one bin's width, a quarter of the Monte Carlo standard error of the quantile
    itself. Should the rank fall outside the window (probability below 1e-15), the pilot's
    quantile is used.
    """

    def __init__(self, k: int, samples: int, probabilities, *, exact_draws: int = EXACT_QUANTILE_DRAWS, pilot: int = _PILOT_DRAWS):
        self.samples, self.probabilities = samples, np.asarray(probabilities, dtype=float)
        self.exact = samples * k <= exact_draws
        self.kept = np.empty((k, samples if self.exact else min(pilot, samples)))
        self.filled = 0
        self.windows = None

    def add(self, draws: np.ndarray) -> None:
        """The next draws of every stream, shape (k, size)."""
        room = self.kept.shape[1] - self.filled
        if room > 0:
            taken = draws[:, :room]
            self.kept[:, self.filled : self.filled + taken.shape[1]] = taken
            self.filled += taken.shape[1]
            draws = draws[:, room:]
            if self.exact or self.filled < self.kept.shape[1]:
                return
            self._place_windows()
            self._count(self.kept)
        if draws.shape[1]:
            self._count(draws)

    def _place_windows(self) -> None:
        q, m = self.probabilities, self.kept.shape[1]
        spread = _WINDOW_SE * np.sqrt(q * (1 - q) / m)
        lower = np.quantile(self.kept, np.clip(q - spread, 0, 1), axis=1).T  # (k, quantiles)
        upper = np.quantile(self.kept, np.clip(q + spread, 0, 1), axis=1).T
        # Draws beyond the pilot's extremes are possible: an open end when the window reaches it.
        lower = np.where(q - spread <= 0, -np.inf, lower)
        upper = np.where(q + spread >= 1, np.inf, upper)
        self.bins = int(math.ceil(8 * _WINDOW_SE * math.sqrt(self.samples / m)))
        self.windows = (lower, upper)
        k, quantiles = lower.shape
        self.below = np.zeros((k, quantiles), dtype=np.int64)
        self.counts = np.zeros((k, quantiles, self.bins), dtype=np.int64)
        finite = np.isfinite(lower) & np.isfinite(upper)
        self.width = np.where(finite, upper - lower, 0.0) / self.bins

    def _count(self, draws: np.ndarray) -> None:
        lower, upper = self.windows
        k, quantiles = lower.shape
        for j in range(quantiles):
            low, high = lower[:, j : j + 1], upper[:, j : j + 1]
            self.below[:, j] += np.count_nonzero(draws < low, axis=1)
            inside = (draws >= low) & (draws <= high)
            rows, columns = np.nonzero(inside)
            width = self.width[rows, j]
            offset = np.where(width > 0, (draws[rows, columns] - lower[rows, j]) / np.where(width > 0, width, 1.0), 0.0)
            where = rows * self.bins + np.minimum(offset.astype(np.int64), self.bins - 1)
            self.counts[:, j] += np.bincount(where, minlength=k * self.bins).reshape(k, self.bins)

    def result(self) -> np.ndarray:
        """Shape (k, quantiles)."""
        if self.exact or self.windows is None:  # every draw kept
            return np.quantile(self.kept[:, : self.filled], self.probabilities, axis=1).T
        lower, _ = self.windows
        k, quantiles = lower.shape
        fallback = np.quantile(self.kept, self.probabilities, axis=1).T
        out = np.empty((k, quantiles))
        for c in range(k):
            for j, q in enumerate(self.probabilities):
                rank = q * (self.samples - 1) - self.below[c, j]  # 0-based, within the window
                cumulative = np.cumsum(self.counts[c, j])
                if not np.isfinite(lower[c, j]) or rank < 0 or rank >= cumulative[-1]:
                    out[c, j] = fallback[c, j]
                    continue
                b = int(np.searchsorted(cumulative, rank, side="right"))
                before = cumulative[b - 1] if b else 0
                inside = (rank - before + 0.5) / (cumulative[b] - before)
                out[c, j] = lower[c, j] + (b + inside) * self.width[c, j]
        return out


def _flip(differences: np.ndarray, sign: float) -> np.ndarray:
    """Per draw: 1 if the difference's sign is not ``sign``, a tie included (the study's step
    6: a pair is ranked correctly only when strictly ahead), else 0."""
    return np.where(differences * sign > 0, 0.0, 1.0)


@functools.cache
def _gauss_legendre() -> tuple[np.ndarray, np.ndarray]:
    """The Gauss-Legendre nodes and weights of one panel, on [-1, 1]: computed when first
    needed, as numpy.polynomial takes longer to import than this whole module."""
    from numpy.polynomial.legendre import leggauss

    return leggauss(_NODES)


def _gil_pelaez(w: np.ndarray, alpha: np.ndarray, low: float, high: float, panels: int) -> float:
    """int_0^inf Im phi(t) / t dt for S = sum_c w_c G_c, G_c ~ Gamma(alpha_c), over
    ``y = log t`` in [low, high], by composite Gauss-Legendre on ``panels`` panels:
    ``phi(t) = prod_c (1 - i w_c t)^(-alpha_c)``, so ``Im phi = rho sin(theta)`` with
    ``rho = prod_c (1 + w_c^2 t^2)^(-alpha_c / 2)`` and ``theta = sum_c alpha_c atan(w_c t)``."""
    nodes, node_weights = _gauss_legendre()
    edges = np.linspace(low, high, panels + 1)
    half = np.diff(edges)[:, None] / 2
    t = np.exp(edges[:-1, None] + half * (1 + nodes)).ravel()
    weights = (half * node_weights).ravel()
    total, step = 0.0, max(1, 2**20 // w.size)  # nodes at a time: work space of 8 MB
    for start in range(0, t.size, step):
        wt = np.multiply.outer(t[start : start + step], w)
        integrand = np.exp(-0.5 * (np.log1p(wt * wt) @ alpha)) * np.sin(np.arctan(wt) @ alpha)
        total += float(weights[start : start + step] @ integrand)
    return total


def _flip_exact(weights: np.ndarray, alpha: np.ndarray) -> float | None:
    """``P(sum_c w_c f_c < 0)`` for ``f ~ Dirichlet(alpha)``, to :data:`EXACT_TOLERANCE`, or
    None where the integral does not converge within its budget (not met with prior counts
    down to 0.001; then the pair is drawn).

    The sign of ``sum_c w_c f_c`` is that of ``S = sum_c w_c G_c`` with independent gammas,
    and ``P(S < 0) = 1/2 - (1/pi) int Im phi(t) dt / t`` (Gil-Pelaez). Components of weight 0
    drop out; S is scaled to unit variance. Below ``t = e^low`` the integrand is at most
    ``sum_c alpha_c |w_c| t``; above ``e^high`` every ``|w_c| t`` exceeds 10 and ``rho`` is
    below the tolerance: each tail adds less than the tolerance. The panels double until two
    rules agree.
    """
    keep = weights != 0
    w, alpha = weights[keep], alpha[keep]
    if not np.any(w < 0):
        return 0.0
    if not np.any(w > 0):
        return 1.0
    w = w / np.max(np.abs(w))  # first: the squares of weights of 1e-200 (a threshold's) underflow to 0
    sigma = math.sqrt(alpha @ (w * w))
    w = w / sigma
    slope, smallest, total = float(alpha @ np.abs(w)), float(np.min(np.abs(w))), float(alpha.sum())
    low = math.log(1e-3 * EXACT_TOLERANCE / max(1.0, slope))
    # rho(t) with each factor within 1 % of its power law: the tail integral is below
    # rho(t) 1.01^(A / 2) / A, A = sum alpha.
    bound = math.log(EXACT_TOLERANCE * min(total, 1.0)) - 0.5 * total * math.log(1.01)
    high = max(0.0, math.log(10.0) - math.log(smallest))  # 10 / smallest overflows for a subnormal weight
    while high <= 60.0 and -0.5 * (alpha @ np.log1p((w * math.exp(high)) ** 2)) > bound:
        high += 1.0
    if high > 60.0:
        return None
    panels, previous = 32, _gil_pelaez(w, alpha, low, high, 32)
    while True:
        panels *= 2
        current = _gil_pelaez(w, alpha, low, high, panels)
        if abs(current - previous) < EXACT_TOLERANCE:
            return min(max(0.5 - current / math.pi, 0.0), 1.0)
        if panels >= 2**14:
            return None
        previous = current


def _mean_and_se(total: np.ndarray, squares: np.ndarray, samples: int) -> tuple[np.ndarray, np.ndarray]:
    mean = total / samples
    variance = np.maximum(squares / samples - mean * mean, 0.0) * samples / max(samples - 1, 1)
    return mean, np.sqrt(variance / samples)


def posterior_uncertainty(
    utility: np.ndarray,
    confusions: np.ndarray,
    names,
    order,
    signs,
    *,
    labels=None,
    samples: int,
    prior_count: float = DEFAULT_PRIOR_COUNT,
    frequencies=None,
    frequency_counts=None,
    perturbed=None,
    progress: bool = False,
    rng=None,
) -> RankingUncertainty:
    """Posterior intervals of the yields, and flip probabilities of the pairs, from one posterior.

    Parameters
    ----------
    utility : ndarray of shape (n, n)
        The utility matrix that ranks (the intervals are in its units; the flips are
        computed on its standard form, eq. 11, as the perturbed matrices are).
    confusions : ndarray of shape (k, n, n)
        Counts per classifier, rows = output, columns = true class.
    names : sequence of str
        The classifiers, in the order of ``confusions``.
    order : sequence of int
        The classifiers in rank order (observed): pairs are ``(order[a], order[b])``, a < b.
    signs : sequence of {-1, 0, 1}
        Per pair, the sign of its observed yield difference (0: tied, as the ranking
        decided it, exactly or within its tolerance).
    labels : ItemLabels, optional
        The test set item by item (:func:`mcrank.evaluate.load_labels`); then the pairs'
        joint tables are used, else the conservative model of independent columns.
    samples : int
        Posterior draws.
    prior_count : float, default 1
        The Dirichlet prior's total count, in [:data:`MIN_PRIOR_COUNT`,
        :data:`MAX_PRIOR_COUNT`], spread evenly over the cells of the table (:func:`prior_per_cell`).
    frequencies : ndarray of shape (n,), optional
        Deployment class frequencies, summing to 1, in place of the test set's class
        proportions; every class with a frequency above 0 must have test items.
    frequency_counts : ndarray of shape (n,), optional
        Counts of the classes in deployment (a registry): the frequencies are then uncertain,
        Dirichlet(frequency_counts + prior_count / n), drawn once per draw for every
        classifier and pair. Not with ``frequencies``.
    perturbed : callable, optional
        ``perturbed(size=, rng=) -> (size, n, n)`` perturbed normalised utility matrices: with
        it, the flip probabilities under both uncertainties are estimated too.
    rng : int, SeedSequence, Generator or None
        The root of the streams (module docstring; :func:`mcrank._rng.root_of`).
    progress : bool, default False
        Show a progress bar of the draws on stderr (tqdm, as the study runner does): their
        work grows with the number of pairs of classifiers.

    Returns
    -------
    RankingUncertainty
    """
    prior_count = check_prior_count(prior_count)
    root = root_of(rng)
    lowest, scale = float(np.min(utility)), float(np.max(utility) - np.min(utility))
    u = (np.asarray(utility, dtype=float) - lowest) / scale
    counts = np.asarray(confusions, dtype=float)
    k, n = counts.shape[0], u.shape[0]
    order = list(order)
    pairs = [(order[a], order[b]) for a in range(k - 1) for b in range(a + 1, k)]
    signs = np.asarray(signs, dtype=float)
    both = perturbed is not None
    proportions = _Proportions(root, counts, prior_count, frequencies, frequency_counts)
    sums = _FlipSums(len(pairs))
    yields = _IntervalQuantiles(k, samples, ((1 - INTERVAL) / 2, 1 - (1 - INTERVAL) / 2))
    # Every table's prior from the one rule: its marginals are those of the full joint table.
    column_alpha = counts.transpose(0, 2, 1) + prior_per_cell(prior_count, n * n)  # (k, n true, n outputs)
    joint = None if labels is None else _JointTables(root, labels, names, pairs, signs, u, prior_count, proportions.deployment, both)
    draws, errors = stream_generator(root, TEST_SET), stream_generator(root, UTILITY_ERRORS)
    from tqdm import tqdm  # only with the test-set uncertainty: the command line starts without it

    bar = tqdm(total=samples, unit="draw", unit_scale=True, disable=not progress, file=sys.stderr, leave=False)
    done = 0
    while done < samples:
        size = min(_BLOCK, samples - done)
        done += size
        bar.update(size)
        v = perturbed(size=size, rng=errors) if both else None  # (size, n, n)
        shares = proportions.draw(size, draws)  # (size, n): the class proportions of this block's draws
        frequencies_drawn = []
        block_yields = np.empty((k, size))
        for c in range(k):
            columns = dirichlet(draws, column_alpha[c], size)  # (size, n true, n outputs)
            cells = columns.transpose(0, 2, 1) * shares[:, None, :]  # (size, output, true)
            frequencies_drawn.append(cells)
            block_yields[c] = np.einsum("sij,ij->s", cells, u)
        yields.add(block_yields)
        if joint is not None:
            joint.add_flips(sums, shares, v)
            continue
        for p, (first, second) in enumerate(pairs):
            delta = frequencies_drawn[first] - frequencies_drawn[second]
            sums.add(p, "test", _flip(np.einsum("sij,ij->s", delta, u), signs[p]))
            if both:
                sums.add(p, "both", _flip(np.einsum("sij,sij->s", delta, v), signs[p]))
    bar.close()
    # Back in the units of the matrix (eq. 11 undone), within its range despite rounding.
    ends = np.clip(lowest + scale * yields.result(), lowest, lowest + scale)
    intervals = {name: (float(ends[c, 0]), float(ends[c, 1])) for c, name in enumerate(names)}
    exact = np.full(len(pairs), np.nan) if joint is None else joint.exact
    return sums.result(intervals, exact, signs, both, samples, "labels" if labels is not None else "confusion matrices", prior_count)


class _Proportions:
    """The class proportions of each block of draws: the test set's, Dirichlet(class totals +
    prior), or the deployment's, fixed or Dirichlet(registry counts + prior) from a stream of
    their own (module docstring)."""

    def __init__(self, root, counts: np.ndarray, prior_count: float, frequencies, frequency_counts):
        n = counts.shape[1]
        self.deployment = frequencies is not None or frequency_counts is not None
        self.frequencies = None if frequencies is None else np.asarray(frequencies, dtype=float)
        self.alpha = counts[0].sum(axis=0) + prior_per_cell(prior_count, n)  # (n,): the class totals
        self.deployment_draws = None
        if frequency_counts is not None:
            self.alpha = np.asarray(frequency_counts, dtype=float) + prior_per_cell(prior_count, n)
            self.deployment_draws = stream_generator(root, DEPLOYMENT_FREQUENCIES)

    def draw(self, size: int, draws: np.random.Generator) -> np.ndarray:
        if self.frequencies is not None:
            return np.broadcast_to(self.frequencies, (size, self.alpha.size))
        return dirichlet(draws if self.deployment_draws is None else self.deployment_draws, self.alpha, size)


class _FlipSums:
    """Per pair, the sums of the flips drawn and of their squares, under the test set alone
    (``"test"``) and with the utility's errors too (``"both"``)."""

    def __init__(self, pairs: int):
        self.sums = {kind: (np.zeros(pairs), np.zeros(pairs)) for kind in ("test", "both")}

    def add(self, pair: int, kind: str, flips: np.ndarray) -> None:
        total, squares = self.sums[kind]
        total[pair] += flips.sum()
        squares[pair] += (flips * flips).sum()

    def result(self, intervals, exact, signs, both: bool, samples: int, model: str, prior_count: float) -> RankingUncertainty:
        test, test_se = _mean_and_se(*self.sums["test"], samples)
        exact_pairs = ~np.isnan(exact)
        test[exact_pairs], test_se[exact_pairs] = exact[exact_pairs], np.nan
        tied = signs == 0
        test[tied], test_se[tied] = np.nan, np.nan
        both_mean = both_se = None
        if both:
            both_mean, both_se = _mean_and_se(*self.sums["both"], samples)
            both_mean[tied], both_se[tied] = np.nan, np.nan
        return RankingUncertainty(intervals, test, test_se, exact_pairs, both_mean, both_se, model, samples, float(prior_count))


class _JointTables:
    """With labels: each pair's joint table (true class, A's output, B's output) as the
    Dirichlet parameters of its components, the cells where A and B differ then the agreeing
    ones merged (into one, or one per true class with deployment frequencies, each class its
    own Dirichlet); the exact flip probabilities where the integral gives them, and a stream
    per pair drawn (whether another is exact, or an error sd makes the exact ones drawn too,
    changes none of its draws)."""

    def __init__(self, root, labels, names, pairs, signs, u: np.ndarray, prior_count: float, deployment: bool, both: bool):
        n = u.shape[0]
        truth, outputs = labels.truth, [labels.outputs[name] for name in names]
        j, a, b = np.nonzero(np.broadcast_to(~np.eye(n, dtype=bool), (n, n, n)))  # the cells where A and B differ
        self.j, self.a, self.b, self.n, self.signs, self.deployment = j, a, b, n, signs, deployment
        self.weights = u[a, j] - u[b, j]  # their weights in the yield difference under U
        cell_prior = prior_per_cell(prior_count, n**3)
        merged_class = np.arange(n) if deployment else np.zeros(0, dtype=np.int64)
        self.class_indicator = np.eye(n)[np.concatenate((j, merged_class))]  # (components, n)
        self.alphas, self.exact = [], np.full(len(pairs), np.nan)
        for p, (first, second) in enumerate(pairs):
            cells = (truth * n + outputs[first]) * n + outputs[second]
            table = np.bincount(cells, minlength=n**3).reshape(n, n, n)  # (true, A's output, B's output)
            agreeing = np.einsum("jaa->j", table)  # per true class
            merged = agreeing + n * cell_prior if deployment else [agreeing.sum() + n * n * cell_prior]
            alpha = np.concatenate((table[j, a, b] + cell_prior, merged))
            self.alphas.append(alpha)
            if signs[p] != 0 and not deployment:  # the merged component has weight 0 and drops out
                value = _flip_exact(signs[p] * self.weights, alpha[:-1])
                self.exact[p] = np.nan if value is None else value
        self.both = both
        self.streams = {p: stream_generator(root, TEST_SET, 1 + p) for p in range(len(pairs)) if both or math.isnan(self.exact[p])}

    def add_flips(self, sums: _FlipSums, proportions: np.ndarray, v: np.ndarray | None) -> None:
        """One block's flips of every pair drawn, given its class proportions and perturbed matrices."""
        size = proportions.shape[0]
        perturbed_weights = v[:, self.a, self.j] - v[:, self.b, self.j] if self.both else None  # (size, cells), shared by the pairs
        for p, pair_rng in self.streams.items():
            alpha = self.alphas[p]
            if self.deployment:
                # One Dirichlet per true class, each scaled to that class's frequency.
                gamma = pair_rng.standard_gamma(np.broadcast_to(alpha, (size, alpha.size)))
                totals = gamma @ self.class_indicator  # (size, n): each class's normaliser
                share = np.divide(proportions, totals, out=np.zeros((size, self.n)), where=(proportions > 0) & (totals > 0))
                f = gamma[:, : self.j.size] * share[:, self.j]
            else:
                f = dirichlet(pair_rng, alpha, size)[:, :-1]  # the merged component has weight 0
            if math.isnan(self.exact[p]):
                sums.add(p, "test", _flip(f @ self.weights, self.signs[p]))
            if self.both:
                sums.add(p, "both", _flip(np.einsum("sc,sc->s", f, perturbed_weights), self.signs[p]))
