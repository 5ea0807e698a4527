"""A plain NumPy implementation of the ROC/AUC study: the oracle of the ROC engine's tests.

Written from ``SPEC.md`` ("The ROC/AUC study") without importing anything from mcrank. The
true utility matrices, their normalisation and both error models are those of
:mod:`numpy_oracle` (the matrices of eq. (12) are already normalised by eq. (11): one diagonal
element is 1 and one off-diagonal element is 0). Where the engine is exact, this module is
brute force:

- every classifier is evaluated on one fixed grid of thresholds ``x = Phi^-1(f)``
  (:data:`GRID`, by default 2001 points on [-9, 9]), plus the two corners ``f = 0`` (always
  output 1) and ``f = 1`` (always output 0) as extra candidates; the best threshold of any
  score is the best of these candidates, with no stationary-point algebra;
- a corner's value does not depend on the ROC curve, and is computed by the same expression
  for both classifiers of a pair, so a pair with both optima at the same corner ties exactly;
- the AUC is the integral of ``t(f) df = t(x) phi(x) dx``, by the trapezoid rule on the grid
  (the integrand decays like a gaussian, so the rule converges far faster than ``h^2``).

The grid's maximum is a lower bound on the supremum over all thresholds; it falls short of it
by at most ``max |g''| h^2 / 8`` with ``h`` the grid step and ``g`` the score as a function of
``x`` (beyond |x| = 9 the rates are within 1e-18 of a corner, so nothing is lost there). The
comparison with the engine is statistical: this module draws its own stream.

Utility matrices are rows ``(U00, U01, U10, U11)`` (rows = output, columns = true class, class
0 positive); ``B`` is the fraction of class 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from numpy_oracle import (
    perturb_gaussian,
    perturb_truncated,
    sample_hexagon_gaussian,
    sample_hexagon_uniform,
    utility_from_xy,
)

__all__ = [
    "GRID",
    "METRICS",
    "RocOracleResult",
    "auc_by_quadrature",
    "best_f1_on_grid",
    "best_score_pair",
    "best_youden_on_grid",
    "best_yield_on_grid",
    "curves_on_grid",
    "run_roc_oracle",
    "yield_at",
]

#: The scores of the ROC study, by the ids mcrank uses for them.
METRICS = ("auc", "best_accuracy", "best_youden", "best_f1")

#: Thresholds ``x = Phi^-1(f)`` of the brute-force search.
GRID = np.linspace(-9.0, 9.0, 2001)

#: The identity utility matrix: its yield is the accuracy.
IDENTITY = np.array([1.0, 0.0, 0.0, 1.0])


def curves_on_grid(mu, sigma, grid: np.ndarray = GRID, *, out: np.ndarray | None = None) -> np.ndarray:
    """True-positive rates ``t = Phi((mu + x) / sigma)`` of binormal classifiers on the grid.

    Parameters
    ----------
    mu, sigma : array_like of shape (n,)
    grid : ndarray of shape (G,)
    out : ndarray of shape (n, G), optional

    Returns
    -------
    ndarray of shape (n, G)
    """
    mu = np.atleast_1d(np.asarray(mu, dtype=float))[:, None]
    sigma = np.atleast_1d(np.asarray(sigma, dtype=float))[:, None]
    t = np.add(mu, grid, out=out)
    t /= sigma
    return ndtr(t, out=t)


def _work(shape, work):
    """Two scratch arrays of ``shape``: views of ``work`` when given (fresh arrays of a few MB
    cost more in page faults than the arithmetic done in them)."""
    if work is None:
        return np.empty(shape), np.empty(shape)
    return tuple(w.reshape(-1)[: shape[0] * shape[1]].reshape(shape) for w in work)


def yield_at(utility, prevalence, tpr, fpr):
    """Utility yield, eq. (9), of the confusion matrix with rates ``(tpr, fpr)`` (eq. 21):
    ``B (U00 t + U10 (1 - t)) + (1 - B) (U01 f + U11 (1 - f))``. Broadcasts."""
    u = np.asarray(utility, dtype=float)
    b = np.asarray(prevalence, dtype=float)
    return b * (u[..., 0] * tpr + u[..., 2] * (1 - tpr)) + (1 - b) * (u[..., 1] * fpr + u[..., 3] * (1 - fpr))


def best_yield_on_grid(utility, prevalence, t: np.ndarray, grid: np.ndarray = GRID, *, work=None):
    """The best utility yield ``Y*(U)`` of each classifier over the grid and the two corners.

    ``Y(f) = Y(0) + (U00 - U10) B t - (U11 - U01) (1 - B) f``, with ``Y(0) = U10 B + U11 (1 - B)``
    (always output 1) and ``Y(1) = U00 B + U01 (1 - B)`` (always output 0).

    Parameters
    ----------
    utility : array_like of shape (n, 4) or (4,)
        Rows ``(U00, U01, U10, U11)``; any real matrix (a perturbed one may break the order).
    prevalence : array_like of shape (n,) or scalar
        ``B``, the fraction of class 0.
    t : ndarray of shape (n, G)
        The classifiers' true-positive rates on ``grid`` (:func:`curves_on_grid`).
    grid : ndarray of shape (G,)
    work : pair of ndarray, optional
        Scratch space of at least ``t.size`` elements each.

    Returns
    -------
    best : ndarray of shape (n,)
    fpr : ndarray of shape (n,)
        The false-positive rate where the best is reached (0 or 1 at a corner).
    """
    n = t.shape[0]
    u = np.broadcast_to(np.asarray(utility, dtype=float), (n, 4))
    b = np.broadcast_to(np.asarray(prevalence, dtype=float), (n,))
    gain = (u[:, 0] - u[:, 2]) * b  # per unit of t
    cost = (u[:, 3] - u[:, 1]) * (1 - b)  # per unit of f
    f = ndtr(grid)
    g, charge = _work(t.shape, work)
    np.multiply(t, gain[:, None], out=g)
    g -= np.multiply(cost[:, None], f, out=charge)
    k = np.argmax(g, axis=1)
    inner = g[np.arange(n), k]
    upper = gain - cost  # the corner f = 1, t = 1
    # Corners first: a grid value equal to a corner's is that corner (the same value).
    best = np.maximum(0.0, upper)
    fpr = np.where(upper > 0.0, 1.0, 0.0)
    better = inner > best
    best = np.where(better, inner, best)
    fpr = np.where(better, f[k], fpr)
    # Y* = Y(0) + the best increment: an optimum closer to a corner than the rounding of the
    # yield is that corner, as double precision sees it (so the two classifiers tie there).
    return u[:, 2] * b + u[:, 3] * (1 - b) + best, fpr


def best_youden_on_grid(t: np.ndarray, grid: np.ndarray = GRID, *, work=None):
    """The best Youden's J ``max_f t - f`` (both corners give 0). Returns ``(j, fpr)``."""
    f = ndtr(grid)
    j = np.subtract(t, f, out=_work(t.shape, work)[0])
    k = np.argmax(j, axis=1)
    inner = j[np.arange(t.shape[0]), k]
    better = inner > 0.0
    return np.where(better, inner, 0.0), np.where(better, f[k], 0.0)


