"""Baseline heuristics: equal to naive recomputation, admissible and consistent on whole boards."""

import numpy as np
import pytest

from solvers.heuristics import baseline as Heuristic
from solvers.heuristics import from_spec
from solvers.heuristics.dispatch import h_child, h_start
from solvers.jit import kernel
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
    scratch = np.zeros((2, heuristic.n_columns), dtype=np.int64)
    position = np.zeros(puzzle.n_cells, dtype=np.int64)
    _start(heuristic.leaves, board, position, scratch)
    blank = int(np.flatnonzero(board == 0)[0])
    for _ in range(2000):
        options = [int(c) for c in puzzle.neighbours[blank] if c >= 0]
        target = options[rng.integers(len(options))]
        tile = board[target]
        board[blank], board[target] = tile, 0
        position[tile] = blank
        h = _child_then_shift(heuristic.leaves, board, position, scratch, tile, target, blank)
        blank = target
        assert h == heuristic(board) == _naive(name, tuple(board.tolist()), tuple(puzzle.goal.tolist()), rows, cols)


@kernel
def _start(leaves, board, position, scratch):
    return h_start(leaves, board, position, scratch, 0)


@kernel
def _child_then_shift(heuristic_leaves, board, position, scratch, tile, source, target):
    """h of a child by the search's incremental path; the child's scratch becomes row 0."""
    h = h_child(heuristic_leaves, board, position, scratch, 0, tile, source, target)
    scratch[0, :] = scratch[1, :]
    return h


def test_spec_names_and_aliases():
    puzzle = Puzzle(3, 3)
    assert from_spec(puzzle, " LC ").name == "linear-conflict"
    assert from_spec(puzzle, "none").name == "zero"
    with pytest.raises(InputError, match="unknown heuristic 'euclid'"):
        from_spec(puzzle, "euclid")
