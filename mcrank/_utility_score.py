"""Labels, utility matrices and the utility yield of predictions: what :mod:`mcrank.sklearn` and
the scikit-learn classes of :mod:`mcrank._sklearn` share (``utility_score`` is documented and
imported as :func:`mcrank.sklearn.utility_score`). It imports neither scikit-learn nor
:mod:`mcrank.sklearn`, so that the two import it and not each other."""

from __future__ import annotations

import re

import numpy as np

from mcrank.decisions import (
    _check_utility,
    _real_array,
    _scale_of,
)

#: The first scikit-learn with ``__sklearn_tags__`` and ``expected_failed_checks``.
MIN_SKLEARN_VERSION = (1, 6)

#: ``UtilityClassifier(calibration=...)``: the methods of ``CalibratedClassifierCV``, each with
#: the first scikit-learn that has it.
CALIBRATION_METHODS = {"sigmoid": (1, 6), "isotonic": (1, 6), "temperature": (1, 8)}


def _sklearn_version() -> tuple[int, ...]:
    import sklearn

    return tuple(int(part) for part in re.findall(r"\d+", sklearn.__version__)[:2])


def _import_sklearn():
    try:
        import sklearn  # lazily: the rest of mcrank runs without scikit-learn
    except ImportError as error:
        raise ImportError("mcrank.sklearn needs scikit-learn: pip install scikit-learn") from error
    found = _sklearn_version()
    if found < MIN_SKLEARN_VERSION:
        raise ImportError(
            f"mcrank.sklearn needs scikit-learn >= {'.'.join(map(str, MIN_SKLEARN_VERSION))}, "
            f"found {sklearn.__version__}: pip install -U scikit-learn"
        )


def _as_labels(values, what: str) -> np.ndarray:
    """A 1-D array of labels; a list of mixed types (such as ``[0, 1, "test"]``) stays Python objects."""
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{what} must be a sequence of labels, got the string {values!r}")
    if isinstance(values, np.ndarray) or hasattr(values, "__array__"):  # arrays, pandas
        array = np.asarray(values)
    else:
        items = list(values)
        kinds = {type(item.item() if isinstance(item, np.generic) else item) for item in items}
        # np.asarray([0, 1, "test"]) would turn 0 into "0", which would then match no class 0.
        array = np.asarray(items, dtype=object if len(kinds) > 1 else None)
    if array.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {array.shape}")
    return array


def _check_unique(labels: np.ndarray, what: str) -> None:
    seen = set()
    for label in labels.tolist():
        if label in seen:
            raise ValueError(f"{what} must not repeat a label: {label!r} appears more than once")
        seen.add(label)


def _indices(values: np.ndarray, labels: np.ndarray, what: str, among: str) -> np.ndarray:
    """The position in ``labels`` of every value, or a ValueError naming the first unknown label."""
    lookup = {label: i for i, label in enumerate(labels.tolist())}
    try:
        return np.fromiter((lookup[v] for v in values.tolist()), dtype=np.intp, count=values.shape[0])
    except (KeyError, TypeError):
        unknown = [v for v in values.tolist() if not _known(v, lookup)]
        raise ValueError(f"{what} holds {unknown[0]!r}, which {among} does not name ({labels.tolist()})") from None


def _known(value, lookup) -> bool:
    try:
        return value in lookup
    except TypeError:  # an unhashable label
        return False


