"""kinds.py -- the registry of heuristic kinds by name, filled by each kind's own module.

A kind's module ends with its announcement: `register_named(name, build, compile_class,
aliases)` for a plain name of the spec grammar (build: puzzle -> Term), or
`register_prefixed(prefix, build, compile_class)` for a prefix such as `pdb:` or `user:`
(build: puzzle, text -> Term, reading the rest of the text). `compile_class` says which of
compile_notice.COMPILE_SECONDS["term"] estimates the seconds its kernels take to compile: a
name, or for a prefix a function of the spec's text (PDB lookups with `+dual` compile longer).
KIND_MODULES lists the modules, one line each, imported by `load_kinds`, which the package
`solvers.heuristics` calls when it is imported (before any of its modules, this one included,
can be used); importing a kind's module also registers its kernels
(solvers/heuristics/dispatch.py). This module imports none of them itself, so that each may
import the registry, and what it needs of the others, without an import circle.

So a new kind touches its module, one line of KIND_MODULES and its tests.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import import_module

NAMED: dict[str, Callable] = {}
ALIASES: dict[str, str] = {}
PREFIXED: dict[str, Callable] = {}
_COMPILE_CLASSES: dict[str, str | Callable[[str], str]] = {}  # by name or prefix
DEFAULT_COMPILE_CLASS = "tile-cost"  # a token no kind claims: the spec fails to parse anyway

KIND_MODULES = (
    "solvers.heuristics.tile_cost",
    "solvers.heuristics.linear_conflict",
    "solvers.heuristics.walking_distance",
    "solvers.heuristics.gaschnig",
    "solvers.heuristics.pdb_terms",
    "solvers.heuristics.user_function",
    "solvers.heuristics.learned",
)


def register_named(name: str, build: Callable, compile_class: str, aliases: tuple[str, ...] = ()) -> None:
    """Announce the kind called `name` (and `aliases`), built by `build(puzzle)`."""
    for spelling in (name, *aliases):
        if spelling in NAMED or spelling in ALIASES:
            raise ValueError(f"a heuristic kind named {spelling!r} is registered twice")
    NAMED[name] = build
    ALIASES.update(dict.fromkeys(aliases, name))
    _COMPILE_CLASSES[name] = compile_class


def register_prefixed(prefix: str, build: Callable, compile_class: str | Callable[[str], str]) -> None:
    """Announce the kind of specs beginning with `prefix`, built by `build(puzzle, text)`."""
    if prefix in PREFIXED:
        raise ValueError(f"a heuristic kind with the prefix {prefix!r} is registered twice")
    PREFIXED[prefix] = build
    _COMPILE_CLASSES[prefix] = compile_class


@functools.cache
def load_kinds() -> None:
    """Import KIND_MODULES, whose imports register the built-in kinds (once per process)."""
    for module in KIND_MODULES:
        import_module(module)


def compile_class(token: str) -> str:
    """The compile class of one term of a spec (a name, an alias or a prefixed text)."""
    for prefix in PREFIXED:
        if token.startswith(prefix):
            found = _COMPILE_CLASSES[prefix]
            return found(token) if callable(found) else found
    return _COMPILE_CLASSES.get(ALIASES.get(token, token), DEFAULT_COMPILE_CLASS)


def compile_classes() -> set[str]:
    """Every compile class a registered kind names (for a prefix, of its plain form)."""
    return {found(prefix) if callable(found) else found for prefix, found in _COMPILE_CLASSES.items()}
