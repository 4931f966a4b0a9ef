"""walking_distance.py -- Takahashi's walking distance: vertical and horizontal moves counted apart.

For the vertical part, a state is abstracted to a matrix: entry (r, g) counts the tiles in row
r whose goal lies in row g (the blank's row is the one with a tile fewer). A vertical move takes
one tile from a row next to the blank's into the blank's row; horizontal moves leave the
matrix alone. The vertical walking distance is the fewest vertical moves from a state's matrix
to the goal's, found once by breadth-first search over every matrix reachable from the goal's
(moves are reversible). The horizontal part is the same with columns. Every move changes one
part by at most one, so h = vertical + horizontal is admissible (and consistent); it also is
at least Manhattan's row-and-column parts taken as lines, and often more.

Tables are built on first use for a board and goal and kept for the process (a 4x4 board has
24,964 matrices per part, built in well under a second); `MAX_STATES` refuses boards whose tables would take
minutes or whose keys would not fit 62 bits (accepted: 2x2-2x6, 3x2-3x5, 4x2-4x4, 5x2, 5x3, 6x2). At run time a part is the index
of its matrix: a move looks up the next index in a table by the direction of the blank and the
goal line of the moved tile, so h is two table reads per node.
"""

from __future__ import annotations

import functools
from collections import deque
from typing import NamedTuple

import numpy as np

from solvers.errors import InputError
from solvers.heuristics.dispatch import register_kind
from solvers.heuristics.kinds import register_named
from solvers.heuristics.term import Term
from solvers.jit import inline_kernel
from solvers.puzzle import Puzzle

MAX_STATES = 1_000_000  # per part: larger tables take minutes in this pure-Python search
UP, DOWN = 0, 1  # the blank moves to the line before / after its own


class WalkingDistance(NamedTuple):
    """Per part (v: rows, h: columns): the sorted keys of its matrices, the distance of each, the
    next matrix after a move (by direction of the blank and goal line of the tile), the key
    weight of a tile in line l with goal line g, each cell's line and each tile's goal line."""

    v_keys: np.ndarray
    v_distance: np.ndarray
    v_next: np.ndarray
    v_weight: np.ndarray
    v_line: np.ndarray
    v_goal_line: np.ndarray
    h_keys: np.ndarray
    h_distance: np.ndarray
    h_next: np.ndarray
    h_weight: np.ndarray
    h_line: np.ndarray
    h_goal_line: np.ndarray


class Part(NamedTuple):
    keys: np.ndarray
    distance: np.ndarray
    next: np.ndarray
    weight: np.ndarray
    line: np.ndarray
    goal_line: np.ndarray


def term(puzzle: Puzzle) -> Term:
    """Walking distance on `puzzle` (tables built on the first call for this board and goal)."""
    return Term(puzzle, "walking-distance", "walking-distance", _data(puzzle.rows, puzzle.cols, puzzle.goal.tobytes()), 2,
                consistent=True)


