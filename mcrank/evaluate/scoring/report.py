"""The report of a scoring evaluation (``mcrank evaluate --scores``): text, CSV and JSON.

:func:`render_table` is what ``mcrank evaluate --scores`` prints, by the rules of the
confusion-matrix report (:mod:`mcrank.evaluate.report`): names escaped and cut in the middle,
one number format per column, columns in blocks that fit. With a ranking
(:func:`mcrank.evaluate.scoring.rank_scoring`) it opens with the choice and how sure it is
(:func:`decision_line`); the pairs AUC orders otherwise and the decision curves' table
(:mod:`mcrank.evaluate.curves.report`) follow with ``details``. :func:`render_csv` writes the
ranking (or the curves), :func:`render_json` the test set, the ranking and the curves;
:func:`to_dict` is :meth:`ScoringEvaluation.to_dict <mcrank.evaluate.scoring.ScoringEvaluation.to_dict>`.
"""

from __future__ import annotations

import csv
import io
import json
import math

from mcrank.evaluate.curve_scores import CURVE_SCORES
from mcrank.evaluate.curves.report import render_csv as render_curves_csv
from mcrank.evaluate.curves.report import table_lines as curve_lines
from mcrank.evaluate.folds import SEPARATED
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
    short_probability,
)
from mcrank.evaluate.result import renders
from mcrank.evaluate.scoring import ScoringEvaluation, ScoringPosterior
from mcrank.evaluate.targets import class_header

__all__ = [
    "decision_line",
    "details",
    "heading",
    "ranking_text",
    "records",
    "render_csv",
    "render_json",
    "render_table",
    "posterior_dict",
    "test_set_dict",
    "to_dict",
]


def test_set_dict(test_set) -> dict:
    positives = int(test_set.positive.sum())
    return {"items": test_set.items, "positive": test_set.classes[0], "negative": test_set.classes[1], "positives": positives,
            "negatives": test_set.items - positives, "models": list(test_set.scores)}  # fmt: skip


