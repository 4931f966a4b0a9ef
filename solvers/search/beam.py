"""beam.py -- beam search (Bisiani 1987): breadth first, each layer cut to the K children of least h.

Breadth-first beam search with duplicate detection, as in Zhou & Hansen's beam-stack search
(2005): the children of one layer's nodes that no earlier layer holds (nor an earlier child of
the same layer) are ordered by h, ties in the order generated, and the first K (the beam
width) are stored as the next layer. The search ends at the first layer with the goal among
its children (tested as each child is generated), when a layer has no children left (the beam
emptied: a wider beam may still find a solution), or at the node or time limit. Memory grows
with K times the depth, not with the size of the search space. A search that never cut a layer
was breadth-first search, and its solution is the shortest; otherwise the solution has no bound
on its length, and the result's lower bound is h of the start.
"""

from __future__ import annotations

import numbers

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic
from solvers.heuristics.dispatch import h_child, h_start
from solvers.jit import kernel
from solvers.moves import slide
from solvers.puzzle import Puzzle
from solvers.search.depth_first import EXHAUSTED, FOUND, LIMIT_REACHED, N_DIRECTIONS, NO_BOUND, STOP_CHECK_INTERVAL
from solvers.search.interrupt import timed
from solvers.search.node_store import (
    EMPTY, INITIAL_CAPACITY, NO_PARENT, find, grown, grown_store, insert, new_index, node_capacity, pack, packing, path_moves,
    rooted_store, same_code, unpack,
)
from solvers.search.registry import MEMORY, NODE_LIMIT, TIME_LIMIT, Option, Search, register
from solvers.search.result import (
    SearchResult, checked_start, limit_reason, moves_to_text, none_shorter_reason, search_result, unsolvable_result,
    verified,
)

DEFAULT_BEAM_WIDTH = 1000
# a stored node keeps its parent and move; a child of the layer being built keeps them too, with
# its h and its place in the order, and counts against the node limit until the layer is stored
BYTES_PER_NODE = 8 + 1 + 8 + 8


CHILDREN, FULL = 3, 4  # outcomes of layer_children besides FOUND and LIMIT_REACHED


@kernel
def layer_children(layer, n_nodes, max_nodes, store, kids, goal_code, neighbours, leaves, work, layout, counts, stop):
    """The children of the last layer, nodes `layer` .. n_nodes - 1 of `store` (codes, parent,
    move, index: the nodes held; an index entry of a node from n_nodes up is stale and counts as
    absent, as BULB leaves them), that no node held has, nor an earlier child of the layer,
    written in the order generated to `kids` (codes, parent, move, h; grown as needed).

    `work` is (board, position, scratch) to evaluate h in, `layout` the board's Packing;
    counts[0] and counts[1] (nodes expanded, children generated) go up. Returns (outcome, kids,
    n_children, moves): CHILDREN; FOUND with the moves to a child that is the goal; FULL when
    the children would take the nodes held to `max_nodes`; LIMIT_REACHED when stop[0] is set
    (looked at every STOP_CHECK_INTERVAL expansions).
    """
    bits, per_word, _ = layout
    codes, parent, move, index = store
    child_codes, child_parent, child_move, child_h = kids
    board, position, scratch = work
    no_moves = np.empty(0, dtype=np.int8)
    n_children = 0
    layer_index = new_index(n_nodes - layer)
    for node in range(layer, n_nodes):
        blank = unpack(codes, node, bits, per_word, board)
        counts[0] += 1
        if counts[0] % STOP_CHECK_INTERVAL == 0 and stop[0]:
            return LIMIT_REACHED, (child_codes, child_parent, child_move, child_h), n_children, no_moves
        h_start(leaves, board, position, scratch, 0)  # fills position and the scratch h_child starts from
        for direction in range(N_DIRECTIONS):
            if parent[node] != NO_PARENT and direction == move[node] ^ 1:
                continue
            target = neighbours[blank, direction]
            if target < 0:
                continue
            if n_children == child_h.shape[0]:
                child_codes, child_parent, child_move = grown_store(child_codes, child_parent, child_move,
                                                                    2 * n_children)
                child_h = grown(child_h, 2 * n_children)
            counts[1] += 1
            tile = slide(board, position, target, blank)
            pack(board, bits, per_word, child_codes, n_children)
            if same_code(child_codes, n_children, goal_code, 0):
                return FOUND, (child_codes, child_parent, child_move, child_h), n_children, \
                    np.append(path_moves(parent, move, node), np.int8(direction))
            twin = find(index, codes, child_codes, n_children)[0]
            if twin == EMPTY or twin >= n_nodes:  # not on the stack (an entry above its top is stale)
                twin, slot = find(layer_index, child_codes, child_codes, n_children)
                if twin == EMPTY:
                    if n_nodes + n_children >= max_nodes:
                        return FULL, (child_codes, child_parent, child_move, child_h), n_children, no_moves
                    child_h[n_children] = h_child(leaves, board, position, scratch, 0, tile, target, blank)
                    child_parent[n_children] = node
                    child_move[n_children] = direction
                    n_children += 1
                    layer_index = insert(layer_index, child_codes, n_children - 1, slot, n_children)
            slide(board, position, blank, target)
    return CHILDREN, (child_codes, child_parent, child_move, child_h), n_children, no_moves


