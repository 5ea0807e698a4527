"""Fig. 5: the cloud of perturbed utility matrices around one matrix (``docs/method.md``, "Figures").

The perturbed matrices are drawn by :mod:`mcrank.paper.samples` and read from
``results/samples/``; the figure places them in the hexagon (eqs. 11 and 12) and draws.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from mcrank.error_models import ERROR_MODELS
from mcrank.figures._style import CLOUD, PAGE_WIDTH, draw_hexagon, new_figure, paper_style
from mcrank.utility_space import xy_from_um

__all__ = ["fig5_perturbation_cloud"]


def _cloud_xy(perturbed: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hexagon coordinates of perturbed matrices, eq. (11) then the inverse of eq. (12);
    NaN for those with no place in the hexagon (misclassification better than correct
    classification, or constant). Also returns the mask of placed matrices."""
    x = np.full(perturbed.shape[0], np.nan)
    y = np.full(perturbed.shape[0], np.nan)
    span = perturbed.max(axis=(-2, -1)) - perturbed.min(axis=(-2, -1))
    varies = span > 0  # a constant matrix has no normalisation (eq. 11)
    if np.any(varies):
        x[varies], y[varies] = xy_from_um(perturbed[varies], invalid="nan")
    placed = np.isfinite(x) & np.isfinite(y)
    return x, y, placed


def fig5_perturbation_cloud(
    perturbed,
    *,
    centre=((0.5, 0.5), (0.0, 1.0)),
    sds: Sequence[float] = (0.1, 0.2),
    errors: Sequence[str] = tuple(ERROR_MODELS),
) -> Figure:
    """Fig. 5: the cloud of perturbed utility matrices around one matrix, in the hexagon.

    For each error model (rows) and error sd ``s`` (columns), ``n`` perturbed matrices ``U'``
    (paper §4.2) are normalised by eq. (11) and placed by inverting eq. (12). The paper's
    fig. 5 is ``gaussian`` with ``s = 0.1`` around ``U = [[0.5, 0.5], [0, 1]]`` (black
    diamond). A ``gaussian`` perturbation can reward misclassification over correct
    classification; such a matrix has no place in the hexagon, is not drawn, and the panel
    says how many were left out. For ``truncated`` the panel also gives the realised sd of
    ``U' - U`` in this sample.

    Parameters
    ----------
    perturbed : array_like of shape (len(errors), len(sds), n, 2, 2)
        The perturbed matrices of each panel (:func:`~mcrank.samplers.perturb_um`).
    centre : array_like (2, 2), default [[0.5, 0.5], [0, 1]]
        The true utility matrix they perturb, in the standard form of eq. (11).
    sds : sequence of float, default (0.1, 0.2)
    errors : sequence of str, default every error model (:data:`mcrank.error_models.ERROR_MODELS`)
        The sds and error models they were drawn with, for the titles.

    Returns
    -------
    Figure
    """
    perturbed = np.asarray(perturbed, dtype=float)
    if perturbed.ndim != 5 or perturbed.shape[:2] != (len(errors), len(sds)) or perturbed.shape[3:] != (2, 2):
        raise ValueError(
            f"perturbed must have shape ({len(errors)}, {len(sds)}, n, 2, 2): one cloud per error model and sd; got {perturbed.shape}"
        )
    n = perturbed.shape[2]
    centre = np.asarray(centre, dtype=float)
    centre_x, centre_y = xy_from_um(centre)
    panel = 3.1
    with paper_style():
        fig = new_figure(min(PAGE_WIDTH, panel * len(sds) + 0.3), panel * len(errors) + 0.1)
        axes = fig.subplots(len(errors), len(sds), squeeze=False, sharex=True, sharey=True)
        for row, error in enumerate(errors):
            for col, sd in enumerate(sds):
                ax = axes[row, col]
                cloud = perturbed[row, col]
                x, y, placed = _cloud_xy(cloud)
                draw_hexagon(ax)
                ax.plot(x[placed], y[placed], "o", color=CLOUD, markersize=1.8, alpha=0.5, markeredgewidth=0, zorder=2)
                ax.plot([centre_x], [centre_y], "D", color="black", markersize=5, zorder=4)
                left_out = n - int(placed.sum())
                if left_out:
                    note = f"{left_out} of {n} outside\nthe hexagon\n(not drawn)"
                else:
                    note = f"all {n} inside\nthe hexagon"
                # In the cut-off upper-left corner: where the left-out matrices would belong.
                ax.text(0.03, 0.97, note, transform=ax.transAxes, ha="left", va="top", fontsize=7.5, color="0.25")
                title = f"{error} errors, s = {sd:g}"
                if error in ERROR_MODELS and not ERROR_MODELS[error].closed_form and n:
                    realised = float(np.std(cloud - centre))
                    title += f"\n(realised sd {realised:.3f})"
                ax.set_title(title)
                if row != len(errors) - 1:
                    ax.set_xlabel("")
                if col != 0:
                    ax.set_ylabel("")
    return fig
