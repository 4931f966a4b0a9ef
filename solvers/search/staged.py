"""staged.py -- a constructive solver: the board solved a line at a time, each step by exact breadth-first search over the tiles it places.

The way people solve large sliding-tile puzzles by hand, with every step made exact. The
region left to solve starts as the whole board. While it is larger than 2x2, one of its outer
lines is placed and frozen: a row if the region has at least as many rows as columns, else a
column, on the side away from the goal's blank (which therefore stays inside). The line's
tiles are placed a few at a time, in order along it: as many together as keep a step within
MAX_STEP_STATES abstract states, two at least, and the last two of the line always together
(the last tile of a line cannot be slid in without moving the one before it). The last 2x2
region (three tiles and the blank) is one step, with the blank to its goal cell as well.

Each step is a breadth-first search over the cells of the blank and of the step's tiles alone
(k tiles over R cells not frozen: R^(k + 1) abstract states at most): the blank moves over the
cells not frozen, every other tile counting as alike, and the search ends with the step's
tiles in their goal cells, so the step takes the fewest moves that place them with the frozen
ones kept. Every step has a solution: the cells not frozen always make a rectangle of at least
2x3 less part of one outer line, where tiles that count as alike leave no parity to respect;
the last region's parities are those of the whole state, since every frozen tile is in its
goal cell. Last, the loops of the moves strung together (a state met twice) are cut out.

The solver needs no heuristic and almost no memory, and answers on every solvable state of
every board up to 8x8 within a second; its solutions are much longer than a good search's
(BENCHMARKS.md, "Large boards"). It is the anytime search's first run. Its node counts are
those of the steps' abstract states.
"""

from __future__ import annotations

import time

import numpy as np

from solvers.jit import kernel
from solvers.puzzle import Puzzle, SolutionError
from solvers.search.depth_first import N_DIRECTIONS
from solvers.search.node_store import NO_PARENT, path_moves
from solvers.search.registry import TIME_LIMIT, Search, register
from solvers.search.result import (
    SearchResult, checked_start, moves_to_text, search_result, time_limit_reason, unsolvable_result, verified,
)

ANY_CELL = -1  # the blank's target in every step but the last
UNSEEN = NO_PARENT - 1  # the parent of an abstract state not reached yet
# Placing tiles together shortens the solutions and costs time and memory (17 bytes a state):
# on uniformly random 8x8 states, two at a time gave 1,012 moves in 0.07 s, this bound (three
# or four at a time in the smaller regions) 866 moves in 0.35 s, and 2^22 fewer than 860 in
# 0.8 s.
MAX_STEP_STATES = 1 << 20


