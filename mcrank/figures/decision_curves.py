"""Decision curves: net benefit against the threshold probability, with posterior bands, and
below, the posterior probability that one model's net benefit exceeds another's
(``docs/evaluate.md``, "Decision curves").

It draws a :class:`mcrank.evaluate.DecisionCurves`, nothing else: the curves and the
posterior are computed by :func:`mcrank.evaluate.decision_curves`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from mcrank.figures._style import (
    GUIDE,
    METRIC_LINE,
    PAGE_WIDTH,
    new_figure,
    paper_style,
)

__all__ = ["decision_curve_figure"]

#: Colours of the reference strategies: grey, apart from the models' palette.
_TREAT_ALL = "0.45"
_TREAT_NONE = "0.15"


def decision_curve_figure(curves, *, title: str | None = None) -> Figure:
    """Decision curves of some models, with treat all and treat none.

    The upper panel has each model's net benefit against the threshold probability, with its
    central posterior band when the curves carry one, and the two reference strategies. The
    y axis runs from a little below 0 to a little above the prevalence (the largest net
    benefit there can be) or the highest band, as decision curves are usually drawn: treat all falls steeply
    below 0 and is cut there. With the posterior, a lower panel has, for each pair of
    models, the probability that the first one's net benefit exceeds the second's on the
    population (1/2: the test set cannot tell).

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
    pairs = curves.probability_better or {}
    with paper_style():
        fig = new_figure(PAGE_WIDTH, 5.2 if pairs else 3.4)
        if pairs:
            top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": (2.2, 1.0)})
        else:
            top, bottom = fig.subplots(1, 1), None
        highest = max(curves.prevalence, *(float(np.max(nb)) for nb in curves.net_benefit.values()),
                      *(float(np.max(band)) for band in (curves.bands or {}).values()))  # fmt: skip
        top.plot(t, curves.treat_all, "--", color=_TREAT_ALL, linewidth=1.0, label="treat all")
        top.plot(t, np.zeros_like(t), "-", color=_TREAT_NONE, linewidth=0.8, label="treat none")
        for name, nb in curves.net_benefit.items():
            (line,) = top.plot(t, nb, label=name)
            if curves.bands is not None:
                band = curves.bands[name]
                top.fill_between(t, band[:, 0], band[:, 1], color=line.get_color(), alpha=0.25, linewidth=0)
        top.set_ylim(-0.15 * highest, 1.08 * highest)
        top.set_xlim(0, 1) if t[0] < 0.1 and t[-1] > 0.9 else top.set_xlim(t[0], t[-1])
        top.set_ylabel("net benefit")
        top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))  # outside: the curves fill the panel
        band = "" if curves.bands is None else "; bands: 95 % posterior"
        top.set_title(title or f"{curves.items} items, prevalence {curves.prevalence:.3g}{band}")
        if bottom is None:
            top.set_xlabel("threshold probability")
            return fig
        for (a, b), probability in pairs.items():
            bottom.plot(t, probability, label=f"{a} over {b}")
        bottom.axhline(0.5, color=GUIDE, linewidth=0.6, linestyle=":")
        for level in (0.025, 0.975):
            bottom.axhline(level, color=METRIC_LINE, linewidth=0.4, linestyle=":")
        bottom.set_ylim(-0.02, 1.02)
        bottom.set_ylabel("P(net benefit higher)")
        bottom.set_xlabel("threshold probability")
        bottom.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig
