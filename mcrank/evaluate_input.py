"""The inputs of :mod:`mcrank.evaluate`, read and checked: confusion matrices and the utility matrix.

Confusion matrices are counts in the paper's layout (rows = output, columns = true class),
one per classifier, all on the same test set. They come from a JSON file, a long-form CSV
file (:func:`load_input`) or, in Python, label arrays as scikit-learn's ``confusion_matrix``
takes them (:func:`confusions_from_labels`).

The utility matrix comes in one of three forms (:func:`parse_utility`, :func:`read_utility`):
one n x n matrix; a distribution over matrices, reduced to its expected matrix, eq. (17);
or a matrix with an error standard deviation on its normalised form, eq. (11).

Every bad input raises a ValueError (or OSError) whose one-line message says what is wrong
and where: the file, the key or line, the classifier and the cell.
"""

from __future__ import annotations

import csv
import decimal
import io
import json
import math
import numbers
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mcrank._validation import check_choice, check_positive
from mcrank.confusion import from_sklearn
from mcrank.samplers import ERROR_MODELS as _SAMPLER_ERROR_MODELS
from mcrank.utility_space import expected_um

__all__ = [
    "ERROR_MODELS",
    "EvaluationInput",
    "UtilityAssessment",
    "confusions_from_labels",
    "load_input",
    "parse_utility",
    "read_utility",
]

#: The error models of the utility matrix, those of :func:`mcrank.samplers.perturb_um`.
ERROR_MODELS = tuple(_SAMPLER_ERROR_MODELS)
_FILE_KEYS = ("classifiers", "utility", "classes", "description")
_CSV_COLUMNS = ("classifier", "output", "true", "count")
#: Larger counts are not all exact in floating point (2**53 + 1 is read as 2**53): the checks
#: that counts are whole and that every classifier saw the same test set would not hold.
_MAX_COUNT = 2**53 - 1
_TOO_LARGE = f"is too large: counts above 2**53 - 1 = {_MAX_COUNT} are not exact in floating point"
# Unicode categories refused in names: control characters (tab, newline, ...), line and
# paragraph separators, lone surrogates. Names are printed in tables, one row each.
_CONTROL_CATEGORIES = ("Cc", "Zl", "Zp", "Cs")
# The deepest valid input, {"utility": {"matrices": [[[u]]]}}, is 5 levels deep. Anything past
# this bound is refused before the recursive readers below (and repr) could exhaust the stack.
_MAX_NESTING = 100


# --- the utility matrix ---------------------------------------------------------------------


@dataclass(frozen=True)
class UtilityAssessment:
    """The utility matrix of a problem, as assessed: one matrix, a distribution, an error sd.

    Attributes
    ----------
    matrix : ndarray of shape (n, n)
        The utility matrix that ranks the classifiers: the one given, or the expected matrix
        of eq. (17) when a distribution is given. In the user's units.
    matrices, probabilities : ndarray or None
        The distribution over utility matrices, when one was given.
    sd : float or None
        Standard deviation of the errors on the *normalised* matrix (eq. 11), when given.
    error : str
        Error model for ``sd``: ``"gaussian"`` or ``"truncated"``.
    source : str
        Where it came from, for messages (``"examples/x.json: utility"``, ``"--utility"``).
    """

    matrix: np.ndarray
    matrices: np.ndarray | None = None
    probabilities: np.ndarray | None = None
    sd: float | None = None
    error: str = "gaussian"
    source: str = "utility"

    def describe(self) -> str:
        """One line: what the ranking matrix is."""
        if self.matrices is None:
            return "as given"
        return f"expected over {len(self.matrices)} matrices, eq. (17)"


def _where(prefix: str, message: str) -> str:
    return f"{prefix}: {message}" if prefix else message


def _check_nesting(value, where: str) -> None:
    """Refuse lists and objects nested deeper than :data:`_MAX_NESTING`, without recursion."""
    level, depth = [value], 0
    while level:
        level = [
            item
            for container in level
            if isinstance(container, (list, tuple, dict))
            for item in (container.values() if isinstance(container, dict) else container)
        ]
        depth += 1
        if depth > _MAX_NESTING:
            raise _too_deep(where)


