"""Fig. 7: the percentage of incorrectly ranked pairs against the error sd of ``U'``
(``docs/method.md``, "Figures").

It draws the rows of the sweeps' results files, nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from mcrank.distributions import TRUE_UM_DISTRIBUTIONS
from mcrank.error_models import ERROR_MODELS
from mcrank.figures._style import ERROR_COLOURS, METRIC_LINE, PAGE_WIDTH, is_metric_row, new_figure, paper_style
from mcrank.metrics import get_metric

__all__ = ["fig7_sweep"]

#: The panels this figure can draw, top to bottom, and their titles: the distributions on the
#: hexagon, whose sweeps are the paper's two-class study.
_TRUE_UM_TITLES = {d.name: d.title for d in TRUE_UM_DISTRIBUTIONS.values() if d.hexagon}


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


def _utility_curve(rows: Sequence[Mapping]):
    """(sd, realised sd, incorrect_pct, se_pct) of the perturbed-utility rows, by sd."""
    utility = sorted((r for r in rows if not is_metric_row(r)), key=lambda r: float(r["sd"]))
    as_array = lambda key: np.array([np.nan if r[key] in (None, "") else float(r[key]) for r in utility])  # noqa: E731
    return as_array("sd"), as_array("realised_sd"), as_array("incorrect_pct"), as_array("se_pct")


def _place_metric_labels(fig: Figure, labelled: list) -> None:
    """Spread the right-hand metric labels of fig. 7 so that none overlaps another.

    Needs the final axes size, hence one layout pass first; the labels were already
    placed, so that the layout reserved their width.
    """
    fig.draw_without_rendering()
    for ax, labels, values in labelled:
        if not labels:
            continue
        to_display = ax.transData.transform
        pixels = to_display(np.column_stack([np.zeros(len(values)), values]))[:, 1]
        gap = 1.2 * labels[0].get_fontsize() * fig.dpi / 72
        spread = _spread(pixels, gap)
        data_y = ax.transData.inverted().transform(np.column_stack([np.zeros(len(values)), spread]))[:, 1]
        for annotation, y in zip(labels, data_y):
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
        rows as :meth:`mcrank.study.StudyResult.rows` of a run over a grid of sds
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
        if true_um not in _TRUE_UM_TITLES:
            choices = ", ".join(_TRUE_UM_TITLES)
            raise ValueError(f"unknown true-utility distribution {true_um!r}; choose from {choices}")
        if error not in ERROR_COLOURS:
            raise ValueError(f"unknown error model {error!r}; choose from {', '.join(ERROR_COLOURS)}")
    distributions = [d for d in _TRUE_UM_TITLES if any(key[0] == d for key in sweeps)]
    with paper_style():
        fig = new_figure(PAGE_WIDTH, 3.4 * len(distributions) + 0.4)
        axes = fig.subplots(len(distributions), 1, squeeze=False)[:, 0]
        labelled = []
        handles: dict[str, object] = {}
        for ax, true_um in zip(axes, distributions):
            errors = [e for e in ERROR_COLOURS if (true_um, e) in sweeps]
            top, right = 0.0, 0.0
            samples = set()
            for error in errors:
                sd, realised, pct, se = _utility_curve(sweeps[(true_um, error)])
                if sd.size == 0:
                    continue
                colour = ERROR_COLOURS[error]
                ax.fill_between(sd, pct - band_se * se, pct + band_se * se, color=colour, alpha=0.25, linewidth=0)
                (line,) = ax.plot(sd, pct, "-", color=colour, linewidth=1.4)
                handles.setdefault(f"{error} errors (±{band_se:g} SE)", line)
                if not ERROR_MODELS[error].closed_form and np.any(np.isfinite(realised)):
                    (line,) = ax.plot(realised, pct, "--", color=colour, linewidth=1.2)
                    handles.setdefault(f"{error}, vs realised sd", line)
                top = max(top, float(np.nanmax(pct + band_se * se)))
                right = max(right, float(np.nanmax(sd)))
                # Rows read back from CSV hold strings: "" for missing, "1000000" for counts.
                counts = (r.get("samples") for r in sweeps[(true_um, error)])
                samples.update(int(float(c)) for c in counts if c not in (None, ""))
            # The metric lines from a run under a closed-form error model where there is one.
            source = sweeps[(true_um, next((e for e in errors if ERROR_MODELS[e].closed_form), errors[0]))]
            metric_rows = sorted((r for r in source if is_metric_row(r)), key=lambda r: float(r["incorrect_pct"]))
            values = [float(r["incorrect_pct"]) for r in metric_rows]
            for value in values:
                ax.axhline(value, color=METRIC_LINE, linewidth=0.6, linestyle=":", zorder=1)
            top = max([top, *values]) if values else top
            ax.set_xlim(0, right if right > 0 else 1)
            ax.set_ylim(0, 1.08 * top if top > 0 else 1)
            annotations = [
                ax.annotate(
                    f"{get_metric(r['name']).name} {float(r['incorrect_pct']):.1f} %",
                    xy=(1.0, value),
                    xycoords=ax.get_yaxis_transform(),
                    xytext=(1.03, value),
                    textcoords=ax.get_yaxis_transform(),
                    ha="left",
                    va="center",
                    fontsize=7.5,
                    color="0.2",
                    annotation_clip=False,
                    arrowprops=dict(arrowstyle="-", color=METRIC_LINE, linewidth=0.5, shrinkA=0, shrinkB=1.5),
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
