r"""Probabilistic classifiers: binormal scores turned into stated probabilities (eq. 20).

A probabilistic classifier here is a binormal scoring classifier (:mod:`mcrank.roc`: class-1
scores N(0, 1), class-0 scores N(mu, sigma^2)) that states, for a score ``s``, the probability

.. math:: q(s) = \operatorname{logistic}(a\, l(s) + c), \qquad
          l(s) = \operatorname{logit} B + \log N(s; \mu, \sigma^2) - \log N(s; 0, 1)

of class 0, ``l(s)`` the exact log posterior odds on a population with class-0 fraction ``B``:
``a = 1, c = 0`` is perfectly calibrated, ``a`` its calibration slope (over-confident above 1)
and ``c`` its intercept (a wrong base rate). ``l(s) = A2 s^2 + A1 s + A0`` is a quadratic in the
score (:func:`_log_odds`).

It decides each item by maximal expected utility with its own ``q`` (eq. 20): output 0 when
``q U00 + (1 - q) U01 >= q U10 + (1 - q) U11``. With ``D0 = U00 - U10`` and
``D1 = U11 - U01``, that is ``q >= D1 / (D0 + D1)`` if ``D0 + D1 > 0``, ``q <= D1 / (D0 + D1)``
if it is negative, and, if it is 0, always output 0 when ``D1 <= 0`` and never otherwise. As
``q`` is increasing in ``l``, a threshold on ``q`` strictly inside (0, 1) is ``l(s) >= k`` (or
``<=``), ``k = (log(D1 / D0) - c) / a``: a quadratic inequality in ``s``, whose rates under
each class are sums of normal CDFs at its roots (:func:`_rates`), exact. The yield of the
decisions on the population is
``Y(U) = B [t U00 + (1 - t) U10] + (1 - B) [f U01 + (1 - f) U11]`` (:func:`_yield`), one
expression for every classifier: two classifiers that both always output 0, or both always 1,
have yields that differ by exactly 0.0.

The scores a probabilistic classifier is judged by are one registry, :data:`PROBABILITY_SCORES`:
the Brier score and the log loss (lower is better), and the accuracy of the decisions
``q >= 1/2``. The Brier score ``B E0[(1 - q)^2] + (1 - B) E1[q^2]`` and the log loss
``-B E0[log q] - (1 - B) E1[log(1 - q)]`` (``E0``, ``E1`` over the class's scores) are split
into a part exact in closed form and a remainder computed by quadrature
(:func:`_remainders`): to about 1e-11 absolute over the study's parameters.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mcrank._axes import Registry, generate_switch
from mcrank._jit import jit
from mcrank.roc import _normal_cdf

__all__ = [
    "DEFAULT_PROBABILITY_SCORES",
    "PROBABILITY_SCORES",
    "ProbabilityScore",
    "decision_rates",
    "get_probability_score",
    "stated_probability",
]

_SQRT_2PI = math.sqrt(2.0 * math.pi)


def _rule(levels, nodes_per_panel, longest, reach):
    """A rule of :func:`_remainders`: ``(levels, nodes, weights, longest, reach)``, the levels of
    ``|a l + c|`` at whose crossings a panel ends (the integrand decays like
    ``exp(-|a l + c|)``; the last level bounds it), the Gauss-Legendre nodes and weights of a
    panel, the longest panel in units of the narrower density's sd, and how many sds from each
    density's mean the remainder is integrated."""
    nodes, weights = np.polynomial.legendre.leggauss(nodes_per_panel)
    levels = np.array([0.0] + [sign * level for level in levels for sign in (1.0, -1.0)])
    return levels, np.ascontiguousarray(nodes), np.ascontiguousarray(weights), float(longest), float(reach)


