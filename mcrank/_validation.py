"""Argument checks shared by every public function: each raises ValueError naming the argument.

The command line turns a ValueError into one line on stderr and exit code 2, so every
message here says what was wrong and with which argument.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "as_float",
    "check_beta_parameters",
    "check_choice",
    "check_count",
    "check_positive",
    "check_range",
    "check_sd",
    "check_zero_division",
]


def as_float(value, what: str) -> float:
    """``value`` as a finite float; booleans and non-numbers are refused."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number, got {value!r}") from None
    except OverflowError:  # an integer such as 10**400
        raise ValueError(f"{what} must be finite, got a number too large for a floating-point number") from None
    if not math.isfinite(number):
        raise ValueError(f"{what} must be finite, got {value!r}")
    return number


def check_sd(value, what: str = "sd") -> float:
    """A standard deviation: a finite number >= 0."""
    number = as_float(value, what)
    if number < 0:
        raise ValueError(f"{what} must be non-negative, got {value!r}")
    return number


def check_positive(value, what: str) -> float:
    """A finite number > 0."""
    number = as_float(value, what)
    if number <= 0:
        raise ValueError(f"{what} must be positive, got {value!r}")
    return number


def check_count(value, what: str, *, minimum: int = 1, maximum: int = 10**12) -> int:
    """A whole number in ``[minimum, maximum]``; accepts ``"1e6"`` and ``1e6`` as well as ``10**6``."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    if isinstance(value, (int, np.integer)):
        count = int(value)
    else:
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{what} must be a whole number such as 1e6, got {value!r}") from None
        if not (math.isfinite(number) and number.is_integer()):
            raise ValueError(f"{what} must be a whole number, got {value!r}")
        count = int(number)
    if not minimum <= count <= maximum:
        raise ValueError(f"{what} must be a whole number from {minimum:,} to {maximum:,}, got {value!r}")
    return count


def check_zero_division(value, what: str = "zero_division") -> float:
    """The value of an undefined (0/0) score: 0, 1 or NaN, scikit-learn's choices.

    scikit-learn's fourth, ``"warn"``, is refused: mcrank does not warn, it returns NaN.
    """
    if not isinstance(value, (bool, np.bool_, str, bytes)):
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = None
        if number is not None and (math.isnan(number) or number in (0.0, 1.0)):
            return number
    raise ValueError(f"{what} must be 0, 1 or NaN (as in scikit-learn), got {value!r}")


def check_choice(value, choices, what: str):
    """The value of ``choices[value]`` (a dict) or ``value`` (a sequence), or a ValueError naming the options."""
    if isinstance(value, str) and value in choices:
        return choices[value] if isinstance(choices, dict) else value
    raise ValueError(f"unknown {what} {value!r}; choose from {', '.join(choices)}")


def _check_pair(value, what: str) -> tuple[float, float]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray)) or len(value) != 2:
        raise ValueError(f"{what} must be a pair of numbers, got {value!r}")
    return as_float(value[0], what), as_float(value[1], what)


def check_range(value, what: str, *, lower: float = 0.0, upper: float = 1.0) -> tuple[float, float]:
    """A pair ``(low, high)`` with ``lower <= low < high <= upper``."""
    low, high = _check_pair(value, what)
    if not lower <= low < high <= upper:
        raise ValueError(f"{what} must satisfy {lower:g} <= low < high <= {upper:g}, got ({low:g}, {high:g})")
    return low, high


#: Smallest sum of two Beta parameters that are both at most 1: see :func:`check_beta_parameters`.
MIN_SMALL_BETA_SUM = 1e-3
#: Largest Beta parameter of the rates: see :func:`check_beta_parameters`.
MAX_BETA_PARAMETER = 1e12


def check_beta_parameters(value, what: str) -> tuple[float, float]:
    """A pair ``(alpha, beta)`` of positive Beta parameters the samplers can draw from.

    When both are at most 1, numba's Beta sampler (Johnk's algorithm) draws ``U**(1/alpha)``
    and ``V**(1/beta)`` and rejects the round when both underflow to 0, which they do with
    probability ``exp(-744 (alpha + beta))``: the loop never ends for tiny parameters, and
    cannot be interrupted. Their sum must therefore be at least
    :data:`MIN_SMALL_BETA_SUM` (0.001: under half the rounds lost). A Beta at that bound already
    puts more than 99.7 % of its mass within 0.01 of 0 or 1.

    Each parameter must also be at most :data:`MAX_BETA_PARAMETER` (1e12). Larger ones
    concentrate the rates ever more tightly (their sd is below 1e-6 there), until every draw
    rounds to the same float (near 1e30 for Beta(a, a); near 1e16 for Beta(a, 1), drawn as
    ``U**(1/a)``): every pair of classifiers would then tie, and count as misranked by every
    metric, a result of the rounding, not of the metrics.
    """
    alpha, beta = _check_pair(value, what)
    if alpha <= 0 or beta <= 0:
        raise ValueError(f"{what}: Beta parameters must be positive, got ({alpha:g}, {beta:g})")
    if max(alpha, beta) > MAX_BETA_PARAMETER:
        raise ValueError(
            f"{what}: Beta parameters must be at most {MAX_BETA_PARAMETER:g}, got ({alpha:g}, {beta:g}): "
            "beyond that the rates of a pair agree to within rounding, every pair ties, and ties count as misranked"
        )
    if alpha <= 1 and beta <= 1 and alpha + beta < MIN_SMALL_BETA_SUM:
        raise ValueError(
            f"{what}: Beta parameters both at most 1 must sum to at least {MIN_SMALL_BETA_SUM:g}, got ({alpha:g}, {beta:g}): "
            "below that the Beta sampler loses most of its draws to underflow (a fraction exp(-744 (alpha + beta))) "
            "and can run for ever, while at that sum over 99.7 % of the rates already lie within 1 % of the ends of their range"
        )
    return alpha, beta
