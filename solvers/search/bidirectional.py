"""bidirectional.py -- the one kernel behind the front-to-end bidirectional searches: two stores, open nodes in buckets by (g, key), a rule that chooses.

A forward search from the start and a backward search from the goal each store the states they
reach (node_store.py: packed states in a hash index) with g (moves from their own end), h (the
heuristic toward the other end: toward the goal forward, toward the start backward) and a
*key* that the rule computes from g, h and, where the rule asks for it, the heuristic toward
the search's own end. A child generated in one direction is looked up in the other's store;
a hit is a path, and the shortest so far is the incumbent U. The open nodes of a direction
sit in buckets by (g, key), each bucket a doubly linked list (last in, first out); the
kernel keeps, for each g, the least key of a non-empty bucket (`least_key`), which is all
that the rules read besides the buckets' sizes.

A *rule* (one per search, in its own module: mm.py, dibbs.py, ...) is a NamedTuple class whose
kernels its search registers with the search itself (`register_bidirectional`, which calls
`register_rule(rule_class, key, choose)`):

    key(rule, g, h, h_own) -> int
        the bucket key of a node with moves `g` from its end, heuristic `h` toward the other
        end and `h_own` toward its own end (0 unless the rule was registered as reading it).
    choose(rule, least_key, sizes, rows, open_count, upper, memo) -> (action, lower_bound, forward_row, backward_row)
        what to do next: STOP (U is proven shortest: `lower_bound` >= U), EXHAUSTED (no path
        is left to find), or expand one node FORWARD, BACKWARD or in BOTH directions, each
        from the bucket of least key in its row g = `*_row`, or from the bucket a rule names
        by `named_bucket(sizes, g, key)` in its place. least_key[d, g] is NO_KEY for an
        empty row; sizes[d, g, key] counts each bucket's nodes; rows[d] bounds the rows that
        may be non-empty; open_count[d] is the number of open nodes; `upper` is U (NO_KEY
        before any path); `memo` is the rule's own int64 array (zeros at the start), kept
        from call to call: MEMO_SLOTS slots, then one per key (memo[MEMO_SLOTS + key]).

The rule's class dispatches at compile time (numba `overload`), so a rule costs nothing at run
time in the kernel compiled for it, where the heuristic is specialised; with a heuristic's
Evaluators the kernel is compiled once for every rule and calls the rule's kernels by their
address (`rule_by_address`, solvers/by_address.py). Adding a search is its module: its rule,
its registration with the search registry (registry.py) and its tests. With an admissible
heuristic, a child with g + h >= U cannot lie on a shorter path and is not stored; every rule
here stops before it would expand one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numba
import numpy as np
from numba.core import types
from numba.extending import overload

from pdb_build.build import built_file
from pdb_build.partitions import Partition, tiles_digest
from pdb_build.store import ADDITIVE
from solvers.by_address import address_of, array_at, call_at, descriptor_of, native_address, rebuilt
from solvers.errors import InputError
from solvers.heuristics import Heuristic
from solvers.heuristics.dispatch import h_child, h_start
from solvers.heuristics.pdb_lookup import mirror_maps
from solvers.heuristics.pdb_terms import REFLECT_SUFFIX, blank_on_diagonal
from solvers.heuristics.spec import from_spec
from solvers.jit import address_kernel, inline_kernel, kernel
from solvers.moves import slide
from solvers.puzzle import Puzzle
from solvers.search.best_first import stored_path
from solvers.search.depth_first import N_DIRECTIONS, STOP_CHECK_INTERVAL
from solvers.search.interrupt import timed
from solvers.search.registry import MEMORY, NODE_LIMIT, TIME_LIMIT, Option, Search, names_listed, register
from solvers.search.node_store import EMPTY, INITIAL_CAPACITY, find, insert, new_index, node_capacity, pack, \
    packing, unpack
from solvers.search.result import Frontiers, SearchResult, checked_start, limit_reason, moves_to_text, \
    search_result, undone, unsolvable_result, verified

STOP, EXHAUSTED, FORWARD, BACKWARD, BOTH = range(5)
FOUND_SHORTEST, NO_PATH, LIMIT_REACHED = range(3)  # how the kernel ended
NO_KEY = np.iinfo(np.int64).max  # an empty row's least key; U before any path
NOTHING = -1  # the end of a bucket's list
MEMO_SLOTS = 8  # a rule's memo slots before its slots by key


class RuleKernels(NamedTuple):
    key: object
    choose: object
    reads_own: bool
    needs_consistent: bool


_RULES: dict[type, RuleKernels] = {}  # rule class -> its kernels
_SEARCH_RULES: dict[str, object] = {}  # search name -> the rule (its papers') it runs under


def register_rule(rule_class: type, key, choose, *, reads_own: bool = False, needs_consistent: bool = False) -> None:
    """Make `rule_class` (a NamedTuple) a rule of the bidirectional kernel, with the kernels
    `key` and `choose` (signatures in the module docstring); `reads_own`: the key reads the
    heuristic toward the node's own end, which the kernel then evaluates at every node;
    `needs_consistent`: the stopping rule holds only with a consistent heuristic, and the
    search refuses one that may not be (an admissible one is enough otherwise)."""
    _RULES[rule_class] = RuleKernels(key, choose, reads_own, needs_consistent)


def rule_kernels(rule) -> RuleKernels:
    """The registered kernels of `rule` (an instance of a registered class)."""
    try:
        return _RULES[type(rule)]
    except KeyError:
        raise TypeError(f"{type(rule).__name__} is not a registered bidirectional rule") from None


def rule_of(name: str):
    """The rule, by its papers', of the bidirectional search registered as `name`."""
    return _SEARCH_RULES[name]


