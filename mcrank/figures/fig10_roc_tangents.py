"""Fig. 10 (the published version's fig. 8): two crossing ROC curves, and the one with the
larger area under the curve losing under the problem's utility matrix
(``docs/method.md``, "The ROC/AUC study").

It draws the curves, the iso-utility lines of eq. (25) and each curve's point of tangency as
given (computed in closed form by :mod:`mcrank.roc` before it is called), nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from mcrank.figures._style import GUIDE, OKABE_ITO, matrix_tex, new_figure, paper_style

__all__ = ["fig10_roc_tangents"]

_COLOURS = (OKABE_ITO["blue"], OKABE_ITO["vermillion"])


def fig10_roc_tangents(classifiers: Sequence[Mapping], *, utility, prevalence: float, slope: float, intercepts: Sequence[float]) -> Figure:
    """Two ROC curves in the (false-positive rate, true-positive rate) plane, the family of
    iso-utility lines ``t = slope * f + c`` of eq. (25), and each curve's best operating point,
    where an iso-utility line touches it.

    Parameters
    ----------
    classifiers : sequence of mapping
        One per curve: ``name``, ``fpr`` and ``tpr`` (arrays of the curve), ``auc``, and its
        best operating point ``best_fpr``, ``best_tpr`` with the utility yield ``best_yield``
        there.
    utility : array_like of shape (2, 2)
        The utility matrix (rows = output, columns = true class), shown in the title.
    prevalence : float
        The fraction ``B`` of class 0.
    slope : float
        The slope of the iso-utility lines, ``(U11 - U01)(1 - B) / ((U00 - U10) B)``.
    intercepts : sequence of float
        The intercepts ``c`` of the iso-utility lines to draw (the lines through the two best
        points among them).

    Returns
    -------
    Figure
    """
    with paper_style():
        fig = new_figure(3.6, 3.6)
        ax = fig.subplots()
        f = np.linspace(0.0, 1.0, 2)
        for c in intercepts:
            ax.plot(f, slope * f + c, "-", color=GUIDE, linewidth=0.6, zorder=1)
        ax.plot([0, 1], [0, 1], ":", color="0.75", linewidth=0.8, zorder=1)
        for k, c in enumerate(classifiers):
            colour = _COLOURS[k % 2]
            label = f"{c['name']}: AUC {c['auc']:.3f}, best yield {c['best_yield']:.3f}"
            ax.plot(c["fpr"], c["tpr"], "-", color=colour, linewidth=1.6, label=label, zorder=2)
            ax.plot([c["best_fpr"]], [c["best_tpr"]], "o", color=colour, markersize=5, markeredgecolor="white", zorder=3)
            ax.plot(f, slope * f + (c["best_tpr"] - slope * c["best_fpr"]), "--", color=colour, linewidth=0.9, zorder=2)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_aspect("equal")
        ax.set_xlabel("false-positive rate f")
        ax.set_ylabel("true-positive rate t")
        ax.set_title(f"U = {matrix_tex(utility)}, B = {prevalence:g}", fontsize=9)
        ax.legend(loc="lower right", fontsize=7)
    return fig
