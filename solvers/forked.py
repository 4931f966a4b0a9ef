"""forked.py -- a function mapped over items in forked worker processes that inherit its fixed arguments.

The fixed arguments (a heuristic and its PDB tables, say) reach the workers through the fork,
copy-on-write, and are never pickled; only the items and the results cross the pipes. They are
the pool initializer's arguments: each worker keeps them for itself (a worker belongs to one
pool, and is a fresh fork), and the parent keeps nothing, so maps in several threads of one
process never see each other's arguments.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable, Iterable, Iterator
from functools import partial

# In a worker only (never in the parent): its pool's function with the fixed arguments bound.
_worker_task: Callable | None = None


def leave_interrupts_to_parent() -> None:
    """In a worker: ignore Ctrl-C and die quietly on SIGTERM (the default action), so that the
    parent, which terminates its workers, alone reports an interruption."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _start_worker(function: Callable, fixed: tuple) -> None:
    global _worker_task
    leave_interrupts_to_parent()
    _worker_task = partial(function, *fixed)


def _run_task(item):
    return _worker_task(item)


def forked_map(function: Callable, fixed: tuple, items: Iterable, jobs: int) -> Iterator:
    """`function(*fixed, item)` for every item, computed by `jobs` forked workers and yielded as
    each finishes (in no set order). `function` must be a module-level function. When the
    caller stops iterating (Ctrl-C included), the workers are terminated."""
    items = list(items)
    pool = multiprocessing.get_context("fork").Pool(max(1, min(jobs, len(items))), initializer=_start_worker,
                                                    initargs=(function, fixed))
    try:
        yield from pool.imap_unordered(_run_task, items, chunksize=1)
        pool.close()
    finally:
        pool.terminate()
        pool.join()
