"""pdb_rank.py -- what every PDB lookup kernel shares: the rank of a pattern's placement, and lookups' sums.

The kernels rank placements exactly as pdb_build/ranking.py does, without allocating, in one
pass over a pattern's tiles from the last: the order's Lehmer digit of a tile is the number of
later tiles' cells below its own, and the map rank comes from the cells' bit mask
(cell_set_rank). A term's scratch holds one column per instance (a pattern read in one lookup),
then the lookup that gave the maximum; a lookup's value is the sum of its instances' columns.
"""

from __future__ import annotations

import numpy as np

from solvers.bits import bit_count
from solvers.jit import inline_kernel


@inline_kernel
def bits_below(mask, cell):
    return bit_count(mask & ((np.int64(1) << cell) - 1))


@inline_kernel
def order_and_mask(instance, lookup, position, pattern_tiles, pattern_k, instance_pattern, lookup_tile, lookup_cell):
    """(order rank, bit mask of the occupied cells) of `instance`'s tiles as `lookup` reads them."""
    pattern = instance_pattern[instance]
    mask = np.int64(0)  # the cells of the tiles after tile i, then of all
    order_rank = 0
    weight = 1  # (k - 1 - i)!
    k = pattern_k[pattern]
    for i in range(k - 1, -1, -1):
        cell = lookup_cell[lookup, position[lookup_tile[lookup, pattern_tiles[pattern, i]]]]
        order_rank += bits_below(mask, cell) * weight
        weight *= k - i
        mask |= np.int64(1) << cell
    return order_rank, mask


@inline_kernel
def combine(lookup_start, scratch, row, column):
    """The maximum over the lookups of the sum of their instances' values in scratch[row]."""
    best = 0
    for lookup in range(lookup_start.shape[0] - 1):
        best = max(best, lookup_total(lookup, lookup_start, scratch, row, column))
    return best


@inline_kernel
def combine_and_mark(lookup_start, scratch, row, column):
    """combine, and the first lookup that gives the maximum written after the instances'
    columns (the lookup a child tries first: the one most likely to cut it off)."""
    best = 0
    best_lookup = 0
    for lookup in range(lookup_start.shape[0] - 1):
        total = lookup_total(lookup, lookup_start, scratch, row, column)
        if total > best:
            best = total
            best_lookup = lookup
    scratch[row, column + lookup_start[lookup_start.shape[0] - 1]] = best_lookup
    return best


@inline_kernel
def lookup_total(lookup, lookup_start, scratch, row, column):
    """The sum of `lookup`'s instances' values in scratch[row]."""
    total = 0
    for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
        total += scratch[row, column + instance]
    return total


@inline_kernel
def copy_parent(scratch, row, column, width):
    for instance in range(width):
        scratch[row + 1, column + instance] = scratch[row, column + instance]


@inline_kernel
def first_lookup(scratch, row, column, n_instances, n_lookups):
    """The lookup that gave the maximum at scratch[row] (0 if it names none of the first
    `n_lookups`)."""
    first = scratch[row, column + n_instances]
    return first if 0 <= first < n_lookups else 0