@kernel
def layered_start(start, goal, layout, n_columns):
    """What a layered search (beam's, BULB's) starts from: the store holding `start` as its root
    (codes, parent, move, index), the packed goal, empty room for a layer's children (codes,
    parent, move, h: a state reached twice in one layer is kept once), the work arrays of
    layer_children (board, position, scratch) and its counts (nodes expanded, children generated)."""
    bits, per_word, words = layout
    board = start.copy()
    store = rooted_store(board, layout, INITIAL_CAPACITY)
    goal_code = np.empty((1, words), dtype=np.uint64)
    pack(goal, bits, per_word, goal_code, 0)
    kids = (np.empty((INITIAL_CAPACITY, words), dtype=np.uint64), np.empty(INITIAL_CAPACITY, dtype=np.int64),
            np.empty(INITIAL_CAPACITY, dtype=np.int8), np.empty(INITIAL_CAPACITY, dtype=np.int64))
    work = (board, np.zeros(board.shape[0], dtype=np.int64), np.zeros((2, n_columns), dtype=np.int64))
    return store, goal_code, kids, work, np.zeros(2, dtype=np.int64)


@kernel
def _beam(start, max_nodes, width, neighbours, goal, leaves, n_columns, stop, layout, max_length):
    """Beam search of width `width` from `start` (see the module docstring): each layer is
    stored in the order of h, ties in the order generated. At most `max_nodes` nodes are held,
    stored ones and the children of the layer being built together; setting stop[0] (from
    another thread) ends it within STOP_CHECK_INTERVAL expansions. No layer deeper than
    `max_length` is built: the solutions sought have at most that many moves.

    `layout` is the board's node_store.Packing.

    Returns (outcome, moves, nodes_expanded, nodes_generated, truncated): FOUND when a child is
    the goal, EXHAUSTED when a layer has no children left or is at depth `max_length`,
    LIMIT_REACHED at the node limit or on stop; `truncated` says whether some layer had more
    than `width` children.
    """
    (codes, parent, move, index), goal_code, kids, work, counts = layered_start(start, goal, layout, n_columns)
    if same_code(codes, 0, goal_code, 0):
        return FOUND, np.empty(0, dtype=np.int8), 0, 0, False
    n_nodes = 1
    layer_start = 0
    truncated = False
    depth = 0
    while True:
        if depth >= max_length:
            return EXHAUSTED, np.empty(0, dtype=np.int8), counts[0], counts[1], truncated
        outcome, kids, n_children, moves = layer_children(layer_start, n_nodes, max_nodes, (codes, parent, move, index),
                                                          kids, goal_code, neighbours, leaves, work, layout, counts,
                                                          stop)
        if outcome != CHILDREN:
            return FOUND if outcome == FOUND else LIMIT_REACHED, moves, counts[0], counts[1], truncated
        child_codes, child_parent, child_move, child_h = kids
        if n_children == 0:
            return EXHAUSTED, np.empty(0, dtype=np.int8), counts[0], counts[1], truncated
        truncated = truncated or n_children > width
        order = np.argsort(child_h[:n_children], kind="mergesort")  # stable: ties in the order generated
        layer_start = n_nodes
        depth += 1
        for child in order[:width]:
            if n_nodes == codes.shape[0]:
                codes, parent, move = grown_store(codes, parent, move, 2 * n_nodes)
            codes[n_nodes] = child_codes[child]
            parent[n_nodes] = child_parent[child]
            move[n_nodes] = child_move[child]
            n_nodes += 1
            # the slot is looked up again for each node: an insert may have rebuilt the index
            index = insert(index, codes, n_nodes - 1, find(index, codes, codes, n_nodes - 1)[1], n_nodes)


def beam_search(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, beam_width: int = DEFAULT_BEAM_WIDTH,
                node_limit: int | None = None, time_limit: float | None = None,
                memory: float | None = None, shorter_than: int | None = None) -> SearchResult:
    """A solution from `start` by beam search keeping `beam_width` (a whole number from 1)
    children of least h in each layer, replayed and checked; a one-line InputError for another
    width. With `shorter_than` (the Python API's, for the anytime search), only solutions
    shorter than that are sought: no layer is built at that depth.

    Gives up (status GAVE_UP) when the beam empties, once `node_limit` nodes are held (default:
    as many as `memory` GiB hold, or a share of the memory available, node_store.memory_budget;
    the children of the layer being built count) or after `time_limit` seconds. Marked optimal when no layer had
    more than `beam_width` children (the search was breadth-first); its lower bound is then the
    length, else h of the start.
    """
    return layered_search(puzzle, start, heuristic, "beam", _beam, beam_width,
                          (node_limit, memory, time_limit, shorter_than), BYTES_PER_NODE, _emptied)


