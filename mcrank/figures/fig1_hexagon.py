"""Fig. 1: the space of binary utility matrices (``docs/method.md``, "Figures").

It needs no data: the matrices it writes are computed from their places by eq. (12).
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from mcrank.figures._style import draw_hexagon, matrix_tex, new_figure, paper_style
from mcrank.utility_space import um_from_xy

__all__ = ["FIG1_POINTS", "fig1_hexagon"]

#: (x, y, note) of the matrices written in fig. 1: the centre, the six corners and a few
#: interior points, among them fig. 5's [[0.5, 0.5], [0, 1]] at (0.5, 0.5).
FIG1_POINTS = (
    (0.0, 0.0, "accuracy"),
    (-1.0, 0.0, "TPR"),
    (1.0, 0.0, "TNR"),
    (0.0, 1.0, None),
    (0.0, -1.0, None),
    (1.0, 1.0, None),
    (-1.0, -1.0, None),
    (0.5, 0.5, None),
    (-0.5, -0.5, None),
    (0.5, 0.0, None),
    (-0.5, 0.0, None),
    (0.0, 0.5, None),
    (0.0, -0.5, None),
)


def fig1_hexagon(*, points=FIG1_POINTS, width: float = 4.6) -> Figure:
    """Fig. 1: the space of binary utility matrices, with example matrices at their places.

    The hexagon ``|x| <= 1, |y| <= 1, |y - x| <= 1`` of eq. (12); at each point a dot and the
    normalised utility matrix ``U(x, y)`` computed by :func:`~mcrank.utility_space.um_from_xy`.
    The identity (accuracy) is at the centre, the matrices equivalent to the true-positive
    and true-negative rates at (-1, 0) and (1, 0) (paper §3.2-3.3).

    Parameters
    ----------
    points : sequence of (x, y, note)
        Where to write matrices; ``note`` (or None) is written under the matrix.
    width : float, default 4.6
        Figure width and height, inches.

    Returns
    -------
    Figure
    """
    with paper_style():
        fig = new_figure(width, width)
        ax = fig.add_subplot()
        draw_hexagon(ax, margin=0.42)
        xs = np.array([p[0] for p in points], dtype=float)
        ys = np.array([p[1] for p in points], dtype=float)
        matrices = um_from_xy(xs, ys)
        ax.plot(xs, ys, "o", color="black", markersize=3, zorder=3)
        for (x, y, note), matrix in zip(points, matrices):
            label = matrix_tex(matrix) + (f"\n{note}" if note else "")
            # Corners and edge points: label outside, away from the centre; interior: below.
            radius = math.hypot(x, y)
            on_boundary = max(abs(x), abs(y), abs(y - x)) >= 1.0 - 1e-12
            if on_boundary and radius > 0:
                dx, dy = x / radius, y / radius
            else:
                dx, dy = 0.0, -1.0
            ha = "left" if dx > 0.3 else "right" if dx < -0.3 else "center"
            va = "bottom" if dy > 0.3 else "top" if dy < -0.3 else "center"
            ax.annotate(
                label,
                xy=(x, y),
                xytext=(5 * dx, 5 * dy),
                textcoords="offset points",
                ha=ha,
                va=va,
                multialignment="center",
                fontsize=8,
                zorder=4,
            )
    return fig
