"""The figures of the paper, figs 1-7 (``SPEC.md`` "Figures of the paper").

Every figure function returns a :class:`matplotlib.figure.Figure` built directly, without
pyplot: no backend is selected and no figure is registered anywhere, so the functions are
safe in a library and in tests. Each is drawn inside :func:`paper_style`, which sets
matplotlib's rcParams only for the duration (rcParams are global: do not build figures from
several threads at once). Write a figure with :func:`save_figure`, which writes PNG and
vector PDF atomically.

The figures only draw. Figs 1-5 compute their few hundred or thousand points here, from an
``rng`` resolved by :func:`mcrank._rng.resolve_rng`; figs 6 and 7 draw results of the engine
(:func:`mcrank.engine.sample_pairs` and :meth:`mcrank.engine.StudyResult.rows`), which the
caller reads from disk or computes.

Colours are the colour-blind-safe palette of Okabe & Ito (2008), :data:`OKABE_ITO`.
"""

from __future__ import annotations

import contextlib
import io
import math
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
from matplotlib import cycler, rc_context, rcParams
from matplotlib.figure import Figure
from matplotlib.patches import Polygon

from mcrank._rng import resolve_rng
from mcrank.confusion import confusion_from_pab
from mcrank.engine import ranked_correctly
from mcrank.metrics import get_metric
from mcrank.results import atomic_write_bytes
from mcrank.samplers import ERROR_MODELS, TRUE_UM_DISTRIBUTIONS, perturb_um, sample_rates, sample_true_um_xy
from mcrank.utility_space import IDENTITY_UM, TPR_UM, um_from_xy, utility_yield, xy_from_um

__all__ = [
    "HEXAGON_VERTICES",
    "OKABE_ITO",
    "PAPER_RC",
    "apply_style",
    "fig1_hexagon",
    "fig4_true_um_gaussian",
    "fig5_perturbation_cloud",
    "fig6_pairs",
    "fig7_sweep",
    "fig_yield_vs_metric",
    "paper_style",
    "save_figure",
]

#: The colour-blind-safe palette of Okabe & Ito (2008), by name.
OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}

#: Order of the colour cycle: blue and orange, the most distinct pair, first.
_CYCLE = ("blue", "orange", "bluish_green", "vermillion", "reddish_purple", "sky_blue", "black")
#: Colours of the roles the figures give them.
_CORRECT = OKABE_ITO["blue"]
_WRONG = OKABE_ITO["vermillion"]
_CLOUD = OKABE_ITO["reddish_purple"]
_ERROR_COLOURS = {"gaussian": OKABE_ITO["blue"], "truncated": OKABE_ITO["orange"]}
_GUIDE = "0.6"  # axes through zero, hexagon guides
_METRIC_LINE = "0.35"

#: matplotlib settings of every figure: 9 pt text for a page about 7 in wide, thin spines,
#: no top or right spine, the Okabe-Ito colour cycle, TrueType fonts embedded in the PDF
#: (text stays text), no frame on legends.
PAPER_RC = {
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "figure.titlesize": 10,
    "axes.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlepad": 4.0,
    "axes.prop_cycle": cycler(color=[OKABE_ITO[c] for c in _CYCLE]),
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.major.size": 3.0,
    "ytick.major.size": 3.0,
    "xtick.minor.width": 0.4,
    "ytick.minor.width": 0.4,
    "lines.linewidth": 1.2,
    "lines.markersize": 4.0,
    "legend.frameon": False,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.dpi": 200,
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "svg.fonttype": "none",
}