#: The rule of the scores' values: to about 1e-11 absolute (``tests/test_probabilities.py``
#: checks it against scipy's adaptive quadrature over extreme parameters).
_FINE_LEVELS, _FINE_NODES, _FINE_WEIGHTS, _FINE_LONGEST, _FINE_REACH = _rule((1.0, 3.0, 8.0, 18.0, 36.0), 8, 1.5, 8.5)
#: A coarse rule, to a few 1e-5 over the default priors (under 1e-4 over far wider ones): a
#: comparison of two classifiers takes its sign when the coarse difference exceeds
#: :data:`_COARSE_MARGIN`, at least 20 times the coarse rule's largest error measured over the
#: default priors and 10 times over the wider ones (``tests/test_probabilities.py``), and
#: computes both values by the fine rule otherwise.
_COARSE_LEVELS, _COARSE_NODES, _COARSE_WEIGHTS, _COARSE_LONGEST, _COARSE_REACH = _rule((3.0, 12.0), 4, 2.0, 5.5)
_COARSE_MARGIN = 1.5e-3


# --- kernels: the stated probability and its decisions ---------------------------------------------


@jit
def _log_odds(prevalence, mu, sigma):
    """``(A2, A1, A0)``: the exact log posterior odds ``l(s) = A2 s^2 + A1 s + A0``."""
    variance = sigma * sigma
    logit = math.log(prevalence) - math.log1p(-prevalence)
    return (sigma - 1.0) * (sigma + 1.0) / (2.0 * variance), mu / variance, logit - math.log(sigma) - mu * mu / (2.0 * variance)


@jit
def _between(low, high):
    """``Phi(high) - Phi(low)`` for ``low <= high``, from the nearer tails (no cancellation)."""
    if low > 0.0:
        return _normal_cdf(-low) - _normal_cdf(-high)
    return _normal_cdf(high) - _normal_cdf(low)


@jit
def _roots(p2, p1, p0):
    """The real roots ``(low, high)`` of ``p2 s^2 + p1 s + p0`` (``p2 != 0``), NaN if fewer
    than two; by the product of the roots, without cancellation (a root of a tiny ``p2`` runs
    off to +-inf)."""
    discriminant = p1 * p1 - 4.0 * p2 * p0
    if not (discriminant > 0.0):
        return math.nan, math.nan
    half = -0.5 * (p1 + math.copysign(math.sqrt(discriminant), p1))
    first, second = half / p2, p0 / half
    return min(first, second), max(first, second)


@jit
def _rates(p2, p1, p0, mu, sigma):
    """``(t, f)``: the probabilities that ``p2 s^2 + p1 s + p0 >= 0`` for ``s`` of class 0,
    N(mu, sigma^2), and of class 1, N(0, 1); exact, by normal CDFs at the roots."""
    if p2 == 0.0:
        if p1 == 0.0:
            constant = 1.0 if p0 >= 0.0 else 0.0
            return constant, constant
        root = -p0 / p1
        if p1 > 0.0:  # s >= root
            return _normal_cdf((mu - root) / sigma), _normal_cdf(-root)
        return _normal_cdf((root - mu) / sigma), _normal_cdf(root)
    low, high = _roots(p2, p1, p0)
    if math.isnan(low):  # no sign change (a double root is a single point)
        constant = 1.0 if p2 > 0.0 else 0.0
        return constant, constant
    low_0, high_0 = (low - mu) / sigma, (high - mu) / sigma
    if p2 > 0.0:  # outside the roots
        return _normal_cdf(low_0) + _normal_cdf(-high_0), _normal_cdf(low) + _normal_cdf(-high)
    return _between(low_0, high_0), _between(low, high)


@jit
def _decision_rates(u00, u01, u10, u11, prevalence, mu, sigma, slope, intercept):
    """``(t, f)`` of the decisions of maximal expected utility under ``U`` with the stated
    ``q`` (eq. 20): the probabilities of output 0 under class 0 and under class 1."""
    a2, a1, a0 = _log_odds(prevalence, mu, sigma)
    return _decision_rates_of(u00, u01, u10, u11, a2, a1, a0, mu, sigma, slope, intercept)


