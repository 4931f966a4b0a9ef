"""dispatch.py -- how a search evaluates any heuristic: kinds registered once, a tree of leaves as data.

A heuristic reaches a search kernel as a tuple of *nodes* (`leaves`); h is the maximum over
them. A node is a `Leaf(data, column)`, or a `SumNode(members)` / `MaxNode(members)` over a
tuple of nodes (the sum or maximum of their values). A leaf's `data` is a NamedTuple of
read-only arrays whose class names its *kind*, and `column` is the first of the leaf's columns
in the search's *scratch*, an int64 array of shape (rows, columns) that every search allocates
for itself (one row per depth; a leaf keeps in its columns whatever it needs to evaluate a
child incrementally). Nothing a search writes lives in the data, so any number of searches
may share one heuristic.

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
`enough` = NO_LIMIT, or `child_at_least` is `child`. A *composed* kind, whose kernels depend
on the classes of its data's members (a PDB lookup: its reader and its evaluation), registers a
factory instead (`register_composed_kind`), called once per Shape of data. IDA* asks for h at least the value from
which a child is cut off and cannot lower the next bound, so a maximum over many lookups
stops at the first lookup that cuts the child (depth_first.py). Only the top-level maximum
stops early: every member of a sum is evaluated exactly (a sum reaches `enough` only when
all of its members are known), and so is every node inside one.

`h_start` fills `position` (the cell of every tile, position[0] the blank's), and the searches
keep `board` and all of `position` exact after every move and undo (tests/test_heuristic_kinds.py
checks it in every search with a kind that reads the blank's cell through `position`).
Dispatch happens when numba compiles a search for a tuple of node types (through
`numba.extending.overload`, which writes the tree out as straight-line code), so a kind or a
node costs nothing at run time; with NUMBA_DISABLE_JIT=1 the same functions dispatch in
Python through the registry. A search may be given a heuristic's `Evaluators` instead of its
tree (evaluators.py, whose overloads of the same three functions call the tree's code compiled
apart): one search kernel then serves every heuristic.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from numba.core import types
from numba.extending import overload

from solvers.jit import inline_kernel


class Leaf(NamedTuple):
    """One kind's data and the first scratch column it owns."""

    data: tuple
    column: int


class SumNode(NamedTuple):
    """The sum of its members' values (a tuple of Leaf, SumNode and MaxNode)."""

    members: tuple


class MaxNode(NamedTuple):
    """The maximum of its members' values (a tuple of Leaf, SumNode and MaxNode)."""

    members: tuple


class _Kernels(NamedTuple):
    start: object
    child: object
    child_at_least: object


class Shape(NamedTuple):
    """A kind's data class and the shapes of its NamedTuple members, by field: what the kernels
    of a composed kind (register_composed_kind) are chosen by."""

    kind: type
    members: tuple  # (field name, Shape) pairs

    def member(self, name: str) -> Shape:
        return dict(self.members)[name]


def shape_of(data) -> Shape:
    """The shape of a kind's data (a NamedTuple instance)."""
    return Shape(type(data), tuple((name, shape_of(value)) for name, value in zip(data._fields, data)
                                   if hasattr(value, "_fields")))


def shape_of_type(data_type) -> Shape:
    """The shape of a kind's data from its numba type (a NamedTuple type)."""
    return Shape(data_type.instance_class, tuple(
        (name, shape_of_type(member)) for name, member in zip(data_type.fields, data_type.types)
        if isinstance(member, types.BaseNamedTuple)))


_KINDS: dict[type, object] = {}  # data class -> its kernels' factory: Shape -> _Kernels
NO_LIMIT = np.iinfo(np.int64).max  # `enough` of a child evaluated to its exact h


def register_kind(data_class: type, start, child=None, child_at_least=None) -> None:
    """Make `data_class` (a NamedTuple of arrays and scalars) a kind evaluated by the numba
    kernels `start` and `child` or `child_at_least` (or both; signatures in the module
    docstring): the one not given is derived from the other."""
    kernels = _completed(data_class, start, child, child_at_least)
    _KINDS[data_class] = lambda shape: kernels


def register_composed_kind(data_class: type, kernels_for) -> None:
    """Make `data_class` a kind whose kernels depend on the classes of its members (a PDB
    evaluation over any reader, a view over any lookup): `kernels_for(shape)` returns (start,
    child, child_at_least) for data of that Shape, one of the last two None as in register_kind;
    it is called once per shape."""
    @functools.cache
    def kernels(shape: Shape) -> _Kernels:
        return _completed(data_class, *kernels_for(shape))

    _KINDS[data_class] = kernels


