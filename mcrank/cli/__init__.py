"""The ``mcrank`` command line: it parses, calls the API and prints, nothing more.

Each subcommand lives in its own module ``mcrank.cli.<name>`` with two functions:
``add_parser(subparsers)``, which registers its options and sets ``handler``, and the
handler itself, ``handler(args) -> int``. Heavy imports stay inside handlers, so that
``mcrank --help`` answers at once. The exit codes are those of ``docs/cli.md``: 0, 2 for bad
input (one line on stderr), 130 for Ctrl-C, 141 when the reader of stdout went away, 143
for SIGTERM.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading

from mcrank import __version__
from mcrank.cli._common import OneLineParser, SubcommandParser, UsageError, fail

__all__ = ["main"]

SUBCOMMANDS = ("story", "run", "reproduce", "evaluate")

#: Exit code when the reader of stdout went away (``mcrank story | head -1``): 128 + SIGPIPE,
#: what a shell reports for a program killed by SIGPIPE, as 130 is 128 + SIGINT.
BROKEN_PIPE = 141

#: Exit code after SIGTERM: 128 + SIGTERM, as a shell reports.
TERMINATED = 143


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="mcrank",
        description=(
            "Rank classifiers by utility yield (decision theory), and measure by Monte Carlo how "
            "often popular metrics misrank pairs of classifiers."
        ),
    )
    parser.add_argument("--version", action="version", version=f"mcrank {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=SubcommandParser)
    for name in SUBCOMMANDS:
        importlib.import_module(f"mcrank.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``mcrank`` command line; return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.error(f"a command is required: {', '.join(SUBCOMMANDS)}")
    # SIGTERM (``kill``, ``timeout``, a batch scheduler) stops the command as Ctrl-C does, so
    # that the same clean-up runs: no temporary file left, process workers stopped.
    previous = signal.signal(signal.SIGTERM, _raise_terminated) if threading.current_thread() is threading.main_thread() else None
    try:
        code = int(args.handler(args) or 0)
        if sys.stdout is not None:  # None when started with stdout closed (``>&-``)
            sys.stdout.flush()  # here, so that a closed pipe is caught below, not at exit
        _stop_process_workers()
        return code
    except BrokenPipeError:
        # The reader of stdout has gone (``| head``): nothing to say. Point stdout at
        # /dev/null so that the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE
    except (UsageError, ValueError, KeyError, OSError) as error:
        return fail(args.command, error)
    except KeyboardInterrupt as interrupt:
        terminated = isinstance(interrupt, Terminated)
        print(f"mcrank {args.command}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return TERMINATED if terminated else 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _stop_process_workers() -> None:
    """Stop the loky backend's process workers, if a command started them, while Ctrl-C is still
    caught here: left to the interpreter's exit, their manager thread is joined after
    ``main`` has returned, and a Ctrl-C in that join (the 0.4 s after ``run`` says "wrote")
    printed a 13-line traceback and exited 0."""
    reusable = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = None if reusable is None else getattr(reusable, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)  # the work is done: idle workers need no goodbye
        reusable._executor = None


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs."""


def _raise_terminated(signum, frame):
    raise Terminated


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