def key_of(rule, g, h, h_own):
    return rule_kernels(rule).key(rule, g, h, h_own)


def choose(rule, least_key, sizes, rows, open_count, upper, memo):
    return rule_kernels(rule).choose(rule, least_key, sizes, rows, open_count, upper, memo)


@overload(key_of, inline="always")
def _key_of_compiled(rule, g, h, h_own):
    if rule.instance_class is RuleByAddress:
        return lambda rule, g, h, h_own: call_at(rule.key, (address_of(rule.descriptor), np.int64(g), np.int64(h),
                                                            np.int64(h_own)), types.int64)
    key = _RULES[rule.instance_class].key
    return lambda rule, g, h, h_own: key(rule, g, h, h_own)


@overload(choose, inline="always")
def _choose_compiled(rule, least_key, sizes, rows, open_count, upper, memo):
    if rule.instance_class is RuleByAddress:
        def by_address(rule, least_key, sizes, rows, open_count, upper, memo):
            arguments = (address_of(rule.descriptor), address_of(least_key), address_of(sizes), address_of(rows),
                         address_of(open_count), np.int64(upper), address_of(memo), np.int64(least_key.shape[1]))
            return call_at(rule.choose, arguments, CHOICE)
        return by_address
    chosen = _RULES[rule.instance_class].choose
    return lambda rule, least_key, sizes, rows, open_count, upper, memo: chosen(rule, least_key, sizes, rows,
                                                                                open_count, upper, memo)


class RuleByAddress(NamedTuple):
    """A rule as data of one type: the native addresses of its key and choose compiled apart for
    its class, and its descriptor (solvers/by_address.py); the kernel compiled for it serves
    every rule, as one compiled for Evaluators serves every heuristic."""

    key: int
    choose: int
    descriptor: np.ndarray


CHOICE = types.UniTuple(types.int64, 4)  # what choose returns: action, lower bound, forward and backward rows
KEY_ARGUMENTS = (types.int64,) * 4  # descriptor, g, h, h_own
# descriptor, least_key, sizes, rows, open_count, upper, memo (addresses, upper a number), the grid's side
CHOOSE_ARGUMENTS = (types.int64,) * 8
SIZES, LEAST_KEYS = types.Array(types.int32, 3, "C"), types.Array(types.int64, 2, "C")
COUNTS = types.Array(types.int64, 1, "C")  # rows, open_count and memo


def _key_by_address(descriptor, g, h, h_own, rule_type):
    return np.int64(key_of(rebuilt(descriptor, rule_type), g, h, h_own))


def _choose_by_address(descriptor, least_key, sizes, rows, open_count, upper, memo, grid, rule_type):
    action, bound, forward_row, backward_row = choose(
        rebuilt(descriptor, rule_type), array_at(least_key, (2, grid), LEAST_KEYS),
        array_at(sizes, (2, grid, grid), SIZES), array_at(rows, (2,), COUNTS), array_at(open_count, (2,), COUNTS),
        upper, array_at(memo, (MEMO_SLOTS + grid,), COUNTS))
    return np.int64(action), np.int64(bound), np.int64(forward_row), np.int64(backward_row)


RULE_KERNELS = (address_kernel(_key_by_address), address_kernel(_choose_by_address))


def rule_by_address(rule) -> RuleByAddress:
    """`rule` (a registered rule, a module's constant: it lives as long as the process) as the
    kernel compiled once for every rule takes it."""
    return _by_address(type(rule), rule)  # two rules of different classes may be equal tuples


