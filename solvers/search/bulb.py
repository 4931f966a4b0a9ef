"""bulb.py -- BULB (Furcy & Koenig 2005): beam search that backtracks over its layers by limited discrepancy search.

Beam search using limited discrepancy backtracking (D. Furcy and S. Koenig, "Limited
Discrepancy Beam Search", IJCAI 2005) keeps beam.py's layers as a stack. The children of the
top layer that no layer on the stack holds (nor an earlier child of the same layer) are
ordered by h, ties in the order generated, as beam.py orders them, and cut into slices of K
(the beam width); the next layer is one slice. Slice 0 is beam search's choice and slice i
counts as i discrepancies. Pass D, for D = 0, 1, 2, ..., searches depth first over the
sequences of slices whose discrepancies add up to at most D: at each layer it takes the slices
that spend discrepancies first (1, 2, ... as far as the budget left allows) and slice 0 last,
so that a pass spends its discrepancies near the start, where h misleads most (the paper's
order). Pass 0 is beam search itself. A layer without children is a dead end, and so is one
whose children would take the nodes held (the stack's and the children being built, as in
beam.py) to the node limit; from a dead end the search backtracks to the deepest layer with a
slice left to take, generates that layer's children again (they are the same: the layers
below it are as they were) and takes the slice. The search ends at the first child that is
the goal. It is complete: the stack can follow a shortest path, whose k-th state is new to
layers 0 .. k - 1 (they hold states at most k - 1 moves from the start), so a pass that
refused no slice for its budget, having met only dead ends, shows that the node limit cannot
hold a path to the goal. Memory is K nodes per layer, as the paper's; regenerating a layer's
children costs a layer's expansions per backtrack.

The hash index holds the states of the stack. Popped layers leave their entries behind: the
stack's nodes are numbered from the root up, so an entry of a node above the top is stale and
means absent; it is overwritten when its state is pushed again, and the index is refilled in
place from the stack when stale entries would take its slots in use past three quarters.

A search that never cut a layer had one slice per layer, took no discrepancy and was
breadth-first search: its solution is the shortest. Otherwise the length has no bound, and the
result's lower bound is h of the start.
"""

from __future__ import annotations

import numpy as np

from solvers import wording
from solvers.heuristics import Heuristic
from solvers.jit import kernel
from solvers.puzzle import Puzzle
from solvers.search.beam import (
    BEAM_WIDTH, DEFAULT_BEAM_WIDTH, FULL, layer_children, layered_search, layered_start, prepared_layered,
    width_setting,
)
from solvers.search.beam import BYTES_PER_NODE as BEAM_BYTES_PER_NODE
from solvers.search.depth_first import EXHAUSTED, FOUND, LIMIT_REACHED
from solvers.search.node_store import EMPTY, find, grown, grown_store, insert, same_code
from solvers.search.registry import MEMORY, NODE_LIMIT, TIME_LIMIT, Search, register
from solvers.search.result import SearchResult

# the columns of the stack's table of layers: a layer's first node (the top's last is the last
# node held), the slice of its parent layer's children it is, the discrepancies it leaves to the
# layers below, and how many slices its own children make
FIRST, CHOSEN, LEFT, SLICES = range(4)
INITIAL_DEPTHS = 64  # layers the table has room for at first; it doubles when full
# a node is what beam.py keeps, and at a width of 1 each node is a layer of the table
BYTES_PER_NODE = BEAM_BYTES_PER_NODE + 8 * 4
NO_SLICE = -1  # no slice chosen yet for the top layer's children, or none left to take


@kernel
def _first_slice(left, n_slices):
    """The first slice to take of children that make `n_slices` slices, with `left`
    discrepancies to spend: slice 1 if it is allowed, else slice 0."""
    return 1 if left > 0 and n_slices > 1 else 0


@kernel
def _next_slice(taken, left, n_slices):
    """The slice to take after slice `taken` of children that make `n_slices` slices, with
    `left` discrepancies to spend at their parent layer: the next one that spends more while
    the budget allows, then slice 0; NO_SLICE after slice 0."""
    if taken == 0:
        return NO_SLICE
    if taken < left and taken + 1 < n_slices:
        return taken + 1
    return 0


@kernel
def _pushed(index, used, codes, node):
    """(`index` with `node` in it, the slots in use): node `node` (its state in codes[node])
    becomes the top of the stack, above nodes 0 .. node - 1. An entry of a node at or above
    `node` is stale: if the state has one, it is overwritten; a new slot that would take the
    slots in use past three quarters of the index first has the index refilled in place with
    the stack alone."""
    twin, slot = find(index, codes, codes, node)
    if twin == EMPTY:
        if 4 * (used + 1) > 3 * index.shape[0]:
            index[:] = EMPTY
            for below in range(node):
                index = insert(index, codes, below, find(index, codes, codes, below)[1], below + 1)
            used = node
            slot = find(index, codes, codes, node)[1]
        used += 1
    bigger = insert(index, codes, node, slot, node + 1)
    # an index rebuilt larger holds the stack alone
    return bigger, node + 1 if bigger.shape[0] != index.shape[0] else used


