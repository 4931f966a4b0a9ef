"""spec.py -- the one grammar of heuristics that every command and the Python API use.

The grammar::

    spec  := term | max(spec, spec, ...) | sum(spec, spec, ...)
    term  := zero | hamming | manhattan | linear-conflict | walking-distance
             (aliases: none, md, lc, wd)
           | pdb:PATH | pdb:PATH+reflect           a PDB file written by build-pdb
           | pdb:PATH+dual | pdb:PATH+reflect+dual  (also on the dual state; suffixes in any order)
           | pdb:PATH+reflect+random               one of the lookups, chosen per state
           | user:MODULE:FUNCTION[:CHILD]          a numba function of the user's (user_function.py)

`max(...)` takes the maximum over any heuristics; `sum(...)` adds heuristics that are additive
(each counts only the moves of its own tiles: term.py) on disjoint tiles, and is refused with
the reason otherwise. Inside a sum, Manhattan distance and Hamming count only the tiles that no
other part covers: `sum(pdb:FILE, manhattan)` is the PDB plus the Manhattan distance of the
remaining tiles, admissible (each part counts distinct moves). A sum inside a sum is a unit:
its Manhattan distance already counts the tiles its own parts leave. Terms of one kind under one
max or one sum are merged by their Term class's hooks (PDB files into one term over shared
tables), so this module knows the kinds only through kinds.py. Names and prefixes are
case-insensitive; paths and module names are taken as written (a path in a spec cannot hold
`,`, `(` or `)`; `--pdb FILE` takes any path).

A spec nests at most MAX_DEPTH combinators deep (`max(sum(manhattan))` is 2 deep); a deeper one
is refused in one line before it is parsed. The sums and maxima that survive the merging become
nested code that numba compiles into every search kernel, in time and memory that grow steeply
with the depth: at this depth a kernel compiles in under a minute, at twice it in minutes and
gigabytes, and deeper still the compiler runs out of memory.
"""

from __future__ import annotations

import difflib
import threading

from solvers.errors import InputError
from solvers.heuristics.heuristic import Heuristic
from solvers.heuristics.kinds import ALIASES, NAMED, PREFIXED
from solvers.heuristics.pdb_terms import path_term
from solvers.heuristics.term import Combination, Term, file_stamp
from solvers.puzzle import Puzzle

COMBINATORS = ("max", "sum")
MAX_DEPTH = 16


def accepted_forms() -> str:
    """Every form the grammar accepts, for error messages."""
    return ", ".join([*NAMED, *(f"{p}..." for p in PREFIXED), "max(...)", "sum(...)"])


def from_spec(puzzle: Puzzle, spec: str) -> Heuristic:
    """The heuristic `spec` names, bound to `puzzle` (PDB files are loaded and verified)."""
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"no heuristic given; accepted: {accepted_forms()}")
    _check_depth(spec)
    return Heuristic(puzzle, _parts(puzzle, spec.strip(), spec))


def _check_depth(spec: str) -> None:
    """Refuse (one-line InputError) a spec whose parentheses nest more than MAX_DEPTH deep."""
    depth = deepest = 0
    for char in spec:
        if char in "()":
            depth += 1 if char == "(" else -1
            deepest = max(deepest, depth)
    if deepest > MAX_DEPTH:
        raise InputError(f"heuristic nests {deepest} deep; the most is {MAX_DEPTH}")


def combine_max(puzzle: Puzzle, heuristics: list[Heuristic]) -> Heuristic:
    """The maximum of several heuristics of `puzzle` (PDB lookups merged into one term)."""
    return Heuristic(puzzle, _merged_max([p for h in heuristics for p in h.parts]))


Part = Term | Combination


def _parts(puzzle: Puzzle, text: str, whole: str) -> list[Part]:
    """The parts whose maximum `text` is (terms of one kind under one max merged by their hook)."""
    head, _, rest = text.partition("(")
    combinator = head.strip().lower()
    if rest or combinator in COMBINATORS:
        if combinator not in COMBINATORS or not rest.endswith(")"):
            raise InputError(f"heuristic {whole!r}: {text!r} is not of the form max(...) or sum(...)")
        parts = [p.strip() for p in split_top_level(rest[:-1], whole)]
        if not all(parts):
            raise InputError(f"heuristic {whole!r}: an empty part in {text!r}")
        children = [_parts(puzzle, part, whole) for part in parts]
        if combinator == "max":
            return _merged_max([p for child in children for p in child])
        return [_sum([child[0] if len(child) == 1 else _combination("max", child) for child in children])]
    return [_term(puzzle, text, whole)]


