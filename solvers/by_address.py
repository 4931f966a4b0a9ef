"""by_address.py -- kernels called by their native address, their data passed as a flat descriptor.

numba compiles a kernel again for every type of its arguments. Where a kernel must serve data
of many types (a heuristic's tree of kinds, a bidirectional search's rule) without being
compiled for each, the data's own kernels are compiled apart, for the data's type, with
integer arguments only and the type as a last `TypeRef` argument, and called through their
native address (`native_address`, `call_at`); the data travels as its *descriptor* (`flattened`,
`descriptor_of`): every array's address, shape and strides and every number, in order, from
which the callee makes the data again (`rebuilt`) as arrays that own nothing. A descriptor
holds addresses, and keeps the data it was made from alive (its memory holds a reference); it
never leaves its process. The arrays a caller hands over are passed as their address and
shape, and made again by `array_at`.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic, register_jitable
from numba.np.arrayobj import make_array, populate_array

WORD_MASK = (1 << 64) - 1  # a word is any 64-bit pattern: a uint64's above 2**63 too


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
        raise TypeError(f"data passed by address cannot hold {numba_type} (arrays, tuples, numbers and kernels only)")


class _Words(bytearray):
    """A descriptor's memory, holding the value it describes (`kept`): the value's arrays live
    as long as any array over these words."""

    kept: object = None


def descriptor_of(value) -> np.ndarray:
    """The descriptor of `value` (its words, `flattened`, as an int64 array, each word taken
    modulo 2**64), which keeps `value` alive as long as it is itself."""
    words = []
    flattened(value, numba.typeof(value), words)
    memory = _Words(np.array([word & WORD_MASK for word in words], dtype=np.uint64).tobytes())
    memory.kept = value
    return np.frombuffer(memory, dtype=np.int64)


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
def rebuilt(typingctx, address, value_type):
    """The value of type `value_type` (a TypeRef) whose descriptor is at `address`; its arrays
    own nothing (no reference count): the caller keeps them alive."""
    instance = value_type.instance_type

    def codegen(context, builder, signature, args):
        words = builder.inttoptr(args[0], cgutils.intp_t.as_pointer())
        return _rebuilt_value(context, builder, instance, words, 0)[0]

    return instance(address, value_type), codegen


@intrinsic
def array_at(typingctx, address, shape, array_type):
    """The C-contiguous array of type `array_type` (a TypeRef) and `shape` (a tuple of integers,
    one per dimension) at `address`, owning nothing."""
    instance = array_type.instance_type

    def codegen(context, builder, signature, args):
        array = make_array(instance)(context, builder)
        item = context.get_data_type(instance.dtype)
        extents = [context.cast(builder, builder.extract_value(args[1], d), shape.types[d], types.intp)
                   for d in range(instance.ndim)]
        strides = [context.get_constant(types.intp, context.get_abi_sizeof(item))]
        for extent in reversed(extents[1:]):
            strides.insert(0, builder.mul(strides[0], extent))
        populate_array(array, data=builder.inttoptr(args[0], item.as_pointer()), shape=extents, strides=strides,
                       itemsize=strides[-1], meminfo=None)
        return array._getvalue()

    return instance(address, shape, array_type), codegen


@intrinsic
def call_at(typingctx, address, arguments, result_type):
    """What the kernel at native `address` (`native_address`: compiled for the types of the tuple
    `arguments`, then a TypeRef) returns, of type `result_type` (a TypeRef); an exception raised
    there is raised again here."""
    result = result_type.instance_type
    native = (*arguments.types, types.voidptr)  # a TypeRef is passed as a null pointer

    def codegen(context, builder, signature, args):
        callee = builder.inttoptr(args[0], context.call_conv.get_function_type(result, native).as_pointer())
        values = [builder.extract_value(args[1], i) for i in range(len(arguments.types))]
        values.append(context.get_constant_null(types.voidptr))
        status, value = context.call_conv.call_function(builder, callee, result, native, values)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return value

    return result(address, arguments, result_type), codegen


@register_jitable(inline="always")
def address_of(array):
    """The address of `array`'s first item as an int64, what `array_at` takes. Inlined by numba,
    not by LLVM: an array handed to an LLVM-inlined function keeps its reference count's
    increment and decrement at every call."""
    return np.int64(array.ctypes.data)


def native_address(kernel, argument_types: tuple, data_type) -> int:
    """The native address of `kernel` compiled (or loaded) for `argument_types` and a last
    argument TypeRef(`data_type`): what `call_at` calls."""
    signature = (*argument_types, types.TypeRef(data_type))
    kernel.compile(signature)
    result = kernel.overloads[signature]
    return result.library.get_pointer_to_function(result.fndesc.llvm_func_name)
