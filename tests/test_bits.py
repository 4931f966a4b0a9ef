"""Bit scans and counts: the compiled intrinsics and the plain-Python bodies agree with a bit-by-bit count."""

import numpy as np

from solvers.bits import bit_count, trailing_zeros
from solvers.jit import kernel


@kernel
def _trailing_zeros_of_each(masks):
    out = np.empty(masks.shape[0], dtype=np.int64)
    for i in range(masks.shape[0]):
        out[i] = trailing_zeros(masks[i])
    return out


def _lowest_bit(mask: int) -> int:
    return next((bit for bit in range(64) if mask >> bit & 1), 64)


def test_trailing_zeros_compiled_and_in_python():
    rng = np.random.default_rng(1)
    single_bits = [np.int64(1) << np.int64(bit) for bit in range(64)]
    masks = np.array([0, -1, 6, *single_bits, *rng.integers(-(2**63), 2**63 - 1, size=2000)], dtype=np.int64)
    expected = [_lowest_bit(int(mask)) for mask in masks]
    assert _trailing_zeros_of_each(masks).tolist() == expected
    assert [trailing_zeros(mask) for mask in masks] == expected


@kernel
def _bit_count_of_each(masks):
    out = np.empty(masks.shape[0], dtype=np.int64)
    for i in range(masks.shape[0]):
        out[i] = bit_count(masks[i])
    return out


def test_bit_count_compiled_and_in_python():
    rng = np.random.default_rng(2)
    masks = np.array([0, -1, 6, 1 << 62, *rng.integers(-(2**63), 2**63 - 1, size=2000)], dtype=np.int64)
    expected = [sum(int(mask) >> bit & 1 for bit in range(64)) for mask in masks]
    assert _bit_count_of_each(masks).tolist() == expected
    assert [bit_count(mask) for mask in masks] == expected
