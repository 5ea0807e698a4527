"""``mcrank run``: one Monte Carlo study (paper §4.2), printed or written to a file."""

from __future__ import annotations

import sys
import textwrap

from mcrank._signals import say
from mcrank.cli._common import (  # noqa: F401 - FORMAT_BY_SUFFIX, output_format: run's before they were shared
    DEFAULT_WIDTH,
    FORMAT_BY_SUFFIX,
    UsageError,
    check_outputs,
    flag_names,
    json_text,
    metric_ids,
    output_format,
    path_argument,
    write_output,
)

FORMATS = ("table", "json", "csv")


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "run",
        help="estimate how often each metric and a perturbed utility matrix misrank pairs",
        description=(
            "Run the Monte Carlo study of the paper's §4.2: draw pairs of classifiers on one test "
            "set, a true utility matrix and perturbed ones, and count the pairs each metric (and "
            "each perturbed utility matrix) ranks differently from the true utility yield. Prints "
            "the percentage of incorrectly ranked pairs and its Monte Carlo standard error. "
            "Defaults are the paper's; flags override values from --config."
        ),
        epilog="example: mcrank run --sd 0:0.5:0.01 --samples 1e6 --seed 1 --format csv --out sweep.csv",
        # The study's flags come from its schema (mcrank.study.config), added when this parser
        # is first used: other commands, and mcrank --help, then never import the study (and numba).
        arguments=_add_study_flags,
    )
    parser.set_defaults(handler=handler)
    return parser


def _add_execution_flags(parser) -> None:
    execution = parser.add_argument_group("execution and output")
    execution.add_argument("--jobs", type=int, default=-1, help="parallel jobs, -1 for all cores (default -1); counts do not depend on it")
    execution.add_argument(
        "--backend", choices=("threading", "loky", "dask"), default="threading", help="joblib backend (default threading)"
    )
    execution.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler address for --backend dask (needs mcrank[dask])")
    execution.add_argument(
        "--format", choices=FORMATS, help="output format (default: from the --out file's extension, .json or .csv, else table)"
    )
    execution.add_argument("--out", type=path_argument, metavar="PATH", help="write the output to PATH (atomically); - or none: stdout")
    execution.add_argument("--quiet", action="store_true", help="no progress bar")
    execution.add_argument(
        "--shard",
        type=shard_argument,
        metavar="I/N",
        help="run only shard I of N (a task of a job array) and write its counts as JSON, for mcrank merge; needs a fixed seed",
    )


def shard_argument(text: str) -> tuple[int, int]:
    """``I/N`` as ``(I, N)``: ASCII digits only (argparse turns the error into one line naming --shard)."""
    import argparse
    import re

    from mcrank.engine import MAX_SHARDS

    match = re.fullmatch(r"([0-9]+)/([0-9]+)", text)
    if match is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not I/N, shard I of N, as in 3/10")
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= count <= MAX_SHARDS or not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"{text!r}: I/N needs 1 <= I <= N <= {MAX_SHARDS:,}")
    return index, count


def _add_study_flags(parser) -> None:
    """Add ``mcrank run``'s study flags, generated from the study's schema
    (:func:`mcrank.study.config.study_parameters`: each field's flag, metavar, nargs, choices
    and help), then its execution flags."""
    from mcrank.study.config import flag_groups, study_parameters

    groups = {name: parser.add_argument_group(title) for name, title in flag_groups().items()}
    groups["study"].add_argument(
        "--config", type=path_argument, metavar="FILE", help="experiment TOML file (see experiments/); flags override it"
    )
    groups["study"].add_argument(
        "--metric-file",
        type=path_argument,
        metavar="FILE",
        help="Python file of your own metrics (@mcrank.metrics.metric), counted beside the built-in ones: name them in --metrics",
    )
    for parameter in study_parameters():
        meta = parameter.metadata
        if meta["flag"] is None:
            continue
        options = {"dest": parameter.name, "help": meta["help"]() if callable(meta["help"]) else meta["help"]}
        for key, option in (("metavar", "metavar"), ("nargs", "nargs"), ("cli_type", "type")):
            if meta[key] is not None:
                options[option] = meta[key]
        if meta["choices"] is not None:
            options["choices"] = meta["choices"]()
            if "metavar" not in options and len(",".join(options["choices"])) > 40:
                options["metavar"] = "NAME"  # the help lists them: {a,b,...} would not fit 80 columns
        groups[meta["group"]].add_argument(meta["flag"], **options)
    _add_execution_flags(parser)


