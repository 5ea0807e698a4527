"""``mcrank evaluate``: rank your classifiers by utility yield, and see where popular metrics mislead."""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap

from mcrank.cli._common import UsageError, flag_names, metric_ids, path_argument, write_stdout

DESCRIPTION = """\
Rank classifiers tested on the same test set by their utility yield per test item (paper
eq. 9), and show each one's score and rank under the popular metrics (for two classes the
whole metric library, class 0 positive; for more, accuracy, balanced accuracy, macro and
micro F1, multi-class MCC and Cohen's kappa). Every metric whose ranking disagrees with the
utility yield is flagged, with the pairs it flips.

FILE is JSON, {"classifiers": {"A": [[27, 15], [23, 35]], ...}, "utility": ..., "classes":
[...], "description": "..."}, or a long-form CSV with the header classifier,output,true,count.
Confusion matrices hold counts with rows = classifier output and columns = true class (the
transpose of scikit-learn's confusion_matrix). In a CSV, output and true are class names or
indices 0..n-1; with names, --utility must give their order, {"utility": [[...]], "classes":
[...]}, as JSON text or a file (the rows of a CSV come in any order).

--labels FILE.csv reads labels instead, one row per test item: a column 'true' (or the one
named by --truth) and one column of outputs per classifier, each cell a class name. It needs
--utility; the class order is that of the utility's 'classes', else of the sorted labels
(numerically if all are integers), and the report says which.

The utility matrix (in the file, or --utility, which overrides it) is one matrix [[...]];
{"matrices": [...], "probabilities": [...]}, a distribution ranked by its expected matrix
(eq. 17); or {"matrix": [[...]], "sd": S, "error": "gaussian"}, a matrix with an error
standard deviation. With an sd (from the utility or --sd), each pair gets the probability
that its ranking flips under such errors: a perturbed matrix does not put the better
classifier strictly ahead. The sd is in units of the utility matrix normalised by eq. (11)
to minimum 0 and maximum 1: the matrix is normalised before it is perturbed. Under gaussian
errors the probability is exact, Phi(-d / (sd ||C_A - C_B||_F)), with d the pair's yield
difference and C its confusion matrices as fractions of the test set, all normalised; under
truncated ones it is estimated by Monte Carlo (--samples, --seed). The truncated model keeps utilities within [0, 1], which
pushes elements at 0 or 1 inwards: its perturbed matrices are not centred on the given one.

--class-frequencies p1,p2,... ranks for the class frequencies of the deployment rather than the
test set's (paper §6): each confusion matrix is re-weighted column by column, C'_ij = C_ij /
sum_i C_ij * p_j. --class-counts k1,k2,... gives counts of a registry instead: uncertain
frequencies, Dirichlet(counts + prior), ranked by their mean and drawn by --test-uncertainty.

Ties: with whole-number utilities (and max|U| times the number of test items at most 2**53)
yields are exact and compared exactly; otherwise total utilities within 1e-12 of max|U|
times the number of items tie, to absorb rounding (0.1 + 0.2 != 0.3). Metric scores tie
within 1e-12 of max(1, |a|, |b|). Input files are at most 64 MiB.
"""