def _too_deep(where: str) -> ValueError:
    return ValueError(f"{where}: nested more than {_MAX_NESTING} levels deep; no valid input is")


def _plain(value):
    """Nested lists from arrays and tuples, so that Python callers may pass either."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _format_number(value) -> str:
    """``value`` as ``:g`` shows a float, also for a number too large for one (``1e+400``).

    ``value`` is a real number, or the text of one (``"1e400"``, which ``float`` reads as inf).
    """
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if math.isfinite(number) or isinstance(value, float):
        return f"{number:g}"
    context = decimal.Context(prec=6)
    if isinstance(value, numbers.Rational):
        exact = context.divide(int(value.numerator), int(value.denominator))
    else:
        exact = context.create_decimal(value)
    return f"{exact.normalize():g}"


def _real(value, where: str):
    """``value`` itself if it is a real number (not a bool); else a ValueError naming ``where``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{where}: {value!r} is not a number")
    return value


def _number(value, where: str) -> float:
    """``value`` as a float; a ValueError naming ``where`` if it is not a number or too large."""
    value = _real(value, where)
    try:
        return float(value)
    except OverflowError:  # an integer (JSON allows any number of digits) beyond 1.8e308
        raise ValueError(f"{where}: {_format_number(value)} is too large for a floating-point number") from None


def _rows_from_json(value, where: str) -> list:
    """The rows of a square matrix from nested JSON lists, with the place of the first fault.

    The entries are checked to be numbers but left as they are, so that a caller may report
    an integer too large for a float in its own terms (:func:`_check_confusions` does).
    """
    value = _plain(value)
    if not isinstance(value, list) or not value:
        raise ValueError(f"{where}: expected a square matrix (a list of rows), got {json.dumps(value)[:40]}")
    n = len(value)
    for i, row in enumerate(value):
        if not isinstance(row, list):
            raise ValueError(f"{where}: row {i} is not a list of numbers")
        if len(row) != n:
            raise ValueError(f"{where}: not square: {n} rows but row {i} has {len(row)} entries")
    for i, row in enumerate(value):
        for j, v in enumerate(row):
            _real(v, f"{where}, row {i}, column {j}")
    return value


def _matrix_from_json(value, where: str) -> np.ndarray:
    """A square float matrix from nested JSON lists, with the place of the first fault."""
    rows = _rows_from_json(value, where)
    return np.array(
        [[_number(v, f"{where}, row {i}, column {j}") for j, v in enumerate(row)] for i, row in enumerate(rows)]
    )


