"""Figs 2 and 3: utility yield against metric score, one test set (``docs/method.md``, "Figures").

The confusion matrices are given as their true-positive and true-negative rates: the figure
computes their yields (eq. 9) and scores, and draws. The rates are drawn by
:mod:`mcrank.paper.samples` and read from ``results/samples/``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from mcrank.confusion import confusion_from_pab
from mcrank.figures._style import CORRECT, WRONG, matrix_tex, new_figure, paper_style, ranked_correctly
from mcrank.metrics import get_metric
from mcrank.utility_space import IDENTITY_UM, TPR_UM, utility_yield

__all__ = ["fig_yield_vs_metric"]


def _discordant_examples(
    yields: np.ndarray, scores: np.ndarray, count: int, *, search: int = 1000, separation: float = 0.08
) -> list[tuple[int, int]]:
    """Up to ``count`` pairs (i, j) most strongly ranked in reverse by the score.

    Discordance of a pair: ``-(dy / sd_y) * (ds / sd_s)`` where ``dy`` and ``ds`` have opposite
    signs. Pairs are taken greedily by discordance; a pair is skipped if one of its points
    lies within ``separation`` (in units of the plotted ranges) of a point already taken, so
    that the marked examples are distinct on the page. Only the first ``search`` points are
    searched (all pairs among them).
    """
    y, s = yields[:search], scores[:search]
    i, j = np.triu_indices(y.size, k=1)
    dy, ds = y[j] - y[i], s[j] - s[i]
    # Differences at rounding level are ties, not reversals: a compliant metric, an affine
    # function of the yield, must show none.
    tolerance = 1e-9
    reversed_ = (dy * ds < 0) & (np.abs(dy) > tolerance) & (np.abs(ds) > tolerance)
    scale = (np.std(y) or 1.0) * (np.std(s) or 1.0)
    discordance = np.where(reversed_, -dy * ds / scale, -np.inf)
    page = np.column_stack([(y - y.min()) / (np.ptp(y) or 1.0), (s - s.min()) / (np.ptp(s) or 1.0)])
    chosen: list[tuple[int, int]] = []
    taken = np.empty((0, 2))
    for k in np.argsort(discordance)[::-1]:
        if len(chosen) == count or not np.isfinite(discordance[k]):
            break
        ends = page[[i[k], j[k]]]
        if taken.size and np.min(np.linalg.norm(ends[:, None, :] - taken[None, :, :], axis=-1)) < separation:
            continue
        chosen.append((int(i[k]), int(j[k])))
        taken = np.vstack([taken, ends])
    return chosen


def _misranked_fraction(yields: np.ndarray, scores: np.ndarray, *, search: int = 1000) -> float:
    """Fraction of all pairs among the first ``search`` points that the score misranks
    (step 6: ties count as misranked)."""
    yields, scores = yields[:search], scores[:search]
    i, j = np.triu_indices(yields.size, k=1)
    return float(np.mean(~ranked_correctly(yields[j] - yields[i], scores[j] - scores[i]))) if i.size else 0.0


def fig_yield_vs_metric(
    p: float,
    tpr,
    tnr,
    *,
    metrics: Sequence[str] = ("accuracy", "tpr", "f1", "mcc"),
    utilities: Sequence = (IDENTITY_UM, TPR_UM),
    examples: int = 3,
) -> Figure:
    """Figs 2 (``p = 0.5``) and 3 (``p = 0.9``): utility yield against metric score.

    ``n`` normalised confusion matrices of one test set with class-0 fraction ``p``, given by
    their rates ``tpr`` and ``tnr`` (the paper draws them independently, density rising
    linearly on [0.5, 1]). One row per metric, one column per true utility matrix; a blue dot
    per confusion matrix at (yield under ``U``, eq. 9; score). Red triangles joined by a thin
    line: the ``examples`` disjoint pairs most strongly ranked in reverse by the metric. A
    metric compliant with ``U`` (eq. 16: accuracy with the identity, TPR with
    [[1, 0], [0, 0]]) reverses no pair, and its panel shows none. Each panel states the
    percentage of all ``n (n - 1) / 2`` pairs that the metric misranks (pairs among the first
    1000 matrices when ``n`` is larger).

    Parameters
    ----------
    p : float
        Fraction of class 0 in the test set, in (0, 1).
    tpr, tnr : array_like of shape (n,)
        True-positive and true-negative rates of the ``n >= 2`` classifiers.
    metrics : sequence of str, default ("accuracy", "tpr", "f1", "mcc")
        Metric ids, one row each (the paper's rows).
    utilities : sequence of array_like (2, 2), default (identity, [[1, 0], [0, 0]])
        True utility matrices, one column each (the paper's columns).
    examples : int, default 3
        Number of reversed pairs to mark per panel.

    Returns
    -------
    Figure
    """
    if not (0.0 < float(p) < 1.0):
        raise ValueError(f"p must lie strictly between 0 and 1, got {p!r}")
    p = float(p)
    tpr, tnr = np.asarray(tpr, dtype=float), np.asarray(tnr, dtype=float)
    if tpr.ndim != 1 or tpr.shape != tnr.shape or tpr.size < 2:
        raise ValueError(f"tpr and tnr must be two arrays of the same length, at least 2; got shapes {tpr.shape} and {tnr.shape}")
    confusion = confusion_from_pab(p, tpr, tnr)
    utilities = [np.asarray(u, dtype=float) for u in utilities]
    metric_objects = [get_metric(m) for m in metrics]
    with paper_style():
        fig = new_figure(6.2, 1.95 * len(metric_objects) + 0.5)
        axes = fig.subplots(len(metric_objects), len(utilities), sharex="col", sharey="row", squeeze=False)
        for col, utility in enumerate(utilities):
            yields = utility_yield(utility, confusion)
            for row, metric in enumerate(metric_objects):
                ax = axes[row, col]
                scores = metric.from_pab(p, tpr, tnr)
                ax.plot(yields, scores, "o", color=CORRECT, markersize=2.2, alpha=0.55, markeredgewidth=0, zorder=2)
                for i, j in _discordant_examples(yields, scores, examples):
                    ax.plot(yields[[i, j]], scores[[i, j]], "-", color=WRONG, linewidth=0.6, zorder=3)
                    ax.plot(
                        yields[[i, j]],
                        scores[[i, j]],
                        "^",
                        color=WRONG,
                        markersize=5,
                        markeredgecolor="black",
                        markeredgewidth=0.4,
                        zorder=4,
                    )
                misranked = 100 * _misranked_fraction(yields, scores)
                ax.text(
                    0.03,
                    0.97,
                    f"misranked pairs: {misranked:.1f} %",
                    transform=ax.transAxes,
                    ha="left",
                    va="top",
                    fontsize=7.5,
                    color="0.25",
                )
                if row == 0:
                    ax.set_title("true U = " + matrix_tex(utility), pad=6)
                if row == len(metric_objects) - 1:
                    ax.set_xlabel("utility yield")
                if col == 0:
                    ax.set_ylabel(metric.name)
                ax.margins(0.06)
        fig.suptitle(f"Confusion matrices of one test set, class 0 fraction p = {p:g}", fontsize=9)
    return fig
