"""Rank real classifiers by utility yield, and show where popular metrics mislead (paper §3-4.1).

Give the confusion matrices (counts) of K >= 1 classifiers tested on the same test set, in
the paper's layout (rows = output, columns = true class), and the problem's utility matrix.
:func:`evaluate` ranks the classifiers by their utility yield per test item, eq. (9), scores
them with the popular metrics (the whole binary library of :mod:`mcrank.metrics` for two
classes, :mod:`mcrank.multiclass` for more), and lists every metric whose ranking disagrees
with the utility yield, pair by pair.

The utility matrix is given in one of three forms:

- one n x n matrix ``U``;
- a distribution over several matrices with their probabilities: classifiers are ranked
  under the expected utility matrix of eq. (17) (paper §4.1);
- a matrix with an error standard deviation ``sd``, to express how unsure one is of it. The
  ranking is the one under ``U``; in addition, for every pair of classifiers, the probability
  that the ranking flips when ``U`` is off by errors of that size is estimated by Monte
  Carlo. ``sd`` is in units of the *normalised* utility matrix, eq. (11) (minimum 0,
  maximum 1), as in the paper's §4.2: ``U`` is normalised before it is perturbed. The
  ``gaussian`` error model is centred on ``U``; the ``truncated`` one keeps every element in
  [0, 1] and correct classification best in each column, so it pushes elements at 0 or 1
  inwards and is *not* centred on ``U``: flip probabilities above 1/2 can occur.

Inputs come from a JSON file, a long-form CSV file (:func:`load_input`) or, in Python,
label arrays as scikit-learn's ``confusion_matrix`` takes them
(:func:`confusions_from_labels`). Every bad input raises a ValueError (or OSError) whose
one-line message says what is wrong and where.

Examples
--------
The paper's story (§0) from label arrays:

>>> from mcrank.evaluate import confusions_from_labels, evaluate
>>> y_true = ["long"] * 50 + ["short"] * 50
>>> y_a = ["long"] * 27 + ["short"] * 23 + ["long"] * 15 + ["short"] * 35
>>> y_b = ["long"] * 43 + ["short"] * 7 + ["long"] * 18 + ["short"] * 32
>>> confusions, classes = confusions_from_labels({"A": (y_true, y_a), "B": (y_true, y_b)})
>>> confusions["A"].tolist()  # rows = output, columns = true class
[[27, 15], [23, 35]]
>>> result = evaluate(confusions, [[15, -335], [-35, 165]], classes=classes)
>>> [(c.name, c.utility_yield) for c in result.classifiers]
[('A', 3.5), ('B', -3.5)]
>>> [d.metric for d in result.disagreements][:3]
['accuracy', 'tpr', 'precision']
"""

from __future__ import annotations

import csv
import json
import math
import numbers
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from mcrank._rng import resolve_rng, root_seed_sequence
from mcrank.confusion import from_sklearn
from mcrank.metrics import METRICS, get_metric
from mcrank.multiclass import MULTICLASS_METRICS, get_multiclass_metric
from mcrank.samplers import ERROR_MODELS as _SAMPLER_ERROR_MODELS
from mcrank.samplers import perturb_um
from mcrank.utility_space import expected_um, normalise_um

__all__ = [
    "ClassifierResult",
    "Disagreement",
    "Evaluation",
    "EvaluationInput",
    "PairFlip",
    "UtilityAssessment",
    "confusions_from_labels",
    "evaluate",
    "evaluate_file",
    "load_input",
    "metrics_for",
    "parse_utility",
    "read_utility",
]

#: The error models of the utility matrix, those of :func:`mcrank.samplers.perturb_um`.
ERROR_MODELS = tuple(_SAMPLER_ERROR_MODELS)
#: Monte Carlo samples of perturbed utility matrices, unless told otherwise.
DEFAULT_SAMPLES = 100_000
#: Binary metrics left out by default: F-beta with beta = 1 is F1.
_BINARY_SKIPPED = ("fbeta",)
_FILE_KEYS = ("classifiers", "utility", "classes", "description")
_CSV_COLUMNS = ("classifier", "output", "true", "count")
# Perturbed matrices held in memory at once, in matrix elements.
_CHUNK_ELEMENTS = 1 << 22


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