@jit
def _decision_rates_of(u00, u01, u10, u11, a2, a1, a0, mu, sigma, slope, intercept):
    """:func:`_decision_rates` with the log posterior odds' coefficients computed once."""
    d0, d1 = u00 - u10, u11 - u01
    total = d0 + d1
    if total == 0.0:
        always = 1.0 if d1 <= 0.0 else 0.0
        return always, always
    threshold = d1 / total
    if total > 0.0:  # output 0 iff q >= threshold, q in (0, 1)
        if threshold <= 0.0:
            return 1.0, 1.0
        if threshold >= 1.0:
            return 0.0, 0.0
        k = (math.log(d1 / d0) - intercept) / slope  # logit(threshold) = log(D1 / D0)
        return _rates(a2, a1, a0 - k, mu, sigma)
    if threshold >= 1.0:  # output 0 iff q <= threshold
        return 1.0, 1.0
    if threshold <= 0.0:
        return 0.0, 0.0
    k = (math.log(d1 / d0) - intercept) / slope
    return _rates(-a2, -a1, k - a0, mu, sigma)


@jit
def _yield(u00, u01, u10, u11, prevalence, t, f):
    """The utility yield of rates ``(t, f)``: one expression for every classifier."""
    return prevalence * (t * u00 + (1.0 - t) * u10) + (1.0 - prevalence) * (f * u01 + (1.0 - f) * u11)


# --- kernels: the scores --------------------------------------------------------------------------


@jit
def _positive_part(q2, q1, q0):
    """``E[max(q2 z^2 + q1 z + q0, 0)]`` for ``z ~ N(0, 1)``, exact (truncated moments)."""
    total = 0.0
    if q2 == 0.0:
        if q1 == 0.0:
            return max(q0, 0.0)
        root = -q0 / q1
        density = math.exp(-0.5 * root * root) / _SQRT_2PI
        # Over z >= root (q1 > 0): P = Phi(-root), E[z] = phi(root); mirrored for q1 < 0.
        mass = _normal_cdf(-root) if q1 > 0.0 else _normal_cdf(root)
        first = density if q1 > 0.0 else -density
        return q1 * first + q0 * mass
    low, high = _roots(q2, q1, q0)
    if math.isnan(low):
        if q2 > 0.0:  # positive everywhere: E[q]
            return q2 + q0
        return 0.0
    phi_low = math.exp(-0.5 * low * low) / _SQRT_2PI
    phi_high = math.exp(-0.5 * high * high) / _SQRT_2PI
    # x phi(x) is 0 at +-inf, where a root of a tiny q2 may sit.
    low_phi = low * phi_low if math.isfinite(low) else 0.0
    high_phi = high * phi_high if math.isfinite(high) else 0.0
    if q2 > 0.0:  # (-inf, low] and [high, inf)
        mass = _normal_cdf(low) + _normal_cdf(-high)
        first = -phi_low + phi_high
        second = mass - low_phi + high_phi
    else:  # [low, high]
        mass = _between(low, high)
        first = phi_low - phi_high
        second = mass + low_phi - high_phi
    total = q2 * second + q1 * first + q0 * mass
    return max(total, 0.0)


@jit
def _exact_parts(prevalence, mu, sigma, slope, intercept):
    """The parts of the Brier score and the log loss in closed form: with ``u = a l + c``,
    ``B P0(u < 0) + (1 - B) P1(u > 0)`` and ``B E0[max(-u, 0)] + (1 - B) E1[max(u, 0)]``."""
    a2, a1, a0 = _log_odds(prevalence, mu, sigma)
    t, f = _rates(slope * a2, slope * a1, slope * a0 + intercept, mu, sigma)
    brier = prevalence * (1.0 - t) + (1.0 - prevalence) * f
    # u under class 0 in z = (s - mu) / sigma: l = (sigma^2 - 1) z^2 / 2 + mu sigma z + mu^2 / 2 + logit B - log sigma.
    logit = math.log(prevalence) - math.log1p(-prevalence)
    c2, c1 = slope * 0.5 * (sigma - 1.0) * (sigma + 1.0), slope * mu * sigma
    c0 = slope * (0.5 * mu * mu + logit - math.log(sigma)) + intercept
    class_0 = _positive_part(-c2, -c1, -c0)
    class_1 = _positive_part(slope * a2, slope * a1, slope * a0 + intercept)
    return brier, prevalence * class_0 + (1.0 - prevalence) * class_1


