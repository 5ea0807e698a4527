"""The hostile pass: hundreds of scenarios a hostile or careless user would try, each with the
outcome the docs promise (issue 33).

Each scenario is one command line (``mcrank run``, ``evaluate``, ``reproduce``, ``story``), one
call of the Python API, or one signal sent to a running command, built from generators:
malformed files of every input kind, every numeric option at and beyond its limits, paths into
the repository's ``results/`` and ``experiments/`` (directly and through links), FIFOs, options
that change nothing in the mode given, and arrays with NaN, wrong lengths or bogus names. Each
states what must happen:

- ``ok``: exit code 0, some output, only ``mcrank <command>: ...`` lines on stderr;
- ``refuse``: exit code 2, exactly one line on stderr starting with ``mcrank <command>: ``, no
  traceback, nothing on stdout, no file written or changed;
- ``clean``: either of the two (for inputs where both are defensible, such as a name of odd
  unicode that may be accepted or refused);
- ``raise``: a Python call raises ValueError (or TypeError where the type is wrong) whose
  message names the argument: never IndexError, KeyError, ZeroDivisionError, a warning or a
  silent NaN;
- ``signal``: SIGINT or SIGTERM at some moment gives exit code 130 or 143 and one line.

Every scenario has a time limit (a hang fails it) and must leave the repository's ``results/``
and ``experiments/`` as they were (a scenario that changed them fails, and the files are put
back). Command lines run in this process (``mcrank.cli.main``, in a temporary directory), signals
in a child process. Run from anywhere::

    python scripts/hostile.py              # the summary, and one line per failing scenario
    python scripts/hostile.py --list       # every scenario and its expectation
    python scripts/hostile.py --refusals   # every distinct one-line refusal seen
    python scripts/hostile.py --verbose    # each scenario's outcome
    python scripts/hostile.py --area api --match auc

It exits with 1 when a scenario fails. ``tests/test_hostile.py`` runs a short subset.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
#: The repository's folders that only a full-size ``mcrank reproduce`` writes.
COMMITTED = ("results", "experiments")
#: Seconds a command or call may take before it counts as hung.
TIME_LIMIT = 20.0
#: A FIFO is refused at once or not at all: a shorter limit keeps a hang cheap.
FIFO_TIME_LIMIT = 1.0

#: Scenarios that fail, one per known defect (none now: issue 33's are fixed):
#: ``tests/test_hostile.py`` expects them to fail (strict), so that a fix says so and its
#: entry is removed here.
KNOWN_DEFECTS: frozenset[str] = frozenset()


# ----------------------------------------------------------------------------- the scenarios


@dataclass(frozen=True)
class Fifo:
    """A named pipe, made in the scenario's directory; with ``reader``, a thread reads it."""

    reader: bool = False


@dataclass(frozen=True)
class Link:
    """A symbolic link to ``target`` (``{root}``, ``{tmp}`` and ``{ex}`` are replaced)."""

    target: str


@dataclass(frozen=True)
class Sparse:
    """A file of ``size`` bytes that takes no room on disk (past any input limit)."""

    size: int


@dataclass(frozen=True)
class Folder:
    """A directory, with ``files`` in it."""

    files: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ReadOnly:
    """A file of ``data`` without write permission."""

    data: bytes


@dataclass(frozen=True)
class Scenario:
    """One thing a user tries, and what must happen.

    ``argv`` is a command line (``{tmp}``, the scenario's temporary directory, ``{root}``, the
    repository, and ``{ex}``, its ``examples/``, are replaced); ``files`` what the directory holds
    first (bytes, or :class:`Fifo`, :class:`Link`, :class:`Sparse`, :class:`Folder`,
    :class:`ReadOnly`); ``call`` a Python call instead; ``send`` a signal and when, for a child
    process. ``says`` and ``not_says`` are texts the refusal (or the output) must and must not
    hold; ``check`` looks further at an output or a call's result and returns a problem, or None.
    """

    name: str
    expect: str
    argv: tuple = ()
    files: dict = field(default_factory=dict)
    cwd: str = "tmp"
    call: Callable | None = None
    names: str | None = None
    raises: tuple = (ValueError,)
    says: tuple = ()
    not_says: tuple = ()
    check: Callable | None = None
    send: tuple | None = None
    env: dict = field(default_factory=dict)
    output: bool = True
    time_limit: float = TIME_LIMIT
    why: str = ""

    @property
    def area(self) -> str:
        return self.name.split("/")[0]


SCENARIOS: list[Scenario] = []


def scenario(name: str, expect: str, *argv, **options) -> None:
    """Add one scenario to :data:`SCENARIOS`."""
    SCENARIOS.append(Scenario(name, expect, tuple(str(a) for a in argv), **options))


def api(name: str, expect: str, call: Callable, **options) -> None:
    """Add one scenario of the Python API."""
    SCENARIOS.append(Scenario(f"api/{name}", expect, call=call, **options))


# ----------------------------------------------------------------------------- inputs

FACTORY = (EXAMPLES / "factory.json").read_bytes()
TRIAGE = (EXAMPLES / "triage_3class.json").read_bytes()
LABELS = (EXAMPLES / "triage_labels.csv").read_bytes()
WINE_UTILITY = (EXAMPLES / "wine_utility.json").read_bytes()
UTILITY_2 = b'{"utility": [[1, -3], [0, 0]], "classes": ["sick", "well"]}'
MATRICES_CSV = b"classifier,output,true,count\nA,0,0,27\nA,0,1,15\nA,1,0,23\nA,1,1,35\nB,0,0,43\nB,0,1,18\nB,1,0,7\nB,1,1,32\n"
LABELS_2 = b"true,A,B\n" + b"".join(
    f"{t},{a},{b}\n".encode() for t, a, b in zip("ssswwwwsws" * 4, "swswwwssws" * 4, "sswwwwwsww" * 4, strict=True)
)
SCORES = b"true,m1,m2\n" + b"".join(
    f"{'sick' if k % 3 else 'well'},{(k * 37 % 100) / 100:.2f},{(k * 61 % 100) / 100:.2f}\n".encode() for k in range(60)
)


def matrices_json(classifiers, **extra) -> bytes:
    return json.dumps({"classifiers": classifiers, "utility": [[15, -335], [-35, 165]], **extra}).encode()


def long_form(rows) -> bytes:
    return ("classifier,output,true,count\n" + "".join(",".join(map(str, r)) + "\n" for r in rows)).encode()


