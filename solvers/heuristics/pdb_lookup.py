"""pdb_lookup.py -- pattern-database lookups as a heuristic kind: additive sums, reflection, max.

A PDB term reads one or more partition files (written by build-pdb, verified against the
puzzle when loaded). Its value is the maximum over *lookups*; a lookup is the sum over its
*instances*, each the value of one pattern's table for the tiles' current cells. An additive
file gives one lookup (the sum of its patterns), a non-additive file one lookup per pattern.
With `+reflect` every lookup of a file is repeated on the state mirrored in the main diagonal
(Korf & Felner's reflected lookup): tile t in cell (r, c) becomes tile m(t) in cell (c, r),
where m(t) is the tile whose goal is the mirror of t's goal. The mirrored state is exactly as
far from the goal as the state itself when the goal's blank lies on the diagonal, so every
lookup stays admissible, and so does the maximum.

A *zero-aware* file (build-pdb --zero-aware) holds one value per (placement, region of the
blank), a region being a connected component of the cells the pattern's tiles leave free; its
instance reads the entry of the blank's region, found in the precomputed table
region_of_cell[map, blank cell] of abstraction.region_layout. A move of a tile outside the
pattern keeps the blank inside its region (both cells are free and adjacent), so an instance
still changes only when one of its own tiles moves. Zero-aware values count moves of pattern
tiles only, as plain ones do: they add up across disjoint patterns and mix with plain files
in `sum(...)` and `max(...)`.

A *compressed* file (build-pdb --compress, pdb_build/compress.py) is read through the same
index: min:K merges blocks (block >> log2 K), nibble packs two entries per byte, and delta
stores one bit from which the value is decoded with the parent's value; a search's first
state walks down to the goal to find it (`_walk_down`).

Three kinds share the ranking: PdbLookups reads plain uncompressed tables only (the fastest
lookup), PackedLookups any mix of plain, zero-aware and compressed tables, and LazyLookups a
maximum over many lookups of zero-aware uncompressed tables (a catalogue of partitions): a
pattern that several lookups share is read once, and a lookup is not read while the moves
since its last reading cannot lift it above the maximum (each entry changes by exactly one per
move of its tiles). A term takes LazyLookups where it can, else PdbLookups, else PackedLookups.

`max(...)` of PDB terms merges them into one term (more lookups); `sum(...)` of additive
files whose patterns are disjoint merges them into one lookup.

The kernels rank placements exactly as pdb_build/ranking.py does, without allocating, in one
pass over a pattern's tiles from the last: the order's Lehmer digit of a tile is the number of
later tiles' cells below its own, and the map rank comes from the cells' bit mask. Scratch:
one column per instance (LazyLookups: two), then one for the lookup that gave the maximum; a
move changes only the instances of the moved tile's patterns. A child's lookups are read from the parent's
maximal lookup on, and IDA* stops them at the first that cuts the child off
(`child_at_least`): with a maximum over many lookups most cut-off children cost one lookup.
"""

from __future__ import annotations

import dataclasses
import math
from collections import namedtuple
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pdb_build.ranking import MAX_PATTERN, cell_set_rank, binomial_table
from pdb_build.compress import NONE
from pdb_build.pages import table_memory
from pdb_build.store import ADDITIVE, PLAIN, ZERO_AWARE, PatternDatabase
from solvers.bits import bit_count
from solvers.errors import InputError
from solvers.heuristics.dispatch import NO_LIMIT, register_kind
from solvers.heuristics.term import Term
from solvers.jit import inline_kernel, kernel
from solvers.puzzle import Puzzle

IDENTITY, REFLECTED, DUAL, DUAL_REFLECTED = "identity", "reflected", "dual", "dual-reflected"
REFLECT_SUFFIX, DUAL_SUFFIX, RANDOM_SUFFIX = "+reflect", "+dual", "+random"
ZOBRIST_SEED = 20050730  # the random lookup's hash keys: the same in every process
# LazyLookups pays from three lookups on: 30 % faster with a catalogue's 14, 9 % slower with one
# partition and its reflection, whose second lookup is rarely skipped (BENCHMARKS.md)
LAZY_FROM = 2


class PdbLookups(NamedTuple):
    """Plain, uncompressed tables: the tables of every pattern concatenated, where each starts,
    the patterns' tiles, sizes and k!, the binomials of the ranking, and the lookups: lookup L
    sums the instances lookup_start[L] .. lookup_start[L+1]-1, reads tile u's cell as
    lookup_cell[L, position[lookup_tile[L, u]]] (the identity or the mirror image), and
    affected[L, t] names its instance that a move of tile t changes (-1 for none). An entry
    is tables[table_offset[p] + map * k! + order]."""

    tables: np.ndarray
    table_offset: np.ndarray
    pattern_tiles: np.ndarray
    pattern_k: np.ndarray
    pattern_factorial: np.ndarray
    binomials: np.ndarray
    instance_pattern: np.ndarray
    lookup_start: np.ndarray
    lookup_tile: np.ndarray
    lookup_cell: np.ndarray
    affected: np.ndarray


PackedLookups = namedtuple("PackedLookups", [
    *PdbLookups._fields, "pattern_zero_aware", "pattern_region_start", "region_offset", "pattern_cell_start",
    "region_of_cell", "pattern_merge_shift", "pattern_entry_shift", "pattern_delta", "goal_cell", "goal_blank",
    "neighbours", "colour",
])
PackedLookups.__doc__ = """The lookups of PdbLookups over tables of any kind and encoding (a term with at least one
zero-aware or compressed table; plain uncompressed ones take the faster PdbLookups).

A pattern's *block* is its map rank, or for a zero-aware pattern (pattern_zero_aware = 1)
region_offset[pattern_region_start[p] + map] + region_of_cell[pattern_cell_start[p] +
map * n_cells + blank cell] (the layouts of the zero-aware patterns' sizes one after the
other). Its stored entry is (block >> pattern_merge_shift[p]) * k! + order, held in byte
entry >> pattern_entry_shift[p] (8 >> pattern_entry_shift[p] bits each, low bits first).
A delta pattern (pattern_delta = 1) stores bit 1 of the value; the value is decoded from
the parent's, or at a search's first state by a walk down to the goal, which uses the
goal cells, the goal's blank cell, the board's neighbours and the cells' colours."""


