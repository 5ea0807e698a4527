"""Steps 5-6 of the procedure: whether a pair of classifiers is ranked correctly (``docs/method.md``, "The Monte Carlo study").

A pair is ranked correctly by a metric (or a perturbed utility matrix) only if ``d_true`` and
its difference ``d`` are both > 0 or both < 0: a tie (either difference 0) or a NaN (an
undefined score) counts as incorrect. The rule is written once, here, as the jitted
:func:`_ranked_correctly` that every kernel inlines; :func:`ranked_correctly` applies it to
arrays, for the figures and the tests. The mathematics' layer: it knows nothing of sampling.
"""

from __future__ import annotations

import numpy as np

from mcrank._jit import jit

__all__ = ["ranked_correctly"]


@jit(inline="always")
def _ranked_correctly(direction, d):
    """Step 6, given ``direction = np.sign(d_true)``: whether ``d_true`` and ``d`` are both
    > 0 or both < 0. Ties (either difference 0) and NaN count as incorrect.

    The kernels take the sign of ``d_true`` once per pair and compare it with the difference
    of every metric and every sd: one multiplication and one comparison each. Multiplying
    by -1, 0 or 1 is exact, so no product underflows to a false tie. Works on numpy arrays
    too, as ``_ranked_correctly.py_func``.
    """
    return direction * d > 0.0


#: Two values of a metric that is not exact (a user's, :attr:`mcrank.metrics.Metric.exact`)
#: tie when they differ by at most this fraction of the larger magnitude, or of 1 when both
#: are smaller: 64 units in the last place, room for the rounding of a short formula, and a
#: seventieth of 1 / N, the smallest difference of two fractions of a test set of N = 10^12 items.
ROUNDING_TIE = 2.0**-46


@jit(inline="always")
def _beyond_rounding(a, b):
    """``a - b``, or 0 where ``a`` and ``b`` differ by rounding only (:data:`ROUNDING_TIE`):
    two equal values of a user's function of the rates, computed by different roundings,
    tie as the library's own metric's do. NaN stays NaN."""
    d = a - b
    if abs(d) <= ROUNDING_TIE * max(abs(a), abs(b), 1.0):
        return 0.0
    return d


@jit(inline="always")
def _tied(d):
    """A difference that ranks neither way: 0, or NaN (an undefined score). Counted apart
    on finite test sets; every tie is also incorrect by :func:`_ranked_correctly`."""
    return not (d > 0.0 or d < 0.0)


def ranked_correctly(d_true, d) -> np.ndarray:
    """Whether pairs are ranked correctly (step 6): ``d_true`` and ``d`` both > 0 or both < 0.

    Ties and NaN count as incorrect. Elementwise on arrays (broadcast together).
    """
    with np.errstate(invalid="ignore"):  # 0 * inf: NaN, a tie, incorrect
        return _ranked_correctly.py_func(np.sign(np.asarray(d_true)), np.asarray(d))
