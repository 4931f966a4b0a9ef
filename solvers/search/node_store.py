"""node_store.py -- packed states, a hash index and growable node arrays for the searches that keep every state.

A state is packed into `words` uint64 words (`Packing`): each cell takes `bits` bits, the
fewest that hold its largest tile (4 for boards of 9 to 16 cells, 6 for 33 to 64), `per_word` cells
to a word and no cell split across two, cell 0 in the lowest bits of word 0. So a 4x4 state
is one word, a 5x5 state three, an 8x8 state seven. BFS and A* keep, per stored node, its
packed state (a row of `codes`), its parent's node index and the move that reached it, in
arrays that double when full, and an open-addressing hash index from packed state to node
(`find` and `insert`; a table of int32 node numbers at most half full, probed linearly).

`node_capacity` says, before a search starts, how many nodes it may store: a given node limit
is refused if its nodes would not fit in the memory available now, and the default one is what
fits in a share of that memory (`memory_budget`).
"""

from __future__ import annotations

import mmap
from typing import NamedTuple

import numpy as np

from pdb_build.bfs import available_memory, check_memory
from solvers.errors import InputError
from solvers.jit import kernel
from solvers.puzzle import Puzzle

NO_PARENT = -1
EMPTY = -1  # a free slot of the hash index
# int32 slots of the index per node at its fullest: it doubles when half full, and the old
# table lives while the new one is filled
INDEX_SLOTS_PER_NODE = 6
INITIAL_CAPACITY = 1 << 12  # nodes a store has room for at first
MAX_NODES = (1 << 31) - 2  # node numbers are int32 in the index and the open list
# By default a search's nodes may fill this share of the memory available when it starts: its
# arrays double when they grow (old and new live together for a moment), and the rest of the
# machine (other programs, the file cache) keeps room.
DEFAULT_MEMORY_SHARE = 0.25


class Packing(NamedTuple):
    """How a state of one board is packed (see the module docstring)."""

    bits: int
    per_word: int
    words: int


