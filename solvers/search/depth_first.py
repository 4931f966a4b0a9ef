"""depth_first.py -- the cost-bounded depth-first kernel behind IDA*, IDDFS and depth-limited DFS.

One pass explores every path from the start whose nodes all have f = g + h <= bound, in
move order U, D, L, R, skipping the moves that a move-pruning automaton forbids
(move_pruning.py: none, the move back to the parent, or Taylor & Korf's machine). It keeps one
board, changed in place (apply a move on the way down, undo it on the way up: the move of
solvers/moves.py, written out here because this loop is the hottest of the toolkit and the
call, though inlined by LLVM, cost it a few per cent; tests/test_heuristic_kinds.py checks that
`board` and `position` stay exact as in every other search), an explicit
stack of the next move to try and of the automaton's state at each depth, and the heuristic
updated incrementally from the parent's value.

IDA* repeats passes with the bound raised to the smallest f that exceeded it; with the zero
heuristic that is iterative-deepening DFS, and a single pass is depth-limited DFS. Weighted
IDA* (wida.py) bounds f = a * g + b * h with integer weights (a, b) instead of g + h. A pass
stops at the first goal. To count a last iteration that does not depend on the move order,
`run_pass` then runs it again to its end with a goal that no state matches: every node with
f <= bound is expanded (goals too) and counted, and the goal found first is still the
solution. (Completing the pass inside the kernel would cost every search a few per cent.)
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from solvers.heuristics import Heuristic
from solvers.heuristics.dispatch import h_child_at_least, h_start
from solvers.jit import inline_kernel, kernel
from solvers.puzzle import Puzzle
from solvers.search.interrupt import interruptible, start_timer
from solvers.search.move_pruning import PRUNED, automaton
from solvers.search.result import (
    Iteration, SearchResult, moves_to_text, node_limit_reason, search_result, time_limit_reason,
)

EXHAUSTED, FOUND, LIMIT_REACHED = 0, 1, 2
NO_BOUND = np.iinfo(np.int64).max
STOP_CHECK_INTERVAL = 1 << 16
N_DIRECTIONS = 4


@inline_kernel
def f_of(rules, g, h):
    """f of a node at depth `g` whose h is `h`, under the kernel's `rules`: a * g + b * h with
    weights (a, b), else g + h."""
    return rules[0] * g + rules[1] * h if isinstance(rules, tuple) else g + h


@inline_kernel
def least_h(rules, g, f):
    """The least h at which a node at depth `g` has f_of(rules, g, h) >= `f`."""
    return -((rules[0] * g - f) // rules[1]) if isinstance(rules, tuple) else f - g


@kernel
def _bounded_pass(board, bound, node_limit, neighbours, goal, leaves, n_columns, moves, stop, transitions, root_state,
                  rules):
    """Depth-first pass with f <= bound from `board` (restored on EXHAUSTED).

    `leaves` and `n_columns` are a Heuristic's (solvers/heuristics); the pass allocates its
    own scratch. `moves` must hold at least `bound` entries; on FOUND its first `length` entries
    are the solution and `board` is the goal: a node is the goal where its own h is 0 and its
    board is `goal`. `transitions` is a move-pruning automaton (move_pruning.py) and
    `root_state` its state at the root (0, or the state of the path to the root when the root
    is inside a larger tree). `node_limit` caps nodes expanded (0 = no cap); setting stop[0]
    (from another thread) ends the pass within STOP_CHECK_INTERVAL expansions.

    `rules` (kernel_rules) is None for IDA*'s own steps alone, integer weights (a, b) with
    1 <= a <= b to bound f = a * g + b * h instead of g + h (the bounds in its units), or True
    for BPMX (Felner et al.'s bidirectional pathmax, one level): a child's h is at least its
    parent's h - 1, a child whose h exceeds its parent's by more than one raises the parent's h
    to the child's h - 1 (on generation, and again when the child's subtree has been searched
    and may have raised it), and a parent whose raised f exceeds the bound is left at once; its
    f offers the next bound. BPMX's two rules keep h admissible on a graph of unit edges, and neither
    changes anything with a consistent heuristic. numba decides each `isinstance(rules, ...)`
    when it compiles and prunes the branches it rules out, so that the kernel compiled for one
    kind of `rules` has no trace of the others' steps.

    Returns (outcome, length, next_bound, nodes_expanded, nodes_generated, bpmx_raises,
    bpmx_cutoffs), where next_bound is the smallest f above `bound` that was cut off (NO_BOUND
    if none). Without BPMX a child's h is asked only up to the value that cuts it off without
    lowering next_bound (dispatch.h_child_at_least; `least_h` translates that f into h): a
    maximum over lookups stops at the first one that cuts it, and every count and bound stays
    that of the exact h.
    """
    # the deepest node within the bound (h = 0 at best) is at depth bound // a (bound unweighted)
    capacity = (bound // rules[0] if isinstance(rules, tuple) else bound) + 2
    next_move = np.zeros(capacity, dtype=np.int8)
    offsets = row_offsets(transitions)
    state = np.zeros(capacity, dtype=np.int64)  # the automaton's state at each depth, as a row offset
    current = np.int64(root_state) * N_DIRECTIONS
    state[0] = current
    scratch = np.zeros((capacity, n_columns), dtype=np.int64)
    position = np.zeros(board.shape[0], dtype=np.int64)
    h_of = np.zeros(capacity, dtype=np.int64)  # h at each depth of the path, raised by BPMX
    blank = 0
    while board[blank] != 0:
        blank += 1
    h_of[0] = h_start(leaves, board, position, scratch, 0)
    next_bound = NO_BOUND
    expanded = 1
    generated = 0
    raises = 0
    cutoffs = 0
    depth = 0
    while True:
        move = next_move[depth]
        if move == N_DIRECTIONS:
            if depth == 0:
                return EXHAUSTED, 0, next_bound, expanded, generated, raises, cutoffs
            depth -= 1
            current = state[depth]
            back = neighbours[blank, moves[depth] ^ 1]
            tile = board[back]
            board[blank] = tile
            board[back] = 0
            position[tile] = blank
            position[0] = back
            blank = back
            if isinstance(rules, bool):
                if h_of[depth + 1] - 1 > h_of[depth]:  # the child's subtree raised its h
                    h_of[depth] = h_of[depth + 1] - 1
                    raises += 1
                    if depth + h_of[depth] > bound:
                        next_bound = min(next_bound, depth + h_of[depth])
                        next_move[depth] = N_DIRECTIONS
                        cutoffs += 1
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
        position[0] = target
        # h is needed only below the value that cuts the child and keeps next_bound; BPMX raises
        # the parent by the child's exact h (one call either way: two cost reference counting)
        if isinstance(rules, tuple):  # the least h with f above the bound, and with f >= next_bound
            enough = max(least_h(rules, depth + 1, bound + 1), least_h(rules, depth + 1, next_bound))
        else:  # written out: an inlined call changes IDA*'s machine code
            enough = max(bound - depth, next_bound - depth - 1) if rules is None else NO_BOUND
        h = h_child_at_least(leaves, board, position, scratch, depth, tile, target, blank, enough)
        own_h = h  # BPMX may raise h above 0 at the goal: the goal test asks the child's own
        generated += 1
        if isinstance(rules, bool):
            if h < h_of[depth] - 1:
                h = h_of[depth] - 1
            elif h - 1 > h_of[depth]:
                h_of[depth] = h - 1
                raises += 1
                if depth + h_of[depth] > bound:  # the parent is cut off: leave it
                    next_bound = min(next_bound, depth + h_of[depth])
                    next_move[depth] = N_DIRECTIONS
                    cutoffs += 1
                    board[target] = tile
                    board[blank] = 0
                    position[tile] = target
                    position[0] = blank
                    continue
        f = f_of(rules, depth + 1, h)
        if f > bound:
            if f < next_bound:
                next_bound = f
            board[target] = tile
            board[blank] = 0
            position[tile] = target
            position[0] = blank
            continue
        moves[depth] = move
        blank = target
        depth += 1
        state[depth] = following
        current = following
        if isinstance(rules, bool):
            h_of[depth] = h
        if own_h == 0 and is_goal(board, goal):
            return FOUND, depth, next_bound, expanded, generated, raises, cutoffs
        if (node_limit > 0 and expanded >= node_limit) or (expanded % STOP_CHECK_INTERVAL == 0 and stop[0]):
            return LIMIT_REACHED, 0, next_bound, expanded, generated, raises, cutoffs
        next_move[depth] = 0
        expanded += 1


@kernel
def row_offsets(transitions):
    """`transitions` flattened, each next state given as the offset of its row (state * 4), PRUNED
    kept: the kernel finds a child's state at offsets[offset + move], one addition and one load."""
    offsets = np.empty(transitions.size, dtype=np.int64)
    for state in range(transitions.shape[0]):
        for move in range(N_DIRECTIONS):
            following = transitions[state, move]
            offsets[state * N_DIRECTIONS + move] = PRUNED if following == PRUNED else following * N_DIRECTIONS
    return offsets


