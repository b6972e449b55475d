"""Ctrl-C that nothing can swallow.

Python delivers SIGINT as a ``KeyboardInterrupt`` raised wherever the main thread happens to be.
Raised inside a callback that the interpreter calls for itself -- a garbage-collector callback
(Hypothesis times the collector with one), a ``__del__``, a weakref callback -- it is printed as
"Exception ignored in: ..." and dropped, and the run goes on to exit 0 as if nothing happened
(seen in 2 of 12 interrupts of ``maskverify fuzz``).  ``install`` sets a handler that remembers
the interrupt before raising it, and a ``sys.unraisablehook`` that keeps such a swallowed
interrupt off the terminal (it is not lost: it is remembered); the long loops call ``check``
between units of work (an example, a task), which raises it again where it cannot be lost, and
``maskverify``'s ``main`` ends with status 130 if one was ever received, however the command
returned.
"""
from __future__ import annotations

import signal
import sys
import threading

_received = False


def _on_sigint(signum, frame):
    global _received
    _received = True
    raise KeyboardInterrupt


def _unraisable(unraisable, _default=sys.__unraisablehook__):
    """An interrupt a callback swallowed was remembered by ``_on_sigint``: say nothing of it here
    (``check`` and ``main`` act on it); any other unraisable exception is reported as usual."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _received:
        return
    _default(unraisable)


def install():
    """Route SIGINT through the remembering handler and swallowed interrupts through a silent
    ``sys.unraisablehook`` (main thread only; elsewhere a no-op), forgetting earlier interrupts;
    returns what it replaced, for ``restore``."""
    global _received
    _received = False
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = (signal.signal(signal.SIGINT, _on_sigint), sys.unraisablehook)
    sys.unraisablehook = _unraisable
    return previous


def restore(previous) -> None:
    """Put back what ``install`` replaced and forget the interrupt (its command has answered it):
    a command run in-process leaves nothing behind for the code that runs after it."""
    global _received
    _received = False
    if previous is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, previous[0])
        sys.unraisablehook = previous[1]


def received() -> bool:
    """Whether SIGINT arrived since ``install``."""
    return _received


def check() -> None:
    """Raise ``KeyboardInterrupt`` if SIGINT arrived since ``install`` (a swallowed one included)."""
    if _received:
        raise KeyboardInterrupt
