"""Fig. 12 (new): how often the Brier score, the log loss and the accuracy of the argmax misrank
probabilistic classifiers that decide by maximal expected utility, against the percentage for
the perturbed utility matrix ``U'`` as its error sd grows (``docs/method.md``, "The
probabilistic-classifier study").

It draws the rows of the probabilities studies' sweeps, nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure

from mcrank.figures._style import ERROR_COLOURS, OKABE_ITO, PAGE_WIDTH, is_metric_row, new_figure, paper_style

__all__ = ["fig12_probabilities"]

_COLOURS = ("0.1", OKABE_ITO["reddish_purple"], OKABE_ITO["sky_blue"], OKABE_ITO["bluish_green"], "0.55")
_STYLES = ("--", "-.", ":", (0, (5, 1)), (0, (1, 1)))


def fig12_probabilities(sweeps: Mapping[str, list], names: Mapping[str, str], *, band_se: float = 2.0) -> Figure:
    """% incorrectly ranked pairs of probabilistic classifiers against the error sd of ``U'``.

    One panel per error model: the perturbed utility matrix's curve over the sd with a band of
    ``band_se`` standard errors, and each score (they do not depend on the error model) as a
    horizontal line; the title gives the percentage of pairs tied in truth (left out of every
    other percentage).

    Parameters
    ----------
    sweeps : mapping of error model to rows
        The rows (:meth:`mcrank.study.StudyResult.rows`) of a probabilities study with a grid of sds.
    names : mapping of str to str
        Display name of each score id.
    band_se : float

    Returns
    -------
    Figure
    """
    if not sweeps:
        raise ValueError("sweeps is empty: give the rows of a probabilities study of at least one error model")
    errors = [e for e in ERROR_COLOURS if e in sweeps] + [e for e in sweeps if e not in ERROR_COLOURS]
    with paper_style():
        fig = new_figure(PAGE_WIDTH, 3.2)
        axes = fig.subplots(1, len(errors), sharey=True, squeeze=False)[0]
        for ax, error in zip(axes, errors):
            rows = sweeps[error]
            utility = sorted((r for r in rows if not is_metric_row(r)), key=lambda r: float(r["sd"]))
            sd = np.array([float(r["sd"]) for r in utility])
            pct = np.array([float(r["incorrect_pct"]) for r in utility])
            se = np.array([float(r["se_pct"]) for r in utility])
            colour = ERROR_COLOURS.get(error, "0.3")
            ax.fill_between(sd, pct - band_se * se, pct + band_se * se, color=colour, alpha=0.25, linewidth=0)
            ax.plot(sd, pct, "-", color=colour, linewidth=2.0, label="utility matrix U'")
            for j, row in enumerate(r for r in rows if is_metric_row(r)):
                ax.axhline(
                    float(row["incorrect_pct"]), color=_COLOURS[j % len(_COLOURS)], linestyle=_STYLES[j % len(_STYLES)],
                    linewidth=1.2, label=names.get(row["name"], row["name"]),
                )  # fmt: skip
            tied = float(rows[0]["tied_pct"]) if rows and rows[0].get("tied_pct") is not None else float("nan")
            ax.set_title(f"{error} errors ({tied:.1f} % tied in truth)")
            ax.set_xlabel("error sd of U'")
            ax.set_xlim(sd.min() if sd.size else 0.0, sd.max() if sd.size else 1.0)
            ax.set_ylim(0, None)
        axes[0].set_ylabel("% incorrectly ranked pairs")
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=4, fontsize=7.5)
    return fig
