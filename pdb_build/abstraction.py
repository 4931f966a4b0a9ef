"""abstraction.py -- the abstract state space of one pattern, laid out for a round-scan BFS.

An abstract state is a placement of the pattern's k tiles plus where the blank is. In the
*additive* cost model only moves of pattern tiles cost 1; the blank roams at no cost through
the connected *region* of free cells it stands in, so the state is (placement, region) and
every edge costs 1: a pattern tile next to the blank's region slides into a cell of it, and
the blank's new region is the one holding the cell the tile left. In the *non-additive*
model every move costs 1 and each free cell is a region of its own; the blank may also step
to a neighbouring free cell.

Layout (extends ranking.py): the states of map m (the set of occupied cells) and region r
form block `block_offset[m] + r`, holding the k! orders; the state index is
block * k! + order_rank. For every block, `moves` lists the block each move leads to and the
order map that carries an order rank to the order rank after the move: moving the tile on
sorted position a to a cell that becomes sorted position b relabels positions the same way
whatever the tile, so one table per (a, b) serves every state of the block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdb_build.ranking import (
    cell_set_rank,
    cell_set_unrank,
    permutation_rank,
    permutation_unrank,
    position_in,
    binomial_table,
    check_pattern_size,
)
from solvers.jit import kernel
from solvers.puzzle import Puzzle

SAME_ORDER = -1


@dataclass(frozen=True)
class AbstractSpace:
    """The layout of one pattern's abstract space on one puzzle (all arrays read-only)."""

    n_cells: int
    k: int
    additive: bool
    factorial_k: int
    map_masks: np.ndarray  # int64[n_maps]: occupied cells of each map rank
    block_offset: np.ndarray  # int64[n_maps + 1]: first block of each map
    region_of_cell: np.ndarray  # int8[n_maps, n_cells]: region of each free cell, -1 if occupied
    move_start: np.ndarray  # int64[n_blocks + 1]: each block's moves in the arrays below
    move_target: np.ndarray  # int64[n_moves]: block the move leads to
    move_order_map: np.ndarray  # int16[n_moves]: row of order_maps, or SAME_ORDER
    order_maps: np.ndarray  # int32[k * k, k!]: order rank before -> after, per (a, b)
    block_parity: np.ndarray  # uint8[n_blocks]: alternates along every edge
    goal_index: int

    @property
    def n_maps(self) -> int:
        return self.map_masks.shape[0]

    @property
    def n_blocks(self) -> int:
        return int(self.block_offset[-1])

    @property
    def n_states(self) -> int:
        return self.n_blocks * self.factorial_k