@jit
def _remainders(prevalence, mu, sigma, slope, intercept, brier=True, log_loss=True):
    """:func:`_remainders_by` with the fine rule."""
    return _remainders_by(
        prevalence, mu, sigma, slope, intercept, _FINE_LEVELS, _FINE_NODES, _FINE_WEIGHTS, _FINE_LONGEST, _FINE_REACH, brier, log_loss
    )


@jit
def _coarse_remainders(prevalence, mu, sigma, slope, intercept, brier=True, log_loss=True):
    """:func:`_remainders_by` with the coarse rule."""
    return _remainders_by(
        prevalence,
        mu,
        sigma,
        slope,
        intercept,
        _COARSE_LEVELS,
        _COARSE_NODES,
        _COARSE_WEIGHTS,
        _COARSE_LONGEST,
        _COARSE_REACH,
        brier,
        log_loss,
    )


@jit(inline="always")
def _sorted_in_place(values, count):
    """``values[:count]`` sorted ascending, in place (by insertion: a few dozen values, where
    ``np.sort`` costs more than the quadrature's setup)."""
    for i in range(1, count):
        value = values[i]
        j = i - 1
        while j >= 0 and values[j] > value:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = value
    return values[:count]


@jit
def _remainders_by(prevalence, mu, sigma, slope, intercept, levels, nodes, weights, longest_panel, reach, want_brier, want_log_loss):
    """What the Brier score and the log loss add to :func:`_exact_parts`, by quadrature over
    the score ``s``: with ``u = a l(s) + c``, ``e = exp(-|u|)`` and ``p0``, ``p1`` the class
    densities weighted by ``B`` and ``1 - B``,

    - Brier: ``p0 R(u) + p1 R(-u)``, ``R(u) = logistic(-u)^2 - [u < 0]``;
    - log loss: ``(p0 + p1) log(1 + e)`` (``softplus(u) = max(u, 0) + log(1 + e)``).

    Both are smooth but for a jump at ``u = 0`` and decay like ``e``, over a width ``1 / |u'|``
    that may be small. The panels end at the roots of ``u = v`` for the levels ``v`` of
     ``levels`` (0 included), at the vertex of the quadratic and at most ``longest_panel``
    of the narrower sd apart, each with the Gauss-Legendre ``nodes`` and ``weights``, within
    ``reach`` sds of each density's mean; a panel where ``|u|`` exceeds the last level is left
    out (:func:`_rule`). One pass gives both, the score's logistic taken once a node; a loss
    not wanted (``want_brier``, ``want_log_loss`` false) is left at 0.0, the other unchanged.
    """
    a2, a1, a0 = _log_odds(prevalence, mu, sigma)
    p2, p1, p0 = slope * a2, slope * a1, slope * a0 + intercept
    low = min(-reach, mu - reach * sigma)
    high = max(reach, mu + reach * sigma)
    points = np.empty(2 * levels.size + 3)
    points[0], points[1] = low, high
    count = 2
    for level in levels:
        if p2 == 0.0:
            if p1 != 0.0:
                root = (level - p0) / p1
                if low < root < high:
                    points[count] = root
                    count += 1
            continue
        first, second = _roots(p2, p1, p0 - level)
        if low < first < high:
            points[count] = first
            count += 1
        if low < second < high:
            points[count] = second
            count += 1
    if p2 != 0.0:
        vertex = -p1 / (2.0 * p2)
        if low < vertex < high:
            points[count] = vertex
            count += 1
    edges = _sorted_in_place(points, count)
    longest = longest_panel * min(1.0, sigma)
    cutoff = abs(levels[-1])
    weight_0 = prevalence / (sigma * _SQRT_2PI)
    weight_1 = (1.0 - prevalence) / _SQRT_2PI
    brier, log_loss = 0.0, 0.0
    for k in range(count - 1):
        start, stop = edges[k], edges[k + 1]
        middle = 0.5 * (start + stop)
        if not (stop > start) or abs((p2 * middle + p1) * middle + p0) > cutoff:
            continue
        pieces = int(math.ceil((stop - start) / longest))
        width = (stop - start) / pieces
        for piece in range(pieces):
            centre = start + (piece + 0.5) * width
            for j in range(nodes.size):
                s = centre + 0.5 * width * nodes[j]
                w = 0.5 * width * weights[j]
                u = (p2 * s + p1) * s + p0
                z = (s - mu) / sigma
                density_0 = weight_0 * math.exp(-0.5 * z * z)
                density_1 = weight_1 * math.exp(-0.5 * s * s)
                e = math.exp(-abs(u))
                if want_brier:
                    small, large = e / (1.0 + e), 1.0 / (1.0 + e)  # logistic(-|u|), logistic(|u|)
                    if u >= 0.0:
                        brier += w * (density_0 * small * small - density_1 * small * (1.0 + large))
                    else:
                        brier += w * (density_1 * small * small - density_0 * small * (1.0 + large))
                if want_log_loss:
                    log_loss += w * (density_0 + density_1) * math.log1p(e)
    return brier, log_loss


