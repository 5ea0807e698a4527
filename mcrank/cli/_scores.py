"""``mcrank evaluate --scores``: scoring classifiers and decision curves, one block of the CLI.

:func:`add_arguments` adds the options of this input to the ``evaluate`` parser, as one
argument group; :func:`handler` runs when ``--scores`` is given, before the other inputs are
looked at. It only parses, calls :mod:`mcrank.evaluate.scoring`,
:mod:`mcrank.evaluate.curves` and :mod:`mcrank.figures.decision_curves`, and picks the format
of :mod:`mcrank.evaluate.scoring.report` (``docs/evaluate-scoring.md``, "Scoring classifiers" and
"Decision curves").
"""

from __future__ import annotations

import io
from pathlib import Path

from mcrank._signals import say
from mcrank.cli._common import UsageError, class_names, flagged_by, html_text, path_argument, terminal_width, write_output
from mcrank.cli._common import note as note_later

#: Figure formats of ``--plot``, by suffix.
PLOT_FORMATS = (".png", ".pdf", ".svg")
#: The library's parameters that are flags here: its errors name the parameter, ours the flag.
_FLAGS = {"thresholds": "--thresholds", "positive": "--positive", "folds": "--folds", "samples": "--samples",
          "prior_count": "--prior-count", "threshold_choice": "--threshold-choice", "truth": "--truth",
          "classes": "--classes"}  # fmt: skip
#: The inputs of the other modes, which mean nothing with --scores (the options of the ranking
#: on confusion matrices are refused as their fields say: mcrank.cli._evaluate_options).
_OTHER_INPUTS = (("file", "FILE"), ("labels", "--labels"))


