"""verify.py -- an independent check of a built additive pattern database, beyond its checksums.

A checksum proves that a table is the one that was written, not that it was built right.
`verify_pdb` loads a file (format, ranking scheme and checksums checked by store.py) and
checks every entry of every table, or `sample` random entries of each, against invariants
that any correct additive table obeys. T(p) is the stored value of placement p: the fewest
moves of pattern tiles that bring them home, minimised over the regions of free cells the
blank may stand in (bfs.py). A *neighbour* of p is a placement p' that moves one pattern tile
of p by one cell into a free cell (one not holding another pattern tile). The checks, for
every entry p:

1. Reached: T(p) is not UNREACHED, except in a table of every tile but the blank, where the
   unsolvable half of the placements is UNREACHED (their count must be exactly half).
2. Zero at the goal only: T(p) = 0 exactly when p is the goal placement.
3. Parity: T(p) has the parity of the number of pattern tiles on odd cells ((row + column)
   odd) of p minus that of the goal placement. Every move of a pattern tile changes that
   number by one, and moves of other tiles cost nothing, so every path from p has it.
4. No steep rise from a connected placement: when the free cells of p form one region, every
   neighbour p' has T(p') <= T(p) + 1 (the blank can stand anywhere at no cost, so the tile
   can make its move from p's best position). With 3 this means T(p') = T(p) + 1 or
   T(p') <= T(p) - 1.
5. A way down: when T(p) > 0, some neighbour p' has T(p') <= T(p) - 1 (the first move of a
   shortest path from p's best region leads to one).

What is NOT checked, because it does not hold for the stored minimum over regions (the tests
show both on the 3x3 board against a brute-force search): that neighbours differ by at most
one when p's free cells are split (walled-off cells make the blank's region matter; for the
pattern {1, 2, 3, 4} neighbours differ by up to 7), and that the way down is exactly one lower
(it can be three or five lower). Tables built with `--non-additive` count every move, so the
values of neighbouring placements differ by the blank's walk; they are not supported, nor are
`--zero-aware` tables (one value per placement and blank region). A
single changed entry always breaks 3 when it changes by an odd amount; a change by two
breaks 4 or 5 unless the entry's neighbours hide it.

The verifier shares with the builder only the file format: the index of ranking.py and the
table of order relabellings (a function of the pattern size alone, `abstraction._order_maps`);
it derives moves, regions, parity and the goal from the board itself.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import prange
from tqdm import tqdm

from pdb_build.abstraction import _order_maps
from pdb_build.bfs import UNREACHED, table_stats
from pdb_build.ranking import PlacementRanking, _map_rank, _map_unrank, _position_in
from pdb_build.store import ADDITIVE, PLAIN, load_partition
from solvers.errors import InputError
from solvers.jit import kernel, parallel_kernel
from solvers.puzzle import Puzzle

OK, IS_UNREACHED, ZERO_AWAY_FROM_GOAL, WRONG_PARITY, STEEP_RISE, NO_WAY_DOWN, GOAL_NOT_ZERO, UNREACHED_COUNT = range(8)
MAPS_PER_STEP = 256


class NotSupported(InputError):
    """A file that can be read but not verified (a non-additive table)."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of verifying one file: `ok`, or the first bad entry in `failure` (one line)."""

    path: Path
    ok: bool
    entries_checked: int
    seconds: float
    failure: str | None = None

    def line(self) -> str:
        if self.ok:
            return f"{self.path}: OK, {self.entries_checked:,} entries checked in {self.seconds:.1f} s"
        return f"{self.path}: FAILED: {self.failure}"


@dataclass(frozen=True)
class PlacementGraph:
    """The placements of k tiles on a board as maps (occupied cells) with their tile moves."""

    factorial_k: int
    connected: np.ndarray  # bool[n_maps]: the free cells form one region
    odd: np.ndarray  # uint8[n_maps]: parity of the occupied cells with (row + column) odd
    move_count: np.ndarray  # int64[n_maps]
    move_map: np.ndarray  # int64[n_maps, 4k]: map rank after the move
    move_row: np.ndarray  # int64[n_maps, 4k]: row of order_maps (a * k + b), see abstraction.py
    move_from: np.ndarray  # int64[n_maps, 4k]: the cell the moving tile leaves
    move_to: np.ndarray  # int64[n_maps, 4k]: the free cell it enters
    order_maps: np.ndarray  # int32[k * k, k!]


