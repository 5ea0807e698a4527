"""Confusion matrices in the paper's layout, and their (p, TPR, TNR) form.

The one convention of mcrank (``docs/method.md``, "Conventions"): rows = classifier output, columns = true class,
class 0 is "positive". A normalised binary confusion matrix is written

.. math::
    C = \\begin{bmatrix} p\\,a & (1-p)(1-b) \\\\ p\\,(1-a) & (1-p)\\,b \\end{bmatrix}

with ``p`` the fraction of class 0 in the test set, ``a`` = TPR = C00/p and ``b`` = TNR =
C11/(1-p). scikit-learn's ``confusion_matrix`` is the transpose (true class in rows):
:func:`from_sklearn` and :func:`to_sklearn` convert explicitly.
"""

from __future__ import annotations

import numpy as np

from mcrank._jit import jit

__all__ = ["confusion_from_pab", "from_sklearn", "normalise_confusion", "pab_from_confusion", "to_sklearn"]


@jit
def _cells_from_pab(p, a, b):
    """The cells (C00, C01, C10, C11) of the normalised confusion matrix for (p, a, b)."""
    return p * a, (1.0 - p) * (1.0 - b), p * (1.0 - a), (1.0 - p) * b


def confusion_from_pab(p, tpr, tnr) -> np.ndarray:
    """Normalised binary confusion matrices from class-0 fraction, TPR and TNR.

    Parameters
    ----------
    p, tpr, tnr : array_like
        Broadcast together; each in [0, 1].

    Returns
    -------
    ndarray of shape (..., 2, 2)
        Rows = output, columns = true class.
    """
    p, a, b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (p, tpr, tnr)))
    for name, value in (("p", p), ("tpr", a), ("tnr", b)):
        if not np.all((value >= 0) & (value <= 1)):  # NaN fails both comparisons
            raise ValueError(f"{name} must lie in [0, 1], got {float(value[~((value >= 0) & (value <= 1))].flat[0])!r}")
    c = np.empty(p.shape + (2, 2))
    c[..., 0, 0], c[..., 0, 1], c[..., 1, 0], c[..., 1, 1] = _cells_from_pab.py_func(p, a, b)
    return c


def normalise_confusion(counts) -> np.ndarray:
    """Divide confusion matrices of counts by their totals, so that entries sum to 1.

    Parameters
    ----------
    counts : array_like of shape (..., n, n)
        Non-negative, finite; rows = output, columns = true class.

    Raises
    ------
    ValueError
        For negative or non-finite entries, or an all-zero matrix (no test items).
    """
    c = np.asarray(counts, dtype=float)
    if c.ndim < 2 or c.shape[-1] != c.shape[-2]:
        raise ValueError(f"a confusion matrix must be square, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("confusion-matrix entries must be finite and non-negative")
    total = c.sum(axis=(-2, -1), keepdims=True)
    if np.any(total == 0):
        raise ValueError("an all-zero confusion matrix has no test items")
    return c / total


def pab_from_confusion(confusion) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class-0 fraction ``p``, TPR ``a`` and TNR ``b`` of binary confusion matrices.

    Parameters
    ----------
    confusion : array_like of shape (..., 2, 2)
        Counts or normalised; rows = output, columns = true class.

    Returns
    -------
    p, tpr, tnr : ndarray of shape (...)
        ``tpr`` is NaN where class 0 is absent, ``tnr`` where class 1 is.
    """
    c = normalise_confusion(confusion)
    if c.shape[-1] != 2:
        raise ValueError(f"(p, TPR, TNR) describe binary confusion matrices, got {c.shape[-1]}x{c.shape[-1]}")
    p = c[..., 0, 0] + c[..., 1, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        return p, c[..., 0, 0] / p, c[..., 1, 1] / (1 - p)


def from_sklearn(matrix) -> np.ndarray:
    """Convert scikit-learn's layout (true class in rows) to mcrank's (output in rows)."""
    return np.swapaxes(np.asarray(matrix), -1, -2).copy()


def to_sklearn(matrix) -> np.ndarray:
    """Convert mcrank's layout (output in rows) to scikit-learn's (true class in rows)."""
    return np.swapaxes(np.asarray(matrix), -1, -2).copy()
