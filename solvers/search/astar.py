"""astar.py -- A* with a binary heap, duplicate detection and ties broken toward larger g.

The kernel orders nodes by a priority p = a * g + b * h with integer weights (a, b): A* is
(1, 1); weighted A* (wastar.py) gives h more weight. The open list is a binary min-heap of
keys p * 2^16 + (2^16 - 1 - g), so among equal priorities the deepest node comes first. A node reached again by a shorter path gets its new g and parent
and a fresh heap entry (stale entries are skipped when popped); a closed node is reopened.
With a consistent heuristic (the baseline ones) that never happens; PDB heuristics take the
minimum over the blank's positions and are only admissible, and reopening keeps the first
goal popped optimal.
"""

from __future__ import annotations

import time

import numpy as np
from solvers.heuristics import Heuristic
from solvers.heuristics.dispatch import h_child, h_start
from solvers.jit import kernel
from solvers.moves import slide
from solvers.puzzle import Puzzle
from solvers.search.depth_first import (
    EXHAUSTED, FOUND, LIMIT_REACHED, N_DIRECTIONS, STOP_CHECK_INTERVAL, bpmx_setting, is_goal, uses_bpmx,
)
from solvers.search.interrupt import timed
from solvers.search.node_store import (
    EMPTY, NO_PARENT, find, grown, grown_store, insert, new_index, node_capacity, pack, packing, path_moves,
    unpack,
)
from solvers.search.registry import BPMX, NODE_LIMIT, TIME_LIMIT, Search, register
from solvers.search.result import (
    checked_start,
    SearchResult,
    moves_to_text,
    search_result,
    unsolvable_result,
    verified,
)

G_BITS = 24  # g in the low bits of a heap key, the priority above: both fit for every board up to 8x8
G_MASK = (1 << G_BITS) - 1
DEFAULT_MAX_NODES = 10_000_000
INITIAL_CAPACITY = 1 << 12
BYTES_PER_NODE = 8 + 8 + 1 + 1 + 2 * 16  # g, parent, move, closed, and heap entries (reopened nodes add more)


@kernel
def _heap_push(keys, nodes, size, key, node):
    """Insert (key, node) into the heap of `size` entries (room for one more is required)."""
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if keys[up] <= key:
            break
        keys[i] = keys[up]
        nodes[i] = nodes[up]
        i = up
    keys[i] = key
    nodes[i] = node


@kernel
def _heap_pop(keys, nodes, size):
    """Remove and return the (key, node) with the smallest key from a heap of `size` > 0 entries."""
    top_key, top_node = keys[0], nodes[0]
    last_key, last_node = keys[size - 1], nodes[size - 1]
    size -= 1
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= last_key:
            break
        keys[i] = keys[child]
        nodes[i] = nodes[child]
        i = child
    keys[i] = last_key
    nodes[i] = last_node
    return top_key, top_node