LazyLookups = namedtuple("LazyLookups", [
    "tables", "table_offset", "pattern_tiles", "pattern_k", "pattern_factorial", "binomials", "instance_pattern",
    "instance_view", "view_tile", "view_cell", "lookup_start", "lookup_instance", "tile_instance_start",
    "tile_instance", "pattern_region_start", "region_offset", "pattern_cell_start", "region_of_cell",
])
LazyLookups.__doc__ = """The lookups of PackedLookups where every table is zero-aware and uncompressed, each
instance held once (a pattern that several lookups of one view sum, as in a catalogue of
partitions): instance i reads pattern instance_pattern[i] in view instance_view[i] (tile u's
cell is view_cell[v, position[view_tile[v, u]]]), lookup L sums the instances
lookup_instance[lookup_start[L] .. lookup_start[L+1]-1], and a move of tile t changes the
instances tile_instance[tile_instance_start[t] .. tile_instance_start[t+1]-1]. Blocks as in
PackedLookups' zero-aware patterns."""


DualPdbLookups = namedtuple("DualPdbLookups", [*PdbLookups._fields, "first_dual", "blank_home"])
DualPdbLookups.__doc__ = """The lookups of PdbLookups, those from first_dual[0] on read on the dual state: lookup L then
reads tile u's cell as lookup_cell[L, board[lookup_tile[L, u]]] (lookup_tile holds goal cells,
lookup_cell is the view's cell map after goal_cell), its affected row is all -1, and it counts
only while the blank is on its goal cell blank_home[0] (0 elsewhere)."""

DualPackedLookups = namedtuple("DualPackedLookups", [*PackedLookups._fields, "first_dual", "blank_home"])
DualPackedLookups.__doc__ = """The lookups of PackedLookups with dual lookups as in DualPdbLookups (never on a delta
pattern: file_term refuses them)."""


RandomPdbLookups = namedtuple("RandomPdbLookups", [*PdbLookups._fields, "zobrist"])
RandomPdbLookups.__doc__ = """The lookups of PdbLookups, of which h is one chosen per state: lookup (key % number of
lookups), key the exclusive or of zobrist[t * n_cells + cell of t] over the tiles t (a hash of
the state, Zobrist's), so that a state always gets the same value."""

RandomPackedLookups = namedtuple("RandomPackedLookups", [*PackedLookups._fields, "zobrist"])
RandomPackedLookups.__doc__ = """The lookups of PackedLookups, one chosen per state as in RandomPdbLookups."""


def check_dualizable(database: PatternDatabase) -> None:
    """Refuse the dual lookup on a delta-encoded file: a move changes two tiles of the dual state,
    so a dual entry may change by more than one, which delta's one bit cannot follow."""
    if database.compression.delta:
        raise InputError(f"{database.path.name}: +dual cannot read a delta-encoded file (a move can change a dual "
                         "entry by more than one, which one bit cannot follow); use a file without --compress delta")


def check_reflectable(puzzle: Puzzle) -> None:
    """Refuse reflection unless the board is square and the goal's blank is on the main diagonal."""
    row, col = divmod(puzzle.blank_goal_cell, puzzle.cols)
    if puzzle.rows != puzzle.cols or row != col:
        raise InputError(
            "reflection needs a square board whose goal puts the blank on the main diagonal; "
            f"this goal puts it in row {row}, column {col} of a {puzzle.board} board"
        )


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


@dataclass(frozen=True, eq=False)
class PdbTerm(Term):
    """`random`: h is one of the lookups, chosen per state (never merged into another term)."""

    databases: tuple[PatternDatabase, ...] = ()
    lookups: tuple[Lookup, ...] = ()
    random: bool = False


def file_term(puzzle: Puzzle, database: PatternDatabase, *, reflect: bool = False, dual: bool = False,
              random: bool = False) -> PdbTerm:
    """The lookups of one loaded partition file (and their reflections, and their dual lookups);
    h is their maximum, or with `random` one of them chosen per state by a hash of the state
    (Zahavi, Felner, Schaeffer & Sturtevant's random lookup)."""
    if reflect:
        check_reflectable(puzzle)
    if database.puzzle != puzzle:
        raise InputError(f"{database.path}: built for {database.puzzle}, not {puzzle}")
    if dual:
        check_dualizable(database)
    numbers = range(len(database.partition.patterns))
    groups = [tuple((0, p) for p in numbers)] if database.cost_model == ADDITIVE else [((0, p),) for p in numbers]
    views = (IDENTITY, REFLECTED) if reflect else (IDENTITY,)
    views += tuple({IDENTITY: DUAL, REFLECTED: DUAL_REFLECTED}[v] for v in views) if dual else ()
    if random:
        _check_randomizable(database, len(views) * len(groups), dual)
    suffix = (REFLECT_SUFFIX if reflect else "") + (DUAL_SUFFIX if dual else "") + (RANDOM_SUFFIX if random else "")
    return _term(
        puzzle, (database,), tuple(Lookup(v, g) for v in views for g in groups),
        f"pdb:{database.path.name}{suffix}", f"pdb:{database.path.resolve()}{suffix}", random=random,
    )


def _check_randomizable(database: PatternDatabase, n_lookups: int, dual: bool) -> None:
    """Refuse +random with +dual (a dual lookup is 0 away from the blank's goal cell: choosing it
    there would throw the value away) and with a single lookup (nothing to choose from)."""
    if dual:
        raise InputError(f"{database.path.name}: +random does not take +dual (the dual lookup counts only while the "
                         "blank is on its goal cell); choose among the regular and reflected lookups with +reflect+random")
    if n_lookups < 2:
        raise InputError(f"{database.path.name}: +random chooses one lookup per state, and this additive file gives "
                         "only one; add +reflect")


def merge_max(terms: list[PdbTerm], name: str, spec: str) -> PdbTerm:
    """One term whose value is the maximum of the terms' values."""
    databases, lookups = _renumbered(terms)
    return _term(terms[0].puzzle, databases, tuple(dict.fromkeys(lookups)), name, spec)


