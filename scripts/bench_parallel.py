"""bench_parallel.py -- sequential vs parallel vs Dask, on one instance and on a batch.

The ten hardest of Korf's 100 for 6-6-3 (by nodes generated: #60, #82, #88, #3, #59, #66, #17,
#92, #97, #32 from results/bench_korf100/6-6-3.csv when present, else these), 6-6-3 PDBs:

1. each instance alone: sequential IDA*, then parallel_ida_star on 1 and 2 threads, then its
   subtrees on a Dask LocalCluster of 2 worker processes; lengths checked equal to the optimum;
2. the ten as a batch (solve_batch): 1 process, 2 forked workers, the LocalCluster.

Prints seconds and speed-ups and writes results/bench_parallel.csv (per instance) and
results/bench_parallel_batch.csv (per batch mode). Needs the optional extra tilepdb[dask].
"""

from __future__ import annotations

import csv
import sys
import tempfile
import time
from pathlib import Path

from pdb_build.build import load_or_build
from pdb_build.partitions import preset
from pdb_build.store import default_file_name
from solvers.atomic import write_csv
from solvers.batch import solve_batch
from solvers.distributed import cluster_size, dask_client
from solvers.instances import load_instances
from solvers.pdb_heuristic import PdbHeuristic
from solvers.search.ida import ida_star
from solvers.search.parallel_ida import parallel_ida_star

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_HARDEST = [60, 82, 88, 3, 59, 66, 17, 92, 97, 32]


def hardest_ten() -> list[int]:
    path = ROOT / "results" / "bench_korf100" / "6-6-3.csv"
    if not path.exists():
        return DEFAULT_HARDEST
    rows = list(csv.DictReader(path.open()))
    return [int(r["id"]) for r in sorted(rows, key=lambda r: -int(r["nodes_generated"]))[:10]]


def one_instance(puzzle, chosen, heuristic, client) -> tuple[list[dict], bool]:
    """Each instance solved alone four ways; (rows, whether any length was wrong)."""
    parallel_ida_star(puzzle, chosen[0].start, heuristic, threads=2, time_limit=0.5)  # compile before timing
    parallel_ida_star(puzzle, chosen[0].start, heuristic, threads=2, time_limit=2, client=client)  # workers load
    ida_star(puzzle, chosen[0].start, heuristic, time_limit=0.5)
    rows, failed = [], False
    print(f"{'#':>3} {'len':>4} {'sequential s':>12} {'1 thread s':>10} {'2 threads s':>11} {'speed-up':>8} "
          f"{'Dask s':>7} {'speed-up':>8}")
    for instance in chosen:
        sequential = ida_star(puzzle, instance.start, heuristic)
        one = parallel_ida_star(puzzle, instance.start, heuristic, threads=1)
        two = parallel_ida_star(puzzle, instance.start, heuristic, threads=2)
        dask = parallel_ida_star(puzzle, instance.start, heuristic, threads=cluster_size(client), client=client)
        failed |= not (sequential.length == one.length == two.length == dask.length == instance.optimal)
        rows.append({"instance": instance.number, "length": two.length, "sequential_seconds": round(sequential.seconds, 3),
                     "one_thread_seconds": round(one.seconds, 3), "two_threads_seconds": round(two.seconds, 3),
                     "dask_seconds": round(dask.seconds, 3),
                     "sequential_nodes": sequential.nodes_generated, "two_threads_nodes": two.nodes_generated,
                     "dask_nodes": dask.nodes_generated,
                     "speed_up": round(sequential.seconds / two.seconds, 3),
                     "dask_speed_up": round(sequential.seconds / dask.seconds, 3)})
        r = rows[-1]
        print(f"{r['instance']:>3} {r['length']:>4} {r['sequential_seconds']:>12} {r['one_thread_seconds']:>10} "
              f"{r['two_threads_seconds']:>11} {r['speed_up']:>8} {r['dask_seconds']:>7} {r['dask_speed_up']:>8}", flush=True)
    total = {k: sum(r[k] for r in rows)
             for k in ("sequential_seconds", "one_thread_seconds", "two_threads_seconds", "dask_seconds")}
    print(f"total: sequential {total['sequential_seconds']:.2f} s, 1 thread {total['one_thread_seconds']:.2f} s, "
          f"2 threads {total['two_threads_seconds']:.2f} s (speed-up "
          f"{total['sequential_seconds'] / total['two_threads_seconds']:.2f}), Dask {total['dask_seconds']:.2f} s "
          f"(speed-up {total['sequential_seconds'] / total['dask_seconds']:.2f}); {time.strftime('%Y-%m-%d')}")
    return rows, failed


def batches(puzzle, chosen, heuristic, client) -> list[dict]:
    """The ten as one batch: in this process, on 2 forked workers, on the cluster."""
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for mode, options in (("1 process", {"jobs": 1}), ("2 forked workers", {"jobs": 2}),
                              ("Dask LocalCluster, 2 workers", {"client": client})):
            summary = solve_batch(puzzle, chosen, heuristic, Path(folder) / f"{len(rows)}.csv", **options)
            rows.append({"mode": mode, "wall_seconds": round(summary.wall_seconds, 3),
                         "search_seconds": round(summary.search_seconds, 3), "solved": summary.n_solved})
            print(f"batch, {mode}: {summary.wall_seconds:.2f} s wall, {summary.search_seconds:.2f} s of search, "
                  f"{summary.n_solved} solved", flush=True)
    return rows


def main() -> int:
    puzzle, instances = load_instances(ROOT / "data" / "korf100.txt")
    partition = preset(puzzle, "6-6-3")
    database = load_or_build(puzzle, partition, ROOT / "data" / "pdbs" / default_file_name(puzzle, partition))
    heuristic = PdbHeuristic(puzzle, [database])
    chosen = [instances[number - 1] for number in hardest_ten()]
    began = time.perf_counter()
    with dask_client(local_workers=2) as client:
        print(f"LocalCluster of {cluster_size(client)} workers started in {time.perf_counter() - began:.2f} s")
        rows, failed = one_instance(puzzle, chosen, heuristic, client)
        batch_rows = batches(puzzle, chosen, heuristic, client)
    write_csv(ROOT / "results" / "bench_parallel.csv", rows)
    write_csv(ROOT / "results" / "bench_parallel_batch.csv", batch_rows)
    return 1 if failed or any(r["solved"] != len(chosen) for r in batch_rows) else 0


if __name__ == "__main__":
    sys.exit(main())
