"""Fig. 6: difference of true utility yield against difference of score, pair by pair
(``docs/method.md``, "Figures").

The pairs are drawn by :mod:`mcrank.paper.samples` and read from ``results/samples/``; the
percentages in the titles are the rows of the study's results file.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from mcrank.figures._style import (
    CORRECT,
    GUIDE,
    PAGE_WIDTH,
    WRONG,
    display_name,
    find_sd,
    is_metric_row,
    new_figure,
    paper_style,
    ranked_correctly,
)

__all__ = ["fig6_pairs"]


def _panel_title(name: str, pct: float, width: int = 26) -> str:
    """``"F1 measure: 9.7 %"``, the name wrapped to ``width`` characters if long."""
    return "\n".join(textwrap.wrap(name, width)) + f": {pct:.1f} %"


def fig6_pairs(pairs, rows: Sequence[Mapping], *, sd: float | None = 0.1, max_points: int = 3000, ncols: int = 3) -> Figure:
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
    pairs : mcrank.engine.PairSample or alike
        A few thousand pairs of the same setting as ``rows``: ``d_true``, ``d_metric`` (by
        metric id) and ``d_utility`` (by sd), as :func:`mcrank.paper.samples.read_pairs`
        returns them. Must hold every metric of ``rows`` and, unless ``sd`` is None,
        ``pairs.d_utility[sd]``.
    rows : sequence of dict
        :meth:`mcrank.study.StudyResult.rows` of the large run: ``name`` and
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
        if not is_metric_row(row):
            continue
        if row["name"] not in pairs.d_metric:
            raise ValueError(f"pairs hold no differences for metric {row['name']!r}: sample them with the same metrics")
        panels.append((display_name(row), float(row["incorrect_pct"]), "Δ score", pairs.d_metric[row["name"]]))
    if sd is not None:
        utility_rows = [r for r in rows if not is_metric_row(r) and find_sd([r["sd"]], sd) is not None]
        if not utility_rows:
            raise ValueError(f"rows hold no perturbed-utility row with sd {sd:g}")
        key = find_sd(pairs.d_utility, sd)
        if key is None:
            raise ValueError(f"pairs hold no perturbed-utility differences with sd {sd:g}")
        row = utility_rows[0]
        panels.append((display_name(row), float(row["incorrect_pct"]), "Δ yield under U′", pairs.d_utility[key]))
    if not panels:
        raise ValueError("nothing to draw: rows hold no metric and sd is None")
    panels.sort(key=lambda panel: -panel[1])  # stable: ties keep the order of rows

    d_true = np.asarray(pairs.d_true)[:max_points]
    ncols = max(1, min(ncols, len(panels)))
    nrows = -(-len(panels) // ncols)
    with paper_style():
        fig = new_figure(PAGE_WIDTH * ncols / 3, 2.25 * nrows + 0.1)
        axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True)
        for ax in axes.flat[len(panels) :]:
            ax.remove()
        for k, ax in enumerate(axes.flat[: len(panels)]):
            title, pct, ylabel, d = panels[k]
            d = np.asarray(d)[:max_points]
            correct = ranked_correctly(d_true, d)
            ax.axhline(0, color=GUIDE, linewidth=0.5, zorder=0)
            ax.axvline(0, color=GUIDE, linewidth=0.5, zorder=0)
            ax.plot(
                d_true[correct],
                d[correct],
                "o",
                color=CORRECT,
                markersize=1.6,
                alpha=0.45,
                markeredgewidth=0,
                zorder=2,
                label="correctly ranked pair",
            )
            ax.plot(
                d_true[~correct],
                d[~correct],
                "^",
                color=WRONG,
                markersize=2.8,
                alpha=0.85,
                markeredgewidth=0,
                zorder=3,
                label="incorrectly ranked pair",
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
