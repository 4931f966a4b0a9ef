"""pdb_files.py -- PDB files loaded once per process, verified against the puzzle, shared by the terms reading them."""

from __future__ import annotations

import threading
from pathlib import Path

from pdb_build.store import PatternDatabase, load_partition
from solvers.heuristics.term import file_stamp
from solvers.puzzle import Puzzle

_LOADED: dict[tuple, PatternDatabase] = {}
_LOADING = threading.Lock()
MAX_LOADED = 4  # files kept loaded per process


def loaded(path: str | Path, puzzle: Puzzle) -> PatternDatabase:
    """The file at `path`, loaded and verified against `puzzle` on the first call in this process
    and kept for later ones (a Dask worker loads its tables once); a file changed since (size or
    modification time) is loaded again."""
    resolved = Path(path).resolve()
    key = (str(resolved), file_stamp(resolved), repr(puzzle))
    with _LOADING:
        if key not in _LOADED:
            if len(_LOADED) >= MAX_LOADED:
                _LOADED.pop(next(iter(_LOADED)))
            _LOADED[key] = load_partition(Path(path).absolute(), puzzle)  # named as given, wherever the cwd goes
        return _LOADED[key]


def hold_loaded(databases: tuple[PatternDatabase, ...]) -> None:
    """Keep `databases` (a merged term's, their tables in its shared memory) loaded in place of
    the same files' own copies, so that the copies' memory can go."""
    with _LOADING:
        for key, kept in list(_LOADED.items()):
            for database in databases:
                if kept.path == database.path and kept.checksums == database.checksums and kept is not database:
                    _LOADED[key] = database