def abstract_space(puzzle: Puzzle, pattern: tuple[int, ...], additive: bool = True) -> AbstractSpace:
    """Lay out the abstract space of `pattern` (tiles in pattern order) on `puzzle`."""
    n, k = puzzle.n_cells, len(pattern)
    check_pattern_size(n, k)
    binomials = binomial_table(n)
    n_maps = math.comb(n, k)
    neighbours = np.ascontiguousarray(puzzle.neighbours, dtype=np.int64)
    masks, region_of_cell, n_regions = _regions(n_maps, n, k, binomials, neighbours, additive)
    block_offset = np.zeros(n_maps + 1, dtype=np.int64)
    np.cumsum(n_regions, out=block_offset[1:])
    move_start, move_target, move_order_map = _moves(
        masks, region_of_cell, block_offset, binomials, neighbours, k, additive
    )
    colour = np.array([(c // puzzle.cols + c % puzzle.cols) % 2 for c in range(n)], dtype=np.int64)
    block_parity = _block_parity(masks, region_of_cell, block_offset, colour, additive)
    goal_cells = np.array([puzzle.goal_cell[t] for t in pattern], dtype=np.int64)
    goal_mask = int(np.bitwise_or.reduce(np.int64(1) << goal_cells))
    goal_map = cell_set_rank(goal_mask, binomials)
    goal_order = np.array([position_in(goal_mask, c) for c in goal_cells], dtype=np.int64)
    goal_block = block_offset[goal_map] + region_of_cell[goal_map, puzzle.blank_goal_cell]
    factorial_k = math.factorial(k)
    space = AbstractSpace(
        n, k, additive, factorial_k, masks, block_offset, region_of_cell, move_start, move_target,
        move_order_map, order_move_maps(k), block_parity,
        int(goal_block * factorial_k + permutation_rank(goal_order, k)),
    )
    for value in vars(space).values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return space


def region_layout(puzzle: Puzzle, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(block_offset, region_of_cell) of the additive space of any k-tile pattern on `puzzle`:
    the layout a zero-aware table is indexed by, (block_offset[map] + region) * k! + order,
    where region = region_of_cell[map, blank cell]. It depends on the board and k only (the
    regions of a map do not depend on which tiles cover it); read-only arrays."""
    n = puzzle.n_cells
    check_pattern_size(n, k)
    neighbours = np.ascontiguousarray(puzzle.neighbours, dtype=np.int64)
    _, region_of_cell, n_regions = _regions(math.comb(n, k), n, k, binomial_table(n), neighbours, True)
    block_offset = np.zeros(len(n_regions) + 1, dtype=np.int64)
    np.cumsum(n_regions, out=block_offset[1:])
    block_offset.setflags(write=False)
    region_of_cell.setflags(write=False)
    return block_offset, region_of_cell


@kernel
def _regions(n_maps, n_cells, k, binomials, neighbours, additive):
    """Masks of all maps, the region of every free cell per map, and the regions per map."""
    masks = np.empty(n_maps, dtype=np.int64)
    region_of_cell = np.full((n_maps, n_cells), -1, dtype=np.int8)
    n_regions = np.zeros(n_maps, dtype=np.int64)
    stack = np.empty(n_cells, dtype=np.int64)
    for m in range(n_maps):
        mask = cell_set_unrank(m, n_cells, k, binomials)
        masks[m] = mask
        count = 0
        for start in range(n_cells):
            if mask >> start & 1 or region_of_cell[m, start] >= 0:
                continue
            region_of_cell[m, start] = count
            if additive:
                top = 0
                stack[0] = start
                while top >= 0:
                    cell = stack[top]
                    top -= 1
                    for d in range(4):
                        nxt = neighbours[cell, d]
                        if nxt >= 0 and not (mask >> nxt & 1) and region_of_cell[m, nxt] < 0:
                            region_of_cell[m, nxt] = count
                            top += 1
                            stack[top] = nxt
            count += 1
        n_regions[m] = count
    return masks, region_of_cell, n_regions


def _moves(masks, region_of_cell, block_offset, binomials, neighbours, k, additive):
    """The moves of every block, as (start offsets, target blocks, order maps)."""
    n_blocks = int(block_offset[-1])
    move_start = np.zeros(n_blocks + 1, dtype=np.int64)
    args = (masks, region_of_cell, block_offset, binomials, neighbours, k, additive)
    _visit_moves(*args, move_start, np.empty(0, np.int64), np.empty(0, np.int16), False)
    np.cumsum(move_start, out=move_start)
    move_target = np.empty(move_start[-1], dtype=np.int64)
    move_order_map = np.empty(move_start[-1], dtype=np.int16)
    _visit_moves(*args, move_start, move_target, move_order_map, True)
    return move_start, move_target, move_order_map


@kernel
def _visit_moves(masks, region_of_cell, block_offset, binomials, neighbours, k, additive,
                 move_start, move_target, move_order_map, fill):
    """Count every block's moves into move_start[block + 1] or, with `fill`, write them at the
    offsets move_start[block] onwards (move_start then holds the running sums)."""
    n_maps, n_cells = region_of_cell.shape
    cursor = move_start[:-1].copy()
    for m in range(n_maps):
        mask = masks[m]
        for free in range(n_cells):
            region = region_of_cell[m, free]
            if region < 0:
                continue
            block = block_offset[m] + region
            for d in range(4):
                cell = neighbours[free, d]
                if cell < 0:
                    continue
                if mask >> cell & 1:
                    after = mask ^ (np.int64(1) << cell) ^ (np.int64(1) << free)
                    m_after = cell_set_rank(after, binomials)
                    target = block_offset[m_after] + region_of_cell[m_after, cell]
                    order_map = position_in(mask, cell) * k + position_in(after, free)
                elif additive:
                    continue
                else:
                    target = block_offset[m] + region_of_cell[m, cell]
                    order_map = SAME_ORDER
                if fill:
                    move_target[cursor[block]] = target
                    move_order_map[cursor[block]] = order_map
                    cursor[block] += 1
                else:
                    move_start[block + 1] += 1


@kernel
def order_move_maps(k):
    """For every (a, b): the order rank after the tile on sorted position a moves to position b."""
    factorial_k = 1
    for i in range(2, k + 1):
        factorial_k *= i
    maps = np.empty((k * k, factorial_k), dtype=np.int32)
    relabel = np.empty(k, dtype=np.int64)
    order = np.empty(k, dtype=np.int64)
    for a in range(k):
        for b in range(k):
            new = 0
            for old in range(k):
                if old == a:
                    relabel[old] = b
                    continue
                if new == b:
                    new += 1
                relabel[old] = new
                new += 1
            for rank in range(factorial_k):
                permutation_unrank(rank, k, order)
                for i in range(k):
                    order[i] = relabel[order[i]]
                maps[a * k + b, rank] = permutation_rank(order, k)
    return maps


@kernel
def _block_parity(masks, region_of_cell, block_offset, colour, additive):
    """A parity that flips along every edge: in the additive model, the number of pattern
    tiles on odd-coloured cells (each edge moves one tile to a neighbouring cell); otherwise
    the colour of the blank's cell (each edge moves the blank one cell)."""
    n_maps, n_cells = region_of_cell.shape
    parity = np.empty(block_offset[n_maps], dtype=np.uint8)
    for m in range(n_maps):
        on_odd = 0
        for cell in range(n_cells):
            if masks[m] >> cell & 1:
                on_odd += colour[cell]
        for cell in range(n_cells):
            region = region_of_cell[m, cell]
            if region >= 0:
                parity[block_offset[m] + region] = on_odd % 2 if additive else colour[cell]
    return parity