def _f1(b, t, f):
    return 2 * b * t / (b + b * t + (1 - b) * f)


def best_f1_on_grid(prevalence, t: np.ndarray, grid: np.ndarray = GRID, *, work=None):
    """The best F1 ``max_f 2 B t / (B + B t + (1 - B) f)``; ``f = 0`` gives 0, ``f = 1`` gives
    ``2 B / (1 + B)``. Returns ``(f1, fpr)``.

    ``F1 = 2 B q / (1 + B q)`` with ``q = t / (B + (1 - B) f)``, increasing in ``q``: the grid
    is searched for the largest ``q`` (fewer passes), and F1 computed where it is.
    """
    n = t.shape[0]
    b = np.broadcast_to(np.asarray(prevalence, dtype=float), (n,))
    f = ndtr(grid)
    q, denominator = _work(t.shape, work)
    np.multiply((1 - b)[:, None], f, out=denominator)
    denominator += b[:, None]
    np.divide(t, denominator, out=q)
    k = np.argmax(q, axis=1)
    fk = f[k]
    inner = _f1(b, t[np.arange(n), k], fk)
    # The corner by the same expression, so that a grid point that rounds to it (t = f = 1.0
    # in double) gives the same value, not one an ulp away.
    upper = _f1(b, 1.0, 1.0)
    better = inner > upper
    return np.where(better, inner, upper), np.where(better, fk, 1.0)


