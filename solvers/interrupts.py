"""interrupts.py -- Ctrl-C and SIGTERM that a command cannot lose.

Python turns a signal into KeyboardInterrupt at the next bytecode of the main thread. When that
bytecode belongs to a weakref callback or a `__del__` method (h5py and numpy run many while files
close), the exception is "ignored": printed as a warning, and the command goes on as if nothing
had happened, possibly to write its output and exit 0. So the handler also records the request;
an interrupt that was swallowed is delivered again a moment later, and commit points (the rename
of an atomic output, the end of a command) ask for the record before they go ahead.

The record is process-wide state, as signal dispositions are: it says only that this process
was asked to stop. Once a command has finished, `exit_at_once` makes an interrupt end the process
there and then: what is left is Python's shutdown, where a KeyboardInterrupt could only be
printed as ignored, traceback and all.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

_requested = threading.Event()
REDELIVERY_DELAY = 0.05  # seconds: long enough for the callback that swallowed it to return
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command that Ctrl-C ended


def install() -> None:
    """Handle SIGINT and SIGTERM as a recorded KeyboardInterrupt from now on (main thread only).
    A SIGINT that the process was started to ignore (a background job of a shell script) stays
    ignored."""
    _requested.clear()
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    sys.unraisablehook = _redeliver_swallowed


def exit_at_once(line: str) -> None:
    """From now on, SIGINT and SIGTERM end the process at once with exit status 130, running
    nothing more, and with `line` on stderr unless an interrupt was already recorded (the command
    has said its line); a SIGINT that the process was started to ignore stays ignored. For a
    command whose work is done and whose output is flushed: nothing of it is left to stop
    cleanly."""

    def leave(signal_number, frame):
        try:
            if not _requested.is_set():
                os.write(2, f"{line}\n".encode())  # stderr's descriptor: no buffer to enter from a handler
        finally:
            os._exit(EXIT_INTERRUPTED)

    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, leave)
    signal.signal(signal.SIGTERM, leave)


def requested() -> bool:
    """Whether this process has been asked to stop since `install`."""
    return _requested.is_set()


def raise_if_requested() -> None:
    """Raise KeyboardInterrupt if this process has been asked to stop: a commit point's check."""
    if _requested.is_set():
        raise KeyboardInterrupt


def _interrupt(signal_number, frame):
    _requested.set()
    raise KeyboardInterrupt


def _redeliver_swallowed(unraisable) -> None:
    """An interrupt raised where Python cannot propagate it is sent again shortly, from another
    thread, so that it lands outside the callback. Any other unraisable error after a stop was
    asked for is what the interruption broke (an interrupt inside numba's compiler leaves
    llvmlite's objects half made, and their finalizers raise), not printed beside the command's
    one line; before that, it is reported as usual."""
    if not _requested.is_set():
        sys.__unraisablehook__(unraisable)
    elif isinstance(unraisable.exc_value, KeyboardInterrupt):
        timer = threading.Timer(REDELIVERY_DELAY, os.kill, (os.getpid(), signal.SIGINT))
        timer.daemon = True
        timer.start()