@kernel
def is_goal(board, goal):
    for cell in range(board.shape[0]):
        if board[cell] != goal[cell]:
            return False
    return True


def warmed_up_pass(puzzle: Puzzle, heuristic: Heuristic, bpmx: bool = False,
                   weights: tuple[int, int] | None = None) -> None:
    """Compile (or load) the bounded-pass kernel for `heuristic` (with BPMX, `weights` or
    neither: kernel_rules) by a pass of bound 0 from the goal, and the heuristic's own kernel by
    one evaluation: nothing left to compile."""
    goal = puzzle.goal.copy()
    heuristic(goal)
    heuristic.kernel(_bounded_pass)(goal, 0, 1, puzzle.neighbours, puzzle.goal, heuristic.leaves, heuristic.n_columns,
                                    np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.uint8), automaton("none"), 0,
                                    kernel_rules(bpmx, weights))


def kernel_rules(bpmx: bool, weights: tuple[int, int] | None):
    """The kernel's `rules`: True for BPMX, the integer `weights` (a, b) for f = a * g + b * h,
    or None for neither, which numba compiles into three kernels, each without the steps of
    the others (a run-time flag cost the searches without BPMX 1-4 %: docs/developer/lab-notes.md,
    "BPMX in the search kernel"). The kernel does not weigh f and apply BPMX in one pass."""
    if bpmx and weights is not None:
        raise ValueError("a pass applies BPMX or weights, not both")
    return True if bpmx else weights


