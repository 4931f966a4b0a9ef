"""bench_ida.py -- IDA* speed with Manhattan and linear conflict on Korf's 15-puzzle instances.

Solves the first N instances of data/korf100.txt (default 10) with each heuristic on one
thread, checks every length against the published one, prints nodes and nodes/second, and
writes the figures to results/bench_ida.csv.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

from solvers.atomic import write_csv
from solvers.cli_support import run_guarded
from solvers.heuristics import from_spec
from solvers.instances import load_instances
from solvers.search.move_pruning import DEFAULT_PRUNE, PRUNE_MODES
from solvers.solve import solve

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=10, help="how many of Korf's 100 to solve (default 10)")
    parser.add_argument("--heuristic", action="append", help="heuristics (default: manhattan, linear-conflict)")
    parser.add_argument("--prune", choices=PRUNE_MODES, default=DEFAULT_PRUNE,
                        help=f"IDA*'s move pruning (default {DEFAULT_PRUNE}; figures before 2026-11-30 used parent)")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_ida.csv"))
    args = parser.parse_args()
    puzzle, instances = load_instances(ROOT / "data" / "korf100.txt")
    instances = instances[: args.first]
    heuristics = args.heuristic or ["manhattan", "linear-conflict"]
    # the search compiled for each heuristic (full speed); warmed up: compiled or loaded before timing
    compiled = {name: from_spec(puzzle, name).with_kernels(True) for name in heuristics}
    for name in heuristics:
        solve(puzzle, puzzle.replay(puzzle.goal, "RDLU"), "ida", compiled[name], prune=args.prune)
    rows = []
    print(f"IDA* on Korf's 15-puzzle instances 1-{len(instances)}, one thread, move pruning {args.prune}, "
          f"{platform.processor() or platform.machine()}")
    print(f"{'heuristic':<16} {'#':>3} {'len':>4} {'nodes generated':>16} {'nodes expanded':>15} {'seconds':>8} {'Mgen/s':>7}")
    failed = False
    for name in heuristics:
        for instance in instances:
            result = solve(puzzle, instance.start, "ida", compiled[name], prune=args.prune)
            failed |= result.length != instance.optimal
            rate = result.nodes_generated / result.seconds / 1e6
            rows.append(
                dict(heuristic=name, instance=instance.number, length=result.length, optimal=instance.optimal,
                     nodes_generated=result.nodes_generated, nodes_expanded=result.nodes_expanded,
                     seconds=round(result.seconds, 4), mgen_per_s=round(rate, 2))
            )
            print(f"{name:<16} {instance.number:>3} {result.length:>4} {result.nodes_generated:>16,} "
                  f"{result.nodes_expanded:>15,} {result.seconds:>8.2f} {rate:>7.1f}")
        mine = [r for r in rows if r["heuristic"] == name]
        generated = sum(r["nodes_generated"] for r in mine)
        expanded = sum(r["nodes_expanded"] for r in mine)
        seconds = sum(r["seconds"] for r in mine)
        print(f"{name:<16} {'all':>3} {'':>4} {generated:>16,} {expanded:>15,} {seconds:>8.2f} "
              f"{generated / seconds / 1e6:>7.1f}   ({expanded / seconds / 1e6:.1f} M expanded/s)")
    out = write_csv(args.out, rows)
    print(f"wrote {out}; {time.strftime('%Y-%m-%d')}")
    if failed:
        print("ERROR: a length differs from the published optimum", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench_ida.py", main))
