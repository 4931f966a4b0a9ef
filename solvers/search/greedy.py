"""greedy.py -- greedy best-first search: always expand the stored node of least h, whatever its path's length.

The fastest way to some solution with a good heuristic, and no bound on how long it is: the
priority ignores g. The kernel is A*'s (astar.py) with the priority weights (0, 1); nodes are
stored once each (duplicate detection), so the search is complete on every board it can hold.
The result's lower bound is h of the start.
"""

from __future__ import annotations

import numpy as np

from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.astar import best_first
from solvers.search.depth_first import bpmx_setting
from solvers.search.registry import BPMX, NODE_LIMIT, TIME_LIMIT, Search, register
from solvers.search.result import SearchResult


def greedy_best_first(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, node_limit: int | None = None,
                      time_limit: float | None = None, bpmx: bool | None = None) -> SearchResult:
    """Some solution from `start` by greedy best-first search on h, replayed and checked;
    limits and BPMX as for A* (astar.py). Never marked optimal."""
    return best_first(puzzle, start, heuristic, "greedy", (0, 1), node_limit=node_limit, time_limit=time_limit,
                      bpmx=bpmx)


register(Search(
    "greedy", "greedy best-first: the stored node of least h first; fast, no bound on the length", greedy_best_first,
    informed=True, options=(BPMX, NODE_LIMIT, TIME_LIMIT), setting_fields=("bpmx",), settings=bpmx_setting,
))