@functools.cache
def _by_address(rule_class: type, rule) -> RuleByAddress:
    rule_type = numba.typeof(rule)
    return RuleByAddress(native_address(RULE_KERNELS[0], KEY_ARGUMENTS, rule_type),
                         native_address(RULE_KERNELS[1], CHOOSE_ARGUMENTS, rule_type), descriptor_of(rule))


@kernel
def f_key(rule, g, h, h_own):
    """The key of the rules that rank nodes by f = g + h."""
    return g + h


@kernel
def least_in_direction(least_key, d, rows):
    """(the least key of direction d's open nodes, the least g among the rows holding it, the
    least g of an open node); (NO_KEY, -1, -1) if it has none."""
    best, best_row, first_row = NO_KEY, -1, -1
    for row in range(rows[d]):
        if least_key[d, row] != NO_KEY:
            if first_row < 0:
                first_row = row
            if least_key[d, row] < best:
                best, best_row = least_key[d, row], row
    return best, best_row, first_row


@kernel
def least_g_within(least_key, d, rows, bound):
    """The least g of direction d's open nodes with f <= `bound` (-1 if none)."""
    for row in range(rows[d]):
        if least_key[d, row] <= bound:
            return row
    return -1


@kernel
def named_bucket(sizes, g, key):
    """What `choose` returns in place of a row to expand a node of the bucket (g, key) rather
    than of the row's least key: a number past every row that `_chosen_bucket` reads back."""
    return g + sizes.shape[1] * (key + 1)


@kernel
def _chosen_bucket(least_key, d, choice, grid):
    """The bucket (g, key) of direction d that `choose`'s row `choice` names: the row's bucket
    of least key, or the one named_bucket named."""
    if choice < grid:
        return choice, least_key[d, choice]
    return choice % grid, choice // grid - 1


@kernel
def initial_bound(least_key):
    """The first lower bound of the rules that raise one (NBS, DVCBS, GBFHS): max(1, h_F(start),
    h_B(goal)), read from the roots' keys (f = h at g = 0) before any expansion."""
    return max(1, least_key[0, 0], least_key[1, 0])


@kernel
def raised_bound(sizes, rows, bound, forward, backward, epsilon):
    """The next lower bound once no pair qualifies at `bound`: the least f above it in either
    direction and, where both have ready nodes (least g `forward` and `backward`, -1 if none),
    their g's sum plus `epsilon`; NO_KEY if nothing is left."""
    raised = min(least_f_above(sizes, 0, rows, bound), least_f_above(sizes, 1, rows, bound))
    if forward >= 0 and backward >= 0:
        raised = min(raised, forward + backward + epsilon)
    return raised


@kernel
def least_f_above(sizes, d, rows, bound):
    """The least f above `bound` of direction d's open nodes (NO_KEY if none)."""
    least = NO_KEY
    for row in range(rows[d]):
        for f in range(bound + 1, min(least, sizes.shape[2])):
            if sizes[d, row, f] > 0:
                least = f
                break
    return least


@kernel
def _next_key(sizes, d, g, key):
    """The least key from `key` on of a non-empty bucket in row g (NO_KEY if none)."""
    for k in range(key, sizes.shape[2]):
        if sizes[d, g, k] > 0:
            return np.int64(k)
    return NO_KEY


@kernel
def _bucket_key(rule, g, h, h_own, grid):
    """The rule's key of a node, within the grid's keys (0 to grid - 1)."""
    return min(max(key_of(rule, g, h, h_own), 0), grid - 1)


@kernel
def _take_out(heads, following, preceding, sizes, least_key, open_count, d, node, g, key):
    """Take open `node` of direction d out of its bucket (g, key): out of the bucket's list and
    its counts, the row's least key moved on where the bucket was it and is now empty."""
    after, before = following[d, node], preceding[d, node]
    if before == NOTHING:
        heads[d, g, key] = after
    else:
        following[d, before] = after
    if after != NOTHING:
        preceding[d, after] = before
    sizes[d, g, key] -= 1
    open_count[d] -= 1
    if sizes[d, g, key] == 0 and least_key[d, g] == key:
        least_key[d, g] = _next_key(sizes, d, g, key + 1)


@kernel
def _put_in(heads, following, preceding, sizes, least_key, open_count, rows, d, node, g, key):
    """Put `node` of direction d first in its bucket (g, key), counted in its row and direction."""
    first = heads[d, g, key]
    following[d, node] = first
    preceding[d, node] = NOTHING
    if first != NOTHING:
        preceding[d, first] = node
    heads[d, g, key] = node
    sizes[d, g, key] += 1
    open_count[d] += 1
    least_key[d, g] = min(least_key[d, g], key)
    rows[d] = max(rows[d], g + 1)