def auc_by_quadrature(t: np.ndarray, grid: np.ndarray = GRID) -> np.ndarray:
    """``AUC = int_0^1 t df = int t(x) phi(x) dx``, trapezoid rule on the grid. Shape (n,)."""
    density = np.exp(-0.5 * grid**2) / np.sqrt(2 * np.pi)
    weights = density * np.gradient(grid)  # trapezoid: half weight at both ends
    weights[0] = density[0] * (grid[1] - grid[0]) / 2
    weights[-1] = density[-1] * (grid[-1] - grid[-2]) / 2
    return t @ weights


def best_score_pair(name: str, utility, prevalence, t: np.ndarray, grid: np.ndarray = GRID, *, work=None) -> np.ndarray:
    """A score of each classifier: ``auc``, ``best_accuracy``, ``best_youden``, ``best_f1``,
    or ``utility`` (the best yield under ``utility``)."""
    if name == "auc":
        return auc_by_quadrature(t, grid)
    if name == "best_accuracy":
        return best_yield_on_grid(IDENTITY, prevalence, t, grid, work=work)[0]
    if name == "best_youden":
        return best_youden_on_grid(t, grid, work=work)[0]
    if name == "best_f1":
        return best_f1_on_grid(prevalence, t, grid, work=work)[0]
    if name == "utility":
        return best_yield_on_grid(utility, prevalence, t, grid, work=work)[0]
    raise ValueError(f"the oracle does not know the score {name!r}")


@dataclass(frozen=True)
class RocOracleResult:
    """Counts of :func:`run_roc_oracle`, one entry per row: the scores of ``metrics``, then
    ``("utility", sd)`` per sd.

    Attributes
    ----------
    samples : int
        All pairs.
    tied : int
        Pairs tied in truth (``Y*_2(U) == Y*_1(U)``), left out of every denominator.
    incorrect, reversed, score_tied : dict
        Among the untied pairs: ranked incorrectly (anything but the same strict sign),
        ranked the opposite way (strictly), and tied (or NaN) by the score. Keys are the
        score ids and ``("utility", sd)``.
    """

    samples: int
    tied: int
    incorrect: dict
    reversed: dict
    score_tied: dict

    @property
    def untied(self) -> int:
        return self.samples - self.tied

    @property
    def tied_pct(self) -> float:
        return 100 * self.tied / self.samples

    @property
    def tied_se_pct(self) -> float:
        f = self.tied / self.samples
        return 100 * np.sqrt(f * (1 - f) / self.samples)

    def pct(self, key) -> tuple[float, float]:
        """Percentage of untied pairs ranked incorrectly, and its standard error."""
        f = self.incorrect[key] / self.untied
        return 100 * f, 100 * np.sqrt(f * (1 - f) / self.untied)


