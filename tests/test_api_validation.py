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
