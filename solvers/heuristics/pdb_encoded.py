"""pdb_encoded.py -- the reader of tables of any kind and encoding (EncodedTables).

A *compressed* table (build-pdb --compress, pdb_build/compress.py) is read through the same
index as an uncompressed one: min:K merges blocks (block >> log2 K), nibble packs two entries
per byte, and delta stores one bit from which the value is decoded with the parent's value; a
search's first state walks down to the goal to find it (`walk_down`). Plain and zero-aware
patterns may be mixed in one reader (a `sum(...)` or `max(...)` of files of both kinds).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pdb_build.ranking import cell_set_rank
from solvers.heuristics.pdb_rank import Index, blank_cell, order_and_mask, order_of
from solvers.heuristics.pdb_read import Regions, register_reader
from solvers.jit import inline_kernel, kernel


class Encoding(NamedTuple):
    """Pattern p's stored entry for block b and order o is (b >> pattern_merge_shift[p]) * k!
    + o, held in byte entry >> pattern_entry_shift[p] (8 >> pattern_entry_shift[p] bits each,
    low bits first); a delta pattern (pattern_delta[p] = 1) stores bit 1 of the value."""

    pattern_merge_shift: np.ndarray
    pattern_entry_shift: np.ndarray
    pattern_delta: np.ndarray


class Board(NamedTuple):
    """What the walk down to the goal needs: the tiles' goal cells, the goal's blank cell
    (goal_blank[0]), the cells' neighbours and colours."""

    goal_cell: np.ndarray
    goal_blank: np.ndarray
    neighbours: np.ndarray
    colour: np.ndarray


class EncodedTables(NamedTuple):
    """Tables of any kind and encoding: a pattern's *block* is its map rank, or for a
    zero-aware pattern the block of the blank's region (Regions); its entry as Encoding says."""

    tables: np.ndarray
    table_offset: np.ndarray
    index: Index
    regions: Regions
    encoding: Encoding
    board: Board


# Without branches on the pattern's kind: a conditional array read made numba keep reference
# counting in the search loop, several times slower. A plain pattern reads the dummy first entries of
# region_offset and region_of_cell and keeps its map rank; an absolute pattern's decode adds 0.

@inline_kernel
def _block(regions, pattern, map_rank, blank, n_cells):
    """The block of `pattern` for map rank `map_rank` with the blank on cell `blank`."""
    zero_aware = regions.pattern_zero_aware[pattern]
    return map_rank * (1 - zero_aware) + regions.region_offset[regions.pattern_region_start[pattern]
                                                               + map_rank * zero_aware] + \
        regions.region_of_cell[regions.pattern_cell_start[pattern] + (map_rank * n_cells + blank) * zero_aware]


@inline_kernel
def _stored(reader, pattern, block, order):
    """What the table of `pattern` stores for (block, order): the value, or delta's bit."""
    encoding = reader.encoding
    entry = (block >> encoding.pattern_merge_shift[pattern]) * reader.index.pattern_factorial[pattern] + order
    entry_shift = encoding.pattern_entry_shift[pattern]
    bits = 8 >> entry_shift
    byte = np.int64(reader.tables[reader.table_offset[pattern] + (entry >> entry_shift)])
    return (byte >> ((entry & ((1 << entry_shift) - 1)) * bits)) & ((1 << bits) - 1)


@inline_kernel
def _stored_now(reader, instances, instance, position):
    """What the table of `instance` stores for the tiles' and the blank's current cells."""
    order, mask = order_and_mask(reader.index, instances, instance, position)
    pattern = instances.instance_pattern[instance]
    block = _block(reader.regions, pattern, cell_set_rank(mask, reader.index.binomials),
                   blank_cell(instances, instance, position), instances.view_cell.shape[1])
    return _stored(reader, pattern, block, order)


@inline_kernel
def _decoded(stored, parent, delta):
    """The value from what is stored: itself, or under delta (parent's value v) v + 1 when bit
    1 of v + 1 is `stored`, else v - 1 (compress.py)."""
    rises = np.int64(((parent + 1) >> 1 & 1) == stored)
    return stored + delta * (parent - 1 + 2 * rises - stored)


@inline_kernel
def _start_value(reader, instances, instance, position):
    stored = _stored_now(reader, instances, instance, position)
    delta = reader.encoding.pattern_delta[instances.instance_pattern[instance]]
    return stored + delta * (walk_down(reader, instances, instance, position) - stored)


@inline_kernel
def _child_value(reader, instances, instance, position, parent):
    return _decoded(_stored_now(reader, instances, instance, position), parent,
                    reader.encoding.pattern_delta[instances.instance_pattern[instance]])


@kernel
def walk_down(reader, instances, instance, position):
    """The value of a delta pattern's entry for the tiles' current cells (0 for other patterns):
    the length of a walk in the table's space to the goal in which every step moves one pattern
    tile into the blank's region and lowers the value by one. The value v of the current entry
    is known modulo 4: bit 1 is stored, bit 0 is the parity of the tiles' odd cells against the
    goal's (compress.py), so the neighbour one lower is the one whose stored bit is that of
    v - 1. Never more than the value (a step always lowers it), so admissible even on a
    damaged table; a correct one always has a step down until the goal."""
    pattern = instances.instance_pattern[instance]
    if reader.encoding.pattern_delta[pattern] == 0:
        return 0
    board, regions, index = reader.board, reader.regions, reader.index
    goal_cell, region_of_cell, pattern_tiles = board.goal_cell, regions.region_of_cell, index.pattern_tiles
    view = instances.instance_view[instance]
    k = index.pattern_k[pattern]
    n_cells = instances.view_cell.shape[1]
    cells = np.empty(k, dtype=np.int64)
    parity = 0
    for u in range(k):
        cells[u] = instances.view_cell[view, position[instances.view_tile[view, pattern_tiles[pattern, u]]]]
        parity += board.colour[cells[u]] + board.colour[goal_cell[pattern_tiles[pattern, u]]]
    blank = blank_cell(instances, instance, position)
    start = regions.pattern_cell_start[pattern]
    steps = 0
    while steps < 255:
        mask = np.int64(0)
        at_goal = True
        for u in range(k):
            mask |= np.int64(1) << cells[u]
            at_goal &= cells[u] == goal_cell[pattern_tiles[pattern, u]]
        map_rank = cell_set_rank(mask, index.binomials)
        region = region_of_cell[start + map_rank * n_cells + blank]
        if at_goal and region == region_of_cell[start + map_rank * n_cells + board.goal_blank[0]]:
            return steps
        now = 2 * _stored(reader, pattern, _block(regions, pattern, map_rank, blank, n_cells),
                          order_of(cells, k)) + parity % 2
        lower = ((now + 3) % 4) >> 1  # bit 1 of v - 1
        stepped = False
        for u in range(k):
            source = cells[u]
            for d in range(4):
                target = board.neighbours[source, d]
                if target < 0 or mask >> target & 1 or region_of_cell[start + map_rank * n_cells + target] != region:
                    continue
                cells[u] = target
                after = cell_set_rank(mask ^ (np.int64(1) << source) ^ (np.int64(1) << target), index.binomials)
                if _stored(reader, pattern, _block(regions, pattern, after, source, n_cells),
                           order_of(cells, k)) == lower:
                    blank = source
                    stepped = True
                    break
                cells[u] = source
            if stepped:
                break
        if not stepped:
            return steps
        parity += 1
        steps += 1
    return steps


register_reader(EncodedTables, _start_value, _child_value)
