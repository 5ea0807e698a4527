"""``mcrank merge``: the shards of one study (``mcrank run --shard I/N``) as the study's results."""

from __future__ import annotations

from mcrank._signals import say
from mcrank.cli._common import check_outputs, output_format, path_argument, write_output

FORMATS = ("table", "json", "csv")


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "merge",
        help="merge the shards of a study (mcrank run --shard I/N) into its results",
        description=(
            "Add up the counts of every shard of one study, written by mcrank run --shard I/N (a job "
            "array's tasks), chunk by chunk in the order one run adds them: the result is bit-identical "
            "to mcrank run of the whole study, and is printed or written as mcrank run's would be. "
            "Every shard of 1/N to N/N must be given once, each of the same study, package versions "
            "and revision."
        ),
        epilog="example: mcrank merge shard_*.json --out study.json",
    )
    parser.add_argument("shards", nargs="+", type=path_argument, metavar="SHARD", help="the shard files (JSON), in any order")
    parser.add_argument(
        "--format", choices=FORMATS, help="output format (default: from the --out file's extension, .json or .csv, else table)"
    )
    parser.add_argument("--out", type=path_argument, metavar="PATH", help="write the output to PATH (atomically); - or none: stdout")
    parser.add_argument(
        "--metric-file",
        type=path_argument,
        metavar="FILE",
        help="the file of the user's metrics the shards' study counts (mcrank run --metric-file)",
    )
    parser.add_argument("--quiet", action="store_true", help="say nothing when the file is written")
    parser.set_defaults(handler=handler)
    return parser


def handler(args) -> int:
    from mcrank.cli.run import render
    from mcrank.engine import merge_shards
    from mcrank.results import read_shard

    check_outputs({"--out": args.out}, inputs=(*args.shards, args.metric_file))
    if args.metric_file is not None:  # first: the shards' configs name its metrics
        from mcrank.metrics import load_metric_file

        load_metric_file(args.metric_file)
    shards = [read_shard(path) for path in args.shards]
    result = merge_shards(shards)
    sources = {shard.provenance.get("source") for shard in shards}
    labels = {"source": sources.pop()} if len(sources) == 1 and None not in sources else {}
    text = render(result, args.format or output_format(args.out), **labels)
    if write_output(text, args.out) is not None and not args.quiet:
        say(f"mcrank merge: wrote {args.out} from {len(shards):,} shards")
    return 0
