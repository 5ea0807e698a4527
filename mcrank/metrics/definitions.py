r"""Every metric of mcrank, each defined once (paper §3.3; ``docs/method.md``, "Metrics").

A metric's entry holds whichever of three forms it has, side by side:

- its **two-class form**, on the four cells ``(C00, C01, C10, C11)`` = (TP, FP, FN, TN) of a
  binary confusion matrix in the paper's layout, class 0 positive. No definition multiplies
  more than two sums of cells, so nothing overflows for any common scale of the counts;
- its **order form** ``(N, D)``: ``D > 0`` and the metric an increasing function of ``N / D``,
  so that the engine takes the sign of ``m(C2) - m(C1)`` as that of ``N2 D1 - N1 D2``, sums
  and products instead of divisions and roots. Accuracy, TPR, TNR, precision, NPV, balanced
  accuracy, F-beta and kappa are N/D; informedness is 2 N/D - 1 (balanced accuracy's ratio),
  markedness N/D - 1, Fowlkes-Mallows and G-mean sqrt(N/D), MCC sign(N) sqrt(|N|/D) (N its
  numerator times its absolute value);
- its **n-class form**, a numba function ``general(c, margins)`` of one n x n float matrix
  (any n >= 2), rows = output, columns = true class, and its :class:`Margins` (from
  :func:`_margins`), with

  .. math::
      N = \sum_{ij} C_{ij}, \qquad r_i = \sum_j C_{ij} \ \text{(output totals)}, \qquad
      t_j = \sum_i C_{ij} \ \text{(true-class totals)}.

  The margins are computed once per matrix for every metric, rather than summed again by each
  (``docs/performance.md``, "The n-class study", has what that saves). At n = 2 the n-class
  form agrees with the two-class form (tested), which the two-class scores use. The n-class
  kernel of the engine calls it pair by pair; :func:`mcrank.metrics.score` applies it to
  stacks of matrices.

Every metric is invariant under scaling of the matrix, so one function serves counts and
normalised matrices. Undefined values (0/0) are NaN; :func:`mcrank.metrics.score` replaces
them with ``zero_division``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mcrank._jit import jit
from mcrank.metrics._registry import REGISTRY, register
from mcrank.utility_space import IDENTITY_UM, TNR_UM, TPR_UM

# --- n-class margins --------------------------------------------------------------------------


class Margins(NamedTuple):
    """What the n-class forms share, computed once per matrix by :func:`_margins`. Each sum
    runs in a fixed order (an index at a time, from 0), so a metric's value does not depend
    on which other metrics are scored with it."""

    rows: np.ndarray  # r_k, the items output as class k (row sums)
    columns: np.ndarray  # t_k, the items of true class k (column sums)
    trace: float  # sum_k C_kk
    cells: float  # N, summed cell by cell, row after row
    rows_total: float  # N again, as sum_k r_k (MCC and kappa)
    products: float  # sum_k r_k t_k
    row_squares: float  # sum_k r_k^2
    column_squares: float  # sum_k t_k^2


@jit(inline="always")
def _margins(c, rows, columns):
    """The :class:`Margins` of ``c`` (n, n); ``rows`` and ``columns`` (n,) receive r and t."""
    n = c.shape[0]
    # Every sum from 0.0, an index at a time: the order each metric used when it summed its
    # own, so that no value moved by a rounding.
    trace, cells = 0.0, 0.0
    for i in range(n):
        trace += c[i, i]
        row = 0.0
        for j in range(n):
            row += c[i, j]
            cells += c[i, j]
        rows[i] = row
    for j in range(n):
        column = 0.0
        for i in range(n):
            column += c[i, j]
        columns[j] = column
    rows_total, products, row_squares, column_squares = 0.0, 0.0, 0.0, 0.0
    for k in range(n):
        rows_total += rows[k]
        products += rows[k] * columns[k]
        row_squares += rows[k] * rows[k]
        column_squares += columns[k] * columns[k]
    return Margins(rows, columns, trace, cells, rows_total, products, row_squares, column_squares)


def margins(c) -> Margins:
    """The :class:`Margins` of one n x n matrix, from Python (for calling an n-class form)."""
    c = np.ascontiguousarray(c, dtype=float)
    return _margins(c, np.empty(c.shape[0]), np.empty(c.shape[0]))


# --- accuracy: the utility yield of the identity (compliant) -------------------------------------


@jit
def _accuracy(c00, c01, c10, c11, beta):
    return (c00 + c11) / (c00 + c01 + c10 + c11)


@jit(inline="always")
def _accuracy_order(c00, c01, c10, c11, beta):
    return c00 + c11, c00 + c01 + c10 + c11


@jit(inline="always")
def _accuracy_n(c, m):
    r""":math:`\frac{1}{N} \sum_k C_{kk}`: the utility yield, eq. (9), of the identity."""
    return m.trace / m.cells


register("accuracy", "Accuracy", binary=_accuracy, order=_accuracy_order, general=_accuracy_n, compliant=True, equivalent_um=IDENTITY_UM)


# --- rates and predictive values ---------------------------------------------------------------


@jit
def _tpr(c00, c01, c10, c11, beta):
    return c00 / (c00 + c10)


@jit(inline="always")
def _tpr_order(c00, c01, c10, c11, beta):
    return c00, c00 + c10


register(
    "tpr",
    "True-positive rate (recall)",
    binary=_tpr,
    order=_tpr_order,
    compliant=True,
    equivalent_um=TPR_UM,
    aliases=("recall", "sensitivity"),
)


@jit
def _tnr(c00, c01, c10, c11, beta):
    return c11 / (c11 + c01)


@jit(inline="always")
def _tnr_order(c00, c01, c10, c11, beta):
    return c11, c11 + c01


register(
    "tnr", "True-negative rate (specificity)", binary=_tnr, order=_tnr_order, compliant=True, equivalent_um=TNR_UM, aliases=("specificity",)
)


@jit
def _precision(c00, c01, c10, c11, beta):
    return c00 / (c00 + c01)


@jit(inline="always")
def _precision_order(c00, c01, c10, c11, beta):
    return c00, c00 + c01


register("precision", "Precision (PPV)", binary=_precision, order=_precision_order, aliases=("ppv",))


@jit
def _npv(c00, c01, c10, c11, beta):
    return c11 / (c11 + c10)


@jit(inline="always")
def _npv_order(c00, c01, c10, c11, beta):
    return c11, c11 + c10


register("npv", "Negative predictive value", binary=_npv, order=_npv_order)


# --- balanced accuracy: the mean recall --------------------------------------------------------


@jit
def _balanced_accuracy(c00, c01, c10, c11, beta):
    # (TPR + TNR) / 2 over one denominator: one division instead of two, the costly part
    # of the engine's metrics. A class absent from the test set (possible only on counts)
    # has no recall and is left out, as scikit-learn and the n-class form do.
    positives, negatives = c00 + c10, c11 + c01
    if positives == 0.0:
        return c11 / negatives
    if negatives == 0.0:
        return c00 / positives
    return (c00 * negatives + c11 * positives) / (2.0 * positives * negatives)


@jit(inline="always")
def _balanced_accuracy_order(c00, c01, c10, c11, beta):
    positives, negatives = c00 + c10, c11 + c01
    return c00 * negatives + c11 * positives, 2.0 * positives * negatives


@jit(inline="always")
def _balanced_accuracy_n(c, m):
    r""":math:`\frac{1}{|K|} \sum_{k \in K} C_{kk} / t_k`, :math:`K = \{k : t_k > 0\}`: a class
    absent from the test set has no recall and is left out, as in scikit-learn (NaN when
    none is defined)."""
    total, defined = 0.0, 0
    for k in range(c.shape[0]):
        t = m.columns[k]
        if t > 0.0:
            total += c[k, k] / t
            defined += 1
    return total / defined if defined > 0 else np.nan


register("balanced_accuracy", "Balanced accuracy", binary=_balanced_accuracy, order=_balanced_accuracy_order, general=_balanced_accuracy_n)


# --- macro and micro means over the classes (any n) --------------------------------------------


@jit(inline="always")
def _macro_f1_n(c, m):
    r""":math:`\frac{1}{|K|} \sum_{k \in K} \frac{2 C_{kk}}{r_k + t_k}`, :math:`K = \{k : r_k + t_k > 0\}`:
    a class neither in the test set nor ever output has no F1 and is left out, as
    scikit-learn's ``f1_score(average="macro")`` over the labels found."""
    total, defined = 0.0, 0
    for k in range(c.shape[0]):
        both = m.rows[k] + m.columns[k]
        if both > 0.0:
            total += 2.0 * c[k, k] / both
            defined += 1
    return total / defined if defined > 0 else np.nan