def add_parser(subparsers):
    from mcrank.error_models import ERROR_MODELS

    parser = subparsers.add_parser(
        "evaluate",
        help="rank your classifiers by utility yield; flag the metrics that disagree",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "file", type=path_argument, metavar="FILE", nargs="?", help="confusion matrices: a .json or .csv file"
    )
    parser.add_argument(
        "--labels",
        type=path_argument,
        metavar="FILE.csv",
        help="instead of FILE, labels: one row per test item, a column 'true' and one per classifier; needs --utility",
    )
    parser.add_argument("--truth", metavar="NAME", help="with --labels, the column of true classes (default: true)")
    parser.add_argument(
        "--utility",
        type=path_argument,
        metavar="JSON-or-FILE",
        help="the utility matrix as JSON text or a JSON file (overrides the file's); a file may also give 'classes'",
    )
    parser.add_argument(
        "--sd",
        metavar="SD",
        help="error sd of the utility matrix, in units of the matrix normalised by eq. (11) (min 0, max 1)",
    )
    parser.add_argument(
        "--error",
        choices=tuple(ERROR_MODELS),
        help="error model for --sd: gaussian (default), or truncated to 0 <= U' <= 1 with correct "
        "classification best in each column",
    )
    parser.add_argument(
        "--estimator",
        choices=("conditional", "sample"),
        help="how the flip probabilities under --sd are estimated, in the study's words: conditional (exact; the default "
        "under gaussian errors) or sample (Monte Carlo, --samples, --seed; the only one under truncated errors)",
    )
    parser.add_argument(
        "--test-uncertainty",
        action="store_true",
        help="say how sure the ranking is given the finite test set: a 95%% posterior interval of each yield and, for each "
        "pair, the probability that its population order differs (with --sd: under both uncertainties too)",
    )
    parser.add_argument(
        "--prior-count",
        metavar="C",
        help="total count of the Dirichlet prior of --test-uncertainty (and --class-counts), spread evenly over the cells: "
        "the weight of C test items (default 1)",
    )
    parser.add_argument(
        "--class-frequencies",
        metavar="P1,P2,...",
        help="class frequencies of the deployment, one per class in class order, summing to 1 (within 1e-6): each confusion "
        "matrix is re-weighted column by column to them before the ranking, the metrics and the probabilities",
    )
    parser.add_argument(
        "--class-counts",
        metavar="K1,K2,...",
        help="instead of --class-frequencies, counts of the classes in deployment (e.g. from a registry): the frequencies "
        "are uncertain, Dirichlet(counts + prior); ranked by their posterior mean, drawn by --test-uncertainty",
    )
    parser.add_argument("--samples", metavar="N", help="Monte Carlo samples, e.g. 1e6 (default: 100000); with --error truncated or --test-uncertainty")
    parser.add_argument("--seed", type=int, help="seed of the Monte Carlo estimate (default: fresh, and printed); with --error truncated or --test-uncertainty")
    parser.add_argument("--metrics", metavar="LIST", help="comma-separated metric ids to report (default: all)")
    parser.add_argument(
        "--format", choices=("table", "json", "csv"), default="table", help="output format (default: table)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar (shown on a terminal with an error sd)")
    # Scoring classifiers and decision curves (--scores): their options and handler in one block of their own.
    from mcrank.cli import _scores

    _scores.add_arguments(parser)
    parser.set_defaults(handler=handler)
    return parser


