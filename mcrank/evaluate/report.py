"""The report of an :class:`~mcrank.evaluate.Evaluation`: text, CSV and a table of records.

:func:`render_table` is what ``str(evaluation)`` and ``mcrank evaluate`` print: the test set,
the utility matrix, one row per classifier (rank, name, utility yield and each metric's score
and rank, in blocks of columns that fit the width), a line per metric saying how many pairs
it orders against the utility yield and its Kendall's tau-b with the utility's order, the
pairs each metric orders differently and the flip probabilities, each list cut after
:data:`PAIR_LIST_CAP` pairs (all of them are in the JSON and CSV outputs).
:func:`render_csv` writes one row per classifier; :func:`records` gives the same rows as
dicts (:meth:`Evaluation.to_records`).

One rule per column of numbers (:func:`column_format`): the utility yields, their
differences and intervals share the decimals chosen from the yields' magnitudes (four
significant digits of the largest, more while two different yields would print the same,
trailing zeros common to all dropped); scores have 4 decimals; a probability has 4 decimals
(two significant digits below 1e-4), and its Monte Carlo SE is shown at the same decimals, or
as ``SE < 1e-4`` when it is below the last digit shown.

Names (of classifiers, classes, metrics' pairs) are printed through :func:`printable`, which
escapes every character that does not print (a right-to-left override U+202E would reverse
the rest of the row); in CSV a name that a spreadsheet would read as a formula is prefixed
with ``'`` (:func:`csv_text`).
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import textwrap
from collections.abc import Callable

import numpy as np

from mcrank.evaluate.result import CONDITIONAL, FLIP_FORMULA, SAMPLE, SEPARATED, Evaluation, renders
from mcrank.evaluate.targets import class_header

__all__ = [
    "DEFAULT_WIDTH",
    "PAIR_LIST_CAP",
    "column_format",
    "csv_text",
    "decision_sentence",
    "details",
    "heading",
    "kendall_tau_b",
    "metric_agreement",
    "printable",
    "probability_text",
    "records",
    "render_csv",
    "render_table",
    "short_probability",
    "to_dict",
]

#: Characters per line of :func:`render_table`, unless told otherwise (a terminal's width).
DEFAULT_WIDTH = 80
#: Pairs listed per metric, and flip probabilities listed per section, before "and N more".
PAIR_LIST_CAP = 20
#: A name is cut to this share of the width in the tables (in full in JSON and CSV).
_NAME_SHARE = 3
# The first characters that make a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# Comparisons made at once by kendall_tau_b: its work space, whatever the number of classifiers.
_TAU_BLOCK = 1 << 20


# --- names ----------------------------------------------------------------------------------


def _escape(character: str) -> str:
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` safe to print on one line: each character that :meth:`str.isprintable` refuses
    (control and format characters such as the bidirectional overrides U+202A-U+202E and
    isolates U+2066-U+2069, separators other than the space, unassigned and private-use code
    points) as its escape, ``\\u202e``, as :func:`repr` writes it; the rest as it is."""
    text = str(text)
    return text if text.isprintable() else "".join(c if c.isprintable() else _escape(c) for c in text)


def csv_text(text: str) -> str:
    """A text cell of a CSV file, with ``'`` before a first character that makes a
    spreadsheet read it as a formula (``=``, ``+``, ``-``, ``@``, tab, carriage return), as
    OWASP recommends against formula injection; any other text as it is."""
    text = str(text)
    return "'" + text if text.startswith(_FORMULA_START) else text


