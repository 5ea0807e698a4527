"""The report of an evaluation of probabilistic classifiers (``mcrank evaluate --probabilities``):
text and JSON.

:func:`render_table` is what ``str()`` of a
:class:`~mcrank.evaluate.probabilities.ProbabilityEvaluation` gives and ``mcrank evaluate
--probabilities`` prints: the choice and how sure it is first (the lead line of every ranking
report, :func:`mcrank.evaluate.report.decision_sentence`), then the ranking by the yield of the
expected-utility decisions beside the Brier score and the log loss, the pairs those order
otherwise (each as the score orders it), and the recalibration's gain; names escaped, columns
in blocks that fit the width.
:func:`to_dict` is its ``to_dict()`` and :func:`render_json` that as JSON text; :func:`records`
(one dict per model) is its ``to_records()`` and :func:`render_csv` their CSV.
"""

from __future__ import annotations

import csv
import io
import json
import math

from mcrank.evaluate.folds import SEPARATED
from mcrank.evaluate.probabilities import ProbabilityEvaluation
from mcrank.evaluate.report import (
    POINT_YIELDS,
    _shown_names,
    _wrap,
    column_blocks,
    column_format,
    csv_text,
    decision_sentence,
    printable,
    probability_text,
)
from mcrank.evaluate.result import _compare, renders
from mcrank.evaluate.targets import class_header

__all__ = ["decision_line", "records", "render_csv", "render_json", "render_table", "to_dict"]

#: The recalibrations as the report names them, by (method, two classes).
_RECALIBRATION_NAMES = {
    ("platt", True): "Platt (logistic regression on logit p)",
    ("platt", False): "multinomial logistic regression on log p",
    ("isotonic", True): "isotonic regression",
}
#: What the scores are called in the report, by their key in :attr:`ProbabilityEvaluation.disagreements`.
_SCORE_NAMES = {"brier_score": "Brier score", "log_loss": "log loss"}


def decision_line(result: ProbabilityEvaluation, names: dict[str, str]) -> str:
    """The choice and how sure it is: the probability of being above the closest rival given the
    test set where there is a posterior, else that it rests on the point yields."""
    models = result.models
    if len(models) == 1:
        return f"choose {names[models[0].name]}: the only model"
    first = [m for m in models if m.rank == 1]
    if len(first) > 1:
        return f"no choice by utility yield: {', '.join(names[m.name] for m in first)} have the same, the highest"
    chosen = models[0].name
    if result.probability_above is None:
        return decision_sentence(names[chosen], POINT_YIELDS.format(options="--test-uncertainty"))
    against = [(m.name, result.probability_above[chosen, m.name][0]) for m in models[1:]]
    rival, over = min(against, key=lambda item: item[1])
    lead = decision_sentence(names[chosen], "the highest yield", names[rival], over, " given the test set")
    if all(p >= SEPARATED for _, p in against):
        return lead + f"; separated from every other model (P({names[chosen]} better) >= {SEPARATED:g})"
    return lead + f"; not separated (P({names[chosen]} better) below {SEPARATED:g})"


