"""reproduce_korf_felner.py -- Korf & Felner's 15-puzzle table, end to end from nothing.

Builds any missing PDBs (5-5-5, 6-6-3, 7-8 for the blank-first goal, into data/pdbs/),
samples --sample uniform random solvable states (default 1,000,000, seed 1) for the mean
initial heuristic, solves Korf's 100 with IDA* and each heuristic on all cores (Manhattan:
the first --manhattan-first, default 10, as it takes minutes), and prints the table next to
the published figures. Writes results/korf_felner/table.csv and table.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from bench_korf100 import RUNS, heuristic_for

from solvers.atomic import atomic_target, write_csv
from solvers.batch import solve_batch
from solvers.cli_support import run_guarded
from solvers.experiments import measure, uniform_states
from solvers.instances import load_instances

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = {  # Korf & Felner 2002; Felner, Korf & Hanan 2004: averages over 1,000 random instances
    "manhattan": (36.94, 401_189_630), "5-5-5": (41.56, 3_090_405), "6-6-3": (42.92, 617_555),
    "7-8": (44.75, 136_289), "7-8+reflect": (45.63, 36_710),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--manhattan-first", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    puzzle, instances = load_instances(ROOT / "data" / "korf100.txt")
    states = uniform_states(puzzle, args.sample, args.seed)
    folder = ROOT / "results" / "korf_felner"
    rows = []
    for name, partition_name, reflect in RUNS:
        heuristic, memory = heuristic_for(puzzle, partition_name, reflect, name)
        measured, _ = measure(heuristic, states)
        chosen = instances[: args.manhattan_first] if name == "manhattan" else instances
        out = folder / f"{name}.csv"
        out.unlink(missing_ok=True)
        summary = solve_batch(puzzle, chosen, heuristic, out, jobs=args.jobs, progress=sys.stderr.isatty())
        published_h, published_nodes = PUBLISHED.get(name, ("", ""))
        rows.append({
            "heuristic": name, "mean_h_random": round(measured.mean, 3), "published_mean_h": published_h,
            "instances_solved": f"{summary.n_solved}/{len(chosen)}",
            "mean_nodes_generated": round(summary.nodes_generated / len(chosen)),
            "published_mean_nodes": published_nodes, "search_seconds": round(summary.search_seconds, 2),
            "wall_seconds": round(summary.wall_seconds, 2), "pdb_mib": round(memory / 2**20, 1),
            "all_optimal": not summary.mismatches,
        })
        print(rows[-1], flush=True)
    write_csv(folder / "table.csv", rows)
    header = (f"Korf's 100 (IDA*, {args.jobs} processes; Manhattan: instances 1-{args.manhattan_first}); mean h over "
              f"{args.sample:,} uniform random states, seed {args.seed}; {time.strftime('%Y-%m-%d')}")
    fields = list(rows[0])
    table = "\n".join([header, "", "| " + " | ".join(fields) + " |", "|" + " --- |" * len(fields)]
                      + ["| " + " | ".join(str(r[f]) for f in fields) + " |" for r in rows]) + "\n"
    with atomic_target(folder / "table.md") as temporary:
        temporary.write_text(table)
    print(table)
    return 0 if all(r["all_optimal"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(run_guarded("reproduce_korf_felner.py", main))
