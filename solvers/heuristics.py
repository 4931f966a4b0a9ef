"""heuristics.py -- baseline heuristics (zero, Hamming, Manhattan, linear conflict) as kernels.

A heuristic is data for the kernels: a `kind` code and a per-tile cost table
`tile_cost[tile, cell]` (the cost charged to `tile` standing in `cell`); the blank costs 0.

  ZERO             h = 0 (uninformed search)
  HAMMING          number of tiles not in their goal cell
  MANHATTAN        sum of the tiles' row-plus-column distances to their goal cells
  LINEAR_CONFLICT  Manhattan + 2 x (for every row and column: the tiles whose goal lies in
                   that line, minus the longest subsequence of them already in goal order).
                   Each such line needs at least that many tiles to leave it and come back,
                   two moves each beyond Manhattan, and row and column detours are distinct
                   moves, so the sum stays admissible (Hansson, Mayer & Yung 1992).

Every heuristic here is admissible and consistent (h changes by at most 1 per move); the
tests check both against exact distances on every state of small boards.
"""

from __future__ import annotations

import numpy as np

from solvers.errors import InputError
from solvers.jit import kernel
from solvers.puzzle import Puzzle

ZERO, HAMMING, MANHATTAN, LINEAR_CONFLICT = range(4)
KIND_NAMES = {"zero": ZERO, "hamming": HAMMING, "manhattan": MANHATTAN, "linear-conflict": LINEAR_CONFLICT}
ALIASES = {"none": "zero", "lc": "linear-conflict", "linear_conflict": "linear-conflict"}
MAX_LINE = 8


class Heuristic:
    """A baseline heuristic bound to one puzzle; call it on a state to evaluate it."""

    def __init__(self, puzzle: Puzzle, name: str):
        if name not in KIND_NAMES:
            raise InputError(f"unknown heuristic {name!r}; choose one of {', '.join(KIND_NAMES)}")
        self.puzzle = puzzle
        self.name = name
        self.kind = KIND_NAMES[name]
        self.tile_cost = _tile_cost_table(puzzle, self.kind)
        self.tile_cost.setflags(write=False)

    def kernel_args(self) -> tuple:
        """The arguments every search kernel takes to evaluate this heuristic."""
        p = self.puzzle
        return (self.kind, self.tile_cost, p.goal_cell, p.rows, p.cols)

    def __call__(self, state: np.ndarray) -> int:
        return int(_h_full(np.ascontiguousarray(state, dtype=np.uint8), *self.kernel_args()))

    def evaluate_many(self, states: np.ndarray) -> np.ndarray:
        """h of every row of a 2-D uint8 array of states, as int32."""
        states = np.ascontiguousarray(states, dtype=np.uint8)
        if states.ndim != 2 or states.shape[1] != self.puzzle.n_cells:
            raise InputError(f"states must be an array of shape (n, {self.puzzle.n_cells})")
        return _h_many(states, *self.kernel_args())

    def __repr__(self) -> str:
        return f"Heuristic({self.name!r}, {self.puzzle.board})"


def from_spec(puzzle: Puzzle, spec: str) -> Heuristic:
    """The heuristic named by `spec` (case-insensitive; `lc` and `none` are aliases)."""
    name = spec.strip().lower()
    return Heuristic(puzzle, ALIASES.get(name, name))


def _tile_cost_table(puzzle: Puzzle, kind: int) -> np.ndarray:
    n = puzzle.n_cells
    cells = np.arange(n)
    table = np.zeros((n, n), dtype=np.uint8)
    if kind == ZERO:
        return table
    for tile in range(1, n):
        goal = int(puzzle.goal_cell[tile])
        if kind == HAMMING:
            table[tile] = cells != goal
        else:
            table[tile] = np.abs(cells // puzzle.cols - goal // puzzle.cols) + np.abs(
                cells % puzzle.cols - goal % puzzle.cols
            )
    return table


@kernel
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


@kernel
def _h_full(board, kind, tile_cost, goal_cell, rows, cols):
    """h of `board`, computed from scratch."""
    h = 0
    for cell in range(board.shape[0]):
        h += tile_cost[board[cell], cell]
    if kind == LINEAR_CONFLICT:
        for row in range(rows):
            h += 2 * _line_excess(board, goal_cell, rows, cols, row, True)
        for col in range(cols):
            h += 2 * _line_excess(board, goal_cell, rows, cols, col, False)
    return h


@kernel
def _h_many(states, kind, tile_cost, goal_cell, rows, cols):
    out = np.empty(states.shape[0], dtype=np.int32)
    for i in range(states.shape[0]):
        out[i] = _h_full(states[i], kind, tile_cost, goal_cell, rows, cols)
    return out


@kernel
def _move_delta(board, tile, source, target, kind, tile_cost, goal_cell, rows, cols):
    """Change of h when `tile` has just moved from `source` to `target` (board is after the move).

    Only the lines the tile left and entered can change their conflicts, and only the one
    that is the tile's goal line matters; it is recomputed before and after the move.
    """
    delta = np.int64(tile_cost[tile, target]) - np.int64(tile_cost[tile, source])
    if kind != LINEAR_CONFLICT:
        return delta
    goal = np.int64(goal_cell[tile])
    vertical = source % cols == target % cols
    if vertical:
        line = goal // cols
        if line != source // cols and line != target // cols:
            return delta
    else:
        line = goal % cols
        if line != source % cols and line != target % cols:
            return delta
    after = _line_excess(board, goal_cell, rows, cols, line, vertical)
    board[source] = tile
    board[target] = 0
    before = _line_excess(board, goal_cell, rows, cols, line, vertical)
    board[target] = tile
    board[source] = 0
    return delta + 2 * (after - before)