def placement_graph(puzzle: Puzzle, k: int) -> PlacementGraph:
    """Every map of k occupied cells on `puzzle`'s board, and every move of one tile."""
    ranking = PlacementRanking(puzzle.n_cells, k)
    colour = np.array([(c // puzzle.cols + c % puzzle.cols) % 2 for c in range(puzzle.n_cells)], dtype=np.int64)
    neighbours = np.ascontiguousarray(puzzle.neighbours, dtype=np.int64)
    arrays = _map_moves(ranking.n_maps, puzzle.n_cells, k, ranking.binomials, neighbours, colour)
    return PlacementGraph(ranking.factorial_k, *arrays, _order_maps(k))


@kernel
def _map_moves(n_maps, n_cells, k, binomials, neighbours, colour):
    """Connectivity and odd-cell parity of every map, and the moves of its tiles."""
    connected = np.empty(n_maps, dtype=np.bool_)
    odd = np.empty(n_maps, dtype=np.uint8)
    move_count = np.zeros(n_maps, dtype=np.int64)
    move_map = np.empty((n_maps, 4 * k), dtype=np.int64)
    move_row = np.empty((n_maps, 4 * k), dtype=np.int64)
    move_from = np.empty((n_maps, 4 * k), dtype=np.int64)
    move_to = np.empty((n_maps, 4 * k), dtype=np.int64)
    stack = np.empty(n_cells, dtype=np.int64)
    for m in range(n_maps):
        mask = _map_unrank(m, n_cells, k, binomials)
        on_odd = 0
        first_free = -1
        for cell in range(n_cells):
            if mask >> cell & 1:
                on_odd += colour[cell]
            elif first_free < 0:
                first_free = cell
        odd[m] = on_odd % 2
        seen = mask | (np.int64(1) << first_free)
        stack[0] = first_free
        top = 0
        while top >= 0:
            cell = stack[top]
            top -= 1
            for d in range(4):
                nxt = neighbours[cell, d]
                if nxt >= 0 and not (seen >> nxt & 1):
                    seen |= np.int64(1) << nxt
                    top += 1
                    stack[top] = nxt
        connected[m] = seen == (np.int64(1) << n_cells) - 1
        for cell in range(n_cells):
            if not (mask >> cell & 1):
                continue
            for d in range(4):
                free = neighbours[cell, d]
                if free < 0 or mask >> free & 1:
                    continue
                after = mask ^ (np.int64(1) << cell) ^ (np.int64(1) << free)
                j = move_count[m]
                move_map[m, j] = _map_rank(after, binomials)
                move_row[m, j] = _position_in(mask, cell) * k + _position_in(after, free)
                move_from[m, j] = cell
                move_to[m, j] = free
                move_count[m] = j + 1
    return connected, odd, move_count, move_map, move_row, move_from, move_to


@kernel
def _check_entry(table, m, order, goal_index, goal_odd, all_tiles, factorial_k, connected, odd,
                 move_count, move_map, move_row, order_maps):
    """(code, move) for the entry of map `m` and order rank `order`: OK or the first failed
    check, and for a check about a neighbour the move (column of move_map) that reaches it."""
    index = m * factorial_k + order
    value = np.int64(table[index])
    if value == UNREACHED:
        return (OK if all_tiles else IS_UNREACHED), -1
    if value == 0 and index != goal_index:
        return ZERO_AWAY_FROM_GOAL, -1
    if (value + odd[m] + goal_odd) % 2 != 0:
        return WRONG_PARITY, -1
    way_down = value == 0
    for j in range(move_count[m]):
        other = np.int64(table[move_map[m, j] * factorial_k + order_maps[move_row[m, j], order]])
        if connected[m] and other > value + 1:
            return STEEP_RISE, j
        if other < value:
            way_down = True
    if not way_down:
        return NO_WAY_DOWN, -1
    return OK, -1


@parallel_kernel
def _check_maps(table, first_map, last_map, goal_index, goal_odd, all_tiles, factorial_k, connected, odd,
                move_count, move_map, move_row, order_maps, bad_order, bad_code, bad_move):
    """Check every entry of maps first_map .. last_map - 1; for each map with a bad entry,
    write the smallest bad order rank, its code and move into bad_* (left alone otherwise)."""
    for m in prange(first_map, last_map):
        for order in range(factorial_k):
            code, move = _check_entry(table, m, order, goal_index, goal_odd, all_tiles, factorial_k, connected,
                                      odd, move_count, move_map, move_row, order_maps)
            if code != OK:
                bad_order[m], bad_code[m], bad_move[m] = order, code, move
                break


@parallel_kernel
def _check_indices(table, indices, goal_index, goal_odd, all_tiles, factorial_k, connected, odd,
                   move_count, move_map, move_row, order_maps, codes, moves):
    """Check the entries at `indices`, writing each one's code and move into codes and moves."""
    for i in prange(indices.shape[0]):
        m, order = indices[i] // factorial_k, indices[i] % factorial_k
        codes[i], moves[i] = _check_entry(table, m, order, goal_index, goal_odd, all_tiles, factorial_k,
                                          connected, odd, move_count, move_map, move_row, order_maps)


@dataclass(frozen=True)
class BadEntry:
    """The first entry that fails a check, by index (-1 for UNREACHED_COUNT), and the check."""

    index: int
    code: int
    detail: int  # STEEP_RISE: the move (column of the graph's move arrays); UNREACHED_COUNT: the count


def check_table(
    table: np.ndarray, puzzle: Puzzle, pattern: tuple[int, ...], graph: PlacementGraph, *,
    sample: np.ndarray | None = None, progress: bool = False,
) -> BadEntry | None:
    """Check every entry of `table` (the additive table of `pattern` on `puzzle`, whose
    placement graph is `graph`), or the entries at the sorted indices `sample`; returns the
    first bad entry, or None. With `progress`, shows a tqdm bar (full checks only).

    Refuses (InputError) a table of the wrong size or type and indices outside it.
    """
    k = len(pattern)
    ranking = PlacementRanking(puzzle.n_cells, k)
    if table.shape != (ranking.size,) or table.dtype != np.uint8:
        raise InputError(f"a table of {k} tiles on {puzzle.board} must be {ranking.size} bytes")
    if sample is not None and sample.size and (sample.min() < 0 or sample.max() >= ranking.size):
        raise InputError(f"sampled indices must lie in 0..{ranking.size - 1}")
    goal_cells = np.array([puzzle.goal_cell[t] for t in pattern], dtype=np.int64)
    goal_index = int(ranking.rank(goal_cells)[0])
    goal_odd = int(graph.odd[goal_index // graph.factorial_k])
    all_tiles = k == puzzle.n_cells - 1
    shared = (goal_index, goal_odd, all_tiles, graph.factorial_k, graph.connected, graph.odd,
              graph.move_count, graph.move_map, graph.move_row, graph.order_maps)
    if table[goal_index] != 0:
        return BadEntry(goal_index, GOAL_NOT_ZERO, -1)
    if sample is not None:
        codes = np.empty(sample.size, dtype=np.int64)
        moves = np.empty(sample.size, dtype=np.int64)
        _check_indices(table, sample, *shared, codes, moves)
        bad = np.flatnonzero(codes != OK)
        return BadEntry(int(sample[bad[0]]), int(codes[bad[0]]), int(moves[bad[0]])) if bad.size else None
    n_maps = graph.connected.shape[0]
    bad_order = np.full(n_maps, -1, dtype=np.int64)
    bad_code = np.zeros(n_maps, dtype=np.int64)
    bad_move = np.zeros(n_maps, dtype=np.int64)
    with tqdm(total=table.size, unit="entry", unit_scale=True, disable=not progress, leave=False,
              desc=f"tiles {','.join(map(str, pattern))}") as bar:
        for first in range(0, n_maps, MAPS_PER_STEP):
            last = min(first + MAPS_PER_STEP, n_maps)
            _check_maps(table, first, last, *shared, bad_order, bad_code, bad_move)
            bad = np.flatnonzero(bad_order[first:last] >= 0)
            if bad.size:
                m = first + int(bad[0])
                return BadEntry(m * graph.factorial_k + int(bad_order[m]), int(bad_code[m]), int(bad_move[m]))
            bar.update((last - first) * graph.factorial_k)
    unreached = table_stats(table).unreached
    if unreached != (table.size // 2 if all_tiles else 0):
        return BadEntry(-1, UNREACHED_COUNT, unreached)
    return None


def describe(bad: BadEntry, table: np.ndarray, puzzle: Puzzle, pattern: tuple[int, ...], graph: PlacementGraph) -> str:
    """One line naming the bad entry: its index, tiles and cells, value and the failed check."""
    if bad.code == UNREACHED_COUNT:
        return f"{bad.detail:,} entries are UNREACHED, not {table.size // 2:,} (the unsolvable half)"
    k = len(pattern)
    ranking = PlacementRanking(puzzle.n_cells, k)
    cells = ranking.unrank(bad.index)[0]
    value = int(table[bad.index])
    entry = f"entry {bad.index:,} (tiles {_list(pattern)} on cells {_list(cells)}) = {value}"
    if bad.code == GOAL_NOT_ZERO:
        return f"{entry}, but it is the goal placement, which must be 0"
    if bad.code == IS_UNREACHED:
        return f"{entry} (UNREACHED), but every placement of fewer than {puzzle.n_cells - 1} tiles is reachable"
    if bad.code == ZERO_AWAY_FROM_GOAL:
        return f"{entry}, but only the goal placement may be 0"
    if bad.code == WRONG_PARITY:
        return f"{entry}, of the wrong parity: every move of a pattern tile changes it, so it must be {'odd' if value % 2 == 0 else 'even'}"
    if bad.code == NO_WAY_DOWN:
        return f"{entry}, but no neighbouring placement is lower"
    m = bad.index // graph.factorial_k
    source, target = int(graph.move_from[m, bad.detail]), int(graph.move_to[m, bad.detail])
    tile = pattern[list(cells).index(source)]
    moved = [target if c == source else int(c) for c in cells]
    other = int(ranking.rank(moved)[0])
    return (f"{entry}, but its neighbour entry {other:,} (tiles {_list(pattern)} on cells {_list(moved)}) = "
            f"{int(table[other])}, tile {tile} moved from cell {source} to cell {target}, is more than one "
            "higher, and the free cells of the first are connected")


def _list(values) -> str:
    return ",".join(str(int(v)) for v in values)


def verify_pdb(path: str | Path, sample: int | None = None, *, seed: int = 0, progress: bool | None = None) -> Verdict:
    """Load the PDB file at `path` (checked as store.load_partition checks it) and verify every
    entry of every table, or `sample` entries of each chosen uniformly at random from `seed`
    (every entry if `sample` is at least the table's size).

    Returns a Verdict: ok, or the first bad entry (in table order, then index order) as one
    line. Raises PdbError for a file that cannot be loaded and NotSupported for a
    non-additive one. `progress` (default: when stderr is a terminal) shows a tqdm bar.
    """
    began = time.perf_counter()
    database = load_partition(path)
    if database.cost_model != ADDITIVE:
        raise NotSupported(
            f"{database.path}: not verified: {database.cost_model} tables are not supported "
            "(every move costs 1 there, so neighbouring placements differ by the blank's walk)"
        )
    if database.table_kind != PLAIN:
        raise NotSupported(
            f"{database.path}: not verified: {database.table_kind} tables are not supported "
            "(the checks are written for one value per placement)"
        )
    if progress is None:
        progress = sys.stderr.isatty()
    rng = np.random.default_rng(seed)
    checked = 0
    for number, (pattern, table) in enumerate(zip(database.partition.patterns, database.tables)):
        indices = None
        if sample is not None and sample < table.size:
            indices = np.sort(rng.choice(table.size, size=sample, replace=False)).astype(np.int64)
        graph = placement_graph(database.puzzle, len(pattern))
        bad = check_table(table, database.puzzle, pattern, graph, sample=indices, progress=progress)
        if bad is not None:
            where = f"table {number} (tiles {_list(pattern)}): "
            return Verdict(database.path, False, checked, time.perf_counter() - began,
                           where + describe(bad, table, database.puzzle, pattern, graph))
        checked += table.size if indices is None else indices.size
    return Verdict(database.path, True, checked, time.perf_counter() - began)

