"""run_default.py -- the main job on its built-in default.

1. Solves the reference examples (the classic 8-puzzle and 4x3 examples, an unsolvable one, the two hardest
   8-puzzle positions) with IDA* + linear conflict and checks each length.
2. Builds the default PDBs, the 7-8 partition of the 15-puzzle for Korf's blank-first goal,
   into data/pdbs/ (once; about a minute and 2.1 GB on two cores; later runs load the file).
3. Solves Korf's 100 instances with them and the reflected lookup on all cores, and prints the
   summary. Every run solves them again and times what it did: the rows go to
   results/korf100-7-8-reflect.unfinished.csv, which becomes results/korf100-7-8-reflect.csv
   once every instance has its row; a run interrupted before that resumes its rows next time.

Exit status 0 when every length equals the known one, 1 otherwise.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pdb_build.build import load_or_build
from pdb_build.partitions import preset
from pdb_build.store import default_file_name
from solvers.batch import solve_batch_afresh, unfinished_path
from solvers.cli_support import run_guarded
from solvers.compile_notice import announcing, batch_seconds, evaluation_seconds, search_seconds, shown
from solvers.heuristics import pdb_heuristic
from solvers.instances import load_instances
from solvers.puzzle import load_puzzle
from solvers.solve import solve

ROOT = Path(__file__).resolve().parent.parent
PROG = "run_default.py"

SEED_EXAMPLES = [
    # (name, tiles, board, goal, known length; None = unsolvable)
    ("8-puzzle", "1 2 3 4 6 8 7 5 0", None, None, 4),
    ("8-puzzle, unsolvable", "1 2 3 4 6 8 5 7 0", None, None, None),
    ("4x3 board", "1 3 0 4 2 6 7 5 8 10 11 9", "4x3", None, 5),
    ("snail goal", "2 8 3 1 6 4 7 0 5", None, "1 2 3 8 0 4 7 6 5", 5),
    ("8-puzzle, 31 moves", "8 6 7 2 5 4 3 0 1", None, None, 31),
]


def solve_examples() -> int:
    """Solve the examples; return how many lengths differ from the known ones."""
    cases = [(name, *load_puzzle(tiles, board, goal), known) for name, tiles, board, goal, known in SEED_EXAMPLES]
    puzzle, instances = load_instances(ROOT / "data" / "hardest8-31.txt")
    cases += [(f"hardest 8-puzzle #{i.number}", puzzle, i.start, i.optimal) for i in instances]
    print(f"{'example':<24} {'board':>5} {'length':>6} {'known':>6} {'nodes generated':>16}")
    mismatches = 0
    with announcing(PROG, "IDA* for every heuristic", search_seconds("ida", "linear-conflict", specialised=False),
                    shown(False), heuristic_seconds=evaluation_seconds("ida", "linear-conflict")):
        for name, puzzle, start, known in cases:
            result = solve(puzzle, start, "ida", "linear-conflict")
            mismatches += result.length != known
            print(f"{name:<24} {puzzle.board:>5} {'-' if result.length is None else result.length:>6} "
                  f"{'-' if known is None else known:>6} {result.nodes_generated:>16,}"
                  f"{'' if result.length == known else '  MISMATCH'}")
    return mismatches


def solve_korf100() -> int:
    """Build or load the 7-8 PDBs, solve Korf's 100; return how many lengths differ from the optima."""
    puzzle, instances = load_instances(ROOT / "data" / "korf100.txt")
    partition = preset(puzzle, "7-8")
    path = ROOT / "data" / "pdbs" / default_file_name(puzzle, partition)
    print(f"\nPDBs: {path.relative_to(ROOT)}" + ("" if path.exists() else " (building it once, about a minute)"))
    heuristic = pdb_heuristic(puzzle, [load_or_build(puzzle, partition, path, progress=sys.stderr.isatty())], reflect=True)
    out = ROOT / "results" / "korf100-7-8-reflect.csv"
    jobs = os.cpu_count() or 1
    print(f"Korf's 100 with IDA* + {heuristic.name} on {jobs} cores -> {out.relative_to(ROOT)}"
          + (" (resuming an interrupted run)" if unfinished_path(out).exists() else ""))
    with announcing(PROG, "the batch's kernels", batch_seconds("ida", heuristic.spec, specialised=False), shown(False),
                    heuristic_seconds=evaluation_seconds("ida", heuristic.spec)):
        summary = solve_batch_afresh(puzzle, instances, heuristic, out, jobs=jobs, progress=sys.stderr.isatty())
    print("\n".join(summary.lines()))
    return len(summary.mismatches) + summary.n_not_solved


def main() -> int:
    failures = solve_examples() + solve_korf100()
    print("all lengths as known; every solution replayed to the goal" if not failures else f"{failures} FAILURES")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(run_guarded(PROG, main))
