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
    "MAX_KEPT_DRAWS",
    "MAX_STUDY_SAMPLES",
    "array_input",
    "as_float",
    "check_beta_parameters",
    "check_choice",
    "check_name",
    "check_real",
    "check_count",
    "check_model_count",
    "check_kept_draws",
    "check_positive",
    "check_range",
    "check_sd",
    "check_square",
    "check_zero_division",
    "columns_input",
    "numeral",
    "parse_float",
    "parse_floats",
    "parse_grid",
    "parse_int",
    "shown_name",
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
#: Most posterior draws held in memory at once, over every model (8 bytes each: 1 GiB), where
#: the draws of every model are kept for the intervals (the per-item and the scoring posterior).
MAX_KEPT_DRAWS = 2**27
#: Largest input file of ``mcrank evaluate`` (confusion matrices, labels, scores, a utility
#: matrix), in bytes: 64 MiB, a long-form CSV of three classifiers on 1000 classes.
MAX_INPUT_BYTES = 64 << 20
#: Largest experiment file, in bytes (a study needs a few hundred bytes of TOML).
MAX_EXPERIMENT_BYTES = 1 << 20


# --- numbers given as text ------------------------------------------------------------------

#: A number as text: an ASCII decimal numeral (digits, an optional fraction and exponent), or
#: ``inf``/``nan`` (then refused as not finite where they must be). Python's ``float`` and
#: ``int`` also take ``"1_000"`` and the digits of other scripts (``"１２"``): refused here.
_NUMERAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)", re.IGNORECASE)


def numeral(text: str) -> str:
    """``text`` without surrounding spaces if it is an ASCII decimal numeral (or ``inf``,
    ``nan``), else a ValueError: the one rule for every number read from text (the command
    line's options, grids, experiment files' strings, the cells of input files)."""
    stripped = text.strip() if isinstance(text, str) else text
    if not isinstance(stripped, str) or not _NUMERAL.fullmatch(stripped):
        raise ValueError(f"{text!r} is not a decimal number")
    return stripped


def parse_float(text: str) -> float:
    """The float of an ASCII decimal numeral (:func:`numeral`), NaN and infinities included."""
    return float(numeral(text))


def parse_floats(cells) -> np.ndarray:
    """The floats of a column of text cells (a CSV file's), each an ASCII decimal numeral
    (:func:`numeral`); a ValueError otherwise, as NumPy's conversion raises for other text."""
    joined = "".join(cells)
    if "_" in joined or not joined.isascii():  # the rare column that NumPy would read wrongly
        for cell in cells:
            numeral(cell)
    return np.array(cells, dtype=float)


def parse_int(text: str) -> int:
    """The int of ASCII decimal digits with an optional sign."""
    stripped = numeral(text)
    if not stripped.lstrip("+-").isdigit():
        raise ValueError(f"{text!r} is not a whole number")
    return int(stripped)


#: Longest name (of a classifier, a class, a column) that messages and reports print whole.
NAME_LIMIT = 60


