"""evaluators.py -- a heuristic as data of one numba type: its tree's evaluations called by address.

A search kernel compiled for a tree of nodes (dispatch.py) is compiled again for every heuristic
type. Given an `Evaluators` instead, it is compiled once and serves every heuristic: an
Evaluators holds the native addresses of two functions compiled for the heuristic's tree (its
`start` and `child_at_least`, with the contracts of dispatch.py; `child` is `child_at_least`
with `enough` NO_LIMIT, which evaluates every node exactly) and a flat int64
*descriptor* of the tree's data (every array's address, shape and strides, every scalar, in the
order of `flattened`), from which each function rebuilds the tree at every call and evaluates
it with the tree's own code. The two functions take integers only (the descriptor's,
board's, position's and scratch's addresses and sizes, the move, `enough`), so their type never
changes; they are compiled once per tree type and cached on disk like any kernel. A call costs
an indirect call and the rebuilding of the data, which LLVM cannot move out of the search's
loop: the searches run at about 0.8-0.9 of the speed of a search compiled for the tree itself
(docs/developer/heuristics-as-data.md), which a caller asks for with `Heuristic(...,
specialised=True)` where the work pays for the compile.

An Evaluators holds addresses, not references: it is valid only while the heuristic whose
`leaves` it is (which keeps the tree and its arrays) is alive, and never leaves its process.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic, overload, register_jitable
from numba.np.arrayobj import make_array, populate_array

from solvers.heuristics.dispatch import NO_LIMIT, h_child, h_child_at_least, h_start
from solvers.jit import evaluator_kernel, uncached

N_ARGUMENTS = 11  # descriptor, board, n_cells, position, scratch, n_columns, row, tile, source, target, enough
# the evaluators' native arguments: the integers, then the tree's type (numba passes a null pointer)
NATIVE_ARGUMENTS = (types.int64,) * N_ARGUMENTS + (types.voidptr,)
BOARD = types.Array(types.uint8, 1, "C")
POSITION = types.Array(types.int64, 1, "C")
SCRATCH = types.Array(types.int64, 2, "C")


class Evaluators(NamedTuple):
    """The native addresses of a tree's two evaluations and the descriptor of its data."""

    start: int
    child_at_least: int
    descriptor: np.ndarray


def flattened(value, numba_type, out: list) -> None:
    """Append to `out` the words from which `rebuilt` makes `value` (of `numba_type`) again: an
    array's address, shape and strides; a tuple's members in order; a number's value (a float's
    bits); nothing for a value of no data (a kernel, None)."""
    if isinstance(numba_type, types.Array):
        out += [value.ctypes.data, *value.shape, *value.strides]
    elif isinstance(numba_type, types.BaseTuple):
        for member, member_type in zip(value, numba_type.types):
            flattened(member, member_type, out)
    elif isinstance(numba_type, types.Float):
        out.append(int(np.float64(value).view(np.int64)))
    elif isinstance(numba_type, (types.Integer, types.Boolean)):
        out.append(int(value))
    elif not isinstance(numba_type, (types.Dispatcher, types.NoneType)):
        raise TypeError(f"a heuristic's data cannot hold {numba_type} (arrays, tuples, numbers and kernels only)")


def _rebuilt_value(context, builder, numba_type, words, index: int):
    """(value of `numba_type` made from the int64 words at `words` from `index` on, next index)."""
    def word(i):
        return builder.load(builder.gep(words, [context.get_constant(types.intp, i)]))

    if isinstance(numba_type, types.Array):
        dims = numba_type.ndim
        array = make_array(numba_type)(context, builder)
        item = context.get_data_type(numba_type.dtype)
        populate_array(array, data=builder.inttoptr(word(index), item.as_pointer()),
                       shape=[word(index + 1 + d) for d in range(dims)],
                       strides=[word(index + 1 + dims + d) for d in range(dims)],
                       itemsize=context.get_constant(types.intp, context.get_abi_sizeof(item)), meminfo=None)
        return array._getvalue(), index + 1 + 2 * dims
    if isinstance(numba_type, types.BaseTuple):
        members = []
        for member_type in numba_type.types:
            member, index = _rebuilt_value(context, builder, member_type, words, index)
            members.append(member)
        return context.make_tuple(builder, numba_type, members), index
    if isinstance(numba_type, types.Boolean):
        return builder.icmp_unsigned("!=", word(index), context.get_constant(types.int64, 0)), index + 1
    if isinstance(numba_type, types.Integer):
        return context.cast(builder, word(index), types.int64, numba_type), index + 1
    if isinstance(numba_type, types.Float):
        bits = builder.bitcast(word(index), context.get_value_type(types.float64))
        return context.cast(builder, bits, types.float64, numba_type), index + 1
    return context.get_dummy_value(), index