def run_roc_oracle(
    samples: int,
    *,
    rng: np.random.Generator,
    true_um: str = "uniform",
    true_um_sd: float = 1 / 3,
    error: str = "gaussian",
    sds=(0.1,),
    prevalence: float | None = None,
    mu_range: tuple[float, float] = (0.0, 3.0),
    sigma_range: tuple[float, float] = (0.5, 2.0),
    metrics=METRICS,
    grid: np.ndarray = GRID,
    chunk: int = 500,
) -> RocOracleResult:
    """Count incorrectly ranked pairs by the ROC procedure of ``SPEC.md``, steps 1-5.

    Every sd sees the same base samples (common random numbers).

    Parameters
    ----------
    samples : int
        Number of pairs of classifiers.
    rng : numpy.random.Generator
        The only source of randomness.
    true_um : {"uniform", "gaussian"}
        Distribution of (x, y) on the hexagon.
    true_um_sd : float
        Coordinate sd of the gaussian one.
    error : {"gaussian", "truncated"}
        Error model of the perturbed utility matrices.
    sds : sequence of float
    prevalence : float or None
        The fraction of class 0, ``B``; None draws it Uniform(0, 1) per pair.
    mu_range, sigma_range : (float, float)
        ``mu ~ Uniform(mu_range)``, ``log sigma ~ Uniform(log sigma_range)``.
    metrics : sequence of str
        Among :data:`METRICS`.
    grid : ndarray
        Thresholds ``x = Phi^-1(f)`` searched.
    chunk : int
        Pairs per vectorised block (memory: 4 * chunk * grid.size doubles).

    Returns
    -------
    RocOracleResult
    """
    if true_um not in ("uniform", "gaussian") or error not in ("gaussian", "truncated"):
        raise ValueError(f"unknown model: true_um={true_um!r}, error={error!r}")
    perturb = perturb_gaussian if error == "gaussian" else perturb_truncated
    keys = [*metrics, *(("utility", float(s)) for s in sds)]
    incorrect, reversed_, score_tied = (dict.fromkeys(keys, 0) for _ in range(3))
    tied = 0
    curves = np.empty((2, chunk, grid.size))
    work = (np.empty(chunk * grid.size), np.empty(chunk * grid.size))
    log_low, log_high = np.log(sigma_range[0]), np.log(sigma_range[1])
    done = 0
    while done < samples:
        n = min(chunk, samples - done)
        done += n
        if true_um == "uniform":
            x, y = sample_hexagon_uniform(n, rng)
        else:
            x, y = sample_hexagon_gaussian(n, true_um_sd, rng)
        utility = utility_from_xy(x, y)
        b = rng.uniform(0.0, 1.0, n) if prevalence is None else np.full(n, float(prevalence))
        mu = rng.uniform(mu_range[0], mu_range[1], (2, n))
        sigma = np.exp(rng.uniform(log_low, log_high, (2, n)))
        t = [curves_on_grid(mu[c], sigma[c], grid, out=curves[c, :n]) for c in (0, 1)]

        def difference(name, u, t=t, b=b):
            first = best_score_pair(name, u, b, t[0], grid, work=work)
            return best_score_pair(name, u, b, t[1], grid, work=work) - first

        d_true = difference("utility", utility)
        untied = d_true != 0
        tied += int(np.count_nonzero(~untied))
        d_true = d_true[untied]
        perturbed = {s: perturb(utility, s, rng) for s in sds}
        for key in keys:
            d = difference(key, None) if isinstance(key, str) else difference("utility", perturbed[key[1]])
            d = d[untied]
            same = ((d_true > 0) & (d > 0)) | ((d_true < 0) & (d < 0))
            opposite = ((d_true > 0) & (d < 0)) | ((d_true < 0) & (d > 0))
            incorrect[key] += int(np.count_nonzero(~same))
            reversed_[key] += int(np.count_nonzero(opposite))
            score_tied[key] += int(np.count_nonzero(~same & ~opposite))
    return RocOracleResult(samples=samples, tied=tied, incorrect=incorrect, reversed=reversed_, score_tied=score_tied)
