"""pdb_eager.py -- the evaluation that keeps every PDB lookup up to date (Lookups), over any reader.

A lookup is the sum of its instances (a pattern read in one view: pdb_rank.py). A term's
scratch holds one column per instance, then the lookup that gave the maximum. A move changes
only the instances of the moved tile's patterns (Lookups.affected); a child's lookups are read
from the parent's maximal lookup on, and IDA* stops them at the first that cuts the child off
(`child_at_least`): with a maximum over many lookups most cut-off children cost one lookup.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from solvers.heuristics.pdb_kind import Evaluation, register_evaluation
from solvers.heuristics.pdb_rank import Instances
from solvers.heuristics.pdb_read import reader_kernels
from solvers.jit import inline_kernel


class Lookups(NamedTuple):
    """Lookup L sums the instances lookup_start[L] .. lookup_start[L+1]-1, and affected[L, t]
    names its instance that a move of tile t changes (-1 for none)."""

    lookup_start: np.ndarray
    affected: np.ndarray


@inline_kernel
def lookup_total(lookup, lookup_start, scratch, row, column):
    """The sum of `lookup`'s instances' values in scratch[row]."""
    total = 0
    for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
        total += scratch[row, column + instance]
    return total


@inline_kernel
def combine_and_mark(lookup_start, scratch, row, column):
    """The maximum over the lookups of the sum of their instances' values in scratch[row], and
    the first lookup that gives it written after the instances' columns (the lookup a child
    tries first: the one most likely to cut it off)."""
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
def copy_parent(scratch, row, column, width):
    for instance in range(width):
        scratch[row + 1, column + instance] = scratch[row, column + instance]


@inline_kernel
def first_lookup(scratch, row, column, n_instances, n_lookups):
    """The lookup that gave the maximum at scratch[row] (0 if it names none of the first
    `n_lookups`)."""
    first = scratch[row, column + n_instances]
    return first if 0 <= first < n_lookups else 0


@functools.cache
def eager_kernels(reader_class: type) -> Evaluation:
    """The Evaluation of Lookups over a reader of `reader_class`."""
    read = reader_kernels(reader_class)
    start_value, child_value = read.start_value, read.child_value

    @inline_kernel
    def fill(reader, instances, lookups, position, scratch, row, column):
        for instance in range(instances.instance_pattern.shape[0]):
            scratch[row, column + instance] = start_value(reader, instances, instance, position)
        return combine_and_mark(lookups.lookup_start, scratch, row, column)

    @inline_kernel
    def update(reader, instances, lookups, position, scratch, row, column, tile, enough):
        """Each lookup re-reads the instance the move changes, from the lookup that gave the
        parent's maximum on; returns at the first lookup whose sum reaches `enough` (the
        others not re-read)."""
        lookup_start, affected = lookups.lookup_start, lookups.affected
        n_instances = instances.instance_pattern.shape[0]
        copy_parent(scratch, row, column, n_instances)
        n_lookups = affected.shape[0]
        lookup = first_lookup(scratch, row, column, n_instances, n_lookups)
        best = 0
        best_lookup = lookup
        tried = 0
        while tried < n_lookups and best < enough:  # a loop without a return inside compiles to faster code
            instance = affected[lookup, tile]
            if instance >= 0:
                scratch[row + 1, column + instance] = child_value(reader, instances, instance, position,
                                                                  scratch[row, column + instance])
            total = lookup_total(lookup, lookup_start, scratch, row + 1, column)
            if total > best:
                best = total
                best_lookup = lookup
            tried += 1
            lookup = lookup + 1 if lookup + 1 < n_lookups else 0
        scratch[row + 1, column + n_instances] = best_lookup
        return best

    return Evaluation(fill, update)


def eager_width(instances: Instances) -> int:
    """The scratch columns of Lookups over `instances`: one per instance and the maximal lookup's."""
    return len(instances.instance_pattern) + 1


register_evaluation(Lookups, eager_kernels)