def uses_bpmx(heuristic: Heuristic, bpmx: bool | None) -> bool:
    """Whether a search with the `bpmx` option (None: automatic) applies BPMX: automatically
    where the heuristic may be inconsistent (BPMX never fires with a consistent one), unless a
    part of it is known to overestimate (BPMX would spread its overestimates to the neighbours)."""
    if bpmx is not None:
        return bool(bpmx)
    return not heuristic.consistent and not heuristic.overestimates


def bpmx_setting(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of BPMX for a search with the `bpmx` option: whether it applied it."""
    return {"bpmx": "yes" if uses_bpmx(heuristic, options["bpmx"]) else "no"}


def never_goal(puzzle: Puzzle) -> np.ndarray:
    """A goal array that no state of `puzzle` equals: a pass with it explores its whole tree.
    Read-only like the puzzle's goal, so that the kernel compiled (and warmed up) for one takes
    the other without compiling again."""
    goal = np.full(puzzle.n_cells, puzzle.n_cells, dtype=np.uint8)
    goal.setflags(write=False)
    return goal


class Pass(NamedTuple):
    """What one bounded pass found and counted (the moves empty unless FOUND)."""

    outcome: int
    moves: np.ndarray
    next_bound: int
    nodes_expanded: int
    nodes_generated: int
    bpmx_raises: int
    bpmx_cutoffs: int


class PassOptions(NamedTuple):
    """How a pass searches: the move-pruning automaton's transitions and its state at the root,
    BPMX on or off, whether a pass that finds the goal is completed, and the integer weights
    (a, b) of f = a * g + b * h (None: f = g + h; not with BPMX)."""

    transitions: np.ndarray
    root_state: int = 0
    bpmx: bool = False
    complete: bool = False
    weights: tuple[int, int] | None = None


def run_pass(puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray, bound: int, node_limit: int, stop: np.ndarray,
             options: PassOptions) -> Pass:
    """One pass of the kernel from `start` (not changed).

    With `options.complete`, a pass that finds the goal is run again to its end
    (`exhaustive_pass`), so that its counters include every node with f <= bound, goals
    expanded like any node: the result holds the first pass's moves (the first solution in move
    order) and the second's counters and next bound, or LIMIT_REACHED if `node_limit` or `stop`
    ends the second.
    """
    outcome, moves, *counters = _kernel_pass(puzzle, heuristic, start, bound, node_limit, stop, options, puzzle.goal)
    if options.complete and outcome == FOUND:
        rerun = exhaustive_pass(puzzle, heuristic, start, bound, node_limit, stop, options)
        outcome, counters = (FOUND if rerun.outcome == EXHAUSTED else LIMIT_REACHED), rerun[2:]
    return Pass(outcome, moves if outcome == FOUND else moves[:0], *(int(c) for c in counters))


def exhaustive_pass(puzzle: Puzzle, heuristic: Heuristic, start: np.ndarray, bound: int, node_limit: int,
                    stop: np.ndarray, options: PassOptions) -> Pass:
    """One pass from `start` (not changed) run to its end with `never_goal`: its counters hold
    every node with f <= bound, goals expanded like any node (EXHAUSTED, or LIMIT_REACHED)."""
    outcome, _, *counters = _kernel_pass(puzzle, heuristic, start, bound, node_limit, stop, options,
                                         never_goal(puzzle))
    return Pass(outcome, np.zeros(0, dtype=np.int8), *(int(c) for c in counters))


def _kernel_pass(puzzle, heuristic, start, bound, node_limit, stop, options, goal) -> tuple:
    """(outcome, moves found, next_bound, counters...) of the kernel's pass towards `goal`."""
    moves = np.zeros(bound + 1, dtype=np.int8)
    outcome, length, *counters = heuristic.kernel(_bounded_pass)(
        start.copy(), bound, node_limit, puzzle.neighbours, goal, heuristic.leaves, heuristic.n_columns, moves, stop,
        options.transitions, options.root_state, kernel_rules(options.bpmx, options.weights))
    return (outcome, moves[:length], *counters)


