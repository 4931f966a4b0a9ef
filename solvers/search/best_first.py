"""best_first.py -- the one best-first kernel behind A*, weighted A* (one node or a batch at a time), greedy search and the anytime search, run by a policy.

The kernel expands, among the stored nodes not yet expanded, one of least priority
p = a * g + b * h, where a policy (`Policy`) gives the integer weights (a, b): A* is (1, 1),
weighted A* (wastar.py) gives h more weight, greedy search (greedy.py) is (0, 1). Every state
is stored once (node_store.py); per node the store keeps its packed state, g, h, the move that
reached it and whether it was expanded ("closed"), and the path is read back by undoing those
moves (a parent is found again by its state), so no parent links are kept.

The policy also says:

- whether a closed node reached again by a shorter path is *reopened*. A* needs it only where
  the heuristic may be inconsistent (then the first goal popped is still the shortest);
  greedy search never does: its priority ignores g, and reopening would re-expand whole
  subtrees at every shortcut. A node still open simply takes the shorter path.
- how ties among equal priorities are broken (TIE_BREAKS): toward the larger or the smaller g,
  first in first out, last in first out, or at random (a seeded generator, so that a search is
  repeatable); after that, first in first out, so the order is total and a naive twin can
  follow it exactly (tests/test_best_first.py), except that toward the smaller g, nodes of
  equal g are taken at random (then by their pushes' low bits).
- how often an expansion explores (`explore`): with that chance it takes, instead of a best
  node, one drawn by type-based exploration (type_buckets.py: a type (g, h) of the open nodes,
  then a node of it, each uniformly), a remedy for greedy search's plateaus. The chance is
  drawn once per expansion (stale open-list entries are skipped within its turn).
- how many nodes it takes from the open list at once (`batch`, 1 but for the batched weighted
  A* of bwas.py): the best live entries are popped together and expanded in turn, so the
  children of one cannot be taken before the rest of the batch is expanded; a node taken twice
  into one batch is expanded once.
- a cost bound (`prune_at`): a child with g + h >= prune_at is not stored. With an admissible
  h it cannot lead to a solution shorter than prune_at, which is how the anytime search keeps
  each run from storing what cannot improve on its best solution.

The open list (open_list.py) orders by the pair (priority, tie key), so priorities cannot wrap
(h is clamped to 0..H_LIMIT, g stays below G_LIMIT). Its stale entries are compacted, so it
never holds more than twice as many entries as there are open nodes. A search that gives up
with reopening (or as A*) returns the least g + h among its open nodes: with an admissible h
no solution is shorter.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic
from solvers.heuristics.dispatch import h_child, h_start
from solvers.jit import kernel
from solvers.moves import slide
from solvers.puzzle import Puzzle
from solvers.search.depth_first import EXHAUSTED, FOUND, LIMIT_REACHED, N_DIRECTIONS, STOP_CHECK_INTERVAL, \
    bpmx_setting, is_goal, uses_bpmx
from solvers.search.interrupt import timed
from solvers.search.node_store import (
    EMPTY, INITIAL_CAPACITY, find, grown, insert, new_index, node_capacity, pack, packing, unpack,
)
from solvers.search.open_list import compact, heap_pop, heap_push
from solvers.search.registry import Option
from solvers.search.type_buckets import BYTES_PER_NODE as TYPE_BYTES_PER_NODE, add_member, draw_member, new_types, \
    type_key
from solvers.search.xorshift import RANDOM_BITS, random_bits, seeded
from solvers.search.result import (
    SearchResult, checked_start, limit_reason, moves_to_text, none_shorter_reason, search_result, unsolvable_result,
    verified,
)

NO_PRUNING = np.iinfo(np.int64).max
H_LIMIT = (1 << 31) - 1  # h is stored as int32; a larger value counts as this one
SEQ_BITS = 40  # the push counter in the low bits of a tie key
SEQ_LIMIT = 1 << SEQ_BITS
PUSH_BITS = SEQ_BITS - RANDOM_BITS  # of the push counter below random bits (the smaller-g rule's order)
EXPLORE_SCALE = 1 << 16  # the probability of a draw by type, in units of 1 / EXPLORE_SCALE
TYPE_SLOTS = 1 << 10  # the type table's first size (it doubles as types appear)
G_LIMIT = 1 << 23  # g in the high bits of a tie key, below the sign; a deeper path is not stored
# per stored node besides its packed state: g and h (int32), move and closed (one byte each);
# open-list entries (16 bytes of keys, 4 of node) for the open nodes, kept under twice their
# number by compaction; index slots (int32) in node_store's count
BYTES_PER_NODE = 4 + 4 + 1 + 1 + 2 * (8 + 8 + 4)

TIE_BREAKS = ("larger-g", "smaller-g", "fifo", "lifo", "random")
TIE_LARGER_G, TIE_SMALLER_G, TIE_FIFO, TIE_LIFO, TIE_RANDOM = range(len(TIE_BREAKS))
RANDOM_TIES = ("smaller-g", "random")  # the rules that draw at random among equal keys (_tie_key)


class Policy(NamedTuple):
    """How the kernel orders and keeps nodes (see the module docstring); all int64."""

    g_weight: int
    h_weight: int
    reopen: int
    tie: int
    prune_at: int
    explore: int
    batch: int
    run: int


def policy(weights: tuple[int, int], *, reopen: bool, tie_break: str, prune_at: int | None = None,
           explore: float = 0.0, batch: int = 1, run: int = 0) -> Policy:
    """The Policy for priority weights (a, b), reopening, a tie-breaking rule named in
    TIE_BREAKS, an optional cost bound, the probability of a draw by type, the number of
    nodes taken from the open list at once and the run number that seeds the random choices
    (xorshift.seeded)."""
    return Policy(np.int64(weights[0]), np.int64(weights[1]), np.int64(reopen), np.int64(TIE_BREAKS.index(tie_break)),
                  np.int64(NO_PRUNING if prune_at is None else prune_at), np.int64(round(explore * EXPLORE_SCALE)),
                  np.int64(batch), np.int64(run))


@kernel
def _tie_key(tie, g, pushes, random_state):
    """(the tie key of the `pushes`-th entry, at depth `g`, under rule `tie`; the generator's
    next state)."""
    part = np.int64(0)
    order = pushes
    if tie == TIE_LARGER_G:
        part = G_LIMIT - 1 - g
    elif tie == TIE_SMALLER_G:
        part = g
        random_state, noise = random_bits(random_state)
        order = (noise << PUSH_BITS) | (pushes & ((1 << PUSH_BITS) - 1))
    elif tie == TIE_LIFO:
        order = SEQ_LIMIT - 1 - pushes
    elif tie == TIE_RANDOM:
        random_state, part = random_bits(random_state)
    return (part << SEQ_BITS) | order, random_state


@kernel
def _live_entries(first, nodes, size, g, h, closed, g_weight, h_weight):
    """Which of the first `size` open-list entries are current: their node is open and their
    priority is the node's."""
    live = np.empty(size, dtype=np.bool_)
    for i in range(size):
        node = nodes[i]
        live[i] = not closed[node] and first[i] == g_weight * g[node] + h_weight * h[node]
    return live


