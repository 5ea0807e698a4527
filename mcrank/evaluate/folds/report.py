"""The report of a :class:`~mcrank.evaluate.folds.FoldComparison`: text and CSV.

:func:`render_table` is what ``str(comparison)`` and ``mcrank evaluate --folds-column`` print.
It opens with the decision: the model to choose (the highest mean yield across the folds,
the choice of maximal expected utility), its probability of being best, and its probability
of being better than its closest competitor; then the models it cannot separate (no direction
of the pair, nor with a rope their equivalence, has probability
:data:`~mcrank.evaluate.result.SEPARATED`). Then one row per model (mean and sd of its
per-fold yields, P(best) and its Monte Carlo SE) and the pairs, cut after
:data:`~mcrank.evaluate.report.PAIR_LIST_CAP` (all of them in JSON and CSV).
:func:`render_csv` writes one row per model. The numbers follow the rules of
:mod:`mcrank.evaluate.report`.
"""

from __future__ import annotations

import csv
import io

from mcrank.evaluate.folds import FoldComparison
from mcrank.evaluate.report import (
    DEFAULT_WIDTH,
    PAIR_LIST_CAP,
    _more,
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
from mcrank.evaluate.result import SEPARATED, renders

__all__ = ["decision_lines", "heading", "records", "render_csv", "render_table", "to_dict"]


def _describe_folds(result) -> str:
    if result.repeats is None:
        return f"{result.folds} splits"
    k = result.folds // result.repeats
    return f"{result.folds} folds ({k}-fold cross-validation" + (f" repeated {result.repeats} times)" if result.repeats > 1 else ")")


def _pairs_by_name(result) -> dict:
    """Each pair under (first, second) and (second, first)."""
    return {key: p for p in result.pairs for key in ((p.first, p.second), (p.second, p.first))}


def decision_lines(result, names: dict[str, str] | None = None) -> list[str]:
    """The report's first lines: the choice and how sure it is, then the models not separated
    from it, as sentences (unwrapped)."""
    names = names or {m.name: printable(m.name) for m in result.models}
    chosen = result.chosen
    pairs = _pairs_by_name(result)
    against = [pairs[chosen.name, m.name] for m in result.models[1:]]
    how_sure = f"P(best) {short_probability(chosen.probability_best)} across {result.folds} folds"
    lead = decision_sentence(names[chosen.name], how_sure)
    # The closest competitor: the lowest probability that the choice is better; a model
    # identical to it on every fold is no competitor but the same model.
    if rivals := [p for p in against if not p.identical]:
        closest = min(rivals, key=lambda p: p.probability_first_better if p.first == chosen.name else p.probability_second_better)
        other = closest.second if closest.first == chosen.name else closest.first
        over = closest.probability_first_better if closest.first == chosen.name else closest.probability_second_better
        worse = closest.probability_second_better if closest.first == chosen.name else closest.probability_first_better
        equivalent = (
            f" (equivalent {short_probability(closest.probability_equivalent)}, worse {short_probability(worse)})"
            if result.rope > 0
            else ""
        )
        lead = decision_sentence(names[chosen.name], how_sure, names[other], over, equivalent)
    lines = [lead]
    groups = {"identical": [], "equivalent": [], "not separated": []}
    for p in against:
        verdict = p.verdict(result.rope)
        if verdict in groups:
            rival = p.second if p.first == chosen.name else p.first
            better = p.probability_first_better if p.first == chosen.name else p.probability_second_better
            groups[verdict].append(f"{names[rival]} ({short_probability(better)})" if verdict == "not separated" else names[rival])
    if groups["identical"]:
        lines.append(f"identical to {names[chosen.name]} on every fold: {', '.join(groups['identical'])}")
    if groups["equivalent"]:
        lines.append(f"practically equivalent to {names[chosen.name]} (P(equivalent) >= {SEPARATED:g}, rope {result.rope:g}): "
                     f"{', '.join(groups['equivalent'])}")  # fmt: skip
    if groups["not separated"]:
        lines.append(f"not separated from {names[chosen.name]} (no probability reaches {SEPARATED:g}; P({names[chosen.name]} better) "
                     f"in brackets): {', '.join(groups['not separated'])}")  # fmt: skip
    if not any(groups.values()):
        lines.append(f"separated from every other model: P({names[chosen.name]} better) >= {SEPARATED:g} against each")
    return lines


def render_table(result, *, width: int = DEFAULT_WIDTH, cap: int = PAIR_LIST_CAP) -> str:
    """The comparison as text, within ``width`` characters a line where the names allow: the
    decision, the models, the pairs (cut after ``cap``)."""
    width = max(40, int(width))
    names = {m.name: printable(m.name) for m in result.models}
    shown = _shown_names(names, max(12, width // 3))
    lines = []
    for sentence in decision_lines(result, names):
        lines += _wrap(sentence, width, "", "  ")
    seed = "" if result.seed is None else f", seed {result.seed}"
    lines += [""] + _wrap(f"Utility yield per item on each of {_describe_folds(result)}; test fraction rho = {result.test_fraction:.4g}. "
                          f"P(best) from the joint posterior of the mean yields ({result.samples} draws{seed}).", width)  # fmt: skip
    yields = column_format([m.mean_yield for m in result.models], sign=True)
    spread = column_format([m.yield_sd for m in result.models])
    columns = [
        ("mean yield", [yields(m.mean_yield) for m in result.models]),
        ("sd over folds", [spread(m.yield_sd) for m in result.models]),
        ("P(best)", [probability_text(m.probability_best, m.probability_best_se, result.samples) for m in result.models]),
    ]
    name_width = max(len("model"), *(len(shown[m.name]) for m in result.models))
    lead = [f"  {m.rank:>4}  {shown[m.name]:<{name_width}}" for m in result.models]
    lines += [""] + column_blocks(f"  {'rank':>4}  {'model':<{name_width}}", lead, columns, width)
    rope = (f"rope {result.rope:g}: P(first) = F(-rope) that the first is better, P(equivalent) = F(rope) - F(-rope), P(second) = "
            "1 - F(rope) that the second is better" if result.rope > 0 else
            "P(first) = F(0) that the first is better, P(second) = 1 - F(0) that the second is")  # fmt: skip
    lines += [""] + _wrap(f"Pairs, by the Bayesian correlated t-test: F the Student t posterior of the mean difference, {result.folds - 1} "
                          f"degrees of freedom, scale^2 = var(d) (1/n + rho/(1 - rho)); {rope}; p: the corrected resampled t-test's "
                          "two-sided p-value", width)  # fmt: skip
    listed = result.pairs[:cap]
    differences = column_format([p.difference for p in result.pairs], sign=True)
    columns = [("difference", [differences(p.difference) for p in listed]),
               ("P(first)", [probability_text(p.probability_first_better) for p in listed])]  # fmt: skip
    if result.rope > 0:
        columns.append(("P(equivalent)", [probability_text(p.probability_equivalent) for p in listed]))
    columns += [("P(second)", [probability_text(p.probability_second_better) for p in listed]),
                ("p", [probability_text(p.p_value) for p in listed]),
                ("verdict", [p.verdict(result.rope) for p in listed])]  # fmt: skip
    lead = [f"  {shown[p.first]} over {shown[p.second]}" for p in listed]
    lines += column_blocks("  first over second", lead, columns, width)
    if more := _more(len(listed), len(result.pairs), "pairs"):
        lines += _wrap(more, width, "  ")
    if any(p.zero_variance and not p.identical for p in listed):
        lines += _wrap("A pair with the same difference on every fold (zero variance) is certain: p = 0.", width, "  ")
    return "\n".join(lines) + "\n"


def render_csv(result, *, comments: dict | None = None) -> str:
    """One row per model, in rank order: ``rank``, ``model``, ``mean_yield``, ``yield_sd``,
    ``probability_best``, ``probability_best_se``, then for every other model ``B``
    ``probability_better_than_B``, ``probability_equivalent_B``, ``p_value_vs_B`` (empty
    against itself), after ``# key: value`` lines for ``comments`` and the settings."""
    from mcrank.results import csv_comments

    buffer = io.StringIO()
    settings = {"folds": result.folds, "repeats": "" if result.repeats is None else result.repeats, "test_fraction": result.test_fraction,
                "rope": result.rope, "samples": result.samples, "seed": "" if result.seed is None else result.seed,
                "chosen": result.chosen.name}  # fmt: skip
    buffer.write(csv_comments({**settings, **(comments or {})}))
    writer = csv.writer(buffer, lineterminator="\n")
    names, pairs = [m.name for m in result.models], _pairs_by_name(result)
    header = ["rank", "model", "mean_yield", "yield_sd", "probability_best", "probability_best_se"]
    for name in names:
        header += [f"probability_better_than_{name}", f"probability_equivalent_{name}", f"p_value_vs_{name}"]
    writer.writerow([csv_text(cell) for cell in header])
    for m in result.models:
        row = [m.rank, csv_text(m.name), repr(m.mean_yield), repr(m.yield_sd), repr(m.probability_best), repr(m.probability_best_se)]
        for name in names:
            if name == m.name:
                row += ["", "", ""]
                continue
            p = pairs[m.name, name]
            better = p.probability_first_better if p.first == m.name else p.probability_second_better
            row += [repr(better), repr(p.probability_equivalent), repr(p.p_value)]
        writer.writerow(row)
    return buffer.getvalue()


def to_dict(result) -> dict:
    """The comparison as a JSON-ready dict (:meth:`FoldComparison.to_dict`, ``--format json``):
    the settings, ``models`` in rank order (with their per-fold yields) and ``pairs``, each pair
    with its ``verdict``."""
    return {
        "folds": result.folds,
        "repeats": result.repeats,
        "test_fraction": result.test_fraction,
        "rope": result.rope,
        "separated_at": SEPARATED,
        "samples": result.samples,
        "seed": result.seed,
        "fold_names": None if result.fold_names is None else list(result.fold_names),
        "chosen": result.chosen.name,
        "models": [
            {
                "name": m.name,
                "rank": m.rank,
                "mean_yield": m.mean_yield,
                "yield_sd": m.yield_sd,
                "probability_best": m.probability_best,
                "probability_best_se": m.probability_best_se,
                "yields": m.yields.tolist(),
            }  # fmt: skip
            for m in result.models
        ],
        "pairs": [
            {
                "first": p.first,
                "second": p.second,
                "difference": p.difference,
                "scale": p.scale,
                "probability_first_better": p.probability_first_better,
                "probability_equivalent": p.probability_equivalent,
                "probability_second_better": p.probability_second_better,
                "p_value": p.p_value,
                "zero_variance": p.zero_variance,
                "verdict": p.verdict(result.rope),
            }  # fmt: skip
            for p in result.pairs
        ],
    }


def records(result) -> list[dict]:
    """One dict per model, in rank order: ``rank``, ``model``, ``mean_yield``, ``yield_sd``,
    ``probability_best`` and its Monte Carlo SE ``probability_best_se`` (the CSV's first columns)."""
    return [{"rank": m.rank, "model": m.name, "mean_yield": m.mean_yield, "yield_sd": m.yield_sd,
             "probability_best": m.probability_best, "probability_best_se": m.probability_best_se} for m in result.models]  # fmt: skip


def heading(result) -> str:
    """The heading of the comparison's section of an HTML page (:mod:`mcrank.evaluate.html_report`)."""
    return f"Models across {_describe_folds(result)}, by the Bayesian correlated t-test"


renders(FoldComparison, text=render_table, dict=to_dict, records=records, heading=heading)
