"""depth_first.py -- the cost-bounded depth-first kernel behind IDA*, IDDFS and depth-limited DFS.

One pass explores every path from the start whose nodes all have f = g + h <= bound, in
move order U, D, L, R, never undoing the previous move. It keeps one board, changed in place
(apply a move on the way down, undo it on the way up), an explicit stack of the next move to
try at each depth, and the heuristic updated incrementally from the parent's value.

IDA* repeats passes with the bound raised to the smallest f that exceeded it; with the zero
heuristic that is iterative-deepening DFS, and a single pass is depth-limited DFS.
"""

from __future__ import annotations

import time

import numpy as np

from solvers.heuristics import Heuristic, _h_full, _move_delta
from solvers.jit import kernel
from solvers.puzzle import Puzzle
from solvers.search.result import Iteration, SearchResult, moves_to_text, search_result

EXHAUSTED, FOUND, LIMIT_REACHED = 0, 1, 2
NO_BOUND = np.iinfo(np.int64).max
N_DIRECTIONS = 4


@kernel
def _bounded_pass(board, bound, node_limit, neighbours, goal, kind, tile_cost, goal_cell, rows, cols, moves):
    """Depth-first pass with f <= bound from `board` (restored on return unless FOUND).

    `moves` must hold at least `bound` entries; on FOUND its first `length` entries are the
    solution and `board` is the goal. `node_limit` caps nodes expanded (0 = no cap).
    Returns (outcome, length, next_bound, nodes_expanded, nodes_generated), where next_bound
    is the smallest f above `bound` that was cut off (NO_BOUND if none).
    """
    capacity = bound + 1
    next_move = np.zeros(capacity, dtype=np.int8)
    h_at = np.zeros(capacity, dtype=np.int64)
    blank = 0
    while board[blank] != 0:
        blank += 1
    h_at[0] = _h_full(board, kind, tile_cost, goal_cell, rows, cols)
    next_bound = NO_BOUND
    expanded = 1
    generated = 0
    depth = 0
    while True:
        move = next_move[depth]
        if move == N_DIRECTIONS:
            if depth == 0:
                return EXHAUSTED, 0, next_bound, expanded, generated
            depth -= 1
            back = neighbours[blank, moves[depth] ^ 1]
            board[blank] = board[back]
            board[back] = 0
            blank = back
            continue
        next_move[depth] = move + 1
        if depth > 0 and move == moves[depth - 1] ^ 1:
            continue
        target = neighbours[blank, move]
        if target < 0:
            continue
        tile = board[target]
        board[blank] = tile
        board[target] = 0
        h = h_at[depth] + _move_delta(board, tile, target, blank, kind, tile_cost, goal_cell, rows, cols)
        generated += 1
        f = depth + 1 + h
        if f > bound:
            if f < next_bound:
                next_bound = f
            board[target] = tile
            board[blank] = 0
            continue
        moves[depth] = move
        blank = target
        depth += 1
        if h == 0 and _is_goal(board, goal):
            return FOUND, depth, next_bound, expanded, generated
        if node_limit > 0 and expanded >= node_limit:
            return LIMIT_REACHED, 0, next_bound, expanded, generated
        h_at[depth] = h
        next_move[depth] = 0
        expanded += 1


@kernel
def _is_goal(board, goal):
    for cell in range(board.shape[0]):
        if board[cell] != goal[cell]:
            return False
    return True


def deepening_search(
    puzzle: Puzzle,
    start: np.ndarray,
    heuristic: Heuristic,
    algorithm: str,
    *,
    only_bound: int | None = None,
    node_limit: int = 0,
    time_limit: float | None = None,
) -> SearchResult:
    """Run bounded passes from the heuristic's value upwards until one finds the goal.

    With `only_bound`, run the single pass with that bound (depth-limited search; the
    solution, if any, is not necessarily shortest). `node_limit` caps nodes expanded over all
    passes and `time_limit` (seconds) is checked between passes; either ends the search with
    status GAVE_UP. The caller has checked that the goal is reachable.
    """
    began = time.perf_counter()
    board = np.array(start, dtype=np.uint8)
    args = (puzzle.neighbours, puzzle.goal, *heuristic.kernel_args())
    initial_h = heuristic(board)
    bound = initial_h if only_bound is None else only_bound
    passes: list[Iteration] = []
    expanded = generated = 0
    solution = "" if puzzle.is_goal(board) else None
    reason = ""
    while solution is None:
        moves = np.zeros(bound + 1, dtype=np.int8)
        budget = node_limit - expanded if node_limit else 0
        outcome, length, next_bound, n_exp, n_gen = _bounded_pass(board, bound, budget, *args, moves)
        expanded += n_exp
        generated += n_gen
        passes.append(Iteration(bound, n_exp, n_gen))
        if outcome == FOUND:
            solution = moves_to_text(moves[:length])
            break
        if outcome == LIMIT_REACHED:
            reason = f"node limit of {node_limit:,} expanded nodes reached"
            break
        if only_bound is not None or next_bound == NO_BOUND:
            reason = f"no solution within {bound} moves"
            break
        if time_limit is not None and time.perf_counter() - began > time_limit:
            reason = f"time limit of {time_limit:g} s reached"
            break
        bound = int(next_bound)
    return search_result(
        algorithm,
        heuristic.name,
        solution,
        optimal=only_bound is None,
        nodes_expanded=expanded,
        nodes_generated=generated,
        seconds=time.perf_counter() - began,
        initial_h=initial_h,
        reason=reason,
        iterations=tuple(passes),
    )
