"""A Ctrl-C whose exception Python drops, for the interrupt tests."""

from __future__ import annotations

import signal
import weakref


def drop_an_interrupt() -> None:
    """Run the SIGINT handler where Python cannot raise its exception: in a weakref callback,
    as in matplotlib's WeakSets during garbage collection. The KeyboardInterrupt is passed to
    ``sys.unraisablehook`` and dropped. The handler is called, not signalled, so that it runs
    inside the callback on every machine (a signal's handler runs at the interpreter's next
    check, which may come after the callback has returned)."""

    class Thing:
        pass

    thing = Thing()
    reference = weakref.ref(thing, lambda ref: signal.getsignal(signal.SIGINT)(signal.SIGINT, None))
    del thing  # the callback runs here, when the last reference goes
    del reference
