"""pdb_rank.py -- the index of every PDB lookup: which cells an instance reads, and the rank of their placement.

An *instance* is one pattern read in one *view* of the state (regular, reflected, dual): tile
u of the pattern is read on cell view_cell[v, position[view_tile[v, u]]], and the blank on
view_cell[v, position[view_tile[v, 0]]] (the blank is its own image in every view). The
kernels rank placements exactly as pdb_build/ranking.py does, without allocating, in one pass
over a pattern's tiles from the last: the order's Lehmer digit of a tile is the number of
later tiles' cells below its own, and the map rank comes from the cells' bit mask
(cell_set_rank).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.bits import bit_count
from solvers.jit import inline_kernel


class Index(NamedTuple):
    """How the patterns' placements are ranked: pattern p has the pattern_k[p] tiles
    pattern_tiles[p, :k] (k! = pattern_factorial[p]); binomials is cell_set_rank's table."""

    pattern_tiles: np.ndarray
    pattern_k: np.ndarray
    pattern_factorial: np.ndarray
    binomials: np.ndarray


class Instances(NamedTuple):
    """Instance i reads pattern instance_pattern[i] in view instance_view[i]; view v reads
    tile u's cell as view_cell[v, position[view_tile[v, u]]]."""

    instance_pattern: np.ndarray
    instance_view: np.ndarray
    view_tile: np.ndarray
    view_cell: np.ndarray


@inline_kernel
def bits_below(mask, cell):
    return bit_count(mask & ((np.int64(1) << cell) - 1))


@inline_kernel
def order_and_mask(index, instances, instance, position):
    """(order rank, bit mask of the occupied cells) of `instance`'s tiles as its view reads them."""
    pattern_tiles = index.pattern_tiles
    view_tile = instances.view_tile
    view_cell = instances.view_cell
    pattern = instances.instance_pattern[instance]
    view = instances.instance_view[instance]
    mask = np.int64(0)  # the cells of the tiles after tile i, then of all
    order_rank = 0
    weight = 1  # (k - 1 - i)!
    k = index.pattern_k[pattern]
    for i in range(k - 1, -1, -1):
        cell = view_cell[view, position[view_tile[view, pattern_tiles[pattern, i]]]]
        order_rank += bits_below(mask, cell) * weight
        weight *= k - i
        mask |= np.int64(1) << cell
    return order_rank, mask


@inline_kernel
def blank_cell(instances, instance, position):
    """The blank's cell as `instance`'s view reads it."""
    view = instances.instance_view[instance]
    return instances.view_cell[view, position[instances.view_tile[view, 0]]]


@inline_kernel
def order_of(cells, k):
    """The order rank of tiles on `cells` (as order_and_mask computes it)."""
    mask = np.int64(0)
    order_rank = 0
    weight = 1
    for i in range(k - 1, -1, -1):
        order_rank += bits_below(mask, cells[i]) * weight
        weight *= k - i
        mask |= np.int64(1) << cells[i]
    return order_rank
