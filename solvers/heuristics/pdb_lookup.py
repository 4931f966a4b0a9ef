"""pdb_lookup.py -- pattern-database lookups as heuristic kinds: a term's lookups laid out as composed kernel data.

A PDB term (pdb_terms.py) is a maximum over *lookups*; a lookup is the sum over its
*instances*, each the value of one pattern's table for the tiles' current cells in the
lookup's view of the state. With `+reflect` every lookup of a file is repeated on the state
mirrored in the main diagonal (Korf & Felner's reflected lookup): tile t in cell (r, c) becomes
tile m(t) in cell (c, r), where m(t) is the tile whose goal is the mirror of t's goal. The
mirrored state is exactly as far from the goal as the state itself when the goal's blank lies
on the diagonal, so every lookup stays admissible, and so does the maximum. With `+dual` they
are repeated on the dual state (pdb_dual.py).

Four choices, each made once here and written once in its own module:
- the *reader* (pdb_read.py, pdb_encoded.py): plain or zero-aware uncompressed tables, or any
  mix of kinds and encodings; it reads one instance (pdb_rank.py ranks its placement);
- the *evaluation*: every lookup kept up to date (pdb_eager.py), or a maximum over many lookups
  of exact tables read lazily (pdb_lazy.py); a reader and an evaluation make a PdbMax
  (pdb_kind.py);
- the *view*: regular and reflected lookups are instances' cell maps; dual lookups wrap the
  others (pdb_dual.py);
- the *combiner*: the maximum, or one lookup chosen per state (pdb_random.py).
Zero-aware values count moves of pattern tiles only, as plain ones do: they add up across
disjoint patterns and mix with plain files in `sum(...)` and `max(...)`. The tables of several
files are held once (a table that several files hold, as in a catalogue of partitions, is
stored once).
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
from solvers.heuristics.pdb_dual import DualLookups, WithDual
from solvers.heuristics.pdb_eager import Lookups, eager_width
from solvers.heuristics.pdb_encoded import Board, EncodedTables, Encoding
from solvers.heuristics.pdb_kind import PdbMax
from solvers.heuristics.pdb_lazy import LazyLookups, lazy_width
from solvers.heuristics.pdb_random import RandomChoice
from solvers.heuristics.pdb_rank import Index, Instances
from solvers.heuristics.pdb_read import PlainTables, Regions, ZeroAwareTables
from solvers.puzzle import Puzzle

IDENTITY, REFLECTED, DUAL, DUAL_REFLECTED = "identity", "reflected", "dual", "dual-reflected"
DUAL_VIEWS = (DUAL, DUAL_REFLECTED)
ZOBRIST_SEED = 20050730  # the random lookup's hash keys: the same in every process
# LazyLookups pay from three lookups on: faster with a catalogue's many, slower with one partition
# and its reflection, whose second lookup is rarely skipped (docs/developer/lab-notes.md, "Lazy against eager lookups")
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
    value is the maximum over `lookups` (in any order), or with `random` one of the regular and
    reflected ones chosen per state. The data is a PdbMax whose regular and reflected lookups are
    read lazily (LazyLookups) where there are more than LAZY_FROM of them, every table is
    zero-aware and uncompressed and not `random` (which reads a lookup that the maximum may have
    left unread), else kept up to date (Lookups); with `random` a RandomChoice; dual lookups wrap
    either (WithDual)."""
    tables, table_offset = _shared_tables(databases)
    if len(databases) > 1:
        databases = _held_in(databases, tables, table_offset)
    reader = _reader(puzzle, databases, tables, table_offset)
    patterns = [tuple(p) for d in databases for p in d.partition.patterns]
    first_pattern = np.cumsum([0] + [len(d.partition.patterns) for d in databases])
    views = _views(puzzle, lookups)
    regular = [[int(first_pattern[d]) + p for d, p in lk.patterns] for lk in lookups if lk.view not in DUAL_VIEWS]
    regular_views = [lk.view for lk in lookups if lk.view not in DUAL_VIEWS]
    if not random and len(regular) > LAZY_FROM and isinstance(reader, ZeroAwareTables):
        instances, evaluation = _lazy(views, regular_views, regular, patterns, table_offset)
        width = lazy_width(instances)
    else:
        instances, lookup_start = _instances(views, regular_views, regular)
        evaluation = Lookups(lookup_start, _affected(puzzle, instances, lookup_start, patterns))
        width = eager_width(instances)
    data = PdbMax(reader, instances, evaluation)
    if random:
        keys = np.random.default_rng(ZOBRIST_SEED).integers(0, 1 << 62, puzzle.n_cells ** 2, dtype=np.int64)
        data = RandomChoice(*data, keys)
    dual = [[int(first_pattern[d]) + p for d, p in lk.patterns] for lk in lookups if lk.view in DUAL_VIEWS]
    if dual:
        dual_instances, lookup_start = _instances(views, [lk.view for lk in lookups if lk.view in DUAL_VIEWS], dual)
        data = WithDual(*data, DualLookups(dual_instances, lookup_start,
                                           np.array([puzzle.blank_goal_cell], dtype=np.int64)))
    return data, width, databases