def merge_sum(terms: list[PdbTerm], name: str, spec: str) -> PdbTerm:
    """One term whose value is the sum of the terms' values; refused (InputError, with the reason)
    unless each term is one additive file without reflection and no tile is in two of them."""
    tiles_seen: set[int] = set()
    for term in terms:
        if len(term.lookups) != 1 or term.lookups[0].view != IDENTITY or any(
                d.cost_model != ADDITIVE for d in term.databases):
            raise InputError(f"sum(...): {term.name} is not one additive PDB file without +reflect, +dual or "
                             "+random; only disjoint additive tables may be added (take max(...) otherwise)")
        tiles = {t for d, p in term.lookups[0].patterns for t in term.databases[d].partition.patterns[p]}
        if tiles & tiles_seen:
            raise InputError(f"sum(...): {term.name} shares tiles {sorted(tiles & tiles_seen)} with another part; "
                             "only disjoint patterns are additive")
        tiles_seen |= tiles
    databases, lookups = _renumbered(terms)
    return _term(terms[0].puzzle, databases, (Lookup(IDENTITY, tuple(p for lk in lookups for p in lk.patterns)),),
                 name, spec)


def _renumbered(terms: list[PdbTerm]) -> tuple[tuple[PatternDatabase, ...], list[Lookup]]:
    databases: list[PatternDatabase] = []
    lookups = []
    for term in terms:
        numbers = []
        for database in term.databases:
            known = [i for i, d in enumerate(databases) if d is database]
            if not known:
                databases.append(database)
            numbers.append(known[0] if known else len(databases) - 1)
        lookups += [Lookup(lk.view, tuple((numbers[d], p) for d, p in lk.patterns)) for lk in term.lookups]
    return tuple(databases), lookups


def _term(puzzle, databases, lookups, name, spec, random=False) -> PdbTerm:
    lookups = tuple(sorted(lookups, key=lambda lk: lk.view in (DUAL, DUAL_REFLECTED)))  # the dual ones last
    data = _lookup_data(puzzle, databases, lookups, lazy=not random)
    if len(databases) > 1:
        databases = _held_in(databases, data.tables, data.table_offset)
    if random:
        keys = np.random.default_rng(ZOBRIST_SEED).integers(0, 1 << 62, puzzle.n_cells ** 2, dtype=np.int64)
        data = (RandomPdbLookups if isinstance(data, PdbLookups) else RandomPackedLookups)(*data, keys)
    provenance = tuple((str(d.path.resolve()), d.checksum) for d in databases)
    return PdbTerm(puzzle, name, spec, data, _width(data), provenance,
                   consistent=not random and _consistent(databases, lookups), databases=databases, lookups=lookups,
                   random=random)


def _consistent(databases: tuple[PatternDatabase, ...], lookups: tuple[Lookup, ...]) -> bool:
    """Whether the lookups change by at most one per move: exact zero-aware entries do (a move
    changes one pattern's entry by exactly one, or none), and so do their sums and maxima; the
    minimum over the blank's regions (plain tables, min:K) does not (tests/test_pdb_tables.py),
    nor does a dual lookup, which is 0 until the blank reaches its goal cell."""
    return all(d.table_kind == ZERO_AWARE and d.compression.merge_shift == 0 for d in databases) and not any(
        lk.view in (DUAL, DUAL_REFLECTED) for lk in lookups)


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


@inline_kernel
def _bits_below(mask, cell):
    return bit_count(mask & ((np.int64(1) << cell) - 1))


@inline_kernel
def _order_and_mask(instance, lookup, position, pattern_tiles, pattern_k, instance_pattern, lookup_tile, lookup_cell):
    """(order rank, bit mask of the occupied cells) of `instance`'s tiles as `lookup` reads them."""
    pattern = instance_pattern[instance]
    mask = np.int64(0)  # the cells of the tiles after tile i, then of all
    order_rank = 0
    weight = 1  # (k - 1 - i)!
    k = pattern_k[pattern]
    for i in range(k - 1, -1, -1):
        cell = lookup_cell[lookup, position[lookup_tile[lookup, pattern_tiles[pattern, i]]]]
        order_rank += _bits_below(mask, cell) * weight
        weight *= k - i
        mask |= np.int64(1) << cell
    return order_rank, mask


@inline_kernel
def _combine(lookup_start, scratch, row, column):
    """The maximum over the lookups of the sum of their instances' values in scratch[row]."""
    best = 0
    for lookup in range(lookup_start.shape[0] - 1):
        best = max(best, _lookup_total(lookup, lookup_start, scratch, row, column))
    return best


@inline_kernel
def _combine_and_mark(lookup_start, scratch, row, column):
    """_combine, and the first lookup that gives the maximum written after the instances'
    columns (the lookup a child tries first: the one most likely to cut it off)."""
    best = 0
    best_lookup = 0
    for lookup in range(lookup_start.shape[0] - 1):
        total = _lookup_total(lookup, lookup_start, scratch, row, column)
        if total > best:
            best = total
            best_lookup = lookup
    scratch[row, column + lookup_start[lookup_start.shape[0] - 1]] = best_lookup
    return best


@inline_kernel
def _lookup_total(lookup, lookup_start, scratch, row, column):
    """The sum of `lookup`'s instances' values in scratch[row]."""
    total = 0
    for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
        total += scratch[row, column + instance]
    return total


@inline_kernel
def _copy_parent(scratch, row, column, width):
    for instance in range(width):
        scratch[row + 1, column + instance] = scratch[row, column + instance]


# -- plain, uncompressed tables (PdbLookups) ------------------------------------------------
# The arrays are passed one by one: reading them out of the data tuple inside the loops would
# cost reference counting at every access.

@inline_kernel
def _plain_value(instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                 binomials, instance_pattern, lookup_tile, lookup_cell):
    """The table entry of `instance` (a pattern in `lookup`) for the tiles' current cells."""
    order, mask = _order_and_mask(instance, lookup, position, pattern_tiles, pattern_k, instance_pattern,
                                  lookup_tile, lookup_cell)
    pattern = instance_pattern[instance]
    return np.int64(tables[table_offset[pattern] + cell_set_rank(mask, binomials) * pattern_factorial[pattern] + order])


