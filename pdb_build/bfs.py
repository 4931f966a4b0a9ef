"""bfs.py -- build one pattern's table by a level-by-level breadth-first search from the goal.

The work table holds one byte per abstract state (see abstraction.py), UNREACHED at first and
0 at the goal. Level d scans the blocks whose parity can hold states at depth d, and writes
d + 1 into every UNREACHED successor of each entry equal to d. Moves are reversible, so these
are distances to the goal. Every writer in a level writes the same value, so the blocks are
scanned in parallel (numba prange) without atomics. The level ends when a scan finds no
entry equal to d.

The stored table has one byte per placement (ranking.py): the smallest value over the
blank's regions, UNREACHED where no region was reached (only when the pattern holds every
tile but the blank: then half the placements are unsolvable). A *zero-aware* table
(`build_table(..., zero_aware=True)`) is the work table itself: one byte per (placement,
blank region), indexed as abstraction.py lays the states out.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np
from numba import prange
from tqdm import tqdm

from pdb_build.abstraction import SAME_ORDER, AbstractSpace
from pdb_build.ranking import n_placements
from solvers.errors import InputError
from solvers.jit import kernel, parallel_kernel

UNREACHED = 255
MAX_DEPTH = UNREACHED - 1


@dataclass(frozen=True)
class BuiltTable:
    """A pattern's table and the facts of its build."""

    pattern: tuple[int, ...]
    additive: bool
    table: np.ndarray  # uint8[N!/(N-k)!], indexed by ranking.py; zero-aware: the work table
    level_sizes: tuple[int, ...]  # abstract states first reached at each depth
    seconds: float
    zero_aware: bool = False  # the table holds one value per (placement, blank region)


def available_memory() -> int:
    """Bytes of memory available to a new allocation (MemAvailable, else physical memory)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def check_memory(needed: int, what: str) -> None:
    """Refuse with a one-line message when `needed` bytes exceed the memory available now."""
    available = available_memory()
    if needed > available:
        raise InputError(f"{what} needs about {size_text(needed)} of memory but only {size_text(available)} is available")


def size_text(n_bytes: int) -> str:
    """A byte count as MiB or GiB, to two decimals."""
    return f"{n_bytes / 2**30:.2f} GiB" if n_bytes >= 2**30 else f"{n_bytes / 2**20:.2f} MiB"


@parallel_kernel
def _expand_level(table, depth, blocks, factorial_k, move_start, move_target, move_order_map, order_maps):
    """Write depth + 1 into every UNREACHED successor of the entries equal to `depth` in `blocks`.

    Returns how many entries equal to `depth` were found.
    """
    n_found = 0
    for i in prange(blocks.shape[0]):
        block = blocks[i]
        base = block * factorial_k
        first, last = move_start[block], move_start[block + 1]
        found = 0
        for order in range(factorial_k):
            if table[base + order] != depth:
                continue
            found += 1
            for move in range(first, last):
                order_map = move_order_map[move]
                after = order if order_map == SAME_ORDER else order_maps[order_map, order]
                index = move_target[move] * factorial_k + after
                if table[index] == UNREACHED:
                    table[index] = depth + 1
        n_found += found
    return n_found


@parallel_kernel
def _min_over_regions(work, block_offset, factorial_k, out):
    """out[map * k! + order] = min over the map's regions of work[(offset + region) * k! + order]."""
    n_maps = block_offset.shape[0] - 1
    for m in prange(n_maps):
        first_block, last_block = block_offset[m], block_offset[m + 1]
        for order in range(factorial_k):
            best = UNREACHED
            for block in range(first_block, last_block):
                value = work[block * factorial_k + order]
                if value < best:
                    best = value
            out[m * factorial_k + order] = best


@kernel
def _value_counts(table):
    counts = np.zeros(UNREACHED + 1, dtype=np.int64)
    for value in table:
        counts[value] += 1
    return counts


@dataclass(frozen=True)
class TableStats:
    """Summary of a table's values; UNREACHED entries are counted apart, not in the values."""

    histogram: np.ndarray  # int64[max + 1]: entries holding each value 0..max
    unreached: int

    @property
    def max(self) -> int:
        return len(self.histogram) - 1

    @property
    def mean(self) -> float:
        return float(np.dot(np.arange(len(self.histogram)), self.histogram) / self.histogram.sum())


def table_stats(table: np.ndarray) -> TableStats:
    """Histogram, maximum and mean of a table in one pass, without temporary copies."""
    counts = _value_counts(table)
    values = np.flatnonzero(counts[:UNREACHED])
    return TableStats(counts[: values[-1] + 1].copy(), int(counts[UNREACHED]))


@kernel
def _blocks_with_parity(block_parity, parity):
    return np.flatnonzero(block_parity == parity).astype(np.int64)


def work_bytes(space: AbstractSpace) -> int:
    """Bytes of the work table of `space`."""
    return space.n_states


def build_table(
    space: AbstractSpace, pattern: tuple[int, ...], *, progress: bool = False, keep_work_table: bool = False,
    zero_aware: bool = False,
) -> tuple[BuiltTable, np.ndarray | None]:
    """Build the table of `pattern` (tiles, in the order the index uses) over its laid-out space.

    With `progress`, shows a tqdm bar advanced per BFS level. Returns the table and, with
    `keep_work_table`, the work table of (placement, region) distances (for tests and
    verification), else None. With `zero_aware` the table is the work table itself (one value
    per (placement, blank region), indexed as abstraction.py lays the states out; additive
    spaces only).
    """
    if zero_aware and not space.additive:
        raise InputError("a zero-aware table needs the additive cost model")
    began = time.perf_counter()
    work = np.full(space.n_states, UNREACHED, dtype=np.uint8)
    level_sizes = _search(space, work, pattern, progress)
    if zero_aware:
        table = work
    else:
        table = np.empty(n_placements(space.n_cells, space.k), dtype=np.uint8)
        _min_over_regions(work, space.block_offset, space.factorial_k, table)
    built = BuiltTable(
        tuple(pattern), space.additive, table, tuple(level_sizes), time.perf_counter() - began, zero_aware
    )
    return built, (work if keep_work_table else None)


def _search(space: AbstractSpace, work: np.ndarray, pattern, progress: bool) -> list[int]:
    work[space.goal_index] = 0
    goal_parity = int(space.block_parity[space.goal_index // space.factorial_k])
    blocks_by_parity = [_blocks_with_parity(space.block_parity, p) for p in (0, 1)]
    level_sizes = []
    # no time left shown: every round scans the whole table while the first rounds find few
    # states, so a rate of states found would promise hours at the start of a build of minutes
    bar = tqdm(
        total=space.n_states, unit="state", unit_scale=True, disable=not progress, leave=False,
        desc=f"pattern {_tiles(pattern)}", bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} "
                                                     "states [{elapsed}{postfix}]",
    )
    with bar:
        for depth in range(MAX_DEPTH + 1):
            found = _expand_level(
                work, depth, blocks_by_parity[(goal_parity + depth) % 2], space.factorial_k,
                space.move_start, space.move_target, space.move_order_map, space.order_maps,
            )
            if found == 0:
                return level_sizes
            level_sizes.append(int(found))
            bar.update(found)
            bar.set_postfix(depth=depth)
    raise InputError(f"pattern {_tiles(pattern)} has states deeper than {MAX_DEPTH} moves; a byte cannot hold them")


def _tiles(pattern) -> str:
    return ",".join(map(str, pattern))
