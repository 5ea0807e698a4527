"""A signal whose exception something loses, and a signal before the command line is imported.

Each signal is sent by the process to itself at a point it reaches for certain (an import hook,
a patched call), never after a delay, so that the tests hold on a machine of any speed and
load. A run of 10^10 pairs would not end by itself: a lost signal fails by the timeout.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: (signal, exit code, the command's last word) for Ctrl-C and SIGTERM.
SIGNALS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]

# When ``module`` is first imported, sends the signal and loses its exception as a library's
# optional import can: C code turns it into an ImportError (CPython's PyCapsule_Import, numpy's
# import_array), which ``try: import x except ImportError: x = None`` swallows. The import then
# goes on as if nothing had happened.
_SWALLOWED_IN_AN_IMPORT = """
import os, sys, time
import mcrank._signals
mcrank._signals.IMPORT_WAIT = 0.1  # raised inside the import after 0.1 s, not 2: the loss is tested, not the wait
class Swallow:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            print("importing {module}", file=sys.stderr, flush=True)
            try:
                try:
                    os.kill(os.getpid(), {signum})
                    time.sleep(30)  # the handler raises here, after IMPORT_WAIT
                except KeyboardInterrupt:
                    raise ImportError('PyCapsule_Import could not import module "datetime"') from None
            except ImportError:
                pass
sys.meta_path.insert(0, Swallow())
"""

# Sends the signal when ``module`` is first imported, from inside the import.
_WHILE_IMPORTING = """
import os, sys
class Hook:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), {signum})
sys.meta_path.insert(0, Hook())
"""

# Sends the signal as the runner adds up the second chunk (in the main thread, outside joblib).
_BETWEEN_CHUNKS = """
import os, sys
import tqdm
update = tqdm.tqdm.update
calls = []
def update_signalled(self, n=1):
    calls.append(n)
    if len(calls) == 2:
        os.kill(os.getpid(), {signum})
    return update(self, n)
tqdm.tqdm.update = update_signalled
"""


def _entry_point() -> str:
    """The ``mcrank`` command's code, as pip writes it from pyproject.toml's entry point."""
    entry = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["mcrank"]
    module, function = entry.split(":")
    return f"import sys\nfrom {module} import {function}\nsys.exit({function}())\n"


def _command(prelude: str, arguments: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    script = prelude + _entry_point()
    return subprocess.run([sys.executable, "-c", script, *arguments], capture_output=True, text=True, timeout=240, cwd=cwd, env=env)


def _reproduce(tmp_path: Path) -> list[str]:
    (tmp_path / "exp").mkdir()
    (tmp_path / "exp" / "a.toml").write_text("seed = 1\nsds = [0.1]\n")
    return ["reproduce", "--experiments", "exp", "--out", "out", "--samples", "1e10", "--no-figures", "--jobs", "1", "--force"]


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
@pytest.mark.parametrize("module", ["joblib", "numba"])
@pytest.mark.slow
def test_a_signal_swallowed_in_an_import_still_stops_the_run(tmp_path, module, signum, code, word):
    """The run carried on: the exception was lost, and the run checked for the signal only at
    its end, which 10^10 pairs never reach. Now it checks between chunks and after the imports.
    joblib is imported before the first chunk, numba inside it (one job: in the main thread)."""
    done = _command(_SWALLOWED_IN_AN_IMPORT.format(module=module, signum=int(signum)), _reproduce(tmp_path), tmp_path)
    lines = [line for line in done.stderr.splitlines() if not line.startswith("[1/1] a: ")]  # the study's log line
    assert (done.returncode, lines) == (code, [f"importing {module}", f"mcrank reproduce: {word}"]), done.stderr
    assert not (tmp_path / "out" / "a.json").exists() and not list((tmp_path / "out").glob("*.tmp"))


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
@pytest.mark.parametrize("module", ["argparse", "mcrank.cli._common"])
def test_a_signal_before_the_command_line_is_imported_is_one_line(tmp_path, module, signum, code, word):
    """The command line's own handlers came too late: a KeyboardInterrupt traceback (SIGINT) or
    death by the signal (SIGTERM, exit -15). The entry point installs them before it imports it."""
    arguments = ["run", "--samples", "1e10", "--out", str(tmp_path / "x.json")]
    done = _command(_WHILE_IMPORTING.format(module=module, signum=int(signum)), arguments, tmp_path)
    assert (done.returncode, done.stderr.splitlines()) == (code, [f"mcrank run: {word}"]), done.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
@pytest.mark.slow
def test_a_signal_between_chunks_on_two_jobs_is_one_line(tmp_path, signum, code, word):
    """Raised outside joblib, the exception left joblib's generator to the garbage collector,
    which warned after the last line that the workers' tasks had been cancelled."""
    arguments = ["run", "--samples", "1e10", "--jobs", "2", "--out", str(tmp_path / "x.json")]
    done = _command(_BETWEEN_CHUNKS.format(signum=int(signum)), arguments, tmp_path)
    assert (done.returncode, done.stderr.splitlines()) == (code, [f"mcrank run: {word}"]), done.stderr
    assert list(tmp_path.iterdir()) == []


def test_python_dash_m_mcrank_is_the_command(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mcrank", "story", "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.startswith("usage: mcrank story"), done.stderr


# A thread that the interpreter's exit waits for, as it waits for threads still drawing.
_A_THREAD_STILL_BUSY = """
import threading, time
threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
"""


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
def test_a_stopped_command_exits_without_waiting_for_busy_threads(tmp_path, signum, code, word):
    """Once the command has said that it stopped, nothing keeps it alive: a SIGTERM sent to a
    ``reproduce`` in its first seconds was once followed by the one line, then by no exit."""
    prelude = _A_THREAD_STILL_BUSY + _WHILE_IMPORTING.format(module="joblib", signum=int(signum))
    done = _command(prelude, _reproduce(tmp_path), tmp_path)
    lines = [line for line in done.stderr.splitlines() if not line.startswith("[1/1] a: ")]
    assert (done.returncode, lines) == (code, [f"mcrank reproduce: {word}"]), done.stderr
