"""bench_compile.py -- seconds numba takes to compile a heuristic and the searches that use it, from a cold cache.

Each case runs in a fresh process with NUMBA_CACHE_DIR set to an empty folder, so nothing is
loaded from numba's cache: it times loading the heuristic, its first evaluation (the
evaluation kernel) and then the first call of each search (IDA*, A* where the board allows it,
Knuth's effort estimator), IDA* and A* capped at 100 nodes, so that the figure is nearly all
compiling. Cases: a 3x3 board with 4-4 tables built here (zero-aware with the reflected lookup,
and with the reflected and dual lookups: the largest kind), and, where data/pdbs/ holds them,
Korf & Felner's 6-6-6-6 24-puzzle tables (plain and zero-aware, with reflection) and a maximum
over three zero-aware 6-6-6-6 partitions (LazyLookups). Writes results/bench_compile.csv.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom
from solvers.atomic import write_csv
from solvers.cli_support import run_guarded
from solvers.heuristics import from_spec
from solvers.puzzle import Puzzle
from solvers.search.effort import predict_ida
from solvers.solve import solve

ROOT = Path(__file__).resolve().parent.parent
PDBS = ROOT / "data" / "pdbs"
BLANK_FIRST_3X3 = tuple(range(9))
CATALOGUE_3 = ("6-6-6-6", "6-6-6-6-s1", "6-6-6-6-s2")


def _child(case: dict) -> None:
    """In a fresh process: time each step of `case` and print them as one JSON line."""
    began = time.perf_counter()
    puzzle = Puzzle(case["rows"], case["cols"], tuple(range(case["rows"] * case["cols"])))
    heuristic = from_spec(puzzle, case["spec"])
    start = puzzle.goal.copy()
    start[[1, 2]] = start[[2, 1]]  # two swaps of tiles, the blank at home: an even permutation,
    start[[3, 4]] = start[[4, 3]]  # so solvable, and not the goal
    seconds = {"load": time.perf_counter() - began}
    for step in ["evaluate", *case["searches"]]:
        began = time.perf_counter()
        if step == "evaluate":
            heuristic(start)
        elif step == "effort":
            predict_ida(puzzle, start, heuristic, int(heuristic(start)) + 2, n_probes=1)
        else:
            solve(puzzle, start, step, heuristic, node_limit=100)
        seconds[step] = time.perf_counter() - began
    print(json.dumps({name: round(value, 2) for name, value in seconds.items()}))


def _cases(folder: Path) -> list[dict]:
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    plan = plan_build(puzzle, custom(puzzle, ["1,2,4,5", "3,6,7,8"]), additive=True, zero_aware=True)
    small = build_pdb_file(plan, folder / "3x3-4-4-zero-aware.h5")[0]
    cases = [
        {"name": "3x3 4-4 zero-aware +reflect", "rows": 3, "cols": 3, "spec": f"pdb:{small}+reflect",
         "searches": ["ida", "astar", "effort"]},
        {"name": "3x3 4-4 zero-aware +reflect+dual", "rows": 3, "cols": 3, "spec": f"pdb:{small}+reflect+dual",
         "searches": ["ida", "astar"]},
    ]
    files = {"5x5 6-6-6-6 +reflect": ["6-6-6-6"], "5x5 6-6-6-6 zero-aware +reflect": ["6-6-6-6-zero-aware"],
             "5x5 three zero-aware 6-6-6-6 partitions +reflect": [f"{p}-zero-aware" for p in CATALOGUE_3]}
    for name, stems in files.items():
        paths = [PDBS / f"5x5-blank-first-{stem}.h5" for stem in stems]
        if all(path.exists() for path in paths):
            lookups = [f"pdb:{path}+reflect" for path in paths]
            spec = lookups[0] if len(lookups) == 1 else f"max({', '.join(lookups)})"
            cases.append({"name": name, "rows": 5, "cols": 5, "spec": spec, "searches": ["ida", "effort"]})
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_compile.csv"))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(json.loads(args.child))
        return 0
    print(f"cold compile seconds, one process per case, {platform.processor() or platform.machine()}, "
          f"{time.strftime('%Y-%m-%d')}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for case in _cases(Path(folder)):
            with tempfile.TemporaryDirectory() as cache:
                done = subprocess.run([sys.executable, __file__, "--child", json.dumps(case)], capture_output=True,
                                      text=True, env={**os.environ, "NUMBA_CACHE_DIR": cache})
            if done.returncode != 0:
                print(f"{case['name']}: failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
                return 1
            seconds = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{case['name']:<50} " + "  ".join(f"{step} {value:6.1f} s" for step, value in seconds.items()),
                  flush=True)
            rows.append({"case": case["name"], **{step: seconds.get(step, "")
                                                  for step in ("load", "evaluate", "ida", "astar", "effort")}})
    write_csv(Path(args.out), rows)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench_compile.py", main))