@kernel
def _astar(start, max_nodes, neighbours, goal, leaves, n_columns, stop, bpmx, layout, weights):
    """Best-first search on a * g + b * h, (a, b) = `weights`, from `start`; stores at most
    `max_nodes` nodes; setting stop[0] (from another thread)
    ends it within STOP_CHECK_INTERVAL expansions. With `bpmx`, a node's children are
    evaluated before any is stored: the node's h is raised to the largest child h - 1, and every
    child's h to at least the node's (raised) h - 1 (bidirectional pathmax, one level).

    `layout` is the board's node_store.Packing.

    Returns (outcome, moves, nodes_expanded, nodes_generated, nodes_stored, bpmx_raises).
    """
    bits, per_word, words = layout
    g_weight, h_weight = weights
    capacity = INITIAL_CAPACITY
    codes = np.empty((capacity, words), dtype=np.uint64)
    g = np.empty(capacity, dtype=np.int64)
    parent = np.empty(capacity, dtype=np.int64)
    move = np.empty(capacity, dtype=np.int8)
    closed = np.zeros(capacity, dtype=np.bool_)
    heap_keys = np.empty(capacity, dtype=np.int64)
    heap_nodes = np.empty(capacity, dtype=np.int64)
    board = start.copy()
    pack(board, bits, per_word, codes, 0)
    index = new_index(capacity)
    g[0] = 0
    parent[0] = NO_PARENT
    move[0] = -1
    index = insert(index, codes, 0, find(index, codes, codes, 0)[1], 1)
    n_nodes = 1
    scratch = np.zeros((2, n_columns), dtype=np.int64)
    position = np.zeros(board.shape[0], dtype=np.int64)
    # the root's key says h = 0 (it is alone in the heap); its h is computed when it is popped,
    # by the one call of h_start (each call site of a heuristic costs its own compile)
    _heap_push(heap_keys, heap_nodes, 0, G_MASK, 0)
    heap_size = 1
    expanded = 0
    generated = 0
    raises = 0
    child_codes = np.empty((N_DIRECTIONS, words), dtype=np.uint64)
    child_h = np.empty(N_DIRECTIONS, dtype=np.int64)
    while heap_size > 0:
        key, node = _heap_pop(heap_keys, heap_nodes, heap_size)
        heap_size -= 1
        node_g = G_MASK - (key & G_MASK)
        if closed[node] or node_g != g[node]:
            continue
        blank = unpack(codes, node, bits, per_word, board)
        if is_goal(board, goal):
            return FOUND, path_moves(parent, move, node), expanded, generated, n_nodes, raises
        closed[node] = True
        expanded += 1
        if expanded % STOP_CHECK_INTERVAL == 0 and stop[0]:
            return LIMIT_REACHED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes, raises
        evaluated = h_start(leaves, board, position, scratch, 0)
        node_h = evaluated if node == 0 else ((key >> G_BITS) - g_weight * node_g) // h_weight
        for direction in range(N_DIRECTIONS):
            child_h[direction] = -1  # no child that way
            if parent[node] != NO_PARENT and direction == move[node] ^ 1:
                continue
            target = neighbours[blank, direction]
            if target < 0:
                continue
            tile = slide(board, position, target, blank)
            child_h[direction] = h_child(leaves, board, position, scratch, 0, tile, target, blank)
            pack(board, bits, per_word, child_codes, direction)
            slide(board, position, blank, target)
        if bpmx:
            for direction in range(N_DIRECTIONS):
                if child_h[direction] - 1 > node_h:
                    node_h = child_h[direction] - 1
                    raises += 1
        for direction in range(N_DIRECTIONS):
            if child_h[direction] < 0:
                continue
            h = max(child_h[direction], node_h - 1) if bpmx else child_h[direction]
            generated += 1
            child_g = node_g + 1
            if child_g >= G_MASK:  # a path longer than the key holds: never the one sought
                continue
            child, slot = find(index, codes, child_codes, direction)
            if child != EMPTY:
                if child_g >= g[child]:
                    continue
                closed[child] = False
            else:
                if n_nodes >= max_nodes:
                    return LIMIT_REACHED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes, raises
                if n_nodes == capacity:
                    capacity *= 2
                    codes, parent, move = grown_store(codes, parent, move, capacity)
                    g = grown(g, capacity)
                    closed = grown(closed, capacity)
                    closed[n_nodes:] = False
                child = n_nodes
                n_nodes += 1
                codes[child] = child_codes[direction]
                index = insert(index, codes, child, slot, n_nodes)
            g[child] = child_g
            parent[child] = node
            move[child] = direction
            if heap_size == heap_keys.shape[0]:
                heap_keys = grown(heap_keys, 2 * heap_size)
                heap_nodes = grown(heap_nodes, 2 * heap_size)
            priority = g_weight * child_g + h_weight * h
            _heap_push(heap_keys, heap_nodes, heap_size, (priority << G_BITS) | (G_MASK - child_g), child)
            heap_size += 1
    return EXHAUSTED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes, raises


