"""pdb_dual.py -- PDB lookups that read the dual state as well (DualPdbLookups, DualPackedLookups).

The dual state swaps the roles of tiles and cells; where the blank is on its goal cell it is
exactly as far from the goal as the state itself, so a dual lookup counts only there.
"""

from __future__ import annotations

from collections import namedtuple

from solvers.heuristics.dispatch import NO_LIMIT, register_kind
from solvers.heuristics.pdb_packed import PackedLookups, packed_fill, packed_stored, packed_update
from solvers.heuristics.pdb_plain import PdbLookups, plain_value
from solvers.heuristics.pdb_rank import combine, copy_parent
from solvers.jit import inline_kernel


DualPdbLookups = namedtuple("DualPdbLookups", [*PdbLookups._fields, "first_dual", "blank_home"])
DualPdbLookups.__doc__ = """The lookups of PdbLookups, those from first_dual[0] on read on the dual state: lookup L then
reads tile u's cell as lookup_cell[L, board[lookup_tile[L, u]]] (lookup_tile holds goal cells,
lookup_cell is the view's cell map after goal_cell), its affected row is all -1, and it counts
only while the blank is on its goal cell blank_home[0] (0 elsewhere)."""

DualPackedLookups = namedtuple("DualPackedLookups", [*PackedLookups._fields, "first_dual", "blank_home"])
DualPackedLookups.__doc__ = """The lookups of PackedLookups with dual lookups as in DualPdbLookups (never on a delta
pattern: file_term refuses them)."""


# -- with dual lookups (DualPdbLookups, DualPackedLookups) ----------------------------------
# A dual lookup reads the board instead of `position` and counts only while the blank is on
# its goal cell (where the dual state is exactly as far from the goal as the state). A move
# changes two tiles of the dual state, so the kinds' affected rows skip the dual lookups; they
# are evaluated from scratch when the blank reaches its goal cell and zeroed when it leaves.

@inline_kernel
def _dual_plain_refresh(scratch, row, column, board, home, tables, table_offset, pattern_tiles, pattern_k,
                        pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                        first_dual):
    """Write the dual lookups' instances of scratch[row]: their values if `home`, else 0."""
    if not home:
        for instance in range(lookup_start[first_dual[0]], instance_pattern.shape[0]):
            scratch[row, column + instance] = 0
        return
    for lookup in range(first_dual[0], lookup_start.shape[0] - 1):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            scratch[row, column + instance] = plain_value(
                instance, lookup, board, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell)


@inline_kernel
def _dual_plain_start(data, board, position, scratch, row, column):
    return _dual_plain_lookups_start(
        scratch, row, column, board, position, data.tables, data.table_offset, data.pattern_tiles, data.pattern_k,
        data.pattern_factorial, data.binomials, data.instance_pattern, data.lookup_start, data.lookup_tile,
        data.lookup_cell, data.first_dual, data.blank_home)


@inline_kernel
def _dual_plain_lookups_start(scratch, row, column, board, position, tables, table_offset, pattern_tiles, pattern_k,
                              pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                              first_dual, blank_home):
    for lookup in range(first_dual[0]):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            scratch[row, column + instance] = plain_value(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell)
    _dual_plain_refresh(scratch, row, column, board, board[blank_home[0]] == 0, tables, table_offset, pattern_tiles,
                        pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile,
                        lookup_cell, first_dual)
    return combine(lookup_start, scratch, row, column)


@inline_kernel
def _dual_plain_child(data, board, position, scratch, row, column, tile, source, target):
    return _dual_plain_lookups_child(
        scratch, row, column, tile, source, target, board, position, data.tables, data.table_offset,
        data.pattern_tiles, data.pattern_k, data.pattern_factorial, data.binomials, data.instance_pattern,
        data.lookup_start, data.lookup_tile, data.lookup_cell, data.affected, data.first_dual, data.blank_home)


@inline_kernel
def _dual_plain_lookups_child(scratch, row, column, tile, source, target, board, position, tables, table_offset,
                              pattern_tiles, pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start,
                              lookup_tile, lookup_cell, affected, first_dual, blank_home):
    """The blank moved from `target` to `source`: the dual lookups change only when one of them
    is its goal cell."""
    copy_parent(scratch, row, column, instance_pattern.shape[0])
    for lookup in range(first_dual[0]):
        instance = affected[lookup, tile]
        if instance >= 0:
            scratch[row + 1, column + instance] = plain_value(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell)
    home = blank_home[0]
    if source == home or target == home:
        _dual_plain_refresh(scratch, row + 1, column, board, source == home, tables, table_offset, pattern_tiles,
                            pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile,
                            lookup_cell, first_dual)
    return combine(lookup_start, scratch, row + 1, column)