def study_overrides(args) -> dict:
    """The study parameters given on the command line, as text (None where not given):
    one per flag of the schema, pairs as tuples, metric ids split at commas."""
    from mcrank.study.config import study_parameters

    overrides = {}
    for parameter in study_parameters():
        if parameter.metadata["flag"] is None:
            continue
        value = getattr(args, parameter.name)
        if value is not None and parameter.metadata["nargs"] == 2:
            value = tuple(value)
        elif value is not None and parameter.name == "metrics":
            value = metric_ids(value)  # a UsageError if no id is left
        overrides[parameter.name] = value
    return overrides


def _check_kind_flags(overrides: dict, kind: str) -> None:
    """A UsageError for a flag of another study kind, whatever its value: it would change nothing."""
    from mcrank.study.config import reads, study_parameters

    for parameter in study_parameters():
        meta = parameter.metadata
        if meta["flag"] is not None and not reads(parameter, kind) and overrides.get(parameter.name) is not None:
            owners = " or ".join(f"--study {owner}" for owner in meta["kinds"])
            raise UsageError(f"{meta['flag']} is an option of {owners}, not of --study {kind}")


def _named_by_flag(error: ValueError, overrides: dict, config) -> ValueError:
    """The schema's error about a parameter given as a flag, naming the flag (and not the
    experiment file, whose value the flag replaced); an error about the file's own values
    names the file and its field, but a value given as a flag in it (``kind='roc'``) by that
    flag (``--study roc``)."""
    import re

    from mcrank.study.config import study_parameters

    message = str(error)
    if config is not None and message.startswith(f"{config}: "):
        message = message[len(f"{config}: ") :]
    flags = {p.name: p.metadata["flag"] for p in study_parameters() if p.metadata["flag"] is not None}

    def as_flags(text: str, names) -> str:
        # A field named in brackets, "(true_um)", or with its value, kind='roc' or true_um="uniform".
        for name in names:
            text = text.replace(f"({name})", f"({flags[name]})")
            text = re.sub(rf"\b{name}=(['\"]?)([^'\",;)\s]*)\1", lambda m: f"{flags[name]} {m.group(2)}", text)
        return text

    for name, flag in flags.items():
        rest = message[len(name) :]
        if overrides.get(name) is not None and message.startswith(name) and rest[:1] in (" ", ":"):
            rest = as_flags(rest, flags)
            return UsageError(flag + (" " + rest[3:] if rest.startswith(" = ") else rest))
    given = [name for name in flags if overrides.get(name) is not None]
    named = as_flags(message, given)
    if config is not None:  # a value of the file's, or a default, as its key is written there
        named = re.sub(r"\b(\w+)='([^']*)'", lambda m: f'{m.group(1)} = "{m.group(2)}"' if m.group(1) in flags else m.group(0), named)
    if named != message:
        return ValueError(f"{config}: {named}" if config is not None else named)
    return error


def handler(args) -> int:
    from mcrank.engine import run_study
    from mcrank.engine.runner import check_execution
    from mcrank.study import StudyConfig, load_experiment, parse_values
    from mcrank.study.kinds import DEFAULT_KIND

    if args.metric_file is not None:  # first: the metrics it defines are then known to every check
        from mcrank.metrics import load_metric_file

        load_metric_file(args.metric_file)
    overrides = study_overrides(args)
    # The flags are checked against the study's kind before any value is: a flag of another
    # kind is named as such, whatever its value.
    try:
        kind = args.kind or (load_experiment(args.config).config.kind if args.config is not None else DEFAULT_KIND)
    except ValueError as error:  # the file's own values, without the flags
        raise _named_by_flag(error, {}, args.config) from None
    _check_kind_flags(overrides, kind)
    try:
        experiment = load_experiment(args.config, **overrides) if args.config is not None else None
        config = experiment.config if experiment is not None else StudyConfig(**parse_values(overrides))
    except ValueError as error:
        raise _named_by_flag(error, overrides, args.config) from None
    if args.scheduler is not None and args.backend != "dask":
        raise UsageError("--scheduler goes with --backend dask")
    try:  # the engine's own check, before any work, naming the flag
        check_execution(args.jobs, args.backend, args.scheduler)
    except ValueError as error:
        raise UsageError(flag_names(str(error), {"jobs": "--jobs"})) from None
    # Before the run, so that it does not end on an unwritable path; the experiment file's
    # metric file is an input as --metric-file is.
    metric_file = experiment.metric_file if experiment is not None else None
    check_outputs({"--out": args.out}, inputs=(args.config, args.metric_file, metric_file))
    if args.shard is not None:
        if args.format not in (None, "json"):
            raise UsageError(f"--shard writes the shard's counts as JSON, for mcrank merge; --format {args.format} is not that")
        if config.seed is None:
            raise UsageError("--shard needs a fixed --seed: each shard would draw from a root of its own")
    chosen_format = args.format or output_format(args.out)
    progress = not args.quiet and sys.stderr.isatty()
    from mcrank._jit import kernels_cached

    if progress and not kernels_cached():  # on a terminal, as the progress bar
        say("mcrank run: compiling the kernels (first run after an install or a change, tens of seconds)...")
    labels = {} if args.config is None else {"source": str(args.config)}
    if args.shard is not None:
        from mcrank.engine import run_shard
        from mcrank.results import shard_document

        shard = run_shard(config, args.shard, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, progress=progress)
        if write_output(json_text({**labels, **shard_document(shard)}), args.out) is not None and not args.quiet:
            say(f"mcrank run: wrote shard {args.shard[0]}/{args.shard[1]} to {args.out}")
        return 0
    result = run_study(config, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, progress=progress)
    # With --config, the file the parameters came from, as a study of reproduce names it
    # (flags may have overridden some; the config holds every value used).
    text = render(result, chosen_format, **labels)
    if write_output(text, args.out) is not None and not args.quiet:
        say(f"mcrank run: wrote {args.out}")
    return 0


