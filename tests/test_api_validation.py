"""The Python API refuses, with one line, a heuristic built for another board or goal and a start
state that is not a state of the puzzle: at solve, every search function and solve_batch."""

from __future__ import annotations

import numpy as np
import pytest

from solvers.batch import solve_batch
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.instances import Instance
from solvers.puzzle import Puzzle
from solvers.search.astar import astar
from solvers.search.ida import ida_star
from solvers.search.parallel_ida import parallel_ida_star
from solvers.search.uninformed import bfs, iddfs
from solvers.solve import solve
from tests.forging import forged

BLANK_LAST = Puzzle(3, 3)
BLANK_FIRST = Puzzle(3, 3, list(range(9)))
START = np.array([1, 2, 3, 4, 6, 8, 7, 5, 0], dtype=np.uint8)
SEARCHES = [ida_star, astar, parallel_ida_star]


@pytest.mark.parametrize("search", SEARCHES)
def test_a_heuristic_for_another_goal_is_refused(search):
    with pytest.raises(InputError, match="was built for Puzzle\\(3x3, goal=0 1 2"):
        search(BLANK_LAST, START, from_spec(BLANK_FIRST, "manhattan"))


@pytest.mark.parametrize("search", SEARCHES)
@pytest.mark.parametrize("start, message", [
    (np.array([1, 2, 3, 4, 6, 8, 7, 5], dtype=np.uint8), "has 8 tiles but a 3x3 board needs 9"),
    (np.array([1, 2, 3, 4, 6, 8, 7, 5, 9], dtype=np.uint8), "tile 9 is out of range"),
    (np.array([1, 1, 3, 4, 6, 8, 7, 5, 0], dtype=np.uint8), "tile 1 appears twice"),
])
def test_a_start_that_is_not_a_state_is_refused(search, start, message):
    with pytest.raises(InputError, match=message):
        search(BLANK_LAST, start, from_spec(BLANK_LAST, "manhattan"))


@pytest.mark.parametrize("search", [bfs, iddfs])
def test_uninformed_searches_check_the_start_too(search):
    with pytest.raises(InputError, match="tile 1 appears twice"):
        search(BLANK_LAST, np.array([1, 1, 3, 4, 6, 8, 7, 5, 0], dtype=np.uint8))


def test_solve_and_solve_batch_refuse_a_heuristic_for_another_board(tmp_path):
    other_board = from_spec(Puzzle(2, 4), "manhattan")
    with pytest.raises(InputError, match="was built for Puzzle\\(2x4"):
        solve(BLANK_LAST, START, "ida", other_board)
    with pytest.raises(InputError, match="was built for Puzzle\\(2x4"):
        solve_batch(BLANK_LAST, [Instance(1, START, 4)], other_board, tmp_path / "rows.csv")
    with pytest.raises(InputError, match="at least 1"):
        solve(BLANK_LAST, START, "ida", "manhattan", threads=0)
    assert solve(BLANK_LAST, START, "ida", "manhattan").length == 4


def test_solve_batch_takes_a_spec_and_starts_of_any_shape_and_resumes(tmp_path):
    """A spec string as `solve` takes one, and starts given as a 3x3 array or a list: the rows
    are written for the flat states, so a resume of the same file replays them."""
    instances = [Instance(1, START.reshape(3, 3), 4), Instance(2, [1, 2, 3, 4, 5, 6, 7, 0, 8], 1)]
    out = tmp_path / "rows.csv"
    first = solve_batch(BLANK_LAST, instances, "manhattan", out)
    again = solve_batch(BLANK_LAST, instances, "manhattan", out)
    assert first.n_solved == 2 and again.n_resumed == 2 and not again.mismatches


def test_a_table_that_is_not_zero_at_the_goal_is_refused_before_any_search(tmp_path):
    """A PDB whose goal entry was changed and its checksum recomputed would keep IDA* from ever
    accepting the goal; every search refuses it in one line instead."""
    import h5py

    from pdb_build.build import build_pdb_file, plan_build
    from pdb_build.partitions import preset
    from pdb_build.store import checksum

    path = build_pdb_file(plan_build(BLANK_FIRST, preset(BLANK_FIRST, "4-4")), tmp_path / "44.h5")[0]
    with forged(path) as handle:
        table = handle["pattern_0"][...]
        table[table == 0] = 2  # the goal placement's entry, the only 0
        handle["pattern_0"][...] = table
        handle["pattern_0"].attrs["checksum"] = checksum(table)
    damaged = from_spec(BLANK_FIRST, f"pdb:{path}")
    for search in SEARCHES:
        with pytest.raises(InputError, match="gives 2 at the goal, not 0: a table is damaged"):
            search(BLANK_FIRST, BLANK_FIRST.goal, damaged)
