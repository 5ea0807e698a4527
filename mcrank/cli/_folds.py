"""``mcrank evaluate --labels FILE --folds-column NAME``: models compared across cross-validation folds.

:func:`add_arguments` adds the options of this comparison to the ``evaluate`` parser, as one
argument group; :func:`handler` runs when one of them is given. It only parses, calls
:func:`mcrank.evaluate.folds.compare_folds_file` and prints (``docs/evaluate-folds.md``, "Comparing
models across cross-validation folds").
"""

from __future__ import annotations

from mcrank._signals import say
from mcrank.cli._common import UsageError, class_names, flagged_by, html_text, json_text, terminal_width, write_output

#: The library's parameters that are flags here: its errors name the parameter, ours the flag.
_FLAGS = {"folds_column": "--folds-column", "repeats": "--repeats", "rope": "--rope", "samples": "--samples", "utility": "--utility",
          "truth": "--truth", "folds": "--folds-column", "seed": "--seed", "classes": "--classes"}  # fmt: skip
#: Options of --scores that mean nothing across folds (those of the ranking on one test set are
#: refused as their fields say: mcrank.cli._evaluate_options).
_NOT_HERE = (("positive", "--positive"), ("threshold_choice", "--threshold-choice"), ("folds", "--folds"),
             ("thresholds", "--thresholds"), ("plot", "--plot"))  # fmt: skip


def add_arguments(parser) -> None:
    """The options of the comparison across folds, in one group of ``evaluate``'s help."""
    group = parser.add_argument_group(
        "model selection across cross-validation folds",
        "--labels FILE.csv with a column naming each row's fold (each fold of each repeat apart): the per-fold utility yields "
        "compared by the Bayesian correlated t-test, and each model's probability of being best.",
    )
    add = group.add_argument
    add("--folds-column", metavar="NAME", help="the column of folds in --labels")
    add("--repeats", metavar="R", help="repeats of k-fold cross-validation among the folds (default 1): rho = R / folds")
    add("--rope", metavar="ROPE", help="region of practical equivalence, in utility units per item (default 0)")


def wanted(args) -> bool:
    """Whether the command line asks for the comparison across folds (or one of its options)."""
    return any(getattr(args, name, None) is not None for name in ("folds_column", "repeats", "rope"))


def handler(args) -> int:
    """``mcrank evaluate --labels FILE.csv --utility U --folds-column NAME ...``."""
    from mcrank._validation import check_count
    from mcrank.cli._evaluate_options import refuse_unread
    from mcrank.evaluate import MAX_SAMPLES
    from mcrank.evaluate.folds import DEFAULT_FOLD_SAMPLES, check_rope, compare_folds_file

    if args.folds_column is None:
        flag = "--rope" if args.rope is not None else "--repeats"
        what = "a region of practical equivalence" if flag == "--rope" else "how many times the cross-validation was repeated"
        raise UsageError(f"{flag} is {what}, for the comparison across folds: give --folds-column NAME with --labels")
    if args.scores is not None:
        raise UsageError("--folds-column takes --labels, not --scores: a threshold chosen on the test folds would make every fold's "
                         "yield optimistic; give each model's decisions as labels")  # fmt: skip
    if args.file is not None or args.labels is None:
        raise UsageError("--folds-column names a column of --labels FILE.csv (labels, one row per item and fold), "
                         "not of confusion matrices: give --labels")  # fmt: skip
    refuse_unread(args, "folds")
    for attribute, flag in _NOT_HERE:
        if getattr(args, attribute, None) is not None:
            raise UsageError(f"{flag} is not an option of --folds-column")
    if args.utility is None:
        raise UsageError(f"{args.labels}: labels need a utility matrix: give --utility (and its 'classes' to fix their order)")
    rope = 0.0 if args.rope is None else _flagged(check_rope, args.rope)
    samples = DEFAULT_FOLD_SAMPLES if args.samples is None else check_count(args.samples, "--samples", maximum=MAX_SAMPLES)
    repeats = None if args.repeats is None else check_count(args.repeats, "--repeats")
    result = _flagged(compare_folds_file, args.labels, utility=args.utility, folds_column=args.folds_column,
                      truth="true" if args.truth is None else args.truth, repeats=repeats, rope=rope, samples=samples,
                      rng=args.seed, classes=class_names(args.classes))  # fmt: skip
    made = {"input": str(args.labels), "utility_input": args.utility, "folds_column": args.folds_column}
    if args.format == "json":
        from mcrank.results import provenance

        text = json_text({**result.to_dict(), **made, **provenance()})
    elif args.format == "csv":
        from mcrank.evaluate.folds.report import render_csv
        from mcrank.results import provenance

        text = render_csv(result, comments={**made, **provenance()})
    elif args.format == "html":
        text = html_text(result)
    else:
        from mcrank.evaluate.folds.report import render_table

        text = render_table(result, width=terminal_width(args.out))
    if write_output(text, args.out) is not None and not args.quiet:
        say(f"mcrank evaluate: wrote {args.out}")
    return 0


_flagged = flagged_by(_FLAGS, after_file=True)
