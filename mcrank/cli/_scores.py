"""``mcrank evaluate --scores``: scoring classifiers and decision curves, one block of the CLI.

:func:`add_arguments` adds the options of this input to the ``evaluate`` parser, as one
argument group; :func:`handler` runs when ``--scores`` is given, before the other inputs are
looked at. It only parses, calls :mod:`mcrank.evaluate.scoring`,
:mod:`mcrank.evaluate.curves` and :mod:`mcrank.figures.decision_curves`, and prints
(``docs/evaluate.md``, "Scoring classifiers" and "Decision curves").
"""

from __future__ import annotations

import io
import json
import math
import sys
from pathlib import Path

from mcrank.cli._common import UsageError, class_names, flagged_by, path_argument, terminal_width, write_output

#: Figure formats of ``--plot``, by suffix.
PLOT_FORMATS = (".png", ".pdf", ".svg")
#: The library's parameters that are flags here: its errors name the parameter, ours the flag.
_FLAGS = {"thresholds": "--thresholds", "positive": "--positive", "folds": "--folds", "samples": "--samples",
          "prior_count": "--prior-count", "threshold_choice": "--threshold-choice", "truth": "--truth",
          "classes": "--classes"}  # fmt: skip
#: Options of the other inputs that mean nothing with --scores.
_OTHER_INPUTS = (("file", "FILE"), ("labels", "--labels"), ("sd", "--sd"), ("error", "--error"), ("metrics", "--metrics"),
                 ("class_frequencies", "--class-frequencies"), ("class_counts", "--class-counts"),
                 ("orientation", "--orientation"))  # fmt: skip


#: The options that only ``--scores`` reads: refused without it (:func:`check_scores_only`).
_SCORES_OPTIONS = {
    "--positive": {"metavar": "LABEL", "help": "the class the scores are for (default: the first of the classes)"},
    "--threshold-choice": {"choices": ("crossfit", "split", "test"), "help": "where the thresholds are chosen (crossfit)"},
    "--folds": {"metavar": "K", "help": "folds of crossfit (default 5)"},
    "--thresholds": {"metavar": "SPEC", "help": "START:STOP:STEP or P1,P2,... (default 0.01:0.99:0.01)"},
    "--plot": {"type": path_argument, "metavar": "OUT.png", "help": "decision-curve figure: .png, .pdf or .svg"},
}


def check_scores_only(args) -> None:
    """A UsageError for an option of ``--scores`` given without it: it would change nothing."""
    if args.scores is None:
        for flag in _SCORES_OPTIONS:
            if getattr(args, flag[2:].replace("-", "_")) is not None:
                raise UsageError(f"{flag} is an option of --scores, which is not given: it would change nothing")


def add_arguments(parser) -> None:
    """The options of ``--scores``, in one group of ``evaluate``'s help."""
    group = parser.add_argument_group(
        "scoring classifiers and decision curves",
        "--scores FILE.csv has a column 'true' and one of scores per model. With a 2x2 --utility the models are ranked "
        "at their best thresholds, beside AUC; without one, decision curves.",
    )
    group.add_argument("--scores", type=path_argument, metavar="FILE.csv", help="labels and scores instead of FILE")
    for flag, options in _SCORES_OPTIONS.items():
        group.add_argument(flag, **options)


def _thresholds(text: str | None):
    """``START:STOP:STEP`` (STOP included) or ``P1,P2,...`` as an array; None for the default."""
    import numpy as np

    if text is None:
        return None
    try:
        if ":" in text:
            parts = [float(p) for p in text.split(":")]
            if len(parts) != 3:
                raise UsageError(f"--thresholds {text}: give START:STOP:STEP or a list P1,P2,...")
            start, stop, step = parts
            if not step > 0 or not stop >= start:
                raise UsageError(f"--thresholds {text}: STEP must be positive and STOP at least START")
            count = round((stop - start) / step) + 1
            if count > 100_000 or abs(start + (count - 1) * step - stop) > 1e-9 * max(1.0, abs(stop)):
                raise UsageError(f"--thresholds {text}: STEP must lead from START to STOP in at most 100000 steps")
            # Rounded to 12 digits, so that 0.1 + 2 * 0.1 is 0.3, a threshold a score can equal.
            return np.round(start + step * np.arange(count), 12)
        return np.array([float(p) for p in text.split(",")])
    except ValueError:
        raise UsageError(f"--thresholds {text}: not numbers; give START:STOP:STEP or a list P1,P2,...") from None


