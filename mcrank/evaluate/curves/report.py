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

import numpy as np

from mcrank.evaluate.curves import BAND, DecisionCurves
from mcrank.evaluate.report import _shown_names, _wrap, column_blocks, column_format, csv_text, printable, probability_text
from mcrank.evaluate.result import SEPARATED, renders

__all__ = ["decision_lines", "heading", "records", "render_csv", "render_table", "strategies_at", "table_lines", "to_dict"]

#: Threshold ranges named per strategy in the decision's second line, before "and N more".
_RANGES_SHOWN = 4


def strategies_at(curves) -> list[str]:
    """Per threshold, the strategy of the highest net benefit: a model, ``"treat all"`` or
    ``"treat none"`` (of equals the first: the models in order, then treat all, then treat none)."""
    labels = [*curves.net_benefit, "treat all", "treat none"]
    stack = np.vstack([*curves.net_benefit.values(), curves.treat_all, curves.treat_none])
    return [labels[k] for k in np.argmax(stack, axis=0)]


def _ranges(curves, indices: list[int]) -> str:
    """The thresholds at ``indices`` as ranges of neighbours, ``0.05-0.30, 0.45``."""
    form = column_format(curves.thresholds)
    runs: list[list[int]] = []
    for k in indices:
        if runs and k == runs[-1][-1] + 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    text = [form(curves.thresholds[r[0]]) + ("" if len(r) == 1 else "-" + form(curves.thresholds[r[-1]])) for r in runs[:_RANGES_SHOWN]]
    return ", ".join(text) + (f" and {len(runs) - _RANGES_SHOWN} more" if len(runs) > _RANGES_SHOWN else "")


def _better_than(curves, a: str, b: str) -> np.ndarray:
    """Per threshold, the posterior probability that ``a``'s net benefit exceeds ``b``'s."""
    if (a, b) in curves.probability_better:
        return curves.probability_better[a, b]
    return 1.0 - curves.probability_better[b, a]


def decision_lines(curves, names: dict[str, str] | None = None) -> list[str]:
    """The report's first lines, as sentences (unwrapped): the model to choose (:attr:`best`, the
    highest mean net benefit over the thresholds) and how sure, at how many thresholds the
    posterior separates it from its closest rival; then which strategy is the highest at
    each threshold."""
    names = names or {name: printable(name) for name in curves.net_benefit}
    best, count = curves.best, len(curves.thresholds)
    at = strategies_at(curves)
    lead = f"choose {names[best]}: the highest mean net benefit over the {count} threshold{'' if count == 1 else 's'}"
    others = sorted((n for n in curves.net_benefit if n != best), key=lambda n: -float(np.mean(curves.net_benefit[n])))
    if curves.bands is None:
        lead += "; by point estimates alone; how sure: --test-uncertainty"
    elif others:
        rival = others[0]
        separated = int(np.count_nonzero(_better_than(curves, best, rival) >= SEPARATED))
        lead += f"; over {names[rival]}: P({names[best]} better) >= {SEPARATED:g} at {separated} of them, given the test set"
    order = list(dict.fromkeys(at))
    shown = [f"{names.get(label, label)} at {_ranges(curves, [k for k, x in enumerate(at) if x == label])}" for label in order]
    return [lead, "the highest net benefit at each threshold: " + "; ".join(shown)]


def render_table(curves, *, width: int = 80) -> str:
    """``str()`` of decision curves: the decision (:func:`decision_lines`), then their table
    (:func:`table_lines`), within ``width`` characters a line where the names allow."""
    names = {name: printable(name) for name in curves.net_benefit}
    lines = []
    for sentence in decision_lines(curves, names):
        lines += _wrap(sentence, width, "", "  ")
    return "\n".join(lines + table_lines(curves, _shown_names(names, max(12, width // 3)), width))


def records(curves) -> list[dict]:
    """One dict per model, best first (the highest mean net benefit; equals in the given order):
    ``rank``, ``model``, ``mean_net_benefit`` (over the thresholds), ``highest_at`` (how many
    thresholds at which it is the highest strategy) and ``highest_at_thresholds`` (which, as
    ranges: ``"0.05-0.30, 0.45"``; empty for none), and with the posterior ``best_better_at``:
    how many thresholds at which P(the best model's net benefit exceeds this one's) >=
    :data:`~mcrank.evaluate.result.SEPARATED` (None for the best)."""
    at = strategies_at(curves)
    means = {name: float(np.mean(values)) for name, values in curves.net_benefit.items()}
    order = sorted(means, key=lambda name: -means[name])  # stable: equals keep the given order
    rows = []
    for name in order:
        where = [k for k, label in enumerate(at) if label == name]
        row = {"rank": 1 + sum(means[other] > means[name] for other in means), "model": name, "mean_net_benefit": means[name],
               "highest_at": len(where), "highest_at_thresholds": _ranges(curves, where)}  # fmt: skip
        if curves.bands is not None:
            better = None if name == curves.best else int(np.count_nonzero(_better_than(curves, curves.best, name) >= SEPARATED))
            row["best_better_at"] = better
        rows.append(row)
    return rows


def heading(curves) -> str:
    """The heading of the curves' section of an HTML page (:mod:`mcrank.evaluate.html_report`)."""
    return "Decision curves: net benefit against the threshold probability"


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


renders(DecisionCurves, text=render_table, dict=to_dict, records=records, heading=heading)
