"""evaluators.py -- a heuristic as data of one numba type: its tree's evaluations called by address.

A search kernel compiled for a tree of nodes (dispatch.py) is compiled again for every heuristic
type. Given an `Evaluators` instead, it is compiled once and serves every heuristic: an
Evaluators holds the native addresses of two functions compiled for the heuristic's tree (its
`start` and `child_at_least`, with the contracts of dispatch.py; `child` is `child_at_least`
with `enough` NO_LIMIT, which evaluates every node exactly) and a flat int64 *descriptor* of
the tree's data (solvers/by_address.py), from which each function rebuilds the tree at every
call and evaluates it with the tree's own code. The two functions take integers only (the
descriptor's, board's, position's and scratch's addresses and sizes, the move, `enough`), so
their type never changes; they are compiled once per tree type, and cached on disk where the
tree's kinds are tilepdb's (Heuristic.cacheable). A call costs an indirect call and the
rebuilding of the data, which LLVM cannot move out of the search's loop: the searches run at
about 0.8-0.95 of the speed of a search compiled for the tree itself
(docs/developer/heuristics-as-data.md), which a caller asks for with `Heuristic(...,
specialised=True)` where the work pays for the compile.

An Evaluators holds addresses; its descriptor keeps the tree and its arrays alive. It never
leaves its process (pickling one is refused; a Heuristic pickles without it).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numba
import numpy as np
from numba.core import types
from numba.extending import overload, register_jitable

from solvers.by_address import address_of, array_at, call_at, descriptor_of, native_address, rebuilt
from solvers.heuristics.dispatch import NO_LIMIT, h_child, h_child_at_least, h_start
from solvers.jit import address_kernel, uncached

# descriptor, board, n_cells, position, scratch, n_columns, row, tile, source, target, enough
ARGUMENTS = (types.int64,) * 11
BOARD = types.Array(types.uint8, 1, "C")
POSITION = types.Array(types.int64, 1, "C")
SCRATCH = types.Array(types.int64, 2, "C")


class Evaluators(NamedTuple):
    """The native addresses of a tree's two evaluations and the descriptor of its data (which
    keeps the tree alive)."""

    start: int
    child_at_least: int
    descriptor: np.ndarray

    def __reduce__(self):
        raise TypeError("Evaluators hold native addresses and never leave their process; pickle the Heuristic")


# The two, compiled once per tree type. The scratch they hand the tree claims row + 2 rows from
# the search's first, of which a kind reads `row` and writes `row + 1` only (dispatch.py).
def _start(descriptor, board, n_cells, position, scratch, n_columns, row, tile, source, target, enough, tree_type):
    return np.int64(h_start(rebuilt(descriptor, tree_type), array_at(board, (n_cells,), BOARD),
                   array_at(position, (n_cells,), POSITION), array_at(scratch, (row + 2, n_columns), SCRATCH), row))


def _child_at_least(descriptor, board, n_cells, position, scratch, n_columns, row, tile, source, target, enough,
                    tree_type):
    return np.int64(h_child_at_least(rebuilt(descriptor, tree_type), array_at(board, (n_cells,), BOARD),
                                     array_at(position, (n_cells,), POSITION),
                                     array_at(scratch, (row + 2, n_columns), SCRATCH), row, tile, source, target,
                                     enough))


EVALUATIONS = tuple(address_kernel(f) for f in (_start, _child_at_least))


@functools.cache
def _addresses(tree_type, cacheable: bool) -> tuple[int, int]:
    """The native addresses of the two evaluations compiled (or loaded) for trees of
    `tree_type`; never from or to the disk cache unless `cacheable`."""
    return tuple(native_address(e if cacheable else uncached(e), ARGUMENTS, tree_type) for e in EVALUATIONS)


def evaluators_of(tree: tuple, cacheable: bool) -> Evaluators:
    """The Evaluators of `tree` (a heuristic's tuple of nodes)."""
    return Evaluators(*_addresses(numba.typeof(tree), cacheable), descriptor_of(tree))


@register_jitable(inline="always")
def _called(address, leaves, board, position, scratch, row, tile, source, target, enough):
    """What the evaluation at `address` of Evaluators `leaves` returns for the search's arrays
    (inlined by numba, as `address_of` is)."""
    arguments = (address_of(leaves.descriptor), address_of(board), np.int64(board.shape[0]), address_of(position),
                 address_of(scratch), np.int64(scratch.shape[1]), np.int64(row), np.int64(tile), np.int64(source),
                 np.int64(target), np.int64(enough))
    return call_at(address, arguments, types.int64)


def _is_evaluators(leaves) -> bool:
    return isinstance(leaves, types.BaseNamedTuple) and leaves.instance_class is Evaluators


@overload(h_start, inline="always")
def _h_start_by_address(leaves, board, position, scratch, row):
    if _is_evaluators(leaves):
        return lambda leaves, board, position, scratch, row: _called(leaves.start, leaves, board, position, scratch,
                                                                     row, 0, 0, 0, 0)
    return None


@overload(h_child, inline="always")
def _h_child_by_address(leaves, board, position, scratch, row, tile, source, target):
    if _is_evaluators(leaves):
        return lambda leaves, board, position, scratch, row, tile, source, target: _called(
            leaves.child_at_least, leaves, board, position, scratch, row, tile, source, target, NO_LIMIT)
    return None


@overload(h_child_at_least, inline="always")
def _h_child_at_least_by_address(leaves, board, position, scratch, row, tile, source, target, enough):
    if _is_evaluators(leaves):
        return lambda leaves, board, position, scratch, row, tile, source, target, enough: _called(
            leaves.child_at_least, leaves, board, position, scratch, row, tile, source, target, enough)
    return None