@jit
def _brier(prevalence, mu, sigma, slope, intercept):
    """The Brier score ``B E0[(1 - q)^2] + (1 - B) E1[q^2]`` (lower is better)."""
    return _exact_parts(prevalence, mu, sigma, slope, intercept)[0] + _remainders(prevalence, mu, sigma, slope, intercept)[0]


@jit
def _log_loss(prevalence, mu, sigma, slope, intercept):
    """The log loss ``-B E0[log q] - (1 - B) E1[log(1 - q)]`` (lower is better)."""
    return _exact_parts(prevalence, mu, sigma, slope, intercept)[1] + _remainders(prevalence, mu, sigma, slope, intercept)[1]


@jit
def _loss_differences(want_brier, want_log_loss, prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2):
    """Numbers with the signs of the Brier score and of the log loss of the first classifier
    minus those of the second (positive: the second is better), as :func:`_brier` and
    :func:`_log_loss` compute them: the coarse rule's difference when it exceeds
    :data:`_COARSE_MARGIN`, else the difference of the two values by the fine rule. One coarse
    pass per classifier gives both losses, and one fine pass the undecided ones; a loss not
    wanted is not integrated and its number is NaN."""
    exact_1 = _exact_parts(prevalence, mu_1, sigma_1, slope_1, intercept_1)
    exact_2 = _exact_parts(prevalence, mu_2, sigma_2, slope_2, intercept_2)
    coarse_1 = _coarse_remainders(prevalence, mu_1, sigma_1, slope_1, intercept_1, want_brier, want_log_loss)
    coarse_2 = _coarse_remainders(prevalence, mu_2, sigma_2, slope_2, intercept_2, want_brier, want_log_loss)
    brier = (exact_1[0] + coarse_1[0]) - (exact_2[0] + coarse_2[0]) if want_brier else math.nan
    log_loss = (exact_1[1] + coarse_1[1]) - (exact_2[1] + coarse_2[1]) if want_log_loss else math.nan
    fine_brier, fine_log_loss = want_brier and not (abs(brier) > _COARSE_MARGIN), want_log_loss and not (abs(log_loss) > _COARSE_MARGIN)
    if fine_brier or fine_log_loss:
        fine_1 = _remainders(prevalence, mu_1, sigma_1, slope_1, intercept_1, fine_brier, fine_log_loss)
        fine_2 = _remainders(prevalence, mu_2, sigma_2, slope_2, intercept_2, fine_brier, fine_log_loss)
        if fine_brier:
            brier = (exact_1[0] + fine_1[0]) - (exact_2[0] + fine_2[0])
        if fine_log_loss:
            log_loss = (exact_1[1] + fine_1[1]) - (exact_2[1] + fine_2[1])
    return brier, log_loss