#: The options that only ``--scores`` reads: refused without it (:func:`check_scores_only`).
_SCORES_OPTIONS = {
    "--positive": {"metavar": "LABEL", "help": "the class the scores are for (default: the first one)"},
    "--threshold-choice": {"choices": ("crossfit", "split", "test"), "help": "where the thresholds are chosen (crossfit)"},
    "--folds": {"metavar": "K", "help": "folds of crossfit, and of test's cross-fitted estimate with --test-uncertainty (default 5)"},
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
    """``START:STOP:STEP`` (STOP included when the steps reach it) or ``P1,P2,...`` as an array;
    None for the default."""
    import numpy as np

    from mcrank._validation import parse_float, parse_grid

    if text is None:
        return None
    if ":" in text:
        try:
            return parse_grid(text, "--thresholds", maximum=100_000)
        except ValueError as error:
            raise UsageError(str(error)) from None
    try:
        return np.array([parse_float(p) for p in text.split(",")])
    except ValueError:
        raise UsageError(f"--thresholds {text}: not numbers; give START:STOP:STEP or a list P1,P2,...") from None


_with_flags = flagged_by(_FLAGS, after_file=True)


def handler(args) -> int:
    """``mcrank evaluate --scores FILE.csv ...``."""
    from mcrank._validation import check_count
    from mcrank.evaluate import MAX_SAMPLES, decision_curves, load_scores, rank_scoring
    from mcrank.evaluate.curves import DEFAULT_BAND_SAMPLES
    from mcrank.evaluate.posterior import DEFAULT_PRIOR_COUNT
    from mcrank.evaluate.scoring import DEFAULT_FOLDS, DEFAULT_SCORING_SAMPLES, inverted_scores_note
    from mcrank.evaluate.scoring.report import render_csv, render_json, render_table

    utility, utility_classes, classes = _inputs(args)
    plot = None if args.plot is None else Path(args.plot)
    if plot is not None and plot.suffix.lower() not in PLOT_FORMATS:
        raise UsageError(f"--plot {args.plot}: give a file ending in {', '.join(PLOT_FORMATS)}")
    thresholds = _thresholds(args.thresholds)
    curves_wanted = utility is None or args.thresholds is not None or plot is not None
    _refuse_what_changes_nothing(args, utility, curves_wanted)
    given_samples = None if args.samples is None else check_count(args.samples, "--samples", maximum=MAX_SAMPLES)
    folds = DEFAULT_FOLDS if args.folds is None else check_count(args.folds, "--folds", minimum=2)
    seed = _seed(args, utility)
    test_set = _with_flags(load_scores, args.scores, truth=args.truth or "true", positive=args.positive, classes=classes,
                           utility_classes=utility_classes)  # fmt: skip
    ranking = curves = None
    if utility is not None:
        ranking = _with_flags(rank_scoring, test_set, utility, threshold_choice=choice_given(args), folds=folds,
                              test_uncertainty=args.test_uncertainty,
                              samples=DEFAULT_SCORING_SAMPLES if given_samples is None else given_samples, rng=seed)  # fmt: skip
    if curves_wanted:
        curves = _with_flags(decision_curves, test_set, thresholds=thresholds, test_uncertainty=args.test_uncertainty,
                             prior_count=DEFAULT_PRIOR_COUNT if args.prior_count is None else args.prior_count,
                             samples=DEFAULT_BAND_SAMPLES if given_samples is None else given_samples, rng=seed)  # fmt: skip
    if (note := inverted_scores_note(test_set)) is not None:  # after the work, which may still refuse the input
        note_later(f"mcrank evaluate: note: {note} (--positive)")
    made = {"input": str(args.scores), **({"utility_input": args.utility} if args.utility is not None else {})}
    render = {"json": render_json, "csv": render_csv}.get(args.format)
    if args.format == "html":  # the ranking's decision first, then the curves'
        text = html_text(*(result for result in (ranking, curves) if result is not None))
    elif render is None:
        text = render_table(test_set, ranking, curves, width=terminal_width(args.out), details=args.details)
    else:
        text = render(test_set, ranking, curves, made)
    if plot is not None:
        _write_plot(curves, plot)
    if write_output(text, args.out) is not None and not args.quiet:
        say(f"mcrank evaluate: wrote {args.out}")
    return 0


def _inputs(args):
    """The other modes' inputs refused, then the utility (a 2x2 matrix, or None for decision
    curves alone), the classes it names and those of ``--classes``. The positive class is
    decided with the labels, by :func:`mcrank.evaluate.scoring.load_scores`, as in Python."""
    from mcrank.cli._evaluate_options import refuse_unread
    from mcrank.evaluate import read_utility

    for attribute, flag in _OTHER_INPUTS:
        if getattr(args, attribute, None) is not None:
            raise UsageError(f"{flag} is not an option of --scores" if flag != "FILE" else "give one input: FILE, --labels or --scores")
    refuse_unread(args, "scores")
    if args.orientation is not None:
        raise UsageError("--orientation is not an option of --scores")
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
    return utility, utility_classes, classes


def _refuse_what_changes_nothing(args, utility, curves_wanted: bool) -> None:
    """A UsageError for an option that this command line does not read: it would change nothing
    (and a note for ``--samples`` and ``--seed``, which a script may always pass)."""
    from mcrank.evaluate.scoring import folds_used

    if utility is None:
        for value, flag in ((args.threshold_choice, "--threshold-choice"), (args.folds, "--folds")):
            if value is not None:
                raise UsageError(f"{flag} chooses the thresholds of the ranking by --utility")
    if args.folds is not None and not folds_used(choice_given(args), args.test_uncertainty):
        raise UsageError("--folds is for --threshold-choice crossfit, or test with --test-uncertainty")
    if args.prior_count is not None and not args.test_uncertainty:
        raise UsageError("--prior-count is the prior of --test-uncertainty")
    if args.prior_count is not None and not curves_wanted:
        raise UsageError("--prior-count is the prior of the decision curves' bands (--thresholds, --plot); the ranking's "
                         "posterior has its own, Jeffreys's on each model's cells")  # fmt: skip
    if args.format == "csv" and curves_wanted and utility is not None:
        raise UsageError("--format csv holds one table: the ranking (--utility) or the decision curves (--thresholds, --plot); "
                         "--format json holds both")  # fmt: skip
    if not _draws(args, utility) and (
        given := [flag for flag, value in (("--samples", args.samples), ("--seed", args.seed)) if value is not None]
    ):
        # A seed a script always passes is no error: it is noted, and nothing is drawn.
        note_later(f"mcrank evaluate: note: {' and '.join(given)} not used: nothing is drawn (they set the split or folds of "
            "--threshold-choice and the bands of --test-uncertainty)")  # fmt: skip


def _draws(args, utility) -> bool:
    """Whether anything is drawn: the split or folds of the thresholds' choice, or a posterior."""
    return (utility is not None and choice_given(args) != "test") or args.test_uncertainty


def _seed(args, utility):
    """``--seed``, or a fresh one when something is drawn (printed: the run can be repeated)."""
    import numpy as np

    if args.seed is None and _draws(args, utility):
        return int(np.random.SeedSequence().entropy)
    return args.seed


def choice_given(args) -> str:
    return args.threshold_choice or "crossfit"


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
