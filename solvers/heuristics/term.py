"""term.py -- one leaf of a heuristic before it is laid out for a search: a kind's data for one puzzle."""

from __future__ import annotations

from dataclasses import dataclass, field

from solvers.kernel_cache import SOURCE_PACKAGES
from solvers.puzzle import Puzzle


@dataclass(frozen=True, eq=False)
class Term:
    """A kind's read-only data for `puzzle`, how many scratch columns it needs and its names.

    `name` is what reports show; `spec` is the exact text `from_spec` rebuilds it from in any
    process (files by absolute path). `provenance` lists (file, checksum) of the tables it
    reads. `cacheable` is False where the data holds what numba cannot find again in another
    process (a user's function), and for a kind defined outside tilepdb's packages (numba's
    cache index names the kind's class, and a process where its module cannot be imported
    could not read the index of any search): searches then compile without the disk cache.
    `evaluated_last` asks a search to evaluate the term after the others: linear conflict's
    inlined kernel, when others followed it, made numba's code for max(...) up to 3x slower
    (measured on Korf's instances); last, it costs what it costs alone. A kind that can merge
    several of its terms into one (PDB lookups) subclasses Term. `consistent` says that h
    changes by at most one per move (searches apply BPMX by default where a term is not known
    to be: solvers/search/depth_first.py). `admissible` says that h never exceeds the distance
    (False for a user's function, which the toolkit cannot check): a search reports its
    solution as optimal only if every term is.
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

    def __post_init__(self):
        if type(self.data).__module__.partition(".")[0] not in SOURCE_PACKAGES:  # a kind of another package
            object.__setattr__(self, "cacheable", False)