def deep_json(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


#: Contents that are no valid input of any kind: (label, bytes).
GARBAGE = [
    ("empty", b""),
    ("whitespace", b"  \n\t\n"),
    ("binary", bytes(range(256)) * 4),
    ("nul-bytes", b"\x00" * 64),
    ("utf16", '{"classifiers": {}}'.encode("utf-16")),
    ("latin1", "true,A\nn\xe9,n\xe9\n".encode("latin-1")),
    ("lone-surrogate", b'{"classifiers": {"\xed\xa0\x80": [[1, 0], [0, 1]]}}'),
    ("deep-json", deep_json(100_000)),
    ("truncated-json", FACTORY[: len(FACTORY) // 2]),
    ("json-null", b"null"),
    ("json-string", b'"classifiers"'),
    ("json-number", b"42"),
    ("json-list", b"[[1, 2], [3, 4]]"),
    ("only-header-csv", b"classifier,output,true,count\n"),
    ("gif", b"GIF89a" + bytes(100)),
]


# ----------------------------------------------------------------------------- evaluate


def _evaluate_inputs() -> None:
    ex = "{ex}"
    # Every garbage content as each kind of input.
    for label, data in GARBAGE:
        scenario(f"evaluate/file-json/{label}", "refuse", "evaluate", "{tmp}/in.json", files={"in.json": data})
        scenario(f"evaluate/file-csv/{label}", "refuse", "evaluate", "{tmp}/in.csv", "--utility", f"{ex}/factory.json",
                 files={"in.csv": data})  # fmt: skip
        scenario(f"evaluate/labels/{label}", "refuse", "evaluate", "--labels", "{tmp}/l.csv", "--utility", f"{ex}/triage_3class.json",
                 files={"l.csv": data})  # fmt: skip
        scenario(f"evaluate/utility-file/{label}", "ok" if label == "json-list" else "refuse", "evaluate", f"{ex}/factory.json",
                 "--utility", "{tmp}/u.json", files={"u.json": data})  # fmt: skip
        scenario(f"evaluate/scores/{label}", "refuse", "evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick",
                 files={"s.csv": data})  # fmt: skip
    # Past the 64 MiB limit, as a sparse file: refused without reading it all.
    big = Sparse(65 * 2**20)
    scenario("evaluate/file-json/huge", "refuse", "evaluate", "{tmp}/in.json", files={"in.json": big}, says=("MiB",))
    scenario("evaluate/labels/huge", "refuse", "evaluate", "--labels", "{tmp}/l.csv", "--utility", f"{ex}/triage_3class.json",
             files={"l.csv": big}, says=("MiB",))  # fmt: skip
    scenario("evaluate/utility-file/huge", "refuse", "evaluate", f"{ex}/factory.json", "--utility", "{tmp}/u.json",
             files={"u.json": big}, says=("MiB",))  # fmt: skip
    scenario("evaluate/scores/huge", "refuse", "evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick", files={"s.csv": big},
             says=("MiB",))  # fmt: skip
    # A byte-order mark before valid content: read as UTF-8 with a BOM, or refused in one line.
    bom = b"\xef\xbb\xbf"
    scenario("evaluate/file-json/bom", "clean", "evaluate", "{tmp}/in.json", files={"in.json": bom + FACTORY})
    scenario("evaluate/file-csv/bom", "clean", "evaluate", "{tmp}/in.csv", "--utility", f"{ex}/factory.json",
             files={"in.csv": bom + MATRICES_CSV})  # fmt: skip
    scenario("evaluate/labels/bom", "clean", "evaluate", "--labels", "{tmp}/l.csv", "--utility", f"{ex}/triage_3class.json",
             files={"l.csv": bom + LABELS})  # fmt: skip
    scenario("evaluate/scores/bom", "clean", "evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick", files={"s.csv": bom + SCORES})
    scenario("evaluate/file-json/crlf", "ok", "evaluate", "{tmp}/in.json", files={"in.json": FACTORY.replace(b"\n", b"\r\n")})
    scenario("evaluate/labels/crlf", "ok", "evaluate", "--labels", "{tmp}/l.csv", "--utility", f"{ex}/triage_3class.json",
             files={"l.csv": LABELS.replace(b"\n", b"\r\n")})  # fmt: skip
    # Paths that are not files.
    for kind, argv in {
        "file": ("evaluate", "{tmp}/X.json"),
        "labels": ("evaluate", "--labels", "{tmp}/X.json", "--utility", f"{ex}/triage_3class.json"),
        "utility": ("evaluate", f"{ex}/factory.json", "--utility", "{tmp}/X.json"),
        "scores": ("evaluate", "--scores", "{tmp}/X.json", "--positive", "sick"),
    }.items():
        limit = {"time_limit": FIFO_TIME_LIMIT}
        scenario(f"evaluate/fifo/{kind}", "refuse", *argv, files={"X.json": Fifo()}, **limit)
        scenario(f"evaluate/directory/{kind}", "refuse", *argv, files={"X.json": Folder()})
        scenario(f"evaluate/missing/{kind}", "refuse", *argv)
        scenario(f"evaluate/dangling-link/{kind}", "refuse", *argv, files={"X.json": Link("{tmp}/nowhere")})
        scenario(f"evaluate/link-loop/{kind}", "refuse", *argv, files={"X.json": Link("{tmp}/X.json")})
        scenario(f"evaluate/unreadable/{kind}", "clean", *argv, files={"X.json": Link("/proc/self/mem")}, says=("X.json",))
        scenario(f"evaluate/device/{kind}", "refuse", *[a.replace("{tmp}/X.json", "/dev/zero") for a in argv], time_limit=FIFO_TIME_LIMIT)
    scenario("evaluate/missing/empty-path", "refuse", "evaluate", "")
    # Confusion matrices: numbers at the limits, wrong shapes, names.
    good = {"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]}
    cells = {
        "nan": ("NaN", "refuse"), "inf": ("Infinity", "refuse"), "neg-inf": ("-Infinity", "refuse"), "1e308": ("1e308", "refuse"),
        "1e309": ("1e309", "refuse"), "negative": ("-1", "refuse"), "fraction": ("2.5", "clean"), "minus-zero": ("-0.0", "ok"),
        "huge-int": ("1" + "0" * 400, "refuse"), "2^53": (str(2**53), "clean"), "bool": ("true", "refuse"), "string": ('"3"', "refuse"),
        "null": ("null", "refuse"), "list": ("[1]", "refuse"), "tiny": ("1e-320", "clean"), "zero": ("0", "ok"),
    }  # fmt: skip
    for label, (cell, expect) in cells.items():
        text = '{"classifiers": {"A": [[' + cell + ', 15], [23, 35]]}, "utility": [[15, -335], [-35, 165]]}'
        scenario(f"evaluate/cell/{label}", expect, "evaluate", "{tmp}/in.json", files={"in.json": text.encode()})
        scenario(f"evaluate/cell-csv/{label}", "ok" if label == "string" else expect, "evaluate", "{tmp}/in.csv", "--utility", f"{ex}/factory.json",
                 files={"in.csv": MATRICES_CSV.split(b"B,")[0].replace(b"A,0,0,27", b"A,0,0," + cell.strip('"').encode())})  # fmt: skip
    shapes = {
        "ragged": {"A": [[1, 2], [3]], "B": [[1, 2], [3, 4]]}, "one-by-one": {"A": [[1]], "B": [[2]]},
        "three-by-two": {"A": [[1, 2], [3, 4], [5, 6]], "B": [[1, 2], [3, 4], [5, 6]]}, "flat": {"A": [1, 2, 3, 4], "B": [1, 2, 3, 4]},
        "empty-matrix": {"A": [], "B": []}, "no-classifiers": {}, "all-zero": {"A": [[0, 0], [0, 0]], "B": [[0, 0], [0, 0]]},
        "3d": {"A": [[[1]]], "B": [[[1]]]}, "sizes-differ": {"A": [[1, 2], [3, 4]], "B": [[1, 2, 3], [4, 5, 6], [7, 8, 9]]},
        "other-totals": {"A": [[27, 15], [23, 35]], "B": [[1, 0], [0, 1]]},
    }  # fmt: skip
    for label, classifiers in shapes.items():
        expect = "clean" if label == "other-totals" else "refuse"
        scenario(f"evaluate/shape/{label}", expect, "evaluate", "{tmp}/in.json", files={"in.json": matrices_json(classifiers)})
    scenario("evaluate/shape/one-classifier", "ok", "evaluate", "{tmp}/in.json", files={"in.json": matrices_json({"A": good["A"]})})
    scenario("evaluate/shape/classifiers-a-list", "refuse", "evaluate", "{tmp}/in.json", files={"in.json": matrices_json([good["A"]])})
    scenario("evaluate/shape/duplicate-names", "refuse", "evaluate", "{tmp}/in.json",
             files={"in.json": b'{"classifiers": {"A": [[1, 2], [3, 4]], "A": [[4, 3], [2, 1]]}, "utility": [[1, 0], [0, 1]]}'})  # fmt: skip
    scenario("evaluate/shape/duplicate-rows-csv", "refuse", "evaluate", "{tmp}/in.csv", "--utility", f"{ex}/factory.json",
             files={"in.csv": MATRICES_CSV + b"A,0,0,1\n"})  # fmt: skip
    scenario("evaluate/shape/missing-cell-csv", "clean", "evaluate", "{tmp}/in.csv", "--utility", f"{ex}/factory.json",
             files={"in.csv": MATRICES_CSV.replace(b"A,0,0,27\n", b"")})  # fmt: skip
    scenario("evaluate/shape/class-out-of-range-csv", "refuse", "evaluate", "{tmp}/in.csv", "--utility", f"{ex}/factory.json",
             files={"in.csv": MATRICES_CSV.replace(b"A,0,0,27", b"A,5,0,27")})  # fmt: skip
    scenario("evaluate/shape/extra-column-csv", "refuse", "evaluate", "{tmp}/in.csv", "--utility", f"{ex}/factory.json",
             files={"in.csv": MATRICES_CSV.replace(b"A,0,0,27", b"A,0,0,27,9")})  # fmt: skip
    scenario("evaluate/shape/unknown-key", "clean", "evaluate", "{tmp}/in.json", files={"in.json": matrices_json(good, bogus=1)})
    scenario(
        "evaluate/shape/no-utility", "refuse", "evaluate", "{tmp}/in.json", files={"in.json": json.dumps({"classifiers": good}).encode()}
    )
    scenario("evaluate/shape/classes-too-few", "refuse", "evaluate", "{tmp}/in.json", files={"in.json": matrices_json(good, classes=["x"])})
    scenario(
        "evaluate/shape/classes-duplicate",
        "refuse",
        "evaluate",
        "{tmp}/in.json",
        files={"in.json": matrices_json(good, classes=["x", "x"])},
    )
    scenario(
        "evaluate/shape/classes-not-strings", "clean", "evaluate", "{tmp}/in.json", files={"in.json": matrices_json(good, classes=[1, 2])}
    )
    # Names: long, odd unicode, controls.
    names = {
        "long": "m" * 100_000, "rtl-override": "evil\u202egnp.exe", "zero-width": "A\u200b", "combining": "e\u0301",
        "emoji": "\U0001f600", "newline": "A\nB", "tab": "A\tB", "nul": "A\x00", "empty": "", "spaces": "   ",
        "formula": "=cmd|' /C calc'!A0", "quote": "A'B\"C", "comma": "A,B", "hash": "#A", "bidi-isolate": "\u2066A\u2069",
    }  # fmt: skip
    refused_names = {"newline", "tab", "nul", "empty"}
    for label, name in names.items():
        expect = "refuse" if label in refused_names else "clean"
        scenario(f"evaluate/name/{label}", expect, "evaluate", "{tmp}/in.json",
                 files={"in.json": matrices_json({name: good["A"], "B": good["B"]})})  # fmt: skip
        scenario(f"evaluate/name-csv/{label}", expect, "evaluate", "--format", "csv", "{tmp}/in.json",
                 files={"in.json": matrices_json({name: good["A"], "B": good["B"]})})  # fmt: skip
        label_csv = ("true," + name.replace(",", ";").replace("\n", " ") + ",B\n").encode() + LABELS_2.split(b"\n", 1)[1]
        scenario(f"evaluate/labels-name/{label}", "clean", "evaluate", "--labels", "{tmp}/l.csv", "--utility", "{tmp}/u.json",
                 files={"l.csv": label_csv, "u.json": UTILITY_2.replace(b"sick", b"s").replace(b"well", b"w")})  # fmt: skip
    scenario("evaluate/name/two-alike-when-cut", "ok", "evaluate", "{tmp}/in.json",
             files={"in.json": matrices_json({"m" * 60 + "a": good["A"], "m" * 60 + "b": good["B"]})})  # fmt: skip
    many = {f"model_{k:04d}": [[k % 7 + 1, k % 5 + 1], [9 - k % 7, 9 - k % 5]] for k in range(300)}
    scenario("evaluate/shape/300-classifiers", "ok", "evaluate", "{tmp}/in.json", files={"in.json": matrices_json(many)})
    # Utility matrices.
    utilities = {
        "nan": ('[[NaN, 0], [0, 1]]', "refuse"), "inf": ('[[Infinity, 0], [0, 1]]', "refuse"), "1e308": ("[[1e308, -1e308], [0, 1]]", "refuse"),
        "1e300": ("[[1e300, 0], [0, 1]]", "clean"), "tiny": ("[[1e-320, 0], [0, 0]]", "clean"), "constant": ("[[1, 1], [1, 1]]", "clean"),
        "zero": ("[[0, 0], [0, 0]]", "clean"), "minus-zero": ("[[-0.0, 1], [1, -0.0]]", "ok"), "3x3-for-2": ("[[1, 0, 0], [0, 1, 0], [0, 0, 1]]", "refuse"),
        "1x1": ("[[1]]", "refuse"), "ragged": ("[[1, 0], [0]]", "refuse"), "strings": ('[["a", 0], [0, 1]]', "refuse"),
        "bools": ("[[true, false], [false, true]]", "refuse"), "empty-list": ("[]", "refuse"), "scalar": ("5", "refuse"),
        "not-json": ("[[1, 0], [0, 1]", "refuse"), "distribution": ('{"matrices": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "probabilities": [0.7, 0.3]}', "ok"),
        "probabilities-not-1": ('{"matrices": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "probabilities": [0.5, 0.6]}', "refuse"),
        "probabilities-negative": ('{"matrices": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "probabilities": [-0.5, 1.5]}', "refuse"),
        "probabilities-nan": ('{"matrices": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "probabilities": [NaN, 1]}', "refuse"),
        "probabilities-count": ('{"matrices": [[[1, 0], [0, 1]]], "probabilities": [0.5, 0.5]}', "refuse"),
        "sd-in-json": ('{"matrix": [[1, 0], [0, 1]], "sd": 0.1}', "ok"), "sd-negative-in-json": ('{"matrix": [[1, 0], [0, 1]], "sd": -0.1}', "refuse"),
        "sd-nan-in-json": ('{"matrix": [[1, 0], [0, 1]], "sd": NaN}', "refuse"), "error-bogus": ('{"matrix": [[1, 0], [0, 1]], "sd": 0.1, "error": "bogus"}', "refuse"),
        "both-matrix-and-matrices": ('{"matrix": [[1, 0], [0, 1]], "matrices": [[[1, 0], [0, 1]]], "probabilities": [1]}', "refuse"),
        "classes-wrong": ('{"utility": [[1, 0], [0, 1]], "classes": ["x", "y"]}', "refuse"),
        "classes-three": ('{"utility": [[1, 0], [0, 1]], "classes": ["x", "y", "z"]}', "refuse"),
    }  # fmt: skip
    for label, (text, expect) in utilities.items():
        scenario(f"evaluate/utility/{label}", expect, "evaluate", f"{ex}/factory.json", "--utility", text)
        scenario(f"evaluate/utility-file/{label}", expect, "evaluate", f"{ex}/factory.json", "--utility", "{tmp}/u.json",
                 files={"u.json": text.encode()})  # fmt: skip
    # Labels files.
    label_files = {
        "no-truth-column": (b"x,A\n1,1\n", "refuse"), "only-header": (b"true,A\n", "refuse"), "no-classifier": (b"true\na\nb\n", "refuse"),
        "short-row": (b"true,A,B\na,a\nb,b,b\n", "refuse"), "long-row": (b"true,A\na,a,a\n", "refuse"), "blank-lines": (b"true,A\n\na,a\n\nb,b\n", "clean"),
        "unknown-class": (b"true,A\nlong durability,bogus\n", "refuse"), "duplicate-column": (b"true,A,A\na,a,a\nb,b,b\n", "refuse"),
        "quoted-newline": (b'true,A\n"a\nb",a\n', "refuse"), "nul-label": (b"true,A\na\x00,a\n", "refuse"), "unclosed-quote": (b'true,A\n"a,a\n', "refuse"),
    }  # fmt: skip
    for label, (data, expect) in label_files.items():
        scenario(f"evaluate/labels-file/{label}", expect, "evaluate", "--labels", "{tmp}/l.csv", "--utility", f"{ex}/factory.json",
                 files={"l.csv": data})  # fmt: skip
    scenario("evaluate/labels-file/no-utility", "refuse", "evaluate", "--labels", "{tmp}/l.csv", files={"l.csv": LABELS_2})
    scenario("evaluate/labels-file/truth-missing", "refuse", "evaluate", "--labels", "{tmp}/l.csv", "--utility", "{tmp}/u.json",
             "--truth", "nope", files={"l.csv": LABELS_2, "u.json": UTILITY_2.replace(b"sick", b"s").replace(b"well", b"w")})  # fmt: skip
    scenario("evaluate/labels-file/ok", "ok", "evaluate", "--labels", "{tmp}/l.csv", "--utility", "{tmp}/u.json",
             files={"l.csv": LABELS_2, "u.json": UTILITY_2.replace(b"sick", b"s").replace(b"well", b"w")})  # fmt: skip
    scenario("evaluate/labels-file/integer-labels", "ok", "evaluate", "--labels", "{tmp}/l.csv", "--utility", "[[1, 0], [0, 1]]",
             files={"l.csv": LABELS_2.replace(b"s", b"1").replace(b"w", b"0").replace(b"true", b"true")})  # fmt: skip
    many_labels = b"true,A\n" + b"".join(f"c{k},c{k}\n".encode() for k in range(5000))
    scenario("evaluate/labels-file/5000-classes", "refuse", "evaluate", "--labels", "{tmp}/l.csv", "--utility", f"{ex}/factory.json",
             files={"l.csv": many_labels})  # fmt: skip
    # Scores files.
    score_files = {
        "nan": (SCORES.replace(b"0.37", b"nan", 1), "refuse"), "inf": (SCORES.replace(b"0.37", b"inf", 1), "refuse"),
        "above-one": (SCORES.replace(b"0.37", b"1.5", 1), "refuse"), "negative": (SCORES.replace(b"0.37", b"-0.1", 1), "refuse"),
        "text": (SCORES.replace(b"0.37", b"high", 1), "refuse"), "empty-cell": (SCORES.replace(b"0.37", b"", 1), "refuse"),
        "three-classes": (SCORES + b"other,0.5,0.5\n", "refuse"), "one-class": (b"true,m\n" + b"sick,0.5\n" * 10, "refuse"),
        "1e-320": (SCORES.replace(b"0.37", b"1e-320", 1), "ok"), "minus-zero": (SCORES.replace(b"0.37", b"-0.0", 1), "ok"),
        "no-model": (b"true\nsick\nwell\n", "refuse"), "duplicate-model": (b"true,m,m\nsick,0.1,0.2\nwell,0.3,0.4\n", "refuse"),
    }  # fmt: skip
    for label, (data, expect) in score_files.items():
        scenario(
            f"evaluate/scores-file/{label}", expect, "evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick", files={"s.csv": data}
        )
    scenario("evaluate/scores-file/positive-unknown", "refuse", "evaluate", "--scores", "{tmp}/s.csv", "--positive", "bogus",
             files={"s.csv": SCORES})  # fmt: skip
    scenario("evaluate/scores-file/no-positive", "refuse", "evaluate", "--scores", "{tmp}/s.csv", files={"s.csv": SCORES})
    scenario("evaluate/scores-file/ok", "ok", "evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick", files={"s.csv": SCORES})
    scenario("evaluate/scores-file/ranked", "ok", "evaluate", "--scores", "{tmp}/s.csv", "--utility", "{tmp}/u.json", "--seed", "1",
             files={"s.csv": SCORES, "u.json": UTILITY_2})  # fmt: skip
    scenario("evaluate/scores-file/utility-3x3", "refuse", "evaluate", "--scores", "{tmp}/s.csv", "--utility", f"{ex}/triage_3class.json",
             files={"s.csv": SCORES})  # fmt: skip


#: A three-class file of ``--probabilities`` (columns MODEL:CLASS) and its utility, and a two-class one (a column per model).
PROBABILITIES = b"true,a:x,a:y,a:z,b:x,b:y,b:z\n" + b"".join(
    f"{'xyz'[k % 3]},{p:.2f},{q:.2f},{1 - p - q:.2f},{q:.2f},{p:.2f},{1 - p - q:.2f}\n".encode()
    for k, (p, q) in enumerate(((k * 37 % 50) / 100, (k * 61 % 40) / 100) for k in range(60))
)
UTILITY_3 = b'{"utility": [[3, 0, -1], [0, 2, 0], [-2, 0, 4]], "classes": ["x", "y", "z"]}'
PROBABILITIES_2 = SCORES


def _evaluate_probabilities() -> None:
    three = ("evaluate", "--probabilities", "{tmp}/p.csv", "--utility", "{tmp}/u.json")
    two = ("evaluate", "--probabilities", "{tmp}/p.csv", "--utility", "{tmp}/u.json", "--positive", "sick")
    files_3, files_2 = {"u.json": UTILITY_3}, {"u.json": UTILITY_2}
    for label, data in GARBAGE:
        scenario(f"evaluate/probabilities/{label}", "refuse", *three, files={"p.csv": data, **files_3})
    scenario("evaluate/probabilities/huge", "refuse", *three, files={"p.csv": Sparse(65 * 2**20), **files_3}, says=("MiB",))
    scenario("evaluate/probabilities/bom", "clean", *three, files={"p.csv": b"\xef\xbb\xbf" + PROBABILITIES, **files_3})
    scenario("evaluate/probabilities/ok", "ok", *three, "--seed", "1", files={"p.csv": PROBABILITIES, **files_3})
    scenario("evaluate/probabilities/ok-uncertain", "ok", *three, "--seed", "1", "--test-uncertainty", "--samples", "500",
             files={"p.csv": PROBABILITIES, **files_3}, says=("choose",))  # fmt: skip
    scenario("evaluate/probabilities/ok-json", "ok", *three, "--format", "json", "--recalibration", "none",
             files={"p.csv": PROBABILITIES, **files_3}, check=_valid_json)  # fmt: skip
    scenario("evaluate/probabilities/ok-csv", "ok", *three, "--format", "csv", "--test-uncertainty", "--samples", "500", "--seed", "1",
             files={"p.csv": PROBABILITIES, **files_3})  # fmt: skip
    scenario("evaluate/probabilities/ok-binary", "ok", *two, "--seed", "1", files={"p.csv": PROBABILITIES_2, **files_2})
    scenario("evaluate/probabilities/ok-isotonic", "ok", *two, "--seed", "1", "--recalibration", "isotonic",
             files={"p.csv": PROBABILITIES_2, **files_2})  # fmt: skip
    first_row = PROBABILITIES.split(b"\n")[1]
    bad_rows = {
        "row-sum": (b"x,0.50,0.30,0.30", ("sum to",)), "above-one": (b"x,1.50,-0.50,0.00", ("outside [0, 1]",)),
        "negative": (b"x,-0.10,0.60,0.50", ("outside [0, 1]",)), "nan": (b"x,nan,0.50,0.50", ("NaN",)),
        "inf": (b"x,inf,0.00,0.00", ("outside [0, 1]",)), "text": (b"x,high,0.50,0.50", ("not a number",)),
        "empty-cell": (b"x,,0.50,0.50", ("not a number",)), "unknown-class": (b"w,0.20,0.30,0.50", ("not one of the classes",)),
        "empty-label": (b",0.20,0.30,0.50", ("empty label",)), "short-row": (b"x,0.20,0.30", ("fields",)),
    }  # fmt: skip
    for label, (row, says) in bad_rows.items():
        data = PROBABILITIES.replace(first_row, row + first_row[len(b"x,0.00,0.00,0.00") :] if label != "short-row" else row, 1)
        scenario(f"evaluate/probabilities-file/{label}", "refuse", *three, files={"p.csv": data, **files_3}, says=says)
    header = PROBABILITIES.split(b"\n")[0]
    bad_headers = {
        "missing-class": (header.replace(b",b:z", b",bz"), "MODEL:CLASS"), "unknown-class": (header.replace(b"b:z", b"b:w"), "'w'"),
        "no-class-column": (header.replace(b",b:z", b",c:z"), "no column"), "no-truth": (header.replace(b"true", b"truth"), "true"),
        "twice": (header.replace(b"b:z", b"b:y"), "twice"), "empty-model": (header.replace(b"b:z", b":z"), "MODEL:CLASS"),
    }  # fmt: skip
    for label, (line, says) in bad_headers.items():
        scenario(f"evaluate/probabilities-header/{label}", "refuse", *three, files={"p.csv": PROBABILITIES.replace(header, line), **files_3},
                 says=(says,))  # fmt: skip
    scenario("evaluate/probabilities-file/one-column-for-3-classes", "refuse", *three, files={"p.csv": PROBABILITIES_2, **files_3},
             says=("two-class form",))  # fmt: skip
    scenario("evaluate/probabilities-file/no-rows", "refuse", *three, files={"p.csv": header + b"\n", **files_3})
    # Two classes, a column per model: the positive class, and a plain matrix for 0/1 labels.
    # Text labels, a matrix that names no classes and no --positive: neither the order nor the positive class is known.
    scenario(
        "evaluate/probabilities-binary/no-positive", "refuse", *two[:3], "--utility", "[[1, -3], [0, 0]]", files={"p.csv": PROBABILITIES_2}
    )
    # The utility names the classes: the first is positive, as for --scores.
    scenario(
        "evaluate/probabilities-binary/positive-by-the-utility", "ok", *two[:-2], "--seed", "1", files={"p.csv": PROBABILITIES_2, **files_2}
    )
    scenario("evaluate/probabilities-binary/unknown-positive", "refuse", *two[:-1], "bogus", files={"p.csv": PROBABILITIES_2, **files_2})
    zero_one = PROBABILITIES_2.replace(b"sick", b"1").replace(b"well", b"0")
    plain = ("evaluate", "--probabilities", "{tmp}/p.csv", "--utility", "[[1, 0], [0, 2]]", "--positive", "1")
    scenario("evaluate/probabilities-binary/plain-matrix-unnamed-order", "refuse", *plain, files={"p.csv": zero_one}, says=("--classes",))
    scenario("evaluate/probabilities-binary/plain-matrix-named-order", "ok", *plain, "--classes", "1,0", "--seed", "1",
             files={"p.csv": zero_one})  # fmt: skip
    # Two classes are never read in an order not named, whichever class is positive.
    scenario("evaluate/probabilities-binary/positive-first", "refuse", *plain[:-1], "0", "--seed", "1", files={"p.csv": zero_one},
             says=("--classes",))  # fmt: skip
    scenario("evaluate/probabilities-binary/above-one", "refuse", *two, files={"p.csv": PROBABILITIES_2.replace(b"0.37", b"1.5", 1),
             **files_2})  # fmt: skip
    # Options: at and beyond their limits, and those that change nothing here.
    ok_files = {"p.csv": PROBABILITIES, **files_3}
    for value, expect in {"0": "refuse", "1": "refuse", "2": "ok", "abc": "refuse", "-3": "refuse", "21": "ok"}.items():
        scenario(f"evaluate/probabilities-folds/{value}", expect, *three, "--folds", value, "--seed", "1", files=ok_files)
    for value, expect in {"0": "refuse", "1": "ok", "abc": "refuse", "1.5": "refuse", str(10**9 + 1): "refuse"}.items():
        scenario(f"evaluate/probabilities-samples/{value}", expect, *three, "--test-uncertainty", "--samples", value, "--seed", "1",
                 files=ok_files)  # fmt: skip
    unused = {
        "sd": ("--sd", "0.1"), "metrics": ("--metrics", "accuracy", "--"), "details": ("--details",), "format-xml": ("--format", "xml"),
        "prior-count-alone": ("--prior-count", "2"), "thresholds": ("--thresholds", "0.5"), "plot": ("--plot", "{tmp}/p.png"),
        "orientation": ("--orientation", "sklearn"), "scores": ("--scores", "{tmp}/p.csv"), "labels": ("--labels", "{tmp}/p.csv"),
        "class-counts": ("--class-counts", "1,2,3"), "recalibration-bogus": ("--recalibration", "temperature"),
        "isotonic-3-classes": ("--recalibration", "isotonic"), "folds-without-recalibration": ("--recalibration", "none", "--folds", "3"),
        "positive-per-class": ("--positive", "x"), "utility-sd": ("--utility", '{"matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "sd": 0.1}'),
        "utility-2x2": ("--utility", "[[1, 0], [0, 1]]"),
    }  # fmt: skip
    for label, options in unused.items():
        scenario(f"evaluate/unused-with-probabilities/{label}", "refuse", *three, *options, files=ok_files)
    scenario("evaluate/unused-with-probabilities/file", "refuse", "evaluate", "{ex}/factory.json", *three[1:], files=ok_files)
    scenario("evaluate/unused-with-probabilities/no-utility", "refuse", *three[:3], files=ok_files, says=("--utility",))
    scenario("evaluate/recalibration-without-probabilities", "refuse", "evaluate", "{ex}/factory.json", "--recalibration", "platt")
    scenario("evaluate/probabilities/out-is-the-input", "refuse", *three, "--out", "{tmp}/p.csv", files=ok_files)
    # The Python API: every bad array names the parameter.
    nan = float("nan")

    def probabilities(**kw):
        from mcrank.evaluate import evaluate_probabilities

        given = {"y_true": [0, 1, 1, 0], "probabilities": {"m": [[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.9, 0.1]]},
                 "utility": [[1, 0], [0, 1]], "recalibration": None} | kw  # fmt: skip
        return evaluate_probabilities(given.pop("y_true"), given.pop("probabilities"), given.pop("utility"), **given)

    api("evaluate_probabilities/ok", "ok", probabilities)
    bad = {
        "nan": ({"probabilities": {"m": [[nan, 0.2], [0.3, 0.7], [0.6, 0.4], [0.9, 0.1]]}}, "probabilities"),
        "row-sum": ({"probabilities": {"m": [[0.8, 0.3], [0.3, 0.7], [0.6, 0.4], [0.9, 0.1]]}}, "probabilities"),
        "negative": ({"probabilities": {"m": [[1.2, -0.2], [0.3, 0.7], [0.6, 0.4], [0.9, 0.1]]}}, "probabilities"),
        "short": ({"probabilities": {"m": [[0.8, 0.2]]}}, "y_true"), "ragged": ({"probabilities": {"m": [[0.8, 0.2], [1.0]]}}, "probabilities"),
        "text": ({"probabilities": {"m": "high"}}, "probabilities"), "empty": ({"probabilities": {}}, "probabilities"),
        "bogus-name": ({"probabilities": {"": [0.2, 0.7, 0.4, 0.1]}}, "model"), "3-columns": ({"probabilities": {"m": [[1, 0, 0]] * 4}}, "probabilities"),
        "one-column-unnamed-order": ({"probabilities": {"m": [0.2, 0.7, 0.4, 0.1]}, "utility": [[1, 0], [0, 2]]}, "classes"),
        "unknown-label": ({"y_true": [0, 1, 2, 0]}, "y_true"), "empty-y": ({"y_true": []}, "y_true"),
        "utility-3x3": ({"utility": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "probabilities"), "utility-nan": ({"utility": [[nan, 0], [0, 1]]}, "utility"),
        "recalibration": ({"recalibration": "bogus"}, "recalibration"), "folds": ({"recalibration": "platt", "folds": 1}, "folds"),
        "samples": ({"test_uncertainty": True, "samples": 0}, "samples"), "prior": ({"test_uncertainty": True, "prior_count": -1}, "prior_count"),
        "seed": ({"recalibration": "platt", "rng": -1}, "seed"), "positive-per-class": ({"positive": 1}, "positive"),
    }  # fmt: skip
    for label, (kw, names) in bad.items():
        api(f"evaluate_probabilities/{label}", "raise", lambda kw=kw: probabilities(**kw), names=names)


def _evaluate_options() -> None:
    factory = "{ex}/factory.json"
    # Every numeric option at and beyond its limits, in the modes where it is used.
    sds = {"0": "refuse", "-1": "refuse", "-0": "refuse", "nan": "refuse", "inf": "refuse", "1e308": "clean", "1e309": "refuse",
           "1e-320": "clean", "0.1": "ok", "10": "ok", "abc": "refuse", "": "refuse", "0x10": "refuse", "1_0": "clean"}  # fmt: skip
    for value, expect in sds.items():
        scenario(f"evaluate/sd/{value or 'empty'}", expect, "evaluate", factory, "--sd", value)
        scenario(f"evaluate/sd-truncated/{value or 'empty'}", expect, "evaluate", factory, "--sd", value, "--error", "truncated",
                 "--samples", "100", "--seed", "1")  # fmt: skip
    priors = {"1e-6": "ok", "1e-7": "refuse", "1e12": "ok", "1e13": "refuse", "0": "refuse", "-1": "refuse", "nan": "refuse",
              "inf": "refuse", "1e308": "refuse", "abc": "refuse"}  # fmt: skip
    for value, expect in priors.items():
        scenario(f"evaluate/prior-count/{value}", expect, "evaluate", factory, "--test-uncertainty", "--prior-count", value,
                 "--samples", "100", "--seed", "1")  # fmt: skip
    scenario("evaluate/prior-count/without-its-mode", "refuse", "evaluate", factory, "--prior-count", "2")
    samples = {"0": "refuse", "1": "ok", "100": "ok", "-5": "refuse", "1.5": "refuse", "nan": "refuse", "inf": "refuse",
               "1e10": "refuse", "abc": "refuse", "1e2": "ok", "": "refuse"}  # fmt: skip
    for value, expect in samples.items():
        scenario(
            f"evaluate/samples/{value or 'empty'}", expect, "evaluate", factory, "--test-uncertainty", "--samples", value, "--seed", "1"
        )
        scenario(f"evaluate/samples-truncated/{value or 'empty'}", expect, "evaluate", factory, "--sd", "0.1", "--error", "truncated",
                 "--samples", value, "--seed", "1")  # fmt: skip
    seeds = {"0": "ok", "-1": "refuse", str(2**64): "clean", str(2**128): "clean", "abc": "refuse", "1.5": "refuse", "": "refuse"}
    for value, expect in seeds.items():
        scenario(
            f"evaluate/seed/{value or 'empty'}", expect, "evaluate", factory, "--test-uncertainty", "--samples", "100", "--seed", value
        )
    frequencies = {"0.5,0.5": "ok", "0.01,0.99": "ok", "0.5,0.6": "refuse", "1,0": "ok", "0,1": "ok", "nan,1": "refuse",
                   "inf,0": "refuse", "-0.5,1.5": "refuse", "0.5": "refuse", "0.3,0.3,0.4": "refuse", "": "refuse", ",": "refuse",
                   "a,b": "refuse", "1e-320,1": "ok", "0.5,0.5,": "refuse", " 0.5 , 0.5 ": "ok"}  # fmt: skip
    for value, expect in frequencies.items():
        scenario(f"evaluate/class-frequencies/{value or 'empty'}", expect, "evaluate", factory, "--class-frequencies", value,
                 **({"says": ("-0.5",)} if value.startswith("-") else {}))  # fmt: skip
    counts = {"1,1": "ok", "10,90": "ok", "0,0": "clean", "-1,5": "refuse", "-0,5": "clean", "1.5,2": "refuse", "0.5,0.5": "refuse",
              "1e16,1": "refuse", "9007199254740991,0": "ok", "nan,1": "refuse", "inf,1": "refuse", "1": "refuse", "1,2,3": "refuse",
              "abc,1": "refuse", "": "refuse"}  # fmt: skip
    for value, expect in counts.items():
        scenario(f"evaluate/class-counts/{value or 'empty'}", expect, "evaluate", factory, "--class-counts", value,
                 **({"says": (value.split(",")[0],)} if value.startswith("-") else {}))  # fmt: skip
    scenario(
        "evaluate/class-counts/with-frequencies", "refuse", "evaluate", factory, "--class-counts", "1,1", "--class-frequencies", "0.5,0.5"
    )
    # Options that change nothing in the mode given.
    scores = ("evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick")
    unused = {
        "plot-without-scores": ("--plot", "{tmp}/p.png"), "threshold-choice-without-scores": ("--threshold-choice", "test"),
        "folds-without-scores": ("--folds", "3"), "positive-without-scores": ("--positive", "long durability"),
        "thresholds-without-scores": ("--thresholds", "0.1,0.5"),
    }  # fmt: skip
    for label, options in unused.items():
        scenario(f"evaluate/unused/{label}", "refuse", "evaluate", factory, *options)
    scenario("evaluate/unused/estimator-without-sd", "refuse", "evaluate", factory, "--estimator", "sample")
    scenario("evaluate/unused/truth-without-labels", "refuse", "evaluate", factory, "--truth", "x")
    scenario("evaluate/unused/error-without-sd", "clean", "evaluate", factory, "--error", "truncated")
    for flag, value in (("--sd", "0.1"), ("--error", "gaussian"), ("--metrics", "accuracy"), ("--class-frequencies", "0.5,0.5"),
                        ("--class-counts", "1,1"), ("--labels", "{ex}/triage_labels.csv")):  # fmt: skip
        scenario(f"evaluate/unused-with-scores/{flag[2:]}", "refuse", *scores, flag, value, files={"s.csv": SCORES})
    scenario("evaluate/unused-with-scores/file", "refuse", "evaluate", factory, *scores[1:], files={"s.csv": SCORES})
    for label, options in {"threshold-choice": ("--threshold-choice", "split"), "folds": ("--folds", "3")}.items():
        scenario(f"evaluate/unused-with-scores/{label}-without-utility", "refuse", *scores, *options, files={"s.csv": SCORES})
    scenario("evaluate/unused-with-scores/folds-with-split", "refuse", "evaluate", "--scores", "{tmp}/s.csv", "--utility", "{tmp}/u.json",
             "--threshold-choice", "split", "--folds", "3", files={"s.csv": SCORES, "u.json": UTILITY_2})  # fmt: skip
    # The ranking of scoring classifiers with its uncertainty (it was refused before it was offered).
    scenario("evaluate/scores-uncertain/ranking", "ok", "evaluate", "--scores", "{tmp}/s.csv", "--utility",
             "{tmp}/u.json", "--test-uncertainty", files={"s.csv": SCORES, "u.json": UTILITY_2})  # fmt: skip
    scenario("evaluate/unused/seed-noted", "ok", "evaluate", factory, "--seed", "1")
    # --scores' numbers.
    ranked = ("evaluate", "--scores", "{tmp}/s.csv", "--utility", "{tmp}/u.json", "--seed", "1")
    with_utility = {"s.csv": SCORES, "u.json": UTILITY_2}
    folds = {"1": "refuse", "2": "ok", "0": "refuse", "-1": "refuse", "20": "ok", "1000": "refuse", "1.5": "refuse", "nan": "refuse",
             str(10**9): "refuse", "abc": "refuse"}  # fmt: skip
    for value, expect in folds.items():
        scenario(f"evaluate/folds/{value}", expect, *ranked, "--folds", value, files=with_utility)
    thresholds = {"0:1:0.1": "refuse", "0.1:0.9:0": "refuse", "0.5": "ok", "-0.1,0.5": "refuse", "nan": "refuse", "0.1:0.9:1e-9": "refuse",
                  "1e-320": "clean", "0.9:0.1:0.1": "refuse", "0.1:0.9": "refuse", "0.1,0.1": "clean", "1": "refuse", "0": "refuse",
                  "inf": "refuse", "": "refuse", "0.1:0.9:0.1": "ok", "0.5,": "refuse"}  # fmt: skip
    for value, expect in thresholds.items():
        scenario(f"evaluate/thresholds/{value or 'empty'}", expect, *scores, "--thresholds", value, files={"s.csv": SCORES},
                 **({"says": ("-0.1",)} if value.startswith("-") else {}))  # fmt: skip
        scenario(f"evaluate/thresholds-uncertain/{value or 'empty'}", expect, *scores, "--thresholds", value, "--test-uncertainty",
                 "--samples", "100", "--seed", "1", files={"s.csv": SCORES})  # fmt: skip
    for choice in ("crossfit", "split", "test", "bogus"):
        scenario(f"evaluate/threshold-choice/{choice}", "refuse" if choice == "bogus" else "ok", *ranked, "--threshold-choice", choice,
                 files=with_utility)  # fmt: skip
    # Metrics.
    metrics = {"accuracy": "ok", "bogus": "refuse", "accuracy,accuracy": "clean", ",": "refuse", "auc": "refuse", "macro_f1": "ok",
               "micro_f1": "ok", "fbeta": "refuse", "ACCURACY": "refuse"}  # fmt: skip
    for value, expect in metrics.items():
        name = "macro_f1-two-classes" if value == "macro_f1" else value.replace(",", "-comma-") or "empty"
        scenario(f"evaluate/metrics/{name}", expect, "evaluate", factory, "--metrics", value)
    scenario("evaluate/metrics/list-ended-by-double-dash", "ok", "evaluate", "--metrics", "tpr", "--", factory)
    scenario("evaluate/metrics/list-then-double-dash", "ok", "evaluate", factory, "--metrics", "tpr", "--")
    scenario("evaluate/metrics/file-after-list", "refuse", "evaluate", "--metrics", "tpr", factory)
    scenario("evaluate/metrics/three-class-only-binary", "refuse", "evaluate", "{ex}/triage_3class.json", "--metrics", "tpr")
    # Formats.
    for fmt in ("table", "json", "csv", "html", "xml"):
        scenario(f"evaluate/format/{fmt}", "refuse" if fmt == "xml" else "ok", "evaluate", factory, "--format", fmt)
        scenario(f"evaluate/format-scores/{fmt}", "refuse" if fmt == "xml" else "ok", *scores, "--format", fmt, files={"s.csv": SCORES})
    scenario("evaluate/format/csv-ranking-and-curves", "refuse", *ranked, "--thresholds", "0.5", "--format", "csv", files=with_utility)
    scenario("evaluate/error/bogus", "refuse", "evaluate", factory, "--sd", "0.1", "--error", "bogus")
    scenario("evaluate/estimator/conditional-truncated", "refuse", "evaluate", factory, "--sd", "0.1", "--error", "truncated",
             "--estimator", "conditional")  # fmt: skip
    scenario("evaluate/inputs/none", "refuse", "evaluate")
    scenario("evaluate/inputs/file-and-labels", "refuse", "evaluate", factory, "--labels", "{ex}/triage_labels.csv", "--utility",
             "{ex}/triage_3class.json")  # fmt: skip
    scenario("evaluate/inputs/unknown-option", "refuse", "evaluate", factory, "--bogus")
    scenario("evaluate/inputs/two-files", "refuse", "evaluate", factory, factory)
    # The documented examples, which must work.
    for label, argv in {
        "factory": (factory,),
        "medical": ("{ex}/medical.json",),
        "lottery": ("{ex}/lottery.json", "--class-frequencies", "0.01,0.99"),
        "uncertain": ("{ex}/factory_uncertain.json",),
        "triage": ("{ex}/triage_3class.json",),
        "triage-labels": (
            "--labels",
            "{ex}/triage_labels.csv",
            "--utility",
            "{ex}/triage_3class.json",
            "--test-uncertainty",
            "--sd",
            "0.1",
            "--samples",
            "100",
            "--seed",
            "1",
        ),
        "wine": ("--labels", "{ex}/wine_labels.csv", "--utility", "{ex}/wine_utility.json", "--class-frequencies", "0.1,0.6,0.3"),
        "counts": (factory, "--class-counts", "10,90", "--test-uncertainty", "--samples", "100", "--seed", "1"),
        "sample": (factory, "--sd", "0.1", "--estimator", "sample", "--samples", "100", "--seed", "1"),
        "csv-input": ("{tmp}/in.csv", "--utility", factory),
    }.items():
        scenario(f"evaluate/example/{label}", "ok", "evaluate", *argv, files={"in.csv": MATRICES_CSV})
    # Messages that must be right.
    scenario("evaluate/message/doubled-quote-matrix-sizes", "refuse", "evaluate", "{tmp}/in.json", not_says=("''s",),
             files={"in.json": matrices_json({"A": [[1, 2], [3, 4]], "B": [[1, 2, 3], [4, 5, 6], [7, 8, 9]]})})  # fmt: skip
    scenario("evaluate/message/utility-classes-blamed-on-file", "refuse", "evaluate", "--labels", "{ex}/triage_labels.csv",
             "--utility", "{ex}/wine_utility.json", says=("wine_utility.json",))  # fmt: skip
    # A new user's silent mistakes: a hint, not a result that looks fine.
    wrong_class = b"true,m1,m2\n" + b"".join(f"{'sick' if k % 2 else 'well'},{0.9 - 0.8 * (k % 2) + k / 1000:.3f},"
                                             f"{0.8 - 0.6 * (k % 2) + k / 2000:.4f}\n".encode() for k in range(60))  # fmt: skip
    scenario("evaluate/hint/scores-of-the-wrong-class", "ok", "evaluate", "--scores", "{tmp}/s.csv", "--utility", "{tmp}/u.json",
             "--seed", "1", files={"s.csv": wrong_class, "u.json": UTILITY_2}, check=_says_auc_below_half)  # fmt: skip
    scenario("evaluate/hint/labels-given-as-file", "refuse", "evaluate", "{ex}/triage_labels.csv", "--utility", "{ex}/triage_3class.json",
             says=("--labels",))  # fmt: skip
    mixed = b"true,a,b,c\n" + b"".join(
        f"{t},{a},{b},{c}\n".encode()
        for t, a, b, c in (("sick", 0.591238, 0.1, 2.00082e-05), ("well", 0.3, 0.05, 1e-05), ("sick", 0.7, 0.2, 3e-05),
                           ("well", 0.2, 0.01, 1.5e-05), ("sick", 0.65, 0.3, 2.5e-05), ("well", 0.4, 0.02, 0.5e-05))
    )  # fmt: skip
    scenario("evaluate/format/threshold-column", "ok", "evaluate", "--scores", "{tmp}/s.csv", "--utility", "{tmp}/u.json",
             "--threshold-choice", "test", files={"s.csv": mixed, "u.json": UTILITY_2}, check=_one_threshold_format)  # fmt: skip


def _evaluate_folds() -> None:
    """Model selection across cross-validation folds (``--labels --folds-column``)."""
    folds = ("evaluate", "--labels", "{ex}/wine_folds.csv", "--utility", "{ex}/wine_utility.json", "--folds-column", "fold",
             "--samples", "100", "--seed", "1")  # fmt: skip
    scenario("evaluate/folds-column/ok", "ok", *folds)
    scenario("evaluate/folds-column/ok-repeats-4-rope", "ok", *folds, "--repeats", "4", "--rope", "0.1")
    for value, expect in {"0": "refuse", "-1": "refuse", "1": "ok", "3": "refuse", "1.5": "refuse", "nan": "refuse", "1e9": "refuse",
                          "abc": "refuse", "20": "refuse"}.items():  # fmt: skip
        scenario(f"evaluate/repeats/{value}", expect, *folds, "--repeats", value)
    for value, expect in {"0": "ok", "-0.1": "refuse", "nan": "refuse", "inf": "refuse", "1e308": "clean", "1e-320": "ok",
                          "abc": "refuse"}.items():  # fmt: skip
        scenario(f"evaluate/rope/{value}", expect, *folds, "--rope", value, **({"says": ("-0.1",)} if value.startswith("-") else {}))
    for column, expect in {"nope": "refuse", "true": "refuse", "svm": "refuse", "": "refuse"}.items():
        scenario(f"evaluate/folds-column/{column or 'empty'}", expect, *folds[:6], column)
    one_fold = b"fold,true,A,B\n" + b"".join(f"0,{t},{a},{b}\n".encode() for t, a, b in zip("swsw" * 5, "ssww" * 5, "swws" * 5))
    scenario("evaluate/folds-column/one-fold", "refuse", "evaluate", "--labels", "{tmp}/f.csv", "--utility",
             '{"utility": [[1, 0], [0, 1]], "classes": ["s", "w"]}', "--folds-column", "fold", files={"f.csv": one_fold})  # fmt: skip
    for flag, value in (("--sd", "0.1"), ("--test-uncertainty", None), ("--class-frequencies", "0.1,0.6,0.3"), ("--metrics", "accuracy"),
                        ("--class-counts", "1,1,1"), ("--estimator", "sample")):  # fmt: skip
        scenario(f"evaluate/unused-with-folds/{flag[2:]}", "refuse", *folds, *((flag,) if value is None else (flag, value)))
    for flag, value in (("--repeats", "2"), ("--rope", "0.1")):
        scenario(f"evaluate/unused/{flag[2:]}-without-folds-column", "refuse", "evaluate", "{ex}/factory.json", flag, value)
    scenario("evaluate/unused-with-folds/scores", "refuse", "evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick", "--folds-column",
             "fold", files={"s.csv": SCORES})  # fmt: skip
    scenario("evaluate/unused-with-folds/file", "refuse", "evaluate", "{ex}/factory.json", "--folds-column", "fold")
    for fmt in ("json", "csv"):
        scenario(f"evaluate/folds-column/format-{fmt}", "ok", *folds, "--format", fmt)


def _says_auc_below_half(outcome) -> str | None:
    """Scores that rank the classes the wrong way round (AUC near 0) deserve a word."""
    text = (outcome.out + outcome.err).lower()
    if any(hint in text for hint in ("below 0.5", "below 1/2", "wrong class", "other class", "inverted", "reversed", "--positive")):
        return None
    return "no hint that every AUC is below 0.5 (scores of the other class?)"


def _one_threshold_format(outcome) -> str | None:
    """The best-threshold column has one format: all fixed or all scientific, the same decimals."""
    lines = outcome.out.splitlines()
    header = next((k for k, line in enumerate(lines) if line.lstrip().startswith("rank") and "best threshold" in line), None)
    if header is None:
        return "no 'best threshold' column"
    start = lines[header].index("best threshold")
    cells = []
    for line in lines[header + 1 :]:
        if not line.split() or not line.split()[0].isdigit():
            break
        cell = line[start : start + len("best threshold") + 2].split()
        if cell and cell[0] not in ("never", "always"):
            cells.append(cell[0])
    shapes = {("e" in c, len(c.split(".")[1]) if "." in c and "e" not in c else None) for c in cells}
    return None if len(shapes) <= 1 else f"thresholds printed in several formats: {', '.join(cells)}"


# ----------------------------------------------------------------------------- outputs


def _outputs() -> None:
    """Every command's output paths: the committed folders, links into them, the command's own
    input, a second output of the same command, missing directories, FIFOs, devices."""
    commands = {
        "run": ("run", "--samples", "100", "--seed", "1", "--quiet"),
        "evaluate": ("evaluate", "{ex}/factory.json", "--quiet"),
        "story": ("story", "--quiet"),
        "scores": ("evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick", "--quiet"),
    }
    for label, argv in commands.items():
        area = "evaluate" if label == "scores" else label
        prefix = f"{area}/out{'-scores' if label == 'scores' else ''}"
        base = {"s.csv": SCORES}
        targets = {
            "inside-results": ("{root}/results/new.json", {}, "refuse"),
            "inside-results-figures": ("{root}/results/figures/new.csv", {}, "refuse"),
            "inside-experiments": ("{root}/experiments/new.toml", {}, "refuse"),
            "over-committed-result": ("{root}/results/fig6_uniform.json", {}, "refuse"),
            "link-to-committed-result": ("{tmp}/o.json", {"o.json": Link("{root}/results/fig6_uniform.csv")}, "refuse"),
            "link-to-committed-dir": ("{tmp}/r/new.json", {"r": Link("{root}/results")}, "refuse"),
            "link-to-experiments-dir": ("{tmp}/e/new.toml", {"e": Link("{root}/experiments")}, "refuse"),
            "dotdot-into-results": ("{root}/results/../results/x.json", {}, "refuse"),
            "missing-directory": ("{tmp}/missing/o.json", {}, "refuse"),
            "a-directory": ("{tmp}/d", {"d": Folder()}, "refuse"),
            "trailing-slash": ("{tmp}/o.json/", {}, "clean"),
            "read-only-file": ("{tmp}/o.json", {"o.json": ReadOnly(b"keep")}, "refuse"),
            "link-loop": ("{tmp}/o.json", {"o.json": Link("{tmp}/o.json")}, "refuse"),
            "dangling-link": ("{tmp}/o.json", {"o.json": Link("{tmp}/nowhere.json")}, "clean"),
            "fifo": ("{tmp}/o.json", {"o.json": Fifo(reader=True)}, "clean"),
            "dev-null": ("/dev/null", {}, "clean"),
            "dev-full": ("/dev/full", {}, "refuse"),
            "proc": ("/proc/version", {}, "refuse"),
            "plain-file": ("{tmp}/o.json", {}, "ok"),
            "plain-csv": ("{tmp}/o.csv", {}, "ok"),
            "dash": ("-", {}, "ok"),
            "empty": ("", {}, "refuse"),
            "odd-unicode": ("{tmp}/\u202eo\u200b.json", {}, "ok"),
            "long-name": ("{tmp}/" + "o" * 300 + ".json", {}, "refuse"),
        }
        for target, (path, files, expect) in targets.items():
            if label == "story" and path.endswith(".csv"):
                continue
            quiet = {"output": False} if target in ("dev-null", "fifo") else {}
            scenario(f"{prefix}/{target}", expect, *argv, "--out", path, files={**base, **files}, **quiet)
        scenario(f"{prefix}/relative-inside-results", "refuse", *argv, "--out", "results/new.json", cwd="root", files=base)
        scenario(f"{prefix}/relative-inside-experiments", "refuse", *argv, "--out", "experiments/x.txt", cwd="root", files=base)
    # The command's own input as its output.
    scenario("run/out/own-config", "refuse", "run", "--config", "{tmp}/c.toml", "--samples", "100", "--quiet", "--out", "{tmp}/c.toml",
             files={"c.toml": (ROOT / "experiments" / "fig6_uniform.toml").read_bytes()})  # fmt: skip
    scenario("run/out/own-config-by-link", "refuse", "run", "--config", "{tmp}/c.toml", "--samples", "100", "--quiet", "--out",
             "{tmp}/l.toml", files={"c.toml": (ROOT / "experiments" / "fig6_uniform.toml").read_bytes(), "l.toml": Link("{tmp}/c.toml")})  # fmt: skip
    for kind, argv in {
        "file": ("evaluate", "{tmp}/in.json", "--out", "{tmp}/in.json"),
        "labels": ("evaluate", "--labels", "{tmp}/l.csv", "--utility", "{ex}/triage_3class.json", "--out", "{tmp}/l.csv"),
        "utility": ("evaluate", "{ex}/factory.json", "--utility", "{tmp}/u.json", "--out", "{tmp}/u.json"),
        "scores": ("evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick", "--out", "{tmp}/s.csv"),
        "scores-plot": ("evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick", "--plot", "{tmp}/s.csv"),
    }.items():
        files = {"in.json": FACTORY, "l.csv": LABELS, "u.json": FACTORY, "s.csv": SCORES}
        scenario(f"evaluate/out/own-input-{kind}", "refuse", *argv, files=files)
    # --plot: the same rules as --out.
    scores = ("evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick", "--quiet")
    plots = {
        "inside-results": ("{root}/results/figures/hostile.png", {}, "tmp"),
        "inside-results-relative": ("results/figures/hostile.png", {}, "root"),
        "inside-experiments": ("{root}/experiments/hostile.png", {}, "tmp"),
        "link-to-committed-figure": ("{tmp}/evil.png", {"evil.png": Link("{root}/results/figures/fig10_roc_tangents.png")}, "tmp"),
        "link-to-results-dir": ("{tmp}/r/figures/new.png", {"r": Link("{root}/results")}, "tmp"),
        "missing-directory": ("{tmp}/missing/p.png", {}, "tmp"),
        "a-directory": ("{tmp}/d.png", {"d.png": Folder()}, "tmp"),
        "wrong-suffix": ("{tmp}/p.txt", {}, "tmp"),
        "no-suffix": ("{tmp}/p", {}, "tmp"),
        "read-only": ("{tmp}/p.png", {"p.png": ReadOnly(b"keep")}, "tmp"),
        "link-loop": ("{tmp}/p.png", {"p.png": Link("{tmp}/p.png")}, "tmp"),
    }
    for label, (path, files, cwd) in plots.items():
        scenario(f"evaluate/plot/{label}", "refuse", *scores, "--plot", path, files={"s.csv": SCORES, **files}, cwd=cwd)
    for suffix in ("png", "pdf", "svg", "PNG"):
        scenario(f"evaluate/plot/ok-{suffix}", "ok", *scores, "--plot", f"{{tmp}}/p.{suffix}", files={"s.csv": SCORES})
    scenario("evaluate/plot/same-as-out", "refuse", *scores, "--plot", "{tmp}/o.png", "--out", "{tmp}/o.png", files={"s.csv": SCORES})
    scenario("evaluate/plot/same-as-out-by-link", "refuse", *scores, "--plot", "{tmp}/o.png", "--out", "{tmp}/l.png",
             files={"s.csv": SCORES, "l.png": Link("{tmp}/o.png")})  # fmt: skip
    # Checked before the work: the note on an unused --seed must not come before the refusal.
    scenario("evaluate/plot/checked-before-the-work", "refuse", *scores, "--seed", "1", "--plot", "{tmp}/f/p.png",
             files={"s.csv": SCORES, "f": b"a file, not a folder"})  # fmt: skip


# ----------------------------------------------------------------------------- run


def _run() -> None:
    quick = ("--samples", "100", "--seed", "1", "--quiet")
    scenario("run/ok/defaults", "ok", "run", *quick)
    numbers = {
        "--samples": ({"0": "refuse", "1": "ok", "100": "ok", "1e2": "ok", "-1": "refuse", "1.5": "refuse", "nan": "refuse", "inf": "refuse",
                       "1e13": "refuse", "abc": "refuse", "": "refuse", "0x10": "refuse", str(2**70): "refuse"}, ()),
        "--sd": ({"-0.1": "refuse", "0": "clean", "1e-320": "clean", "0.1": "ok", "10": "ok", "1e308": "clean", "inf": "refuse",
                  "nan": "refuse", "0:0.5:0.1": "ok", "0:0.5:0": "refuse", "0.5:0:0.1": "refuse", "0:1:1e-9": "refuse", "a:b:c": "refuse",
                  "0:1": "refuse", "0.1,0.2": "ok", "0.1,,0.2": "clean", "": "clean", "0:1e308:1e307": "refuse", "-0": "clean"}, ()),
        "--classes": ({"1": "refuse", "2": "ok", "3": "ok", "50": "ok", "51": "refuse", "0": "refuse", "-1": "refuse", "2.5": "refuse",
                       "1e9": "refuse", "abc": "refuse"}, ()),
        "--true-um-sd": ({"0": "refuse", "-1": "refuse", "1e308": "clean", "nan": "refuse", "inf": "refuse", "1e-320": "clean", "0.5": "ok"},
                         ("--true-um", "gaussian")),
        "--class-concentration": ({"0": "refuse", "-1": "refuse", "1e-320": "clean", "1e308": "clean", "nan": "refuse", "inf": "refuse",
                                   "0.5": "ok"}, ("--classes", "3")),
        "--fbeta-beta": ({"0": "refuse", "-1": "refuse", "1e308": "clean", "nan": "refuse", "inf": "refuse", "1e-320": "clean", "2": "ok"},
                         ("--metrics", "fbeta")),
        "--test-size": ({"0": "refuse", "1": "ok", "1e12": "ok", "1000000000001": "refuse", "-1": "refuse", "1.5": "refuse",
                         "nan": "refuse", "100": "ok"}, ()),
        "--seed": ({"-1": "refuse", "0": "ok", str(2**64): "clean", str(2**128): "clean", "abc": "refuse", "1.5": "refuse"}, ()),
        "--prevalence": ({"0": "refuse", "1": "refuse", "0.5": "ok", "-0.1": "refuse", "1.1": "refuse", "nan": "refuse", "1e-320": "clean",
                          "1e-300": "clean"}, ("--study", "roc")),
        "--jobs": ({"0": "refuse", "-1": "ok", "1": "ok", "2": "ok", "-1000": "clean", "abc": "refuse"}, ()),
        "--chunk-size": ({"0": "refuse"}, ()),
    }  # fmt: skip
    for flag, (values, extra) in numbers.items():
        for value, expect in values.items():
            argv = ["run", *extra, *quick[2:], flag, value] if flag == "--seed" else ["run", *extra, *quick, flag, value]
            if flag == "--samples":
                argv = ["run", "--seed", "1", "--quiet", flag, value]
            if flag == "--chunk-size":
                expect = "refuse"
            scenario(f"run/{flag[2:]}/{value or 'empty'}", expect, *argv, not_says=FIELDS, says=(flag,) if flag == "--jobs" else ())
    pairs = {
        "--class-proportion": ({"0 1": "ok", "1 0": "refuse", "-0.1 1": "refuse", "0 1.1": "refuse", "nan 1": "refuse", "0.5 0.5": "clean",
                                "0 inf": "refuse"}, ()),
        "--rate-beta": ({"0 1": "refuse", "-1 1": "refuse", "1e308 1": "clean", "nan 1": "refuse", "inf 1": "refuse", "1e-320 1": "clean",
                         "1 1": "ok"}, ()),
        "--rate-range": ({"0.5 1": "ok", "1 0.5": "refuse", "0 1": "ok", "-1 1": "refuse", "0.5 2": "refuse", "nan 1": "refuse",
                          "0.7 0.7": "clean"}, ()),
        "--roc-mu-range": ({"0 3": "ok", "3 0": "refuse", "-1e308 1e308": "refuse", "nan 1": "refuse", "0 inf": "refuse", "1 1": "ok",
                            "-3 0": "clean"}, ("--study", "roc")),
        "--roc-sigma-range": ({"0 1": "refuse", "1 1": "ok", "-1 1": "refuse", "1e-320 1": "refuse", "1 1e308": "refuse",
                               "2 0.5": "refuse", "0.5 2": "ok"}, ("--study", "roc")),
    }  # fmt: skip
    for flag, (values, extra) in pairs.items():
        for value, expect in values.items():
            scenario(f"run/{flag[2:]}/{value.replace(' ', '_')}", expect, "run", *extra, *quick, flag, *value.split(), not_says=FIELDS)
    for flag, count in (("--class-proportion", 1), ("--rate-beta", 3), ("--rate-range", 1)):
        scenario(f"run/{flag[2:]}/{count}-values", "refuse", "run", *quick, flag, *["0.5"] * count)
    # A leading minus in a value is the value, not an option.
    scenario("run/sd/negative-first", "refuse", "run", *quick, "--sd", "-1", says=("-1",), not_says=("expected",))
    scenario("run/sd/grid-0:1e308:1e305", "refuse", "run", *quick, "--sd", "0:1e308:1e305")
    for value in ("5e307 1e308", "1e308", "1e10", "1e3"):
        expect = "refuse" if float(value.split()[-1]) > 1e300 else "clean"
        scenario(f"run/roc/sd-{value.replace(' ', '-')}", expect, "run", "--study", "roc", "--metrics", "auc", *quick, "--sd", *value.split(),
                 check=_percentages_in_range)  # fmt: skip
    for error in ("gaussian", "truncated"):
        for value in ("1e6", "1e300"):
            scenario(f"run/big-sd/{error}-{value}", "clean", "run", *quick, "--error", error, "--sd", value, check=_percentages_in_range)
            scenario(f"run/big-sd/{error}-{value}-3-classes", "clean", "run", *quick, "--classes", "3", "--error", error, "--sd", value,
                     check=_percentages_in_range)  # fmt: skip
    # Choices and names.
    for flag, values in {
        "--study": ("confusion", "roc", "bogus", "ROC"), "--true-um": ("uniform", "gaussian", "uniform-elements", "bogus"),
        "--error": ("gaussian", "truncated", "bogus"), "--estimator": ("conditional", "sample", "bogus"),
        "--backend": ("threading", "loky", "bogus"), "--format": ("table", "json", "csv", "xml"),
    }.items():  # fmt: skip
        for value in values:
            expect = "refuse" if value in ("bogus", "ROC", "xml") else "ok"
            scenario(f"run/{flag[2:]}/{value}", expect, "run", *quick, flag, value)
    metrics = {"accuracy": "ok", "bogus": "refuse", "auc": "refuse", "macro_f1": "ok", "accuracy,accuracy": "refuse", ",": "refuse",
               "accuracy f1": "ok", "fbeta": "ok", "cohen_kappa": "ok"}  # fmt: skip
    for value, expect in metrics.items():
        scenario(f"run/metrics/{value.replace(',', '-comma-').replace(' ', '_')}", expect, "run", *quick, "--metrics", *value.split())
    for value, expect in {"auc": "ok", "accuracy": "refuse", "best_f1": "ok", "bogus": "refuse"}.items():
        scenario(f"run/roc-metrics/{value}", expect, "run", "--study", "roc", *quick, "--metrics", value)
    scenario("run/classes/3-with-paper-metric", "refuse", "run", *quick, "--classes", "3", "--metrics", "tpr")
    scenario("run/classes/3-with-hexagon", "refuse", "run", *quick, "--classes", "3", "--true-um", "uniform")
    scenario("run/estimator/conditional-truncated", "refuse", "run", *quick, "--error", "truncated", "--estimator", "conditional")
    # Options of the other study kind, or of no use in the mode given.
    for flag, value in (("--prevalence", "0.5"), ("--roc-mu-range", "0 3"), ("--roc-sigma-range", "0.5 2")):
        scenario(f"run/unused/{flag[2:]}-without-roc", "refuse", "run", *quick, flag, *value.split())
    for flag, value in (("--rate-beta", "2 1"), ("--class-proportion", "0 1"), ("--test-size", "100"), ("--classes", "3"),
                        ("--rate-range", "0.5 1"), ("--class-concentration", "1"), ("--fbeta-beta", "2")):  # fmt: skip
        scenario(f"run/unused/{flag[2:]}-with-roc", "refuse", "run", "--study", "roc", *quick, flag, *value.split())
    scenario("run/unused/scheduler-without-dask", "refuse", "run", *quick, "--scheduler", "tcp://127.0.0.1:1")
    scenario("run/unused/true-um-sd-with-uniform", "refuse", "run", *quick, "--true-um-sd", "0.5")
    scenario("run/unused/class-concentration-two-classes", "refuse", "run", *quick, "--class-concentration", "2")
    scenario("run/unused/fbeta-beta-without-fbeta", "refuse", "run", *quick, "--fbeta-beta", "2")
    scenario("run/unused/estimator-with-roc", "refuse", "run", "--study", "roc", *quick, "--estimator", "conditional")
    # Messages name the flag, not the schema's field.
    scenario("run/message/rate-beta-names-flag", "refuse", "run", "--config", "{tmp}/c.toml", *quick, "--rate-beta", "0", "1",
             not_says=("rate_beta",), files={"c.toml": (ROOT / "experiments" / "fig6_uniform.toml").read_bytes()})  # fmt: skip
    scenario("run/message/kind-names-flag", "refuse", "run", "--config", "{tmp}/c.toml", *quick,
             not_says=("kind=", "kind '", "prevalence:"), files={"c.toml": b'kind = "confusion"\nprevalence = 0.5\n'})  # fmt: skip
    # Experiment files.
    configs = {
        "empty": (b"", "ok"), "fig6": ((ROOT / "experiments" / "fig6_uniform.toml").read_bytes(), "ok"),
        "unknown-key": (b"bogus = 1\n", "refuse"), "wrong-type": (b'samples = "many"\n', "refuse"), "sds-string": (b'sds = "0.1"\n', "clean"),
        "duplicate-key": (b"seed = 1\nseed = 2\n", "refuse"), "nan": (b"sds = [nan]\n", "refuse"), "inf": (b"sds = [inf]\n", "refuse"),
        "negative-samples": (b"samples = -1\n", "refuse"), "float-samples": (b"samples = 1.5\n", "refuse"),
        "kind-bogus": (b'kind = "bogus"\n', "refuse"), "classes-1": (b"classes = 1\n", "refuse"), "table": (b"[study]\nseed = 1\n", "refuse"),
        "deep-arrays": (b"sds = " + b"[" * 5000 + b"]" * 5000 + b"\n", "refuse"), "huge-int": (b"seed = 99999999999999999999999\n", "clean"),
        "binary": (bytes(range(256)), "refuse"), "utf16": ("seed = 1\n".encode("utf-16"), "refuse"),
        "bom": (b"\xef\xbb\xbfseed = 1\n", "clean"), "latin1": ('description = "caf\xe9"\n'.encode("latin-1"), "refuse"),
        "nul": (b"seed = 1\x00\n", "refuse"), "metrics-bogus": (b'metrics = ["bogus"]\n', "refuse"),
        "rate-beta-three": (b"rate_beta = [1, 2, 3]\n", "refuse"), "sd-1e308": (b"sds = [1e308]\n", "clean"),
        "roc-sd-1e308": (b'kind = "roc"\nmetrics = ["auc"]\nsds = [1e308]\n', "refuse"),
        "description-long": (b'description = "' + b"x" * 100_000 + b'"\n', "ok"),
    }  # fmt: skip
    for label, (data, expect) in configs.items():
        scenario(f"run/config/{label}", expect, "run", "--config", "{tmp}/c.toml", *quick, files={"c.toml": data})
    scenario("run/config/huge", "refuse", "run", "--config", "{tmp}/c.toml", *quick, files={"c.toml": Sparse(65 * 2**20)})
    scenario("run/config/missing", "refuse", "run", "--config", "{tmp}/none.toml", *quick)
    scenario("run/config/directory", "refuse", "run", "--config", "{tmp}", *quick)
    scenario("run/config/dangling-link", "refuse", "run", "--config", "{tmp}/c.toml", *quick, files={"c.toml": Link("{tmp}/nowhere")})
    scenario("run/config/device", "refuse", "run", "--config", "/dev/zero", *quick, time_limit=FIFO_TIME_LIMIT)
    scenario("run/fifo/config", "refuse", "run", "--config", "{tmp}/c.toml", *quick, files={"c.toml": Fifo()}, time_limit=FIFO_TIME_LIMIT)
    scenario("run/config/committed-experiment", "ok", "run", "--config", "{root}/experiments/fig6_uniform.toml", *quick)
    scenario("run/config/roc-with-confusion-flag", "refuse", "run", "--config", "{root}/experiments/roc_uniform_gaussian.toml", *quick,
             "--rate-beta", "1", "1")  # fmt: skip
    scenario("run/inputs/positional", "refuse", "run", *quick, "extra")


#: The study's fields whose flags have other names: an error about a flag names the flag.
FIELDS = ("rate_beta", "rate_range", "class_proportion", "true_um_sd", "fbeta_beta", "test_size", "roc_mu_range", "roc_sigma_range",
          "class_concentration", "kind=")  # fmt: skip


def _percentages_in_range(outcome) -> str | None:
    """Every % incorrect of a table lies in [0, 100] and is a number."""
    for line in outcome.out.splitlines():
        parts = line.split()
        if parts and parts[0] in ("utility", "auc", "accuracy", "tpr", "precision", "mcc", "f1", "best_f1"):
            try:
                values = [float(p) for p in parts[1:]]
            except ValueError:
                return f"not a number in: {line.strip()}"
            if any(not math.isfinite(v) or not 0 <= v <= 100 for v in values[-2:]):
                return f"a percentage out of range: {line.strip()}"
    return None


# ----------------------------------------------------------------------------- reproduce and story


def _reproduce() -> None:
    one = {"exp": Folder({"a.toml": b"samples = 100\nseed = 1\nsds = [0.1]\n"})}
    quick = ("--samples", "100", "--no-figures", "--quiet")
    scenario("reproduce/ok/one-experiment", "ok", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/out", *quick, files=one,
             check=_wrote_files)  # fmt: skip
    scenario("reproduce/out/results", "refuse", "reproduce", "--out", "{root}/results", *quick)
    scenario("reproduce/out/results-relative", "refuse", "reproduce", *quick, cwd="root")
    scenario("reproduce/out/results-samples", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{root}/results/samples",
             *quick, files=one)  # fmt: skip
    scenario("reproduce/out/results-figures", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{root}/results/figures",
             *quick, files=one)  # fmt: skip
    scenario("reproduce/out/experiments", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{root}/experiments", *quick,
             files=one)  # fmt: skip
    scenario("reproduce/out/link-to-results", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/r", *quick,
             files={**one, "r": Link("{root}/results")})  # fmt: skip
    scenario("reproduce/out/link-to-experiments", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/e", *quick,
             files={**one, "e": Link("{root}/experiments")})  # fmt: skip
    scenario("reproduce/out/results-other-experiments", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{root}/results",
             "--no-figures", "--quiet", files=one)  # fmt: skip
    scenario("reproduce/out/a-file", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/f", *quick,
             files={**one, "f": b"x"})  # fmt: skip
    scenario("reproduce/out/same-as-experiments", "clean", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/exp", *quick,
             files=one)  # fmt: skip
    scenario("reproduce/out/fifo", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/f", *quick,
             files={**one, "f": Fifo()}, time_limit=FIFO_TIME_LIMIT)  # fmt: skip
    scenario("reproduce/out/empty", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "", *quick, files=one)
    scenario("reproduce/experiments/missing", "refuse", "reproduce", "--experiments", "{tmp}/none", "--out", "{tmp}/out", *quick)
    scenario("reproduce/experiments/empty-dir", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/out", *quick,
             files={"exp": Folder()})  # fmt: skip
    scenario("reproduce/experiments/a-file", "refuse", "reproduce", "--experiments", "{tmp}/f", "--out", "{tmp}/out", *quick,
             files={"f": b"seed = 1\n"})  # fmt: skip
    for label, data in (("empty", b""), ("binary", bytes(range(256))), ("unknown-key", b"bogus = 1\n"), ("nan", b"sds = [nan]\n"),
                        ("utf16", "seed = 1\n".encode("utf-16")), ("huge", Sparse(65 * 2**20)),
                        ("deep-arrays", b"sds = " + b"[" * 5000 + b"]" * 5000 + b"\n")):  # fmt: skip
        expect = "clean" if label == "empty" else "refuse"
        scenario(f"reproduce/experiment-file/{label}", expect, "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/out", *quick,
                 files={"exp": Folder({"x.toml": data})})  # fmt: skip
    scenario("reproduce/fifo/experiment-file", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/out", *quick,
             files={"exp": Folder({"x.toml": Fifo()})}, time_limit=FIFO_TIME_LIMIT)  # fmt: skip
    for value in ("0", "-1", "abc", "1e13", "1.5", "nan"):
        scenario(f"reproduce/samples/{value}", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/out", "--samples",
                 value, "--no-figures", "--quiet", files=one, says=("--samples",))  # fmt: skip
    scenario("reproduce/samples/other-than-made-with", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/out",
             "--samples", "200", "--no-figures", "--quiet", files={**one, "out": Folder({"a.json": (ROOT / "results" / "fig6_uniform.json").read_bytes()})})  # fmt: skip
    scenario(
        "reproduce/jobs/0", "refuse", "reproduce", "--experiments", "{tmp}/exp", "--out", "{tmp}/out", *quick, "--jobs", "0", files=one
    )
    scenario("reproduce/inputs/positional", "refuse", "reproduce", "extra")


def _wrote_files(outcome) -> str | None:
    return None if any(name.startswith("out/") for name in outcome.written) else "wrote no results"


def _story() -> None:
    scenario("story/ok/table", "ok", "story")
    scenario("story/ok/json", "ok", "story", "--format", "json", check=_valid_json)
    scenario("story/format/csv", "refuse", "story", "--format", "csv")
    scenario("story/inputs/positional", "refuse", "story", "extra")
    scenario("story/inputs/unknown-option", "refuse", "story", "--samples", "1")
    scenario("top/no-command", "refuse")
    scenario("top/unknown-command", "refuse", "bogus")


def _valid_json(outcome) -> str | None:
    try:
        json.loads(outcome.out)
    except ValueError as error:
        return f"not JSON: {error}"
    return None


# ----------------------------------------------------------------------------- the Python API


def _api() -> None:
    import numpy as np

    nan, inf = float("nan"), float("inf")
    good = {"A": np.array([[27, 15], [23, 35]]), "B": np.array([[43, 18], [7, 32]])}
    utility = [[15, -335], [-35, 165]]

    def ev(**kw):
        from mcrank.evaluate import evaluate

        options = {"confusions": good, "utility": utility} | kw
        return evaluate(options.pop("confusions"), options.pop("utility"), **options)

    # auc_score
    def auc(positive, scores):
        from mcrank.evaluate import auc_score

        return auc_score(np.asarray(positive), np.asarray(scores, dtype=float))

    api("auc_score/nan-scores", "raise", lambda: auc([True, True, False, False], [nan, nan, 0.2, 0.3]), names="scores")
    api("auc_score/all-nan-scores", "raise", lambda: auc([True, True, False, False], [nan] * 4), names="scores")
    api("auc_score/inf-and-nan", "raise", lambda: auc([True, False, True, False], [inf, nan, 0.2, 0.3]), names="scores")
    api("auc_score/wrong-length", "raise", lambda: auc([True, False], [0.5]), names="scores")
    api("auc_score/longer-scores", "raise", lambda: auc([True, False], [0.5, 0.2, 0.1]), names="scores")
    api("auc_score/ok", "ok", lambda: auc([True, False, True, False], [0.9, 0.1, 0.8, 0.2]), check=_equals(1.0))
    api("auc_score/inf-scores", "raise", lambda: auc([True, False, True, False], [inf, -inf, 0.8, 0.2]), names="scores")
    api("auc_score/one-class", "raise", lambda: auc([True, True], [0.9, 0.1]), names="positive")
    api("auc_score/empty", "raise", lambda: auc([], []), names="positive")
    api("auc_score/2d-scores", "raise", lambda: auc([True, False], [[0.5, 0.5], [0.1, 0.1]]), names="scores")
    api("auc_score/ties", "ok", lambda: auc([True, False, True, False], [0.5] * 4), check=_equals(0.5))
    # evaluate
    bad_confusions = {
        "nan-cell": {"A": np.array([[nan, 15], [23, 35]]), "B": good["B"]},
        "inf-cell": {"A": np.array([[inf, 15], [23, 35]]), "B": good["B"]},
        "negative-cell": {"A": np.array([[-1, 15], [23, 35]]), "B": good["B"]},
        "3x3-and-2x2": {"A": np.eye(3), "B": good["B"]},
        "1d": {"A": np.array([1, 2, 3, 4]), "B": good["B"]},
        "empty": {},
        "strings": {"A": np.array([["a", "b"], ["c", "d"]]), "B": good["B"]},
        "all-zero": {"A": np.zeros((2, 2)), "B": np.zeros((2, 2))},
    }
    for label, confusions in bad_confusions.items():
        names = "'A'" if "cell" in label or label in ("1d", "strings") else "confusion"
        api(f"evaluate/{label}", "raise", lambda c=confusions: ev(confusions=c), names=names, raises=(ValueError, TypeError))
    bad_utilities = {"nan": [[nan, 0], [0, 1]], "inf": [[inf, 0], [0, 1]], "3x3": np.eye(3).tolist(), "ragged": [[1, 0], [0]],
                     "1e308": [[1e308, -1e308], [0, 1]], "scalar": 5, "strings": [["a", 0], [0, 1]], "none": None}  # fmt: skip
    for label, u in bad_utilities.items():
        api(f"evaluate/utility-{label}", "raise", lambda u=u: ev(utility=u), names="utility", raises=(ValueError, TypeError))
    options = {
        "sd": (nan, -0.1, 0, inf, "x"), "samples": (0, -1, 1.5, 10**10), "prior_count": (0, -1, nan, inf, 1e13),
        "class_frequencies": ([0.5, 0.6], [nan, 1], [1], [0.5, 0.25, 0.25], [-0.5, 1.5]), "class_counts": ([-1, 5], [1.5, 2], [nan, 1], [1]),
        "error": ("bogus",), "estimator": ("bogus",), "classes": (("x",), ("x", "x"), ("x", "y", "z")), "rng": (-1, "seed"),
        "metrics": (["bogus"], [], ["auc"]),
    }  # fmt: skip
    for option, values in options.items():
        for value in values:
            extra = {"sd": 0.1} if option in ("error", "estimator", "samples") else {}
            if option in ("samples", "prior_count", "rng"):
                extra = {"test_uncertainty": True}
            if option == "class_counts":
                extra = {}
            name = "bogus-metric" if (option, value) == ("metrics", ["bogus"]) else f"{option}-{_label(value)}"
            named = {"rng": "seed", "classes": "class"}.get(option, option)
            api(f"evaluate/{name}", "raise", lambda o=option, v=value, e=extra: ev(**{o: v}, **e), names=named,
                raises=(ValueError, TypeError))  # fmt: skip
    api("evaluate/ok", "ok", lambda: ev(), check=lambda r: None if r.classifiers[0].name == "A" else "A is not first")
    api("evaluate/ok-sd", "ok", lambda: ev(sd=0.1), check=lambda r: _close(r.pairs[0].flip_probability, 0.2716, 1e-4))

    def labels_mismatch():
        from mcrank.evaluate import ItemLabels

        truth = np.array([0] * 50 + [1] * 50)
        return ev(labels=ItemLabels(truth=truth, outputs={"A": truth.copy(), "B": 1 - truth}), test_uncertainty=True, samples=100, rng=1)

    def labels_out_of_range():
        from mcrank.evaluate import ItemLabels

        truth = np.array([0] * 50 + [1] * 50)
        return ev(labels=ItemLabels(truth=truth, outputs={"A": truth + 7, "B": -truth}), test_uncertainty=True, samples=100, rng=1)

    api(
        "evaluate/labels-doubled-quote",
        "raise",
        labels_mismatch,
        names="labels",
        check=lambda e: f"a doubled quote: {e}" if "''s" in str(e) else None,
    )
    api("evaluate/labels-out-of-range", "raise", labels_out_of_range, names="labels")
    # evaluate_predictions, confusions_from_labels, labels_from_predictions
    y = ["a", "b"] * 10

    def predictions(y_true=y, predicted=None, u=((1, 0), (0, 1)), **kw):
        from mcrank.evaluate import evaluate_predictions

        kw = {"classes": ("a", "b")} | kw  # text labels: the matrix's class order is named
        return evaluate_predictions(y_true, {"m": y if predicted is None else predicted, "n": y[::-1]}, [list(r) for r in u], **kw)

    api("evaluate_predictions/ok", "ok", predictions)
    api("evaluate_predictions/bogus-metric", "raise", lambda: predictions(metrics=["bogus"]), names="metrics")
    api("evaluate_predictions/wrong-length", "raise", lambda: predictions(predicted=y[:-1]), names="'m'")
    api("evaluate_predictions/nan-label", "raise", lambda: predictions(predicted=[nan] * 20), names="'m'", raises=(ValueError, TypeError))
    api("evaluate_predictions/empty", "raise", lambda: predictions(y_true=[], predicted=[]), names="y_true")
    api("evaluate_predictions/unknown-class", "raise", lambda: predictions(classes=("a", "c")), names="classes")
    api("evaluate_predictions/utility-3x3", "raise", lambda: predictions(u=np.eye(3)), names="utility")
    api("evaluate_predictions/2d-labels", "raise", lambda: predictions(y_true=[y, y]), names="y_true", raises=(ValueError, TypeError))
    api("evaluate_predictions/none-labels", "raise", lambda: predictions(y_true=None), names="y_true", raises=(ValueError, TypeError))

    def from_labels(pairs, **kw):
        from mcrank.evaluate import confusions_from_labels

        return confusions_from_labels(pairs, **kw)

    api("confusions_from_labels/wrong-length", "raise", lambda: from_labels({"m": (y, y[:-1])}), names="m")
    api("confusions_from_labels/not-pairs", "raise", lambda: from_labels({"m": y}), names="m", raises=(ValueError, TypeError))
    api("confusions_from_labels/empty", "raise", lambda: from_labels({}), names="predictions")
    api(
        "confusions_from_labels/nan",
        "raise",
        lambda: from_labels({"m": ([nan, 1.0], [1.0, 1.0])}),
        names="m",
        raises=(ValueError, TypeError),
    )
    api("confusions_from_labels/ok", "ok", lambda: from_labels({"m": (y, y)}))
    # decision_curves, scored_test_set, rank_scoring
    truth = np.array(["p", "n"] * 20)
    probs = np.linspace(0.01, 0.99, 40)

    def curves(y_true=truth, p=probs, **kw):
        from mcrank.evaluate import decision_curves

        return decision_curves(y_true, {"m": p}, positive="p", **kw)

    api("decision_curves/ok", "ok", curves)
    api("decision_curves/nan", "raise", lambda: curves(p=np.where(probs > 0.5, nan, probs)), names="m")
    api("decision_curves/above-one", "raise", lambda: curves(p=probs + 0.5), names="m")
    api("decision_curves/wrong-length", "raise", lambda: curves(p=probs[:-1]), names="m")
    api("decision_curves/strings", "raise", lambda: curves(p=np.array(["x"] * 40)), names="m", raises=(ValueError, TypeError))
    for value in ([0.0, 0.5], [0.5, 1.0], [nan], [], [-0.1]):
        api(f"decision_curves/thresholds-{_label(value)}", "raise", lambda v=value: curves(thresholds=v), names="thresholds",
            raises=(ValueError, TypeError))  # fmt: skip
    for option, value in (("samples", 0), ("prior_count", -1), ("prior_count", nan), ("samples", 1.5)):
        api(f"decision_curves/{option}-{_label(value)}", "raise", lambda o=option, v=value: curves(test_uncertainty=True, **{o: v}), names=option,
            raises=(ValueError, TypeError))  # fmt: skip
    api("decision_curves/positive-unknown", "raise", lambda: __import__("mcrank.evaluate").evaluate.decision_curves(truth, {"m": probs},
        positive="x"), names="positive")  # fmt: skip

    def scored(y_true=truth, s=probs, **kw):
        from mcrank.evaluate import scored_test_set

        return scored_test_set(y_true, {"m": s}, positive="p", **({"classes": ("p", "n")} | kw))

    def ranked(u=((1, -3), (0, 0)), **kw):
        from mcrank.evaluate import rank_scoring

        return rank_scoring(scored(), [list(r) for r in u], **kw)

    api("scored_test_set/nan", "raise", lambda: scored(s=np.full(40, nan)), names="m")
    api("scored_test_set/wrong-length", "raise", lambda: scored(s=probs[:3]), names="m")
    api("scored_test_set/three-classes", "raise", lambda: scored(y_true=np.array(["p", "n", "x", "n"] * 10)), names="y_true")
    api("scored_test_set/empty-scores", "raise", lambda: __import__("mcrank.evaluate").evaluate.scored_test_set(truth, {}, positive="p"),
        names="scores")  # fmt: skip
    api("rank_scoring/ok", "ok", lambda: ranked(rng=1))
    api("rank_scoring/utility-3x3", "raise", lambda: ranked(u=np.eye(3)), names="utility")
    api("rank_scoring/utility-nan", "raise", lambda: ranked(u=((nan, 0), (0, 1))), names="utility")
    for option, value in (("threshold_choice", "bogus"), ("folds", 1), ("folds", 0), ("folds", 1.5), ("folds", 10**6), ("rng", -1)):
        api(f"rank_scoring/{option}-{_label(value)}", "raise", lambda o=option, v=value: ranked(**{o: v}), names="seed" if option == "rng" else option,
            raises=(ValueError, TypeError))  # fmt: skip
    # compare_folds, fold_yields
    yields = {"a": np.array([1.0, 2.0, 3.0, 4.0]), "b": np.array([1.5, 2.0, 2.5, 4.5])}

    def compare(y=yields, **kw):
        from mcrank.evaluate import compare_folds

        return compare_folds(y, **({"repeats": 1, "samples": 1000, "rng": 1} | kw))

    api("compare_folds/ok", "ok", compare)
    api("compare_folds/nan", "raise", lambda: compare({"a": np.array([1.0, nan, 3.0]), "b": np.ones(3)}), names="'a'")
    api("compare_folds/inf", "raise", lambda: compare({"a": np.array([1.0, inf, 3.0]), "b": np.ones(3)}), names="'a'")
    api("compare_folds/one-fold", "raise", lambda: compare({"a": np.ones(1), "b": np.ones(1)}), names="yields")
    api("compare_folds/lengths-differ", "raise", lambda: compare({"a": np.ones(4), "b": np.ones(3)}), names="yields")
    api("compare_folds/one-model", "clean", lambda: compare({"a": np.arange(4.0)}), names="yields")
    api("compare_folds/empty", "raise", lambda: compare({}), names="yields")
    api("compare_folds/equal-yields", "ok", lambda: compare({"a": np.ones(4), "b": np.ones(4)}))
    api("compare_folds/1e200", "raise", lambda: compare({"a": np.full(4, 1e200) * [1, 2, 3, 4], "b": np.ones(4)}), names="'a'")
    for option, value in (("rope", -0.1), ("rope", nan), ("repeats", 0), ("repeats", 3), ("samples", 0), ("test_fraction", 1.5),
                          ("test_fraction", 0.0)):  # fmt: skip
        api(f"compare_folds/{option}-{_label(value)}", "raise", lambda o=option, v=value: compare(**{o: v}), names=option,
            raises=(ValueError, TypeError))  # fmt: skip

    def per_fold(folds=(0, 0, 1, 1) * 5, **kw):
        from mcrank.evaluate import fold_yields

        truth = ["a", "b"] * 10
        return fold_yields(
            truth, {"m": truth, "n": truth[::-1]}, list(folds), **({"utility": [[1, 0], [0, 1]], "classes": ("a", "b")} | kw)
        )

    api("fold_yields/ok", "ok", per_fold)
    api("fold_yields/wrong-length", "raise", lambda: per_fold(folds=(0, 1) * 3), names="folds")
    api("fold_yields/utility-3x3", "raise", lambda: per_fold(utility=np.eye(3)), names="utility")
    api("fold_yields/nan-fold", "clean", lambda: per_fold(folds=(0.0, nan) * 10), names="folds")
    # mcrank.decisions
    p = np.array([[0.7, 0.3], [0.2, 0.8]])
    u2 = np.array([[1.0, -2.0], [0.0, 0.5]])

    def decide(name, probabilities=p, u=u2, **kw):
        import mcrank.decisions as decisions

        return getattr(decisions, name)(probabilities, u, **kw)

    for name in ("expected_utilities", "optimal_decisions"):
        api(f"decisions/{name}-ok", "ok", lambda n=name: decide(n))
        api(
            f"decisions/{name}-nan",
            "raise",
            lambda n=name: decide(n, probabilities=np.array([[nan, 0.5], [0.2, 0.8]])),
            names="probabilities",
        )
        api(f"decisions/{name}-not-summing", "raise", lambda n=name: decide(n, probabilities=np.array([[0.7, 0.7], [0.2, 0.8]])),
            names="probabilities")  # fmt: skip
        api(f"decisions/{name}-negative", "raise", lambda n=name: decide(n, probabilities=np.array([[1.2, -0.2], [0.2, 0.8]])),
            names="probabilities")  # fmt: skip
        api(
            f"decisions/{name}-wrong-columns",
            "raise",
            lambda n=name: decide(n, probabilities=np.full((2, 3), 1 / 3)),
            names="probabilities",
        )
        api(f"decisions/{name}-3d", "raise", lambda n=name: decide(n, probabilities=np.full((2, 2, 2), 0.5)), names="probabilities")
        api(f"decisions/{name}-utility-nan", "raise", lambda n=name: decide(n, u=np.array([[nan, 0], [0, 1]])), names="utility")
        api(f"decisions/{name}-utility-not-square", "raise", lambda n=name: decide(n, u=np.ones((2, 3))), names="utility")
        api(f"decisions/{name}-utility-1e308", "clean", lambda n=name: decide(n, u=np.array([[1e308, -1e308], [0, 1]])), names="utility")
        api(f"decisions/{name}-strings", "raise", lambda n=name: decide(n, probabilities=np.array([["a", "b"]])), names="probabilities",
            raises=(ValueError, TypeError))  # fmt: skip
        api(f"decisions/{name}-empty", "clean", lambda n=name: decide(n, probabilities=np.empty((0, 2))), names="probabilities")
    for label, kw in {"priors-wrong-length": {"priors": [1.0], "training_priors": [0.5, 0.5]},
                      "priors-nan": {"priors": [nan, 0.5], "training_priors": [0.5, 0.5]},
                      "priors-negative": {"priors": [-0.5, 1.5], "training_priors": [0.5, 0.5]},
                      "training-priors-zero": {"priors": [0.5, 0.5], "training_priors": [0.0, 1.0]},
                      "priors-alone": {"priors": [0.5, 0.5]}}.items():  # fmt: skip
        name = "training_priors" if label.startswith("training") or label == "priors-alone" else "priors"
        api(f"decisions/optimal_decisions-{label}", "raise", lambda kw=kw: decide("optimal_decisions", **kw), names=name)
    # mcrank.sklearn
    y_true, y_pred = np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0])

    def score(yt=y_true, yp=y_pred, u=((1, -1), (-2, 1)), **kw):
        from mcrank.sklearn import utility_score

        return utility_score(yt, yp, utility=np.array(u, dtype=float), **kw)

    api("sklearn/utility_score-ok", "ok", score)
    api("sklearn/utility_score-wrong-length", "raise", lambda: score(yp=y_pred[:3]), names="y_pred")
    api("sklearn/utility_score-unknown-label", "raise", lambda: score(yp=np.array([0, 1, 2, 0])), names="labels")
    api("sklearn/utility_score-nan-weight", "raise", lambda: score(sample_weight=[nan, 1, 1, 1]), names="sample_weight")
    api("sklearn/utility_score-negative-weight", "raise", lambda: score(sample_weight=[-1, 1, 1, 1]), names="sample_weight")
    api("sklearn/utility_score-zero-weights", "raise", lambda: score(sample_weight=[0, 0, 0, 0]), names="sample_weight")
    api("sklearn/utility_score-weight-length", "raise", lambda: score(sample_weight=[1, 1]), names="sample_weight")
    api("sklearn/utility_score-utility-nan", "raise", lambda: score(u=((nan, 0), (0, 1))), names="utility")
    # Labels 0 and 1 are the first two of three classes in their natural order (as for UtilityClassifier).
    api("sklearn/utility_score-utility-3x3", "ok", lambda: score(u=np.eye(3)), check=_equals(0.75))
    api("sklearn/utility_score-labels-duplicate", "raise", lambda: score(labels=[0, 0]), names="labels")
    api("sklearn/utility_score-empty", "raise", lambda: score(yt=np.array([]), yp=np.array([])), names="y_true")
    api("sklearn/make_utility_scorer-nan", "raise", lambda: __import__("mcrank.sklearn").sklearn.make_utility_scorer([[nan, 0], [0, 1]]),
        names="utility")  # fmt: skip

    def classifier(u, fit=True, X=None, y=None):
        from sklearn.linear_model import LogisticRegression

        from mcrank.sklearn import UtilityClassifier

        model = UtilityClassifier(LogisticRegression(), u)
        X = np.array([[0.0], [1.0], [2.0], [3.0]]) if X is None else X
        return model.fit(X, np.array([0, 0, 1, 1]) if y is None else y).predict(X) if fit else model

    api("sklearn/UtilityClassifier-ok", "ok", lambda: classifier([[1, -1], [-1, 1]]))
    api("sklearn/UtilityClassifier-utility-nan", "raise", lambda: classifier([[nan, 0], [0, 1]]), names="utility")
    # Labels 0 and 1 are the first two of three classes in their natural order; class 2 has no item.
    api("sklearn/UtilityClassifier-utility-3x3", "ok", lambda: classifier(np.eye(3).tolist()))
    api("sklearn/UtilityClassifier-X-nan", "raise", lambda: classifier([[1, -1], [-1, 1]], X=np.array([[nan], [1.0], [2.0], [3.0]])),
        names="X")  # fmt: skip
    # utility_space, confusion, roc
    from mcrank import confusion as cm
    from mcrank import roc
    from mcrank import utility_space as us

    api("utility_space/utility_yield-ok", "ok", lambda: us.utility_yield(np.eye(2), np.full((2, 2), 0.25)), check=_equals(0.5))
    api("utility_space/utility_yield-shapes", "raise", lambda: us.utility_yield(np.eye(2), np.eye(3)), names="confusion")
    api("utility_space/utility_yield-nan", "raise", lambda: us.utility_yield(np.array([[nan, 0], [0, 1]]), np.eye(2)), names="utility")
    api("utility_space/normalise_um-constant", "raise", lambda: us.normalise_um(np.ones((2, 2))), names="utility")
    api("utility_space/normalise_um-nan", "raise", lambda: us.normalise_um(np.array([[nan, 0], [0, 1]])), names="utility")
    api("utility_space/normalise_um-1e308", "clean", lambda: us.normalise_um(np.array([[1e308, -1e308], [0, 1]])), names="utility")
    api("utility_space/expected_um-not-summing", "raise", lambda: us.expected_um([np.eye(2), np.eye(2)], [0.5, 0.6]), names="probabilities")
    api("utility_space/expected_um-lengths", "raise", lambda: us.expected_um([np.eye(2)], [0.5, 0.5]), names="probabilities")
    api("utility_space/expected_um-nan", "raise", lambda: us.expected_um([np.eye(2), np.eye(2)], [nan, 1]), names="probabilities")
    api("utility_space/xy_from_um-bogus-invalid", "raise", lambda: us.xy_from_um(np.eye(2), invalid="bogus"), names="invalid")
    api("utility_space/um_from_xy-nan", "raise", lambda: us.um_from_xy(nan, 0.1), names="x")
    api("confusion/normalise_confusion-zero", "raise", lambda: cm.normalise_confusion(np.zeros((2, 2))), names="confusion")
    api("confusion/normalise_confusion-negative", "raise", lambda: cm.normalise_confusion(np.array([[-1, 2], [3, 4]])), names="confusion")
    api("confusion/normalise_confusion-nan", "raise", lambda: cm.normalise_confusion(np.array([[nan, 2], [3, 4]])), names="confusion")
    api("confusion/confusion_from_pab-out-of-range", "raise", lambda: cm.confusion_from_pab(1.5, 0.5, 0.5), names="p")
    api("confusion/confusion_from_pab-nan", "raise", lambda: cm.confusion_from_pab(0.5, nan, 0.5), names="tpr")
    api("confusion/pab_from_confusion-shape", "raise", lambda: cm.pab_from_confusion(np.eye(3) / 3), names="confusion")
    api("roc/binormal_auc-ok", "ok", lambda: roc.binormal_auc(0.0, 1.0), check=_equals(0.5))
    api("roc/binormal_auc-sigma-0", "raise", lambda: roc.binormal_auc(1.0, 0.0), names="sigma")
    api("roc/binormal_auc-nan", "raise", lambda: roc.binormal_auc(nan, 1.0), names="mu")
    api("roc/binormal_auc-sigma-negative", "raise", lambda: roc.binormal_auc(1.0, -1.0), names="sigma")
    api("roc/binormal_tpr-fpr-2", "raise", lambda: roc.binormal_tpr(2.0, 1.0, 1.0), names="fpr")
    api("roc/best_threshold-prevalence-0", "clean", lambda: roc.best_threshold(np.eye(2), 0.0, 1.0, 1.0), names="prevalence")
    api("roc/best_threshold-prevalence-nan", "raise", lambda: roc.best_threshold(np.eye(2), nan, 1.0, 1.0), names="prevalence")
    api("roc/best_threshold-utility-3x3", "raise", lambda: roc.best_threshold(np.eye(3), 0.5, 1.0, 1.0), names="utility")
    api("roc/get_roc_score-bogus", "raise", lambda: roc.get_roc_score("bogus"), names="bogus", raises=(ValueError, KeyError))

    # The study: StudyConfig and run_study.
    def config(**kw):
        from mcrank.study import StudyConfig

        return StudyConfig(**kw)

    def study(samples=100, **kw):
        from mcrank.engine import run_study

        return run_study(config(seed=1, samples=samples, **kw), jobs=1)

    api(
        "study/ok",
        "ok",
        lambda: study(),
        check=lambda r: None if all(0 <= row["incorrect_pct"] <= 100 for row in r.rows()) else "out of range",
    )
    bad = {
        "sds": ((nan,), (-0.1,), (inf,), (1e308,), (), "0.1", ((0.1,),)), "samples": (0, -1, 1.5, nan, 10**13, "many"),
        "classes": (1, 51, 2.5, 0), "kind": ("bogus",), "true_um": ("bogus",), "error": ("bogus",), "estimator": ("bogus",),
        "metrics": (("bogus",), (), ("auc",), ("accuracy", "accuracy")), "class_proportion": ((1, 0), (nan, 1), (0, 2), (0.5,)),
        "rate_beta": ((0, 1), (nan, 1), (inf, 1), (1, 2, 3)), "rate_range": ((1, 0.5), (-1, 1), (0.5, 2)), "fbeta_beta": (0, -1, nan),
        "seed": (-1, 1.5, "x"), "chunk_size": (0, -1), "test_size": (0, -1, 1.5, 10**13), "true_um_sd": (0, -1, nan),
        "prevalence": (0.5,), "roc_mu_range": ((3, 0),), "class_concentration": (0, -1, nan),
    }  # fmt: skip
    for option, values in bad.items():
        for value in values:
            extra = {"true_um": "gaussian"} if option == "true_um_sd" else {}
            extra = {"classes": 3, "true_um": "uniform-elements"} if option == "class_concentration" else extra
            extra = {"metrics": ("fbeta",)} if option == "fbeta_beta" else extra
            expect = "clean" if (option, value) in (("sds", (1e308,)), ("sds", ()), ("metrics", ())) else "raise"
            named = "sd" if option == "sds" else option
            api(f"StudyConfig/{option}-{_label(value)}", expect, lambda o=option, v=value, e=extra: config(**{o: v}, **e), names=named,
                raises=(ValueError, TypeError))  # fmt: skip
    api("StudyConfig/roc-sd-1e308", "raise", lambda: config(kind="roc", metrics=("auc",), sds=(5e307, 1e308)), names="sd")
    api("StudyConfig/roc-mu-range-huge", "raise", lambda: config(kind="roc", roc_mu_range=(-1e308, 1e308)), names="roc_mu_range")

    # The same seed and sd, alone or inside a grid: the conditional estimator gives the same count
    # (the sample estimator draws each sd of a grid in turn from one stream, as docs/method.md says).
    def same_count():
        from mcrank.engine import run_study

        counts = []
        for sds in ((0.1,), (0.0, 0.1, 0.2)):
            result = run_study(config(estimator="conditional", sds=sds, seed=1, samples=5000), jobs=1)
            counts.append(next(row["incorrect"] for row in result.rows() if row["sd"] == 0.1))
        return counts

    api("run_study/sd-alone-and-in-a-grid-conditional", "ok", same_count,
        check=lambda c: None if c[0] == c[1] else f"{c[0]} pairs misranked at sd 0.1 alone, {c[1]} inside a grid, same seed")  # fmt: skip
    api("StudyConfig/unknown-field", "raise", lambda: config(bogus=1), raises=(TypeError,), names="bogus")
    for option, value in (("jobs", 0), ("backend", "bogus"), ("samples", 0)):
        api(f"run_study/{option}-{_label(value)}", "raise", lambda o=option, v=value: __import__("mcrank.engine").engine.run_study(config(seed=1),
            **{o: v}), names=option)  # fmt: skip
    # metrics
    from mcrank import metrics

    # A registry's lookup raises KeyError, as a mapping does: only evaluate's options must say ValueError.
    api("metrics/get_metric-bogus", "raise", lambda: metrics.get_metric("bogus"), names="bogus", raises=(ValueError, KeyError))
    api("metrics/score-bogus", "raise", lambda: metrics.score("bogus", np.eye(2)), names="bogus", raises=(ValueError, TypeError, KeyError))


def _label(value) -> str:
    """A value as a scenario's name holds it: its repr without spaces or quotes."""
    return repr(value).replace(" ", "").replace("'", "")


def _equals(expected: float):
    return lambda value: None if float(value) == expected else f"returned {float(value)!r}, not {expected!r}"


def _close(value, expected, tolerance) -> str | None:
    return None if abs(value - expected) <= tolerance else f"{value!r} is not {expected} within {tolerance}"


# ----------------------------------------------------------------------------- issue 42's areas


def _round_four() -> None:
    """Per-item utilities, masked arrays and pandas objects, full disks, numerals and grids (the
    fourth hostile round); the two signals and loky are in :func:`_signals`."""
    import numpy as np

    y, models = np.array([0, 1, 0, 1]), {"m": [0, 1, 1, 1], "n": [0, 0, 0, 1]}
    diagonal = np.tile(np.eye(2), (4, 1, 1))

    def per_item(utility=diagonal, predictions=models, **options):
        from mcrank.evaluate.per_item import evaluate_per_item

        return evaluate_per_item(y, predictions, utility, **options)

    big = diagonal.copy()
    big[2] *= 1e307
    api("per-item/overflowing-utilities", "raise", lambda: per_item(big), names="utility")
    api("per-item/prior-count-nan", "raise", lambda: per_item(test_uncertainty=True, prior_count=float("nan")), names="prior_count")
    api("per-item/samples-zero", "raise", lambda: per_item(test_uncertainty=True, samples=0), names="samples")
    api("per-item/samples-1e9", "raise", lambda: per_item(test_uncertainty=True, samples=10**9), names="samples")
    api("per-item/predictions-a-list", "raise", lambda: per_item(predictions=[[0, 1, 1, 1]]), names="predictions")
    huge = {"classes": ["a", "b"], "cells": {"a": {"a": 10**400, "b": 0}, "b": {"a": 0, "b": 1}}}
    api("per-item/integer-of-400-digits", "raise", lambda: per_item(huge), names="utility")
    item_table = b"true,m,gain\na,a,1\nb,b,2\na,b,3\n"
    affine = json.dumps({"classes": ["a", "b"], "cells": {"a": {"a": {"gain": 1}, "b": 0}, "b": {"a": 0, "b": 1}}})
    scenario("evaluate/per-item/utility-of-400-digits", "refuse", "evaluate", "--per-item", "{tmp}/items.csv", "--utility",
             affine.replace('{"gain": 1}', "1" + "0" * 400), files={"items.csv": item_table})  # fmt: skip

    # masked arrays, at every door; pandas objects accepted
    def masked(values):
        mask = np.zeros(np.shape(values), dtype=bool)
        mask.flat[0] = True
        return np.ma.masked_array(values, mask=mask)

    def evaluate_with(confusions, utility):
        from mcrank.evaluate import evaluate

        return evaluate(confusions, utility)

    def auc_of(positive, scores):
        from mcrank.evaluate import auc_score

        return auc_score(positive, scores)

    def decisions_of(probabilities):
        from mcrank.decisions import optimal_decisions

        return optimal_decisions(probabilities, [[1, -1], [0, 0]])

    matrix = [[30, 5], [5, 60]]
    api("masked/confusion-matrix", "raise", lambda: evaluate_with({"A": masked(matrix)}, [[1, -1], [0, 0]]), names="classifier 'A'")
    api("masked/utility", "raise", lambda: evaluate_with({"A": matrix}, masked([[1, -1], [0, 0]])), names="utility")
    api("masked/scores", "raise", lambda: auc_of([True, False], masked([1.0, 2.0])), names="scores")
    api("masked/probabilities", "raise", lambda: decisions_of(masked([[0.2, 0.8]])), names="probabilities")
    api("masked/per-item-utility", "raise", lambda: per_item(masked(diagonal)), names="utility")
    api("masked/y-true", "raise", lambda: per_item(predictions={"m": masked([0, 1, 1, 1])}), names="predictions")
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        api("pandas/confusion-matrices", "ok", lambda: evaluate_with({"A": pd.DataFrame(matrix)}, pd.DataFrame([[1, -1], [0, 0]])))
        api("pandas/per-item", "ok", lambda: per_item(predictions=pd.DataFrame(models)))
        api("pandas/scores", "ok", lambda: auc_of(pd.Series([True, False, True]), pd.Series([0.9, 0.1, 0.5])))
    # one-class input: every threshold-free score as auc_score
    for name in ("h_measure", "average_precision"):

        def one_class(name=name):
            from mcrank.evaluate import curve_scores

            return getattr(curve_scores, name)([True, True], [0.1, 0.2])

        api(f"{name}/one-class", "raise", one_class, names="positive")

    # full disks: an output that cannot be written is one line and exit code 2
    full = "/dev/full"
    if os.path.exists(full):
        scenario("run/full-disk/out", "refuse", "run", "--samples", "1e3", "--out", full, says=("No space left",))
        scenario("evaluate/full-disk/out", "refuse", "evaluate", "{ex}/factory.json", "--out", full, says=("No space left",))
        scenario("story/full-disk/out", "refuse", "story", "--out", full, says=("No space left",))

    # numerals and grids
    for label, value in (("underscore", "1_000"), ("fullwidth", "\uff11\uff10\uff10\uff10")):
        scenario(f"run/numerals/samples-{label}", "refuse", "run", "--samples", value)
        scenario(f"run/numerals/sd-{label}", "refuse", "run", "--sd", value)
    for label, value in (("tiny-step", "0:1:5e-324"), ("below-spacing", "1:1.0000000000000001:1e-17")):
        scenario(f"run/grid/{label}", "refuse", "run", "--sd", value)

    def sds_of(text):
        from mcrank.study import parse_sds

        return parse_sds(text)

    api("grid/tiny-start-kept", "ok", lambda: sds_of("1e-13:1e-13:1"), check=lambda r: None if r == (1e-13,) else f"{r}")
    api("grid/none-past-stop", "ok", lambda: sds_of("0:0.1:0.1000000001"), check=lambda r: None if r == (0.0,) else f"{r}")
    scenario("evaluate/grid/thresholds-stop-off-the-steps", "ok", "evaluate", "--scores", "{tmp}/s.csv", "--positive", "sick",
             "--thresholds", "0.01:0.5:0.1", files={"s.csv": SCORES})  # fmt: skip


# ----------------------------------------------------------------------------- signals


def _signals() -> None:
    long_run = ("run", "--samples", "1e10", "--seed", "1", "--jobs", "1", "--out", "{tmp}/o.json")
    long_reproduce = (
        "reproduce",
        "--experiments",
        "{tmp}/exp",
        "--out",
        "{tmp}/out",
        "--samples",
        "1e10",
        "--no-figures",
        "--jobs",
        "1",
        "--quiet",
    )
    exp = {"exp": Folder({"a.toml": b"seed = 1\nsds = [0.1]\n"})}
    for command, argv, files in (("run", long_run, {}), ("reproduce", long_reproduce, exp)):
        for name, signum in (("sigint", signal.SIGINT), ("sigterm", signal.SIGTERM)):
            for moment, delay in (("while-importing", 0.15), ("after-start-up", 1.5), ("while-drawing", 6.0)):
                scenario(f"signals/{command}/{name}-{moment}", "signal", *argv, files=files, send=(signum, delay), time_limit=30.0)
    # Two signals, the second while the first's clean-up runs, with the loky backend's processes.
    loky = ("run", "--samples", "1e9", "--seed", "1", "--jobs", "2", "--backend", "loky")
    for name, signum in (("sigint", signal.SIGINT), ("sigterm", signal.SIGTERM)):
        for moment, delay, gap in (("after-start-up", 2.0, 0.1), ("while-drawing", 6.0, 0.5)):
            scenario(f"signals/run/two-{name}s-loky-{moment}", "signal", *loky, send=(signum, delay, gap), time_limit=30.0)
        scenario(f"signals/run/{name}-loky-while-drawing", "signal", *loky, send=(signum, 6.0), time_limit=30.0)
    # A fresh numba cache: the signal arrives while the kernels compile.
    for name, signum, delay in (("sigterm-while-compiling", signal.SIGTERM, 4.0), ("sigterm-while-compiling-later", signal.SIGTERM, 8.0),
                                ("sigint-while-compiling", signal.SIGINT, 8.0)):  # fmt: skip
        scenario(f"signals/run/{name}", "signal", *long_run, send=(signum, delay), env={"NUMBA_CACHE_DIR": "{tmp}/numba"},
                 time_limit=30.0)  # fmt: skip
    # At a point the child reaches for certain, sent by itself (:data:`SIGNAL_POINTS`): the same
    # outcome on a machine of any speed and load.
    two_jobs = ("run", "--samples", "1e10", "--seed", "1", "--jobs", "2", "--out", "{tmp}/o.json")
    for command, argv, files, points in (
        ("run", long_run, {}, ("import:argparse", "import:mcrank.cli._common", "swallowed-import:joblib", "swallowed-import:numba")),
        ("run", two_jobs, {}, ("between-chunks",)),
        ("reproduce", (*long_reproduce, "--force"), exp, ("import:argparse", "swallowed-import:joblib", "swallowed-import:numba")),
    ):
        for name, signum in (("sigint", signal.SIGINT), ("sigterm", signal.SIGTERM)):
            for point in points:
                label = point.replace(":", "-").replace("_", "").replace(".", "-")
                jobs = "-two-jobs" if argv is two_jobs else ""
                scenario(f"signals/{command}/{name}-at-{label}{jobs}", "signal", *argv, files=files, send=(signum, point), time_limit=60.0)


def all_scenarios() -> list[Scenario]:
    """Every scenario, built once."""
    if not SCENARIOS:
        for build in (
            _evaluate_inputs,
            _evaluate_probabilities,
            _evaluate_options,
            _evaluate_folds,
            _outputs,
            _run,
            _reproduce,
            _story,
            _api,
            _round_four,
            _signals,
        ):
            build()
        names = Counter(s.name for s in SCENARIOS)
        duplicates = [name for name, count in names.items() if count > 1]
        if duplicates:
            raise RuntimeError(f"scenarios named twice: {duplicates}")
    return SCENARIOS


# ----------------------------------------------------------------------------- running them


@dataclass
class Outcome:
    code: int | None = None
    out: str = ""
    err: str = ""
    written: list = field(default_factory=list)
    repository: list = field(default_factory=list)
    hung: bool = False
    crashed: str | None = None
    result: object = None
    error: BaseException | None = None
    warned: list = field(default_factory=list)
    seconds: float = 0.0
    tmp: str = ""
    #: Processes of the child's group (its workers, resource trackers) alive after it exited.
    survivors: int = 0


class _Hang(BaseException):
    """Raised by the alarm when a scenario passes its time limit."""


def _on_alarm(signum, frame):
    raise _Hang


def _fill(text: str, tmp: Path) -> str:
    return text.replace("{tmp}", str(tmp)).replace("{root}", str(ROOT)).replace("{ex}", str(EXAMPLES))


def _make(tmp: Path, files: dict) -> None:
    for name, content in files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, Fifo):
            os.mkfifo(path)
            if content.reader:
                threading.Thread(target=_drain, args=(path,), daemon=True).start()
        elif isinstance(content, Link):
            path.symlink_to(_fill(content.target, tmp))
        elif isinstance(content, Sparse):
            with open(path, "wb") as stream:
                stream.truncate(content.size)
        elif isinstance(content, Folder):
            path.mkdir()
            _make(path, content.files)
        elif isinstance(content, ReadOnly):
            path.write_bytes(content.data)
            path.chmod(0o444)


def _drain(path: Path) -> None:
    """Read a FIFO to its end, as a reader at the other end of a pipe does."""
    with contextlib.suppress(OSError), open(path, "rb") as stream:
        while stream.read(1 << 16):
            pass


def _tree(top: Path) -> dict:
    """Every entry under ``top``, links not followed: its type, size and modification time."""
    entries = {}
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = Path(folder) / name
            try:
                info = path.lstat()
            except OSError:
                continue
            kind = stat.S_IFMT(info.st_mode)
            # A folder by its kind only: a file made and removed in it (a temporary one) changes its time.
            entries[path.relative_to(top).as_posix()] = (kind,) if kind == stat.S_IFDIR else (kind, info.st_size, info.st_mtime_ns)
    return entries


class Committed:
    """The repository's ``results/`` and ``experiments/``: what they hold, to notice and undo a
    scenario that changed them."""

    def __init__(self) -> None:
        self.tree = {name: _tree(ROOT / name) for name in COMMITTED}
        self.data = {}
        for name, entries in self.tree.items():
            for relative, (kind, *_) in entries.items():
                if kind == stat.S_IFREG:
                    self.data[f"{name}/{relative}"] = (ROOT / name / relative).read_bytes()

    def changes(self) -> list[str]:
        """What differs now, put back as it was."""
        changed = []
        for name, before in self.tree.items():
            after = _tree(ROOT / name)
            for relative in sorted(set(before) | set(after)):
                if before.get(relative) == after.get(relative):
                    continue
                path = ROOT / name / relative
                changed.append(f"{name}/{relative}")
                if relative not in before:
                    shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
                elif f"{name}/{relative}" in self.data:
                    path.write_bytes(self.data[f"{name}/{relative}"])
                    os.utime(path, ns=(before[relative][2], before[relative][2]))
        return changed


def _git_status() -> str:
    try:
        return subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def _unblock_fifos(tmp: Path) -> None:
    """Open every FIFO for writing without blocking, then close it: a reader stuck in open()
    (a thread the alarm could not reach) sees the end of the file."""
    for folder, _, files in os.walk(tmp):
        for name in files:
            path = Path(folder) / name
            if stat.S_ISFIFO(path.lstat().st_mode):
                with contextlib.suppress(OSError):
                    os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


def _run_in_process(s: Scenario, tmp: Path) -> Outcome:
    from mcrank.cli import main

    outcome = Outcome()
    argv = [_fill(a, tmp) for a in s.argv]
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(ROOT if s.cwd == "root" else tmp)
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    start = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings(record=True) as caught:
            # Every warning, not once per place (the pass runs many commands), on stderr as the
            # command would print it, whoever else (pytest) is catching warnings.
            warnings.simplefilter("always")
            signal.setitimer(signal.ITIMER_REAL, s.time_limit)
            try:
                outcome.code = main(argv)
            except SystemExit as exit:
                outcome.code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                for w in caught:
                    err.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line))
    except _Hang:
        outcome.hung = True
    except KeyboardInterrupt:
        raise  # the pass itself interrupted
    except BaseException as error:  # noqa: BLE001 - any escape is what the pass reports
        outcome.crashed = "".join(traceback.format_exception_only(type(error), error)).strip()
    finally:
        signal.signal(signal.SIGALRM, previous)
        os.chdir(here)
        _unblock_fifos(tmp)
    outcome.seconds = time.perf_counter() - start
    outcome.out, outcome.err = out.getvalue(), err.getvalue()
    return outcome