@jit
def _loss_compare(which, prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2):
    """:func:`_loss_differences` of loss ``which`` alone (0 Brier, 1 log loss)."""
    differences = _loss_differences(
        which == 0, which == 1, prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2
    )
    return differences[which]


@jit
def _brier_compare(prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2):
    """:func:`_loss_compare` of the Brier score."""
    return _loss_compare(0, prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2)


@jit
def _log_loss_compare(prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2):
    """:func:`_loss_compare` of the log loss."""
    return _loss_compare(1, prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2)


@jit
def _accuracy(prevalence, mu, sigma, slope, intercept):
    """The accuracy ``B t + (1 - B)(1 - f)`` of the decisions ``q >= 1/2``."""
    t, f = _decision_rates(1.0, 0.0, 0.0, 1.0, prevalence, mu, sigma, slope, intercept)
    return prevalence * t + (1.0 - prevalence) * (1.0 - f)


# --- the registry of scores ---------------------------------------------------------------------


@dataclass(frozen=True)
class ProbabilityScore:
    """One score of a probabilistic classifier.

    Attributes
    ----------
    id : str
        Stable identifier, used in study configurations and results files.
    name : str
        Display name.
    code : int
        Position in :data:`PROBABILITY_SCORES`: how the numba kernels name it.
    score : numba function
        ``score(prevalence, mu, sigma, slope, intercept) -> float``: the score of the binormal
        classifier ``(mu, sigma)`` stating ``q = logistic(slope l + intercept)`` on a population
        with class-0 fraction ``prevalence``.
    doc : str
        What it is, in a sentence.
    lower_is_better : bool
        Whether a lower score is better (a loss): the comparisons generated from the registry
        (:func:`_probability_compare`) negate its difference.
    compare : numba function or None
        ``compare(prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2,
        intercept_2) -> float``: a number with the sign (0 and NaN included) of the oriented
        difference, positive when the second classifier is better, when it can be found with
        less work than the two scores; None: that difference.
    """

    id: str
    name: str
    code: int
    score: Callable = field(repr=False, compare=False)
    doc: str = ""
    lower_is_better: bool = False
    compare: Callable | None = field(default=None, repr=False, compare=False)

    def __call__(self, prevalence, mu, sigma, slope=1.0, intercept=0.0):
        """The score of probabilistic classifiers, broadcast over the five arguments."""
        shape, flat = _flat(_check_classifiers(prevalence, mu, sigma, slope, intercept))
        out = np.empty(flat[0].size)
        _score_many(self.code, *flat, out)
        return _shaped(out, shape)


#: Every score of a probabilistic classifier by id, in the order registered (its code).
PROBABILITY_SCORES: Registry = Registry("probability score", key="id")


def register(id: str, name: str, score, doc: str, *, lower_is_better: bool = False, compare=None) -> ProbabilityScore:
    """Add a score; its code is its position (see :class:`ProbabilityScore`).

    Its definition goes in this module, beside the others: the kernels' switches are generated
    when it is imported, which seals the registry, and a RuntimeError says so afterwards.
    """
    return PROBABILITY_SCORES.add(ProbabilityScore(id, name, len(PROBABILITY_SCORES), score, doc, lower_is_better, compare))


register("brier", "Brier score", _brier, "B E0[(1 - q)^2] + (1 - B) E1[q^2], the mean squared error of the stated probability; lower is better.",
         lower_is_better=True, compare=_brier_compare)  # fmt: skip
register("log_loss", "Log loss", _log_loss, "-B E0[log q] - (1 - B) E1[log(1 - q)], the mean negative log-likelihood; lower is better.",
         lower_is_better=True, compare=_log_loss_compare)  # fmt: skip