@kernel
def _pop_batch(first, second, entries, heap_size, pending, closed, g, h, g_weight, h_weight):
    """Pop the open list's best live entries into `pending`, as many as it holds or until the
    heap is empty, skipping stale ones; returns (their number, the heap's size)."""
    taken = 0
    while taken < pending.shape[0] and heap_size > 0:
        priority, _, node = heap_pop(first, second, entries, heap_size)
        heap_size -= 1
        if not closed[node] and priority == g_weight * g[node] + h_weight * h[node]:
            pending[taken] = node
            taken += 1
    return taken, heap_size


@kernel
def _doubled_heap(first, second, entries, heap_size):
    """The open list's three arrays grown to twice `heap_size` entries."""
    return grown(first, 2 * heap_size), grown(second, 2 * heap_size), grown(entries, 2 * heap_size)


@kernel
def _requeue(first, second, entries, heap_size, pending, held, closed, g, h, g_weight, h_weight):
    """Push the nodes of `pending`, and `held` if it is a node (>= 0), that are still open back
    onto the open list at their priority (growing it as needed), so that a search that stops
    counts them in its bound; returns (first, second, entries, heap_size)."""
    for i in range(pending.shape[0] + 1):
        node = pending[i] if i < pending.shape[0] else held
        if node < 0 or closed[node]:
            continue
        if heap_size == first.shape[0]:
            first, second, entries = _doubled_heap(first, second, entries, heap_size)
        heap_push(first, second, entries, heap_size, g_weight * g[node] + h_weight * h[node], 0, node)
        heap_size += 1
    return first, second, entries, heap_size


