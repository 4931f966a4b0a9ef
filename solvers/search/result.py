"""result.py -- the record every search returns, checked by replay before anyone sees it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from solvers.puzzle import MOVE_LETTERS, Puzzle, inverse_move

SOLVED, UNSOLVABLE, GAVE_UP = "solved", "unsolvable", "gave_up"


@dataclass(frozen=True)
class Iteration:
    """One pass of a depth-first deepening search: its cost bound and counters."""

    bound: int
    nodes_expanded: int
    nodes_generated: int


@dataclass(frozen=True)
class Frontiers:
    """What a bidirectional search did in each direction: nodes expanded forward (from the
    start) and backward (from the goal); of those, the *necessary* ones, whose g + h (h toward
    the other end) is below the length found: those a unidirectional search must expand to prove
    the length, of which a front-to-end bidirectional one need only expand a cover of the pairs
    that could still join into a shorter path (Eckerle, Chen, Sturtevant, Zilles & Holte 2017);
    the state where the shortest path found joins the two searches, and its distance from the
    start."""

    forward_expanded: int
    backward_expanded: int
    forward_necessary: int
    backward_necessary: int
    meeting: str
    meeting_depth: int


@dataclass(frozen=True)
class SearchResult:
    """What a search found and what it cost.

    Its fields::

      status           SOLVED, UNSOLVABLE (the goal is unreachable; nothing was searched) or
                       GAVE_UP (a node or time limit ended the search first)
      length, moves    the solution's number of moves and its U/D/L/R string (None unless SOLVED)
      optimal          whether the search guarantees that `length` is the shortest possible
      lower_bound      a proven lower bound on the shortest length: `length` when optimal, else
                       the most the search proved (h of the start at least; a weighted search's
                       length over its weight; IDA*'s last bound); None where the heuristic may
                       overestimate and has no admissible part, or the goal is unreachable
      bound_from       the admissible heuristic the lower bound rests on: the search's own, or,
                       where that may overestimate (a learned one), the maximum of its
                       admissible parts and features evaluated at the start (solvers/solve.py);
                       "" for an uninformed search or without a bound
      reason           why a search GAVE_UP; for the anytime search that SOLVED, why it stopped
                       improving its solution; "" otherwise
      found            (length, seconds from the start) of each better solution in the order
                       found: one for most searches, several for the anytime search
      interrupted      whether Ctrl-C (or SIGTERM, which the commands turn into KeyboardInterrupt)
                       ended the search early and it returned the best solution found so far
                       (SOLVED, `optimal` only if proven) instead of raising KeyboardInterrupt:
                       only the anytime search does, once it has a solution. The interrupt is
                       reported this way, not consumed: a caller that goes on must stop as on
                       KeyboardInterrupt (a batch writes no row for it)
      nodes_expanded   nodes whose children were generated
      nodes_generated  children generated (after move pruning: see solvers/search/move_pruning.py)
      nodes_stored     states a search that stores them held at its end (A* and the other
                       best-first searches, the bidirectional ones in both stores together): its
                       memory; 0 for the searches that store none (IDA*, depth-first)
      initial_h        the heuristic's value at the start state
      iterations       the passes of a deepening search, in order (empty for other searches)
      bpmx             whether the search applied BPMX (bidirectional pathmax, IDA* and A*)
      bpmx_raises      how often a child's h raised its parent's (0 without BPMX)
      bpmx_cutoffs     how often that raised the parent's f above IDA*'s bound, which left the
                       parent at once (A* has no bound: 0)
      frontiers        a bidirectional search's counts in each direction and where its
                       searches met (Frontiers); None for the others
    """

    status: str
    algorithm: str
    heuristic: str
    length: int | None = None
    moves: str | None = None
    optimal: bool = False
    nodes_expanded: int = 0
    nodes_generated: int = 0
    nodes_stored: int = 0
    seconds: float = 0.0
    initial_h: int = 0
    iterations: tuple[Iteration, ...] = field(default=())
    reason: str = ""
    bpmx: bool = False
    bpmx_raises: int = 0
    bpmx_cutoffs: int = 0
    lower_bound: int | None = None
    bound_from: str = ""
    found: tuple[tuple[int, float], ...] = field(default=())
    interrupted: bool = False
    frontiers: Frontiers | None = None

    @property
    def solvable(self) -> bool:
        return self.status != UNSOLVABLE

    @property
    def suboptimality(self) -> float | None:
        """The guaranteed bound on length / shortest length that the lower bound implies (1.0
        for a proven optimum); None without a solution or a positive lower bound."""
        if self.length is None or self.lower_bound is None:
            return None
        if self.lower_bound == self.length:
            return 1.0
        return self.length / self.lower_bound if self.lower_bound > 0 else None

    def to_dict(self) -> dict:
        record = asdict(self)
        record["solvable"] = self.solvable
        record["suboptimality"] = self.suboptimality
        return record


# Why a search gave up, in the words every search uses: the anytime search reads them back
# (at_limit, proved_none_shorter), so they are written here only.
TIME_LIMIT_REASON, NODE_LIMIT_REASON, NONE_SHORTER_REASON = "time limit", "node limit", "no solution shorter"


def time_limit_reason(time_limit: float) -> str:
    return f"{TIME_LIMIT_REASON} of {time_limit:g} s reached"


def node_limit_reason(node_limit: int, counted: str) -> str:
    """The node limit reached, naming what it counts ("expanded", "stored", "held" nodes)."""
    return f"{NODE_LIMIT_REASON} of {node_limit:,} {counted} reached"


def limit_reason(late: bool, time_limit: float | None, node_limit: int, counted: str) -> str:
    """Why a kernel stopped at a limit: the time limit if it expired (`late`), else the node limit."""
    return time_limit_reason(time_limit) if late else node_limit_reason(node_limit, counted)


def none_shorter_reason(length: int) -> str:
    return f"{NONE_SHORTER_REASON} than {length} moves exists"


def at_node_limit(result: SearchResult) -> bool:
    """Whether `result` gave up at its node limit."""
    return result.status == GAVE_UP and result.reason.startswith(NODE_LIMIT_REASON)


def at_limit(result: SearchResult) -> bool:
    """Whether `result` gave up at its time or node limit."""
    return result.status == GAVE_UP and result.reason.startswith((TIME_LIMIT_REASON, NODE_LIMIT_REASON))


def proved_none_shorter(result: SearchResult) -> bool:
    """Whether `result` gave up having proved that no solution is shorter than its bound."""
    return result.status == GAVE_UP and result.reason.startswith(NONE_SHORTER_REASON)


def moves_to_text(move_codes: np.ndarray) -> str:
    """Move codes 0..3 as a U/D/L/R string."""
    return "".join(MOVE_LETTERS[int(code)] for code in move_codes)


def undone(moves: str) -> str:
    """The moves that lead back along `moves` (a U/D/L/R string): each undone, in reverse order."""
    return "".join(MOVE_LETTERS[inverse_move(MOVE_LETTERS.index(letter))] for letter in reversed(moves))


def checked_start(puzzle: Puzzle, start, heuristic=None) -> np.ndarray:
    """`start` as a fresh uint8 state of `puzzle`; a one-line InputError if it is not one (wrong
    length, tiles out of range or repeated), or if `heuristic` was built for another board or
    goal. Every public search calls it first."""
    if heuristic is not None:
        heuristic.check_for(puzzle)
    return puzzle.state(start, "start state")


def verified(puzzle: Puzzle, start: np.ndarray, result: SearchResult) -> SearchResult:
    """Return `result` after replaying its solution from `start` (SolutionError if it is wrong)."""
    if result.status == SOLVED:
        puzzle.check_solution(start, result.moves, result.length)
    return result


def unsolvable_result(algorithm: str, heuristic: str) -> SearchResult:
    return SearchResult(
        UNSOLVABLE, algorithm, heuristic, reason="the goal cannot be reached from this state"
    )


def search_result(
    algorithm: str,
    heuristic: str,
    solution: str | None,
    *,
    optimal: bool,
    nodes_expanded: int,
    nodes_generated: int,
    seconds: float,
    initial_h: int,
    reason: str,
    nodes_stored: int = 0,
    iterations: tuple[Iteration, ...] = (),
    bpmx: tuple[bool, int, int] = (False, 0, 0),
    admissible: bool = True,
    proven: int = 0,
) -> SearchResult:
    """A SOLVED result for `solution` (a U/D/L/R string), or GAVE_UP with `reason` when it is None;
    `bpmx` is (applied, raises, cutoffs). With an `admissible` heuristic the lower bound is the
    length when `optimal`, else the larger of `initial_h` and `proven` (what the search proved
    about the shortest length)."""
    solved = solution is not None
    return SearchResult(
        SOLVED if solved else GAVE_UP,
        algorithm,
        heuristic,
        length=len(solution) if solved else None,
        moves=solution,
        optimal=solved and optimal,
        nodes_expanded=int(nodes_expanded),
        nodes_generated=int(nodes_generated),
        nodes_stored=int(nodes_stored),
        seconds=seconds,
        initial_h=int(initial_h),
        iterations=iterations,
        reason="" if solved else reason,
        bpmx=bool(bpmx[0]),
        bpmx_raises=int(bpmx[1]),
        bpmx_cutoffs=int(bpmx[2]),
        lower_bound=(len(solution) if solved and optimal else max(int(initial_h), int(proven))) if admissible
        else None,
        found=((len(solution), seconds),) if solved else (),
    )
