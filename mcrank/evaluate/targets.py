"""The front door of every evaluate input: the class order, the positive class, the orientation.

A utility matrix ``U`` has one row per decision and one column per true class, in one **class
order**, and every door of the package (labels, confusion matrices, scores, decision curves,
the scikit-learn scorer and :class:`~mcrank.sklearn.UtilityClassifier`, the command line)
reads it by the same rule (:func:`class_order`), as scikit-learn checks the targets of every
metric in one place (``_check_targets``):

1. the order the user names (``classes=``, ``--classes``, ``labels=`` in :mod:`mcrank.sklearn`);
2. else the utility's own class names (``{"utility": ..., "classes": [...]}``);
3. else, for three classes or more, when the labels are the integers ``0..n-1`` (or their
   text, in a file), their natural order: class ``k`` is row and column ``k``;
4. else nothing is guessed: the order is refused, with what to give, by one ValueError naming
   the parameter (:func:`unnamed_order`). Two classes are never read in a natural order, not
   even labels 0/1 or booleans: a two-class matrix is as often written positive class first
   (class 1 first, the cell of the true positives top left) as in class order, and the two
   readings give different yields (a utility written class 1 first for labels 0/1, read in
   class order, once reported +43.6 where the truth was -11.3).

What names the order, in every door: ``classes=`` (``labels=`` for the scikit-learn classes,
``--classes`` on the command line); a utility keyed by class, ``{"utility": [[...]], "classes":
[...]}`` (as JSON too: ``--utility``, a file's ``"utility"`` with ``"classes"``); an affine
per-item utility, which names its classes. A utility that reads alike in both orders of two
classes (:func:`reads_alike`: the identity, ``utility="identity"``, any matrix equal to itself
with the classes swapped) needs no name, and confusion matrices given as arrays are read position by position,
as the utility is.

A binary scoring door also needs the **positive class**, the one the scores are for
(:func:`positive_class`): the one named (``positive=``, ``--positive``); else the first of the
named classes; else 1 (True) for labels 0/1, -1/1 or booleans, as scikit-learn's ``pos_label``
(numbers, integers or whole floats, or their text, as a file holds them: every door alike);
where the last two disagree, or neither applies, it is refused. The matrix is still read in
class order, which is named (two classes have no natural one): the positive class picks which
column of ``U`` the scores point to, not which row comes first.

Confusion matrices given as arrays are in mcrank's orientation (``"decision-by-class"``:
rows = decision, columns = true class) unless ``orientation="sklearn"`` says they are
scikit-learn's (rows = true class, columns = prediction, as ``confusion_matrix`` returns
them): :func:`oriented`. :func:`class_header` is the line every report prints.
"""

from __future__ import annotations

import re

import numpy as np

from mcrank._validation import array_input

__all__ = ["CLASS_ORDERS", "DEFAULT_ORIENTATION", "LAYOUT", "ORIENTATIONS", "check_orientation", "class_header", "class_order",
           "natural_classes", "oriented", "positive_class", "reads_alike", "unnamed_order"]  # fmt: skip

#: The one layout of a utility matrix, said once in every report.
LAYOUT = "rows = decision, columns = true class"
#: The orientations of a confusion matrix given as an array, and what each means.
ORIENTATIONS = {
    "decision-by-class": "rows = decision (output), columns = true class: mcrank's layout",
    "sklearn": "rows = true class, columns = prediction: scikit-learn's confusion_matrix",
}
DEFAULT_ORIENTATION = "decision-by-class"
#: Where a class order came from (:func:`class_order`), as the reports name it.
CLASS_ORDERS = {
    "given": "as named",
    "utility": "the utility's order",
    "natural": "the labels' natural order",
}
_WHOLE = re.compile(r"0|[1-9][0-9]*")


def check_orientation(value, what: str = "orientation") -> str:
    """One of :data:`ORIENTATIONS`, or a ValueError naming ``what``."""
    if not isinstance(value, str) or value not in ORIENTATIONS:
        raise ValueError(f"{what}: {value!r} is not an orientation; give one of {', '.join(ORIENTATIONS)} ({ORIENTATIONS['sklearn']})")
    return value


def oriented(matrix, orientation: str, what: str = "orientation") -> np.ndarray:
    """A confusion matrix in mcrank's orientation (rows = decision, columns = true class).

    Parameters
    ----------
    matrix : array_like of shape (..., n, n)
    orientation : {"decision-by-class", "sklearn"}
        The orientation ``matrix`` is given in (:data:`ORIENTATIONS`).
    what : str
        The parameter's name, for the message.
    """
    check_orientation(orientation, what)
    array = np.asarray(array_input(matrix, "confusion matrix"))
    return np.swapaxes(array, -1, -2) if orientation == "sklearn" else array


