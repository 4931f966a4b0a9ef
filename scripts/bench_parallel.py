"""bench_parallel.py -- IDA* on one instance: sequential vs the tree split over 1 and 2 threads.

Solves the ten hardest of Korf's 100 for 6-6-3 (by nodes generated: #60, #82, #88, #3, #59,
#66, #17, #92, #97, #32 from results/bench_korf100/6-6-3.csv when present, else these) with
the 6-6-3 PDBs: sequential IDA*, then parallel_ida_star with 1 and 2 threads; checks equal
lengths, prints seconds and speed-ups, and writes results/bench_parallel.csv. (Distributed
solving on Dask is not implemented yet.)
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

from pdb_build.build import load_or_build
from pdb_build.partitions import preset
from pdb_build.store import default_file_name
from solvers.atomic import write_csv
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


def main() -> int:
    puzzle, instances = load_instances(ROOT / "data" / "korf100.txt")
    partition = preset(puzzle, "6-6-3")
    database = load_or_build(puzzle, partition, ROOT / "data" / "pdbs" / default_file_name(puzzle, partition))
    heuristic = PdbHeuristic(puzzle, [database])
    chosen = [instances[number - 1] for number in hardest_ten()]
    parallel_ida_star(puzzle, chosen[0].start, heuristic, threads=2, time_limit=0.5)  # compile before timing
    ida_star(puzzle, chosen[0].start, heuristic, time_limit=0.5)
    rows, failed = [], False
    print(f"{'#':>3} {'len':>4} {'sequential s':>12} {'1 thread s':>10} {'2 threads s':>11} {'speed-up':>8}")
    for instance in chosen:
        sequential = ida_star(puzzle, instance.start, heuristic)
        one = parallel_ida_star(puzzle, instance.start, heuristic, threads=1)
        two = parallel_ida_star(puzzle, instance.start, heuristic, threads=2)
        failed |= not (sequential.length == one.length == two.length == instance.optimal)
        rows.append({"instance": instance.number, "length": two.length, "sequential_seconds": round(sequential.seconds, 3),
                     "one_thread_seconds": round(one.seconds, 3), "two_threads_seconds": round(two.seconds, 3),
                     "sequential_nodes": sequential.nodes_generated, "two_threads_nodes": two.nodes_generated,
                     "speed_up": round(sequential.seconds / two.seconds, 3)})
        r = rows[-1]
        print(f"{r['instance']:>3} {r['length']:>4} {r['sequential_seconds']:>12} {r['one_thread_seconds']:>10} "
              f"{r['two_threads_seconds']:>11} {r['speed_up']:>8}", flush=True)
    total = {k: sum(r[k] for r in rows) for k in ("sequential_seconds", "one_thread_seconds", "two_threads_seconds")}
    print(f"total: sequential {total['sequential_seconds']:.2f} s, 1 thread {total['one_thread_seconds']:.2f} s, "
          f"2 threads {total['two_threads_seconds']:.2f} s, speed-up {total['sequential_seconds'] / total['two_threads_seconds']:.2f}"
          f"; {time.strftime('%Y-%m-%d')}")
    write_csv(ROOT / "results" / "bench_parallel.csv", rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
