"""pdb_packed.py -- PDB lookups over tables of any kind and encoding (PackedLookups).

A *zero-aware* table (build-pdb --zero-aware) holds one value per (placement, region of the
blank), a region being a connected component of the cells the pattern's tiles leave free; its
instance reads the entry of the blank's region, found in the precomputed table
region_of_cell[map, blank cell] of abstraction.region_layout. A move of a tile outside the
pattern keeps the blank inside its region (both cells are free and adjacent), so an instance
still changes only when one of its own tiles moves.

A *compressed* table (build-pdb --compress, pdb_build/compress.py) is read through the same
index: min:K merges blocks (block >> log2 K), nibble packs two entries per byte, and delta
stores one bit from which the value is decoded with the parent's value; a search's first state
walks down to the goal to find it (`walk_down`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from pdb_build.ranking import cell_set_rank
from solvers.heuristics.dispatch import register_kind
from solvers.heuristics.pdb_plain import PdbLookups
from solvers.heuristics.pdb_rank import (bits_below, combine_and_mark, copy_parent, first_lookup, lookup_total,
                                        order_and_mask)
from solvers.jit import inline_kernel, kernel


PackedLookups = namedtuple("PackedLookups", [
    *PdbLookups._fields, "pattern_zero_aware", "pattern_region_start", "region_offset", "pattern_cell_start",
    "region_of_cell", "pattern_merge_shift", "pattern_entry_shift", "pattern_delta", "goal_cell", "goal_blank",
    "neighbours", "colour",
])
PackedLookups.__doc__ = """The lookups of PdbLookups over tables of any kind and encoding (a term with at least one
zero-aware or compressed table; plain uncompressed ones take the faster PdbLookups).

A pattern's *block* is its map rank, or for a zero-aware pattern (pattern_zero_aware = 1)
region_offset[pattern_region_start[p] + map] + region_of_cell[pattern_cell_start[p] +
map * n_cells + blank cell] (the layouts of the zero-aware patterns' sizes one after the
other). Its stored entry is (block >> pattern_merge_shift[p]) * k! + order, held in byte
entry >> pattern_entry_shift[p] (8 >> pattern_entry_shift[p] bits each, low bits first).
A delta pattern (pattern_delta = 1) stores bit 1 of the value; the value is decoded from
the parent's, or at a search's first state by a walk down to the goal, which uses the
goal cells, the goal's blank cell, the board's neighbours and the cells' colours."""


# -- any kind and encoding (PackedLookups) --------------------------------------------------
# Without branches on the pattern's kind: a conditional array read made numba keep reference
# counting in the search loop (8x slower). A plain pattern reads the dummy first entries of
# region_offset and region_of_cell and keeps its map rank; an absolute pattern's decode adds 0.

@inline_kernel
def _block(pattern, mask, blank, binomials, pattern_zero_aware, pattern_region_start, region_offset,
           pattern_cell_start, region_of_cell, n_cells):
    """The block of `pattern` with its tiles on the cells of `mask` and the blank on cell `blank`."""
    map_rank = cell_set_rank(mask, binomials)
    zero_aware = pattern_zero_aware[pattern]
    return map_rank * (1 - zero_aware) + region_offset[pattern_region_start[pattern] + map_rank * zero_aware] + \
        region_of_cell[pattern_cell_start[pattern] + (map_rank * n_cells + blank) * zero_aware]


@inline_kernel
def _stored(pattern, block, order, tables, table_offset, pattern_factorial, pattern_merge_shift, pattern_entry_shift):
    """What the table of `pattern` stores for (block, order): the value, or delta's bit."""
    entry = (block >> pattern_merge_shift[pattern]) * pattern_factorial[pattern] + order
    entry_shift = pattern_entry_shift[pattern]
    bits = 8 >> entry_shift
    byte = np.int64(tables[table_offset[pattern] + (entry >> entry_shift)])
    return (byte >> ((entry & ((1 << entry_shift) - 1)) * bits)) & ((1 << bits) - 1)


@inline_kernel
def _decoded(stored, parent, delta):
    """The value from what is stored: itself, or under delta (parent's value v) v + 1 when bit
    1 of v + 1 is `stored`, else v - 1 (compress.py)."""
    rises = np.int64(((parent + 1) >> 1 & 1) == stored)
    return stored + delta * (parent - 1 + 2 * rises - stored)


