"""The library of classification metrics (paper §3.3; ``docs/method.md``, "Metrics").

One registry, :data:`METRICS` (an :class:`mcrank._axes.Registry`, as every axis): every metric
is one :class:`Metric`, defined once in :mod:`mcrank.metrics.definitions` with its two-class
form, its order form and its n-class form side by side. Add a metric there, with its tests,
and nothing else changes.

Three doors lead to the scores:

- :func:`score` and :meth:`Metric.__call__`: counts or normalised matrices of shape
  ``(..., n, n)``; two-class matrices are scored by the two-class form, the exact arithmetic
  scikit-learn uses, larger ones by the n-class form;
- :meth:`Metric.from_pab`: arrays of class-0 fraction ``p``, TPR ``a`` and TNR ``b``;
- :func:`_score_into` and :func:`_order_into`: what numba kernels call, by metric code, on
  arrays of cells; both are generated from the registry when first used, which seals it (a
  metric registered later is refused, not left out of the kernels). Until then a user's metric
  file can add to it (:func:`load_metric_file`, ``docs/method.md``, "Test your own metric").

Undefined values (0/0, e.g. precision of a classifier that never outputs class 0) are NaN
by default; ``zero_division`` replaces them with 0 or 1, as in scikit-learn. Never a crash,
never a silent 0.

Compliance with decision theory (eq. 16): a metric complies when it ranks every pair of
confusion matrices of one test set exactly as the utility yield under some fixed utility
matrix, its :attr:`Metric.equivalent_um`. Accuracy, TPR and TNR do; the others do not.
:func:`compliance` measures it for any metric, a user's too (:func:`metric`,
:func:`load_metric_file`: a researcher's own metric, its rows beside the built-in ones).
"""

from __future__ import annotations

import contextlib

import numpy as np

from mcrank._axes import Registry
from mcrank._jit import interpreted, jit
from mcrank._validation import check_zero_division
from mcrank.confusion import _cells_from_pab
from mcrank.metrics import _registry
from mcrank.metrics import definitions as _definitions  # noqa: F401 - registers every metric
from mcrank.metrics._registry import REGISTRY, UTILITY_ROW, Metric, dispatch, dispatch_difference, dispatch_matrix
from mcrank.metrics.definitions import Margins, _margins, margins

__all__ = [
    "METRICS",
    "ORDER_MIN_CELL",
    "PAPER_METRICS",
    "UTILITY_ROW",
    "Compliance",
    "Margins",
    "Metric",
    "compliance",
    "get_metric",
    "load_metric_file",
    "margins",
    "metric",
    "score",
]

#: Every metric of the library, by id, in code order (the registry itself).
METRICS: Registry = REGISTRY

#: The metrics of the paper's Monte Carlo study (§4.2, fig. 6), in the paper's order.
PAPER_METRICS: tuple[str, ...] = ("accuracy", "tpr", "precision", "balanced_accuracy", "mcc", "fowlkes_mallows", "f1")

_ALIASES = {alias: metric.id for metric in METRICS.values() for alias in (metric.id, *metric.aliases)}

#: The order forms need every cell in [ORDER_MIN_CELL, 1]: then none of their products, of up
#: to eight cells (MCC), leaves the range of normal floats, so that they keep full relative
#: precision (F-beta's weights are at most 2, whatever beta). Blocks with smaller cells go
#: through the two-class forms themselves.
ORDER_MIN_CELL = 1e-30

#: Up to this many matrices, :func:`score` runs the kernels' Python functions
#: (:func:`mcrank._jit.interpreted`): importing numba and loading the compiled kernels takes
#: longer than scoring them, and a command that scores a few classifiers never loads numba.
INTERPRETED_MATRICES = 64


def get_metric(name: str) -> Metric:
    """Look up a metric by id or alias (``"recall"`` gives ``tpr``).

    Raises
    ------
    KeyError
        With the list of known ids, if ``name`` is unknown.
    """
    try:
        return METRICS[_ALIASES.get(name, name)]  # a user's metric has no alias
    except (KeyError, TypeError):
        raise KeyError(f"unknown metric {name!r}; known metrics: {', '.join(METRICS)}") from None


