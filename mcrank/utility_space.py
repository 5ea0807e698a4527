"""Utility matrices, utility yield and the space of binary utility matrices (paper §3.1-3.2, §4.1).

Conventions (``docs/method.md``, "Conventions"): a utility matrix ``U`` has the layout of the confusion matrix,
``U[i, j]`` = utility of output ``i`` when class ``j`` is true, class 0 "positive".

Every public function works on one matrix of shape ``(n, n)`` or on a stack of shape
``(..., n, n)``. The private ``_*`` functions are the scalar forms that numba kernels call.
"""

from __future__ import annotations

import numpy as np

from mcrank._jit import jit
from mcrank.confusion import _cells_from_pab

__all__ = [
    "IDENTITY_UM",
    "TPR_UM",
    "TNR_UM",
    "expected_um",
    "in_hexagon",
    "normalise_um",
    "um_from_xy",
    "utility_yield",
    "xy_from_um",
]

#: The utility matrix equivalent to accuracy, at (x, y) = (0, 0).
IDENTITY_UM = np.array([[1.0, 0.0], [0.0, 1.0]])
#: The utility matrix equivalent to the true-positive rate, at (x, y) = (-1, 0).
TPR_UM = np.array([[1.0, 0.0], [0.0, 0.0]])
#: The utility matrix equivalent to the true-negative rate, at (x, y) = (1, 0).
TNR_UM = np.array([[0.0, 0.0], [0.0, 1.0]])


