"""A plain NumPy implementation of the Monte Carlo study: the oracle of the engine's tests.

Written from ``docs/method.md`` ("The Monte Carlo study", steps 1-6) alone, without importing
anything from mcrank: the utility matrix of eq. (12), the metrics in terms of (p, a, b) and
both error models are spelt out again here. Where the engine takes a shortcut, this module
does not:

- ``gaussian`` errors add an independent N(0, s^2) draw to *each* of the four elements of the
  true utility matrix (the engine draws one normal for the yield difference instead);
- ``truncated`` errors redraw all four elements together until the whole perturbed matrix
  satisfies ``0 <= U'_ij <= 1``, ``U'00 >= U'10`` and ``U'11 >= U'01`` (plain rejection; the
  engine samples each element from its truncated normal and rejects columns).

Agreement between the two within Monte Carlo error is therefore evidence that the shortcuts
are exact. The module is also the NumPy baseline of ``scripts/bench.py``, so it is written the
way a careful NumPy user would write it: vectorised over samples, in chunks of bounded memory.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "ORACLE_METRICS",
    "OracleResult",
    "PAPER_METRICS",
    "metric_score",
    "perturb_gaussian",
    "perturb_truncated",
    "ranked_correctly",
    "run_oracle",
    "sample_hexagon_gaussian",
    "sample_hexagon_uniform",
    "sample_rates",
    "utility_from_xy",
    "utility_yield",
]

#: The metrics of the paper's fig. 6, typed from the paper.
PAPER_METRICS = ("accuracy", "tpr", "precision", "balanced_accuracy", "mcc", "fowlkes_mallows", "f1")

#: Every metric the oracle knows, by the ids mcrank uses for them.
ORACLE_METRICS = (
    "accuracy",
    "tpr",
    "tnr",
    "precision",
    "npv",
    "balanced_accuracy",
    "f1",
    "fbeta",
    "mcc",
    "fowlkes_mallows",
    "gmean",
    "informedness",
    "markedness",
    "cohen_kappa",
)


# --- step 1: true utility matrices ----------------------------------------------------------


def _inside_hexagon(x, y):
    return (np.abs(x) <= 1) & (np.abs(y) <= 1) & (np.abs(y - x) <= 1)


def sample_hexagon_uniform(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Points uniform on the hexagon ``|x| <= 1, |y| <= 1, |y - x| <= 1``, by rejection.

    Parameters
    ----------
    n : int
        Number of points.
    rng : numpy.random.Generator

    Returns
    -------
    x, y : ndarray of shape (n,)
    """
    xs, ys, have = [], [], 0
    while have < n:
        # The hexagon covers 3/4 of the square [-1, 1]^2: ask for a little more than needed.
        tries = int(1.4 * (n - have)) + 16
        x = rng.uniform(-1.0, 1.0, tries)
        y = rng.uniform(-1.0, 1.0, tries)
        keep = _inside_hexagon(x, y)
        xs.append(x[keep])
        ys.append(y[keep])
        have += int(keep.sum())
    return np.concatenate(xs)[:n], np.concatenate(ys)[:n]