def _natural_order(values, n_classes: int, what: str, order_free: bool = False) -> np.ndarray:
    """The classes of labels that are the integers 0..n-1, in their natural order, for three
    classes or more (:func:`mcrank.evaluate.targets.class_order`); any other labels, and two
    classes, even 0/1 or booleans, are refused (:func:`mcrank.evaluate.targets.unnamed_order`),
    since the order of the utility's columns would be a guess; but for a utility that reads alike
    in both orders (``order_free``, :func:`mcrank.evaluate.targets.reads_alike`)."""
    from mcrank.evaluate.targets import natural_classes, unnamed_order

    distinct = list(dict.fromkeys(values))
    try:
        shown = sorted(distinct)
    except TypeError:  # labels of mixed types
        shown = distinct
    if len(distinct) > n_classes:  # no order can fit them
        raise ValueError(f"utility has {n_classes} columns (one per true class) but there are {len(distinct)} classes {shown}; "
                         "pass labels= to name the classes in the utility's column order")  # fmt: skip
    if (classes := natural_classes(distinct, n_classes)) is None or (n_classes == 2 and not order_free):
        raise ValueError(unnamed_order(distinct, n_classes, what, parameter="labels"))
    return np.asarray(classes)


def _resolve_labels(utility: np.ndarray, labels, decisions, *, observed=()) -> tuple[np.ndarray, np.ndarray]:
    """Class labels (columns) and decision labels (rows) of a checked utility."""
    n_decisions, n_classes = utility.shape
    if labels is None:
        from mcrank.evaluate.targets import reads_alike

        seen = [v for values in observed for v in values.tolist()]
        classes = _natural_order(seen, n_classes, "y", decisions is None and reads_alike(utility)) if observed else None
    else:
        classes = _as_labels(labels, "labels")
        _check_unique(classes, "labels")
    if classes is not None and classes.shape[0] != n_classes:
        hint = "" if labels is not None else "; pass labels= to name the classes in the utility's column order"
        raise ValueError(
            f"utility has {n_classes} columns (one per true class) but there are {classes.shape[0]} classes {classes.tolist()}{hint}"
        )
    if decisions is None:
        if n_decisions != n_classes:
            raise ValueError(f"utility is {n_decisions}x{n_classes}: a rectangular utility needs decisions= naming its {n_decisions} rows")
        return classes, classes
    outputs = _as_labels(decisions, "decisions")
    _check_unique(outputs, "decisions")
    if outputs.shape[0] != n_decisions:
        raise ValueError(f"decisions names {outputs.shape[0]} decisions but utility has {n_decisions} rows (one per decision)")
    return classes, outputs


def _is_affine(utility) -> bool:
    from mcrank.evaluate.per_item import AffineUtility

    return isinstance(utility, AffineUtility)


def _utility_of_items(utility, n_items: int, labels, decisions, columns: dict):
    """The checked utility of ``n_items`` items (a matrix, or a per-item array), and the labels
    and decisions it names: an AffineUtility's own names unless ``labels``/``decisions`` are given."""
    from mcrank.evaluate.per_item import check_per_item

    if _is_affine(utility):
        if unknown := sorted(set(columns) - set(utility.columns)):
            raise ValueError(f"columns: {unknown[0]!r} is not a column the utility reads ({', '.join(utility.columns) or 'none'})")
        if utility.columns:
            u = check_per_item(utility.array(columns), n_items, what=f"columns: {utility.columns[0]!r}")
        else:  # constants only: one matrix
            u = np.broadcast_to(utility.constant, (n_items, *utility.constant.shape))
        labels = utility.classes if labels is None else labels
        decisions = utility.decisions if decisions is None else decisions
        return u, labels, decisions
    if columns:
        raise ValueError(f"{next(iter(columns))}: item columns are read by a per-item utility (AffineUtility) only")
    u = _real_array(utility, "utility", "a matrix of shape (decisions, classes)")
    if u.ndim == 3:
        return check_per_item(u, n_items), labels, decisions
    return _check_utility(utility), labels, decisions


