"""The inputs of :mod:`mcrank.evaluate`, read and checked: confusion matrices and the utility matrix.

Confusion matrices hold counts in the paper's layout (rows = output, columns = true class),
one per classifier, all on the same test set: from a JSON or long-form CSV file
(:func:`load_input`), from a CSV file of labels, one row per test item (:func:`load_labels`),
or from label arrays (:func:`confusions_from_labels`). The utility
matrix is one matrix, a distribution over matrices (eq. 17) or a matrix with an error sd on
its normalised form (eq. 11): :func:`parse_utility`, :func:`read_utility`; see
``docs/method.md``.

Every bad input raises a ValueError (or OSError) of one line that names the file and the
place: the key, the CSV line, or the classifier and the cell. The files are read with the
standard library's :mod:`json` and :mod:`csv` and checked here with numpy: what needs
checking (square matrices, whole counts, one test set, probabilities summing to 1) is
arithmetic that a JSON schema cannot state, and the CSV format and the Python API need it too.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mcrank._io import read_bounded
from mcrank._validation import MAX_INPUT_BYTES, array_input, check_choice, check_positive, columns_input, numeral, shown_name
from mcrank._validation import check_name as _check_name
from mcrank._validation import check_real as _real
from mcrank._validation import check_square as _square
from mcrank.confusion import from_sklearn
from mcrank.error_models import ERROR_MODELS
from mcrank.evaluate.targets import DEFAULT_ORIENTATION, check_orientation, class_order, oriented, reads_alike
from mcrank.utility_space import expected_um

__all__ = ["ERROR_MODELS", "MAX_INPUT_BYTES", "EvaluationInput", "ItemLabels", "UtilityAssessment", "confusions_from_labels",
           "label_array", "labels_from_predictions", "load_input", "load_labels", "parse_utility", "read_utility"]  # fmt: skip

#: The error model of an uncertain utility that names none: the first registered in
#: :data:`mcrank.error_models.ERROR_MODELS` (the error models of the utility matrix, those of
#: :func:`mcrank.samplers.perturb_um`), as for a study.
DEFAULT_ERROR_MODEL = next(iter(ERROR_MODELS))
_FILE_KEYS = ("classifiers", "utility", "classes", "orientation", "description")
_CSV_COLUMNS = ("classifier", "output", "true", "count")
#: Larger counts are not all exact in floating point (2**53 + 1 is read as 2**53): the checks
#: that counts are whole and that every classifier saw the same test set would not hold.
_MAX_COUNT = 2**53 - 1


@dataclass(frozen=True)
class UtilityAssessment:
    """The utility matrix of a problem, as assessed.

    Attributes
    ----------
    matrix : ndarray of shape (n, n)
        The matrix that ranks: the one given, or the expected matrix of eq. (17).
    matrices, probabilities : ndarray or None
        The distribution over utility matrices, when one was given.
    sd : float or None
        Standard deviation of the errors on the *normalised* matrix (eq. 11), when given.
    error : str
        Error model for ``sd``, a name in :data:`mcrank.error_models.ERROR_MODELS`.
    source : str
        Where it came from, for messages (``"examples/x.json: utility"``, ``"--utility"``).
    """

    matrix: np.ndarray
    matrices: np.ndarray | None = None
    probabilities: np.ndarray | None = None
    sd: float | None = None
    error: str = DEFAULT_ERROR_MODEL
    source: str = "utility"

    def describe(self) -> str:
        """One line: what the ranking matrix is."""
        return "as given" if self.matrices is None else f"expected over {len(self.matrices)} matrices, eq. (17)"


@dataclass(frozen=True)
class ItemLabels:
    """The labels of a test set, item by item, as class indices.

    Attributes
    ----------
    truth : ndarray of shape (items,), int64
        The true class of each test item.
    outputs : dict of str to ndarray of shape (items,), int64
        Each classifier's output for the same items, in the same order.
    """

    truth: np.ndarray
    outputs: dict[str, np.ndarray]


@dataclass(frozen=True)
class EvaluationInput:
    """What an input file holds: counts per classifier in the file's order, the utility (or
    None), the class names (or None) and the description, read from ``source``. A file of
    labels also gives them item by item (``labels``), and says where the class order came
    from (``class_order``: ``"given"``, ``"utility"`` or ``"natural"``, as
    :func:`mcrank.evaluate.targets.class_order` names it) and, with a fold column, each
    item's fold (``folds``, the column's text)."""

    confusions: dict[str, np.ndarray]
    utility: UtilityAssessment | None
    classes: tuple[str, ...] | None
    description: str | None
    source: str
    labels: ItemLabels | None = None
    class_order: str | None = None
    folds: np.ndarray | None = None


def _at(source: str, message: str) -> str:
    return f"{source}: {message}" if source else message


def _check_confusions(
    confusions, classes, source: str, orientation: str = DEFAULT_ORIENTATION
) -> tuple[dict[str, np.ndarray], tuple[str, ...]]:
    """Counts as float arrays in mcrank's orientation (:func:`mcrank.evaluate.targets.oriented`),
    and the class names; every fault named with its classifier and cell."""
    confusions = columns_input(confusions, "confusions") if hasattr(confusions, "columns") else confusions
    if not isinstance(confusions, dict) or not confusions:
        raise ValueError(_at(source, "no classifiers: give a non-empty mapping of names to confusion matrices"))
    checked, first = {}, next(iter(confusions))
    for name, matrix in confusions.items():
        _check_name(name, "classifier", source)
        where = _at(source, f"classifier {shown_name(name)!r}")
        c = checked[name] = oriented(_square(matrix, where), orientation)
        n, m = len(checked[first]), len(c)
        if m < 2:
            raise ValueError(f"{where}: a confusion matrix needs at least 2 classes, got 1x1")
        if m != n:
            raise ValueError(f"{where}: the confusion matrix is {m}x{m} but that of classifier {first!r} is {n}x{n}")
    classes = tuple(str(k) for k in range(n)) if classes is None else tuple(map(str, classes))
    if len(classes) != n:
        raise ValueError(_at(source, f"{len(classes)} class names but the confusion matrices are {n}x{n}"))
    for name in classes:
        _check_name(name, "class", source)
    _check_distinct(classes, source)
    for name, c in checked.items():
        where = _at(source, f"classifier {shown_name(name)!r}")
        for test, problem in (
            (np.isnan(c), "is NaN"),
            (np.isinf(c), "is infinite"),
            (c < 0, "is negative"),
            (c > _MAX_COUNT, f"is too large: counts above 2**53 - 1 = {_MAX_COUNT} are not exact in floating point"),
            (np.isfinite(c) & (c != np.round(c)), "is not a whole number (give counts, not fractions)"),
        ):
            if len(bad := np.argwhere(test)):
                i, j = bad[0]
                raise ValueError(f"{where}, row {i} (output {classes[i]!r}), column {j} (true {classes[j]!r}): count {c[i, j]:g} {problem}")
        if not c.any():
            raise ValueError(f"{where}: the confusion matrix is all zeros: no test items")
        if name == first:
            reference = c.sum(axis=0)
        if np.any(different := (totals := c.sum(axis=0)) != reference):
            j = int(np.argmax(different))
            raise ValueError(
                _at(
                    source,
                    f"classifiers {first!r} and {name!r} have different column totals (true class "
                    f"{classes[j]!r}: {reference[j]:g} vs {totals[j]:g}): they were not tested on the same test set",
                )
            )
    return checked, classes


# --- the utility matrix ---------------------------------------------------------------------


def parse_utility(value, *, source: str = "utility") -> UtilityAssessment:
    """Read a utility assessment from its JSON form.

    Parameters
    ----------
    value : array_like or dict
        One matrix ``[[...], ...]``; a matrix with an error sd, ``{"matrix": [[...]], "sd":
        0.1, "error": "truncated"}`` (``sd`` and ``error`` optional); or a distribution,
        ``{"matrices": [[[...]], ...], "probabilities": [...]}``, ranked by its expected
        matrix, eq. (17) (``sd`` and ``error`` may be added).
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
        a constant (expected) matrix, a bad ``sd`` or ``error``.
    """
    if not isinstance(value, dict):
        return _checked_utility(UtilityAssessment(_square(value, source), source=source))
    if unknown := sorted(set(value) - {"matrix", "matrices", "probabilities", "sd", "error"}):
        raise ValueError(
            f"{source}: unknown key {unknown[0]!r}; expected 'matrix', or 'matrices' with 'probabilities', and optionally 'sd' and 'error'"
        )
    sd = None if value.get("sd") is None else check_positive(_real(value["sd"], f"{source}: sd"), f"{source}: sd")
    try:
        error = check_choice(value.get("error", DEFAULT_ERROR_MODEL), ERROR_MODELS, "error model").name
    except ValueError as failure:
        raise ValueError(f"{source}: {failure}") from None
    if ("matrix" in value) == ("matrices" in value):
        raise ValueError(f"{source}: give either 'matrix' or 'matrices' (with 'probabilities'), not both or neither")
    if "matrix" in value:
        if "probabilities" in value:
            raise ValueError(f"{source}: 'probabilities' belong with 'matrices', not with one 'matrix'")
        return _checked_utility(UtilityAssessment(_square(value["matrix"], f"{source}: matrix"), sd=sd, error=error, source=source))
    matrices, q = value["matrices"], value.get("probabilities")
    if not isinstance(matrices, (list, tuple, np.ndarray)) or len(matrices) == 0:
        raise ValueError(f"{source}: 'matrices' must be a non-empty list of utility matrices")
    if not isinstance(q, (list, tuple, np.ndarray)):
        raise ValueError(f"{source}: 'matrices' need 'probabilities', a list of one probability per matrix")
    stack = [_square(m, f"{source}: matrices[{a}]") for a, m in enumerate(matrices)]
    for a, m in enumerate(stack):
        if m.shape != stack[0].shape:
            raise ValueError(f"{source}: matrices[{a}] is {len(m)}x{len(m)} but matrices[0] is {len(stack[0])}x{len(stack[0])}")
        _check_finite(m, f"{source}: matrices[{a}]")
    q = np.array([_real(v, f"{source}: probabilities[{a}]") for a, v in enumerate(q)], dtype=float)
    if len(q) != len(stack):
        raise ValueError(f"{source}: {len(stack)} matrices but {len(q)} probabilities")
    if len(bad := np.flatnonzero(~(np.isfinite(q) & (q >= 0)))):
        raise ValueError(f"{source}: probabilities[{bad[0]}] = {q[bad[0]]:g} is not a probability (negative or not finite)")
    if abs(q.sum() - 1.0) > 1e-9:
        raise ValueError(f"{source}: probabilities sum to {q.sum():.12g}, not 1")
    stack = np.array(stack)
    return _checked_utility(UtilityAssessment(expected_um(stack, q), stack, q, sd, error, source))


def _check_finite(matrix: np.ndarray, where: str) -> None:
    if len(bad := np.argwhere(~np.isfinite(matrix))):
        i, j = bad[0]
        raise ValueError(f"{where}, row {i}, column {j}: utility {matrix[i, j]} is not finite")


def _checked_utility(assessment: UtilityAssessment) -> UtilityAssessment:
    u, where = assessment.matrix, assessment.source
    if len(u) < 2:
        raise ValueError(f"{where}: a utility matrix needs at least 2 classes, got 1x1")
    _check_finite(u, where)
    if np.max(u) == np.min(u):  # not np.ptp, which overflows for entries of +-1e308
        what = "the expected utility matrix" if assessment.matrices is not None else "the utility matrix"
        raise ValueError(f"{where}: {what} is constant: every decision is worth the same, so it ranks nothing (eq. 11)")
    return assessment


def read_utility(text, *, source: str = "--utility") -> tuple[UtilityAssessment, tuple[str, ...] | None]:
    """Read a utility assessment from JSON text (it starts with ``[`` or ``{``) or a JSON file.

    Either holds a form of :func:`parse_utility`, or an object with a ``"utility"`` key in
    that form and optionally ``"classes"`` (an input file of :func:`load_input` will do).
    ``source`` names the option, for messages. Returns the assessment and the class names
    (None when not given); a TypeError if ``text`` is neither a string nor a path.
    """
    if not isinstance(text, (str, os.PathLike)):
        raise TypeError(f"utility must be JSON text or the path of a JSON file (str or Path), got {text!r}")
    if isinstance(text, str) and text.strip().startswith(("[", "{")):
        value = _loads(text, source)
    else:
        value = _loads(read_input_text(text), source := os.fspath(text))
    classes = None
    if isinstance(value, dict) and "utility" in value:
        if unknown := sorted(set(value) - set(_FILE_KEYS)):
            raise ValueError(f"{source}: unknown key {unknown[0]!r}")
        classes = _parse_classes(value["classes"], source) if "classes" in value else None
        value, source = value["utility"], f"{source}: utility"
    return parse_utility(value, source=source), classes


# --- input files ----------------------------------------------------------------------------


def read_input_text(path) -> str:
    """The text of an input file of ``evaluate``: UTF-8 (a byte-order mark skipped), at most
    :data:`MAX_INPUT_BYTES` (:func:`mcrank._io.read_bounded`), and not empty."""
    text = read_bounded(path, limit=MAX_INPUT_BYTES, what="an input file")
    if not text.strip():
        raise ValueError(f"{path}: the file is empty")
    return text


def _unique_keys(pairs) -> dict:
    if len(keys := [key for key, _ in pairs]) != len(set(keys)):
        raise ValueError(f"duplicate key {next(key for key in keys if keys.count(key) > 1)!r}")
    return dict(pairs)


def _loads(text: str, source: str):
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        raise ValueError(f"{source}: not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
    except ValueError as error:  # a key given twice
        raise ValueError(f"{source}: {error}") from None
    except RecursionError:  # json's parser recurses once per level of nesting
        raise ValueError(f"{source}: nested too deeply to read (no valid input is more than 5 levels deep)") from None


def _parse_classes(value, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{source}: 'classes' must be a list of class names (strings)")
    _check_distinct(value, source)
    return tuple(value)


def _check_distinct(classes, source: str) -> None:
    """A ValueError for a class named twice: its rows and columns would be two classes of one name."""
    if len(set(classes)) != len(classes):
        raise ValueError(_at(source, f"class name {next(c for c in classes if list(classes).count(c) > 1)!r} appears twice in 'classes'"))


def load_input(path, *, classes: tuple[str, ...] | None = None, orientation: str | None = None,
               classes_source: str = "classes") -> EvaluationInput:  # fmt: skip
    """Read confusion matrices (and optionally a utility matrix) from a JSON or CSV file.

    JSON (``.json``)::

        {"classifiers": {"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]},
         "utility": [[15, -335], [-35, 165]], "classes": ["long", "short"], "description": "..."}

    ``utility`` (any form of :func:`parse_utility`), ``classes``, ``orientation``
    (``"decision-by-class"``, mcrank's, by default, or ``"sklearn"``: rows = true class, as
    scikit-learn's ``confusion_matrix``) and ``description`` are optional. CSV (``.csv``),
    long form, one row per cell, with the header ``classifier,output,true,count``; cells left out count 0. ``output`` and ``true`` are
    class names, or indices 0..n-1. The class order is that of ``classes`` when given (e.g.
    by ``--utility``); otherwise indices give it, or else the names' first appearance.

    Parameters
    ----------
    path : str or Path
        A file of at most :data:`MAX_INPUT_BYTES`.
    classes : tuple of str, optional
        Class names in order, for a CSV file.
    orientation : {"decision-by-class", "sklearn"}, optional
        The orientation of a JSON file's matrices, when the file does not say it (or says the
        same); a CSV names each cell's output and true class, so it takes none.
    classes_source : str, default "classes"
        Where ``classes`` came from (a utility file), named in a message about them.

    Returns
    -------
    EvaluationInput
        The counts checked as :func:`mcrank.evaluate.evaluate` checks them, before the file's
        utility matrix: the first fault reported is the first in the file's layout.

    Raises
    ------
    TypeError
        If ``path`` is neither a string nor a path (``None``, bytes).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be the path of a file (str or Path), got {path!r}")
    source, suffix = os.fspath(path), Path(path).suffix.lower()
    if suffix not in (".json", ".csv"):
        raise ValueError(f"{source}: unknown file type {suffix or '(none)'!r}: give a .json or .csv file")
    if orientation is not None:
        orientation = check_orientation(orientation)
        if suffix == ".csv":
            raise ValueError(f"orientation: {source} is a CSV, which names each cell's output and true class; the "
                             "orientation is that of matrices given as arrays (JSON)")  # fmt: skip
    text = read_input_text(source)
    return _load_csv(text, source, classes, classes_source) if suffix == ".csv" else _load_json(text, source, orientation)


def _load_json(text: str, source: str, orientation: str | None = None) -> EvaluationInput:
    data = _loads(text, source)
    if not isinstance(data, dict):
        raise ValueError(f"{source}: expected a JSON object with 'classifiers', got {type(data).__name__}")
    if unknown := sorted(set(data) - set(_FILE_KEYS)):
        raise ValueError(f"{source}: unknown key {unknown[0]!r}; expected {', '.join(_FILE_KEYS)}")
    if not isinstance(data.get("classifiers"), dict) or not data["classifiers"]:
        raise ValueError(f"{source}: 'classifiers' must be a non-empty object mapping names to confusion matrices")
    classes = _parse_classes(data["classes"], source) if "classes" in data else None
    if "orientation" in data:
        check_orientation(data["orientation"], f"{source}: 'orientation'")
        if orientation is not None and orientation != data["orientation"]:
            raise ValueError(f"orientation: {orientation!r}, but {source} says {data['orientation']!r}")
        orientation = data["orientation"]
    orientation = orientation or DEFAULT_ORIENTATION
    confusions, _ = _check_confusions(data["classifiers"], classes, source, orientation)  # before the utility that follows
    utility = parse_utility(data["utility"], source=f"{source}: utility") if "utility" in data else None
    if not isinstance(description := data.get("description"), (str, type(None))):
        raise ValueError(f"{source}: 'description' must be a string")
    return EvaluationInput(confusions, utility, classes, description, source)


def _load_csv(text: str, source: str, classes: tuple[str, ...] | None, classes_source: str = "classes") -> EvaluationInput:
    # Read as csv reads a file, so that a quoted field keeps a newline (to be refused in a name).
    reader, records = csv.reader(io.StringIO(text, newline="")), []
    try:
        header, end = [h.strip().lower() for h in next(reader)], reader.line_num
        if sorted(header) != sorted(_CSV_COLUMNS):
            missing, extra = [c for c in _CSV_COLUMNS if c not in header], [h for h in header if h not in _CSV_COLUMNS]
            fault = (
                f"missing column {missing[0]!r}"
                if missing
                else f"unexpected column {extra[0]!r}"
                if extra
                else f"column {next(h for h in header if header.count(h) > 1)!r} appears twice"
            )
            # A table of labels (true,A,B,...) is the commonest file given here by mistake.
            hint = ("; a table of labels, one row per test item, is read with the parameter labels"
                    if "classifier" not in header and "count" not in header else "")  # fmt: skip
            raise ValueError(f"{source}, line 1: {fault}; the header must be {','.join(_CSV_COLUMNS)}{hint}")
        for row in reader:
            line, end = end + 1, reader.line_num  # a row starts after the last one ends: a field may hold newlines
            where = f"{source}, line {line}"
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise ValueError(f"{where}: expected {len(header)} fields, got {len(row)}")
            cells = dict(zip(header, (cell.strip() for cell in row)))
            for key in ("classifier", "output", "true"):
                if not cells[key]:
                    raise ValueError(f"{where}: empty {key!r} field")
                _check_name(cells[key], "classifier" if key == "classifier" else "class", where)
            try:  # an integer stays exact, and one past 1.8e308 is named too large, not inf
                number = numeral(cells["count"])
                count = int(number) if number.lstrip("+-").isdigit() else float(number)
            except ValueError:
                raise ValueError(f"{where}: count {cells['count']!r} is not a number") from None
            records.append((line, cells["classifier"], cells["output"], cells["true"], count))
    except csv.Error as error:
        raise ValueError(f"{source}, line {reader.line_num}: not valid CSV: {error}") from None
    if not records:
        raise ValueError(f"{source}: no data rows below the header")
    labels = list(dict.fromkeys(label for record in records for label in record[2:4]))
    index, classes = _class_index(labels, classes, source, classes_source)
    if (n := len(classes) if classes is not None else len(labels)) < 2:
        raise ValueError(f"{source}: only one class ({labels[0]!r}) found: a classification needs at least 2")
    counts, seen = {}, {}
    for line, name, output, true, count in records:
        if (key := (name, index[output], index[true])) in seen:
            raise ValueError(
                f"{source}, line {line}: classifier {name!r}, output {output!r}, true {true!r} already given on line {seen[key]}"
            )
        seen[key] = line
        counts.setdefault(name, [[0] * n for _ in range(n)])[key[1]][key[2]] = count
    return EvaluationInput(_check_confusions(counts, classes, source)[0], None, classes, None, source)


def _classes_of(classes_source: str) -> str:
    """How a message names the classes given: "classes", or "classes of u.json:"."""
    return "classes" if classes_source == "classes" else f"classes of {classes_source}:"


def _class_index(labels, classes, source: str, classes_source: str) -> tuple[dict[str, int], tuple[str, ...] | None]:
    """The class index of each label of a CSV file, and the class names when known."""
    numbered = [label.isascii() and label.isdigit() for label in labels]
    if classes is not None:
        for label, number in zip(labels, numbered):
            if label not in classes and not (number and int(label) < len(classes)):
                raise ValueError(
                    f"{source}: class {label!r} does not match any of the {_classes_of(classes_source)} {', '.join(map(repr, classes))}"
                )
        return {label: classes.index(label) if label in classes else int(label) for label in labels}, classes
    if not all(numbered):
        return {label: k for k, label in enumerate(labels)}, tuple(labels)
    if (found := sorted(map(int, labels))) != list(range(len(found))):
        raise ValueError(
            f"{source}: class indices must run from 0 without gaps, found {', '.join(map(str, found))}; "
            "to include classes that never appear, give their order as the utility's 'classes' (the parameter classes)"
        )
    return {label: int(label) for label in labels}, None


def label_array(y, what: str) -> np.ndarray:
    """Labels as a flat array, refusing a text label with a NUL character.

    numpy's string arrays drop trailing NULs (``np.asarray(["A\\x00"])`` holds ``"A"``), so
    a label ``"A\\x00"`` would silently become ``"A"``: refused here, naming ``what``, before
    the labels become an array. Labels already in a numpy array are taken as they are.
    """
    y = array_input(y, what)
    if not isinstance(y, np.ndarray):
        if isinstance(y, (list, tuple)):
            values = y
        elif isinstance(y, (str, bytes)):
            values = [y]
        else:
            try:
                values = list(y)
            except TypeError:  # one label
                values = [y]
        for position, label in enumerate(values):
            if isinstance(label, (str, bytes)) and ("\x00" in label if isinstance(label, str) else b"\x00" in label):
                raise ValueError(f"{what}: label {label!r} (item {position}) holds a NUL character, which numpy's "
                                 "string arrays would drop: give labels without it")  # fmt: skip
        y = values
    return np.asarray(y).ravel()


def _encode_labels(pairs: dict, classes) -> tuple[tuple, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """The class order, and per classifier its (y_true, y_pred) as class indices."""
    if classes is None:
        classes = np.unique(np.concatenate([y for pair in pairs.values() for y in pair]))
    classes = tuple(classes.tolist() if isinstance(classes, np.ndarray) else classes)
    position, codes = {label: k for k, label in enumerate(classes)}, {}
    for name, pair in pairs.items():
        for y, which in zip(pair, ("y_true", "y_pred")):
            if unknown := [label for label in dict.fromkeys(y.tolist()) if label not in position]:
                raise ValueError(f"classifier {name!r}: {which} has label {unknown[0]!r}, not one of the classes")
        codes[name] = tuple(np.array([position[label] for label in y.tolist()], dtype=np.int64) for y in pair)
    return classes, codes


def _label_pairs(predictions) -> dict:
    if not isinstance(predictions, dict) or not predictions:
        raise ValueError("predictions: give a non-empty mapping of classifier names to (y_true, y_pred)")
    pairs = {}
    for name, pair in predictions.items():
        if isinstance(pair, (str, bytes)) or len(pair) != 2:
            raise ValueError(f"classifier {name!r}: give (y_true, y_pred), as many labels in each")
        pairs[name] = tuple(label_array(y, f"classifier {name!r}: {which}") for y, which in zip(pair, ("y_true", "y_pred")))
        if pairs[name][0].shape != pairs[name][1].shape:
            raise ValueError(f"classifier {name!r}: give (y_true, y_pred), as many labels in each")
    return pairs


def confusions_from_labels(predictions, *, classes=None) -> tuple[dict[str, np.ndarray], tuple]:
    """Confusion matrices, in the paper's layout, from label arrays per classifier.

    Parameters
    ----------
    predictions : dict of str to (y_true, y_pred)
        Per classifier, the true labels and its outputs, as scikit-learn's
        ``confusion_matrix(y_true, y_pred)`` takes them.
    classes : sequence, optional
        The labels in class order; by default the sorted labels of all arrays, as
        scikit-learn sorts them.

    Returns
    -------
    confusions : dict of str to ndarray of shape (n, n)
        Counts; rows = output, columns = true class (the transpose of scikit-learn's).
    classes : tuple
        The labels in class order.

    Raises
    ------
    ValueError
        For arrays of different lengths, a label that is not one of ``classes``, or a text
        label holding a NUL character (see :func:`label_array`).

    See Also
    --------
    mcrank.evaluate.evaluate_predictions : the ranking in one call, the labels kept paired.
    """
    classes, codes = _encode_labels(_label_pairs(predictions), classes)
    return _tabulate(codes, len(classes)), classes


def _tabulate(codes: dict, n: int) -> dict[str, np.ndarray]:
    """Per classifier, the counts of its (y_true, y_pred) class indices, in the paper's layout."""
    confusions = {}
    for name, (truth, output) in codes.items():
        sklearn_layout = np.zeros((n, n), dtype=np.int64)  # true class in rows
        np.add.at(sklearn_layout, (truth, output), 1)
        confusions[name] = from_sklearn(sklearn_layout)
    return confusions


def predictions_in_class_order(y_true, predictions, utility, classes=None):
    """Labels and predictions read in the one class order of
    :func:`mcrank.evaluate.targets.class_order`, with the utility they are read under.

    ``utility`` is any form of :func:`parse_utility`, a :class:`UtilityAssessment`, or a
    mapping ``{"utility": matrix, "classes": names}`` whose names give the order; ``classes``
    names it instead. Returns the assessment, the confusion matrices, the classes (each label
    of its own type), the :class:`ItemLabels` and where the order came from.
    """
    predictions = columns_input(predictions, "predictions")
    if not isinstance(predictions, dict) or not predictions:
        raise ValueError("predictions: give a non-empty mapping of classifier names to their outputs (y_pred)")
    utility_classes = None
    if isinstance(utility, dict) and "utility" in utility:  # a utility keyed by its class names
        if unknown := sorted(set(utility) - {"utility", "classes"}):
            raise ValueError(f"utility: unknown key {unknown[0]!r}; expected 'utility' and 'classes'")
        utility_classes = _parse_classes(utility["classes"], "utility") if "classes" in utility else None
        utility = utility["utility"]
    assessment = utility if isinstance(utility, UtilityAssessment) else parse_utility(utility)
    seen = dict.fromkeys(label_array(y_true, "y_true").tolist(), "y_true")  # each label with what first holds it
    for name, y_pred in predictions.items():
        where = f"classifier {name!r}: y_pred"
        seen.update({label: where for label in label_array(y_pred, where).tolist() if label not in seen})
    order, source = class_order(seen, len(assessment.matrix), classes=classes, utility_classes=utility_classes,
                                where="y_true and the predictions", order_free=reads_alike(assessment.matrix))  # fmt: skip
    if utility_classes is not None:  # the utility's names are text; the labels keep their own type
        order = tuple(next(label for label in seen if str(label) == name) if name in map(str, seen) else name for name in order)
    confusions, order, labels = labels_from_predictions(y_true, predictions, classes=order)
    return assessment, confusions, order, labels, source


def labels_from_predictions(y_true, predictions, *, classes=None) -> tuple[dict[str, np.ndarray], tuple, ItemLabels]:
    """One test set's labels, item by item: the confusion matrices, the classes and the
    :class:`ItemLabels` that keep the pairing of the items (:func:`mcrank.evaluate.evaluate`'s
    ``labels``).

    Parameters
    ----------
    y_true : array_like of shape (items,)
        The true labels.
    predictions : dict of str to array_like of shape (items,)
        Per classifier, its outputs for the same items, in the same order.
    classes : sequence, optional
        The labels in class order (that of the utility matrix); by default the sorted labels.

    Returns
    -------
    confusions : dict of str to ndarray of shape (n, n)
    classes : tuple
    labels : ItemLabels
    """
    predictions = columns_input(predictions, "predictions")
    if not isinstance(predictions, dict) or not predictions:
        raise ValueError("predictions: give a non-empty mapping of classifier names to their outputs (y_pred)")
    truth = label_array(y_true, "y_true")
    classes, codes = _encode_labels(_label_pairs({name: (truth, y_pred) for name, y_pred in predictions.items()}), classes)
    labels = ItemLabels(next(iter(codes.values()))[0], {name: output for name, (_, output) in codes.items()})
    return _tabulate(codes, len(classes)), classes, labels


# --- labels, one row per test item ---------------------------------------------------------


def _sorted_labels(labels) -> tuple[str, ...]:
    """Distinct labels in order: numerically if every one is an integer, else as text."""
    if all(re.fullmatch(r"[+-]?[0-9]+", label) for label in labels):
        return tuple(sorted(labels, key=lambda label: (int(label), label)))
    return tuple(sorted(labels))


def read_csv_columns(source: str, truth: str, *, models: str, truth_hint: str = ""):
    """The header of the CSV file ``source`` (a column ``truth`` of true classes and one column
    per model), checked, and an iterator over its rows: ``(line, cells)``, each cell stripped,
    blank rows skipped, a row of the wrong length refused. The one reader of the per-item tables
    of ``--labels`` and ``--scores``; ``models`` says what the model columns hold, for the message
    when there are none, and ``truth_hint`` how to name another truth column.

    Raises
    ------
    ValueError
        Naming the line (and column): a column named twice or not a name, no truth column,
        no model column, a row of the wrong length, text that is not CSV.
    """
    reader = csv.reader(io.StringIO(read_input_text(source), newline=""))
    try:
        header = [h.strip() for h in next(reader)]
    except csv.Error as error:
        raise ValueError(f"{source}, line {reader.line_num}: not valid CSV: {error}") from None
    for name in header:
        _check_name(name, "column", f"{source}, line 1")
    if twice := [name for name in header if header.count(name) > 1]:
        raise ValueError(f"{source}, line 1: column {twice[0]!r} appears twice")
    if truth not in header:
        raise ValueError(
            f"{source}, line 1: no column {truth!r} of true classes (the columns are {', '.join(map(repr, header))}){truth_hint}"
        )
    if len(header) < 2:
        raise ValueError(f"{source}, line 1: no {models} beside {truth!r}")

    def rows():
        end = reader.line_num
        try:
            for row in reader:
                line, end = end + 1, reader.line_num
                if not any(cell.strip() for cell in row):
                    continue
                if len(row) != len(header):
                    raise ValueError(f"{source}, line {line}: expected {len(header)} fields, got {len(row)}")
                yield line, [cell.strip() for cell in row]
        except csv.Error as error:
            raise ValueError(f"{source}, line {reader.line_num}: not valid CSV: {error}") from None

    return header, rows()


def load_labels(
    path,
    *,
    classes: tuple[str, ...] | None = None,
    classes_source: str = "classes",
    truth: str = "true",
    n_classes: int | None = None,
    utility_classes: tuple[str, ...] | None = None,
    folds: str | None = None,
    order_free: bool = False,
) -> EvaluationInput:
    """Read a test set's labels, one row per item, and tabulate each classifier's confusion matrix.

    The CSV file has a header naming its columns: ``truth`` (the true class) and one column
    per classifier (its output)::

        true,A,B
        long,long,short
        short,short,short

    Parameters
    ----------
    path : str or Path
        A CSV file of at most :data:`MAX_INPUT_BYTES`.
    classes : tuple of str, optional
        The class names in order, as the user names them. Every label must be one of them.
        The order is :func:`mcrank.evaluate.targets.class_order`'s: ``classes``, else
        ``utility_classes``, else for three classes or more labels ``0..n-1`` in their
        natural order; text labels and two classes need one of the two. ``class_order`` says
        which.
    classes_source : str, default "classes"
        Where the utility's classes came from (a utility file), named in a message about them.
    truth : str, default "true"
        The column of true classes.
    n_classes : int, optional
        Without ``classes``, the number of classes the labels must name (the utility
        matrix's): checked before any confusion matrix, of ``n^2`` cells, is tabulated.
    utility_classes : tuple of str, optional
        The utility's own class names; they must agree with ``classes`` when both are given.
    folds : str, optional
        A column of cross-validation folds (any text naming each item's fold), which is no
        classifier: returned as ``folds``.
    order_free : bool, default False
        The utility reads alike in both orders of two classes
        (:func:`mcrank.evaluate.targets.reads_alike`): labels 0/1 need no named order.

    Returns
    -------
    EvaluationInput
        The confusion matrices (rows = output, columns = true class), the labels as class
        indices (``labels``), the classes and where their order came from (``class_order``).

    Raises
    ------
    ValueError
        Naming the line and column: no truth column, a column named twice, a row with too
        few or too many fields, an empty label, a label that is not one of ``classes``,
        fewer than 2 classes.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be the path of a file (str or Path), got {path!r}")
    source = os.fspath(path)
    header, columns, lines, fold_labels = _label_columns(source, truth, folds)
    # Every distinct label checked as text, before numpy's string arrays, which drop trailing
    # NULs ("A\x00" would silently be "A"), see it.
    for k, column in enumerate(columns):
        first: dict[str, int] = {}  # each label's first row, found in one pass (not .index per label)
        for row, label in enumerate(column):
            first.setdefault(label, row)
        for label, row in first.items():
            _check_name(label, "class", f"{source}, line {lines[row]}, column {header[k]!r}")
    # Each column's distinct labels once (np.unique), not every cell through Python.
    found = [np.unique(np.array(column), return_inverse=True) for column in columns]
    distinct = _sorted_labels({label for values, _ in found for label in values.tolist()})
    named = classes if classes is not None else utility_classes
    if named is not None:
        named = tuple(map(str, named))
        for k, (values, _) in enumerate(found):
            if unknown := [label for label in values.tolist() if label not in named]:
                line = lines[columns[k].index(unknown[0])]
                raise ValueError(
                    f"{source}, line {line}, column {header[k]!r}: label {unknown[0]!r} is not one of the "
                    f"{'named classes' if classes is not None else _classes_of(classes_source)} {', '.join(map(repr, named))}"
                )
    if len(distinct) < 2:
        raise ValueError(f"{source}: only one class ({distinct[0]!r}) found: a classification needs at least 2")
    n = len(named) if named is not None else (n_classes if n_classes is not None else len(distinct))
    if named is None and len(distinct) > n:  # before n^2 cells a classifier are tabulated; no class list can fix it
        shown = ", ".join(map(repr, distinct[:5])) + (f", ... ({len(distinct) - 5} more)" if len(distinct) > 5 else "")
        raise ValueError(
            f"{source}: the labels name {len(distinct)} classes ({shown}) but the utility matrix is {n}x{n}: it needs a row "
            "and a column for every class"
        )
    classes, order_source = class_order(distinct, n, classes=None if classes is None else named,
                                        utility_classes=utility_classes, where=source, order_free=order_free)  # fmt: skip
    for name in classes:
        _check_name(name, "class", source)
    position = {label: k for k, label in enumerate(classes)}
    codes = {
        name: np.array([position[v] for v in values.tolist()], dtype=np.int64)[inverse.ravel()]
        for name, (values, inverse) in zip(header, found)
    }
    y, n = codes.pop(truth), len(classes)
    # rows = output, columns = true class: cell (i, j) counts the items with output i and truth j.
    confusions = {name: np.bincount(out * n + y, minlength=n * n).reshape(n, n) for name, out in codes.items()}
    return EvaluationInput(
        _check_confusions(confusions, classes, source)[0], None, classes, None, source, ItemLabels(y, codes), order_source, fold_labels
    )


def _label_columns(source: str, truth: str, folds: str | None) -> tuple[list[str], list[list[str]], list[int], np.ndarray | None]:
    """The columns of a labels file (:func:`load_labels`) as text, the line of each row, and
    its column of folds apart (None without ``folds``)."""
    header, rows = read_csv_columns(
        source,
        truth,
        models="classifier columns: give one column of outputs per classifier",
        truth_hint="; name it with the parameter truth",
    )
    columns: list[list[str]] = [[] for _ in header]
    lines: list[int] = []  # the line of each row, to name it
    for line, row in rows:
        for k, label in enumerate(row):
            if not label:
                raise ValueError(f"{source}, line {line}, column {header[k]!r}: empty label")
            columns[k].append(label)
        lines.append(line)
    if not columns[0]:
        raise ValueError(f"{source}: no data rows below the header")
    fold_labels = None
    if folds is not None:
        if folds not in header or folds == truth:
            raise ValueError(f"{source}, line 1: no column {folds!r} of folds beside the true classes (the columns are "
                             f"{', '.join(map(repr, header))}); name it with the parameter folds")  # fmt: skip
        fold_column = columns.pop(header.index(folds))
        for label in dict.fromkeys(fold_column):  # as text, before numpy's string arrays drop trailing NULs
            _check_name(label, "fold", f"{source}, column {folds!r}")
        fold_labels = np.array(fold_column)
        header = [name for name in header if name != folds]
        if len(header) < 2:
            raise ValueError(f"{source}, line 1: no classifier columns beside {truth!r} and the folds {folds!r}")
    return header, columns, lines, fold_labels
