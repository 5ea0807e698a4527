"""Argument checks shared by every public function, and the limits they enforce.

Each check raises ValueError naming the argument (the library's parameter, never a command
line flag: the command line names its flags itself). The command line turns a ValueError into
one line on stderr and exit code 2, so every message here says what was wrong and with which
argument. The limits on sizes and sample counts live here too, one home for each.
"""

from __future__ import annotations

import math
import numbers
import re
import sys

import numpy as np

__all__ = [
    "MAX_EVALUATE_MODELS",
    "MAX_EVALUATE_SAMPLES",
    "MAX_EXPERIMENT_BYTES",
    "MAX_INPUT_BYTES",
    "MAX_STUDY_SAMPLES",
    "as_float",
    "check_beta_parameters",
    "check_choice",
    "check_name",
    "check_real",
    "check_count",
    "check_model_count",
    "check_positive",
    "check_range",
    "check_sd",
    "check_square",
    "check_zero_division",
]

# --- limits ---------------------------------------------------------------------------------

#: Largest number of pairs of a study (``samples`` of :class:`mcrank.study.StudyConfig`): the
#: engine streams them in chunks, so memory stays flat and time is the only bound; the counts
#: are int64, and 10^12 pairs are days of work.
MAX_STUDY_SAMPLES = 10**12
#: Largest number of Monte Carlo draws of ``mcrank evaluate`` (perturbed utility matrices, or
#: posterior draws of the test set): minutes of work for a few classifiers and a standard error
#: below 2e-5; more is a typo, not a wish. Smaller than the study's, because evaluate keeps its
#: posterior draws of every classifier's yield for the intervals.
MAX_EVALUATE_SAMPLES = 10**9
#: Largest number of models in one evaluation (classifiers of ``mcrank evaluate``): its pairs,
#: 12.5 million at 5000, are each a record of the result and a row of its JSON, and with the
#: test-set uncertainty each has its own posterior; past it, compare the models in groups.
MAX_EVALUATE_MODELS = 5000
#: Largest input file of ``mcrank evaluate`` (confusion matrices, labels, scores, a utility
#: matrix), in bytes: 64 MiB, a long-form CSV of three classifiers on 1000 classes.
MAX_INPUT_BYTES = 64 << 20
#: Largest experiment file, in bytes (a study needs a few hundred bytes of TOML).
MAX_EXPERIMENT_BYTES = 1 << 20


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


def check_sd(value, what: str = "sd", *, maximum: float = math.inf) -> float:
    """A standard deviation: a finite number from 0 to ``maximum``."""
    number = as_float(value, what)
    if number < 0:
        raise ValueError(f"{what} must be non-negative, got {value!r}")
    if number > maximum:
        raise ValueError(f"{what} must be at most {maximum:g}, got {value!r}")
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
    elif isinstance(value, str):
        # In decimal, not through a float: "12345678901234567891" is that seed, not the nearest
        # double (...7168), and 2**128 - 1 is within a seed's range.
        import decimal  # here: only a count given as text reads it, and the import costs every start-up

        try:
            number = decimal.Decimal(value.strip())
        except decimal.InvalidOperation:
            raise ValueError(f"{what} must be a whole number such as 1e6, got {value!r}") from None
        if not (number.is_finite() and number == number.to_integral_value()):
            raise ValueError(f"{what} must be a whole number, got {value!r}")
        if number.adjusted() > len(str(maximum)):  # 1e999999999 is not turned into an int
            raise ValueError(f"{what} must be a whole number from {minimum:,} to {maximum:,}, got {value!r}")
        count = int(number)
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


def check_model_count(models, what: str) -> None:
    """Refuse more than :data:`MAX_EVALUATE_MODELS` models in ``models`` (a mapping of them;
    anything else is its own check's)."""
    if hasattr(models, "keys") and len(models) > MAX_EVALUATE_MODELS:
        raise ValueError(f"{what}: {len(models):,} models, above the {MAX_EVALUATE_MODELS:,} of one evaluation (its pairs grow as their "
                         "square): compare them in groups, or the best of each group")  # fmt: skip


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


# --- inputs read from files or given in Python (mcrank.evaluate) ----------------------------

# Refused in names, which are printed one per line: control characters (Unicode category
# Cc), line and paragraph separators, lone surrogates.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def check_real(value, where: str, *cell: int):
    """``value`` if it is a number a float can hold, else a ValueError naming ``where`` (and the cell)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        # Not the repr of a list: one nested thousands of levels deep would exhaust the stack.
        problem = f"{value!r} is not a number" if isinstance(value, (str, type(None))) else f"a {type(value).__name__} is not a number"
    elif isinstance(value, numbers.Integral) and abs(value) > sys.float_info.max:  # JSON allows any number of digits
        problem = "a number too large for a floating-point number"
    else:
        return value
    raise ValueError(f"{where}, row {cell[0]}, column {cell[1]}: {problem}" if cell else f"{where}: {problem}")


def check_square(value, where: str) -> np.ndarray:
    """A square float matrix from an array or nested lists, with the place of the first fault."""
    numeric = isinstance(value, np.ndarray) and value.dtype.kind in "iuf" and value.ndim == 2
    rows = value.tolist() if isinstance(value, np.ndarray) and not numeric else value
    if not isinstance(rows, (list, tuple, np.ndarray)) or len(rows) == 0:
        raise ValueError(f"{where}: expected a square matrix (a list of rows)")
    for i, row in enumerate(rows):
        if not isinstance(row, (list, tuple, np.ndarray)):
            raise ValueError(f"{where}: not square: row {i} is not a list")
        if len(row) != len(rows):
            raise ValueError(f"{where}: not square: {len(rows)} rows but row {i} has {len(row)} entries")
    try:
        if numeric or all(set(map(type, row)) <= {int, float} for row in rows):  # the usual case, fast
            return np.array(rows, dtype=float)
    except OverflowError:  # an integer past 1.8e308, found below
        pass
    for i, row in enumerate(rows):  # the first entry that is not a number, by its place
        for j, v in enumerate(row):
            check_real(v, where, i, j)
    return np.array(rows, dtype=float)


def check_name(name, what: str, where: str) -> None:
    """A name to print (a classifier, a class, a column): a string, not blank, with no control
    character, line separator or lone surrogate; ``where`` prefixes the message if not empty."""
    at = f"{where}: " if where else ""
    if not isinstance(name, str):
        raise ValueError(f"{at}{what} name {name!r} is not a string")
    if not name.strip():
        raise ValueError(f"{at}a {what} name is empty ({name!r})")
    if bad := _CONTROL.search(name):
        raise ValueError(f"{at}{what} name {name!r} contains the control character {bad[0]!r}: names are printed one per line")