def render_table(test_set, ranking, curves, *, width: int = 80, details: bool = False) -> str:
    """The report of ``--scores`` as text, within ``width`` characters a line, by the rules of
    the confusion-matrix report (:mod:`mcrank.evaluate.report`): names escaped and cut in the
    middle, one number format per column, columns in blocks that fit. With a ranking it opens
    with the choice and how sure it is (:func:`decision_line`); the pairs AUC orders otherwise
    and the decision curves' table follow with ``details`` (without a ranking the curves are
    the answer, and always printed)."""
    names = {name: printable(name) for name in test_set.scores}  # escaped: a U+202E would reverse the rest of the row
    shown = _shown_names(names, max(12, width // 3))
    positives = int(test_set.positive.sum())
    banded = curves is not None and curves.bands is not None
    lines = [] if ranking is None else _wrap(decision_line(ranking, names, banded=banded), width, "", "  ")
    if ranking is not None and ranking.posterior is not None and len(ranking.models) > 1:
        lines += _wrap(separation_line(ranking.posterior, names), width, "", "  ")
    lines += [] if ranking is None else [""]
    lines += _wrap(f"Test set: {test_set.items} items; positive class {test_set.classes[0]!r} {positives}, negative "
                   f"{test_set.classes[1]!r} {test_set.items - positives}; models: {', '.join(names.values())}", width)  # fmt: skip
    if ranking is not None:
        lines += _render_ranking(ranking, shown, width, details)
    if curves is not None and (details or ranking is None):
        lines += curve_lines(curves, shown, width)
    elif curves is not None:
        lines += [""] + _wrap(f"Decision curves at {len(curves.thresholds)} thresholds: --details (all of them in the JSON and CSV "
                              "outputs)", width)  # fmt: skip
    return "\n".join(lines) + "\n"


def decision_line(ranking, names: dict[str, str], *, banded: bool = False) -> str:
    """The choice and how sure it is: P(best) and the probability of being above the closest
    rival where the ranking has a posterior, else that it rests on the point yields (and, when
    the decision curves are ``banded``, that their bands say how sure at each threshold)."""
    chosen = ranking.models[0].name
    posterior = getattr(ranking, "posterior", None)
    if posterior is None:
        # The report names the flags that say how sure (as the confusion matrices' report does).
        options = ("the decision curves' bands (--details, --plot)" if banded else "--test-uncertainty")  # fmt: skip
        return decision_sentence(names[chosen], POINT_YIELDS.format(options=options))

    above = {pair: p for pair, (p, _) in posterior.probability_above.items()}
    against = [(m.name, above.get((chosen, m.name), 1 - above.get((m.name, chosen), 0.5))) for m in ranking.models[1:]]
    how_sure = f"P(best) {short_probability(posterior.probability_best[chosen][0])} given the test set"
    if not against:
        return decision_sentence(names[chosen], how_sure)
    rival, over = min(against, key=lambda item: item[1])
    return decision_sentence(names[chosen], how_sure, names[rival], over)


def separation_line(posterior, names: dict[str, str]) -> str:
    """The models the test set cannot tell from the choice (``posterior.not_separated``), or that
    it tells every one apart, by the fold report's rule."""
    chosen = names[posterior.chosen]
    if not posterior.not_separated:
        return f"separated from every other model: P({chosen} above) >= {SEPARATED:g} or <= {1 - SEPARATED:g} against each"
    shown = ", ".join(f"{names[name]} ({short_probability(p)})" for name, p in posterior.not_separated)
    return f"not separated from {chosen} (no order reaches {SEPARATED:g}; P({chosen} above each) in brackets): {shown}"


def _render_ranking(ranking, shown, width, details) -> list[str]:

    models = ranking.models
    classes = [printable(c) for c in ranking.classes]
    lines = [""] + _wrap(class_header(classes, ranking.order_source, printable(ranking.positive)), width)
    lines += [f"Utility matrix: {ranking.utility.tolist()}"] if details else []
    lines += [""] + _wrap("Ranking by utility yield per item at each model's best threshold (empirical ROC, output positive when "
                          "score >= threshold); optimistic: the yield on the whole test set at the threshold chosen on it, the "
                          "one to deploy", width)  # fmt: skip
    lines += _wrap(ranking.describe_choice(), width, "  ")
    yields = column_format([m.utility_yield for m in models] + [m.test_set_yield for m in models], sign=True)
    threshold = column_format([m.threshold for m in models], significant=6)  # one format: not 0.1 beside 2.00082e-05
    columns = [
        ("utility yield", [yields(m.utility_yield) for m in models]),
        ("best threshold", [{math.inf: "never", -math.inf: "always"}.get(m.threshold) or threshold(m.threshold) for m in models]),
        ("optimistic", [yields(m.test_set_yield) for m in models]),
        ("AUC (rank)", [f"{m.auc:.4f} ({m.auc_rank})" for m in models]),
        *((name, [f"{m.curve_scores[key]:.4f}" for m in models]) for key, (name, _) in CURVE_SCORES.items()),
    ]
    posterior = ranking.posterior
    if posterior is not None:
        bounds = [posterior.intervals[m.name] for m in models]
        ends = column_format([end for pair in bounds for end in pair], sign=True)
        columns[1:1] = [
            ("95% interval", [f"[{ends(low)}, {ends(high)}]" for low, high in bounds]),
            ("P(best)", [probability_text(*posterior.probability_best[m.name], posterior.samples) for m in models]),
        ]
    name_width = max(len("model"), *(len(shown[m.name]) for m in models))
    lead = [f"  {m.rank:>4}  {shown[m.name]:<{name_width}}" for m in models]
    lines += column_blocks(f"  {'rank':>4}  {'model':<{name_width}}", lead, columns, width)
    if ranking.optimistic:
        lines += _wrap("The thresholds were chosen on the items they are scored on: these yields are optimistic.", width, "  ")
    if not details:
        count, pairs = len(ranking.auc_disagreements), len(models) * (len(models) - 1) // 2
        verdict = f"AUC orders {count} of the {pairs} pairs otherwise" if count else "AUC orders every pair as the utility yield does"
        return lines + [""] + _wrap(f"{verdict}; the pairs and the utility matrix: --details.", width)
    if posterior is not None:
        lines += _render_posterior(ranking, shown, width)
    lines += ["", "Pairs that AUC orders differently from the utility yield"]
    if not ranking.auc_disagreements:
        lines += _wrap("none: AUC ranks these models as the utility at their best thresholds does", width, "  ", "    ")
    by_name = {m.name: m for m in models}
    for better, worse in ranking.auc_disagreements:
        a, b = by_name[better], by_name[worse]
        better, worse = shown[better], shown[worse]
        relation = "ties them" if a.auc == b.auc else f"puts {worse} above {better} ({b.auc:.4f} against {a.auc:.4f})"
        if a.rank == b.rank:
            relation = f"separates {better} and {worse}, tied in utility"
        lines += _wrap(f"{better} over {worse}: AUC {relation}", width, "  ", "    ")
    return lines


#: How a cross-fitted posterior differs from the plain Bayesian bootstrap
#: (docs/evaluate-scoring.md).
_CROSSFIT_DRAWS = (
    "; each draw also re-chooses every fold's threshold on the other folds' weighted items and adds the spread of that choice's error"
)


def _render_posterior(ranking, shown, width) -> list[str]:
    """The pairs' P(a above b) of the ranking's posterior, and how it was drawn."""
    posterior = ranking.posterior
    seed = "" if posterior.seed is None else f", seed {posterior.seed}"
    lines = [""] + _wrap(
        f"How sure the ranking is, given the test set of {ranking.items} items: the population yield of the thresholds "
        f"chosen here, Bayesian bootstrap over the {ranking.evaluated_items} evaluated items with a prior of total count "
        f"{posterior.prior_count:g} spread over the cells of (true class, every model's output) ({posterior.samples} "
        f"draws{seed}){_CROSSFIT_DRAWS if ranking.threshold_choice == 'crossfit' else ''}; 95% intervals of the yield per "
        "item, P(best) the probability of the highest yield (each with its "
        "Monte Carlo SE), and for each pair the probability that the one ranked above has the higher yield on the "
        "population (a posterior probability, too sure between models whose yields lie closer together than the test "
        "set's noise: on about 100 items, read 0.95 as about 0.85-0.9)",
        width,
    )
    if posterior.optimism is not None:
        shown_optimism = ", ".join(f"{shown[name]} {value:+.4f}" for name, value in posterior.optimism.items())
        lines += _wrap("The thresholds are chosen on the items they are scored on, so their yields there are optimistic: the "
                       "ranking, intervals and probabilities are of the cross-fitted estimate of each threshold's yield (folds of "
                       "the posterior's own), each draw re-choosing every threshold on the weighted items; each model's optimism, "
                       f"its test-set yield less that estimate: {shown_optimism}", width, "  ")  # fmt: skip
    pairs = list(posterior.probability_above.items())
    if not pairs:
        return lines
    labels = [f"{shown[a]} above {shown[b]}" for (a, b), _ in pairs]
    label_width = max(len("pair"), *map(len, labels))
    lead = [f"  {label:<{label_width}}" for label in labels]
    cells = [probability_text(p, se, posterior.samples) for _, (p, se) in pairs]
    return lines + column_blocks(f"  {'pair':<{label_width}}", lead, [("P(above)", cells)], width)


def _probability_above(posterior, a: str, b: str) -> tuple:
    """P(a's yield above b's) and its SE, whichever of the two is ranked above; (None, None) for a = b."""
    if a == b:
        return None, None
    if (a, b) in posterior.probability_above:
        return posterior.probability_above[(a, b)]
    p, se = posterior.probability_above[(b, a)]
    return 1 - p, se


def render_csv(test_set, ranking, curves, made: dict) -> str:
    """The ``--scores`` report as CSV, one table: the ranking, one row per model (with its
    posterior's columns), or without a ranking the decision curves
    (:func:`mcrank.evaluate.curves.report.render_csv`); after ``# key: value`` lines for
    ``made``, the test set and the settings, then :func:`mcrank.results.provenance`."""
    from mcrank.results import csv_comments, provenance

    comments = {**made, "positive": test_set.classes[0], "negative": test_set.classes[1], "items": test_set.items}
    if ranking is None:
        return render_curves_csv(curves, comments)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    comments.update(threshold_choice=ranking.threshold_choice, threshold_choice_note=ranking.describe_choice(),
                    classes=list(ranking.classes), utility=ranking.utility.tolist())  # fmt: skip
    posterior = ranking.posterior
    names = [m.name for m in ranking.models]
    header = ["rank", "model", "utility_yield", "threshold", "test_set_yield", "auc", "auc_rank", *CURVE_SCORES]
    if posterior is not None:
        comments.update(samples=posterior.samples, seed=posterior.seed)
        header += ["interval_low", "interval_high", "probability_best", "probability_best_se"]
        header += [f"probability_above_{name}{end}" for name in names for end in ("", "_se")]
    buffer.write(csv_comments({**comments, **provenance()}))
    writer.writerow([csv_text(cell) for cell in header])
    for m in ranking.models:
        row = [m.rank, csv_text(m.name), repr(m.utility_yield), repr(m.threshold), repr(m.test_set_yield), repr(m.auc), m.auc_rank]
        row += [repr(m.curve_scores[key]) for key in CURVE_SCORES]
        if posterior is not None:
            row += [repr(end) for end in posterior.intervals[m.name]] + [repr(v) for v in posterior.probability_best[m.name]]
            for other in names:
                p, se = _probability_above(posterior, m.name, other)
                row += ["" if p is None else repr(p), "" if se is None else repr(se)]
        writer.writerow(row)
    return buffer.getvalue()


def render_json(test_set, ranking, curves, made: dict) -> str:
    """The ``--scores`` report as JSON: ``test_set`` (:func:`test_set_dict`), ``scoring`` (the
    ranking's :func:`to_dict`) and ``decision_curves``
    (:func:`mcrank.evaluate.curves.report.to_dict`), whichever were made, then ``made`` and
    :func:`mcrank.results.provenance`."""
    from mcrank.results import provenance

    payload = {"test_set": test_set_dict(test_set)}
    if ranking is not None:
        payload["scoring"] = ranking.to_dict()
    if curves is not None:
        payload["decision_curves"] = curves.to_dict()
    return json.dumps({**payload, **made, **provenance()}, indent=2) + "\n"


def _threshold_rule(threshold: float) -> str:
    if threshold == math.inf:
        return "never positive"
    if threshold == -math.inf:
        return "always positive"
    return f"positive when score >= {threshold:.6g}"


def posterior_dict(posterior) -> dict:
    """A scoring posterior as a JSON-ready dict (:meth:`ScoringPosterior.to_dict`)."""
    return {
        "method": "Dirichlet posterior of the evaluated items' joint table (true class, every model's output at its "
        "chosen threshold), prior total count spread evenly over the cells: the Bayesian bootstrap over the items "
        "plus the prior's part"
        + (
            "; of the cross-fitted estimate of the yield of the thresholds chosen on the whole test set (folds of the posterior's "
            "own), each draw re-choosing every threshold on the weighted items; optimism: the test-set yield less that estimate"
            if posterior.optimism
            else ""
        ),
        "prior_count": posterior.prior_count,
        "samples": posterior.samples,
        "seed": posterior.seed,
        "optimism": posterior.optimism,
        "intervals": {name: list(bounds) for name, bounds in posterior.intervals.items()},
        "probability_above": [
            {"better": a, "worse": b, "probability": p, "se": se} for (a, b), (p, se) in posterior.probability_above.items()
        ],
        "probability_best": {name: {"probability": p, "se": se} for name, (p, se) in posterior.probability_best.items()},
        "chosen": posterior.chosen,
        "separated_at": SEPARATED,
        "not_separated": [{"model": name, "probability_chosen_above": p} for name, p in posterior.not_separated],
    }


def to_dict(ranking) -> dict:
    """A scoring evaluation as a JSON-ready dict (:meth:`ScoringEvaluation.to_dict`): the
    threshold choice, the classes and utility, ``models`` in rank order and the posterior."""

    def number(x):
        return None if not math.isfinite(x) else x

    return {
        "threshold_choice": ranking.threshold_choice,
        "threshold_choice_note": ranking.describe_choice(),
        "optimistic": ranking.optimistic,
        "folds": ranking.folds,
        "seed": ranking.seed,
        "evaluated_items": ranking.evaluated_items,
        "items": ranking.items,
        "classes": list(ranking.classes),
        "positive": ranking.positive,
        "utility": ranking.utility.tolist(),
        "models": [
            {
                "name": m.name,
                "rank": m.rank,
                "utility_yield": m.utility_yield,
                "threshold": number(m.threshold),
                "threshold_rule": _threshold_rule(m.threshold),
                "test_set_yield": m.test_set_yield,
                "fold_thresholds": [number(t) for t in m.fold_thresholds],
                "auc": number(m.auc),
                "auc_rank": m.auc_rank,
                **{key: number(value) for key, value in m.curve_scores.items()},
            }
            for m in ranking.models
        ],
        "auc_disagreements": [list(pair) for pair in ranking.auc_disagreements],
        "posterior": None if ranking.posterior is None else _posterior_of(ranking),
    }


def _posterior_of(ranking) -> dict:
    """The ranking's posterior as JSON, its method naming the folds' re-chosen thresholds (crossfit)."""
    out = ranking.posterior.to_dict()
    if ranking.threshold_choice == "crossfit":
        out["method"] += _CROSSFIT_DRAWS
    return out


def ranking_text(ranking, *, width: int = 80, details: bool = False) -> str:
    """``str()`` of a :class:`~mcrank.evaluate.ScoringEvaluation`: the decision and how sure it is
    (:func:`decision_line`), then the ranking, as :func:`render_table` prints them (the test
    set's line without its class counts, which the ranking does not hold)."""
    names = {m.name: printable(m.name) for m in ranking.models}
    shown = _shown_names(names, max(12, width // 3))
    lines = _wrap(decision_line(ranking, names), width, "", "  ")
    if ranking.posterior is not None and len(ranking.models) > 1:
        lines += _wrap(separation_line(ranking.posterior, names), width, "", "  ")
    lines += [""] + _wrap(f"Test set: {ranking.items} items; positive class {printable(ranking.positive)!r}", width)
    return "\n".join(lines + _render_ranking(ranking, shown, width, details))


def records(ranking) -> list[dict]:
    """One dict per model, in rank order: the CSV's columns up to ``auc_rank`` and the curve
    scores, then with the posterior ``utility_yield_low``, ``utility_yield_high`` (the 95 %
    interval), ``probability_best`` and ``probability_best_se``."""
    posterior = ranking.posterior
    rows = []
    for m in ranking.models:
        row = {"rank": m.rank, "model": m.name, "utility_yield": m.utility_yield, "threshold": m.threshold,
               "test_set_yield": m.test_set_yield, "auc": m.auc, "auc_rank": m.auc_rank, **m.curve_scores}  # fmt: skip
        if posterior is not None:
            row["utility_yield_low"], row["utility_yield_high"] = posterior.intervals[m.name]
            row["probability_best"], row["probability_best_se"] = posterior.probability_best[m.name]
        rows.append(row)
    return rows


def heading(ranking) -> str:
    """The heading of the ranking's section of an HTML page (:mod:`mcrank.evaluate.html_report`)."""
    return "Scoring classifiers ranked by utility yield at their best thresholds, beside AUC"


def details(ranking) -> str:
    """The ranking's report in full, as ``--details`` prints it (:func:`ranking_text`)."""
    return ranking_text(ranking, details=True)


renders(ScoringEvaluation, text=ranking_text, details=details, dict=to_dict, records=records, heading=heading)
renders(ScoringPosterior, dict=posterior_dict)