def _run_call(s: Scenario) -> Outcome:
    outcome = Outcome()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            signal.setitimer(signal.ITIMER_REAL, s.time_limit)
            try:
                outcome.result = s.call()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        outcome.warned = [f"{w.category.__name__}: {w.message}" for w in caught]
    except _Hang:
        outcome.hung = True
    except Exception as error:  # noqa: BLE001 - any exception is what the pass judges
        outcome.error = error
    finally:
        signal.signal(signal.SIGALRM, previous)
    outcome.seconds = time.perf_counter() - start
    return outcome


#: Points where a child sends itself its signal (``Scenario.send = (signum, point)``), each a
#: prelude run before the ``mcrank`` command: ``import:M`` as module M is first imported (from
#: inside the import); ``swallowed-import:M`` the same, its exception lost as a library's optional
#: import can lose it (C code turns it into an ImportError, which ``except ImportError`` swallows);
#: ``between-chunks`` as the runner adds up the second chunk, outside joblib.
SIGNAL_POINTS = {
    "import": """
import os, sys
class Hook:
    def find_spec(self, name, path=None, target=None):
        if name == {argument!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), {signum})
sys.meta_path.insert(0, Hook())
""",
    "swallowed-import": """
import os, sys, time
import mcrank._signals
mcrank._signals.IMPORT_WAIT = 0.1  # raised inside the import after 0.1 s, not 2: the loss is tested, not the wait
class Swallow:
    def find_spec(self, name, path=None, target=None):
        if name == {argument!r}:
            sys.meta_path.remove(self)
            try:
                try:
                    os.kill(os.getpid(), {signum})
                    time.sleep(30)
                except KeyboardInterrupt:
                    raise ImportError("PyCapsule_Import could not import module") from None
            except ImportError:
                pass
sys.meta_path.insert(0, Swallow())
""",
    "between-chunks": """
import os, tqdm
update, calls = tqdm.tqdm.update, []
def update_signalled(self, n=1):
    calls.append(n)
    if len(calls) == 2:
        os.kill(os.getpid(), {signum})
    return update(self, n)
tqdm.tqdm.update = update_signalled
""",
}


