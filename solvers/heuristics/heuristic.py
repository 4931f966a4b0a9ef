"""heuristic.py -- a heuristic bound to one puzzle: the maximum over its parts, ready for any search.

A `Heuristic` lays its parts (terms, and sums and maxima of terms: term.py) out as a tree of
leaves (solvers/heuristics/dispatch.py), each leaf owning its own scratch columns, and says how
many scratch columns a search must allocate for it. It holds only read-only data, so one object
may be used by any number of threads and searches at once: every evaluation and every search
creates its own scratch.
"""

from __future__ import annotations

import copy
import functools
from importlib import import_module

import numpy as np

from solvers.errors import InputError
from solvers.heuristics.dispatch import Leaf, MaxNode, SumNode, h_start
from solvers.heuristics.evaluators import evaluators_of
from solvers.heuristics.term import Combination, Term
from solvers.jit import JIT_ENABLED, kernel, uncached
from solvers.puzzle import Puzzle


SPEC_BUILDER = "solvers.heuristics.spec:cached_from_spec"  # what rebuilds a heuristic from its spec


class Heuristic:
    """h(state) = the maximum over `terms` (Terms, and Combinations of them), all for `puzzle`.

    `name` is what reports show, `spec` the text that `from_spec` rebuilds it from in another
    process (`recipe`), `leaves` and `n_columns` what a search kernel takes, `tree` the parts
    laid out as nodes (dispatch.py). `parts` are the maximum's parts in the order of evaluation,
    `terms` every term of the tree in that order. A heuristic is `specialised` where the
    searches are to be compiled for its own tree: full speed, after a compile of seconds for
    each search and heuristic type; otherwise every search runs the kernel compiled once for
    all heuristics, a little slower (evaluators.py).
    """

    def __init__(self, puzzle: Puzzle, terms: list[Term | Combination] | tuple[Term | Combination, ...],
                 name: str | None = None, spec: str | None = None, specialised: bool = False):
        if not terms:
            raise InputError("a heuristic needs at least one term")
        if len(terms) == 1 and isinstance(terms[0], Combination) and terms[0].operator == "max":
            name, spec, terms = name or terms[0].name, spec or terms[0].spec, terms[0].parts
        for term in (t for part in terms for t in part.terms):
            if term.puzzle != puzzle:
                raise InputError(f"heuristic {term.name} is for {term.puzzle}, not {puzzle}")
        self.puzzle = puzzle
        self.name = name or (terms[0].name if len(terms) == 1 else f"max({', '.join(t.name for t in terms)})")
        self.spec = spec or (terms[0].spec if len(terms) == 1 else f"max({', '.join(t.spec for t in terms)})")
        self.parts = _in_order(terms)
        self.terms = tuple(t for part in self.parts for t in part.terms)  # the order of evaluation
        columns = np.cumsum([0] + [t.width for t in self.terms])
        self.tree = _laid_out(self.parts, iter(int(c) for c in columns))
        self.n_columns = max(1, int(columns[-1]))
        self.specialised = specialised or not JIT_ENABLED

    @functools.cached_property
    def leaves(self):
        """What a search kernel takes: the tree itself where the heuristic is `specialised` (the
        search is compiled for its type), else its Evaluators (evaluators.py: the search is
        compiled once for every heuristic), compiled or loaded at first use."""
        return self.tree if self.specialised else evaluators_of(self.tree, self.cacheable)

    @property
    def cacheable(self) -> bool:
        """Whether kernels compiled for this heuristic's tree may be kept in the disk cache (not
        for a user's function or a kind defined outside tilepdb's packages: see Term)."""
        return all(t.cacheable for t in self.terms)

    def with_kernels(self, specialised: bool) -> Heuristic:
        """This heuristic for searches compiled for its own tree (`specialised`), or for the
        searches compiled once for every heuristic: the same terms, name and spec."""
        specialised = specialised or not JIT_ENABLED
        if specialised == self.specialised:
            return self
        other = copy.copy(self)  # a subclass's own attributes and methods kept
        other.__dict__.pop("leaves", None)  # made again at first use
        other.specialised = specialised
        return other

    def __getstate__(self) -> dict:
        """What pickling keeps: never the Evaluators, whose addresses mean nothing in another
        process (`leaves` is made again there at first use)."""
        return {name: value for name, value in self.__dict__.items() if name != "leaves"}

    def kernel(self, compiled):
        """The search kernel `compiled` as it must be called with this heuristic: recompiled
        without the disk cache where a term's data cannot be cached (a user's function, a kind
        defined outside tilepdb's packages: see Term)."""
        return compiled if self.cacheable or not self.specialised else uncached(compiled)

    @property
    def consistent(self) -> bool:
        """Whether h is known to change by at most one per move (every term is)."""
        return all(t.consistent for t in self.terms)

    @property
    def admissible(self) -> bool:
        """Whether h is known never to exceed the distance (every term is)."""
        return all(t.admissible for t in self.terms)

    @property
    def overestimates(self) -> bool:
        """Whether a part of h is known to exceed the distance on some states (a learned one)."""
        return any(t.overestimates for t in self.terms)

    def admissible_parts(self) -> tuple[Heuristic, ...]:
        """Admissible heuristics whose maximum bounds h's distance from below: h itself where it is
        admissible, else its admissible parts (of a maximum) and the admissible heuristics its
        overestimating terms read (a learned heuristic's features); empty where there are none."""
        if self.admissible:
            return (self,)
        return tuple(_admissible_pieces(self.puzzle, self.parts))

    @property
    def provenance(self) -> tuple[tuple[str, str], ...]:
        """(file, checksum) of every table the heuristic reads."""
        return tuple(dict.fromkeys(p for t in self.terms for p in t.provenance))

    def recipe(self) -> tuple:
        """(function, arguments), plain data from which `from_recipe` rebuilds this heuristic in
        another process or on another machine (a Dask worker loads PDB files once, see
        solvers/heuristics/spec.py): the function named "module:function", so that this module
        needs the grammar's module (which imports it) only where a recipe is followed."""
        return SPEC_BUILDER, (self.puzzle, self.spec, self.specialised)

    def check_for(self, puzzle: Puzzle) -> None:
        """Refuse (one-line InputError) use on a puzzle other than the one it was built for, and
        a heuristic that is not 0 at the goal (a damaged table whose checksum was recomputed
        would otherwise let IDA* search forever)."""
        if puzzle != self.puzzle:
            raise InputError(f"heuristic {self.name} was built for {self.puzzle}, not {puzzle}")
        at_goal = self(puzzle.goal)
        if at_goal != 0:
            raise InputError(f"heuristic {self.name} gives {at_goal} at the goal, not 0: a table is damaged (run "
                             "verify-pdb on it) or was built for another goal")

    def __call__(self, state: np.ndarray) -> int:
        board = self.puzzle.state(state, "state")
        return int(self.kernel(_h_of_many)(self.leaves, self.n_columns, board[None, :])[0])

    def evaluate_many(self, states: np.ndarray) -> np.ndarray:
        """h of every row of a 2-D uint8 array of states, as int32 (rows are not validated)."""
        states = np.ascontiguousarray(states, dtype=np.uint8)
        if states.ndim != 2 or states.shape[1] != self.puzzle.n_cells:
            raise InputError(f"states must be an array of shape (n, {self.puzzle.n_cells})")
        return self.kernel(_h_of_many)(self.leaves, self.n_columns, states)

    def columns_of_many(self, states: np.ndarray) -> np.ndarray:
        """The scratch columns (int64, one row per state) that evaluating each row of `states`
        from nothing fills: what a kind keeps there (a PDB term: each instance's entry)."""
        states = np.ascontiguousarray(states, dtype=np.uint8)
        return self.kernel(_columns_of_many)(self.leaves, self.n_columns, states)

    def __repr__(self) -> str:
        return f"Heuristic({self.name!r}, {self.puzzle.board})"