def render(result, format: str, **labels) -> str:
    """The result as ``table``, ``json`` or ``csv`` text.

    JSON is what ``mcrank reproduce`` writes for a study (:func:`mcrank.results.study_document`):
    ``labels`` (``source``, the experiment file of ``--config``), config, rows, batches, wall
    time, package versions and date. CSV has the rows, after ``# key: value`` lines with the
    labels, the seed, every parameter, the versions and the date.
    """
    from mcrank.results import study_csv, study_document

    document = study_document(result, **labels)
    if format == "json":
        return json_text(document)
    if format == "csv":
        return study_csv(document)
    return render_table(document)


def _fixed(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, or in exponent form from 10^4 (an sd of 1e308
    would otherwise print 309 digits)."""
    return f"{value:.{decimals}f}" if abs(value) < 1e4 else f"{value:.{decimals}g}"


def render_table(document: dict) -> str:
    """A results document (``{"config", "rows"}``) as an aligned text table, under its study
    kind's header (:attr:`mcrank.study.kinds.StudyKind.header`)."""
    from mcrank.study.kinds import DEFAULT_KIND, STUDY_KINDS

    config = document["config"]
    finite = config.get("test_size") is not None
    header = STUDY_KINDS[config.get("kind", DEFAULT_KIND)].header(config, document["rows"])
    # The names' column one wider than the longest name of the registries its rows come from.
    from mcrank.metrics import METRICS
    from mcrank.roc import ROC_SCORES

    name_width = 1 + max(METRICS.width(), ROC_SCORES.width())
    # Wrapped to 80 columns, as every table of the CLI.
    lines = [
        *(line for paragraph in header.split("\n") for line in textwrap.wrap(paragraph, DEFAULT_WIDTH, subsequent_indent="  ")),
        "",
        f"{'name':<{name_width}} {'sd':>6} {'realised sd':>12} {'% incorrect':>12} {'SE':>7}" + (f" {'% tied':>8}" if finite else ""),
    ]
    for row in document["rows"]:
        sd = "" if row["sd"] is None else _fixed(row["sd"], 3)
        realised = "" if row["realised_sd"] is None else _fixed(row["realised_sd"], 4)
        tied = f" {row['tied_pct']:>8.2f}" if finite else ""
        lines.append(f"{row['name']:<{name_width}} {sd:>6} {realised:>12} {row['incorrect_pct']:>12.2f} {row['se_pct']:>7.3f}{tied}")
    if document["rows"] and all(row["incorrect_pct"] != row["incorrect_pct"] for row in document["rows"]):  # every one NaN
        lines += ["", "Every pair is tied in truth: none is left to rank, so no % incorrect (nan); widen the parameters' ranges."]
    for metric_file in document.get("metric_files", ()):  # a user's metrics: eq. (16), measured
        lines.append("")
        lines.extend(textwrap.wrap(f"{metric_file['path']} (sha256 {metric_file['sha256'][:16]}):", DEFAULT_WIDTH))
        for id, found in metric_file["metrics"].items():
            lines.extend(textwrap.wrap(f"{id}: {found}", DEFAULT_WIDTH, initial_indent="  ", subsequent_indent="    "))
    return "\n".join(lines) + "\n"
