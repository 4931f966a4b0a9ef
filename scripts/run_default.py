"""run_default.py -- the main job on its built-in default: solve the reference examples.

Solves the seed examples (8-puzzle, 4x3 board, a non-standard goal, an unsolvable one), the
two hardest 8-puzzle positions and Korf's 15-puzzle instance 1 with IDA* + linear conflict,
checks each length against the known one and prints a summary. Exit status 1 on any mismatch.
"""

from __future__ import annotations

import sys
from pathlib import Path

from solvers.instances import load_instances
from solvers.puzzle import load_puzzle
from solvers.solve import solve

ROOT = Path(__file__).resolve().parent.parent

SEED_EXAMPLES = [
    # (name, tiles, board, goal, known length; None = unsolvable)
    ("8-puzzle", "1 2 3 4 6 8 7 5 0", None, None, 4),
    ("8-puzzle, unsolvable", "1 2 3 4 6 8 5 7 0", None, None, None),
    ("4x3 board", "1 3 0 4 2 6 7 5 8 10 11 9", "4x3", None, 5),
    ("snail goal", "2 8 3 1 6 4 7 0 5", None, "1 2 3 8 0 4 7 6 5", 5),
    ("8-puzzle, 31 moves", "8 6 7 2 5 4 3 0 1", None, None, 31),
]


def main() -> int:
    cases = [(name, *load_puzzle(tiles, board, goal), known) for name, tiles, board, goal, known in SEED_EXAMPLES]
    for path, label, count in (("hardest8-31.txt", "hardest 8-puzzle", 2), ("korf100.txt", "Korf 15-puzzle", 1)):
        puzzle, instances = load_instances(ROOT / "data" / path)
        cases += [(f"{label} #{i.number}", puzzle, i.start, i.optimal) for i in instances[:count]]
    print(f"{'instance':<24} {'board':>5} {'length':>6} {'known':>6} {'nodes generated':>16} {'seconds':>8}")
    mismatches = 0
    total_nodes = total_seconds = 0.0
    for name, puzzle, start, known in cases:
        result = solve(puzzle, start, "ida", "linear-conflict")
        length = "-" if result.length is None else result.length
        ok = result.length == known
        mismatches += not ok
        total_nodes += result.nodes_generated
        total_seconds += result.seconds
        print(f"{name:<24} {puzzle.board:>5} {length:>6} {'-' if known is None else known:>6} "
              f"{result.nodes_generated:>16,} {result.seconds:>8.3f}{'' if ok else '  MISMATCH'}")
    print(f"{len(cases)} instances, {len(cases) - mismatches} as known, {int(total_nodes):,} nodes generated "
          f"in {total_seconds:.2f} s of search (IDA* + linear conflict; every solution replayed to the goal)")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