def _is_integer(label) -> bool:
    return isinstance(label, (int, np.integer)) and not isinstance(label, (bool, np.bool_))


def natural_classes(labels, n: int) -> tuple | None:
    """The natural class order of ``labels`` for an n-class utility, or None.

    Labels that are all integers in ``0..n-1`` (Python or NumPy integers, or their decimal
    text without a sign or leading zeros, as a file holds them) give ``(0, ..., n-1)`` (as
    text for text labels): class ``k`` is row and column ``k``, even for a class no label
    names. Labels that are all booleans give ``(False, True)`` for ``n = 2``. This is the
    labels' order, not the utility's: :func:`class_order` reads a matrix in it for three
    classes or more only.
    """
    labels = list(labels)
    if not labels:
        return None
    if all(isinstance(v, (bool, np.bool_)) for v in labels):
        return (False, True) if n == 2 else None
    if all(_is_integer(v) and 0 <= v < n for v in labels):
        return tuple(range(n))
    if all(isinstance(v, str) and _WHOLE.fullmatch(v) and int(v) < n for v in labels):
        return tuple(str(k) for k in range(n))
    return None


def _listed(values, limit: int = 5) -> str:
    values = list(values)
    shown = ", ".join(map(repr, values[:limit]))
    return shown + (f", ... ({len(values) - limit} more)" if len(values) > limit else "")


def _suggested(labels) -> list:
    try:
        return sorted(set(labels))
    except TypeError:  # labels of mixed types have no order
        return list(dict.fromkeys(labels))


def reads_alike(utility) -> bool:
    """Whether a two-class utility matrix gives every decision rule the same yield in both class
    orders: it equals itself with the two classes swapped (rows and columns), as the identity does.
    Such a matrix needs no named order."""
    u = np.asarray(utility)
    return u.shape == (2, 2) and bool(np.array_equal(u, u[::-1, ::-1]))


def class_order(labels, n: int, *, classes=None, utility_classes=None, where: str = "y_true",
                order_free: bool = False) -> tuple[tuple, str]:  # fmt: skip
    """The class order of an n-class utility matrix for these labels, and where it came from.

    Parameters
    ----------
    labels : iterable, or dict of label to str
        The distinct labels (true classes and outputs) that the order must cover; as a dict,
        each with what holds it, which a message names instead of ``where``.
    n : int
        The utility matrix's number of classes (its columns).
    classes : sequence, optional
        The order the user names. Its labels must be distinct.
    utility_classes : sequence of str, optional
        The utility's own class names; they must agree with ``classes`` when both are given.
    where : str
        What holds the labels, for messages.
    order_free : bool
        The utility reads alike in both orders of two classes (:func:`reads_alike`): labels
        0/1 or booleans may then take their natural order.

    Returns
    -------
    classes : tuple
        The labels in class order: row and column ``k`` of the utility is ``classes[k]``.
    source : {"given", "utility", "natural"}
        Which rule gave it (:data:`CLASS_ORDERS`).

    Raises
    ------
    ValueError
        Naming ``classes``: no rule applies (text labels, or integers other than 0..n-1, with a
        matrix that names no classes), ``classes`` and the utility's names disagree, a label
        named twice, a label that is not one of the classes.
    """
    holders, labels = (labels if isinstance(labels, dict) else {}), list(labels)
    if classes is not None:
        classes = tuple(classes.tolist() if isinstance(classes, np.ndarray) else classes)
        if utility_classes is not None and tuple(map(str, classes)) != tuple(utility_classes):
            raise ValueError(f"classes: {_listed(classes)} but the utility names its classes {_listed(utility_classes)}: "
                             "give one order")  # fmt: skip
        source = "given"
    elif utility_classes is not None:
        classes, source = tuple(utility_classes), "utility"
    else:
        classes, source = natural_classes(labels, n), "natural"
        if classes is None or (n == 2 and not order_free):
            raise ValueError(unnamed_order(labels, n, where))
    if len(classes) != n:
        raise ValueError(f"classes: {len(classes)} classes ({_listed(classes)}) but the utility matrix has {n} columns, "
                         "one per true class")  # fmt: skip
    if len(set(classes)) != len(classes):
        raise ValueError(f"classes: {next(c for c in classes if classes.count(c) > 1)!r} is named twice")
    # Labels are matched to a named order as they are or by their text (a file's labels are text).
    known = set(classes) | {str(c) for c in classes}
    if unknown := [label for label in dict.fromkeys(labels) if label not in known and str(label) not in known]:
        raise ValueError(f"{holders.get(unknown[0], where)}: label {unknown[0]!r} is not one of the classes {_listed(classes, 10)}")
    return classes, source


