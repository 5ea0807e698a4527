"""Fig. 11 (new): how often the area under the ROC curve, the H-measure, the AUPRC and the scores
at the best threshold misrank scoring classifiers, against the prevalence B of class 0
(``docs/method.md``, "The ROC/AUC study").

It draws the rows of the roc studies at fixed prevalences, nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure

from mcrank.figures._style import ERROR_COLOURS, OKABE_ITO, PAGE_WIDTH, find_sd, is_metric_row, new_figure, paper_style

__all__ = ["fig11_roc_prevalence"]

_COLOURS = ("0.1", OKABE_ITO["reddish_purple"], OKABE_ITO["sky_blue"], OKABE_ITO["bluish_green"], "0.55", OKABE_ITO["vermillion"])
_MARKERS = ("o", "s", "^", "D", "v", "P")


def fig11_roc_prevalence(
    studies: Mapping[str, Mapping[float, list]], names: Mapping[str, str], *, sds=(0.1, 0.2), band_se: float = 2.0
) -> Figure:
    """% incorrectly ranked pairs of scoring classifiers against the prevalence B (log scale).

    One panel per error model: a line per score (AUC, H, AUPRC and the best-threshold scores;
    they do not depend on the error model) and one per error sd for the perturbed utility matrix,
    with bands of ``band_se`` standard errors; below, the percentage of pairs tied in truth
    (left out of every other percentage).

    Parameters
    ----------
    studies : mapping of error model to {B: rows}
        The rows (:meth:`mcrank.study.StudyResult.rows`) of the roc study at each fixed B.
    names : mapping of str to str
        Display name of each score id.
    sds : sequence of float
        The error sds of the perturbed utility matrix to draw.
    band_se : float

    Returns
    -------
    Figure
    """
    if not studies:
        raise ValueError("studies is empty: give the roc studies at fixed prevalences of at least one error model")
    errors = [e for e in ERROR_COLOURS if e in studies]
    with paper_style():
        fig = new_figure(PAGE_WIDTH, 4.6)
        grid = fig.add_gridspec(2, len(errors), height_ratios=(3, 1))
        top = [fig.add_subplot(grid[0, k]) for k in range(len(errors))]
        bottom = [fig.add_subplot(grid[1, k], sharex=top[k]) for k in range(len(errors))]
        for k, error in enumerate(errors):
            by_b = studies[error]
            prevalences = np.array(sorted(by_b))
            first = by_b[prevalences[0]]
            scores = [r["name"] for r in first if is_metric_row(r)]
            ax = top[k]
            for j, score in enumerate(scores):
                pct = np.array([next(float(r["incorrect_pct"]) for r in by_b[b] if r["name"] == score) for b in prevalences])
                ax.plot(
                    prevalences,
                    pct,
                    "-",
                    marker=_MARKERS[j % len(_MARKERS)],
                    markersize=3,
                    color=_COLOURS[j % len(_COLOURS)],
                    linewidth=1.0,
                    label=names.get(score, score),
                )
            for sd, style in zip(sds, ("-", "--", ":")):
                points = []
                for b in prevalences:
                    row = next((r for r in by_b[b] if not is_metric_row(r) and find_sd([float(r["sd"])], sd) is not None), None)
                    if row is not None:
                        points.append((b, float(row["incorrect_pct"]), float(row["se_pct"])))
                if not points:
                    continue
                b, pct, se = (np.array(v) for v in zip(*points))
                colour = ERROR_COLOURS[error]
                ax.fill_between(b, pct - band_se * se, pct + band_se * se, color=colour, alpha=0.25, linewidth=0)
                ax.plot(b, pct, style, color=colour, linewidth=2.0, label=f"utility matrix, sd {sd:g}")
            ax.set_xscale("log")
            ax.set_ylim(0, None)
            ax.set_ylabel("% incorrectly ranked pairs")
            ax.set_title(f"{error} errors")
            tied = np.array([float(by_b[b][0]["tied_pct"]) for b in prevalences])
            bottom[k].bar(prevalences, tied, width=prevalences * 0.35, color="0.6")
            bottom[k].set_xscale("log")
            bottom[k].set_xlabel("prevalence B of class 0")
            bottom[k].set_ylabel("% tied in truth")
            bottom[k].set_xticks(prevalences, [f"{b:g}" for b in prevalences])
            ax.tick_params(labelbottom=False)
        handles, labels = top[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=4, fontsize=7.5)
    return fig
