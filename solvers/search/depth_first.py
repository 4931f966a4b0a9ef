"""depth_first.py -- the cost-bounded depth-first kernel behind IDA*, IDDFS and depth-limited DFS.

One pass explores every path from the start whose nodes all have f = g + h <= bound, in
move order U, D, L, R, skipping the moves that a move-pruning automaton forbids
(move_pruning.py: none, the move back to the parent, or Taylor & Korf's machine). It keeps one
board, changed in place (apply a move on the way down, undo it on the way up), an explicit
stack of the next move to try and of the automaton's state at each depth, and the heuristic
updated incrementally from the parent's value.

IDA* repeats passes with the bound raised to the smallest f that exceeded it; with the zero
heuristic that is iterative-deepening DFS, and a single pass is depth-limited DFS. A pass
stops at the first goal. To count a last iteration that does not depend on the move order,
`run_pass` then runs it again to its end with a goal that no state matches: every node with
f <= bound is expanded (goals too) and counted, and the goal found first is still the
solution. (Completing the pass inside the kernel would cost every search a few per cent.)
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
from solvers.search.move_pruning import PRUNED, automaton
from solvers.search.result import Iteration, SearchResult, moves_to_text, search_result

EXHAUSTED, FOUND, LIMIT_REACHED = 0, 1, 2
NO_BOUND = np.iinfo(np.int64).max
STOP_CHECK_INTERVAL = 1 << 16
MAX_TIMER = 1e9  # seconds; a longer time limit is no limit (and would overflow the timer)
N_DIRECTIONS = 4


@kernel
def _bounded_pass(board, bound, node_limit, neighbours, goal, leaves, n_columns, moves, stop, transitions, root_state):
    """Depth-first pass with f <= bound from `board` (restored on EXHAUSTED).

    `leaves` and `n_columns` are a Heuristic's (solvers/heuristics); the pass allocates its
    own scratch. `moves` must hold at least `bound` entries; on FOUND its first `length`
    entries are the solution and `board` is the goal. `transitions` is a move-pruning automaton
    (move_pruning.py) and `root_state` its state at the root (0, or the state of the path to
    the root when the root is inside a larger tree). `node_limit` caps nodes expanded (0 = no
    cap); setting stop[0] (from another thread) ends the pass within STOP_CHECK_INTERVAL
    expansions. Returns (outcome, length, next_bound, nodes_expanded, nodes_generated), where
    next_bound is the smallest f above `bound` that was cut off (NO_BOUND if none).
    """
    capacity = bound + 2
    next_move = np.zeros(capacity, dtype=np.int8)
    offsets = _row_offsets(transitions)
    state = np.zeros(capacity, dtype=np.int64)  # the automaton's state at each depth, as a row offset
    current = np.int64(root_state) * N_DIRECTIONS
    state[0] = current
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
            current = state[depth]
            back = neighbours[blank, moves[depth] ^ 1]
            tile = board[back]
            board[blank] = tile
            board[back] = 0
            position[tile] = blank
            blank = back
            continue
        next_move[depth] = move + 1
        following = offsets[np.uintp(current + move)]
        if following == PRUNED:
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
        state[depth] = following
        current = following
        if h == 0 and _is_goal(board, goal):
            return FOUND, depth, next_bound, expanded, generated
        if (node_limit > 0 and expanded >= node_limit) or (expanded % STOP_CHECK_INTERVAL == 0 and stop[0]):
            return LIMIT_REACHED, 0, next_bound, expanded, generated
        next_move[depth] = 0
        expanded += 1


@kernel
def _row_offsets(transitions):
    """`transitions` flattened, each next state given as the offset of its row (state * 4), PRUNED
    kept: the kernel finds a child's state at offsets[offset + move], one addition and one load."""
    offsets = np.empty(transitions.size, dtype=np.int64)
    for state in range(transitions.shape[0]):
        for move in range(N_DIRECTIONS):
            following = transitions[state, move]
            offsets[state * N_DIRECTIONS + move] = PRUNED if following == PRUNED else following * N_DIRECTIONS
    return offsets


@kernel
def _is_goal(board, goal):
    for cell in range(board.shape[0]):
        if board[cell] != goal[cell]:
            return False
    return True


