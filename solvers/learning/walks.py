"""walks.py -- the states training learns from: random walks back from the goal, and every state's children.

A walk starts at the goal and makes a number of random moves, never undoing the move before
(it would waste a step); walks of k moves are at most k moves from the goal. All walks of a
batch run together on arrays, one move of every walk at a time.
"""

from __future__ import annotations

import numpy as np

from solvers.puzzle import NO_CELL, Puzzle, inverse_move


def scrambled(puzzle: Puzzle, lengths: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One state per entry of `lengths`: the goal scrambled by that many random moves (uint8
    array of shape (len(lengths), cells))."""
    lengths = np.asarray(lengths, dtype=np.int64)
    count = lengths.shape[0]
    states = np.tile(puzzle.goal, (count, 1))
    blank = np.full(count, puzzle.blank_goal_cell, dtype=np.int64)
    last = np.full(count, -1, dtype=np.int64)
    undo = np.array([inverse_move(m) for m in range(4)], dtype=np.int64)
    neighbours = puzzle.neighbours.astype(np.int64)
    rows = np.arange(count)
    for step in range(int(lengths.max(initial=0))):
        targets = neighbours[blank]  # (count, 4)
        allowed = targets != NO_CELL
        has_last = last >= 0
        allowed[rows[has_last], undo[last[has_last]]] = False
        choice = np.argmax(np.where(allowed, rng.random((count, 4)), -1.0), axis=1)
        moving = lengths > step
        target = targets[rows, choice]
        active = rows[moving]
        states[active, blank[moving]] = states[active, target[moving]]
        states[active, target[moving]] = 0
        blank[moving] = target[moving]
        last[moving] = choice[moving]
    return states


def children(puzzle: Puzzle, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(children, legal): children[i, m] is states[i] after move m (U, D, L, R) where legal[i, m]
    (elsewhere a copy of states[i])."""
    states = np.asarray(states, dtype=np.uint8)
    count = states.shape[0]
    blank = np.argmax(states == 0, axis=1)
    targets = puzzle.neighbours.astype(np.int64)[blank]  # (count, 4)
    legal = targets != NO_CELL
    result = np.repeat(states[:, None, :], 4, axis=1)
    rows, moves = np.nonzero(legal)
    cells = targets[rows, moves]
    result[rows, moves, blank[rows]] = states[rows, cells]
    result[rows, moves, cells] = 0
    return result, legal