def handler(args) -> int:
    if args.scores is not None:  # labels and scores: a report of its own (mcrank.cli._scores)
        from mcrank.cli._scores import handler as scores_handler

        return scores_handler(args)
    from mcrank._validation import check_count, check_positive
    from mcrank.evaluate import DEFAULT_SAMPLES, MAX_SAMPLES, evaluate_file
    from mcrank.evaluate.uncertainty import DEFAULT_PRIOR_COUNT

    # Checked here rather than by argparse types, so that the messages are the package's own.
    sd = None if args.sd is None else check_positive(args.sd, "--sd")
    samples = DEFAULT_SAMPLES if args.samples is None else check_count(args.samples, "--samples", maximum=MAX_SAMPLES)
    metrics = None if args.metrics is None else metric_ids([args.metrics])
    if args.prior_count is not None and not (args.test_uncertainty or args.class_counts is not None):
        raise UsageError("--prior-count is the prior of --test-uncertainty (and of --class-counts)")
    prior_count = DEFAULT_PRIOR_COUNT if args.prior_count is None else check_positive(args.prior_count, "--prior-count")
    frequencies, counts = _numbers(args.class_frequencies, "--class-frequencies"), _numbers(args.class_counts, "--class-counts")
    if frequencies is not None and counts is not None:
        raise UsageError("give --class-frequencies or --class-counts, not both: the counts make the frequencies uncertain")
    if (args.file is None) == (args.labels is None):
        raise UsageError("give one input: FILE (confusion matrices) or --labels FILE.csv (labels, one row per item)")
    if args.truth is not None and args.labels is None:
        raise UsageError("--truth names the column of true classes in a --labels file")
    try:
        result = _with_flags(
            evaluate_file,
            args.file if args.labels is None else args.labels,
            utility=args.utility,
            labels=args.labels is not None,
            truth="true" if args.truth is None else args.truth,
            test_uncertainty=args.test_uncertainty,
            prior_count=prior_count,
            class_frequencies=frequencies,
            class_counts=counts,
            sd=sd,
            error=args.error,
            estimator=args.estimator,
            samples=samples,
            rng=args.seed,
            metrics=metrics,
            progress=not args.quiet and sys.stderr.isatty(),
        )
        given = [option for option, value in (("--samples", args.samples), ("--seed", args.seed)) if value is not None]
        sets = f"{' and '.join(given)} set{'s' if len(given) == 1 else ''} the Monte Carlo estimate of the flip probabilities"
        if given and result.utility.sd is None and not args.test_uncertainty:  # as --error without an sd: not silently ignored
            raise UsageError(f"{sets}, which needs an error sd: --sd, or an 'sd' in the utility (or --test-uncertainty)")
        if given and result.samples is None:
            raise UsageError(f"{sets}, but under gaussian errors they are exact (closed form); Monte Carlo is for --error truncated, "
                             "--estimator sample or --test-uncertainty")  # fmt: skip
        if args.estimator is not None and result.utility.sd is None:
            raise UsageError("--estimator says how the flip probabilities under an error sd are estimated: give --sd")
        if args.format == "json":
            text = json.dumps({**result.to_dict(), **_made(args, result)}, indent=2) + "\n"
        elif args.format == "csv":
            text = render_csv(result, comments=_made(args, result, csv=True))
        else:
            text = render_table(result) + "\n"
    except MemoryError as error:
        # The Monte Carlo work space is bounded, but the results grow with the square of the
        # number of classifiers (one entry per pair). Rendered in full before anything is
        # printed, so that running out of memory leaves no half-written output.
        detail = f" ({error})" if str(error) else ""
        raise UsageError(f"not enough memory{detail}: there is one result per pair of classifiers") from None
    write_stdout(text)
    return 0


#: The library's parameters that are flags here: its errors name the parameter, ours the flag.
_FLAGS = {"class_frequencies": "--class-frequencies", "class_counts": "--class-counts", "estimator": "--estimator",
          "utility": "--utility", "truth": "--truth", "classes": "--utility"}  # fmt: skip


def _with_flags(function, *args, **kwargs):
    """``function(*args, **kwargs)``, with a ValueError's parameters named as their flags
    (:data:`_FLAGS`, :func:`mcrank.cli._common.flag_names`)."""
    try:
        return function(*args, **kwargs)
    except ValueError as error:
        message = str(error)
        if (flagged := flag_names(message, _FLAGS)) != message:
            raise UsageError(flagged) from None
        raise


def _numbers(text: str | None, flag: str) -> list[float] | None:
    """A comma-separated list of numbers, ``0.01,0.99``; checked further by the library."""
    if text is None:
        return None
    numbers = []
    for item in text.split(","):
        try:
            numbers.append(float(item))
        except ValueError:
            raise UsageError(f"{flag}: {item.strip()!r} is not a number; give one number per class, separated by commas") from None
    return numbers


def _made(args, result, *, csv: bool = False) -> dict:
    """How an output was made, as ``run`` and ``reproduce`` say it: the input file, then
    :func:`mcrank.results.provenance` (versions, Python, platform, source revision, date).
    A CSV, whose rows hold no utility matrix, also gets the classes and the matrix used."""
    from mcrank.results import provenance

    made = {"input": str(args.file if args.labels is None else args.labels)}
    if args.utility is not None:
        made["utility_input"] = args.utility  # a file, or the JSON text itself
    if csv:
        if result.description is not None:
            made["description"] = result.description
        if result.class_order is not None:
            made["class_order"] = result.class_order
        made.update(classes=list(result.classes), utility=result.utility.matrix.tolist(), utility_form=result.utility.describe())
        if result.class_frequencies is not None:
            f = result.class_frequencies
            made.update(class_frequencies=f["deployment"], class_frequencies_source=f["source"],
                        test_set_class_frequencies=f["test_set"], **({"class_counts": f["counts"]} if "counts" in f else {}))  # fmt: skip
    made.update(provenance())
    return made


