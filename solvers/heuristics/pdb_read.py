"""pdb_read.py -- readers: how one instance's value is read from its pattern's table.

A reader is a NamedTuple of the tables and what reading them needs; its class names the
kernels that read it (`register_reader`), so that an evaluation (pdb_eager.py, pdb_lazy.py)
is written once for every reader:

    start_value(reader, instances, instance, position) -> v
        the value of `instance` for the tiles' cells in `position` (pdb_rank.py), from nothing.
    child_value(reader, instances, instance, position, parent) -> v
        the same after a move, given the instance's value `parent` before it (which a
        delta-encoded table needs: pdb_encoded.py).

This module holds the readers of uncompressed tables: plain ones (an entry per placement,
the minimum over the blank's regions) and zero-aware ones (an entry per placement and region
of the blank: build-pdb --zero-aware). Every table of a reader is of the reader's kind;
pdb_encoded.py reads any mix of kinds and encodings.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pdb_build.ranking import cell_set_rank
from solvers.heuristics.pdb_rank import Index, blank_cell, order_and_mask
from solvers.jit import inline_kernel
from solvers.kernel_cache import note_kernels


class ReaderKernels(NamedTuple):
    start_value: object
    child_value: object


_READERS: dict[type, ReaderKernels] = {}


def register_reader(reader_class: type, start_value, child_value=None) -> None:
    """Make `reader_class` a reader read by `start_value` and `child_value` (signatures in the
    module docstring; `child_value` defaults to start_value, the parent's value unused)."""
    if child_value is None:
        def child_value(reader, instances, instance, position, parent):
            return start_value(reader, instances, instance, position)

        child_value = inline_kernel(child_value)
    _READERS[reader_class] = ReaderKernels(start_value, child_value)
    note_kernels(reader_class, start_value, child_value)


def reader_kernels(reader_class: type) -> ReaderKernels:
    try:
        return _READERS[reader_class]
    except KeyError:
        raise TypeError(f"{reader_class.__name__} is not a registered PDB reader") from None


class Regions(NamedTuple):
    """Where a zero-aware pattern's blocks are: pattern p's block for map rank m and the blank
    on cell b is region_offset[pattern_region_start[p] + m] + region_of_cell[
    pattern_cell_start[p] + m * n_cells + b] (abstraction.region_layout, one layout per pattern
    size); pattern_zero_aware[p] is 1 for a zero-aware pattern (pdb_encoded.py mixes kinds)."""

    pattern_zero_aware: np.ndarray
    pattern_region_start: np.ndarray
    region_offset: np.ndarray
    pattern_cell_start: np.ndarray
    region_of_cell: np.ndarray


class PlainTables(NamedTuple):
    """Plain, uncompressed tables, concatenated: pattern p's entry for map rank m and order o
    is tables[table_offset[p] + m * k! + o]."""

    tables: np.ndarray
    table_offset: np.ndarray
    index: Index


class ZeroAwareTables(NamedTuple):
    """Zero-aware, uncompressed tables: pattern p's entry for block b and order o is
    tables[table_offset[p] + b * k! + o], the block that of the blank's region (Regions)."""

    tables: np.ndarray
    table_offset: np.ndarray
    index: Index
    regions: Regions


@inline_kernel
def _entry(reader, pattern, block, order):
    """The entry of `pattern`'s table for (block, order), block being the map rank or the region's block."""
    return np.int64(reader.tables[reader.table_offset[pattern] + block * reader.index.pattern_factorial[pattern]
                                  + order])


@inline_kernel
def _plain_value(reader, instances, instance, position):
    order, mask = order_and_mask(reader.index, instances, instance, position)
    return _entry(reader, instances.instance_pattern[instance], cell_set_rank(mask, reader.index.binomials), order)


@inline_kernel
def _zero_aware_value(reader, instances, instance, position):
    """The entry of the blank's region (a move of a tile outside the pattern keeps the blank
    inside its region: both cells are free and adjacent, so the entry changes only when one of
    the pattern's own tiles moves)."""
    order, mask = order_and_mask(reader.index, instances, instance, position)
    pattern = instances.instance_pattern[instance]
    block = _region_block(reader.regions, pattern, cell_set_rank(mask, reader.index.binomials),
                          blank_cell(instances, instance, position), instances.view_cell.shape[1])
    return _entry(reader, pattern, block, order)


@inline_kernel
def _region_block(regions, pattern, map_rank, blank, n_cells):
    """The block of a zero-aware `pattern` for map rank `map_rank` with the blank on cell `blank`."""
    return regions.region_offset[regions.pattern_region_start[pattern] + map_rank] + regions.region_of_cell[
        regions.pattern_cell_start[pattern] + map_rank * n_cells + blank]


register_reader(PlainTables, _plain_value)
register_reader(ZeroAwareTables, _zero_aware_value)
