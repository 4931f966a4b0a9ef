"""term.py -- the parts of a heuristic before they are laid out for a search: a kind's data for one
puzzle (`Term`), and max and sum nodes over terms (`Combination`).

A term declares the tiles whose moves change it and whether it is *additive* (it never exceeds
the number of moves of its own tiles in a shortest solution), which is what `sum(...)` checks:
terms that are additive and have disjoint tiles count distinct moves, so their sum is
admissible. How a kind merges several of its terms into one (PDB lookups over shared tables)
is a hook of its Term class (`merge_key`, `merged_max`, `merged_sum`), so that the grammar
(spec.py) knows no kind.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from solvers.kernel_cache import cacheable_data
from solvers.puzzle import Puzzle


@dataclass(frozen=True, eq=False)
class Term:
    """A kind's read-only data for `puzzle`, how many scratch columns it needs and its names.

    `name` is what reports show; `spec` is the exact text `from_spec` rebuilds it from in any
    process (files by absolute path). `provenance` lists (file, checksum) of the tables it
    reads. `cacheable` is False where the data holds what numba cannot find again in another
    process (a user's function), and where any class in the data, or any kernel registered for
    one (a PDB reader, an evaluation), comes from outside tilepdb's packages
    (kernel_cache.cacheable_data: the cache key covers only the kernel modules' sources, and numba's
    cache index names the classes, which a process that cannot import their module could not
    read): searches then compile without the disk cache.
    `evaluated_last` asks a search to evaluate the term after the others: linear conflict's
    inlined kernel, when others followed it, made numba's code for max(...) much slower;
    last, it costs what it costs alone. `consistent` says that h changes by at most one per
    move (searches apply BPMX by default where a term is not known to be:
    solvers/search/depth_first.py). `admissible` says that h never exceeds the distance
    (False for a user's function, which the toolkit cannot check): a search reports its
    solution as optimal only if every term is. `overestimates` marks a term known to exceed
    the distance on some states (a learned one): BPMX, which would spread its overestimates
    to the neighbours, is then off by default.

    `tiles` are the tiles whose moves can change the term (None: every tile but the blank);
    `additive` says that the term counts only moves of those tiles, so that it may be added to
    terms on other tiles. `fills` marks a kind that, inside `sum(...)`, counts only the tiles
    that no other part covers (`restricted_to`).
    """

    puzzle: Puzzle
    name: str
    spec: str
    data: tuple
    width: int
    provenance: tuple[tuple[str, str], ...] = field(default=())
    cacheable: bool = True  # False where numba cannot cache a kernel compiled for the data
    evaluated_last: bool = False
    consistent: bool = False
    admissible: bool = True
    overestimates: bool = False
    tiles: frozenset[int] | None = None
    additive: bool = False
    fills: bool = False

    def __post_init__(self):
        if not cacheable_data(self.data):  # a kind, reader or evaluation of another package
            object.__setattr__(self, "cacheable", False)
        if self.tiles is None:
            object.__setattr__(self, "tiles", frozenset(range(1, self.puzzle.n_cells)))

    @property
    def terms(self) -> tuple[Term, ...]:
        return (self,)

    def admissible_inputs(self) -> tuple:
        """The admissible heuristics (Heuristic objects) whose values the term reads, of which a
        search with the term may take a lower bound where the term itself may overestimate: none
        by default (a learned term has its features')."""
        return ()

    def sum_refusal(self) -> str:
        """Why the term cannot be a part of `sum(...)` (it is not additive), in a few words."""
        return (f"{self.name} cannot be added: it counts moves of tiles beyond its own; sum(...) adds terms that "
                "count only their own tiles' moves, on disjoint tiles (take max(...) otherwise)")

    def restricted_to(self, tiles: frozenset[int]) -> Term:
        """The term counting only `tiles` (for a kind that `fills`)."""
        raise NotImplementedError(f"{self.name} cannot be restricted to some tiles")

    def merge_key(self) -> object:
        """Terms with the same key (not None) under one max or sum are merged into one by their
        class's `merged_max` / `merged_sum`; None: never merged."""
        return None

    @classmethod
    def merged_max(cls, terms: list[Term], name: str, spec: str) -> list[Term]:
        """Terms of this class (same merge_key) whose maximum replaces theirs."""
        return terms

    @classmethod
    def merged_sum(cls, terms: list[Term], name: str, spec: str) -> list[Term]:
        """Additive terms of this class on disjoint tiles (same merge_key) whose sum replaces theirs."""
        return terms


@dataclass(frozen=True, eq=False)
class Combination:
    """The maximum (`operator` "max") or the sum ("sum") of `parts` (Terms and Combinations).

    A sum's parts are additive on disjoint tiles (spec.py checks it), so a move changes at most
    one of them: the sum is consistent where every part is, and admissible where every part is.
    """

    operator: str
    parts: tuple
    name: str
    spec: str

    @property
    def terms(self) -> tuple[Term, ...]:
        return tuple(t for p in self.parts for t in p.terms)

    @property
    def puzzle(self) -> Puzzle:
        return self.parts[0].puzzle

    @property
    def tiles(self) -> frozenset[int]:
        return frozenset().union(*(p.tiles for p in self.parts))

    @property
    def additive(self) -> bool:
        return all(p.additive for p in self.parts)

    @property
    def evaluated_last(self) -> bool:
        return any(p.evaluated_last for p in self.parts)

    fills = False

    def sum_refusal(self) -> str:
        blocking = next(p for p in self.parts if not p.additive)
        return blocking.sum_refusal()

    def merge_key(self) -> object:
        return None


def file_stamp(path: str | Path) -> tuple[int, int, int, int] | None:
    """(size, modification time, change time in ns, inode) of a file that a term reads, None if
    it cannot be read: a file replaced, or changed in place even with its modification time
    set back (the change time cannot be), has another stamp."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino
