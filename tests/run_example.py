"""Run an example script as ``python examples/x.py`` would, in the test's own process."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path


def run_example(path: Path, capsys, monkeypatch) -> tuple[int, str, str]:
    """The exit code, standard output and standard error of ``path`` run as ``__main__``.

    In-process rather than in a fresh interpreter: the interpreter's start and its imports of
    NumPy, scikit-learn and mcrank (seconds each time) are paid once per test worker. pytest's
    ``filterwarnings = error`` turns a warning into an error here, as ``python -W error`` does.
    """
    monkeypatch.setattr(sys, "argv", [str(path)])
    capsys.readouterr()
    try:
        runpy.run_path(str(path), run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = 0 if stop.code is None else stop.code
    out, err = capsys.readouterr()
    return code, out, err