def _emptied(width: int, max_nodes: int) -> str:
    return f"the beam emptied: every child of its last layer was reached before (a width above {width:,} may " \
           "find a solution)"


def layered_search(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, algorithm: str, compiled, beam_width,
                   limits: tuple, bytes_per_node: int, exhausted) -> SearchResult:
    """Run `compiled`, a kernel with _beam's arguments and results (beam's, BULB's), as
    `algorithm`: the width checked, the nodes it may hold sized to the memory (`limits` is
    (node_limit, memory, time_limit, shorter_than); `bytes_per_node` each besides the packed
    state), the kernel compiled before the clock starts, the solution replayed.
    `exhausted(width, max_nodes)` gives the reason when the kernel returns EXHAUSTED without a
    bound on the length. Optimal, with any heuristic, when no layer was cut; such a search that
    found nothing shorter than `shorter_than` proved that nothing is."""
    check_width(beam_width)
    node_limit, memory, time_limit, shorter_than = limits
    if shorter_than is not None and (isinstance(shorter_than, bool) or not isinstance(shorter_than, numbers.Integral)
                                     or shorter_than < 1):
        raise InputError(f"solutions shorter than {shorter_than!r} moves cannot be sought: give a whole number from 1")
    max_nodes = node_capacity(puzzle, node_limit, bytes_per_node, algorithm, heuristic, memory)
    start = checked_start(puzzle, start, heuristic)
    if not puzzle.is_solvable(start):
        return unsolvable_result(algorithm, heuristic.name)
    board = np.array(start, dtype=np.uint8)
    stop = np.zeros(1, dtype=np.uint8)
    kernel = prepared_layered(puzzle, heuristic, compiled)
    # no layer holds more than max_nodes nodes, so a wider beam is the same search (and this
    # width fits the kernel's integers)
    width = min(int(beam_width), max_nodes)
    fixed = (width, puzzle.neighbours, puzzle.goal, heuristic.leaves, heuristic.n_columns, stop, packing(puzzle),
             NO_BOUND if shorter_than is None else int(shorter_than) - 1)
    initial_h = heuristic(board)
    (outcome, moves, expanded, generated, truncated), late, seconds = timed(kernel, (board, max_nodes, *fixed), stop,
                                                                          time_limit)
    solution = moves_to_text(moves) if outcome == FOUND else None
    if outcome == EXHAUSTED and shorter_than is None:
        reason = exhausted(width, max_nodes)
    elif outcome == EXHAUSTED:
        reason = none_shorter_reason(shorter_than) if not truncated else \
            f"{algorithm} found no solution shorter than {shorter_than:,} moves (a width above {width:,} may)"
    else:
        reason = limit_reason(late, time_limit, max_nodes, "held nodes")
    result = search_result(
        algorithm,
        heuristic.name,
        solution,
        optimal=not truncated,
        nodes_expanded=expanded,
        nodes_generated=generated,
        seconds=seconds,
        initial_h=initial_h,
        reason=reason,
        # a breadth-first solution is the shortest whatever h is
        admissible=heuristic.admissible or (solution is not None and not truncated),
    )
    return verified(puzzle, start, result)


def prepared_layered(puzzle: Puzzle, heuristic: Heuristic, compiled):
    """`compiled` (a kernel with _beam's arguments) for `heuristic`, compiled (or loaded from the
    disk cache) by a search of the goal itself, so that a search's clock never counts the compile."""
    kernel = heuristic.kernel(compiled)
    kernel(puzzle.goal.copy(), 1, 1, puzzle.neighbours, puzzle.goal, heuristic.leaves, heuristic.n_columns,
           np.zeros(1, dtype=np.uint8), packing(puzzle), NO_BOUND)
    return kernel


def prepare(puzzle: Puzzle, heuristic: Heuristic) -> None:
    """Compile beam search's kernel for `heuristic` before any clock starts."""
    prepared_layered(puzzle, heuristic, _beam)


def check_width(beam_width) -> None:
    """A one-line InputError unless `beam_width` is a whole number from 1."""
    if isinstance(beam_width, bool) or not isinstance(beam_width, numbers.Integral) or beam_width < 1:
        raise InputError(f"the beam width must be a whole number of at least 1, not {beam_width!r}")


def width_setting(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of a beam search: its width."""
    return {"beam_width": str(options["beam_width"])}


BEAM_WIDTH = Option("beam_width", "count", f"children beam and bulb keep in each layer, those of least h (default: "
                    f"{DEFAULT_BEAM_WIDTH})", "a beam width applies", DEFAULT_BEAM_WIDTH)
register(Search(
    "beam", "beam search: breadth first, each layer cut to the K children of least h; no bound on the length",
    beam_search, informed=True, family="best-first", options=(BEAM_WIDTH, NODE_LIMIT, MEMORY, TIME_LIMIT), setting_fields=("beam_width",),
    settings=width_setting,
))