register("accuracy", "Accuracy (q >= 1/2)", _accuracy, "B t + (1 - B)(1 - f) of the decisions q >= 1/2, the usual argmax.")

PROBABILITY_SCORES.builtins_registered()

#: The scores of the probabilistic-classifier study (``docs/method.md``).
DEFAULT_PROBABILITY_SCORES: tuple[str, ...] = ("brier", "log_loss", "accuracy")


def get_probability_score(id: str) -> ProbabilityScore:
    """Look up a score of a probabilistic classifier by id.

    Raises
    ------
    KeyError
        With the list of known ids, if ``id`` is unknown.
    """
    return PROBABILITY_SCORES.lookup(id, "scores")


def _dispatch(name: str, arguments: str, call, doc: str):
    """:func:`mcrank._axes.generate_switch` over :data:`PROBABILITY_SCORES`, as if written here."""
    return generate_switch(PROBABILITY_SCORES, name, arguments, call, __name__, doc)


_FIRST, _SECOND = "prevalence, mu_1, sigma_1, slope_1, intercept_1", "prevalence, mu_2, sigma_2, slope_2, intercept_2"

_probability_score = _dispatch(
    "_probability_score",
    "prevalence, mu, sigma, slope, intercept",
    lambda entry: f"f{entry.code}(prevalence, mu, sigma, slope, intercept)",
    """Score number ``code`` of :data:`PROBABILITY_SCORES` of one classifier; NaN for an unknown code.""",
)

_probability_compare = _dispatch(
    "_probability_compare",
    "prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2",
    lambda entry: (
        f"c{entry.code}(prevalence, {_FIRST[12:]}, {_SECOND[12:]})"
        if entry.compare is not None
        else f"f{entry.code}({_FIRST}) - f{entry.code}({_SECOND})"
        if entry.lower_is_better
        else f"f{entry.code}({_SECOND}) - f{entry.code}({_FIRST})"
    ),
    """A number positive when score number ``code`` ranks the second classifier better than the
    first (:attr:`ProbabilityScore.lower_is_better` negates the difference); NaN for an unknown code.""",
)
PROBABILITY_SCORES.seal(__name__, "define it in mcrank/probabilities.py, beside the others")

_BRIER, _LOG_LOSS = PROBABILITY_SCORES["brier"].code, PROBABILITY_SCORES["log_loss"].code


@jit
def _probability_compares(codes, prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2, out):
    """``out[k] = _probability_compare(codes[k], ...)`` for every ``k``, the Brier score's and the
    log loss's from one :func:`_loss_differences` (their quadratures shared, and skipped for a
    loss not in ``codes``)."""
    want_brier, want_log_loss = False, False
    for code in codes:
        want_brier |= code == _BRIER
        want_log_loss |= code == _LOG_LOSS
    brier, log_loss = math.nan, math.nan
    if want_brier or want_log_loss:
        brier, log_loss = _loss_differences(
            want_brier, want_log_loss, prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2
        )
    for k in range(codes.size):
        if codes[k] == _BRIER:
            out[k] = brier
        elif codes[k] == _LOG_LOSS:
            out[k] = log_loss
        else:
            out[k] = _probability_compare(codes[k], prevalence, mu_1, sigma_1, slope_1, intercept_1, mu_2, sigma_2, slope_2, intercept_2)


# --- loops over arrays, for the public functions -----------------------------------------------


@jit
def _score_many(code, prevalence, mu, sigma, slope, intercept, out):
    for i in range(out.size):
        out[i] = _probability_score(code, prevalence[i], mu[i], sigma[i], slope[i], intercept[i])


@jit
def _decision_rates_many(u00, u01, u10, u11, prevalence, mu, sigma, slope, intercept, tpr, fpr):
    for i in range(tpr.size):
        tpr[i], fpr[i] = _decision_rates(u00[i], u01[i], u10[i], u11[i], prevalence[i], mu[i], sigma[i], slope[i], intercept[i])


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