_with_flags = flagged_by(_FLAGS, after_file=True)


def handler(args) -> int:
    """``mcrank evaluate --scores FILE.csv ...``."""
    import numpy as np

    from mcrank._validation import check_count
    from mcrank.evaluate import (
        MAX_SAMPLES,
        decision_curves,
        load_scores,
        rank_scoring,
        read_utility,
    )
    from mcrank.evaluate.curves import DEFAULT_BAND_SAMPLES
    from mcrank.evaluate.scoring import DEFAULT_FOLDS, DEFAULT_SCORING_SAMPLES, inverted_scores_note
    from mcrank.evaluate.uncertainty import DEFAULT_PRIOR_COUNT

    for attribute, flag in _OTHER_INPUTS:
        if getattr(args, attribute, None) is not None:
            raise UsageError(f"{flag} is not an option of --scores" if flag != "FILE" else "give one input: FILE, --labels or --scores")
    utility, utility_classes = None, None
    classes = class_names(args.classes)
    if args.utility is not None:
        assessment, utility_classes = read_utility(args.utility)
        if assessment.matrix.shape != (2, 2):
            n = len(assessment.matrix)
            raise UsageError(f"--utility: scoring classifiers take a 2x2 utility matrix (rows = decision, columns = true class, "
                             f"in class order), got {n}x{n}")  # fmt: skip
        if assessment.sd is not None:
            raise UsageError("--utility: an error sd is not used with --scores; give the matrix alone")
        utility = assessment.matrix
    if args.positive is None and classes is None and utility_classes is None:
        raise UsageError(
            "--scores: say which label is the positive class: --positive LABEL, or name the classes (--classes, or 'classes' in "
            "--utility; the first is positive)"
        )
    plot = None if args.plot is None else Path(args.plot)
    if plot is not None and plot.suffix.lower() not in PLOT_FORMATS:
        raise UsageError(f"--plot {args.plot}: give a file ending in {', '.join(PLOT_FORMATS)}")
    thresholds = _thresholds(args.thresholds)
    curves_wanted = utility is None or args.thresholds is not None or plot is not None
    if utility is None:
        for value, flag in ((args.threshold_choice, "--threshold-choice"), (args.folds, "--folds")):
            if value is not None:
                raise UsageError(f"{flag} chooses the thresholds of the ranking by --utility")
    if args.folds is not None and args.threshold_choice not in (None, "crossfit"):
        raise UsageError("--folds is for --threshold-choice crossfit")
    if args.prior_count is not None and not args.test_uncertainty:
        raise UsageError("--prior-count is the prior of --test-uncertainty")
    if args.prior_count is not None and not curves_wanted:
        raise UsageError("--prior-count is the prior of the decision curves' bands (--thresholds, --plot); the ranking's "
                         "posterior has its own, Jeffreys's on each model's cells")  # fmt: skip
    if args.format == "csv" and curves_wanted and utility is not None:
        raise UsageError("--format csv holds one table: the ranking (--utility) or the decision curves (--thresholds, --plot); "
                         "--format json holds both")  # fmt: skip
    random = (utility is not None and choice_given(args) != "test") or args.test_uncertainty
    if not random and (given := [flag for flag, value in (("--samples", args.samples), ("--seed", args.seed)) if value is not None]):
        # A seed a script always passes is no error: it is noted, and nothing is drawn.
        print(f"mcrank evaluate: note: {' and '.join(given)} not used: nothing is drawn (they set the split or folds of "
              "--threshold-choice and the bands of --test-uncertainty)", file=sys.stderr)  # fmt: skip
    given_samples = None if args.samples is None else check_count(args.samples, "--samples", maximum=MAX_SAMPLES)
    samples = DEFAULT_BAND_SAMPLES if given_samples is None else given_samples
    folds = DEFAULT_FOLDS if args.folds is None else check_count(args.folds, "--folds", minimum=2)
    choice = args.threshold_choice or "crossfit"
    seed = args.seed
    if seed is None and ((utility is not None and choice != "test") or args.test_uncertainty):
        seed = int(np.random.SeedSequence().entropy)  # fresh, and printed: the run can be repeated
    test_set = _with_flags(load_scores, args.scores, truth=args.truth or "true", positive=args.positive, classes=classes,
                           utility_classes=utility_classes)  # fmt: skip
    ranking = curves = None
    if utility is not None:
        ranking = _with_flags(rank_scoring, test_set, utility, threshold_choice=choice, folds=folds,
                              test_uncertainty=args.test_uncertainty,
                              samples=DEFAULT_SCORING_SAMPLES if given_samples is None else given_samples, rng=seed)  # fmt: skip
    if curves_wanted:
        curves = _with_flags(decision_curves, test_set, thresholds=thresholds, test_uncertainty=args.test_uncertainty,
                             prior_count=DEFAULT_PRIOR_COUNT if args.prior_count is None else args.prior_count,
                             samples=samples, rng=seed)  # fmt: skip
    if (note := inverted_scores_note(test_set)) is not None:  # after the work, which may still refuse the input
        print(f"mcrank evaluate: note: {note} (--positive)", file=sys.stderr)
    made = {"input": str(args.scores), **({"utility_input": args.utility} if args.utility is not None else {})}
    if args.format == "json":
        from mcrank.results import provenance

        payload = {"test_set": _test_set_dict(test_set)}
        if ranking is not None:
            payload["scoring"] = ranking.to_dict()
        if curves is not None:
            payload["decision_curves"] = curves.to_dict()
        text = json.dumps({**payload, **made, **provenance()}, indent=2) + "\n"
    elif args.format == "csv":
        text = _render_csv(test_set, ranking, curves, made)
    else:
        text = render_scores_table(test_set, ranking, curves, width=terminal_width(args.out), details=args.details)
    if plot is not None:
        _write_plot(curves, plot)
    if write_output(text, args.out) is not None and not args.quiet:
        print(f"mcrank evaluate: wrote {args.out}", file=sys.stderr)
    return 0


