"""bench_kernel24.py -- expanded nodes per second per core of IDA* on the 24-puzzle, and mean h, per heuristic.

Runs IDA* on one thread on #38, #40, #25 and #44 of Korf & Felner's 50 (data/korf24-50.txt)
with each heuristic: --tables CONFIG ([zero-aware:]PARTITIONS as korf24.py takes them, e.g.
6-6-6-6, zero-aware:catalogue:small, zero-aware:7-7-7-3; each partition with the reflected
lookup; tables built into data/pdbs/ if missing, build time not counted) or --heuristic SPEC
(default: 6-6-6-6 and zero-aware:6-6-6-6), each search capped at --nodes expanded nodes
(default 20,000,000, so a row takes seconds, not hours; an instance solved earlier counts what
it took), and the heuristic's mean h over --states uniformly random solvable states (default
1,000,000, seed 1). Prints expanded nodes per second per instance and over the four, and writes
results/bench_kernel24.csv. BPMX follows --bpmx (default off: the rate of the kernel itself).
The target for this rate is 3.7 M/s or more with every stronger heuristic (BENCHMARKS.md, "24-puzzle
kernel speed (bench_kernel24)").
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

from korf24 import ROOT, configured_spec

from solvers.atomic import write_csv
from solvers.cli_support import run_guarded
from solvers.experiments import uniform_states
from solvers.heuristics import from_spec
from solvers.instances import load_instances
from solvers.search.ida import ida_star

INSTANCES = (38, 40, 25, 44)  # the four easiest by published effort
DEFAULT_TABLES = ("6-6-6-6", "zero-aware:6-6-6-6")


def _table_options(config: str) -> argparse.Namespace:
    """korf24.py's --partitions/--zero-aware options of a --tables CONFIG."""
    zero_aware = config.startswith("zero-aware:")
    return argparse.Namespace(partitions=config.removeprefix("zero-aware:"), zero_aware=zero_aware)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", action="append", metavar="CONFIG",
                        help="[zero-aware:]PARTITIONS, as korf24.py's --partitions (default 6-6-6-6, zero-aware:6-6-6-6)")
    parser.add_argument("--heuristic", action="append", metavar="SPEC", help="heuristic specs besides --tables")
    parser.add_argument("--states", type=int, default=1_000_000, help="random states for the mean h (0: none)")
    parser.add_argument("--nodes", type=int, default=20_000_000, help="expanded nodes per search at most")
    parser.add_argument("--bpmx", choices=("on", "off"), default="off")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_kernel24.csv"))
    args = parser.parse_args()
    puzzle, instances = load_instances(ROOT / "data" / "korf24-50.txt")
    chosen = [i for i in instances if i.number in INSTANCES]
    tables = args.tables or ([] if args.heuristic else list(DEFAULT_TABLES))
    specs = [configured_spec(puzzle, _table_options(config))[0] for config in tables] + (args.heuristic or [])
    states = uniform_states(puzzle, args.states, 1) if args.states else None
    print(f"IDA* on the 24-puzzle, one thread, at most {args.nodes:,} expanded nodes per search, BPMX {args.bpmx}, "
          f"{platform.processor() or platform.machine()}, {time.strftime('%Y-%m-%d')}")
    rows = []
    for spec in specs:
        heuristic = from_spec(puzzle, spec).with_kernels(True)
        mean_h = float(heuristic.evaluate_many(states).mean()) if states is not None else float("nan")
        expanded = seconds = 0.0
        for instance in chosen:  # each search compiles (or loads) its kernel before its clock starts
            result = ida_star(puzzle, instance.start, heuristic, node_limit=args.nodes, bpmx=args.bpmx == "on")
            rate = result.nodes_expanded / result.seconds
            rows.append({"heuristic": heuristic.name, "mean_h": round(mean_h, 3), "instance": instance.number,
                         "status": result.status,
                         "initial_h": result.initial_h, "nodes_expanded": result.nodes_expanded,
                         "seconds": round(result.seconds, 3), "m_expanded_per_s": round(rate / 1e6, 3)})
            expanded += result.nodes_expanded
            seconds += result.seconds
            print(f"{heuristic.name:<48} #{instance.number:<3} h0 {result.initial_h:>3} {result.nodes_expanded:>13,} "
                  f"expanded in {result.seconds:>7.2f} s: {rate / 1e6:.2f} M/s ({result.status})", flush=True)
        print(f"{heuristic.name:<48} all  {expanded / seconds / 1e6:.2f} M expanded/s per core, "
              f"mean h {mean_h:.3f} over {args.states:,} random states")
    print(f"wrote {write_csv(args.out, rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench_kernel24.py", main))