register("macro_f1", "Macro F1", general=_macro_f1_n)


@jit(inline="always")
def _micro_f1_n(c, m):
    r"""F1 of the true positives, false positives and false negatives pooled over the classes.
    For single-label classification every error is one of each, so this equals accuracy; it
    is kept because it is reported as a metric of its own."""
    true_positives = m.trace
    errors = m.cells - true_positives  # each a false positive and a false negative
    return 2.0 * true_positives / (2.0 * true_positives + errors + errors)


register("micro_f1", "Micro F1", general=_micro_f1_n, compliant=True, equivalent_um=IDENTITY_UM)


# --- F-beta and F1 -----------------------------------------------------------------------------


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
def _fbeta_order(c00, c01, c10, c11, beta):
    """F-beta's numerator and denominator, with the weights of :func:`_fbeta_weights`."""
    tp_weight, fn_weight, fp_weight = _fbeta_weights(beta)
    numerator = tp_weight * c00
    return numerator, numerator + fn_weight * c10 + fp_weight * c01


@jit
def _fbeta(c00, c01, c10, c11, beta):
    numerator, denominator = _fbeta_order(c00, c01, c10, c11, beta)
    # No true positive but some error: 0, also where a weight has underflowed to 0 and
    # left the denominator 0 (beta below 1e-162 or above 1e162).
    return 0.0 if (c00 == 0.0) & (c10 + c01 > 0.0) else numerator / denominator


