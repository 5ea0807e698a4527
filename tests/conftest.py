"""Shared by every test: the width the tables and help texts are written for, one BLAS
thread, and the kernels compiled once before the workers start.

``mcrank evaluate`` fits its report to the terminal (``shutil.get_terminal_size``, which reads
``COLUMNS`` first), and argparse wraps help texts to it: the outputs that the docs show and the
tests compare are those of an 80-column terminal, whatever the terminal running the tests.
"""

import os
import signal

import pytest

# pytest-xdist runs a worker per core; OpenBLAS's threads on top of them only spin and wait
# (scikit-learn's small fits took 3 to 10 times as long). Children inherit the variables;
# threadpoolctl limits the libraries this process has loaded already.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
try:
    from threadpoolctl import threadpool_limits
except ImportError:  # scikit-learn brings it; without it, only the variables above act
    pass
else:
    threadpool_limits(1)

# Tests interrupt child processes with SIGINT. A child inherits an ignored SIGINT, as every
# process of a shell's background job has it, and then rightly goes on: here it is made the
# default again, so that the children see a Ctrl-C as a terminal would send it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _eighty_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")


@pytest.fixture
def fifo(tmp_path):
    """A factory of FIFOs (named pipes) that can never hang a test: a watchdog opens each one's
    writing end as soon as a reader waits on it and closes it at once, so a reader that blocked
    gets an empty file (and the test's assertions on the refusal then fail) instead of waiting
    forever."""
    import os
    import threading
    import time

    made, done = [], threading.Event()

    def watch():
        while not done.is_set():
            for path in made:
                try:
                    os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # ENXIO while nobody reads
                except OSError:
                    pass
            time.sleep(0.05)

    watchdog = threading.Thread(target=watch, daemon=True)
    watchdog.start()

    def make(name, directory=None):
        path = (directory or tmp_path) / name
        os.mkfifo(path)
        made.append(path)
        return path

    yield make
    done.set()
    watchdog.join()


def pytest_configure(config):
    """With pytest-xdist, compile the kernels once, before its workers start (tests/warm_kernels.py),
    and hand the tests out by work stealing, unless ``--dist`` says otherwise.

    Its default, ``load``, deals the tests out in advance: a worker that has run its share stays
    idle while the other still has tens of seconds of long tests queued. With ``worksteal`` it
    takes half of what the other has left (pytest-xdist >= 3.2). Set here, not in pyproject's
    addopts: there ``--dist`` would be an unknown option to ``pytest -p no:xdist``."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    arguments = [*config.invocation_params.args, *os.environ.get("PYTEST_ADDOPTS", "").split()]
    if config.option.dist == "load" and not any(str(a).startswith("--dist") or a == "-d" for a in arguments):
        config.option.dist = "worksteal"
    import contextlib
    import subprocess
    import sys
    from pathlib import Path

    from mcrank._jit import cache_directory

    directory = cache_directory()
    if directory is None or (marker := Path(directory) / "tests-compiled").exists():
        return
    script = Path(__file__).resolve().parent / "warm_kernels.py"
    print("conftest: compiling mcrank's kernels once, before the workers start (about 90 s of two cores on a fresh cache)", file=sys.stderr)
    # The script's own sys.path starts at tests/: it imports the mcrank this process imported.
    import mcrank

    search = [str(Path(mcrank.__file__).resolve().parent.parent), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, search)))
    groups = [subprocess.Popen([sys.executable, str(script), group], env=env) for group in ("roc-nclass", "two-class")]
    try:
        codes = [process.wait() for process in groups]
    finally:  # interrupted: the compiles stop with pytest, not left running on the shared cores
        for process in groups:
            if process.poll() is None:
                process.kill()
                process.wait()
    if codes == [0, 0]:
        with contextlib.suppress(OSError):  # no marker: the next run compiles first again, no worse
            marker.touch()