@inline_kernel
def _plain_start(data, board, position, scratch, row, column):
    return _plain_lookups_start(scratch, row, column, position, data.tables, data.table_offset, data.pattern_tiles,
                                data.pattern_k, data.pattern_factorial, data.binomials, data.instance_pattern,
                                data.lookup_start, data.lookup_tile, data.lookup_cell)


@inline_kernel
def _plain_lookups_start(scratch, row, column, position, tables, table_offset, pattern_tiles, pattern_k,
                         pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell):
    for lookup in range(lookup_start.shape[0] - 1):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            scratch[row, column + instance] = _plain_value(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell)
    return _combine_and_mark(lookup_start, scratch, row, column)


@inline_kernel
def _plain_child_at_least(data, board, position, scratch, row, column, tile, source, target, enough):
    return _plain_lookups_child(scratch, row, column, tile, position, data.tables, data.table_offset,
                                data.pattern_tiles, data.pattern_k, data.pattern_factorial, data.binomials,
                                data.instance_pattern, data.lookup_start, data.lookup_tile, data.lookup_cell,
                                data.affected, enough)


@inline_kernel
def _plain_lookups_child(scratch, row, column, tile, position, tables, table_offset, pattern_tiles, pattern_k,
                         pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                         affected, enough):
    """The maximum over the lookups after the move, each lookup re-reading the instance the
    move changes, from the lookup that gave the parent's maximum on (_combine_and_mark);
    returns at the first lookup whose sum reaches `enough`."""
    n_instances = instance_pattern.shape[0]
    _copy_parent(scratch, row, column, n_instances)
    n_lookups = affected.shape[0]
    lookup = _first_lookup(scratch, row, column, n_instances, n_lookups)
    best = 0
    best_lookup = lookup
    tried = 0
    while tried < n_lookups and best < enough:  # a loop without a return inside: 2.6x faster compiled
        instance = affected[lookup, tile]
        if instance >= 0:
            scratch[row + 1, column + instance] = _plain_value(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell)
        total = _lookup_total(lookup, lookup_start, scratch, row + 1, column)
        if total > best:
            best = total
            best_lookup = lookup
        tried += 1
        lookup = lookup + 1 if lookup + 1 < n_lookups else 0
    scratch[row + 1, column + n_instances] = best_lookup
    return best


@inline_kernel
def _first_lookup(scratch, row, column, n_instances, n_lookups):
    """The lookup that gave the maximum at scratch[row] (0 if it names none of the first
    `n_lookups`)."""
    first = scratch[row, column + n_instances]
    return first if 0 <= first < n_lookups else 0


register_kind(PdbLookups, _plain_start, child_at_least=_plain_child_at_least)


# -- any kind and encoding (PackedLookups) --------------------------------------------------
# Without branches on the pattern's kind: a conditional array read made numba keep reference
# counting in the search loop (8x slower). A plain pattern reads the dummy first entries of
# region_offset and region_of_cell and keeps its map rank; an absolute pattern's decode adds 0.

@inline_kernel
def _block(pattern, mask, blank, binomials, pattern_zero_aware, pattern_region_start, region_offset,
           pattern_cell_start, region_of_cell, n_cells):
    """The block of `pattern` with its tiles on the cells of `mask` and the blank on cell `blank`."""
    map_rank = cell_set_rank(mask, binomials)
    zero_aware = pattern_zero_aware[pattern]
    return map_rank * (1 - zero_aware) + region_offset[pattern_region_start[pattern] + map_rank * zero_aware] + \
        region_of_cell[pattern_cell_start[pattern] + (map_rank * n_cells + blank) * zero_aware]


@inline_kernel
def _stored(pattern, block, order, tables, table_offset, pattern_factorial, pattern_merge_shift, pattern_entry_shift):
    """What the table of `pattern` stores for (block, order): the value, or delta's bit."""
    entry = (block >> pattern_merge_shift[pattern]) * pattern_factorial[pattern] + order
    entry_shift = pattern_entry_shift[pattern]
    bits = 8 >> entry_shift
    byte = np.int64(tables[table_offset[pattern] + (entry >> entry_shift)])
    return (byte >> ((entry & ((1 << entry_shift) - 1)) * bits)) & ((1 << bits) - 1)


@inline_kernel
def _decoded(stored, parent, delta):
    """The value from what is stored: itself, or under delta (parent's value v) v + 1 when bit
    1 of v + 1 is `stored`, else v - 1 (compress.py)."""
    rises = np.int64(((parent + 1) >> 1 & 1) == stored)
    return stored + delta * (parent - 1 + 2 * rises - stored)


@inline_kernel
def _packed_stored(instance, lookup, position, blank, tables, table_offset, pattern_tiles, pattern_k,
                   pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell, pattern_zero_aware,
                   pattern_region_start, region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift,
                   pattern_entry_shift):
    """What the table of `instance` stores for the tiles' current cells and the blank on `blank`."""
    order, mask = _order_and_mask(instance, lookup, position, pattern_tiles, pattern_k, instance_pattern,
                                  lookup_tile, lookup_cell)
    pattern = instance_pattern[instance]
    block = _block(pattern, mask, lookup_cell[lookup, blank], binomials, pattern_zero_aware, pattern_region_start,
                   region_offset, pattern_cell_start, region_of_cell, lookup_cell.shape[1])
    return _stored(pattern, block, order, tables, table_offset, pattern_factorial, pattern_merge_shift,
                   pattern_entry_shift)


