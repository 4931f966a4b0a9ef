"""parallel_ida.py -- IDA* on one instance, in parallel: the tree split at a shallow depth.

The search tree is cut at `split_depth`: the nodes above it (the *top*) are enumerated once,
with the same move order and move-pruning automaton as the sequential kernel; each node at the
split depth is a *work item*, searched by the kernel from the automaton's state at that node.
Every iteration with bound B counts the top exactly as the sequential search would (a top node is expanded when it and all its ancestors have f <= B,
its children are generated, cut-off children offer the next bound), and runs the kernel below
each live work item with the bound B - g: on a pool of threads (numba kernels release the
GIL), or as tasks of an executor the caller passes in (a Dask cluster's: solvers/distributed.py). Items are handed out largest
first, by their size in the previous iteration. The first subtree that finds the goal stops
the others. Every iteration but the last therefore has exactly the sequential counters, and
the solution has the sequential length. With `full_last_iteration` no subtree is stopped and
the solution is that of the first work item, in move order, that found one: the sequential
search's solution and counters, exactly."""

from __future__ import annotations

import time
from concurrent.futures import Executor, ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np

from solvers.heuristics import Heuristic
from solvers.moves import slide
from solvers.puzzle import Puzzle
from solvers.search.depth_first import (
    EXHAUSTED,
    deepening_search,
    FOUND,
    LIMIT_REACHED,
    N_DIRECTIONS,
    NO_BOUND,
    PassOptions,
    run_pass,
    uses_bpmx,
    warmed_up_pass,
)
from solvers.search.interrupt import start_timer
from solvers.search.move_pruning import DEFAULT_PRUNE, PRUNED, automaton, tree_counts
from solvers.search.result import (
    Iteration, SearchResult, checked_start, moves_to_text, search_result, time_limit_reason, unsolvable_result,
    verified,
)

WORK_ITEMS_PER_THREAD = 64
MAX_SPLIT_DEPTH = 14
TASKS_PER_THREAD = 4  # ... unless an iteration would then make fewer tasks than this per thread


@dataclass(frozen=True)
class TopNode:
    depth: int
    f: int  # g + h of this node
    path_f: int  # the largest f on the path from the root to this node, itself included
    parent_path_f: int  # path_f of its parent (the root's is its own f)
    moves: tuple[int, ...]
    board: np.ndarray
    state: int  # the move-pruning automaton's state after `moves`


def _top(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, split_depth: int, prune: str) -> list[TopNode]:
    """Every node of depth <= split_depth that the automaton of `prune` does not prune, in
    depth-first move order (parents before children)."""
    transitions = automaton(prune)
    h0 = heuristic(start)
    root = TopNode(0, h0, h0, h0, (), start.copy(), 0)
    nodes = []

    def visit(node: TopNode) -> None:
        nodes.append(node)
        if node.depth == split_depth:
            return
        blank = int(np.flatnonzero(node.board == 0)[0])
        for move in range(N_DIRECTIONS):
            state = int(transitions[node.state, move])
            target = int(puzzle.neighbours[blank, move])
            if state == PRUNED or target < 0:
                continue
            board = node.board.copy()
            slide(board, np.zeros(board.shape[0], dtype=np.int64), target, blank)
            f = node.depth + 1 + heuristic(board)
            visit(TopNode(node.depth + 1, f, max(node.path_f, f), node.path_f, (*node.moves, move), board, state))

    visit(root)
    return nodes


def _split_depth(puzzle: Puzzle, start: np.ndarray, threads: int, prune: str) -> int:
    """The shallowest depth (>= 1) at which the brute-force tree below `start`, pruned by
    `prune`, has at least WORK_ITEMS_PER_THREAD nodes per thread (MAX_SPLIT_DEPTH at most)."""
    sizes = tree_counts(puzzle, int(np.flatnonzero(start == 0)[0]), MAX_SPLIT_DEPTH, prune).sum(axis=1)
    enough = np.flatnonzero(sizes[1:] >= WORK_ITEMS_PER_THREAD * threads)
    return int(enough[0]) + 1 if enough.size else MAX_SPLIT_DEPTH


