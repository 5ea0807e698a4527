"""What every subcommand shares: one-line errors with exit code 2, and output helpers."""

from __future__ import annotations

import argparse
import sys

__all__ = ["OneLineParser", "SubcommandParser", "UsageError", "fail", "metric_ids", "path_argument", "write_stdout"]


class UsageError(Exception):
    """Bad input from the user: reported as one line on stderr, exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str):  # noqa: D102 - argparse API
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class SubcommandParser(OneLineParser):
    """The parser of one subcommand: it reports arguments it does not know itself.

    argparse hands a subparser's unknown arguments back to the top-level parser, whose error
    would then begin with ``mcrank:`` and point to ``mcrank --help``; here they are the
    subcommand's error, ``mcrank story: error: unrecognized arguments: ...``.
    """

    def parse_known_args(self, args=None, namespace=None):  # noqa: D102 - argparse API
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


def path_argument(text: str) -> str:
    """argparse ``type`` of a path option: refuses an empty path, which would otherwise mean
    the current directory."""
    if not text.strip():
        raise argparse.ArgumentTypeError("empty path")
    return text


def metric_ids(arguments: list[str]) -> tuple[str, ...]:
    """``--metrics`` as ids, for ``run`` and ``evaluate`` alike: separated by spaces or commas
    ("accuracy f1", "accuracy,f1"), empty items skipped; a UsageError if none is left."""
    ids = tuple(m.strip() for argument in arguments for m in argument.split(",") if m.strip())
    if not ids:
        raise UsageError("--metrics: give at least one metric id")
    return ids


#: Characters per write of :func:`write_stdout`.
_STDOUT_SLICE = 1 << 16


def write_stdout(text: str) -> None:
    """Write ``text`` to standard output and flush it, so that an error (a full disk) names
    the standard output, as an error writing ``--out`` names the file."""
    try:
        # In slices: CPython's buffered writer takes a write that the reader of a pipe left
        # part-way for complete, so one large write would hide a broken pipe (exit 0, not 141).
        for start in range(0, len(text), _STDOUT_SLICE):
            sys.stdout.write(text[start : start + _STDOUT_SLICE])
        sys.stdout.flush()
    except BrokenPipeError:
        raise  # the reader went away: handled apart, quietly
    except OSError as error:
        if error.filename is None:
            raise OSError(error.errno, error.strerror, "standard output") from None
        raise


def fail(command: str, error: BaseException) -> int:
    """Print ``error`` as one line on stderr and return exit code 2."""
    message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    if isinstance(error, OSError) and error.filename is not None:
        message = f"{error.filename}: {error.strerror or message}"
    message = " ".join(str(message).split())  # one line, whatever the exception held
    print(f"mcrank {command}: error: {message}", file=sys.stderr)
    return 2