@kernel
def _grown_rows(array, capacity):
    """A copy of the [2, n] or [2, n, words] `array` with room for `capacity` columns."""
    bigger = np.empty((2, capacity) + array.shape[2:], dtype=array.dtype)
    bigger[:, : array.shape[1]] = array
    return bigger


# The heuristics are evaluated in these two small kernels, each written once for the two places
# that need it (toward the other end in one direction, toward its own end in the other). When
# numba itself inlined the kinds' kernels at both places, it compiled one PDB evaluation
# (pdb_eager.py's update) into a wrong value: DIBBS read h toward a node's own end as 0 one move
# from it (tests/test_bidirectional.py keeps the states that showed it; every 2x4 state gets its
# exact length).
@inline_kernel
def _estimates(leaves, scratch, own_leaves, own_scratch, reads_own, board, position):
    """(h, h_own) of `board` by `leaves` and, if `reads_own`, `own_leaves` (else 0), each
    filling row 0 of its scratch."""
    h = np.int64(h_start(leaves, board, position, scratch, 0))
    own = np.int64(h_start(own_leaves, board, position, own_scratch, 0)) if reads_own else np.int64(0)
    return h, own


@inline_kernel
def _child_estimates(leaves, scratch, own_leaves, own_scratch, reads_own, board, position, tile, source, target):
    """(h, h_own) after `tile` moved from `source` to `target`, as h_child gives them from
    row 0 of each scratch (h_own 0 unless `reads_own`)."""
    h = np.int64(h_child(leaves, board, position, scratch, 0, tile, source, target))
    own = np.int64(h_child(own_leaves, board, position, own_scratch, 0, tile, source, target)) if reads_own \
        else np.int64(0)
    return h, own