@kernel
def _open_bound(nodes, size, live, g, h):
    """The least g + h over the live entries (-1 if none)."""
    least = np.int64(-1)
    for i in range(size):
        if live[i]:
            value = np.int64(g[nodes[i]]) + h[nodes[i]]
            if least < 0 or value < least:
                least = value
    return least


@kernel
def stored_path(codes, move, node, index, neighbours, layout, board, position):
    """The moves from the root to `node`, found by undoing each node's move from its state and
    looking the parent's state up in `index`."""
    bits, per_word, words = layout
    length = 0
    walk = node
    row = np.empty((1, words), dtype=np.uint64)
    moves = np.empty(0, dtype=np.int8)
    while move[walk] >= 0:
        if length == moves.shape[0]:
            moves = grown(moves, 2 * length + 16)
        moves[length] = move[walk]
        length += 1
        blank = unpack(codes, walk, bits, per_word, board)
        back = neighbours[blank, move[walk] ^ 1]
        slide(board, position, back, blank)
        pack(board, bits, per_word, row, 0)
        walk = find(index, codes, row, 0)[0]
    return moves[:length][::-1].copy()


@kernel
def _clamped(h):
    return min(max(h, 0), H_LIMIT)


@kernel
def _best_first(start, max_nodes, neighbours, goal, leaves, n_columns, stop, bpmx, layout, rules):
    """Best-first search from `start` under the Policy `rules` (see the module docstring),
    storing at most `max_nodes` nodes; setting stop[0] (from another thread) ends it within
    STOP_CHECK_INTERVAL expansions. With `bpmx`, a node's children are evaluated before any is
    stored: the node's h is raised to the largest child h - 1, and every child's h to at least
    the node's (raised) h - 1 (bidirectional pathmax, one level). `layout` is the board's
    node_store.Packing.

    Returns (outcome, moves, nodes_expanded, nodes_generated, nodes_stored, bpmx_raises,
    open_bound): FOUND, EXHAUSTED (no open node left) or LIMIT_REACHED (the node
    limit, or stop); open_bound is the least g + h among the open nodes when the search stopped
    early (-1 if it did not, or none is open).
    """
    bits, per_word, words = layout
    g_weight, h_weight, reopen, tie, prune_at, explore, batch, run = rules
    capacity = INITIAL_CAPACITY
    codes = np.empty((capacity, words), dtype=np.uint64)
    g = np.empty(capacity, dtype=np.int32)
    h = np.empty(capacity, dtype=np.int32)
    move = np.empty(capacity, dtype=np.int8)
    closed = np.zeros(capacity, dtype=np.bool_)
    first = np.empty(capacity, dtype=np.int64)
    second = np.empty(capacity, dtype=np.int64)
    entries = np.empty(capacity, dtype=np.int32)
    board = start.copy()
    pack(board, bits, per_word, codes, 0)
    index = new_index(capacity)
    g[0] = 0
    h[0] = 0  # the root's h is computed when it is popped, by the one call of h_start
    move[0] = -1
    index = insert(index, codes, 0, find(index, codes, codes, 0)[1], 1)
    n_nodes = 1
    scratch = np.zeros((2, n_columns), dtype=np.int64)
    position = np.zeros(board.shape[0], dtype=np.int64)
    random_state = seeded(run)
    heap_push(first, second, entries, 0, 0, 0, 0)
    heap_size = 1
    pushes = 1
    expanded = 0
    generated = 0
    raises = 0
    full = False  # the node limit was reached
    child_codes = np.empty((N_DIRECTIONS, words), dtype=np.uint64)
    child_h = np.empty(N_DIRECTIONS, dtype=np.int64)
    types = new_types(TYPE_SLOTS if explore > 0 else 2, INITIAL_CAPACITY if explore > 0 else 1)
    if explore > 0:
        types = add_member(types, 0, type_key(0, 0))
    pending = np.empty(batch, dtype=np.int32)  # the nodes taken from the open list, expanded in turn
    n_pending = 0
    taken = 0
    held = -1  # the node being expanded when the search stopped early
    while heap_size > 0 or taken < n_pending:
        node = -1
        if explore > 0:
            random_state, chance = random_bits(random_state)
            if chance % EXPLORE_SCALE < explore:
                node, random_state = draw_member(types, random_state, closed, g, h)
        while node < 0 and (taken < n_pending or heap_size > 0):  # stale entries are skipped within one turn
            if taken == n_pending:
                n_pending, heap_size = _pop_batch(first, second, entries, heap_size, pending, closed, g, h,
                                                  g_weight, h_weight)
                taken = 0
                if n_pending == 0:
                    break
            node = pending[taken]
            taken += 1
            if closed[node]:  # taken twice into one batch: expanded once
                node = -1
        if node < 0:
            break
        blank = unpack(codes, node, bits, per_word, board)
        if is_goal(board, goal):
            return FOUND, stored_path(codes, move, node, index, neighbours, layout, board, position), expanded, \
                generated, n_nodes, raises, -1
        if (expanded + 1) % STOP_CHECK_INTERVAL == 0 and stop[0]:
            held = node  # still open: it counts in the bound
            break
        closed[node] = True
        expanded += 1
        evaluated = _clamped(h_start(leaves, board, position, scratch, 0))
        if node == 0:
            h[0] = evaluated
        node_h = np.int64(h[node])
        node_g = np.int64(g[node])
        for direction in range(N_DIRECTIONS):
            child_h[direction] = -1  # no child that way
            if node != 0 and direction == move[node] ^ 1:
                continue
            target = neighbours[blank, direction]
            if target < 0:
                continue
            tile = slide(board, position, target, blank)
            child_h[direction] = _clamped(h_child(leaves, board, position, scratch, 0, tile, target, blank))
            pack(board, bits, per_word, child_codes, direction)
            slide(board, position, blank, target)
        if bpmx:
            for direction in range(N_DIRECTIONS):
                if child_h[direction] - 1 > node_h:
                    node_h = child_h[direction] - 1
                    raises += 1
            h[node] = node_h
        child_g = node_g + 1
        for direction in range(N_DIRECTIONS):
            if child_h[direction] < 0:
                continue
            child_value = max(child_h[direction], node_h - 1) if bpmx else child_h[direction]
            generated += 1
            if child_g >= G_LIMIT or child_g + child_value >= prune_at:
                continue
            child, slot = find(index, codes, child_codes, direction)
            if child != EMPTY:
                if child_g >= g[child]:
                    continue
                if closed[child]:
                    if not reopen:
                        continue
                    closed[child] = False
                elif g_weight == 0 and child_value <= h[child]:
                    g[child] = child_g  # the open node's entry keeps its priority: only its path changes
                    move[child] = direction
                    if explore > 0:
                        types = add_member(types, child, type_key(child_g, h[child]))
                    continue
                child_value = max(child_value, np.int64(h[child]))
            else:
                if n_nodes >= max_nodes:
                    full = True
                    break
                if n_nodes == capacity:
                    capacity *= 2
                    codes = grown(codes, capacity)
                    g = grown(g, capacity)
                    h = grown(h, capacity)
                    move = grown(move, capacity)
                    closed = grown(closed, capacity)
                    closed[n_nodes:] = False
                child = n_nodes
                n_nodes += 1
                codes[child] = child_codes[direction]
                index = insert(index, codes, child, slot, n_nodes)
            g[child] = child_g
            h[child] = child_value
            move[child] = direction
            if heap_size == first.shape[0]:
                live = _live_entries(first, entries, heap_size, g, h, closed, g_weight, h_weight)
                if 2 * live.sum() <= heap_size:
                    heap_size = compact(first, second, entries, heap_size, live)
                else:
                    first, second, entries = _doubled_heap(first, second, entries, heap_size)
            key, random_state = _tie_key(tie, child_g, pushes, random_state)
            heap_push(first, second, entries, heap_size, g_weight * child_g + h_weight * child_value, key, child)
            heap_size += 1
            pushes += 1
            if explore > 0:
                types = add_member(types, child, type_key(child_g, child_value))
        if full:
            # the node's children are not all stored: it goes back to the open list with the rest
            # of its batch, so that the open nodes' bound still holds
            closed[node] = False
            held = node
            break
    if held < 0 and heap_size == 0 and taken == n_pending:
        return EXHAUSTED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes, raises, -1
    first, second, entries, heap_size = _requeue(first, second, entries, heap_size, pending[taken:n_pending], held,
                                                 closed, g, h, g_weight, h_weight)
    live = _live_entries(first, entries, heap_size, g, h, closed, g_weight, h_weight)
    return LIMIT_REACHED, np.empty(0, dtype=np.int8), expanded, generated, n_nodes, raises, \
        _open_bound(entries, heap_size, live, g, h)


