"""``mcrank story``: the paper's prologue, computed from its confusion and utility matrices."""

from __future__ import annotations

import textwrap

from mcrank._signals import say
from mcrank.cli._common import DEFAULT_WIDTH, check_outputs, json_text, path_argument, write_output


def add_parser(subparsers):
    parser = subparsers.add_parser(
        "story",
        help="the paper's prologue: metrics favour B, the utility yield favours A",
        description=(
            "Reproduce the paper's opening story (§0-1): Table 1's metrics for classifiers A and B, "
            "and their utility yields under the utility matrices (4), (5) and (6). Every number is "
            "computed from the confusion matrices (1) and (2)."
        ),
    )
    parser.add_argument("--format", choices=("table", "json"), help="default: from --out's extension (.json), else table")
    parser.add_argument("--out", type=path_argument, metavar="PATH", help="write to PATH (atomically); -: stdout")
    parser.add_argument("--quiet", action="store_true", help="no 'wrote' line")
    parser.set_defaults(handler=handler)
    return parser


def handler(args) -> int:
    from mcrank.story import story

    check_outputs({"--out": args.out})
    chosen = args.format or ("json" if args.out is not None and args.out.lower().endswith(".json") else "table")
    result = story()
    text = json_text(result) if chosen == "json" else render_table(result) + "\n"
    if write_output(text, args.out) is not None and not args.quiet:
        say(f"mcrank story: wrote {args.out}")
    return 0


def render_table(result: dict) -> str:
    """The story as text: Table 1, then the yields and which metrics voted the other way."""
    lines = ["Classifiers A and B on one balanced test set (paper eqs. 1-2)", ""]
    width = max(len(row.get("name", row.get("description", ""))) for row in result["metrics"] + result["utilities"])
    lines.append(f"{'Table 1: metric':<{width}}  {'A':>6}  {'B':>6}  favours")
    for m in result["metrics"]:
        lines.append(f"{m['name']:<{width}}  {m['A']:6.2f}  {m['B']:6.2f}  {m['favours']}")
    lines += ["", "Utility yield per test item (eq. 9)"]
    indent = " " * (width + 2)
    for u in result["utilities"]:
        lines.append(f"{u['description']:<{width}}  {u['A']:+6.1f}  {u['B']:+6.1f}  best: {u['best']}  ({u['unit']})")
        lines.append(f"{indent}U = {u['matrix']}")
        verdict = ", ".join(u["metrics_against"]) or "none"
        # Wrapped to 80 columns, as every other output of the CLI.
        lines += textwrap.wrap(
            f"metrics favouring the other classifier: {verdict}", DEFAULT_WIDTH, initial_indent=indent, subsequent_indent=indent + "  "
        )
    return "\n".join(lines)
