"""How sure is the ranking? The test set's uncertainty, alone and with uncertain utilities.

A ranking by utility yield rests on one finite test set. The population frequencies it
estimates are uncertain, and Bayes's theorem says how: with a Dirichlet prior of ``prior_count``
on every cell, the posterior of the frequencies is Dirichlet(counts + prior_count). From draws
of it (gamma variates, normalised), this module gives

- for each classifier, a central 95 % interval of its utility yield per item, from its own
  n^2 cells (true class, output);
- for each pair, the posterior probability that its population order differs from the
  observed one (a posterior tie counts one half), with its Monte Carlo standard error, or
  exactly with labels (below); and,
  given an error sd on the utility matrix, the same probability when each draw also takes a
  perturbed utility matrix.

**With item-level labels** a pair A, B has a joint table of counts over (true class, A's
output, B's output), n^3 cells. The yield difference is the sum over cells of the cell
frequency times ``U[A's output, true] - U[B's output, true]``. The cells where A and B agree
add nothing, and by the aggregation property of the Dirichlet they are drawn as one
component: n^2 (n - 1) + 1 components. The pairing of the items is kept: two classifiers that
differ on 2 items of 1,000 get a real doubt. The flip probability needs no sampling here: a
Dirichlet vector is independent gammas ``G_c`` divided by their sum, so the difference has the
sign of ``S = sum_c w_c G_c``, whose characteristic function is a product, and
``P(S < 0) = 1/2 - (1/pi) int_0^inf Im phi(t) / t dt`` (Gil-Pelaez), one integral for any n
(:func:`_flip_exact`).

**With confusion matrices only** the pairing is unknown. Each draw takes the class proportions
from Dirichlet(class totals + prior), shared by all classifiers, and each classifier's columns
``P(. | j)`` from Dirichlet(column counts + prior), independently. That ignores the positive
correlation between classifiers tested on the same items, and so overstates the doubt: it is
conservative.

Utilities are those of the normalised matrix (eq. 11), which ranks as the matrix does; the
draws never touch the items: the counts are tabulated once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mcrank._rng import resolve_rng

__all__ = ["DEFAULT_PRIOR_COUNT", "EXACT_TOLERANCE", "RankingUncertainty", "posterior_uncertainty"]

#: The Dirichlet prior count on every cell: 1, uniform on the simplex of frequencies.
DEFAULT_PRIOR_COUNT = 1.0
#: Posterior draws per block: the work space is a few blocks of draws x components.
_BLOCK = 2048
#: The central interval of the utility yield.
INTERVAL = 0.95
#: The absolute error the exact flip probabilities are computed to.
EXACT_TOLERANCE = 1e-11
#: Gauss-Legendre nodes of one panel of the composite rule of :func:`_flip_exact`.
_NODES, _NODE_WEIGHTS = np.polynomial.legendre.leggauss(16)


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


def _dirichlet(rng: np.random.Generator, alpha: np.ndarray, size: int) -> np.ndarray:
    """``size`` draws of Dirichlet(alpha) along the last axis (alpha broadcast), by gammas."""
    gamma = rng.standard_gamma(np.broadcast_to(alpha, (size, *np.shape(alpha))))
    return gamma / gamma.sum(axis=-1, keepdims=True)


def _flip(differences: np.ndarray, sign: float) -> np.ndarray:
    """Per draw: 1 if the difference's sign is not ``sign``, 1/2 on a tie, else 0."""
    return np.where(differences * sign > 0, 0.0, np.where(differences == 0, 0.5, 1.0))