def deepening_search(
    puzzle: Puzzle,
    start: np.ndarray,
    heuristic: Heuristic,
    algorithm: str,
    *,
    prune: str,
    full_last_iteration: bool = False,
    bpmx: bool | None = False,
    only_bound: int | None = None,
    node_limit: int = 0,
    time_limit: float | None = None,
    weights: tuple[int, int] | None = None,
) -> SearchResult:
    """Run bounded passes from the heuristic's value upwards until one finds the goal.

    `prune` names the move-pruning automaton (move_pruning.PRUNE_MODES). With
    `full_last_iteration` the pass that finds the goal is completed (`run_pass`): its counters
    do not depend on the move order (unless BPMX fires: it cuts parents after some of their
    children); a limit that ends it gives up. `bpmx` applies BPMX (`_bounded_pass`; None:
    where the heuristic may be inconsistent, `uses_bpmx`). With `only_bound`, run the single
    pass with that bound (depth-limited search; the solution, if any, is not necessarily
    shortest). `node_limit` caps nodes expanded over all passes and `time_limit` caps seconds;
    either ends the search with status GAVE_UP. Ctrl-C stops the kernel within a fraction of a
    second and raises KeyboardInterrupt. With integer `weights` (a, b), 1 <= a <= b (and no
    BPMX), the passes bound f = a * g + b * h from b times the heuristic's value (weighted
    IDA*): with an admissible heuristic every node of a shortest path (length C) has
    f <= b * C, so no bound exceeds b * C before a solution of length L (a * L <= its bound)
    is found, and L <= (b / a) * C; the result is optimal only for a = b. The lower bound is
    the least C with b * C at least the last bound (the passes before found no path whose f
    stays below it). The caller has checked that the goal is reachable.
    The reported seconds are the search's: the kernels are compiled (or loaded from numba's
    cache) before the clock starts.
    """
    board = np.array(start, dtype=np.uint8)
    stop = np.zeros(1, dtype=np.uint8)
    options = PassOptions(automaton(prune), 0, uses_bpmx(heuristic, bpmx), full_last_iteration, weights)
    rules = kernel_rules(options.bpmx, weights)
    warmed_up_pass(puzzle, heuristic, options.bpmx, weights)
    began = time.perf_counter()
    initial_h = heuristic(board)
    timer = start_timer(stop, time_limit)
    try:
        # every pass in one worker thread: starting a thread per pass cost more than a whole
        # pass on a small board
        solution, reason, proven, passes, totals = interruptible(
            _deepen, (puzzle, heuristic, board, stop, options, rules, initial_h, only_bound, node_limit, time_limit),
            stop)
    finally:
        if timer is not None:
            timer.cancel()
    return search_result(
        algorithm,
        heuristic.name,
        solution,
        optimal=only_bound is None and heuristic.admissible and (weights is None or weights[0] == weights[1]),
        nodes_expanded=totals[0],
        nodes_generated=totals[1],
        seconds=time.perf_counter() - began,
        initial_h=initial_h,
        reason=reason,
        iterations=tuple(passes),
        bpmx=(options.bpmx, int(totals[2]), int(totals[3])),
        admissible=heuristic.admissible,
        proven=proven,
    )