def _plain(value):
    """Nested lists from arrays and tuples, so that Python callers may pass either."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _number(value, where: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{where}: {value!r} is not a number")
    return float(value)


def _matrix_from_json(value, where: str) -> np.ndarray:
    """A square matrix from nested JSON lists, with the place of the first fault."""
    value = _plain(value)
    if not isinstance(value, list) or not value:
        raise ValueError(f"{where}: expected a square matrix (a list of rows), got {json.dumps(value)[:40]}")
    n = len(value)
    for i, row in enumerate(value):
        if not isinstance(row, list):
            raise ValueError(f"{where}: row {i} is not a list of numbers")
        if len(row) != n:
            raise ValueError(f"{where}: not square: {n} rows but row {i} has {len(row)} entries")
    return np.array(
        [[_number(v, f"{where}, row {i}, column {j}") for j, v in enumerate(row)] for i, row in enumerate(value)]
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
        sd = _check_sd(sd, f"{source}: sd")
    error = _check_error(value.get("error", "gaussian"), f"{source}: error")
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
    if np.ptp(u) == 0:
        what = "the expected utility matrix" if assessment.matrices is not None else "the utility matrix"
        raise ValueError(f"{where}: {what} is constant: every decision is worth the same, so it ranks nothing (eq. 11)")
    return assessment


def _check_sd(sd, where: str) -> float:
    if isinstance(sd, bool) or not isinstance(sd, (int, float, np.floating, np.integer)):
        raise ValueError(f"{where}: {sd!r} is not a number")
    sd = float(sd)
    if not (math.isfinite(sd) and sd > 0):
        raise ValueError(f"{where}: the error sd must be positive and finite, got {sd:g}")
    return sd


def _check_error(error, where: str) -> str:
    if error not in ERROR_MODELS:
        raise ValueError(f"{where}: unknown error model {error!r}; choose from {', '.join(ERROR_MODELS)}")
    return error


def read_utility(text: str, *, source: str = "--utility") -> tuple[UtilityAssessment, tuple[str, ...] | None]:
    """Read a utility assessment from JSON text or from a JSON file.

    Parameters
    ----------
    text : str
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
    """
    stripped = text.strip()
    if stripped.startswith(("[", "{")):
        value = _loads(stripped, source)
    else:
        path = Path(text)
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
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise ValueError(f"{source}: not valid JSON: {error.msg} at {where}") from None
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None


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
        Validated only for form; :func:`evaluate` checks the numbers.
    """
    path = Path(path)
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
        name: _matrix_from_json(matrix, f"{source}: classifier {name!r}") for name, matrix in classifiers.items()
    }
    utility = parse_utility(data["utility"], source=f"{source}: utility") if "utility" in data else None
    classes = _parse_classes(data["classes"], source) if "classes" in data else None
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        raise ValueError(f"{source}: 'description' must be a string")
    return EvaluationInput(confusions, utility, classes, description, source)


def _load_csv(text: str, source: str, classes: tuple[str, ...] | None) -> EvaluationInput:
    try:
        rows = list(csv.reader(text.splitlines()))
    except csv.Error as error:
        raise ValueError(f"{source}: not valid CSV: {error}") from None
    header = [h.strip().lower() for h in rows[0]]
    expected = ",".join(_CSV_COLUMNS)
    missing = [c for c in _CSV_COLUMNS if c not in header]
    if missing:
        raise ValueError(f"{source}, line 1: missing column {missing[0]!r}; the header must be {expected}")
    extra = [h for h in header if h not in _CSV_COLUMNS]
    if extra or len(header) != len(_CSV_COLUMNS):
        raise ValueError(f"{source}, line 1: unexpected column {(extra or header)[0]!r}; the header must be {expected}")
    column = {name: header.index(name) for name in _CSV_COLUMNS}
    records = []
    for line, row in enumerate(rows[1:], start=2):
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise ValueError(f"{source}, line {line}: expected {len(header)} fields, got {len(row)}")
        cells = {name: row[index].strip() for name, index in column.items()}
        for name in ("classifier", "output", "true"):
            if not cells[name]:
                raise ValueError(f"{source}, line {line}: empty {name!r} field")
        try:
            count = float(cells["count"])
        except ValueError:
            raise ValueError(f"{source}, line {line}: count {cells['count']!r} is not a number") from None
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