@kernel
def _bulb(start, max_nodes, width, neighbours, goal, leaves, n_columns, stop, layout, max_length):
    """BULB with slices of `width` children from `start` (see the module docstring), holding
    at most `max_nodes` nodes, the stack's and the children of its top layer together; setting
    stop[0] (from another thread) ends it within STOP_CHECK_INTERVAL expansions. A layer at
    depth `max_length` is a dead end: the solutions sought have at most that many moves.

    `layout` is the board's node_store.Packing.

    Returns (outcome, moves, nodes_expanded, nodes_generated, truncated): FOUND when a child is
    the goal, EXHAUSTED when a pass refused no slice for its budget (every path met a dead end),
    LIMIT_REACHED on stop; `truncated` says whether some layer had more than `width` children.
    """
    (codes, parent, move, index), goal_code, kids, work, counts = layered_start(start, goal, layout, n_columns)
    if same_code(codes, 0, goal_code, 0):
        return FOUND, np.empty(0, dtype=np.int8), 0, 0, False
    layers = np.zeros((INITIAL_DEPTHS, 4), dtype=np.int64)  # columns FIRST, CHOSEN, LEFT, SLICES
    used = 1  # slots of the index in use, by the stack and by stale entries
    truncated = False
    budget = 0
    while True:  # pass `budget`
        n_nodes, depth, choice, refused = 1, 0, NO_SLICE, False
        layers[0, LEFT] = budget
        while True:
            if depth >= max_length:  # seen as a layer without children (it was never visited with any)
                outcome, n_children = FULL, 0
            else:
                outcome, kids, n_children, moves = layer_children(layers[depth, FIRST], n_nodes, max_nodes,
                                                                 (codes, parent, move, index), kids, goal_code,
                                                                 neighbours, leaves, work, layout, counts, stop)
            if outcome == FOUND or outcome == LIMIT_REACHED:
                return outcome, moves, counts[0], counts[1], truncated
            if choice == NO_SLICE:  # the layer's first visit in this descent
                if outcome == FULL or n_children == 0:
                    # a dead end: back to the deepest layer with a slice left to take
                    while depth > 0 and choice == NO_SLICE:
                        choice = _next_slice(layers[depth, CHOSEN], layers[depth - 1, LEFT],
                                             layers[depth - 1, SLICES])
                        n_nodes = layers[depth, FIRST]
                        depth -= 1
                    if choice == NO_SLICE:
                        break
                    continue  # the children of the new top again, to take slice `choice`
                n_slices = (n_children + width - 1) // width
                layers[depth, SLICES] = n_slices
                truncated = truncated or n_slices > 1
                refused = refused or n_slices - 1 > layers[depth, LEFT]
                choice = _first_slice(layers[depth, LEFT], n_slices)
            order = np.argsort(kids[3][:n_children], kind="mergesort")  # stable: ties in the order generated
            if depth + 1 == layers.shape[0]:
                layers = grown(layers, 2 * layers.shape[0])
            depth += 1
            layers[depth, FIRST] = n_nodes
            layers[depth, CHOSEN] = choice
            layers[depth, LEFT] = layers[depth - 1, LEFT] - choice
            for child in order[choice * width:(choice + 1) * width]:
                if n_nodes == codes.shape[0]:
                    codes, parent, move = grown_store(codes, parent, move, 2 * n_nodes)
                codes[n_nodes] = kids[0][child]
                parent[n_nodes] = kids[1][child]
                move[n_nodes] = kids[2][child]
                index, used = _pushed(index, used, codes, n_nodes)
                n_nodes += 1
            choice = NO_SLICE
        if not refused:
            return EXHAUSTED, np.empty(0, dtype=np.int8), counts[0], counts[1], truncated
        budget += 1


def bulb_search(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, beam_width: int = DEFAULT_BEAM_WIDTH,
                node_limit: int | None = None, time_limit: float | None = None,
                memory: float | None = None, shorter_than: int | None = None) -> SearchResult:
    """A solution from `start` by BULB with slices of `beam_width` (a whole number from 1)
    children, replayed and checked; a one-line InputError for another width.

    Holds at most `node_limit` nodes (default, `memory` and memory check as for beam search, beam.py),
    backtracking where they would not fit; gives up (status GAVE_UP) when no path to the goal
    fits in them, or after `time_limit` seconds. Marked optimal when no layer had more than
    `beam_width` children (the search was breadth-first); its lower bound is then the length,
    else h of the start. `shorter_than` bounds the length sought, as for beam search.
    """
    return layered_search(puzzle, start, heuristic, "bulb", _bulb, beam_width,
                          (node_limit, memory, time_limit, shorter_than), BYTES_PER_NODE, _no_path_fits)


def prepare(puzzle: Puzzle, heuristic: Heuristic) -> None:
    """Compile BULB's kernel for `heuristic` before any clock starts."""
    prepared_layered(puzzle, heuristic, _bulb)


def _no_path_fits(width: int, max_nodes: int) -> str:
    return f"node limit of {max_nodes:,} nodes too small to hold a path of layers of " \
           f"{wording.count(width, 'node')} to the goal"


register(Search(
    "bulb", "BULB: beam search that backtracks over its slices of K children by limited discrepancy search; "
    "complete, no bound on the length",
    bulb_search, informed=True, family="best-first", options=(BEAM_WIDTH, NODE_LIMIT, MEMORY, TIME_LIMIT), setting_fields=("beam_width",),
    settings=width_setting,
))
