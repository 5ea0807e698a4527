"""The ROC study's kernel as it was at commit 6483364, frozen for scripts/bench.py (h) to time
the current kernel against: mcrank/roc.py's kernels and mcrank/engine/roc.py's ``_count_chunk``
copied verbatim, the score switch written out for the four scores registered then (auc,
best_accuracy, best_youden, best_f1, codes 0-3). The samplers (hexagon, error models) are
mcrank's own, shared with the current kernel. Not part of the package.
"""

from __future__ import annotations

import math

import numpy as np

from mcrank._jit import jit
from mcrank.ranking import _ranked_correctly
from mcrank.samplers import _closed_form, _draw_utility, _perturb_into

_SQRT_HALF = math.sqrt(0.5)
#: Dinkelbach steps of :func:`_best_f1` at most (it converges superlinearly: a handful).
_F1_STEPS = 50
#: :func:`_best_f1` stops when a step raises F1 by less than this, relatively.
_F1_TOLERANCE = 1e-15


# --- kernels: the binormal curve ------------------------------------------------------------------


@jit(inline="always")
def _normal_cdf(z):
    """Phi(z), accurate to a few ulps relative in both tails (erfc, not 1 - erf)."""
    return 0.5 * math.erfc(-z * _SQRT_HALF)


@jit(inline="always")
def _auc(prevalence, mu, sigma):
    """The area under the binormal ROC curve; ``prevalence`` is unused (a score's signature)."""
    return _normal_cdf(mu / math.sqrt(1.0 + sigma * sigma))


@jit(inline="always")
def _stationary_point(a, d, mu, sigma):
    """``x = Phi^-1(f)`` of the interior local maximum of ``a t(f) - d f``, or NaN or +-inf if
    there is none (then the maximum over [0, 1] is at a corner).

    Its stationary points are the roots of eq. (24), ``A x^2 - 2 mu x + C = 0`` with
    ``A = sigma^2 - 1``, ``C = -mu^2 + 2 sigma^2 log(a / (sigma d))``, real when ``a d > 0``
    and the discriminant ``mu^2 - A C`` is not negative. The derivative of ``a t - d f`` in
    ``f`` is ``a`` times the ROC slope minus ``d``, and the log of the slope has the derivative
    ``(A x - mu) / sigma^2`` in ``x``: it changes sign from + to - where
    ``sign(a) (A x - mu) < 0``; at the two roots
    ``A x - mu = +-sqrt(mu^2 - A C)``, so the maximum is the root ``(mu - sign(a) r) / A``,
    ``r`` the square root of the discriminant. Written without cancellation as
    ``C / (mu + sign(a) r)`` (the product of the roots is ``C / A``) when ``mu`` and
    ``sign(a)`` agree; that form is also the linear case ``sigma = 1`` (``A = 0``, root
    ``C / (2 mu)``) and its neighbourhood. Otherwise the root runs off to infinity as ``A``
    goes to 0: then the maximum is at a corner, and the division gives +-inf.
    """
    if not (a * d > 0.0):
        return math.nan
    quadratic = (sigma - 1.0) * (sigma + 1.0)  # sigma^2 - 1 without cancellation near sigma = 1
    constant = 2.0 * sigma * sigma * math.log(a / (sigma * d)) - mu * mu
    discriminant = mu * mu - quadratic * constant
    if not (discriminant >= 0.0):
        return math.nan
    root = math.sqrt(discriminant)
    signed = root if a > 0.0 else -root
    if (mu > 0.0 and a > 0.0) or (mu < 0.0 and a < 0.0):
        return constant / (mu + signed)
    return (mu - signed) / quadratic


@jit(inline="always")
def _linear_best(a, d, mu, sigma, corner_low, corner_high):
    """``(f, Y*)``: the maximum of ``Y(f) = corner_low + a t(f) - d f`` over [0, 1], where
    ``corner_low = Y(0)`` and ``corner_high = Y(1)`` (= ``corner_low + a - d``).

    The interior value is written from the nearer corner: from ``Y(0)`` with the lower tails
    ``t`` and ``f`` when ``x <= 0``, from ``Y(1)`` with the upper tails ``1 - t`` and
    ``1 - f`` when ``x > 0``. A best threshold that runs into a corner then gives that
    corner's float exactly (its tails underflow to 0), never one rounded differently.
    A corner wins ties, the lower one first.
    """
    best, fpr = corner_low, 0.0
    if corner_high > best:
        best, fpr = corner_high, 1.0
    x = _stationary_point(a, d, mu, sigma)
    if math.isfinite(x):
        z = (mu + x) / sigma
        if x <= 0.0:
            f = _normal_cdf(x)
            value = corner_low + (a * _normal_cdf(z) - d * f)
        else:
            upper = _normal_cdf(-x)
            f = 1.0 - upper
            value = corner_high - (a * _normal_cdf(-z) - d * upper)
        if value > best:
            best, fpr = value, f
    return fpr, best


@jit(inline="always")
def _corners(u00, u01, u10, u11, prevalence):
    """The yields ``Y(0)`` and ``Y(1)`` of eq. (21) at the corners, and ``a``, ``d``: the
    same floats for every classifier, whose best threshold does not enter them."""
    complement = 1.0 - prevalence
    corner_low = prevalence * u10 + complement * u11  # t = f = 0: always output 1
    corner_high = prevalence * u00 + complement * u01  # t = f = 1: always output 0
    return corner_low, corner_high, (u00 - u10) * prevalence, (u11 - u01) * complement