@inline_kernel
def packed_stored(instance, lookup, position, blank, tables, table_offset, pattern_tiles, pattern_k,
                  pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell, pattern_zero_aware,
                  pattern_region_start, region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift,
                  pattern_entry_shift):
    """What the table of `instance` stores for the tiles' current cells and the blank on `blank`."""
    order, mask = order_and_mask(instance, lookup, position, pattern_tiles, pattern_k, instance_pattern,
                                  lookup_tile, lookup_cell)
    pattern = instance_pattern[instance]
    block = _block(pattern, mask, lookup_cell[lookup, blank], binomials, pattern_zero_aware, pattern_region_start,
                   region_offset, pattern_cell_start, region_of_cell, lookup_cell.shape[1])
    return _stored(pattern, block, order, tables, table_offset, pattern_factorial, pattern_merge_shift,
                   pattern_entry_shift)


@kernel
def _walk_down(instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
               binomials, instance_pattern, lookup_tile, lookup_cell, pattern_zero_aware, pattern_region_start,
               region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift, pattern_entry_shift,
               pattern_delta, goal_cell, goal_blank, neighbours, colour):
    """The value of a delta pattern's entry for the tiles' current cells (0 for other patterns):
    the length of a walk in the table's space to the goal in which every step moves one pattern
    tile into the blank's region and lowers the value by one. The value v of the current entry
    is known modulo 4: bit 1 is stored, bit 0 is the parity of the tiles' odd cells against the
    goal's (compress.py), so the neighbour one lower is the one whose stored bit is that of
    v - 1. Never more than the value (a step always lowers it), so admissible even on a
    damaged table; a correct one always has a step down until the goal."""
    pattern = instance_pattern[instance]
    if pattern_delta[pattern] == 0:
        return 0
    k = pattern_k[pattern]
    n_cells = lookup_cell.shape[1]
    cells = np.empty(k, dtype=np.int64)
    parity = 0
    for u in range(k):
        cells[u] = lookup_cell[lookup, position[lookup_tile[lookup, pattern_tiles[pattern, u]]]]
        parity += colour[cells[u]] + colour[goal_cell[pattern_tiles[pattern, u]]]
    blank = lookup_cell[lookup, position[0]]
    regions = pattern_cell_start[pattern]
    steps = 0
    while steps < 255:
        mask = np.int64(0)
        at_goal = True
        for u in range(k):
            mask |= np.int64(1) << cells[u]
            at_goal &= cells[u] == goal_cell[pattern_tiles[pattern, u]]
        map_rank = cell_set_rank(mask, binomials)
        region = region_of_cell[regions + map_rank * n_cells + blank]
        if at_goal and region == region_of_cell[regions + map_rank * n_cells + goal_blank[0]]:
            return steps
        now = 2 * _stored(pattern, _block(pattern, mask, blank, binomials, pattern_zero_aware, pattern_region_start,
                                          region_offset, pattern_cell_start, region_of_cell, n_cells),
                          _order_of(cells, k), tables, table_offset, pattern_factorial, pattern_merge_shift,
                          pattern_entry_shift) + parity % 2
        lower = ((now + 3) % 4) >> 1  # bit 1 of v - 1
        stepped = False
        for u in range(k):
            source = cells[u]
            for d in range(4):
                target = neighbours[source, d]
                if target < 0 or mask >> target & 1 or region_of_cell[regions + map_rank * n_cells + target] != region:
                    continue
                cells[u] = target
                after = mask ^ (np.int64(1) << source) ^ (np.int64(1) << target)
                block = _block(pattern, after, source, binomials, pattern_zero_aware, pattern_region_start,
                               region_offset, pattern_cell_start, region_of_cell, n_cells)
                if _stored(pattern, block, _order_of(cells, k), tables, table_offset, pattern_factorial,
                           pattern_merge_shift, pattern_entry_shift) == lower:
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


@inline_kernel
def _order_of(cells, k):
    """The order rank of tiles on `cells` (as order_and_mask computes it)."""
    mask = np.int64(0)
    order_rank = 0
    weight = 1
    for i in range(k - 1, -1, -1):
        order_rank += bits_below(mask, cells[i]) * weight
        weight *= k - i
        mask |= np.int64(1) << cells[i]
    return order_rank