def _number(value: float) -> str:
    return f"{value:g}"


def _score(value: float, rank) -> str:
    return "undefined" if math.isnan(value) else f"{value:.4f} ({rank})"


def render_table(result) -> str:
    """The evaluation as text: test set, utility matrix, ranking, metrics, disagreements, pairs."""
    lines = []
    if result.description:
        lines += textwrap.wrap(result.description, width=100) + [""]
    classes, totals = result.classes, result.class_totals
    class_list = ", ".join(f"{name} {int(t)}" for name, t in zip(classes, totals))
    lines.append(f"Test set: {int(totals.sum())} items; true classes: {class_list}")
    if result.class_frequencies is not None:
        lines += _render_frequencies(result.class_frequencies)
    if result.class_order is not None:
        lines.append(
            "Class order: the utility's classes."
            if result.class_order == "utility"
            else "Class order: the sorted labels (the utility names no classes)."
        )
    if len(classes) == 2:
        lines.append(f"Binary metrics take class 0, {classes[0]!r}, as positive.")
    u = result.utility
    lines += ["", f"Utility matrix, {u.describe()} (rows = output, columns = true class):"]
    label_width = max(len(c) for c in classes)
    cells = [[_number(v) for v in row] for row in u.matrix]
    width = max(max(len(c) for c in classes), *(len(v) for row in cells for v in row))
    lines.append("  " + " " * label_width + "".join(f"  {c:>{width}}" for c in classes))
    for name, row in zip(classes, cells):
        lines.append(f"  {name:<{label_width}}" + "".join(f"  {v:>{width}}" for v in row))

    names = [c.name for c in result.classifiers]
    name_width = max(len("classifier"), *(len(n) for n in names))
    per = "per test item (eq. 9)" if result.class_frequencies is None else "per item in deployment (eq. 9, re-weighted)"
    lines += ["", f"Ranking by utility yield {per}"]
    lines.append(f"  rank  {'classifier':<{name_width}}  utility yield")
    for c in result.classifiers:
        lines.append(f"  {c.rank:>4}  {c.name:<{name_width}}  {c.utility_yield:+13.6g}")

    disagreeing = {d.metric for d in result.disagreements}
    metric_width = max(len(name) for _, name in result.metrics)
    column = max(11, *(len(n) for n in names))
    lines += ["", "Popular metrics: score (rank); * = ranking disagrees with the utility yield"]
    lines.append(f"  {'':<{metric_width}}" + "".join(f"  {n:>{column}}" for n in names))
    for metric_id, metric_name in result.metrics:
        scores = "".join(f"  {_score(c.scores[metric_id], c.ranks[metric_id]):>{column}}" for c in result.classifiers)
        flag = "  *" if metric_id in disagreeing else ""
        lines.append(f"  {metric_name:<{metric_width}}{scores}{flag}")

    lines += ["", "Metrics whose ranking disagrees with the utility yield"]
    if not result.disagreements:
        lines.append("  none: every metric ranks these classifiers as the utility yield does")
    best = {c.name for c in result.classifiers if c.rank == 1}
    by_name = {c.name: c for c in result.classifiers}
    for d in result.disagreements:
        parts = [f"{second} above {first}" for first, second in d.flipped]
        for first, second in d.tied:
            if by_name[first].rank == by_name[second].rank:
                above, below = sorted((first, second), key=lambda name: by_name[name].ranks[d.metric])
                parts.append(f"{above} above {below} (equal utility yield)")
            else:
                parts.append(f"{first} level with {second}")
        parts += [f"{first} and {second} not at all (undefined)" for first, second in d.undefined]
        picks = f" (picks {' and '.join(d.best)} as best)" if d.best and set(d.best) != best else ""
        lines.append(f"  {d.metric}{picks}: ranks " + "; ".join(parts))

    if result.test_uncertainty is not None:
        lines += _render_test_uncertainty(result)
    if result.pairs is not None and u.sd is not None:
        from mcrank.evaluate.ranking import CONDITIONAL, FLIP_FORMULA

        exact = result.estimator == CONDITIONAL
        how = (f"conditional estimator, exact (closed form, no sampling): {FLIP_FORMULA}" if exact
               else f"sample estimator (Monte Carlo), {result.samples} samples, seed {result.seed}")
        lines += [
            "",
            f"Probability that the utility ranking of a pair flips under errors of sd {u.sd:g} ({u.error}) on the",
            f"normalised utility matrix (eq. 11); {how}",
        ]
        if not result.pairs:
            lines.append("  no pairs: one classifier only")
        labels = [f"{p.better} {'vs' if p.flip_probability is None else 'over'} {p.worse}" for p in result.pairs]
        pair_width = max(map(len, labels), default=0)
        difference_width = max((len(f"{p.utility_difference:+.6g}") for p in result.pairs), default=0)
        for label, p in zip(labels, result.pairs):
            if p.flip_probability is None:
                verdict = "tied under the utility matrix: no ranking to flip"
            elif exact:
                f = p.flip_probability
                verdict = f"P(flip) = {f:.4f}" if f >= 1e-4 or f == 0 else f"P(flip) = {f:.2g}"
            elif p.flips == 0:
                verdict = f"P(flip) = 0 (none of {result.samples}; below {3 / result.samples:.1g} at 95%)"
            else:
                verdict = f"P(flip) = {p.flip_probability:.4f} ± {p.standard_error:.4f}"
            difference = f"{p.utility_difference:+.6g}"
            lines.append(f"  {label:<{pair_width}}  yield difference {difference:>{difference_width}}  {verdict}")
    return "\n".join(lines)