def _mcrank_command(prelude: str = "") -> list[str]:
    """The ``mcrank`` command, as pip writes it from pyproject.toml's entry point (an installed
    script may be older than the sources), after ``prelude``."""
    import tomllib

    entry = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["mcrank"]
    module, function = entry.split(":")
    return [sys.executable, "-c", f"{prelude}\nimport sys\nfrom {module} import {function}\nsys.exit({function}())\n"]


def _run_child(s: Scenario, tmp: Path) -> Outcome:
    """A command in a child process, sent a signal after a delay, or sending it itself at a
    point (:data:`SIGNAL_POINTS`)."""
    outcome = Outcome()
    env = {**os.environ, "COLUMNS": "80", **{key: _fill(value, tmp) for key, value in s.env.items()}}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    signum, when = s.send[:2]
    kind, _, argument = str(when).partition(":")
    prelude = SIGNAL_POINTS[kind].format(argument=argument, signum=int(signum)) if isinstance(when, str) else ""
    start = time.perf_counter()
    child = subprocess.Popen([*_mcrank_command(prelude), *(_fill(a, tmp) for a in s.argv)], cwd=tmp, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    try:
        if not isinstance(when, str):
            time.sleep(when)
            child.send_signal(signum)
            for gap in s.send[2:]:  # a second signal (kill sent twice, Ctrl-C pressed twice)
                time.sleep(gap)
                child.send_signal(signum)
        child.wait(timeout=s.time_limit)
        time.sleep(0.5)  # the command has exited: nothing of it may be left
        outcome.survivors = _group_size(child.pid)
        out, err = child.communicate(timeout=5 if outcome.survivors else s.time_limit)
        outcome.code = child.returncode if child.returncode >= 0 else child.returncode  # negative: killed by the signal
    except subprocess.TimeoutExpired:
        outcome.hung = True
        os.killpg(child.pid, signal.SIGKILL)  # the child's own group: it and its workers, nothing else
        out, err = child.communicate()
    outcome.seconds = time.perf_counter() - start
    outcome.out, outcome.err = out, err
    return outcome


def _group_size(pgid: int) -> int:
    """How many live processes process group ``pgid`` holds (0 where /proc cannot say)."""
    count = 0
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, ValueError):
                    text = Path(f"/proc/{entry}/stat").read_text()
                    state, _, group = text[text.rindex(")") + 2 :].split()[:3]
                    count += int(group) == pgid and state != "Z"
    return count


