"""pdb_dual.py -- a view that adds lookups of the dual state to a PdbMax of any reader and evaluation (WithDual).

The dual state swaps the roles of tiles and cells; where the blank is on its goal cell it is
exactly as far from the goal as the state itself, so a dual lookup counts only there, and h is
the maximum of the PdbMax's value and the dual lookups'. A move changes two tiles of the
dual state, so the dual lookups are not kept up to date: they are read from nothing when the
blank reaches its goal cell (it leaves it at the next move), and need no scratch.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from solvers.heuristics.dispatch import NO_LIMIT, register_composed_kind
from solvers.heuristics.pdb_kind import Evaluation, evaluation_of
from solvers.heuristics.pdb_rank import Instances
from solvers.heuristics.pdb_read import reader_kernels
from solvers.jit import inline_kernel


class DualLookups(NamedTuple):
    """Lookups read on the board instead of `position`: lookup L sums the instances
    lookup_start[L] .. lookup_start[L+1]-1, whose views map goal cells to tiles (view_tile)
    and the tiles found there to cells (view_cell); they count while the blank is on its goal
    cell blank_home[0]."""

    instances: Instances
    lookup_start: np.ndarray
    blank_home: np.ndarray


class WithDual(NamedTuple):
    """A PdbMax (its reader, instances and lookups) and `dual`, read by the same reader: h is the
    maximum of the PdbMax's value and, where the blank is home, the dual lookups'."""

    reader: tuple
    instances: Instances
    lookups: tuple
    dual: DualLookups


@functools.cache
def dual_kernels(reader_class: type, evaluation: Evaluation) -> tuple:
    """(start, child, child_at_least) of WithDual over a reader of `reader_class` and the
    regular lookups' `evaluation` (child written out: derived, it cost numba's reference
    counting of the data at every node)."""
    value = reader_kernels(reader_class).start_value
    fill, update = evaluation

    @inline_kernel
    def dual_value(reader, dual, board):
        instances, lookup_start = dual.instances, dual.lookup_start
        best = 0
        for lookup in range(lookup_start.shape[0] - 1):
            total = 0
            for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
                total += value(reader, instances, instance, board)
            best = max(best, total)
        return best

    @inline_kernel
    def start(data, board, position, scratch, row, column):
        reader, instances, lookups, dual = data
        h = fill(reader, instances, lookups, position, scratch, row, column)
        if board[dual.blank_home[0]] == 0:
            h = max(h, dual_value(reader, dual, board))
        return h

    @inline_kernel
    def child(data, board, position, scratch, row, column, tile, source, target):
        """`source` is the blank's cell after the move."""
        reader, instances, lookups, dual = data
        h = update(reader, instances, lookups, position, scratch, row, column, tile, NO_LIMIT)
        if source == dual.blank_home[0]:
            h = max(h, dual_value(reader, dual, board))
        return h

    @inline_kernel
    def child_at_least(data, board, position, scratch, row, column, tile, source, target, enough):
        reader, instances, lookups, dual = data
        h = update(reader, instances, lookups, position, scratch, row, column, tile, enough)
        if source == dual.blank_home[0]:
            h = max(h, dual_value(reader, dual, board))
        return h

    return start, child, child_at_least


register_composed_kind(WithDual, lambda shape: dual_kernels(shape.member("reader").kind, evaluation_of(shape)))