def _as_square_stack(matrix, name: str) -> np.ndarray:
    array = np.asarray(matrix, dtype=float)
    if array.ndim < 2 or array.shape[-1] != array.shape[-2]:
        raise ValueError(f"{name} must be a square matrix or a stack of them, got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return array


def utility_yield(utility, confusion) -> np.ndarray | float:
    r"""Utility yield of confusion matrices under utility matrices, eq. (9).

    .. math:: \sum_{ij} U_{ij} C_{ij}

    Parameters
    ----------
    utility : array_like of shape (..., n, n)
        Utility matrices, ``U[i, j]`` = utility of output ``i`` when class ``j`` is true.
    confusion : array_like of shape (..., n, n)
        Normalised confusion matrices (rows = output, columns = true class). With counts
        instead, the result is the total utility rather than the utility per test item.

    Returns
    -------
    float or ndarray of shape (...)
        The yields, broadcast over the leading dimensions.
    """
    u = _as_square_stack(utility, "utility")
    c = _as_square_stack(confusion, "confusion")
    if u.shape[-1] != c.shape[-1]:
        raise ValueError(f"utility is {u.shape[-1]}x{u.shape[-1]} but confusion is {c.shape[-1]}x{c.shape[-1]}")
    result = np.sum(u * c, axis=(-2, -1))
    return float(result) if result.ndim == 0 else result


def normalise_um(utility) -> np.ndarray:
    r"""Bring utility matrices to the standard form of eq. (11): minimum 0, maximum 1.

    .. math:: U_{ij} \mapsto \frac{U_{ij} - \min U}{\max U - \min U}

    Rankings are unchanged, since eq. (11) is a map :math:`U \mapsto aU + b` with
    :math:`a > 0` (eq. 10).

    Parameters
    ----------
    utility : array_like of shape (..., n, n)

    Returns
    -------
    ndarray of shape (..., n, n)

    Raises
    ------
    ValueError
        If a matrix is constant: all its decisions are worth the same, and eq. (11) is
        undefined.
    """
    u = _as_square_stack(utility, "utility")
    with np.errstate(over="ignore"):
        span = u.max(axis=(-2, -1), keepdims=True) - u.min(axis=(-2, -1), keepdims=True)
    if not np.all(np.isfinite(span)):
        # Entries near the largest float (the span overflows): halve them first, exact but
        # for subnormal entries, negligible beside such a span; other matrices are left as
        # they were, bit for bit.
        u = np.where(np.isfinite(span), u, 0.5 * u)
        span = u.max(axis=(-2, -1), keepdims=True) - u.min(axis=(-2, -1), keepdims=True)
    low = u.min(axis=(-2, -1), keepdims=True)
    if np.any(span == 0):
        raise ValueError("a constant utility matrix has no normalisation (eq. 11): every decision is worth the same")
    return (u - low) / span


@jit
def _um_from_xy(x, y):
    """Eq. (12) for one point: the cells (U00, U01, U10, U11)."""
    u00 = 1.0 - x if x > 0.0 else 1.0
    u11 = 1.0 + x if x < 0.0 else 1.0
    # On the diagonal edges |y - x| = 1, rounding in 1 +- x can leave the off-diagonal one ulp
    # above the diagonal of its column: clamp, so that the matrix stays ordered.
    u01 = min(y, u11) if y > 0.0 else 0.0
    u10 = min(-y, u00) if y < 0.0 else 0.0
    return u00, u01, u10, u11


@jit
def _in_hexagon(x, y):
    """Whether (x, y) lies in the domain of eq. (12): |x| <= 1, |y| <= 1, |y - x| <= 1."""
    # ``&``, not ``and``: no branch, so that rejection loops over many points vectorise.
    return (abs(x) <= 1.0) & (abs(y) <= 1.0) & (abs(y - x) <= 1.0)


def in_hexagon(x, y) -> np.ndarray | bool:
    """Whether points lie in the hexagon ``|x| <= 1, |y| <= 1, |y - x| <= 1`` of fig. 1.

    Outside it, the upper-left and lower-right corners, misclassification would be worth more
    than correct classification.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    inside = (np.abs(x) <= 1) & (np.abs(y) <= 1) & (np.abs(y - x) <= 1)
    return bool(inside) if inside.ndim == 0 else inside


def um_from_xy(x, y) -> np.ndarray:
    r"""The binary utility matrix at coordinates (x, y) of the hexagon, eq. (12).

    .. math::
        U(x, y) = \begin{bmatrix} 1 - x\,[x>0] & y\,[y>0] \\ -y\,[y<0] & 1 + x\,[x<0] \end{bmatrix}

    The result is already in the standard form of eq. (11).

    Parameters
    ----------
    x, y : array_like
        Coordinates, broadcast together; every point must lie in the hexagon.

    Returns
    -------
    ndarray of shape (..., 2, 2)

    Raises
    ------
    ValueError
        If a point lies outside the hexagon.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    if not np.all(np.isfinite(x) & np.isfinite(y)) or not np.all(in_hexagon(x, y)):
        raise ValueError("(x, y) must lie in the hexagon |x| <= 1, |y| <= 1, |y - x| <= 1")
    u = np.empty(x.shape + (2, 2))
    u[..., 0, 0] = np.where(x > 0, 1 - x, 1.0)
    u[..., 1, 1] = np.where(x < 0, 1 + x, 1.0)
    # On the diagonal edges |y - x| = 1, rounding in 1 +- x can leave the off-diagonal one ulp
    # above the diagonal of its column: clamp, so that the matrix stays ordered.
    u[..., 0, 1] = np.where(y > 0, np.minimum(y, u[..., 1, 1]), 0.0)
    u[..., 1, 0] = np.where(y < 0, np.minimum(-y, u[..., 0, 0]), 0.0)
    return u


def xy_from_um(utility, *, invalid: str = "raise") -> tuple[np.ndarray, np.ndarray]:
    """The hexagon coordinates (x, y) of binary utility matrices: the inverse of eq. (12).

    Each matrix is first normalised by eq. (11), then mapped by
    ``x = (1 - U00)[U00 < 1] - (1 - U11)[U11 < 1]`` and ``y = U01[U01 > 0] - U10[U10 > 0]``.

    Parameters
    ----------
    utility : array_like of shape (..., 2, 2)
    invalid : {"raise", "nan"}, default "raise"
        What to do with a matrix in which misclassification is worth more than correct
        classification (``U00 < U10`` or ``U11 < U01``): such a matrix has no place in the
        hexagon. ``"raise"`` raises ValueError; ``"nan"`` returns NaN coordinates for it.

    Returns
    -------
    x, y : ndarray of shape (...)
    """
    if invalid not in ("raise", "nan"):
        raise ValueError(f"invalid must be 'raise' or 'nan', got {invalid!r}")
    u = _as_square_stack(utility, "utility")
    if u.shape[-1] != 2:
        raise ValueError(f"the hexagon holds binary (2x2) utility matrices, got {u.shape[-1]}x{u.shape[-1]}")
    u = normalise_um(u)
    u00, u01, u10, u11 = u[..., 0, 0], u[..., 0, 1], u[..., 1, 0], u[..., 1, 1]
    ordered = (u00 >= u10) & (u11 >= u01)
    if invalid == "raise" and not np.all(ordered):
        raise ValueError(
            "utility matrix rewards misclassification over correct classification (U00 < U10 or U11 < U01): it has no place in the hexagon"
        )
    x = np.where(u00 < 1, 1 - u00, 0.0) - np.where(u11 < 1, 1 - u11, 0.0)
    y = np.where(u01 > 0, u01, 0.0) - np.where(u10 > 0, u10, 0.0)
    x = np.where(ordered, x, np.nan)
    y = np.where(ordered, y, np.nan)
    return x, y


def expected_um(utilities, probabilities) -> np.ndarray:
    r"""The expected utility matrix of a discrete distribution over utility matrices, eq. (17).

    .. math:: \hat U = \sum_a q_a U^{(a)}

    When unsure which utility matrix applies, rank classifiers by the yield under
    :math:`\hat U` (paper §4.1). The matrices are combined as given, *not* normalised first:
    eq. (11) would change their relative weights.

    Parameters
    ----------
    utilities : array_like of shape (k, n, n)
        The alternative utility matrices, in common units.
    probabilities : array_like of shape (k,)
        Their probabilities: non-negative, summing to 1 (to 1e-9).

    Returns
    -------
    ndarray of shape (n, n)
    """
    u = _as_square_stack(utilities, "utilities")
    if u.ndim != 3:
        raise ValueError(f"utilities must have shape (k, n, n), got {u.shape}")
    q = np.asarray(probabilities, dtype=float)
    if q.shape != (u.shape[0],):
        raise ValueError(f"need one probability per utility matrix: {u.shape[0]} matrices, {q.size} probabilities")
    if not np.all(np.isfinite(q)) or np.any(q < 0):
        raise ValueError("probabilities must be finite and non-negative")
    if abs(q.sum() - 1.0) > 1e-9:
        raise ValueError(f"probabilities must sum to 1, they sum to {q.sum():.12g}")
    return np.tensordot(q, u, axes=1)


@jit
def _yield_pab(u00, u01, u10, u11, p, a, b):
    """Utility yield, eq. (9), of the confusion matrix with class-0 fraction p, TPR a, TNR b."""
    c00, c01, c10, c11 = _cells_from_pab(p, a, b)
    return u00 * c00 + u01 * c01 + u10 * c10 + u11 * c11
