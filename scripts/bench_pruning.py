"""bench_pruning.py -- IDA* with each move pruning (none, parent, fsm) on Korf's 15-puzzle instances.

Solves the first N instances of data/korf100.txt (default 10) with one heuristic (default
Manhattan) on one thread, once per --prune mode (default: parent and fsm), checks every length
against the published one, and prints per instance and in total the nodes generated and
expanded, the seconds, and the nodes generated as a share of Korf's (1985) published counts
(data/korf100-manhattan-nodes.txt, meaningful with Manhattan). Writes results/bench_pruning.csv.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

from solvers.atomic import write_csv
from solvers.cli_support import run_guarded
from solvers.instances import load_instances, published_counts
from solvers.search.move_pruning import PRUNE_MODES
from solvers.solve import solve

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=10, help="how many of Korf's 100 to solve (default 10)")
    parser.add_argument("--heuristic", default="manhattan", help="heuristic spec (default: manhattan)")
    parser.add_argument("--prune", action="append", choices=PRUNE_MODES, help="modes (default: parent, fsm)")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_pruning.csv"))
    args = parser.parse_args()
    puzzle, instances = load_instances(ROOT / "data" / "korf100.txt")
    instances = instances[: args.first]
    published = published_counts("korf100-manhattan-nodes")
    modes = args.prune or ["parent", "fsm"]
    for mode in modes:  # warm up: compile (or load) the kernels and build the automata before timing
        solve(puzzle, puzzle.replay(puzzle.goal, "RDLU"), "ida", args.heuristic, prune=mode)
    print(f"IDA* with {args.heuristic} on Korf's 15-puzzle instances 1-{len(instances)}, one thread, "
          f"{platform.processor() or platform.machine()}")
    print(f"{'prune':<7} {'#':>3} {'len':>4} {'nodes generated':>16} {'nodes expanded':>15} {'seconds':>8} "
          f"{'Mgen/s':>7} {'/Korf':>6}")
    rows, failed = [], False
    for mode in modes:
        for instance in instances:
            result = solve(puzzle, instance.start, "ida", args.heuristic, prune=mode)
            failed |= result.length != instance.optimal
            korf = published[instance.number - 1]
            rows.append(dict(prune=mode, heuristic=args.heuristic, instance=instance.number, length=result.length,
                             nodes_generated=result.nodes_generated, nodes_expanded=result.nodes_expanded,
                             seconds=round(result.seconds, 4), korf_1985_nodes=korf))
            print(f"{mode:<7} {instance.number:>3} {result.length:>4} {result.nodes_generated:>16,} "
                  f"{result.nodes_expanded:>15,} {result.seconds:>8.2f} {result.nodes_generated / result.seconds / 1e6:>7.1f} "
                  f"{result.nodes_generated / korf:>6.3f}")
        mine = [r for r in rows if r["prune"] == mode]
        generated, seconds = sum(r["nodes_generated"] for r in mine), sum(r["seconds"] for r in mine)
        korf = sum(r["korf_1985_nodes"] for r in mine)
        print(f"{mode:<7} {'all':>3} {'':>4} {generated:>16,} {sum(r['nodes_expanded'] for r in mine):>15,} "
              f"{seconds:>8.2f} {generated / seconds / 1e6:>7.1f} {generated / korf:>6.3f}")
    out = write_csv(args.out, rows)
    print(f"wrote {out}; {time.strftime('%Y-%m-%d')}")
    if failed:
        print("ERROR: a length differs from the published optimum", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench_pruning.py", main))