@kernel
def _placing_moves(neighbours, free, pieces, targets):
    """The fewest blank moves over the cells with free[cell] set that take the pieces, in cells
    `pieces` (the blank's first, then the tiles'), to cells `targets` (ANY_CELL: anywhere), every
    other tile counting as alike. Returns (moves as U/D/L/R codes, found, (abstract states
    expanded, children generated)); found is False, with no moves, when no free path exists."""
    n_cells = free.shape[0]
    local = np.full(n_cells, -1, dtype=np.int64)
    cells = np.flatnonzero(free)
    for i in range(cells.shape[0]):
        local[cells[i]] = i
    n_free, n_pieces = cells.shape[0], pieces.shape[0]
    weight = np.empty(n_pieces, dtype=np.int64)  # a piece's place value in the abstract state's number
    weight[0] = 1
    for i in range(1, n_pieces):
        weight[i] = weight[i - 1] * n_free
    size = weight[n_pieces - 1] * n_free
    parent = np.full(size, UNSEEN, dtype=np.int64)
    move = np.zeros(size, dtype=np.int8)
    queue = np.empty(size, dtype=np.int64)
    first = 0
    for i in range(n_pieces):
        first += local[pieces[i]] * weight[i]
    parent[first] = NO_PARENT
    queue[0] = first
    head, tail, generated = 0, 1, 0
    at = np.empty(n_pieces, dtype=np.int64)
    while head < tail:
        code = queue[head]
        head += 1
        placed = True
        for i in range(n_pieces):
            at[i] = (code // weight[i]) % n_free
            if targets[i] != ANY_CELL and at[i] != local[targets[i]]:
                placed = False
        if placed:
            return path_moves(parent, move, code), True, (head, generated)
        blank = cells[at[0]]
        for direction in range(N_DIRECTIONS):
            target = neighbours[blank, direction]
            if target < 0 or local[target] < 0:
                continue
            to = local[target]
            generated += 1
            child = code + (to - at[0]) * weight[0]
            for i in range(1, n_pieces):
                if at[i] == to:  # that tile slides into the blank's cell
                    child += (at[0] - to) * weight[i]
            if parent[child] == UNSEEN:
                parent[child] = code
                move[child] = direction
                queue[tail] = child
                tail += 1
    return np.empty(0, dtype=np.int8), False, (head, generated)


def steps(puzzle: Puzzle) -> list[list[int]]:
    """The goal cells each step fills, in order (module docstring): each line's cells in groups
    (line_groups), then the last 2x2 region's three tile cells and its blank's."""
    top, bottom, left, right = 0, puzzle.rows - 1, 0, puzzle.cols - 1
    blank_row, blank_col = divmod(puzzle.blank_goal_cell, puzzle.cols)
    found: list[list[int]] = []
    while bottom - top > 1 or right - left > 1:
        free = (bottom - top + 1) * (right - left + 1)
        if bottom - top >= right - left:
            row = top if blank_row != top else bottom
            line = [row * puzzle.cols + col for col in range(left, right + 1)]
            top, bottom = (top + 1, bottom) if row == top else (top, bottom - 1)
        else:
            col = left if blank_col != left else right
            line = [row * puzzle.cols + col for row in range(top, bottom + 1)]
            left, right = (left + 1, right) if col == left else (left, right - 1)
        found.extend(line_groups(line, free))
    last = [row * puzzle.cols + col for row in (top, bottom) for col in (left, right)]
    found.append([cell for cell in last if cell != puzzle.blank_goal_cell] + [puzzle.blank_goal_cell])
    return found


def line_groups(line: list[int], free: int) -> list[list[int]]:
    """The cells of `line` in consecutive groups placed by one step each, in a region of `free`
    cells: k at a time, for the largest k from 2 with free^(k + 1) <= MAX_STEP_STATES, the last
    group of two at least (no group larger than k)."""
    size = 2
    while free ** (size + 2) <= MAX_STEP_STATES:
        size += 1
    groups = [line[i:i + size] for i in range(0, len(line), size)]
    if len(groups[-1]) == 1:  # the line's last tile goes with the one before it (a line has two at least)
        groups[-2:] = [groups[-2][:-1], groups[-2][-1:] + groups[-1]]
    return groups


def staged_moves(puzzle: Puzzle, start: np.ndarray, deadline: float | None = None) -> tuple[list[int] | None, int, int]:
    """(the moves, as U/D/L/R codes, that take the solvable state `start` to the goal step by
    step with their loops cut out, the abstract states the steps expanded, their children); the
    moves are None if time.perf_counter() passed `deadline` (None: no deadline) before a step."""
    board = np.array(start, dtype=np.uint8)
    free = np.ones(puzzle.n_cells, dtype=np.bool_)
    moves: list[int] = []
    expanded = generated = 0
    blank_target = puzzle.blank_goal_cell
    for cells in steps(puzzle):
        if deadline is not None and time.perf_counter() > deadline:
            return None, expanded, generated
        tiles = [int(puzzle.goal[cell]) for cell in cells if cell != blank_target]
        pieces = [int(np.flatnonzero(board == tile)[0]) for tile in (0, *tiles)]
        # only the last step holds the blank's goal cell: the lines peeled before it avoid it
        targets = [blank_target if blank_target in cells else ANY_CELL] + [int(puzzle.goal_cell[tile]) for tile in tiles]
        step, found, counts = _placing_moves(puzzle.neighbours, free, np.array(pieces, dtype=np.int64),
                                            np.array(targets, dtype=np.int64))
        if not found:
            raise SolutionError(f"the staged solver found no way to place tiles {tiles}: a bug, the step always has one")
        expanded, generated = expanded + int(counts[0]), generated + int(counts[1])
        _replay_codes(puzzle, board, step)
        moves.extend(int(code) for code in step)
        free[cells] = False
    return without_loops(puzzle, start, moves), expanded, generated


def _replay_codes(puzzle: Puzzle, board: np.ndarray, codes) -> None:
    """Apply the blank moves `codes` (U/D/L/R codes, all legal) to `board` in place."""
    blank = int(np.flatnonzero(board == 0)[0])
    for code in codes:
        target = int(puzzle.neighbours[blank, code])
        board[blank], board[target] = board[target], 0
        blank = target


def without_loops(puzzle: Puzzle, start: np.ndarray, moves: list[int]) -> list[int]:
    """`moves` (legal U/D/L/R codes from `start`) with every stretch between two visits of one
    state cut out: the same end, no state met twice, never longer."""
    board = np.array(start, dtype=np.uint8)
    path = [board.tobytes()]
    at = {path[0]: 0}
    kept: list[int] = []
    for code in moves:
        _replay_codes(puzzle, board, (code,))
        key = board.tobytes()
        earlier = at.get(key)
        if earlier is None:
            kept.append(code)
            at[key] = len(path)
            path.append(key)
            continue
        for cut in path[earlier + 1:]:
            del at[cut]
        del path[earlier + 1:], kept[earlier:]
    return kept


def prepare(puzzle: Puzzle) -> None:
    """Compile (or load) the steps' kernel before any clock starts."""
    free = np.ones(puzzle.n_cells, dtype=np.bool_)
    corner = np.array([puzzle.blank_goal_cell], dtype=np.int64)
    _placing_moves(puzzle.neighbours, free, corner, corner)


def staged_search(puzzle: Puzzle, start: np.ndarray, heuristic=None, *, time_limit: float | None = None) -> SearchResult:
    """A solution from `start` by the staged solver (module docstring), replayed and checked;
    UNSOLVABLE when the goal cannot be reached; GAVE_UP when `time_limit` seconds pass before a
    step (each takes milliseconds). Never marked optimal; its lower bound is 0. `heuristic` is
    not used (the registry passes None)."""
    start = checked_start(puzzle, start)
    if not puzzle.is_solvable(start):
        return unsolvable_result("staged", "zero")
    prepare(puzzle)
    began = time.perf_counter()
    moves, expanded, generated = staged_moves(puzzle, start, None if time_limit is None else began + time_limit)
    solution = None if moves is None else moves_to_text(np.array(moves, dtype=np.int8))
    result = search_result("staged", "zero", solution, optimal=False, nodes_expanded=expanded,
                           nodes_generated=generated, seconds=time.perf_counter() - began, initial_h=0,
                           reason="" if time_limit is None else time_limit_reason(time_limit))
    return verified(puzzle, start, result)


register(Search(
    "staged", "staged: the board solved a row or column at a time, each step by exact breadth-first search over the "
    "tiles it places; answers at once on every board, no bound on the length", staged_search, informed=False,
    family="uninformed", options=(TIME_LIMIT,),
))