def best_first(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, algorithm: str, weights: tuple[int, int], *,
               reopen: bool, tie_break: str, node_limit: int | None = None, time_limit: float | None = None,
               bpmx: bool | None = None, prune_at: int | None = None, explore: float = 0.0,
               memory: float | None = None, batch: int = 1, run: int = 0) -> SearchResult:
    """The kernel's search from `start` on the priority a * g + b * h, (a, b) = `weights`
    (non-negative integers, b > 0), reported as `algorithm`, replayed and checked.

    It stores at most `node_limit` nodes (node_store.node_capacity: by default as many as
    `memory` GiB hold, node_store.memory_budget without it) and gives up (status GAVE_UP) at that limit or after `time_limit`
    seconds, its clock started after the kernel is compiled. `bpmx` applies one level of
    bidirectional pathmax at each expansion (None: where the heuristic may be inconsistent);
    `reopen`, `tie_break` (AUTO: by the weights), `prune_at`, `explore` (the chance, below 1,
    of a draw by type) and `batch` (the nodes taken from the open list at once, then expanded
    in turn; only without draws by type) and `run` (which seeds the random choices) are the
    Policy's. The solution is reported optimal
    only for a == b with an admissible heuristic, no pruning and one node at a time; the lower
    bound is what the search proved (the open nodes' least g + h when it gave up with reopening,
    or as A* one node at a time; the length over the weight for a weighted solution found one
    node at a time: a batch may hold the goal behind nodes of much smaller priority, so a
    batched search bounds its length by nothing).
    """
    start, max_nodes = checked_search(puzzle, start, heuristic, algorithm, node_limit, memory, explore, batch)
    if not puzzle.is_solvable(start):
        return unsolvable_result(algorithm, heuristic.name)
    return stored_search(puzzle, start, heuristic, algorithm, weights, max_nodes, reopen=reopen, tie_break=tie_break,
                         time_limit=time_limit, bpmx=bpmx, prune_at=prune_at, explore=explore, batch=batch, run=run)


