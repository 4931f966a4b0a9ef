"""pdb_heuristic.py -- heuristics from additive pattern-database files, with reflection and max.

A `PdbHeuristic` combines one or more partition files (written by build-pdb and verified
against the puzzle when loaded). Each additive file gives one *lookup*, the sum of its
patterns' values; a non-additive file gives one lookup per pattern. With `reflect`, every
lookup is repeated on the state mirrored in the main diagonal (Korf & Felner's reflected
lookup): tile t in cell (r, c) becomes tile m(t) in cell (c, r), where m(t) is the tile whose
goal is the mirror of t's goal. The mirrored state is exactly as far from the goal as the
state itself when the goal's blank lies on the diagonal, so every lookup stays admissible
and h, the maximum over all lookups, does too.
"""

from __future__ import annotations

import math
import os
import threading
from pathlib import Path

import numpy as np

from pdb_build.ranking import MAX_PATTERN, binomial_table
from pdb_build.store import ADDITIVE, PatternDatabase, load_partition
from solvers.errors import InputError
from solvers.heuristics import PDB, Heuristic, KernelHeuristic
from solvers.puzzle import Puzzle


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


class PdbHeuristic(Heuristic):
    """The maximum over the lookups of one or more PDB files (and their reflections)."""

    def __init__(self, puzzle: Puzzle, databases: list[PatternDatabase], *, reflect: bool = False):
        if not databases:
            raise InputError("a PDB heuristic needs at least one PDB file")
        if reflect:
            check_reflectable(puzzle)
        for database in databases:
            if database.puzzle != puzzle:
                raise InputError(f"{database.path}: built for {database.puzzle}, not {puzzle}")
        self.puzzle = puzzle
        self.databases = tuple(databases)
        self.reflect = reflect
        self.name = "+".join(f"pdb:{d.path.name}" for d in databases) + ("+reflect" if reflect else "")
        self._data = _kernel_data(puzzle, self.databases, reflect)

    @classmethod
    def from_files(cls, puzzle: Puzzle, paths: list[str | Path], *, reflect: bool = False) -> PdbHeuristic:
        """Load and verify each file against `puzzle`, then combine them."""
        return cls(puzzle, [load_partition(path, puzzle) for path in paths], reflect=reflect)

    def kernel_data(self) -> KernelHeuristic:
        return self._data

    def recipe(self) -> tuple:
        """The files' absolute paths: a worker process or another machine loads the tables itself,
        once (`cached_pdb_heuristic`)."""
        paths = tuple(str(d.path.resolve()) for d in self.databases)
        return cached_pdb_heuristic, (self.puzzle, paths, self.reflect)


def _file_stamp(path: str) -> tuple[int, int] | None:
    """(size, modification time in ns) of a file, None if it cannot be read."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns


_LOADED: dict[tuple, PdbHeuristic] = {}
_LOADING = threading.Lock()


def cached_pdb_heuristic(puzzle: Puzzle, paths: tuple[str, ...], reflect: bool) -> PdbHeuristic:
    """The PdbHeuristic of these files, loaded and verified on the first call in this process
    and kept for every later one (a Dask worker loads its tables once); a file changed since
    (size or modification time) is loaded again."""
    key = (repr(puzzle), paths, tuple(map(_file_stamp, paths)), reflect)
    with _LOADING:
        if key not in _LOADED:
            _LOADED.clear()  # keep one set of tables per process
            _LOADED[key] = PdbHeuristic.from_files(puzzle, list(paths), reflect=reflect)
        return _LOADED[key]


def _kernel_data(puzzle: Puzzle, databases: tuple[PatternDatabase, ...], reflect: bool) -> KernelHeuristic:
    n = puzzle.n_cells
    patterns = [p for d in databases for p in d.partition.patterns]
    tables = [t for d in databases for t in d.tables]
    table_offset = np.zeros(len(patterns), dtype=np.int64)
    np.cumsum([t.size for t in tables[:-1]], out=table_offset[1:])
    pattern_tiles = np.zeros((len(patterns), MAX_PATTERN), dtype=np.int64)
    for i, pattern in enumerate(patterns):
        pattern_tiles[i, : len(pattern)] = pattern
    groups = []  # the patterns (global numbers) each lookup sums
    first = 0
    for database in databases:
        numbers = list(range(first, first + len(database.partition.patterns)))
        groups += [numbers] if database.cost_model == ADDITIVE else [[p] for p in numbers]
        first += len(numbers)
    identity_cells = np.arange(n, dtype=np.int64)
    views = [(identity_cells, identity_cells)]  # (cell map, tile map) per view of the state
    if reflect:
        views.append(mirror_maps(puzzle))
    instance_pattern, lookup_start, lookup_tile, lookup_cell, affected = [], [0], [], [], []
    for cell_map, tile_map in views:
        for group in groups:
            touched = np.full(n, -1, dtype=np.int64)
            for pattern in group:
                for tile in patterns[pattern]:
                    touched[tile_map[tile]] = len(instance_pattern)
                instance_pattern.append(pattern)
            lookup_start.append(len(instance_pattern))
            lookup_tile.append(tile_map)
            lookup_cell.append(cell_map)
            affected.append(touched)
    return KernelHeuristic(
        PDB, np.zeros((n, n), dtype=np.uint8), puzzle.goal_cell, puzzle.rows, puzzle.cols,
        databases[0].buffer if len(databases) == 1 else np.concatenate([d.buffer for d in databases]),
        table_offset, pattern_tiles,
        np.array([len(p) for p in patterns], dtype=np.int64),
        np.array([math.factorial(len(p)) for p in patterns], dtype=np.int64),
        binomial_table(n), np.array(instance_pattern, dtype=np.int64), np.array(lookup_start, dtype=np.int64),
        np.stack(lookup_tile), np.stack(lookup_cell), np.stack(affected), np.zeros(n, dtype=np.int64),
    )
