"""pdb_lazy.py -- the evaluation that reads a maximum over many PDB lookups lazily (LazyLookups), over an exact reader.

For a catalogue of partitions: a pattern that several lookups share is read once, and a lookup
is not read while the moves since its last reading cannot lift it above the maximum. This needs
a reader whose entries change by exactly one per move of their pattern's tiles and not
otherwise (zero-aware, uncompressed tables: the tiles' colours fix an entry's parity,
compress.py); pdb_lookup.py chooses it only then.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from solvers.heuristics.pdb_eager import copy_parent, first_lookup
from solvers.heuristics.pdb_kind import Evaluation, register_evaluation
from solvers.heuristics.pdb_rank import Instances
from solvers.heuristics.pdb_read import reader_kernels
from solvers.jit import inline_kernel


class LazyLookups(NamedTuple):
    """Lookup L sums the instances lookup_instance[lookup_start[L] .. lookup_start[L+1]-1] (an
    instance that several lookups sum is held once), and a move of tile t changes the instances
    tile_instance[tile_instance_start[t] .. tile_instance_start[t+1]-1]."""

    lookup_start: np.ndarray
    lookup_instance: np.ndarray
    tile_instance_start: np.ndarray
    tile_instance: np.ndarray


# An instance not re-read after s moves of its tiles is at most its last value + s, and a lookup
# whose sum of those bounds is no more than the largest exact lookup so far cannot change the
# maximum: it is not read. Most lookups of a catalogue stay two or more below the maximum and
# are not read at all. Scratch: each instance's bound (its value when read), then its moves
# since it was read, then the maximal lookup.

@inline_kernel
def _lazy_total(lookup, lookup_start, lookup_instance, scratch, row, column):
    """The sum of `lookup`'s instances' bounds in scratch[row] (its value if none is stale)."""
    total = 0
    for j in range(lookup_start[lookup], lookup_start[lookup + 1]):
        total += scratch[row, column + lookup_instance[j]]
    return total


@functools.cache
def lazy_kernels(reader_class: type) -> Evaluation:
    """The Evaluation of LazyLookups over a reader of `reader_class`."""
    value = reader_kernels(reader_class).start_value

    @inline_kernel
    def fill(reader, instances, lookups, position, scratch, row, column):
        lookup_start, lookup_instance = lookups.lookup_start, lookups.lookup_instance
        n_instances = instances.instance_pattern.shape[0]
        for instance in range(n_instances):
            scratch[row, column + instance] = value(reader, instances, instance, position)
            scratch[row, column + n_instances + instance] = 0
        best = 0
        best_lookup = 0
        for lookup in range(lookup_start.shape[0] - 1):
            total = _lazy_total(lookup, lookup_start, lookup_instance, scratch, row, column)
            if total > best:
                best = total
                best_lookup = lookup
        scratch[row, column + 2 * n_instances] = best_lookup
        return best

    @inline_kernel
    def update(reader, instances, lookups, position, scratch, row, column, tile, enough):
        """The parent's columns into scratch[row + 1], the instances of `tile` one move staler,
        and the exact maximum over the lookups, from the parent's maximal one on: a lookup is
        read (its stale instances re-read) only if its bound exceeds the largest exact lookup
        so far; returns at the first lookup whose sum reaches `enough`."""
        lookup_start, lookup_instance = lookups.lookup_start, lookups.lookup_instance
        tile_instance_start, tile_instance = lookups.tile_instance_start, lookups.tile_instance
        n_instances = instances.instance_pattern.shape[0]
        child = row + 1
        copy_parent(scratch, row, column, 2 * n_instances)
        for j in range(tile_instance_start[tile], tile_instance_start[tile + 1]):
            instance = tile_instance[j]
            scratch[child, column + instance] += 1
            scratch[child, column + n_instances + instance] += 1
        n_lookups = lookup_start.shape[0] - 1
        lookup = first_lookup(scratch, row, column, 2 * n_instances, n_lookups)
        best = 0
        best_lookup = lookup
        tried = 0
        while tried < n_lookups and best < enough:  # a loop without a return inside compiles to faster code
            if _lazy_total(lookup, lookup_start, lookup_instance, scratch, child, column) > best:
                for j in range(lookup_start[lookup], lookup_start[lookup + 1]):
                    instance = lookup_instance[j]
                    if scratch[child, column + n_instances + instance] > 0:
                        scratch[child, column + instance] = value(reader, instances, instance, position)
                        scratch[child, column + n_instances + instance] = 0
                total = _lazy_total(lookup, lookup_start, lookup_instance, scratch, child, column)
                if total > best:
                    best = total
                    best_lookup = lookup
            tried += 1
            lookup = lookup + 1 if lookup + 1 < n_lookups else 0
        scratch[child, column + 2 * n_instances] = best_lookup
        return best

    return Evaluation(fill, update)


def lazy_width(instances: Instances) -> int:
    """The scratch columns of LazyLookups over `instances`: two per instance and the maximal lookup's."""
    return 2 * len(instances.instance_pattern) + 1


register_evaluation(LazyLookups, lazy_kernels)
