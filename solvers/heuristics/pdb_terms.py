"""pdb_terms.py -- `pdb:PATH[+reflect][+dual][+random]` terms: what a PDB file contributes to a heuristic.

A PDB term reads one or more partition files (loaded once per process and verified against the
puzzle: pdb_files.py). Its value is the maximum over *lookups*; a lookup is the sum over
patterns of one view of the state (regular, reflected, dual). An additive file gives one lookup
(the sum of its patterns), a non-additive file one lookup per pattern, and `+reflect` / `+dual`
repeat them in the other views; `+random` takes one lookup chosen per state instead of their
maximum. How the lookups are read is pdb_lookup.py's.

Terms merge through Term's hooks: under one `max(...)` every PDB term (but a random one) becomes
one term over all the lookups, and under one `sum(...)` the additive files become one lookup,
their tables shared (a pattern that several files hold is stored and read once). A term is
additive when its lookups are of additive files in the regular view: it counts then only the
moves of its patterns' tiles, so it adds to any additive term on other tiles (Manhattan distance
of the remaining tiles, another file's patterns).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pdb_build.store import ADDITIVE, ZERO_AWARE, PatternDatabase
from solvers.errors import InputError
from solvers.heuristics.kinds import register_prefixed
from solvers.heuristics.pdb_files import hold_loaded, loaded
from solvers.heuristics.pdb_lookup import DUAL, DUAL_REFLECTED, IDENTITY, REFLECTED, Lookup, mirror_maps, term_data
from solvers.heuristics.term import Term
from solvers.puzzle import Puzzle

PREFIX = "pdb:"
REFLECT_SUFFIX, DUAL_SUFFIX, RANDOM_SUFFIX = "+reflect", "+dual", "+random"
SUFFIXES = (REFLECT_SUFFIX, DUAL_SUFFIX, RANDOM_SUFFIX)


@dataclass(frozen=True, eq=False)
class PdbTerm(Term):
    """`random`: h is one of the lookups, chosen per state (never merged into another term)."""

    databases: tuple[PatternDatabase, ...] = ()
    lookups: tuple[Lookup, ...] = ()
    random: bool = False

    def sum_refusal(self) -> str:
        return (f"{self.name} is not one additive PDB file without +reflect, +dual or +random (or a maximum of "
                "them); only disjoint additive tables may be added (take max(...) otherwise)")

    def merge_key(self) -> object:
        return None if self.random else PdbTerm

    @classmethod
    def merged_max(cls, terms: list[PdbTerm], name: str, spec: str) -> list[Term]:
        merged = merge_max(terms, name, spec)
        hold_loaded(merged.databases)
        return [merged]

    @classmethod
    def merged_sum(cls, terms: list[PdbTerm], name: str, spec: str) -> list[Term]:
        """The terms of one lookup as one term of one lookup (the others, maxima over several
        lookups, stay parts of the sum)."""
        single = [t for t in terms if len(t.lookups) == 1]
        if len(single) < 2:
            return terms
        if len(single) < len(terms):
            name = f"sum({', '.join(t.name for t in single)})"
            spec = f"sum({', '.join(t.spec for t in single)})"
        merged = merge_sum(single, name, spec)
        hold_loaded(merged.databases)
        return [merged] + [t for t in terms if len(t.lookups) > 1]


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


def path_term(puzzle: Puzzle, path: str, reflect: bool = False) -> PdbTerm:
    """The term of the file at `path` (any path: `--pdb FILE`), with its reflection if `reflect`."""
    return file_term(puzzle, loaded(path, puzzle), reflect=reflect)


def check_dualizable(database: PatternDatabase) -> None:
    """Refuse the dual lookup on a delta-encoded file: a move changes two tiles of the dual state,
    so a dual entry may change by more than one, which delta's one bit cannot follow."""
    if database.compression.delta:
        raise InputError(f"{database.path.name}: +dual cannot read a delta-encoded file (a move can change a dual "
                         "entry by more than one, which one bit cannot follow); use a file without --compress delta")


def blank_on_diagonal(puzzle: Puzzle) -> bool:
    """Whether the board is square and the goal's blank lies on the main diagonal."""
    row, col = divmod(puzzle.blank_goal_cell, puzzle.cols)
    return puzzle.rows == puzzle.cols and row == col


def check_reflectable(puzzle: Puzzle) -> None:
    """Refuse reflection unless the board is square and the goal's blank is on the main diagonal."""
    if not blank_on_diagonal(puzzle):
        row, col = divmod(puzzle.blank_goal_cell, puzzle.cols)
        raise InputError(
            "reflection needs a square board whose goal puts the blank on the main diagonal; "
            f"this goal puts it in row {row}, column {col} of a {puzzle.board} board"
        )


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
    data, width, databases = term_data(puzzle, databases, lookups, random)
    provenance = tuple((str(d.path.resolve()), d.checksum) for d in databases)
    additive = all(lk.view == IDENTITY for lk in lookups) and all(d.cost_model == ADDITIVE for d in databases)
    return PdbTerm(puzzle, name, spec, data, width, provenance,
                   consistent=not random and _consistent(databases, lookups), tiles=_tiles(puzzle, databases, lookups),
                   additive=additive, databases=databases, lookups=lookups, random=random)


def _tiles(puzzle: Puzzle, databases: tuple[PatternDatabase, ...], lookups: tuple[Lookup, ...]) -> frozenset[int]:
    """The tiles whose moves can change the lookups: their patterns' tiles in the view that reads
    them, every tile where a lookup is dual (a move changes two tiles of the dual state) or a
    file not additive (its entries count the other tiles' moves)."""
    if any(lk.view in (DUAL, DUAL_REFLECTED) for lk in lookups) or any(d.cost_model != ADDITIVE for d in databases):
        return frozenset(range(1, puzzle.n_cells))
    tile_map = mirror_maps(puzzle)[1] if any(lk.view == REFLECTED for lk in lookups) else None
    tiles = set()
    for lookup in lookups:
        for database, number in lookup.patterns:
            pattern = databases[database].partition.patterns[number]
            tiles |= {int(tile_map[t]) if lookup.view == REFLECTED else int(t) for t in pattern}
    return frozenset(tiles)


def _consistent(databases: tuple[PatternDatabase, ...], lookups: tuple[Lookup, ...]) -> bool:
    """Whether the lookups change by at most one per move: exact zero-aware entries do (a move
    changes one pattern's entry by exactly one, or none), and so do their sums and maxima; the
    minimum over the blank's regions (plain tables, min:K) does not (tests/test_pdb_tables.py),
    nor does a dual lookup, which is 0 until the blank reaches its goal cell."""
    return all(d.table_kind == ZERO_AWARE and d.compression.merge_shift == 0 for d in databases) and not any(
        lk.view in (DUAL, DUAL_REFLECTED) for lk in lookups)


register_prefixed(PREFIX, term_from_spec, lambda text: "pdb dual" if "+dual" in text else "pdb")
