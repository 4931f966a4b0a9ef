"""tile_cost.py -- the heuristics that charge each tile a cost for its cell: zero, Hamming, Manhattan.

  zero        h = 0 (uninformed search)
  hamming     the number of tiles not in their goal cell
  manhattan   the sum of the tiles' row-plus-column distances to their goal cells

`cost[tile, cell]` is the cost of `tile` in `cell` (the blank costs 0), so h is a sum over the
cells, and a move changes it by the moved tile's two entries. Each is admissible and
consistent (a move changes h by at most 1); tests compare them with exact distances.

Each counts only moves of the tile it charges (a tile's cost drops by at most one per move of
that tile), so it is additive: inside `sum(...)` it counts only the tiles that no other part
covers (the cost rows of the others' tiles are zero), and `sum(pdb:FILE, manhattan)` is the
PDB plus the Manhattan distance of the tiles outside its patterns, admissible because the PDB
counts only its pattern tiles' moves and the rest count each other tile's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import NamedTuple

import numpy as np

from solvers.heuristics.dispatch import register_kind
from solvers.heuristics.kinds import register_named
from solvers.heuristics.term import Term
from solvers.jit import inline_kernel
from solvers.puzzle import Puzzle


class TileCost(NamedTuple):
    cost: np.ndarray  # uint8[tile, cell]


@dataclass(frozen=True, eq=False)
class TileCostTerm(Term):
    """A tile-cost term; `restricted_to` keeps the cost rows of some tiles only."""

    def restricted_to(self, tiles: frozenset[int]) -> TileCostTerm:
        cost = self.data.cost.copy()
        cost[[t for t in range(cost.shape[0]) if t not in tiles]] = 0
        cost.setflags(write=False)
        return replace(self, data=TileCost(cost), tiles=frozenset(tiles), fills=False)


def cost_table(puzzle: Puzzle, name: str) -> np.ndarray:
    """cost[tile, cell] of the named heuristic on `puzzle` (read-only)."""
    n = puzzle.n_cells
    cells = np.arange(n)
    table = np.zeros((n, n), dtype=np.uint8)
    for tile in range(1, n if name != "zero" else 1):
        goal = int(puzzle.goal_cell[tile])
        if name == "hamming":
            table[tile] = cells != goal
        else:
            table[tile] = np.abs(cells // puzzle.cols - goal // puzzle.cols) + np.abs(
                cells % puzzle.cols - goal % puzzle.cols
            )
    table.setflags(write=False)
    return table


def term(puzzle: Puzzle, name: str) -> Term:
    """The term of `name` (zero, hamming or manhattan) on `puzzle`."""
    tiles = frozenset() if name == "zero" else frozenset(range(1, puzzle.n_cells))
    return TileCostTerm(puzzle, name, name, TileCost(cost_table(puzzle, name)), 1, consistent=True, tiles=tiles,
                        additive=True, fills=name != "zero")


@inline_kernel
def _start(data, board, position, scratch, row, column):
    h = np.int64(0)
    for cell in range(board.shape[0]):
        h += data.cost[board[cell], cell]
    scratch[row, column] = h
    return h


@inline_kernel
def _child(data, board, position, scratch, row, column, tile, source, target):
    h = scratch[row, column] + np.int64(data.cost[tile, target]) - np.int64(data.cost[tile, source])
    scratch[row + 1, column] = h
    return h


register_kind(TileCost, _start, _child)
register_named("zero", partial(term, name="zero"), "tile-cost", aliases=("none",))
register_named("hamming", partial(term, name="hamming"), "tile-cost")
register_named("manhattan", partial(term, name="manhattan"), "tile-cost", aliases=("md",))