def parallel_ida_star(
    puzzle: Puzzle,
    start: np.ndarray,
    heuristic: Heuristic,
    *,
    threads: int = 2,
    split_depth: int | None = None,
    prune: str = DEFAULT_PRUNE,
    full_last_iteration: bool = False,
    bpmx: bool | None = None,
    time_limit: float | None = None,
    executor: Executor | None = None,
    min_task_nodes: int | None = None,
) -> SearchResult:
    """Shortest solution by IDA* with the subtrees run in parallel; equal in length to `ida_star`'s.

    The subtrees run on `threads` threads of this process, or, given an `executor`, as its
    tasks (`threads` then says how many run at once; it sets the split depth): its `submit` is
    called with a Heuristic among the arguments and the search's stop flag as the keyword
    `stop` (set when a subtree found the goal or time is up), and `shutdown(cancel_futures=True)`
    ends the search's tasks (solvers/distributed.py's ClusterExecutor ships the heuristic as
    its recipe and passes the stop on). Each task takes work items of at least
    `min_task_nodes` predicted nodes (what sending a task costs, beside its search; None: the
    executor's `task_nodes` if it has one, else 0). `prune`, `full_last_iteration` and `bpmx` are as for
    `ida_star`; BPMX applies below the split depth only (the top is counted without it).
    Counters are summed over the top and every subtree; in the last iteration they depend on
    which subtree finds the goal first, unless `full_last_iteration` (then they, and the
    solution, are `ida_star`'s, without BPMX). `time_limit` (seconds) ends the search as GAVE_UP, and so
    does any iteration that a subtree did not finish.
    """
    start = checked_start(puzzle, start, heuristic)
    if not puzzle.is_solvable(start):
        return unsolvable_result("parallel-ida", heuristic.name)
    applies_bpmx = uses_bpmx(heuristic, bpmx)
    if executor is None:
        warmed_up_pass(puzzle, heuristic, applies_bpmx)  # compile (or load) before the clock starts
    automaton(prune)  # built once per process, before the clock starts too
    began = time.perf_counter()
    depth = _split_depth(puzzle, start, threads, prune) if split_depth is None else max(1, split_depth)
    top = _top(puzzle, start, heuristic, depth, prune)
    if any(puzzle.is_goal(node.board) for node in top):  # a solution within the top: nothing to split
        result = deepening_search(puzzle, start, heuristic, "ida", prune=prune, full_last_iteration=full_last_iteration,
                                  bpmx=bpmx, time_limit=time_limit)
        return verified(puzzle, start, result)
    stop = np.zeros(1, dtype=np.uint8)
    search = (prune, full_last_iteration, applies_bpmx)
    pool = ThreadPoolExecutor(max_workers=threads) if executor is None else executor
    if min_task_nodes is None:
        min_task_nodes = getattr(executor, "task_nodes", 0)

    def submit(nodes, bound):
        return pool.submit(_subtrees, puzzle, nodes, bound, heuristic, search, stop=stop)

    # threads see `stop`; an executor's remote tasks are told by shutting it down
    timer = start_timer(stop, time_limit, then=None if executor is None else lambda: pool.shutdown(cancel_futures=True))
    try:
        passes, solution, bpmx_counts = _iterations(top, depth, submit, stop, full_last_iteration, min_task_nodes,
                                                    threads)
    finally:
        stop.fill(1)  # on Ctrl-C too: the running kernels return within a fraction of a second
        pool.shutdown(cancel_futures=True)
        if timer is not None:
            timer.cancel()
    result = search_result(
        "parallel-ida", heuristic.name, solution, optimal=heuristic.admissible,
        nodes_expanded=sum(p.nodes_expanded for p in passes), nodes_generated=sum(p.nodes_generated for p in passes),
        seconds=time.perf_counter() - began, initial_h=top[0].f,
        reason="" if solution is not None else _why_stopped(time_limit), iterations=tuple(passes),
        bpmx=(applies_bpmx, *bpmx_counts), admissible=heuristic.admissible,
        proven=passes[-1].bound if passes else 0,
    )
    return verified(puzzle, start, result)


def _why_stopped(time_limit: float | None) -> str:
    return "a subtree was stopped" if time_limit is None else time_limit_reason(time_limit)