#: The corners of the hexagon |x| <= 1, |y| <= 1, |y - x| <= 1 of eq. (12), anticlockwise.
HEXAGON_VERTICES = ((1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (-1.0, 0.0), (-1.0, -1.0), (0.0, -1.0))

#: Width of a full-page figure, inches.
_PAGE_WIDTH = 7.0


# --- style -----------------------------------------------------------------------------------


@contextlib.contextmanager
def paper_style() -> Iterator[None]:
    """Context in which figures are built with :data:`PAPER_RC`; rcParams are restored after.

    Artists read rcParams when they are created, and ``savefig`` when it writes, so both
    building and saving a figure belong inside it (the figure functions and
    :func:`save_figure` enter it themselves).
    """
    with rc_context(PAPER_RC):
        yield


def apply_style() -> None:
    """Set :data:`PAPER_RC` in matplotlib's global rcParams, for interactive use.

    Library code should prefer :func:`paper_style`, which restores the settings.
    """
    rcParams.update(PAPER_RC)


# --- helpers ---------------------------------------------------------------------------------


def _number(value: float) -> str:
    """A matrix entry as short text: 0, 1, 0.5, 0.25, 0.33."""
    if abs(value - round(value)) < 1e-9:
        return str(int(round(value)))
    return f"{value:.2g}"


def _matrix_tex(matrix) -> str:
    """A 2x2 matrix as mathtext, one ``\\genfrac`` per column, in square brackets."""
    m = np.asarray(matrix, dtype=float)
    columns = (rf"\genfrac{{}}{{}}{{0}}{{0}}{{{_number(m[0, j])}}}{{{_number(m[1, j])}}}" for j in range(2))
    return r"$\left[" + r"\;\;".join(columns) + r"\right]$"


def _new_figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def _draw_hexagon(ax, *, fill: bool = True, margin: float = 0.12) -> None:
    """The hexagon of eq. (12) with thin x and y axes through its centre (fig. 1)."""
    ax.add_patch(
        Polygon(
            HEXAGON_VERTICES,
            closed=True,
            facecolor="0.96" if fill else "none",
            edgecolor="0.25",
            linewidth=0.8,
            zorder=0,
        )
    )
    ax.plot([-1, 1], [0, 0], color=_GUIDE, linewidth=0.5, zorder=0.5)
    ax.plot([0, 0], [-1, 1], color=_GUIDE, linewidth=0.5, zorder=0.5)
    ax.set_xlim(-1 - margin, 1 + margin)
    ax.set_ylim(-1 - margin, 1 + margin)
    ax.set_aspect("equal")
    ax.set_xticks([-1, -0.5, 0, 0.5, 1])
    ax.set_yticks([-1, -0.5, 0, 0.5, 1])
    ax.set_xlabel("x")
    ax.set_ylabel("y")


def _is_metric_row(row: Mapping) -> bool:
    return row["name"] != "utility"


def _display_name(row: Mapping) -> str:
    if _is_metric_row(row):
        return get_metric(row["name"]).name
    return f"Utility matrix, sd {float(row['sd']):g}"


def _find_sd(values, sd: float):
    """The element of ``values`` equal to ``sd`` up to rounding, or None."""
    for value in values:
        if value is not None and value != "" and math.isclose(float(value), sd, rel_tol=1e-9, abs_tol=1e-12):
            return value
    return None


def _spread(values, gap: float) -> np.ndarray:
    """Move values as little as possible (least squares) so that sorted neighbours are at
    least ``gap`` apart: isotonic regression of ``sorted - i * gap`` by pool adjacent
    violators. Used to keep the labels of fig. 7 from overlapping."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="stable")
    shifted = values[order] - gap * np.arange(values.size)
    blocks: list[list[float]] = []  # [mean, count]
    for v in shifted:
        blocks.append([v, 1.0])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            mean, count = blocks.pop()
            previous_mean, previous_count = blocks[-1]
            total = previous_count + count
            blocks[-1] = [(previous_mean * previous_count + mean * count) / total, total]
    fitted = np.concatenate([np.full(int(count), mean) for mean, count in blocks]) if blocks else shifted
    result = np.empty_like(values)
    result[order] = fitted + gap * np.arange(values.size)
    return result


# --- fig. 1 ----------------------------------------------------------------------------------

#: (x, y, note) of the matrices written in fig. 1: the centre, the six corners and a few
#: interior points, among them fig. 5's [[0.5, 0.5], [0, 1]] at (0.5, 0.5).
_FIG1_POINTS = (
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


def fig1_hexagon(*, points=_FIG1_POINTS, width: float = 4.6) -> Figure:
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
        fig = _new_figure(width, width)
        ax = fig.add_subplot()
        _draw_hexagon(ax, margin=0.42)
        xs = np.array([p[0] for p in points], dtype=float)
        ys = np.array([p[1] for p in points], dtype=float)
        matrices = um_from_xy(xs, ys)
        ax.plot(xs, ys, "o", color="black", markersize=3, zorder=3)
        for (x, y, note), matrix in zip(points, matrices):
            label = _matrix_tex(matrix) + (f"\n{note}" if note else "")
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


# --- figs 2 and 3 ----------------------------------------------------------------------------


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
    (SPEC step 6: ties count as misranked)."""
    yields, scores = yields[:search], scores[:search]
    i, j = np.triu_indices(yields.size, k=1)
    return float(np.mean(~ranked_correctly(yields[j] - yields[i], scores[j] - scores[i]))) if i.size else 0.0


def fig_yield_vs_metric(
    p: float,
    *,
    n: int = 300,
    metrics: Sequence[str] = ("accuracy", "tpr", "f1", "mcc"),
    utilities: Sequence = (IDENTITY_UM, TPR_UM),
    examples: int = 3,
    rng=None,
) -> Figure:
    """Figs 2 (``p = 0.5``) and 3 (``p = 0.9``): utility yield against metric score.

    ``n`` normalised confusion matrices of one test set with class-0 fraction ``p``, TPR and
    TNR drawn independently from the paper's distribution (density rising linearly on
    [0.5, 1], :func:`~mcrank.samplers.sample_rates`). One row per metric, one column per true
    utility matrix; a blue dot per confusion matrix at (yield under ``U``, eq. 9; score).
    Red triangles joined by a thin line: the ``examples`` disjoint pairs most strongly ranked
    in reverse by the metric. A metric compliant with ``U`` (eq. 16: accuracy with the
    identity, TPR with [[1, 0], [0, 0]]) reverses no pair, and its panel shows none. Each panel
    states the percentage of all ``n (n - 1) / 2`` pairs that the metric misranks (pairs
    among the first 1000 matrices when ``n`` is larger).

    Parameters
    ----------
    p : float
        Fraction of class 0 in the test set, in (0, 1).
    n : int, default 300
        Number of confusion matrices.
    metrics : sequence of str, default ("accuracy", "tpr", "f1", "mcc")
        Metric ids, one row each (the paper's rows).
    utilities : sequence of array_like (2, 2), default (identity, [[1, 0], [0, 0]])
        True utility matrices, one column each (the paper's columns).
    examples : int, default 3
        Number of reversed pairs to mark per panel.
    rng : int, SeedSequence, Generator or None

    Returns
    -------
    Figure
    """
    if not (0.0 < float(p) < 1.0):
        raise ValueError(f"p must lie strictly between 0 and 1, got {p!r}")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer of at least 2, got {n!r}")
    p = float(p)
    rng = resolve_rng(rng)
    tpr = sample_rates(n, rng=rng)
    tnr = sample_rates(n, rng=rng)
    confusion = confusion_from_pab(p, tpr, tnr)
    utilities = [np.asarray(u, dtype=float) for u in utilities]
    metric_objects = [get_metric(m) for m in metrics]
    with paper_style():
        fig = _new_figure(6.2, 1.95 * len(metric_objects) + 0.5)
        axes = fig.subplots(len(metric_objects), len(utilities), sharex="col", sharey="row", squeeze=False)
        for col, utility in enumerate(utilities):
            yields = utility_yield(utility, confusion)
            for row, metric in enumerate(metric_objects):
                ax = axes[row, col]
                scores = metric.from_pab(p, tpr, tnr)
                ax.plot(yields, scores, "o", color=_CORRECT, markersize=2.2, alpha=0.55, markeredgewidth=0, zorder=2)
                for i, j in _discordant_examples(yields, scores, examples):
                    ax.plot(yields[[i, j]], scores[[i, j]], "-", color=_WRONG, linewidth=0.6, zorder=3)
                    ax.plot(
                        yields[[i, j]], scores[[i, j]], "^", color=_WRONG, markersize=5,
                        markeredgecolor="black", markeredgewidth=0.4, zorder=4,
                    )
                misranked = 100 * _misranked_fraction(yields, scores)
                ax.text(
                    0.03, 0.97, f"misranked pairs: {misranked:.1f} %", transform=ax.transAxes,
                    ha="left", va="top", fontsize=7.5, color="0.25",
                )
                if row == 0:
                    ax.set_title("true U = " + _matrix_tex(utility), pad=6)
                if row == len(metric_objects) - 1:
                    ax.set_xlabel("utility yield")
                if col == 0:
                    ax.set_ylabel(metric.name)
                ax.margins(0.06)
        fig.suptitle(f"Confusion matrices of one test set, class 0 fraction p = {p:g}", fontsize=9)
    return fig


# --- fig. 4 ----------------------------------------------------------------------------------


def fig4_true_um_gaussian(*, n: int = 3000, sd: float = 1 / 3, rng=None, width: float = 3.6) -> Figure:
    """Fig. 4: the truncated gaussian distribution of true utility matrices in the hexagon.

    ``n`` points (x, y) of eq. (12), gaussian with mean (0, 0), the identity, and sd ``sd``
    in each coordinate, truncated to the hexagon (paper §4.2,
    :func:`~mcrank.samplers.sample_true_um_xy`).

    Parameters
    ----------
    n : int, default 3000
    sd : float, default 1/3
        The paper's value.
    rng : int, SeedSequence, Generator or None
    width : float, default 3.6
        Figure width and height, inches.

    Returns
    -------
    Figure
    """
    x, y = sample_true_um_xy(n, distribution="gaussian", sd=sd, rng=rng)
    with paper_style():
        fig = _new_figure(width, width)
        ax = fig.add_subplot()
        _draw_hexagon(ax)
        ax.plot(x, y, "o", color=_CORRECT, markersize=1.6, alpha=0.5, markeredgewidth=0, zorder=2)
        ax.plot([0], [0], "D", color="black", markersize=5, zorder=4)
        ax.annotate(
            "identity\n(accuracy)", xy=(0, 0), xytext=(-1.05, 0.75), ha="left", va="center", fontsize=8,
            arrowprops=dict(arrowstyle="-", color="black", linewidth=0.5, shrinkA=1, shrinkB=3), zorder=5,
        )
        sd_text = "1/3" if math.isclose(sd, 1 / 3) else f"{sd:.3g}"
        ax.set_title(f"Truncated gaussian true utility matrices\nsd {sd_text} in x and y, {n} samples")
    return fig


# --- fig. 5 ----------------------------------------------------------------------------------


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
    *,
    centre=((0.5, 0.5), (0.0, 1.0)),
    sds: Sequence[float] = (0.1, 0.2),
    errors: Sequence[str] = ("gaussian", "truncated"),
    n: int = 2000,
    rng=None,
) -> Figure:
    """Fig. 5: the cloud of perturbed utility matrices around one matrix, in the hexagon.

    For each error model (rows) and error sd ``s`` (columns), ``n`` perturbed matrices
    ``U'`` (:func:`~mcrank.samplers.perturb_um`, paper §4.2) are normalised by eq. (11) and
    placed by inverting eq. (12). The paper's fig. 5 is ``gaussian`` with ``s = 0.1`` around
    ``U = [[0.5, 0.5], [0, 1]]`` (black diamond). A ``gaussian`` perturbation can reward
    misclassification over correct classification; such a matrix has no place in the
    hexagon, is not drawn, and the panel says how many were left out. For ``truncated``
    the panel also gives the realised sd of ``U' - U`` in this sample.

    Parameters
    ----------
    centre : array_like (2, 2), default [[0.5, 0.5], [0, 1]]
        The true utility matrix, in the standard form of eq. (11).
    sds : sequence of float, default (0.1, 0.2)
    errors : sequence of str, default ("gaussian", "truncated")
    n : int, default 2000
        Perturbed matrices per panel.
    rng : int, SeedSequence, Generator or None

    Returns
    -------
    Figure
    """
    centre = np.asarray(centre, dtype=float)
    centre_x, centre_y = xy_from_um(centre)
    for error in errors:
        if error not in ERROR_MODELS:
            raise ValueError(f"unknown error model {error!r}; choose from {', '.join(ERROR_MODELS)}")
    rng = resolve_rng(rng)
    panel = 3.1
    with paper_style():
        fig = _new_figure(min(_PAGE_WIDTH, panel * len(sds) + 0.3), panel * len(errors) + 0.1)
        axes = fig.subplots(len(errors), len(sds), squeeze=False, sharex=True, sharey=True)
        for row, error in enumerate(errors):
            for col, sd in enumerate(sds):
                ax = axes[row, col]
                perturbed = perturb_um(centre, sd, error=error, size=n, rng=rng)
                x, y, placed = _cloud_xy(perturbed)
                _draw_hexagon(ax)
                ax.plot(x[placed], y[placed], "o", color=_CLOUD, markersize=1.8, alpha=0.5, markeredgewidth=0, zorder=2)
                ax.plot([centre_x], [centre_y], "D", color="black", markersize=5, zorder=4)
                left_out = n - int(placed.sum())
                if left_out:
                    note = f"{left_out} of {n} outside\nthe hexagon\n(not drawn)"
                else:
                    note = f"all {n} inside\nthe hexagon"
                # In the cut-off upper-left corner: where the left-out matrices would belong.
                ax.text(0.03, 0.97, note, transform=ax.transAxes, ha="left", va="top", fontsize=7.5, color="0.25")
                title = f"{error} errors, s = {sd:g}"
                if error == "truncated" and n:
                    realised = float(np.std(perturbed - centre))
                    title += f"\n(realised sd {realised:.3f})"
                ax.set_title(title)
                if row != len(errors) - 1:
                    ax.set_xlabel("")
                if col != 0:
                    ax.set_ylabel("")
    return fig


