"""Dask: batches and the subtrees of one instance on a LocalCluster of two workers give the
single-process answers, also when a worker dies; bad cluster options are one-line errors."""

import csv
import os
import subprocess
import sys
import time
from concurrent.futures import CancelledError
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
get_task_stream = distributed.get_task_stream

from distributed import KilledWorker  # noqa: E402 - after the skip when Dask is missing
from distributed.comm.core import CommClosedError  # noqa: E402

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import preset
from solvers.batch import TIMING_FIELDS, solve_batch
from solvers.distributed import (
    ClusterError,
    ClusterExecutor,
    cluster_size,
    dask_client,
    _task_outcome,
    run_on_cluster,
    stop_when_told,
)
from solvers.errors import InputError
from solvers.heuristics import Heuristic, baseline, from_recipe, from_spec
from solvers.instances import load_instances
from solvers.puzzle import Puzzle
from solvers.search.ida import ida_star
from solvers.search.parallel_ida import parallel_ida_star
from tests.conftest import distances

GOAL = tuple(range(9))


@pytest.fixture(scope="module")
def client():
    with dask_client(local_workers=2) as client:
        yield client


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    """(instance file of 24 random 8-puzzles with their exact distances, a 4-4 PDB file for their goal)."""
    folder = tmp_path_factory.mktemp("distributed")
    exact = distances(3, 3, GOAL)
    states = list(exact)
    chosen = [states[i] for i in np.random.default_rng(7).choice(len(states), 24, replace=False)]
    lines = ["# board: 3x3", "# goal: " + " ".join(map(str, GOAL))]
    lines += [" ".join(map(str, s)) + f" | {exact[s]}" for s in chosen]
    (folder / "eight.txt").write_text("\n".join(lines) + "\n")
    puzzle = Puzzle(3, 3, GOAL)
    pdb, _ = build_pdb_file(plan_build(puzzle, preset(puzzle, "4-4")), folder / "44.h5")
    return folder / "eight.txt", pdb


def _rows(path):
    with open(path, newline="") as handle:
        return [{k: v for k, v in row.items() if k not in TIMING_FIELDS} for row in csv.DictReader(handle)]


def test_the_cluster_has_two_single_threaded_workers(client):
    assert cluster_size(client) == 2


def test_a_batch_on_the_cluster_equals_the_single_process_batch(client, eight, tmp_path):
    instances_file, pdb = eight
    puzzle, instances = load_instances(instances_file)
    heuristic = from_spec(puzzle, f"pdb:{pdb}")
    local = solve_batch(puzzle, instances, heuristic, tmp_path / "local.csv")
    remote = solve_batch(puzzle, instances, heuristic, tmp_path / "cluster.csv", client=client)
    assert remote.n_solved == local.n_solved == 24 and remote.mismatches == ()
    assert _rows(tmp_path / "cluster.csv") == _rows(tmp_path / "local.csv")
    search = {"prune": "none", "full_last_iteration": True}
    solve_batch(puzzle, instances[:6], heuristic, tmp_path / "local-none.csv", **search)
    solve_batch(puzzle, instances[:6], heuristic, tmp_path / "cluster-none.csv", client=client, **search)
    assert _rows(tmp_path / "cluster-none.csv") == _rows(tmp_path / "local-none.csv")
    assert _rows(tmp_path / "cluster-none.csv")[0]["prune"] == "none"


def test_a_batch_of_one_instance_spreads_its_subtrees_over_the_cluster_when_asked(client, eight, tmp_path):
    """With split_last the instance's subtrees go to the cluster and the row says on how many
    threads; without it the instance is one task, and its row that of a single process."""
    instances_file, pdb = eight
    puzzle, instances = load_instances(instances_file)
    hardest = max(instances, key=lambda i: i.optimal)
    heuristic = from_spec(puzzle, f"pdb:{pdb}")
    with get_task_stream(client) as stream:
        summary = solve_batch(puzzle, [hardest], heuristic, tmp_path / "one.csv", client=client, split_last=True)
    assert summary.n_solved == 1 and summary.mismatches == ()
    assert sum(1 for task in stream.data if str(task["key"]).startswith("_subtrees")) > 2
    row = _rows(tmp_path / "one.csv")[0]
    assert row["length"] == str(hardest.optimal) and int(row["threads"]) > 1
    solve_batch(puzzle, [hardest], heuristic, tmp_path / "whole.csv", client=client)
    solve_batch(puzzle, [hardest], heuristic, tmp_path / "local.csv")
    assert _rows(tmp_path / "whole.csv") == _rows(tmp_path / "local.csv")
    assert _rows(tmp_path / "whole.csv")[0]["threads"] == "1"


