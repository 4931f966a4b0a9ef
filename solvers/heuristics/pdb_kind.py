"""pdb_kind.py -- the kind of a PDB term (PdbMax): a reader composed with an evaluation.

A PdbMax's value is the maximum over its lookups. Its kernels are chosen by the classes of two
of its members: `reader` names how an instance is read (pdb_read.py, pdb_encoded.py) and
`lookups` names the evaluation that keeps the maximum (`register_evaluation`): Lookups, every
lookup kept up to date (pdb_eager.py), or LazyLookups, read lazily (pdb_lazy.py). The view and
combiner wrappers (pdb_dual.py, pdb_random.py) are NamedTuples with the same three members and
one more, so the evaluation's kernels read them as they read a PdbMax: the members stay one
level deep, where numba's reference counting of the arrays they hold is pruned (a PdbMax nested
inside another tuple made every node pay for it).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from solvers.heuristics.dispatch import NO_LIMIT, Shape, register_composed_kind
from solvers.heuristics.pdb_rank import Instances
from solvers.jit import inline_kernel
from solvers.kernel_cache import note_kernels

_EVALUATIONS: dict[type, object] = {}  # lookups class -> Evaluation factory: reader class -> Evaluation


class Evaluation(NamedTuple):
    """The kernels of an evaluation over one reader class:

        fill(reader, instances, lookups, position, scratch, row, column) -> h
            h from nothing; fills the columns of scratch[row].
        update(reader, instances, lookups, position, scratch, row, column, tile, enough) -> v
            h after a move of `tile` (`position` already after it), or any v from `enough` to
            h, as a kind's child_at_least (dispatch.py); the child's columns go to scratch[row + 1].
    """

    fill: object
    update: object


class PdbMax(NamedTuple):
    """h is the maximum over `lookups` of `instances` read by `reader`."""

    reader: tuple
    instances: Instances
    lookups: tuple


def register_evaluation(lookups_class: type, kernels_for) -> None:
    """Make `lookups_class` an evaluation: `kernels_for(reader_class)` returns its Evaluation
    over readers of that class."""
    _EVALUATIONS[lookups_class] = kernels_for
    note_kernels(lookups_class, kernels_for)


def evaluation_of(shape: Shape) -> Evaluation:
    """The Evaluation of a PdbMax (or a wrapper with its members) of `shape`."""
    lookups_class = shape.member("lookups").kind
    try:
        kernels_for = _EVALUATIONS[lookups_class]
    except KeyError:
        raise TypeError(f"{lookups_class.__name__} is not a registered PDB evaluation") from None
    return kernels_for(shape.member("reader").kind)


@functools.cache
def _pdb_max_kernels(evaluation: Evaluation) -> tuple:
    fill, update = evaluation

    @inline_kernel
    def start(data, board, position, scratch, row, column):
        return fill(data.reader, data.instances, data.lookups, position, scratch, row, column)

    @inline_kernel
    def child(data, board, position, scratch, row, column, tile, source, target):
        return update(data.reader, data.instances, data.lookups, position, scratch, row, column, tile, NO_LIMIT)

    @inline_kernel
    def child_at_least(data, board, position, scratch, row, column, tile, source, target, enough):
        return update(data.reader, data.instances, data.lookups, position, scratch, row, column, tile, enough)

    return start, child, child_at_least


register_composed_kind(PdbMax, lambda shape: _pdb_max_kernels(evaluation_of(shape)))
