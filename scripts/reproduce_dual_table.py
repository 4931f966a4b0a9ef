"""reproduce_dual_table.py -- the 15-puzzle lookup table of Felner, Zahavi et al. on 1,000 random instances.

Solves data/random15-1000.txt (1,000 uniform random 15-puzzle states, seed 1, blank-first
goal) with IDA* and the 7-8 partition read in several ways: the regular lookup r; max(r, r*)
with the reflected lookup; max(r, r*, d, d*) with the dual lookups (counted while the blank is
on its goal cell: see the README) and BPMX; one lookup of r and r* chosen per state (random)
with BPMX; with --zero-aware the same with the zero-aware 7-8 tables (built into data/pdbs/ if
missing, about 1.5 GB). Each row is solved twice, with the move pruning --prune (default
parent, as in the published runs: IDA* that never undoes the last move): stopping at the first
solution, as the published runs did, and with the last iteration completed
(--full-last-iteration), whose counts do not depend on the move order (but for BPMX's cutoffs).
Lengths must agree across runs (and with the file's, once it has them). Prints the table beside
the published figures and writes results/dual_table/table.csv and one rows file per run.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

from pdb_build.build import built_file
from pdb_build.partitions import preset
from pdb_build.store import PLAIN, ZERO_AWARE
from solvers.atomic import write_csv
from solvers.batch import solve_batch
from solvers.cli_support import run_guarded
from solvers.heuristics import from_spec
from solvers.instances import load_instances
from solvers.search.move_pruning import PRUNE_MODES

ROOT = Path(__file__).resolve().parent.parent
# (name, suffix of the pdb: spec, BPMX, published mean h, published mean nodes generated):
# Felner, Zahavi, Holte, Schaeffer, Sturtevant & Zhang (AIJ 2011) and the IJCAI 2005 paper, 1,000
# random instances, 7-8 additive PDBs; the dual rows there use a dual lookup on every state.
RUNS = [
    ("r", "", False, 44.75, 136_289),
    ("max(r, r*)", "+reflect", False, 45.63, 36_710),
    ("max(r, r*, d, d*) + BPMX", "+reflect+dual", True, 46.12, 18_601),
    ("random(r, r*) + BPMX", "+reflect+random", True, None, 44_829),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--first", type=int, default=1000, help="solve the first N instances (default all 1,000)")
    parser.add_argument("--prune", choices=PRUNE_MODES, default="parent")
    parser.add_argument("--zero-aware", action="store_true", help="also run every row with the zero-aware tables")
    args = parser.parse_args()
    puzzle, instances = load_instances(ROOT / "data" / "random15-1000.txt")
    instances = instances[: args.first]
    folder = ROOT / "results" / "dual_table"
    rows, lengths, failed = [], {}, False
    for kind in (PLAIN, ZERO_AWARE) if args.zero_aware else (PLAIN,):
        path = built_file(puzzle, preset(puzzle, "7-8"), ROOT / "data" / "pdbs", table_kind=kind)  # built if missing
        for name, suffix, bpmx, published_h, published_nodes in RUNS:
            heuristic = from_spec(puzzle, f"pdb:{path}{suffix}")
            row = {"tables": kind, "lookups": name, "instances": len(instances)}
            for complete in (False, True):
                out = folder / f"{kind}-{name.replace(' ', '').replace('*', 's')}{'-full' if complete else ''}.csv"
                out.unlink(missing_ok=True)
                summary = solve_batch(puzzle, instances, heuristic, out, jobs=args.jobs, prune=args.prune,
                                      full_last_iteration=complete, bpmx=bpmx, progress=sys.stderr.isatty(),
                                      report=lambda line: print(line, file=sys.stderr))
                result_rows = _rows(out)
                for result in result_rows:
                    failed |= lengths.setdefault(int(result["id"]), int(result["length"])) != int(result["length"])
                failed |= summary.n_solved != len(instances) or bool(summary.mismatches)
                counted = "full" if complete else "first"
                row.update({
                    "mean_h": round(sum(int(r["initial_h"]) for r in result_rows) / len(result_rows), 3),
                    f"mean_nodes_{counted}": round(summary.nodes_generated / len(instances)),
                    f"bpmx_cutoffs_{counted}": sum(int(r["bpmx_cutoffs"]) for r in result_rows),
                    f"search_seconds_{counted}": round(summary.search_seconds, 2),
                })
            row.update(published_mean_h=published_h if kind == PLAIN else None,
                       published_mean_nodes=published_nodes if kind == PLAIN else None)
            rows.append(row)
            print(row, flush=True)
    write_csv(folder / "table.csv", rows)
    print(f"\n{len(instances)} random 15-puzzle instances, IDA* (prune {args.prune}; nodes generated per instance, "
          "stopping at the first solution and with the last iteration completed), "
          f"{args.jobs} processes, {time.strftime('%Y-%m-%d')}")
    print(f"{'tables':<11} {'lookups':<26} {'mean h':>7} {'published':>9} {'nodes, first':>12} {'full last':>10} "
          f"{'published':>10} {'BPMX cuts':>10} {'search s':>9}")
    for r in rows:
        print(f"{r['tables']:<11} {r['lookups']:<26} {r['mean_h']:>7} {r['published_mean_h'] or '':>9} "
              f"{r['mean_nodes_first']:>12,} {r['mean_nodes_full']:>10,} {r['published_mean_nodes'] or '':>10} "
              f"{r['bpmx_cutoffs_first']:>10,} {r['search_seconds_first']:>9}")
    print(f"mean optimal length {sum(lengths.values()) / len(lengths):.3f}; lengths agree in every run: {not failed}")
    return 1 if failed else 0


def _rows(path: Path) -> list[dict]:
    with path.open() as handle:
        return list(csv.DictReader(handle))


if __name__ == "__main__":
    sys.exit(run_guarded("reproduce_dual_table.py", main))
