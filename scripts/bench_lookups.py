"""bench_lookups.py -- IDA* speed with each composition of PDB lookups: readers, evaluations, views and combiners.

Every PDB lookup is a reader (plain, zero-aware or encoded tables) composed with an evaluation
(eager or lazy), a view (regular, reflected, dual) and a combiner (maximum, random); this times
IDA* on the first N of Korf's 100 (default 20, capped at 30 M nodes each) with one heuristic
per composition, so that a change to any one of them shows where it costs. The tables are 4x4
6-6-3 (the plain file of data/pdbs/, built if missing) and 6-6-3 and 5-5-5 zero-aware ones
(built into data/pdbs/ if missing, a few seconds). Prints nodes and expanded nodes per second
and writes results/bench_lookups.csv; node counts must not change with the code.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import preset
from solvers.atomic import write_csv
from solvers.cli_support import run_guarded
from solvers.heuristics import from_spec
from solvers.instances import load_instances
from solvers.puzzle import Puzzle
from solvers.search.ida import ida_star

ROOT = Path(__file__).resolve().parent.parent
PDBS = ROOT / "data" / "pdbs"
NODE_LIMIT = 30_000_000


def table(puzzle: Puzzle, partition: str, zero_aware: bool) -> Path:
    """The 4x4 file of `partition` (blank-first goal), built into data/pdbs/ if missing."""
    path = PDBS / f"4x4-blank-first-{partition}{'-zero-aware' if zero_aware else ''}.h5"
    if not path.exists():
        build_pdb_file(plan_build(puzzle, preset(puzzle, partition), zero_aware=zero_aware), path)
    return path


def compositions(puzzle: Puzzle) -> list[tuple[str, str]]:
    """(what is composed, heuristic spec) of every case."""
    plain, zero_aware, small = table(puzzle, "6-6-3", False), table(puzzle, "6-6-3", True), \
        table(puzzle, "5-5-5", True)
    return [
        ("plain, eager, regular + reflected, max", f"pdb:{plain}+reflect"),
        ("plain, eager, + dual, max", f"pdb:{plain}+reflect+dual"),
        ("plain, eager, regular + reflected, random", f"pdb:{plain}+reflect+random"),
        ("zero-aware, eager, regular + reflected, max", f"pdb:{zero_aware}+reflect"),
        ("zero-aware, eager, + dual, max", f"pdb:{zero_aware}+reflect+dual"),
        ("zero-aware, lazy, two partitions reflected, max", f"max(pdb:{zero_aware}+reflect, pdb:{small}+reflect)"),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=20, help="how many of Korf's 100 to search (default 20)")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_lookups.csv"))
    args = parser.parse_args()
    puzzle, instances = load_instances(ROOT / "data" / "korf100.txt")
    instances = instances[: args.first]
    print(f"IDA* on Korf's 15-puzzle instances 1-{len(instances)}, one thread, at most {NODE_LIMIT:,} nodes each, "
          f"{platform.processor() or platform.machine()}, {time.strftime('%Y-%m-%d')}")
    rows = []
    for what, spec in compositions(puzzle):
        heuristic = from_spec(puzzle, spec).with_kernels(True)
        ida_star(puzzle, instances[0].start, heuristic, node_limit=1_000)  # compile before the clock starts
        expanded = seconds = 0.0
        for instance in instances:
            result = ida_star(puzzle, instance.start, heuristic, node_limit=NODE_LIMIT)
            expanded += result.nodes_expanded
            seconds += result.seconds
        rate = expanded / seconds / 1e6
        rows.append({"composition": what, "heuristic": heuristic.name, "nodes_expanded": int(expanded),
                     "seconds": round(seconds, 3), "m_expanded_per_s": round(rate, 3)})
        print(f"{what:<50} {int(expanded):>12,} expanded in {seconds:>6.2f} s: {rate:.2f} M/s", flush=True)
    print(f"wrote {write_csv(args.out, rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded("bench_lookups.py", main))
