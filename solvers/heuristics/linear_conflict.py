"""linear_conflict.py -- Manhattan distance plus linear conflicts (Hansson, Mayer & Yung 1992).

h = Manhattan + 2 x (for every row and column: the tiles whose goal lies in that line, minus
the longest subsequence of them already in goal order). Each such line needs at least that
many tiles to leave it and come back, two moves each beyond Manhattan, and row and column
detours are distinct moves, so the sum stays admissible; a move changes h by at most 1 in
either direction after parity (tests check admissibility and consistency on small boards).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.heuristics.dispatch import register_kind
from solvers.heuristics.kinds import register_named
from solvers.heuristics.term import Term
from solvers.heuristics.tile_cost import cost_table
from solvers.jit import inline_kernel
from solvers.puzzle import Puzzle

MAX_LINE = 8


class LinearConflict(NamedTuple):
    manhattan: np.ndarray  # uint8[tile, cell]
    goal_cell: np.ndarray
    rows: int
    cols: int


def term(puzzle: Puzzle) -> Term:
    """Linear conflict on `puzzle`."""
    data = LinearConflict(cost_table(puzzle, "manhattan"), puzzle.goal_cell, puzzle.rows, puzzle.cols)
    return Term(puzzle, "linear-conflict", "linear-conflict", data, 1, evaluated_last=True, consistent=True)


@inline_kernel
def _line_excess(board, goal_cell, rows, cols, line, is_row):
    """Tiles in `line` whose goal is in that line, minus the longest run of them in goal order.

    The longest increasing run is found without allocating: goal positions within a line are
    distinct and below MAX_LINE, so the best run ending at position p is kept in nibble p of
    one integer.
    """
    best_by_position = np.int64(0)
    n_in_line = 0
    longest = 0
    length = cols if is_row else rows
    for i in range(length):
        cell = line * cols + i if is_row else i * cols + line
        tile = board[cell]
        if tile == 0:
            continue
        goal = np.int64(goal_cell[tile])
        if is_row:
            if goal // cols != line:
                continue
            position = goal % cols
        else:
            if goal % cols != line:
                continue
            position = goal // cols
        run = 1
        for earlier in range(position):
            run = max(run, ((best_by_position >> (4 * earlier)) & 15) + 1)
        best_by_position |= np.int64(run) << (4 * position)
        n_in_line += 1
        longest = max(longest, run)
    return n_in_line - longest


@inline_kernel
def _start(data, board, position, scratch, row, column):
    h = np.int64(0)
    for cell in range(board.shape[0]):
        h += data.manhattan[board[cell], cell]
    for line in range(data.rows):
        h += 2 * _line_excess(board, data.goal_cell, data.rows, data.cols, line, True)
    for line in range(data.cols):
        h += 2 * _line_excess(board, data.goal_cell, data.rows, data.cols, line, False)
    scratch[row, column] = h
    return h


@inline_kernel
def _conflict_change(board, goal_cell, rows, cols, tile, source, target):
    """Change of 2 x the conflicts when `tile` has just moved from `source` to `target`.

    Only the lines the tile left and entered can change their conflicts, and only the one that
    is the tile's goal line matters; it is recomputed after and before the move (the board is
    restored).
    """
    goal = np.int64(goal_cell[tile])
    vertical = source % cols == target % cols
    if vertical:
        line = goal // cols
        if line != source // cols and line != target // cols:
            return 0
    else:
        line = goal % cols
        if line != source % cols and line != target % cols:
            return 0
    after = _line_excess(board, goal_cell, rows, cols, line, vertical)
    board[source] = tile
    board[target] = 0
    before = _line_excess(board, goal_cell, rows, cols, line, vertical)
    board[target] = tile
    board[source] = 0
    return 2 * (after - before)


@inline_kernel
def _child(data, board, position, scratch, row, column, tile, source, target):
    h = (scratch[row, column] + np.int64(data.manhattan[tile, target]) - np.int64(data.manhattan[tile, source])
         + _conflict_change(board, data.goal_cell, data.rows, data.cols, tile, source, target))
    scratch[row + 1, column] = h
    return h


register_kind(LinearConflict, _start, _child)
register_named("linear-conflict", term, "linear-conflict", aliases=("lc", "linear_conflict"))
