"""What every figure shares: the paper's style, the hexagon, the names on the page, saving.

Every figure is built directly as a :class:`matplotlib.figure.Figure`, without pyplot: no
backend is selected and no figure is registered anywhere, so drawing is safe in a library and
in tests. Figures are built inside :func:`paper_style`, which sets matplotlib's rcParams only
for the duration (rcParams are global: do not build figures from several threads at once).
:func:`save_figure` writes PNG and vector PDF atomically. ``docs/method.md``, "Figures",
says what each figure shows.

Colours are the colour-blind-safe palette of Okabe & Ito (2008), :data:`OKABE_ITO`.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import math
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
from matplotlib import cycler, rc_context, rcParams
from matplotlib.figure import Figure
from matplotlib.patches import Polygon

from mcrank.error_models import ERROR_MODELS
from mcrank.metrics import get_metric
from mcrank.ranking import ranked_correctly  # noqa: F401  (step 6, for the figures that colour pairs by it)
from mcrank.results import atomic_write_bytes

__all__ = ["HEXAGON_VERTICES", "OKABE_ITO", "PAPER_RC", "apply_style", "paper_style", "save_figure"]

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
CORRECT = OKABE_ITO["blue"]
WRONG = OKABE_ITO["vermillion"]
CLOUD = OKABE_ITO["reddish_purple"]
#: Each error model's colour, in the order registered: the colour cycle's.
ERROR_COLOURS = {name: OKABE_ITO[colour] for name, colour in zip(ERROR_MODELS, itertools.cycle(_CYCLE))}
GUIDE = "0.6"  # axes through zero, hexagon guides
METRIC_LINE = "0.35"

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
PAGE_WIDTH = 7.0


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


#: Characters of a model's name on a figure (a legend entry, a tick label); the rest cut in the middle.
LABEL_WIDTH = 32


def model_label(name, width: int = LABEL_WIDTH) -> str:
    """A model's name as a figure shows it: cut in the middle beyond ``width`` characters (names
    often differ at their end), and its ``$`` literal, not the start of mathtext."""
    name = str(name)
    if len(name) > width:
        head = (width - 1) // 2
        name = name[:head] + "…" + name[len(name) - (width - 1 - head) :]
    return name.replace("$", r"\$")


def new_figure(width: float, height: float) -> Figure:
    """An empty figure of ``width`` x ``height`` inches, laid out by matplotlib's constrained layout."""
    return Figure(figsize=(width, height), layout="constrained")


# --- the hexagon of eq. (12) -----------------------------------------------------------------


def _number(value: float) -> str:
    """A matrix entry as short text: 0, 1, 0.5, 0.25, 0.33."""
    if abs(value - round(value)) < 1e-9:
        return str(int(round(value)))
    return f"{value:.2g}"


def matrix_tex(matrix) -> str:
    """A 2x2 matrix as mathtext, one ``\\genfrac`` per column, in square brackets."""
    m = np.asarray(matrix, dtype=float)
    columns = (rf"\genfrac{{}}{{}}{{0}}{{0}}{{{_number(m[0, j])}}}{{{_number(m[1, j])}}}" for j in range(2))
    return r"$\left[" + r"\;\;".join(columns) + r"\right]$"


def draw_hexagon(ax, *, fill: bool = True, margin: float = 0.12) -> None:
    """The hexagon of eq. (12) with thin x and y axes through its centre (figs 1, 4 and 5)."""
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
    ax.plot([-1, 1], [0, 0], color=GUIDE, linewidth=0.5, zorder=0.5)
    ax.plot([0, 0], [-1, 1], color=GUIDE, linewidth=0.5, zorder=0.5)
    ax.set_xlim(-1 - margin, 1 + margin)
    ax.set_ylim(-1 - margin, 1 + margin)
    ax.set_aspect("equal")
    ax.set_xticks([-1, -0.5, 0, 0.5, 1])
    ax.set_yticks([-1, -0.5, 0, 0.5, 1])
    ax.set_xlabel("x")
    ax.set_ylabel("y")


# --- pairs and the rows of a results file ----------------------------------------------------


def is_metric_row(row: Mapping) -> bool:
    """Whether a row of :meth:`mcrank.study.StudyResult.rows` is a metric's (not a perturbed
    utility matrix's)."""
    return row["name"] != "utility"


def display_name(row: Mapping) -> str:
    """What the page calls a row: the metric's name, or the perturbed matrix with its sd."""
    if is_metric_row(row):
        return get_metric(row["name"]).name
    return f"Utility matrix, sd {float(row['sd']):g}"


def find_sd(values, sd: float):
    """The element of ``values`` equal to ``sd`` up to rounding, or None."""
    for value in values:
        if value is not None and value != "" and math.isclose(float(value), sd, rel_tol=1e-9, abs_tol=1e-12):
            return value
    return None


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