@functools.cache
def _data(rows: int, cols: int, goal: bytes) -> WalkingDistance:
    goal_cell = np.argsort(np.frombuffer(goal, dtype=np.uint8))
    cells = np.arange(rows * cols)
    vertical = part(cells // cols, goal_cell // cols, rows, cols)
    horizontal = part(cells % cols, goal_cell % cols, cols, rows)
    return WalkingDistance(*vertical, *horizontal)


def part(line_of_cell: np.ndarray, goal_line_of_tile: np.ndarray, n_lines: int, line_length: int) -> Part:
    """One part's tables: `n_lines` lines of `line_length` cells; the blank is tile 0."""
    base = line_length + 1
    if base ** ((n_lines - 1) * n_lines) >= 2**62:
        raise InputError(f"walking distance: a board with {n_lines} lines of {line_length} cells is too large")
    weight = np.zeros((n_lines, n_lines), dtype=np.int64)
    for line in range(n_lines - 1):  # the last line's counts follow from the others
        for goal in range(n_lines):
            weight[line, goal] = base ** (line * n_lines + goal)
    start = np.zeros((n_lines, n_lines), dtype=np.int64)
    for tile in range(1, len(goal_line_of_tile)):
        start[goal_line_of_tile[tile], goal_line_of_tile[tile]] += 1
    states, distance, edges = _breadth_first(start, int(goal_line_of_tile[0]), line_length)
    keys = np.array([int((np.array(s).reshape(n_lines, n_lines) * weight).sum()) for s in states], dtype=np.int64)
    order = np.argsort(keys)
    rank = np.empty(len(states), dtype=np.int64)
    rank[order] = np.arange(len(states))
    following = np.full((len(states), 2, n_lines), -1, dtype=np.int32)
    for source, direction, goal, target in edges:
        following[rank[source], direction, goal] = rank[target]
    tables = Part(keys[order], np.array(distance, dtype=np.uint8)[order], following, weight,
                  line_of_cell.astype(np.int64), goal_line_of_tile.astype(np.int64))
    for table in tables:
        table.setflags(write=False)
    return tables


def _breadth_first(start: np.ndarray, blank_line: int, line_length: int):
    """Every matrix reachable from `start` (blank in `blank_line`), its distance, and the moves
    as (state, direction of the blank, goal line of the moved tile, next state)."""
    n_lines = start.shape[0]
    first = tuple(start.ravel())
    number = {first: 0}
    states, distance, edges = [first], [0], []
    blank_of = [blank_line]
    queue = deque([0])
    while queue:
        index = queue.popleft()
        state, blank = states[index], blank_of[index]
        for direction, other in ((UP, blank - 1), (DOWN, blank + 1)):
            if not 0 <= other < n_lines:
                continue
            for goal in range(n_lines):
                if state[other * n_lines + goal] == 0:
                    continue
                moved = list(state)
                moved[other * n_lines + goal] -= 1
                moved[blank * n_lines + goal] += 1
                key = tuple(moved)
                if key not in number:
                    if len(states) >= MAX_STATES:
                        raise InputError(f"walking distance: more than {MAX_STATES:,} states; the board is too large")
                    number[key] = len(states)
                    states.append(key)
                    distance.append(distance[index] + 1)
                    blank_of.append(other)
                    queue.append(number[key])
                edges.append((index, direction, goal, number[key]))
    return states, distance, edges


@inline_kernel
def _index(keys, weight, line, goal_line, board):
    key = np.int64(0)
    for cell in range(board.shape[0]):
        tile = board[cell]
        if tile != 0:
            key += weight[line[cell], goal_line[tile]]
    return np.searchsorted(keys, key)


@inline_kernel
def _start(data, board, position, scratch, row, column):
    v = _index(data.v_keys, data.v_weight, data.v_line, data.v_goal_line, board)
    h = _index(data.h_keys, data.h_weight, data.h_line, data.h_goal_line, board)
    scratch[row, column] = v
    scratch[row, column + 1] = h
    return np.int64(data.v_distance[v]) + np.int64(data.h_distance[h])


@inline_kernel
def _child(data, board, position, scratch, row, column, tile, source, target):
    v = scratch[row, column]
    h = scratch[row, column + 1]
    if data.v_line[source] != data.v_line[target]:  # the blank moved from target's row to source's
        direction = UP if data.v_line[source] < data.v_line[target] else DOWN
        v = data.v_next[v, direction, data.v_goal_line[tile]]
    else:
        direction = UP if data.h_line[source] < data.h_line[target] else DOWN
        h = data.h_next[h, direction, data.h_goal_line[tile]]
    scratch[row + 1, column] = v
    scratch[row + 1, column + 1] = h
    return np.int64(data.v_distance[v]) + np.int64(data.h_distance[h])


register_kind(WalkingDistance, _start, _child)
register_named("walking-distance", term, "walking-distance", aliases=("wd", "walking_distance"))