register_kind(DualPdbLookups, _dual_plain_start, _dual_plain_child)


@inline_kernel
def _dual_packed_refresh(scratch, row, column, board, home, tables, table_offset, pattern_tiles, pattern_k,
                         pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                         pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                         pattern_merge_shift, pattern_entry_shift, first_dual):
    """Write the dual lookups' instances of scratch[row]: their values if `home`, else 0 (the
    dual blank is read like a tile: board[lookup_tile[L, 0]])."""
    if not home:
        for instance in range(lookup_start[first_dual[0]], instance_pattern.shape[0]):
            scratch[row, column + instance] = 0
        return
    for lookup in range(first_dual[0], lookup_start.shape[0] - 1):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            scratch[row, column + instance] = packed_stored(
                instance, lookup, board, board[lookup_tile[lookup, 0]], tables, table_offset, pattern_tiles,
                pattern_k, pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell,
                pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                pattern_merge_shift, pattern_entry_shift)


@inline_kernel
def _dual_packed_start(data, board, position, scratch, row, column):
    return _dual_packed_lookups_start(
        scratch, row, column, board, position, data.tables, data.table_offset, data.pattern_tiles, data.pattern_k,
        data.pattern_factorial, data.binomials, data.instance_pattern, data.lookup_start, data.lookup_tile,
        data.lookup_cell, data.pattern_zero_aware, data.pattern_region_start, data.region_offset,
        data.pattern_cell_start, data.region_of_cell, data.pattern_merge_shift, data.pattern_entry_shift,
        data.pattern_delta, data.goal_cell, data.goal_blank, data.neighbours, data.colour, data.first_dual,
        data.blank_home)


@inline_kernel
def _dual_packed_lookups_start(scratch, row, column, board, position, tables, table_offset, pattern_tiles, pattern_k,
                               pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                               pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start,
                               region_of_cell, pattern_merge_shift, pattern_entry_shift, pattern_delta, goal_cell,
                               goal_blank, neighbours, colour, first_dual, blank_home):
    packed_fill(scratch, row, column, position, first_dual[0], tables, table_offset, pattern_tiles, pattern_k,
                 pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                 pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                 pattern_merge_shift, pattern_entry_shift, pattern_delta, goal_cell, goal_blank, neighbours, colour)
    _dual_packed_refresh(scratch, row, column, board, board[blank_home[0]] == 0, tables, table_offset, pattern_tiles,
                         pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile,
                         lookup_cell, pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start,
                         region_of_cell, pattern_merge_shift, pattern_entry_shift, first_dual)
    return combine(lookup_start, scratch, row, column)


@inline_kernel
def _dual_packed_child(data, board, position, scratch, row, column, tile, source, target):
    return _dual_packed_lookups_child(
        scratch, row, column, tile, source, target, board, position, data.tables, data.table_offset,
        data.pattern_tiles, data.pattern_k, data.pattern_factorial, data.binomials, data.instance_pattern,
        data.lookup_start, data.lookup_tile, data.lookup_cell, data.affected, data.pattern_zero_aware,
        data.pattern_region_start, data.region_offset, data.pattern_cell_start, data.region_of_cell,
        data.pattern_merge_shift, data.pattern_entry_shift, data.pattern_delta, data.first_dual, data.blank_home)


@inline_kernel
def _dual_packed_lookups_child(scratch, row, column, tile, source, target, board, position, tables, table_offset,
                               pattern_tiles, pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start,
                               lookup_tile, lookup_cell, affected, pattern_zero_aware, pattern_region_start,
                               region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift,
                               pattern_entry_shift, pattern_delta, first_dual, blank_home):
    """As PackedLookups' child (the blank is on `source`), then the dual lookups as in
    _dual_plain_lookups_child."""
    packed_update(scratch, row, column, tile, position, source, first_dual[0], tables, table_offset, pattern_tiles,
                   pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                   affected, pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start,
                   region_of_cell, pattern_merge_shift, pattern_entry_shift, pattern_delta, NO_LIMIT)
    home = blank_home[0]
    if source == home or target == home:
        _dual_packed_refresh(scratch, row + 1, column, board, source == home, tables, table_offset, pattern_tiles,
                             pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile,
                             lookup_cell, pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start,
                             region_of_cell, pattern_merge_shift, pattern_entry_shift, first_dual)
    return combine(lookup_start, scratch, row + 1, column)


register_kind(DualPackedLookups, _dual_packed_start, _dual_packed_child)
