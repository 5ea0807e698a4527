"""What every subcommand shares: one-line errors with exit code 2, and output helpers."""

from __future__ import annotations

import argparse
import errno
import os
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from mcrank._signals import say

__all__ = [
    "DEFAULT_WIDTH",
    "EVALUATE_FORMAT_BY_SUFFIX",
    "FORMAT_BY_SUFFIX",
    "STDOUT",
    "OneLineParser",
    "SubcommandParser",
    "UsageError",
    "check_outputs",
    "fail",
    "flag_names",
    "html_text",
    "metric_ids",
    "output_format",
    "path_argument",
    "terminal_width",
    "write_output",
    "write_stdout",
]


class UsageError(Exception):
    """Bad input from the user: reported as one line on stderr, exit code 2."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit code 2, and which takes
    an argument that starts with a minus and a digit, or is minus infinity or NaN (``-inf``,
    ``-nan``), for a value, not an option: a list or a grid (``--class-counts -1,5``,
    ``--thresholds -0.1,0.5``, ``--sd -1:1:0.5``), or a pair of numbers
    (``--calibration-intercept-range -inf 0``), then reaches its own check, which names the bad
    value, where argparse said "expected one argument"."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # argparse's own pattern takes -1 and -0.5 only; no option of mcrank starts with
        # -<digit>, nor is -inf, -infinity or -nan (any case: numeral() reads them so).
        self._negative_number_matcher = re.compile(r"^-(?:\.?\d|(?:inf|infinity|nan)$)", re.IGNORECASE)
        # Numbers as ASCII decimal numerals only: argparse's float and int also take "1_000"
        # and the digits of other scripts.
        self.register("type", float, _float_type)
        self.register("type", int, _int_type)

    def error(self, message: str):  # noqa: D102 - argparse API
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _float_type(text: str) -> float:
    from mcrank._validation import parse_float

    return parse_float(text)


def _int_type(text: str) -> int:
    from mcrank._validation import parse_int

    return parse_int(text)


_float_type.__name__, _int_type.__name__ = "float", "int"  # argparse's refusal: "invalid float value: '1_000'"


class SubcommandParser(OneLineParser):
    """The parser of one subcommand: it reports arguments it does not know itself.

    argparse hands a subparser's unknown arguments back to the top-level parser, whose error
    would then begin with ``mcrank:`` and point to ``mcrank --help``; here they are the
    subcommand's error, ``mcrank story: error: unrecognized arguments: ...``.

    Its arguments may be added when it is first used (it parses, or prints its help or usage):
    ``subparsers.add_parser(name, arguments=add)`` calls ``add(parser)`` then, so that a command
    whose flags are generated from its implementation's declarations (``mcrank evaluate``'s
    options) costs other commands, and ``mcrank --help``, no import of it.
    """

    def __init__(self, *args, arguments: Callable | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self._deferred_arguments = arguments

    def _add_deferred_arguments(self) -> None:
        add, self._deferred_arguments = self._deferred_arguments, None
        if add is not None:
            add(self)

    def parse_known_args(self, args=None, namespace=None):  # noqa: D102 - argparse API
        self._add_deferred_arguments()
        namespace, extras = super().parse_known_args(args, namespace)
        # A "--" with no positional argument after it (``FILE --metrics tpr --``) ends the list
        # as documented, but argparse leaves it over.
        extras = [extra for extra in extras if extra != "--"]
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def format_help(self):  # noqa: D102 - argparse API
        self._add_deferred_arguments()
        return super().format_help()

    def format_usage(self):  # noqa: D102 - argparse API
        self._add_deferred_arguments()
        return super().format_usage()


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
    if sys.stdout is None:  # started with stdout closed (``mcrank story >&-``)
        raise OSError(errno.EBADF, os.strerror(errno.EBADF), "standard output")
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


#: The ``--out`` values that mean standard output: none given, or ``-`` by convention.
STDOUT = (None, "-")


def check_outputs(outputs: dict[str, str | None], *, inputs=()) -> None:
    """Check every path a command writes, ``{flag: path}`` (``{"--out": ..., "--plot": ...}``),
    before any work, so that none ends on a path it cannot or must not write.

    A UsageError for: a directory, or a file in a directory that does not exist (nothing is
    created); one of the command's own ``inputs`` (a file read would be replaced); another of
    its outputs (one would replace the other); a path inside the repository's committed
    ``results/`` or ``experiments/``, which only a full-size ``mcrank reproduce`` writes (links
    count: paths are resolved). An OSError for a read-only file or a directory where no file
    can be created (see :func:`mcrank.results.check_out_file`). Standard output (None or
    ``-``) needs no check.
    """
    if all(out in STDOUT for out in outputs.values()):
        return
    from mcrank.results import check_out_file, repository_root

    root = repository_root()
    committed = () if root is None else tuple(root / name for name in ("results", "experiments"))
    checked: dict[Path, str] = {}
    for flag, out in outputs.items():
        if out in STDOUT:
            continue
        path = Path(out)
        if path.is_dir():
            raise UsageError(f"{flag} {out}: is a directory; give a file name")
        if not path.parent.is_dir():
            raise UsageError(f"{flag} {out}: directory {path.parent} does not exist")
        try:
            target = path.resolve()
        except (OSError, RuntimeError):  # a link loop: check_out_file says so in one line
            check_out_file(path)
            raise
        for given in inputs:
            if given is not None and given not in STDOUT and Path(given).resolve() == target:
                raise UsageError(f"{flag} {out}: is the input {given}, which the output would replace; give another file")
        if target in checked:
            raise UsageError(f"{flag} {out}: is also {checked[target]}, which it would replace; give each output its own file")
        for folder in committed:
            if folder.resolve() in target.parents:
                raise UsageError(
                    f"{flag} {out}: is inside the repository's {folder.name}/, which only a full-size mcrank reproduce writes; "
                    "give a path elsewhere"
                )
        check_out_file(path)
        checked[target] = flag


#: The output format an ``--out`` file's extension implies, when ``--format`` is not given.
FORMAT_BY_SUFFIX = {".json": "json", ".csv": "csv"}


#: ``mcrank evaluate``'s, which also writes an HTML page.
EVALUATE_FORMAT_BY_SUFFIX = {**FORMAT_BY_SUFFIX, ".html": "html"}


def output_format(out: str | None, by_suffix: dict[str, str] = FORMAT_BY_SUFFIX) -> str:
    """The format of ``--out PATH`` without ``--format``: by its extension (in ``by_suffix``),
    else ``table``."""
    return "table" if out in STDOUT else by_suffix.get(Path(out).suffix.lower(), "table")


def html_text(*results) -> str:
    """``--format html``: one self-contained page of ``results``, their figures embedded
    (:func:`mcrank.figures.report_figures.html_page`). matplotlib is imported here, and only here
    on ``evaluate``'s path."""
    from mcrank.figures.report_figures import html_page

    return html_page(*results)


