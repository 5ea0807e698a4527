"""Shared by every test: the width the tables and help texts are written for.

``mcrank evaluate`` fits its report to the terminal (``shutil.get_terminal_size``, which reads
``COLUMNS`` first), and argparse wraps help texts to it: the outputs that the docs show and the
tests compare are those of an 80-column terminal, whatever the terminal running the tests.
"""

import signal

import pytest

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