def _completed(data_class: type, start, child, child_at_least) -> _Kernels:
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
    return _Kernels(start, child, child_at_least)


def kernels_of(shape: Shape) -> _Kernels:
    """The kernels of data of `shape`."""
    try:
        factory = _KINDS[shape.kind]
    except KeyError:
        raise TypeError(f"{shape.kind.__name__} is not a registered heuristic kind") from None
    return factory(shape)


def _value(node, kernel, arguments):
    """The value of `node` by the kind kernels `kernel` (start or child) of its leaves."""
    if isinstance(node, Leaf):
        return getattr(kernels_of(shape_of(node.data)), kernel)(node.data, *arguments[:4], node.column, *arguments[4:])
    values = [_value(member, kernel, arguments) for member in node.members]
    return sum(values) if isinstance(node, SumNode) else max(values)


def h_start(leaves, board, position, scratch, row):
    """h of `board` (the maximum over the nodes); fills `position` and scratch[row]."""
    for cell in range(board.shape[0]):
        position[board[cell]] = cell
    return max(_value(node, "start", (board, position, scratch, row)) for node in leaves)


def h_child(leaves, board, position, scratch, row, tile, source, target):
    """h after `tile` moved from `source` to `target`; `board` and position[tile] must already
    say so. The parent's scratch is row `row`, the child's is written to row + 1."""
    return max(_value(node, "child", (board, position, scratch, row, tile, source, target)) for node in leaves)


def h_child_at_least(leaves, board, position, scratch, row, tile, source, target, enough):
    """h after a move as `h_child` gives it, or a value from `enough` to h: the nodes are
    evaluated in order until one reaches `enough` (then the child's scratch row may be
    incomplete: the caller must not expand the child)."""
    best = 0
    for node in leaves:
        if isinstance(node, Leaf):
            value = kernels_of(shape_of(node.data)).child_at_least(node.data, board, position, scratch, row, node.column,
                                                               tile, source, target, enough)
        else:
            value = _value(node, "child", (board, position, scratch, row, tile, source, target))
        best = max(best, value)
        if best >= enough:
            break
    return best


_ARGUMENTS = {"start": "board, position, scratch, row", "child": "board, position, scratch, row, tile, source, target"}
_ARGUMENTS["child_at_least"] = _ARGUMENTS["child"] + ", enough"


def _maximum_over_leaves(kernel: str, node_types):
    """The compiled form of h_start / h_child / h_child_at_least for nodes of `node_types`:
    each leaf's kind kernel (`kernel`: start, child or child_at_least) called directly, one
    call written out per leaf (a tuple of leaves of different kinds cannot be looped over in
    numba), a sum or maximum node as its members' calls added up or maximised into one local
    (every member evaluated exactly: start or child); h_child_at_least returns once a node of
    the top-level maximum reaches `enough`. A flat maximum is a chain of `max` over its leaves.
    The kind kernels are called, not inlined by numba (`inline_kernel`: LLVM inlines them), so
    each is typed once for its data, whichever search calls it; only this short body is
    inlined by numba into the search, which types it again at every round of type inference."""
    writer = _TreeWriter(f"def implementation(leaves, {_ARGUMENTS[kernel]}):", "")
    if kernel == "start":
        writer.lines += ["    for cell in range(board.shape[0]):", "        position[board[cell]] = cell"]
    for i, node_type in enumerate(node_types):
        if i > 0 and kernel == "child_at_least":
            writer.lines += ["    if best >= enough:", "        return best"]
        call = writer.value(node_type, f"leaves[{i}]", kernel)
        writer.lines.append(f"    best = {call}" if i == 0 else f"    best = max(best, {call})")
    writer.lines.append("    return best")
    return writer.compiled()


