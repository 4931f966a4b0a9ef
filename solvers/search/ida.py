"""ida.py -- IDA* (Korf 1985): iterative deepening on f = g + h with an admissible heuristic."""

from __future__ import annotations

import numpy as np

from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.depth_first import deepening_search
from solvers.search.result import SearchResult, checked_start, unsolvable_result, verified


def ida_star(
    puzzle: Puzzle,
    start: np.ndarray,
    heuristic: Heuristic,
    *,
    node_limit: int = 0,
    time_limit: float | None = None,
) -> SearchResult:
    """Shortest solution from `start` by IDA* with `heuristic`, replayed and checked.

    Returns status UNSOLVABLE without searching when the goal cannot be reached, and GAVE_UP
    when `node_limit` (nodes expanded, 0 = none) or `time_limit` (seconds, checked between
    iterations) ends the search first.
    """
    start = checked_start(puzzle, start, heuristic)
    if not puzzle.is_solvable(start):
        return unsolvable_result("ida", heuristic.name)
    result = deepening_search(
        puzzle, start, heuristic, "ida", node_limit=node_limit, time_limit=time_limit
    )
    return verified(puzzle, start, result)
