"""Ctrl-C while samples and figures are drawn: stopping the run even where Python drops it."""

from __future__ import annotations

import signal
import threading

__all__ = ["Interrupts"]


class Interrupts:
    """Ctrl-C (or SIGTERM) while samples and figures are drawn stops the run, even when it
    lands where Python cannot raise it.

    matplotlib keeps WeakSets, whose callbacks run during garbage collection; a
    KeyboardInterrupt raised inside one is printed ("Exception ignored in ...") and dropped,
    and the run would carry on and exit 0. While this context is active, each signal's
    handler notes the signal before handling it as before, and :meth:`check`, called after
    each sample and figure, hands a signal whose exception was dropped to its handler again.
    Handlers can only be set from the main thread, and only those already handled in Python
    are wrapped (an ignored signal stays ignored).
    """

    def __init__(self) -> None:
        self._previous: dict = {}
        self._pending: list[int] = []

    def __enter__(self) -> Interrupts:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous = signal.getsignal(signum)
                if callable(previous):
                    self._previous[signum] = previous
                    signal.signal(signum, self._handler)
        return self

    def __exit__(self, *exc_info) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)

    def _handler(self, signum, frame) -> None:
        self._pending.append(signum)
        self._previous[signum](signum, frame)

    def check(self) -> None:
        """Raise again (KeyboardInterrupt for SIGINT) a signal whose exception was dropped."""
        if self._pending:
            signum = self._pending[0]
            self._pending.clear()
            self._previous[signum](signum, None)
