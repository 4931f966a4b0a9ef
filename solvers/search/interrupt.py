"""interrupt.py -- kernels that Ctrl-C and SIGTERM can stop: run in a worker thread, told through a flag.

A numba kernel holds the main thread until it returns, so Python's signal handlers would only
run afterwards (and an exception raised inside the kernel's call surfaces as a SystemError).
Every search kernel therefore takes a `stop` array that it checks every few thousand nodes,
and runs in a worker thread while the main thread waits, ready to take the signal.
"""

from __future__ import annotations

import threading


def interruptible(function, args, stop):
    """`function(*args)` run in a worker thread; on Ctrl-C (or SIGTERM turned into
    KeyboardInterrupt by the commands) set stop[0], wait for the kernel to return, re-raise."""
    outcome, failure = [], []

    def run():
        try:
            outcome.append(function(*args))
        except BaseException as error:  # handed to the caller's thread below
            failure.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
    except KeyboardInterrupt:
        stop.fill(1)
        worker.join()
        raise
    if failure:
        raise failure[0]
    return outcome[0]
