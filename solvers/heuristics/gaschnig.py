"""gaschnig.py -- Gaschnig's heuristic (1979): the moves needed if a tile could jump into the blank from anywhere.

In that relaxation a move swaps the blank with any tile. While the blank is away from its goal
cell, the tile that belongs in the blank's cell jumps in; once the blank is home, it swaps with
any misplaced tile first. Counted over the permutation that sends each cell's tile to its
goal cell: a cycle holding the blank costs one move per misplaced tile in it, any other cycle
of misplaced tiles one move more (the blank must enter it), so

    h = misplaced tiles + cycles of misplaced tiles without the blank.

A real move is a move of the relaxation, so h is admissible and consistent (the exact distance
of a relaxed problem changes by at most one per move). It lies between Hamming distance and
Hamming plus the number of cycles; on its own it is weaker than Manhattan distance, and it is
a teaching example of a kind whose child is computed from scratch.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.heuristics.dispatch import register_kind
from solvers.heuristics.kinds import register_named
from solvers.heuristics.term import Term
from solvers.jit import inline_kernel
from solvers.puzzle import Puzzle


class Gaschnig(NamedTuple):
    goal_cell: np.ndarray  # the goal cell of every tile


def term(puzzle: Puzzle) -> Term:
    """Gaschnig's heuristic on `puzzle`: one scratch column for h, one per cell to mark the
    cells visited while the cycles are counted."""
    return Term(puzzle, "gaschnig", "gaschnig", Gaschnig(puzzle.goal_cell), 1 + puzzle.n_cells, consistent=True)


@inline_kernel
def _value(goal_cell, board, marks, row, column):
    """h of `board`; scratch columns column + 1 ... of `marks[row]` hold the visited cells."""
    n = board.shape[0]
    for cell in range(n):
        marks[row, column + 1 + cell] = 0
    h = 0
    for cell in range(n):
        if marks[row, column + 1 + cell] or goal_cell[board[cell]] == cell:
            continue
        with_blank = False
        walk = cell
        while not marks[row, column + 1 + walk]:  # the cycle of misplaced tiles through `cell`
            marks[row, column + 1 + walk] = 1
            if board[walk] == 0:
                with_blank = True
            else:
                h += 1
            walk = goal_cell[board[walk]]
        if not with_blank:
            h += 1
    marks[row, column] = h
    return h


@inline_kernel
def _start(data, board, position, scratch, row, column):
    return _value(data.goal_cell, board, scratch, row, column)


@inline_kernel
def _child(data, board, position, scratch, row, column, tile, source, target):
    return _value(data.goal_cell, board, scratch, row + 1, column)


register_kind(Gaschnig, _start, _child)
register_named("gaschnig", term, "gaschnig")
