"""The ``mcrank`` command line: it parses, calls the API and prints, nothing more.

Each subcommand lives in its own module ``mcrank.cli.<name>`` with two functions:
``add_parser(subparsers)``, which registers its options and sets ``handler``, and the
handler itself, ``handler(args) -> int``. Heavy imports stay inside handlers, flags generated
from a command's implementation are added when its parser is first used (``arguments=`` of
:class:`~mcrank.cli._common.SubcommandParser`), and numba is loaded only when a kernel runs
(:mod:`mcrank._jit`), so that ``mcrank --help`` answers at once.
Ctrl-C and SIGTERM are handled (:mod:`mcrank._signals`) from the first line of the ``mcrank``
command (:mod:`mcrank.__main__`), or of :func:`main` when called from Python. The exit codes
are those of ``docs/cli.md``: 0, 2 for bad input (one line on stderr), 130 for Ctrl-C, 141
when the reader of stdout went away, 143 for SIGTERM.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys

from mcrank import _signals
from mcrank.cli._common import OneLineParser, SubcommandParser, UsageError, fail, notes_said

__all__ = ["main"]

SUBCOMMANDS = ("story", "run", "merge", "reproduce", "evaluate")

#: Exit code when the reader of stdout went away (``mcrank story | head -1``): 128 + SIGPIPE,
#: what a shell reports for a program killed by SIGPIPE, as 130 is 128 + SIGINT.
BROKEN_PIPE = 141


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
    # stopped. The ``mcrank`` command has installed them already (:mod:`mcrank.__main__`).
    installed = _signals.install()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.error(f"a command is required: {', '.join(SUBCOMMANDS)}")
        command = args.command
        code = int(args.handler(args) or 0)
        notes_said(code == 0)
        if sys.stdout is not None:  # None when started with stdout closed (``>&-``)
            sys.stdout.flush()  # here, so that a closed pipe is caught below, not at exit
        # Not cut by a signal (it then waits, and is raised below): a Ctrl-C inside the shutdown
        # left a semaphore unlinked but still registered, and loky's resource tracker warned of
        # a "leaked" one after the command's last line.
        with _signals.held():
            _stop_process_workers()
        _signals.check()  # a signal whose exception something lost
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
        return _stopped(command, isinstance(interrupt, _signals.Terminated))
    except Exception:
        if _signals.received() is None:
            raise
        # The signal's exception, turned into another by C code it was raised in (numpy's
        # import of its C extension makes it an ImportError): still the signal.
        return _stopped(command, _signals.received() == signal.SIGTERM)
    finally:
        notes_said(False)  # a refusal, or a signal: its one line alone
        if installed:
            _signals.restore()


def _stopped(command: str | None, terminated: bool) -> int:
    """Stop the process workers and say so: a second signal (a second Ctrl-C, ``kill`` sent
    twice) waits until both are done, and is then dropped, since the command is stopping already.
    Cut by it, the workers' clean-up (joblib's, or this) left a loky worker and the resource
    trackers running, and holding stderr open, long after the command had exited."""
    with contextlib.suppress(KeyboardInterrupt), _signals.held():
        _stop_process_workers(stopping=True)
        _signals.stopped(_prefix(command), terminated)
    return _signals.TERMINATED if terminated else _signals.INTERRUPTED


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


def _stop_process_workers(*, stopping: bool = False) -> None:
    """Stop the loky backend's process workers, if a command started them, while Ctrl-C is still
    caught here: left to the interpreter's exit, their manager thread is joined after
    ``main`` has returned, and a Ctrl-C in that join (the 0.4 s after ``run`` says "wrote")
    printed a 13-line traceback and exited 0.

    ``stopping`` (on a signal): every loky process of this one is killed as well. A second
    signal that cut joblib's own shutdown leaves its join of the manager thread marked done
    (CPython's bpo-45274), so the shutdown called again returns before the workers are gone."""
    reusable = sys.modules.get("joblib.externals.loky.reusable_executor")
    executor = None if reusable is None else getattr(reusable, "_executor", None)
    if executor is not None:
        executor.shutdown(wait=True, kill_workers=True)  # the work is done: idle workers need no goodbye
        reusable._executor = None
    multiprocessing = sys.modules.get("multiprocessing")
    if stopping and multiprocessing is not None:
        workers = [p for p in multiprocessing.active_children() if type(p).__module__.startswith("joblib.externals.loky")]
        for worker in workers:
            with contextlib.suppress(OSError, TypeError):  # gone already, or not started (no pid)
                os.kill(worker.pid, signal.SIGKILL)  # loky's Popen has no kill()
        for worker in workers:
            worker.join(timeout=5)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
