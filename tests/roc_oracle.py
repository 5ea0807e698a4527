"""A plain NumPy implementation of the ROC/AUC study: the oracle of the ROC engine's tests.

Written from ``docs/method.md`` ("The ROC/AUC study") without importing anything from mcrank. The
true utility matrices and both error models are those of :mod:`numpy_oracle` (the matrices of
eq. (12) are already normalised by eq. (11): one diagonal element is 1 and one off-diagonal
element is 0). Where the engine is exact, this module is brute force:

- every classifier is evaluated on one fixed grid of thresholds ``x = Phi^-1(f)``
  (:data:`GRID`, 2001 points on [-9, 9]) plus the two corners ``f = 0`` (always output 1) and
  ``f = 1`` (always output 0); the best threshold of a score is the best of these candidates,
  with no stationary-point algebra (no eq. 24, no Dinkelbach);
- the AUC is ``int_0^1 t df = int t(x) phi(x) dx`` by the trapezoid rule on the grid (the
  integrand decays like a gaussian: the rule is exact to rounding at this step).

The grid's maximum is attained, so it is a lower bound on the supremum; it falls short by at
most ``max|g''| h^2 / 8`` (``h`` = 0.009, ``g`` the score as a function of ``x``, ``|g''| < 2``):
below 2e-5. Beyond |x| = 9 the rates are within 1e-18 of a corner and nothing is lost.

Ties in truth. A corner's value does not depend on the curve and is computed by one expression
for both classifiers, so two optima at the same corner tie exactly. Near a corner the rates are
kept where they are accurate (:class:`Curves`: ``t`` and ``f`` for ``x <= 0``, ``1 - t`` and
``1 - f`` for ``x > 0``), and a score there is the corner's value plus an accurate increment: an
optimum that beats its corner by less than half an ulp of the score rounds to the corner's value,
as exact arithmetic rounded to double does. (Computing ``t`` and ``f`` directly near ``f = 1``
gives such increments 1-2 ulps of noise, and untied signs to about 0.05 % of pairs, which a
correctly rounded engine ties.)

The comparison with the engine is statistical: this module draws its own stream. Utility
matrices are rows ``(U00, U01, U10, U11)`` (rows = output, columns = true class, class 0
positive); ``B`` is the fraction of class 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy_oracle import perturb_gaussian, perturb_truncated, sample_true_utility
from scipy import integrate, optimize
from scipy.special import ndtr, ndtri

__all__ = [
    "GRID",
    "IDENTITY",
    "METRICS",
    "Curves",
    "RocOracleResult",
    "auc_by_quadrature",
    "auprc_by_quadrature",
    "best_f1_on_grid",
    "best_score_pair",
    "best_yield_on_grid",
    "best_youden_on_grid",
    "curves_on_grid",
    "h_measure_by_quadrature",
    "minimum_loss",
    "run_roc_oracle",
    "yield_at",
]

#: The scores of the ROC study, by the ids mcrank uses for them.
METRICS = ("auc", "best_accuracy", "best_youden", "best_f1")

#: Thresholds ``x = Phi^-1(f)`` of the brute-force search.
GRID = np.linspace(-9.0, 9.0, 2001)

#: The identity utility matrix: its yield is the accuracy.
IDENTITY = np.array([1.0, 0.0, 0.0, 1.0])


@dataclass(frozen=True)
class Curves:
    """Binormal ROC curves of n classifiers on a grid of thresholds ``x = Phi^-1(f)``.

    Each rate is kept where it is accurate: ``t`` and ``f`` on the lower part of the grid,
    ``x <= 0``, where they are small (near the corner ``f = 0``); their complements ``s = 1 - t``
    and ``r = 1 - f`` on the upper part, ``x > 0``, where those are small (near ``f = 1``). So
    a score is computed near either corner as that corner's value plus an accurate increment,
    and an optimum closer to a corner than the rounding of the score rounds to the corner's
    value, as it does in exact arithmetic rounded to double.

    Attributes
    ----------
    grid : ndarray of shape (G,)
    split : int
        ``grid[:split] <= 0 < grid[split:]``.
    t : ndarray of shape (n, split)
        True-positive rates on the lower part.
    s : ndarray of shape (n, G - split)
        ``1 - t`` on the upper part.
    """

    grid: np.ndarray
    split: int
    t: np.ndarray
    s: np.ndarray

    @property
    def f(self) -> np.ndarray:
        """False-positive rates on the lower part."""
        return ndtr(self.grid[: self.split])

    @property
    def r(self) -> np.ndarray:
        """``1 - f`` on the upper part."""
        return ndtr(-self.grid[self.split :])

    @property
    def size(self) -> int:
        return self.t.shape[0]


def curves_on_grid(mu, sigma, grid: np.ndarray = GRID, *, out: np.ndarray | None = None) -> Curves:
    """The binormal ROC curves ``t = Phi((mu + x) / sigma)`` on the grid.

    Parameters
    ----------
    mu, sigma : array_like of shape (n,)
    grid : ndarray of shape (G,), increasing
    out : ndarray of shape (n, G), optional
        Storage for the rates.

    Returns
    -------
    Curves
    """
    mu = np.atleast_1d(np.asarray(mu, dtype=float))[:, None]
    sigma = np.atleast_1d(np.asarray(sigma, dtype=float))[:, None]
    split = int(np.searchsorted(grid, 0.0, side="right"))
    z = np.add(mu, grid, out=out)
    z /= sigma
    z[:, split:] *= -1.0
    ndtr(z, out=z)
    return Curves(grid=grid, split=split, t=z[:, :split], s=z[:, split:])


def _work(shape, work):
    """Two scratch arrays of ``shape``: views of ``work`` when given (fresh arrays of a few MB
    cost more in page faults than the arithmetic done in them)."""
    if work is None:
        return np.empty(shape), np.empty(shape)
    return tuple(w.reshape(-1)[: shape[0] * shape[1]].reshape(shape) for w in work)


def _largest(values):
    """Row-wise maximum and where: ``(max, argmax)``; ``-inf`` and 0 on an empty part."""
    if values.shape[1] == 0:
        return np.full(values.shape[0], -np.inf), np.zeros(values.shape[0], dtype=np.intp)
    k = np.argmax(values, axis=1)
    return values[np.arange(values.shape[0]), k], k


def _select(lower, upper, lower_fpr, upper_fpr):
    """The better of two candidates per row, and its false-positive rate (lower wins ties)."""
    better = upper > lower
    return np.where(better, upper, lower), np.where(better, upper_fpr, lower_fpr)


def yield_at(utility, prevalence, tpr, fpr):
    """Utility yield, eq. (9), of the confusion matrix with rates ``(tpr, fpr)`` (eq. 21):
    ``B (U00 t + U10 (1 - t)) + (1 - B) (U01 f + U11 (1 - f))``. Broadcasts."""
    u = np.asarray(utility, dtype=float)
    b = np.asarray(prevalence, dtype=float)
    return b * (u[..., 0] * tpr + u[..., 2] * (1 - tpr)) + (1 - b) * (u[..., 1] * fpr + u[..., 3] * (1 - fpr))


def best_yield_on_grid(utility, prevalence, curves: Curves, *, work=None):
    """The best utility yield ``Y*(U)`` of each classifier over the grid and the two corners.

    With ``gain = (U00 - U10) B`` and ``cost = (U11 - U01)(1 - B)``:
    ``Y = Y(0) + gain t - cost f`` on the lower part, ``Y = Y(1) - gain s + cost r`` on the
    upper part, where ``Y(0) = U10 B + U11 (1 - B)`` (always output 1, ``f = 0``) and
    ``Y(1) = U00 B + U01 (1 - B)`` (always output 0, ``f = 1``).

    Parameters
    ----------
    utility : array_like of shape (n, 4) or (4,)
        Rows ``(U00, U01, U10, U11)``; any real matrix (a perturbed one may break the order).
    prevalence : array_like of shape (n,) or scalar
        ``B``, the fraction of class 0.
    curves : Curves
    work : pair of ndarray, optional
        Scratch space of at least ``n * G`` elements each.

    Returns
    -------
    best : ndarray of shape (n,)
    fpr : ndarray of shape (n,)
        Where the best is reached (exactly 0 or 1 at a corner).
    """
    n, split = curves.size, curves.split
    u = np.broadcast_to(np.asarray(utility, dtype=float), (n, 4))
    b = np.broadcast_to(np.asarray(prevalence, dtype=float), (n,))
    gain = ((u[:, 0] - u[:, 2]) * b)[:, None]
    cost = ((u[:, 3] - u[:, 1]) * (1 - b))[:, None]
    f = ndtr(curves.grid)
    g, charge = _work((n, split), work)
    np.multiply(curves.t, gain, out=g)
    g -= np.multiply(cost, f[:split], out=charge)
    lower, k = _largest(g)
    h, charge = _work((n, f.size - split), work)
    np.multiply(curves.r, cost, out=h)
    h -= np.multiply(curves.s, gain, out=charge)
    upper, m = _largest(h)
    # Each corner by one expression, the same for every classifier: two classifiers whose
    # optimum is the same corner (or rounds to it) tie exactly.
    at_zero = u[:, 2] * b + u[:, 3] * (1 - b)
    at_one = u[:, 0] * b + u[:, 1] * (1 - b)
    lower_best, lower_fpr = _select(at_zero, at_zero + lower, 0.0, f[k])
    upper_best, upper_fpr = _select(at_one, at_one + upper, 1.0, f[split + m] if f.size > split else 1.0)
    return _select(lower_best, upper_best, lower_fpr, upper_fpr)


def best_youden_on_grid(curves: Curves, *, work=None):
    """The best Youden's J ``max_f t - f`` (both corners give 0): ``t - f`` on the lower part,
    ``r - s`` on the upper. Returns ``(j, fpr)``."""
    n, split = curves.size, curves.split
    f = ndtr(curves.grid)
    lower, k = _largest(np.subtract(curves.t, f[:split], out=_work((n, split), work)[0]))
    upper, m = _largest(np.subtract(curves.r, curves.s, out=_work((n, f.size - split), work)[0]))
    best, fpr = _select(lower, upper, f[k], f[split + m] if f.size > split else 1.0)
    return _select(np.zeros(n), best, 0.0, fpr)


def _f1(b, t, f):
    return 2 * b * t / (b + b * t + (1 - b) * f)


def best_f1_on_grid(prevalence, curves: Curves, *, work=None):
    """The best F1 ``max_f 2 B t / (B + B t + (1 - B) f)``; ``f = 0`` gives 0, ``f = 1`` gives
    ``2 B / (1 + B)``. Returns ``(f1, fpr)``.

    On the lower part F1 increases with ``q = t / (B + (1 - B) f)``: the largest ``q`` is
    searched (fewer passes) and F1 computed where it is. On the upper part F1 is the corner's
    value plus ``2 B ((1 - B) r - s) / ((1 + B)(1 + B - B s - (1 - B) r))``.
    """
    n, split = curves.size, curves.split
    b = np.broadcast_to(np.asarray(prevalence, dtype=float), (n,))[:, None]
    f = ndtr(curves.grid)
    q, denominator = _work((n, split), work)
    np.multiply(1 - b, f[:split], out=denominator)
    denominator += b
    np.divide(curves.t, denominator, out=q)
    k = _largest(q)[1]
    lower = _f1(b[:, 0], curves.t[np.arange(n), k], f[k]) if split else np.zeros(n)
    gain, denominator = _work((n, f.size - split), work)
    np.multiply(1 - b, curves.r, out=gain)
    gain -= curves.s
    # 1 + B - B s - (1 - B) r = (1 + B)(1 - s) - gain, about 1: no cancellation.
    np.multiply(curves.s, -(1 + b), out=denominator)
    denominator += 1 + b
    denominator -= gain
    gain /= denominator
    upper, m = _largest(gain)
    corner = _f1(b[:, 0], 1.0, 1.0)
    upper = corner + 2 * b[:, 0] * upper / (1 + b[:, 0])
    upper_best, upper_fpr = _select(corner, upper, 1.0, f[split + m] if f.size > split else 1.0)
    return _select(lower, upper_best, f[k], upper_fpr)


def auc_by_quadrature(curves: Curves) -> np.ndarray:
    """``AUC = int_0^1 t df = int t(x) phi(x) dx``, trapezoid rule on the grid (``t = 1 - s``
    on the upper part). Shape (n,)."""
    grid, split = curves.grid, curves.split
    density = np.exp(-0.5 * grid**2) / np.sqrt(2 * np.pi)
    weights = density * np.gradient(grid)  # trapezoid: half weight at both ends
    weights[0] = density[0] * (grid[1] - grid[0]) / 2
    weights[-1] = density[-1] * (grid[-1] - grid[-2]) / 2
    upper = weights[split:]
    return curves.t @ weights[:split] + (upper.sum() - curves.s @ upper)


def best_score_pair(name: str, utility, prevalence, curves: Curves, *, work=None) -> np.ndarray:
    """A score of each classifier: ``auc``, ``best_accuracy``, ``best_youden``, ``best_f1``,
    or ``utility`` (the best yield under ``utility``)."""
    if name == "auc":
        return auc_by_quadrature(curves)
    if name == "best_accuracy":
        return best_yield_on_grid(IDENTITY, prevalence, curves, work=work)[0]
    if name == "best_youden":
        return best_youden_on_grid(curves, work=work)[0]
    if name == "best_f1":
        return best_f1_on_grid(prevalence, curves, work=work)[0]
    if name == "utility":
        return best_yield_on_grid(utility, prevalence, curves, work=work)[0]
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
    """Count incorrectly ranked pairs by the ROC procedure of ``docs/method.md``, steps 1-5.

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
    storage = np.empty((2, chunk, grid.size))
    work = (np.empty(chunk * grid.size), np.empty(chunk * grid.size))
    log_low, log_high = np.log(sigma_range[0]), np.log(sigma_range[1])
    done = 0
    while done < samples:
        n = min(chunk, samples - done)
        done += n
        utility = sample_true_utility(n, true_um, true_um_sd, rng)
        b = rng.uniform(0.0, 1.0, n) if prevalence is None else np.full(n, float(prevalence))
        mu = rng.uniform(mu_range[0], mu_range[1], (2, n))
        sigma = np.exp(rng.uniform(log_low, log_high, (2, n)))
        pair = [curves_on_grid(mu[c], sigma[c], grid, out=storage[c, :n]) for c in (0, 1)]

        def difference(name, u, pair=pair, b=b):
            first = best_score_pair(name, u, b, pair[0], work=work)
            return best_score_pair(name, u, b, pair[1], work=work) - first

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