def task_groups(order: list[int], predicted: np.ndarray, min_nodes: int, min_groups: int = 1) -> list[list[int]]:
    """The work items `order` (largest first) cut into consecutive groups, one task each, of at
    least `min_nodes` predicted nodes, or of 1/`min_groups` of the whole if that is less (the
    last group may hold less): one item per group with `min_nodes` 0; the small items of an
    iteration travel together, so that what a cluster task costs stays small beside its
    search, while an iteration still makes `min_groups` tasks or more."""
    min_nodes = min(min_nodes, int(predicted[order].sum()) // max(min_groups, 1)) if order else min_nodes
    groups, current, size = [], [], 0
    for i in order:
        current.append(i)
        size += int(predicted[i])
        if size >= min_nodes:
            groups.append(current)
            current, size = [], 0
    return groups + [current] if current else groups


def _iterations(top: list[TopNode], depth: int, submit, stop: np.ndarray, full_last_iteration: bool,
                task_nodes: int, threads: int):
    """Run iterations until one finds the goal or one is cut short; returns (passes, moves text or
    None, [BPMX raises, cutoffs] summed over the subtrees).

    Each iteration submits its live work items, the largest of the previous iteration first
    (so that the last to finish are small ones), in tasks of at least `task_nodes` predicted
    nodes (task_groups: the item's nodes in the previous iteration times the growth from the
    iteration before; an item not searched before is a task of its own; at least
    TASKS_PER_THREAD tasks per thread), and stops the others when one finds the goal, or, with
    `full_last_iteration`, lets them finish and takes the solution of the first item in move
    order that found one. An iteration in which some subtree stopped early (time limit) ends
    the search without a solution: its counters and next bound are incomplete.
    """
    inner = [n for n in top if n.depth < depth]
    items = [n for n in top if n.depth == depth]
    effort = np.zeros(len(items), dtype=np.int64)  # nodes expanded below each item, last iteration
    passes, bpmx_counts = [], [0, 0]
    bound = top[0].f
    while True:
        expanded = sum(1 for n in inner if n.path_f <= bound)
        generated = sum(1 for n in top if n.depth > 0 and n.parent_path_f <= bound)
        next_bound = min((n.f for n in top if n.depth > 0 and n.parent_path_f <= bound < n.f), default=NO_BOUND)
        live = sorted((i for i, n in enumerate(items) if n.path_f <= bound), key=lambda i: -effort[i])
        growth = passes[-1].nodes_expanded / max(passes[-2].nodes_expanded, 1) if len(passes) > 1 else 1.0
        predicted = np.where(effort > 0, effort * max(growth, 1.0), task_nodes)  # unknown: a task of its own
        groups = task_groups(live, predicted, task_nodes, TASKS_PER_THREAD * threads)
        futures = {submit([items[i] for i in group], bound): group for group in groups}
        found, complete = {}, True  # solutions by work item
        for future in as_completed(futures):
            if future.cancelled():  # the search is being stopped
                complete = False
                continue
            for i, (outcome, moves, cut, n_expanded, n_generated, *bpmx_done) in zip(futures[future], future.result()):
                bpmx_counts = [a + b for a, b in zip(bpmx_counts, bpmx_done)]
                effort[i] = n_expanded
                expanded += n_expanded
                generated += n_generated
                next_bound = min(next_bound, cut + depth if cut != NO_BOUND else NO_BOUND)
                complete &= outcome in (EXHAUSTED, FOUND)
                if outcome == FOUND:
                    found[i] = moves_to_text(np.array([*items[i].moves, *moves], dtype=np.int8))
            if found and not full_last_iteration:
                stop.fill(1)
                for other in futures:
                    other.cancel()
                break
        passes.append(Iteration(bound, expanded, generated))
        if found and (complete or not full_last_iteration):
            return passes, found[min(found)], bpmx_counts
        if not complete:
            return passes, None, bpmx_counts
        bound = int(next_bound)


def _subtree(puzzle: Puzzle, node: TopNode, bound: int, heuristic: Heuristic, search: tuple[str, bool, bool],
             stop: np.ndarray):
    """Run the kernel below one work item, with `search` = (prune, full_last_iteration, bpmx);
    returns (outcome, moves, next bound, expanded, generated, BPMX raises, BPMX cutoffs)."""
    if stop[0]:
        return LIMIT_REACHED, [], NO_BOUND, 0, 0, 0, 0
    prune, full_last_iteration, bpmx = search
    done = run_pass(puzzle, heuristic, node.board, bound - node.depth, 0, stop,
                    PassOptions(automaton(prune), node.state, bpmx, full_last_iteration))
    return done.outcome, done.moves.tolist(), *done[2:]


def _subtrees(puzzle: Puzzle, nodes: list[TopNode], bound: int, heuristic: Heuristic,
              search: tuple[str, bool, bool], *, stop: np.ndarray) -> list[tuple]:
    """`_subtree` below each of `nodes` in turn, their results in order; without
    full_last_iteration the items after one that found the goal are left out."""
    results = []
    for node in nodes:
        results.append(_subtree(puzzle, node, bound, heuristic, search, stop))
        if results[-1][0] == FOUND and not search[1]:
            break
    return results
