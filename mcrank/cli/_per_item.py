"""``mcrank evaluate --labels FILE --utility PER_ITEM.json``: ranking with per-item utilities.

A ``--utility`` in the affine per-item form (``{"classes": [...], "decisions": [...], "cells":
{...}}``, :mod:`mcrank.evaluate.per_item`) reads named columns of the ``--labels`` table; this
module parses, calls :func:`mcrank.evaluate.per_item.evaluate_per_item` and prints in the format
asked, as :mod:`mcrank.evaluate.per_item.report` renders it (``docs/evaluate-per-item.md``,
"Per-item utilities").
"""

from __future__ import annotations

from mcrank._signals import say
from mcrank.cli._common import UsageError, class_names, flag_names, html_text, write_output

#: The library's parameters that are flags here.
_FLAGS = {"utility": "--utility", "classes": "--classes", "columns": "--labels", "y_true": "--labels", "predictions": "--labels",
          "prior_count": "--prior-count", "samples": "--samples", "test_uncertainty": "--test-uncertainty"}  # fmt: skip
#: Options of the other inputs that have no meaning, or no per-item form yet, here (those of the
#: ranking on confusion matrices are refused as their fields say: mcrank.cli._evaluate_options).
_NOT_HERE = (("orientation", "--orientation"), ("thresholds", "--thresholds"), ("plot", "--plot"))


def utility_of(args):
    """The affine per-item utility of ``--utility``, or None for any other form."""
    if args.utility is None:
        return None
    from mcrank.evaluate.per_item import read_affine

    try:
        return read_affine(args.utility)
    except ValueError as error:
        raise UsageError(flag_names(str(error), _FLAGS)) from None


def handler(args, utility) -> int:
    """Evaluate the ``--labels`` table with the per-item ``utility``."""
    from mcrank._validation import check_count, check_positive
    from mcrank.cli._evaluate_options import refuse_unread
    from mcrank.evaluate import MAX_SAMPLES
    from mcrank.evaluate.per_item import evaluate_per_item, evaluate_per_item_scores, load_item_table
    from mcrank.evaluate.per_item.report import render_csv, render_json
    from mcrank.evaluate.result import DEFAULT_PER_ITEM_SAMPLES

    table = args.labels if args.scores is None else args.scores
    if table is None or args.file is not None:
        raise UsageError("--utility is per item (it reads the columns " + ", ".join(utility.columns or ("none",)) + "): give "
                         "--labels FILE.csv or --scores FILE.csv, one row per item with those columns; confusion matrices "
                         "have no items")  # fmt: skip
    if getattr(args, "folds_column", None) is not None:
        raise UsageError("--folds-column has no per-item form yet: give a utility matrix")
    refuse_unread(args, "per-item")
    for attribute, flag in _NOT_HERE:
        if getattr(args, attribute, None) is not None:
            raise UsageError(f"{flag} has no per-item form: give a utility matrix, or leave {flag} out")
    if args.prior_count is not None and not args.test_uncertainty:
        raise UsageError("--prior-count is the prior of --test-uncertainty")
    samples = DEFAULT_PER_ITEM_SAMPLES if args.samples is None else check_count(args.samples, "--samples", maximum=MAX_SAMPLES)
    prior_count = 1.0 if args.prior_count is None else check_positive(args.prior_count, "--prior-count")
    truth = "true" if args.truth is None else args.truth
    if args.positive is not None and args.scores is None:
        raise UsageError("--positive names the class the scores are for: give --scores")
    options = dict(classes=class_names(args.classes), metrics=None if args.metrics is None else _metric_list(args.metrics),
                   test_uncertainty=args.test_uncertainty, samples=samples, prior_count=prior_count, rng=args.seed)  # fmt: skip
    try:
        y_true, models, columns = load_item_table(table, columns=utility.columns, truth=truth)
        if args.scores is None:
            result = evaluate_per_item(y_true, models, utility, columns=columns, **options)
        else:  # each model decides each item by its own matrix, from its probability
            scores = {name: _probabilities(table, name, values) for name, values in models.items()}
            result = evaluate_per_item_scores(y_true, scores, utility, columns=columns, positive=args.positive, **options)
    except ValueError as error:
        raise UsageError(flag_names(str(error), _FLAGS)) from None
    text = {"json": render_json, "csv": render_csv, "html": html_text}.get(args.format, lambda result: str(result) + "\n")(result)
    if write_output(text, args.out) is not None and not args.quiet:
        say(f"mcrank evaluate: wrote {args.out}")
    return 0


def _metric_list(arguments):
    from mcrank.cli._common import metric_ids

    return list(metric_ids(arguments))


def _probabilities(path, name: str, values):
    """A model's column of probabilities as numbers, or a one-line refusal naming the column."""
    from mcrank._validation import parse_floats

    try:
        return parse_floats(values)
    except ValueError:
        bad = next(v for v in values if not _number(v))
        raise ValueError(f"{path}, column {name!r}: {bad!r} is not a probability") from None


def _number(text) -> bool:
    from mcrank._validation import parse_float

    try:
        parse_float(text)
    except ValueError:
        return False
    return True