@kernel
def _bidirectional(start, max_nodes, neighbours, goal, estimates, rule, reads_own, layout, grid, stop):
    """Front-to-end bidirectional search from `start` (forward, estimating the distance to
    `goal`) and from `goal` (backward, estimating it to `start`) under `rule`; `estimates` is
    (forward leaves, their scratch columns, backward leaves, theirs), the two heuristics as a
    search kernel takes them; storing at most `max_nodes` nodes in both stores together, g and keys below
    `grid`; setting stop[0] ends it within STOP_CHECK_INTERVAL expansions.

    Returns (outcome, forward moves to the meeting state, backward moves to it, expanded
    [forward, backward], necessary [forward, backward] (expanded states with g + h below the
    length found), generated, stored, the lower bound proven, the meeting state)."""
    bits, per_word, words = layout
    forward_leaves, forward_columns, backward_leaves, backward_columns = estimates
    capacity = INITIAL_CAPACITY
    codes = np.empty((2, capacity, words), dtype=np.uint64)
    g = np.empty((2, capacity), dtype=np.int32)
    h = np.empty((2, capacity), dtype=np.int32)
    key = np.empty((2, capacity), dtype=np.int32)
    move = np.empty((2, capacity), dtype=np.int8)
    closed = np.zeros((2, capacity), dtype=np.bool_)
    following = np.empty((2, capacity), dtype=np.int32)
    preceding = np.empty((2, capacity), dtype=np.int32)
    heads = np.full((2, grid, grid), NOTHING, dtype=np.int32)
    sizes = np.zeros((2, grid, grid), dtype=np.int32)
    least_key = np.full((2, grid), NO_KEY, dtype=np.int64)
    rows = np.zeros(2, dtype=np.int64)
    open_count = np.zeros(2, dtype=np.int64)
    memo = np.zeros(MEMO_SLOTS + grid, dtype=np.int64)
    n_nodes = np.zeros(2, dtype=np.int64)
    expanded = np.zeros(2, dtype=np.int64)
    board = start.copy()
    position = np.zeros(board.shape[0], dtype=np.int64)
    forward_scratch = np.zeros((2, forward_columns), dtype=np.int64)
    backward_scratch = np.zeros((2, backward_columns), dtype=np.int64)
    index_forward = new_index(capacity)
    index_backward = new_index(capacity)
    child_code = np.empty((1, words), dtype=np.uint64)
    for d in range(2):
        if d == 0:
            board[:] = start
            root_h, root_own = _estimates(forward_leaves, forward_scratch, backward_leaves, backward_scratch,
                                          reads_own, board, position)
        else:
            board[:] = goal
            root_h, root_own = _estimates(backward_leaves, backward_scratch, forward_leaves, forward_scratch,
                                          reads_own, board, position)
        pack(board, bits, per_word, codes[d], 0)
        g[d, 0], h[d, 0], move[d, 0] = 0, root_h, -1
        key[d, 0] = _bucket_key(rule, 0, root_h, root_own, grid)
        _put_in(heads, following, preceding, sizes, least_key, open_count, rows, d, 0, 0, key[d, 0])
        n_nodes[d] = 1
    index_forward = insert(index_forward, codes[0], 0, find(index_forward, codes[0], codes[0], 0)[1], 1)
    index_backward = insert(index_backward, codes[1], 0, find(index_backward, codes[1], codes[1], 0)[1], 1)
    upper = NO_KEY
    meeting = np.full(2, NOTHING, dtype=np.int64)  # the nodes, forward and backward, of the best path's meeting state
    if find(index_backward, codes[1], codes[0], 0)[0] == 0:
        upper = 0
        meeting[:] = 0
    generated = 0
    outcome = LIMIT_REACHED
    bound = 0
    steps = 0
    while True:
        steps += 1
        if steps % STOP_CHECK_INTERVAL == 0 and stop[0]:
            break
        action, bound, forward_row, backward_row = choose(rule, least_key, sizes, rows, open_count, upper, memo)
        if action == STOP:
            outcome = FOUND_SHORTEST
            break
        if action == EXHAUSTED:
            outcome = NO_PATH if upper == NO_KEY else FOUND_SHORTEST
            break
        full = False
        for d in range(2):
            if (d == 0 and action == BACKWARD) or (d == 1 and action == FORWARD):
                continue
            row, bucket = _chosen_bucket(least_key, d, forward_row if d == 0 else backward_row, grid)
            node = heads[d, row, bucket]
            _take_out(heads, following, preceding, sizes, least_key, open_count, d, node, row, bucket)
            closed[d, node] = True
            expanded[d] += 1
            blank = unpack(codes[d], node, bits, per_word, board)
            if d == 0:
                _estimates(forward_leaves, forward_scratch, backward_leaves, backward_scratch, reads_own, board,
                           position)
            else:
                _estimates(backward_leaves, backward_scratch, forward_leaves, forward_scratch, reads_own, board,
                           position)
            child_g = np.int64(g[d, node]) + 1
            for direction in range(N_DIRECTIONS):
                if node != 0 and direction == move[d, node] ^ 1:
                    continue
                target = neighbours[blank, direction]
                if target < 0:
                    continue
                tile = slide(board, position, target, blank)
                generated += 1
                if d == 0:
                    child_h, own = _child_estimates(forward_leaves, forward_scratch, backward_leaves, backward_scratch,
                                                    reads_own, board, position, tile, target, blank)
                else:
                    child_h, own = _child_estimates(backward_leaves, backward_scratch, forward_leaves, forward_scratch,
                                                    reads_own, board, position, tile, target, blank)
                pack(board, bits, per_word, child_code, 0)
                slide(board, position, blank, target)
                if child_g + child_h >= upper:
                    continue  # no shorter path through it
                if child_g >= grid:
                    full = True
                    break
                child_key = _bucket_key(rule, child_g, child_h, own, grid)
                index = index_forward if d == 0 else index_backward
                child, slot = find(index, codes[d], child_code, 0)
                other_index = index_backward if d == 0 else index_forward
                met = find(other_index, codes[1 - d], child_code, 0)[0]
                if met != EMPTY and closed[1 - d, met]:
                    met = EMPTY
                if child != EMPTY:
                    if child_g >= g[d, child]:
                        if met != EMPTY and g[d, child] + g[1 - d, met] < upper:  # met since it was stored
                            upper = g[d, child] + g[1 - d, met]
                            meeting[d], meeting[1 - d] = child, met
                        continue
                    if closed[d, child]:
                        closed[d, child] = False
                    else:
                        _take_out(heads, following, preceding, sizes, least_key, open_count, d, child, g[d, child],
                                  key[d, child])
                else:
                    if n_nodes[0] + n_nodes[1] >= max_nodes:
                        full = True
                        break
                    if n_nodes[d] == capacity:
                        capacity *= 2
                        codes = _grown_rows(codes, capacity)
                        g, h, key = _grown_rows(g, capacity), _grown_rows(h, capacity), _grown_rows(key, capacity)
                        move = _grown_rows(move, capacity)
                        closed = _grown_rows(closed, capacity)
                        closed[:, n_nodes.max():] = False
                        following, preceding = _grown_rows(following, capacity), _grown_rows(preceding, capacity)
                    child = n_nodes[d]
                    n_nodes[d] += 1
                    codes[d, child] = child_code[0]
                    if d == 0:
                        index_forward = insert(index_forward, codes[0], child, slot, n_nodes[0])
                    else:
                        index_backward = insert(index_backward, codes[1], child, slot, n_nodes[1])
                g[d, child], h[d, child], key[d, child], move[d, child] = child_g, child_h, child_key, direction
                _put_in(heads, following, preceding, sizes, least_key, open_count, rows, d, child, child_g, child_key)
                if met != EMPTY and child_g + g[1 - d, met] < upper:
                    upper = child_g + g[1 - d, met]
                    meeting[d], meeting[1 - d] = child, met
            if full:
                break
        if full:
            break
    necessary = np.zeros(2, dtype=np.int64)
    if outcome == FOUND_SHORTEST:
        for d in range(2):
            for node in range(n_nodes[d]):
                if closed[d, node] and g[d, node] + h[d, node] < upper:
                    necessary[d] += 1
    if upper == NO_KEY:
        return outcome, np.empty(0, dtype=np.int8), np.empty(0, dtype=np.int8), expanded, necessary, generated, \
            n_nodes.sum(), bound, start.copy()
    forward_moves = stored_path(codes[0], move[0], meeting[0], index_forward, neighbours, layout, board, position)
    backward_moves = stored_path(codes[1], move[1], meeting[1], index_backward, neighbours, layout, board, position)
    unpack(codes[0], meeting[0], bits, per_word, board)
    return outcome, forward_moves, backward_moves, expanded, necessary, generated, n_nodes.sum(), bound, board.copy()


