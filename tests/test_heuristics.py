"""Baseline heuristics: equal to naive recomputation, admissible and consistent on whole boards."""

import numpy as np
import pytest

from solvers.heuristic_spec import from_spec
from solvers.heuristics import Baseline as Heuristic
from solvers.heuristics import _baseline_delta as _move_delta
from solvers.errors import InputError
from solvers.puzzle import Puzzle
from tests import naive
from tests.conftest import STANDARD_2X4, STANDARD_3X3, distances

SNAIL_3X3 = (1, 2, 3, 8, 0, 4, 7, 6, 5)
BOARDS = [(3, 3, STANDARD_3X3), (3, 3, SNAIL_3X3), (2, 4, STANDARD_2X4), (2, 4, (0, 1, 2, 3, 4, 5, 6, 7))]
NAMES = ["hamming", "manhattan", "linear-conflict"]


def _naive(name, state, goal, rows, cols):
    if name == "hamming":
        return naive.hamming(state, goal)
    if name == "manhattan":
        return naive.manhattan(state, goal, cols)
    return naive.linear_conflict(state, goal, rows, cols)


@pytest.mark.parametrize("rows, cols, goal", BOARDS)
def test_every_state_equals_naive_and_is_admissible_and_consistent(rows, cols, goal):
    exact = distances(rows, cols, goal)
    puzzle = Puzzle(rows, cols, goal)
    states = list(exact)
    index = {state: i for i, state in enumerate(states)}
    array = np.array(states, dtype=np.uint8)
    for name in NAMES:
        h = Heuristic(puzzle, name).evaluate_many(array)
        stride = 1 if rows * cols <= 8 else 7  # the naive twin is slow; a 1/7 sample of the 8-puzzle
        for i in range(0, len(states), stride):
            assert h[i] == _naive(name, states[i], goal, rows, cols), (name, states[i])
        assert all(h[i] <= exact[s] for i, s in enumerate(states)), f"{name} overestimates"
        for i, state in enumerate(states):
            for nxt in naive.blank_moves(state, rows, cols):
                assert abs(int(h[i]) - int(h[index[nxt]])) <= 1, (name, state, nxt)
        assert h[index[goal]] == 0


def test_linear_conflict_dominates_manhattan_and_is_stronger_on_average():
    puzzle = Puzzle(3, 3)
    states = np.array(list(distances(3, 3, STANDARD_3X3)), dtype=np.uint8)
    md = Heuristic(puzzle, "manhattan").evaluate_many(states)
    lc = Heuristic(puzzle, "linear-conflict").evaluate_many(states)
    assert (lc >= md).all() and lc.mean() > md.mean() + 1


@pytest.mark.parametrize("rows, cols", [(3, 3), (4, 4), (3, 5), (5, 5), (8, 8)])
@pytest.mark.parametrize("name", NAMES)
def test_incremental_update_equals_recomputation_along_random_walks(rows, cols, name):
    rng = np.random.default_rng(rows * 100 + cols)
    puzzle = Puzzle(rows, cols, rng.permutation(rows * cols))
    heuristic = Heuristic(puzzle, name)
    board = puzzle.random_state(rng)
    h = heuristic(board)
    blank = int(np.flatnonzero(board == 0)[0])
    for _ in range(2000):
        options = [int(c) for c in puzzle.neighbours[blank] if c >= 0]
        target = options[rng.integers(len(options))]
        tile = board[target]
        board[blank], board[target] = tile, 0
        data = heuristic.kernel_data()
        h += _move_delta(board, tile, target, blank, data.kind, data.tile_cost, data.goal_cell, rows, cols)
        blank = target
        assert h == heuristic(board) == _naive(name, tuple(board.tolist()), tuple(puzzle.goal.tolist()), rows, cols)


def test_spec_names_and_aliases():
    puzzle = Puzzle(3, 3)
    assert from_spec(puzzle, " LC ").name == "linear-conflict"
    assert from_spec(puzzle, "none").name == "zero"
    with pytest.raises(InputError, match="unknown heuristic 'euclid'"):
        from_spec(puzzle, "euclid")
