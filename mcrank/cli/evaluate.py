"""``mcrank evaluate``: rank your classifiers by utility yield, and see where popular metrics mislead."""

from __future__ import annotations

import sys

from mcrank._signals import say
from mcrank.cli._common import (
    EVALUATE_FORMAT_BY_SUFFIX,
    UsageError,
    check_outputs,
    class_names,
    flagged_by,
    html_text,
    json_text,
    note,
    output_format,
    path_argument,
    terminal_width,
    write_output,
)

DESCRIPTION = (
    "Rank classifiers tested on the same test set by their utility yield per test item (eq. 9), beside the popular "
    "metrics, and show where these disagree. FILE holds confusion matrices (rows = output, columns = true class): JSON "
    '{"classifiers": {...}, "utility": [[...]]} or a CSV with the header classifier,output,true,count. Formats, options '
    "and output: docs/evaluate.md."
)


#: The formats of every mode of ``mcrank evaluate`` (``--format``).
FORMATS = ("table", "json", "csv", "html")


def add_parser(subparsers):
    # The flags are added when the parser is first used: they are generated from the options'
    # declarations (mcrank.evaluate.options), which other commands need not import.
    parser = subparsers.add_parser(
        "evaluate",
        help="rank your classifiers by utility yield; flag the metrics that disagree",
        description=DESCRIPTION,
        arguments=_add_arguments,
    )
    parser.set_defaults(handler=handler)
    return parser


def _add_arguments(parser) -> None:
    from mcrank.cli import _evaluate_options

    add = parser.add_argument
    add("file", type=path_argument, metavar="FILE", nargs="?", help="confusion matrices: a .json or .csv file")
    add("--labels", type=path_argument, metavar="FILE.csv", help="labels instead of FILE: a row per test item")
    add("--truth", metavar="NAME", help="the column of true classes (default: true)")
    add("--utility", type=path_argument, metavar="JSON-or-FILE", help="utility matrix, JSON or file; may give 'classes'")
    add("--classes", metavar="A,B,...", help="the class order of the utility's rows (decisions) and columns (true classes)")
    add("--orientation", metavar="NAME", help="of FILE's matrices: decision-by-class (rows = decision; default) or sklearn")
    # The options of the ranking, generated from their fields (mcrank.evaluate.options).
    _evaluate_options.add_arguments(add)
    add("--format", choices=FORMATS, help="default: from --out's extension, else table")
    add("--out", type=path_argument, metavar="PATH", help="write to PATH (atomically); -: stdout")
    add("--details", action="store_true", help="the full table: every metric, pair, probability, curve")
    add("--quiet", action="store_true", help="no progress bar, no 'wrote' line")
    # Scoring classifiers and decision curves (--scores): their options and handler in one block of their own.
    from mcrank.cli import _scores

    _scores.add_arguments(parser)
    # Model selection across cross-validation folds (--folds-column): a block of its own too.
    from mcrank.cli import _folds

    _folds.add_arguments(parser)
    # Probabilistic classifiers (--probabilities): a block of its own too.
    from mcrank.cli import _probabilities

    _probabilities.add_arguments(parser)


