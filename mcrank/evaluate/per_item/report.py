"""The report of a per-item evaluation (``mcrank evaluate --utility PER_ITEM.json``): text,
records, JSON and CSV.

:func:`render_table` is what ``str()`` of a :class:`~mcrank.evaluate.per_item.PerItemEvaluation`
gives and ``mcrank evaluate`` prints: the choice and how sure it is first, then the ranking by
per-item yield beside the average-cost matrix's; :func:`records` (one dict per model) is its
``to_records()`` and :func:`render_csv` their CSV; :func:`to_dict` is its ``to_dict()`` and
:func:`render_json` that as JSON text.
"""

from __future__ import annotations

import csv
import io
import json
import textwrap

from mcrank.evaluate.per_item import PerItemEvaluation
from mcrank.evaluate.report import POINT_YIELDS, _clean, decision_sentence, short_probability
from mcrank.evaluate.result import renders
from mcrank.evaluate.targets import class_header

__all__ = ["heading", "records", "render_csv", "render_json", "render_table", "to_dict"]


def render_table(result: PerItemEvaluation) -> str:
    """The per-item evaluation as text: the choice and how sure it is first, then the ranking."""
    rows = records(result)
    names = [row["classifier"] for row in rows]
    if result.posterior is None:
        lead = decision_sentence(names[0], POINT_YIELDS.format(options="--test-uncertainty"))
    else:
        order = list(result.posterior.probability_best)
        rival = names[1] if len(names) > 1 else None
        over = None if rival is None else float(result.posterior.probability_above[order.index(names[0]), order.index(rival)])
        lead = decision_sentence(names[0], f"P(best) {short_probability(result.posterior.probability_best[names[0]])} given the test set",
                                 rival, over)  # fmt: skip
    counts = ", ".join(f"{c} {k}" for c, k in zip(result.classes, result.class_counts.tolist(), strict=True))
    reads = f"reads {', '.join(result.columns)}" if result.columns else "an array per item"
    lines = [
        lead,
        "",
        f"Test set: {result.items} items; true classes: {counts}",
        class_header(result.classes, result.class_order),
        f"Utility per item ({reads}); decisions: {', '.join(map(str, result.decisions))}.",
        "Average-cost matrix (the per-item utility averaged over the items): "
        + "; ".join(f"{d}: " + ", ".join(f"{v:.6g}" for v in row) for d, row in zip(result.decisions, result.average_matrix, strict=True)),
        "",
        "Ranking by mean utility per item (per-item utilities), beside the average-cost matrix's yield (rank)",
    ]
    posterior = result.posterior
    header = f"{'rank':>4}  {'model':<12} {'yield':>10}"
    if posterior is not None:
        header += f"  {'95 % interval':>22}  {'P(best)':>7}"
    lines.append(header + f"  {'average matrix':>14}")
    for row in rows:
        text = f"{row['rank']:>4}  {row['classifier']:<12} {row['utility_yield']:>+10.4g}"
        if posterior is not None:
            text += f"  [{row['utility_yield_low']:>+9.4g}, {row['utility_yield_high']:>+9.4g}]  {row['probability_best']:>7.3f}"
        lines.append(text + f"  {row['average_matrix_yield']:>+10.4g} ({row['average_matrix_rank']})")
    if posterior is not None:
        lines.append(f"Test-set uncertainty: Bayesian bootstrap over the items, plus one pseudo-item per joint cell "
                     f"(prior count {posterior.prior_count:g}), {posterior.samples} draws.")  # fmt: skip
    lines.append("")
    if not result.scores:
        lines.append("The popular metrics need one decision per class: not reported.")
    for key, pairs in result.disagreements.items():
        shown = ", ".join(f"{b} over {a}" for a, b in pairs[:4]) + (f", ... ({len(pairs) - 4} more)" if len(pairs) > 4 else "")
        if pairs:
            lines.append(f"* {key} ranks otherwise: {shown}")
    if not any(result.disagreements.values()):
        lines.append("The average-cost matrix and every metric reported rank as the per-item yields do.")
    elif result.scores:
        agree = [m for m in result.scores if m not in result.disagreements]
        if agree:
            lines.append(f"Ranking as the per-item yields: {', '.join(agree)}")
    # Prose lines wrapped at 80 columns, as every report; the table's rows fit already.
    return "\n".join(textwrap.fill(line, 80) if len(line) > 80 else line for line in lines)


def records(result: PerItemEvaluation) -> list[dict]:
    """One dict per model, best first: rank, yield, interval, P(best), average-matrix yield and rank, metrics."""
    rows = []
    for name in sorted(result.yields, key=lambda m: (result.ranks[m], m)):
        row = {"rank": result.ranks[name], "classifier": name, "utility_yield": result.yields[name]}
        if result.posterior is not None:
            low, high = result.posterior.intervals[name]
            row |= {"utility_yield_low": low, "utility_yield_high": high, "probability_best": result.posterior.probability_best[name]}
        row |= {"average_matrix_yield": result.average_yields[name], "average_matrix_rank": result.average_ranks[name]}
        for metric, scores in result.scores.items():
            row |= {metric: scores[name], f"{metric}_rank": result.metric_ranks[metric][name]}
        rows.append(row)
    return rows


def to_dict(result: PerItemEvaluation) -> dict:
    """The evaluation as JSON-ready data: :meth:`PerItemEvaluation.to_dict <mcrank.evaluate.per_item.PerItemEvaluation.to_dict>`."""
    names = list(result.yields)
    out = {
        "utility_form": "per item",
        "classes": [str(c) for c in result.classes],
        "decisions": [str(d) for d in result.decisions],
        "class_order": result.class_order,
        "items": result.items,
        "item_columns": list(result.columns),
        "average_matrix": result.average_matrix.tolist(),
        "classifiers": [{key: _clean(value) for key, value in row.items()} for row in records(result)],
        "disagreements": {key: [list(pair) for pair in pairs] for key, pairs in result.disagreements.items()},
    }
    if result.posterior is not None:
        p = result.posterior
        out["test_uncertainty"] = {
            "posterior": "Bayesian bootstrap over the items, plus one pseudo-item per joint cell",
            "samples": p.samples,
            "prior_count": p.prior_count,
            "probability_above": {
                f"{a} > {b}": float(p.probability_above[i, j]) for i, a in enumerate(names) for j, b in enumerate(names) if i != j
            },  # fmt: skip
        }
    return out


def render_csv(result: PerItemEvaluation) -> str:
    """The records (:func:`records`) as CSV text, a header of their keys."""
    rows = records(result)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def render_json(result: PerItemEvaluation) -> str:
    """:func:`to_dict` as JSON text."""
    return json.dumps(to_dict(result), indent=2) + "\n"


def heading(result: PerItemEvaluation) -> str:
    """The heading of the evaluation's section of an HTML page (:mod:`mcrank.evaluate.html_report`)."""
    return "Ranking by per-item utilities, beside the average-cost matrix"


renders(PerItemEvaluation, text=render_table, records=records, dict=to_dict, heading=heading)
