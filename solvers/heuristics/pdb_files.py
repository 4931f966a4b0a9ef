"""pdb_files.py -- `pdb:PATH[+reflect][+dual][+random]` terms: PDB files loaded once per process, verified against the puzzle."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from pdb_build.store import PatternDatabase, load_partition
from solvers.errors import InputError
from solvers.heuristics.pdb_lookup import DUAL_SUFFIX, RANDOM_SUFFIX, REFLECT_SUFFIX, PdbTerm, file_term
from solvers.puzzle import Puzzle

PREFIX = "pdb:"
SUFFIXES = (REFLECT_SUFFIX, DUAL_SUFFIX, RANDOM_SUFFIX)

_LOADED: dict[tuple, PatternDatabase] = {}
_LOADING = threading.Lock()
MAX_LOADED = 4  # files kept loaded per process


def file_stamp(path: str | Path) -> tuple[int, int] | None:
    """(size, modification time in ns) of a file, None if it cannot be read."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns


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


def term_from_spec(puzzle: Puzzle, text: str) -> PdbTerm:
    """The term of `pdb:PATH` with any of SUFFIXES, in any order (`pdb:PATH+reflect+dual`)."""
    path = text[len(PREFIX):]
    found: set[str] = set()
    while any(path.lower().endswith(s) for s in SUFFIXES):
        suffix = next(s for s in SUFFIXES if path.lower().endswith(s))
        found.add(suffix)
        path = path[: -len(suffix)]
    if not path:
        raise InputError(f"heuristic {text!r}: a pdb: heuristic needs a file path")
    if "+" in Path(path).name and not Path(path).exists():
        parts = ["+" + part for part in Path(path).name.split("+")[1:]]
        unknown = [part for part in parts if part.lower() not in SUFFIXES] or parts
        raise InputError(f"heuristic {text!r}: unknown suffix {unknown[0]!r}; the suffixes a pdb: file takes are "
                         f"{', '.join(SUFFIXES)}")
    return file_term(puzzle, loaded(path, puzzle), reflect=REFLECT_SUFFIX in found, dual=DUAL_SUFFIX in found,
                     random=RANDOM_SUFFIX in found)
