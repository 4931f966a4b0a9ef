"""spec.py -- the one grammar of heuristics that every command and the Python API use.

    spec  := term | max(spec, spec, ...) | sum(spec, spec, ...)
    term  := zero | hamming | manhattan | linear-conflict | walking-distance
             (aliases: none, md, lc, wd)
           | pdb:PATH | pdb:PATH+reflect           a PDB file written by build-pdb
           | pdb:PATH+dual | pdb:PATH+reflect+dual  (also on the dual state; suffixes in any order)
           | pdb:PATH+reflect+random               one of the lookups, chosen per state
           | user:MODULE:FUNCTION[:CHILD]          a numba function of the user's (user_function.py)

`max(...)` takes the maximum over any heuristics; `sum(...)` adds PDB files whose patterns
are disjoint and additive, and is refused with the reason otherwise. Names and prefixes are
case-insensitive; paths and module names are taken as written (a path in a spec cannot hold
`,`, `(` or `)`; `--pdb FILE` takes any path).
"""

from __future__ import annotations

import difflib
import threading

from solvers.errors import InputError
from solvers.heuristics.heuristic import Heuristic
from solvers.heuristics.kinds import ALIASES, NAMED, PREFIXED
from solvers.heuristics.pdb_files import file_stamp, hold_loaded, loaded
from solvers.heuristics.pdb_lookup import PdbTerm, file_term, merge_max, merge_sum
from solvers.heuristics.term import Term
from solvers.puzzle import Puzzle

COMBINATORS = ("max", "sum")


def accepted_forms() -> str:
    """Every form the grammar accepts, for error messages."""
    return ", ".join([*NAMED, *(f"{p}..." for p in PREFIXED), "max(...)", "sum(...)"])


def from_spec(puzzle: Puzzle, spec: str) -> Heuristic:
    """The heuristic `spec` names, bound to `puzzle` (PDB files are loaded and verified)."""
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"no heuristic given; accepted: {accepted_forms()}")
    return Heuristic(puzzle, _terms(puzzle, spec.strip(), spec))


def combine_max(puzzle: Puzzle, heuristics: list[Heuristic]) -> Heuristic:
    """The maximum of several heuristics of `puzzle` (PDB lookups merged into one term)."""
    return Heuristic(puzzle, _merged_max([t for h in heuristics for t in h.terms]))


def _terms(puzzle: Puzzle, text: str, whole: str) -> list[Term]:
    """The terms whose maximum `text` is (PDB terms under one max merged into one)."""
    head, _, rest = text.partition("(")
    combinator = head.strip().lower()
    if rest or combinator in COMBINATORS:
        if combinator not in COMBINATORS or not rest.endswith(")"):
            raise InputError(f"heuristic {whole!r}: {text!r} is not of the form max(...) or sum(...)")
        parts = [p.strip() for p in _split_top_level(rest[:-1], whole)]
        if not all(parts):
            raise InputError(f"heuristic {whole!r}: an empty part in {text!r}")
        children = [_terms(puzzle, part, whole) for part in parts]
        if combinator == "max":
            return _merged_max([t for terms in children for t in terms])
        return [_sum(children, text)]
    return [_term(puzzle, text, whole)]


def _split_top_level(text: str, whole: str) -> list[str]:
    parts, depth, current = [], 0, []
    for char in text:
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth < 0:
            raise InputError(f"heuristic {whole!r}: unbalanced parentheses")
        current.append(char)
    if depth != 0:
        raise InputError(f"heuristic {whole!r}: unbalanced parentheses")
    return [*parts, "".join(current)]


def _merged_max(terms: list[Term]) -> list[Term]:
    pdb = [t for t in terms if isinstance(t, PdbTerm) and not t.random]
    others = [t for t in terms if not isinstance(t, PdbTerm) or t.random]
    unique = list({t.spec: t for t in others}.values())
    if len(pdb) > 1:
        pdb = [merge_max(pdb, f"max({', '.join(t.name for t in pdb)})", f"max({', '.join(t.spec for t in pdb)})")]
        hold_loaded(pdb[0].databases)
    return unique + pdb


def _sum(children: list[list[Term]], text: str) -> Term:
    parts = []
    for terms in children:
        if len(terms) != 1 or not isinstance(terms[0], PdbTerm):
            names = ", ".join(t.name for t in terms)
            raise InputError(f"heuristic {text!r}: {names} cannot be added; sum(...) adds PDB files whose "
                             "patterns are disjoint and additive (take max(...) otherwise)")
        parts.append(terms[0])
    summed = merge_sum(parts, f"sum({', '.join(t.name for t in parts)})", f"sum({', '.join(t.spec for t in parts)})")
    hold_loaded(summed.databases)
    return summed


def _term(puzzle: Puzzle, text: str, whole: str) -> Term:
    lowered = text.lower()
    for prefix, build in PREFIXED.items():
        if lowered.startswith(prefix):
            return build(puzzle, prefix + text[len(prefix):])
    name = ALIASES.get(lowered, lowered)
    if name in NAMED:
        return NAMED[name](puzzle)
    prefix, colon, _ = lowered.partition(":")
    if colon:  # a mistyped prefix: compare it with the prefixes
        close = [p for p in difflib.get_close_matches(prefix + ":", list(PREFIXED), n=1)]
    else:
        close = difflib.get_close_matches(lowered, [*NAMED, *ALIASES, *(p.rstrip(":") for p in PREFIXED)], n=1)
    hint = f"; did you mean {close[0]!r}?" if close else "."
    shown = "" if text == whole else f" in {whole!r}"
    raise InputError(f"unknown heuristic {text!r}{shown}{hint} Accepted: {accepted_forms()}")


def from_options(puzzle: Puzzle, heuristic: str, pdb_files: list[str] | None, reflect: bool) -> Heuristic:
    """The heuristic of the command-line options `--heuristic H [--pdb FILE ...] [--reflect]`.

    `--heuristic pdb` takes its tables from the `--pdb` files (max over them); any other name
    is a spec.
    """
    if heuristic.strip().lower() == "pdb":
        if not pdb_files:
            raise InputError("--heuristic pdb needs at least one --pdb FILE (built by build-pdb)")
        return Heuristic(puzzle, _merged_max([file_term(puzzle, loaded(path, puzzle), reflect=reflect)
                                              for path in pdb_files]))
    if pdb_files or reflect:
        raise InputError("--pdb and --reflect go with --heuristic pdb")
    return from_spec(puzzle, heuristic)


_CACHED: dict[tuple, tuple[Heuristic, tuple]] = {}
_CACHING = threading.Lock()


def cached_from_spec(puzzle: Puzzle, spec: str) -> Heuristic:
    """`from_spec`, kept for the next call with the same puzzle and spec while none of the files
    it read has changed (size or modification time); one heuristic per process (tables are
    large): what a worker process or a Dask worker calls to rebuild a heuristic from its
    recipe, once."""
    key = (repr(puzzle), spec)
    with _CACHING:
        if key not in _CACHED or _file_stamps(_CACHED[key][0]) != _CACHED[key][1]:
            _CACHED.clear()
            heuristic = from_spec(puzzle, spec)
            _CACHED[key] = heuristic, _file_stamps(heuristic)
        return _CACHED[key][0]


def _file_stamps(heuristic: Heuristic) -> tuple:
    return tuple(file_stamp(path) for path, _ in heuristic.provenance)