def packing(puzzle: Puzzle) -> Packing:
    """The packing of `puzzle`'s states."""
    bits = max(1, (puzzle.n_cells - 1).bit_length())
    per_word = 64 // bits
    return Packing(bits, per_word, -(-puzzle.n_cells // per_word))


def node_bytes(puzzle: Puzzle, bytes_per_node: int) -> int:
    """Bytes one stored node may need at the peak of a search's growth: its packed state and
    `bytes_per_node` more, twice (arrays double when full), and its index slots."""
    return 2 * (bytes_per_node + 8 * packing(puzzle).words) + 4 * INDEX_SLOTS_PER_NODE


def memory_budget(heuristic=None, workers: int = 1) -> int:
    """Bytes a search may fill with nodes by default: DEFAULT_MEMORY_SHARE of the memory
    available now, after taking off the tables of `heuristic` mapped from files (the kernel
    counts their pages as available, yet the search reads them), shared among `workers`
    searches that run at once."""
    mapped = mapped_bytes(heuristic) if heuristic is not None else 0
    return max(0, int((available_memory() - mapped) * DEFAULT_MEMORY_SHARE)) // max(1, workers)


def mapped_bytes(heuristic) -> int:
    """Bytes of the arrays in `heuristic`'s kernel data that are mapped from files."""
    seen, total = set(), 0
    for array in _arrays(heuristic.tree):
        root = array
        while isinstance(root, np.ndarray) and root.base is not None:
            root = root.base
        if isinstance(root, mmap.mmap) and id(root) not in seen:
            seen.add(id(root))
            total += len(root)
    return total


def _arrays(data):
    """Every numpy array inside nested tuples (a heuristic's leaves)."""
    if isinstance(data, np.ndarray):
        yield data
    elif isinstance(data, tuple):
        for member in data:
            yield from _arrays(member)


def node_capacity(puzzle: Puzzle, node_limit: int | None, bytes_per_node: int, algorithm: str,
                  heuristic=None, memory: float | None = None) -> int:
    """How many nodes a search may store: `node_limit`, refused (one-line InputError) if that
    many nodes of `bytes_per_node` bytes besides their packed states would not fit in the memory
    available, or above MAX_NODES; None: as many as fit in `memory` GiB (default
    `memory_budget(heuristic)`)."""
    per_node = node_bytes(puzzle, bytes_per_node)
    if node_limit is None:
        budget = memory_budget(heuristic) if memory is None else int(memory * 2**30)
        return max(1, min(MAX_NODES, budget // per_node))
    check_memory(node_limit * per_node, f"{algorithm} with a node limit of {node_limit:,}")
    if node_limit > MAX_NODES:
        raise InputError(f"{algorithm} stores at most {MAX_NODES:,} nodes, not {node_limit:,}")
    return node_limit


@kernel
def pack(board, bits, per_word, codes, row):
    """Write the packed `board` into codes[row]."""
    for word in range(codes.shape[1]):
        codes[row, word] = 0
    for cell in range(board.shape[0]):
        word = cell // per_word
        shift = np.uint64(bits * (cell - word * per_word))
        codes[row, word] |= np.uint64(board[cell]) << shift
    return row


@kernel
def unpack(codes, row, bits, per_word, board):
    """Write the state packed in codes[row] into `board`; returns the blank's cell."""
    blank = 0
    mask = np.uint64((1 << bits) - 1)
    for cell in range(board.shape[0]):
        word = cell // per_word
        tile = (codes[row, word] >> np.uint64(bits * (cell - word * per_word))) & mask
        board[cell] = tile
        if tile == 0:
            blank = cell
    return blank


@kernel
def same_code(codes, row, others, other_row):
    for word in range(codes.shape[1]):
        if codes[row, word] != others[other_row, word]:
            return False
    return True


@kernel
def slot_of(codes, row, slots):
    """The first slot to probe for codes[row]: its words folded by multiplication, then
    splitmix64's finalizer, so that every bit of the state reaches the low bits that pick the
    slot (a product alone carries bits upward only: the top cells of a one-word state would
    never move a state's slot)."""
    hashed = np.uint64(0)
    for word in range(codes.shape[1]):
        hashed = (hashed ^ codes[row, word]) * np.uint64(0x9E3779B97F4A7C15)
    hashed ^= hashed >> np.uint64(30)
    hashed *= np.uint64(0xBF58476D1CE4E5B9)
    hashed ^= hashed >> np.uint64(27)
    hashed *= np.uint64(0x94D049BB133111EB)
    hashed ^= hashed >> np.uint64(31)
    return np.int64(hashed & np.uint64(slots.shape[0] - 1))


@kernel
def find(slots, codes, keys, key_row):
    """(node whose packed state equals keys[key_row], or EMPTY; the slot where it is or would
    be inserted)."""
    slot = slot_of(keys, key_row, slots)
    mask = slots.shape[0] - 1
    while slots[slot] != EMPTY:
        if same_code(codes, slots[slot], keys, key_row):
            return np.int64(slots[slot]), slot
        slot = (slot + 1) & mask
    return EMPTY, slot


@kernel
def new_index(capacity):
    """An empty hash index for `capacity` nodes (a power of two of at least twice as many slots)."""
    size = 16
    while size < 2 * capacity:
        size *= 2
    return np.full(size, EMPTY, dtype=np.int32)


@kernel
def insert(slots, codes, node, slot, n_nodes):
    """Put `node` (its state in codes[node]) into `slot` (from `find`); returns the index,
    rebuilt twice as large when it would pass half full with `n_nodes` nodes."""
    slots[slot] = node
    if 2 * n_nodes <= slots.shape[0]:
        return slots
    bigger = np.full(2 * slots.shape[0], EMPTY, dtype=np.int32)
    mask = bigger.shape[0] - 1
    for stored in range(n_nodes):
        at = slot_of(codes, stored, bigger)
        while bigger[at] != EMPTY:
            at = (at + 1) & mask
        bigger[at] = stored
    return bigger


@kernel
def rooted_store(board, layout, capacity):
    """Node arrays with room for `capacity` nodes (packed states, parents, moves) and their hash
    index, holding `board` as node 0, the root (no parent, no move); `layout` is a Packing."""
    bits, per_word, words = layout
    codes = np.empty((capacity, words), dtype=np.uint64)
    parent = np.empty(capacity, dtype=np.int64)
    move = np.empty(capacity, dtype=np.int8)
    pack(board, bits, per_word, codes, 0)
    parent[0] = NO_PARENT
    move[0] = -1
    index = new_index(capacity)
    index = insert(index, codes, 0, find(index, codes, codes, 0)[1], 1)
    return codes, parent, move, index


@kernel
def grown(array, capacity):
    """A copy of `array` (1-D or 2-D) with room for `capacity` rows."""
    bigger = np.empty((capacity,) + array.shape[1:], dtype=array.dtype)
    bigger[: array.shape[0]] = array
    return bigger


@kernel
def grown_store(codes, parent, move, capacity):
    """The three node arrays with room for `capacity` nodes."""
    return grown(codes, capacity), grown(parent, capacity), grown(move, capacity)


@kernel
def path_moves(parent, move, node):
    """The moves from the root to `node`, following parent links."""
    length = 0
    walk = node
    while parent[walk] != NO_PARENT:
        length += 1
        walk = parent[walk]
    moves = np.empty(length, dtype=np.int8)
    walk = node
    for i in range(length - 1, -1, -1):
        moves[i] = move[walk]
        walk = parent[walk]
    return moves