# per stored node besides its packed state: g, h and key (int32), move and closed (a byte each),
# its bucket's links (int32 each way); index slots are node_store's
BYTES_PER_NODE = 3 * 4 + 2 + 2 * 4


def grid_size(puzzle: Puzzle) -> int:
    """The number of g values (and of keys) the buckets hold: twice n * (rows + cols), above the
    known diameter of every board (31 moves for 3x3, 80 for 4x4, at most 205 for 5x5), so that
    no g or key of a node on a shortest path reaches it (a key is at most about three times a
    length: DIBBS's 2g + h - h_own)."""
    return 2 * puzzle.n_cells * (puzzle.rows + puzzle.cols) + 2


TOWARD_TABLES = Option("toward_tables", "folder", "keep the PDB tables built toward each start in this folder, so "
                       "that another search of the same start reads them instead of building them again (the "
                       "tables of one start take as much room as the goal's; default: a temporary folder per "
                       "search)", "a folder of tables built toward the start applies")

PAPER, DIBBS_CODE = "paper", "dibbs-code"
RULES = Option("rules", "choice", f"the rules NBS, DVCBS and GBFHS follow: {PAPER} (their papers', the default) or "
               f"{DIBBS_CODE} (those of tinamil/dibbs's code behind the published sliding-tile counts: NBS's pair "
               "bound without the cheapest move's cost, DVCBS's covers that hold every backward cluster valued by "
               "those alone, GBFHS's levels that also expand the nodes they generate at their limit on g)",
               "the choice of rules applies", PAPER, (PAPER, DIBBS_CODE))


@contextlib.contextmanager
def heuristic_toward(heuristic: Heuristic, target: np.ndarray, algorithm: str,
                     toward_tables: str | Path | None = None) -> Iterator[Heuristic]:
    """`heuristic`'s spec rebuilt toward `target` instead of the goal, for as long as the block
    lasts: what a backward search estimates its distance to the start by. Kinds computed from
    the goal (Manhattan distance, linear conflict, walking distance) are computed from `target`;
    each additive PDB file is replaced by the same partition's tables built toward `target`
    (pdb_build's breadth-first search; BENCHMARKS.md gives the seconds), into a folder removed
    when the block ends, or kept in `toward_tables` (made if missing) and read from there by
    later calls. A file read with its reflected lookup alone (`+reflect`) toward a target whose
    blank lies off the diagonal, which the mirror does not map onto itself, becomes the maximum
    of its partition's tables and the mirrored partition's (each tile t replaced by m(t), as the
    reflected lookup toward the goal renames them: pdb_lookup.py), both built toward `target`.
    That is another maximum than the reflected lookup's toward a target on the diagonal, which
    renames each tile by the target's mirror, not the goal's; both are admissible. A one-line
    InputError, before any table is built, where the spec cannot be built toward `target` (a
    non-additive PDB, a reflection with other suffixes off the diagonal), and after building
    where from_spec refuses it (a learned model)."""
    puzzle = heuristic.puzzle
    toward = Puzzle(puzzle.rows, puzzle.cols, goal=target)
    databases = {str(d.path.resolve()): d for term in heuristic.terms for d in getattr(term, "databases", ())}
    with contextlib.ExitStack() as tables:  # a temporary folder for the built tables, made only if some are
        spec = heuristic.spec
        folder = None
        if databases:
            folder = Path(toward_tables) if toward_tables is not None else Path(
                tables.enter_context(tempfile.TemporaryDirectory(prefix="tilepdb-toward-")))
        for resolved, database in databases.items():
            if database.cost_model != ADDITIVE:
                raise InputError(f"{algorithm} searches backward, toward the start state, and builds the tables of "
                                 f"{database.path.name} toward it: only additive PDB files can be")
            if f"pdb:{resolved}{REFLECT_SUFFIX}+" in spec and not blank_on_diagonal(toward):  # +reflect is named first
                raise InputError(f"{algorithm} searches backward, toward a start whose blank lies off the main "
                                 f"diagonal, where {database.path.name} is read reflected only with +reflect alone "
                                 "(as the maximum of its partition's tables and the mirrored partition's)")
        for resolved, database in databases.items():
            spec = _spec_toward(spec, resolved, database, toward, folder)
        try:
            backward = from_spec(toward, spec)
        except InputError as error:
            raise InputError(f"{algorithm} searches backward, toward the start state, and {heuristic.name} cannot be "
                             f"built toward it: {error}") from None
        yield backward


