"""uninformed.py -- reference searches without a heuristic: BFS, depth-limited DFS, IDDFS.

These are teaching baselines and test references for small boards; the depth-first ones never
undo the previous move (move pruning `parent`, move_pruning.py). They stop with status
GAVE_UP at their node limits rather than run for hours.
"""

from __future__ import annotations


import numpy as np
from solvers.errors import InputError
from solvers.heuristics import baseline
from solvers.jit import kernel
from solvers.moves import slide
from solvers.puzzle import Puzzle
from solvers.search.depth_first import (
    EXHAUSTED, FOUND, LIMIT_REACHED, N_DIRECTIONS, STOP_CHECK_INTERVAL, deepening_search,
)
from solvers.search.interrupt import timed
from solvers.search.node_store import (
    EMPTY, INITIAL_CAPACITY, NO_PARENT, find, grown_store, insert, node_capacity, pack, packing, path_moves, rooted_store,
    same_code, unpack,
)
from solvers.search.registry import MEMORY, NODE_LIMIT, TIME_LIMIT, Option, Search, register
from solvers.search.result import (
    SearchResult, checked_start, limit_reason, moves_to_text, search_result, unsolvable_result, verified,
)

DEFAULT_NODE_LIMIT = 500_000_000
DEFAULT_DEPTH_LIMIT = 31
MAX_DEPTH_LIMIT = 10_000
BFS_BYTES_PER_NODE = 8 + 1  # parent and move, besides the packed state and the index


@kernel
def _bfs(start, goal, max_nodes, neighbours, stop, layout):
    """Breadth-first search from `start` storing at most `max_nodes` states; setting stop[0]
    (from another thread) ends it within STOP_CHECK_INTERVAL expansions.

    `layout` is the board's node_store.Packing.

    Returns (outcome, moves, nodes_expanded, nodes_generated, nodes_stored).
    """
    bits, per_word, words = layout
    board = start.copy()
    codes, parent, move, seen = rooted_store(board, layout, INITIAL_CAPACITY)
    goal_code = np.empty((1, words), dtype=np.uint64)
    pack(goal, bits, per_word, goal_code, 0)
    child_code = np.empty((1, words), dtype=np.uint64)
    position = np.zeros(board.shape[0], dtype=np.int64)  # kept by `slide`, not read
    if same_code(codes, 0, goal_code, 0):
        return FOUND, np.empty(0, dtype=np.int8), 0, 0, 1
    n_nodes = 1
    expanded = 0
    generated = 0
    for node in range(max_nodes):
        if node == n_nodes:
            break
        blank = unpack(codes, node, bits, per_word, board)
        expanded += 1
        if expanded % STOP_CHECK_INTERVAL == 0 and stop[0]:
            return LIMIT_REACHED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes
        for direction in range(N_DIRECTIONS):
            if parent[node] != NO_PARENT and direction == move[node] ^ 1:
                continue
            target = neighbours[blank, direction]
            if target < 0:
                continue
            slide(board, position, target, blank)
            pack(board, bits, per_word, child_code, 0)
            slide(board, position, blank, target)
            generated += 1
            known, slot = find(seen, codes, child_code, 0)
            if known != EMPTY:
                continue
            if n_nodes >= max_nodes:
                return LIMIT_REACHED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes
            if n_nodes == codes.shape[0]:
                codes, parent, move = grown_store(codes, parent, move, 2 * n_nodes)
            codes[n_nodes] = child_code[0]
            parent[n_nodes] = node
            move[n_nodes] = direction
            n_nodes += 1
            seen = insert(seen, codes, n_nodes - 1, slot, n_nodes)
            if same_code(child_code, 0, goal_code, 0):
                return FOUND, path_moves(parent, move, n_nodes - 1), expanded, generated, n_nodes
    return EXHAUSTED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes


