"""node_store.py -- packed states and growable node arrays for the searches that keep every state.

A state of at most MAX_PACKED_CELLS cells is packed into one uint64, 4 bits per cell (cell 0
in the lowest bits). BFS and A* keep, per stored node, its packed state, its parent's node
index and the move that reached it, in arrays that double when full, plus a numba typed dict
from packed state to node index for duplicate detection.
"""

from __future__ import annotations

import numpy as np

from solvers.errors import InputError
from solvers.jit import kernel
from solvers.puzzle import Puzzle

MAX_PACKED_CELLS = 16
NO_PARENT = -1


def check_packable(puzzle: Puzzle, algorithm: str) -> None:
    """Refuse boards whose states do not fit the 64-bit packing these searches store."""
    if puzzle.n_cells > MAX_PACKED_CELLS:
        raise InputError(
            f"{algorithm} keeps every state in memory and supports boards of at most "
            f"{MAX_PACKED_CELLS} cells; use --algorithm ida for a {puzzle.board} board"
        )


@kernel
def _pack(board):
    code = np.uint64(0)
    for cell in range(board.shape[0]):
        code |= np.uint64(board[cell]) << np.uint64(4 * cell)
    return code


@kernel
def _unpack(code, board):
    """Write the state packed in `code` into `board`; returns the blank's cell."""
    blank = 0
    for cell in range(board.shape[0]):
        tile = (code >> np.uint64(4 * cell)) & np.uint64(15)
        board[cell] = tile
        if tile == 0:
            blank = cell
    return blank


@kernel
def _grown(array, capacity):
    """A copy of `array` with room for `capacity` entries."""
    bigger = np.empty(capacity, dtype=array.dtype)
    bigger[: array.shape[0]] = array
    return bigger


@kernel
def _grown_store(codes, parent, move, capacity):
    """The three node arrays with room for `capacity` nodes."""
    return _grown(codes, capacity), _grown(parent, capacity), _grown(move, capacity)


@kernel
def _path_moves(parent, move, node):
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
