"""pdb_random.py -- a combiner that takes one PDB lookup chosen per state instead of their maximum (RandomChoice).

Zahavi, Felner, Schaeffer & Sturtevant's random lookup: the choice is a hash of the state, so a
state always gets the same value. Every lookup is kept up to date incrementally (the chosen one
of a child is not known before the move), so a random lookup costs as much per node as the
maximum: the wrapped maximum's kernels run, and the chosen lookup's sum is read from the
scratch they fill.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from solvers.heuristics.dispatch import NO_LIMIT, register_composed_kind
from solvers.heuristics.pdb_eager import Lookups, eager_kernels, lookup_total
from solvers.heuristics.pdb_rank import Instances
from solvers.jit import inline_kernel


class RandomChoice(NamedTuple):
    """A PdbMax with Lookups (its reader, instances and lookups) of which h is one lookup,
    chosen per state: lookup (key % number of lookups), key the exclusive or of
    zobrist[t * n_cells + cell of t] over the tiles t (a hash of the state, Zobrist's)."""

    reader: tuple
    instances: Instances
    lookups: Lookups
    zobrist: np.ndarray


@inline_kernel
def _chosen(lookup_start, scratch, row, column, zobrist, position):
    """The sum of the instances in scratch[row] of the lookup that the state's hash chooses."""
    n_cells = position.shape[0]
    key = np.int64(0)
    for tile in range(1, n_cells):  # the tiles' cells determine the blank's: it adds nothing
        key ^= zobrist[tile * n_cells + position[tile]]
    return lookup_total(key % (lookup_start.shape[0] - 1), lookup_start, scratch, row, column)


@functools.cache
def random_kernels(reader_class: type) -> tuple:
    """(start, child, child_at_least) of RandomChoice over a reader of `reader_class`."""
    fill, update = eager_kernels(reader_class)

    @inline_kernel
    def start(data, board, position, scratch, row, column):
        reader, instances, lookups, zobrist = data
        fill(reader, instances, lookups, position, scratch, row, column)
        return _chosen(lookups.lookup_start, scratch, row, column, zobrist, position)

    @inline_kernel
    def child(data, board, position, scratch, row, column, tile, source, target):
        reader, instances, lookups, zobrist = data
        update(reader, instances, lookups, position, scratch, row, column, tile, NO_LIMIT)
        return _chosen(lookups.lookup_start, scratch, row + 1, column, zobrist, position)

    return start, child, None


register_composed_kind(RandomChoice, lambda shape: random_kernels(shape.member("reader").kind))