def sample_hexagon_gaussian(n: int, sd: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Points from N((0, 0), sd^2 I) truncated to the hexagon, by rejection.

    Parameters
    ----------
    n : int
        Number of points.
    sd : float
        Standard deviation of each coordinate before truncation (paper: 1/3).
    rng : numpy.random.Generator

    Returns
    -------
    x, y : ndarray of shape (n,)
    """
    xs, ys, have = [], [], 0
    while have < n:
        tries = 2 * (n - have) + 16
        x = rng.normal(0.0, sd, tries)
        y = rng.normal(0.0, sd, tries)
        keep = _inside_hexagon(x, y)
        xs.append(x[keep])
        ys.append(y[keep])
        have += int(keep.sum())
    return np.concatenate(xs)[:n], np.concatenate(ys)[:n]


def utility_from_xy(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r"""The utility matrices of eq. (12), one row ``(U00, U01, U10, U11)`` per point.

    .. math::
        U(x, y) = \begin{bmatrix} 1 - x\,[x>0] & y\,[y>0] \\ -y\,[y<0] & 1 + x\,[x<0] \end{bmatrix}

    Parameters
    ----------
    x, y : ndarray of shape (n,)
        Points of the hexagon.

    Returns
    -------
    ndarray of shape (n, 4)
        Columns ``U00, U01, U10, U11`` (rows = output, columns = true class).
    """
    u = np.empty((x.size, 4))
    u[:, 0] = np.where(x > 0, 1.0 - x, 1.0)
    u[:, 1] = np.where(y > 0, y, 0.0)
    u[:, 2] = np.where(y < 0, -y, 0.0)
    u[:, 3] = np.where(x < 0, 1.0 + x, 1.0)
    return u


# --- step 3: true-positive and true-negative rates ------------------------------------------


def sample_true_utility(n: int, true_um: str, true_um_sd: float, rng: np.random.Generator) -> np.ndarray:
    """Step 1 for ``n`` pairs: hexagon points, uniform or truncated gaussian, as utility matrices."""
    if true_um == "uniform":
        x, y = sample_hexagon_uniform(n, rng)
    else:
        x, y = sample_hexagon_gaussian(n, true_um_sd, rng)
    return utility_from_xy(x, y)


def sample_rates(
    n: int,
    rng: np.random.Generator,
    *,
    alpha: float = 2.0,
    beta: float = 1.0,
    low: float = 0.5,
    high: float = 1.0,
) -> np.ndarray:
    """TPRs or TNRs ``low + (high - low) * Beta(alpha, beta)``.

    The paper's Beta(2, 1) is drawn as ``sqrt(V)`` with V uniform (its CDF is ``t**2``);
    any other pair of parameters goes through :meth:`numpy.random.Generator.beta`.

    Returns
    -------
    ndarray of shape (n,)
    """
    if (alpha, beta) == (2.0, 1.0):
        fraction = np.sqrt(rng.random(n))
    else:
        fraction = rng.beta(alpha, beta, n)
    return low + (high - low) * fraction


# --- step 4: perturbed utility matrices -----------------------------------------------------


def perturb_gaussian(utility: np.ndarray, sd: float, rng: np.random.Generator) -> np.ndarray:
    """``U' = U + E`` with the four elements of ``E`` independent N(0, sd^2).

    Parameters
    ----------
    utility : ndarray of shape (n, 4)
    sd : float
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n, 4)
    """
    return utility + rng.normal(0.0, sd, utility.shape) if sd > 0 else utility.copy()


def perturb_truncated(utility: np.ndarray, sd: float, rng: np.random.Generator) -> np.ndarray:
    """``U' = U + E`` conditioned on an admissible ``U'``, by plain rejection of whole matrices.

    All four elements are redrawn together until ``0 <= U'_ij <= 1``, ``U'00 >= U'10`` and
    ``U'11 >= U'01``; the rows still pending are redrawn as one vectorised batch.

    Parameters
    ----------
    utility : ndarray of shape (n, 4)
        Columns ``U00, U01, U10, U11``; every row admissible itself.
    sd : float
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of shape (n, 4)
    """
    if sd == 0:
        return utility.copy()
    out = np.empty_like(utility)
    pending = np.arange(utility.shape[0])
    while pending.size:
        proposal = utility[pending] + rng.normal(0.0, sd, (pending.size, 4))
        admissible = (
            np.all((proposal >= 0.0) & (proposal <= 1.0), axis=1) & (proposal[:, 0] >= proposal[:, 2]) & (proposal[:, 3] >= proposal[:, 1])
        )
        out[pending[admissible]] = proposal[admissible]
        pending = pending[~admissible]
    return out


# --- step 5: utility yields and metrics -----------------------------------------------------


def utility_yield(utility: np.ndarray, p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Utility yield, eq. (9), of the normalised confusion matrices with class-0 fraction ``p``,
    TPR ``a`` and TNR ``b``: ``sum_ij U_ij C_ij`` with

    ``C = [[p a, (1 - p)(1 - b)], [p (1 - a), (1 - p) b]]``.

    Parameters
    ----------
    utility : ndarray of shape (n, 4)
    p, a, b : ndarray of shape (n,)

    Returns
    -------
    ndarray of shape (n,)
    """
    return utility[:, 0] * p * a + utility[:, 1] * (1 - p) * (1 - b) + utility[:, 2] * p * (1 - a) + utility[:, 3] * (1 - p) * b