def _in_order(parts) -> tuple:
    """`parts` in the order of evaluation (those `evaluated_last` last), and so are the parts of
    every combination among them."""
    ordered = []
    for part in sorted(parts, key=lambda p: p.evaluated_last):
        if isinstance(part, Combination):
            part = Combination(part.operator, _in_order(part.parts), part.name, part.spec)
        ordered.append(part)
    return tuple(ordered)


def _admissible_pieces(puzzle: Puzzle, parts: tuple):
    """Heuristics for the admissible parts of a maximum over `parts` (`admissible_parts`); a sum
    with an overestimating part gives none (a learned term is never added)."""
    for part in parts:
        if all(t.admissible for t in part.terms):
            yield Heuristic(puzzle, [part])
        elif isinstance(part, Combination):
            if part.operator == "max":
                yield from _admissible_pieces(puzzle, part.parts)
        else:
            yield from part.admissible_inputs()


def _laid_out(parts: tuple, columns) -> tuple:
    """The nodes of `parts` (dispatch.py), each leaf given the next of `columns`."""
    nodes = []
    for part in parts:
        if isinstance(part, Combination):
            node = SumNode if part.operator == "sum" else MaxNode
            nodes.append(node(_laid_out(part.parts, columns)))
        else:
            nodes.append(Leaf(part.data, next(columns)))
    return tuple(nodes)


def from_recipe(recipe: tuple) -> Heuristic:
    """The heuristic a `Heuristic.recipe()` describes: its function (a callable, or one named
    "module:function") called with its arguments."""
    function, arguments = recipe
    if isinstance(function, str):
        module, name = function.split(":")
        function = getattr(import_module(module), name)
    return function(*arguments)


@kernel
def _columns_of_many(leaves, n_columns, states):
    out = np.zeros((states.shape[0], n_columns), dtype=np.int64)
    position = np.zeros(states.shape[1], dtype=np.int64)
    for i in range(states.shape[0]):
        h_start(leaves, states[i], position, out, i)
    return out


@kernel
def _h_of_many(leaves, n_columns, states):
    out = np.empty(states.shape[0], dtype=np.int32)
    scratch = np.zeros((1, n_columns), dtype=np.int64)
    position = np.zeros(states.shape[1], dtype=np.int64)
    for i in range(states.shape[0]):
        out[i] = h_start(leaves, states[i], position, scratch, 0)
    return out
