"""pdb_plain.py -- the fastest PDB lookups: plain, uncompressed tables (PdbLookups).

An entry is tables[table_offset[p] + map * k! + order]. A move changes only the instances of
the moved tile's patterns (affected[lookup, tile]); a child's lookups are read from the
parent's maximal lookup on, and IDA* stops them at the first that cuts the child off
(`child_at_least`): with a maximum over many lookups most cut-off children cost one lookup.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pdb_build.ranking import cell_set_rank
from solvers.heuristics.dispatch import register_kind
from solvers.heuristics.pdb_rank import combine_and_mark, copy_parent, first_lookup, lookup_total, order_and_mask
from solvers.jit import inline_kernel


class PdbLookups(NamedTuple):
    """Plain, uncompressed tables: the tables of every pattern concatenated, where each starts,
    the patterns' tiles, sizes and k!, the binomials of the ranking, and the lookups: lookup L
    sums the instances lookup_start[L] .. lookup_start[L+1]-1, reads tile u's cell as
    lookup_cell[L, position[lookup_tile[L, u]]] (the identity or the mirror image), and
    affected[L, t] names its instance that a move of tile t changes (-1 for none). An entry
    is tables[table_offset[p] + map * k! + order]."""

    tables: np.ndarray
    table_offset: np.ndarray
    pattern_tiles: np.ndarray
    pattern_k: np.ndarray
    pattern_factorial: np.ndarray
    binomials: np.ndarray
    instance_pattern: np.ndarray
    lookup_start: np.ndarray
    lookup_tile: np.ndarray
    lookup_cell: np.ndarray
    affected: np.ndarray


# -- plain, uncompressed tables (PdbLookups) ------------------------------------------------
# The arrays are passed one by one: reading them out of the data tuple inside the loops would
# cost reference counting at every access.

@inline_kernel
def plain_value(instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell):
    """The table entry of `instance` (a pattern in `lookup`) for the tiles' current cells."""
    order, mask = order_and_mask(instance, lookup, position, pattern_tiles, pattern_k, instance_pattern,
                                  lookup_tile, lookup_cell)
    pattern = instance_pattern[instance]
    return np.int64(tables[table_offset[pattern] + cell_set_rank(mask, binomials) * pattern_factorial[pattern] + order])


@inline_kernel
def plain_start(data, board, position, scratch, row, column):
    return _plain_lookups_start(scratch, row, column, position, data.tables, data.table_offset, data.pattern_tiles,
                                data.pattern_k, data.pattern_factorial, data.binomials, data.instance_pattern,
                                data.lookup_start, data.lookup_tile, data.lookup_cell)


@inline_kernel
def _plain_lookups_start(scratch, row, column, position, tables, table_offset, pattern_tiles, pattern_k,
                         pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell):
    for lookup in range(lookup_start.shape[0] - 1):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            scratch[row, column + instance] = plain_value(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell)
    return combine_and_mark(lookup_start, scratch, row, column)


@inline_kernel
def plain_child_at_least(data, board, position, scratch, row, column, tile, source, target, enough):
    return _plain_lookups_child(scratch, row, column, tile, position, data.tables, data.table_offset,
                                data.pattern_tiles, data.pattern_k, data.pattern_factorial, data.binomials,
                                data.instance_pattern, data.lookup_start, data.lookup_tile, data.lookup_cell,
                                data.affected, enough)


@inline_kernel
def _plain_lookups_child(scratch, row, column, tile, position, tables, table_offset, pattern_tiles, pattern_k,
                         pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                         affected, enough):
    """The maximum over the lookups after the move, each lookup re-reading the instance the
    move changes, from the lookup that gave the parent's maximum on (combine_and_mark);
    returns at the first lookup whose sum reaches `enough`."""
    n_instances = instance_pattern.shape[0]
    copy_parent(scratch, row, column, n_instances)
    n_lookups = affected.shape[0]
    lookup = first_lookup(scratch, row, column, n_instances, n_lookups)
    best = 0
    best_lookup = lookup
    tried = 0
    while tried < n_lookups and best < enough:  # a loop without a return inside: 2.6x faster compiled
        instance = affected[lookup, tile]
        if instance >= 0:
            scratch[row + 1, column + instance] = plain_value(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell)
        total = lookup_total(lookup, lookup_start, scratch, row + 1, column)
        if total > best:
            best = total
            best_lookup = lookup
        tried += 1
        lookup = lookup + 1 if lookup + 1 < n_lookups else 0
    scratch[row + 1, column + n_instances] = best_lookup
    return best


register_kind(PdbLookups, plain_start, child_at_least=plain_child_at_least)
