"""The report of decision curves (:class:`~mcrank.evaluate.curves.DecisionCurves`): text, CSV
and JSON.

:func:`table_lines` is the curves' table in the ``--scores`` report
(:func:`mcrank.evaluate.scoring.report.render_table`), :func:`render_csv` their CSV, and
:func:`to_dict` is :meth:`DecisionCurves.to_dict <mcrank.evaluate.curves.DecisionCurves.to_dict>`.
The numbers follow the rules of :mod:`mcrank.evaluate.report`.
"""

from __future__ import annotations

import csv
import io

from mcrank.evaluate.curves import BAND, DecisionCurves
from mcrank.evaluate.report import _wrap, column_blocks, column_format, csv_text, probability_text
from mcrank.evaluate.result import renders

__all__ = ["render_csv", "table_lines", "to_dict"]


def table_lines(curves, shown: dict[str, str], width: int) -> list[str]:
    """The decision curves as lines of text: what they are, the posterior's settings, and one
    row per threshold, a column per curve (with its band) and per pair's P(a > b), in blocks
    that fit ``width``; ``shown`` maps each model to its name as printed."""
    text = ("Decision curves: net benefit TP/N - FP/N * p_t / (1 - p_t), treat when the probability >= p_t (the utility yield "
            "under [[1, -p_t / (1 - p_t)], [0, 0]]); treat none: 0")  # fmt: skip
    lines = [""] + _wrap(text, width)
    if curves.bands is not None:
        seed = "" if curves.seed is None else f", seed {curves.seed}"
        lines += _wrap(f"with the test set's posterior (Dirichlet, prior total count {curves.prior_count:g} spread over the cells): "
                       f"95 % bands ({curves.samples} draws{seed}) and P(a > b), the probability that a's net benefit exceeds "
                       "b's on the population (exact)", width)  # fmt: skip
    steps = range(len(curves.thresholds))
    columns = [("treat all", [f"{curves.treat_all[k]:+.4f}" for k in steps])]
    for name, values in curves.net_benefit.items():
        cells = [f"{values[k]:+.4f}" for k in steps]
        if curves.bands is not None:
            cells = [f"{cell} [{low:+.4f}, {high:+.4f}]" for cell, (low, high) in zip(cells, curves.bands[name])]
        columns.append((shown[name], cells))
    for (a, b), values in (curves.probability_better or {}).items():
        columns.append((f"P({shown[a]} > {shown[b]})", [probability_text(float(v)) for v in values]))
    threshold = column_format(curves.thresholds)
    lead = [f"  {threshold(t):>6}" for t in curves.thresholds]
    return lines + column_blocks(f"  {'p_t':>6}", lead, columns, width)


def render_csv(curves, comments: dict) -> str:
    """The decision curves as CSV, one row per threshold: the treat-all and treat-none
    curves, each model's and, with the posterior, its band, the pairs' probabilities and the
    bands of each model's difference from the best; after ``# key: value`` lines for
    ``comments`` and the posterior's settings, then :func:`mcrank.results.provenance`."""
    from mcrank.results import csv_comments, provenance

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    comments = dict(comments)
    if curves.bands is not None:
        comments.update(prior_count=curves.prior_count, samples=curves.samples, seed=curves.seed, best=curves.best)
    buffer.write(csv_comments({**comments, **provenance()}))
    names, pairs = list(curves.net_benefit), list(curves.probability_better or {})
    header = ["threshold", "treat_all", "treat_none", *names]
    if curves.bands is not None:
        header += [f"{name}_{end}" for name in names for end in ("low", "high")]
        header += [f"probability_{a}_over_{b}" for a, b in pairs]
        header += [f"{name}_minus_best_{end}" for name in curves.difference_bands for end in ("low", "high")]
    writer.writerow([csv_text(cell) for cell in header])
    for k, t in enumerate(curves.thresholds):
        row = [repr(float(t)), repr(float(curves.treat_all[k])), "0.0", *(repr(float(curves.net_benefit[n][k])) for n in names)]
        if curves.bands is not None:
            row += [repr(float(curves.bands[n][k, e])) for n in names for e in (0, 1)]
            row += [repr(float(curves.probability_better[p][k])) for p in pairs]
            row += [repr(float(curves.difference_bands[n][k, e])) for n in curves.difference_bands for e in (0, 1)]
        writer.writerow(row)
    return buffer.getvalue()


def to_dict(curves) -> dict:
    """The decision curves as a JSON-ready dict (:meth:`DecisionCurves.to_dict`): thresholds, curves,
    and with the posterior the bands and probabilities."""
    document = {
        "thresholds": curves.thresholds.tolist(),
        "prevalence": curves.prevalence,
        "items": curves.items,
        "classes": list(curves.classes),
        "treat_when": "predicted probability >= threshold",
        "net_benefit": {name: nb.tolist() for name, nb in curves.net_benefit.items()},
        "treat_all": curves.treat_all.tolist(),
        "treat_none": curves.treat_none.tolist(),
    }
    if curves.bands is not None:
        document["posterior"] = {
            "prior_count": curves.prior_count,
            "prior": "total count spread evenly over the cells of each table",
            "samples": curves.samples,
            "seed": curves.seed,
            "band": BAND,
            "bands": {name: band.tolist() for name, band in curves.bands.items()},
            "probability_better": [
                {"model": a, "over": b, "probability": p.tolist(), "exact": curves.exact[a, b].tolist()}
                for (a, b), p in curves.probability_better.items()
            ],
            "best": curves.best,
            "difference_bands": {name: band.tolist() for name, band in curves.difference_bands.items()},
        }
    return document


renders(DecisionCurves, dict=to_dict)
