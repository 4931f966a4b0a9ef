"""ranking.py -- a perfect, compact index of the placements of k pattern tiles on N cells.

A *placement* gives the cell of each of the k pattern tiles, in pattern order:
`cells[i]` is the cell of the pattern's i-th tile. There are N!/(N-k)! placements, and the
index numbers them 0 .. N!/(N-k)! - 1 without gaps, in three steps:

1. The *map* is the set of occupied cells, as a bit mask. Its rank is its number in the
   combinatorial number system (colex order): with the occupied cells c_0 < c_1 < ... <
   c_{k-1}, map_rank = sum_j C(c_j, j + 1), which runs over 0 .. C(N, k) - 1.
2. The *order* says which tile stands on which occupied cell: order[i] is the position of
   cells[i] among the sorted occupied cells (0 .. k-1), a permutation of k elements. Its
   rank is its Lehmer code in lexicographic order: order_rank = sum_i d_i (k-1-i)!, where
   d_i counts the later entries smaller than order[i]; it runs over 0 .. k! - 1.
3. index = map_rank * k! + order_rank.

All placements sharing a map therefore form one contiguous block of k! entries; the BFS in
`bfs.py` relies on that (and on the blank's region inserted between map and order, see
`abstraction.py`). The scheme is named RANKING_SCHEME in PDB files.
"""

from __future__ import annotations

import math

import numpy as np

from solvers.bits import trailing_zeros
from solvers.errors import InputError
from solvers.jit import inline_kernel, kernel

RANKING_SCHEME = "map-colex*order-lex"
MAX_CELLS = 64
MAX_PATTERN = 8


def binomial_table(n_cells: int) -> np.ndarray:
    """C(n, r) for 0 <= n <= n_cells, 0 <= r <= MAX_PATTERN + 1, as int64."""
    table = np.zeros((n_cells + 1, MAX_PATTERN + 2), dtype=np.int64)
    for n in range(n_cells + 1):
        for r in range(MAX_PATTERN + 2):
            table[n, r] = math.comb(n, r)
    return table


def n_placements(n_cells: int, k: int) -> int:
    """N!/(N-k)!, the number of indices."""
    return math.perm(n_cells, k)


def check_pattern_size(n_cells: int, k: int) -> None:
    """Refuse patterns the index cannot hold (k tiles, 1 <= k <= MAX_PATTERN, k < N <= 64)."""
    if not 1 <= k <= MAX_PATTERN:
        raise InputError(f"a pattern of {k} tiles is not supported: patterns hold 1 to {MAX_PATTERN} tiles")
    if not k < n_cells <= MAX_CELLS:
        raise InputError(f"a board of {n_cells} cells cannot hold a pattern of {k} tiles and the blank")


@inline_kernel
def cell_set_rank(mask, binomials):
    """Colex rank of the set of cells in `mask`, one step per occupied cell. Inlined: a call
    from a search's per-node lookup, given an array just read out of a kind's data, kept
    numba's reference counting of that array in the loop."""
    rank = 0
    j = 0
    while mask != 0:
        j += 1
        rank += binomials[trailing_zeros(mask), j]
        mask &= mask - 1  # clear the lowest occupied cell
    return rank


@kernel
def cell_set_unrank(rank, n_cells, k, binomials):
    """The mask of the k-cell set with colex rank `rank` (greedy from the highest cell)."""
    mask = np.int64(0)
    cell = n_cells - 1
    for j in range(k, 0, -1):
        while binomials[cell, j] > rank:
            cell -= 1
        rank -= binomials[cell, j]
        mask |= np.int64(1) << cell
        cell -= 1
    return mask


@kernel
def permutation_rank(order, k):
    """Lexicographic rank of the permutation `order[:k]` of 0..k-1."""
    rank = 0
    for i in range(k):
        smaller = 0
        for j in range(i + 1, k):
            if order[j] < order[i]:
                smaller += 1
        rank = rank * (k - i) + smaller
    return rank


@kernel
def permutation_unrank(rank, k, order):
    """Write the permutation of 0..k-1 with lexicographic rank `rank` into `order[:k]`."""
    for i in range(k - 1, -1, -1):
        order[i] = rank % (k - i)
        rank //= k - i
    for i in range(k - 2, -1, -1):
        for j in range(i + 1, k):
            if order[j] >= order[i]:
                order[j] += 1


@kernel
def position_in(mask, cell):
    """How many cells of `mask` lie below `cell`."""
    below = mask & ((np.int64(1) << cell) - 1)
    count = 0
    while below:
        below &= below - 1
        count += 1
    return count


@kernel
def _rank_placement(cells, binomials, factorial_k):
    k = cells.shape[0]
    mask = np.int64(0)
    for i in range(k):
        mask |= np.int64(1) << cells[i]
    order = np.empty(k, dtype=np.int64)
    for i in range(k):
        order[i] = position_in(mask, cells[i])
    return cell_set_rank(mask, binomials) * factorial_k + permutation_rank(order, k)


@kernel
def _unrank_placement(index, n_cells, k, binomials, factorial_k, cells):
    mask = cell_set_unrank(index // factorial_k, n_cells, k, binomials)
    order = np.empty(k, dtype=np.int64)
    permutation_unrank(index % factorial_k, k, order)
    sorted_cells = np.empty(k, dtype=np.int64)
    j = 0
    for cell in range(n_cells):
        if mask >> cell & 1:
            sorted_cells[j] = cell
            j += 1
    for i in range(k):
        cells[i] = sorted_cells[order[i]]


@kernel
def _rank_many(placements, binomials, factorial_k):
    out = np.empty(placements.shape[0], dtype=np.int64)
    for row in range(placements.shape[0]):
        out[row] = _rank_placement(placements[row], binomials, factorial_k)
    return out


@kernel
def _unrank_many(indices, n_cells, k, binomials, factorial_k):
    out = np.empty((indices.shape[0], k), dtype=np.int64)
    for row in range(indices.shape[0]):
        _unrank_placement(indices[row], n_cells, k, binomials, factorial_k, out[row])
    return out


class PlacementRanking:
    """Rank and unrank placements of `k` tiles on `n_cells` cells (the scheme described above)."""

    def __init__(self, n_cells: int, k: int):
        check_pattern_size(n_cells, k)
        self.n_cells, self.k = n_cells, k
        self.size = n_placements(n_cells, k)
        self.n_maps = math.comb(n_cells, k)
        self.factorial_k = math.factorial(k)
        self.binomials = binomial_table(n_cells)

    def rank(self, placements) -> np.ndarray:
        """Indices of the rows of `placements` (shape (n, k), distinct cells per row)."""
        placements = np.ascontiguousarray(np.atleast_2d(placements), dtype=np.int64)
        if placements.shape[1] != self.k:
            raise InputError(f"placements must have {self.k} cells per row")
        if placements.size and (placements.min() < 0 or placements.max() >= self.n_cells):
            raise InputError(f"cells must lie in 0..{self.n_cells - 1}")
        return _rank_many(placements, self.binomials, self.factorial_k)

    def unrank(self, indices) -> np.ndarray:
        """The placements (shape (n, k)) with the given indices."""
        indices = np.ascontiguousarray(np.atleast_1d(indices), dtype=np.int64)
        if indices.size and (indices.min() < 0 or indices.max() >= self.size):
            raise InputError(f"indices must lie in 0..{self.size - 1}")
        return _unrank_many(indices, self.n_cells, self.k, self.binomials, self.factorial_k)
