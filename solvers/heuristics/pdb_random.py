"""pdb_random.py -- one PDB lookup chosen per state instead of their maximum (RandomPdbLookups, RandomPackedLookups).

Zahavi, Felner, Schaeffer & Sturtevant's random lookup: the choice is a hash of the state, so a
state always gets the same value.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from solvers.heuristics.dispatch import NO_LIMIT, register_kind
from solvers.heuristics.pdb_packed import PackedLookups, packed_child_at_least, packed_start
from solvers.heuristics.pdb_plain import PdbLookups, plain_child_at_least, plain_start
from solvers.heuristics.pdb_rank import lookup_total
from solvers.jit import inline_kernel


RandomPdbLookups = namedtuple("RandomPdbLookups", [*PdbLookups._fields, "zobrist"])
RandomPdbLookups.__doc__ = """The lookups of PdbLookups, of which h is one chosen per state: lookup (key % number of
lookups), key the exclusive or of zobrist[t * n_cells + cell of t] over the tiles t (a hash of
the state, Zobrist's), so that a state always gets the same value."""

RandomPackedLookups = namedtuple("RandomPackedLookups", [*PackedLookups._fields, "zobrist"])
RandomPackedLookups.__doc__ = """The lookups of PackedLookups, one chosen per state as in RandomPdbLookups."""


# -- one lookup chosen per state (RandomPdbLookups, RandomPackedLookups) --------------------
# Every lookup is kept up to date incrementally (the chosen one of a child is not known before
# the move), so a random lookup costs as much per node as the maximum; the kinds evaluate the
# maximum's kernels and then read the chosen lookup's sum.

@inline_kernel
def _chosen(lookup_start, scratch, row, column, zobrist, position):
    """The sum of the instances in scratch[row] of the lookup that the state's hash chooses."""
    n_cells = position.shape[0]
    key = np.int64(0)
    for tile in range(1, n_cells):  # the tiles' cells determine the blank's: it adds nothing
        key ^= zobrist[tile * n_cells + position[tile]]
    return lookup_total(key % (lookup_start.shape[0] - 1), lookup_start, scratch, row, column)


@inline_kernel
def _random_plain_start(data, board, position, scratch, row, column):
    plain_start(data, board, position, scratch, row, column)
    return _chosen(data.lookup_start, scratch, row, column, data.zobrist, position)


@inline_kernel
def _random_plain_child(data, board, position, scratch, row, column, tile, source, target):
    plain_child_at_least(data, board, position, scratch, row, column, tile, source, target, NO_LIMIT)
    return _chosen(data.lookup_start, scratch, row + 1, column, data.zobrist, position)


register_kind(RandomPdbLookups, _random_plain_start, _random_plain_child)


@inline_kernel
def _random_packed_start(data, board, position, scratch, row, column):
    packed_start(data, board, position, scratch, row, column)
    return _chosen(data.lookup_start, scratch, row, column, data.zobrist, position)


@inline_kernel
def _random_packed_child(data, board, position, scratch, row, column, tile, source, target):
    packed_child_at_least(data, board, position, scratch, row, column, tile, source, target, NO_LIMIT)
    return _chosen(data.lookup_start, scratch, row + 1, column, data.zobrist, position)


register_kind(RandomPackedLookups, _random_packed_start, _random_packed_child)
