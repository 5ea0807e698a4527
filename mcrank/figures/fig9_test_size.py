"""Fig. 9 (new): the percentage of incorrectly ranked pairs against the size of the test set
(``docs/method.md``, "Finite test sets").

It draws the rows of the finite-test-set studies' results files, and those of the population
study they tend to, nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from mcrank.figures._style import METRIC_LINE, OKABE_ITO, PAGE_WIDTH, find_sd, is_metric_row, new_figure, paper_style
from mcrank.metrics import get_metric

__all__ = ["fig9_test_size"]

#: The perturbed utility matrices drawn, by sd, and their colours; sd 0 is the exact matrix.
_UTILITY_SDS = {0.0: OKABE_ITO["blue"], 0.1: OKABE_ITO["bluish_green"], 0.2: OKABE_ITO["orange"]}
_METRIC_COLOURS = ("0.1", "0.45", OKABE_ITO["yellow"], OKABE_ITO["reddish_purple"], OKABE_ITO["vermillion"], OKABE_ITO["sky_blue"], "0.7",
                   OKABE_ITO["black"], OKABE_ITO["bluish_green"], "0.3")  # fmt: skip
_METRIC_STYLES = ("-", "--", "--", "-.", "-", "--", ":", ":", "-.", "-.")


def _row(rows: Sequence[Mapping], name: str, sd: float | None):
    for row in rows:
        if name == "utility" and not is_metric_row(row) and find_sd([float(row["sd"])], sd) is not None:
            return row
        if name != "utility" and row["name"] == name:
            return row
    return None


def _curve(studies: Mapping[int, Sequence[Mapping]], name: str, sd: float | None):
    """(N, % incorrect, SE) of one row across the test-set sizes, where it exists."""
    points = [(n, _row(rows, name, sd)) for n, rows in sorted(studies.items())]
    points = [(n, row) for n, row in points if row is not None]
    return (np.array([n for n, _ in points], dtype=float),
            np.array([float(row["incorrect_pct"]) for _, row in points]),
            np.array([float(row["se_pct"]) for _, row in points]))  # fmt: skip


def fig9_test_size(
    panels: Mapping[str, tuple[Mapping[int, Sequence[Mapping]], Sequence[Mapping] | None]], *, band_se: float = 2.0
) -> Figure:
    """% incorrectly ranked pairs against the test-set size N, one panel per setting.

    Each panel has one line per metric, and one for the utility matrix scored on the test
    set: exact (sd 0) and perturbed (sd 0.1 and 0.2), with bands of ``band_se`` standard
    errors. The population values (no finite test set) are short marks at the right, in
    the colour and style of their line.

    Parameters
    ----------
    panels : mapping of str to (studies, population)
        Per panel title: ``studies``, the rows of each finite study by its test-set size N
        (:meth:`mcrank.study.StudyResult.rows`), and ``population``, the rows of the
        population study (or None).
    band_se : float, default 2.0

    Returns
    -------
    Figure
    """
    if not panels:
        raise ValueError("panels is empty: give at least one setting with finite test sets")
    with paper_style():
        fig = new_figure(PAGE_WIDTH, 3.6 * len(panels) + 0.5)
        axes = fig.subplots(len(panels), 1, squeeze=False)[:, 0]
        handles: dict[str, object] = {}
        # One colour and style per metric across the panels, so that one legend serves all.
        styles: dict[str, int] = {}
        for studies, _ in panels.values():
            for row in studies[min(studies)]:
                if is_metric_row(row):
                    styles.setdefault(row["name"], len(styles))
        for ax, (title, (studies, population)) in zip(axes, panels.items()):
            sizes = sorted(studies)
            metrics = [row["name"] for row in studies[sizes[0]] if is_metric_row(row)]
            curves = [(m, None, get_metric(m).name, _METRIC_COLOURS[styles[m] % len(_METRIC_COLOURS)], _METRIC_STYLES[styles[m] % len(_METRIC_STYLES)], 1.0)
                      for m in metrics]  # fmt: skip
            curves += [("utility", sd, "exact utility matrix" if sd == 0 else f"utility matrix, error sd {sd:g}", colour, "-", 2.0)
                       for sd, colour in _UTILITY_SDS.items()]  # fmt: skip
            right = 1.6 * max(sizes)
            for name, sd, label, colour, style, width in curves:
                n, pct, se = _curve(studies, name, sd)
                if n.size == 0:
                    continue
                if name == "utility":
                    ax.fill_between(n, pct - band_se * se, pct + band_se * se, color=colour, alpha=0.25, linewidth=0)
                (line,) = ax.plot(n, pct, style, color=colour, linewidth=width, marker="o" if name == "utility" else None, markersize=2.5)
                handles.setdefault(label, line)
                reference = None if population is None else _row(population, name, sd)
                if reference is not None:
                    ax.plot(
                        [right / 1.15, right * 1.15], [float(reference["incorrect_pct"])] * 2, style, color=colour, linewidth=width + 0.8
                    )
            ax.axvline(right / 1.3, color=METRIC_LINE, linewidth=0.5)
            ax.text(right, 0.98, "popu-\nlation", transform=ax.get_xaxis_transform(), ha="center", va="top", fontsize=7.5, color="0.3")
            ax.set_xscale("log")
            ax.set_xlim(min(sizes) / 1.3, right * 1.3)
            ax.set_ylim(0, None)
            ax.set_title(title)
            ax.set_xlabel("items in the test set N")
            ax.set_ylabel("% incorrectly ranked pairs")
        fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=3, fontsize=7.5)
    return fig