# --- fig. 6 ----------------------------------------------------------------------------------


def _panel_title(name: str, pct: float, width: int = 26) -> str:
    """``"F1 measure: 9.7 %"``, the name wrapped to ``width`` characters if long."""
    return "\n".join(textwrap.wrap(name, width)) + f": {pct:.1f} %"


def fig6_pairs(
    pairs, rows: Sequence[Mapping], *, sd: float | None = 0.1, max_points: int = 3000, ncols: int = 3
) -> Figure:
    """Fig. 6: difference of true utility yield against difference of score, pair by pair.

    One panel per metric row of ``rows``, plus one for the perturbed utility matrix with
    error sd ``sd``. Each point is a pair of classifiers on one test set (paper §4.2, step 4):
    x = ``d_true``, the difference of their utility yields under the true ``U``; y = the
    difference of their scores, or of their yields under ``U'``. A pair is ranked correctly
    when both are > 0 or both < 0 (quadrants I and III, blue dots); the others (quadrants II
    and IV, ties included) are vermillion triangles. Each panel is titled with its
    percentage of incorrectly ranked pairs from ``rows`` (the large run, e.g. 10^6 pairs);
    panels go in decreasing order of that percentage, left to right, top to bottom.

    Parameters
    ----------
    pairs : mcrank.engine.PairSample
        A few thousand pairs of the same setting as ``rows``; must hold every metric of
        ``rows`` and, unless ``sd`` is None, ``pairs.d_utility[sd]``.
    rows : sequence of dict
        :meth:`mcrank.engine.StudyResult.rows` of the large run: ``name`` and
        ``incorrect_pct``, and ``sd`` for the rows named ``"utility"``.
    sd : float or None, default 0.1
        Error sd of the perturbed-utility panel; None leaves that panel out.
    max_points : int, default 3000
        At most this many pairs are drawn (the first ones; the pairs are independent).
    ncols : int, default 3

    Returns
    -------
    Figure
    """
    panels = []  # (title, incorrect_pct, y label, d)
    for row in rows:
        if not _is_metric_row(row):
            continue
        if row["name"] not in pairs.d_metric:
            raise ValueError(f"pairs hold no differences for metric {row['name']!r}: sample them with the same metrics")
        panels.append((_display_name(row), float(row["incorrect_pct"]), "Δ score", pairs.d_metric[row["name"]]))
    if sd is not None:
        utility_rows = [r for r in rows if not _is_metric_row(r) and _find_sd([r["sd"]], sd) is not None]
        if not utility_rows:
            raise ValueError(f"rows hold no perturbed-utility row with sd {sd:g}")
        key = _find_sd(pairs.d_utility, sd)
        if key is None:
            raise ValueError(f"pairs hold no perturbed-utility differences with sd {sd:g}")
        row = utility_rows[0]
        panels.append((_display_name(row), float(row["incorrect_pct"]), "Δ yield under U′", pairs.d_utility[key]))
    if not panels:
        raise ValueError("nothing to draw: rows hold no metric and sd is None")
    panels.sort(key=lambda panel: -panel[1])  # stable: ties keep the order of rows

    d_true = np.asarray(pairs.d_true)[:max_points]
    ncols = max(1, min(ncols, len(panels)))
    nrows = -(-len(panels) // ncols)
    with paper_style():
        fig = _new_figure(_PAGE_WIDTH * ncols / 3, 2.25 * nrows + 0.1)
        axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True)
        for ax in axes.flat[len(panels):]:
            ax.remove()
        for k, ax in enumerate(axes.flat[: len(panels)]):
            title, pct, ylabel, d = panels[k]
            d = np.asarray(d)[:max_points]
            correct = ranked_correctly(d_true, d)
            ax.axhline(0, color=_GUIDE, linewidth=0.5, zorder=0)
            ax.axvline(0, color=_GUIDE, linewidth=0.5, zorder=0)
            ax.plot(
                d_true[correct], d[correct], "o", color=_CORRECT, markersize=1.6, alpha=0.45,
                markeredgewidth=0, zorder=2, label="correctly ranked pair",
            )
            ax.plot(
                d_true[~correct], d[~correct], "^", color=_WRONG, markersize=2.8, alpha=0.85,
                markeredgewidth=0, zorder=3, label="incorrectly ranked pair",
            )
            ax.set_title(_panel_title(title, pct))
            ax.set_ylabel(ylabel)
            below = k + ncols
            if below < len(panels):
                ax.tick_params(labelbottom=False)
            else:
                ax.set_xlabel("Δ utility yield (true U)")
        handles, labels = axes.flat[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside upper center", ncols=2, markerscale=2.5)
    return fig


# --- fig. 7 ----------------------------------------------------------------------------------

_TRUE_UM_TITLES = {
    "uniform": "Uniform true utility matrices",
    "gaussian": "Truncated gaussian true utility matrices",
}


def _utility_curve(rows: Sequence[Mapping]):
    """(sd, realised sd, incorrect_pct, se_pct) of the perturbed-utility rows, by sd."""
    utility = sorted((r for r in rows if not _is_metric_row(r)), key=lambda r: float(r["sd"]))
    as_array = lambda key: np.array([np.nan if r[key] in (None, "") else float(r[key]) for r in utility])  # noqa: E731
    return as_array("sd"), as_array("realised_sd"), as_array("incorrect_pct"), as_array("se_pct")


def _place_metric_labels(fig: Figure, labelled: list) -> None:
    """Spread the right-hand metric labels of fig. 7 so that none overlaps another.

    Needs the final axes size, hence one layout pass first; the labels were already
    placed, so that the layout reserved their width.
    """
    fig.draw_without_rendering()
    for ax, annotations, values in labelled:
        if not annotations:
            continue
        to_display = ax.transData.transform
        pixels = to_display(np.column_stack([np.zeros(len(values)), values]))[:, 1]
        gap = 1.2 * annotations[0].get_fontsize() * fig.dpi / 72
        spread = _spread(pixels, gap)
        data_y = ax.transData.inverted().transform(np.column_stack([np.zeros(len(values)), spread]))[:, 1]
        for annotation, y in zip(annotations, data_y):
            annotation.xyann = (annotation.xyann[0], y)


def fig7_sweep(sweeps: Mapping[tuple[str, str], Sequence[Mapping]], *, band_se: float = 2.0) -> Figure:
    """Fig. 7: percentage of incorrectly ranked pairs against the error sd of ``U'``.

    One panel per true-utility distribution present in ``sweeps``, uniform above and
    gaussian below (paper §4.2). In each, for every error model present, the perturbed
    utility matrix's percentage of incorrectly ranked pairs against the error sd ``s``,
    with a band of ``band_se`` Monte Carlo standard errors; for the ``truncated`` model also
    the same percentages against the realised sd of ``U' - U`` (dashed), smaller than ``s``.
    Every metric is a horizontal line labelled at the right with its name and percentage.

    The metric lines come from the metric rows of the ``gaussian``-error run of that panel
    when there is one, otherwise from the other run. Runs with the same seed draw the same
    base samples and so have identical metric rows (the repository's experiments do);
    with different seeds they differ within their standard errors, and one set is shown.

    Parameters
    ----------
    sweeps : mapping of (true_um, error) to rows
        ``true_um`` in {"uniform", "gaussian"}, ``error`` in {"gaussian", "truncated"};
        rows as :meth:`mcrank.engine.StudyResult.rows` of a run over a grid of sds
        (e.g. ``np.linspace(0, 0.5, 51)``), metric rows included.
    band_se : float, default 2.0
        Half-width of the band, in standard errors.

    Returns
    -------
    Figure
    """
    if not sweeps:
        raise ValueError("sweeps is empty: give at least one (true_um, error) run")
    for true_um, error in sweeps:
        if true_um not in TRUE_UM_DISTRIBUTIONS:
            choices = ", ".join(TRUE_UM_DISTRIBUTIONS)
            raise ValueError(f"unknown true-utility distribution {true_um!r}; choose from {choices}")
        if error not in ERROR_MODELS:
            raise ValueError(f"unknown error model {error!r}; choose from {', '.join(ERROR_MODELS)}")
    distributions = [d for d in TRUE_UM_DISTRIBUTIONS if any(key[0] == d for key in sweeps)]
    with paper_style():
        fig = _new_figure(_PAGE_WIDTH, 3.4 * len(distributions) + 0.4)
        axes = fig.subplots(len(distributions), 1, squeeze=False)[:, 0]
        labelled = []
        handles: dict[str, object] = {}
        for ax, true_um in zip(axes, distributions):
            errors = [e for e in ERROR_MODELS if (true_um, e) in sweeps]
            top, right = 0.0, 0.0
            samples = set()
            for error in errors:
                sd, realised, pct, se = _utility_curve(sweeps[(true_um, error)])
                if sd.size == 0:
                    continue
                colour = _ERROR_COLOURS[error]
                ax.fill_between(sd, pct - band_se * se, pct + band_se * se, color=colour, alpha=0.25, linewidth=0)
                (line,) = ax.plot(sd, pct, "-", color=colour, linewidth=1.4)
                handles.setdefault(f"{error} errors (±{band_se:g} SE)", line)
                if error == "truncated" and np.any(np.isfinite(realised)):
                    (line,) = ax.plot(realised, pct, "--", color=colour, linewidth=1.2)
                    handles.setdefault("truncated, vs realised sd", line)
                top = max(top, float(np.nanmax(pct + band_se * se)))
                right = max(right, float(np.nanmax(sd)))
                # Rows read back from CSV hold strings: "" for missing, "1000000" for counts.
                counts = (r.get("samples") for r in sweeps[(true_um, error)])
                samples.update(int(float(c)) for c in counts if c not in (None, ""))
            source = sweeps[(true_um, "gaussian")] if "gaussian" in errors else sweeps[(true_um, errors[0])]
            metric_rows = sorted((r for r in source if _is_metric_row(r)), key=lambda r: float(r["incorrect_pct"]))
            values = [float(r["incorrect_pct"]) for r in metric_rows]
            for value in values:
                ax.axhline(value, color=_METRIC_LINE, linewidth=0.6, linestyle=":", zorder=1)
            top = max([top, *values]) if values else top
            ax.set_xlim(0, right if right > 0 else 1)
            ax.set_ylim(0, 1.08 * top if top > 0 else 1)
            annotations = [
                ax.annotate(
                    f"{get_metric(r['name']).name} {float(r['incorrect_pct']):.1f} %",
                    xy=(1.0, value), xycoords=ax.get_yaxis_transform(),
                    xytext=(1.03, value), textcoords=ax.get_yaxis_transform(),
                    ha="left", va="center", fontsize=7.5, color="0.2", annotation_clip=False,
                    arrowprops=dict(arrowstyle="-", color=_METRIC_LINE, linewidth=0.5, shrinkA=0, shrinkB=1.5),
                )
                for r, value in zip(metric_rows, values)
            ]
            labelled.append((ax, annotations, values))
            title = _TRUE_UM_TITLES[true_um]
            if len(samples) == 1:
                title += f" ({samples.pop():,} pairs per point)"
            ax.set_title(title)
            ax.set_xlabel("error sd s")
            ax.set_ylabel("% incorrectly ranked pairs")
        if handles:
            fig.legend(list(handles.values()), list(handles), loc="outside upper center", ncols=len(handles))
        _place_metric_labels(fig, labelled)
    return fig


# --- saving ----------------------------------------------------------------------------------


def save_figure(fig: Figure, directory, name: str, *, dpi: int = 200) -> list[Path]:
    """Write ``name.png`` (``dpi``) and ``name.pdf`` (vector) into ``directory``, atomically.

    Each file goes to a temp file in ``directory`` first and is renamed into place, so an
    interrupted or failed save never leaves a half-written figure. The PDF carries no
    creation date, so the same figure gives the same bytes (quiet diffs of committed
    results). ``directory`` is created if missing.

    Parameters
    ----------
    fig : Figure
    directory : str or Path
    name : str
        File stem, without a directory or an extension.
    dpi : int, default 200
        Resolution of the PNG.

    Returns
    -------
    list of Path
        The PNG and the PDF.
    """
    if not name or Path(name).name != name or name in (".", ".."):
        raise ValueError(f"name must be a plain file stem, got {name!r}")
    directory = Path(directory)
    paths = []
    with paper_style():
        for fmt, options in (("png", dict(dpi=dpi)), ("pdf", dict(metadata={"CreationDate": None}))):
            buffer = io.BytesIO()
            fig.savefig(buffer, format=fmt, **options)
            paths.append(atomic_write_bytes(directory / f"{name}.{fmt}", buffer.getvalue()))
    return paths