def warmed_up_pass(puzzle: Puzzle, heuristic: Heuristic) -> None:
    """Compile (or load) the bounded-pass kernel for `heuristic` by a pass of bound 0 from the
    goal, and the heuristic's own kernel by one evaluation: nothing left to compile."""
    goal = puzzle.goal.copy()
    heuristic(goal)
    heuristic.kernel(_bounded_pass)(goal, 0, 1, puzzle.neighbours, puzzle.goal, heuristic.leaves, heuristic.n_columns,
                                    np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.uint8), automaton("none"), 0)


def never_goal(puzzle: Puzzle) -> np.ndarray:
    """A goal array that no state of `puzzle` equals: a pass with it explores its whole tree."""
    return np.full(puzzle.n_cells, puzzle.n_cells, dtype=np.uint8)


def run_pass(puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray, bound: int, node_limit: int, stop: np.ndarray,
             transitions: np.ndarray, root_state: int, complete: bool) -> tuple[int, np.ndarray, int, int, int]:
    """One pass of the kernel from `start` (not changed): (outcome, solution moves, next bound,
    expanded, generated), the moves empty unless FOUND.

    With `complete`, a pass that finds the goal is run again to its end with `never_goal`, so
    that its counters include every node with f <= bound, goals expanded like any node: the
    result holds the first pass's moves (the first solution in move order) and the second's
    counters and next bound, or LIMIT_REACHED if `node_limit` or `stop` ends the second.
    """
    bounded_pass = heuristic.kernel(_bounded_pass)
    shared = (puzzle.neighbours, puzzle.goal, heuristic.leaves, heuristic.n_columns)
    moves = np.zeros(bound + 1, dtype=np.int8)
    outcome, length, next_bound, expanded, generated = bounded_pass(
        start.copy(), bound, node_limit, *shared, moves, stop, transitions, root_state
    )
    if complete and outcome == FOUND:
        shared = (puzzle.neighbours, never_goal(puzzle), heuristic.leaves, heuristic.n_columns)
        rerun, _, next_bound, expanded, generated = bounded_pass(
            start.copy(), bound, node_limit, *shared, np.zeros(bound + 1, dtype=np.int8), stop, transitions, root_state
        )
        outcome = FOUND if rerun == EXHAUSTED else LIMIT_REACHED
    return outcome, moves[:length] if outcome == FOUND else moves[:0], next_bound, expanded, generated


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
    prune: str,
    full_last_iteration: bool = False,
    only_bound: int | None = None,
    node_limit: int = 0,
    time_limit: float | None = None,
) -> SearchResult:
    """Run bounded passes from the heuristic's value upwards until one finds the goal.

    `prune` names the move-pruning automaton (move_pruning.PRUNE_MODES). With
    `full_last_iteration` the pass that finds the goal is completed (`run_pass`): its counters
    do not depend on the move order; a limit that ends it gives up. With `only_bound`, run the
    single pass with that bound (depth-limited search; the solution, if any, is not
    necessarily shortest). `node_limit` caps nodes expanded over all
    passes and `time_limit` caps seconds; either ends the search with status GAVE_UP.
    Ctrl-C stops the kernel within a fraction of a second and raises KeyboardInterrupt.
    The caller has checked that the goal is reachable. The reported seconds are the search's:
    the kernels are compiled (or loaded from numba's cache) before the clock starts.
    """
    board = np.array(start, dtype=np.uint8)
    stop = np.zeros(1, dtype=np.uint8)
    transitions = automaton(prune)
    warmed_up_pass(puzzle, heuristic)
    began = time.perf_counter()
    initial_h = heuristic(board)
    timer = start_timer(stop, time_limit)
    bound = initial_h if only_bound is None else only_bound
    passes: list[Iteration] = []
    expanded = generated = 0
    solution = "" if puzzle.is_goal(board) else None
    reason = ""
    while solution is None:
        budget = node_limit - expanded if node_limit else 0
        if node_limit and budget <= 0:
            reason = f"node limit of {node_limit:,} expanded nodes reached"
            break
        outcome, moves, next_bound, n_exp, n_gen = interruptible(
            run_pass, (puzzle, heuristic, board, bound, budget, stop, transitions, 0, full_last_iteration), stop
        )
        expanded += n_exp
        generated += n_gen
        passes.append(Iteration(bound, n_exp, n_gen))
        if outcome == FOUND:
            solution = moves_to_text(moves)
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
