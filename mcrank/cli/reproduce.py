"""``mcrank reproduce``: every number and figure of the paper's §4.2 from one command."""

from __future__ import annotations

import sys
from pathlib import Path

from mcrank.cli._common import UsageError, flagged_by, path_argument


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "reproduce",
        help="run every study of experiments/ and draw the figures (1-11)",
        description=(
            "Run every experiment file of experiments/ (skipping those whose results are already "
            "on disk with the same config and seed), write results/<experiment>.csv and .json, the "
            "crossover tables and results/figures/ (PNG and PDF)."
        ),
    )
    parser.add_argument(
        "--experiments", type=path_argument, default="experiments", metavar="DIR", help="experiment files (default: experiments)"
    )
    parser.add_argument("--out", type=path_argument, default="results", metavar="DIR", help="output directory (default: results)")
    parser.add_argument(
        "--samples",
        metavar="N",
        help="override every study's number of samples, e.g. 1e4 for a quick check (needs an --out other than results/, holding no results made with another number)",
    )
    parser.add_argument("--force", action="store_true", help="recompute every study, sample and figure, even those already up to date")
    parser.add_argument("--jobs", type=int, default=-1, help="studies side by side, one per core; -1 for all cores (default -1)")
    parser.add_argument("--no-figures", action="store_true", help="skip the figures")
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="write into the repository's results/ from a tree with uncommitted changes (they are recorded as modified)",
    )
    parser.add_argument("--quiet", action="store_true", help="no log lines or progress bars")
    parser.set_defaults(handler=handler)
    return parser


def handler(args) -> int:
    from mcrank._io import resolved
    from mcrank.paper.committed import CommittedResultsError
    from mcrank.reproduce import reproduce
    from mcrank.study import parse_count

    if args.jobs == 0:
        raise UsageError("--jobs must be a non-zero integer (-1 for all cores)")
    samples = None if args.samples is None else flagged_by({"samples": "--samples"})(parse_count, args.samples)
    if samples is not None and resolved(args.out) == resolved("results"):
        raise UsageError("--samples changes the studies: give --out DIR so that results/ keeps the paper's settings")
    if samples is not None and (made := _made_with_other_samples(Path(args.out), samples)):
        # Whatever the directory is called: reached from elsewhere, results/ is just a path.
        raise UsageError(f"--samples changes the studies: {made[0]} was made with {made[1]:,} samples; give another --out DIR")
    try:
        reproduce(
            args.experiments,
            args.out,
            samples=samples,
            force=args.force,
            jobs=args.jobs,
            figures=not args.no_figures,
            quiet=args.quiet,
            progress=not args.quiet and sys.stderr.isatty(),
            allow_dirty=args.allow_dirty,
        )
    except CommittedResultsError as error:
        raise UsageError(error.cli_message) from None
    return 0


def _made_with_other_samples(out: Path, samples: int) -> tuple[Path, int] | None:
    """A study's results file in ``out`` made with another number of samples than
    ``samples``, and that number; None if there is none.

    What ``--samples`` must not replace: the committed 10^6-pair results, wherever the
    command runs from and however ``--out`` spells the directory.
    """
    from mcrank.results import read_study

    for path in sorted(out.glob("*.json")):
        try:
            recorded = read_study(path)["config"].get("samples")
        except (OSError, ValueError, AttributeError):  # not a study's results file
            continue
        if isinstance(recorded, int) and recorded != samples:
            return path, recorded
    return None