def checked_search(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, algorithm: str, node_limit: int | None,
                   memory: float | None, explore: float = 0.0, batch: int = 1) -> tuple[np.ndarray, int]:
    """(the checked start, the nodes the kernel may store) of a best-first search, or a
    one-line InputError for a chance of a draw by type out of range, a node limit that does not
    fit or a start that is not a state of the board (result.checked_start)."""
    if not 0.0 <= explore < 1.0:
        raise InputError(f"the chance of a draw by type must lie in 0..1 (1 excluded), not {explore:g}")
    if batch < 1 or (batch > 1 and explore > 0):
        raise ValueError(f"a batch of {batch} nodes with draws by type {explore:g}")
    max_nodes = stored_capacity(puzzle, heuristic, algorithm, node_limit, memory, explore)
    return checked_start(puzzle, start, heuristic), max_nodes


def stored_search(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, algorithm: str, weights: tuple[int, int],
                  max_nodes: int, *, reopen: bool, tie_break: str, time_limit: float | None, bpmx: bool | None,
                  prune_at: int | None = None, explore: float = 0.0, batch: int = 1, run: int = 0) -> SearchResult:
    """best_first from a start that checked_search returned and that is solvable, storing at
    most `max_nodes` nodes (a capacity already checked against the memory: restarts.py gives
    each run a share of it)."""
    board = np.array(start, dtype=np.uint8)
    stop = np.zeros(1, dtype=np.uint8)
    applies_bpmx = uses_bpmx(heuristic, bpmx)
    kernel = prepare(puzzle, heuristic, bpmx)
    rules = policy(weights, reopen=reopen, tie_break=tie_rule(tie_break, weights[0] == 0), prune_at=prune_at,
                   explore=explore, batch=batch, run=run)
    fixed = (puzzle.neighbours, puzzle.goal, heuristic.leaves, heuristic.n_columns, stop, applies_bpmx,
             packing(puzzle), rules)
    initial_h = heuristic(board)
    (outcome, moves, expanded, generated, stored, raises, open_bound), late, seconds = timed(
        kernel, (board, max_nodes, *fixed), stop, time_limit)
    solution = moves_to_text(moves) if outcome == FOUND else None
    proves_open = reopen or (weights[0] == weights[1] and batch == 1)
    if outcome == EXHAUSTED:
        reason = none_shorter_reason(prune_at) if prune_at is not None else \
            "every reachable state was expanded without reaching the goal"
    else:
        reason = limit_reason(late, time_limit, max_nodes, "stored nodes")
    result = search_result(
        algorithm,
        heuristic.name,
        solution,
        optimal=heuristic.admissible and weights[0] == weights[1] and prune_at is None and batch == 1,
        nodes_expanded=expanded,
        nodes_generated=generated,
        nodes_stored=stored,
        seconds=seconds,
        initial_h=initial_h,
        reason=reason,
        bpmx=(applies_bpmx, raises, 0),
        admissible=heuristic.admissible,
        proven=max(_weighted_bound(solution, weights) if batch == 1 else 0,
                   open_bound if proves_open and prune_at is None else 0),
    )
    return verified(puzzle, start, result)


