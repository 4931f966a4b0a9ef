"""dispatch.py -- how a search evaluates any heuristic: kinds registered once, leaves as data.

A heuristic reaches a search kernel as a tuple of *leaves*; h is the maximum over them. A
leaf is a `Leaf(data, column)`: `data` is a NamedTuple of read-only arrays whose class names
its *kind*, and `column` is the first of the leaf's columns in the search's *scratch*, an
int64 array of shape (rows, columns) that every search allocates for itself (one row per
depth; a leaf keeps in its columns whatever it needs to evaluate a child incrementally).
Nothing a search writes lives in the data, so any number of searches may share one
heuristic.

A kind registers two kernels for its data class (`register_kind`):

    start(data, board, position, scratch, row, column) -> h
        h of `board`, computed from scratch; fills the kind's columns of scratch[row].
    child(data, board, position, scratch, row, column, tile, source, target) -> h
        h after `tile` moved from cell `source` to cell `target`: `board` and `position`
        (the cell of every tile) are already after the move, the parent's columns are in
        scratch[row], the child's are written to scratch[row + 1].

A kind may register a third kernel, for searches that need h only below a threshold:

    child_at_least(data, board, position, scratch, row, column, tile, source, target, enough) -> v
        h of the child as `child` gives it, or any v with enough <= v <= h (the kind stopped
        early: the child's columns of scratch[row + 1] may then be incomplete, so the
        caller must neither expand the child nor evaluate its children).

A kind without one is evaluated by `child` there. IDA* asks for h at least the value from
which a child is cut off and cannot lower the next bound, so a maximum over many lookups
stops at the first lookup that cuts the child (depth_first.py).

The search keeps `position` (`h_start` fills it, the search updates it around each move).
Dispatch happens when numba compiles a search for a tuple of leaf types (through
`numba.extending.overload`), so a kind costs nothing at run time; with NUMBA_DISABLE_JIT=1
the same functions dispatch in Python through the registry.
"""

from __future__ import annotations

from typing import NamedTuple

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


def register_kind(data_class: type, start, child, child_at_least=None) -> None:
    """Make `data_class` (a NamedTuple of arrays and scalars) a kind evaluated by the numba
    kernels `start` and `child`, and `child_at_least` if given (signatures in the module
    docstring)."""
    if child_at_least is None:
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


@overload(leaf_start, inline="always")
def _leaf_start_compiled(leaf, board, position, scratch, row):
    start = _kernels_of(leaf.types[0].instance_class).start

    def implementation(leaf, board, position, scratch, row):
        return start(leaf.data, board, position, scratch, row, leaf.column)

    return implementation


@overload(leaf_child, inline="always")
def _leaf_child_compiled(leaf, board, position, scratch, row, tile, source, target):
    child = _kernels_of(leaf.types[0].instance_class).child

    def implementation(leaf, board, position, scratch, row, tile, source, target):
        return child(leaf.data, board, position, scratch, row, leaf.column, tile, source, target)

    return implementation


@overload(leaf_child_at_least, inline="always")
def _leaf_child_at_least_compiled(leaf, board, position, scratch, row, tile, source, target, enough):
    child_at_least = _kernels_of(leaf.types[0].instance_class).child_at_least

    def implementation(leaf, board, position, scratch, row, tile, source, target, enough):
        return child_at_least(leaf.data, board, position, scratch, row, leaf.column, tile, source, target, enough)

    return implementation


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


def _maximum_over_leaves(call: str, arguments: str, n_leaves: int):
    """The compiled form of h_start / h_child / h_child_at_least for `n_leaves` leaves: the
    calls written out one by one (a tuple of leaves of different kinds cannot be looped over
    in numba); h_child_at_least returns once a leaf reaches `enough`."""
    lines = [f"def implementation(leaves, {arguments}):"]
    if call == "leaf_start":
        lines += ["    for cell in range(board.shape[0]):", "        position[board[cell]] = cell"]
    lines.append(f"    best = {call}(leaves[0], {arguments})")
    for i in range(1, n_leaves):
        if call == "leaf_child_at_least":
            lines += ["    if best >= enough:", "        return best"]
        lines.append(f"    best = max(best, {call}(leaves[{i}], {arguments}))")
    lines.append("    return best")
    namespace = {"leaf_start": leaf_start, "leaf_child": leaf_child, "leaf_child_at_least": leaf_child_at_least}
    exec("\n".join(lines), namespace)
    return namespace["implementation"]


@overload(h_start, inline="always")
def _h_start_compiled(leaves, board, position, scratch, row):
    return _maximum_over_leaves("leaf_start", "board, position, scratch, row", len(leaves))


@overload(h_child, inline="always")
def _h_child_compiled(leaves, board, position, scratch, row, tile, source, target):
    return _maximum_over_leaves("leaf_child", "board, position, scratch, row, tile, source, target", len(leaves))


@overload(h_child_at_least, inline="always")
def _h_child_at_least_compiled(leaves, board, position, scratch, row, tile, source, target, enough):
    return _maximum_over_leaves("leaf_child_at_least", "board, position, scratch, row, tile, source, target, enough",
                                len(leaves))