_score_into = dispatch(
    "_score_into",
    "binary",
    __name__,
    """Metric number ``code`` of many two-class confusion matrices, into ``out``.

    ``cells`` is a tuple of arrays: either the four cells ``(C00, C01, C10, C11)`` of the
    matrices, and ``out`` receives their scores; or the four cells of a first matrix ``C1``
    followed by the four of a second ``C2``, and ``out`` receives ``m(C2) - m(C1)``, the
    difference the engine compares with the difference in utility yield. The length of
    ``cells`` is known when compiling, so the difference costs no branch, and one pass.""",
)

_score_matrix = dispatch_matrix(
    "_score_matrix",
    __name__,
    """Metric number ``code`` of one n x n matrix ``c`` with its :class:`Margins`: its n-class
    form, or the two-class form on the four cells for a two-class metric (n = 2). The n-class
    kernel's scorer.""",
)


_metric_difference = dispatch_difference(
    "_metric_difference",
    __name__,
    """``m(C2) - m(C1)`` for metric number ``code``, from its two values ``a = m(C2)`` and
    ``b = m(C1)``: ``a - b``, or 0 where a user's metric differs by rounding only. The n-class
    kernel's difference, as :func:`_score_into` is the two-class kernels'.""",
)


@jit
def _score_matrices(code, stack, beta, out):
    """:func:`_score_matrix` of every matrix of ``stack`` (m, n, n) into ``out`` (m,)."""
    rows, columns = np.empty(stack.shape[1]), np.empty(stack.shape[1])
    for i in range(stack.shape[0]):
        out[i] = _score_matrix(code, stack[i], _margins(stack[i], rows, columns), beta)


_order_into = dispatch(
    "_order_into",
    "order",
    __name__,
    """A number with the sign of ``m(C2) - m(C1)`` for metric number ``code``, into ``out``.

    ``cells`` is the eight arrays of cells of ``C1`` then ``C2``, as for :func:`_score_into`,
    and every cell must be in [:data:`ORDER_MIN_CELL`, 1] (normalised matrices without tiny
    cells). 0 means a tie. The value itself means nothing else.""",
)


def _interpreted_if_few(matrices: int):
    """The kernels as Python for at most :data:`INTERPRETED_MATRICES` matrices, else compiled."""
    return interpreted() if matrices <= INTERPRETED_MATRICES else contextlib.nullcontext()


def _score_cells(metric: Metric, cells, beta: float, zero_division: float):
    zero_division = check_zero_division(zero_division)
    shape = np.shape(cells[0])
    flat = [np.ascontiguousarray(np.ravel(c), dtype=np.float64) for c in cells]
    out = np.empty(flat[0].size)
    with _interpreted_if_few(out.size):
        _score_into(metric.code, tuple(flat), float(beta), out)
    out[np.isnan(out)] = zero_division
    out = out.reshape(shape)
    return float(out) if out.ndim == 0 else out


def _score_pab(metric: Metric, p, tpr, tnr, beta: float, zero_division: float):
    """:meth:`Metric.from_pab`: the cells of eq. (17) from ``p``, TPR and TNR, then scored."""
    if metric.binary is None:
        from mcrank.confusion import confusion_from_pab

        return score(metric, confusion_from_pab(p, tpr, tnr), beta=beta, zero_division=zero_division)
    p, a, b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (p, tpr, tnr)))
    return _score_cells(metric, _cells_from_pab.py_func(p, a, b), beta, zero_division)