def shown_name(name, limit: int = NAME_LIMIT) -> str:
    """``name`` as messages and reports print it: its ``repr`` if it is not a string, cut to
    ``limit`` characters with an ellipsis, so that a name of 100,000 characters is one short line."""
    text = name if isinstance(name, str) else repr(name)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_grid(text: str, what: str, *, maximum: int) -> np.ndarray:
    """The values of a grid ``"start:stop:step"``: ``start + k * step`` for k = 0, 1, ... up to
    ``stop`` (included when the steps reach it), at most ``maximum`` of them.

    Each value is computed in decimal from the numerals as written, then rounded once to the
    nearest float: ``start`` (and ``stop``, when reached) are the floats of their numerals bit
    for bit, no value lies past ``stop``, and ``0.1 + 2 * 0.1`` is the float of ``0.3``. Two
    values that round to the same float are refused (the step is below the floats' spacing).
    """
    import decimal  # here: only a grid reads it, and the import costs every start-up

    parts = text.split(":")
    if len(parts) != 3:
        raise ValueError(f"{what} {text!r} must be start:stop:step")
    numbers = []
    for part, name in zip(parts, ("start", "stop", "step")):
        try:
            number = decimal.Decimal(numeral(part))
        except ValueError:
            raise ValueError(f"the {name} of {what} {text!r} must be a number, got {part.strip()!r}") from None
        if not number.is_finite():
            raise ValueError(f"the {name} of {what} {text!r} must be finite, got {part.strip()!r}")
        numbers.append(number)
    start, stop, step = numbers
    if step <= 0:
        raise ValueError(f"the step of {what} {text!r} must be positive, got {parts[2].strip()!r}")
    if stop < start:
        raise ValueError(f"the stop of {what} {text!r} must be at least its start, got {parts[1].strip()!r}")
    # Exact: enough digits for every value start + k * step (those of the numerals' span of
    # exponents, and of k); a span too wide for that is no grid anyone means.
    exponents = [n.as_tuple().exponent for n in numbers if n] or [0]
    digits = max([n.adjusted() for n in numbers if n] or [0]) - min(exponents) + len(str(maximum)) + 2
    if digits > 10_000:
        raise ValueError(f"{what} {text!r} spans too many orders of magnitude between its numbers")
    context = decimal.Context(prec=max(digits, 28), Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, traps=[decimal.InvalidOperation])
    ratio = context.divide(context.subtract(stop, start), step)
    if ratio >= maximum:
        raise ValueError(f"{what} {text!r} has over {maximum:,} values; at most {maximum:,} are allowed")
    count = int(ratio.to_integral_value(rounding=decimal.ROUND_FLOOR)) + 1
    if count > maximum:
        raise ValueError(f"{what} {text!r} has {count:,} values; at most {maximum:,} are allowed")
    grid = np.array([float(context.add(start, context.multiply(step, k))) for k in range(count)])
    if count > 1 and np.any(np.diff(grid) <= 0):
        raise ValueError(f"the step of {what} {text!r} is below the spacing of floating-point numbers there: equal values")
    return grid


def as_float(value, what: str) -> float:
    """``value`` as a finite float; booleans and non-numbers are refused, and text that is not an
    ASCII decimal numeral (:func:`numeral`)."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be a number, got {value!r}")
    try:
        if isinstance(value, str):
            value = numeral(value)
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
            number = decimal.Decimal(numeral(value))
        except (ValueError, decimal.InvalidOperation):
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


def check_kept_draws(samples: int, values: int, what: str = "samples") -> None:
    """Refuse ``samples`` draws of ``values`` numbers each (a yield per model, or more) whose
    arrays would pass :data:`MAX_KEPT_DRAWS`, before they are allocated."""
    if samples * values > MAX_KEPT_DRAWS:
        raise ValueError(f"{what}: {samples:,} draws would hold {samples * values * 8 / 2**30:,.1f} GiB in memory "
                         f"({values} numbers each); give at most {MAX_KEPT_DRAWS // values:,}")  # fmt: skip


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


def array_input(value, what: str):
    """An array argument as it enters the API: a pandas DataFrame or Series as its NumPy array
    (without importing pandas), and a NumPy masked array refused, naming ``what``: NumPy's
    conversions drop its mask, and the masked values would count."""
    if isinstance(value, np.ma.MaskedArray):
        raise ValueError(f"{what}: a masked array is not accepted (its mask would be ignored): give only the values to use, "
                         "e.g. its .compressed() or .filled(value)")  # fmt: skip
    if type(value).__module__.partition(".")[0] == "pandas" and hasattr(value, "to_numpy"):
        return array_input(value.to_numpy(), what)
    return value


def columns_input(value, what: str):
    """A mapping of names to arrays (models' predictions or scores, items' columns) as it enters
    the API: a pandas DataFrame as the dict of its columns, a masked array refused (:func:`array_input`)."""
    if type(value).__module__.partition(".")[0] == "pandas" and hasattr(value, "columns"):
        return {name: array_input(value[name], f"{what}[{name!r}]") for name in value.columns}
    return value


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
    value = array_input(value, where)
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
        raise ValueError(f"{at}{what} name {shown_name(name)} is not a string")
    if not name.strip():
        raise ValueError(f"{at}a {what} name is empty ({name!r})")
    if bad := _CONTROL.search(name):
        raise ValueError(f"{at}{what} name {shown_name(name)!r} contains the control character {bad[0]!r}: names are printed one per line")
