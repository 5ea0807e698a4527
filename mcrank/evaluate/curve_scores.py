r"""Threshold-free scores of a scoring classifier on a test set, beside AUC: one registry.

:data:`CURVE_SCORES` maps an id to a function ``(positive, scores) -> float`` (higher is
better) that :func:`mcrank.evaluate.scoring.rank_scoring` reports for every model, in the
report, the JSON and the CSV:

- ``hmeasure``: Hand's (2009) H-measure, :func:`h_measure`, as the R package ``hmeasure``
  computes it by default (the empirical ROC curve's convex hull, the severity ratio the ratio
  of the classes);
- ``average_precision``: the area under the precision-recall curve as scikit-learn's
  ``average_precision_score`` computes it, :func:`average_precision`.

The positive class is the one the scores are for (higher = more positive), as for
:func:`mcrank.evaluate.scoring.auc_score`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from mcrank._validation import array_input

__all__ = ["CURVE_SCORES", "average_precision", "h_measure"]


def _score_array(values, items: int, where: str, per: str) -> np.ndarray:
    """``values`` as ``items`` finite scores, one per item of the argument ``per``; a ValueError
    naming ``where`` otherwise."""
    values = array_input(values, where)
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: not an array of numbers") from None
    if array.ndim != 1 or array.size != items:
        raise ValueError(f"{where}: expected {items} scores (one per item of {per}), got shape {array.shape}")
    if len(bad := np.flatnonzero(~np.isfinite(array))):
        raise ValueError(f"{where}: item {bad[0]}: score {float(array[bad[0]])!r} is not a finite number")
    return array


def _checked_scores(positive, scores, name: str):
    """``positive`` as a 1-d bool array with items of both classes and ``scores`` as finite
    floats of its length, or a ValueError naming the argument (the checks of every
    threshold-free score, ``name`` among them: AUC, the H-measure, average precision)."""
    given = np.asarray(array_input(positive, "positive"))
    if given.ndim != 1 or not (given.dtype == bool or (given.dtype.kind in "iu" and np.isin(given, (0, 1)).all())):
        raise ValueError(f"positive: expected a 1-d array of booleans (True for a positive item), got {given.dtype} of shape {given.shape}")
    positive = given.astype(bool)
    scores = _score_array(scores, positive.size, "scores", "positive")
    if positive.all() or not positive.any():
        raise ValueError(f"positive: {'every' if positive.all() else 'no'} item is positive; {name} needs items of both classes")
    return positive, scores


def _roc_points(positive: np.ndarray, scores: np.ndarray):
    """The empirical ROC curve: the counts of false and true positives at each distinct
    threshold, from ``(0, 0)`` (nothing positive) to ``(n, p)``, and ``n``, ``p``."""
    order = np.argsort(-scores, kind="stable")
    ordered, hits = scores[order], positive[order]
    last = np.r_[np.flatnonzero(np.diff(ordered) != 0), ordered.size - 1]  # the end of each tie
    tp, fp = np.cumsum(hits)[last], np.cumsum(~hits)[last]
    return np.r_[0, fp], np.r_[0, tp], int(fp[-1]), int(tp[-1])


def _upper_hull(f: np.ndarray, t: np.ndarray):
    """The vertices of the upper convex hull of the points ``(f, t)``, sorted by ``f``."""
    hull: list[tuple[float, float]] = []
    for point in sorted(zip(f.tolist(), t.tolist(), strict=True), key=lambda q: (q[0], -q[1])):
        if hull and point[0] == hull[-1][0]:
            continue  # the highest point of each f came first
        while len(hull) >= 2:
            (f1, t1), (f2, t2) = hull[-2], hull[-1]
            if (t2 - t1) * (point[0] - f1) > (point[1] - t1) * (f2 - f1):
                break
            hull.pop()
        hull.append(point)
    return np.array(hull).T


def h_measure(positive, scores, *, severity_ratio: float | None = None) -> float:
    r"""Hand's H-measure: 1 - the expected minimum loss over a distribution of costs, relative to
    that of the better trivial classifier.

    With ``c`` the cost of misclassifying a negative item (a false positive) and ``1 - c``
    that of a positive one, ``pi_+`` and ``pi_-`` the classes' fractions, and ``(f, t)`` the
    vertices of the empirical ROC curve's convex hull,

    .. math:: Q(c) = \min_{(f, t)} c\, \pi_- f + (1 - c)\, \pi_+ (1 - t), \qquad
              H = 1 - \frac{\int_0^1 Q(c)\, w(c)\, dc}{\int_0^1 \min(c\, \pi_-, (1 - c)\, \pi_+)\, w(c)\, dc}

    with ``w`` the Beta(2, 1 + 1 / severity_ratio) density, exactly (``Q`` is linear between
    the hull's breakpoints: incomplete Beta functions).

    Parameters
    ----------
    positive : array_like of bool, shape (items,)
    scores : array_like of shape (items,)
        As in :func:`mcrank.evaluate.scoring.auc_score`.
    severity_ratio : float, optional
        How much more a false positive costs than a false negative, at the mode of ``w``: the
        R package's ``severity.ratio`` (its class 1 is the positive class, its class 0 the
        negative). By default, as there, the ratio of the classes, ``pi_+ / pi_-``, so that
        an error on the rarer class costs more; 1 gives Beta(2, 2), Hand's (2009) symmetric
        choice.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError
        ``severity_ratio`` not a positive finite number, or the checks of ``auc_score``.
    """
    from scipy.special import betainc  # scipy only when a score is computed

    ratio = None if severity_ratio is None else float(severity_ratio)
    if ratio is not None and not (math.isfinite(ratio) and ratio > 0.0):
        raise ValueError(f"severity_ratio: expected a positive number, got {severity_ratio!r}")
    positive, scores = _checked_scores(positive, scores, "the H-measure")
    fp, tp, n, p = _roc_points(positive, scores)
    f, t = _upper_hull(fp / n, tp / p)
    pi_p, pi_n = p / (p + n), n / (p + n)
    if ratio is None:
        ratio = pi_p / pi_n  # the R package's default (severity.ratio = NA): pi1 / pi0
    a, b = 2.0, 1.0 + 1.0 / ratio
    mean = a / (a + b)

    def integral(low, high, slope, constant):
        """int_low^high (slope c + constant) w(c) dc."""
        cdf = betainc(a, b, high) - betainc(a, b, low)
        first = mean * (betainc(a + 1.0, b, high) - betainc(a + 1.0, b, low))
        return slope * first + constant * cdf

    # Vertex k of the hull (by increasing f) ties vertex k + 1 where c pi_- df = (1 - c) pi_+ dt:
    # the hull is concave, so these costs decrease along it, and vertex k is the best between
    # its two ties (vertex 0 up to c = 1, the last down to c = 0).
    df, dt = np.diff(f), np.diff(t)
    ties = np.r_[1.0, pi_p * dt / (pi_p * dt + pi_n * df), 0.0]
    loss = 0.0
    for k in range(f.size):  # Q(c) = c pi_- f_k + (1 - c) pi_+ (1 - t_k) there
        loss += integral(ties[k + 1], ties[k], pi_n * f[k] - pi_p * (1.0 - t[k]), pi_p * (1.0 - t[k]))
    split = pi_p  # min(c pi_-, (1 - c) pi_+): c pi_- below c = pi_+
    trivial = integral(0.0, split, pi_n, 0.0) + integral(split, 1.0, -pi_p, pi_p)
    return 1.0 - loss / trivial


def average_precision(positive, scores) -> float:
    r"""The area under the precision-recall curve as a step function, scikit-learn's
    ``average_precision_score``.

    .. math:: \mathrm{AP} = \sum_k (R_k - R_{k-1})\, P_k

    over the distinct thresholds in decreasing order, ``P_k`` and ``R_k`` the precision and
    recall there (no interpolation).

    Parameters
    ----------
    positive : array_like of bool, shape (items,)
    scores : array_like of shape (items,)
        As in :func:`mcrank.evaluate.scoring.auc_score`.

    Returns
    -------
    float
    """
    positive, scores = _checked_scores(positive, scores, "average precision")
    fp, tp, _, p = _roc_points(positive, scores)
    precision, recall = tp[:0:-1] / (tp[:0:-1] + fp[:0:-1]), np.r_[tp[:0:-1] / p, 0.0]
    # Summed from the lowest threshold up, as scikit-learn sums it: the same float.
    return float(-np.sum(np.diff(recall) * precision))


#: The threshold-free scores reported beside AUC, by id: ``(name, function(positive, scores))``.
CURVE_SCORES: dict[str, tuple[str, Callable]] = {
    "hmeasure": ("H-measure", h_measure),
    "average_precision": ("AP", average_precision),
}
