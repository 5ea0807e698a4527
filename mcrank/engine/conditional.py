"""The conditional estimator under gaussian errors (``docs/method.md``, "The conditional estimator").

Given a pair's base sample, the perturbed yield difference under ``gaussian`` errors of sd
``s`` is ``d_s = d + s * spread * Z``: ``d`` the difference on the confusion matrices scored
(population or observed), ``spread = ||C2 - C1||_F`` and ``Z`` standard normal. So the pair is
ranked incorrectly with probability

    P(incorrect | base) = P(Z > direction * d / (s * spread)),    direction = sign(d_true),

1 where ``d_true = 0``, and the 0/1 indicator of step 6 where ``s * spread = 0``. Averaging
these probabilities estimates the same percentage as drawing ``Z``, with a smaller variance
and no variate drawn.

The kernels evaluate the normal tail a block of pairs at a time with :func:`_normal_sf`, a
rational approximation that the compiler vectorises (numba's ``math.erfc`` is a scalar
library call, which would eat most of the gain: ``docs/performance.md``, "Notes behind the
code"), and add the probabilities with
:func:`_sum_and_squares`.

Where the probabilities are printed rather than averaged (``mcrank evaluate``'s flip
probabilities under gaussian errors), :func:`incorrect_probability` gives the same
probability exactly, with the exact tail :func:`normal_sf_exact` (``math.erfc``). The kernels
keep the approximate tail: their averages of 10^6 probabilities need no more, and their counts
must not move.
"""

from __future__ import annotations

import math

import numpy as np

from mcrank._jit import jit

__all__ = ["NORMAL_SF_ERROR", "incorrect_probability", "normal_sf_exact"]

#: Largest absolute error of :func:`_normal_sf` (Abramowitz & Stegun 7.1.28 guarantee 3e-7 on
#: erfc, so 1.5e-7 on the tail; measured against scipy.special.ndtr: 1.3e-7).
NORMAL_SF_ERROR = 1.5e-7


@jit(inline="always")
def _normal_sf(z):
    """P(Z > z) for a standard normal Z, within :data:`NORMAL_SF_ERROR`.

    ``erfc(w) = 1 / (1 + a1 w + ... + a6 w^6)^16`` (Abramowitz & Stegun 7.1.28, w >= 0):
    multiplications, one division and four squarings, no branch but a select, so that a loop
    over it vectorises. +inf gives 0, -inf 1; NaN gives NaN.
    """
    w = abs(z) * 0.7071067811865476
    q = 1.0 + w * (0.0705230784 + w * (0.0422820123 + w * (0.0092705272 + w * (0.0001520143 + w * (0.0002765672 + w * 0.0000430638)))))
    q2 = q * q
    q4 = q2 * q2
    q8 = q4 * q4
    tail = 0.5 / (q8 * q8)
    return tail if z >= 0.0 else 1.0 - tail


def normal_sf_exact(z) -> np.ndarray:
    """P(Z > z) for a standard normal Z, to double precision: ``erfc(z / sqrt(2)) / 2``.

    The exact twin of :func:`_normal_sf`, for probabilities that are printed. ``math.erfc``
    element by element: NumPy has no erfc, and numba's is the same scalar call. +inf gives 0,
    -inf 1, NaN NaN.

    Parameters
    ----------
    z : array_like of float

    Returns
    -------
    ndarray of float, the shape of ``z``
    """
    z = np.asarray(z, dtype=float)
    root2 = math.sqrt(2)
    return np.array([0.5 * math.erfc(v / root2) for v in z.ravel().tolist()], dtype=float).reshape(z.shape)


def incorrect_probability(margin, spread, s) -> np.ndarray:
    """The probability that gaussian errors of sd ``s`` rank a pair incorrectly, exactly:
    ``P(Z > margin / (s * spread)) = Phi(-margin / (s ||C2 - C1||_F))`` (the module docstring).

    Parameters
    ----------
    margin : array_like of float
        ``direction * d``: the pair's yield difference on the normalised matrix (eq. 11), signed
        so that a positive margin means ranked correctly.
    spread : array_like of float
        ``||C2 - C1||_F``, the confusion matrices as frequencies.
    s : float
        The error sd, on the normalised matrix.

    Returns
    -------
    ndarray of float
        Where ``s * spread`` is 0, step 6's indicator: 0 for a positive margin, else 1 (a tie
        is ranked incorrectly). ``margin / s / spread`` is divided in turn, not by the product,
        which overflows for sds near 1e308; the kernels' :func:`_incorrect_probabilities`
        computes the same with the approximate tail.
    """
    margin, spread = np.broadcast_arrays(np.asarray(margin, dtype=float), np.asarray(spread, dtype=float))
    scaled = (spread > 0) & (s > 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        z = np.where(scaled, margin / s / spread, 0.0)
    return np.where(scaled, normal_sf_exact(z), np.where(margin > 0, 0.0, 1.0))


@jit
def _normal_sf_into(z, out):
    """:func:`_normal_sf` of every element of ``z`` into ``out`` (for tests and figures)."""
    for i in range(z.size):
        out[i] = _normal_sf(z[i])


@jit
def _incorrect_probabilities(direction, d, spread, s, m, out):
    """For the first ``m`` pairs of a block: the probability that gaussian errors of sd ``s``
    rank each incorrectly, into ``out`` (see the module docstring)."""
    for i in range(m):
        margin = direction[i] * d[i]
        scale = s * spread[i]
        # A zero scale gives z = +-inf or NaN; the select then takes step 6's indicator.
        p = _normal_sf(margin / scale)
        out[i] = p if scale > 0.0 and direction[i] != 0.0 else (0.0 if margin > 0.0 else 1.0)


@jit
def _sum_and_squares(values, m):
    """The sum of the first ``m`` values and of their squares, in four running sums each:
    one chain of additions would wait on each addition in turn."""
    s0 = s1 = s2 = s3 = 0.0
    q0 = q1 = q2 = q3 = 0.0
    last = m - m % 4
    for i in range(0, last, 4):
        a, b, c, e = values[i], values[i + 1], values[i + 2], values[i + 3]
        s0 += a
        s1 += b
        s2 += c
        s3 += e
        q0 += a * a
        q1 += b * b
        q2 += c * c
        q3 += e * e
    for i in range(last, m):
        s0 += values[i]
        q0 += values[i] * values[i]
    return (s0 + s1) + (s2 + s3), (q0 + q1) + (q2 + q3)