def test_workers_load_a_pdb_file_once_and_keep_it(client, eight):
    _, pdb = eight
    puzzle = Puzzle(3, 3, GOAL)
    heuristic = from_spec(puzzle, f"pdb:{pdb}")
    identities = list(run_on_cluster(client, _heuristic_identity, [heuristic.recipe()] * 12))
    per_worker = {}
    for pid, identity in identities:
        per_worker.setdefault(pid, set()).add(identity)
    assert all(len(ids) == 1 for ids in per_worker.values())


def _heuristic_identity(recipe):
    return os.getpid(), id(from_recipe(recipe).tree[0].data.reader.tables)


class DiesOnce(Heuristic):
    """Manhattan distance that kills the worker process rebuilding it the first time (marker file)."""

    def __init__(self, puzzle, marker):
        super().__init__(puzzle, baseline(puzzle, "manhattan").terms)
        self.marker = marker

    def recipe(self):
        return _revive, (self.puzzle, self.marker)


def _revive(puzzle, marker):
    if not Path(marker).exists():
        Path(marker).touch()
        os._exit(1)
    return DiesOnce(puzzle, marker)


def test_a_lost_worker_is_replaced_and_its_tasks_rerun(client, eight, tmp_path):
    instances_file, _ = eight
    puzzle, instances = load_instances(instances_file)
    marker = tmp_path / "died"
    summary = solve_batch(puzzle, instances[:6], DiesOnce(puzzle, str(marker)), tmp_path / "cluster.csv", client=client)
    assert marker.exists()
    solve_batch(puzzle, instances[:6], baseline(puzzle, "manhattan"), tmp_path / "local.csv")
    assert summary.n_solved == 6 and _rows(tmp_path / "cluster.csv") == _rows(tmp_path / "local.csv")
    client.wait_for_workers(2, timeout=60)


def test_the_subtrees_of_one_instance_on_the_cluster(client, eight):
    _, pdb = eight
    puzzle = Puzzle(3, 3, GOAL)
    heuristic = from_spec(puzzle, f"pdb:{pdb}")
    exact = distances(3, 3, GOAL)
    states = [s for s in exact if exact[s] >= 20]
    for i in np.random.default_rng(3).choice(len(states), 6, replace=False):
        start = np.array(states[i], dtype=np.uint8)
        sequential = ida_star(puzzle, start, heuristic, bpmx=False)  # BPMX leaves out the top of the split
        spread = parallel_ida_star(puzzle, start, heuristic, threads=2, split_depth=3, executor=ClusterExecutor(client),
                                   bpmx=False)
        assert spread.length == sequential.length == exact[states[i]]
        assert spread.iterations[:-1] == sequential.iterations[:-1]
        search = {"prune": "parent", "full_last_iteration": True, "bpmx": False}  # the settings travel to the workers
        sequential = ida_star(puzzle, start, heuristic, **search)
        spread = parallel_ida_star(puzzle, start, heuristic, threads=2, split_depth=3, executor=ClusterExecutor(client),
                                   **search)
        assert (spread.moves, spread.iterations) == (sequential.moves, sequential.iterations)


def test_a_time_limit_on_the_cluster_gives_up_in_time(client):
    """Hamming on Korf's #1 takes hours; with a 1 s limit the search gives up within seconds. A
    first search from a near-goal state compiles the kernels here and on the workers, so that
    compile time (long on a loaded CI machine) is not what is measured."""
    puzzle, instances = load_instances("data/korf100.txt")
    hamming = baseline(puzzle, "hamming")
    near_goal = puzzle.replay(puzzle.goal, "RRDDLL")
    warm = parallel_ida_star(puzzle, near_goal, hamming, threads=2, split_depth=2, executor=ClusterExecutor(client))
    assert warm.status == "solved"
    began = time.perf_counter()
    result = parallel_ida_star(puzzle, instances[0].start, hamming, threads=2, time_limit=1.0,
                               executor=ClusterExecutor(client))
    assert result.status == "gave_up" and "time limit" in result.reason
    assert time.perf_counter() - began < 20


def _wait_for_stop(item):
    """Say it started (file `item[1]`.started), wait up to 120 s until told to stop, then write
    the seconds waited to the file `item[1]`."""
    stop_name, report = item
    stop = np.zeros(1, dtype=np.uint8)
    began = time.perf_counter()
    with stop_when_told(stop, stop_name):
        Path(report + ".started").touch()
        while not stop[0] and time.perf_counter() - began < 120:
            time.sleep(0.01)
    Path(report).write_text(str(time.perf_counter() - began))


