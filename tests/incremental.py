"""A heuristic's values along a random walk by its kernels' incremental paths (h_child and
h_child_at_least after each move), for tests that hold them to its values from scratch."""

from __future__ import annotations

import numpy as np

from solvers.heuristics import Heuristic
from solvers.heuristics.dispatch import h_child, h_child_at_least, h_start
from solvers.jit import kernel


@kernel
def _walk(leaves, n_columns, board, moves, enough):
    """h along a walk of blank moves (cells), by the incremental paths: (exact, at least)."""
    scratch = np.zeros((2, n_columns), dtype=np.int64)
    position = np.zeros(board.shape[0], dtype=np.int64)
    h_start(leaves, board, position, scratch, 0)
    exact = np.empty(moves.shape[0], dtype=np.int64)
    at_least = np.empty(moves.shape[0], dtype=np.int64)
    for i in range(moves.shape[0]):
        blank = position[0]
        target = moves[i]
        tile = board[target]
        board[blank] = tile
        board[target] = 0
        position[tile] = blank
        position[0] = target
        at_least[i] = h_child_at_least(leaves, board, position, scratch, 0, tile, target, blank, enough)
        exact[i] = h_child(leaves, board, position, scratch, 0, tile, target, blank)
        scratch[0, :] = scratch[1, :]
    return exact, at_least


def walk_values(heuristic: Heuristic, rng: np.random.Generator, steps: int,
                enough: int) -> tuple[np.ndarray, list[int], list[int]]:
    """(the states of a random walk of `steps` blank moves from a random state, h after each move
    by the incremental path, the child_at_least value with `enough` after each move)."""
    puzzle = heuristic.puzzle
    board = puzzle.random_state(rng)
    states, moves, walk = [], [], board.copy()
    blank = int(np.flatnonzero(walk == 0)[0])
    for _ in range(steps):
        options = [int(c) for c in puzzle.neighbours[blank] if c >= 0]
        target = options[rng.integers(len(options))]
        walk[blank], walk[target] = walk[target], 0
        blank = target
        moves.append(target)
        states.append(walk.copy())
    exact, at_least = heuristic.kernel(_walk)(heuristic.leaves, heuristic.n_columns, board,
                                              np.array(moves, dtype=np.int64), enough)
    return np.array(states), exact.tolist(), at_least.tolist()
