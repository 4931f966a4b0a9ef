"""bits.py -- bit scans and counts on 64-bit masks for kernels: one machine instruction when compiled,
plain Python when numba's JIT is disabled (NUMBA_DISABLE_JIT=1, for stepping and coverage).

Each function here is an ordinary Python function that kernels call; numba compiles calls to
it through an `overload` that emits the LLVM intrinsic instead of the Python body.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

WORD = 0xFFFF_FFFF_FFFF_FFFF


def trailing_zeros(mask):
    """How many zero bits lie below the lowest set bit of the 64-bit integer `mask` (the
    index of its lowest occupied cell); 64 when `mask` is 0."""
    mask = int(mask) & WORD
    return (mask & -mask).bit_length() - 1 if mask else 64


@intrinsic
def _cttz(typing_context, mask):
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))  # 0 gives the width: 64

    return mask(mask), codegen


@overload(trailing_zeros)
def _trailing_zeros_compiled(mask):
    if isinstance(mask, types.Integer) and mask.bitwidth == 64:
        return lambda mask: _cttz(mask)
    return None


def bit_count(mask):
    """How many bits of the 64-bit integer `mask` are set (one popcnt instruction when compiled)."""
    return bin(int(mask) & WORD).count("1")


@intrinsic
def _ctpop(typing_context, mask):
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return mask(mask), codegen


@overload(bit_count)
def _bit_count_compiled(mask):
    if isinstance(mask, types.Integer) and mask.bitwidth == 64:
        return lambda mask: _ctpop(mask)
    return None
