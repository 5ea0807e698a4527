"""Ctrl-C and SIGTERM at any moment: noted as they arrive, raised where nothing can lose them.

A handler's exception is raised wherever the main thread happens to be, and there a library
can lose it: C code turns it into another exception (an extension module whose import fails
raises ImportError, which an optional ``try: import x except ImportError`` then swallows),
Python drops it inside a weakref callback, a finaliser or a ctypes callback, a broad ``except``
catches it. So the handlers installed here note each signal before they raise, and
:func:`check`, called where the work can stop cleanly (between chunks of a study, between
studies, samples and figures, as a command ends), raises it again: a signal, once received,
ends the command, with the same clean-up and exit code as if nothing had caught it.

Within a :class:`held` block the exception waits for the block's end: numba's work in the main
thread (a compile, a load from its cache, the set-up of its code generator), where it would be
dropped inside LLVM's callbacks or leave an object freed twice
(:func:`mcrank._jit._numba_at_work`), and the making of a temporary file. While a module is
imported it waits until the import returns (tried again every :data:`RETRY` s, for at most
:data:`IMPORT_WAIT` s): raised there, it would be printed by the code that runs the import
(numpy's C API prints the failed import of its module and raises another error, an import
lock's weakref callback prints it as "Exception ignored"), before the command's one line. Each
line on stderr is one write (:func:`say`), so that no exception cuts it.

This module imports nothing but the standard library's ``signal``, ``sys``, ``threading`` and
``time`` (already loaded when Python starts), so that the ``mcrank`` command installs the
handlers before it imports anything else (:mod:`mcrank.__main__`).
"""

from __future__ import annotations

import signal
import sys
import threading
import time

__all__ = ["INTERRUPTED", "TERMINATED", "Terminated", "check", "held", "install", "received", "restore", "say", "stopped"]

#: The signals handled: SIGINT (Ctrl-C) and SIGTERM (``kill``, ``timeout``, batch schedulers).
SIGNALS = (signal.SIGINT, signal.SIGTERM)

#: Exit codes after SIGINT and SIGTERM: 128 + the signal's number, as a shell reports.
INTERRUPTED, TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs."""


#: Seconds between tries to raise a signal's exception that landed in an import, and the
#: longest it waits for the import to return (one that hangs is interrupted as before).
RETRY, IMPORT_WAIT = 0.01, 2.0

#: The handlers replaced by :func:`install`, by signal; empty when not installed.
_previous: dict = {}

#: The signals received since :func:`install`, in order.
_received: list[int] = []

#: While a signal waits for an import to return: since when ("since", time.monotonic), the
#: timer of the next retry ("timer"), and whether the handler's next call is that retry, not
#: a signal received ("retry").
_waiting: dict = {}

#: How many :class:`held` blocks the main thread is in ("depth"), and the signal that arrived
#: meanwhile ("signal").
_holding: dict = {"depth": 0}

# Held while a retry is sent, and taken by restore() before it puts the handlers back, so that
# no retry reaches the handler that was there before.
_lock = threading.Lock()


def install() -> bool:
    """Handle SIGINT and SIGTERM here until :func:`restore`; False if they already are (or
    this is not the main thread, where handlers cannot be set), and nothing changes.

    An ignored signal stays ignored (``nohup``)."""
    if _previous or threading.current_thread() is not threading.main_thread():
        return False
    for signum in SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            _previous[signum] = signal.signal(signum, _handler)
    return bool(_previous)


def restore() -> None:
    """Put back the handlers :func:`install` replaced, and forget the signals received."""
    previous = dict(_previous)
    _previous.clear()  # from here on the handler returns at once: a retry still on its way
    with _lock:  # the retry being sent, if any, has been sent: none comes after the handlers go
        pass
    for signum, handler in previous.items():
        signal.signal(signum, handler)
    _received.clear()
    _waiting.clear()
    _holding.pop("signal", None)


def received() -> int | None:
    """The first signal received since :func:`install`, or None."""
    return _received[0] if _received else None


def check() -> None:
    """Raise the exception of the first signal received, if any: a point where the work can
    stop cleanly. A signal whose first exception something lost is raised again here."""
    if _received:
        raise _exception(_received[0])


def stopped(program: str, terminated: bool) -> int:
    """Say in one line on stderr that ``program`` stopped on a signal (SIGTERM if
    ``terminated``, else SIGINT); return its exit code."""
    say(f"{program}: {'terminated' if terminated else 'interrupted'}")
    return TERMINATED if terminated else INTERRUPTED


def say(line: str) -> None:
    """Write ``line`` and its newline to stderr in one write. ``print`` writes them apart, and a
    signal's exception can be raised between the two (from the write's own check for signals):
    the line stays open, and the command's last line joins it."""
    if sys.stderr is not None:  # None when started with stderr closed (``2>&-``)
        sys.stderr.write(f"{line}\n")
        sys.stderr.flush()


class held:
    """Within this block (in the main thread), a signal's exception waits until the outermost
    block ends: for steps that must not be cut, such as numba's work, or a file created and then
    removed or renamed, whose name is known only once the call that created it has returned."""

    def __enter__(self) -> held:
        if threading.current_thread() is threading.main_thread():
            _holding["depth"] += 1
            self._counted = True
        return self

    def __exit__(self, *exc_info) -> None:
        if getattr(self, "_counted", False):
            _holding["depth"] -= 1
            if _holding["depth"] == 0 and "signal" in _holding:
                raise _exception(_holding.pop("signal"))


def _exception(signum: int) -> KeyboardInterrupt:
    """The exception of ``signum``, about to be raised: a retry still to come does nothing."""
    _waiting.pop("since", None)
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _handler(signum, frame):
    if not _previous:
        return  # a retry that came as the handlers were put back: the command has ended
    if _waiting.pop("retry", False):
        if "since" not in _waiting:
            return  # a retry asked for before the exception was raised
    else:
        _received.append(signum)
    if _holding["depth"]:
        _holding.setdefault("signal", signum)
        return
    if _importing(frame) and time.monotonic() - _waiting.setdefault("since", time.monotonic()) < IMPORT_WAIT:
        if not _waiting.get("timer"):
            _waiting["timer"] = timer = threading.Timer(RETRY, _retry, (signum,))
            timer.daemon = True
            timer.start()
        return
    raise _exception(signum)


def _importing(frame) -> bool:
    """Whether ``frame`` runs inside an import (importlib's frames are among its callers)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


def _retry(signum: int) -> None:
    """Send ``signum`` to the main thread again, unless the command has ended: a signal, not
    ``_thread.interrupt_main``, so that a call it waits in (``time.sleep``, a lock) returns and
    the handler runs."""
    with _lock:
        _waiting.pop("timer", None)
        if _previous and "since" in _waiting:
            _waiting["retry"] = True
            signal.pthread_kill(threading.main_thread().ident, signum)
