"""The figures of a result's HTML page (``mcrank evaluate --format html``), and the page.

:func:`page_figures` draws what a result has to show: decision curves
(:func:`mcrank.figures.decision_curves.decision_curve_figure`) and, for a result whose records
carry a 95 % interval of each model's yield (an evaluation with the test-set uncertainty, a
scoring ranking or a per-item evaluation with its posterior), the yields with their intervals
(:func:`mcrank.figures.yield_intervals.yield_interval_figure`). Each is a PNG drawn by
matplotlib's Agg backend. :func:`html_page` embeds them in the page that
:func:`mcrank.evaluate.html_report.render_page` writes, which draws nothing itself: the results'
layer does not import the figures'.
"""

from __future__ import annotations

import io

from matplotlib.backends.backend_agg import FigureCanvasAgg

from mcrank.figures._style import paper_style
from mcrank.figures.decision_curves import decision_curve_figure
from mcrank.figures.yield_intervals import yield_interval_figure

__all__ = ["html_page", "page_figures"]

#: Resolution of the page's images: sharp on a high-density screen, a few hundred kB at most.
PAGE_DPI = 150
#: The names of a model in a result's records.
_NAME_KEYS = ("model", "classifier")


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    FigureCanvasAgg(figure)
    with paper_style():
        figure.savefig(buffer, format="png", dpi=PAGE_DPI, metadata={"Software": None})
    return buffer.getvalue()


def _interval_figure(result):
    """The yields with their intervals, when the result's records carry them; else None."""
    rows = result.to_records()
    if not rows or "utility_yield_low" not in rows[0]:
        return None
    name = next(key for key in _NAME_KEYS if key in rows[0])
    return yield_interval_figure([row[name] for row in rows], [row["utility_yield"] for row in rows],
                                 [(row["utility_yield_low"], row["utility_yield_high"]) for row in rows])  # fmt: skip


def page_figures(*results) -> list[tuple[str, bytes]]:
    """Each figure of ``results`` as (caption, PNG), in the results' order."""
    from mcrank.evaluate.curves import DecisionCurves  # here: drawing the paper's figures loads no evaluation

    figures = []
    for result in results:
        if isinstance(result, DecisionCurves):  # the one figure that reads the curves themselves
            band = "" if result.bands is None else ", with 95 % posterior bands"
            figures.append((f"Decision curves: net benefit against the threshold probability{band}", _png(decision_curve_figure(result))))
        elif (figure := _interval_figure(result)) is not None:
            figures.append(("Utility yield per item of each model, with its 95 % interval given the test set", _png(figure)))
    return figures


def html_page(*results, title: str = "mcrank evaluate") -> str:
    """One self-contained HTML page of ``results``, their figures embedded
    (:func:`mcrank.evaluate.html_report.render_page`)."""
    from mcrank.evaluate.html_report import render_page

    return render_page(results, page_figures(*results), title=title)
