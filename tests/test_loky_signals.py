"""Two SIGTERMs to ``mcrank run --backend loky``: no process of the command outlives it, and
stderr holds its one line (no "leaked semlock" warning after it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process group from /proc")


def _group(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                text = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            state, _, group = text[text.rindex(")") + 2 :].split()[:3]
            if int(group) == pgid and state != "Z":
                found.append(int(entry))
    return found


@pytest.mark.parametrize("gap", [0.1, 0.5])
@pytest.mark.slow
def test_two_sigterms_leave_no_worker_nor_tracker(tmp_path, gap):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "mcrank", "run", "--backend", "loky", "--jobs", "2", "--samples", "1e9", "--seed", "1"]
    child = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(_group(child.pid)) < 4 and time.monotonic() < deadline:  # the command, two trackers, a worker
            time.sleep(0.05)
        assert len(_group(child.pid)) >= 4, "the loky workers never started"
        time.sleep(0.3)  # the workers at work
        child.send_signal(signal.SIGTERM)
        time.sleep(gap)
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=10) == 143
        deadline = time.monotonic() + 3
        while _group(child.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _group(child.pid) == []
        err = child.stderr.read().decode()  # returns: no one holds stderr open any more
        assert err == "mcrank run: terminated\n"
    finally:
        for pid in _group(child.pid):
            os.kill(pid, signal.SIGKILL)
        child.stdout.close()
        child.stderr.close()