def run_scenario(s: Scenario, committed: Committed | None = None) -> Outcome:
    """Run one scenario in a temporary directory of its own; the repository checked after it."""
    with tempfile.TemporaryDirectory(prefix="mcrank-hostile-") as name:
        tmp = Path(name)
        try:
            _make(tmp, s.files)
            before = _tree(tmp)
            if s.call is not None:
                outcome = _run_call(s)
            elif s.send is not None:
                outcome = _run_child(s, tmp)
            else:
                outcome = _run_in_process(s, tmp)
            after = _tree(tmp)
            outcome.tmp = str(tmp)
            outcome.written = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k) and not k.startswith("numba"))
        finally:
            for folder, dirs, _ in os.walk(tmp):  # read-only folders made by the scenario, removable again
                for d in dirs:
                    with contextlib.suppress(OSError):
                        (Path(folder) / d).chmod(0o755)
    if committed is not None:
        outcome.repository = committed.changes()
    return outcome


def _first_line(text: str, limit: int = 200) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return (lines[0] if lines else "").strip()[:limit]


def problems(s: Scenario, o: Outcome) -> list[str]:
    """What went wrong in ``o`` for scenario ``s``: empty when it is clean."""
    found = []
    if o.hung:
        found.append(f"hung: no answer in {s.time_limit:g} s")
    if o.repository:
        found.append(f"changed the repository's {', '.join(o.repository[:3])}")
    if o.hung:
        return found
    if s.call is not None:
        return found + _call_problems(s, o)
    if o.crashed:
        return found + [f"escaped main(): {o.crashed}"]
    command = s.argv[0] if s.argv and s.argv[0] in ("run", "evaluate", "reproduce", "story") else ""
    prefix = f"mcrank {command}: " if command else "mcrank: "
    lines = [line for line in o.err.splitlines() if line.strip()]
    if "Traceback" in o.err:
        found.append("a traceback on stderr")
    if s.expect == "signal":
        if o.survivors:
            found.append(f"{o.survivors} processes of its group outlived it")
        wanted = 130 if s.send[0] == signal.SIGINT else 143
        if o.code != wanted:
            found.append(f"exit {o.code} (wanted {wanted}): {_first_line(o.err) or 'nothing on stderr'}")
        if len(lines) != 1 or not lines[0].startswith(prefix):
            found.append(f"{len(lines)} lines on stderr, wanted one: {_first_line(o.err)!r}")
        left = [name for name in o.written if name.endswith(".tmp")]
        if left:
            found.append(f"left {left[0]}")
        return found
    expect = s.expect if s.expect != "clean" else ("ok" if o.code == 0 else "refuse")
    text = o.out + o.err
    if expect == "ok":
        if o.code != 0:
            found.append(f"exit {o.code}: {_first_line(o.err)}")
        elif s.output and not o.out.strip() and not o.written:
            found.append("no output")
        stray = [line for line in lines if not line.startswith(prefix)]
        if o.code == 0 and stray:
            found.append(f"stray stderr: {stray[0][:150]}")
        if o.code == 0 and s.check is not None and (problem := s.check(o)):
            found.append(problem)
    else:
        if o.code != 2:
            found.append(f"exit {o.code}, wanted 2" + (f": {_first_line(o.err)}" if o.err.strip() else ""))
        if len(lines) != 1:
            found.append(f"{len(lines)} lines on stderr, wanted one" + (f": {_first_line(o.err)!r}" if lines else ""))
        elif not lines[0].startswith(prefix):
            found.append(f"the line does not start with {prefix!r}: {lines[0][:150]!r}")
        if o.out.strip():
            found.append(f"printed on stdout: {_first_line(o.out)!r}")
        if o.written:
            found.append(f"wrote {', '.join(o.written[:3])}")
        # What a refusal must and must not say.
        for text_wanted in s.says:
            if text_wanted not in text:
                found.append(f"does not say {text_wanted!r}: {_first_line(o.err)!r}")
        for text_unwanted in s.not_says:
            if text_unwanted in text:
                found.append(f"says {text_unwanted!r}: {_first_line(o.err)!r}")
    return found


