"""Fig. 8 (new): the study beyond two classes, against the number of classes n
(``docs/method.md``, "The n-class study").

It draws the rows of the n-class sweeps' results files and their crossover tables
(:func:`mcrank.crossover.crossover_table`), nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from mcrank.error_models import ERROR_MODELS
from mcrank.figures._style import ERROR_COLOURS, OKABE_ITO, PAGE_WIDTH, find_sd, is_metric_row, new_figure, paper_style
from mcrank.metrics import get_metric

__all__ = ["fig8_classes"]

_COLOURS = ("0.1", OKABE_ITO["reddish_purple"], OKABE_ITO["sky_blue"], OKABE_ITO["vermillion"], "0.55", OKABE_ITO["bluish_green"], "0.75")
_MARKERS = ("o", "s", "^", "v", "D", "P", "X")


def _line_style(error: str) -> str:
    """Solid for an error model with a closed form (``gaussian``), dashed for the others."""
    return "-" if ERROR_MODELS[error].closed_form else "--"


def fig8_classes(
    sweeps: Mapping[str, Mapping[int, Sequence[Mapping]]],
    crossovers: Mapping[str, Mapping[int, Sequence[Mapping]]],
    *,
    sd: float = 0.1,
    band_se: float = 2.0,
) -> Figure:
    """Misranking against the number of classes n.

    Left: % incorrectly ranked pairs against n, one line per metric (from the ``gaussian``
    sweep when there is one) and one per error model for the perturbed utility matrix at
    ``sd``, with bands of ``band_se`` standard errors. Right: the crossover sd against n per
    metric, with its jackknife standard error as error bars; ``gaussian`` errors solid,
    ``truncated`` dashed.

    Parameters
    ----------
    sweeps : mapping of error model to {n: rows}
        The rows of the sweep of each number of classes (:meth:`mcrank.study.StudyResult.rows`).
    crossovers : mapping of error model to {n: table}
        Their crossover tables.
    sd, band_se : float

    Returns
    -------
    Figure
    """
    if not sweeps:
        raise ValueError("sweeps is empty: give the n-class sweeps of at least one error model")
    errors = [e for e in ERROR_COLOURS if e in sweeps]
    with paper_style():
        fig = new_figure(PAGE_WIDTH, 3.6)
        left, right = fig.subplots(1, 2)
        # The metric lines from the sweep under a closed-form error model where there is one.
        source = sweeps[next((e for e in errors if ERROR_MODELS[e].closed_form), errors[0])]
        classes = sorted(source)
        metrics = [row["name"] for row in source[classes[0]] if is_metric_row(row)]
        for k, metric in enumerate(metrics):
            values = [next(float(r["incorrect_pct"]) for r in source[n] if r["name"] == metric) for n in classes]
            left.plot(
                classes,
                values,
                "-",
                marker=_MARKERS[k % 7],
                markersize=3,
                color=_COLOURS[k % 7],
                linewidth=1.0,
                label=get_metric(metric).name,
            )
        for error in errors:
            points = []
            for n, rows in sorted(sweeps[error].items()):
                row = next((r for r in rows if not is_metric_row(r) and find_sd([float(r["sd"])], sd) is not None), None)
                if row is not None:
                    points.append((n, float(row["incorrect_pct"]), float(row["se_pct"])))
            if not points:
                continue
            n, pct, se = (np.array(v) for v in zip(*points))
            colour = ERROR_COLOURS[error]
            left.fill_between(n, pct - band_se * se, pct + band_se * se, color=colour, alpha=0.25, linewidth=0)
            left.plot(n, pct, _line_style(error), color=colour, linewidth=2.0, label=f"utility matrix, {error} errors of sd {sd:g}")
        left.set_xlabel("classes n")
        left.set_ylabel("% incorrectly ranked pairs")
        left.set_ylim(0, None)
        left.set_title(f"Misranking ({'±' + format(band_se, 'g')} SE bands)")
        for error in errors:
            tables = crossovers.get(error, {})
            for k, metric in enumerate(metrics):
                points = []
                for n, table in sorted(tables.items()):
                    row = next((r for r in table if r["metric"] == metric), None)
                    if row is not None and row["crossover_sd"] is not None:
                        points.append((n, row["crossover_sd"], row["crossover_se"] or 0.0))
                if points:
                    n, value, se = (np.array(v) for v in zip(*points))
                    right.errorbar(n, value, yerr=se, fmt=_line_style(error), marker=_MARKERS[k % 7], markersize=3,
                                   color=_COLOURS[k % 7], linewidth=1.0, capsize=2)  # fmt: skip
        right.set_xlabel("classes n")
        right.set_ylabel("crossover error sd")
        right.set_title("Crossover sd (± jackknife SE)")
        for ax in (left, right):
            ax.set_xticks(classes)
        fig.legend(*left.get_legend_handles_labels(), loc="outside lower center", ncols=3, fontsize=7.5)
        solid = [e for e in errors if _line_style(e) == "-"]
        dashed = [e for e in errors if _line_style(e) == "--"]
        if solid and dashed:
            text = f"solid: {', '.join(solid)} errors; dashed: {', '.join(dashed)}"
            right.text(0.98, 0.98, text, transform=right.transAxes, ha="right", va="top", fontsize=7)
    return fig