def _spec_toward(spec: str, resolved: str, database, toward: Puzzle, folder: Path) -> str:
    """`spec` with the file `resolved` (`database`'s, for the goal's board) replaced by its
    partition's tables built toward `toward`'s goal in `folder`; read +reflect alone where the
    blank of `toward`'s goal lies off the diagonal, by the maximum of those tables and the
    mirrored partition's, built too (heuristic_toward)."""
    def built(partition: Partition) -> Path:
        path = built_file(toward, partition, _partition_folder(folder, partition), table_kind=database.table_kind)
        return path.resolve()

    plain = built(database.partition)
    reflected = re.compile(re.escape(f"pdb:{resolved}{REFLECT_SUFFIX}") + r"(?!\+)")  # no other suffix
    if reflected.search(spec) and not blank_on_diagonal(toward):
        both = f"max(pdb:{plain}, pdb:{built(mirrored_partition(database))})"
        spec = reflected.sub(lambda _: both, spec)
    return spec.replace(f"pdb:{resolved}", f"pdb:{plain}")


def mirrored_partition(database) -> Partition:
    """The partition of `database` with each tile t replaced by m(t), the tile whose goal cell is
    the mirror in the main diagonal of t's (mirror_maps of the file's own board and goal): the
    patterns the reflected lookup reads toward the file's goal, named as the file's with "-mirrored"."""
    tile_map = mirror_maps(database.puzzle)[1]
    patterns = tuple(tuple(sorted(int(tile_map[t]) for t in pattern)) for pattern in database.partition.patterns)
    return Partition(f"{database.partition.name}-mirrored", patterns)


def _partition_folder(folder: Path, partition) -> Path:
    """The subfolder of `folder` (made if missing) for the tables of `partition`: named by its
    tiles as well as its name, since files are named by the partition's name alone and two
    partitions of one name may group other tiles."""
    path = folder / f"{partition.name}-{tiles_digest(partition.patterns)}"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot keep tables built toward the start in {folder}: {error.strerror}") from None
    return path


def bidirectional_search(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, algorithm: str, rule, *,
                         node_limit: int | None = None, time_limit: float | None = None,
                         memory: float | None = None, toward_tables: str | Path | None = None) -> SearchResult:
    """The shortest solution from `start` by the bidirectional kernel under `rule`, reported as
    `algorithm`, replayed and checked. The forward search estimates by `heuristic`, the backward
    one by the same spec built toward `start` (heuristic_toward, its tables kept in
    `toward_tables` if given). Both stores together hold at
    most `node_limit` nodes (node_store.node_capacity: by default what `memory` GiB or a share of
    the memory available hold); the search gives up (GAVE_UP, with the lower bound it proved) at
    that limit or after `time_limit` seconds, compile excluded. The result's `frontiers` says
    what each direction expanded and where they met; it is optimal with an admissible heuristic, or
    a consistent one where the rule needs it: a one-line InputError for one that may not be.
    """
    if rule_kernels(rule).needs_consistent and not heuristic.consistent:
        raise InputError(f"{algorithm} finds the shortest length only with a consistent heuristic, and "
                         f"{heuristic.name} may not be (plain PDB tables take the least entry over the blank's "
                         "cells; uncompressed zero-aware tables, built with --zero-aware, are consistent)")
    start = checked_start(puzzle, start, heuristic)
    if not puzzle.is_solvable(start):
        return unsolvable_result(algorithm, heuristic.name)
    with heuristic_toward(heuristic, start, algorithm, toward_tables) as backward:
        return _searched(puzzle, start, heuristic, backward, algorithm, rule, node_limit, time_limit, memory)