def utility_score(y_true, y_pred, *, utility, labels=None, decisions=None, sample_weight=None, **columns) -> float:
    r"""Utility yield: the mean utility per item of the decisions taken, eq. (9).

    .. math:: \frac{\sum_k w_k\, U_{d_k c_k}}{\sum_k w_k} = \sum_{ij} U_{ij} C_{ij}

    with :math:`c_k` the true class and :math:`d_k` the decision of item :math:`k`, and
    :math:`C` the normalised (weighted) confusion matrix, rows = decisions, columns = true
    classes. Higher is better, as for every scikit-learn ``*_score``.

    Parameters
    ----------
    y_true : array_like of shape (n_samples,)
        True class labels.
    y_pred : array_like of shape (n_samples,)
        The decisions taken: class labels, or labels from ``decisions`` when the utility has
        decisions of its own (such as the output of :meth:`UtilityClassifier.predict`).
    utility : array_like of shape (n_decisions, n_classes) or (n_samples, n_decisions, n_classes), or AffineUtility
        ``utility[i, j]`` = utility of decision ``i`` when class ``j`` is true (rows =
        decisions, columns = true classes; the transpose of scikit-learn's cost-matrix
        examples). Per item: an array ``utility[k, i, j]``, or an
        :class:`~mcrank.evaluate.per_item.AffineUtility` whose columns come as ``**columns``.
    labels : array_like of shape (n_classes,), default=None
        The classes in the order of the utility's columns. If None, the labels of ``y_true``
        (and of ``y_pred`` when ``decisions`` is None) must be the integers 0..n-1 or
        booleans, in their natural order; others (text) are refused. An AffineUtility's
        own class names are the default; ``labels`` names them as ``y_true`` holds them.
    decisions : array_like of shape (n_decisions,), default=None
        The decisions in the order of the utility's rows. If None, the utility must be square
        and its rows are the classes of ``labels`` (an AffineUtility's own decision names are
        the default).
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights of the items.
    **columns : array_like of shape (n_samples,)
        The item columns an AffineUtility reads (such as ``amount=``): routed by scikit-learn's
        metadata routing, ``make_utility_scorer(...).set_score_request(amount=True)``.

    Returns
    -------
    float
        The utility yield, in the units of ``utility``.

    Raises
    ------
    ValueError
        On lengths that differ, a label that ``labels`` or ``decisions`` does not name, a
        utility whose width is not the number of classes, or bad weights.

    Examples
    --------
    >>> utility_score([0, 0, 1, 1], [0, 1, 1, 1], utility=[[1, 0], [0.2, 1]])
    0.8
    """
    truth = _as_labels(y_true, "y_true")
    taken = _as_labels(y_pred, "y_pred")
    if truth.shape[0] != taken.shape[0]:
        raise ValueError(f"y_true has {truth.shape[0]} items but y_pred has {taken.shape[0]}")
    if truth.shape[0] == 0:
        raise ValueError("y_true is empty: the utility yield of no items is undefined")
    u, labels, decisions = _utility_of_items(utility, truth.shape[0], labels, decisions, columns)
    observed = (truth, taken) if decisions is None else (truth,)
    classes, outputs = _resolve_labels(u[0] if u.ndim == 3 else u, labels, decisions, observed=observed)
    true_index = _indices(truth, classes, "y_true", "labels")
    decision_index = _indices(taken, outputs, "y_pred", "decisions" if decisions is not None else "labels")
    # Utilities near the float limit would overflow in the sum; a power of two keeps every bit.
    scale = _scale_of(u)
    if u.ndim == 3:
        utilities = u[np.arange(truth.shape[0]), decision_index, true_index] / scale
    else:
        utilities = u[decision_index, true_index] / scale
    if sample_weight is None:
        return float(utilities.mean()) * scale
    weights = _real_array(sample_weight, "sample_weight", "an array of shape (n_samples,)")
    if weights.shape != utilities.shape:
        raise ValueError(f"sample_weight has shape {weights.shape} but there are {utilities.shape[0]} items")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("sample_weight must be finite and non-negative")
    largest = weights.max()
    if largest <= 0:
        raise ValueError("sample_weight sums to 0: the utility yield of no weight is undefined")
    # Relative to the largest weight: weights near 1e308 would overflow in their sum (inf/inf is
    # NaN), and subnormal ones would lose their last bits in it.
    return float(np.average(utilities, weights=weights / largest)) * scale