def _call_problems(s: Scenario, o: Outcome) -> list[str]:
    found = []
    if o.warned:
        found.append(f"warned {o.warned[0][:150]}")
    error = o.error
    expect = s.expect if s.expect != "clean" else ("ok" if error is None else "raise")
    if expect == "ok":
        if error is not None:
            found.append(f"raised {type(error).__name__}: {str(error)[:150]}")
        elif _has_nan(o.result):
            found.append("returned NaN")
        elif s.check is not None and (problem := s.check(o.result)):
            found.append(problem)
        return found
    if error is None:
        found.append(f"returned {_short(o.result)}, wanted {' or '.join(e.__name__ for e in s.raises)}")
    elif not isinstance(error, s.raises) or (isinstance(error, KeyError) and KeyError not in s.raises):
        found.append(f"raised {type(error).__name__}: {str(error)[:150]}")
    elif s.names and s.names not in str(error):
        found.append(f"the {type(error).__name__} does not name {s.names!r}: {str(error)[:150]}")
    elif s.check is not None and (problem := s.check(error)):
        found.append(problem)
    return found


def _has_nan(value) -> bool:
    import numpy as np

    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return bool(np.isnan(array).any())


def _short(value) -> str:
    text = repr(value).replace("\n", " ")
    return text if len(text) < 80 else text[:77] + "..."


