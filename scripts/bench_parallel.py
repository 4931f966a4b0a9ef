"""bench_parallel.py -- sequential vs parallel vs Dask, on one instance and on a batch.

The ten hardest of Korf's 100 for 6-6-3 (by nodes generated: #60, #82, #88, #3, #59, #66, #17,
#92, #97, #32 from results/bench_korf100/6-6-3.csv when present, else these), 6-6-3 PDBs:

1. each instance alone: sequential IDA*, then parallel_ida_star on 1 and 2 threads, then its
   subtrees on a Dask LocalCluster of 2 worker processes; lengths checked equal to the optimum.
   Speed-ups are given both in time and in nodes generated per second: the parallel searches
   stop the last iteration where some subtree finds the goal, so their node counts differ
   from the sequential one (either way) and the rate is the measure of the parallel work;
2. the ten as a batch (solve_batch): 1 process, 2 forked workers, the LocalCluster;
3. when data/pdbs/5x5-blank-first-6-6-6-6.h5 exists (build-pdb --board 5x5 --goal
   "$(seq -s ' ' 0 24)" --preset 6-6-6-6), one 24-puzzle instance, #38 of Korf & Felner's 50
   with the reflected lookup, sequential, on 2 threads and on the LocalCluster: there a
   subtree runs for seconds and the cluster's per-task cost is small beside it.

Prints seconds and speed-ups and writes results/bench_parallel.csv (per instance) and
results/bench_parallel_batch.csv (per batch mode) and results/bench_parallel_24.csv. Needs the optional extra tilepdb[dask].
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
from solvers.cli_support import run_guarded
from solvers.distributed import ClusterExecutor, cluster_size, dask_client
from solvers.heuristics import from_spec, pdb_heuristic
from solvers.instances import load_instances
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


MODES = ("sequential", "one_thread", "two_threads", "dask")


def one_instance(puzzle, chosen, heuristic, client) -> tuple[list[dict], bool]:
    """Each instance solved alone four ways; (rows, whether any length was wrong)."""
    parallel_ida_star(puzzle, chosen[0].start, heuristic, threads=2, time_limit=0.5)  # compile before timing
    parallel_ida_star(puzzle, chosen[0].start, heuristic, threads=2, time_limit=2, executor=ClusterExecutor(client))  # workers load
    ida_star(puzzle, chosen[0].start, heuristic, time_limit=0.5)
    rows, failed = [], False
    print(f"{'#':>3} {'len':>4} " + " ".join(f"{m + ' s':>14} {'M nodes/s':>9}" for m in MODES))
    for instance in chosen:
        results = {
            "sequential": ida_star(puzzle, instance.start, heuristic),
            "one_thread": parallel_ida_star(puzzle, instance.start, heuristic, threads=1),
            "two_threads": parallel_ida_star(puzzle, instance.start, heuristic, threads=2),
            "dask": parallel_ida_star(puzzle, instance.start, heuristic, threads=cluster_size(client), executor=ClusterExecutor(client)),
        }
        failed |= any(r.length != instance.optimal for r in results.values())
        row = {"instance": instance.number, "length": results["two_threads"].length}
        for mode, result in results.items():
            row[f"{mode}_seconds"] = round(result.seconds, 3)
            row[f"{mode}_nodes"] = result.nodes_generated
        rows.append(row)
        print(f"{row['instance']:>3} {row['length']:>4} " + " ".join(
            f"{row[m + '_seconds']:>14} {row[m + '_nodes'] / row[m + '_seconds'] / 1e6:>9.2f}" for m in MODES), flush=True)
    seconds = {m: sum(r[f"{m}_seconds"] for r in rows) for m in MODES}
    rate = {m: sum(r[f"{m}_nodes"] for r in rows) / seconds[m] for m in MODES}
    print("total: " + ", ".join(f"{m} {seconds[m]:.2f} s ({rate[m] / 1e6:.2f} M nodes/s)" for m in MODES))
    for m in MODES[1:]:
        print(f"{m} vs sequential: time {seconds['sequential'] / seconds[m]:.2f}x, "
              f"nodes per second {rate[m] / rate['sequential']:.2f}x")
    print(time.strftime("%Y-%m-%d"))
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


def twenty_four(client) -> list[dict]:
    """#38 of the 24-puzzle set three ways, if its PDB file is there; rows per mode."""
    path = ROOT / "data" / "pdbs" / "5x5-blank-first-6-6-6-6.h5"
    if not path.exists():
        print(f"skipping the 24-puzzle: no {path}")
        return []
    puzzle, instances = load_instances(ROOT / "data" / "korf24-50.txt")
    heuristic = from_spec(puzzle, f"pdb:{path}+reflect").with_kernels(True)
    instance = instances[37]
    rows = []
    for mode, run in (("sequential", lambda: ida_star(puzzle, instance.start, heuristic)),
                      ("2 threads", lambda: parallel_ida_star(puzzle, instance.start, heuristic, threads=2)),
                      ("Dask LocalCluster, 2 workers",
                       lambda: parallel_ida_star(puzzle, instance.start, heuristic, threads=2, executor=ClusterExecutor(client)))):
        result = run()
        rows.append({"instance": 38, "mode": mode, "length": result.length, "seconds": round(result.seconds, 2),
                     "nodes_generated": result.nodes_generated})
        print(f"24-puzzle #38, {mode}: length {result.length}, {result.seconds:.2f} s, "
              f"{result.nodes_generated:,} nodes generated", flush=True)
    return rows


def main() -> int:
    puzzle, instances = load_instances(ROOT / "data" / "korf100.txt")
    partition = preset(puzzle, "6-6-3")
    database = load_or_build(puzzle, partition, ROOT / "data" / "pdbs" / default_file_name(puzzle, partition))
    heuristic = pdb_heuristic(puzzle, [database])
    chosen = [instances[number - 1] for number in hardest_ten()]
    began = time.perf_counter()
    with dask_client(local_workers=2) as client:
        print(f"LocalCluster of {cluster_size(client)} workers started in {time.perf_counter() - began:.2f} s")
        rows, failed = one_instance(puzzle, chosen, heuristic, client)
        batch_rows = batches(puzzle, chosen, heuristic, client)
        big_rows = twenty_four(client)
    write_csv(ROOT / "results" / "bench_parallel.csv", rows)
    write_csv(ROOT / "results" / "bench_parallel_batch.csv", batch_rows)
    if big_rows:
        write_csv(ROOT / "results" / "bench_parallel_24.csv", big_rows)
    failed |= any(r["length"] != 96 for r in big_rows)
    return 1 if failed or any(r["solved"] != len(chosen) for r in batch_rows) else 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench_parallel.py", main))
