"""User-defined heuristics: the user guide's example runs as written; user functions through every
search path, by object and by spec (imported by name), in batches with forked workers."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import numba
import numpy as np
import pytest

from solvers.batch import solve_batch
from solvers.errors import InputError
from solvers.heuristics import from_spec, user_heuristic
from solvers.instances import load_instances
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests import naive
from tests.conftest import STANDARD_3X3, distances

GUIDE_PAGE = Path(__file__).resolve().parent.parent / "docs" / "guide" / "own-heuristic.md"


def test_the_guide_example_runs_and_prints_the_optimal_length():
    section = GUIDE_PAGE.read_text()
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "guide example", "exec"), {"__name__": "guide_example"})
    assert printed.getvalue().split() == ["31", "31"]


@numba.njit
def hamming_by_hand(board):
    """Tiles out of place for the goal 1 2 ... 8 0: an admissible user heuristic."""
    h = 0
    for cell in range(board.shape[0]):
        if board[cell] != 0 and board[cell] != cell + 1:
            h += 1
    return h


@numba.njit
def hamming_by_hand_child(h_parent, board, tile, source, target):
    return h_parent + (tile != target + 1) - (tile != source + 1)


@pytest.mark.parametrize("algorithm", ["ida", "astar", "parallel"])
@pytest.mark.parametrize("incremental", [False, True])
def test_a_user_function_guides_every_search_to_optimal_lengths(algorithm, incremental):
    puzzle = Puzzle(3, 3, STANDARD_3X3)
    heuristic = user_heuristic(puzzle, hamming_by_hand, child=hamming_by_hand_child if incremental else None)
    exact = distances(3, 3, STANDARD_3X3)
    states = list(exact)
    for i in np.random.default_rng(4).choice(len(states), 8, replace=False):
        start = np.array(states[i], dtype=np.uint8)
        assert heuristic(start) == naive.hamming(states[i], STANDARD_3X3)
        extra = {"threads": 2} if algorithm == "parallel" else {}
        result = solve(puzzle, start, "astar" if algorithm == "astar" else "ida", heuristic, **extra)
        assert result.length == exact[states[i]]
        assert not result.optimal and result.bpmx  # the toolkit cannot know the function admissible or consistent
        assert solve(puzzle, start, "ida" if algorithm != "astar" else "astar", "hamming", **extra).optimal


@numba.njit
def hamming_with_arrays(board):
    """hamming_by_hand written with arrays made at every call: numba compiles it with reference
    counting, which the searches' own inline kernels go without."""
    goal = np.arange(1, board.shape[0] + 1) % board.shape[0]
    return np.sum((board != goal) & (board != 0))


@pytest.mark.parametrize("algorithm", ["ida", "astar"])
def test_a_user_function_that_makes_arrays_guides_the_searches(algorithm):
    puzzle = Puzzle(3, 3, STANDARD_3X3)
    heuristic = user_heuristic(puzzle, hamming_with_arrays)
    start = puzzle.replay(puzzle.goal, "LLUURDRDLLUR")
    assert heuristic(start) == hamming_by_hand(start)
    assert solve(puzzle, start, algorithm, heuristic).length == solve(puzzle, start, algorithm, "manhattan").length


@numba.njit
def below_zero_off_the_goal(board):
    """-3 everywhere but at the goal 1 2 ... 8 0, where it is 0: a user's slip."""
    for cell in range(board.shape[0] - 1):
        if board[cell] != cell + 1:
            return -3
    return 0


@pytest.mark.parametrize("algorithm", ["ida", "astar"])
def test_a_user_function_below_zero_counts_as_zero(algorithm):
    # the searches size their stacks by the bound, which assumes h >= 0
    puzzle = Puzzle(3, 3, STANDARD_3X3)
    heuristic = user_heuristic(puzzle, below_zero_off_the_goal)
    exact = distances(3, 3, STANDARD_3X3)
    near = sorted(state for state, d in exact.items() if d == 8)[:3]
    for state in near:
        start = np.array(state, dtype=np.uint8)
        assert heuristic(start) == 0
        result = solve(puzzle, start, algorithm, heuristic)
        assert result.length == 8 and result.initial_h == 0


def test_a_user_function_by_spec_in_max_and_in_a_batch_with_forked_workers(tmp_path):
    exact = distances(3, 3, STANDARD_3X3)
    states = [s for s in exact if exact[s] >= 22][:6]
    lines = ["# board: 3x3", "# goal: " + " ".join(map(str, STANDARD_3X3))]
    (tmp_path / "six.txt").write_text("\n".join(lines + [" ".join(map(str, s)) + f" | {exact[s]}" for s in states]) + "\n")
    puzzle, instances = load_instances(tmp_path / "six.txt")
    heuristic = from_spec(puzzle, f"max(user:{__name__}:hamming_by_hand:hamming_by_hand_child, manhattan)")
    assert heuristic.name == "max(user:hamming_by_hand, manhattan)"
    summary = solve_batch(puzzle, instances, heuristic, tmp_path / "rows.csv", jobs=2)
    assert summary.n_solved == 6 and summary.mismatches == ()


def test_what_is_not_a_numba_function_is_refused():
    puzzle = Puzzle(3, 3, STANDARD_3X3)
    with pytest.raises(InputError, match="not a numba-compiled function"):
        user_heuristic(puzzle, lambda board: 0)
    with pytest.raises(InputError, match="has no function 'nothing'"):
        from_spec(puzzle, f"user:{__name__}:nothing")