def unnamed_order(labels, n: int, where: str = "y_true", parameter: str = "classes") -> str:
    """The one refusal of a utility matrix whose class order is not named (:func:`class_order`):
    two classes, or labels other than the integers 0..n-1; it names ``parameter``."""
    shown = _suggested(labels)
    with_classes = (
        'or give the utility with its classes, {"utility": [[...]], "classes": [...]}'
        if parameter == "classes"
        else "or an AffineUtility, which names its classes"
    )
    if n == 2 and natural_classes(labels, 2) is not None:
        first, second = natural_classes(labels, 2)
        return (f"{parameter}: the labels of {where} are {first!r} and {second!r}, and a two-class utility matrix is written either "
                f"in class order ({first} first) or positive class first ({second} first), which give different yields: "
                f"name its order ({LAYOUT}) with the parameter {parameter} ({first},{second} or {second},{first}), {with_classes}")  # fmt: skip
    how = f"e.g. {','.join(map(str, shown[:n]))}"
    why = "two classes have no natural order" if n == 2 else f"they are not the integers 0..{n - 1}"
    return (f"{parameter}: the labels of {where} ({_listed(shown)}): {why}, so the order of the utility matrix's rows and "
            f"columns ({LAYOUT}) is not known: name it with the parameter {parameter} ({how}), {with_classes}")  # fmt: skip


#: The text of a label 0, 1 or -1 as a file holds it (a file's labels are text): ``1``, ``1.0``, ``-1``.
_UNIT = re.compile(r"-?[01](\.0*)?")


def _unit_value(label) -> float | None:
    """A label's value for the 0/1 rule of :func:`_sklearn_positive`: that of a number (an integer,
    or a float that is whole) or of its text (``"0"``, ``"1"``, ``"1.0"``, ``"-1"``); None for any
    other label."""
    if isinstance(label, (bool, np.bool_)):
        return None
    if isinstance(label, str):
        return float(label) if _UNIT.fullmatch(label) else None
    if _is_integer(label) or isinstance(label, (float, np.floating)):
        return float(label)
    return None


def _sklearn_positive(labels: list):
    """scikit-learn's ``pos_label`` rule: 1 (True) when the labels are {0, 1}, {-1, 1} or booleans,
    given as numbers (integers or whole floats) or as their text, which a file holds: the label
    that is 1 (as given: ``1``, ``1.0``, ``"1"``), so that the API and the command line decide alike."""
    if all(isinstance(v, (bool, np.bool_)) for v in labels):
        return True
    values = [_unit_value(v) for v in labels]
    if None in values or not (set(values) <= {0.0, 1.0} or set(values) <= {-1.0, 1.0}):
        return None
    if 1.0 in values:
        one = labels[values.index(1.0)]
        return one.item() if isinstance(one, np.generic) else one
    # Only the other class occurs: 1 in the labels' own form.
    return "1" if isinstance(labels[0], str) else 1.0 if isinstance(labels[0], (float, np.floating)) else 1


def _same(a, b) -> bool:
    return a == b or str(a) == str(b)


def positive_class(labels, *, positive=None, classes=None, where: str = "y_true", what: str = "scores"):
    """The positive class of a binary scoring door: the one the scores are for.

    Parameters
    ----------
    labels : list
        The distinct true labels (at most two).
    positive : label, optional
        The positive class as the user names it.
    classes : sequence of 2 labels, optional
        The named class order (of :func:`class_order`, ``classes=`` or the utility's names).
    where : str
        What holds the labels, for messages.
    what : str
        What is given for the positive class (``"scores"``, ``"probabilities"``), for messages.

    Returns
    -------
    label
        ``positive`` when given; else the first of ``classes``; else 1 (True) for labels 0/1,
        -1/1 or booleans, as numbers or as their text (a file's ``0`` and ``1``), so that every
        door decides alike. Where the last two disagree it is refused: name it.
    """
    if positive is not None:
        return positive
    first = None if classes is None else classes[0]
    default = _sklearn_positive(labels)
    if first is not None and default is not None and not _same(first, default):
        raise ValueError(
            f"positive: the first of the classes is {first!r} but scikit-learn's positive label for {where} is "
            f"{default!r}: name the class the {what} are for with the parameter positive ({default!r} or {first!r})"
        )
    if first is None and default is None:
        raise ValueError(
            f"positive: give the label of the positive class, the one the {what} are for ({where} has the labels "
            f"{_listed(labels)}); it is 1 by default only for labels 0/1 or -1/1, or the first of the classes when they are named"
        )
    return first if first is not None else default


def class_header(classes, source: str | None = None, positive=None) -> str:
    """The one line of a report that says how the utility matrix is read:
    ``"Classes: benign, malignant (the utility's order); rows = decision, columns = true class."``"""
    origin = "" if source is None else f" ({CLASS_ORDERS[source]})"
    with_positive = "" if positive is None else f"; positive: {positive}"
    return f"Classes: {', '.join(map(str, classes))}{origin}; {LAYOUT}{with_positive}."