def _describe(s: Scenario) -> str:
    what = " ".join(repr(a) if (" " in a or not a) else a for a in s.argv) if s.call is None else "(Python call)"
    if s.send is not None:
        when = f"at {s.send[1]}" if isinstance(s.send[1], str) else f"after {s.send[1]:g} s"
        what += f"  [{signal.Signals(s.send[0]).name} {when}]"
    names = f" naming {s.names!r}" if s.expect == "raise" and s.names else ""
    return f"{s.name:<60} {s.expect}{names}: {what[:200]}"


def refusal_line(s: Scenario, o: Outcome) -> str | None:
    """The line of a refusal, or of an exception of a call, with the scenario's temporary
    directory written ``{tmp}`` and the repository ``{root}``, so that alike ones are one."""
    if s.call is not None:
        line = None if o.error is None else f"{type(o.error).__name__}: {' '.join(str(o.error).split())}"
    else:
        line = _first_line(o.err, limit=10_000) if o.code == 2 else None
    if line is None:
        return None
    if o.tmp:
        line = line.replace(o.tmp, "{tmp}")
    return line.replace(str(ROOT), "{root}")


#: Commands that compile every kernel the scenarios run, before them and without a time limit:
#: with numba's cache empty (a new install, changed sources) each kernel takes tens of seconds,
#: which is no hang.
WARM_UP = tuple(
    ("run", "--samples", "100", "--seed", "1", "--quiet", *options)
    for options in ((), ("--error", "truncated"), ("--estimator", "sample"), ("--true-um", "gaussian"), ("--classes", "3"),
                    ("--classes", "3", "--error", "truncated"), ("--test-size", "10"), ("--test-size", "10", "--classes", "3"),
                    ("--study", "roc"), ("--study", "roc", "--error", "truncated"))
) + (("evaluate", str(EXAMPLES / "factory.json"), "--sd", "0.1", "--error", "truncated", "--samples", "100", "--seed", "1"),)  # fmt: skip


