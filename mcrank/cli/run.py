"""``mcrank run``: one Monte Carlo study (paper §4.2), printed or written to a file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcrank.cli._common import STDOUT, UsageError, check_output, metric_ids, path_argument, write_output

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
    )
    study = parser.add_argument_group("the study (defaults: the paper's)")
    study.add_argument("--config", type=path_argument, metavar="FILE", help="experiment TOML file (see experiments/); flags override it")
    study.add_argument(
        "--study",
        choices=("confusion", "roc"),
        help="what the classifiers are: confusion (given by confusion matrices, the paper's §4.2; default) "
        "or roc (scoring classifiers with binormal ROC curves, each at its best threshold, §5)",
    )
    study.add_argument("--classes", metavar="N", help="number of classes, 2 to 50 (default 2); sets the defaults of --true-um, --metrics and --rate-range")
    study.add_argument(
        "--true-um",
        choices=("uniform", "gaussian", "uniform-elements", "gaussian-elements"),
        help="distribution of true utility matrices: uniform or gaussian on the paper's hexagon (2 classes; default uniform), "
        "or uniform-elements or gaussian-elements for any number (default uniform-elements from 3 classes)",
    )
    study.add_argument(
        "--true-um-sd", type=float, metavar="SD", help="sd for --true-um gaussian (each hexagon coordinate) or gaussian-elements (each element) (default 1/3)"
    )
    study.add_argument(
        "--class-concentration", type=float, metavar="ALPHA", help="Dirichlet parameter of the class proportions with the -elements distributions (default 1: uniform)"
    )
    study.add_argument("--error", choices=("gaussian", "truncated"), help="error model of perturbed utility matrices (default gaussian)")
    study.add_argument(
        "--estimator",
        choices=("conditional", "sample"),
        help="how the perturbed utility matrix's %% is estimated: conditional (the closed-form probability; "
        "default for gaussian errors) or sample (draw the errors, as the paper; the only one for truncated)",
    )
    study.add_argument("--sd", nargs="+", metavar="SD", help="error sds: values and/or grids start:stop:step, separated by spaces or commas (default 0.1)")
    study.add_argument("--samples", metavar="N", help="number of pairs, e.g. 1e6 (default 1e6)")
    study.add_argument(
        "--metrics",
        nargs="+",
        metavar="ID",
        help="metric ids, separated by spaces or commas (default: the paper's seven for 2 classes; accuracy, "
        "balanced_accuracy, macro_precision, macro_f1, mcc, cohen_kappa for more; with --study roc the scores "
        "auc, best_accuracy, best_youden, best_f1)",
    )
    study.add_argument("--class-proportion", nargs=2, type=float, metavar=("LOW", "HIGH"), help="range of the class-0 fraction p (default 0 1)")
    study.add_argument("--rate-beta", nargs=2, type=float, metavar=("ALPHA", "BETA"), help="Beta parameters of the recalls, TPR and TNR for two classes (default 2 1)")
    study.add_argument("--rate-range", nargs=2, type=float, metavar=("LOW", "HIGH"), help="recall (TPR, TNR) = LOW + (HIGH-LOW)*Beta (default 1/n 1: 0.5 1 for two classes)")
    study.add_argument("--fbeta-beta", type=float, metavar="BETA", help="beta of the fbeta metric (default 1)")
    study.add_argument(
        "--test-size", metavar="N", help="items in each pair's test set, e.g. 100 or 1e4 (default: none, the population)"
    )
    study.add_argument("--seed", metavar="N", help="root seed (default: fresh entropy, printed with the results)")
    roc = parser.add_argument_group("the roc study (--study roc; docs/method.md, \"The ROC/AUC study\")")
    roc.add_argument("--prevalence", metavar="B", help="fraction of class 0, fixed in (0, 1) (default: B ~ Uniform(0, 1) per pair)")
    roc.add_argument("--roc-mu-range", nargs=2, type=float, metavar=("LOW", "HIGH"), help="class-0 score mean mu ~ Uniform(LOW, HIGH) (default 0 3)")
    roc.add_argument(
        "--roc-sigma-range", nargs=2, type=float, metavar=("LOW", "HIGH"), help="class-0 score sd, log-uniform on [LOW, HIGH] (default 0.5 2; 1 1: equal variances)"
    )
    execution = parser.add_argument_group("execution and output")
    execution.add_argument("--jobs", type=int, default=-1, help="parallel jobs, -1 for all cores (default -1); counts do not depend on it")
    execution.add_argument("--backend", choices=("threading", "loky", "dask"), default="threading", help="joblib backend (default threading)")
    execution.add_argument("--scheduler", metavar="ADDRESS", help="dask scheduler address for --backend dask (needs mcrank[dask])")
    execution.add_argument(
        "--format", choices=FORMATS, help="output format (default: from the --out file's extension, .json or .csv, else table)"
    )
    execution.add_argument("--out", type=path_argument, metavar="PATH", help="write the output to PATH (atomically); - or none: stdout")
    execution.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=handler)
    return parser


def study_overrides(args) -> dict:
    """The study parameters given on the command line, as text (None where not given)."""
    return {
        "kind": args.study,
        "classes": args.classes,
        "class_concentration": args.class_concentration,
        "true_um": args.true_um,
        "true_um_sd": args.true_um_sd,
        "error": args.error,
        "estimator": args.estimator,
        "sds": args.sd,
        "samples": args.samples,
        "metrics": None if args.metrics is None else metric_ids(args.metrics),
        "class_proportion": None if args.class_proportion is None else tuple(args.class_proportion),
        "rate_beta": None if args.rate_beta is None else tuple(args.rate_beta),
        "rate_range": None if args.rate_range is None else tuple(args.rate_range),
        "fbeta_beta": args.fbeta_beta,
        "seed": args.seed,
        "test_size": args.test_size,
        "prevalence": args.prevalence,
        "roc_mu_range": None if args.roc_mu_range is None else tuple(args.roc_mu_range),
        "roc_sigma_range": None if args.roc_sigma_range is None else tuple(args.roc_sigma_range),
    }


#: The flags each study kind alone reads, by their study parameter.
_KIND_FLAGS = {
    "roc": {"prevalence": "--prevalence", "roc_mu_range": "--roc-mu-range", "roc_sigma_range": "--roc-sigma-range"},
    "confusion": {
        "classes": "--classes",
        "class_concentration": "--class-concentration",
        "class_proportion": "--class-proportion",
        "rate_beta": "--rate-beta",
        "rate_range": "--rate-range",
        "fbeta_beta": "--fbeta-beta",
        "test_size": "--test-size",
    },
}


def _check_kind_flags(overrides: dict, kind: str) -> None:
    """A UsageError for a flag of another study kind: it would change nothing."""
    for owner, flags in _KIND_FLAGS.items():
        if owner == kind:
            continue
        for name, flag in flags.items():
            if overrides.get(name) is not None:
                raise UsageError(f"{flag} is an option of --study {owner}, not of --study {kind}")


#: The output format an --out file's extension implies, when --format is not given.
FORMAT_BY_SUFFIX = {".json": "json", ".csv": "csv"}


def output_format(out: str | None) -> str:
    """The format of ``--out PATH`` without ``--format``: by its extension, else ``table``."""
    return "table" if out in STDOUT else FORMAT_BY_SUFFIX.get(Path(out).suffix.lower(), "table")


def handler(args) -> int:
    from mcrank.engine import run_study
    from mcrank.study import StudyConfig, load_experiment, parse_values

    overrides = study_overrides(args)
    # The flags are checked against the study's kind before any value is: a flag of another
    # kind is named as such, whatever its value.
    kind = args.study or (load_experiment(args.config).config.kind if args.config is not None else "confusion")
    _check_kind_flags(overrides, kind)
    if args.config is not None:
        config = load_experiment(args.config, **overrides).config
    else:
        config = StudyConfig(**parse_values(overrides))
    if args.scheduler is not None and args.backend != "dask":
        raise UsageError("--scheduler goes with --backend dask")
    check_output(args.out)  # before the run, so that a long run does not end on an unwritable path
    chosen_format = args.format or output_format(args.out)
    progress = not args.quiet and sys.stderr.isatty()
    result = run_study(config, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, progress=progress)
    # With --config, the file the parameters came from, as a study of reproduce names it
    # (flags may have overridden some; the config holds every value used).
    labels = {} if args.config is None else {"source": str(args.config)}
    text = render(result, chosen_format, **labels)
    if write_output(text, args.out) is not None and not args.quiet:
        print(f"mcrank run: wrote {args.out}", file=sys.stderr)
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
        return json.dumps(document, indent=2) + "\n"
    if format == "csv":
        return study_csv(document)
    return render_table(document)


def _fixed(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals, or in exponent form from 10^4 (an sd of 1e308
    would otherwise print 309 digits)."""
    return f"{value:.{decimals}f}" if abs(value) < 1e4 else f"{value:.{decimals}g}"