def bfs(puzzle: Puzzle, start: np.ndarray, heuristic=None, *, node_limit: int | None = None,
        time_limit: float | None = None, memory: float | None = None) -> SearchResult:
    """Shortest solution by breadth-first search with duplicate detection, replayed and checked.

    Any board up to 8x8; gives up (GAVE_UP) once `node_limit` states are stored (default: as
    many as fit in `memory` GiB, or a share of the memory available, node_store.memory_budget) or after
    `time_limit` seconds, and a limit whose states would not fit in the memory available is
    refused first. `heuristic` is not used (the registry passes None).
    """
    max_nodes = node_capacity(puzzle, node_limit, BFS_BYTES_PER_NODE, "BFS", memory=memory)
    start = checked_start(puzzle, start)
    if not puzzle.is_solvable(start):
        return unsolvable_result("bfs", "zero")
    stop = np.zeros(1, dtype=np.uint8)
    layout = packing(puzzle)
    _bfs(puzzle.goal.copy(), puzzle.goal, 1, puzzle.neighbours, stop, layout)  # compile (or load) before the clock
    (outcome, moves, expanded, generated, _), late, seconds = timed(
        _bfs, (np.array(start, dtype=np.uint8), puzzle.goal, max_nodes, puzzle.neighbours, stop, layout), stop,
        time_limit,
    )
    result = search_result(
        "bfs",
        "zero",
        moves_to_text(moves) if outcome == FOUND else None,
        optimal=True,
        nodes_expanded=expanded,
        nodes_generated=generated,
        seconds=seconds,
        initial_h=0,
        reason=limit_reason(late, time_limit, max_nodes, "stored states"),
    )
    return verified(puzzle, start, result)


def iddfs(
    puzzle: Puzzle, start: np.ndarray, heuristic=None, *, node_limit: int | None = None,
    time_limit: float | None = None,
) -> SearchResult:
    """Shortest solution by iterative-deepening depth-first search, replayed and checked.

    Depth limits 0, 1, 2, ... until a pass finds the goal; gives up after `node_limit`
    expanded nodes over all passes (default DEFAULT_NODE_LIMIT) or `time_limit` seconds.
    `heuristic` is not used (the registry passes None).
    """
    return _depth_first(puzzle, start, "iddfs", None, node_limit, time_limit)


def depth_limited_dfs(
    puzzle: Puzzle,
    start: np.ndarray,
    heuristic=None,
    *,
    depth_limit: int = DEFAULT_DEPTH_LIMIT,
    node_limit: int | None = None,
    time_limit: float | None = None,
) -> SearchResult:
    """The first solution of at most `depth_limit` (<= MAX_DEPTH_LIMIT) moves found depth-first
    (not necessarily shortest); limits as for `iddfs`."""
    if not 0 <= depth_limit <= MAX_DEPTH_LIMIT:
        raise InputError(f"the depth limit must lie in 0..{MAX_DEPTH_LIMIT}, not {depth_limit}")
    return _depth_first(puzzle, start, "dfs", depth_limit, node_limit, time_limit)


def _depth_first(puzzle, start, algorithm, depth_limit, node_limit, time_limit) -> SearchResult:
    start = checked_start(puzzle, start)
    if not puzzle.is_solvable(start):
        return unsolvable_result(algorithm, "zero")
    result = deepening_search(
        puzzle, start, baseline(puzzle, "zero"), algorithm, prune="parent", only_bound=depth_limit,
        node_limit=DEFAULT_NODE_LIMIT if node_limit is None else node_limit, time_limit=time_limit,
    )
    return verified(puzzle, start, result)


DEPTH_LIMIT = Option("depth_limit", "count", f"deepest solution dfs looks for (default: {DEFAULT_DEPTH_LIMIT})",
                     "a depth limit applies", DEFAULT_DEPTH_LIMIT)
register(Search("bfs", "breadth-first search with duplicate detection (optimal; stores every state)", bfs,
                informed=False, family="uninformed", options=(NODE_LIMIT, MEMORY, TIME_LIMIT)))
register(Search("dfs", "depth-first search to a depth limit (the first solution found, not the shortest)",
                depth_limited_dfs, informed=False, family="uninformed", options=(DEPTH_LIMIT, NODE_LIMIT, TIME_LIMIT)))
register(Search("iddfs", "iterative-deepening depth-first search (optimal)", iddfs, informed=False, family="uninformed",
                options=(NODE_LIMIT, TIME_LIMIT)))
