"""The kernels run as plain Python under NUMBA_DISABLE_JIT=1 (for stepping and coverage) and
give exactly the compiled results: ranking, the PDB build, and IDA*/A* with the built PDB.

`python -m tests.test_disable_jit FOLDER` prints the results of one run as JSON; the test runs
that in a subprocess with the JIT disabled and compares it with the same run compiled here.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import preset
from pdb_build.ranking import PlacementRanking
from pdb_build.store import checksum
from solvers.heuristics import from_spec, user_heuristic
from solvers.instances import load_instances
from solvers.solve import solve

ROOT = Path(__file__).resolve().parent.parent


@numba.njit
def tiles_out_of_place(board):
    """A user's heuristic for the blank-first goal (searches compile it without the disk cache:
    jit.uncached)."""
    h = 0
    for cell in range(board.shape[0]):
        h += board[cell] != 0 and board[cell] != cell
    return h


def kernel_results(folder: Path) -> dict:
    """Round trips of the placement index, the 3x3 4-4 tables, a hardest 8-puzzle solved with them
    and with a user's function (one: the kernels run as plain Python)."""
    ranking = PlacementRanking(9, 4)
    exhaustive = ranking.rank(ranking.unrank(np.arange(ranking.size))).tolist() == list(range(ranking.size))
    large = PlacementRanking(25, 6)
    sample = np.random.default_rng(1).integers(0, large.size, size=200)
    puzzle, instances = load_instances(ROOT / "data" / "hardest8-31.txt")
    path, built = build_pdb_file(plan_build(puzzle, preset(puzzle, "4-4")), folder / "eight.h5")
    pdb = from_spec(puzzle, f"pdb:{path}")
    # IDA* prunes by the parent move only: building the fsm of move_pruning.py as plain Python
    # takes far longer than the search, and its compiled kernels have tests of their own
    options = {"ida": {"prune": "parent"}, "astar": {}}
    solved = [
        [result.length, result.moves, result.nodes_expanded, result.nodes_generated]
        for result in (solve(puzzle, i.start, algorithm, pdb, **options[algorithm]) for i in instances[:1]
                       for algorithm in options)
    ]
    users, near = user_heuristic(puzzle, tiles_out_of_place), puzzle.replay(puzzle.goal, "RDLDRU")
    by_user = solve(puzzle, near, "astar", users)
    return {
        "user": [int(users(instances[0].start)), by_user.length, by_user.nodes_expanded],
        "round_trips": [exhaustive, large.rank(large.unrank(sample)).tolist() == sample.tolist()],
        "tables": [checksum(table.table) for table in built],
        "solved": solved,
    }


def test_kernels_give_the_compiled_results_without_the_jit(tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "compiled").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "tests.test_disable_jit", str(tmp_path / "plain")], cwd=ROOT,
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    plain = json.loads(done.stdout)
    assert plain == kernel_results(tmp_path / "compiled")
    assert plain["round_trips"] == [True, True] and {length for length, *_ in plain["solved"]} == {31}


if __name__ == "__main__":
    from pdb_build import ranking

    assert not hasattr(ranking.cell_set_rank, "py_func"), "a compiled kernel: run with NUMBA_DISABLE_JIT=1"
    print(json.dumps(kernel_results(Path(sys.argv[1]))))