def _cut(name: str, width: int) -> str:
    """``name`` in at most ``width`` characters, cut in the middle with an ellipsis: model
    names often differ only at their end (``logistic_C1``, ``logistic_C10``)."""
    if len(name) <= width:
        return name
    head = max(1, (width - 1) // 2)
    return name[:head] + "…" + name[len(name) - max(0, width - 1 - head) :]


def _shown_names(names: dict[str, str], width: int) -> dict[str, str]:
    """Each name as the tables show it: cut to ``width``, unless cutting makes two alike."""
    shown = {name: _cut(text, width) for name, text in names.items()}
    return shown if len(set(shown.values())) == len(shown) else names


# --- numbers --------------------------------------------------------------------------------


def column_format(values, *, sign: bool = False, significant: int = 4, most: int = 8) -> Callable[[float], str]:
    """One format for a column of numbers, chosen from the values in it.

    Fixed decimals: ``significant`` significant digits of the largest magnitude, more (up to
    ``most``) while two different values would print the same, then fewer while every value
    ends in 0. Magnitudes from 1e7 or below 1e-4 are written in scientific notation, with
    ``significant`` digits, more while two different values would print the same.
    ``sign`` writes a ``+`` before positive numbers.
    """
    finite = [float(v) for v in values if v is not None and math.isfinite(v)]
    plus = "+" if sign else ""
    scale = max((abs(v) for v in finite), default=0.0)
    distinct = sorted(set(finite))

    def separates(spec: str) -> bool:
        return len({format(v, spec) for v in distinct}) == len(distinct)

    if scale == 0.0:
        return lambda v: format(v, f"{plus}.0f") if math.isfinite(v) else str(v)
    lead = math.floor(math.log10(scale))
    if lead >= 7 or lead < -4:
        digits = significant
        while digits < most and not separates(f".{digits - 1}e"):
            digits += 1
        return lambda v: format(v, f"{plus}.{digits - 1}e")
    decimals = max(0, significant - 1 - lead)
    limit = max(decimals, most - 1 - lead)
    while decimals < limit and not separates(f".{decimals}f"):
        decimals += 1
    while decimals > 0 and all(format(v, f".{decimals}f").endswith("0") for v in finite):
        decimals -= 1
    return lambda v: format(v, f"{plus}.{decimals}f")


def probability_text(value, se=None, samples=None, accuracy=None) -> str:
    """A probability: 4 decimals, or two significant digits below 1e-4 (an exact one below
    ten times its absolute ``accuracy`` as a bound); an estimated one with its SE at the same
    decimals, ``SE < 1e-4`` when the SE is below the last digit, or as a bound (95 %, the rule
    of three) when none of the ``samples`` draws flipped."""
    if value is None:
        return "-"
    if se is None and accuracy is not None and 0 < value < 10 * accuracy:
        return f"below {10 * accuracy:.0e}"
    text = f"{value:.4f}" if value >= 1e-4 or value == 0 else f"{value:.1e}"  # two significant digits: 3.0e-06
    if se is None:
        return text
    if value == 0:  # the rule of three: below 3/n at 95 % when none of n draws flipped
        return f"< {_one_digit_up(3 / samples)} (0/{samples})"
    return f"{text} ± {se:.4f}" if se >= 0.5e-4 else f"{text} (SE < 1e-4)"


def _one_digit_up(bound: float) -> str:
    """``bound`` to one significant digit, rounded up so that it stays a bound (3/7000 is
    ``0.0005``, not ``0.0004``)."""
    exponent = math.floor(math.log10(bound))
    digit = math.ceil(bound / 10.0**exponent * (1 - 1e-12))  # 1e-12: 3e-05 is 3, not 4
    return f"{digit * 10.0**exponent:.1g}"


def short_probability(p: float) -> str:
    """A probability in a decision's lead line: two decimals rounded towards 1/2, so that it
    never looks surer than it is (0.9459 is 0.94, not the 0.95 of a separated pair); 4
    decimals near 0 and 1 (0.9990, not 1.00)."""
    if not 0.01 <= p <= 0.99:
        return probability_text(p)
    hundredths = round(p * 100, 9)  # 0.57 * 100 is 56.99999999999999
    return f"{(math.floor(hundredths) if p >= 0.5 else math.ceil(hundredths)) / 100:.2f}"


def decision_sentence(chosen: str, how_sure: str, rival: str | None = None, over: float | None = None, after: str = "") -> str:
    """The first line of every ranking report: ``choose {chosen}: {how_sure}; over {rival}
    {over}{after}``, e.g. ``choose svm: P(best) 0.81 across 20 folds; over logistic 0.64``,
    ``over`` the probability that the choice is better than its closest rival."""
    text = f"choose {chosen}: {how_sure}"
    return text if rival is None else f"{text}; over {rival} {short_probability(over)}{after}"


#: How a report without uncertainty says what its choice rests on, and where to learn how sure it is.
POINT_YIELDS = "by point yields alone; how sure: {options}"


# --- agreement of each metric with the utility yield ----------------------------------------


def kendall_tau_b(x, y) -> float:
    """Kendall's tau-b of two rankings (or any values; higher or lower is the same as long as
    both say it the same way): ``(C - D) / sqrt((n0 - n1) (n0 - n2))`` over the ``n0`` pairs,
    ``C`` concordant, ``D`` discordant, ``n1``, ``n2`` tied in ``x``, in ``y``. NaN for fewer
    than two values or when either ranking ties every pair. Compared in blocks of rows, so
    that the work space stays bounded whatever the number of values."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = x.size
    if n < 2:
        return math.nan
    score = tied_x = tied_y = 0
    step = max(1, _TAU_BLOCK // n)
    for start in range(0, n, step):
        dx = np.sign(x[start : start + step, None] - x[None, :])
        dy = np.sign(y[start : start + step, None] - y[None, :])
        score += int(np.sum(dx * dy))
        tied_x += int(np.count_nonzero(dx == 0))
        tied_y += int(np.count_nonzero(dy == 0))
    pairs = n * (n - 1) // 2
    # Each pair was met twice, and each value once against itself (a tie in both).
    score, tied_x, tied_y = score // 2, (tied_x - n) // 2, (tied_y - n) // 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    return score / denominator if denominator > 0 else math.nan


def metric_agreement(result) -> list[dict]:
    """Per metric of ``result`` (an :class:`~mcrank.evaluate.Evaluation`), how it agrees with
    the ranking by utility yield: ``metric``, ``name``, ``pairs`` (of classifiers), ``reversed``
    (pairs it orders the other way), ``tied`` (pairs one of the two ties and the other does
    not), ``undefined`` (pairs it cannot score), and ``kendall_tau_b``, between its ranks and
    the utility yield's over the classifiers it scores (None where undefined)."""
    by_metric = {d.metric: d for d in result.disagreements}
    count = len(result.classifiers)
    agreement = []
    for metric_id, name in result.metrics:
        scored = [c for c in result.classifiers if c.ranks[metric_id] is not None]
        tau = kendall_tau_b([c.rank for c in scored], [c.ranks[metric_id] for c in scored])
        d = by_metric.get(metric_id)
        agreement.append({
            "metric": metric_id, "name": name, "pairs": count * (count - 1) // 2,
            "reversed": 0 if d is None else len(d.flipped), "tied": 0 if d is None else len(d.tied),
            "undefined": 0 if d is None else len(d.undefined), "kendall_tau_b": None if math.isnan(tau) else tau,
        })  # fmt: skip
    return agreement


# --- JSON, records and CSV ------------------------------------------------------------------


def _clean(value):
    """JSON-safe: NaN becomes None."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def to_dict(result) -> dict:
    """The evaluation as a JSON-ready dict (:meth:`Evaluation.to_dict`, ``--format json``):
    ``classifiers`` in rank order, ``disagreements``, and ``pairs`` (with an error sd), plus
    the classes, the test set and the utility matrix used. Undefined scores are None."""
    u = result.utility
    utility = {"matrix": u.matrix.tolist(), "normalised": result.normalised_utility.tolist(), "form": u.describe()}
    if u.matrices is not None:
        utility["matrices"] = u.matrices.tolist()
        utility["probabilities"] = u.probabilities.tolist()
    document = {
        "description": result.description,
        "classes": list(result.classes),
        **({} if result.class_order is None else {"class_order": result.class_order}),
        "test_set": {
            "items": int(result.class_totals.sum()),
            "class_totals": {name: int(t) for name, t in zip(result.classes, result.class_totals)},
        },
        **({} if result.class_frequencies is None else {"class_frequencies": dict(result.class_frequencies)}),
        "utility": utility,
        "metrics": [{"id": mid, "name": name} for mid, name in result.metrics],
        "classifiers": [
            {
                "name": c.name,
                "rank": c.rank,
                "utility_yield": c.utility_yield,
                "scores": {k: _clean(v) for k, v in c.scores.items()},
                "ranks": dict(c.ranks),
                "confusion": c.confusion.astype(int).tolist(),
                **({} if c.utility_yield_interval is None else {"utility_yield_interval": list(c.utility_yield_interval)}),
                **({} if c.deployment_confusion is None else {"deployment_confusion": c.deployment_confusion.tolist()}),
            }
            for c in result.classifiers
        ],
        "disagreements": [
            {
                "metric": d.metric,
                "name": d.name,
                "flipped": [list(p) for p in d.flipped],
                "tied": [list(p) for p in d.tied],
                "undefined": [list(p) for p in d.undefined],
                "best": list(d.best),
            }
            for d in result.disagreements
        ],
        "metric_agreement": metric_agreement(result),
    }
    if result.test_uncertainty is not None:
        document["test_uncertainty"] = dict(result.test_uncertainty)
    if result.pairs is not None and u.sd is not None:
        utility["sd"] = u.sd
        utility["error"] = u.error
        # ``closed_form`` and ``monte_carlo`` are the deprecated names of ``estimator``'s two forms.
        if result.estimator == CONDITIONAL:
            settings = {"sd": u.sd, "error": u.error, "formula": FLIP_FORMULA, "exact": True}
            document["estimator"] = {"name": CONDITIONAL, **settings}
            document["closed_form"] = settings
        else:
            settings = {"sd": u.sd, "error": u.error, "samples": result.samples, "seed": result.seed}
            document["estimator"] = {"name": SAMPLE, **settings}
            document["monte_carlo"] = settings
    if result.pairs is not None:
        document["pairs"] = [
            {
                "better": p.better,
                "worse": p.worse,
                "utility_difference": p.utility_difference,
                "flip_probability": p.flip_probability,
                "standard_error": p.standard_error,
                "flips": p.flips,
                **(
                    {}
                    if result.test_uncertainty is None
                    else {
                        "flip_probability_test": _clean(p.flip_probability_test),
                        "flip_probability_test_se": _clean(p.flip_probability_test_se),
                        "flip_probability_both": _clean(p.flip_probability_both),
                        "flip_probability_both_se": _clean(p.flip_probability_both_se),
                    }
                ),
            }
            for p in result.pairs
        ]
    return document


def records(result) -> list[dict]:
    """One dict per classifier, in rank order: ``rank``, ``classifier``, ``utility_yield``,
    each metric's score (NaN where undefined) under its id and its rank under ``<id>_rank``
    (None where undefined) and, with the test-set uncertainty, ``utility_yield_low`` and
    ``utility_yield_high``: the CSV's first columns, under the same names."""
    metric_ids = [mid for mid, _ in result.metrics]
    rows = []
    for c in result.classifiers:
        row = {"rank": c.rank, "classifier": c.name, "utility_yield": c.utility_yield}
        row.update({mid: c.scores[mid] for mid in metric_ids})
        row.update({f"{mid}_rank": c.ranks[mid] for mid in metric_ids})
        if c.utility_yield_interval is not None:
            row["utility_yield_low"], row["utility_yield_high"] = map(float, c.utility_yield_interval)
        rows.append(row)
    return rows


def render_csv(result, *, comments: dict | None = None) -> str:
    """One row per classifier, in rank order: rank, name, utility yield, then each metric's
    score and rank, after ``# key: value`` lines for ``comments``. Disagreements are in the
    table and JSON formats. Names that a spreadsheet would read as formulas start with ``'``
    (:func:`csv_text`).

    With an error sd, more columns follow: the estimator (``estimator``: ``sample`` or
    ``conditional``, the study's names) and its settings (``estimator_sd``, ``estimator_error``
    and, for ``sample``, ``estimator_samples`` and ``estimator_seed``; the same on every row),
    then for every classifier ``B``, ``flip_probability_vs_B`` and, for ``sample``,
    ``standard_error_vs_B``: the probability that the utility ranking of the pair (this row's
    classifier, ``B``) flips, and its standard error; empty against itself and for pairs tied
    under the utility matrix. Deprecated: the same settings under their names before issue 22,
    ``monte_carlo_sd``, ``_error``, ``_samples``, ``_seed`` (``sample``) or ``closed_form_sd``,
    ``_error`` (``conditional``), still written.

    With the test-set uncertainty, the rows end with its settings (``test_prior_count``, a
    deprecated name of ``test_prior_mass``, the prior's total count; ``test_samples``,
    ``test_seed``, ``test_exact_pairs``: how many pairs' probabilities are exact), the yield's
    95 % interval (``utility_yield_low``, ``_high``), and for every classifier ``B``
    ``flip_probability_test_vs_B`` and its SE ``flip_probability_test_se_vs_B`` (empty where
    exact; with an sd, ``flip_probability_both_vs_B`` and its SE too).
    """
    from mcrank.results import csv_comments

    buffer = io.StringIO()
    buffer.write(csv_comments(comments or {}))
    writer = csv.writer(buffer, lineterminator="\n")
    metric_ids = [mid for mid, _ in result.metrics]
    header = ["rank", "classifier", "utility_yield", *metric_ids, *(f"{mid}_rank" for mid in metric_ids)]
    names = [c.name for c in result.classifiers]
    flips = {}
    exact = result.estimator == CONDITIONAL
    with_sd = result.pairs is not None and result.utility.sd is not None
    if with_sd:
        if exact:
            header += ["estimator", "estimator_sd", "estimator_error", "closed_form_sd", "closed_form_error",
                       *(f"flip_probability_vs_{name}" for name in names)]  # fmt: skip
        else:
            header += ["estimator", "estimator_sd", "estimator_error", "estimator_samples", "estimator_seed",
                       "monte_carlo_sd", "monte_carlo_error", "monte_carlo_samples", "monte_carlo_seed"]  # fmt: skip
            for name in names:
                header += [f"flip_probability_vs_{name}", f"standard_error_vs_{name}"]
    if result.pairs is not None:
        for p in result.pairs:
            flips[p.better, p.worse] = flips[p.worse, p.better] = p
    test = result.test_uncertainty
    both = test is not None and result.utility.sd is not None
    if test is not None:
        header += ["test_prior_count", "test_prior_mass", "test_samples", "test_seed", "test_exact_pairs", "utility_yield_low",
                   "utility_yield_high"]  # fmt: skip
        for name in names:
            header += [f"flip_probability_test_vs_{name}", f"flip_probability_test_se_vs_{name}"]
            if both:
                header += [f"flip_probability_both_vs_{name}", f"flip_probability_both_se_vs_{name}"]
    writer.writerow([csv_text(cell) for cell in header])
    for c in result.classifiers:
        scores = ["" if math.isnan(c.scores[m]) else repr(c.scores[m]) for m in metric_ids]
        ranks = ["" if c.ranks[m] is None else c.ranks[m] for m in metric_ids]
        row = [c.rank, csv_text(c.name), repr(c.utility_yield), *scores, *ranks]
        if with_sd:
            u = result.utility
            settings = [repr(u.sd), u.error] if exact else [repr(u.sd), u.error, result.samples, "" if result.seed is None else result.seed]
            row += [result.estimator, *settings, *settings]  # then again under the deprecated names
            for name in names:
                pair = flips.get((c.name, name))
                known = pair is not None and pair.flip_probability is not None
                row += [repr(pair.flip_probability) if known else ""]
                if not exact:
                    row += [repr(pair.standard_error) if known else ""]
        if test is not None:
            row += [repr(test["prior_count"]), repr(test["prior_mass"]), test["samples"], "" if test["seed"] is None else test["seed"],
                    test["exact_pairs"], *map(repr, c.utility_yield_interval)]  # fmt: skip
            for name in names:
                pair = flips.get((c.name, name))
                known = pair is not None and pair.flip_probability_test is not None
                values = [pair.flip_probability_test, pair.flip_probability_test_se] if known else [None, None]
                if both:
                    values += [pair.flip_probability_both, pair.flip_probability_both_se] if known else [None, None]
                row += ["" if v is None else repr(v) for v in values]
        writer.writerow(row)
    return buffer.getvalue()


# --- the text report ------------------------------------------------------------------------


def _wrap(text: str, width: int, indent: str = "", subsequent: str | None = None) -> list[str]:
    return textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent if subsequent is None else subsequent,
                         break_long_words=False, break_on_hyphens=False) or [indent.rstrip()]  # fmt: skip