def _gil_pelaez(w: np.ndarray, alpha: np.ndarray, low: float, high: float, panels: int) -> float:
    """int_0^inf Im phi(t) / t dt for S = sum_c w_c G_c, G_c ~ Gamma(alpha_c), over
    ``y = log t`` in [low, high], by composite Gauss-Legendre on ``panels`` panels:
    ``phi(t) = prod_c (1 - i w_c t)^(-alpha_c)``, so ``Im phi = rho sin(theta)`` with
    ``rho = prod_c (1 + w_c^2 t^2)^(-alpha_c / 2)`` and ``theta = sum_c alpha_c atan(w_c t)``."""
    edges = np.linspace(low, high, panels + 1)
    half = np.diff(edges)[:, None] / 2
    t = np.exp(edges[:-1, None] + half * (1 + _NODES)).ravel()
    weights = (half * _NODE_WEIGHTS).ravel()
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
    sigma = math.sqrt(alpha @ (w * w))
    w = w / sigma
    slope, smallest, total = float(alpha @ np.abs(w)), float(np.min(np.abs(w))), float(alpha.sum())
    low = math.log(1e-3 * EXACT_TOLERANCE / max(1.0, slope))
    # rho(t) with each factor within 1 % of its power law: the tail integral is below
    # rho(t) 1.01^(A / 2) / A, A = sum alpha.
    bound = math.log(EXACT_TOLERANCE * min(total, 1.0)) - 0.5 * total * math.log(1.01)
    high = max(0.0, math.log(10.0 / smallest))
    while -0.5 * (alpha @ np.log1p((w * math.exp(high)) ** 2)) > bound:
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
    perturbed=None,
    rng=None,
) -> RankingUncertainty:
    """Posterior intervals of the yields, and flip probabilities of the pairs.

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
        Dirichlet prior count on every cell, > 0 (0 is allowed with labels, then every cell
        must have been observed; it is refused here to keep the posterior proper).
    perturbed : callable, optional
        ``perturbed(size=, rng=) -> (size, n, n)`` perturbed normalised utility matrices: with
        it, the flip probabilities under both uncertainties are estimated too.
    rng : int, SeedSequence, Generator or None

    Returns
    -------
    RankingUncertainty
    """
    rng = resolve_rng(rng)
    lowest, scale = float(np.min(utility)), float(np.max(utility) - np.min(utility))
    u = (np.asarray(utility, dtype=float) - lowest) / scale
    counts = np.asarray(confusions, dtype=float)
    k, n = counts.shape[0], u.shape[0]
    order = list(order)
    pairs = [(order[a], order[b]) for a in range(k - 1) for b in range(a + 1, k)]
    signs = np.asarray(signs, dtype=float)
    both = perturbed is not None
    flip_test, flip_test_sq = np.zeros(len(pairs)), np.zeros(len(pairs))
    flip_both, flip_both_sq = np.zeros(len(pairs)), np.zeros(len(pairs))
    exact = np.full(len(pairs), np.nan)  # the exact flip probabilities, where there are
    yields = [[] for _ in range(k)]

    if labels is not None:
        truth, outputs = labels.truth, [labels.outputs[name] for name in names]
        j, a, b = np.nonzero(np.broadcast_to(~np.eye(n, dtype=bool), (n, n, n)))  # the cells where A and B differ
        weights = u[a, j] - u[b, j]  # their weights in the yield difference under U
        joint = []  # per pair: the Dirichlet parameters of those cells, then of the merged rest
        for p, (first, second) in enumerate(pairs):
            cells = (truth * n + outputs[first]) * n + outputs[second]
            table = np.bincount(cells, minlength=n**3).reshape(n, n, n)  # (true, A's output, B's output)
            agreeing = table.sum() - table[j, a, b].sum()
            alpha = np.concatenate((table[j, a, b] + prior_count, [agreeing + prior_count * n * n]))
            joint.append(alpha)
            if signs[p] != 0:  # the merged component has weight 0 and drops out
                value = _flip_exact(signs[p] * weights, alpha[:-1])
                exact[p] = np.nan if value is None else value
    else:
        class_alpha = counts[0].sum(axis=0) + prior_count  # (n,): the class totals
        column_alpha = counts.transpose(0, 2, 1) + prior_count  # (k, n true, n outputs)

    done = 0
    while done < samples:
        size = min(_BLOCK, samples - done)
        done += size
        v = perturbed(size=size, rng=rng) if both else None  # (size, n, n)
        if labels is not None:
            perturbed_weights = v[:, a, j] - v[:, b, j] if both else None  # (size, cells), shared by the pairs
            for p, alpha in enumerate(joint):
                drawn = math.isnan(exact[p])
                if not (drawn or both):
                    continue
                f = _dirichlet(rng, alpha, size)[:, :-1]  # the merged component has weight 0
                if drawn:
                    flips = _flip(f @ weights, signs[p])
                    flip_test[p] += flips.sum()
                    flip_test_sq[p] += (flips * flips).sum()
                if both:
                    flips = _flip(np.einsum("sc,sc->s", f, perturbed_weights), signs[p])
                    flip_both[p] += flips.sum()
                    flip_both_sq[p] += (flips * flips).sum()
            for c in range(k):  # each classifier's own n^2 cells
                cells = (counts[c] + prior_count).ravel()
                f = _dirichlet(rng, cells, size).reshape(size, n, n)
                yields[c].append(np.einsum("sij,ij->s", f, u))
        else:
            proportions = _dirichlet(rng, class_alpha, size)  # (size, n)
            frequencies = []
            for c in range(k):
                columns = _dirichlet(rng, column_alpha[c], size)  # (size, n true, n outputs)
                cells = columns.transpose(0, 2, 1) * proportions[:, None, :]  # (size, output, true)
                frequencies.append(cells)
                yields[c].append(np.einsum("sij,ij->s", cells, u))
            for p, (first, second) in enumerate(pairs):
                delta = frequencies[first] - frequencies[second]
                flips = _flip(np.einsum("sij,ij->s", delta, u), signs[p])
                flip_test[p] += flips.sum()
                flip_test_sq[p] += (flips * flips).sum()
                if both:
                    flips = _flip(np.einsum("sij,sij->s", delta, v), signs[p])
                    flip_both[p] += flips.sum()
                    flip_both_sq[p] += (flips * flips).sum()

    low, high = (1 - INTERVAL) / 2, 1 - (1 - INTERVAL) / 2
    intervals = {}
    for c, name in enumerate(names):
        draws = lowest + scale * np.concatenate(yields[c])  # back in the units of the matrix (eq. 11 undone)
        intervals[name] = (float(np.quantile(draws, low)), float(np.quantile(draws, high)))
    test, test_se = _mean_and_se(flip_test, flip_test_sq, samples)
    exact_pairs = ~np.isnan(exact)
    test[exact_pairs], test_se[exact_pairs] = exact[exact_pairs], np.nan
    tied = signs == 0
    test[tied], test_se[tied] = np.nan, np.nan
    both_mean = both_se = None
    if both:
        both_mean, both_se = _mean_and_se(flip_both, flip_both_sq, samples)
        both_mean[tied], both_se[tied] = np.nan, np.nan
    return RankingUncertainty(intervals, test, test_se, exact_pairs, both_mean, both_se, "labels" if labels is not None else "confusion matrices",
                              samples, float(prior_count))  # fmt: skip
