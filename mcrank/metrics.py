"""The library of binary classification metrics, each defined once (paper §3.3).

Every metric is one jitted function of the four cells of a binary confusion matrix in the
paper's layout, ``(C00, C01, C10, C11)`` = (true positives, false positives, false negatives,
true negatives), class 0 positive. Every metric here is invariant under scaling of the
cells, so the same function serves counts and normalised matrices. No definition
multiplies more than two sums of cells, and :func:`score` scales a matrix whose largest cell
is beyond 1e+-100 to a largest cell of 1, so nothing overflows or underflows whatever the
common scale of the counts, nor unless two sums differ by a factor beyond about 1e150.
Three doors lead to the scores:

- :func:`score` and :meth:`Metric.__call__`: counts or normalised matrices, shape
  ``(..., 2, 2)``;
- :meth:`Metric.from_pab`: arrays of class-0 fraction ``p``, TPR ``a`` and TNR ``b``;
- :func:`_score_into`: what numba kernels call, by integer code, on arrays of cells;

and, for the engine's counts, :func:`_order_into`: a number with the sign of
``m(C2) - m(C1)`` from each metric's order form, N/D with the metric increasing in it,
without a division or a root. Tests check each order form against the definition.

Undefined values (0/0, e.g. precision of a classifier that never outputs class 0) are NaN
by default; ``zero_division`` replaces them with 0 or 1, as in scikit-learn. Never a crash,
never a silent 0.

Compliance with decision theory (eq. 16): a metric complies when it ranks every pair of
confusion matrices of one test set exactly as the utility yield under some fixed utility
matrix, its :attr:`Metric.equivalent_um`. Accuracy, TPR and TNR do; the others do not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mcrank._jit import jit
from mcrank._validation import check_zero_division
from mcrank.confusion import _cells_from_pab
from mcrank.utility_space import IDENTITY_UM, TNR_UM, TPR_UM

__all__ = ["METRICS", "PAPER_METRICS", "Metric", "get_metric", "score"]


# --- the definitions: one jitted function per metric ------------------------------------


@jit
def _accuracy(c00, c01, c10, c11):
    return (c00 + c11) / (c00 + c01 + c10 + c11)


@jit
def _tpr(c00, c01, c10, c11):
    return c00 / (c00 + c10)


@jit
def _tnr(c00, c01, c10, c11):
    return c11 / (c11 + c01)


@jit
def _precision(c00, c01, c10, c11):
    return c00 / (c00 + c01)


@jit
def _npv(c00, c01, c10, c11):
    return c11 / (c11 + c10)


@jit
def _balanced_accuracy(c00, c01, c10, c11):
    # (TPR + TNR) / 2 over one denominator: one division instead of two, the costly part
    # of the engine's metrics.
    positives, negatives = c00 + c10, c11 + c01
    return (c00 * negatives + c11 * positives) / (2.0 * positives * negatives)


@jit(inline="always")
def _fbeta_weights(beta):
    """The weights of true positives, false negatives and false positives in
    F-beta = w_TP C00 / (w_TP C00 + w_FN C10 + w_FP C01): (1 + beta^2, beta^2, 1) up to
    beta = 1, divided through by beta^2 beyond, so that each is in [0, 2] and nothing
    overflows whatever beta (beta^2 does beyond 1e154). At beta = 1 they are (2, 1, 1)."""
    beta2 = beta * beta
    if beta <= 1.0:
        return 1.0 + beta2, beta2, 1.0
    return 1.0 + 1.0 / beta2, 1.0, 1.0 / beta2


@jit(inline="always")
def _fbeta_ratio(c00, c01, c10, c11, beta):
    """F-beta's numerator and denominator, with the weights of :func:`_fbeta_weights`."""
    tp_weight, fn_weight, fp_weight = _fbeta_weights(beta)
    numerator = tp_weight * c00
    return numerator, numerator + fn_weight * c10 + fp_weight * c01


