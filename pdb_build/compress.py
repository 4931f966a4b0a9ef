"""compress.py -- compact encodings of a built table (`build-pdb --compress`), and their decoding.

A table of a k-tile pattern is a sequence of *blocks* of k! entries, one entry per order of
the tiles over the block's cells: a block is a map (the set of occupied cells) in a plain
table, a (map, blank region) pair in a zero-aware one (abstraction.py). Every encoding keeps
that layout, so a lookup computes the same block and order as for an uncompressed table:

- `min:K` (lossy, K a power of two): blocks b and b' share an entry when b >> log2(K) equals
  b' >> log2(K), and the entry holds the minimum of the merged values, so every lookup is at
  most the uncompressed value (admissible). Consecutive map ranks of the colex ranking differ,
  most often, in the lowest occupied cell moving one cell on, with the tiles' order unchanged:
  merged placements are close, as Felner, Korf, Meshulam and Holte (JAIR 2007) merge entries
  of nearby positions. K times fewer entries, one byte each.
- `nibble` (lossless): two entries per byte (low half first); only for tables whose values
  are all at most 15.
- `delta` (lossless, zero-aware tables only): one bit per entry, bit 1 of the value. It needs
  the value of a neighbouring entry: in a zero-aware table every move of a pattern tile
  changes the entry by exactly one. Proof: a move of a pattern tile is an edge of cost one of
  the abstract graph, so neighbouring entries (distances to the goal) differ by at most one;
  and it changes the number of pattern tiles on cells with (row + column) odd by one while
  moves of other tiles leave it alone, so every path from an entry to the goal has the
  parity of that number's difference from the goal's, and neighbouring entries differ in
  parity. Given the parent's value v, the child's is v - 1 or v + 1, and bit 1 tells them
  apart (they differ by two). The searches carry each instance's value from parent to child;
  a search's first state is decoded by walking down to the goal (solvers/heuristics/pdb_encoded.py). This is
  the 1 bit per entry of Clausecker and Reinefeld (SoCS 2019). Plain tables do not have the
  property (where pattern tiles wall cells off, one move can change the minimum over the
  blank's regions by several; see verify.py), so `delta` refuses them.

`compress` encodes a table; `stored_values` decodes what a lookup reads (without delta's
parent value, the stored bits), for tests and verification.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdb_build.bfs import UNREACHED
from solvers.errors import InputError

NIBBLE_MAX = 15


@dataclass(frozen=True)
class Compression:
    """How a file's tables are encoded: `merge` blocks per entry, `bits` per stored entry, and
    whether a stored entry is bit 1 of the value (`delta`) rather than the value."""

    name: str = "none"
    merge: int = 1
    bits: int = 8
    delta: bool = False

    @property
    def merge_shift(self) -> int:
        """log2(merge): a block's stored block is block >> merge_shift."""
        return self.merge.bit_length() - 1

    @property
    def entry_shift(self) -> int:
        """log2(entries per byte): a stored entry's byte is index >> entry_shift."""
        return (8 // self.bits).bit_length() - 1

    def stored_entries(self, n_blocks: int, factorial_k: int) -> int:
        return -(-n_blocks // self.merge) * factorial_k

    def stored_bytes(self, n_blocks: int, factorial_k: int) -> int:
        return -(-self.stored_entries(n_blocks, factorial_k) * self.bits // 8)


NONE = Compression()
NIBBLE = Compression("nibble", bits=4)
DELTA = Compression("delta", bits=1, delta=True)
FORMS = "none, min:K (K = 2, 4, 8, ...), nibble, delta"


def parse_compression(text: str) -> Compression:
    """The Compression named by `text` (one of FORMS); InputError otherwise."""
    name = text.strip().lower()
    if name in ("none", "nibble", "delta"):
        return {"none": NONE, "nibble": NIBBLE, "delta": DELTA}[name]
    factor = name[len("min:"):] if name.startswith("min:") else ""
    if factor.isdigit() and int(factor) >= 2 and int(factor) & (int(factor) - 1) == 0:
        return Compression(f"min:{int(factor)}", merge=int(factor))
    raise InputError(f"unknown compression {text!r}; choose one of {FORMS}")


def check_compressible(compression: Compression, table: np.ndarray, zero_aware: bool, what: str) -> None:
    """Refuse (InputError) an encoding that cannot hold `table` exactly as its definition says."""
    if compression.delta and not zero_aware:
        raise InputError(f"--compress delta needs zero-aware tables (--zero-aware): in a plain table one move can "
                         f"change an entry by more than one, which one bit cannot follow ({what})")
    if compression.bits == 4 or compression.delta:
        largest = int(table.max(initial=0))
        if compression.bits == 4 and largest > NIBBLE_MAX:
            shown = "unreached entries" if largest == UNREACHED else f"values up to {largest}"
            raise InputError(f"--compress nibble holds values up to {NIBBLE_MAX}; {what} has {shown} "
                             "(use min:K or delta)")
        if compression.delta and largest == UNREACHED:
            raise InputError(f"--compress delta needs every entry reached; {what} has unreached entries")


def compress(table: np.ndarray, factorial_k: int, compression: Compression) -> np.ndarray:
    """The stored bytes of `table` (uint8, blocks of `factorial_k` entries) under `compression`."""
    if compression.merge > 1:
        blocks = table.reshape(-1, factorial_k)
        merged = -(-blocks.shape[0] // compression.merge)
        padded = np.full((merged * compression.merge, factorial_k), UNREACHED, dtype=np.uint8)
        padded[: blocks.shape[0]] = blocks
        return padded.reshape(merged, compression.merge, factorial_k).min(axis=1).reshape(-1)
    if compression.bits == 4:
        even = np.zeros(-(-table.size // 2) * 2, dtype=np.uint8)
        even[: table.size] = table
        return even[0::2] | (even[1::2] << 4)
    if compression.delta:
        return np.packbits((table >> 1) & 1, bitorder="little")
    return table


def stored_values(stored: np.ndarray, n_entries: int, compression: Compression) -> np.ndarray:
    """What a lookup reads at each of the first `n_entries` stored entries (uint8): the value, or
    under delta bit 1 of the value."""
    if compression.bits == 4:
        return np.stack([stored & 15, stored >> 4], axis=1).reshape(-1)[:n_entries]
    if compression.delta:
        return np.unpackbits(stored, bitorder="little")[:n_entries]
    return stored[:n_entries]


def merged_index(index: np.ndarray, factorial_k: int, compression: Compression) -> np.ndarray:
    """The stored entry that holds each uncompressed entry `index`."""
    return (index // factorial_k >> compression.merge_shift) * factorial_k + index % factorial_k


def describe(compression: Compression) -> str:
    """A few words for reports: the encoding and its bits per entry."""
    name = "uncompressed" if compression == NONE else compression.name
    return f"{name}, {compression.bits / compression.merge:g} bits per entry"