@jit
def _f1(c00, c01, c10, c11, beta):
    return _fbeta(c00, c01, c10, c11, 1.0)


@jit(inline="always")
def _f1_order(c00, c01, c10, c11, beta):
    return _fbeta_order(c00, c01, c10, c11, 1.0)


register("f1", "F1 measure", binary=_f1, order=_f1_order)
register("fbeta", "F-beta measure", binary=_fbeta, order=_fbeta_order)


# --- Matthews correlation coefficient ----------------------------------------------------------


@jit
def _mcc(c00, c01, c10, c11, beta):
    numerator = c00 * c11 - c01 * c10
    # Two square roots of two sums each: the product of all four underflows for cells of
    # very different sizes (a count of 1 against 1e170), and a rate near 0 in the engine.
    return numerator / (np.sqrt((c00 + c01) * (c10 + c11)) * np.sqrt((c00 + c10) * (c01 + c11)))


@jit(inline="always")
def _mcc_order(c00, c01, c10, c11, beta):
    numerator = c00 * c11 - c01 * c10
    return numerator * abs(numerator), ((c00 + c01) * (c10 + c11)) * ((c00 + c10) * (c01 + c11))


@jit(inline="always")
def _mcc_n(c, m):
    r"""Gorodkin's :math:`R_K`,
    :math:`\frac{N \sum_k C_{kk} - \sum_k r_k t_k}{\sqrt{(N^2 - \sum_k r_k^2)(N^2 - \sum_k t_k^2)}}`;
    NaN where the test set holds one class only or the classifier always outputs the same
    class (scikit-learn's ``matthews_corrcoef`` returns 0 there)."""
    total = m.rows_total
    covariance = total * m.trace - m.products
    # Two square roots: the product of the two variances overflows for counts near 1e77.
    return covariance / (np.sqrt(total * total - m.row_squares) * np.sqrt(total * total - m.column_squares))