def parse_utility(value, *, source: str = "utility") -> UtilityAssessment:
    """Read a utility assessment from its JSON form.

    Parameters
    ----------
    value : list or dict
        One of

        - ``[[...], ...]``: one utility matrix;
        - ``{"matrix": [[...]], "sd": 0.1, "error": "truncated"}``: a matrix with an error sd
          (``sd`` and ``error`` optional);
        - ``{"matrices": [[[...]], ...], "probabilities": [...]}``: a distribution over
          matrices, reduced to its expected matrix, eq. (17); ``sd`` and ``error`` may be
          added.
    source : str
        Where ``value`` comes from, to prefix messages.

    Returns
    -------
    UtilityAssessment

    Raises
    ------
    ValueError
        Naming the fault and its place: not a square matrix of numbers, NaN or infinite
        utilities, matrices of different sizes, probabilities negative or not summing to 1,
        an expected matrix that is constant, a bad ``sd`` or ``error``.
    """
    _check_nesting(value, source)
    value = _plain(value)
    if isinstance(value, list):
        return _checked_utility(UtilityAssessment(_matrix_from_json(value, source), source=source))
    if not isinstance(value, dict):
        raise ValueError(
            f"{source}: expected a matrix or an object with 'matrix' or 'matrices', got {type(value).__name__}"
        )
    unknown = sorted(set(value) - {"matrix", "matrices", "probabilities", "sd", "error"})
    if unknown:
        raise ValueError(
            f"{source}: unknown key {unknown[0]!r}; expected 'matrix', or 'matrices' with 'probabilities', "
            "and optionally 'sd' and 'error'"
        )
    sd = value.get("sd")
    if sd is not None:
        sd = check_positive(_number(sd, f"{source}: sd"), f"{source}: sd")
    error = _error_model(value.get("error", "gaussian"), source)
    if ("matrix" in value) == ("matrices" in value):
        raise ValueError(f"{source}: give either 'matrix' or 'matrices' (with 'probabilities'), not both or neither")
    if "matrix" in value:
        if "probabilities" in value:
            raise ValueError(f"{source}: 'probabilities' belong with 'matrices', not with one 'matrix'")
        matrix = _matrix_from_json(value["matrix"], f"{source}: matrix")
        return _checked_utility(UtilityAssessment(matrix, sd=sd, error=error, source=source))
    matrices, probabilities = _plain(value["matrices"]), _plain(value.get("probabilities"))
    if not isinstance(matrices, list) or not matrices:
        raise ValueError(f"{source}: 'matrices' must be a non-empty list of utility matrices")
    if not isinstance(probabilities, list):
        raise ValueError(f"{source}: 'matrices' need 'probabilities', a list of one probability per matrix")
    stack = [_matrix_from_json(m, f"{source}: matrices[{a}]") for a, m in enumerate(matrices)]
    for a, m in enumerate(stack):
        if m.shape != stack[0].shape:
            n = len(stack[0])
            raise ValueError(f"{source}: matrices[{a}] is {len(m)}x{len(m)} but matrices[0] is {n}x{n}")
        _check_finite_utility(m, f"{source}: matrices[{a}]")
    q = np.array([_number(v, f"{source}: probabilities[{a}]") for a, v in enumerate(probabilities)])
    if len(q) != len(stack):
        raise ValueError(f"{source}: {len(stack)} matrices but {len(q)} probabilities")
    for a, v in enumerate(q):
        if not math.isfinite(v) or v < 0:
            raise ValueError(f"{source}: probabilities[{a}] = {v:g} is not a probability (negative or not finite)")
    if abs(q.sum() - 1.0) > 1e-9:
        raise ValueError(f"{source}: probabilities sum to {q.sum():.12g}, not 1")
    stack = np.array(stack)
    assessment = UtilityAssessment(
        expected_um(stack, q), matrices=stack, probabilities=q, sd=sd, error=error, source=source
    )
    return _checked_utility(assessment)


def _check_finite_utility(matrix: np.ndarray, where: str) -> None:
    bad = np.argwhere(~np.isfinite(matrix))
    if len(bad):
        i, j = bad[0]
        raise ValueError(f"{where}, row {i}, column {j}: utility {matrix[i, j]} is not finite")


def _checked_utility(assessment: UtilityAssessment) -> UtilityAssessment:
    u, where = assessment.matrix, assessment.source
    if u.shape[0] < 2:
        raise ValueError(f"{where}: a utility matrix needs at least 2 classes, got {u.shape[0]}x{u.shape[1]}")
    _check_finite_utility(u, where)
    if np.max(u) == np.min(u):  # not np.ptp, which overflows for entries of +-1e308
        what = "the expected utility matrix" if assessment.matrices is not None else "the utility matrix"
        raise ValueError(f"{where}: {what} is constant: every decision is worth the same, so it ranks nothing (eq. 11)")
    return assessment


def _error_model(error, where: str) -> str:
    """``error`` if it names one of :data:`ERROR_MODELS`; the ValueError says where it was given."""
    try:
        return check_choice(error, ERROR_MODELS, "error model")
    except ValueError as failure:
        raise ValueError(_where(where, str(failure))) from None


def _check_truncated(normalised: np.ndarray, classes, where: str) -> None:
    """The truncated error model keeps correct classification best in each column: so must ``U``."""
    n = len(normalised)
    for j in range(n):
        for i in range(n):
            if normalised[i, j] > normalised[j, j]:
                raise ValueError(
                    f"{where}: the truncated error model keeps correct classification best in each "
                    f"column, but in column {j} (true {classes[j]!r}) row {i} has a higher utility than row {j}"
                )


