"""distributed.py -- solving on a Dask cluster (the optional extra `tilepdb[dask]`).

Two kinds of work go to the workers: the instances of a batch (`solve_batch(..., client=...)`)
and the subtrees of one hard instance (`solve(..., client=...)`, parallel_ida.py). A
heuristic travels as its recipe (`Heuristic.recipe()`: for PDBs the files' absolute paths,
never the tables); each worker process loads a PDB file with its first task and keeps it for
every later one, so the file must be readable at the same absolute path on every worker: a
shared file system, or a copy per node. The scheduler unpacks the tasks (so it needs tilepdb
installed) but never loads a table. When a search ends, its ClusterExecutor cancels the tasks
not yet started and tells the running ones to stop.

Dask re-runs the tasks of a worker that dies. Every task is a deterministic search of its
arguments alone, so without a time limit a batch's rows do not depend on which worker solved
an instance or how often: they equal those of a single-process run except for the seconds.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from asyncio import CancelledError
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import Executor, Future, InvalidStateError
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic, from_recipe

LOCAL = "local"
STOP_POLL_SECONDS = 0.5
TASK_NODES = 20_000_000  # a search task's predicted nodes at least: seconds of search beside its cost of sending
EXTRA_HINT = "install the optional extra: pip install 'tilepdb[dask]' (or dask[distributed])"


@contextmanager
def dask_client(scheduler: str | None = None, local_workers: int = 2, connect_timeout: float = 20.0) -> Iterator:
    """A Dask `Client` for the block: connected to the scheduler at `scheduler`
    (tcp://HOST:PORT), or else to a new LocalCluster of `local_workers` single-threaded worker
    processes on this machine, which is closed with the block. A scheduler that does not
    answer, or has no worker, within `connect_timeout` seconds is given up.

    Raises InputError when Dask is not installed or the scheduler cannot be reached.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError(f"Dask is not installed; {EXTRA_HINT}") from None
    if scheduler is None:
        cores = os.cpu_count() or 1
        if not 1 <= local_workers <= cores:
            raise InputError(f"a local Dask cluster takes 1 to {cores} workers (this machine's cores), "
                             f"not {local_workers}")
        try:
            cluster = LocalCluster(n_workers=local_workers, threads_per_worker=1, processes=True,
                                   dashboard_address=":0", silence_logs=logging.ERROR)
        except (OSError, RuntimeError, TimeoutError) as error:
            raise InputError(f"cannot start a local Dask cluster: {error}") from None
        with cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(scheduler, timeout=connect_timeout)
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        raise InputError(f"cannot reach the Dask scheduler at {scheduler!r}: {error}") from None
    with client:
        try:
            client.wait_for_workers(1, timeout=connect_timeout)
        except (OSError, TimeoutError) as error:
            raise InputError(f"no Dask worker joined the scheduler at {scheduler!r} within {connect_timeout:g} s "
                             f"({type(error).__name__})") from None
        yield client


@contextmanager
def cluster_from_options(args, local_workers: int) -> Iterator:
    """The Dask client the --scheduler / --cluster options ask for (see `cluster_options`), or None."""
    if args.scheduler is None and args.cluster is None:
        yield None
        return
    with dask_client(args.scheduler, local_workers) as client:
        yield client


def cluster_size(client) -> int:
    """How many tasks the cluster's workers run at once (their threads, summed); at least 1."""
    return max(1, sum(client.nthreads().values()))


class ClusterError(InputError):
    """The Dask cluster failed (a task's worker died too often, the scheduler went away, a task
    could not be unpacked); reported in one line like bad input."""


def _task_outcome(task):
    """The result of the finished Dask `task`. InputError (e.g. a PDB file a worker cannot read)
    is re-raised as is; a failure of the cluster itself (a worker killed too often, a task
    cancelled, a connection lost or timed out, a worker that cannot import the task's code)
    becomes ClusterError; anything else the task raised is a bug and is re-raised as it is,
    traceback and all."""
    from distributed import KilledWorker

    try:
        return task.result()
    except (KilledWorker, CancelledError, FutureCancelled, OSError, TimeoutError,  # CommClosedError: OSError
            ImportError) as error:  # a worker without tilepdb, or another version of it: the cluster's setup
        raise ClusterError(f"the Dask cluster failed: {type(error).__name__}: {error}") from None


def run_on_cluster(client, function: Callable, items: Iterable) -> Iterator:
    """Yield `function(item)` for every item as the cluster's workers finish them, in any order.

    When the caller stops iterating (Ctrl-C, an error), the tasks not yet started are
    cancelled; running ones finish on their workers, unread.
    """
    from distributed import as_completed

    batch = uuid.uuid4().hex
    futures = [client.submit(function, item, key=f"tilepdb-{batch}-{number}", pure=False)
               for number, item in enumerate(items)]
    try:
        for future in as_completed(futures):
            yield _task_outcome(future)
    finally:
        client.cancel(futures)


class ClusterExecutor(Executor):
    """A concurrent.futures Executor over a Dask client for one search: `submit` runs a call on
    a worker. `shutdown(cancel_futures=True)` sets the Dask event named `stop_name`, which
    running tasks watch (`stop_when_told`), and cancels the tasks not started, in one call.

    What a search hands it travels as a search needs (parallel_ida.py): a Heuristic argument
    as its recipe, rebuilt once per worker process, and a `stop` keyword (the search's stop
    flag) as a flag of the task's own, set when this executor is shut down. `task_nodes` is
    the least a task should search to be worth sending.
    """

    task_nodes = TASK_NODES

    def __init__(self, client):
        from distributed import Event

        self.client = client
        self.stop_name = f"tilepdb-stop-{uuid.uuid4().hex}"
        self._stop = Event(self.stop_name, client=client)
        self._tasks = []

    def submit(self, fn, /, *args, **kwargs) -> Future:
        shipped = tuple(_Rebuilt(a.recipe()) if isinstance(a, Heuristic) else a for a in args)
        watched = self.stop_name if kwargs.pop("stop", None) is not None else None
        task = self.client.submit(_run_shipped, fn, shipped, kwargs, watched, pure=False,
                                  key=f"{getattr(fn, '__name__', 'task')}-{uuid.uuid4().hex}")  # named for dashboards
        future = Future()
        self._tasks.append((task, future))
        task.add_done_callback(partial(_settle, future))
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """With `cancel_futures`: tell the running tasks to stop, cancel the tasks not yet
        started, and cancel their futures (a caller waiting on them sees them cancelled)."""
        if cancel_futures:
            self._stop.set()
            pending = [(task, future) for task, future in self._tasks if task.status == "pending"]
            for _, future in pending:
                if future.cancel():
                    future.set_running_or_notify_cancel()  # wakes wait() and as_completed()
            self.client.cancel([task for task, _ in pending])


@dataclass(frozen=True)
class _Rebuilt:
    """A heuristic on its way to a worker: its recipe."""

    recipe: tuple


def _run_shipped(fn, args: tuple, kwargs: dict, stop_name: str | None):
    """On a worker: `fn` with its heuristics rebuilt and, if the search passed one, a stop flag
    of its own that `stop_name`'s event sets."""
    args = tuple(from_recipe(a.recipe) if isinstance(a, _Rebuilt) else a for a in args)
    if stop_name is None:
        return fn(*args, **kwargs)
    stop = np.zeros(1, dtype=np.uint8)
    with stop_when_told(stop, stop_name):
        return fn(*args, stop=stop, **kwargs)


def _settle(future: Future, task) -> None:
    """Give `future` the outcome of the finished Dask `task` (see `_task_outcome`)."""
    try:
        outcome = _task_outcome(task)
    except BaseException as error:  # noqa: BLE001 - handed on: a future left unsettled would hang its waiter
        with suppress(InvalidStateError):
            future.set_exception(error)
        return
    with suppress(InvalidStateError):
        future.set_result(outcome)


_WATCHED: dict[str, dict[int, np.ndarray]] = {}  # stop event name -> stop flags of the running tasks
_WATCHING = threading.Lock()


@contextmanager
def stop_when_told(stop: np.ndarray, stop_name: str) -> Iterator:
    """In a task on a worker: while the block runs, set stop[0] as soon as the Dask event
    `stop_name` (a ClusterExecutor's) is set. One watcher thread per worker process and event
    polls it every STOP_POLL_SECONDS for all the tasks of that search; a task leaves at once."""
    from distributed import Event, get_client

    with _WATCHING:
        flags = _WATCHED.get(stop_name)
        if flags is None:
            flags = _WATCHED[stop_name] = {}
            event = Event(stop_name, client=get_client())  # the task's client: the watcher has no worker context
            threading.Thread(target=_watch, args=(stop_name, event), daemon=True).start()
        flags[id(stop)] = stop
    try:
        yield
    finally:
        with _WATCHING:
            flags.pop(id(stop), None)


def _watch(stop_name: str, event) -> None:
    """Poll `event`; when it is set, set every registered flag. Ends then, or once no task
    has been registered for two polls in a row (a later task starts a new watcher)."""
    idle_polls = 0
    while True:
        told = event.wait(timeout=STOP_POLL_SECONDS)
        with _WATCHING:
            flags = _WATCHED[stop_name]
            if told:
                for flag in flags.values():
                    flag.fill(1)
            idle_polls = 0 if flags else idle_polls + 1
            if told or idle_polls >= 2:
                del _WATCHED[stop_name]
                return


def cluster_options(parser) -> None:
    """Add --scheduler and --cluster to a command's argument parser; its --jobs says how many
    local workers to start."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on the workers of this Dask scheduler, e.g. tcp://host:8786 (needs tilepdb[dask])")
    where.add_argument("--cluster", choices=[LOCAL],
                       help="run on a Dask LocalCluster started on this machine, --jobs workers "
                       "(needs tilepdb[dask])")
