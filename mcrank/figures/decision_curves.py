"""Decision curves: net benefit against the threshold probability and, with the posterior, one
small panel per model against the best (``docs/evaluate-scoring.md``, "Decision curves").

It draws a :class:`mcrank.evaluate.DecisionCurves`, nothing else: the curves, the best model
and the posterior bands are computed by :func:`mcrank.evaluate.decision_curves`.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from matplotlib.figure import Figure

from mcrank.figures._style import (
    OKABE_ITO,
    PAGE_WIDTH,
    model_label,
    new_figure,
    paper_style,
)

__all__ = ["MODEL_COLOURS", "decision_curve_figure"]

#: Colours of the reference strategies: grey, apart from the models' palette.
_TREAT_ALL = "0.45"
_TREAT_NONE = "0.15"
#: Each model's colour, by its place among the models, the same in every panel: the Okabe-Ito
#: palette without yellow (too pale for a line on white) and black (the best model's zero line).
MODEL_COLOURS = tuple(OKABE_ITO[name] for name in ("blue", "orange", "bluish_green", "vermillion", "reddish_purple", "sky_blue"))
#: Bands on the panel of the curves up to this many models; beyond, they would hide each other
#: (each model's band against the best is in its own panel).
_BANDS_TOGETHER = 3
#: Small panels per row.
_PER_ROW = 3


def decision_curve_figure(curves, *, title: str | None = None) -> Figure:
    """Decision curves of some models, with treat all and treat none.

    The upper panel has each model's net benefit against the threshold probability, and the two
    reference strategies; with the posterior and at most three models, each curve's central
    posterior band too. The y axis runs from a little below 0 to a little above the prevalence
    (the largest net benefit there can be) or the highest curve, as decision curves are usually
    drawn: treat all falls steeply below 0 and is cut there. With the posterior, one small panel
    per model other than the best (:attr:`~mcrank.evaluate.DecisionCurves.best`) follows: its
    net benefit minus the best one's, with the posterior band of that difference, and the zero
    line of the best; the panels share their axes. A model has one colour in every panel; the
    legend, one entry per model, sits below the panels.

    Parameters
    ----------
    curves : DecisionCurves
        From :func:`mcrank.evaluate.decision_curves`.
    title : str, optional

    Returns
    -------
    Figure
    """
    t = np.asarray(curves.thresholds)
    names = list(curves.net_benefit)
    colours = dict(zip(names, itertools.cycle(MODEL_COLOURS)))
    differences = curves.difference_bands or {}
    rows = math.ceil(len(differences) / _PER_ROW)
    columns = min(_PER_ROW, len(differences)) or 1
    with paper_style():
        fig = new_figure(PAGE_WIDTH, 3.2 + 1.7 * rows)
        grid = fig.add_gridspec(1 + rows, columns, height_ratios=(2.2, *([1.0] * rows)))
        top = fig.add_subplot(grid[0, :])
        bands = curves.bands is not None and len(names) <= _BANDS_TOGETHER
        highest = max(curves.prevalence, *(float(np.max(nb)) for nb in curves.net_benefit.values()),
                      *(float(np.max(curves.bands[name])) for name in names if bands))  # fmt: skip
        top.plot(t, curves.treat_all, "--", color=_TREAT_ALL, linewidth=1.0, label="treat all")
        top.plot(t, np.zeros_like(t), "-", color=_TREAT_NONE, linewidth=0.8, label="treat none")
        for name in names:
            wide = differences and name == curves.best  # the one every small panel is measured against
            top.plot(t, curves.net_benefit[name], color=colours[name], linewidth=2.0 if wide else 1.2, label=model_label(name))
            if bands:
                band = curves.bands[name]
                top.fill_between(t, band[:, 0], band[:, 1], color=colours[name], alpha=0.25, linewidth=0)
        top.set_ylim(-0.15 * highest, 1.08 * highest)
        span = (0, 1) if t[0] < 0.1 and t[-1] > 0.9 else (t[0], t[-1])
        top.set_xlim(*span)
        top.set_ylabel("net benefit")
        band = "" if curves.bands is None else "; bands: 95 % posterior"
        band += f"; below: each model minus the best, {model_label(curves.best)}" if differences else ""
        top.set_title(title or f"{curves.items} items, prevalence {curves.prevalence:.3g}{band}")
        if not differences:
            top.set_xlabel("threshold probability")
        panels = []
        for k, name in enumerate(differences):
            axes = fig.add_subplot(grid[1 + k // columns, k % columns], sharex=top, sharey=panels[0] if panels else None)
            band = differences[name]
            axes.fill_between(t, band[:, 0], band[:, 1], color=colours[name], alpha=0.3, linewidth=0)
            axes.plot(t, curves.net_benefit[name] - curves.net_benefit[curves.best], color=colours[name], linewidth=1.2)
            axes.axhline(0.0, color=_TREAT_NONE, linewidth=0.8)
            axes.set_title(f"{model_label(name)} minus {model_label(curves.best)}", color=colours[name], fontsize="medium")
            if k % columns:
                axes.tick_params(labelleft=False)
            else:
                axes.set_ylabel("difference")
            if k + columns < len(differences):
                axes.tick_params(labelbottom=False)
            else:
                axes.set_xlabel("threshold probability")
            panels.append(axes)
        if panels:
            top.tick_params(labelbottom=False)
            lowest = min(float(np.min(differences[name][:, 0])) for name in differences)
            panels[0].set_ylim(max(lowest, -0.6 * highest) * 1.05, 0.25 * highest)
        handles, labels = top.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 4))
    return fig
