"""greedy.py -- greedy best-first search: always expand the stored node of least h, whatever its path's length.

The fastest way to some solution with a good heuristic, and no bound on how long it is: the
priority ignores g. The kernel is the best-first one (best_first.py) with the priority weights
(0, 1); every state is stored once and expanded at most once (no reopening: the priority
ignores g, so a shorter path to a closed node would only re-expand its subtree), and an open
node reached by a shorter path keeps the shorter one. Ties among equal h go by default toward
the smaller g, at random among equal g (`tie_break`, best_first.py says why), and `explore` adds type-based exploration's
draws (Xie, Müller & Holte 2014; type_buckets.py). The search is complete on every board it can
hold; the result's lower bound is h of the start.
"""

from __future__ import annotations

import numpy as np

from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.best_first import AUTO, EXPLORE, TIE_BREAK, best_first, greedy_settings
from solvers.search.registry import BPMX, MEMORY, NODE_LIMIT, TIME_LIMIT, Search, register
from solvers.search.result import SearchResult


def greedy_best_first(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, node_limit: int | None = None,
                      time_limit: float | None = None, bpmx: bool | None = None,
                      tie_break: str = AUTO, explore: float = 0.0, memory: float | None = None) -> SearchResult:
    """Some solution from `start` by greedy best-first search on h, replayed and checked;
    limits and BPMX as for A* (astar.py); `tie_break` and `explore` (the chance, below 1, of
    expanding a node drawn by type instead of a best one) as best_first.py says. Never marked
    optimal."""
    return best_first(puzzle, start, heuristic, "greedy", (0, 1), reopen=False, tie_break=tie_break,
                      node_limit=node_limit, time_limit=time_limit, bpmx=bpmx, explore=explore, memory=memory)


def _settings(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of greedy search: BPMX, its tie-breaking and its draws by type."""
    return {**greedy_settings(heuristic, options), "explore": f"{options['explore']:g}"}


register(Search(
    "greedy", "greedy best-first: the stored node of least h first; fast, no bound on the length", greedy_best_first,
    informed=True, family="best-first", options=(BPMX, TIE_BREAK, EXPLORE, NODE_LIMIT, MEMORY, TIME_LIMIT),
    setting_fields=("bpmx", "tie_break", "explore"), settings=_settings,
))
