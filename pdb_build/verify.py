"""verify.py -- an independent check of a built additive pattern database, beyond its checksums.

A checksum proves that a table is the one that was written, not that it was built right.
`verify_pdb` loads a file (format, ranking scheme and checksums checked by store.py) and
checks every entry of every table, or `sample` random entries of each, against invariants
that any correct additive table obeys. Tables come in two kinds (store.py):

- a *plain* table holds T(p) for each placement p: the fewest moves of pattern tiles that
  bring them home, minimised over the regions of free cells the blank may stand in (bfs.py);
- a *zero-aware* table holds T(p, R) for each placement p and *region* R of p (a connected
  component of the cells p leaves free): the same with the blank starting in R.

A *neighbour* of p is a placement p' that moves one pattern tile of p by one cell into a free
cell. In a zero-aware table the free cell must lie in R, and the neighbour entry is (p', R'),
R' the region of p' holding the cell the tile left: the edges of the abstract graph, each of
cost one and reversible. The checks, for every entry:

1. Reached: not UNREACHED, except in a table of every tile but the blank, where the
   unsolvable half of the entries is UNREACHED (their count must be exactly half).
2. Zero at the goal only: 0 exactly at the goal placement (zero-aware: with R the region
   holding the blank's goal cell).
3. Parity: T has the parity of the number of pattern tiles on odd cells ((row + column) odd)
   of p minus that of the goal placement. Every move of a pattern tile changes that number by
   one, and moves of other tiles cost nothing, so every path from p has it.
4. Plain, no steep rise from a connected placement: when the free cells of p form one
   region, every neighbour p' has T(p') <= T(p) + 1 (the blank can stand anywhere at no
   cost, so the tile can make its move from p's best position). With 3 this means
   T(p') = T(p) + 1 or T(p') <= T(p) - 1.
   Zero-aware, one apart: every neighbour entry differs by exactly one. The ends of an edge
   of cost one are at most one apart in distance, and by 3 not equal. (The 1-bit delta
   encoding of zero-aware tables relies on this.)
5. A way down: when T > 0, some neighbour is lower (the first move of a shortest path leads
   to one; zero-aware: by 4 it is exactly one lower).

What the local rules cannot check of plain tables, because it does not hold for the stored
minimum over regions (the tests show both on the 3x3 board against a brute-force search):
that neighbours differ by at most one when p's free cells are split (walled-off cells make the
blank's region matter; for the pattern {1, 2, 3, 4} neighbours differ by up to 7), and that the
way down is exactly one lower (it can be three or five lower). So an entry of a plain table
changed by two can pass them where its neighbours hide it. A full check of a plain table
therefore goes on (rule 6): it builds the zero-aware table of the pattern (bfs.py), checks
every entry of it by rules 1-5, which hold for exact distances only (4 and 2 bound an entry
above by the distance, 5 and 2 below, along a path of unit steps down to the goal), and
requires each plain entry to equal the minimum over its map's regions of those verified
distances (a numpy reduction of the verifier's own). The builder's code is used, but its
result is not trusted: it is verified first. `--sample` checks rules 1-5 only. Tables built
with `--non-additive` count every move, so the values of neighbouring placements differ by the
blank's walk; they are not supported. In a zero-aware table every single changed entry fails
a check at the entry itself: a new value that is not UNREACHED, 0 or of the wrong parity is at
least three away from the old way down, or two below the old value with every neighbour one
above it, and so no way down. Only an entry made UNREACHED in a table of every tile passes,
and its neighbours fail 4.

Besides rule 6's rebuild, the verifier shares with the builder only the file format: the index
of ranking.py, the table of order relabellings (a function of the pattern size alone,
`abstraction.order_move_maps`) and the numbering of regions of zero-aware tables
(abstraction.region_layout, which it checks against the regions it finds); it derives moves,
regions, parity and the goal from the board.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import prange
from tqdm import tqdm

from pdb_build.abstraction import order_move_maps, abstract_space, region_layout
from pdb_build.bfs import UNREACHED, build_table, check_memory, table_stats
from pdb_build.ranking import PlacementRanking, cell_set_rank, cell_set_unrank, position_in
from pdb_build.compress import NONE
from pdb_build.store import ADDITIVE, ZERO_AWARE, load_partition
from pdb_build.verify_encoded import first_difference
from solvers.errors import InputError
from solvers.jit import kernel, parallel_kernel
from solvers.puzzle import Puzzle

(OK, IS_UNREACHED, ZERO_AWAY_FROM_GOAL, WRONG_PARITY, STEEP_RISE, NO_WAY_DOWN, GOAL_NOT_ZERO, UNREACHED_COUNT,
 NOT_ONE_APART) = range(9)
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
    """The placements of k tiles on a board as maps (occupied cells) with their regions and
    tile moves."""

    factorial_k: int
    region_of_cell: np.ndarray  # int8[n_maps, n_cells]: region of each free cell (numbered by lowest cell), -1 if occupied
    connected: np.ndarray  # bool[n_maps]: the free cells form one region
    odd: np.ndarray  # uint8[n_maps]: parity of the occupied cells with (row + column) odd
    move_count: np.ndarray  # int64[n_maps]
    move_map: np.ndarray  # int64[n_maps, 4k]: map rank after the move
    move_row: np.ndarray  # int64[n_maps, 4k]: row of order_maps (a * k + b), see abstraction.py
    move_from: np.ndarray  # int64[n_maps, 4k]: the cell the moving tile leaves
    move_to: np.ndarray  # int64[n_maps, 4k]: the free cell it enters
    order_maps: np.ndarray  # int32[k * k, k!]

    @property
    def arrays(self) -> tuple:
        """The arrays the kernels read, in the order they unpack them."""
        return self.connected, self.odd, self.move_count, self.move_row, self.order_maps


def placement_graph(puzzle: Puzzle, k: int) -> PlacementGraph:
    """Every map of k occupied cells on `puzzle`'s board, its regions, and every move of one tile."""
    ranking = PlacementRanking(puzzle.n_cells, k)
    colour = np.array([(c // puzzle.cols + c % puzzle.cols) % 2 for c in range(puzzle.n_cells)], dtype=np.int64)
    neighbours = np.ascontiguousarray(puzzle.neighbours, dtype=np.int64)
    arrays = _map_moves(ranking.n_maps, puzzle.n_cells, k, ranking.binomials, neighbours, colour)
    return PlacementGraph(ranking.factorial_k, *arrays, order_move_maps(k))


@kernel
def _label_regions(mask, neighbours, stack, region_of_cell):
    """Number the connected components of the cells outside `mask` 0, 1, ... in the order of
    their lowest cell, into region_of_cell (which must hold -1 for every cell); returns how
    many there are."""
    count = 0
    for start in range(region_of_cell.shape[0]):
        if mask >> start & 1 or region_of_cell[start] >= 0:
            continue
        region_of_cell[start] = count
        stack[0] = start
        top = 0
        while top >= 0:
            cell = stack[top]
            top -= 1
            for d in range(4):
                nxt = neighbours[cell, d]
                if nxt >= 0 and not (mask >> nxt & 1) and region_of_cell[nxt] < 0:
                    region_of_cell[nxt] = count
                    top += 1
                    stack[top] = nxt
        count += 1
    return count


@kernel
def _map_moves(n_maps, n_cells, k, binomials, neighbours, colour):
    """Regions, connectivity and odd-cell parity of every map, and the moves of its tiles."""
    region_of_cell = np.full((n_maps, n_cells), -1, dtype=np.int8)
    connected = np.empty(n_maps, dtype=np.bool_)
    odd = np.empty(n_maps, dtype=np.uint8)
    move_count = np.zeros(n_maps, dtype=np.int64)
    move_map = np.empty((n_maps, 4 * k), dtype=np.int64)
    move_row = np.empty((n_maps, 4 * k), dtype=np.int64)
    move_from = np.empty((n_maps, 4 * k), dtype=np.int64)
    move_to = np.empty((n_maps, 4 * k), dtype=np.int64)
    stack = np.empty(n_cells, dtype=np.int64)
    for m in range(n_maps):
        mask = cell_set_unrank(m, n_cells, k, binomials)
        on_odd = 0
        for cell in range(n_cells):
            if mask >> cell & 1:
                on_odd += colour[cell]
        odd[m] = on_odd % 2
        connected[m] = _label_regions(mask, neighbours, stack, region_of_cell[m]) == 1
        for cell in range(n_cells):
            if not (mask >> cell & 1):
                continue
            for d in range(4):
                free = neighbours[cell, d]
                if free < 0 or mask >> free & 1:
                    continue
                after = mask ^ (np.int64(1) << cell) ^ (np.int64(1) << free)
                j = move_count[m]
                move_map[m, j] = cell_set_rank(after, binomials)
                move_row[m, j] = position_in(mask, cell) * k + position_in(after, free)
                move_from[m, j] = cell
                move_to[m, j] = free
                move_count[m] = j + 1
    return region_of_cell, connected, odd, move_count, move_map, move_row, move_from, move_to


@dataclass(frozen=True)
class EntryLayout:
    """Which entry of a table holds which placement and blank: entry (block_offset[m] + d) * k!
    + order holds the placement of map m with order rank `order` and the blank on any free
    cell c with blank_domain[m, c] == d. A plain table has one domain per map, all its free
    cells (its value is the minimum over them); a zero-aware table one per region. A move of
    the placement graph starts from the entries of the domain holding the cell it enters, and
    leads to the entry whose blank is on the cell it leaves."""

    factorial_k: int
    block_offset: np.ndarray  # int64[n_maps + 1]
    blank_domain: np.ndarray  # int8[n_maps, n_cells], -1 for occupied cells
    zero_aware: bool
    move_domain: np.ndarray  # int8[n_maps, 4k]: the domain a move of the graph starts from
    move_block: np.ndarray  # int64[n_maps, 4k]: the block it leads to

    @property
    def size(self) -> int:
        return int(self.block_offset[-1]) * self.factorial_k

    @property
    def arrays(self) -> tuple:
        """The arrays the kernels read, in the order they unpack them."""
        return self.factorial_k, self.block_offset, self.move_domain, self.move_block

    def locate(self, index):
        """(map, domain, order) of an entry index, or of each of an array of them."""
        block, order = np.divmod(index, self.factorial_k)
        m = np.searchsorted(self.block_offset, block, side="right") - 1
        return m, block - self.block_offset[m], order

    def index(self, m: int, blank: int, order: int) -> int:
        """The entry of map m, the blank on cell `blank` (free) and order rank `order`."""
        return int(self.block_offset[m] + self.blank_domain[m, blank]) * self.factorial_k + order


def entry_layout(graph: PlacementGraph, layout: tuple[np.ndarray, np.ndarray] | None = None) -> EntryLayout:
    """The entries of a plain table (`layout` None) or of a zero-aware table laid out by
    `layout` = (block_offset, region_of_cell) of abstraction.region_layout.

    Refuses (InputError) a layout whose regions are not those the graph finds on the board.
    """
    n_maps = graph.connected.shape[0]
    if layout is None:
        block_offset = np.arange(n_maps + 1, dtype=np.int64)
        blank_domain = np.where(graph.region_of_cell < 0, -1, 0).astype(np.int8)
    else:
        block_offset = np.zeros(n_maps + 1, dtype=np.int64)
        np.cumsum(graph.region_of_cell.max(axis=1) + 1, out=block_offset[1:])
        blank_domain = graph.region_of_cell
        if not (np.array_equal(layout[0], block_offset) and np.array_equal(layout[1], blank_domain)):
            raise InputError("the region layout of zero-aware tables does not number the regions of free cells "
                             "in the order of their lowest cell; the verifier cannot read these tables")
    move_domain, move_block = _move_ends(graph.move_count, graph.move_map, graph.move_from, graph.move_to,
                                         block_offset, blank_domain)
    return EntryLayout(graph.factorial_k, block_offset, blank_domain, layout is not None, move_domain, move_block)


@kernel
def _move_ends(move_count, move_map, move_from, move_to, block_offset, blank_domain):
    """The domain each move starts from (of the cell it enters) and the block it leads to (of
    the cell it leaves, in the map after the move)."""
    move_domain = np.full(move_map.shape, -1, dtype=np.int8)
    move_block = np.full(move_map.shape, -1, dtype=np.int64)
    for m in range(move_count.shape[0]):
        for j in range(move_count[m]):
            move_domain[m, j] = blank_domain[m, move_to[m, j]]
            move_block[m, j] = block_offset[move_map[m, j]] + blank_domain[move_map[m, j], move_from[m, j]]
    return move_domain, move_block


@kernel
def _check_entry(table, m, domain, order, rules, graph, entries):
    """(code, move) for the entry of map m, blank domain `domain` and order rank `order`: OK
    or the first failed check, and for a check about a neighbour the move (column of move_map)
    that reaches it. `rules` is (goal index, goal's odd parity, a table of every tile, zero-aware)."""
    goal_index, goal_odd, all_tiles, zero_aware = rules
    connected, odd, move_count, move_row, order_maps = graph
    factorial_k, block_offset, move_domain, move_block = entries
    index = (block_offset[m] + domain) * factorial_k + order
    value = np.int64(table[index])
    if value == UNREACHED:
        return (OK if all_tiles else IS_UNREACHED), -1
    if value == 0 and index != goal_index:
        return ZERO_AWAY_FROM_GOAL, -1
    if (value + odd[m] + goal_odd) % 2 != 0:
        return WRONG_PARITY, -1
    way_down = value == 0
    for j in range(move_count[m]):
        if move_domain[m, j] != domain:
            continue
        other = np.int64(table[move_block[m, j] * factorial_k + order_maps[move_row[m, j], order]])
        if zero_aware and abs(other - value) != 1:
            return NOT_ONE_APART, j
        if not zero_aware and connected[m] and other > value + 1:
            return STEEP_RISE, j
        if other < value:
            way_down = True
    if not way_down:
        return NO_WAY_DOWN, -1
    return OK, -1


@kernel
def _first_bad_in_map(table, m, rules, graph, entries):
    """(index, code, move) of the first entry of map m that fails a check, or (-1, OK, -1)."""
    factorial_k, block_offset, _, _ = entries
    for domain in range(block_offset[m + 1] - block_offset[m]):
        for order in range(factorial_k):
            code, move = _check_entry(table, m, domain, order, rules, graph, entries)
            if code != OK:
                return (block_offset[m] + domain) * factorial_k + order, code, move
    return -1, OK, -1


@parallel_kernel
def _check_maps(table, first_map, last_map, rules, graph, entries, bad_index, bad_code, bad_move):
    """Check every entry of maps first_map .. last_map - 1, writing each map's first bad
    entry (index -1 if none), its code and move into bad_*."""
    for m in prange(first_map, last_map):
        bad_index[m], bad_code[m], bad_move[m] = _first_bad_in_map(table, m, rules, graph, entries)


@parallel_kernel
def _check_entries(table, maps, domains, orders, rules, graph, entries, codes, bad_moves):
    """Check the entries (maps[i], domains[i], orders[i]), writing each one's code and move
    into codes and bad_moves."""
    for i in prange(maps.shape[0]):
        codes[i], bad_moves[i] = _check_entry(table, maps[i], domains[i], orders[i], rules, graph, entries)


@dataclass(frozen=True)
class BadEntry:
    """The first entry that fails a check, by index (-1 for UNREACHED_COUNT), and the check."""

    index: int
    code: int
    detail: int  # STEEP_RISE, NOT_ONE_APART: the move (column of the graph's move arrays); UNREACHED_COUNT: the count


def check_table(
    table: np.ndarray, puzzle: Puzzle, pattern: tuple[int, ...], graph: PlacementGraph, *,
    layout: tuple[np.ndarray, np.ndarray] | None = None, sample: np.ndarray | None = None, progress: bool = False,
) -> BadEntry | None:
    """Check every entry of `table`, the additive table of `pattern` on `puzzle` whose
    placement graph is `graph` (a plain table, or a zero-aware one laid out by `layout`, as
    abstraction.region_layout gives it), or the entries at the sorted indices `sample`; returns the first bad
    entry, or None. With `progress`, shows a tqdm bar (full checks only).

    Refuses (InputError) a table of the wrong size or type, indices outside it, and a layout
    that entry_layout refuses.
    """
    k = len(pattern)
    entries = entry_layout(graph, layout)
    if table.shape != (entries.size,) or table.dtype != np.uint8:
        raise InputError(f"a {'zero-aware ' if entries.zero_aware else ''}table of {k} tiles on {puzzle.board} must be {entries.size} bytes")
    if sample is not None and sample.size and (sample.min() < 0 or sample.max() >= entries.size):
        raise InputError(f"sampled indices must lie in 0..{entries.size - 1}")
    goal_cells = np.array([puzzle.goal_cell[t] for t in pattern], dtype=np.int64)
    goal_map, goal_order = divmod(int(PlacementRanking(puzzle.n_cells, k).rank(goal_cells)[0]), graph.factorial_k)
    goal_index = entries.index(goal_map, puzzle.blank_goal_cell, goal_order)
    all_tiles = k == puzzle.n_cells - 1
    rules = (goal_index, int(graph.odd[goal_map]), all_tiles, entries.zero_aware)
    shared = (rules, graph.arrays, entries.arrays)
    if table[goal_index] != 0:
        return BadEntry(goal_index, GOAL_NOT_ZERO, -1)
    if sample is not None:
        codes = np.empty(sample.size, dtype=np.int64)
        moves = np.empty(sample.size, dtype=np.int64)
        _check_entries(table, *entries.locate(sample), *shared, codes, moves)
        bad = np.flatnonzero(codes != OK)
        return BadEntry(int(sample[bad[0]]), int(codes[bad[0]]), int(moves[bad[0]])) if bad.size else None
    n_maps = graph.connected.shape[0]
    bad_index = np.empty(n_maps, dtype=np.int64)
    bad_code = np.empty(n_maps, dtype=np.int64)
    bad_move = np.empty(n_maps, dtype=np.int64)
    with tqdm(total=table.size, unit="entry", unit_scale=True, disable=not progress, leave=False,
              desc=f"tiles {','.join(map(str, pattern))}") as bar:
        for first in range(0, n_maps, MAPS_PER_STEP):
            last = min(first + MAPS_PER_STEP, n_maps)
            _check_maps(table, first, last, *shared, bad_index, bad_code, bad_move)
            bad = np.flatnonzero(bad_index[first:last] >= 0)
            if bad.size:
                m = first + int(bad[0])
                return BadEntry(int(bad_index[m]), int(bad_code[m]), int(bad_move[m]))
            bar.update(int(entries.block_offset[last] - entries.block_offset[first]) * graph.factorial_k)
    unreached = table_stats(table).unreached
    if unreached != (table.size // 2 if all_tiles else 0):
        return BadEntry(-1, UNREACHED_COUNT, unreached)
    return None


def describe(bad: BadEntry, table: np.ndarray, puzzle: Puzzle, pattern: tuple[int, ...], graph: PlacementGraph,
             layout: tuple[np.ndarray, np.ndarray] | None = None) -> str:
    """One line naming the bad entry: its index, tiles and cells (and the cells of the blank's
    region in a zero-aware table, whose `layout` check_table was given), value and the failed
    check."""
    if bad.code == UNREACHED_COUNT:
        return f"{bad.detail:,} entries are UNREACHED, not {table.size // 2:,} (the unsolvable half)"
    entries = entry_layout(graph, layout)
    entry = _entry_text(bad.index, table, puzzle, pattern, entries)
    goal = "the goal placement" + (" with the blank in its goal region" if entries.zero_aware else "")
    if bad.code == GOAL_NOT_ZERO:
        return f"{entry}, but it is {goal}, which must be 0"
    if bad.code == IS_UNREACHED:
        return f"{entry} (UNREACHED), but every placement of fewer than {puzzle.n_cells - 1} tiles is reachable"
    if bad.code == ZERO_AWAY_FROM_GOAL:
        return f"{entry}, but only {goal} may be 0"
    if bad.code == WRONG_PARITY:
        value = int(table[bad.index])
        return f"{entry}, of the wrong parity: every move of a pattern tile changes it, so it must be {'odd' if value % 2 == 0 else 'even'}"
    if bad.code == NO_WAY_DOWN:
        return f"{entry}, but no neighbouring {'entry is one' if entries.zero_aware else 'placement is'} lower"
    m, _, order = entries.locate(bad.index)
    ranking = PlacementRanking(puzzle.n_cells, len(pattern))
    cells = ranking.unrank(m * graph.factorial_k + order)[0]
    source, target = int(graph.move_from[m, bad.detail]), int(graph.move_to[m, bad.detail])
    tile = pattern[list(cells).index(source)]
    moved = [target if c == source else int(c) for c in cells]
    moved_map, moved_order = divmod(int(ranking.rank(moved)[0]), graph.factorial_k)
    other = _entry_text(entries.index(moved_map, source, moved_order), table, puzzle, pattern, entries)
    rule = ("is not one higher or lower" if bad.code == NOT_ONE_APART
            else "is more than one higher, and the free cells of the first are connected")
    return f"{entry}, but its neighbour {other}, tile {tile} moved from cell {source} to cell {target}, {rule}"


def check_against_exact(table: np.ndarray, puzzle: Puzzle, pattern: tuple[int, ...], graph: PlacementGraph, *,
                        progress: bool = False) -> str | None:
    """Rule 6 for the plain `table` of `pattern`: None if every entry is the minimum over its
    map's regions of the zero-aware table rebuilt and verified by rules 1-5, else one line
    naming the first entry that is not (or the rebuilt table's failure)."""
    space = abstract_space(puzzle, pattern, additive=True)
    check_memory(space.n_states + table.size, f"verifying the table of tiles {_list(pattern)} against exact distances")
    exact = build_table(space, pattern, zero_aware=True, progress=progress)[0].table
    layout = region_layout(puzzle, len(pattern))
    bad = check_table(exact, puzzle, pattern, graph, layout=layout, progress=progress)
    if bad is not None:
        return "the zero-aware rebuild it is checked against fails: " + describe(bad, exact, puzzle, pattern, graph, layout)
    blocks = exact.reshape(-1, graph.factorial_k)
    minimum = np.minimum.reduceat(blocks, layout[0][:-1], axis=0).reshape(-1)
    differ = np.flatnonzero(minimum != table)
    if not differ.size:
        return None
    index = int(differ[0])
    return (f"{_entry_text(index, table, puzzle, pattern, entry_layout(graph))}, but the minimum over the blank's "
            f"regions of the exact (verified zero-aware) distances is {int(minimum[index])}")


def _entry_text(index: int, table: np.ndarray, puzzle: Puzzle, pattern: tuple[int, ...], entries: EntryLayout) -> str:
    """`entry <index> (tiles .. on cells ..[, blank in cells ..]) = <value>`."""
    m, domain, order = entries.locate(index)
    cells = PlacementRanking(puzzle.n_cells, len(pattern)).unrank(m * entries.factorial_k + order)[0]
    blank = f", blank in cells {_list(np.flatnonzero(entries.blank_domain[m] == domain))}" if entries.zero_aware else ""
    return f"entry {index:,} (tiles {_list(pattern)} on cells {_list(cells)}{blank}) = {int(table[index])}"


def _list(values) -> str:
    return ",".join(str(int(v)) for v in values)


def prepare() -> None:
    """Compile (or load from the cache) the checker's kernels on the table of one tile of the 2x2
    board, so that a verdict's seconds count the check alone (encoded files excepted)."""
    puzzle, pattern = Puzzle(2, 2), (1,)
    graph = placement_graph(puzzle, len(pattern))
    table = build_table(abstract_space(puzzle, pattern), pattern)[0].table
    check_table(table, puzzle, pattern, graph, sample=np.zeros(1, dtype=np.int64))
    if check_against_exact(table, puzzle, pattern, graph) is not None:  # every rule, plain and zero-aware
        raise AssertionError("the checker refuses a table it built itself")


def verify_pdb(path: str | Path, sample: int | None = None, *, seed: int = 1, progress: bool | None = None) -> Verdict:
    """Load the PDB file at `path` (checked as store.load_partition checks it) and verify every
    entry of every table, plain or zero-aware (rules 1-5, and for plain tables rule 6), or
    `sample` entries of each chosen uniformly at random from `seed` (rules 1-5; every entry if
    `sample` is at least the table's size).

    Returns a Verdict: ok, or the first bad entry (in table order, then index order) as one
    line. An encoded file (build-pdb --compress) is compared in full with an encoded rebuild
    instead (verify_encoded.py; `sample` does not apply). Raises PdbError for a file that
    cannot be loaded and NotSupported for a non-additive one. `progress` (default: when stderr is a terminal) shows a tqdm bar.
    The seconds include compiling the checker's kernels unless `prepare` ran first.
    """
    began = time.perf_counter()
    database = load_partition(path)  # the file's own tables, every checksum checked
    if database.cost_model != ADDITIVE:
        raise NotSupported(
            f"{database.path}: not verified: {database.cost_model} tables are not supported "
            "(every move costs 1 there, so neighbouring placements differ by the blank's walk)"
        )
    if progress is None:
        progress = sys.stderr.isatty()
    if database.compression != NONE:  # encoded: compared with a rebuild, in full
        failure, entries = first_difference(database, progress=progress)
        return Verdict(database.path, failure is None, entries, time.perf_counter() - began, failure)
    layouts = database.layouts if database.table_kind == ZERO_AWARE else (None,) * len(database.tables)
    rng = np.random.default_rng(seed)
    checked = 0
    for number, (pattern, table, layout) in enumerate(zip(database.partition.patterns, database.tables, layouts)):
        indices = None
        if sample is not None and sample < table.size:
            indices = np.sort(rng.choice(table.size, size=sample, replace=False)).astype(np.int64)
        graph = placement_graph(database.puzzle, len(pattern))
        bad = check_table(table, database.puzzle, pattern, graph, layout=layout, sample=indices, progress=progress)
        failure = None if bad is None else describe(bad, table, database.puzzle, pattern, graph, layout)
        if failure is None and indices is None and layout is None:
            failure = check_against_exact(table, database.puzzle, pattern, graph, progress=progress)
        if failure is not None:
            return Verdict(database.path, False, checked, time.perf_counter() - began,
                           f"table {number} (tiles {_list(pattern)}): {failure}")
        checked += table.size if indices is None else indices.size
    return Verdict(database.path, True, checked, time.perf_counter() - began)