def _more(shown: int, total: int, what: str) -> str:
    return f"and {total - shown} more {what} (all of them in the JSON output)" if total > shown else ""


def render_table(result, *, width: int = DEFAULT_WIDTH, cap: int = PAIR_LIST_CAP, details: bool = False) -> str:
    """The evaluation as text, within ``width`` characters a line where the names allow.

    It opens with the decision (:func:`decision_lines`), then the test set and the ranking by
    utility yield (with the test-set uncertainty, each yield's 95 % interval and the
    probability that each classifier is better than the next one down) and one line on the
    metrics that order a pair differently. With ``details``: the utility matrix, every
    metric's score and rank, their agreement with the utility yield, the pairs they order
    differently and the probabilities of every pair, each list of pairs cut after ``cap``.
    """
    width = max(40, int(width))
    names = {c.name: printable(c.name) for c in result.classifiers}
    name_width = max(12, width // _NAME_SHARE)
    shown = _shown_names(names, name_width)
    yield_format = column_format([c.utility_yield for c in result.classifiers], sign=True)
    lines = []
    for sentence in decision_lines(result, names):
        lines += _wrap(sentence, width, "", "  ")
    lines.append("")
    if details:
        return "\n".join(lines + _render_details(result, names, shown, yield_format, width, cap))
    if result.description:
        lines += _wrap(printable(" ".join(result.description.split())), width) + [""]
    lines += _render_test_set(result, width)
    lines += _render_short_ranking(result, shown, yield_format, width)
    return "\n".join(lines)


def _render_test_set(result, width) -> list[str]:
    classes, totals = [printable(c) for c in result.classes], result.class_totals
    class_list = ", ".join(f"{name} {int(t)}" for name, t in zip(classes, totals))
    lines = _wrap(f"Test set: {int(totals.sum())} items; true classes: {class_list}", width)
    if result.class_frequencies is not None:
        lines += _render_frequencies(result.class_frequencies, width)
    return lines + _wrap(class_header(classes, result.class_order), width)


def _pairs_by_name(result) -> dict:
    """Each untied pair under (better, worse)."""
    return {} if result.pairs is None else {(p.better, p.worse): p for p in result.pairs}


def _sources(result) -> list[tuple[str, str, str]]:
    """The flip probabilities the evaluation has, (attribute, phrase), the most complete last."""
    sources = []
    if result.pairs is not None and result.utility.sd is not None:
        sources.append(("flip_probability", f"under utility errors of sd {result.utility.sd:g}"))
    if result.test_uncertainty is not None:
        sources.append(("flip_probability_test", "given the test set"))
        if result.utility.sd is not None:
            sources.append(("flip_probability_both", f"given the test set and sd {result.utility.sd:g}"))
    return sources


def decision_lines(result, names: dict[str, str] | None = None) -> list[str]:
    """The report's first lines: the classifier to choose (the highest utility yield, the
    choice of maximal expected utility) and how sure it is, then the classifiers not separated
    from it, as sentences (unwrapped). Without the test-set uncertainty or an error sd, it says
    that the choice rests on the point yields and which options say how sure it is."""
    names = names or {c.name: printable(c.name) for c in result.classifiers}
    first = [c for c in result.classifiers if c.rank == 1]
    if len(result.classifiers) == 1:
        return [f"choose {names[first[0].name]}: the only classifier"]
    if len(first) > 1:
        return [f"no choice by utility yield: {', '.join(names[c.name] for c in first)} have the same, the highest"]
    chosen = first[0].name
    sources = _sources(result)
    if not sources:
        return [decision_sentence(names[chosen], POINT_YIELDS.format(options="--test-uncertainty, --sd SD"))]
    pairs = _pairs_by_name(result)
    attribute, phrase = sources[-1]
    against = [(c.name, 1 - getattr(pairs[chosen, c.name], attribute)) for c in result.classifiers[1:]]
    rival, over = min(against, key=lambda item: item[1])
    lead = decision_sentence(names[chosen], "the highest yield", names[rival], over, f" {phrase}")
    if result.test_uncertainty is None:
        lead += "; the test set's doubt: --test-uncertainty"
    lines = [lead]
    unseparated = [f"{names[name]} ({short_probability(p)})" for name, p in against if p < SEPARATED]
    if unseparated:
        lines.append(f"not separated from {names[chosen]} (P({names[chosen]} better) below {SEPARATED:g}): "
                     f"{', '.join(unseparated)}")  # fmt: skip
    else:
        lines.append(f"separated from every other classifier: P({names[chosen]} better) >= {SEPARATED:g} against each")
    return lines


def _render_short_ranking(result, shown, yield_format, width) -> list[str]:
    """The default ranking: rank, name, utility yield, with the test-set uncertainty its
    interval, with a flip probability the probability of being better than the next one down;
    then one line on the metrics that disagree."""
    classifiers = result.classifiers
    per = "per test item (eq. 9)" if result.class_frequencies is None else "per item in deployment (eq. 9, re-weighted)"
    columns = [("utility yield", [yield_format(c.utility_yield) for c in classifiers])]
    heading = f"Ranking by utility yield {per}"
    if result.test_uncertainty is not None:
        columns.append(("95% interval", [f"[{yield_format(low)}, {yield_format(high)}]" for low, high in
                                         (c.utility_yield_interval for c in classifiers)]))  # fmt: skip
        heading += ", its 95% interval given the test set"
    if sources := _sources(result):
        attribute, phrase = sources[-1]
        pairs = _pairs_by_name(result)
        cells = []
        for upper, lower in itertools.pairwise(classifiers):
            pair = pairs.get((upper.name, lower.name))
            cells.append("tied" if pair is None or getattr(pair, attribute) is None else short_probability(1 - getattr(pair, attribute)))
        columns.append(("P(above next)", cells + [""]))
        heading += f", and the probability that it is better than the next one down, {phrase}"
    name_width = max(len("classifier"), *(len(shown[c.name]) for c in classifiers))
    lead = [f"  {c.rank:>4}  {shown[c.name]:<{name_width}}" for c in classifiers]
    lines = [""] + _wrap(heading, width) + column_blocks(f"  {'rank':>4}  {'classifier':<{name_width}}", lead, columns, width)
    disagreeing = [f"{d.metric} ({len(d.flipped) + len(d.tied) + len(d.undefined)})" for d in result.disagreements]
    pairs = len(classifiers) * (len(classifiers) - 1) // 2
    verdict = (f"{len(disagreeing)} of {len(result.metrics)} metrics order pairs otherwise (how many of the {pairs}): "
               f"{', '.join(disagreeing)}." if disagreeing else
               f"Every metric ({len(result.metrics)}) orders these classifiers as the utility yield does.")  # fmt: skip
    return lines + [""] + _wrap(f"{verdict} Each metric's scores, the pairs and their probabilities: --details.", width)


def _render_details(result, names, shown, yield_format, width, cap) -> list[str]:
    """The report in full, after the decision."""
    lines = []
    if result.description:
        lines += _wrap(printable(" ".join(result.description.split())), width) + [""]
    classes = [printable(c) for c in result.classes]
    lines += _render_test_set(result, width)
    if len(classes) == 2:
        lines.append(f"Binary metrics take class 0, {classes[0]!r}, as positive.")
    lines += _render_utility(result.utility, classes, width)
    lines += _render_ranking(result, shown, yield_format, width)
    lines += _render_agreement(result, width)
    lines += _render_disagreements(result, names, width, cap)
    if result.test_uncertainty is not None:
        lines += _render_test_uncertainty(result, shown, yield_format, width, cap)
    if result.pairs is not None and result.utility.sd is not None:
        lines += _render_flips(result, shown, yield_format, width, cap)
    return lines


def _render_utility(u, classes, width) -> list[str]:
    number = column_format(u.matrix.ravel())
    cells = [[number(v) for v in row] for row in u.matrix]
    label_width = max(len(c) for c in classes)
    cell = max(max(len(c) for c in classes), *(len(v) for row in cells for v in row))
    lines = [""] + _wrap(f"Utility matrix, {u.describe()}:", width)
    lines.append("  " + " " * label_width + "".join(f"  {c:>{cell}}" for c in classes))
    lines += [f"  {name:<{label_width}}" + "".join(f"  {v:>{cell}}" for v in row) for name, row in zip(classes, cells)]
    return lines


def _score(value: float, rank) -> str:
    return "undefined" if math.isnan(value) else f"{value:.4f} ({rank})"


def _render_ranking(result, shown, yield_format, width) -> list[str]:
    """One row per classifier: rank, name, utility yield, then each metric's score (rank), in
    blocks of metric columns that fit ``width`` (rank and name repeated in each block)."""
    classifiers = result.classifiers
    disagreeing = {d.metric for d in result.disagreements}
    per = "per test item (eq. 9)" if result.class_frequencies is None else "per item in deployment (eq. 9, re-weighted)"
    name_width = max(len("classifier"), *(len(shown[c.name]) for c in classifiers))
    columns = [("utility yield", [yield_format(c.utility_yield) for c in classifiers])]
    for metric_id, _ in result.metrics:
        heading = metric_id + ("*" if metric_id in disagreeing else "")
        columns.append((heading, [_score(c.scores[metric_id], c.ranks[metric_id]) for c in classifiers]))
    lines = [""] + _wrap(f"Ranking by utility yield {per}, and the popular metrics' scores (rank); * = the metric's "
                         "ranking disagrees with the utility yield", width)  # fmt: skip
    lead = [f"  {c.rank:>4}  {shown[c.name]:<{name_width}}" for c in classifiers]
    return lines + column_blocks(f"  {'rank':>4}  {'classifier':<{name_width}}", lead, columns, width)


def column_blocks(lead_heading: str, lead: list[str], columns: list[tuple[str, list[str]]], width: int) -> list[str]:
    """A table of right-aligned ``columns`` (heading, cells), as many side by side as fit
    ``width``, the rest in further blocks below; each block starts with the rows' ``lead``
    (their key: rank and name, a threshold, ...) under ``lead_heading``."""
    lead_width = max(len(lead_heading), *map(len, lead))
    sized = [(heading, cells, max(len(heading), *map(len, cells))) for heading, cells in columns]
    blocks, block, used = [], [], lead_width
    for column in sized:
        if block and used + 2 + column[2] > width:
            blocks.append(block)
            block, used = [], lead_width
        block.append(column)
        used += 2 + column[2]
    blocks.append(block)
    lines = []
    for number, block in enumerate(blocks):
        lines += [""] if number else []
        lines.append((f"{lead_heading:<{lead_width}}" + "".join(f"  {h:>{w}}" for h, _, w in block)).rstrip())
        for k, key in enumerate(lead):
            lines.append((f"{key:<{lead_width}}" + "".join(f"  {cells[k]:>{w}}" for _, cells, w in block)).rstrip())
    return lines


def _render_agreement(result, width) -> list[str]:
    """Per metric, the pairs it orders against the utility yield, and Kendall's tau-b."""
    agreement = metric_agreement(result)
    pairs = agreement[0]["pairs"] if agreement else 0
    with_undefined = any(a["undefined"] for a in agreement)
    id_width = max(len("metric"), *(len(a["metric"]) for a in agreement))
    lines = [""] + _wrap(
        f"Each metric against the utility yield: of the {pairs} pair{'' if pairs == 1 else 's'}, those it orders the other way "
        "(reversed) or ties differently (tied)" + (", those it cannot score (undefined)" if with_undefined else "")
        + "; Kendall's tau-b of its ranking with the utility yield's (1: the same order, -1: reversed)",
        width,
    )  # fmt: skip
    counts = [("reversed", "reversed"), ("tied", "tied")] + ([("undefined", "undefined")] if with_undefined else [])
    count_width = max(len(str(pairs)), 4)
    head = f"  {'metric':<{id_width}}" + "".join(f"  {label:>{max(len(label), count_width)}}" for _, label in counts)
    lines.append(head + f"  {'tau-b':>5}  name")
    for a in agreement:
        tau = "-" if a["kendall_tau_b"] is None else f"{a['kendall_tau_b']:+.2f}"
        row = f"  {a['metric']:<{id_width}}" + "".join(f"  {a[key]:>{max(len(label), count_width)}}" for key, label in counts)
        row += f"  {tau:>5}  "
        lines.append(row + _cut(a["name"], max(12, width - len(row))))  # the id says which; the name in full in JSON
    return lines


def _render_disagreements(result, names, width, cap) -> list[str]:
    """Per metric that disagrees, the pairs it orders differently: at most ``cap`` of them."""
    lines = ["", "Pairs each metric orders differently from the utility yield"]
    if not result.disagreements:
        return lines + ["  none: every metric ranks these classifiers as the utility yield does"]
    best = {c.name for c in result.classifiers if c.rank == 1}
    by_name = {c.name: c for c in result.classifiers}
    for d in result.disagreements:
        parts = [f"{names[second]} above {names[first]}" for first, second in d.flipped[:cap]]
        for first, second in d.tied[: cap - len(parts)]:
            if by_name[first].rank == by_name[second].rank:
                above, below = sorted((first, second), key=lambda name: by_name[name].ranks[d.metric])
                parts.append(f"{names[above]} above {names[below]} (equal utility yield)")
            else:
                parts.append(f"{names[first]} level with {names[second]}")
        parts += [f"{names[first]} and {names[second]} not at all (undefined)" for first, second in d.undefined[: cap - len(parts)]]
        total = len(d.flipped) + len(d.tied) + len(d.undefined)
        if more := _more(len(parts), total, "pairs"):
            parts.append(more)
        best_names = " and ".join(names[name] for name in d.best[:cap]) + (f" and {len(d.best) - cap} more" if len(d.best) > cap else "")
        picks = f" (picks {best_names} as best)" if d.best and set(d.best) != best else ""
        lines += _wrap(f"{d.metric}{picks}: ranks " + "; ".join(parts), width, "  ", "    ")
    return lines


def _render_frequencies(f: dict, width: int) -> list[str]:
    """The class frequencies used, and the test set's own."""

    def listed(values):
        return ", ".join(f"{printable(name)} {value:.4g}" for name, value in values.items())

    if f["source"] == "given":
        used = f"Deployment class frequencies (given): {listed(f['deployment'])}"
    else:
        counts = ", ".join(f"{printable(name)} {value:g}" for name, value in f["counts"].items())
        used = (f"Deployment class frequencies, the posterior mean from the counts {counts} (Dirichlet, prior "
                f"{f['prior_per_class']:.4g} a class): {listed(f['deployment'])}")  # fmt: skip
    return _wrap(
        f"{used}; the test set's own: {listed(f['test_set'])}. Every confusion matrix is re-weighted column by column "
        "to the deployment's frequencies before the ranking, the metrics and the probabilities.",
        width,
    )


def _exact_note(t: dict, pairs: int) -> str:
    """Which of the ``pairs`` (untied) test-set flip probabilities are exact."""
    exact = t["exact_pairs"]
    if exact == 0:
        return ""
    if exact == pairs:
        return " The test-set probabilities are exact: a one-dimensional integral, no sampling."
    return f" {exact} of the {pairs} test-set probabilities are exact (a one-dimensional integral); those with ± are Monte Carlo."


def _listed_pairs(result, cap) -> list:
    """The pairs to list: all of them up to ``cap``; beyond, the neighbours in the ranking from
    the top (first and second, second and third, ...), ``cap`` of them."""
    pairs = result.pairs
    if len(pairs) <= cap:
        return list(pairs)
    order = [c.name for c in result.classifiers]
    neighbours = set(itertools.pairwise(order))
    return [p for p in pairs if (p.better, p.worse) in neighbours][:cap]


def _pairs_more(listed: int, total: int, width: int) -> list[str]:
    if total <= listed:
        return []
    return _wrap(f"the {listed} pairs of neighbours at the top of the ranking; and {total - listed} more pairs (all of them in "
                 "the JSON and CSV outputs)", width, "  ")  # fmt: skip


def _render_test_uncertainty(result, shown, yield_format, width, cap) -> list[str]:
    """The intervals and the pair table of the test-set uncertainty."""
    from mcrank.evaluate.uncertainty import EXACT_TOLERANCE

    t = result.test_uncertainty
    model = ("labels item by item: each pair's joint counts, the pairing of the items kept" if t["model"] == "labels" else
             "confusion matrices only: the classifiers' columns drawn independently, which ignores that they saw the same "
             "items and so overstates the doubt (conservative)")  # fmt: skip
    frequencies = result.class_frequencies
    deployment = ("" if frequencies is None else " The class frequencies are the deployment's" +
                  (", drawn from their Dirichlet in every draw." if frequencies["source"] == "counts" else ", fixed."))  # fmt: skip
    lines = [""] + _wrap(
        f"How sure the ranking is, given the test set of {int(result.class_totals.sum())} items: Bayesian, one Dirichlet "
        f"posterior over the test set's joint cells, with a prior of total count {t['prior_mass']:g} spread evenly over the "
        f"cells; {t['samples']} draws, seed {t['seed']}; from {model}.{deployment}"
        + _exact_note(t, sum(p.flip_probability_test is not None for p in result.pairs)),
        width,
    )
    if "note" in t:
        lines += _wrap(f"Note: {t['note']}; see how they move with another prior count (--prior-count, prior_count=).", width)
    name_width = max(len("classifier"), *(len(shown[c.name]) for c in result.classifiers))
    yields = [yield_format(c.utility_yield) for c in result.classifiers]
    intervals = [f"[{yield_format(low)}, {yield_format(high)}]" for low, high in (c.utility_yield_interval for c in result.classifiers)]
    yield_width = max(len("utility yield"), *map(len, yields))
    lines.append(f"  {'classifier':<{name_width}}  {'utility yield':>{yield_width}}  95% interval")
    for c, value, interval in zip(result.classifiers, yields, intervals):
        lines.append(f"  {shown[c.name]:<{name_width}}  {value:>{yield_width}}  {interval}")
    with_sd = result.utility.sd is not None
    under = "the test set's uncertainty" + (f", the utility errors (sd {result.utility.sd:g}) and both" if with_sd else "")
    lines += [""] + _wrap(f"Pairs: probability that the population order differs from the observed one, under {under}", width)
    if with_sd:  # an order is no surer under two doubts than under one: their spreads add
        lines += _wrap("both: the two drawn together; their spreads add, so it is nearer 1/2 than either alone", width)
    if not result.pairs:
        return lines + ["  no pairs: one classifier only"]
    listed = _listed_pairs(result, cap)
    labels = [f"{shown[p.better]} {'vs' if p.flip_probability_test is None else 'over'} {shown[p.worse]}" for p in listed]
    rows = []
    for p in listed:
        if p.flip_probability_test is None:
            rows.append(None)
            continue
        row = [probability_text(p.flip_probability_test, p.flip_probability_test_se, t["samples"], EXACT_TOLERANCE)]
        if with_sd:
            row += [probability_text(p.flip_probability, p.standard_error, result.samples),
                    probability_text(p.flip_probability_both, p.flip_probability_both_se, t["samples"])]  # fmt: skip
        rows.append(row)
    headings = ["test set"] + (["utility errors", "both"] if with_sd else [])
    widths = [max(len(h), *(len(r[k]) for r in rows if r is not None)) if any(rows) else len(h) for k, h in enumerate(headings)]
    pair_width = max(len("pair"), *map(len, labels))
    cells = lambda values: "".join(f"  {v:>{w}}" for v, w in zip(values, widths))  # noqa: E731
    stacked = 2 + pair_width + len(cells(headings)) > width  # long names: each pair's numbers on a line of their own
    for label, numbers in [("pair", cells(headings))] + [(label, "  tied: no order to doubt" if row is None else cells(row))
                                                         for label, row in zip(labels, rows)]:  # fmt: skip
        lines += [f"  {label}", "  " + numbers] if stacked else [f"  {label:<{pair_width}}" + numbers]
    return lines + _pairs_more(len(listed), len(result.pairs), width)


def _render_flips(result, shown, yield_format, width, cap) -> list[str]:
    """The flip probabilities under the utility's errors."""
    u = result.utility
    exact = result.estimator == CONDITIONAL
    how = ([f"conditional estimator, exact (closed form, no sampling): P(flip) = {FLIP_FORMULA}"] if exact
           else [f"sample estimator (Monte Carlo), {result.samples} samples, seed {result.seed}"])  # fmt: skip
    if len(how[0]) > width:
        how = how[0].split(": ", 1)
        how[0] += ":"
    lines = [""] + _wrap(f"Probability that the utility ranking of a pair flips under errors of sd {u.sd:g} ({u.error}) on the "
                         "normalised utility matrix (eq. 11), by the", width) + how  # fmt: skip
    if not result.pairs:
        return lines + ["  no pairs: one classifier only"]
    listed = _listed_pairs(result, cap)
    labels = [f"{shown[p.better]} {'vs' if p.flip_probability is None else 'over'} {shown[p.worse]}" for p in listed]
    pair_width = max(map(len, labels))
    differences = [yield_format(p.utility_difference) for p in listed]
    difference_width = max(map(len, differences))
    for label, difference, p in zip(labels, differences, listed):
        if p.flip_probability is None:
            verdict = "tied: no ranking to flip"
        else:
            shown_probability = probability_text(p.flip_probability, p.standard_error, result.samples)
            verdict = "P(flip) " + ("" if shown_probability.startswith("<") else "= ") + shown_probability
        line = f"  {label:<{pair_width}}  yield difference {difference:>{difference_width}}"
        # Long names: the numbers go on the next line rather than past the width.
        if len(line) + 2 + len(verdict) <= width:
            lines.append(f"{line}  {verdict}")
        elif len(line) <= width:
            lines += [line, f"    {verdict}"]
        else:
            lines += [f"  {label}", f"    yield difference {difference}  {verdict}"]
    return lines + _pairs_more(len(listed), len(result.pairs), width)


def heading(result) -> str:
    """The heading of the evaluation's section of an HTML page (:mod:`mcrank.evaluate.html_report`)."""
    return "Ranking by utility yield, beside the popular metrics"


def details(result) -> str:
    """The report in full, as ``--details`` prints it (:func:`render_table`)."""
    return render_table(result, details=True)


renders(Evaluation, text=render_table, details=details, dict=to_dict, records=records, metric_agreement=metric_agreement,
        heading=heading)  # fmt: skip