def astar(
    puzzle: Puzzle,
    start: np.ndarray,
    heuristic: Heuristic,
    *,
    node_limit: int | None = None,
    time_limit: float | None = None,
    bpmx: bool | None = None,
) -> SearchResult:
    """Shortest solution from `start` by A* with `heuristic`, replayed and checked.

    A* stores every node it reaches (packed, node_store.py: any board up to 8x8), and gives
    up (status GAVE_UP) once `node_limit` nodes are stored (default DEFAULT_MAX_NODES, or as
    many as fit in the memory available) or `time_limit` seconds have passed; a limit whose
    nodes would not fit is refused before the search.
    `bpmx` applies one level of bidirectional pathmax at each expansion (None: where the
    heuristic may be inconsistent, as for IDA*); the result counts the raised parents.
    """
    return best_first(puzzle, start, heuristic, "astar", (1, 1), node_limit=node_limit, time_limit=time_limit,
                      bpmx=bpmx)


def best_first(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, algorithm: str, weights: tuple[int, int], *,
               node_limit: int | None = None, time_limit: float | None = None,
               bpmx: bool | None = None) -> SearchResult:
    """The kernel's search on the priority a * g + b * h, (a, b) = `weights` (positive
    integers), reported as `algorithm`; limits and BPMX as for `astar`. The solution is
    reported optimal only for a == b with an admissible heuristic."""
    max_nodes = node_capacity(puzzle, node_limit, DEFAULT_MAX_NODES, BYTES_PER_NODE, algorithm)
    start = checked_start(puzzle, start, heuristic)
    if not puzzle.is_solvable(start):
        return unsolvable_result(algorithm, heuristic.name)
    board = np.array(start, dtype=np.uint8)
    stop = np.zeros(1, dtype=np.uint8)
    applies_bpmx = uses_bpmx(heuristic, bpmx)
    kernel = heuristic.kernel(_astar)
    fixed = (puzzle.neighbours, puzzle.goal, heuristic.leaves, heuristic.n_columns, stop, applies_bpmx,
             packing(puzzle), (np.int64(weights[0]), np.int64(weights[1])))
    kernel(puzzle.goal.copy(), 1, *fixed)  # compile (or load) before the clock starts
    initial_h = heuristic(board)
    began = time.perf_counter()
    (outcome, moves, expanded, generated, stored, raises), late = timed(kernel, (board, max_nodes, *fixed), stop,
                                                                       time_limit)
    solution = moves_to_text(moves) if outcome == FOUND else None
    result = search_result(
        algorithm,
        heuristic.name,
        solution,
        optimal=heuristic.admissible and weights[0] == weights[1],
        nodes_expanded=expanded,
        nodes_generated=generated,
        seconds=time.perf_counter() - began,
        initial_h=initial_h,
        reason=f"time limit of {time_limit:g} s reached" if late else f"node limit of {max_nodes:,} stored nodes reached",
        bpmx=(applies_bpmx, raises, 0),
        admissible=heuristic.admissible,
        proven=_weighted_bound(solution, weights),
    )
    return verified(puzzle, start, result)


def _weighted_bound(solution: str | None, weights: tuple[int, int]) -> int:
    """What a solution found on the priority a * g + b * h proves about the shortest length:
    its length is at most b / a times the shortest (with an admissible h), so the shortest is at
    least ceil(length * a / b); nothing without a solution or for a = 0 (greedy)."""
    if solution is None or weights[0] == 0:
        return 0
    return -(-len(solution) * weights[0] // weights[1])


register(Search(
    "astar", "A*: best first on f = g + h with duplicate detection; optimal with an admissible heuristic", astar,
    informed=True, options=(BPMX, NODE_LIMIT, TIME_LIMIT), setting_fields=("bpmx",), settings=bpmx_setting,
))