@jit
def _fbeta(c00, c01, c10, c11, beta):
    numerator, denominator = _fbeta_ratio(c00, c01, c10, c11, beta)
    # No true positive but some error: 0, also where a weight has underflowed to 0 and
    # left the denominator 0 (beta below 1e-162 or above 1e162).
    return 0.0 if (c00 == 0.0) & (c10 + c01 > 0.0) else numerator / denominator


@jit
def _f1(c00, c01, c10, c11):
    return _fbeta(c00, c01, c10, c11, 1.0)


@jit
def _mcc(c00, c01, c10, c11):
    numerator = c00 * c11 - c01 * c10
    # Two square roots of two sums each: the product of all four underflows for cells of
    # very different sizes (a count of 1 against 1e170), and a rate near 0 in the engine.
    return numerator / (np.sqrt((c00 + c01) * (c10 + c11)) * np.sqrt((c00 + c10) * (c01 + c11)))


@jit
def _fowlkes_mallows(c00, c01, c10, c11):
    return np.sqrt(_precision(c00, c01, c10, c11) * _tpr(c00, c01, c10, c11))


@jit
def _gmean(c00, c01, c10, c11):
    return np.sqrt(_tpr(c00, c01, c10, c11) * _tnr(c00, c01, c10, c11))


@jit
def _informedness(c00, c01, c10, c11):
    return _tpr(c00, c01, c10, c11) + _tnr(c00, c01, c10, c11) - 1.0


@jit
def _markedness(c00, c01, c10, c11):
    return _precision(c00, c01, c10, c11) + _npv(c00, c01, c10, c11) - 1.0


@jit
def _cohen_kappa(c00, c01, c10, c11):
    # (observed - chance) / (1 - chance) with observed = (C00 + C11) / n and chance =
    # ((C00 + C01)(C00 + C10) + (C10 + C11)(C01 + C11)) / n^2, rewritten for two classes so
    # that nothing cancels: 1 - chance rounds to 0 for very unbalanced classes.
    return 2.0 * (c00 * c11 - c01 * c10) / ((c00 + c01) * (c01 + c11) + (c00 + c10) * (c10 + c11))


