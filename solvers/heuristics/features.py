"""features.py -- what a learned heuristic reads of a state: heuristics' values and encodings of the state.

A feature spec is a comma-separated list of items (commas inside parentheses belong to the item):

    any heuristic of the grammar (spec.py)   its value, one input: manhattan, linear-conflict,
                                             walking-distance, pdb:FILE, pdb:FILE+reflect, max(...), ...
    patterns:FILE                            each pattern's entry of a PDB file, one input a pattern
    patterns:FILE+reflect                    the same, then each pattern's entry in the reflected view
                                             (the file read as pdb:FILE+reflect: the inputs are its
                                             instances' scratch columns, kept move by move)
    blank                                    the blank's cell, one-hot: one input per cell
    cells                                    every tile's cell, one-hot: one input per tile and cell

The inputs are laid out in that order: the heuristics' values (a patterns item's entries) in
the order given, then the blank's cells, then the tiles' cells (tile 1's cells first, then tile 2's, ...). `inputs_of`
gives them for many states at once (training, batches); the learned kind (learned.py) keeps
them up to date move by move inside the search kernels.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solvers.errors import InputError
from solvers.heuristics.heuristic import Heuristic
from solvers.heuristics.pdb_files import loaded
from solvers.heuristics.pdb_terms import file_term
from solvers.heuristics.spec import from_spec, split_top_level
from solvers.puzzle import Puzzle

BLANK, CELLS = "blank", "cells"
ENCODINGS = (BLANK, CELLS)
PATTERNS_PREFIX, REFLECT_SUFFIX = "patterns:", "+reflect"


@dataclass(frozen=True, eq=False)
class FeatureSet:
    """The features of `spec` on `puzzle`: `heuristics` (one per heuristic or patterns item, in
    order) and the encodings asked for. `entries[i]` is 0 where heuristic i gives one input, its
    value, and m where it gives m, the first m scratch columns it fills (a patterns item: each
    pattern's entry in each view). `spec` names PDB files as the heuristics' specs do (by path)."""

    puzzle: Puzzle
    spec: str
    heuristics: tuple[Heuristic, ...]
    blank: bool
    cells: bool
    entries: tuple[int, ...] = ()

    def __post_init__(self):
        if not self.entries:
            object.__setattr__(self, "entries", (0,) * len(self.heuristics))

    @property
    def n_values(self) -> int:
        """The number of inputs the heuristics give (the first inputs)."""
        return sum(max(1, m) for m in self.entries)

    @property
    def blank_offset(self) -> int:
        """The input of the blank in cell 0 (-1 without the blank's encoding)."""
        return self.n_values if self.blank else -1

    @property
    def cells_offset(self) -> int:
        """The input of tile 1 in cell 0 (-1 without the tiles' encoding)."""
        return self.n_values + self.puzzle.n_cells * self.blank if self.cells else -1

    @property
    def n_inputs(self) -> int:
        n = self.puzzle.n_cells
        return self.n_values + n * self.blank + (n - 1) * n * self.cells

    @property
    def admissible(self) -> tuple[Heuristic, ...]:
        """The heuristics among the features that never exceed the distance."""
        return tuple(h for h in self.heuristics if h.admissible)

    @property
    def provenance(self) -> tuple[tuple[str, str], ...]:
        """(file, checksum) of every table the features read."""
        return tuple(dict.fromkeys(p for h in self.heuristics for p in h.provenance))


def feature_set(puzzle: Puzzle, spec: str) -> FeatureSet:
    """The features `spec` names on `puzzle` (module docstring). Refused (one-line InputError):
    an empty spec or item, an item given twice, a spec without any input."""
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"no features given; list heuristics of the grammar and encodings ({', '.join(ENCODINGS)})")
    items = [item.strip() for item in split_top_level(spec.strip(), spec)]
    if not all(items):
        raise InputError(f"features {spec!r}: an empty item (two commas in a row?)")
    lowered = [item.lower() for item in items]
    repeated = sorted({item for item in lowered if lowered.count(item) > 1})
    if repeated:
        raise InputError(f"features {spec!r}: {', '.join(repeated)} given twice")
    heuristics, entries, named = [], [], []
    for item in (item for item in items if item.lower() not in ENCODINGS):
        if item.lower().startswith(PATTERNS_PREFIX):
            path, reflect = _patterns_item(item, spec)
            term = file_term(puzzle, loaded(path, puzzle), reflect=reflect)
            heuristics.append(Heuristic(puzzle, [term]))
            entries.append(len(term.data.instances.instance_pattern))
            named.append(f"{PATTERNS_PREFIX}{Path(path).resolve()}{REFLECT_SUFFIX if reflect else ''}")
        else:
            heuristics.append(from_spec(puzzle, item))
            entries.append(0)
            named.append(heuristics[-1].spec)
    encodings = [item for item in lowered if item in ENCODINGS]
    canonical = ", ".join([*named, *(e for e in ENCODINGS if e in encodings)])
    return FeatureSet(puzzle, canonical, tuple(heuristics), BLANK in encodings, CELLS in encodings, tuple(entries))


def _patterns_item(item: str, spec: str) -> tuple[str, bool]:
    """(the file, whether reflected) of a `patterns:FILE[+reflect]` item."""
    path = item[len(PATTERNS_PREFIX):].strip()
    reflect = path.lower().endswith(REFLECT_SUFFIX)
    path = path[: -len(REFLECT_SUFFIX)] if reflect else path
    if not path:
        raise InputError(f"features {spec!r}: {item!r} needs a PDB file (patterns:FILE or patterns:FILE+reflect)")
    return path, reflect


def inputs_of(features: FeatureSet, states: np.ndarray) -> np.ndarray:
    """The inputs (float64, one row per state) of a 2-D uint8 array of states (rows not validated)."""
    states = np.ascontiguousarray(states, dtype=np.uint8)
    n = features.puzzle.n_cells
    if states.ndim != 2 or states.shape[1] != n:
        raise InputError(f"states must be an array of shape (k, {n})")
    inputs = np.zeros((states.shape[0], features.n_inputs), dtype=np.float64)
    column = 0
    for heuristic, entries in zip(features.heuristics, features.entries):
        if entries:
            inputs[:, column:column + entries] = heuristic.columns_of_many(states)[:, :entries]
        else:
            inputs[:, column] = heuristic.evaluate_many(states)
        column += max(1, entries)
    if features.blank:
        rows, cells = np.nonzero(states == 0)
        inputs[rows, features.blank_offset + cells] = 1.0
    if features.cells:
        rows, cells = np.nonzero(states != 0)
        tiles = states[rows, cells].astype(np.int64)
        inputs[rows, features.cells_offset + (tiles - 1) * n + cells] = 1.0
    return inputs