def stored_capacity(puzzle: Puzzle, heuristic: Heuristic, algorithm: str, node_limit: int | None,
                    memory: float | None, explore: float = 0.0) -> int:
    """How many nodes the kernel may store for `algorithm` (node_store.node_capacity), with
    type-based exploration's bytes per node where `explore` draws by type."""
    node_bytes = BYTES_PER_NODE + (TYPE_BYTES_PER_NODE if explore > 0 else 0)
    return node_capacity(puzzle, node_limit, node_bytes, algorithm, heuristic, memory)


def prepare(puzzle: Puzzle, heuristic: Heuristic, bpmx: bool | None):
    """The kernel for `heuristic`, compiled (or loaded from the disk cache) by a search of the
    goal itself, so that a search's clock never counts the compile."""
    kernel = heuristic.kernel(_best_first)
    rules = policy((1, 1), reopen=False, tie_break=WEIGHTED_TIE_BREAK)
    kernel(puzzle.goal.copy(), 1, puzzle.neighbours, puzzle.goal, heuristic.leaves, heuristic.n_columns,
           np.zeros(1, dtype=np.uint8), uses_bpmx(heuristic, bpmx), packing(puzzle), rules)
    return kernel


def _weighted_bound(solution: str | None, weights: tuple[int, int]) -> int:
    """What a solution found on the priority a * g + b * h proves about the shortest length:
    its length is at most b / a times the shortest (with an admissible h), so the shortest is at
    least ceil(length * a / b); nothing without a solution or for a = 0 (greedy)."""
    if solution is None or weights[0] == 0:
        return 0
    return -(-len(solution) * weights[0] // weights[1])


def tie_rule(tie_break: str, greedy: bool) -> str:
    """The rule `tie_break` names, AUTO resolved for a greedy search or a weighted one."""
    if tie_break != AUTO:
        return tie_break
    return GREEDY_TIE_BREAK if greedy else WEIGHTED_TIE_BREAK


def best_first_settings(heuristic: Heuristic, options: dict, greedy: bool = False) -> dict:
    """What a batch row records of a best-first search: whether BPMX applied, its tie-breaking rule."""
    return {**bpmx_setting(heuristic, options), "tie_break": tie_rule(options["tie_break"], greedy)}


def greedy_settings(heuristic: Heuristic, options: dict) -> dict:
    """best_first_settings of a greedy search."""
    return best_first_settings(heuristic, options, greedy=True)


AUTO = "auto"
# Ties among equal h decide where greedy search goes on a plateau: toward the smaller g, at random
# among equal g, it measured the fewest expansions to a first solution on uniformly random 6x6,
# 7x7 and 8x8 states, and about half the length of random ties; larger-g walks a plateau depth
# first and, with first-in-first-out order among equal g, smaller-g breadth first
# (docs/developer/lab-notes.md, "Greedy search's tie-breaking").
# Among equal f, A* and weighted A* take the deeper node, nearer the goal, as A*'s published
# counts do.
GREEDY_TIE_BREAK = "smaller-g"
WEIGHTED_TIE_BREAK = "larger-g"
TIE_BREAK = Option("tie_break", "choice", "the order among nodes of equal priority in the best-first searches: "
                   "larger-g, smaller-g (at random among equal g), fifo, lifo, random (seeded) or auto (the default: "
                   "smaller-g for greedy search, larger-g for the others)", "a tie-breaking rule applies", AUTO, (AUTO, *TIE_BREAKS))
EXPLORE = Option("explore", "number", "greedy search's chance of expanding, instead of a best node, one drawn by "
                 "type-based exploration (a type (g, h) of the open nodes, then a node of it, each uniformly; Xie, "
                 "Muller & Holte 2014), below 1; default 0", "a draw by type applies", 0.0)
