"""The ``mcrank`` command line: it parses, calls the API and prints, nothing more.

Each subcommand lives in its own module ``mcrank.cli.<name>`` with two functions:
``add_parser(subparsers)``, which registers its options and sets ``handler``, and the
handler itself, ``handler(args) -> int``. Heavy imports stay inside handlers, and numba is
loaded only when a kernel runs (:mod:`mcrank._jit`), so that ``mcrank --help`` answers at once.
Ctrl-C and SIGTERM are handled from the first line of :func:`main`, before any of them. The exit codes are those of ``docs/cli.md``: 0, 2 for bad
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
    parser.add_argument("--version", action=_Version, help="show program's version number and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=SubcommandParser)
    for name in SUBCOMMANDS:
        importlib.import_module(f"mcrank.cli.{name}").add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``mcrank`` command line; return its exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((word for word in argv if word in SUBCOMMANDS), None)
    # First of all, before anything heavy is imported (numpy, numba: 1-3 s), so that Ctrl-C
    # and SIGTERM (``kill``, ``timeout``, a batch scheduler) stop the command at any moment
    # with one line, and the same clean-up runs: no temporary file left, process workers
    # stopped.
    signals = _Signals()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.error(f"a command is required: {', '.join(SUBCOMMANDS)}")
        command = args.command
        code = int(args.handler(args) or 0)
        if sys.stdout is not None:  # None when started with stdout closed (``>&-``)
            sys.stdout.flush()  # here, so that a closed pipe is caught below, not at exit
        _stop_process_workers()
        signals.raise_dropped()
        return code
    except BrokenPipeError:
        # The reader of stdout has gone (``| head``): nothing to say. Point stdout at
        # /dev/null so that the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE
    except (UsageError, ValueError, KeyError, OSError) as error:
        return fail(command, error)
    except KeyboardInterrupt as interrupt:
        return _stopped(command, isinstance(interrupt, Terminated))
    except Exception:
        if not signals.received:
            raise
        # The signal's exception, turned into another by C code it was raised in (numpy's
        # import of its C extension makes it an ImportError): still the signal.
        return _stopped(command, signals.received[0] == signal.SIGTERM)
    finally:
        signals.restore()


def _stopped(command: str | None, terminated: bool) -> int:
    print(f"{_prefix(command)}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
    return TERMINATED if terminated else 130


def _prefix(command: str | None) -> str:
    return "mcrank" if command is None else f"mcrank {command}"


class _Version(argparse.Action):
    """``--version``: the installed version, read only when asked for (see :mod:`mcrank`)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from mcrank import __version__

        print(f"mcrank {__version__}")
        parser.exit()


class _Signals:
    """SIGINT raises KeyboardInterrupt and SIGTERM :class:`Terminated`, from now until
    :meth:`restore`, and each is noted: one whose exception Python dropped (raised inside a
    weakref callback or a finaliser, where it is printed and ignored) or some library
    swallowed still ends the command, with the same exit code, by :meth:`raise_dropped`.
    While numba compiles a kernel in this thread, the exception waits until that compile
    returns (:func:`mcrank._jit.after_compiling`).
    Handlers can only be set from the main thread; elsewhere nothing changes."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self._previous: dict = {}
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                if signal.getsignal(signum) is not signal.SIG_IGN:  # ``nohup``: ignored stays ignored
                    self._previous[signum] = signal.signal(signum, self._handler)

    def _handler(self, signum, frame):
        self.received.append(signum)
        # Not imported, or not yet to that line (the signal may land in its import): nothing compiles.
        after_compiling = getattr(sys.modules.get("mcrank._jit"), "after_compiling", None)
        if after_compiling is not None and after_compiling(self.raise_dropped):
            return  # raised inside LLVM's callbacks, it would be dropped: raised as the compile returns
        raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt

    def raise_dropped(self) -> None:
        """Raise the first signal received, if any: its exception did not end the command."""
        if self.received:
            raise Terminated if self.received[0] == signal.SIGTERM else KeyboardInterrupt

    def restore(self) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)


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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