@kernel
def _walk_down(instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
               binomials, instance_pattern, lookup_tile, lookup_cell, pattern_zero_aware, pattern_region_start,
               region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift, pattern_entry_shift,
               pattern_delta, goal_cell, goal_blank, neighbours, colour):
    """The value of a delta pattern's entry for the tiles' current cells (0 for other patterns):
    the length of a walk in the table's space to the goal in which every step moves one pattern
    tile into the blank's region and lowers the value by one. The value v of the current entry
    is known modulo 4: bit 1 is stored, bit 0 is the parity of the tiles' odd cells against the
    goal's (compress.py), so the neighbour one lower is the one whose stored bit is that of
    v - 1. Never more than the value (a step always lowers it), so admissible even on a
    damaged table; a correct one always has a step down until the goal."""
    pattern = instance_pattern[instance]
    if pattern_delta[pattern] == 0:
        return 0
    k = pattern_k[pattern]
    n_cells = lookup_cell.shape[1]
    cells = np.empty(k, dtype=np.int64)
    parity = 0
    for u in range(k):
        cells[u] = lookup_cell[lookup, position[lookup_tile[lookup, pattern_tiles[pattern, u]]]]
        parity += colour[cells[u]] + colour[goal_cell[pattern_tiles[pattern, u]]]
    blank = lookup_cell[lookup, position[0]]
    regions = pattern_cell_start[pattern]
    steps = 0
    while steps < 255:
        mask = np.int64(0)
        at_goal = True
        for u in range(k):
            mask |= np.int64(1) << cells[u]
            at_goal &= cells[u] == goal_cell[pattern_tiles[pattern, u]]
        map_rank = cell_set_rank(mask, binomials)
        region = region_of_cell[regions + map_rank * n_cells + blank]
        if at_goal and region == region_of_cell[regions + map_rank * n_cells + goal_blank[0]]:
            return steps
        now = 2 * _stored(pattern, _block(pattern, mask, blank, binomials, pattern_zero_aware, pattern_region_start,
                                          region_offset, pattern_cell_start, region_of_cell, n_cells),
                          _order_of(cells, k), tables, table_offset, pattern_factorial, pattern_merge_shift,
                          pattern_entry_shift) + parity % 2
        lower = ((now + 3) % 4) >> 1  # bit 1 of v - 1
        stepped = False
        for u in range(k):
            source = cells[u]
            for d in range(4):
                target = neighbours[source, d]
                if target < 0 or mask >> target & 1 or region_of_cell[regions + map_rank * n_cells + target] != region:
                    continue
                cells[u] = target
                after = mask ^ (np.int64(1) << source) ^ (np.int64(1) << target)
                block = _block(pattern, after, source, binomials, pattern_zero_aware, pattern_region_start,
                               region_offset, pattern_cell_start, region_of_cell, n_cells)
                if _stored(pattern, block, _order_of(cells, k), tables, table_offset, pattern_factorial,
                           pattern_merge_shift, pattern_entry_shift) == lower:
                    blank = source
                    stepped = True
                    break
                cells[u] = source
            if stepped:
                break
        if not stepped:
            return steps
        parity += 1
        steps += 1
    return steps


@inline_kernel
def _order_of(cells, k):
    """The order rank of tiles on `cells` (as _order_and_mask computes it)."""
    mask = np.int64(0)
    order_rank = 0
    weight = 1
    for i in range(k - 1, -1, -1):
        order_rank += _bits_below(mask, cells[i]) * weight
        weight *= k - i
        mask |= np.int64(1) << cells[i]
    return order_rank


@inline_kernel
def _packed_start(data, board, position, scratch, row, column):
    return _packed_lookups_start(
        scratch, row, column, position, data.tables, data.table_offset, data.pattern_tiles, data.pattern_k,
        data.pattern_factorial, data.binomials, data.instance_pattern, data.lookup_start, data.lookup_tile,
        data.lookup_cell, data.pattern_zero_aware, data.pattern_region_start, data.region_offset,
        data.pattern_cell_start, data.region_of_cell, data.pattern_merge_shift, data.pattern_entry_shift,
        data.pattern_delta, data.goal_cell, data.goal_blank, data.neighbours, data.colour)


@inline_kernel
def _packed_lookups_start(scratch, row, column, position, tables, table_offset, pattern_tiles, pattern_k,
                          pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                          pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                          pattern_merge_shift, pattern_entry_shift, pattern_delta, goal_cell, goal_blank, neighbours,
                          colour):
    _packed_fill(scratch, row, column, position, lookup_start.shape[0] - 1, tables, table_offset, pattern_tiles,
                 pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                 pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                 pattern_merge_shift, pattern_entry_shift, pattern_delta, goal_cell, goal_blank, neighbours, colour)
    return _combine_and_mark(lookup_start, scratch, row, column)


@inline_kernel
def _packed_fill(scratch, row, column, position, n_lookups, tables, table_offset, pattern_tiles, pattern_k,
                 pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                 pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                 pattern_merge_shift, pattern_entry_shift, pattern_delta, goal_cell, goal_blank, neighbours, colour):
    """Write into scratch[row] the values of the instances of the first `n_lookups` lookups,
    from scratch (delta patterns by the walk down)."""
    for lookup in range(n_lookups):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            stored = _packed_stored(
                instance, lookup, position, position[0], tables, table_offset, pattern_tiles, pattern_k,
                pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell, pattern_zero_aware,
                pattern_region_start, region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift,
                pattern_entry_shift)
            walked = _walk_down(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell, pattern_zero_aware, pattern_region_start,
                region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift, pattern_entry_shift,
                pattern_delta, goal_cell, goal_blank, neighbours, colour)
            scratch[row, column + instance] = stored + pattern_delta[instance_pattern[instance]] * (walked - stored)


@inline_kernel
def _packed_child_at_least(data, board, position, scratch, row, column, tile, source, target, enough):
    """`source` is the blank's cell after the move (as position[0])."""
    return _packed_update(
        scratch, row, column, tile, position, source, data.affected.shape[0], data.tables, data.table_offset,
        data.pattern_tiles, data.pattern_k, data.pattern_factorial, data.binomials, data.instance_pattern,
        data.lookup_start, data.lookup_tile, data.lookup_cell, data.affected, data.pattern_zero_aware,
        data.pattern_region_start, data.region_offset, data.pattern_cell_start, data.region_of_cell,
        data.pattern_merge_shift, data.pattern_entry_shift, data.pattern_delta, enough)


