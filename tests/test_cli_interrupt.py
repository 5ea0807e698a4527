"""Ctrl-C just after ``mcrank run --backend loky`` says "wrote" (issue 25): it used to exit 0
with a 13-line traceback from loky's exit handler, which joined the process workers' manager
thread after ``main`` had returned. Now the workers are stopped inside ``main``: a Ctrl-C
there exits 130 with one line; later, in the interpreter's last instants, it is silent.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest


@pytest.mark.parametrize("delay", [0.05])
def test_ctrl_c_after_wrote_with_loky_is_one_line_or_nothing(tmp_path, delay):
    out = tmp_path / "X.json"
    script = f"import sys; from mcrank.cli import main; sys.exit(main(['run', '--backend', 'loky', '--jobs', '2', '--samples', '1e5', '--out', {str(out)!r}]))"
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in process.stderr:
        lines.append(line)
        if "wrote" in line:
            time.sleep(delay)
            process.send_signal(signal.SIGINT)
            break
    _, rest = process.communicate(timeout=120)
    err = "".join(lines) + rest
    assert lines and "wrote" in lines[-1], err  # the run finished and wrote its file
    assert "Traceback" not in err and "Exception ignored" not in err, err
    # 130 and "interrupted" while the workers stop; 0, or death by SIGINT (the shell's 130),
    # silently, when the signal lands as the interpreter exits.
    assert process.returncode in (130, 0, -signal.SIGINT), (process.returncode, err)
    expected = ["mcrank run: interrupted"] if process.returncode == 130 else []
    assert err.splitlines() == [f"mcrank run: wrote {out}", *expected], err
    assert out.exists()
