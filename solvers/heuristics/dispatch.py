"""dispatch.py -- how a search evaluates any heuristic: kinds registered once, leaves as data.

A heuristic reaches a search kernel as a tuple of *leaves*; h is the maximum over them. A
leaf is a `Leaf(data, column)`: `data` is a NamedTuple of read-only arrays whose class names
its *kind*, and `column` is the first of the leaf's columns in the search's *scratch*, an
int64 array of shape (rows, columns) that every search allocates for itself (one row per
depth; a leaf keeps in its columns whatever it needs to evaluate a child incrementally).
Nothing a search writes lives in the data, so any number of searches may share one
heuristic.

A kind registers kernels for its data class (`register_kind`):

    start(data, board, position, scratch, row, column) -> h
        h of `board`, computed from scratch; fills the kind's columns of scratch[row].
    child(data, board, position, scratch, row, column, tile, source, target) -> h
        h after `tile` moved from cell `source` to cell `target`: `board` and `position`
        (the cell of every tile) are already after the move, the parent's columns are in
        scratch[row], the child's are written to scratch[row + 1].
    child_at_least(data, board, position, scratch, row, column, tile, source, target, enough) -> v
        h of the child as `child` gives it, or any v with enough <= v <= h (the kind stopped
        early: the child's columns of scratch[row + 1] may then be incomplete, so the
        caller must neither expand the child nor evaluate its children).

A kind gives `start` and one of the other two: `child` is then `child_at_least` with
`enough` = NO_LIMIT, or `child_at_least` is `child`. IDA* asks for h at least the value from
which a child is cut off and cannot lower the next bound, so a maximum over many lookups
stops at the first lookup that cuts the child (depth_first.py).

`h_start` fills `position` (the cell of every tile, position[0] the blank's), and the searches
keep `board` and all of `position` exact after every move and undo (tests/test_heuristic_kinds.py
checks it in every search with a kind that reads the blank's cell through `position`).
Dispatch happens when numba compiles a search for a tuple of leaf types (through
`numba.extending.overload`), so a kind costs nothing at run time; with NUMBA_DISABLE_JIT=1
the same functions dispatch in Python through the registry.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba.extending import overload

from solvers.jit import inline_kernel


class Leaf(NamedTuple):
    """One kind's data and the first scratch column it owns."""

    data: tuple
    column: int


class _Kernels(NamedTuple):
    start: object
    child: object
    child_at_least: object


_KINDS: dict[type, _Kernels] = {}
NO_LIMIT = np.iinfo(np.int64).max  # `enough` of a child evaluated to its exact h


def register_kind(data_class: type, start, child=None, child_at_least=None) -> None:
    """Make `data_class` (a NamedTuple of arrays and scalars) a kind evaluated by the numba
    kernels `start` and `child` or `child_at_least` (or both; signatures in the module
    docstring): the one not given is derived from the other."""
    if child is None and child_at_least is None:
        raise TypeError(f"{data_class.__name__}: a kind needs child or child_at_least")
    if child is None:
        def child(data, board, position, scratch, row, column, tile, source, target):
            return child_at_least(data, board, position, scratch, row, column, tile, source, target, NO_LIMIT)

        child = inline_kernel(child)
    elif child_at_least is None:
        def child_at_least(data, board, position, scratch, row, column, tile, source, target, enough):
            return child(data, board, position, scratch, row, column, tile, source, target)

        child_at_least = inline_kernel(child_at_least)
    _KINDS[data_class] = _Kernels(start, child, child_at_least)


def _kernels_of(data_class: type) -> _Kernels:
    try:
        return _KINDS[data_class]
    except KeyError:
        raise TypeError(f"{data_class.__name__} is not a registered heuristic kind") from None


def leaf_start(leaf, board, position, scratch, row):
    """h of `board` by one leaf (see `start` in the module docstring)."""
    return _kernels_of(type(leaf.data)).start(leaf.data, board, position, scratch, row, leaf.column)


def leaf_child(leaf, board, position, scratch, row, tile, source, target):
    """h of a child by one leaf (see `child` in the module docstring)."""
    return _kernels_of(type(leaf.data)).child(
        leaf.data, board, position, scratch, row, leaf.column, tile, source, target
    )


def leaf_child_at_least(leaf, board, position, scratch, row, tile, source, target, enough):
    """h of a child by one leaf, or a value from `enough` to h (see `child_at_least`)."""
    return _kernels_of(type(leaf.data)).child_at_least(
        leaf.data, board, position, scratch, row, leaf.column, tile, source, target, enough
    )


def h_start(leaves, board, position, scratch, row):
    """h of `board` (the maximum over the leaves); fills `position` and scratch[row]."""
    for cell in range(board.shape[0]):
        position[board[cell]] = cell
    return max(leaf_start(leaf, board, position, scratch, row) for leaf in leaves)


def h_child(leaves, board, position, scratch, row, tile, source, target):
    """h after `tile` moved from `source` to `target`; `board` and position[tile] must already
    say so. The parent's scratch is row `row`, the child's is written to row + 1."""
    return max(leaf_child(leaf, board, position, scratch, row, tile, source, target) for leaf in leaves)


def h_child_at_least(leaves, board, position, scratch, row, tile, source, target, enough):
    """h after a move as `h_child` gives it, or a value from `enough` to h: the leaves are
    evaluated in order until one reaches `enough` (then the child's scratch row may be
    incomplete: the caller must not expand the child)."""
    best = 0
    for leaf in leaves:
        best = max(best, leaf_child_at_least(leaf, board, position, scratch, row, tile, source, target, enough))
        if best >= enough:
            break
    return best


def _maximum_over_leaves(kernel: str, arguments: str, leaf_types):
    """The compiled form of h_start / h_child / h_child_at_least for leaves of `leaf_types`:
    each leaf's kind kernel (`kernel`: start, child or child_at_least) called directly, one
    call written out per leaf (a tuple of leaves of different kinds cannot be looped over in
    numba); h_child_at_least returns once a leaf reaches `enough`. One level of `overload`
    only: numba types an always-inlined overload's body again at every round of type
    inference, so nested overloads multiply the compile time (a kind's kernels were inlined
    up to 20 times into one search kernel)."""
    lines = [f"def implementation(leaves, {arguments}):"]
    if kernel == "start":
        lines += ["    for cell in range(board.shape[0]):", "        position[board[cell]] = cell"]
    namespace = {}
    for i, leaf_type in enumerate(leaf_types):
        namespace[f"kernel_{i}"] = getattr(_kernels_of(leaf_type.types[0].instance_class), kernel)
        call = f"kernel_{i}(leaves[{i}].data, {arguments.replace('row', f'row, leaves[{i}].column')})"
        if i == 0:
            lines.append(f"    best = {call}")
            continue
        if kernel == "child_at_least":
            lines += ["    if best >= enough:", "        return best"]
        lines.append(f"    best = max(best, {call})")
    lines.append("    return best")
    exec("\n".join(lines), namespace)
    return namespace["implementation"]


@overload(h_start, inline="always")
def _h_start_compiled(leaves, board, position, scratch, row):
    return _maximum_over_leaves("start", "board, position, scratch, row", leaves.types)


@overload(h_child, inline="always")
def _h_child_compiled(leaves, board, position, scratch, row, tile, source, target):
    return _maximum_over_leaves("child", "board, position, scratch, row, tile, source, target", leaves.types)


@overload(h_child_at_least, inline="always")
def _h_child_at_least_compiled(leaves, board, position, scratch, row, tile, source, target, enough):
    return _maximum_over_leaves("child_at_least", "board, position, scratch, row, tile, source, target, enough",
                                leaves.types)