def read_utility(text: str, *, source: str = "--utility") -> tuple[UtilityAssessment, tuple[str, ...] | None]:
    """Read a utility assessment from JSON text or from a JSON file.

    Parameters
    ----------
    text : str or Path
        JSON text (it starts with ``[`` or ``{``), or the path of a JSON file. Either holds
        one of the forms of :func:`parse_utility`, or an object with a ``"utility"`` key in
        that form and optionally ``"classes"`` (an input file of :func:`load_input` will do).
    source : str
        Name of the option, for messages.

    Returns
    -------
    utility : UtilityAssessment
    classes : tuple of str or None
        The class names, when the object gave them.

    Raises
    ------
    TypeError
        If ``text`` is neither a string nor a path.
    """
    if not isinstance(text, (str, os.PathLike)):
        raise TypeError(f"utility must be JSON text or the path of a JSON file (str or Path), got {text!r}")
    stripped = text.strip() if isinstance(text, str) else ""
    if stripped.startswith(("[", "{")):
        value = _loads(stripped, source)
    else:
        path = Path(_file_path(text, "utility"))
        source = str(path)
        value = _loads(_read_text(path), source)
    classes = None
    if isinstance(value, dict) and "utility" in value:
        unknown = sorted(set(value) - set(_FILE_KEYS))
        if unknown:
            raise ValueError(f"{source}: unknown key {unknown[0]!r}")
        classes = _parse_classes(value["classes"], source) if "classes" in value else None
        value, source = value["utility"], f"{source}: utility"
    return parse_utility(value, source=source), classes


# --- input files ----------------------------------------------------------------------------


@dataclass(frozen=True)
class EvaluationInput:
    """What an input file holds.

    Attributes
    ----------
    confusions : dict of str to ndarray of shape (n, n)
        Counts per classifier, in the file's order; rows = output, columns = true class.
    utility : UtilityAssessment or None
    classes : tuple of str or None
    description : str or None
    source : str
        The file's path.
    """

    confusions: dict[str, np.ndarray]
    utility: UtilityAssessment | None
    classes: tuple[str, ...] | None
    description: str | None
    source: str