def handler(args) -> int:
    from mcrank.cli import _folds, _per_item, _probabilities
    from mcrank.cli._scores import check_scores_only

    if _probabilities.wanted(args):  # labels and class probabilities: a report of its own (mcrank.cli._probabilities)
        return _probabilities.handler(args)
    _probabilities.refuse_recalibration_alone(args)
    if not _folds.wanted(args):  # the comparison across folds refuses them in its own words
        check_scores_only(args)
    # Before the work, so that it does not end on an unwritable path; never over an input.
    check_outputs({"--out": args.out, "--plot": args.plot}, inputs=(args.file, args.labels, args.scores, args.utility))
    args.format = args.format or output_format(args.out, EVALUATE_FORMAT_BY_SUFFIX)
    if (per_item := _per_item.utility_of(args)) is not None:  # a utility per item: a report of its own
        return _per_item.handler(args, per_item)
    if _folds.wanted(args):  # labels with a fold column: a report of its own (mcrank.cli._folds)
        return _folds.handler(args)
    if args.scores is not None:  # labels and scores: a report of its own (mcrank.cli._scores)
        from mcrank.cli._scores import handler as scores_handler

        return scores_handler(args)
    from mcrank.cli._evaluate_options import options_of
    from mcrank.evaluate import evaluate_file

    if args.metrics is not None and args.file is None and args.labels is None and args.metrics[-1].lower().endswith((".json", ".csv")):
        raise UsageError(f"--metrics took {args.metrics[-1]} for a metric id: give FILE before --metrics, or end the list with --")
    if args.prior_count is not None and not (args.test_uncertainty or args.class_counts is not None):
        raise UsageError("--prior-count is the prior of --test-uncertainty (and of --class-counts)")
    if args.class_frequencies is not None and args.class_counts is not None:
        raise UsageError("give --class-frequencies or --class-counts, not both: the counts make the frequencies uncertain")
    options = options_of(args, progress=not args.quiet and sys.stderr.isatty())
    if (args.file is None) == (args.labels is None):
        raise UsageError("give one input: FILE (confusion matrices) or --labels FILE.csv (labels, one row per item)")
    if args.truth is not None and args.labels is None:
        raise UsageError("--truth names the column of true classes in a --labels file")
    try:
        result = _with_flags(
            evaluate_file,
            args.file if args.labels is None else args.labels,
            options,
            utility=args.utility,
            labels=args.labels is not None,
            truth="true" if args.truth is None else args.truth,
            classes=class_names(args.classes),
            orientation=args.orientation,
        )
        if args.estimator is not None and result.utility.sd is None:
            raise UsageError("--estimator says how the flip probabilities under an error sd are estimated: give --sd")
        given = [option for option, value in (("--samples", args.samples), ("--seed", args.seed)) if value is not None]
        if given and result.samples is None:  # nothing drawn: a seed a script always passes is no error
            why = ("the flip probabilities under gaussian errors are exact" if result.utility.sd is not None
                   else "no error sd and no --test-uncertainty")  # fmt: skip
            note(f"mcrank evaluate: note: {' and '.join(given)} not used: nothing is drawn ({why})")
        if args.format == "json":
            text = json_text({**result.to_dict(), **_made(args, result)})
        elif args.format == "csv":
            text = render_csv(result, comments=_made(args, result, csv=True))
        elif args.format == "html":
            text = html_text(result)
        else:
            text = render_table(result, width=terminal_width(args.out), details=args.details) + "\n"
    except MemoryError as error:
        # The Monte Carlo work space is bounded, but the results grow with the square of the
        # number of classifiers (one entry per pair). Rendered in full before anything is
        # printed, so that running out of memory leaves no half-written output.
        detail = f" ({error})" if str(error) else ""
        raise UsageError(f"not enough memory{detail}: there is one result per pair of classifiers") from None
    if write_output(text, args.out) is not None and not args.quiet:
        say(f"mcrank evaluate: wrote {args.out}")
    return 0


#: The library's parameters of the input that are flags here: its errors name the parameter, ours the flag.
_FLAGS = {"utility": "--utility", "truth": "--truth", "classes": "--classes", "orientation": "--orientation", "labels": "--labels"}


def _with_flags(function, *args, **kwargs):
    from mcrank.cli._evaluate_options import flags

    return flagged_by({**_FLAGS, **flags(), "seed": "--seed"})(function, *args, **kwargs)


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


def render_table(result, *, width: int = 80, details: bool = False) -> str:
    """The evaluation as text (:func:`mcrank.evaluate.report.render_table`)."""
    from mcrank.evaluate.report import render_table as render

    return render(result, width=width, details=details)


def render_csv(result, *, comments: dict | None = None) -> str:
    """The evaluation as CSV (:func:`mcrank.evaluate.report.render_csv`)."""
    from mcrank.evaluate.report import render_csv as render

    return render(result, comments=comments)