def metric_score(name: str, p: np.ndarray, a: np.ndarray, b: np.ndarray, *, fbeta_beta: float = 1.0) -> np.ndarray:
    """A metric of the normalised confusion matrices with class-0 fraction ``p``, TPR ``a``
    and TNR ``b``, from the formulas of ``docs/method.md`` ("Metrics in terms of (p, a, b)").

    Undefined values (0/0) come out as NaN, which step 6 counts as incorrect.

    Parameters
    ----------
    name : str
        One of :data:`ORACLE_METRICS`.
    p, a, b : ndarray of shape (n,)
    fbeta_beta : float, default 1.0
        The beta of ``fbeta``.

    Returns
    -------
    ndarray of shape (n,)
    """
    c00, c01, c10, c11 = p * a, (1 - p) * (1 - b), p * (1 - a), (1 - p) * b
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == "accuracy":
            return p * a + (1 - p) * b
        if name == "tpr":
            return a
        if name == "tnr":
            return b
        if name == "precision":
            return p * a / (p * a + (1 - p) * (1 - b))
        if name == "npv":
            return (1 - p) * b / ((1 - p) * b + p * (1 - a))
        if name == "balanced_accuracy":
            return (a + b) / 2
        if name == "f1":
            return 2 * p * a / (2 * p * a + (1 - p) * (1 - b) + p * (1 - a))
        if name == "fbeta":
            # The textbook form, for the ordinary betas the oracle is compared at (beta^2
            # overflows beyond 1e154, where mcrank's own form does not).
            beta2 = fbeta_beta**2
            return (1 + beta2) * p * a / ((1 + beta2) * p * a + beta2 * p * (1 - a) + (1 - p) * (1 - b))
        if name == "mcc":
            return (c00 * c11 - c01 * c10) / np.sqrt((c00 + c01) * (c10 + c11) * p * (1 - p))
        if name == "fowlkes_mallows":
            return np.sqrt(metric_score("precision", p, a, b) * a)
        if name == "gmean":
            return np.sqrt(a * b)
        if name == "informedness":
            return a + b - 1
        if name == "markedness":
            return metric_score("precision", p, a, b) + metric_score("npv", p, a, b) - 1
        if name == "cohen_kappa":
            observed = c00 + c11
            chance = (c00 + c01) * p + (c10 + c11) * (1 - p)
            return (observed - chance) / (1 - chance)
    raise ValueError(f"the oracle does not know the metric {name!r}")


# --- step 6: the sign comparison ------------------------------------------------------------


