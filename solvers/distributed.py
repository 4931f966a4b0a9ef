"""distributed.py -- solving on a Dask cluster (the optional extra `tilepdb[dask]`).

Two kinds of work go to the workers: the instances of a batch (`solve_batch(..., client=...)`)
and the subtrees of one hard instance (`solve(..., executor=ClusterExecutor(client))`,
parallel_ida.py). A heuristic travels as its recipe (`Heuristic.recipe()`: for PDBs the files'
absolute paths, never the tables); each worker process loads a PDB file with its first task
and keeps it for every later one, so the file must be readable at the same absolute path on
every worker: a shared file system, or a copy per node. The scheduler never loads one.

Dask re-runs the tasks of a worker that dies. Every task is a deterministic search of its
arguments alone, so a batch's rows do not depend on which worker solved an instance or how
often: they equal those of a single-process run except for the seconds.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, InvalidStateError
from contextlib import contextmanager, suppress
from functools import partial

from solvers.errors import InputError

LOCAL = "local"
EXTRA_HINT = "install the optional extra: pip install 'tilepdb[dask]' (or dask[distributed])"


@contextmanager
def dask_client(scheduler: str | None = None, local_workers: int = 2, connect_timeout: float = 20.0) -> Iterator:
    """A Dask `Client` for the block: connected to the scheduler at `scheduler`
    (tcp://HOST:PORT), or else to a new LocalCluster of `local_workers` single-threaded worker
    processes on this machine, which is closed with the block. A scheduler that does not
    answer within `connect_timeout` seconds is given up.

    Raises InputError when Dask is not installed or the scheduler cannot be reached.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError(f"Dask is not installed; {EXTRA_HINT}") from None
    if scheduler is None:
        try:
            cluster = LocalCluster(n_workers=local_workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.ERROR)
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


def run_on_cluster(client, function: Callable, items: Iterable) -> Iterator:
    """Yield `function(item)` for every item as the cluster's workers finish them, in any order.

    Tasks still pending or running when the caller stops iterating (Ctrl-C, an error) are cancelled.
    """
    from distributed import as_completed

    batch = uuid.uuid4().hex
    futures = [client.submit(function, item, key=f"tilepdb-{batch}-{number}", pure=False)
               for number, item in enumerate(items)]
    try:
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.cancel(futures)


class ClusterExecutor(Executor):
    """A concurrent.futures Executor over a Dask client: `submit` runs the call on a worker.

    A returned future stays pending until the task ends, so `cancel()` works on running tasks
    too: it cancels the Dask task (a running one finishes on its worker, unread).
    """

    def __init__(self, client):
        self.client = client

    def submit(self, fn, /, *args, **kwargs) -> Future:
        task = self.client.submit(fn, *args, **kwargs, pure=False)
        future = Future()
        future.add_done_callback(lambda done: task.cancel() if done.cancelled() else None)
        task.add_done_callback(partial(_settle, future))
        return future


def _settle(future: Future, task) -> None:
    """Give `future` the outcome of the finished Dask `task`, unless it was cancelled meanwhile."""
    if future.cancelled():
        return
    try:
        outcome = task.result()
    except BaseException as error:  # noqa: BLE001 - the task's own exception (a cancelled task's is a BaseException), handed on
        outcome, failure = None, error
    else:
        failure = None
    with suppress(InvalidStateError):  # cancelled since the check above
        if failure is None:
            future.set_result(outcome)
        else:
            future.set_exception(failure)


def cluster_options(parser, workers_option: str) -> None:
    """Add --scheduler and --cluster to a command's argument parser; `workers_option` names
    the option that says how many local workers to start."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on the workers of this Dask scheduler, e.g. tcp://host:8786 (needs tilepdb[dask])")
    where.add_argument("--cluster", choices=[LOCAL],
                       help=f"run on a Dask LocalCluster started on this machine, {workers_option} workers "
                       "(needs tilepdb[dask])")
