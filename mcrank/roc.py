r"""Scoring classifiers with a binormal ROC curve, each at its best threshold (paper §5, eqs. 20-25).

A scoring classifier outputs a score; it outputs class 0 ("positive") when the score exceeds a
threshold. Its class-1 scores are N(0, 1) and its class-0 scores N(mu, sigma^2), so that with
``x = Phi^-1(f)``, ``f`` the false-positive rate, its ROC curve (eq. 20) is

.. math:: t(f) = \Phi\!\left(\frac{\mu + \Phi^{-1}(f)}{\sigma}\right), \qquad
          \mathrm{AUC} = \Phi\!\left(\frac{\mu}{\sqrt{1 + \sigma^2}}\right).

With ``B`` the fraction of class 0, the confusion matrix at false-positive rate ``f`` (eq. 21)
has the cells ``(B t, (1 - B) f, B (1 - t), (1 - B)(1 - f))``, so that its utility yield under
a utility matrix ``U`` (rows = output, columns = true class) is

.. math:: Y(f) = B \,[U_{00} t + U_{10} (1 - t)] + (1 - B) \,[U_{01} f + U_{11} (1 - f)].

The classifier's yield at its best threshold (eqs. 22-23) is ``Y*(U) = max Y(f)`` over ``f`` in
[0, 1], the corners ``f = 0`` (always output 1) and ``f = 1`` (always output 0) included. With
``a = (U00 - U10) B`` and ``d = (U11 - U01)(1 - B)``, ``Y(f) = Y(0) + a t - d f``; an interior
stationary point has the ROC slope ``dt/df = d / a``, the slope of the iso-utility lines
(eq. 25), and for a binormal curve taking logs gives the quadratic (eq. 24)

.. math:: (\sigma^2 - 1) x^2 - 2 \mu x - \mu^2 + 2 \sigma^2 \log\frac{a}{\sigma d} = 0

when ``a d > 0`` (otherwise ``Y`` is monotone in ``f`` and the best threshold is a corner).
Which of its two roots is the local maximum is known from the signs alone (see
:func:`_stationary_point`), so ``Y*`` is exact: the larger of the two corners and that root.

The corner yields do not depend on the classifier, and every classifier's are computed by the
same float expression, so two classifiers whose best thresholds both sit at one corner have
yields that differ by exactly 0.0: the pair is tied in truth (``docs/method.md``, "The ROC/AUC
study").

The scores a scoring classifier is ranked by (each "higher is better") are one registry,
:data:`ROC_SCORES`, as :mod:`mcrank.metrics` is for confusion matrices: AUC, and accuracy,
Youden's J and F1 each at their own best threshold. F1 is not linear in the confusion matrix;
its best threshold is found exactly by Dinkelbach's method, a linear best-threshold problem per
step (:func:`_best_f1`). The H-measure (:func:`_h_measure`) and the area under the
precision-recall curve (:func:`_auprc`) are fixed-order quadratures. Adding a score is one
:func:`register` call; the kernels' switches :func:`_roc_score` and
:func:`_roc_compare` are generated. A study ranks a pair by the sign of a score's difference
only, and an entry may give a comparison that finds it with less work (:func:`_linear_compare`,
:func:`_f1_compare`, :func:`_auc_compare`); without one, the difference of the two scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mcrank._axes import Registry, generate_switch
from mcrank._jit import jit

__all__ = [
    "DEFAULT_ROC_SCORES",
    "ROC_SCORES",
    "RocScore",
    "best_accuracy",
    "best_f1",
    "best_threshold",
    "best_youden",
    "binormal_auc",
    "binormal_tpr",
    "get_roc_score",
    "iso_utility_slope",
]

_SQRT_HALF = math.sqrt(0.5)
#: Dinkelbach steps of :func:`_best_f1` at most (it converges superlinearly: a handful).
_F1_STEPS = 50
#: :func:`_best_f1` stops when a step raises F1 by less than this, relatively.
_F1_TOLERANCE = 1e-15
#: Comparisons of two scores decided early (:func:`_linear_compare`, :func:`_f1_compare`) need
#: the two values apart by this much, relative to the problem's scale: a million times their
#: rounding, so that the sign is the one of the difference computed in full.
_DOMINANCE_MARGIN = 1e-12


# --- kernels: the binormal curve ------------------------------------------------------------------

# numba's inline="always" runs its front end again at every call site, nested ones included:
# only the comparisons on the ROC kernel's hot path are inlined so (where the constants of
# accuracy and Youden's J specialise _linear_compare); every other function is compiled once,
# cached on its own, and LLVM inlines the small ones. The same floats either way (no fastmath).


@jit
def _normal_cdf(z):
    """Phi(z), accurate to a few ulps relative in both tails (erfc, not 1 - erf)."""
    return 0.5 * math.erfc(-z * _SQRT_HALF)


@jit
def _auc(prevalence, mu, sigma):
    """The area under the binormal ROC curve; ``prevalence`` is unused (a score's signature)."""
    return _normal_cdf(mu / math.sqrt(1.0 + sigma * sigma))


@jit
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


@jit
def _interior_value(a, d, mu, sigma, corner_low, corner_high, x, z):
    """``Y(f)`` at a finite ``x = Phi^-1(f)``, ``z = (mu + x) / sigma``, written from the nearer
    corner, ``f`` and ``t``: see :func:`_linear_best`."""
    if x <= 0.0:
        f, t = _normal_cdf(x), _normal_cdf(z)
        return corner_low + (a * t - d * f), f, t
    upper, upper_t = _normal_cdf(-x), _normal_cdf(-z)
    return corner_high - (a * upper_t - d * upper), 1.0 - upper, 1.0 - upper_t


@jit(inline="always")
def _linear_point(a, d, mu, sigma, corner_low, corner_high):
    """``(f, t, Y*)``: :func:`_linear_best` with the true-positive rate of its best threshold."""
    best, fpr, tpr = corner_low, 0.0, 0.0
    if corner_high > best:
        best, fpr, tpr = corner_high, 1.0, 1.0
    x = _stationary_point(a, d, mu, sigma)
    if math.isfinite(x):
        value, f, t = _interior_value(a, d, mu, sigma, corner_low, corner_high, x, (mu + x) / sigma)
        if value > best:
            best, fpr, tpr = value, f, t
    return fpr, tpr, best


@jit
def _linear_best(a, d, mu, sigma, corner_low, corner_high):
    """``(f, Y*)``: the maximum of ``Y(f) = corner_low + a t(f) - d f`` over [0, 1], where
    ``corner_low = Y(0)`` and ``corner_high = Y(1)`` (= ``corner_low + a - d``).

    The interior value is written from the nearer corner: from ``Y(0)`` with the lower tails
    ``t`` and ``f`` when ``x <= 0``, from ``Y(1)`` with the upper tails ``1 - t`` and
    ``1 - f`` when ``x > 0``. A best threshold that runs into a corner then gives that
    corner's float exactly (its tails underflow to 0), never one rounded differently.
    A corner wins ties, the lower one first.
    """
    fpr, _, best = _linear_point(a, d, mu, sigma, corner_low, corner_high)
    return fpr, best


@jit
def _density_floor(z_1, z_2):
    """A lower bound of the normal density between ``z_1`` and ``z_2`` (0 beyond 8): its
    value at the end farther from 0, rounded down to a step."""
    far = max(abs(z_1), abs(z_2))
    if far <= 2.0:
        return 0.05399  # phi(2) = 0.053991
    if far <= 4.0:
        return 1.338e-4  # phi(4) = 1.3383e-4
    if far <= 8.0:
        return 5.05e-15  # phi(8) = 5.0523e-15
    return 0.0


@jit
def _dominance(a, mu, sigma, mu_other, sigma_other, x):
    """A lower bound of ``Y_other(f) - Y(f)`` at ``x = Phi^-1(f)``, and ``z = (mu + x) / sigma``.

    Both curves share ``f``, so the difference is ``a (t_other - t)``: positive where the
    other curve is above (``a > 0``) or below (``a < 0``) this one, bounded below by the
    distance of the two ``z`` times the normal density's least value between them. 0 when
    that is not positive, or ``x`` is not finite.
    """
    z = (mu + x) / sigma
    # A bound needs no correctly rounded quotient: a reciprocal the compiler can hoist out of
    # a loop over utility matrices will do (its rounding is far below the margin).
    z_other = (mu_other + x) * (1.0 / sigma_other)
    gain = a * (z_other - z)
    if not (gain > 0.0):
        return 0.0, z
    return gain * _density_floor(z, z_other), z


@jit(inline="always")
def _linear_compare(a, d, corner_low, corner_high, mu_1, sigma_1, mu_2, sigma_2):
    """A number with the sign of ``Y*_2 - Y*_1`` as :func:`_linear_best` computes them (0
    included), the two maxima of the same linear problem: that difference itself, or +-1
    when one curve's dominance decides it.

    Two binormal curves cross at most once (``z = (mu + x) / sigma`` is linear in ``x``), but
    any point will do: ``Y*_2 >= Y_2(f_1) = Y*_1 + a (t_2(f_1) - t_1(f_1))`` at the best
    threshold ``f_1`` of the first. When that gain (bounded below without evaluating ``t_2``)
    exceeds the rounding of both computed maxima by far (:data:`_DOMINANCE_MARGIN`, relative),
    the sign is known and ``Y*_2`` is not evaluated; likewise the other way round. Otherwise
    the difference is computed as :func:`_linear_best` computes it: a pair whose maxima are
    equal (both at one corner) still gives exactly 0.
    """
    margin = _DOMINANCE_MARGIN * (abs(corner_low) + abs(corner_high) + abs(a) + abs(d))
    low_first = not (corner_high > corner_low)  # the corner that wins: Y(0) on a tie
    corner = corner_low if low_first else corner_high
    x_1 = _stationary_point(a, d, mu_1, sigma_1)
    gain_1, z_1 = _dominance(a, mu_1, sigma_1, mu_2, sigma_2, x_1)
    if gain_1 > 0.0:
        value_1 = _interior_value(a, d, mu_1, sigma_1, corner_low, corner_high, x_1, z_1)[0]
        best_1 = value_1 if value_1 > corner else corner
        if value_1 + gain_1 - best_1 > margin:
            return 1.0
        return _linear_best(a, d, mu_2, sigma_2, corner_low, corner_high)[1] - best_1
    x_2 = _stationary_point(a, d, mu_2, sigma_2)
    best_2 = corner
    if math.isfinite(x_2):
        gain_2, z_2 = _dominance(a, mu_2, sigma_2, mu_1, sigma_1, x_2)
        value_2 = _interior_value(a, d, mu_2, sigma_2, corner_low, corner_high, x_2, z_2)[0]
        if value_2 > corner:
            best_2 = value_2
        if gain_2 > 0.0 and value_2 + gain_2 - best_2 > margin:
            return -1.0
    best_1 = corner
    if math.isfinite(x_1):
        value_1 = _interior_value(a, d, mu_1, sigma_1, corner_low, corner_high, x_1, z_1)[0]
        if value_1 > corner:
            best_1 = value_1
    return best_2 - best_1


@jit
def _corners(u00, u01, u10, u11, prevalence):
    """The yields ``Y(0)`` and ``Y(1)`` of eq. (21) at the corners, and ``a``, ``d``: the
    same floats for every classifier, whose best threshold does not enter them."""
    complement = 1.0 - prevalence
    corner_low = prevalence * u10 + complement * u11  # t = f = 0: always output 1
    corner_high = prevalence * u00 + complement * u01  # t = f = 1: always output 0
    return corner_low, corner_high, (u00 - u10) * prevalence, (u11 - u01) * complement


@jit
def _best_threshold(u00, u01, u10, u11, prevalence, mu, sigma):
    """``(f, Y*)`` of eqs. (22)-(24): the best false-positive rate and the yield there."""
    corner_low, corner_high, a, d = _corners(u00, u01, u10, u11, prevalence)
    return _linear_best(a, d, mu, sigma, corner_low, corner_high)


@jit
def _best_accuracy(prevalence, mu, sigma):
    """``(f, accuracy)``: :func:`_best_threshold` under the identity utility matrix."""
    return _best_threshold(1.0, 0.0, 0.0, 1.0, prevalence, mu, sigma)


@jit
def _best_youden(mu, sigma):
    """``(f, J)``: the largest ``t(f) - f``, the linear problem with ``a = d = 1`` (both
    corners 0)."""
    return _linear_best(1.0, 1.0, mu, sigma, 0.0, 0.0)


@jit
def _f1_step(prevalence, complement, mu, sigma, best):
    """One step of Dinkelbach's method for :func:`_best_f1` from ``F = best``: ``(x, value,
    f, gain)``, the linear problem's interior maximum ``x`` (NaN or +-inf if none), the F1
    ``value`` at its ``f`` and the linear problem's value there, ``gain``. Any F1 is at most
    ``F + max(gain, 0) / B``: ``2 B t - F D <= gain`` for every ``f``, ``D`` the denominator,
    at least ``B``, and the corners of the linear problem are not positive."""
    x = _stationary_point((2.0 - best) * prevalence, best * complement, mu, sigma)
    if not math.isfinite(x):
        return x, math.nan, math.nan, math.nan
    f, t = _normal_cdf(x), _normal_cdf((mu + x) / sigma)
    value = 2.0 * prevalence * t / (prevalence + prevalence * t + complement * f)
    gain = (2.0 - best) * prevalence * t - best * complement * f - best * prevalence
    return x, value, f, gain


@jit
def _best_f1(prevalence, mu, sigma):
    """``(f, F1)``: the largest ``F1(f) = 2 B t / (B + B t + (1 - B) f)``, by Dinkelbach's method.

    ``F1 >= F`` somewhere exactly when ``max_f (2 - F) B t - F (1 - B) f - F B >= 0``, a linear
    best-threshold problem. Starting from the corner ``f = 1`` (``F = 2B / (1 + B)``; the corner
    ``f = 0`` has ``F1 = 0``), each step solves it for the current ``F`` and moves to the F1
    of its maximiser; the F1 values increase to the maximum superlinearly (Dinkelbach's method
    is Newton's method on the optimal value of the linear problem). The linear problem's
    corners never beat the current ``F``, so only its interior maximum is evaluated.
    """
    best = 2.0 * prevalence / (1.0 + prevalence)
    fpr = 1.0
    for _ in range(_F1_STEPS):
        x, value, f, _ = _f1_step(prevalence, 1.0 - prevalence, mu, sigma, best)
        if not math.isfinite(x):
            break
        if not (value > best * (1.0 + _F1_TOLERANCE)):
            if value > best:
                best, fpr = value, f
            break
        best, fpr = value, f
    return fpr, best


@jit
def _f1_advance(prevalence, complement, mu, sigma, best, upper, steps):
    """Step ``steps`` of :func:`_best_f1` from ``best``: the new ``(best, upper, steps)``, its
    lower and upper bounds on the F1 it returns, ``steps`` -1 once it has returned (then
    ``upper = best``, its value)."""
    x, value, _, gain = _f1_step(prevalence, complement, mu, sigma, best)
    steps += 1
    if not math.isfinite(x):
        return best, best, -1
    if not (value > best * (1.0 + _F1_TOLERANCE)):
        if value > best:
            best = value
        return best, best, -1
    # Rounding of F1, of the gain and of its value's F1, covered with the margin.
    bound = best + (max(gain, 0.0) + _DOMINANCE_MARGIN) / prevalence + _DOMINANCE_MARGIN
    return value, min(upper, bound), (-1 if steps == _F1_STEPS else steps)


@jit
def _f1_compare(prevalence, mu_1, sigma_1, mu_2, sigma_2):
    """A number with the sign of ``F1*_2 - F1*_1`` as :func:`_best_f1` computes them: both
    iterated together, step by step, until one's lower bound (its current F1, which the
    result never falls below) passes the other's upper bound (then +-1), or both have
    returned (then their difference)."""
    complement = 1.0 - prevalence
    best_1 = best_2 = 2.0 * prevalence / (1.0 + prevalence)
    upper_1 = upper_2 = math.inf
    steps_1 = steps_2 = 0
    while steps_1 >= 0 or steps_2 >= 0:
        if steps_1 >= 0:
            best_1, upper_1, steps_1 = _f1_advance(prevalence, complement, mu_1, sigma_1, best_1, upper_1, steps_1)
        if steps_2 >= 0:
            best_2, upper_2, steps_2 = _f1_advance(prevalence, complement, mu_2, sigma_2, best_2, upper_2, steps_2)
        if best_2 > upper_1:
            return 1.0
        if best_1 > upper_2:
            return -1.0
    return best_2 - best_1


@jit
def _best_accuracy_score(prevalence, mu, sigma):
    return _best_accuracy(prevalence, mu, sigma)[1]


@jit
def _best_youden_score(prevalence, mu, sigma):
    return _best_youden(mu, sigma)[1]


@jit
def _best_f1_score(prevalence, mu, sigma):
    return _best_f1(prevalence, mu, sigma)[1]


@jit(inline="always")
def _auc_compare(prevalence, mu_1, sigma_1, mu_2, sigma_2):
    """The sign of ``AUC_2 - AUC_1`` as :func:`_auc` computes them: from the two arguments of
    Phi when they are far enough apart that the rounding of Phi cannot reverse it."""
    z_1 = mu_1 / math.sqrt(1.0 + sigma_1 * sigma_1)
    z_2 = mu_2 / math.sqrt(1.0 + sigma_2 * sigma_2)
    if abs(z_2 - z_1) * _density_floor(z_1, z_2) > _DOMINANCE_MARGIN:
        return z_2 - z_1
    return _normal_cdf(z_2) - _normal_cdf(z_1)


@jit(inline="always")
def _best_accuracy_compare(prevalence, mu_1, sigma_1, mu_2, sigma_2):
    corner_low, corner_high, a, d = _corners(1.0, 0.0, 0.0, 1.0, prevalence)
    return _linear_compare(a, d, corner_low, corner_high, mu_1, sigma_1, mu_2, sigma_2)


@jit(inline="always")
def _best_youden_compare(prevalence, mu_1, sigma_1, mu_2, sigma_2):
    return _linear_compare(1.0, 1.0, 0.0, 0.0, mu_1, sigma_1, mu_2, sigma_2)


# --- the H-measure and the area under the precision-recall curve -------------------------------

#: Gauss-Legendre nodes and weights on [0, 1], for the panels of the quadratures below.
_GL_NODES, _GL_WEIGHTS = (0.5 * (v + 1.0) if k == 0 else 0.5 * v for k, v in enumerate(np.polynomial.legendre.leggauss(14)))
#: Width of a quadrature panel, in units of the class-1 scores' sd.
_PANEL = 1.5
#: Beyond this many sds of either class the normal densities are below 1e-18: nothing is lost.
_TAIL = 9.0
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


@jit
def _log_slope(x, mu, sigma):
    """The log of the ROC slope ``dt/df = phi(z) / (sigma phi(x))`` at ``x = Phi^-1(f)``."""
    z = (mu + x) / sigma
    return 0.5 * (x - z) * (x + z) - math.log(sigma)


@jit
def _hull_tangent(mu, sigma):
    """``x`` of the point where the segment from ``(1, 1)`` touches a binormal curve with
    ``sigma > 1``: the convex hull is the curve up to it and that segment after it.

    The curve is concave left of its inflection ``x_i = mu / (sigma^2 - 1)`` and convex right
    of it; the tangent point is the root of ``g(x) = log slope(x) - log((1 - t) / (1 - f))`` on
    the concave side, where ``g`` falls from +inf to below 0 (the chord from ``x_i`` to
    ``(1, 1)`` is steeper than the curve there). Newton's method kept inside a shrinking
    bracket (a step that leaves it bisects), to the last bits. Past ``x = 40`` both upper tails
    are 0 and the segment has no length: the bracket ends there.
    """
    low = -40.0 - abs(mu) / (sigma - 1.0)
    high = min(mu / ((sigma - 1.0) * (sigma + 1.0)), 40.0)
    x = 0.5 * (low + high)
    for _ in range(100):
        z = (mu + x) / sigma
        upper_t, upper_f = _normal_cdf(-z), _normal_cdf(-x)
        step = math.nan
        if upper_t > 0.0 and upper_f > 0.0:
            g = _log_slope(x, mu, sigma) - math.log(upper_t) + math.log(upper_f)
            # g' = (A x - mu) / sigma^2 + phi(z) / (sigma (1 - t)) - phi(x) / (1 - f)
            derivative = (x - z / sigma) + (
                math.exp(-0.5 * z * z - _LOG_SQRT_2PI) / (sigma * upper_t) - math.exp(-0.5 * x * x - _LOG_SQRT_2PI) / upper_f
            )
            if derivative != 0.0:
                step = x - g / derivative
        else:  # a tail underflows: the chord's slope is 0 (right of the tangent), or unknown
            g = math.inf if upper_f > 0.0 else math.nan
        if g > 0.0:
            low = x
        else:
            high = x
        if not (low < step < high):
            step = 0.5 * (low + high)
        if not (abs(step - x) > 1e-15 * (1.0 + abs(x))):
            return step
        x = step
    return x


@jit
def _severity_w2(c):
    """The second integral ``W2(c) = int_0^c int_0^s w`` of the Beta(2, 2) density ``w(c) = 6 c (1 - c)``."""
    return c * c * c * (1.0 - 0.5 * c)


@jit
def _h_measure(prevalence, mu, sigma):
    """The H-measure (Hand 2009) of a binormal classifier, with the Beta(2, 2) distribution of
    ``c``, the cost of a false negative (``docs/method.md``, "The ROC/AUC study").

    ``int Q(c) w(c) dc``, ``Q`` the least loss ``c B (1 - t) + (1 - c)(1 - B) f`` on the convex
    hull, integrated by parts twice: ``(1 - B) W2(1) - int W2(c) d(B t + (1 - B) f)`` along the
    hull, ``W2`` the second integral of ``w`` (``Q(1) = 0``, ``Q'(1) = -(1 - B)``), the cost
    ``c(x)`` of the point ``x`` the one whose iso-loss slope is the curve's there. The curve's
    part by Gauss-Legendre panels in ``x``, the segment to ``(1, 1)`` at its one cost.
    """
    b, complement = prevalence, 1.0 - prevalence
    if not (0.0 < b < 1.0):
        return math.nan  # one class only: no loss to compare
    if sigma < 1.0:  # H is symmetric in the classes: swapped, the curve is (mu / sigma, 1 / sigma)
        b, complement, mu, sigma = complement, b, mu / sigma, 1.0 / sigma
    # The loss of the better corner, min(c B, (1 - c)(1 - B)), under w (split at c = 1 - B).
    maximum_loss = b * complement * (complement * complement * (2.0 - 1.5 * complement) + b * b * (2.0 - 1.5 * b))
    if sigma == 1.0 and mu <= 0.0:
        return 0.0  # the hull is the diagonal
    high = max(_TAIL, -mu + _TAIL * sigma)
    tangent = math.inf
    if sigma > 1.0:
        tangent = _hull_tangent(mu, sigma)
        high = min(high, tangent)
    low = min(-_TAIL, -mu - _TAIL * sigma)
    odds = math.log(b / complement)
    panels = max(1, int(math.ceil((high - low) / _PANEL)))
    width = (high - low) / panels
    hull = 0.0  # int W2(c(x)) d(B t + (1 - B) f) along the curve's part of the hull
    for p in range(panels):
        start = low + p * width
        for k in range(_GL_NODES.size):
            x = start + width * _GL_NODES[k]
            z = (mu + x) / sigma
            c = 1.0 / (1.0 + math.exp(min(_log_slope(x, mu, sigma) + odds, 700.0)))  # 0 to W2's precision beyond
            density = b * math.exp(-0.5 * z * z) / sigma + complement * math.exp(-0.5 * x * x)
            hull += _GL_WEIGHTS[k] * _severity_w2(c) * density
    hull *= width * math.exp(-_LOG_SQRT_2PI)
    if math.isfinite(tangent):  # the segment to (1, 1), at its one cost
        c = 1.0 / (1.0 + math.exp(min(_log_slope(tangent, mu, sigma) + odds, 700.0)))
        hull += _severity_w2(c) * (b * _normal_cdf(-(mu + tangent) / sigma) + complement * _normal_cdf(-tangent))
    expected_loss = 0.5 * complement - hull
    return 1.0 - expected_loss / maximum_loss


@jit
def _auprc(prevalence, mu, sigma):
    """The area under the precision-recall curve, ``int_0^1 precision d recall`` over the recall
    ``t = Phi(z)``, ``z`` the threshold in class-0 sds, ``f = Phi(sigma z - mu)``: Gauss-Legendre
    panels over ``|z| <= 9``. NaN at ``B = 0``."""
    b, complement = prevalence, 1.0 - prevalence
    if not (b > 0.0):
        return math.nan  # no positive item: no precision
    panels = int(math.ceil(2.0 * _TAIL / _PANEL))
    width = 2.0 * _TAIL / panels
    total = 0.0
    for p in range(panels):
        start = -_TAIL + p * width
        for k in range(_GL_NODES.size):
            z = start + width * _GL_NODES[k]  # the threshold in class-0 sds: recall t = Phi(z)
            t, f = _normal_cdf(z), _normal_cdf(sigma * z - mu)
            total += _GL_WEIGHTS[k] * math.exp(-0.5 * z * z) * (b * t / (b * t + complement * f))
    return total * width * math.exp(-_LOG_SQRT_2PI)


# --- comparisons of two H-measures or AUPRCs: bounds first, the quadratures only when close -----

#: A comparison by bounds decides only when they are apart by this much (in H or AUPRC): far
#: more than the fixed-order quadratures' error (below 1e-9) and rounding, so that the sign is
#: the one of the two quadratures computed in full.
_CURVE_MARGIN = 1e-7
#: Costs at which :func:`_h_measure_compare` evaluates the least loss at most, per classifier.
_H_NODES = 40


@jit
def _least_loss(prevalence, mu, sigma, c):
    """``Q(c)``, the least loss ``c B (1 - t) + (1 - c)(1 - B) f`` over the curve and its
    corners (equal to the least over the hull), and its derivative in ``c`` there,
    ``B (1 - t) - (1 - B) f`` at the minimiser: the best threshold of the yield ``-loss``
    (:func:`_linear_point`)."""
    complement = 1.0 - prevalence
    a, d = c * prevalence, (1.0 - c) * complement
    f, t, best = _linear_point(a, d, mu, sigma, -a, -d)
    return -best, prevalence * (1.0 - t) - complement * f


@jit
def _beta22_moments(c):
    """``int_0^c w`` and ``int_0^c s w(s) ds`` of the Beta(2, 2) density ``w(c) = 6 c (1 - c)``."""
    c2 = c * c
    return c2 * (3.0 - 2.0 * c), c2 * c * (2.0 - 1.5 * c)


@jit
def _loss_bounds(cost, loss, slope, n, gaps):
    """Bounds ``(low, gap)`` of the expected least loss ``L = int Q w``, ``Q`` known at the costs
    ``cost[:n]`` (ascending, 0 and 1 included) with its derivative ``slope``: ``Q`` is concave
    (a minimum of functions linear in ``c``), so it lies above its chords (``low``, their
    integral against ``w``) and below its tangents, which rise at most ``(b - a)(s_a - s_b) / 4``
    above the chord on ``[a, b]`` (``gap``: that times ``int_a^b w``). ``gaps[k]``: interval k's part."""
    low, gap = 0.0, 0.0
    w_a, m_a = _beta22_moments(cost[0])
    for k in range(n - 1):
        a, b = cost[k], cost[k + 1]
        w_b, m_b = _beta22_moments(b)
        chord = (loss[k + 1] - loss[k]) / (b - a)
        low += (loss[k] - chord * a) * (w_b - w_a) + chord * (m_b - m_a)
        gaps[k] = 0.25 * (b - a) * max(slope[k] - slope[k + 1], 0.0) * (w_b - w_a)
        gap += gaps[k]
        w_a, m_a = w_b, m_b
    return low, gap


@jit
def _h_measure_compare(prevalence, mu_1, sigma_1, mu_2, sigma_2):
    """A number with the sign of ``H_2 - H_1`` as :func:`_h_measure` computes them.

    ``H = 1 - L / L_max``, ``L = int Q(c) w(c) dc`` the expected least loss (a shared ``L_max``
    for both), so the order is that of the two ``L``. Each is bracketed by :func:`_loss_bounds`
    from ``Q`` at a few costs, starting at 0, ``1 - B`` (where the corners' losses are equal)
    and 1, and the interval with the widest gap, of either classifier, is halved until the
    brackets are :data:`_CURVE_MARGIN` apart (then +-1); otherwise, the two quadratures."""
    b, complement = prevalence, 1.0 - prevalence
    if not (0.0 < b < 1.0):
        return math.nan  # as _h_measure
    # H's margin in units of L: L_max, the loss of the better corner (as in _h_measure).
    margin = _CURVE_MARGIN * b * complement * (complement * complement * (2.0 - 1.5 * complement) + b * b * (2.0 - 1.5 * b))
    cost, loss, slope, gaps = np.empty((2, _H_NODES)), np.empty((2, _H_NODES)), np.empty((2, _H_NODES)), np.empty((2, _H_NODES))
    params = ((mu_1, sigma_1), (mu_2, sigma_2))
    for i in range(2):
        cost[i, 0], loss[i, 0], slope[i, 0] = 0.0, 0.0, b  # the corner f = t = 0
        cost[i, 1] = complement
        loss[i, 1], slope[i, 1] = _least_loss(b, params[i][0], params[i][1], complement)
        cost[i, 2], loss[i, 2], slope[i, 2] = 1.0, 0.0, -complement  # the corner f = t = 1
    n = np.array([3, 3])
    low, gap = np.empty(2), np.empty(2)
    for i in range(2):
        low[i], gap[i] = _loss_bounds(cost[i], loss[i], slope[i], n[i], gaps[i])
    while True:
        # Lower loss, higher H: the second is better when its upper bound is below the first's lower.
        if low[0] - (low[1] + gap[1]) > margin:
            return 1.0
        if low[1] - (low[0] + gap[0]) > margin:
            return -1.0
        i = 0 if gap[0] >= gap[1] else 1
        if n[i] == _H_NODES:
            break
        k = np.argmax(gaps[i, : n[i] - 1])
        c = 0.5 * (cost[i, k] + cost[i, k + 1])
        for j in range(n[i], k + 1, -1):  # make room after interval k
            cost[i, j], loss[i, j], slope[i, j] = cost[i, j - 1], loss[i, j - 1], slope[i, j - 1]
        cost[i, k + 1] = c
        loss[i, k + 1], slope[i, k + 1] = _least_loss(b, params[i][0], params[i][1], c)
        n[i] += 1
        low[i], gap[i] = _loss_bounds(cost[i], loss[i], slope[i], n[i], gaps[i])
    return _h_measure(prevalence, mu_2, sigma_2) - _h_measure(prevalence, mu_1, sigma_1)


def _auprc_nodes():
    """The nodes ``z`` of :func:`_auprc`'s quadrature, heaviest first, with ``Phi(z)``, their
    weights in the sum and the total weight of the nodes after each."""
    panels = int(math.ceil(2.0 * _TAIL / _PANEL))
    width = 2.0 * _TAIL / panels
    z = np.concatenate([(-_TAIL + p * width) + width * _GL_NODES for p in range(panels)])
    weight = np.tile(_GL_WEIGHTS, panels) * np.exp(-0.5 * z * z) * (width * math.exp(-_LOG_SQRT_2PI))
    order = np.argsort(-weight, kind="stable")
    z, weight = z[order], weight[order]
    rest = np.append(np.cumsum(weight[::-1])[::-1][1:], 0.0)
    return z, 0.5 * np.array([math.erfc(-v * _SQRT_HALF) for v in z]), weight, rest


_AUPRC_Z, _AUPRC_T, _AUPRC_WEIGHT, _AUPRC_REST = _auprc_nodes()


@jit
def _auprc_compare(prevalence, mu_1, sigma_1, mu_2, sigma_2):
    """A number with the sign of ``AUPRC_2 - AUPRC_1`` as :func:`_auprc` computes them.

    Both on :func:`_auprc`'s nodes, heaviest first: the precisions are in [0, 1], so the part
    of the difference still to come is at most the weight of the nodes left. Once the sum so
    far exceeds it by :data:`_CURVE_MARGIN`, its sign is the answer; otherwise, the two
    quadratures."""
    b, complement = prevalence, 1.0 - prevalence
    if not (b > 0.0):
        return math.nan  # as _auprc
    total = 0.0
    for k in range(_AUPRC_Z.size):
        z, bt = _AUPRC_Z[k], b * _AUPRC_T[k]
        first = bt / (bt + complement * _normal_cdf(sigma_1 * z - mu_1))
        second = bt / (bt + complement * _normal_cdf(sigma_2 * z - mu_2))
        total += _AUPRC_WEIGHT[k] * (second - first)
        if abs(total) > _AUPRC_REST[k] + _CURVE_MARGIN:
            return total
    return _auprc(prevalence, mu_2, sigma_2) - _auprc(prevalence, mu_1, sigma_1)


# --- the registry of scores ---------------------------------------------------------------------


@dataclass(frozen=True)
class RocScore:
    """One score of a scoring classifier (higher is better).

    Attributes
    ----------
    id : str
        Stable identifier, used in study configurations and results files.
    name : str
        Display name.
    code : int
        Position in :data:`ROC_SCORES`: how the numba kernels name it.
    score : numba function
        ``score(prevalence, mu, sigma) -> float``: the score of the binormal classifier
        ``(mu, sigma)`` on a population with class-0 fraction ``prevalence``.
    doc : str
        What it is, in a sentence.
    compare : numba function or None
        ``compare(prevalence, mu_1, sigma_1, mu_2, sigma_2) -> float``: a number with the
        sign (0 and NaN included) of ``score(prevalence, mu_2, sigma_2) - score(prevalence,
        mu_1, sigma_1)``, the way the ROC study ranks a pair, when it can be found with less
        work than the two scores; None: that difference.
    """

    id: str
    name: str
    code: int
    score: Callable = field(repr=False, compare=False)
    doc: str = ""
    compare: Callable | None = field(default=None, repr=False, compare=False)

    def __call__(self, prevalence, mu, sigma):
        """The score of binormal classifiers, broadcast over the three arguments."""
        shape, flat = _flat(_check_classifiers(prevalence, mu, sigma))
        out = np.empty(flat[0].size)
        _score_many(self.code, *flat, out)
        return _shaped(out, shape)


#: Every score of a scoring classifier by id, in the order registered (its code).
ROC_SCORES: Registry = Registry("ROC score", key="id")


def register(id: str, name: str, score, doc: str, compare=None) -> RocScore:
    """Add a score; its code is its position. ``compare``: see :class:`RocScore`.

    Its definition goes in this module, beside the others: the kernels' switches are generated
    when it is imported, which seals the registry, and a RuntimeError says so afterwards.
    """
    return ROC_SCORES.add(RocScore(id, name, len(ROC_SCORES), score, doc, compare))


register("auc", "AUC", _auc, "The area under the ROC curve, Phi(mu / sqrt(1 + sigma^2)); independent of the prevalence.",
         _auc_compare)  # fmt: skip
register("best_accuracy", "Accuracy at its best threshold", _best_accuracy_score,
         "The largest accuracy B t + (1 - B)(1 - f): Y* under the identity utility matrix.",
         _best_accuracy_compare)  # fmt: skip
register("best_youden", "Youden's J at its best threshold", _best_youden_score,
         "The largest t - f (= 2 x the best balanced accuracy - 1); independent of the prevalence.",
         _best_youden_compare)  # fmt: skip
register("best_f1", "F1 at its best threshold", _best_f1_score,
         "The largest F1 = 2 B t / (B + B t + (1 - B) f), found exactly by Dinkelbach's method.",
         _f1_compare)  # fmt: skip
register("hmeasure", "H-measure", _h_measure,
         "Hand's H-measure: 1 - the expected minimum loss under a Beta(2, 2) cost proportion, over that of the better corner.",
         _h_measure_compare)  # fmt: skip
register("auprc", "AUPRC", _auprc,
         "The area under the precision-recall curve, int_0^1 precision d recall (the average precision).",
         _auprc_compare)  # fmt: skip

ROC_SCORES.builtins_registered()

#: The scores of the ROC/AUC study (``docs/method.md``, "The ROC/AUC study").
DEFAULT_ROC_SCORES: tuple[str, ...] = ("auc", "best_accuracy", "best_youden", "best_f1")


def get_roc_score(id: str) -> RocScore:
    """Look up a score of a scoring classifier by id.

    Raises
    ------
    KeyError
        With the list of known ids, if ``id`` is unknown.
    """
    return ROC_SCORES.lookup(id, "scores")


def _dispatch(name: str, arguments: str, call, doc: str):
    """:func:`mcrank._axes.generate_switch` over :data:`ROC_SCORES`, as if written here."""
    return generate_switch(ROC_SCORES, name, arguments, call, __name__, doc)


_roc_score = _dispatch(
    "_roc_score",
    "prevalence, mu, sigma",
    lambda entry: f"f{entry.code}(prevalence, mu, sigma)",
    """Score number ``code`` of :data:`ROC_SCORES` of the binormal classifier ``(mu, sigma)``
    at class-0 fraction ``prevalence``; NaN for an unknown code.""",
)

_roc_compare = _dispatch(
    "_roc_compare",
    "prevalence, mu_1, sigma_1, mu_2, sigma_2",
    lambda entry: (
        f"f{entry.code}(prevalence, mu_2, sigma_2) - f{entry.code}(prevalence, mu_1, sigma_1)"
        if entry.compare is None
        else f"c{entry.code}(prevalence, mu_1, sigma_1, mu_2, sigma_2)"
    ),
    """A number with the sign of score number ``code`` of the second binormal classifier
    minus that of the first (:attr:`RocScore.compare`); NaN for an unknown code.""",
)
ROC_SCORES.seal(__name__, "define it in mcrank/roc.py, beside the others")


# --- loops over arrays, for the public functions -----------------------------------------------


@jit
def _score_many(code, prevalence, mu, sigma, out):
    for i in range(out.size):
        out[i] = _roc_score(code, prevalence[i], mu[i], sigma[i])


@jit
def _tpr_many(x, mu, sigma, out):
    for i in range(out.size):
        out[i] = _normal_cdf((mu[i] + x[i]) / sigma[i])


@jit
def _best_threshold_many(u00, u01, u10, u11, prevalence, mu, sigma, fpr, value):
    for i in range(fpr.size):
        fpr[i], value[i] = _best_threshold(u00[i], u01[i], u10[i], u11[i], prevalence[i], mu[i], sigma[i])


@jit
def _best_youden_many(mu, sigma, fpr, value):
    for i in range(fpr.size):
        fpr[i], value[i] = _best_youden(mu[i], sigma[i])


@jit
def _best_f1_many(prevalence, mu, sigma, fpr, value):
    for i in range(fpr.size):
        fpr[i], value[i] = _best_f1(prevalence[i], mu[i], sigma[i])


# --- public functions ---------------------------------------------------------------------------


def _finite(value, what: str) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{what} must be finite")
    return array


def _flat(arrays):
    """The broadcast shape of ``arrays``, and each broadcast to it, as a fresh flat float array."""
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    return shape, [np.array(np.broadcast_to(a, shape), dtype=float).ravel() for a in arrays]


def _check_classifiers(prevalence, mu, sigma):
    """``prevalence`` in [0, 1] (or None), ``mu`` finite, ``sigma`` positive."""
    mu = _finite(mu, "mu")
    sigma = _finite(sigma, "sigma")
    if np.any(sigma <= 0):
        raise ValueError("sigma must be positive")
    if prevalence is not None:
        prevalence = _finite(prevalence, "prevalence")
        if np.any((prevalence < 0) | (prevalence > 1)):
            raise ValueError("prevalence must be in [0, 1]")
    return prevalence, mu, sigma


def _shaped(out: np.ndarray, shape):
    out = out.reshape(shape)
    return float(out) if out.ndim == 0 else out


def binormal_tpr(fpr, mu, sigma):
    r"""The true-positive rate of a binormal classifier at false-positive rate ``fpr``, eq. (20).

    .. math:: t(f) = \Phi\!\left(\frac{\mu + \Phi^{-1}(f)}{\sigma}\right)

    Parameters
    ----------
    fpr : array_like
        False-positive rates in [0, 1].
    mu : array_like
        Mean of the class-0 (positive) scores; the class-1 scores are N(0, 1).
    sigma : array_like
        Standard deviation of the class-0 scores, positive.

    Returns
    -------
    float or ndarray
        Broadcast over the arguments; 0 at ``fpr = 0`` and 1 at ``fpr = 1``.
    """
    fpr = _finite(fpr, "fpr")
    if np.any((fpr < 0) | (fpr > 1)):
        raise ValueError("fpr must be in [0, 1]")
    _, mu, sigma = _check_classifiers(None, mu, sigma)
    shape, (fpr, mu, sigma) = _flat((fpr, mu, sigma))
    from statistics import NormalDist  # here: statistics imports fractions and decimal, which --help need not

    inverse = NormalDist().inv_cdf  # Wichura's AS241, accurate to about 1e-16
    x = np.array([-math.inf if f == 0 else math.inf if f == 1 else inverse(f) for f in fpr])
    out = np.empty(x.size)
    _tpr_many(x, mu, sigma, out)
    return _shaped(out, shape)


def binormal_auc(mu, sigma):
    r"""The area under a binormal ROC curve.

    .. math:: \mathrm{AUC} = \Phi\!\left(\frac{\mu}{\sqrt{1 + \sigma^2}}\right)

    Parameters
    ----------
    mu, sigma : array_like
        As in :func:`binormal_tpr`; broadcast together.

    Returns
    -------
    float or ndarray
    """
    return ROC_SCORES["auc"](0.5, mu, sigma)


def best_threshold(utility, prevalence, mu, sigma):
    r"""The best false-positive rate of a binormal classifier and its utility yield, eqs. (21)-(24).

    .. math:: Y^*(U) = \max_{f \in [0, 1]} B \,[U_{00} t + U_{10} (1 - t)] + (1 - B) \,[U_{01} f + U_{11} (1 - f)]

    exactly: the larger of the corners ``f = 0`` and ``f = 1`` and the interior maximum, a root
    of the quadratic of eq. (24).

    Parameters
    ----------
    utility : array_like of shape (..., 2, 2)
        Utility matrices, rows = output, columns = true class, class 0 positive. Any finite
        values: ``U00 < U10`` or ``U11 < U01`` (a perturbed matrix) is fine.
    prevalence : array_like
        ``B``, the fraction of class 0, in [0, 1].
    mu, sigma : array_like
        The classifier's binormal parameters, as in :func:`binormal_tpr`.

    Returns
    -------
    fpr, yield : float or ndarray
        Broadcast over ``utility``'s leading dimensions and the other arguments. A corner wins
        a tie with the interior, ``f = 0`` a tie with ``f = 1``.
    """
    u = _finite(utility, "utility")
    if u.ndim < 2 or u.shape[-2:] != (2, 2):
        raise ValueError(f"utility must be a 2x2 matrix or a stack of them, got shape {u.shape}")
    prevalence, mu, sigma = _check_classifiers(prevalence, mu, sigma)
    shape, flat = _flat((u[..., 0, 0], u[..., 0, 1], u[..., 1, 0], u[..., 1, 1], prevalence, mu, sigma))
    fpr, value = np.empty(flat[0].size), np.empty(flat[0].size)
    _best_threshold_many(*flat, fpr, value)
    return _shaped(fpr, shape), _shaped(value, shape)


def best_accuracy(prevalence, mu, sigma):
    """The largest accuracy ``B t + (1 - B)(1 - f)`` of a binormal classifier, and where.

    :func:`best_threshold` under the identity utility matrix.

    Parameters
    ----------
    prevalence, mu, sigma : array_like
        As in :func:`best_threshold`.

    Returns
    -------
    fpr, accuracy : float or ndarray
    """
    return best_threshold(np.eye(2), prevalence, mu, sigma)


def best_youden(mu, sigma):
    """The largest Youden's J ``t(f) - f`` of a binormal classifier, and where.

    J at its best threshold is twice the best balanced accuracy minus 1; it does not depend on
    the prevalence. The linear best-threshold problem with ``a = d = 1`` (eq. 24).

    Parameters
    ----------
    mu, sigma : array_like
        As in :func:`binormal_tpr`.

    Returns
    -------
    fpr, j : float or ndarray
        ``j >= 0``: the corners give 0.
    """
    shape, (mu, sigma) = _flat(_check_classifiers(None, mu, sigma)[1:])
    fpr, value = np.empty(mu.size), np.empty(mu.size)
    _best_youden_many(mu, sigma, fpr, value)
    return _shaped(fpr, shape), _shaped(value, shape)


def best_f1(prevalence, mu, sigma):
    r"""The largest F1 of a binormal classifier, and where.

    .. math:: F_1(f) = \frac{2 B t}{B + B t + (1 - B) f}

    F1 is not linear in the confusion matrix: its maximum is found by Dinkelbach's method, a
    linear best-threshold problem (eq. 24) per step, to the last bit or nearly.

    Parameters
    ----------
    prevalence, mu, sigma : array_like
        As in :func:`best_threshold`.

    Returns
    -------
    fpr, f1 : float or ndarray
        At least ``2B / (1 + B)``, the F1 of always outputting class 0 (``f = 1``).
    """
    shape, flat = _flat(_check_classifiers(prevalence, mu, sigma))
    fpr, value = np.empty(flat[0].size), np.empty(flat[0].size)
    _best_f1_many(*flat, fpr, value)
    return _shaped(fpr, shape), _shaped(value, shape)


def iso_utility_slope(utility, prevalence):
    r"""The slope ``dt/df`` of the lines of equal utility yield in ROC space, eq. (25).

    .. math:: \frac{(U_{11} - U_{01})(1 - B)}{(U_{00} - U_{10}) B}

    A binormal classifier's best interior threshold is where its ROC curve has this slope.

    Parameters
    ----------
    utility : array_like of shape (..., 2, 2)
    prevalence : array_like
        ``B`` in [0, 1].

    Returns
    -------
    float or ndarray
        +-inf where the denominator is 0 and the numerator not, NaN where both are.
    """
    u = _finite(utility, "utility")
    if u.ndim < 2 or u.shape[-2:] != (2, 2):
        raise ValueError(f"utility must be a 2x2 matrix or a stack of them, got shape {u.shape}")
    prevalence = _finite(prevalence, "prevalence")
    if np.any((prevalence < 0) | (prevalence > 1)):
        raise ValueError("prevalence must be in [0, 1]")
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = (u[..., 1, 1] - u[..., 0, 1]) * (1.0 - prevalence) / ((u[..., 0, 0] - u[..., 1, 0]) * prevalence)
    return float(slope) if np.ndim(slope) == 0 else slope
