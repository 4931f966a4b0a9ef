"""reverse_astar.py -- reverse A*: A* from the goal toward the start, the baseline of the bidirectional searches.

The same search as A* (astar.py, the best-first kernel on g + h, ties toward the larger g by
default) run on the board whose goal is the start state, from the puzzle's goal, with the
heuristic's spec built toward the start (bidirectional.heuristic_toward). Its path, read
backward with every move undone, solves the start. On some instances it expands far fewer
nodes than A* forward: how hard a search is depends on the heuristic's values around both ends.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.best_first import AUTO, TIE_BREAK, best_first, best_first_settings
from solvers.search.bidirectional import TOWARD_TABLES, heuristic_toward
from solvers.search.registry import BPMX, MEMORY, NODE_LIMIT, TIME_LIMIT, Search, register
from solvers.search.result import SearchResult, checked_start, undone, unsolvable_result, verified


def reverse_astar(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, node_limit: int | None = None,
                  time_limit: float | None = None, bpmx: bool | None = None, tie_break: str = AUTO,
                  memory: float | None = None, toward_tables: str | Path | None = None) -> SearchResult:
    """The shortest solution from `start` by A* from the goal toward `start`, with `heuristic`'s
    spec built toward `start` (its tables kept in `toward_tables` if given, as
    bidirectional.heuristic_toward says), replayed and checked on `puzzle`; limits, BPMX and
    ties as for A* (astar.py). Its initial h is the heuristic's at the goal toward the start."""
    start = checked_start(puzzle, start, heuristic)
    if not puzzle.is_solvable(start):
        return unsolvable_result("reverse-astar", heuristic.name)
    with heuristic_toward(heuristic, start, "reverse-astar", toward_tables) as toward_start:
        backward = best_first(toward_start.puzzle, puzzle.goal.copy(), toward_start, "reverse-astar", (1, 1),
                              reopen=not toward_start.consistent, tie_break=tie_break, node_limit=node_limit,
                              time_limit=time_limit, bpmx=bpmx, memory=memory)
    if backward.moves is None:
        return dataclasses.replace(backward, heuristic=heuristic.name)
    moves = undone(backward.moves)
    solved = dataclasses.replace(backward, heuristic=heuristic.name, moves=moves)
    return verified(puzzle, start, solved)


register(Search(
    "reverse-astar", "reverse A*: A* from the goal toward the start, the heuristic built toward the start; optimal "
    "with an admissible heuristic", reverse_astar, informed=True, family="best-first",
    options=(BPMX, TIE_BREAK, NODE_LIMIT, MEMORY, TIME_LIMIT, TOWARD_TABLES), setting_fields=("bpmx", "tie_break"),
    settings=best_first_settings,
))