@inline_kernel
def packed_start(data, board, position, scratch, row, column):
    return _packed_lookups_start(
        scratch, row, column, position, data.tables, data.table_offset, data.pattern_tiles, data.pattern_k,
        data.pattern_factorial, data.binomials, data.instance_pattern, data.lookup_start, data.lookup_tile,
        data.lookup_cell, data.pattern_zero_aware, data.pattern_region_start, data.region_offset,
        data.pattern_cell_start, data.region_of_cell, data.pattern_merge_shift, data.pattern_entry_shift,
        data.pattern_delta, data.goal_cell, data.goal_blank, data.neighbours, data.colour)


@inline_kernel
def _packed_lookups_start(scratch, row, column, position, tables, table_offset, pattern_tiles, pattern_k,
                          pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                          pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                          pattern_merge_shift, pattern_entry_shift, pattern_delta, goal_cell, goal_blank, neighbours,
                          colour):
    packed_fill(scratch, row, column, position, lookup_start.shape[0] - 1, tables, table_offset, pattern_tiles,
                 pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                 pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                 pattern_merge_shift, pattern_entry_shift, pattern_delta, goal_cell, goal_blank, neighbours, colour)
    return combine_and_mark(lookup_start, scratch, row, column)


@inline_kernel
def packed_fill(scratch, row, column, position, n_lookups, tables, table_offset, pattern_tiles, pattern_k,
                pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                pattern_merge_shift, pattern_entry_shift, pattern_delta, goal_cell, goal_blank, neighbours, colour):
    """Write into scratch[row] the values of the instances of the first `n_lookups` lookups,
    from scratch (delta patterns by the walk down)."""
    for lookup in range(n_lookups):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            stored = packed_stored(
                instance, lookup, position, position[0], tables, table_offset, pattern_tiles, pattern_k,
                pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell, pattern_zero_aware,
                pattern_region_start, region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift,
                pattern_entry_shift)
            walked = _walk_down(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell, pattern_zero_aware, pattern_region_start,
                region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift, pattern_entry_shift,
                pattern_delta, goal_cell, goal_blank, neighbours, colour)
            scratch[row, column + instance] = stored + pattern_delta[instance_pattern[instance]] * (walked - stored)


@inline_kernel
def packed_child_at_least(data, board, position, scratch, row, column, tile, source, target, enough):
    """`source` is the blank's cell after the move (as position[0])."""
    return packed_update(
        scratch, row, column, tile, position, source, data.affected.shape[0], data.tables, data.table_offset,
        data.pattern_tiles, data.pattern_k, data.pattern_factorial, data.binomials, data.instance_pattern,
        data.lookup_start, data.lookup_tile, data.lookup_cell, data.affected, data.pattern_zero_aware,
        data.pattern_region_start, data.region_offset, data.pattern_cell_start, data.region_of_cell,
        data.pattern_merge_shift, data.pattern_entry_shift, data.pattern_delta, enough)


@inline_kernel
def packed_update(scratch, row, column, tile, position, blank, n_lookups, tables, table_offset, pattern_tiles,
                  pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                  affected, pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start,
                  region_of_cell, pattern_merge_shift, pattern_entry_shift, pattern_delta, enough):
    """Copy the parent's instances into scratch[row + 1], re-read those of the first
    `n_lookups` lookups that the move of `tile` changes (delta patterns decoded from the parent's
    value), the blank now on `blank`, and return the maximum over those lookups, read from the
    lookup that gave the parent's maximum on; returns at the first lookup whose sum reaches
    `enough` (the others not re-read)."""
    n_instances = instance_pattern.shape[0]
    copy_parent(scratch, row, column, n_instances)
    lookup = first_lookup(scratch, row, column, n_instances, n_lookups)
    best = 0
    best_lookup = lookup
    tried = 0
    while tried < n_lookups and best < enough:  # a loop without a return inside: 2.6x faster compiled
        instance = affected[lookup, tile]
        if instance >= 0:
            stored = packed_stored(
                instance, lookup, position, blank, tables, table_offset, pattern_tiles, pattern_k,
                pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell, pattern_zero_aware,
                pattern_region_start, region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift,
                pattern_entry_shift)
            scratch[row + 1, column + instance] = _decoded(stored, scratch[row, column + instance],
                                                           pattern_delta[instance_pattern[instance]])
        total = lookup_total(lookup, lookup_start, scratch, row + 1, column)
        if total > best:
            best = total
            best_lookup = lookup
        tried += 1
        lookup = lookup + 1 if lookup + 1 < n_lookups else 0
    scratch[row + 1, column + n_instances] = best_lookup
    return best


register_kind(PackedLookups, packed_start, child_at_least=packed_child_at_least)
