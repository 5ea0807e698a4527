"""Fig. 4: the truncated gaussian distribution of true utility matrices (``docs/method.md``, "Figures").

The points are drawn by :mod:`mcrank.paper.samples` and read from ``results/samples/``.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from mcrank.figures._style import CORRECT, draw_hexagon, new_figure, paper_style

__all__ = ["fig4_true_um_gaussian"]


def fig4_true_um_gaussian(x, y, *, sd: float = 1 / 3, width: float = 3.6) -> Figure:
    """Fig. 4: the truncated gaussian distribution of true utility matrices in the hexagon.

    ``n`` points (x, y) of eq. (12), gaussian with mean (0, 0), the identity, and sd ``sd``
    in each coordinate, truncated to the hexagon (paper §4.2,
    :func:`~mcrank.samplers.sample_true_um_xy`).

    Parameters
    ----------
    x, y : array_like of shape (n,)
        The points.
    sd : float, default 1/3
        The sd they were drawn with, for the title (the paper's value).
    width : float, default 3.6
        Figure width and height, inches.

    Returns
    -------
    Figure
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"x and y must be two arrays of the same length; got shapes {x.shape} and {y.shape}")
    with paper_style():
        fig = new_figure(width, width)
        ax = fig.add_subplot()
        draw_hexagon(ax)
        ax.plot(x, y, "o", color=CORRECT, markersize=1.6, alpha=0.5, markeredgewidth=0, zorder=2)
        ax.plot([0], [0], "D", color="black", markersize=5, zorder=4)
        ax.annotate(
            "identity\n(accuracy)",
            xy=(0, 0),
            xytext=(-1.05, 0.75),
            ha="left",
            va="center",
            fontsize=8,
            arrowprops=dict(arrowstyle="-", color="black", linewidth=0.5, shrinkA=1, shrinkB=3),
            zorder=5,
        )
        sd_text = "1/3" if math.isclose(sd, 1 / 3) else f"{sd:.3g}"
        ax.set_title(f"Truncated gaussian true utility matrices\nsd {sd_text} in x and y, {x.size} samples")
    return fig