@inline_kernel
def _packed_update(scratch, row, column, tile, position, blank, n_lookups, tables, table_offset, pattern_tiles,
                   pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                   affected, pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start,
                   region_of_cell, pattern_merge_shift, pattern_entry_shift, pattern_delta, enough):
    """Copy the parent's instances into scratch[row + 1], re-read those of the first
    `n_lookups` lookups that the move of `tile` changes (delta patterns decoded from the parent's
    value), the blank now on `blank`, and return the maximum over those lookups, read from the
    lookup that gave the parent's maximum on; returns at the first lookup whose sum reaches
    `enough` (the others not re-read)."""
    n_instances = instance_pattern.shape[0]
    _copy_parent(scratch, row, column, n_instances)
    lookup = _first_lookup(scratch, row, column, n_instances, n_lookups)
    best = 0
    best_lookup = lookup
    tried = 0
    while tried < n_lookups and best < enough:  # a loop without a return inside: 2.6x faster compiled
        instance = affected[lookup, tile]
        if instance >= 0:
            stored = _packed_stored(
                instance, lookup, position, blank, tables, table_offset, pattern_tiles, pattern_k,
                pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell, pattern_zero_aware,
                pattern_region_start, region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift,
                pattern_entry_shift)
            scratch[row + 1, column + instance] = _decoded(stored, scratch[row, column + instance],
                                                           pattern_delta[instance_pattern[instance]])
        total = _lookup_total(lookup, lookup_start, scratch, row + 1, column)
        if total > best:
            best = total
            best_lookup = lookup
        tried += 1
        lookup = lookup + 1 if lookup + 1 < n_lookups else 0
    scratch[row + 1, column + n_instances] = best_lookup
    return best


register_kind(PackedLookups, _packed_start, child_at_least=_packed_child_at_least)


# -- zero-aware, uncompressed tables, read lazily (LazyLookups) -----------------------------
# A zero-aware entry changes by exactly one when one of its pattern's tiles moves (the tiles'
# colours fix its parity, compress.py) and not otherwise. So an instance not re-read after s
# moves of its tiles is at most its last value + s, and a lookup whose sum of those bounds is
# no more than the largest exact lookup so far cannot change the maximum: it is not read. Most
# lookups of a catalogue stay two or more below the maximum and are not read at all, and an
# instance that several lookups share is read once. Scratch: each instance's bound (its value
# when read), then its moves since it was read, then the maximal lookup.

@inline_kernel
def _lazy_value(instance, position, blank, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, instance_view, view_tile, view_cell, pattern_region_start, region_offset,
                pattern_cell_start, region_of_cell):
    """The entry of `instance` for the tiles' current cells and the blank on `blank`."""
    view = instance_view[instance]
    order, mask = _order_and_mask(instance, view, position, pattern_tiles, pattern_k, instance_pattern, view_tile,
                                  view_cell)
    pattern = instance_pattern[instance]
    map_rank = cell_set_rank(mask, binomials)
    block = region_offset[pattern_region_start[pattern] + map_rank] + region_of_cell[
        pattern_cell_start[pattern] + map_rank * view_cell.shape[1] + view_cell[view, blank]]
    return np.int64(tables[table_offset[pattern] + block * pattern_factorial[pattern] + order])


@inline_kernel
def _lazy_total(lookup, lookup_start, lookup_instance, scratch, row, column):
    """The sum of `lookup`'s instances' bounds in scratch[row] (its value if none is stale)."""
    total = 0
    for j in range(lookup_start[lookup], lookup_start[lookup + 1]):
        total += scratch[row, column + lookup_instance[j]]
    return total


@inline_kernel
def _lazy_start(data, board, position, scratch, row, column):
    return _lazy_lookups_start(
        scratch, row, column, position, data.tables, data.table_offset, data.pattern_tiles, data.pattern_k,
        data.pattern_factorial, data.binomials, data.instance_pattern, data.instance_view, data.view_tile,
        data.view_cell, data.lookup_start, data.lookup_instance, data.pattern_region_start, data.region_offset,
        data.pattern_cell_start, data.region_of_cell)


@inline_kernel
def _lazy_lookups_start(scratch, row, column, position, tables, table_offset, pattern_tiles, pattern_k,
                        pattern_factorial, binomials, instance_pattern, instance_view, view_tile, view_cell,
                        lookup_start, lookup_instance, pattern_region_start, region_offset, pattern_cell_start,
                        region_of_cell):
    n_instances = instance_pattern.shape[0]
    for instance in range(n_instances):
        scratch[row, column + instance] = _lazy_value(
            instance, position, position[0], tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
            binomials, instance_pattern, instance_view, view_tile, view_cell, pattern_region_start, region_offset,
            pattern_cell_start, region_of_cell)
        scratch[row, column + n_instances + instance] = 0
    best = 0
    best_lookup = 0
    for lookup in range(lookup_start.shape[0] - 1):
        total = _lazy_total(lookup, lookup_start, lookup_instance, scratch, row, column)
        if total > best:
            best = total
            best_lookup = lookup
    scratch[row, column + 2 * n_instances] = best_lookup
    return best


@inline_kernel
def _lazy_child_at_least(data, board, position, scratch, row, column, tile, source, target, enough):
    """`source` is the blank's cell after the move (as position[0])."""
    return _lazy_update(
        scratch, row, column, tile, position, source, enough, data.tables, data.table_offset, data.pattern_tiles,
        data.pattern_k, data.pattern_factorial, data.binomials, data.instance_pattern, data.instance_view,
        data.view_tile, data.view_cell, data.lookup_start, data.lookup_instance, data.tile_instance_start,
        data.tile_instance, data.pattern_region_start, data.region_offset, data.pattern_cell_start,
        data.region_of_cell)