def warm_up() -> None:
    """Compile the kernels (:data:`WARM_UP`); quick when numba's cache holds them."""
    from mcrank.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for argv in WARM_UP:
            main(list(argv))


def run_pass(scenarios, *, verbose: bool = False, stream=sys.stdout) -> tuple[dict, dict]:
    """Run ``scenarios``; return the problems of each failing one and every refusal line seen."""
    os.environ["COLUMNS"] = "80"
    warm_up()
    committed = Committed()
    status = _git_status()
    failures, refusals = {}, {}
    for s in scenarios:
        o = run_scenario(s, committed)
        found = problems(s, o)
        if found:
            failures[s.name] = found
        if (line := refusal_line(s, o)) is not None:
            refusals.setdefault(line, s.name)
        if verbose:
            mark = "FAIL" if found else "ok  "
            print(f"{mark} {s.name} ({o.seconds:.2f} s): {'; '.join(found) or refusal_line(s, o) or 'exit ' + str(o.code)}", file=stream)
    if _git_status() != status:
        failures["repository/git-status"] = ["git status --porcelain changed during the pass"]
    return failures, refusals


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="The hostile pass of mcrank (issue 33).")
    parser.add_argument("--list", action="store_true", help="print every scenario and its expectation, run nothing")
    parser.add_argument("--verbose", action="store_true", help="print each scenario's outcome")
    parser.add_argument("--refusals", action="store_true", help="print every distinct one-line refusal seen")
    parser.add_argument("--area", action="append", help="run only this area (run, evaluate, reproduce, story, api, signals, top)")
    parser.add_argument("--match", action="append", help="run only the scenarios whose name holds this text")
    args = parser.parse_args(argv)
    scenarios = [
        s for s in all_scenarios() if (not args.area or s.area in args.area) and (not args.match or any(m in s.name for m in args.match))
    ]
    if args.list:
        for s in scenarios:
            print(_describe(s))
        print(f"{len(scenarios)} scenarios")
        return 0
    start = time.perf_counter()
    failures, refusals = run_pass(scenarios, verbose=args.verbose)
    areas = Counter(s.area for s in scenarios)
    failing = Counter(name.split("/")[0] for name in failures)
    print(f"{len(scenarios)} scenarios in {time.perf_counter() - start:.0f} s; {len(scenarios) - len(failures)} clean")
    for area, count in sorted(areas.items()):
        print(f"  {area:<10} {count:>4} scenarios, {count - failing[area]:>4} clean")
    if args.refusals:
        for title, chosen in (("one-line refusals of the commands", False), ("exceptions of the Python API", True)):
            lines = sorted(line for line, name in refusals.items() if name.startswith("api/") == chosen)
            print(f"\n{len(lines)} distinct {title}:")
            for line in lines:
                print(f"  {line}")
    if failures:
        print(f"\n{len(failures)} failing:")
        by_name = {s.name: s for s in scenarios}
        for name, found in failures.items():
            s = by_name.get(name)
            known = " [known]" if name in KNOWN_DEFECTS else ""
            print(f"  {name}{known} (expected {s.expect if s else '-'}): {'; '.join(found)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
