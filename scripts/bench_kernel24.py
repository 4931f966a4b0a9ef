"""bench_kernel24.py -- expanded nodes per second per core of IDA* on the 24-puzzle, per heuristic.

Runs IDA* on one thread on #38, #40, #25 and #44 of Korf & Felner's 50 (data/korf24-50.txt)
with each heuristic of --heuristic (default: the 6-6-6-6 partition plain and zero-aware, each
with the reflected lookup; the tables are built into data/pdbs/ if missing, build time not
counted), each search capped at --nodes expanded nodes (default 20,000,000, so a row takes
seconds, not hours; an instance solved earlier counts what it took). Prints expanded nodes per
second per instance and over the four, and writes results/bench_kernel24.csv. BPMX follows
--bpmx (default off: the rate of the kernel itself). Issue 15 asks this rate to stay at or above
3.7 M/s with every stronger heuristic.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

from bench_compression import pdb_file

from pdb_build.partitions import preset
from pdb_build.store import PLAIN, ZERO_AWARE
from solvers.atomic import write_csv
from solvers.heuristics import from_spec
from solvers.instances import load_instances
from solvers.search.ida import ida_star

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = (38, 40, 25, 44)  # the four easiest by published effort
DEFAULT_TABLES = ((PLAIN, "none"), (ZERO_AWARE, "none"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heuristic", action="append", metavar="SPEC",
                        help="heuristic specs (default: pdb: of the 6-6-6-6 plain and zero-aware files, +reflect)")
    parser.add_argument("--nodes", type=int, default=20_000_000, help="expanded nodes per search at most")
    parser.add_argument("--bpmx", choices=("on", "off"), default="off")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_kernel24.csv"))
    args = parser.parse_args()
    puzzle, instances = load_instances(ROOT / "data" / "korf24-50.txt")
    chosen = [i for i in instances if i.number in INSTANCES]
    specs = args.heuristic or [f"pdb:{pdb_file(puzzle, preset(puzzle, '6-6-6-6'), kind, form)}+reflect"
                               for kind, form in DEFAULT_TABLES]
    print(f"IDA* on the 24-puzzle, one thread, at most {args.nodes:,} expanded nodes per search, BPMX {args.bpmx}, "
          f"{platform.processor() or platform.machine()}, {time.strftime('%Y-%m-%d')}")
    rows = []
    for spec in specs:
        heuristic = from_spec(puzzle, spec)
        expanded = seconds = 0.0
        for instance in chosen:  # each search compiles (or loads) its kernel before its clock starts
            result = ida_star(puzzle, instance.start, heuristic, node_limit=args.nodes, bpmx=args.bpmx == "on")
            rate = result.nodes_expanded / result.seconds
            rows.append({"heuristic": heuristic.name, "instance": instance.number, "status": result.status,
                         "initial_h": result.initial_h, "nodes_expanded": result.nodes_expanded,
                         "seconds": round(result.seconds, 3), "m_expanded_per_s": round(rate / 1e6, 3)})
            expanded += result.nodes_expanded
            seconds += result.seconds
            print(f"{heuristic.name:<48} #{instance.number:<3} h0 {result.initial_h:>3} {result.nodes_expanded:>13,} "
                  f"expanded in {result.seconds:>7.2f} s: {rate / 1e6:.2f} M/s ({result.status})", flush=True)
        print(f"{heuristic.name:<48} all  {expanded / seconds / 1e6:.2f} M expanded/s per core")
    print(f"wrote {write_csv(args.out, rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
