"""solvers.heuristics -- heuristics for the search kernels: kinds, combinations, one grammar.

    from_spec(puzzle, "max(pdb:FILE+reflect, walking-distance)")    any heuristic by its spec
    baseline(puzzle, "manhattan")                                     a built-in kind by name
    pdb_heuristic(puzzle, [database], reflect=True)                   loaded PDB files
    user_heuristic(puzzle, my_h, child=None)                          a numba function of yours

Every heuristic is a `Heuristic`: the maximum over its parts, each a term (a kind's read-only
data) or a sum or maximum of parts (term.py; solvers/heuristics/dispatch.py tells how kinds
and trees are evaluated; kinds.py lists the kinds).
"""

from __future__ import annotations

from pdb_build.store import PatternDatabase
from solvers.heuristics.heuristic import Heuristic, from_recipe
from solvers.heuristics.kinds import ALIASES, NAMED, load_kinds
from solvers.heuristics.pdb_lookup import mirror_maps
from solvers.heuristics.pdb_terms import file_term
from solvers.heuristics.spec import accepted_forms, cached_from_spec, combine_max, from_options, from_spec
from solvers.heuristics.user_function import user_term
from solvers.puzzle import Puzzle

load_kinds()  # every built-in kind registered (NAMED and ALIASES full) once the package is imported


def baseline(puzzle: Puzzle, name: str) -> Heuristic:
    """A built-in kind without tables (zero, hamming, manhattan, linear-conflict, walking-distance)."""
    return from_spec(puzzle, name)


def pdb_heuristic(puzzle: Puzzle, databases: list[PatternDatabase], *, reflect: bool = False) -> Heuristic:
    """The maximum over the lookups of loaded PDB files (and their reflections)."""
    return combine_max(puzzle, [Heuristic(puzzle, [file_term(puzzle, d, reflect=reflect)]) for d in databases])


def user_heuristic(puzzle: Puzzle, function, child=None) -> Heuristic:
    """A heuristic of the user's numba function (see solvers/heuristics/user_function.py)."""
    return Heuristic(puzzle, [user_term(puzzle, function, child)])


__all__ = [
    "ALIASES", "NAMED", "Heuristic", "accepted_forms", "baseline", "cached_from_spec", "combine_max", "from_options",
    "from_recipe", "from_spec", "mirror_maps", "pdb_heuristic", "user_heuristic",
]
