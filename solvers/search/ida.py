"""ida.py -- IDA* (Korf 1985): iterative deepening on f = g + h with an admissible heuristic."""

from __future__ import annotations

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.depth_first import bpmx_setting, deepening_search
from solvers.search.move_pruning import DEFAULT_PRUNE
from solvers.search.parallel_ida import parallel_ida_star
from solvers.search.registry import (
    BPMX, EXECUTOR, FULL_LAST_ITERATION, NODE_LIMIT, PRUNE, THREADS, TIME_LIMIT, Search, register,
)
from solvers.search.result import SearchResult, checked_start, unsolvable_result, verified


def ida_star(
    puzzle: Puzzle,
    start: np.ndarray,
    heuristic: Heuristic,
    *,
    prune: str = DEFAULT_PRUNE,
    full_last_iteration: bool = False,
    bpmx: bool | None = None,
    node_limit: int = 0,
    time_limit: float | None = None,
) -> SearchResult:
    """Shortest solution from `start` by IDA* with `heuristic`, replayed and checked.

    `prune` names the move strings never tried (solvers/search/move_pruning.py: none, parent
    or fsm). With `full_last_iteration` the last iteration is completed: every node with
    f <= the optimal length is expanded and counted, so the counters do not depend on the
    move order; the solution is still the first found. `bpmx` applies bidirectional pathmax
    (None: where the heuristic may be inconsistent; see solvers/search/depth_first.py); the
    result counts how often it raised a parent's h and cut a parent off. Returns status
    UNSOLVABLE without searching when the goal cannot be reached, and GAVE_UP when
    `node_limit` (nodes expanded, 0 = none) or `time_limit` (seconds) ends the search first.
    """
    start = checked_start(puzzle, start, heuristic)
    if not puzzle.is_solvable(start):
        return unsolvable_result("ida", heuristic.name)
    result = deepening_search(
        puzzle, start, heuristic, "ida", prune=prune, full_last_iteration=full_last_iteration, bpmx=bpmx,
        node_limit=node_limit, time_limit=time_limit,
    )
    return verified(puzzle, start, result)


def _run(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, prune: str = DEFAULT_PRUNE,
         full_last_iteration: bool = False, bpmx: bool | None = None, node_limit: int | None = None,
         time_limit: float | None = None, threads: int = 1, executor=None) -> SearchResult:
    """IDA* as the registry runs it: on one thread, or split over `threads` threads or the
    tasks of `executor` (parallel_ida.py, which takes no node limit)."""
    if threads < 1:
        raise InputError(f"the number of threads must be at least 1, not {threads}")
    if threads == 1 and executor is None:
        return ida_star(puzzle, start, heuristic, prune=prune, full_last_iteration=full_last_iteration, bpmx=bpmx,
                        node_limit=node_limit or 0, time_limit=time_limit)
    if node_limit is not None:
        raise InputError("a node limit is not supported with parallel search; use --time-limit")
    return parallel_ida_star(puzzle, start, heuristic, threads=threads, prune=prune,
                             full_last_iteration=full_last_iteration, bpmx=bpmx, time_limit=time_limit,
                             executor=executor)


def deepening_settings(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of a deepening search: its move pruning, whether it completed
    the last iteration, and whether BPMX applied."""
    return {"prune": options["prune"], "full_last_iteration": "yes" if options["full_last_iteration"] else "no",
            **bpmx_setting(heuristic, options)}


register(Search(
    "ida", "IDA*: iterative deepening on f = g + h; optimal with an admissible heuristic", _run, informed=True, family="depth-first",
    options=(PRUNE, FULL_LAST_ITERATION, BPMX, NODE_LIMIT, TIME_LIMIT, THREADS, EXECUTOR),
    setting_fields=("prune", "full_last_iteration", "bpmx"), settings=deepening_settings,
))
