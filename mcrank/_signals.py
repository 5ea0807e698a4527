"""Ctrl-C and SIGTERM at any moment: noted as they arrive, raised where nothing can lose them.

A handler's exception is raised wherever the main thread happens to be, and there a library
can lose it: C code turns it into another exception (an extension module whose import fails
raises ImportError, which an optional ``try: import x except ImportError`` then swallows),
Python drops it inside a weakref callback, a finaliser or a ctypes callback, a broad ``except``
catches it. So the handlers installed here note each signal before they raise, and
:func:`check`, called where the work can stop cleanly (between chunks of a study, between
studies, samples and figures, as a command ends), raises it again: a signal, once received,
ends the command, with the same clean-up and exit code as if nothing had caught it.

While numba compiles a kernel in the main thread the exception waits until that compile
returns (:func:`mcrank._jit.after_compiling`): raised inside LLVM's callbacks, it is dropped.

This module imports nothing but the standard library's ``signal``, ``sys`` and ``threading``
(already loaded when Python starts), so that the ``mcrank`` command installs the handlers
before it imports anything else (:mod:`mcrank.__main__`).
"""

from __future__ import annotations

import signal
import sys
import threading

__all__ = ["INTERRUPTED", "TERMINATED", "Terminated", "check", "install", "received", "restore", "stopped"]

#: The signals handled: SIGINT (Ctrl-C) and SIGTERM (``kill``, ``timeout``, batch schedulers).
SIGNALS = (signal.SIGINT, signal.SIGTERM)

#: Exit codes after SIGINT and SIGTERM: 128 + the signal's number, as a shell reports.
INTERRUPTED, TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs."""


#: The handlers replaced by :func:`install`, by signal; empty when not installed.
_previous: dict = {}

#: The signals received since :func:`install`, in order.
_received: list[int] = []


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
    for signum, previous in _previous.items():
        signal.signal(signum, previous)
    _previous.clear()
    _received.clear()


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
    print(f"{program}: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
    return TERMINATED if terminated else INTERRUPTED


def _exception(signum: int) -> KeyboardInterrupt:
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def _handler(signum, frame):
    _received.append(signum)
    # Not imported, or not yet to that line (the signal may land in its import): nothing compiles.
    after_compiling = getattr(sys.modules.get("mcrank._jit"), "after_compiling", None)
    if after_compiling is not None and after_compiling(check):
        return  # raised inside LLVM's callbacks, it would be dropped: raised as the compile returns
    raise _exception(signum)
