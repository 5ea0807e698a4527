"""The ``mcrank`` command line: it parses, calls the API and prints, nothing more.

Each subcommand lives in its own module ``mcrank.cli.<name>`` with two functions:
``add_parser(subparsers)``, which registers its options and sets ``handler``, and the
handler itself, ``handler(args) -> int``. Heavy imports stay inside handlers, so that
``mcrank --help`` answers at once.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
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
    with _closed_streams_replaced():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    previous = _terminate_like_interrupt()
    try:
        code = int(args.handler(args) or 0)
        sys.stdout.flush()  # here, so that a closed pipe is caught below, not at exit
        return code
    except BrokenPipeError:
        # The reader of stdout has gone (``| head``): not an input error, and nothing to say.
        # Point stdout at /dev/null so that the interpreter's final flush of what is still
        # buffered does not fail again, and exit quietly with 128 + SIGPIPE (see BROKEN_PIPE).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE
    except (UsageError, ValueError, KeyError, OSError) as error:
        return fail(args.command, error)
    except Terminated:
        print(f"mcrank {args.command}: terminated", file=sys.stderr)
        return TERMINATED
    except KeyboardInterrupt:
        print(f"mcrank {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class _ClosedStdout:
    """Stands for a standard output the command was started without (``mcrank story >&-``):
    writing to it is an OSError, reported as one line like any other, and flushing it is
    nothing, so that a command that writes only to ``--out`` still succeeds."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, f"{os.strerror(errno.EBADF)} (it was closed when mcrank started)", "standard output")

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def _is_open(descriptor: int) -> bool:
    try:
        os.fstat(descriptor)
    except OSError:
        return False
    return True


@contextlib.contextmanager
def _closed_streams_replaced():
    """Run the command as if a closed stdout or stderr (``mcrank story >&-``) were open on
    /dev/null, while ``--out`` still refuses them as closed.

    Python sets ``sys.stdout`` or ``sys.stderr`` to None when the process starts with that
    descriptor closed, and every ``.write`` would be an AttributeError and a traceback. So:

    - /dev/null is put on the closed descriptor itself, inheritable: the next file opened
      cannot take its number, and process workers (loky) start with it open;
    - :func:`mcrank.results.closed_descriptors` makes ``--out /dev/stdout`` an error rather
      than a silent write to /dev/null;
    - ``sys.stdout`` becomes :class:`_ClosedStdout`, whose writes are an OSError, reported
      as one line; ``sys.stderr`` writes to /dev/null (the exit code still tells).

    Everything is put back when the command returns.
    """
    from mcrank.results import closed_descriptors

    closed = [descriptor for descriptor in (1, 2) if not _is_open(descriptor)]
    for descriptor in closed:
        devnull = os.open(os.devnull, os.O_WRONLY)  # the lowest free number: perhaps this one
        if devnull != descriptor:
            os.dup2(devnull, descriptor)  # inheritable
            os.close(devnull)
        else:
            os.set_inheritable(descriptor, True)
    saved = sys.stdout, sys.stderr
    with contextlib.ExitStack() as stack:
        stack.callback(lambda: [os.close(descriptor) for descriptor in closed])
        stack.enter_context(closed_descriptors(closed))
        if sys.stdout is None:
            sys.stdout = _ClosedStdout()
        if sys.stderr is None:
            sys.stderr = stack.enter_context(open(os.devnull, "w"))
        try:
            yield
        finally:
            sys.stdout, sys.stderr = saved


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs (temporary files removed)."""


def _raise_terminated(signum, frame):
    raise Terminated


def _terminate_like_interrupt():
    """Make SIGTERM raise :class:`Terminated` in the main thread; return the old handler, or
    None where a handler cannot be set (not the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_terminated)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