def _cell(i: int, j: int, classes) -> str:
    return f"row {i} (output {classes[i]!r}), column {j} (true {classes[j]!r})"


def _check_confusions(confusions, classes, source: str) -> tuple[dict[str, np.ndarray], tuple[str, ...]]:
    """Counts as float arrays and the class names; every fault named with its classifier and cell."""
    if not isinstance(confusions, dict) or not confusions:
        raise ValueError(_where(source, "no classifiers: give a non-empty mapping of names to confusion matrices"))
    checked = {}
    first_name = None
    for name, matrix in confusions.items():
        where = _where(source, f"classifier {name!r}")
        try:
            c = np.asarray(matrix, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: the confusion matrix is not an array of numbers") from None
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
    for name, c in checked.items():
        where = _where(source, f"classifier {name!r}")
        for test, problem in (
            (np.isnan(c), "is NaN"),
            (np.isinf(c), "is infinite"),
            (c < 0, "is negative"),
            (np.isfinite(c) & (c != np.round(c)), "is not a whole number (give counts, not fractions)"),
        ):
            bad = np.argwhere(test)
            if len(bad):
                i, j = bad[0]
                raise ValueError(f"{where}, {_cell(i, j, classes)}: count {c[i, j]:g} {problem}")
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


def metrics_for(n_classes: int, names=None) -> list:
    """The popular metrics that :func:`evaluate` reports for ``n_classes`` classes.

    Parameters
    ----------
    n_classes : int
    names : sequence of str, optional
        Metric ids (binary aliases such as ``"recall"`` accepted). By default every metric
        of :data:`mcrank.metrics.METRICS` but ``fbeta`` (with beta = 1 it is ``f1``) for two
        classes, every metric of :data:`mcrank.multiclass.MULTICLASS_METRICS` for more.

    Returns
    -------
    list of Metric or MulticlassMetric

    Raises
    ------
    KeyError
        For an unknown metric name, with the list of known ones.
    """
    binary = n_classes == 2
    if names is None:
        if binary:
            return [m for m in METRICS.values() if m.id not in _BINARY_SKIPPED]
        return list(MULTICLASS_METRICS.values())
    chosen = []
    for name in names:
        if binary:
            try:
                metric = get_metric(name)
            except KeyError:
                known = ", ".join(m for m in METRICS if m not in _BINARY_SKIPPED)
                raise KeyError(f"unknown metric {name!r} for 2 classes; known: {known}") from None
            if metric.id in _BINARY_SKIPPED:
                raise KeyError(f"metric {name!r} is not offered: with beta = 1 it is 'f1'")
        else:
            try:
                metric = get_multiclass_metric(name)
            except KeyError:
                raise KeyError(
                    f"unknown metric {name!r} for {n_classes} classes; known: {', '.join(MULTICLASS_METRICS)}"
                ) from None
        if metric not in chosen:
            chosen.append(metric)
    if not chosen:
        raise KeyError("no metrics chosen")
    return chosen


# --- results --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClassifierResult:
    """One classifier in the ranking.

    Attributes
    ----------
    name : str
    rank : int
        By utility yield, 1 = best; tied classifiers share a rank.
    utility_yield : float
        Utility per test item, eq. (9), in the units of the utility matrix.
    scores : dict of str to float
        Score under each popular metric, by id (NaN where undefined).
    ranks : dict of str to int or None
        Rank under each metric, 1 = best (None where the score is undefined).
    confusion : ndarray of shape (n, n)
        The counts.
    """

    name: str
    rank: int
    utility_yield: float
    scores: dict[str, float]
    ranks: dict[str, int | None]
    confusion: np.ndarray = field(repr=False, compare=False)


@dataclass(frozen=True)
class Disagreement:
    """A metric whose ranking disagrees with the utility yield, and the pairs on which it does.

    Each pair is ``(first, second)`` with ``first`` ranked at least as high as ``second`` by
    the utility yield.

    Attributes
    ----------
    metric, name : str
        The metric's id and display name.
    flipped : tuple of (str, str)
        The utility yield prefers ``first``, the metric prefers ``second``.
    tied : tuple of (str, str)
        One of the two (utility yield or metric) ties the pair, the other does not.
    undefined : tuple of (str, str)
        The metric is undefined (0/0) for one of the two.
    best : tuple of str
        The classifiers the metric ranks first.
    """

    metric: str
    name: str
    flipped: tuple[tuple[str, str], ...]
    tied: tuple[tuple[str, str], ...]
    undefined: tuple[tuple[str, str], ...]
    best: tuple[str, ...] = ()


@dataclass(frozen=True)
class PairFlip:
    """How likely the utility ranking of a pair is to flip, given errors on the utility matrix.

    Attributes
    ----------
    better, worse : str
        The pair, ``better`` ranked at least as high by the utility yield.
    utility_difference : float
        ``yield(better) - yield(worse)`` per test item, in the units of the utility matrix.
    flip_probability : float or None
        Fraction of perturbed utility matrices under which ``better`` does not come out
        strictly ahead (ties count as flips, as in the paper's §4.2); None when the two are
        tied under the utility matrix itself (no ranking to flip).
    standard_error : float or None
        Monte Carlo standard error of ``flip_probability``, ``sqrt(f (1 - f) / samples)``.
    flips : int or None
        Number of perturbed matrices under which the ranking flips.
    """

    better: str
    worse: str
    utility_difference: float
    flip_probability: float | None
    standard_error: float | None
    flips: int | None


def _clean(value):
    """JSON-safe: NaN becomes None."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


@dataclass(frozen=True)
class Evaluation:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    classifiers : tuple of ClassifierResult
        In rank order by utility yield (best first; ties in input order).
    disagreements : tuple of Disagreement
        One per metric whose ranking disagrees with the utility yield, in metric order.
    pairs : tuple of PairFlip or None
        With an error sd: every pair of classifiers, in rank order; otherwise None.
    classes : tuple of str
    class_totals : ndarray of shape (n,)
        Test items of each true class.
    utility : UtilityAssessment
    normalised_utility : ndarray of shape (n, n)
        The ranking matrix in the standard form of eq. (11), to which ``sd`` refers.
    metrics : tuple of (str, str)
        The (id, name) of every metric reported.
    samples : int or None
        Monte Carlo samples, with an error sd.
    seed : int or None
        Root seed of the Monte Carlo run (None if a Generator was passed).
    """

    classifiers: tuple[ClassifierResult, ...]
    disagreements: tuple[Disagreement, ...]
    pairs: tuple[PairFlip, ...] | None
    classes: tuple[str, ...]
    class_totals: np.ndarray
    utility: UtilityAssessment
    normalised_utility: np.ndarray
    metrics: tuple[tuple[str, str], ...]
    samples: int | None = None
    seed: int | None = None
    description: str | None = None

    def to_dict(self) -> dict:
        """A JSON-ready dict: ``classifiers`` in rank order, ``disagreements``, and ``pairs``
        (with an error sd), plus the classes, the test set and the utility matrix used.
        Undefined scores are None."""
        u = self.utility
        utility = {"matrix": u.matrix.tolist(), "normalised": self.normalised_utility.tolist(), "form": u.describe()}
        if u.matrices is not None:
            utility["matrices"] = u.matrices.tolist()
            utility["probabilities"] = u.probabilities.tolist()
        result = {
            "description": self.description,
            "classes": list(self.classes),
            "test_set": {
                "items": int(self.class_totals.sum()),
                "class_totals": {name: int(t) for name, t in zip(self.classes, self.class_totals)},
            },
            "utility": utility,
            "metrics": [{"id": mid, "name": name} for mid, name in self.metrics],
            "classifiers": [
                {
                    "name": c.name,
                    "rank": c.rank,
                    "utility_yield": c.utility_yield,
                    "scores": {k: _clean(v) for k, v in c.scores.items()},
                    "ranks": dict(c.ranks),
                    "confusion": c.confusion.astype(int).tolist(),
                }
                for c in self.classifiers
            ],
            "disagreements": [
                {
                    "metric": d.metric,
                    "name": d.name,
                    "flipped": [list(p) for p in d.flipped],
                    "tied": [list(p) for p in d.tied],
                    "undefined": [list(p) for p in d.undefined],
                    "best": list(d.best),
                }
                for d in self.disagreements
            ],
        }
        if self.pairs is not None:
            utility["sd"] = u.sd
            utility["error"] = u.error
            result["monte_carlo"] = {"sd": u.sd, "error": u.error, "samples": self.samples, "seed": self.seed}
            result["pairs"] = [
                {
                    "better": p.better,
                    "worse": p.worse,
                    "utility_difference": p.utility_difference,
                    "flip_probability": p.flip_probability,
                    "standard_error": p.standard_error,
                    "flips": p.flips,
                }
                for p in self.pairs
            ]
        return result


# --- the evaluation -------------------------------------------------------------------------


#: Differences within this fraction of the values' scale are rounding errors: ties.
_TIE_TOLERANCE = 1e-12


def _compare(a: float, b: float, scale: float | None = None) -> int:
    """The sign of ``a - b``, 0 when the difference is within rounding of ``scale``.

    ``scale`` defaults to ``max(1, |a|, |b|)``, right for metrics (values of order 1).
    """
    if scale is None:
        scale = max(1.0, abs(a), abs(b))
    difference = a - b
    if abs(difference) <= _TIE_TOLERANCE * scale:
        return 0
    return 1 if difference > 0 else -1


def _competition_ranks(values: np.ndarray, scale: float | None = None) -> list[int | None]:
    """Rank 1 = highest; equal values share the best rank among them; NaN gets None."""
    defined = [w for w in values if not np.isnan(w)]
    return [None if np.isnan(v) else 1 + sum(_compare(w, v, scale) > 0 for w in defined) for v in values]


def evaluate(
    confusions,
    utility,
    *,
    classes=None,
    sd: float | None = None,
    error: str | None = None,
    samples: int = DEFAULT_SAMPLES,
    rng=None,
    metrics=None,
    source: str = "",
) -> Evaluation:
    """Rank classifiers by utility yield, and compare with the popular metrics.

    Parameters
    ----------
    confusions : dict of str to array_like of shape (n, n)
        Counts per classifier, all on the same test set; rows = output, columns = true
        class (the transpose of scikit-learn's ``confusion_matrix``; see
        :func:`confusions_from_labels`).
    utility : array_like of shape (n, n), dict or UtilityAssessment
        The utility matrix, in any form of :func:`parse_utility`.
    classes : sequence of str, optional
        Class names, in order; ``"0"``, ``"1"``, ... by default.
    sd : float, optional
        Error standard deviation on the utility matrix *normalised by eq. (11)*; overrides
        one in ``utility``. With it, the flip probability of every pair is estimated.
    error : {"gaussian", "truncated"}, optional
        Error model for ``sd`` (see :func:`mcrank.samplers.perturb_um`); overrides one in
        ``utility``; ``"gaussian"`` by default.
    samples : int, default 100000
        Monte Carlo samples of perturbed utility matrices.
    rng : int, SeedSequence, Generator or None
        Randomness of the Monte Carlo estimate.
    metrics : sequence of str, optional
        Metric ids to report (see :func:`metrics_for`).
    source : str, optional
        Where the confusion matrices come from (a file name), to prefix messages.

    Returns
    -------
    Evaluation

    Raises
    ------
    ValueError
        For bad input, naming the fault and where it is.
    KeyError
        For an unknown metric.
    """
    checked, classes = _check_confusions(confusions, classes, source)
    if not isinstance(utility, UtilityAssessment):
        utility = parse_utility(utility)
    n = len(classes)
    if utility.matrix.shape != (n, n):
        m = utility.matrix.shape[0]
        raise ValueError(f"{utility.source}: the utility matrix is {m}x{m} but the confusion matrices are {n}x{n}")
    if sd is not None or error is not None:
        utility = UtilityAssessment(
            utility.matrix,
            utility.matrices,
            utility.probabilities,
            utility.sd if sd is None else _check_sd(sd, "sd"),
            utility.error if error is None else _check_error(error, "error"),
            utility.source,
        )
    if error is not None and utility.sd is None:
        raise ValueError(f"an error model ({error!r}) needs an error sd")
    chosen = metrics_for(n, metrics)
    names = list(checked)
    counts = np.array([checked[name] for name in names])
    class_totals = counts[0].sum(axis=0)
    total = class_totals.sum()
    # Total utilities compared, then divided by N once: whole utilities and counts tie exactly;
    # otherwise differences within rounding of the largest term count as ties.
    totals = np.sum(utility.matrix * counts, axis=(1, 2))
    yields = totals / total
    utility_scale = float(np.max(np.abs(utility.matrix)) * total)
    utility_ranks = _competition_ranks(totals, utility_scale)
    order = sorted(range(len(names)), key=lambda k: (utility_ranks[k], -totals[k], k))
    scores = {metric.id: np.array([float(metric(c)) for c in counts]) for metric in chosen}
    metric_ranks = {mid: _competition_ranks(values) for mid, values in scores.items()}
    results = tuple(
        ClassifierResult(
            name=names[k],
            rank=utility_ranks[k],
            utility_yield=float(yields[k]),
            scores={mid: float(values[k]) for mid, values in scores.items()},
            ranks={mid: ranks[k] for mid, ranks in metric_ranks.items()},
            confusion=counts[k],
        )
        for k in order
    )
    pairs_in_order = [(order[a], order[b]) for a in range(len(order)) for b in range(a + 1, len(order))]
    disagreements = []
    for metric in chosen:
        values = scores[metric.id]
        flipped, tied, undefined = [], [], []
        for first, second in pairs_in_order:
            pair = (names[first], names[second])
            if np.isnan(values[first]) or np.isnan(values[second]):
                undefined.append(pair)
                continue
            by_utility = _compare(totals[first], totals[second], utility_scale)
            by_metric = _compare(values[first], values[second])
            if by_utility == by_metric:
                continue
            (flipped if by_utility * by_metric < 0 else tied).append(pair)
        if flipped or tied or undefined:
            best = tuple(names[k] for k in order if metric_ranks[metric.id][k] == 1)
            disagreements.append(
                Disagreement(metric.id, metric.name, tuple(flipped), tuple(tied), tuple(undefined), best)
            )
    normalised = normalise_um(utility.matrix)
    pairs, seed = None, None
    if utility.sd is not None:
        samples = _check_samples(samples)
        flips, seed = _count_flips(normalised, counts / total, pairs_in_order, utility, samples, rng, classes)
        pairs = []
        for (a, b), count in zip(pairs_in_order, flips):
            difference = float((totals[a] - totals[b]) / total)
            if _compare(totals[a], totals[b], utility_scale) == 0:
                pairs.append(PairFlip(names[a], names[b], difference, None, None, None))
                continue
            f = count / samples
            standard_error = math.sqrt(f * (1 - f) / samples)
            pairs.append(PairFlip(names[a], names[b], difference, float(f), standard_error, int(count)))
        pairs = tuple(pairs)
    return Evaluation(
        classifiers=results,
        disagreements=tuple(disagreements),
        pairs=pairs,
        classes=classes,
        class_totals=class_totals,
        utility=utility,
        normalised_utility=normalised,
        metrics=tuple((m.id, m.name) for m in chosen),
        samples=samples if pairs is not None else None,
        seed=seed,
    )


def _check_samples(samples) -> int:
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValueError(f"samples must be a positive integer, got {samples!r}")
    return int(samples)


def _count_flips(normalised, confusions, pairs_in_order, utility, samples, rng, classes):
    """Monte Carlo: for each pair ``(a, b)``, how many of ``samples`` perturbed utility matrices
    fail to put ``a`` strictly ahead of ``b``; and the root seed, when one is known.

    All pairs share the same perturbed matrices (common random numbers), drawn in chunks from
    one Generator, so that the counts do not depend on the chunk size.
    """
    if utility.error == "truncated":
        n = len(normalised)
        for j in range(n):
            for i in range(n):
                if normalised[i, j] > normalised[j, j]:
                    raise ValueError(
                        f"{utility.source}: the truncated error model keeps correct classification best in each "
                        f"column, but in column {j} (true {classes[j]!r}) row {i} has a higher utility than row {j}"
                    )
    seed = None
    if not isinstance(rng, np.random.Generator):
        sequence = root_seed_sequence(rng)
        seed = int(sequence.entropy) if sequence.spawn_key == () else None
        rng = sequence
    generator = resolve_rng(rng)
    n = normalised.shape[0]
    chunk = max(1, _CHUNK_ELEMENTS // (n * n))
    flips = np.zeros(len(pairs_in_order), dtype=np.int64)
    first = np.array([a for a, _ in pairs_in_order], dtype=np.int64)
    second = np.array([b for _, b in pairs_in_order], dtype=np.int64)
    flat_confusions = confusions.reshape(len(confusions), -1)
    done = 0
    while done < samples:
        size = min(chunk, samples - done)
        perturbed = perturb_um(normalised, utility.sd, error=utility.error, size=size, rng=generator)
        perturbed_yields = perturbed.reshape(size, -1) @ flat_confusions.T  # (size, classifiers)
        flips += np.sum(perturbed_yields[:, first] <= perturbed_yields[:, second], axis=0)
        done += size
    return flips, seed


def evaluate_file(
    path,
    *,
    utility: str | None = None,
    sd: float | None = None,
    error: str | None = None,
    samples: int = DEFAULT_SAMPLES,
    rng=None,
    metrics=None,
) -> Evaluation:
    """Evaluate the classifiers of an input file: :func:`load_input`, then :func:`evaluate`.

    Parameters
    ----------
    path : str or Path
        A JSON or CSV file (see :func:`load_input`).
    utility : str, optional
        JSON text or a JSON file with the utility matrix (see :func:`read_utility`); it
        overrides the file's. Its class names, if any, give the class order of a CSV file
        and must match those of a JSON file.
    sd, error, samples, rng, metrics
        As for :func:`evaluate`; ``sd`` and ``error`` override those of the utility.

    Returns
    -------
    Evaluation
    """
    utility_classes = None
    assessment = None
    if utility is not None:
        assessment, utility_classes = read_utility(utility)
    data = load_input(path, classes=utility_classes)
    if assessment is None:
        assessment = data.utility
    if assessment is None:
        raise ValueError(
            f"{data.source}: no utility matrix: the ranking needs the problem's utilities; "
            "add a 'utility' to the file or give one with --utility"
        )
    if data.classes is not None and utility_classes is not None and tuple(data.classes) != tuple(utility_classes):
        raise ValueError(
            f"class names do not match: {data.source} has {', '.join(data.classes)} but "
            f"{assessment.source} has {', '.join(utility_classes)}"
        )
    classes = data.classes if data.classes is not None else utility_classes
    result = evaluate(
        data.confusions,
        assessment,
        classes=classes,
        sd=sd,
        error=error,
        samples=samples,
        rng=rng,
        metrics=metrics,
        source=data.source,
    )
    return replace(result, description=data.description)