def ranked_correctly(d_true: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Whether each pair is ranked as the true yield ranks it: both differences > 0 or both
    < 0. Ties (and NaN) are incorrect."""
    return ((d_true > 0) & (d > 0)) | ((d_true < 0) & (d < 0))


# --- the whole study ------------------------------------------------------------------------


@dataclass(frozen=True)
class OracleResult:
    """Counts of incorrectly ranked pairs from :func:`run_oracle`.

    Attributes
    ----------
    samples : int
        Number of pairs of classifiers.
    metric_incorrect : dict of str to int
        Incorrectly ranked pairs per metric.
    sds : ndarray of shape (k,)
        The error standard deviations.
    utility_incorrect : ndarray of int, shape (k,)
        Incorrectly ranked pairs by the perturbed utility matrix, per sd.
    realised_sd : ndarray of shape (k,)
        Pooled sd of the four elements of ``U' - U``, ``sqrt(mean(d^2) - mean(d)^2)``.
    realised_sd_se : ndarray of shape (k,)
        Its standard error by the delta method, treating the four elements of one sample as
        one (correlated) observation.
    """

    samples: int
    metric_incorrect: dict[str, int]
    sds: np.ndarray
    utility_incorrect: np.ndarray
    realised_sd: np.ndarray
    realised_sd_se: np.ndarray


def run_oracle(
    samples: int,
    *,
    rng: np.random.Generator,
    true_um: str = "uniform",
    true_um_sd: float = 1 / 3,
    error: str = "gaussian",
    sds=(0.1,),
    metrics=PAPER_METRICS,
    class_proportion: tuple[float, float] = (0.0, 1.0),
    rate_beta: tuple[float, float] = (2.0, 1.0),
    rate_range: tuple[float, float] = (0.5, 1.0),
    fbeta_beta: float = 1.0,
    chunk_size: int = 2**16,
) -> OracleResult:
    """Count incorrectly ranked pairs by the procedure of ``docs/method.md``, steps 1-6.

    Every sd sees the same base samples (steps 1-3): common random numbers, as in the paper.

    Parameters
    ----------
    samples : int
        Number of pairs of classifiers.
    rng : numpy.random.Generator
        The only source of randomness.
    true_um : {"uniform", "gaussian"}
        Distribution of (x, y) on the hexagon (step 1).
    true_um_sd : float
        Coordinate sd of the gaussian true-utility distribution.
    error : {"gaussian", "truncated"}
        Error model of step 4.
    sds : sequence of float
        Error standard deviations.
    metrics : sequence of str
        Metric ids among :data:`ORACLE_METRICS`.
    class_proportion : (float, float)
        Range of the uniform class-0 fraction ``p`` (step 2).
    rate_beta, rate_range : (float, float)
        TPR and TNR are ``low + (high - low) * Beta(alpha, beta)`` (step 3).
    fbeta_beta : float
        The beta of ``fbeta``.
    chunk_size : int
        Samples per vectorised chunk (bounds the memory).

    Returns
    -------
    OracleResult
    """
    if true_um not in ("uniform", "gaussian") or error not in ("gaussian", "truncated"):
        raise ValueError(f"unknown model: true_um={true_um!r}, error={error!r}")
    sds = np.asarray(sds, dtype=float)
    perturb = perturb_gaussian if error == "gaussian" else perturb_truncated
    metric_incorrect = dict.fromkeys(metrics, 0)
    utility_incorrect = np.zeros(sds.size, dtype=np.int64)
    # Per sd: sums over samples of t = sum_ij (U' - U)_ij, q = sum_ij (U' - U)_ij^2, and of
    # t^2, q^2, t q for the standard error of the realised sd.
    moments = np.zeros((sds.size, 5))
    done = 0
    while done < samples:
        n = min(chunk_size, samples - done)
        done += n
        utility = sample_true_utility(n, true_um, true_um_sd, rng)
        p = rng.uniform(*class_proportion, n)
        alpha, beta = rate_beta
        low, high = rate_range
        a1, b1, a2, b2 = (sample_rates(n, rng, alpha=alpha, beta=beta, low=low, high=high) for _ in range(4))

        d_true = utility_yield(utility, p, a2, b2) - utility_yield(utility, p, a1, b1)
        for name in metrics:
            d = metric_score(name, p, a2, b2, fbeta_beta=fbeta_beta) - metric_score(name, p, a1, b1, fbeta_beta=fbeta_beta)
            metric_incorrect[name] += int(np.count_nonzero(~ranked_correctly(d_true, d)))
        for k, s in enumerate(sds):
            perturbed = perturb(utility, s, rng)
            d_s = utility_yield(perturbed, p, a2, b2) - utility_yield(perturbed, p, a1, b1)
            utility_incorrect[k] += np.count_nonzero(~ranked_correctly(d_true, d_s))
            deviation = perturbed - utility
            t = deviation.sum(axis=1)
            q = (deviation**2).sum(axis=1)
            moments[k] += (t.sum(), q.sum(), (t * t).sum(), (q * q).sum(), (t * q).sum())

    realised_sd, realised_sd_se = _pooled_sd_and_se(moments, samples)
    return OracleResult(
        samples=samples,
        metric_incorrect=metric_incorrect,
        sds=sds,
        utility_incorrect=utility_incorrect,
        realised_sd=realised_sd,
        realised_sd_se=realised_sd_se,
    )


def _pooled_sd_and_se(moments: np.ndarray, samples: int) -> tuple[np.ndarray, np.ndarray]:
    """The pooled sd of the 4 * samples deviations and its delta-method standard error."""
    mean_t, mean_q, mean_tt, mean_qq, mean_tq = (moments / samples).T
    mean_deviation = mean_t / 4
    variance = np.maximum(mean_q / 4 - mean_deviation**2, 0.0)
    sd = np.sqrt(variance)
    # sd = sqrt(Q/4 - (T/4)^2) as a function of the sample means T, Q of (t, q).
    with np.errstate(divide="ignore", invalid="ignore"):
        grad_q = np.where(sd > 0, 1 / (8 * sd), 0.0)
        grad_t = np.where(sd > 0, -mean_deviation / (4 * sd), 0.0)
    var_t = mean_tt - mean_t**2
    var_q = mean_qq - mean_q**2
    cov_tq = mean_tq - mean_t * mean_q
    se = np.sqrt(np.maximum(grad_t**2 * var_t + 2 * grad_t * grad_q * cov_tq + grad_q**2 * var_q, 0.0) / samples)
    return sd, se
