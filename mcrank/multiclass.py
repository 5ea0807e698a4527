r"""Popular multi-class metrics on n x n confusion matrices in the paper's layout.

Layout (``SPEC.md``): ``C[i, j]`` counts the test items of true class ``j`` to which the
classifier output class ``i``; rows = output, columns = true class. scikit-learn's
``confusion_matrix`` is the transpose (convert with :func:`mcrank.confusion.from_sklearn`).
With

.. math::
    N = \sum_{ij} C_{ij}, \qquad r_i = \sum_j C_{ij} \ \text{(output totals)}, \qquad
    t_j = \sum_i C_{ij} \ \text{(true-class totals)},

every metric below is a function of ``C`` that does not change when ``C`` is scaled, so it
serves counts and normalised matrices alike, on one matrix ``(n, n)`` or a stack
``(..., n, n)``. Each is defined once, here; :data:`MULTICLASS_METRICS` lists them.

None of them complies with decision theory for every utility matrix (paper §3.3): accuracy
(and micro F1, which equals it for single-label classification) is the utility yield of the
identity utility matrix, the others are not utility yields at all. Undefined values (0/0) are
NaN, never a silent 0 (scikit-learn returns 0 for an undefined MCC).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = [
    "MULTICLASS_METRICS",
    "MulticlassMetric",
    "accuracy",
    "balanced_accuracy",
    "cohen_kappa",
    "get_multiclass_metric",
    "macro_f1",
    "mcc",
    "micro_f1",
]


def _totals(confusion):
    """Diagonal, output totals r_i, true-class totals t_j and grand total N of checked matrices."""
    c = np.asarray(confusion, dtype=float)
    if c.ndim < 2 or c.shape[-1] != c.shape[-2] or c.shape[-1] < 2:
        raise ValueError(f"confusion matrices must be n x n with n >= 2, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("confusion-matrix entries must be finite and non-negative")
    # numpy adds along axes in an order that depends on the memory layout: in C order, a
    # matrix sums alike alone and in any stack.
    c = np.ascontiguousarray(c)
    diagonal = np.diagonal(c, axis1=-2, axis2=-1)
    output_totals = c.sum(axis=-1)
    true_totals = c.sum(axis=-2)
    total = c.sum(axis=(-2, -1))
    return diagonal, output_totals, true_totals, total


def _finish(values: np.ndarray):
    return float(values) if np.ndim(values) == 0 else values


def accuracy(confusion):
    r"""Accuracy: the fraction of test items classified correctly.

    .. math:: \frac{1}{N} \sum_k C_{kk}

    The utility yield, eq. (9), of the identity utility matrix.

    Parameters
    ----------
    confusion : array_like of shape (..., n, n)
        Counts or normalised; rows = output, columns = true class.

    Returns
    -------
    float or ndarray of shape (...)
        NaN for an all-zero matrix.
    """
    diagonal, _, _, total = _totals(confusion)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _finish(diagonal.sum(axis=-1) / total)


def _mean_where_defined(numerator, denominator):
    """Mean over the last axis of the per-class ratios, leaving out the 0/0 ones (as
    scikit-learn does); NaN when none is defined."""
    defined = denominator > 0
    ratio = np.divide(numerator, denominator, out=np.zeros_like(numerator), where=defined)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _finish(ratio.sum(axis=-1) / defined.sum(axis=-1))


def balanced_accuracy(confusion):
    r"""Balanced accuracy: the mean, over the classes present in the test set, of their recall.

    .. math:: \frac{1}{|K|} \sum_{k \in K} \frac{C_{kk}}{t_k}, \qquad K = \{k : t_k > 0\}

    A class absent from the test set has no recall (0/0) and is left out of the mean, as in
    scikit-learn's ``balanced_accuracy_score``.

    Parameters
    ----------
    confusion : array_like of shape (..., n, n)
        Counts or normalised; rows = output, columns = true class.

    Returns
    -------
    float or ndarray of shape (...)
        NaN for an all-zero matrix.
    """
    diagonal, _, true_totals, _ = _totals(confusion)
    return _mean_where_defined(diagonal, true_totals)


def macro_f1(confusion):
    r"""Macro-averaged F1: the mean of the per-class F1 measures (one-vs-rest).

    .. math::
        \frac{1}{|K|} \sum_{k \in K} \frac{2\,C_{kk}}{r_k + t_k}, \qquad
        K = \{k : r_k + t_k > 0\}

    A class that is neither in the test set nor ever output has no F1 (0/0) and is left out
    of the mean, as scikit-learn's ``f1_score(average="macro")`` does when its labels are
    those found in ``y_true`` and ``y_pred``.

    Parameters
    ----------
    confusion : array_like of shape (..., n, n)
        Counts or normalised; rows = output, columns = true class.

    Returns
    -------
    float or ndarray of shape (...)
        NaN for an all-zero matrix.
    """
    diagonal, output_totals, true_totals, _ = _totals(confusion)
    return _mean_where_defined(2.0 * diagonal, output_totals + true_totals)


def micro_f1(confusion):
    r"""Micro-averaged F1: F1 of the true positives, false positives and false negatives pooled
    over the classes.

    .. math::
        \frac{2 \sum_k C_{kk}}{2 \sum_k C_{kk} + \sum_k (r_k - C_{kk}) + \sum_k (t_k - C_{kk})}

    For single-label classification every error is one false positive and one false
    negative, so this equals :func:`accuracy`; it is kept because it is reported as a metric
    of its own.

    Parameters
    ----------
    confusion : array_like of shape (..., n, n)
        Counts or normalised; rows = output, columns = true class.

    Returns
    -------
    float or ndarray of shape (...)
        NaN for an all-zero matrix.
    """
    diagonal, output_totals, true_totals, _ = _totals(confusion)
    true_positives = diagonal.sum(axis=-1)
    false_positives = (output_totals - diagonal).sum(axis=-1)
    false_negatives = (true_totals - diagonal).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _finish(2.0 * true_positives / (2.0 * true_positives + false_positives + false_negatives))


def mcc(confusion):
    r"""Multi-class Matthews correlation coefficient, Gorodkin's :math:`R_K`.

    .. math::
        \frac{N \sum_k C_{kk} - \sum_k r_k t_k}
             {\sqrt{\left(N^2 - \sum_k r_k^2\right)\left(N^2 - \sum_k t_k^2\right)}}

    For n = 2 it is the binary Matthews correlation coefficient.

    Parameters
    ----------
    confusion : array_like of shape (..., n, n)
        Counts or normalised; rows = output, columns = true class.

    Returns
    -------
    float or ndarray of shape (...)
        NaN where the denominator is 0: the test set holds one class only, or the classifier
        always outputs the same class (scikit-learn's ``matthews_corrcoef`` returns 0 there).
    """
    diagonal, output_totals, true_totals, total = _totals(confusion)
    covariance = total * diagonal.sum(axis=-1) - np.sum(output_totals * true_totals, axis=-1)
    # Products, not powers: a numpy scalar's ** 2 can round differently from x * x (and from
    # an array's ** 2), and one matrix must score exactly as it does in a stack.
    output_variance = total * total - np.sum(output_totals * output_totals, axis=-1)
    true_variance = total * total - np.sum(true_totals * true_totals, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _finish(covariance / np.sqrt(output_variance * true_variance))


def cohen_kappa(confusion):
    r"""Cohen's kappa: agreement between output and true class beyond that expected by chance.

    .. math::
        \frac{p_o - p_e}{1 - p_e}, \qquad p_o = \frac{1}{N} \sum_k C_{kk}, \qquad
        p_e = \frac{1}{N^2} \sum_k r_k t_k

    Parameters
    ----------
    confusion : array_like of shape (..., n, n)
        Counts or normalised; rows = output, columns = true class.

    Returns
    -------
    float or ndarray of shape (...)
        NaN where :math:`p_e = 1` (test set and output both of one and the same class), as
        scikit-learn's ``cohen_kappa_score``.
    """
    diagonal, output_totals, true_totals, total = _totals(confusion)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = diagonal.sum(axis=-1) / total
        chance = np.sum(output_totals * true_totals, axis=-1) / (total * total)
        return _finish((observed - chance) / (1.0 - chance))


@dataclass(frozen=True)
class MulticlassMetric:
    """One multi-class metric.

    Attributes
    ----------
    id : str
        Stable identifier, used on the command line and in results.
    name : str
        Display name.
    function : callable
        ``function(confusion) -> float or ndarray``, on matrices of shape (..., n, n).
    """

    id: str
    name: str
    function: Callable

    def __call__(self, confusion):
        """Score confusion matrices of shape (..., n, n); higher is better."""
        return self.function(confusion)


#: The popular multi-class metrics, by id; higher is better for each.
MULTICLASS_METRICS: dict[str, MulticlassMetric] = {
    metric.id: metric
    for metric in (
        MulticlassMetric("accuracy", "Accuracy", accuracy),
        MulticlassMetric("balanced_accuracy", "Balanced accuracy", balanced_accuracy),
        MulticlassMetric("macro_f1", "Macro F1", macro_f1),
        MulticlassMetric("micro_f1", "Micro F1", micro_f1),
        MulticlassMetric("mcc", "Matthews correlation coefficient (R_K)", mcc),
        MulticlassMetric("cohen_kappa", "Cohen's kappa", cohen_kappa),
    )
}


def get_multiclass_metric(name: str) -> MulticlassMetric:
    """Look up a multi-class metric by id.

    Raises
    ------
    KeyError
        With the list of known ids, if ``name`` is unknown.
    """
    try:
        return MULTICLASS_METRICS[name]
    except KeyError:
        raise KeyError(f"unknown multi-class metric {name!r}; known: {', '.join(MULTICLASS_METRICS)}") from None