def render_table(document: dict) -> str:
    """A results document (``{"config", "rows"}``) as an aligned text table."""
    config = document["config"]
    roc = config.get("kind") == "roc"
    finite = config.get("test_size") is not None
    test_set = f"; test sets of {config['test_size']:,} items" if finite else ""
    classes = f"{config['classes']} classes; " if config.get("classes", 2) != 2 else ""
    header = f"{config['samples']:,} pairs; {classes}true U {config['true_um']}; errors {config['error']}{test_set}; seed {config['seed']}"
    if roc:
        rows = document["rows"]
        tied = rows[0]["tied_pct"] if rows else float("nan")
        prevalence = "B ~ Uniform(0, 1)" if config["prevalence"] is None else f"B = {config['prevalence']:g}"
        (mu_low, mu_high), (sigma_low, sigma_high) = config["roc_mu_range"], config["roc_sigma_range"]
        header = (
            f"{config['samples']:,} pairs of scoring classifiers (binormal ROC, mu ~ U({mu_low:g}, {mu_high:g}), "
            f"log sigma ~ U(log {sigma_low:g}, log {sigma_high:g})); {prevalence}; true U {config['true_um']}; "
            f"errors {config['error']}; seed {config['seed']}\n"
            f"{tied:.2f} % of pairs tied in truth (both best thresholds at the same corner), left out of every %"
        )
    lines = [
        header,
        "",
        f"{'name':<18} {'sd':>6} {'realised sd':>12} {'% incorrect':>12} {'SE':>7}" + (f" {'% tied':>8}" if finite else ""),
    ]
    for row in document["rows"]:
        sd = "" if row["sd"] is None else _fixed(row["sd"], 3)
        realised = "" if row["realised_sd"] is None else _fixed(row["realised_sd"], 4)
        tied = f" {row['tied_pct']:>8.2f}" if finite else ""
        lines.append(f"{row['name']:<18} {sd:>6} {realised:>12} {row['incorrect_pct']:>12.2f} {row['se_pct']:>7.3f}{tied}")
    return "\n".join(lines) + "\n"