@intrinsic
def rebuilt(typingctx, address, tree_type):
    """The value of type `tree_type` (a TypeRef) whose descriptor (`flattened`) is at `address`.
    Its arrays own nothing (no reference count): the heuristic keeps them alive."""
    value_type = tree_type.instance_type

    def codegen(context, builder, signature, args):
        words = builder.inttoptr(args[0], cgutils.intp_t.as_pointer())
        return _rebuilt_value(context, builder, value_type, words, 0)[0]

    return value_type(address, tree_type), codegen


@intrinsic
def array_at(typingctx, address, rows, columns, array_type):
    """The C-contiguous array of type `array_type` (1-D: `rows` items; 2-D: rows x columns) at
    `address`, owning nothing."""
    instance = array_type.instance_type

    def codegen(context, builder, signature, args):
        array = make_array(instance)(context, builder)
        item = context.get_data_type(instance.dtype)
        size = context.get_constant(types.intp, context.get_abi_sizeof(item))
        if instance.ndim == 1:
            shape, strides = [args[1]], [size]
        else:
            shape, strides = [args[1], args[2]], [builder.mul(args[2], size), size]
        populate_array(array, data=builder.inttoptr(args[0], item.as_pointer()), shape=shape, strides=strides,
                       itemsize=size, meminfo=None)
        return array._getvalue()

    return instance(address, rows, columns, array_type), codegen


def _start(descriptor, board, n_cells, position, scratch, n_columns, row, tile, source, target, enough, tree_type):
    return h_start(rebuilt(descriptor, tree_type), array_at(board, n_cells, 0, BOARD),
                   array_at(position, n_cells, 0, POSITION), array_at(scratch, row + 2, n_columns, SCRATCH), row)


def _child_at_least(descriptor, board, n_cells, position, scratch, n_columns, row, tile, source, target, enough,
                    tree_type):
    return h_child_at_least(rebuilt(descriptor, tree_type), array_at(board, n_cells, 0, BOARD),
                            array_at(position, n_cells, 0, POSITION), array_at(scratch, row + 2, n_columns, SCRATCH),
                            row, tile, source, target, enough)


# the two, compiled once per tree type; the scratch they hand the tree claims row + 2 rows from
# the search's first, of which a kind reads `row` and writes `row + 1` only (dispatch.py)
EVALUATIONS = tuple(evaluator_kernel(f) for f in (_start, _child_at_least))


@functools.cache
def _addresses(tree_type, cacheable: bool) -> tuple[int, int]:
    """The native addresses of the two evaluations compiled (or loaded) for trees of
    `tree_type`; never from or to the disk cache unless `cacheable`."""
    signature = (types.int64,) * N_ARGUMENTS + (types.TypeRef(tree_type),)
    found = []
    for evaluation in EVALUATIONS:
        evaluation = evaluation if cacheable else uncached(evaluation)
        evaluation.compile(signature)
        result = evaluation.overloads[signature]
        found.append(result.library.get_pointer_to_function(result.fndesc.llvm_func_name))
    return tuple(found)


def evaluators_of(tree: tuple, cacheable: bool) -> Evaluators:
    """The Evaluators of `tree` (a heuristic's tuple of nodes), valid while `tree` lives."""
    tree_type = numba.typeof(tree)
    words = []
    flattened(tree, tree_type, words)
    return Evaluators(*_addresses(tree_type, cacheable), np.array(words, dtype=np.int64))


@intrinsic
def call_at(typingctx, address, descriptor, board, n_cells, position, scratch, n_columns, row, tile, source, target,
            enough):
    """What the evaluation at native `address` returns for the other arguments (all int64); an
    exception raised there is raised again here."""
    def codegen(context, builder, signature, args):
        function_type = context.call_conv.get_function_type(types.int64, NATIVE_ARGUMENTS)
        callee = builder.inttoptr(args[0], function_type.as_pointer())
        values = [*args[1:], context.get_constant_null(types.voidptr)]
        status, result = context.call_conv.call_function(builder, callee, types.int64, NATIVE_ARGUMENTS, values)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return result

    return types.int64(*([types.int64] * (N_ARGUMENTS + 1))), codegen


@register_jitable(inline="always")
def _called(address, leaves, board, position, scratch, row, tile, source, target, enough):
    """What the evaluation at `address` of Evaluators `leaves` returns for the search's arrays.
    Inlined by numba, not by LLVM: an array handed to an LLVM-inlined function keeps its
    reference count's increment and decrement at every call."""
    return call_at(address, np.int64(leaves.descriptor.ctypes.data), np.int64(board.ctypes.data),
                   np.int64(board.shape[0]), np.int64(position.ctypes.data), np.int64(scratch.ctypes.data),
                   np.int64(scratch.shape[1]), np.int64(row), np.int64(tile), np.int64(source), np.int64(target),
                   np.int64(enough))


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
