"""heuristics.py -- heuristics as data for the search kernels; baseline heuristics as kernels.

Every heuristic is a `Heuristic` bound to one puzzle, which hands the kernels one
`KernelHeuristic` tuple; `_h_start`, `_h_child` and `_h_undo` evaluate any of them from
scratch or incrementally after a move. The baseline heuristics use a `kind` code and a
per-tile cost table `tile_cost[tile, cell]` (the cost charged to `tile` in `cell`; the blank
costs 0); pattern databases (kind PDB) are looked up by solvers/pdb_lookup.py.

  ZERO             h = 0 (uninformed search)
  HAMMING          number of tiles not in their goal cell
  MANHATTAN        sum of the tiles' row-plus-column distances to their goal cells
  LINEAR_CONFLICT  Manhattan + 2 x (for every row and column: the tiles whose goal lies in
                   that line, minus the longest subsequence of them already in goal order).
                   Each such line needs at least that many tiles to leave it and come back,
                   two moves each beyond Manhattan, and row and column detours are distinct
                   moves, so the sum stays admissible (Hansson, Mayer & Yung 1992).

Every baseline heuristic is admissible and consistent (h changes by at most 1 per move); the
tests check both against exact distances on every state of small boards.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.errors import InputError
from solvers.jit import inline_kernel, kernel
from solvers.pdb_lookup import _pdb_child, _pdb_start
from solvers.puzzle import Puzzle

ZERO, HAMMING, MANHATTAN, LINEAR_CONFLICT, PDB = range(5)
KIND_NAMES = {"zero": ZERO, "hamming": HAMMING, "manhattan": MANHATTAN, "linear-conflict": LINEAR_CONFLICT}
ALIASES = {"none": "zero", "lc": "linear-conflict", "linear_conflict": "linear-conflict"}
MAX_LINE = 8


class KernelHeuristic(NamedTuple):
    """Everything a search kernel needs to evaluate any heuristic (unused fields are tiny).

    Baseline fields: kind, tile_cost, goal_cell, rows, cols (see the module docstring).
    PDB fields (solvers/pdb_lookup.py): the tables of every pattern concatenated, where each
    starts, the patterns' tiles, sizes and k!, the binomials of the ranking, and the
    *lookups*: each lookup is a sum over its *instances* (one per pattern), reads tile u's
    cell as lookup_cell[L, position[lookup_tile[L, u]]] (the identity, or the mirror image
    for a reflected lookup), and `affected[L, t]` names its instance that a move of tile t
    changes (-1 for none). h is the maximum over the lookups. `position` is scratch: the cell
    of each tile.
    """

    kind: int
    tile_cost: np.ndarray
    goal_cell: np.ndarray
    rows: int
    cols: int
    tables: np.ndarray
    table_offset: np.ndarray
    pattern_tiles: np.ndarray
    pattern_k: np.ndarray
    pattern_factorial: np.ndarray
    binomials: np.ndarray
    instance_pattern: np.ndarray
    lookup_start: np.ndarray
    lookup_tile: np.ndarray
    lookup_cell: np.ndarray
    affected: np.ndarray
    position: np.ndarray


class Heuristic:
    """A heuristic bound to one puzzle; call it on a state to evaluate it.

    Subclasses set `puzzle` and `name` and provide `kernel_data()`, through which every
    search evaluates them.
    """

    puzzle: Puzzle
    name: str

    def kernel_data(self) -> KernelHeuristic:
        raise NotImplementedError

    def recipe(self) -> tuple:
        """(function, arguments), plain data from which `from_recipe` rebuilds this heuristic in
        another process or on another machine (a Dask worker; see solvers/distributed.py)."""
        raise NotImplementedError

    def __call__(self, state: np.ndarray) -> int:
        return int(_h_of(self.kernel_data(), np.ascontiguousarray(state, dtype=np.uint8)))

    def evaluate_many(self, states: np.ndarray) -> np.ndarray:
        """h of every row of a 2-D uint8 array of states, as int32."""
        states = np.ascontiguousarray(states, dtype=np.uint8)
        if states.ndim != 2 or states.shape[1] != self.puzzle.n_cells:
            raise InputError(f"states must be an array of shape (n, {self.puzzle.n_cells})")
        return _h_of_many(self.kernel_data(), states)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.puzzle.board})"


def from_recipe(recipe: tuple) -> Heuristic:
    """The heuristic a `Heuristic.recipe()` describes."""
    function, arguments = recipe
    return function(*arguments)


class Baseline(Heuristic):
    """Zero, Hamming, Manhattan or linear conflict on one puzzle."""

    def __init__(self, puzzle: Puzzle, name: str):
        if name not in KIND_NAMES:
            raise InputError(f"unknown heuristic {name!r}; choose one of {', '.join(KIND_NAMES)}")
        self.puzzle = puzzle
        self.name = name
        self.kind = KIND_NAMES[name]
        tile_cost = _tile_cost_table(puzzle, self.kind)
        tile_cost.setflags(write=False)
        self._data = KernelHeuristic(
            self.kind, tile_cost, puzzle.goal_cell, puzzle.rows, puzzle.cols, *no_pdb_fields(puzzle.n_cells)
        )

    def kernel_data(self) -> KernelHeuristic:
        return self._data

    def recipe(self) -> tuple:
        return Baseline, (self.puzzle, self.name)


def no_pdb_fields(n_cells: int) -> tuple:
    """The PDB fields of a KernelHeuristic without tables: one lookup with no instances."""
    one = np.zeros(1, dtype=np.int64)
    return (
        np.zeros(1, dtype=np.uint8), one, np.zeros((1, 1), dtype=np.int64), one, one,
        np.zeros((1, 1), dtype=np.int64), one, np.zeros(2, dtype=np.int64),
        np.zeros((1, n_cells), dtype=np.int64), np.zeros((1, n_cells), dtype=np.int64),
        np.full((1, n_cells), -1, dtype=np.int64), np.zeros(n_cells, dtype=np.int64),
    )


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
def _baseline_full(board, kind, tile_cost, goal_cell, rows, cols):
    """h of a baseline heuristic on `board`, computed from scratch."""
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
def _baseline_delta(board, tile, source, target, kind, tile_cost, goal_cell, rows, cols):
    """Change of a baseline h when `tile` has just moved from `source` to `target` (board is after the move).

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