def choice_given(args) -> str:
    return args.threshold_choice or "crossfit"


def _test_set_dict(test_set) -> dict:
    positives = int(test_set.positive.sum())
    return {"items": test_set.items, "positive": test_set.classes[0], "negative": test_set.classes[1], "positives": positives,
            "negatives": test_set.items - positives, "models": list(test_set.scores)}  # fmt: skip


def _write_plot(curves, path: Path) -> None:
    from mcrank.figures._style import paper_style
    from mcrank.figures.decision_curves import decision_curve_figure
    from mcrank.results import atomic_write_bytes

    figure = decision_curve_figure(curves)
    buffer = io.BytesIO()
    with paper_style():
        figure.savefig(
            buffer, format=path.suffix.lower()[1:], **({"metadata": {"CreationDate": None}} if path.suffix.lower() == ".pdf" else {})
        )
    atomic_write_bytes(path, buffer.getvalue())


def render_scores_table(test_set, ranking, curves, *, width: int = 80, details: bool = False) -> str:
    """The report of ``--scores`` as text, within ``width`` characters a line, by the rules of
    the confusion-matrix report (:mod:`mcrank.evaluate.report`): names escaped and cut in the
    middle, one number format per column, columns in blocks that fit. With a ranking it opens
    with the choice and how sure it is (:func:`decision_line`); the pairs AUC orders otherwise
    and the decision curves' table follow with ``details`` (without a ranking the curves are
    the answer, and always printed)."""
    from mcrank.evaluate.report import _shown_names, _wrap, printable

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
        lines += _render_curves(curves, shown, width)
    elif curves is not None:
        lines += [""] + _wrap(f"Decision curves at {len(curves.thresholds)} thresholds: --details (all of them in the JSON and CSV "
                              "outputs)", width)  # fmt: skip
    return "\n".join(lines) + "\n"


