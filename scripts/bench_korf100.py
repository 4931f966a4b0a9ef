"""bench_korf100.py -- Korf's 100 15-puzzle instances with each heuristic, as in Korf & Felner's table.

Solves the instances with IDA* and Manhattan (the first --manhattan-first, default 40, as it
takes minutes), linear conflict, walking distance, the maximum of the last two, and the 5-5-5, 6-6-3, 7-8 and 7-8 + reflection PDBs (built
into data/pdbs/ if missing; build time is not counted), on --jobs worker processes. Each run
starts from an empty results/bench_korf100/<heuristic>.csv, checks every length against the
published optimum, and the script prints one row per heuristic: instances, mean initial h,
mean nodes generated, seconds of search (summed over instances), wall seconds, nodes per
second per core, PDB memory. For Manhattan it also compares the node counts with Korf's
(data/korf100-manhattan-nodes.txt). Figures go to results/bench_korf100.csv.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

from pdb_build.build import load_or_build
from pdb_build.partitions import preset
from pdb_build.store import default_file_name
from solvers.atomic import write_csv
from solvers.batch import solve_batch
from solvers.cli_support import run_guarded
from solvers.heuristics import from_spec, pdb_heuristic
from solvers.instances import load_instances, published_counts
from solvers.search.move_pruning import DEFAULT_PRUNE, PRUNE_MODES

ROOT = Path(__file__).resolve().parent.parent
RUNS = [("manhattan", None, False), ("linear-conflict", None, False), ("walking-distance", None, False),
        ("max(linear-conflict, walking-distance)", None, False), ("5-5-5", "5-5-5", False),
        ("6-6-3", "6-6-3", False), ("7-8", "7-8", False), ("7-8+reflect", "7-8", True)]


def heuristic_for(puzzle, partition_name, reflect, name):
    if partition_name is None:
        return from_spec(puzzle, name).with_kernels(True), 0
    partition = preset(puzzle, partition_name)
    path = ROOT / "data" / "pdbs" / default_file_name(puzzle, partition)
    database = load_or_build(puzzle, partition, path, progress=sys.stderr.isatty())
    return pdb_heuristic(puzzle, [database], reflect=reflect).with_kernels(True), database.buffer.nbytes


def manhattan_comparison(csv_path: Path) -> str:
    published = published_counts("korf100-manhattan-nodes")
    rows = list(csv.DictReader(csv_path.open()))
    ours = [int(r["nodes_generated"]) for r in rows]
    theirs = [published[int(r["id"]) - 1] for r in rows]
    before_last = [sum(int(it.split(":")[2]) for it in r["iterations"].split()[:-1]) for r in rows]
    equal = sum(a == b for a, b in zip(ours, theirs))
    bracketed = sum(b <= k for b, k in zip(before_last, theirs))
    return (f"Manhattan vs Korf 1985 on instances 1-{len(rows)}: ours {sum(ours):,}, published {sum(theirs):,} "
            f"(ratio {sum(ours) / sum(theirs):.4f}); equal on {equal}; our count before the last iteration "
            f"is at most the published total on {bracketed} of {len(rows)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--manhattan-first", type=int, default=40)
    parser.add_argument("--only", action="append", help="run only these heuristics (names as in the table)")
    parser.add_argument("--prune", choices=PRUNE_MODES, default=DEFAULT_PRUNE,
                        help=f"IDA*'s move pruning (default {DEFAULT_PRUNE}; figures before 2026-11-30 used parent)")
    parser.add_argument("--bpmx", choices=("auto", "on", "off"), default="auto",
                        help="BPMX (default auto: where the heuristic may be inconsistent, as the PDBs here)")
    args = parser.parse_args()
    bpmx = None if args.bpmx == "auto" else args.bpmx == "on"
    puzzle, instances = load_instances(ROOT / "data" / "korf100.txt")
    folder = ROOT / "results" / "bench_korf100"
    table, failed, notes = [], False, []
    for name, partition_name, reflect in RUNS:
        if args.only and name not in args.only:
            continue
        heuristic, memory = heuristic_for(puzzle, partition_name, reflect, name)
        chosen = instances[: args.manhattan_first] if name == "manhattan" else instances
        out = folder / f"{name.replace(', ', '+')}.csv"
        out.unlink(missing_ok=True)
        began = time.perf_counter()
        summary = solve_batch(puzzle, chosen, heuristic, out, jobs=args.jobs, prune=args.prune, bpmx=bpmx,
                              progress=sys.stderr.isatty(), report=lambda line: print(line, file=sys.stderr))
        wall = time.perf_counter() - began
        failed |= bool(summary.mismatches) or summary.n_solved != len(chosen)
        rows = list(csv.DictReader(out.open()))
        table.append({
            "heuristic": name, "instances": len(chosen),
            "mean_initial_h": round(sum(int(r["initial_h"]) for r in rows) / len(rows), 2),
            "mean_nodes_generated": round(summary.nodes_generated / len(rows)),
            "search_seconds": round(summary.search_seconds, 2), "wall_seconds": round(wall, 2),
            "mnodes_per_second_per_core": round(summary.nodes_per_second / 1e6, 2),
            "pdb_mib": round(memory / 2**20, 1), "all_optimal": not summary.mismatches,
        })
        print(table[-1], flush=True)
        if name == "manhattan":
            notes.append(manhattan_comparison(out))
    print(f"\nKorf's 100, IDA* (move pruning {args.prune}, BPMX {args.bpmx}), {args.jobs} worker processes, "
          f"{time.strftime('%Y-%m-%d')}")
    print(f"{'heuristic':<38} {'inst':>4} {'mean h0':>8} {'mean nodes gen':>15} {'search s':>9} {'wall s':>7} "
          f"{'M/s/core':>8} {'PDB MiB':>8}")
    for r in table:
        print(f"{r['heuristic']:<38} {r['instances']:>4} {r['mean_initial_h']:>8} {r['mean_nodes_generated']:>15,} "
              f"{r['search_seconds']:>9} {r['wall_seconds']:>7} {r['mnodes_per_second_per_core']:>8} {r['pdb_mib']:>8}")
    for note in notes:
        print(note)
    write_csv(ROOT / "results" / "bench_korf100.csv", table)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench_korf100.py", main))