def render_table(result: ProbabilityEvaluation, *, width: int = 80) -> str:
    """The evaluation as text, within ``width`` characters a line where the names allow."""
    names = {m.name: printable(m.name) for m in result.models}
    shown = _shown_names(names, max(12, width // 3))
    lines = _wrap(decision_line(result, names), width, "", "  ") + [""]
    counts = ", ".join(f"{c} {k}" for c, k in zip(result.classes, result.class_counts.tolist(), strict=True))
    lines += _wrap(f"Test set: {result.items} items; true classes: {counts}", width)
    lines += _wrap(class_header(result.classes, result.order_source, result.positive), width)
    lines += _wrap("Utility matrix: " + "; ".join(f"{c}: " + ", ".join(f"{v:g}" for v in row)
                                                  for c, row in zip(result.classes, result.utility, strict=True)), width)  # fmt: skip
    lines += [""] + _wrap("Ranking by the yield of each model's expected-utility decisions (argmax_i sum_j U_ij p_j), utility "
                          "per item, beside the Brier score and the log loss (lower is better; rank)", width)  # fmt: skip
    models = result.models
    yield_format = column_format([m.utility_yield for m in models], sign=True)
    columns = [("yield", [yield_format(m.utility_yield) for m in models])]
    if result.probability_above is not None:
        ends = [value for m in models for value in m.interval]
        interval = column_format(ends, sign=True)
        columns.append(("95 % interval", [f"[{interval(m.interval[0])}, {interval(m.interval[1])}]" for m in models]))
        columns.append(("P(above next)", [probability_text(*_above(result, a.name, b.name))
                                          for a, b in zip(models, models[1:])] + ["-"]))  # fmt: skip
    brier = column_format([m.brier_score for m in models])
    loss = column_format([m.log_loss for m in models])
    columns.append(("Brier", [f"{brier(m.brier_score)} ({m.brier_rank})" for m in models]))
    columns.append(("log loss", [f"{_number(loss, m.log_loss)} ({m.log_loss_rank})" for m in models]))
    if result.recalibration is not None:
        again = column_format([m.recalibrated_yield for m in models], sign=True)
        gain = column_format([m.recalibration_gain for m in models], sign=True)
        columns.append(("recalibrated", [again(m.recalibrated_yield) for m in models]))
        columns.append(("gain", [gain(m.recalibration_gain) for m in models]))
    lead = [f"{m.rank:>4}  {shown[m.name]}" for m in models]
    lines += column_blocks("rank  model", lead, columns, width)
    if result.probability_above is not None:
        lines += _wrap(f"Test-set uncertainty: the posterior of the joint table (true class, every model's decision), prior "
                       f"count {result.prior_count:g}; {result.samples} draws for the intervals, P(above next) exact where it "
                       f"converges; seed {result.seed}.", width)  # fmt: skip
    lines.append("")
    for key, pairs in result.disagreements.items():
        if pairs:
            listed = ", ".join(_flagged(result, key, a, b, names) for a, b in pairs[:4]) + (
                f", ... ({len(pairs) - 4} more)" if len(pairs) > 4 else ""
            )
            lines += _wrap(f"* the {_SCORE_NAMES[key]} ranks otherwise: {listed}", width, "", "  ")
    if not any(result.disagreements.values()) and len(models) > 1:
        lines += _wrap("The Brier score and the log loss rank as the yields do.", width)
    lines += _wrap(_recalibration_line(result), width)
    return "\n".join(lines) + "\n"


def _flagged(result: ProbabilityEvaluation, key: str, a: str, b: str, names: dict[str, str]) -> str:
    """A pair the score orders otherwise, as the score orders it: ``a`` is ranked at least as high
    as ``b`` by yield (:attr:`ProbabilityEvaluation.disagreements`), so the score puts ``b``
    over ``a``, ties them, or, the yields tied, puts one of them over the other."""
    by_name = {m.name: m for m in result.models}
    first, second = by_name[a], by_name[b]
    if first.rank == second.rank:  # flagged, so the score does not tie them: it names the better
        better, worse = (a, b) if _better(key, first, second) else (b, a)
        return f"{names[better]} over {names[worse]} (equal yields)"
    if _better(key, second, first):
        return f"{names[b]} over {names[a]}"
    return f"{names[a]} level with {names[b]}"


def _better(key: str, m, other) -> bool:
    """Whether the score ``key`` (lower is better) puts ``m`` strictly over ``other``, by the rule
    that flagged the pair (:func:`mcrank.evaluate.result._compare`, infinities exact)."""
    return int(_compare(-getattr(m, key), -getattr(other, key))) > 0


def _number(format_, value: float) -> str:
    return format_(value) if math.isfinite(value) else "inf"


def _above(result: ProbabilityEvaluation, a: str, b: str) -> tuple:
    """P(a above b) and its SE (None where exact), for :func:`probability_text`; the pair's
    probability is kept in rank order, so ``a`` is ranked above ``b``."""
    p, se = result.probability_above[a, b]
    if math.isnan(p):
        return (None,)
    return (p, None if math.isnan(se) else se, result.samples)


def _recalibration_line(result: ProbabilityEvaluation) -> str:
    if result.recalibration_note is not None:
        return f"Recalibration: {result.recalibration_note}."
    if result.recalibration is None:
        return "Recalibration: not asked for."
    method = _RECALIBRATION_NAMES[result.recalibration, len(result.classes) == 2]
    unconverged = ""
    if result.recalibration_unconverged:
        unconverged = (f" The fit did not converge for {', '.join(map(printable, result.recalibration_unconverged))}: its "
                       "numbers are those of the last iteration.")  # fmt: skip
    return (f"Recalibration: {method}, cross-fitted over {result.recalibration_folds} folds (dealt at random within each class, "
            f"seed {result.seed}): the yield each model's decisions would have with its probabilities recalibrated, and the "
            f"gain over the yield as given.{unconverged}")  # fmt: skip


def _clean(value):
    """JSON-safe: NaN and infinities become None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


#: The log losses of a model's row, which may be infinite: in JSON None beside ``KEY_infinite``
#: true, ``inf`` in CSV and on the HTML page.
_LOSSES = ("log_loss", "recalibrated_log_loss")
_INFINITE = "_infinite"


def to_dict(result: ProbabilityEvaluation) -> dict:
    """The evaluation as JSON-ready data: :meth:`ProbabilityEvaluation.to_dict
    <mcrank.evaluate.probabilities.ProbabilityEvaluation.to_dict>`. An infinite log loss, as
    given or recalibrated, is None, with ``log_loss_infinite`` (``recalibrated_log_loss_infinite``)
    true."""
    models = []
    for m in result.models:
        row = {"rank": m.rank, "model": m.name, "utility_yield": m.utility_yield, "brier_score": m.brier_score,
               "brier_rank": m.brier_rank, "log_loss": _clean(m.log_loss), "log_loss_rank": m.log_loss_rank}  # fmt: skip
        if math.isinf(m.log_loss):
            row["log_loss" + _INFINITE] = True
        if m.interval is not None:
            row["utility_yield_low"], row["utility_yield_high"] = m.interval
        if m.recalibrated_yield is not None:
            row |= {"recalibrated_yield": m.recalibrated_yield, "recalibration_gain": m.recalibration_gain,
                    "recalibrated_brier_score": m.recalibrated_brier_score,
                    "recalibrated_log_loss": _clean(m.recalibrated_log_loss)}  # fmt: skip
            if math.isinf(m.recalibrated_log_loss):
                row["recalibrated_log_loss" + _INFINITE] = True
        models.append(row)
    out = {
        "classes": list(result.classes),
        "class_order": result.order_source,
        "positive": result.positive,
        "items": result.items,
        "class_counts": result.class_counts.tolist(),
        "utility": result.utility.tolist(),
        "decisions": "argmax_i sum_j U_ij p_j",
        "models": models,
        "disagreements": {key: [list(pair) for pair in pairs] for key, pairs in result.disagreements.items()},
        "recalibration": None
        if result.recalibration is None
        else {"method": result.recalibration, "folds": result.recalibration_folds, "unconverged": list(result.recalibration_unconverged)},
        "recalibration_note": result.recalibration_note,
        "seed": result.seed,
    }
    if result.probability_above is not None:
        out["test_uncertainty"] = {
            "samples": result.samples,
            "prior_count": result.prior_count,
            "probability_above": [
                {"above": a, "below": b, "probability": _clean(p), "se": _clean(se)} for (a, b), (p, se) in result.probability_above.items()
            ],  # fmt: skip
        }
    return out


def records(result: ProbabilityEvaluation) -> list[dict]:
    """One dict per model, best first: the rows of :func:`to_dict`'s ``models``."""
    return to_dict(result)["models"]


def render_csv(result: ProbabilityEvaluation, made: dict | None = None) -> str:
    """The ranking as CSV, one row per model (:func:`records`; an infinite log loss, as given or
    recalibrated, is ``inf``), after ``# key: value`` lines for ``made``, the classes, the
    utility and the settings, then :func:`mcrank.results.provenance`."""
    from mcrank.results import csv_comments, provenance

    document = to_dict(result)
    comments = {**(made or {}), **{key: document[key] for key in ("classes", "class_order", "positive", "items", "utility", "seed")}}
    if result.recalibration is not None:
        comments.update(recalibration=result.recalibration, recalibration_folds=result.recalibration_folds)
    if result.recalibration_note is not None:
        comments["recalibration_note"] = result.recalibration_note
    if result.probability_above is not None:
        comments.update(samples=result.samples, prior_count=result.prior_count)
    rows = _with_infinities(records(result))
    header = list(dict.fromkeys(key for row in rows for key in row))
    if result.probability_above is not None:
        header.append("probability_above_next")
    buffer = io.StringIO()
    buffer.write(csv_comments({**comments, **provenance()}))
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for k, (row, m) in enumerate(zip(rows, result.models, strict=True)):
        cells = {key: "inf" if isinstance(value, float) and math.isinf(value) else value for key, value in row.items()}
        if result.probability_above is not None:
            below = result.models[k + 1].name if k + 1 < len(result.models) else None
            p = None if below is None else result.probability_above[m.name, below][0]
            cells["probability_above_next"] = "" if p is None or math.isnan(p) else repr(p)
        writer.writerow([csv_text(cells[key]) if key == "model" else _cell(cells.get(key)) for key in header])
    return buffer.getvalue()


def _with_infinities(rows: list[dict]) -> list[dict]:
    """:func:`records` with each log loss flagged infinite back to ``inf`` and the flags dropped:
    the rows of the CSV and of the HTML table, which can say ``inf``."""
    out = []
    for row in rows:
        infinite = {key: math.inf for key in _LOSSES if row.get(key + _INFINITE)}
        out.append({key: value for key, value in row.items() if not key.endswith(_INFINITE)} | infinite)
    return out


def html_records(result: ProbabilityEvaluation) -> list[dict]:
    """The rows of its HTML table (:mod:`mcrank.evaluate.html_report`): :func:`records` with an
    infinite log loss shown as such, not as a missing value."""
    return _with_infinities(records(result))


def _cell(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else repr(value)


def render_json(result: ProbabilityEvaluation, made: dict | None = None) -> str:
    """:func:`to_dict` as JSON text, with ``made`` (the input, provenance) added."""
    return json.dumps({**to_dict(result), **(made or {})}, indent=2) + "\n"


def heading(result: ProbabilityEvaluation) -> str:
    """The heading of the evaluation's section of an HTML page (:mod:`mcrank.evaluate.html_report`)."""
    return "Probabilistic classifiers by the yield of their expected-utility decisions, beside the Brier score and the log loss"


renders(ProbabilityEvaluation, text=render_table, records=records, dict=to_dict, heading=heading, html_records=html_records)