@inline_kernel
def _lazy_update(scratch, row, column, tile, position, blank, enough, tables, table_offset, pattern_tiles, pattern_k,
                 pattern_factorial, binomials, instance_pattern, instance_view, view_tile, view_cell, lookup_start,
                 lookup_instance, tile_instance_start, tile_instance, pattern_region_start, region_offset,
                 pattern_cell_start, region_of_cell):
    """The parent's columns into scratch[row + 1], the instances of `tile` one move staler, and
    the exact maximum over the lookups, from the parent's maximal one on: a lookup is read
    (its stale instances re-read, the blank on `blank`) only if its bound exceeds the largest
    exact lookup so far; returns at the first lookup whose sum reaches `enough`."""
    n_instances = instance_pattern.shape[0]
    child = row + 1
    _copy_parent(scratch, row, column, 2 * n_instances)
    for j in range(tile_instance_start[tile], tile_instance_start[tile + 1]):
        instance = tile_instance[j]
        scratch[child, column + instance] += 1
        scratch[child, column + n_instances + instance] += 1
    n_lookups = lookup_start.shape[0] - 1
    lookup = _first_lookup(scratch, row, column, 2 * n_instances, n_lookups)
    best = 0
    best_lookup = lookup
    tried = 0
    while tried < n_lookups and best < enough:  # a loop without a return inside: 2.6x faster compiled
        if _lazy_total(lookup, lookup_start, lookup_instance, scratch, child, column) > best:
            for j in range(lookup_start[lookup], lookup_start[lookup + 1]):
                instance = lookup_instance[j]
                if scratch[child, column + n_instances + instance] > 0:
                    scratch[child, column + instance] = _lazy_value(
                        instance, position, blank, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                        binomials, instance_pattern, instance_view, view_tile, view_cell, pattern_region_start,
                        region_offset, pattern_cell_start, region_of_cell)
                    scratch[child, column + n_instances + instance] = 0
            total = _lazy_total(lookup, lookup_start, lookup_instance, scratch, child, column)
            if total > best:
                best = total
                best_lookup = lookup
        tried += 1
        lookup = lookup + 1 if lookup + 1 < n_lookups else 0
    scratch[child, column + 2 * n_instances] = best_lookup
    return best


register_kind(LazyLookups, _lazy_start, child_at_least=_lazy_child_at_least)


# -- with dual lookups (DualPdbLookups, DualPackedLookups) ----------------------------------
# A dual lookup reads the board instead of `position` and counts only while the blank is on
# its goal cell (where the dual state is exactly as far from the goal as the state). A move
# changes two tiles of the dual state, so the kinds' affected rows skip the dual lookups; they
# are evaluated from scratch when the blank reaches its goal cell and zeroed when it leaves.

@inline_kernel
def _dual_plain_refresh(scratch, row, column, board, home, tables, table_offset, pattern_tiles, pattern_k,
                        pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                        first_dual):
    """Write the dual lookups' instances of scratch[row]: their values if `home`, else 0."""
    if not home:
        for instance in range(lookup_start[first_dual[0]], instance_pattern.shape[0]):
            scratch[row, column + instance] = 0
        return
    for lookup in range(first_dual[0], lookup_start.shape[0] - 1):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            scratch[row, column + instance] = _plain_value(
                instance, lookup, board, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell)


@inline_kernel
def _dual_plain_start(data, board, position, scratch, row, column):
    return _dual_plain_lookups_start(
        scratch, row, column, board, position, data.tables, data.table_offset, data.pattern_tiles, data.pattern_k,
        data.pattern_factorial, data.binomials, data.instance_pattern, data.lookup_start, data.lookup_tile,
        data.lookup_cell, data.first_dual, data.blank_home)


@inline_kernel
def _dual_plain_lookups_start(scratch, row, column, board, position, tables, table_offset, pattern_tiles, pattern_k,
                              pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                              first_dual, blank_home):
    for lookup in range(first_dual[0]):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            scratch[row, column + instance] = _plain_value(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell)
    _dual_plain_refresh(scratch, row, column, board, board[blank_home[0]] == 0, tables, table_offset, pattern_tiles,
                        pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile,
                        lookup_cell, first_dual)
    return _combine(lookup_start, scratch, row, column)


@inline_kernel
def _dual_plain_child(data, board, position, scratch, row, column, tile, source, target):
    return _dual_plain_lookups_child(
        scratch, row, column, tile, source, target, board, position, data.tables, data.table_offset,
        data.pattern_tiles, data.pattern_k, data.pattern_factorial, data.binomials, data.instance_pattern,
        data.lookup_start, data.lookup_tile, data.lookup_cell, data.affected, data.first_dual, data.blank_home)


@inline_kernel
def _dual_plain_lookups_child(scratch, row, column, tile, source, target, board, position, tables, table_offset,
                              pattern_tiles, pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start,
                              lookup_tile, lookup_cell, affected, first_dual, blank_home):
    """The blank moved from `target` to `source`: the dual lookups change only when one of them
    is its goal cell."""
    _copy_parent(scratch, row, column, instance_pattern.shape[0])
    for lookup in range(first_dual[0]):
        instance = affected[lookup, tile]
        if instance >= 0:
            scratch[row + 1, column + instance] = _plain_value(
                instance, lookup, position, tables, table_offset, pattern_tiles, pattern_k, pattern_factorial,
                binomials, instance_pattern, lookup_tile, lookup_cell)
    home = blank_home[0]
    if source == home or target == home:
        _dual_plain_refresh(scratch, row + 1, column, board, source == home, tables, table_offset, pattern_tiles,
                            pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile,
                            lookup_cell, first_dual)
    return _combine(lookup_start, scratch, row + 1, column)


register_kind(DualPdbLookups, _dual_plain_start, _dual_plain_child)


@inline_kernel
def _dual_packed_refresh(scratch, row, column, board, home, tables, table_offset, pattern_tiles, pattern_k,
                         pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                         pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                         pattern_merge_shift, pattern_entry_shift, first_dual):
    """Write the dual lookups' instances of scratch[row]: their values if `home`, else 0 (the
    dual blank is read like a tile: board[lookup_tile[L, 0]])."""
    if not home:
        for instance in range(lookup_start[first_dual[0]], instance_pattern.shape[0]):
            scratch[row, column + instance] = 0
        return
    for lookup in range(first_dual[0], lookup_start.shape[0] - 1):
        for instance in range(lookup_start[lookup], lookup_start[lookup + 1]):
            scratch[row, column + instance] = _packed_stored(
                instance, lookup, board, board[lookup_tile[lookup, 0]], tables, table_offset, pattern_tiles,
                pattern_k, pattern_factorial, binomials, instance_pattern, lookup_tile, lookup_cell,
                pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                pattern_merge_shift, pattern_entry_shift)


