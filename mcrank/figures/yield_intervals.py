"""Each model's utility yield with its 95 % interval given the test set: one row per model.

It draws names, yields and intervals, nothing else: they are computed by
:mod:`mcrank.evaluate` (the test-set posterior of ``evaluate(..., test_uncertainty=True)``, of
``rank_scoring`` and of the per-item evaluation). :mod:`mcrank.figures.report_figures` draws it
for the HTML page of ``mcrank evaluate --format html``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from mcrank.figures._style import OKABE_ITO, PAGE_WIDTH, model_label, new_figure, paper_style

__all__ = ["yield_interval_figure"]


def yield_interval_figure(names: Sequence[str], yields, intervals, *, xlabel: str = "utility yield per item",
                          title: str | None = None) -> Figure:  # fmt: skip
    """The models' yields as points with their intervals as bars, the first model on top.

    Parameters
    ----------
    names : sequence of str
        The models, best first.
    yields : array_like of shape (models,)
    intervals : array_like of shape (models, 2)
        Each model's (low, high).
    xlabel, title : str, optional

    Returns
    -------
    Figure
    """
    yields = np.asarray(yields, dtype=float)
    intervals = np.asarray(intervals, dtype=float).reshape(len(yields), 2)
    rows = np.arange(len(yields))[::-1]  # the first model on top
    with paper_style():
        fig = new_figure(PAGE_WIDTH * 0.8, 0.9 + 0.32 * len(yields))
        axes = fig.add_subplot()
        colour = OKABE_ITO["blue"]
        axes.hlines(rows, intervals[:, 0], intervals[:, 1], color=colour, linewidth=2.2, alpha=0.55)
        axes.plot(yields, rows, "o", color=colour, markersize=5)
        axes.set_yticks(rows, [model_label(name) for name in names])
        axes.set_ylim(-0.6, len(yields) - 0.4)
        axes.set_xlabel(xlabel)
        axes.set_title(title or "utility yield with its 95 % interval given the test set")
        axes.grid(axis="x", color="0.88", linewidth=0.6)
        axes.set_axisbelow(True)
    return fig