def _shaped(out: np.ndarray, shape):
    out = out.reshape(shape)
    return float(out) if out.ndim == 0 else out


def _check_classifiers(prevalence, mu, sigma, slope, intercept):
    """``prevalence`` in (0, 1), ``mu`` and ``intercept`` finite, ``sigma`` and ``slope`` positive."""
    prevalence = _finite(prevalence, "prevalence")
    if np.any((prevalence <= 0) | (prevalence >= 1)):
        raise ValueError("prevalence must lie in (0, 1)")
    mu, intercept = _finite(mu, "mu"), _finite(intercept, "intercept")
    sigma, slope = _finite(sigma, "sigma"), _finite(slope, "slope")
    if np.any(sigma <= 0):
        raise ValueError("sigma must be positive")
    if np.any(slope <= 0):
        raise ValueError("slope must be positive")
    return prevalence, mu, sigma, slope, intercept


def stated_probability(score, prevalence, mu, sigma, slope=1.0, intercept=0.0):
    r"""The probability of class 0 that the classifier states for a score ``s``.

    .. math:: q(s) = \operatorname{logistic}\bigl(a\,l(s) + c\bigr), \quad
              l(s) = \operatorname{logit} B + \log N(s; \mu, \sigma^2) - \log N(s; 0, 1)

    Parameters
    ----------
    score : array_like
        Scores ``s``.
    prevalence : array_like
        ``B``, the fraction of class 0, in (0, 1).
    mu, sigma : array_like
        The class-0 scores' mean and sd (class-1 scores are N(0, 1)); ``sigma`` positive.
    slope, intercept : array_like
        The calibration slope ``a`` (positive) and intercept ``c``; 1 and 0 state the exact
        posterior probability.

    Returns
    -------
    float or ndarray
        Broadcast over the arguments.
    """
    score = _finite(score, "score")
    prevalence, mu, sigma, slope, intercept = _check_classifiers(prevalence, mu, sigma, slope, intercept)
    log_odds = np.log(prevalence) - np.log1p(-prevalence) - np.log(sigma) - 0.5 * ((score - mu) / sigma) ** 2 + 0.5 * score**2
    u = slope * log_odds + intercept
    small = np.exp(-np.abs(u))  # the logistic from the side where it cannot overflow
    value = np.where(u >= 0, 1.0 / (1.0 + small), small / (1.0 + small))
    return float(value) if np.ndim(value) == 0 else value


def decision_rates(utility, prevalence, mu, sigma, slope=1.0, intercept=0.0):
    """The rates of the decisions of maximal expected utility with the stated probability (eq. 20).

    Output 0 where ``q U00 + (1 - q) U01 >= q U10 + (1 - q) U11``: a quadratic inequality in the
    score, whose probabilities under each class are exact sums of normal CDFs at its roots.

    Parameters
    ----------
    utility : array_like of shape (..., 2, 2)
        Utility matrices, rows = output, columns = true class, class 0 positive; any finite values.
    prevalence, mu, sigma, slope, intercept : array_like
        As in :func:`stated_probability`.

    Returns
    -------
    tpr, fpr : float or ndarray
        The probabilities of output 0 under class 0 and under class 1, broadcast over
        ``utility``'s leading dimensions and the other arguments.
    """
    u = _finite(utility, "utility")
    if u.ndim < 2 or u.shape[-2:] != (2, 2):
        raise ValueError(f"utility must be a 2x2 matrix or a stack of them, got shape {u.shape}")
    checked = _check_classifiers(prevalence, mu, sigma, slope, intercept)
    shape, flat = _flat((u[..., 0, 0], u[..., 0, 1], u[..., 1, 0], u[..., 1, 1], *checked))
    tpr, fpr = np.empty(flat[0].size), np.empty(flat[0].size)
    _decision_rates_many(*flat, tpr, fpr)
    return _shaped(tpr, shape), _shaped(fpr, shape)