@jit(inline="always")
def _best_threshold(u00, u01, u10, u11, prevalence, mu, sigma):
    """``(f, Y*)`` of eqs. (22)-(24): the best false-positive rate and the yield there."""
    corner_low, corner_high, a, d = _corners(u00, u01, u10, u11, prevalence)
    return _linear_best(a, d, mu, sigma, corner_low, corner_high)


@jit(inline="always")
def _best_accuracy(prevalence, mu, sigma):
    """``(f, accuracy)``: :func:`_best_threshold` under the identity utility matrix."""
    return _best_threshold(1.0, 0.0, 0.0, 1.0, prevalence, mu, sigma)


@jit(inline="always")
def _best_youden(mu, sigma):
    """``(f, J)``: the largest ``t(f) - f``, the linear problem with ``a = d = 1`` (both
    corners 0)."""
    return _linear_best(1.0, 1.0, mu, sigma, 0.0, 0.0)


@jit(inline="always")
def _best_f1(prevalence, mu, sigma):
    """``(f, F1)``: the largest ``F1(f) = 2 B t / (B + B t + (1 - B) f)``, by Dinkelbach's method.

    ``F1 >= F`` somewhere exactly when ``max_f (2 - F) B t - F (1 - B) f - F B >= 0``, a linear
    best-threshold problem. Starting from the corner ``f = 1`` (``F = 2B / (1 + B)``; the corner
    ``f = 0`` has ``F1 = 0``), each step solves it for the current ``F`` and moves to the F1
    of its maximiser; the F1 values increase to the maximum superlinearly (Dinkelbach's method
    is Newton's method on the optimal value of the linear problem). The linear problem's
    corners never beat the current ``F``, so only its interior maximum is evaluated.
    """
    complement = 1.0 - prevalence
    best = 2.0 * prevalence / (1.0 + prevalence)
    fpr = 1.0
    for _ in range(_F1_STEPS):
        x = _stationary_point((2.0 - best) * prevalence, best * complement, mu, sigma)
        if not math.isfinite(x):
            break
        f, t = _normal_cdf(x), _normal_cdf((mu + x) / sigma)
        value = 2.0 * prevalence * t / (prevalence + prevalence * t + complement * f)
        if not (value > best * (1.0 + _F1_TOLERANCE)):
            if value > best:
                best, fpr = value, f
            break
        best, fpr = value, f
    return fpr, best


@jit(inline="always")
def _roc_score(code, prevalence, mu, sigma):
    if code == 0:
        return _auc(prevalence, mu, sigma)
    elif code == 1:
        return _best_accuracy(prevalence, mu, sigma)[1]
    elif code == 2:
        return _best_youden(mu, sigma)[1]
    elif code == 3:
        return _best_f1(prevalence, mu, sigma)[1]
    return math.nan


@jit(inline="always")
def _yield_difference(u, prevalence, mu_1, sigma_1, mu_2, sigma_2):
    """``Y*_2(u) - Y*_1(u)``: the corners once, for both classifiers."""
    corner_low, corner_high, a, d = _corners(u[0, 0], u[0, 1], u[1, 0], u[1, 1], prevalence)
    first = _linear_best(a, d, mu_1, sigma_1, corner_low, corner_high)[1]
    second = _linear_best(a, d, mu_2, sigma_2, corner_low, corner_high)[1]
    return second - first


@jit
def _count_chunk(rng, rng_error, size, study, incorrect, deviation_sum, deviation_squares):
    """Run ``size`` pairs of ``study`` (a :class:`RocStudy`) and add their counts:
    ``incorrect`` (int64) receives the scores', then the sds', then the pairs tied in truth;
    the deviation sums are per sd (truncated errors)."""
    codes, sds = study.score_codes, study.sds
    scores = codes.size
    tied = scores + sds.size
    identity, xy, u, v = np.eye(2), np.empty((2, 1)), np.empty((2, 2)), np.empty((2, 2))
    mu_width = study.mu_high - study.mu_low
    log_sigma_width = study.log_sigma_high - study.log_sigma_low
    for _ in range(size):
        prevalence = rng.random() if study.random_prevalence else study.prevalence
        _draw_utility(rng, study.true_um, study.true_um_sd, identity, xy, u)
        mu_1 = study.mu_low + mu_width * rng.random()
        sigma_1 = math.exp(study.log_sigma_low + log_sigma_width * rng.random())
        mu_2 = study.mu_low + mu_width * rng.random()
        sigma_2 = math.exp(study.log_sigma_low + log_sigma_width * rng.random())
        d_true = _yield_difference(u, prevalence, mu_1, sigma_1, mu_2, sigma_2)
        if d_true == 0.0:
            incorrect[tied] += 1
            continue
        direction = 1.0 if d_true > 0.0 else (-1.0 if d_true < 0.0 else math.nan)
        for k in range(scores):
            d = _roc_score(codes[k], prevalence, mu_2, sigma_2) - _roc_score(codes[k], prevalence, mu_1, sigma_1)
            incorrect[k] += not _ranked_correctly(direction, d)
        for k in range(sds.size):
            _perturb_into(rng_error, u, sds[k], study.error, v)
            d = _yield_difference(v, prevalence, mu_1, sigma_1, mu_2, sigma_2)
            incorrect[scores + k] += not _ranked_correctly(direction, d)
            if not _closed_form(study.error):  # the realised sd of the model (truncated, say)
                total, squares = 0.0, 0.0
                for i in range(2):
                    for j in range(2):
                        total += v[i, j] - u[i, j]
                        squares += (v[i, j] - u[i, j]) ** 2
                deviation_sum[k] += total
                deviation_squares[k] += squares