def _views(puzzle: Puzzle, lookups: tuple[Lookup, ...]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(cell map, tile map) of every view that `lookups` read: a regular view reads tile u's
    cell as cell_map[position[tile_map[u]]], a dual one reads the board, tile u's cell being
    cell_map[goal_cell[board[goal_cell[tile_map[u]]]]]."""
    identity = np.arange(puzzle.n_cells, dtype=np.int64)
    views = {IDENTITY: (identity, identity)}
    if any(lk.view in (REFLECTED, DUAL_REFLECTED) for lk in lookups):
        views[REFLECTED] = mirror_maps(puzzle)
    goal_cell = puzzle.goal_cell.astype(np.int64)
    for view, base in ((DUAL, IDENTITY), (DUAL_REFLECTED, REFLECTED)):
        if base in views:
            cell_map, tile_map = views[base]
            views[view] = (cell_map[goal_cell], goal_cell[tile_map])
    return views


def _instances(views: dict, lookup_views: list[str], lookups: list[list[int]]) -> tuple[Instances, np.ndarray]:
    """(Instances, lookup_start) of lookups (each a list of pattern numbers) read in
    `lookup_views`, one instance per pattern of a lookup."""
    names = list(dict.fromkeys(lookup_views))
    instance_pattern = [p for lookup in lookups for p in lookup]
    instance_view = [names.index(v) for v, lookup in zip(lookup_views, lookups) for _ in lookup]
    lookup_start = np.cumsum([0] + [len(lookup) for lookup in lookups])
    return _instances_of(views, names, instance_pattern, instance_view), _array(lookup_start)


def _instances_of(views: dict, names: list[str], instance_pattern: list[int], instance_view: list[int]) -> Instances:
    return Instances(_array(instance_pattern), _array(instance_view), np.stack([views[v][1] for v in names]),
                     np.stack([views[v][0] for v in names]))


def _affected(puzzle: Puzzle, instances: Instances, lookup_start: np.ndarray, patterns: list) -> np.ndarray:
    """Lookups.affected: affected[L, t] is lookup L's instance whose pattern holds the tile that
    tile t is in its view (-1 for none)."""
    affected = np.full((len(lookup_start) - 1, puzzle.n_cells), -1, dtype=np.int64)
    for lookup in range(len(lookup_start) - 1):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            tile_map = instances.view_tile[instances.instance_view[instance]]
            for tile in patterns[instances.instance_pattern[instance]]:
                affected[lookup, tile_map[tile]] = instance
    return affected


def _lazy(views: dict, lookup_views: list[str], lookups: list[list[int]], patterns: list,
          table_offset: np.ndarray) -> tuple[Instances, LazyLookups]:
    """(Instances, LazyLookups) of `lookups`: an instance is one (view, table, pattern's tiles), held once."""
    names = list(dict.fromkeys(lookup_views))
    index: dict[tuple, int] = {}
    instance_pattern, instance_view, lookup_start, lookup_instance = [], [], [0], []
    for view_name, lookup in zip(lookup_views, lookups):
        view = names.index(view_name)
        for pattern in lookup:
            key = (view, int(table_offset[pattern]), patterns[pattern])
            if key not in index:
                index[key] = len(instance_pattern)
                instance_pattern.append(pattern)
                instance_view.append(view)
            lookup_instance.append(index[key])
        lookup_start.append(len(lookup_instance))
    moved_by: list[list[int]] = [[] for _ in range(len(views[IDENTITY][0]))]
    for instance, (pattern, view) in enumerate(zip(instance_pattern, instance_view)):
        tile_map = views[names[view]][1]
        for tile in patterns[pattern]:
            moved_by[int(tile_map[tile])].append(instance)
    return _instances_of(views, names, instance_pattern, instance_view), LazyLookups(
        _array(lookup_start), _array(lookup_instance), _array(np.cumsum([0] + [len(m) for m in moved_by])),
        _array([i for m in moved_by for i in m]))


def _reader(puzzle: Puzzle, databases: tuple[PatternDatabase, ...], tables: np.ndarray,
            table_offset: np.ndarray) -> tuple:
    """The fastest reader of the databases' tables: PlainTables where every table is plain and
    uncompressed, ZeroAwareTables where every one is zero-aware and uncompressed, else
    EncodedTables."""
    patterns = [p for d in databases for p in d.partition.patterns]
    pattern_tiles = np.zeros((len(patterns), MAX_PATTERN), dtype=np.int64)
    for i, pattern in enumerate(patterns):
        pattern_tiles[i, : len(pattern)] = pattern
    index = Index(pattern_tiles, _array([len(p) for p in patterns]), _array([math.factorial(len(p)) for p in patterns]),
                  binomial_table(puzzle.n_cells))
    uncompressed = all(d.compression == NONE for d in databases)
    if uncompressed and all(d.table_kind == PLAIN for d in databases):
        return PlainTables(tables, table_offset, index)
    if uncompressed and all(d.table_kind == ZERO_AWARE for d in databases):
        return ZeroAwareTables(tables, table_offset, index, _regions(databases))
    return EncodedTables(tables, table_offset, index, _regions(databases), _encoding(databases), _board(puzzle))


def _array(values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _shared_tables(databases: tuple[PatternDatabase, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(buffer, where each pattern's table starts in it): the tables of every pattern, a table
    that several files hold (the same pattern, kind, encoding and checksum, as in a catalogue
    of partitions) stored once. One file's tables are its own (mapped from the file where they
    are stored uncompressed: pdb_build/store.py); several files' are copied into memory advised to live on huge
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
    term does not keep the files' own copies alive as well (a catalogue's files repeat many
    tables: their copies would more than double the memory)."""
    held, pattern = [], 0
    for database in databases:
        offsets = table_offset[pattern: pattern + len(database.tables)]
        views = tuple(buffer[offset: offset + table.size] for offset, table in zip(offsets, database.tables))
        held.append(dataclasses.replace(database, buffer=buffer, tables=views))
        pattern += len(database.tables)
    return tuple(held)


def _regions(databases: tuple[PatternDatabase, ...]) -> Regions:
    """The Regions of the databases' patterns: one layout per pattern size, after a dummy entry
    that plain patterns read (EncodedTables)."""
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
    return Regions(zero_aware, region_start, np.concatenate(offsets), cell_start, np.concatenate(cells))


def _encoding(databases: tuple[PatternDatabase, ...]) -> Encoding:
    """The Encoding of the databases' patterns."""
    per_pattern = [d.compression for d in databases for _ in d.partition.patterns]
    return Encoding(*(np.array([getattr(c, name) for c in per_pattern], dtype=np.int64)
                      for name in ("merge_shift", "entry_shift", "delta")))


def _board(puzzle: Puzzle) -> Board:
    """The Board of the walk down (EncodedTables)."""
    colour = np.array([(c // puzzle.cols + c % puzzle.cols) % 2 for c in range(puzzle.n_cells)], dtype=np.int64)
    return Board(puzzle.goal_cell.astype(np.int64), np.array([puzzle.blank_goal_cell], dtype=np.int64),
                 puzzle.neighbours.astype(np.int64), colour)