def _searched(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, backward: Heuristic, algorithm: str, rule,
              node_limit: int | None, time_limit: float | None, memory: float | None) -> SearchResult:
    """bidirectional_search from a checked, solvable start with `backward`, the heuristic
    toward it."""
    max_nodes = node_capacity(puzzle, node_limit, BYTES_PER_NODE, algorithm, heuristic, memory)
    search = heuristic.kernel(_bidirectional)
    reads_own = rule_kernels(rule).reads_own
    stop = np.zeros(1, dtype=np.uint8)
    backward = backward.with_kernels(heuristic.specialised)  # the kernel takes the two as one kind
    estimates = (heuristic.leaves, heuristic.n_columns, backward.leaves, backward.n_columns)
    kernel_rule = rule if heuristic.specialised else rule_by_address(rule)  # one kernel for every rule
    fixed = (puzzle.neighbours, puzzle.goal, estimates, kernel_rule, reads_own, packing(puzzle), grid_size(puzzle),
             stop)
    search(puzzle.goal.copy(), 2, *fixed)  # compiled before the clock starts
    board = np.array(start, dtype=np.uint8)
    (outcome, forward, backward_moves, expanded, necessary, generated, stored, bound, meeting), late, seconds = timed(
        search, (board, max_nodes, *fixed), stop, time_limit)
    if outcome == NO_PATH:
        raise RuntimeError(f"{algorithm} ran out of nodes without a path from a solvable start")
    solution = None
    if outcome == FOUND_SHORTEST:
        solution = moves_to_text(forward) + undone(moves_to_text(backward_moves))
    proves = heuristic.admissible
    result = search_result(
        algorithm, heuristic.name, solution, optimal=proves, nodes_expanded=int(expanded.sum()),
        nodes_generated=generated, nodes_stored=stored, seconds=seconds, initial_h=heuristic(board),
        admissible=heuristic.admissible,
        reason=limit_reason(late, time_limit, max_nodes, "stored nodes"), proven=bound if proves else 0)
    if solution is not None:
        result = dataclasses.replace(result, frontiers=Frontiers(
            int(expanded[0]), int(expanded[1]), int(necessary[0]), int(necessary[1]), puzzle.format(meeting),
            len(forward)))
    return verified(puzzle, start, result)


def register_bidirectional(name: str, summary: str, rule, key, choose, *, code_rule=None, reads_own: bool = False,
                           needs_consistent: bool = False):
    """Register the search `name` that runs the kernel under `rule` (a NamedTuple instance),
    its class's kernels `key` and `choose` and flags as register_rule says, with the options
    every bidirectional search takes, and RULES where `code_rule` (an instance of the same
    class) restates the rules of the code behind the published counts; returns its function,
    `run(puzzle, start, heuristic, *, node_limit=None, time_limit=None, memory=None,
    toward_tables=None, rules=PAPER)`, as bidirectional_search says."""
    register_rule(type(rule), key, choose, reads_own=reads_own, needs_consistent=needs_consistent)
    _SEARCH_RULES[name] = rule
    followed = {PAPER: rule} | ({DIBBS_CODE: code_rule} if code_rule is not None else {})

    def run(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, node_limit: int | None = None,
            time_limit: float | None = None, memory: float | None = None,
            toward_tables: str | Path | None = None, rules: str = PAPER) -> SearchResult:
        if rules not in followed:
            raise InputError(f"{name} follows the rules {names_listed(list(followed))}, not {rules!r}")
        return bidirectional_search(puzzle, start, heuristic, name, followed[rules], node_limit=node_limit,
                                    time_limit=time_limit, memory=memory, toward_tables=toward_tables)

    run.__name__ = run.__qualname__ = name
    run.__doc__ = (f"The shortest solution from `start` by {summary.split(':')[0]} with `heuristic` (toward the goal; "
                   "the same spec toward the start backward), replayed and checked, as bidirectional_search says.")
    options = (NODE_LIMIT, MEMORY, TIME_LIMIT, TOWARD_TABLES) + ((RULES,) if code_rule is not None else ())
    register(Search(name, summary, run, informed=True, family="bidirectional", options=options,
                    **({"setting_fields": ("rules",), "settings": _rules_setting} if code_rule is not None else {})))
    return run


def _rules_setting(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of a search that takes RULES: the rules it followed."""
    return {"rules": options["rules"]}