class _TreeWriter:
    """The source of a function evaluating trees of nodes (Leaf, SumNode, MaxNode) by their
    kinds' kernels, one call written out per leaf; `base` is added to every leaf's column (the
    first column of the trees inside a kind that holds them: node_values)."""

    def __init__(self, header: str, base: str):
        self.lines = [header]
        self.base = base
        self.namespace = {}
        self.n_locals = 0

    def value(self, node_type, access: str, which: str) -> str:
        """An expression of the node's value (its kind kernel `which` for a leaf; a local
        written by the lines before for a sum or maximum, whose members are evaluated exactly)."""
        node_class = node_type.instance_class
        if node_class is Leaf:
            name = f"kernel_{len(self.namespace)}"
            self.namespace[name] = getattr(kernels_of(shape_of_type(node_type.types[0])), which)
            spread = _ARGUMENTS[which].replace("row", f"row, {self.base}{access}.column", 1)
            return f"{name}({access}.data, {spread})"
        if node_class not in (SumNode, MaxNode):
            raise TypeError(f"{node_class.__name__} is not a heuristic node (Leaf, SumNode or MaxNode)")
        local = f"node_{self.n_locals}"
        self.n_locals += 1
        exact = "start" if which == "start" else "child"
        for j, member in enumerate(node_type.types[0].types):
            call = self.value(member, f"{access}.members[{j}]", exact)
            if j == 0:
                self.lines.append(f"    {local} = {call}")
            elif node_class is SumNode:
                self.lines.append(f"    {local} = {local} + {call}")
            else:
                self.lines.append(f"    {local} = max({local}, {call})")
        return local

    def compiled(self):
        exec("\n".join(self.lines), self.namespace)
        return self.namespace["implementation"]


def node_values(nodes, board, position, scratch, row, column, values):
    """Write the value of each of `nodes` (a tuple of nodes whose columns count from `column`)
    to scratch[row, values + i], from scratch: the `start` of every leaf (`position` must
    already be filled). For a kind that reads other kinds' values (a learned heuristic's inputs)."""
    for i, node in enumerate(shifted_nodes(nodes, column)):
        scratch[row, values + i] = _value(node, "start", (board, position, scratch, row))


def node_child_values(nodes, board, position, scratch, row, column, values, tile, source, target):
    """Write the value of each of `nodes` after a move to scratch[row + 1, values + i], the
    parent's columns in scratch[row] (as node_values)."""
    for i, node in enumerate(shifted_nodes(nodes, column)):
        scratch[row + 1, values + i] = _value(node, "child", (board, position, scratch, row, tile, source, target))


def shifted_nodes(nodes: tuple, column: int) -> tuple:
    """`nodes` with every leaf's column moved by `column`."""
    return tuple(Leaf(node.data, node.column + column) if isinstance(node, Leaf)
                 else type(node)(shifted_nodes(node.members, column)) for node in nodes)


def _values_of_nodes(kernel: str, node_types):
    """The compiled form of node_values / node_child_values for nodes of `node_types`."""
    arguments = _ARGUMENTS[kernel].replace("row", "row, column, values", 1)
    writer = _TreeWriter(f"def implementation(nodes, {arguments}):", "column + ")
    target_row = "row" if kernel == "start" else "row + 1"
    for i, node_type in enumerate(node_types):
        call = writer.value(node_type, f"nodes[{i}]", kernel)
        writer.lines.append(f"    scratch[{target_row}, values + {i}] = {call}")
    writer.lines.append("    return 0")
    return writer.compiled()


@overload(node_values, inline="always")
def _node_values_compiled(nodes, board, position, scratch, row, column, values):
    return _values_of_nodes("start", nodes.types)


@overload(node_child_values, inline="always")
def _node_child_values_compiled(nodes, board, position, scratch, row, column, values, tile, source, target):
    return _values_of_nodes("child", nodes.types)


def _is_tree(leaves) -> bool:
    """Whether `leaves` is the numba type of a tuple of nodes (not another form of a heuristic,
    evaluators.py's, whose overloads are its module's)."""
    return isinstance(leaves, types.BaseTuple) and not isinstance(leaves, types.BaseNamedTuple)


@overload(h_start, inline="always")
def _h_start_compiled(leaves, board, position, scratch, row):
    if not _is_tree(leaves):
        return None
    return _maximum_over_leaves("start", leaves.types)


@overload(h_child, inline="always")
def _h_child_compiled(leaves, board, position, scratch, row, tile, source, target):
    if not _is_tree(leaves):
        return None
    return _maximum_over_leaves("child", leaves.types)


@overload(h_child_at_least, inline="always")
def _h_child_at_least_compiled(leaves, board, position, scratch, row, tile, source, target, enough):
    if not _is_tree(leaves):
        return None
    return _maximum_over_leaves("child_at_least", leaves.types)
