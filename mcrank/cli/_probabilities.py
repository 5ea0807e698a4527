"""``mcrank evaluate --probabilities FILE.csv``: probabilistic classifiers, one block of the CLI.

:func:`add_arguments` adds the options of this input to the ``evaluate`` parser, as one argument
group; :func:`handler` runs when ``--probabilities`` is given, before the other inputs are looked
at. It only parses, calls :func:`mcrank.evaluate.probabilities.load_probabilities` and
:func:`~mcrank.evaluate.probabilities.rank_probabilities`, and picks the format of
:mod:`mcrank.evaluate.probabilities_report` (``docs/probabilities.md``).
"""

from __future__ import annotations

from mcrank._signals import say
from mcrank.cli._common import UsageError, check_outputs, class_names, flagged_by, html_text, path_argument, terminal_width, write_output
from mcrank.cli._common import note as note_later

#: The library's parameters that are flags here: its errors name the parameter, ours the flag.
_FLAGS = {"positive": "--positive", "classes": "--classes", "truth": "--truth", "utility": "--utility", "folds": "--folds",
          "recalibration": "--recalibration", "samples": "--samples", "prior_count": "--prior-count", "seed": "--seed"}  # fmt: skip
#: Options of the other inputs, which mean nothing here, by their attribute.
_NOT_HERE = (("file", "FILE"), ("labels", "--labels"), ("scores", "--scores"), ("orientation", "--orientation"),
             ("threshold_choice", "--threshold-choice"), ("thresholds", "--thresholds"), ("plot", "--plot"),
             ("folds_column", "--folds-column"), ("repeats", "--repeats"), ("rope", "--rope"))  # fmt: skip
#: The options of the ranking (:class:`mcrank.evaluate.EvaluateOptions`'s flags) read here.
_READ = ("test_uncertainty", "prior_count", "samples", "rng")
#: ``--recalibration``'s choices: the library's, and none.
RECALIBRATION_CHOICES = ("platt", "isotonic", "none")

_with_flags = flagged_by(_FLAGS, after_file=True)


def add_arguments(parser) -> None:
    """The options of ``--probabilities``, in one group of ``evaluate``'s help."""
    group = parser.add_argument_group(
        "probabilistic classifiers",
        "--probabilities FILE.csv has a column 'true' and, for 2 classes, one column per model (the --positive class's "
        "probability), or one per model and class, MODEL:CLASS. The models are ranked by the yield of their expected-utility "
        "decisions under --utility, beside the Brier score and the log loss.",
    )
    group.add_argument("--probabilities", type=path_argument, metavar="FILE.csv", help="labels and class probabilities instead of FILE")
    group.add_argument("--recalibration", choices=RECALIBRATION_CHOICES,
                       help="the cross-fitted recalibration whose gain is shown (default platt; isotonic: 2 classes)")  # fmt: skip


def wanted(args) -> bool:
    """Whether the command line asks for this mode."""
    return getattr(args, "probabilities", None) is not None


def _refuse_others(args) -> None:
    from mcrank.cli._evaluate_options import flags, given

    for attribute, flag in _NOT_HERE:
        if getattr(args, attribute, None) is not None:
            raise UsageError("give one input: FILE, --labels, --scores or --probabilities" if attribute in ("file", "labels", "scores")
                             else f"{flag} is not an option of --probabilities")  # fmt: skip
    for name in given(args):
        if name not in _READ:
            raise UsageError(f"{flags()[name]} is not an option of --probabilities")
    if args.details:
        raise UsageError("--details is not an option of --probabilities: the table is the whole report (and --format json)")
    if args.prior_count is not None and not args.test_uncertainty:
        raise UsageError("--prior-count is the prior of --test-uncertainty")


def refuse_recalibration_alone(args) -> None:
    """A UsageError for ``--recalibration`` without ``--probabilities``."""
    if getattr(args, "recalibration", None) is not None:
        raise UsageError("--recalibration is an option of --probabilities, which is not given: it would change nothing")


def handler(args) -> int:
    """``mcrank evaluate --probabilities FILE.csv --utility U ...``."""
    from mcrank._validation import check_count
    from mcrank.cli._common import EVALUATE_FORMAT_BY_SUFFIX, output_format
    from mcrank.evaluate import MAX_SAMPLES, read_utility
    from mcrank.evaluate.probabilities import load_probabilities, rank_probabilities
    from mcrank.evaluate.probabilities_report import render_csv, render_json, render_table
    from mcrank.evaluate.result import DEFAULT_SAMPLES
    from mcrank.evaluate.targets import reads_alike
    from mcrank.evaluate.uncertainty import DEFAULT_PRIOR_COUNT

    args.format = args.format or output_format(args.out, EVALUATE_FORMAT_BY_SUFFIX)
    _refuse_others(args)
    check_outputs({"--out": args.out}, inputs=(args.probabilities, args.utility))
    if args.utility is None:
        raise UsageError("--probabilities needs --utility: the decisions and their yields are the utility matrix's")
    assessment, utility_classes = read_utility(args.utility)
    if assessment.sd is not None:
        raise UsageError("--utility: an error sd is not used with --probabilities; give the matrix alone")
    recalibration = "platt" if args.recalibration is None else args.recalibration
    recalibration = None if recalibration == "none" else recalibration
    if args.folds is not None and recalibration is None:
        raise UsageError("--folds is the folds of the recalibration, which --recalibration none turns off")
    folds = None if args.folds is None else check_count(args.folds, "--folds", minimum=2)  # None: the library's default
    if args.samples is not None and not args.test_uncertainty:
        note_later("mcrank evaluate: note: --samples not used: it sets the draws of --test-uncertainty")
    samples = DEFAULT_SAMPLES if args.samples is None else check_count(args.samples, "--samples", maximum=MAX_SAMPLES)
    test_set = _with_flags(load_probabilities, args.probabilities, n_classes=len(assessment.matrix), truth=args.truth or "true",
                           positive=args.positive, classes=class_names(args.classes), utility_classes=utility_classes,
                           order_free=reads_alike(assessment.matrix))  # fmt: skip
    result = _with_flags(rank_probabilities, test_set, assessment, test_uncertainty=args.test_uncertainty, samples=samples,
                         prior_count=DEFAULT_PRIOR_COUNT if args.prior_count is None else args.prior_count,
                         recalibration=recalibration, folds=folds, rng=_seed(args, recalibration))  # fmt: skip
    if args.format == "json":
        from mcrank.results import provenance

        text = render_json(result, {"input": str(args.probabilities), "utility_input": args.utility, **provenance()})
    elif args.format == "csv":
        text = render_csv(result, {"input": str(args.probabilities), "utility_input": args.utility})
    elif args.format == "html":
        text = html_text(result)
    else:
        text = render_table(result, width=terminal_width(args.out))
    if write_output(text, args.out) is not None and not args.quiet:
        say(f"mcrank evaluate: wrote {args.out}")
    return 0


def _seed(args, recalibration):
    """``--seed``, or a fresh one when something is drawn (the report prints it: the run can be
    repeated); a note when nothing is."""
    import numpy as np

    drawn = args.test_uncertainty or recalibration is not None
    if not drawn:
        if args.seed is not None:
            note_later("mcrank evaluate: note: --seed not used: nothing is drawn (it sets the recalibration's folds and the draws of "
                "--test-uncertainty)")  # fmt: skip
        return None
    return int(np.random.SeedSequence().entropy) if args.seed is None else args.seed