#: Characters a line of a table written to a file, or to what is not a terminal.
DEFAULT_WIDTH = 80


def terminal_width(out: str | None = None) -> int:
    """The width of the tables: the terminal's (:func:`shutil.get_terminal_size`, which reads
    ``COLUMNS`` first) when they go to standard output, else :data:`DEFAULT_WIDTH`."""
    if out not in STDOUT:
        return DEFAULT_WIDTH
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns or DEFAULT_WIDTH


#: The notes of the command that runs: said once it has succeeded, so that a refusal after a
#: note is still its one line.
_NOTES: list[str] = []


def note(line: str) -> None:
    """Say ``line`` (a note on stderr) once the command has succeeded; dropped if it refuses."""
    _NOTES.append(line)


def notes_said(succeeded: bool) -> None:
    """Say the notes kept by :func:`note` if the command ``succeeded``, and forget them."""
    lines = list(_NOTES) if succeeded else []
    _NOTES.clear()
    for line in lines:
        say(line)


def json_text(document) -> str:
    """``document`` as the command line writes JSON: indented by 2, ending in a newline.
    ``json`` is imported here, as only ``--format json`` reads it."""
    import json

    from mcrank._io import json_ready

    return json.dumps(json_ready(document), indent=2, allow_nan=False) + "\n"


def write_output(text: str, out: str | None) -> Path | None:
    """Write ``text`` where ``--out`` says: standard output for None or ``-``, else the file,
    atomically (:func:`mcrank.results.atomic_write_text`). Returns the file written, or None
    for standard output."""
    if out in STDOUT:
        write_stdout(text)
        return None
    from mcrank.results import atomic_write_text

    return atomic_write_text(out, text)


def class_names(text: str | None) -> tuple[str, ...] | None:
    """``--classes A,B,...``: the class order of the utility matrix as named on the command line
    (checked further by :func:`mcrank.evaluate.targets.class_order`), or None."""
    if text is None:
        return None
    names = tuple(name.strip() for name in text.split(","))
    if len(names) < 2 or not all(names):
        raise UsageError(f"--classes {text}: give the class names in order, separated by commas (at least 2, none empty)")
    return names


def flag_names(message: str, flags: dict[str, str], *, after_file: bool = False) -> str:
    """A library message with its parameters named as the command line's flags.

    The library names a parameter as ``"the parameter utility"``, or at the start of a message
    (``"class_counts: ..."``, ``"class_counts sum to ..."``), or, with ``after_file``, after a
    file's name (``"x.csv: thresholds: ..."``, where no key of the file has that name); ``flags``
    maps each parameter to its flag (``{"utility": "--utility"}``).
    """
    for parameter, flag in flags.items():
        message = message.replace(f"the parameter {parameter}", flag)
        rest = message[len(parameter) :]
        if message.startswith(parameter) and not (rest[:1].isalnum() or rest[:1] == "_"):
            message = flag + rest
        if after_file and (at := message.find(f": {parameter}:")) >= 0:
            message = message[:at] + f": {flag}:" + message[at + len(parameter) + 3 :]
    return message


def flagged_by(flags: dict[str, str], *, after_file: bool = False):
    """A caller ``call(function, *args, **kwargs)`` that turns a library ValueError naming one
    of ``flags``' parameters into a UsageError naming the flag (:func:`flag_names`)."""

    def call(function, *args, **kwargs):
        try:
            return function(*args, **kwargs)
        except ValueError as error:
            message = str(error)
            if (flagged := flag_names(message, flags, after_file=after_file)) != message:
                raise UsageError(flagged) from None
            raise

    return call


def fail(command: str, error: BaseException) -> int:
    """Print ``error`` as one line on stderr and return exit code 2."""
    message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    if isinstance(error, OSError) and error.filename is not None:
        message = f"{error.filename}: {error.strerror or message}"
    message = " ".join(str(message).split())  # one line, whatever the exception held
    say(f"mcrank {command}: error: {message}")
    return 2