def _file_path(path, what: str) -> str:
    """``path`` as a string, if it is one or a path; else a TypeError naming ``what``."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(f"{what} must be the path of a file (str or Path), got {path!r}")
    return path


def _read_text(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8-sig")  # an OSError names the file
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (not UTF-8)") from None
    if not text.strip():
        raise ValueError(f"{path}: the file is empty")
    return text


def _no_duplicate_keys(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _loads(text: str, source: str):
    try:
        value = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise ValueError(f"{source}: not valid JSON: {error.msg} at {where}") from None
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    except RecursionError:  # json's parser recurses once per level of nesting
        raise _too_deep(source) from None
    _check_nesting(value, source)
    return value


def _parse_classes(value, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{source}: 'classes' must be a list of class names (strings)")
    if len(set(value)) != len(value):
        duplicate = next(v for v in value if value.count(v) > 1)
        raise ValueError(f"{source}: class name {duplicate!r} appears twice in 'classes'")
    return tuple(value)


def load_input(path, *, classes: tuple[str, ...] | None = None) -> EvaluationInput:
    """Read confusion matrices (and optionally a utility matrix) from a JSON or CSV file.

    JSON (``.json``)::

        {"classifiers": {"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]},
         "utility": [[15, -335], [-35, 165]],
         "classes": ["long", "short"],
         "description": "optional text"}

    ``utility`` takes any form of :func:`parse_utility`; ``utility``, ``classes`` and
    ``description`` are optional.

    CSV (``.csv``), long form, one row per cell, with the header
    ``classifier,output,true,count``; cells left out count 0. ``output`` and ``true`` are
    class names, or indices 0..n-1. The class order (which matters for the utility
    matrix) is that of ``classes`` when given (e.g. by ``--utility``); otherwise indices
    give it, or else the order in which names first appear in the file.

    Parameters
    ----------
    path : str or Path
    classes : tuple of str, optional
        Class names in order, for a CSV file.

    Returns
    -------
    EvaluationInput
        With the counts checked as :func:`mcrank.evaluate.evaluate` checks them, before the
        file's utility matrix: the first fault reported is the first in the file's layout.

    Raises
    ------
    TypeError
        If ``path`` is neither a string nor a path (``None``, bytes).
    """
    path = Path(_file_path(path, "path"))
    text = _read_text(path)
    suffix = path.suffix.lower()
    if suffix not in (".json", ".csv"):
        raise ValueError(f"{path}: unknown file type {suffix or '(none)'!r}: give a .json or .csv file")
    if suffix == ".csv":
        return _load_csv(text, str(path), classes)
    return _load_json(text, str(path))


def _load_json(text: str, source: str) -> EvaluationInput:
    data = _loads(text, source)
    if not isinstance(data, dict):
        raise ValueError(f"{source}: expected a JSON object with 'classifiers', got {type(data).__name__}")
    unknown = sorted(set(data) - set(_FILE_KEYS))
    if unknown:
        raise ValueError(f"{source}: unknown key {unknown[0]!r}; expected {', '.join(_FILE_KEYS)}")
    classifiers = data.get("classifiers")
    if not isinstance(classifiers, dict) or not classifiers:
        raise ValueError(f"{source}: 'classifiers' must be a non-empty object mapping names to confusion matrices")
    confusions = {
        name: _rows_from_json(matrix, f"{source}: classifier {name!r}") for name, matrix in classifiers.items()
    }
    classes = _parse_classes(data["classes"], source) if "classes" in data else None
    confusions, _ = _check_confusions(confusions, classes, source)  # the counts, before the utility that follows them
    utility = parse_utility(data["utility"], source=f"{source}: utility") if "utility" in data else None
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        raise ValueError(f"{source}: 'description' must be a string")
    return EvaluationInput(confusions, utility, classes, description, source)


def _load_csv(text: str, source: str, classes: tuple[str, ...] | None) -> EvaluationInput:
    # The text as csv reads a file, so that a quoted field keeps a newline (to be refused in
    # a name) rather than losing it to str.splitlines; each row with the line it starts on.
    reader = csv.reader(io.StringIO(text, newline=""))
    rows, start = [], 1
    try:
        for row in reader:
            rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as error:
        raise ValueError(f"{source}: not valid CSV: {error}") from None
    header = [h.strip().lower() for h in rows[0][1]]
    expected = ",".join(_CSV_COLUMNS)
    missing = [c for c in _CSV_COLUMNS if c not in header]
    if missing:
        raise ValueError(f"{source}, line 1: missing column {missing[0]!r}; the header must be {expected}")
    repeated = [h for k, h in enumerate(header) if h in header[:k]]
    if repeated:
        raise ValueError(f"{source}, line 1: column {repeated[0]!r} appears twice; the header must be {expected}")
    extra = [h for h in header if h not in _CSV_COLUMNS]
    if extra:
        raise ValueError(f"{source}, line 1: unexpected column {extra[0]!r}; the header must be {expected}")
    column = {name: header.index(name) for name in _CSV_COLUMNS}
    records = []
    for line, row in rows[1:]:
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise ValueError(f"{source}, line {line}: expected {len(header)} fields, got {len(row)}")
        cells = {name: row[index].strip() for name, index in column.items()}
        for name in ("classifier", "output", "true"):
            if not cells[name]:
                raise ValueError(f"{source}, line {line}: empty {name!r} field")
            _check_name(cells[name], "classifier" if name == "classifier" else "class", f"{source}, line {line}")
        try:
            count = float(cells["count"])
        except ValueError:
            raise ValueError(f"{source}, line {line}: count {cells['count']!r} is not a number") from None
        if math.isinf(count) and decimal.Decimal(cells["count"]).is_finite():  # "1e400", not "inf"
            shown = _format_number(cells["count"])
            raise ValueError(f"{source}, line {line}: count {shown} {_TOO_LARGE}")
        records.append((line, cells["classifier"], cells["output"], cells["true"], count))
    if not records:
        raise ValueError(f"{source}: no data rows below the header")
    labels = list(dict.fromkeys(label for _, _, output, true, _ in records for label in (output, true)))
    index = _class_index(labels, classes, source)
    n = len(classes) if classes is not None else max(index.values()) + 1
    if classes is None:
        classes = tuple(labels) if not _all_indices(labels) else None
    if n < 2:
        raise ValueError(f"{source}: only one class ({labels[0]!r}) found: a classification needs at least 2")
    confusions: dict[str, np.ndarray] = {}
    seen: dict[tuple[str, int, int], int] = {}
    for line, name, output, true, count in records:
        i, j = index[output], index[true]
        if (name, i, j) in seen:
            raise ValueError(
                f"{source}, line {line}: classifier {name!r}, output {output!r}, true {true!r} "
                f"already given on line {seen[name, i, j]}"
            )
        seen[name, i, j] = line
        confusions.setdefault(name, np.zeros((n, n)))[i, j] = count
    _check_confusions(confusions, classes, source)
    return EvaluationInput(confusions, None, classes, None, source)


def _is_index(label: str) -> bool:
    return label.isascii() and label.isdigit()


def _all_indices(labels) -> bool:
    return all(_is_index(label) for label in labels)


def _class_index(labels, classes, source: str) -> dict[str, int]:
    if classes is None:
        if not _all_indices(labels):
            return {label: k for k, label in enumerate(labels)}
        indices = sorted({int(label) for label in labels})
        if indices != list(range(len(indices))):
            raise ValueError(
                f"{source}: class indices must run from 0 without gaps, found {', '.join(map(str, indices))}; "
                "to include classes that never appear, give 'classes' in a --utility file"
            )
        return {label: int(label) for label in labels}
    index = {}
    for label in labels:
        if label in classes:
            index[label] = classes.index(label)
        elif _is_index(label) and int(label) < len(classes):
            index[label] = int(label)
        else:
            raise ValueError(
                f"{source}: class {label!r} does not match any of the classes {', '.join(map(repr, classes))}"
            )
    return index


# --- label arrays ---------------------------------------------------------------------------


def confusions_from_labels(predictions, *, classes=None) -> tuple[dict[str, np.ndarray], tuple]:
    """Confusion matrices, in the paper's layout, from label arrays per classifier.

    Parameters
    ----------
    predictions : dict of str to (y_true, y_pred)
        Per classifier, the true labels and its outputs, as scikit-learn's
        ``confusion_matrix(y_true, y_pred)`` takes them.
    classes : sequence, optional
        The labels in class order. By default the sorted labels found in all arrays, as
        scikit-learn sorts them.

    Returns
    -------
    confusions : dict of str to ndarray of shape (n, n)
        Counts; rows = output, columns = true class (the transpose of scikit-learn's).
    classes : tuple
        The labels in class order.
    """
    arrays = {}
    for name, pair in predictions.items():
        if len(pair) != 2:
            raise ValueError(f"classifier {name!r}: give (y_true, y_pred)")
        y_true, y_pred = (np.asarray(y).ravel() for y in pair)
        if y_true.shape != y_pred.shape:
            raise ValueError(f"classifier {name!r}: y_true has {y_true.size} labels but y_pred has {y_pred.size}")
        arrays[name] = (y_true, y_pred)
    if classes is None:
        classes = np.unique(np.concatenate([y for pair in arrays.values() for y in pair]))
    classes = tuple(classes.tolist() if isinstance(classes, np.ndarray) else classes)
    position = {label: k for k, label in enumerate(classes)}
    n = len(classes)
    confusions = {}
    for name, (y_true, y_pred) in arrays.items():
        sklearn_layout = np.zeros((n, n), dtype=np.int64)  # true class in rows
        for y, which in ((y_true, "y_true"), (y_pred, "y_pred")):
            unknown = [label for label in dict.fromkeys(y.tolist()) if label not in position]
            if unknown:
                raise ValueError(f"classifier {name!r}: {which} has label {unknown[0]!r}, not one of the classes")
        true_index = np.array([position[label] for label in y_true.tolist()], dtype=np.int64)
        output_index = np.array([position[label] for label in y_pred.tolist()], dtype=np.int64)
        np.add.at(sklearn_layout, (true_index, output_index), 1)
        confusions[name] = from_sklearn(sklearn_layout)
    return confusions, classes


# --- validation of confusion matrices -------------------------------------------------------


def _check_name(name, what: str, source: str) -> None:
    """A classifier or class name: a string, not blank, without control characters."""
    if not isinstance(name, str):
        raise ValueError(_where(source, f"{what} name {name!r} is not a string"))
    if not name.strip():
        raise ValueError(_where(source, f"a {what} name is empty ({name!r})"))
    bad = next((ch for ch in name if unicodedata.category(ch) in _CONTROL_CATEGORIES), None)
    if bad is not None:
        problem = f"{what} name {name!r} contains the control character {bad!r}: names are printed one per line"
        raise ValueError(_where(source, problem))


def _cell(i: int, j: int, classes) -> str:
    return f"row {i} (output {classes[i]!r}), column {j} (true {classes[j]!r})"


def _as_floats(matrix) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """``matrix`` as a float array, with None twice; or, if it holds integers too large for a
    float, with those as infinities, an object array of the values given and where those are."""
    try:
        return np.asarray(matrix, dtype=float), None, None
    except OverflowError:
        values = np.asarray(matrix, dtype=object)
    floats = np.empty(values.shape)
    overflowed = np.zeros(values.shape, dtype=bool)
    for index, value in np.ndenumerate(values):
        try:
            floats[index] = float(value)
        except OverflowError:
            floats[index] = math.inf if value > 0 else -math.inf
            overflowed[index] = True
    return floats, values, overflowed


def _check_confusions(confusions, classes, source: str) -> tuple[dict[str, np.ndarray], tuple[str, ...]]:
    """Counts as float arrays and the class names; every fault named with its classifier and cell."""
    if not isinstance(confusions, dict) or not confusions:
        raise ValueError(_where(source, "no classifiers: give a non-empty mapping of names to confusion matrices"))
    checked = {}
    given = {}  # matrices with integers too large for a float: the values, and where those are
    first_name = None
    for name, matrix in confusions.items():
        _check_name(name, "classifier", source)
        where = _where(source, f"classifier {name!r}")
        try:
            c, values, overflowed = _as_floats(matrix)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: the confusion matrix is not an array of numbers") from None
        if values is not None:
            given[name] = values, overflowed
        if c.ndim != 2 or c.shape[0] != c.shape[1]:
            raise ValueError(f"{where}: the confusion matrix is not square (shape {c.shape})")
        if c.shape[0] < 2:
            raise ValueError(f"{where}: a confusion matrix needs at least 2 classes, got 1x1")
        if first_name is not None and c.shape != checked[first_name].shape:
            n, m = checked[first_name].shape[0], c.shape[0]
            raise ValueError(f"{where}: the confusion matrix is {m}x{m} but classifier {first_name!r}'s is {n}x{n}")
        if first_name is None:
            first_name = name
        checked[name] = c
    n = checked[first_name].shape[0]
    if classes is None:
        classes = tuple(str(k) for k in range(n))
    classes = tuple(str(c) for c in classes)
    if len(classes) != n:
        raise ValueError(_where(source, f"{len(classes)} class names but the confusion matrices are {n}x{n}"))
    for name in classes:
        _check_name(name, "class", source)
    for name, c in checked.items():
        where = _where(source, f"classifier {name!r}")
        values, overflowed = given.get(name, (None, np.zeros(c.shape, dtype=bool)))
        for test, problem in (
            (np.isnan(c), "is NaN"),
            (np.isinf(c) & ~overflowed, "is infinite"),
            (c < 0, "is negative"),
            (c > _MAX_COUNT, _TOO_LARGE),
            (np.isfinite(c) & (c != np.round(c)), "is not a whole number (give counts, not fractions)"),
        ):
            bad = np.argwhere(test)
            if len(bad):
                i, j = bad[0]
                shown = _format_number(values[i, j]) if values is not None else f"{c[i, j]:g}"
                raise ValueError(f"{where}, {_cell(i, j, classes)}: count {shown} {problem}")
        if not c.any():
            raise ValueError(f"{where}: the confusion matrix is all zeros: no test items")
    reference = checked[first_name].sum(axis=0)
    for name, c in checked.items():
        totals = c.sum(axis=0)
        if np.any(totals != reference):
            j = int(np.argmax(totals != reference))
            raise ValueError(
                _where(
                    source,
                    f"classifiers {first_name!r} and {name!r} have different column totals (true class "
                    f"{classes[j]!r}: {reference[j]:g} vs {totals[j]:g}): they were not tested on the same test set",
                )
            )
    return checked, tuple(classes)


