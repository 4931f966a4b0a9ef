"""interrupt.py -- kernels that Ctrl-C, SIGTERM and time limits can stop: run in a worker thread, told through a flag.

A numba kernel holds the main thread until it returns, so Python's signal handlers would only
run afterwards (and an exception raised inside the kernel's call surfaces as a SystemError).
Every search kernel therefore takes a `stop` array that it checks every few thousand nodes,
and runs in a worker thread while the main thread waits, ready to take the signal; a timer
sets the same flag when a time limit expires.
"""

from __future__ import annotations

import threading
import time

import numpy as np

MAX_TIMER = 1e9  # seconds; a longer time limit is no limit (and would overflow the timer)


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


def start_timer(stop: np.ndarray, time_limit: float | None, then=None) -> threading.Timer | None:
    """A started timer that sets stop[0] after `time_limit` seconds (None for no limit) and then
    calls `then()` if given; cancel it when done."""
    if time_limit is None or time_limit >= MAX_TIMER:
        return None

    def expire():
        stop.fill(1)
        if then is not None:
            then()

    timer = threading.Timer(time_limit, expire)
    timer.daemon = True
    timer.start()
    return timer


def timed(function, args, stop: np.ndarray, time_limit: float | None) -> tuple[object, bool, float]:
    """(`interruptible(function, args, stop)`, whether `time_limit` seconds (None: no limit)
    expired and set the stop flag, the seconds it took): how every search runs its kernel, the
    kernel compiled beforehand so that the seconds are the search's own."""
    timer = start_timer(stop, time_limit)
    began = time.perf_counter()
    try:
        return interruptible(function, args, stop), bool(stop[0]), time.perf_counter() - began
    finally:
        if timer is not None:
            timer.cancel()
