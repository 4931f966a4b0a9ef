"""pdb_lookup.py -- pattern-database lookups as heuristic kinds: the arrays their kernels read.

A PDB term (pdb_terms.py) is a maximum over *lookups*; a lookup is the sum over its
*instances*, each the value of one pattern's table for the tiles' current cells in the
lookup's view of the state. With `+reflect` every lookup of a file is repeated on the state
mirrored in the main diagonal (Korf & Felner's reflected lookup): tile t in cell (r, c) becomes
tile m(t) in cell (c, r), where m(t) is the tile whose goal is the mirror of t's goal. The
mirrored state is exactly as far from the goal as the state itself when the goal's blank lies
on the diagonal, so every lookup stays admissible, and so does the maximum. With `+dual` they
are repeated on the dual state (pdb_dual.py).

This module lays a term's lookups out as the arrays of the kind that reads them fastest, one
module per kind: pdb_plain.py (plain uncompressed tables), pdb_packed.py (any mix of plain,
zero-aware and compressed tables), pdb_lazy.py (a maximum over many lookups of zero-aware
uncompressed tables, read lazily), their dual (pdb_dual.py) and random (pdb_random.py)
variants; pdb_rank.py holds the ranking and sums they share. Zero-aware values count moves of
pattern tiles only, as plain ones do: they add up across disjoint patterns and mix with plain
files in `sum(...)` and `max(...)`. The tables of several files are held once (a table that
several files hold, as in a catalogue of partitions, is stored once).
"""

from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple

import numpy as np

from pdb_build.compress import NONE
from pdb_build.pages import table_memory
from pdb_build.ranking import MAX_PATTERN, binomial_table
from pdb_build.store import PLAIN, ZERO_AWARE, PatternDatabase
from solvers.heuristics.pdb_dual import DualPackedLookups, DualPdbLookups
from solvers.heuristics.pdb_lazy import LazyLookups
from solvers.heuristics.pdb_packed import PackedLookups
from solvers.heuristics.pdb_plain import PdbLookups
from solvers.heuristics.pdb_random import RandomPackedLookups, RandomPdbLookups
from solvers.puzzle import Puzzle

IDENTITY, REFLECTED, DUAL, DUAL_REFLECTED = "identity", "reflected", "dual", "dual-reflected"
ZOBRIST_SEED = 20050730  # the random lookup's hash keys: the same in every process
# LazyLookups pays from three lookups on: 30 % faster with a catalogue's 14, 9 % slower with one
# partition and its reflection, whose second lookup is rarely skipped (BENCHMARKS.md)
LAZY_FROM = 2