def _wait_for_files(paths, seconds):
    began = time.perf_counter()
    while not all(p.exists() for p in paths) and time.perf_counter() - began < seconds:
        time.sleep(0.05)
    return all(p.exists() for p in paths)


def test_shutting_the_executor_down_stops_its_running_tasks(client, tmp_path):
    executor = ClusterExecutor(client)
    reports = [tmp_path / f"{i}.txt" for i in range(2)]
    for report in reports:
        executor.submit(_wait_for_stop, (executor.stop_name, str(report)))
    assert _wait_for_files([r.with_suffix(".txt.started") for r in reports], 60)
    time.sleep(0.5)
    executor.shutdown(cancel_futures=True)
    assert _wait_for_files(reports, 60)
    assert all(0.5 < float(r.read_text()) < 60 for r in reports)


def _fail(item):
    raise RuntimeError(f"worker trouble {item}")


def test_a_task_that_raises_is_a_bug_and_reaches_the_caller_as_it_is(client):
    with pytest.raises(RuntimeError, match="worker trouble"):
        list(run_on_cluster(client, _fail, [1, 2]))


class _FailedTask:
    def __init__(self, error):
        self.error = error

    def result(self):
        raise self.error


@pytest.mark.parametrize("error", [KilledWorker("task", SimpleNamespace(address="tcp://127.0.0.1:1"), 3), CancelledError(), CommClosedError("gone"),
                                   TimeoutError("slow")])
def test_a_failure_of_the_cluster_is_one_cluster_error(error):
    with pytest.raises(ClusterError, match=f"the Dask cluster failed: {type(error).__name__}"):
        _task_outcome(_FailedTask(error))


def test_a_scheduler_that_does_not_answer_is_one_error():
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"), dask_client("tcp://127.0.0.1:9", connect_timeout=1):
        pass


SOLVE_BATCH = "import sys; from solvers.cli import solve_batch_main as m; sys.exit(m(sys.argv[1:]))"


def _cli(*args):
    return subprocess.run([sys.executable, "-c", SOLVE_BATCH, *args], capture_output=True, text=True, timeout=300,
                          check=False)


def test_solve_batch_on_a_local_cluster_and_bad_scheduler_addresses(eight, tmp_path):
    instances_file, pdb = eight
    done = _cli(str(instances_file), "--heuristic", f"pdb:{pdb}", "--cluster", "local", "--jobs", "2",
                "--out", str(tmp_path / "out.csv"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert "Dask cluster of 2 threads" in done.stdout and "24 solved" in done.stdout
    assert len(_rows(tmp_path / "out.csv")) == 24
    for address in ("nonsense", "tcp://"):
        failed = _cli(str(instances_file), "--scheduler", address, "--out", str(tmp_path / "bad.csv"))
        assert failed.returncode == 2 and failed.stderr.count("\n") == 1
        assert "cannot reach the Dask scheduler" in failed.stderr
    both = _cli(str(instances_file), "--scheduler", "tcp://h:1", "--cluster", "local")
    assert both.returncode == 2 and "not allowed with" in both.stderr
    many = _cli(str(instances_file), "--cluster", "local", "--jobs", "100000")
    assert many.returncode == 2 and "a local Dask cluster takes 1 to" in many.stderr


def test_a_worker_with_two_threads_returns_the_single_process_rows(eight, tmp_path):
    """Dask workers run several tasks at once in threads that share one heuristic object (the
    PDB tables are loaded once per worker): the rows must still equal a single-process run. The
    heuristic has the kinds of tests/test_heuristic_kinds.py's max(pdb:a, walking-distance, lc),
    whose search kernel is compiled once for both."""
    instances_file, pdb = eight
    puzzle, instances = load_instances(instances_file)
    heuristic = from_spec(puzzle, f"max(pdb:{pdb}+reflect, walking-distance, linear-conflict)")
    local = solve_batch(puzzle, instances, heuristic, tmp_path / "local.csv")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as threaded:
        remote = solve_batch(puzzle, instances, heuristic, tmp_path / "threaded.csv", client=threaded)
    assert remote.n_solved == local.n_solved == 24 and remote.mismatches == ()
    assert _rows(tmp_path / "threaded.csv") == _rows(tmp_path / "local.csv")


def test_an_executor_task_that_raises_settles_its_future_with_the_error(client):
    """A waiter on the future must see the task's own exception, not wait for ever."""
    from concurrent.futures import wait

    executor = ClusterExecutor(client)
    future = executor.submit(_fail, 3)
    done, _ = wait([future], timeout=60)
    executor.shutdown(cancel_futures=True)
    assert done and isinstance(future.exception(), RuntimeError)