def _render_frequencies(f: dict) -> list[str]:
    """The class frequencies used, and the test set's own."""
    def listed(values):
        return ", ".join(f"{name} {value:.4g}" for name, value in values.items())

    if f["source"] == "given":
        used = f"Deployment class frequencies (given): {listed(f['deployment'])}"
    else:
        counts = ", ".join(f"{name} {value:g}" for name, value in f["counts"].items())
        used = (f"Deployment class frequencies, the posterior mean from the counts {counts} (Dirichlet, prior "
                f"{f['prior_per_class']:.4g} a class): {listed(f['deployment'])}")  # fmt: skip
    return textwrap.wrap(
        f"{used}; the test set's own: {listed(f['test_set'])}. Every confusion matrix is re-weighted column by column "
        "to the deployment's frequencies before the ranking, the metrics and the probabilities.",
        width=100,
    )


def _probability(value, se, samples=None, accuracy=None) -> str:
    """A probability: exact (``se`` None) to 4 decimals or 2 significant digits below 1e-4
    (as a bound below its absolute ``accuracy``, if given); estimated with its SE, or as a
    bound when no draw flipped."""
    if value is None:
        return "-"
    if se is None and accuracy is not None and 0 < value < 10 * accuracy:
        return f"below {10 * accuracy:.0e}"
    if se is None:
        return f"{value:.4f}" if value >= 1e-4 or value == 0 else f"{value:.2g}"
    if value == 0:
        return f"0 (none of {samples}; below {3 / samples:.1g} at 95%)"
    return f"{value:.4f} ± {se:.4f}"


def _exact_note(t: dict, pairs: int) -> str:
    """Which of the ``pairs`` (untied) test-set flip probabilities are exact."""
    exact = t["exact_pairs"]
    if exact == 0:
        return ""
    if exact == pairs:
        return " The test-set probabilities are exact: a one-dimensional integral, no sampling."
    return f" {exact} of the {pairs} test-set probabilities are exact (a one-dimensional integral); those with ± are Monte Carlo."


