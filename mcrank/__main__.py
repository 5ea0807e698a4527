"""The ``mcrank`` command's entry point (and ``python -m mcrank``): the signals' handlers first.

Ctrl-C and SIGTERM are handled (:mod:`mcrank._signals`) before anything else is imported, the
command line itself included (:mod:`mcrank.cli`), so that a signal in the first instants ends
the command as at any other moment: one line on stderr and exit code 130 or 143, where Python's
own handling printed a KeyboardInterrupt traceback (SIGINT) or died silently (SIGTERM).

Before numpy is imported, OpenBLAS's idle threads are told to sleep at once
(:data:`BLAS_THREAD_TIMEOUT`), unless the environment says otherwise.
"""

import contextlib
import os
import sys

from mcrank import _signals

#: OpenBLAS's worker threads, started by numpy's import, wait for work by spinning for 2^28
#: cycles (about 0.1 s) before they sleep: a command whose BLAS calls are few (numba's kernels
#: make none) would pay that spin on another core for as long as it runs, on an idle machine
#: about as much CPU again as its own. ``OPENBLAS_THREAD_TIMEOUT`` 4 (2^4 cycles, its least)
#: has them sleep at once: no result changes, only how soon an idle thread takes the next BLAS
#: call. A value in the environment is kept.
BLAS_THREAD_TIMEOUT = ("OPENBLAS_THREAD_TIMEOUT", "4")


def main() -> int:
    """Run the ``mcrank`` command line on ``sys.argv``; return its exit code.

    Stopped by a signal, the command exits at once once it has said so and its clean-up has
    run (its files removed, process workers stopped): the interpreter's own exit waits for
    threads, and joblib's thread pools, still busy with a chunk, and it once kept a stopped
    ``mcrank reproduce`` alive after its last line.
    """
    installed = _signals.install()
    os.environ.setdefault(*BLAS_THREAD_TIMEOUT)  # read by OpenBLAS when numpy loads it
    try:
        code = _command_line()
        signalled = _signals.received() is not None and code in (_signals.INTERRUPTED, _signals.TERMINATED)
        if signalled:
            with contextlib.suppress(KeyboardInterrupt), _signals.held():  # a further signal waits, then is dropped
                _end_child_processes()
    finally:
        if installed:
            _signals.restore()
    if signalled:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # closed (``>&-``), or a reader gone
                stream.flush()
        os._exit(code)
    return code


def _end_child_processes() -> None:
    """Before the exit on a signal, which skips the interpreter's own: the exit functions
    (``atexit``: joblib's removal of its memory-mapped folder, multiprocessing's finalisers, which
    unlink the workers' semaphores and tell the resource trackers so), then the resource trackers
    stopped and waited for. Left to themselves, the trackers outlived the command, held its stderr
    open, and printed a warning of "leaked" semaphores after its last line."""
    import atexit

    atexit._run_exitfuncs()
    for name in ("joblib.externals.loky.backend.resource_tracker", "multiprocessing.resource_tracker"):
        tracker = getattr(sys.modules.get(name), "_resource_tracker", None)
        stop = getattr(tracker, "_stop", None)  # private to both, hence looked up with care
        if stop is not None:
            with contextlib.suppress(Exception):
                stop()


def _command_line() -> int:
    code = None
    try:
        from mcrank.cli import main as command_line

        code = command_line()
        return code
    except KeyboardInterrupt as interrupt:
        if code is not None:  # landed after the command line had ended, and said so
            return code
        # Landed while the command line was imported, before it could catch it.
        words = [word for word in sys.argv[1:] if not word.startswith("-")]
        return _signals.stopped("mcrank" if not words else f"mcrank {words[0]}", isinstance(interrupt, _signals.Terminated))


if __name__ == "__main__":
    sys.exit(main())