# --- the registry ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """One metric of the library.

    Attributes
    ----------
    id : str
        Stable identifier, used on the command line and in results files.
    name : str
        Display name.
    code : int
        Index used by numba kernels (:func:`_score_into`); equals the position in :data:`METRICS`.
    compliant : bool
        Whether the metric is of the decision-theoretic form of eq. (16).
    equivalent_um : ndarray of shape (2, 2) or None
        For a compliant metric, the utility matrix whose yield ranks exactly as it does.
    aliases : tuple of str
        Other names under which it is known.
    """

    id: str
    name: str
    code: int
    compliant: bool
    equivalent_um: np.ndarray | None = field(default=None, repr=False, compare=False)
    aliases: tuple[str, ...] = ()

    def __call__(self, confusion, *, beta: float = 1.0, zero_division: float = np.nan):
        """Score confusion matrices; see :func:`score`."""
        return score(self.id, confusion, beta=beta, zero_division=zero_division)

    def from_pab(self, p, tpr, tnr, *, beta: float = 1.0, zero_division: float = np.nan):
        """Score the normalised confusion matrices with class-0 fraction ``p``, TPR and TNR.

        Parameters
        ----------
        p, tpr, tnr : array_like
            Broadcast together.
        beta : float, default 1.0
            Only for ``fbeta``.
        zero_division : {0, 1, NaN}, default NaN
            Value returned where the metric is 0/0.
        """
        p, a, b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (p, tpr, tnr)))
        return _score_cells(self.code, _cells_from_pab.py_func(p, a, b), beta, zero_division)


_REGISTRY = (
    ("accuracy", "Accuracy", True, IDENTITY_UM, ()),
    ("tpr", "True-positive rate (recall)", True, TPR_UM, ("recall", "sensitivity")),
    ("tnr", "True-negative rate (specificity)", True, TNR_UM, ("specificity",)),
    ("precision", "Precision (PPV)", False, None, ("ppv",)),
    ("npv", "Negative predictive value", False, None, ()),
    ("balanced_accuracy", "Balanced accuracy", False, None, ()),
    ("f1", "F1 measure", False, None, ()),
    ("fbeta", "F-beta measure", False, None, ()),
    ("mcc", "Matthews correlation coefficient", False, None, ()),
    ("fowlkes_mallows", "Fowlkes-Mallows index", False, None, ()),
    ("gmean", "G-mean", False, None, ()),
    ("informedness", "Informedness (Youden's J)", False, None, ("youden_j",)),
    ("markedness", "Markedness", False, None, ()),
    ("cohen_kappa", "Cohen's kappa", False, None, ()),
)

#: Every metric of the library, by id, in code order.
METRICS: dict[str, Metric] = {
    mid: Metric(mid, name, code, compliant, None if um is None else um.copy(), aliases)
    for code, (mid, name, compliant, um, aliases) in enumerate(_REGISTRY)
}

#: The metrics of the paper's Monte Carlo study (§4.2, fig. 6), in the paper's order.
PAPER_METRICS: tuple[str, ...] = (
    "accuracy",
    "tpr",
    "precision",
    "balanced_accuracy",
    "mcc",
    "fowlkes_mallows",
    "f1",
)

_ALIASES = {alias: metric.id for metric in METRICS.values() for alias in (metric.id, *metric.aliases)}


def get_metric(name: str) -> Metric:
    """Look up a metric by id or alias (``"recall"`` gives ``tpr``).

    Raises
    ------
    KeyError
        With the list of known ids, if ``name`` is unknown.
    """
    try:
        return METRICS[_ALIASES[name]]
    except KeyError:
        raise KeyError(f"unknown metric {name!r}; known metrics: {', '.join(METRICS)}") from None


@jit
def _score_into(code, cells, beta, out):
    """Metric number ``code`` (its position in :data:`METRICS`) of many confusion matrices.

    ``cells`` is a tuple of arrays: either the four cells ``(C00, C01, C10, C11)`` of the
    matrices, and ``out`` receives their scores; or the four cells of a first matrix ``C1``
    followed by the four of a second ``C2``, and ``out`` receives ``m(C2) - m(C1)``, the
    difference the engine compares with the difference in utility yield.

    The dispatch on ``code`` sits outside the loops, so that each loop is one metric's
    arithmetic, which the compiler vectorises: several times faster than dispatching per
    matrix. The length of ``cells`` is known when compiling, so the difference costs no
    branch either, and one pass over the pairs: no intermediate array of scores.
    """
    n = out.size
    difference = len(cells) == 8
    c00, c01, c10, c11 = cells[-4], cells[-3], cells[-2], cells[-1]  # C2, or the only C
    r00, r01, r10, r11 = cells[0], cells[1], cells[2], cells[3]  # C1, when a difference
    if code == 0:
        for i in range(n):
            out[i] = _accuracy(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _accuracy(r00[i], r01[i], r10[i], r11[i])
    elif code == 1:
        for i in range(n):
            out[i] = _tpr(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _tpr(r00[i], r01[i], r10[i], r11[i])
    elif code == 2:
        for i in range(n):
            out[i] = _tnr(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _tnr(r00[i], r01[i], r10[i], r11[i])
    elif code == 3:
        for i in range(n):
            out[i] = _precision(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _precision(r00[i], r01[i], r10[i], r11[i])
    elif code == 4:
        for i in range(n):
            out[i] = _npv(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _npv(r00[i], r01[i], r10[i], r11[i])
    elif code == 5:
        for i in range(n):
            out[i] = _balanced_accuracy(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _balanced_accuracy(r00[i], r01[i], r10[i], r11[i])
    elif code == 6:
        for i in range(n):
            out[i] = _f1(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _f1(r00[i], r01[i], r10[i], r11[i])
    elif code == 7:
        for i in range(n):
            out[i] = _fbeta(c00[i], c01[i], c10[i], c11[i], beta)
            if difference:
                out[i] -= _fbeta(r00[i], r01[i], r10[i], r11[i], beta)
    elif code == 8:
        for i in range(n):
            out[i] = _mcc(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _mcc(r00[i], r01[i], r10[i], r11[i])
    elif code == 9:
        for i in range(n):
            out[i] = _fowlkes_mallows(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _fowlkes_mallows(r00[i], r01[i], r10[i], r11[i])
    elif code == 10:
        for i in range(n):
            out[i] = _gmean(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _gmean(r00[i], r01[i], r10[i], r11[i])
    elif code == 11:
        for i in range(n):
            out[i] = _informedness(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _informedness(r00[i], r01[i], r10[i], r11[i])
    elif code == 12:
        for i in range(n):
            out[i] = _markedness(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _markedness(r00[i], r01[i], r10[i], r11[i])
    elif code == 13:
        for i in range(n):
            out[i] = _cohen_kappa(c00[i], c01[i], c10[i], c11[i])
            if difference:
                out[i] -= _cohen_kappa(r00[i], r01[i], r10[i], r11[i])
    else:
        out[:] = np.nan


# --- orders: the sign of m(C2) - m(C1) without a division or a root -------------------------
#
# The engine only needs the sign of m(C2) - m(C1). Every metric is an increasing function of
# one ratio N/D of polynomials in the cells, with D > 0, so that for two matrices
#
#     sign(m(C2) - m(C1)) = sign(N2 * D1 - N1 * D2),
#
# sums and products only (two multiplications and a subtraction once N and D are formed),
# where the difference of the definitions costs 2 to 4 divisions and up to 4 square roots,
# the divider being the slowest unit of the processor. Both are exact up to rounding, and
# disagree only on pairs whose metrics differ in about the 15th digit.

#: The order forms need every cell in [ORDER_MIN_CELL, 1]: then none of their products, of up
#: to eight cells (MCC), leaves the range of normal floats, so that they keep full relative
#: precision (F-beta's weights are at most 2, whatever beta). Smaller cells go through the
#: definitions (see :func:`_order_into`).
ORDER_MIN_CELL = 1e-30


@jit(inline="always")
def _order_ratio(code, c00, c01, c10, c11, beta):
    """(N, D) of metric ``code`` (``beta`` for F-beta), with D > 0 and the metric an increasing function of N/D.

    Accuracy, TPR, TNR, precision, NPV, balanced accuracy, F-beta and kappa are N/D; the
    others are, with the ratio of: informedness 2 N/D - 1 (balanced accuracy's), markedness
    N/D - 1, Fowlkes-Mallows and G-mean sqrt(N/D), MCC sign(N) sqrt(|N|/D) (N is its
    numerator times its absolute value).
    """
    if code == 0:
        return c00 + c11, c00 + c01 + c10 + c11
    elif code == 1:
        return c00, c00 + c10
    elif code == 2:
        return c11, c11 + c01
    elif code == 3:
        return c00, c00 + c01
    elif code == 4:
        return c11, c11 + c10
    elif code == 5 or code == 11:
        positives, negatives = c00 + c10, c11 + c01
        return c00 * negatives + c11 * positives, 2.0 * positives * negatives
    elif code == 6 or code == 7:
        return _fbeta_ratio(c00, c01, c10, c11, 1.0 if code == 6 else beta)  # F1: beta 1
    elif code == 8:
        numerator = c00 * c11 - c01 * c10
        return numerator * abs(numerator), ((c00 + c01) * (c10 + c11)) * ((c00 + c10) * (c01 + c11))
    elif code == 9:
        return c00 * c00, (c00 + c01) * (c00 + c10)
    elif code == 10:
        return c00 * c11, (c00 + c10) * (c11 + c01)
    elif code == 12:
        return c00 * (c10 + c11) + c11 * (c00 + c01), (c00 + c01) * (c10 + c11)
    else:
        return 2.0 * (c00 * c11 - c01 * c10), (c00 + c01) * (c01 + c11) + (c00 + c10) * (c10 + c11)


@jit(inline="always")
def _order_loop(code, cells, beta, out):
    """:func:`_order_into` for one metric. Inlined where ``code`` is a constant, so that the
    compiler drops the other metrics' branches and vectorises the loop."""
    r00, r01, r10, r11, c00, c01, c10, c11 = cells
    for i in range(out.size):
        n1, d1 = _order_ratio(code, r00[i], r01[i], r10[i], r11[i], beta)
        n2, d2 = _order_ratio(code, c00[i], c01[i], c10[i], c11[i], beta)
        out[i] = n2 * d1 - n1 * d2


@jit
def _order_into(code, cells, beta, out):
    """A number with the sign of ``m(C2) - m(C1)`` for metric number ``code``, into ``out``.

    ``cells`` is the eight arrays of cells of ``C1`` then ``C2``, as for
    :func:`_score_into`, and every cell must be in [:data:`ORDER_MIN_CELL`, 1] (normalised
    matrices without tiny cells). 0 means a tie. The value itself means nothing else.
    """
    if code == 0:
        _order_loop(0, cells, beta, out)
    elif code == 1:
        _order_loop(1, cells, beta, out)
    elif code == 2:
        _order_loop(2, cells, beta, out)
    elif code == 3:
        _order_loop(3, cells, beta, out)
    elif code == 4:
        _order_loop(4, cells, beta, out)
    elif code == 5:
        _order_loop(5, cells, beta, out)
    elif code == 6:
        _order_loop(6, cells, beta, out)
    elif code == 7:
        _order_loop(7, cells, beta, out)
    elif code == 8:
        _order_loop(8, cells, beta, out)
    elif code == 9:
        _order_loop(9, cells, beta, out)
    elif code == 10:
        _order_loop(10, cells, beta, out)
    elif code == 11:
        _order_loop(11, cells, beta, out)
    elif code == 12:
        _order_loop(12, cells, beta, out)
    elif code == 13:
        _order_loop(13, cells, beta, out)
    else:
        out[:] = np.nan


def _score_cells(code: int, cells, beta: float, zero_division: float):
    zero_division = check_zero_division(zero_division)
    shape = np.shape(cells[0])
    flat = [np.ascontiguousarray(np.ravel(c), dtype=np.float64) for c in cells]
    out = np.empty(flat[0].size)
    _score_into(code, tuple(flat), float(beta), out)
    out[np.isnan(out)] = zero_division
    out = out.reshape(shape)
    return float(out) if out.ndim == 0 else out


def score(metric: str | Metric, confusion, *, beta: float = 1.0, zero_division: float = np.nan):
    """Score binary confusion matrices with one metric of the library.

    Parameters
    ----------
    metric : str or Metric
        A metric id or alias (see :data:`METRICS`).
    confusion : array_like of shape (..., 2, 2)
        Counts or normalised matrices, rows = output, columns = true class, class 0 positive.
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
    if c.ndim < 2 or c.shape[-2:] != (2, 2):
        raise ValueError(f"binary metrics need 2x2 confusion matrices, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("confusion-matrix entries must be finite and non-negative")
    if not (np.isfinite(beta) and beta > 0):
        raise ValueError(f"beta must be positive, got {beta!r}")
    # Counts of ordinary size are scored as given, exactly as scikit-learn does; matrices
    # whose largest cell is huge or tiny are scaled to a largest cell of 1 first.
    largest = c.max(axis=(-2, -1), keepdims=True)
    c = c / np.where((largest > 0) & ((largest > 1e100) | (largest < 1e-100)), largest, 1.0)
    cells = (c[..., 0, 0], c[..., 0, 1], c[..., 1, 0], c[..., 1, 1])
    return _score_cells(metric.code, cells, beta, zero_division)