def score(metric: str | Metric, confusion, *, beta: float = 1.0, zero_division: float = np.nan):
    """Score confusion matrices with one metric of the library.

    Parameters
    ----------
    metric : str or Metric
        A metric id or alias (see :data:`METRICS`).
    confusion : array_like of shape (..., n, n)
        Counts or normalised matrices, rows = output, columns = true class (class 0 positive
        for two classes). A metric defined for two classes only needs n = 2.
    beta : float, default 1.0
        The weight of recall in ``fbeta`` (ignored by the other metrics).
    zero_division : {0, 1, NaN}, default NaN
        Value returned where the metric is undefined (0/0), as scikit-learn's option of the
        same name (whose ``"warn"`` is refused: NaN is the default here).

    Returns
    -------
    float or ndarray of shape (...)
    """
    metric = metric if isinstance(metric, Metric) else get_metric(metric)
    c = np.asarray(confusion, dtype=float)
    if c.ndim < 2 or c.shape[-1] != c.shape[-2] or c.shape[-1] < 2:
        raise ValueError(f"confusion matrices must be n x n with n >= 2, got shape {c.shape}")
    if c.shape[-1] != 2 and metric.general is None:
        raise ValueError(f"{metric.id} is a binary metric: it needs 2x2 confusion matrices, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("confusion-matrix entries must be finite and non-negative")
    if not (np.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be positive, got {beta!r}")
    if c.shape[-1] != 2 or metric.binary is None:
        zero_division = check_zero_division(zero_division)
        stack = np.ascontiguousarray(c.reshape(-1, *c.shape[-2:]))
        out = np.empty(stack.shape[0])
        with _interpreted_if_few(out.size):
            _score_matrices(metric.code, stack, float(beta), out)
        out[np.isnan(out)] = zero_division
        out = out.reshape(c.shape[:-2])
        return float(out) if out.ndim == 0 else out
    # Counts of ordinary size are scored as given, exactly as scikit-learn does; matrices
    # whose largest cell is huge or tiny are scaled to a largest cell of 1 first.
    largest = c.max(axis=(-2, -1), keepdims=True)
    c = c / np.where((largest > 0) & ((largest > 1e100) | (largest < 1e-100)), largest, 1.0)
    return _score_cells(metric, (c[..., 0, 0], c[..., 0, 1], c[..., 1, 0], c[..., 1, 1]), beta, zero_division)


# What a record's methods call (Metric.__call__, Metric.from_pab).
_registry.SCORING.update(score=score, from_pab=_score_pab)

# A user's metrics, and the test of eq. (16): after the scoring, which they use.
from mcrank.metrics._compliance import Compliance  # noqa: E402
from mcrank.metrics.user import load_metric_file, metric  # noqa: E402


def compliance(metric, *, classes: int = 3) -> Compliance:
    """Whether ``metric`` is of the form (16): an increasing affine map of the utility yield of
    one utility matrix on every test set, measured on normalised matrices.

    Parameters
    ----------
    metric : str, Metric or callable
        A metric id or alias, a :class:`~mcrank.metrics.Metric` (a user's too), or a Python
        function of a metric file (:func:`mcrank.metrics.metric`): ``f(p, tpr, tnr)``, or
        ``f(c)`` of a normalised matrix if decorated with ``general=True``, called point by
        point, before the file is loaded.
    classes : int, default 3
        The number of classes of the test for a metric without a two-class form; a metric with
        one is tested on two-class matrices over a grid of ``p``, TPR and TNR.

    Returns
    -------
    Compliance
        ``str()`` of it is ``"compliant: yes, U = [[1, 0], [0, 1]]"`` or ``"compliant: no, ..."``.

    Examples
    --------
    >>> print(compliance("accuracy"))
    compliant: yes, U = [[1, 0], [0, 1]]
    >>> print(compliance("tpr"))
    compliant: yes, U = [[1, 0], [0, 0]]
    >>> compliance("balanced_accuracy").compliant
    False
    """
    from mcrank.metrics._compliance import _GRID, judge, n_class_matrices, two_class_matrices, two_class_points

    metric = get_metric(metric) if isinstance(metric, str) else metric
    if not isinstance(metric, Metric):
        if not callable(metric):
            raise ValueError(f"metric must be a metric id, a Metric or a function, got {metric!r}")
        definition = getattr(metric, "mcrank_metric", None)
        if definition is not None and definition.general:
            matrices = n_class_matrices(classes)
            return judge(matrices, [metric(c) for c in matrices.reshape(-1, classes, classes)])
        p, tpr, tnr = two_class_points()
        values = [metric(*point) for point in zip(p, tpr, tnr)]
        return judge(two_class_matrices(p, tpr, tnr).reshape(_GRID.size, -1, 2, 2), values)
    if metric.binary is not None:
        p, tpr, tnr = two_class_points()
        return judge(two_class_matrices(p, tpr, tnr).reshape(_GRID.size, -1, 2, 2), metric.from_pab(p, tpr, tnr))
    matrices = n_class_matrices(classes)
    return judge(matrices, metric(matrices.reshape(-1, classes, classes)))
