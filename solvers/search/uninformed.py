"""uninformed.py -- reference searches without a heuristic: BFS, depth-limited DFS, IDDFS.

These are teaching baselines and test references for small boards; the depth-first ones never
undo the previous move (move pruning `parent`, move_pruning.py). They accept boards of
at most 16 cells and stop with status GAVE_UP at their node limits rather than run for hours.
"""

from __future__ import annotations

import time

import numpy as np
from numba import types
from numba.typed import Dict

from solvers.errors import InputError
from solvers.heuristics import baseline
from solvers.jit import kernel
from solvers.puzzle import Puzzle
from solvers.search.depth_first import (
    EXHAUSTED, FOUND, LIMIT_REACHED, N_DIRECTIONS, STOP_CHECK_INTERVAL, deepening_search,
)
from solvers.search.interrupt import interruptible
from solvers.search.node_store import NO_PARENT, _grown_store, _pack, _path_moves, _unpack, check_packable
from solvers.search.result import (
    SearchResult, checked_start, moves_to_text, search_result, unsolvable_result, verified,
)

DEFAULT_BFS_MAX_NODES = 20_000_000
DEFAULT_NODE_LIMIT = 500_000_000
DEFAULT_DEPTH_LIMIT = 31
MAX_DEPTH_LIMIT = 10_000
INITIAL_CAPACITY = 1 << 12


@kernel
def _bfs(start, goal, max_nodes, neighbours, stop):
    """Breadth-first search from `start` storing at most `max_nodes` states; setting stop[0]
    (from another thread) ends it within STOP_CHECK_INTERVAL expansions.

    Returns (outcome, moves, nodes_expanded, nodes_generated, nodes_stored).
    """
    capacity = INITIAL_CAPACITY
    codes = np.empty(capacity, dtype=np.uint64)
    parent = np.empty(capacity, dtype=np.int64)
    move = np.empty(capacity, dtype=np.int8)
    seen = Dict.empty(key_type=types.uint64, value_type=types.int64)
    board = start.copy()
    goal_code = _pack(goal)
    codes[0] = _pack(board)
    parent[0] = NO_PARENT
    move[0] = -1
    seen[codes[0]] = 0
    if codes[0] == goal_code:
        return FOUND, np.empty(0, dtype=np.int8), 0, 0, 1
    n_nodes = 1
    expanded = 0
    generated = 0
    for node in range(max_nodes):
        if node == n_nodes:
            break
        blank = _unpack(codes[node], board)
        expanded += 1
        if expanded % STOP_CHECK_INTERVAL == 0 and stop[0]:
            return LIMIT_REACHED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes
        for direction in range(N_DIRECTIONS):
            if parent[node] != NO_PARENT and direction == move[node] ^ 1:
                continue
            target = neighbours[blank, direction]
            if target < 0:
                continue
            board[blank] = board[target]
            board[target] = 0
            code = _pack(board)
            board[target] = board[blank]
            board[blank] = 0
            generated += 1
            if code in seen:
                continue
            if n_nodes >= max_nodes:
                return LIMIT_REACHED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes
            if n_nodes == capacity:
                capacity *= 2
                codes, parent, move = _grown_store(codes, parent, move, capacity)
            codes[n_nodes] = code
            parent[n_nodes] = node
            move[n_nodes] = direction
            seen[code] = n_nodes
            n_nodes += 1
            if code == goal_code:
                return FOUND, _path_moves(parent, move, n_nodes - 1), expanded, generated, n_nodes
    return EXHAUSTED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes


def bfs(puzzle: Puzzle, start: np.ndarray, *, max_nodes: int = DEFAULT_BFS_MAX_NODES) -> SearchResult:
    """Shortest solution by breadth-first search with duplicate detection, replayed and checked.

    Gives up (GAVE_UP) once `max_nodes` states are stored (about 50 bytes each).
    """
    check_packable(puzzle, "BFS")
    start = checked_start(puzzle, start)
    if not puzzle.is_solvable(start):
        return unsolvable_result("bfs", "zero")
    stop = np.zeros(1, dtype=np.uint8)
    _bfs(puzzle.goal.copy(), puzzle.goal, 1, puzzle.neighbours, stop)  # compile (or load) before the clock starts
    began = time.perf_counter()
    outcome, moves, expanded, generated, _ = interruptible(
        _bfs, (np.array(start, dtype=np.uint8), puzzle.goal, max_nodes, puzzle.neighbours, stop), stop
    )
    result = search_result(
        "bfs",
        "zero",
        moves_to_text(moves) if outcome == FOUND else None,
        optimal=True,
        nodes_expanded=expanded,
        nodes_generated=generated,
        seconds=time.perf_counter() - began,
        initial_h=0,
        reason=f"node limit of {max_nodes:,} stored states reached",
    )
    return verified(puzzle, start, result)


def iddfs(
    puzzle: Puzzle, start: np.ndarray, *, node_limit: int = DEFAULT_NODE_LIMIT, time_limit: float | None = None
) -> SearchResult:
    """Shortest solution by iterative-deepening depth-first search, replayed and checked.

    Depth limits 0, 1, 2, ... until a pass finds the goal; gives up after `node_limit`
    expanded nodes over all passes or `time_limit` seconds.
    """
    return _depth_first(puzzle, start, "iddfs", None, node_limit, time_limit)


def depth_limited_dfs(
    puzzle: Puzzle,
    start: np.ndarray,
    *,
    depth_limit: int = DEFAULT_DEPTH_LIMIT,
    node_limit: int = DEFAULT_NODE_LIMIT,
    time_limit: float | None = None,
) -> SearchResult:
    """The first solution of at most `depth_limit` (<= MAX_DEPTH_LIMIT) moves found depth-first
    (not necessarily shortest)."""
    if not 0 <= depth_limit <= MAX_DEPTH_LIMIT:
        raise InputError(f"the depth limit must lie in 0..{MAX_DEPTH_LIMIT}, not {depth_limit}")
    return _depth_first(puzzle, start, "dfs", depth_limit, node_limit, time_limit)


def _depth_first(puzzle, start, algorithm, depth_limit, node_limit, time_limit) -> SearchResult:
    check_packable(puzzle, algorithm.upper())
    start = checked_start(puzzle, start)
    if not puzzle.is_solvable(start):
        return unsolvable_result(algorithm, "zero")
    result = deepening_search(
        puzzle, start, baseline(puzzle, "zero"), algorithm, prune="parent", only_bound=depth_limit, node_limit=node_limit,
        time_limit=time_limit,
    )
    return verified(puzzle, start, result)