def mirror_maps(puzzle: Puzzle) -> tuple[np.ndarray, np.ndarray]:
    """(cell map, tile map) of the main-diagonal mirror: cell (r, c) -> (c, r), tile t -> m(t)."""
    n = puzzle.n_cells
    cell_map = np.array([(c % puzzle.cols) * puzzle.cols + c // puzzle.cols for c in range(n)], dtype=np.int64)
    tile_map = np.array([puzzle.goal[cell_map[puzzle.goal_cell[t]]] for t in range(n)], dtype=np.int64)
    return cell_map, tile_map


class Lookup(NamedTuple):
    """A sum over patterns (database number, pattern number) of a term, read in one view."""

    view: str
    patterns: tuple[tuple[int, int], ...]


def term_data(puzzle: Puzzle, databases: tuple[PatternDatabase, ...], lookups: tuple[Lookup, ...],
              random: bool = False) -> tuple[tuple, int, tuple[PatternDatabase, ...]]:
    """(a kind's data, its scratch width, the databases as the data holds them) of a term whose
    value is the maximum over `lookups` (the dual ones last), or with `random` one of them
    chosen per state."""
    data = _lookup_data(puzzle, databases, lookups, lazy=not random)
    if len(databases) > 1:
        databases = _held_in(databases, data.tables, data.table_offset)
    if random:
        keys = np.random.default_rng(ZOBRIST_SEED).integers(0, 1 << 62, puzzle.n_cells ** 2, dtype=np.int64)
        data = (RandomPdbLookups if isinstance(data, PdbLookups) else RandomPackedLookups)(*data, keys)
    return data, _width(data), databases


def _width(data) -> int:
    """The scratch columns of a kind's data: one per instance and the maximal lookup's, and
    for LazyLookups one more per instance (its moves since it was read)."""
    n_instances = len(data.instance_pattern)
    return 2 * n_instances + 1 if isinstance(data, LazyLookups) else n_instances + 1


def _lookup_data(puzzle: Puzzle, databases: tuple[PatternDatabase, ...], lookups: tuple[Lookup, ...],
                 lazy: bool = True) -> tuple:
    """The arrays (a kind's NamedTuple) of the fastest kind that reads `lookups`: LazyLookups
    where there are more than LAZY_FROM lookups, every table is zero-aware and uncompressed, no
    lookup is dual and `lazy` (not for a random lookup, which reads a lookup that the maximum
    may have left unread), else PdbLookups where every table is plain and uncompressed, else
    PackedLookups (with their dual variants)."""
    n = puzzle.n_cells
    first_pattern = np.cumsum([0] + [len(d.partition.patterns) for d in databases])
    patterns = [p for d in databases for p in d.partition.patterns]
    buffer, table_offset = _shared_tables(databases)
    pattern_tiles = np.zeros((len(patterns), MAX_PATTERN), dtype=np.int64)
    for i, pattern in enumerate(patterns):
        pattern_tiles[i, : len(pattern)] = pattern
    identity = np.arange(n, dtype=np.int64)
    views = {IDENTITY: (identity, identity)}
    if any(lk.view in (REFLECTED, DUAL_REFLECTED) for lk in lookups):
        views[REFLECTED] = mirror_maps(puzzle)
    goal_cell = puzzle.goal_cell.astype(np.int64)
    for view, base in ((DUAL, IDENTITY), (DUAL_REFLECTED, REFLECTED)):
        if base in views:  # read on the board: tile u's cell is cell_map[goal_cell[board[goal_cell[tile_map[u]]]]]
            cell_map, tile_map = views[base]
            views[view] = (cell_map[goal_cell], goal_cell[tile_map])
    instance_pattern, lookup_start, lookup_tile, lookup_cell, affected = [], [0], [], [], []
    for lookup in lookups:
        cell_map, tile_map = views[lookup.view]
        touched = np.full(n, -1, dtype=np.int64)
        for database, number in lookup.patterns:
            pattern = int(first_pattern[database]) + number
            if lookup.view not in (DUAL, DUAL_REFLECTED):  # dual lookups are refreshed as a whole
                for tile in patterns[pattern]:
                    touched[tile_map[tile]] = len(instance_pattern)
            instance_pattern.append(pattern)
        lookup_start.append(len(instance_pattern))
        lookup_tile.append(tile_map)
        lookup_cell.append(cell_map)
        affected.append(touched)
    common = (
        buffer, table_offset, pattern_tiles,
        np.array([len(p) for p in patterns], dtype=np.int64),
        np.array([math.factorial(len(p)) for p in patterns], dtype=np.int64),
        binomial_table(n), np.array(instance_pattern, dtype=np.int64), np.array(lookup_start, dtype=np.int64),
        np.stack(lookup_tile), np.stack(lookup_cell), np.stack(affected),
    )
    plain = all(d.table_kind == PLAIN and d.compression == NONE for d in databases)
    if not any(lk.view in (DUAL, DUAL_REFLECTED) for lk in lookups):
        if lazy and len(lookups) > LAZY_FROM and all(
                d.table_kind == ZERO_AWARE and d.compression == NONE for d in databases):
            return _lazy_lookups(lookups, views, first_pattern, patterns, common, _region_arrays(databases))
        if plain:
            return PdbLookups(*common)
        return PackedLookups(*common, *_region_arrays(databases), *_encoding_arrays(databases),
                             *_board_arrays(puzzle))
    first_dual = [i for i, lk in enumerate(lookups) if lk.view in (DUAL, DUAL_REFLECTED)][0]  # _term sorts them last
    dual = (np.array([first_dual], dtype=np.int64), np.array([puzzle.blank_goal_cell], dtype=np.int64))
    if plain:
        return DualPdbLookups(*common, *dual)
    return DualPackedLookups(*common, *_region_arrays(databases), *_encoding_arrays(databases),
                             *_board_arrays(puzzle), *dual)


def _lazy_lookups(lookups: tuple[Lookup, ...], views: dict, first_pattern: np.ndarray, patterns: list,
                  common: tuple, regions: tuple) -> LazyLookups:
    """LazyLookups from _lookup_data's arrays: an instance is one (view, table, pattern's tiles)."""
    tables, table_offset, pattern_tiles, pattern_k, pattern_factorial, binomials = common[:6]
    view_names = list(dict.fromkeys(lk.view for lk in lookups))
    index: dict[tuple, int] = {}
    instance_pattern, instance_view, lookup_start, lookup_instance = [], [], [0], []
    for lookup in lookups:
        view = view_names.index(lookup.view)
        for database, number in lookup.patterns:
            pattern = int(first_pattern[database]) + number
            key = (view, int(table_offset[pattern]), tuple(patterns[pattern]))
            if key not in index:
                index[key] = len(instance_pattern)
                instance_pattern.append(pattern)
                instance_view.append(view)
            lookup_instance.append(index[key])
        lookup_start.append(len(lookup_instance))
    n = len(views[IDENTITY][0])
    moved_by: list[list[int]] = [[] for _ in range(n)]
    for instance, (pattern, view) in enumerate(zip(instance_pattern, instance_view)):
        tile_map = views[view_names[view]][1]
        for tile in patterns[pattern]:
            moved_by[int(tile_map[tile])].append(instance)
    _, region_start, region_offset, cell_start, region_of_cell = regions

    def array(values):
        return np.array(values, dtype=np.int64)

    return LazyLookups(
        tables, table_offset, pattern_tiles, pattern_k, pattern_factorial, binomials, array(instance_pattern),
        array(instance_view), np.stack([views[v][1] for v in view_names]), np.stack([views[v][0] for v in view_names]),
        array(lookup_start), array(lookup_instance), array(np.cumsum([0] + [len(m) for m in moved_by])),
        array([i for m in moved_by for i in m]), region_start, region_offset, cell_start, region_of_cell,
    )


def _shared_tables(databases: tuple[PatternDatabase, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(buffer, where each pattern's table starts in it): the tables of every pattern, a table
    that several files hold (the same pattern, kind, encoding and checksum, as in a catalogue
    of partitions) stored once. One file's tables are its own (mapped from its table file:
    pdb_build/table_file.py); several files' are copied into memory advised to live on huge
    pages (pdb_build/pages.py)."""
    if len(databases) == 1:
        database = databases[0]
        return database.buffer, np.array([t.ctypes.data - database.buffer.ctypes.data for t in database.tables],
                                         dtype=np.int64)
    first: dict[tuple, int] = {}  # a table's identity -> its offset in the buffer
    unique, offsets, size = [], [], 0
    for database in databases:
        digests = database.checksums or tuple(id(t) for t in database.tables)  # tables not read from a file
        for pattern, table, digest in zip(database.partition.patterns, database.tables, digests):
            key = (len(pattern), database.table_kind, database.compression, digest)
            if key not in first:
                first[key] = size
                unique.append(table)
                size += table.size
            offsets.append(first[key])
    buffer = table_memory(size)
    np.concatenate(unique, out=buffer)
    buffer.setflags(write=False)
    return buffer, np.array(offsets, dtype=np.int64)


def _held_in(databases: tuple[PatternDatabase, ...], buffer: np.ndarray,
             table_offset: np.ndarray) -> tuple[PatternDatabase, ...]:
    """The databases with their tables as views of `buffer` (_shared_tables'), so that a merged
    term does not keep the files' own copies alive as well (a catalogue's 3.3 GB, not 8.4)."""
    held, pattern = [], 0
    for database in databases:
        offsets = table_offset[pattern: pattern + len(database.tables)]
        views = tuple(buffer[offset: offset + table.size] for offset, table in zip(offsets, database.tables))
        held.append(dataclasses.replace(database, buffer=buffer, tables=views))
        pattern += len(database.tables)
    return tuple(held)


def _region_arrays(databases: tuple[PatternDatabase, ...]) -> tuple[np.ndarray, ...]:
    """pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start and
    region_of_cell of PackedLookups: one layout per pattern size, after a dummy entry that
    plain patterns read."""
    n_patterns = sum(len(d.partition.patterns) for d in databases)
    zero_aware, region_start, cell_start = (np.zeros(n_patterns, dtype=np.int64) for _ in range(3))
    offsets, cells, placed = [np.zeros(1, dtype=np.int64)], [np.zeros(1, dtype=np.int8)], {}
    pattern = 0
    for database in databases:
        for number, tiles in enumerate(database.partition.patterns):
            if database.table_kind == ZERO_AWARE:
                if len(tiles) not in placed:  # one layout per pattern size: it depends on the board and k only
                    block_offset, region_of_cell = database.layouts[number]
                    placed[len(tiles)] = (sum(map(len, offsets)), sum(map(len, cells)))
                    offsets.append(block_offset)
                    cells.append(region_of_cell.reshape(-1))
                zero_aware[pattern] = 1
                region_start[pattern], cell_start[pattern] = placed[len(tiles)]
            pattern += 1
    return zero_aware, region_start, np.concatenate(offsets), cell_start, np.concatenate(cells)


def _encoding_arrays(databases: tuple[PatternDatabase, ...]) -> tuple[np.ndarray, ...]:
    """pattern_merge_shift, pattern_entry_shift and pattern_delta of PackedLookups."""
    per_pattern = [d.compression for d in databases for _ in d.partition.patterns]
    return tuple(np.array([getattr(c, name) for c in per_pattern], dtype=np.int64)
                 for name in ("merge_shift", "entry_shift", "delta"))


def _board_arrays(puzzle: Puzzle) -> tuple[np.ndarray, ...]:
    """goal_cell, goal_blank, neighbours and colour of PackedLookups (for the walk down)."""
    colour = np.array([(c // puzzle.cols + c % puzzle.cols) % 2 for c in range(puzzle.n_cells)], dtype=np.int64)
    return (puzzle.goal_cell.astype(np.int64), np.array([puzzle.blank_goal_cell], dtype=np.int64),
            puzzle.neighbours.astype(np.int64), colour)