@inline_kernel
def _dual_packed_start(data, board, position, scratch, row, column):
    return _dual_packed_lookups_start(
        scratch, row, column, board, position, data.tables, data.table_offset, data.pattern_tiles, data.pattern_k,
        data.pattern_factorial, data.binomials, data.instance_pattern, data.lookup_start, data.lookup_tile,
        data.lookup_cell, data.pattern_zero_aware, data.pattern_region_start, data.region_offset,
        data.pattern_cell_start, data.region_of_cell, data.pattern_merge_shift, data.pattern_entry_shift,
        data.pattern_delta, data.goal_cell, data.goal_blank, data.neighbours, data.colour, data.first_dual,
        data.blank_home)


@inline_kernel
def _dual_packed_lookups_start(scratch, row, column, board, position, tables, table_offset, pattern_tiles, pattern_k,
                               pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                               pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start,
                               region_of_cell, pattern_merge_shift, pattern_entry_shift, pattern_delta, goal_cell,
                               goal_blank, neighbours, colour, first_dual, blank_home):
    _packed_fill(scratch, row, column, position, first_dual[0], tables, table_offset, pattern_tiles, pattern_k,
                 pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                 pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start, region_of_cell,
                 pattern_merge_shift, pattern_entry_shift, pattern_delta, goal_cell, goal_blank, neighbours, colour)
    _dual_packed_refresh(scratch, row, column, board, board[blank_home[0]] == 0, tables, table_offset, pattern_tiles,
                         pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile,
                         lookup_cell, pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start,
                         region_of_cell, pattern_merge_shift, pattern_entry_shift, first_dual)
    return _combine(lookup_start, scratch, row, column)


@inline_kernel
def _dual_packed_child(data, board, position, scratch, row, column, tile, source, target):
    return _dual_packed_lookups_child(
        scratch, row, column, tile, source, target, board, position, data.tables, data.table_offset,
        data.pattern_tiles, data.pattern_k, data.pattern_factorial, data.binomials, data.instance_pattern,
        data.lookup_start, data.lookup_tile, data.lookup_cell, data.affected, data.pattern_zero_aware,
        data.pattern_region_start, data.region_offset, data.pattern_cell_start, data.region_of_cell,
        data.pattern_merge_shift, data.pattern_entry_shift, data.pattern_delta, data.first_dual, data.blank_home)


@inline_kernel
def _dual_packed_lookups_child(scratch, row, column, tile, source, target, board, position, tables, table_offset,
                               pattern_tiles, pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start,
                               lookup_tile, lookup_cell, affected, pattern_zero_aware, pattern_region_start,
                               region_offset, pattern_cell_start, region_of_cell, pattern_merge_shift,
                               pattern_entry_shift, pattern_delta, first_dual, blank_home):
    """As PackedLookups' child (the blank is on `source`), then the dual lookups as in
    _dual_plain_lookups_child."""
    _packed_update(scratch, row, column, tile, position, source, first_dual[0], tables, table_offset, pattern_tiles,
                   pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile, lookup_cell,
                   affected, pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start,
                   region_of_cell, pattern_merge_shift, pattern_entry_shift, pattern_delta, NO_LIMIT)
    home = blank_home[0]
    if source == home or target == home:
        _dual_packed_refresh(scratch, row + 1, column, board, source == home, tables, table_offset, pattern_tiles,
                             pattern_k, pattern_factorial, binomials, instance_pattern, lookup_start, lookup_tile,
                             lookup_cell, pattern_zero_aware, pattern_region_start, region_offset, pattern_cell_start,
                             region_of_cell, pattern_merge_shift, pattern_entry_shift, first_dual)
    return _combine(lookup_start, scratch, row + 1, column)


register_kind(DualPackedLookups, _dual_packed_start, _dual_packed_child)


# -- one lookup chosen per state (RandomPdbLookups, RandomPackedLookups) --------------------
# Every lookup is kept up to date incrementally (the chosen one of a child is not known before
# the move), so a random lookup costs as much per node as the maximum; the kinds evaluate the
# maximum's kernels and then read the chosen lookup's sum.

@inline_kernel
def _chosen(lookup_start, scratch, row, column, zobrist, position):
    """The sum of the instances in scratch[row] of the lookup that the state's hash chooses."""
    n_cells = position.shape[0]
    key = np.int64(0)
    for tile in range(1, n_cells):  # the tiles' cells determine the blank's: it adds nothing
        key ^= zobrist[tile * n_cells + position[tile]]
    return _lookup_total(key % (lookup_start.shape[0] - 1), lookup_start, scratch, row, column)


@inline_kernel
def _random_plain_start(data, board, position, scratch, row, column):
    _plain_start(data, board, position, scratch, row, column)
    return _chosen(data.lookup_start, scratch, row, column, data.zobrist, position)


@inline_kernel
def _random_plain_child(data, board, position, scratch, row, column, tile, source, target):
    _plain_child_at_least(data, board, position, scratch, row, column, tile, source, target, NO_LIMIT)
    return _chosen(data.lookup_start, scratch, row + 1, column, data.zobrist, position)


register_kind(RandomPdbLookups, _random_plain_start, _random_plain_child)


@inline_kernel
def _random_packed_start(data, board, position, scratch, row, column):
    _packed_start(data, board, position, scratch, row, column)
    return _chosen(data.lookup_start, scratch, row, column, data.zobrist, position)


@inline_kernel
def _random_packed_child(data, board, position, scratch, row, column, tile, source, target):
    _packed_child_at_least(data, board, position, scratch, row, column, tile, source, target, NO_LIMIT)
    return _chosen(data.lookup_start, scratch, row + 1, column, data.zobrist, position)


register_kind(RandomPackedLookups, _random_packed_start, _random_packed_child)
