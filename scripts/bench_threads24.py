"""bench_threads24.py -- parallel IDA* on one hard 24-puzzle instance: 1 thread, 2 threads, a Dask cluster.

Instance --instance of Korf & Felner's 50 (default #13: about two minutes on one core with the
zero-aware 6-6-6-6 tables), korf24.py's heuristic (--partitions, --zero-aware; tables built if
missing), BPMX off (it applies below the split only, so it would change the work per node
between the modes). Runs sequential IDA*, parallel_ida_star on 2 threads and, with --dask,
on a LocalCluster of 2 single-threaded worker processes (tasks batched to TASK_NODES
predicted nodes; with --unbatched also one task per work item, as before batching). Prints
per mode the seconds, nodes expanded and expanded nodes per second, the rate against the
sequential one (the target is at least 1.9x on 2 threads), and for the cluster the number of
tasks, their mean compute time and, with --unbatched, the cost per task: the unbatched run's
extra wall time over the batched one's, times its 2 workers, per extra task. Writes
results/bench_threads24.csv.
"""

from __future__ import annotations

import argparse
import sys
import time

from korf24 import ROOT, add_table_options, configured_spec

from solvers.atomic import write_csv
from solvers.cli_support import run_guarded
from solvers.heuristics import from_spec
from solvers.instances import load_instances
from solvers.search.ida import ida_star
from solvers.search.parallel_ida import parallel_ida_star


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instance", type=int, default=13)
    parser.add_argument("--dask", action="store_true", help="also on a Dask LocalCluster of 2 workers")
    parser.add_argument("--unbatched", action="store_true", help="with --dask, also one task per work item")
    add_table_options(parser)
    args = parser.parse_args()
    puzzle, instances = load_instances(ROOT / "data" / "korf24-50.txt")
    instance = next((i for i in instances if i.number == args.instance), None)
    if instance is None:
        parser.error(f"--instance takes a number of the file's instances (1 to {len(instances)})")
    spec, tables = configured_spec(puzzle, args)
    heuristic = from_spec(puzzle, spec).with_kernels(True)
    parallel_ida_star(puzzle, instance.start, heuristic, threads=2, bpmx=False, time_limit=0.5)  # compile first
    runs = [("sequential", lambda: ida_star(puzzle, instance.start, heuristic, bpmx=False)),
            ("2 threads", lambda: parallel_ida_star(puzzle, instance.start, heuristic, threads=2, bpmx=False))]
    rows = []
    print(f"#{instance.number} ({instance.optimal} moves), IDA* + {heuristic.name}, {time.strftime('%Y-%m-%d')}")
    for mode, run in runs:
        rows.append(_row(mode, run(), instance))
    if args.dask:
        rows += _cluster_rows(puzzle, instance, heuristic, args.unbatched, rows[-1]["seconds"])
    base = rows[0]["m_expanded_per_s"]
    for row in rows:
        row["rate_vs_sequential"] = round(row["m_expanded_per_s"] / base, 3)
        print(f"{row['mode']:<34} length {row['length']} in {row['seconds']:>8.2f} s, {row['nodes_expanded']:>14,} "
              f"expanded, {row['m_expanded_per_s']:.2f} M/s ({row['rate_vs_sequential']:.2f}x sequential)"
              + (f", {row['tasks']} tasks of {row['mean_task_seconds']:.3f} s, cost per task "
                 f"{row.get('cost_per_task_seconds', float('nan')) * 1e3:.1f} ms "
                 f"({100 * row.get('cost_share', float('nan')):.2f} %)" if "tasks" in row else ""))
    fields = list(dict.fromkeys(key for row in rows for key in row))  # the cluster rows have more
    print(f"wrote {write_csv(ROOT / 'results' / 'bench_threads24.csv', [{k: r.get(k, '') for k in fields} for r in rows], fields)}")
    return 0 if all(r["length"] == instance.optimal for r in rows) else 1


def _row(mode: str, result, instance) -> dict:
    return {"instance": instance.number, "mode": mode, "length": result.length, "seconds": round(result.seconds, 3),
            "nodes_expanded": result.nodes_expanded,
            "m_expanded_per_s": round(result.nodes_expanded / result.seconds / 1e6, 3)}


def _cluster_rows(puzzle, instance, heuristic, unbatched: bool, threads_seconds: float) -> list[dict]:
    from distributed import get_task_stream

    from solvers.distributed import TASK_NODES, ClusterExecutor, dask_client

    rows = []
    with dask_client(local_workers=2) as client:
        parallel_ida_star(puzzle, instance.start, heuristic, threads=2, bpmx=False, time_limit=5,
                          executor=ClusterExecutor(client))
        for mode, task_nodes in (("Dask, 2 workers, batched", TASK_NODES),
                                 *((("Dask, 2 workers, a task per item", 0),) if unbatched else ())):
            with get_task_stream(client) as stream:
                result = parallel_ida_star(puzzle, instance.start, heuristic, threads=2, bpmx=False,
                                           executor=ClusterExecutor(client), min_task_nodes=task_nodes)
            computes = [s["stop"] - s["start"] for task in stream.data if str(task["key"]).startswith("_subtrees")
                        for s in task["startstops"] if s["action"] == "compute"]
            row = _row(mode, result, instance)
            row.update(tasks=len(computes), mean_task_seconds=round(sum(computes) / max(len(computes), 1), 4))
            rows.append(row)
    if len(rows) == 2:  # what a task costs: the extra wall time of the many small tasks, per extra task
        batched, unbatched = rows
        extra = max(unbatched["seconds"] - batched["seconds"], 0.0) * 2 / max(unbatched["tasks"] - batched["tasks"], 1)
        for row in rows:
            row.update(cost_per_task_seconds=round(extra, 5), cost_share=round(extra / row["mean_task_seconds"], 5))
    return rows


if __name__ == "__main__":
    sys.exit(run_guarded("bench_threads24.py", main))