# --- the H-measure and the area under the precision-recall curve, by adaptive quadrature ------


def minimum_loss(c: float, prevalence: float, mu: float, sigma: float) -> float:
    """``Q(c) = min_f c B (1 - t(f)) + (1 - c)(1 - B) f``, both corners included: the loss at the
    best threshold when a false negative costs ``c`` and a false positive ``1 - c``.

    Brute force and a polish: the smallest of the loss on a grid of 4001 thresholds
    ``x`` in [-40, 40], refined by a bounded scalar minimisation between the grid
    neighbours of the grid's minimum, and the two corners.
    """
    xs = np.linspace(-40.0, 40.0, 4001)

    def loss(x):
        return c * prevalence * ndtr(-(mu + x) / sigma) + (1 - c) * (1 - prevalence) * ndtr(x)

    values = loss(xs)
    best = min(c * prevalence, (1 - c) * (1 - prevalence), float(values.min()))
    k = int(np.argmin(values))
    if 0 < k < xs.size - 1:
        found = optimize.minimize_scalar(loss, bounds=(xs[k - 1], xs[k + 1]), method="bounded", options={"xatol": 1e-12})
        best = min(best, float(found.fun))
    return best


def h_measure_by_quadrature(prevalence: float, mu: float, sigma: float, a: float = 2.0, b: float = 2.0) -> float:
    """Hand's H-measure of a binormal classifier from its definition: ``1 - int Q(c) w(c) dc /
    int min(c B, (1 - c)(1 - B)) w(c) dc``, ``w`` the Beta(a, b) density of the cost ``c`` of a
    false negative, by adaptive quadrature (scipy's QUADPACK) over ``c``."""
    from scipy.stats import beta

    density = beta(a, b).pdf
    expected, _ = integrate.quad(lambda c: minimum_loss(c, prevalence, mu, sigma) * density(c), 0, 1, epsabs=1e-13, epsrel=1e-12, limit=400)
    trivial, _ = integrate.quad(
        lambda c: min(c * prevalence, (1 - c) * (1 - prevalence)) * density(c), 0, 1, points=[1 - prevalence], epsabs=1e-14, epsrel=1e-13
    )
    return 1 - expected / trivial


def auprc_by_quadrature(prevalence: float, mu: float, sigma: float) -> float:
    """``int_0^1 precision d recall`` over the recall ``t``, ``f = Phi(sigma Phi^-1(t) - mu)``,
    by adaptive quadrature."""

    def precision(t):
        return prevalence * t / (prevalence * t + (1 - prevalence) * ndtr(sigma * ndtri(t) - mu))

    return integrate.quad(precision, 0, 1, epsabs=1e-13, epsrel=1e-12, limit=400)[0]