def _deepen(puzzle: Puzzle, heuristic: Heuristic, board: np.ndarray, stop: np.ndarray, options: PassOptions, rules,
            initial_h: int, only_bound: int | None, node_limit: int, time_limit: float | None) -> tuple:
    """The passes of `deepening_search` (see there) until one finds the goal or a limit, `stop`
    or the last bound ends them: (solution or None, the reason it gave up, the proven lower
    bound, the passes, their totals of expanded, generated, BPMX raises and cutoffs)."""
    bound = f_of(rules, 0, initial_h) if only_bound is None else only_bound
    passes: list[Iteration] = []
    totals = np.zeros(4, dtype=np.int64)
    solution = "" if puzzle.is_goal(board) else None
    reason = ""
    proven = 0  # no solution is shorter than this
    while solution is None:
        budget = node_limit - int(totals[0]) if node_limit else 0
        if node_limit and budget <= 0:
            reason = node_limit_reason(node_limit, "expanded nodes")
            break
        if only_bound is None:
            # the passes before ruled out every path whose f stays below the bound, and a
            # shortest path's f stays within f_of(rules, 0, its length)
            proven = least_h(rules, 0, bound)
        done = run_pass(puzzle, heuristic, board, bound, budget, stop, options)
        totals += done[3:]
        passes.append(Iteration(bound, done.nodes_expanded, done.nodes_generated))
        if done.outcome == FOUND:
            solution = moves_to_text(done.moves)
            break
        if stop[0]:
            reason = time_limit_reason(time_limit)
            break
        if done.outcome == LIMIT_REACHED:
            reason = node_limit_reason(node_limit, "expanded nodes")
            break
        if only_bound is not None or done.next_bound == NO_BOUND:
            reason = f"no solution within {bound} moves"
            proven = least_h(rules, 0, bound + 1)  # a whole pass found none within the bound
            break
        bound = done.next_bound
    return solution, reason, proven, passes, totals