register("mcc", "Matthews correlation coefficient", binary=_mcc, order=_mcc_order, general=_mcc_n)


# --- geometric means and Youden's indices ------------------------------------------------------


@jit
def _fowlkes_mallows(c00, c01, c10, c11, beta):
    return np.sqrt(_precision(c00, c01, c10, c11, beta) * _tpr(c00, c01, c10, c11, beta))


@jit(inline="always")
def _fowlkes_mallows_order(c00, c01, c10, c11, beta):
    return c00 * c00, (c00 + c01) * (c00 + c10)


register("fowlkes_mallows", "Fowlkes-Mallows index", binary=_fowlkes_mallows, order=_fowlkes_mallows_order)


@jit
def _gmean(c00, c01, c10, c11, beta):
    return np.sqrt(_tpr(c00, c01, c10, c11, beta) * _tnr(c00, c01, c10, c11, beta))


@jit(inline="always")
def _gmean_order(c00, c01, c10, c11, beta):
    return c00 * c11, (c00 + c10) * (c11 + c01)


register("gmean", "G-mean", binary=_gmean, order=_gmean_order)


@jit
def _informedness(c00, c01, c10, c11, beta):
    return _tpr(c00, c01, c10, c11, beta) + _tnr(c00, c01, c10, c11, beta) - 1.0


register("informedness", "Informedness (Youden's J)", binary=_informedness, order=_balanced_accuracy_order, aliases=("youden_j",))


@jit
def _markedness(c00, c01, c10, c11, beta):
    return _precision(c00, c01, c10, c11, beta) + _npv(c00, c01, c10, c11, beta) - 1.0


@jit(inline="always")
def _markedness_order(c00, c01, c10, c11, beta):
    return c00 * (c10 + c11) + c11 * (c00 + c01), (c00 + c01) * (c10 + c11)


register("markedness", "Markedness", binary=_markedness, order=_markedness_order)


# --- Cohen's kappa -----------------------------------------------------------------------------


@jit
def _cohen_kappa(c00, c01, c10, c11, beta):
    # (observed - chance) / (1 - chance) with observed = (C00 + C11) / n and chance =
    # ((C00 + C01)(C00 + C10) + (C10 + C11)(C01 + C11)) / n^2, rewritten for two classes so
    # that nothing cancels: 1 - chance rounds to 0 for very unbalanced classes.
    return 2.0 * (c00 * c11 - c01 * c10) / ((c00 + c01) * (c01 + c11) + (c00 + c10) * (c10 + c11))


@jit(inline="always")
def _cohen_kappa_order(c00, c01, c10, c11, beta):
    return 2.0 * (c00 * c11 - c01 * c10), (c00 + c01) * (c01 + c11) + (c00 + c10) * (c10 + c11)


@jit(inline="always")
def _cohen_kappa_n(c, m):
    r""":math:`(p_o - p_e) / (1 - p_e)` with :math:`p_o = \sum_k C_{kk} / N` and
    :math:`p_e = \sum_k r_k t_k / N^2`; NaN where :math:`p_e = 1`, as scikit-learn."""
    total = m.rows_total
    observed = m.trace / total
    chance = m.products / (total * total)
    return (observed - chance) / (1.0 - chance)


register("cohen_kappa", "Cohen's kappa", binary=_cohen_kappa, order=_cohen_kappa_order, general=_cohen_kappa_n)


# --- macro precision (n classes) --------------------------------------------------------------


@jit(inline="always")
def _macro_precision_n(c, m):
    r""":math:`\frac{1}{|K|} \sum_{k \in K} C_{kk} / r_k`, :math:`K = \{k : r_k > 0\}`: a class
    the classifier never outputs has no precision and is left out (docs/method.md), as balanced
    accuracy leaves out an absent class; NaN when none is defined."""
    total, defined = 0.0, 0
    for k in range(c.shape[0]):
        r = m.rows[k]
        if r > 0.0:
            total += c[k, k] / r
            defined += 1
    return total / defined if defined > 0 else np.nan


register("macro_precision", "Macro precision", general=_macro_precision_n)
REGISTRY.builtins_registered()