def _combination(operator: str, parts: list[Part]) -> Combination:
    return Combination(operator, tuple(parts), f"{operator}({', '.join(p.name for p in parts)})",
                       f"{operator}({', '.join(p.spec for p in parts)})")


def split_top_level(text: str, whole: str) -> list[str]:
    """`text` split at its commas outside parentheses (InputError naming `whole` if unbalanced)."""
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


def _merged_max(parts: list[Part]) -> list[Part]:
    """`parts` as the parts of one maximum: the same spec once, and the terms of one merge key
    merged by their class (after the others)."""
    unique = list({p.spec: p for p in parts if p.merge_key() is None}.values())
    return unique + _merged_groups(parts, "max")


def _merged_groups(parts: list[Part], operator: str) -> list[Part]:
    """The parts that have a merge key, each group merged into what its class's hook gives."""
    groups: dict[object, list[Term]] = {}
    for part in parts:
        if part.merge_key() is not None:
            groups.setdefault(part.merge_key(), []).append(part)
    merged = []
    for group in groups.values():
        if len(group) == 1:
            merged += group
            continue
        combined = _combination(operator, group)
        hook = type(group[0]).merged_max if operator == "max" else type(group[0]).merged_sum
        merged += hook(group, combined.name, combined.spec)
    return merged


def _sum(nodes: list[Part]) -> Part:
    """The sum of `nodes`, refused (one-line InputError with the reason) unless every part is
    additive and no tile is in two of them; a part that `fills` counts only the tiles that no
    other covers. A sum among the nodes is one of them no more (sums are associative)."""
    whole = _combination("sum", nodes)
    parts = [p for node in nodes for p in (node.parts if isinstance(node, Combination) and node.operator == "sum"
                                           else (node,))]
    seen: set[int] = set()
    for part in parts:
        if part.fills:
            continue
        if not part.additive:
            raise InputError(f"sum(...): {part.sum_refusal()}")
        if part.tiles & seen:
            raise InputError(f"sum(...): {part.name} shares tiles {sorted(part.tiles & seen)} with another part; "
                             "only parts on disjoint tiles are additive")
        seen |= part.tiles
    fillers = [p for p in parts if p.fills]
    if len(fillers) > 1:
        raise InputError(f"sum(...): {fillers[0].name} and {fillers[1].name} would both count the tiles that no "
                         "other part covers; keep one of them")
    parts = [p.restricted_to(p.tiles - seen) if p.fills else p for p in parts]
    summed = [p for p in parts if p.merge_key() is None] + _merged_groups(parts, "sum")
    return summed[0] if len(summed) == 1 else Combination("sum", tuple(summed), whole.name, whole.spec)


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
        return Heuristic(puzzle, _merged_max([path_term(puzzle, path, reflect) for path in pdb_files]))
    if pdb_files or reflect:
        raise InputError("--pdb and --reflect go with --heuristic pdb")
    return from_spec(puzzle, heuristic)


_CACHED: dict[tuple, tuple[Heuristic, tuple]] = {}
_CACHING = threading.Lock()


def cached_from_spec(puzzle: Puzzle, spec: str, specialised: bool = False) -> Heuristic:
    """`from_spec` (`specialised` as Heuristic.with_kernels takes it), kept for the next call
    with the same puzzle, spec and kernels while none of the files
    it read has changed (size or modification time); one heuristic per process (tables are
    large): what a worker process or a Dask worker calls to rebuild a heuristic from its
    recipe, once."""
    key = (repr(puzzle), spec, specialised)
    with _CACHING:
        if key not in _CACHED or _file_stamps(_CACHED[key][0]) != _CACHED[key][1]:
            _CACHED.clear()
            heuristic = from_spec(puzzle, spec).with_kernels(specialised)
            _CACHED[key] = heuristic, _file_stamps(heuristic)
        return _CACHED[key][0]


def _file_stamps(heuristic: Heuristic) -> tuple:
    return tuple(file_stamp(path) for path, _ in heuristic.provenance)