@kernel
def _h_start(H, board, values):
    """h of `board` at the root of a search; fills H.position and row 0 of `values`."""
    for cell in range(board.shape[0]):
        H.position[board[cell]] = cell
    if H.kind == PDB:
        return _pdb_start(
            values, H.position, H.tables, H.table_offset, H.pattern_tiles, H.pattern_k, H.pattern_factorial,
            H.binomials, H.instance_pattern, H.lookup_start, H.lookup_tile, H.lookup_cell,
        )
    return _baseline_full(board, H.kind, H.tile_cost, H.goal_cell, H.rows, H.cols)


@inline_kernel
def _h_child(H, board, h_parent, tile, source, target, values, depth):
    """h after `tile` moved from `source` to `target` (`board` is after the move).

    The parent's PDB values are row `depth` of `values`; the child's are written to row
    depth + 1. Undo the move with `_h_undo`.
    """
    H.position[tile] = target
    if H.kind == PDB:
        return _pdb_child(
            values, depth, tile, H.position, H.tables, H.table_offset, H.pattern_tiles, H.pattern_k,
            H.pattern_factorial, H.binomials, H.instance_pattern, H.lookup_start, H.lookup_tile, H.lookup_cell,
            H.affected,
        )
    return h_parent + _baseline_delta(board, tile, source, target, H.kind, H.tile_cost, H.goal_cell, H.rows, H.cols)


@inline_kernel
def _h_undo(H, tile, source):
    """Take back a move of `tile` (it stands in `source` again)."""
    H.position[tile] = source


@kernel
def _h_of(H, board):
    values = np.zeros((1, H.instance_pattern.shape[0]), dtype=np.int64)
    return _h_start(H, board, values)


@kernel
def _h_of_many(H, states):
    out = np.empty(states.shape[0], dtype=np.int32)
    values = np.zeros((1, H.instance_pattern.shape[0]), dtype=np.int64)
    for i in range(states.shape[0]):
        out[i] = _h_start(H, states[i], values)
    return out