def _render_test_uncertainty(result) -> list[str]:
    """The intervals and the pair table of the test-set uncertainty."""
    from mcrank.evaluate.uncertainty import EXACT_TOLERANCE
    t = result.test_uncertainty
    model = ("labels item by item: each pair's joint counts, the pairing of the items kept" if t["model"] == "labels" else
             "confusion matrices only: the classifiers' columns drawn independently, which ignores that they saw the same "
             "items and so overstates the doubt (conservative)")  # fmt: skip
    names = [c.name for c in result.classifiers]
    width = max(len("classifier"), *(len(n) for n in names))
    frequencies = result.class_frequencies
    deployment = ("" if frequencies is None else " The class frequencies are the deployment's" +
                  (", drawn from their Dirichlet in every draw." if frequencies["source"] == "counts" else ", fixed."))  # fmt: skip
    lines = [""] + textwrap.wrap(
        f"How sure the ranking is, given the test set of {int(result.class_totals.sum())} items: Bayesian, one Dirichlet "
        f"posterior over the test set's joint cells, with a prior of total count {t['prior_mass']:g} spread evenly over the "
        f"cells; {t['samples']} draws, seed {t['seed']}; from {model}.{deployment}"
        + _exact_note(t, sum(p.flip_probability_test is not None for p in result.pairs)),
        width=100,
    )
    if "note" in t:
        lines += textwrap.wrap(f"Note: {t['note']}; see how they move with --prior-count.", width=100)
    lines.append(f"  {'classifier':<{width}}  utility yield  95% interval")
    for c in result.classifiers:
        low, high = c.utility_yield_interval
        lines.append(f"  {c.name:<{width}}  {c.utility_yield:+13.6g}  [{low:+.6g}, {high:+.6g}]")
    with_sd = result.utility.sd is not None
    under = "the test set's uncertainty" + (f", the utility errors (sd {result.utility.sd:g}) and both" if with_sd else "")
    lines += ["", f"Pairs: probability that the population order differs from the observed one, under {under}"]
    if not result.pairs:
        lines.append("  no pairs: one classifier only")
    labels = [f"{p.better} {'vs' if p.flip_probability_test is None else 'over'} {p.worse}" for p in result.pairs]
    pair_width = max(map(len, labels), default=0)
    for label, p in zip(labels, result.pairs):
        if p.flip_probability_test is None:
            lines.append(f"  {label:<{pair_width}}  tied: equal observed yields, no order to doubt")
            continue
        text = f"test set {_probability(p.flip_probability_test, p.flip_probability_test_se, t['samples'], EXACT_TOLERANCE)}"
        if with_sd:
            text += (f"; utility errors {_probability(p.flip_probability, p.standard_error, result.samples)}"
                     f"; both {_probability(p.flip_probability_both, p.flip_probability_both_se, t['samples'])}")  # fmt: skip
        lines.append(f"  {label:<{pair_width}}  {text}")
    return lines


def render_csv(result, *, comments: dict | None = None) -> str:
    """One row per classifier, in rank order: rank, name, utility yield, then each metric's
    score and rank, after ``# key: value`` lines for ``comments``. Disagreements are in the
    table and JSON formats.

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
    deprecated name of ``test_prior_mass``, the prior's total count; ``test_samples``, ``test_seed``, ``test_exact_pairs``: how many pairs' probabilities are
    exact), the yield's 95 % interval (``utility_yield_low``, ``_high``), and for every
    classifier ``B`` ``flip_probability_test_vs_B`` and its SE ``flip_probability_test_se_vs_B``
    (empty where exact; with an sd, ``flip_probability_both_vs_B`` and its SE too).
    """
    from mcrank.evaluate.ranking import CONDITIONAL

    import csv
    import io

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
    writer.writerow(header)
    for c in result.classifiers:
        scores = ["" if math.isnan(c.scores[m]) else repr(c.scores[m]) for m in metric_ids]
        ranks = ["" if c.ranks[m] is None else c.ranks[m] for m in metric_ids]
        row = [c.rank, c.name, repr(c.utility_yield), *scores, *ranks]
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
                    test["exact_pairs"],
                    *map(repr, c.utility_yield_interval)]  # fmt: skip
            for name in names:
                pair = flips.get((c.name, name))
                known = pair is not None and pair.flip_probability_test is not None
                values = [pair.flip_probability_test, pair.flip_probability_test_se] if known else [None, None]
                if both:
                    values += [pair.flip_probability_both, pair.flip_probability_both_se] if known else [None, None]
                row += ["" if v is None else repr(v) for v in values]
        writer.writerow(row)
    return buffer.getvalue()
