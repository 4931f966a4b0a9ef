"""pdb_lookup.py -- kernels that look up additive PDB tables for a state, from scratch or after a move.

They rank placements exactly as pdb_build/ranking.py does, without allocating, in one pass
over a pattern's tiles from the last: the order's Lehmer digit of a tile is the number of
later tiles' cells below its own, and the map rank comes from the cells' bit mask. The arrays are those of
a KernelHeuristic (solvers/heuristics.py), passed one by one: search kernels unpack them once,
because taking arrays out of a tuple at every node costs reference counting.
"""

from __future__ import annotations

import numpy as np

from pdb_build.ranking import _map_rank
from solvers.jit import inline_kernel


@inline_kernel
def _bits_below(mask, cell):
    below = mask & ((np.int64(1) << cell) - 1)
    count = 0
    while below != 0:
        below &= below - 1
        count += 1
    return count


@inline_kernel
def _instance_value(instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k,
                    pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell):
    """The table entry of `instance` (a pattern in `lookup`) for the tiles' current positions."""
    pattern = instance_pattern[instance]
    k = pattern_k[pattern]
    mask = np.int64(0)  # the cells of the tiles after tile i, then of all
    order_rank = 0
    weight = 1  # (k - 1 - i)!
    for i in range(k - 1, -1, -1):
        cell = lookup_cell[lookup, position[lookup_tile[lookup, pattern_tiles[pattern, i]]]]
        order_rank += _bits_below(mask, cell) * weight
        weight *= k - i
        mask |= np.int64(1) << cell
    index = _map_rank(mask, binomials) * pattern_factorial[pattern] + order_rank
    return np.int64(tables[table_offset[pattern] + index])


@inline_kernel
def _combine(lookup_start, row):
    """The maximum over the lookups of the sum of their instances' values in `row`."""
    best = 0
    for lookup in range(lookup_start.shape[0] - 1):
        total = 0
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            total += row[instance]
        if total > best:
            best = total
    return best


@inline_kernel
def _pdb_start(values, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
               binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell):
    """Fill row 0 of `values` with every instance's value; return h."""
    for lookup in range(lookup_start.shape[0] - 1):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            values[0, instance] = _instance_value(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k,
                pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell,
            )
    return _combine(lookup_start, values[0])


@inline_kernel
def _pdb_child(values, depth, tile, position, tables, table_offset, pattern_tiles, pattern_k,
               pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell, affected):
    """Row depth + 1 of `values` after `tile` moved (position already updated); return h."""
    for instance in range(values.shape[1]):
        values[depth + 1, instance] = values[depth, instance]
    for lookup in range(affected.shape[0]):
        instance = affected[lookup, tile]
        if instance >= 0:
            values[depth + 1, instance] = _instance_value(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k,
                pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell,
            )
    return _combine(lookup_start, values[depth + 1])