def decision_line(ranking, names: dict[str, str], *, banded: bool = False) -> str:
    """The choice and how sure it is: P(best) and the probability of being above the closest
    rival where the ranking has a posterior, else that it rests on the point yields (and, when
    the decision curves are ``banded``, that their bands say how sure at each threshold)."""
    from mcrank.evaluate.report import POINT_YIELDS, decision_sentence

    chosen = ranking.models[0].name
    posterior = getattr(ranking, "posterior", None)
    if posterior is None:
        where = "the decision curves' bands (--details, --plot)" if banded else "--test-uncertainty"
        return decision_sentence(names[chosen], POINT_YIELDS.format(options=where))
    from mcrank.evaluate.report import short_probability

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
    from mcrank.evaluate.folds import SEPARATED
    from mcrank.evaluate.report import short_probability

    chosen = names[posterior.chosen]
    if not posterior.not_separated:
        return f"separated from every other model: P({chosen} above) >= {SEPARATED:g} or <= {1 - SEPARATED:g} against each"
    shown = ", ".join(f"{names[name]} ({short_probability(p)})" for name, p in posterior.not_separated)
    return f"not separated from {chosen} (no order reaches {SEPARATED:g}; P({chosen} above each) in brackets): {shown}"


def _render_ranking(ranking, shown, width, details) -> list[str]:
    from mcrank.evaluate.curve_scores import CURVE_SCORES
    from mcrank.evaluate.report import _wrap, column_blocks, column_format, printable, probability_text
    from mcrank.evaluate.targets import class_header

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


def _render_posterior(ranking, shown, width) -> list[str]:
    """The pairs' P(a above b) of the ranking's posterior, and how it was drawn."""
    from mcrank.evaluate.report import _wrap, column_blocks, probability_text

    posterior = ranking.posterior
    seed = "" if posterior.seed is None else f", seed {posterior.seed}"
    lines = [""] + _wrap(
        f"How sure the ranking is, given the test set of {ranking.items} items: the population yield of the thresholds "
        f"chosen here, Bayesian bootstrap over the {ranking.evaluated_items} evaluated items with a prior of total count "
        f"{posterior.prior_count:g} spread over the cells of (true class, every model's output) ({posterior.samples} "
        f"draws{seed}); 95% intervals of the yield per item, P(best) the probability of the highest yield (each with its "
        "Monte Carlo SE), and for each pair the probability that the one ranked above has the higher yield on the "
        "population",
        width,
    )
    if posterior.optimism is not None:
        shown_optimism = ", ".join(f"{shown[name]} {value:+.4f}" for name, value in posterior.optimism.items())
        lines += _wrap("The thresholds are chosen on the items they are scored on: the intervals and probabilities are "
                       f"corrected by each model's bootstrap optimism (subtracted): {shown_optimism}", width, "  ")  # fmt: skip
    pairs = list(posterior.probability_above.items())
    if not pairs:
        return lines
    labels = [f"{shown[a]} above {shown[b]}" for (a, b), _ in pairs]
    label_width = max(len("pair"), *map(len, labels))
    lead = [f"  {label:<{label_width}}" for label in labels]
    cells = [probability_text(p, se, posterior.samples) for _, (p, se) in pairs]
    return lines + column_blocks(f"  {'pair':<{label_width}}", lead, [("P(above)", cells)], width)


def _render_curves(curves, shown, width) -> list[str]:
    from mcrank.evaluate.report import _wrap, column_blocks, column_format, probability_text

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


def _render_csv(test_set, ranking, curves, made: dict) -> str:
    import csv

    from mcrank.evaluate.curve_scores import CURVE_SCORES
    from mcrank.evaluate.report import (
        csv_text,  # a name a spreadsheet would read as a formula starts with '
    )
    from mcrank.results import csv_comments, provenance

    buffer = io.StringIO()
    comments = {**made, "positive": test_set.classes[0], "negative": test_set.classes[1], "items": test_set.items}
    writer = csv.writer(buffer, lineterminator="\n")
    if ranking is not None:
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


def _probability_above(posterior, a: str, b: str) -> tuple:
    """P(a's yield above b's) and its SE, whichever of the two is ranked above; (None, None) for a = b."""
    if a == b:
        return None, None
    if (a, b) in posterior.probability_above:
        return posterior.probability_above[(a, b)]
    p, se = posterior.probability_above[(b, a)]
    return 1 - p, se
