"""depth_first.py -- the cost-bounded depth-first kernel behind IDA*, IDDFS and depth-limited DFS.

One pass explores every path from the start whose nodes all have f = g + h <= bound, in
move order U, D, L, R, never undoing the previous move. It keeps one board, changed in place
(apply a move on the way down, undo it on the way up), an explicit stack of the next move to
try at each depth, and the heuristic updated incrementally from the parent's value.

IDA* repeats passes with the bound raised to the smallest f that exceeded it; with the zero
heuristic that is iterative-deepening DFS, and a single pass is depth-limited DFS.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from solvers.heuristics import Heuristic
from solvers.heuristics.dispatch import h_child, h_start
from solvers.jit import kernel
from solvers.puzzle import Puzzle
from solvers.search.interrupt import interruptible
from solvers.search.result import Iteration, SearchResult, moves_to_text, search_result

EXHAUSTED, FOUND, LIMIT_REACHED = 0, 1, 2
NO_BOUND = np.iinfo(np.int64).max
STOP_CHECK_INTERVAL = 1 << 16
MAX_TIMER = 1e9  # seconds; a longer time limit is no limit (and would overflow the timer)
N_DIRECTIONS = 4


@kernel
def _bounded_pass(board, bound, node_limit, neighbours, goal, leaves, n_columns, moves, stop, root_forbidden):
    """Depth-first pass with f <= bound from `board` (restored on EXHAUSTED).

    `leaves` and `n_columns` are a Heuristic's (solvers/heuristics); the pass allocates its
    own scratch. `moves` must hold at least `bound` entries; on FOUND its first `length`
    entries are the solution and `board` is the goal. `root_forbidden` is a move not to try at
    the root (the move back to the root's parent when the root is inside a larger tree, -1 for
    none; always passed, so that all callers share one compiled kernel). `node_limit` caps
    nodes expanded (0 = no cap); setting stop[0] (from another thread) ends the pass within
    STOP_CHECK_INTERVAL expansions.
    Returns (outcome, length, next_bound, nodes_expanded, nodes_generated), where next_bound
    is the smallest f above `bound` that was cut off (NO_BOUND if none).
    """
    capacity = bound + 2
    next_move = np.zeros(capacity, dtype=np.int8)
    scratch = np.zeros((capacity, n_columns), dtype=np.int64)
    position = np.zeros(board.shape[0], dtype=np.int64)
    blank = 0
    while board[blank] != 0:
        blank += 1
    h_start(leaves, board, position, scratch, 0)
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
            tile = board[back]
            board[blank] = tile
            board[back] = 0
            position[tile] = blank
            blank = back
            continue
        next_move[depth] = move + 1
        if move == (moves[depth - 1] ^ 1 if depth > 0 else root_forbidden):
            continue
        target = neighbours[blank, move]
        if target < 0:
            continue
        tile = board[target]
        board[blank] = tile
        board[target] = 0
        position[tile] = blank
        h = h_child(leaves, board, position, scratch, depth, tile, target, blank)
        generated += 1
        f = depth + 1 + h
        if f > bound:
            if f < next_bound:
                next_bound = f
            board[target] = tile
            board[blank] = 0
            position[tile] = target
            continue
        moves[depth] = move
        blank = target
        depth += 1
        if h == 0 and _is_goal(board, goal):
            return FOUND, depth, next_bound, expanded, generated
        if (node_limit > 0 and expanded >= node_limit) or (expanded % STOP_CHECK_INTERVAL == 0 and stop[0]):
            return LIMIT_REACHED, 0, next_bound, expanded, generated
        next_move[depth] = 0
        expanded += 1


@kernel
def _is_goal(board, goal):
    for cell in range(board.shape[0]):
        if board[cell] != goal[cell]:
            return False
    return True


def warmed_up_pass(puzzle: Puzzle, heuristic: Heuristic):
    """The bounded-pass kernel for `heuristic`, compiled (or loaded) by a pass of bound 0 from
    the goal, and the heuristic's own kernel by one evaluation: nothing left to compile."""
    bounded_pass = heuristic.kernel(_bounded_pass)
    goal = puzzle.goal.copy()
    heuristic(goal)
    bounded_pass(goal, 0, 1, puzzle.neighbours, puzzle.goal, heuristic.leaves, heuristic.n_columns,
                 np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.uint8), -1)
    return bounded_pass


def start_timer(stop: np.ndarray, time_limit: float | None, then=None) -> threading.Timer | None:
    """A started timer that sets stop[0] after `time_limit` seconds (None for no limit) and then
    calls `then()` if given; cancel it when done."""
    if time_limit is None or time_limit >= MAX_TIMER:
        return None

    def expire():
        stop.fill(1)
        if then is not None:
            then()

    timer = threading.Timer(time_limit, expire)
    timer.daemon = True
    timer.start()
    return timer


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
    passes and `time_limit` caps seconds; either ends the search with status GAVE_UP.
    Ctrl-C stops the kernel within a fraction of a second and raises KeyboardInterrupt.
    The caller has checked that the goal is reachable. The reported seconds are the search's:
    the kernels are compiled (or loaded from numba's cache) before the clock starts.
    """
    board = np.array(start, dtype=np.uint8)
    stop = np.zeros(1, dtype=np.uint8)
    args = (puzzle.neighbours, puzzle.goal, heuristic.leaves, heuristic.n_columns)
    bounded_pass = warmed_up_pass(puzzle, heuristic)
    began = time.perf_counter()
    initial_h = heuristic(board)
    timer = start_timer(stop, time_limit)
    bound = initial_h if only_bound is None else only_bound
    passes: list[Iteration] = []
    expanded = generated = 0
    solution = "" if puzzle.is_goal(board) else None
    reason = ""
    while solution is None:
        moves = np.zeros(bound + 1, dtype=np.int8)
        budget = node_limit - expanded if node_limit else 0
        if node_limit and budget <= 0:
            reason = f"node limit of {node_limit:,} expanded nodes reached"
            break
        outcome, length, next_bound, n_exp, n_gen = interruptible(bounded_pass, (board, bound, budget, *args, moves, stop, -1), stop)
        expanded += n_exp
        generated += n_gen
        passes.append(Iteration(bound, n_exp, n_gen))
        if outcome == FOUND:
            solution = moves_to_text(moves[:length])
            break
        if stop[0]:
            reason = f"time limit of {time_limit:g} s reached"
            break
        if outcome == LIMIT_REACHED:
            reason = f"node limit of {node_limit:,} expanded nodes reached"
            break
        if only_bound is not None or next_bound == NO_BOUND:
            reason = f"no solution within {bound} moves"
            break
        bound = int(next_bound)
    if timer is not None:
        timer.cancel()
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
