"""bench_region_lookup.py -- the blank's region for a zero-aware lookup: the precomputed table
(abstraction.region_layout, what solvers/heuristics/pdb_read.py uses) against a bit-board flood fill, on 4x4.

A microbenchmark, not a search: ns per (map rank + region) over 2 M random (placement, blank)
pairs, after checking that the flood fill numbers regions as the table does (by lowest cell).
Run: PYTHONPATH=. python scripts/bench_region_lookup.py
"""
import time

import numpy as np

from pdb_build.abstraction import region_layout
from pdb_build.ranking import binomial_table, cell_set_rank
from solvers.jit import inline_kernel, kernel
from solvers.puzzle import Puzzle

R, C = 4, 4
N = R * C
FULL = (1 << N) - 1
NOT_LEFT = sum(1 << c for c in range(N) if c % C != 0)       # cells with a left neighbour
NOT_RIGHT = sum(1 << c for c in range(N) if c % C != C - 1)

@inline_kernel
def flood(seed, free):
    region = seed
    while True:
        grown = region | (region << C) | (region >> C) | ((region & NOT_RIGHT) << 1) | ((region & NOT_LEFT) >> 1)
        grown &= free
        if grown == region:
            return region
        region = grown

@inline_kernel
def region_index(mask, blank):
    free = ~mask & FULL
    own = flood(np.int64(1) << blank, free)
    low = own & -own
    rest = free & ~own & (low - 1)   # free cells below the region's lowest cell
    count = 0
    while rest:
        other = flood(rest & -rest, free)
        rest &= ~other
        count += 1
    return count

@kernel
def by_table(masks, blanks, binomials, block_offset, region_of_cell):
    total = 0
    for i in range(masks.shape[0]):
        m = cell_set_rank(masks[i], binomials)
        total += block_offset[m] + region_of_cell[m, blanks[i]]
    return total

@kernel
def by_flood(masks, blanks, binomials, block_offset):
    total = 0
    for i in range(masks.shape[0]):
        m = cell_set_rank(masks[i], binomials)
        total += block_offset[m] + region_index(masks[i], blanks[i])
    return total

@kernel
def check(masks, blanks, binomials, region_of_cell):
    for i in range(masks.shape[0]):
        m = cell_set_rank(masks[i], binomials)
        if region_of_cell[m, blanks[i]] != region_index(masks[i], blanks[i]):
            return i
    return -1

puzzle = Puzzle(R, C)
for k in (5, 8):
    block_offset, region_of_cell = region_layout(puzzle, k)
    binomials = binomial_table(N)
    rng = np.random.default_rng(0)
    n = 2_000_000
    masks = np.empty(n, np.int64); blanks = np.empty(n, np.int64)
    perms = np.argsort(rng.random((n, N)), axis=1)
    cells = perms[:, :k]; blanks[:] = perms[:, k]
    masks[:] = (np.int64(1) << cells).sum(axis=1)
    assert check(masks, blanks, binomials, region_of_cell) == -1
    by_table(masks[:10], blanks[:10], binomials, block_offset, region_of_cell); by_flood(masks[:10], blanks[:10], binomials, block_offset)
    for name, f, args in (("table", by_table, (region_of_cell,)), ("flood", by_flood, ())):
        t = time.perf_counter(); f(masks, blanks, binomials, block_offset, *args); s = time.perf_counter() - t
        print(f"k={k} {name}: {s / n * 1e9:.1f} ns per lookup (incl. map rank)")
