"""walks.py -- the states training learns from: random walks back from the goal, and every state's children.

A walk starts at the goal and makes a number of random moves, never undoing the move before
(it would waste a step); walks of k moves are at most k moves from the goal. All walks of a
batch are made by one kernel from random numbers drawn beforehand, so that a seed gives the
same walks.
"""

from __future__ import annotations

import numpy as np

from solvers.jit import kernel
from solvers.puzzle import NO_CELL, Puzzle, inverse_move

UNDO = np.array([inverse_move(m) for m in range(4)], dtype=np.int64)


def scrambled(puzzle: Puzzle, lengths: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One state per entry of `lengths`: the goal scrambled by that many random moves (uint8
    array of shape (len(lengths), cells)). Each move is drawn uniformly among the blank's moves
    but the one that undoes the last (every cell has at least two neighbours)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    draws = rng.random((lengths.shape[0], int(lengths.max(initial=0))))
    return walked(puzzle.goal.astype(np.uint8), puzzle.blank_goal_cell, puzzle.neighbours.astype(np.int64),
                  lengths, draws, UNDO)


@kernel
def walked(goal, blank_goal_cell, neighbours, lengths, draws, undo):
    """The walks of scrambled: walk w makes lengths[w] moves from `goal`, its k-th move the
    floor(draws[w, k] * n)-th, in the order U, D, L, R, of the n moves of the blank other than
    undo[its last move]."""
    count, n_cells = lengths.shape[0], goal.shape[0]
    states = np.empty((count, n_cells), dtype=np.uint8)
    options = np.empty(4, dtype=np.int64)
    for w in range(count):
        states[w, :] = goal
        blank, last = blank_goal_cell, -1
        for step in range(lengths[w]):
            n = 0
            for move in range(4):
                if neighbours[blank, move] != NO_CELL and (last < 0 or move != undo[last]):
                    options[n] = move
                    n += 1
            move = options[int(draws[w, step] * n)]
            target = neighbours[blank, move]
            states[w, blank] = states[w, target]
            states[w, target] = 0
            blank, last = target, move
    return states


def children(puzzle: Puzzle, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(children, legal): children[i, m] is states[i] after move m (U, D, L, R) where legal[i, m]
    (elsewhere a copy of states[i])."""
    states = np.asarray(states, dtype=np.uint8)
    blank = np.argmax(states == 0, axis=1)
    targets = puzzle.neighbours.astype(np.int64)[blank]  # one row of four cells per state
    legal = targets != NO_CELL
    result = np.repeat(states[:, None, :], 4, axis=1)
    rows, moves = np.nonzero(legal)
    cells = targets[rows, moves]
    result[rows, moves, blank[rows]] = states[rows, cells]
    result[rows, moves, cells] = 0
    return result, legal
