"""heuristic_spec.py -- the one parser of heuristic names that every command uses.

    zero | hamming | manhattan | linear-conflict     baseline heuristics (aliases: none, lc)
    pdb:PATH                                         a PDB file written by build-pdb
    pdb:PATH+reflect                                 ... also looked up on the mirrored state
    max(pdb:A, pdb:B+reflect, ...)                   the maximum over several PDB files

Names are case-insensitive; paths are taken as written.
"""

from __future__ import annotations

import re

from pdb_build.store import load_partition
from solvers.errors import InputError
from solvers.heuristics import ALIASES, Baseline, Heuristic
from solvers.pdb_heuristic import PdbHeuristic
from solvers.puzzle import Puzzle

REFLECT = "+reflect"


def from_spec(puzzle: Puzzle, spec: str) -> Heuristic:
    """The heuristic `spec` names, bound to `puzzle` (PDB files are loaded and verified)."""
    text = spec.strip()
    match = re.fullmatch(r"max\((.*)\)", text, flags=re.IGNORECASE | re.DOTALL)
    parts = [p.strip() for p in match.group(1).split(",")] if match else [text]
    if len(parts) > 1 or text.lower().startswith("pdb:"):
        return _pdb(puzzle, parts, spec)
    if match:
        raise InputError(f"heuristic {spec!r}: max(...) combines pdb: heuristics only")
    name = text.lower()
    return Baseline(puzzle, ALIASES.get(name, name))


def _pdb(puzzle: Puzzle, parts: list[str], spec: str) -> PdbHeuristic:
    databases, reflections = [], set()
    for part in parts:
        if not part.lower().startswith("pdb:"):
            raise InputError(f"heuristic {spec!r}: {part!r} is not of the form pdb:PATH[+reflect]")
        path = part[4:]
        reflected = path.lower().endswith(REFLECT)
        if reflected:
            path = path[: -len(REFLECT)]
        if not path:
            raise InputError(f"heuristic {spec!r}: a pdb: heuristic needs a file path")
        reflections.add(reflected)
        databases.append(load_partition(path, puzzle))
    if len(reflections) > 1:
        raise InputError(f"heuristic {spec!r}: reflect all PDB files or none")
    return PdbHeuristic(puzzle, databases, reflect=reflections.pop())


def from_options(puzzle: Puzzle, heuristic: str, pdb_files: list[str] | None, reflect: bool) -> Heuristic:
    """The heuristic of the command-line options `--heuristic H [--pdb FILE ...] [--reflect]`.

    `--heuristic pdb` takes its tables from the `--pdb` files; any other name is a spec.
    """
    if heuristic.strip().lower() == "pdb":
        if not pdb_files:
            raise InputError("--heuristic pdb needs at least one --pdb FILE (built by build-pdb)")
        return PdbHeuristic.from_files(puzzle, pdb_files, reflect=reflect)
    if pdb_files or reflect:
        raise InputError("--pdb and --reflect go with --heuristic pdb")
    return from_spec(puzzle, heuristic)
