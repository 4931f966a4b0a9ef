"""bwas.py -- batched weighted A* (Agostinelli et al. 2019, DeepCubeA's search): the B best open nodes expanded at once.

Weighted A* on g + W * h that takes the B nodes of least priority from the open list together
and expands them all before it takes more (best_first.py's `batch`), as DeepCubeA's search
does to evaluate a learned heuristic on a whole batch of children at once. DeepCubeA writes
the priority as lambda * g + h with lambda at most 1: that is W = 1 / lambda here (its runs
on the sliding-tile puzzles, lambda = 0.8 and B = 20,000, are `--weight 1.25 --batch-size
20000`). It ends when it takes the goal from the open list; a batch may hold the goal behind
nodes of much smaller priority, so for B > 1 the length has no bound, not even W times the
shortest, and the result's lower bound is only what its open nodes prove when it gives up
(with reopening, which it applies wherever the heuristic may be inconsistent, as weighted A*
does). B = 1 is weighted A* itself.
"""

from __future__ import annotations

import numpy as np

from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.best_first import AUTO, TIE_BREAK, best_first
from solvers.search.registry import BPMX, MEMORY, NODE_LIMIT, TIME_LIMIT, Option, Search, register
from solvers.search.result import SearchResult
from solvers.search.wastar import DEFAULT_WEIGHT, WEIGHT, integer_weights, weighted_best_first_settings

DEFAULT_BATCH_SIZE = 20_000  # DeepCubeA's on the sliding-tile puzzles
BATCH_SIZE = Option("batch_size", "count", f"batched weighted A*'s nodes taken from the open list at once and "
                    f"expanded together (default {DEFAULT_BATCH_SIZE:,}, DeepCubeA's)", "a batch size applies",
                    DEFAULT_BATCH_SIZE)


def batched_weighted_astar(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, weight: float = DEFAULT_WEIGHT,
                           batch_size: int = DEFAULT_BATCH_SIZE, node_limit: int | None = None,
                           time_limit: float | None = None, bpmx: bool | None = None, tie_break: str = AUTO,
                           memory: float | None = None) -> SearchResult:
    """Some solution from `start` by batched weighted A* on g + `weight` * h, `batch_size` nodes
    taken at a time, replayed and checked; limits, BPMX and ties as for weighted A*
    (wastar.py). Never marked optimal for a batch of more than one node."""
    return best_first(puzzle, start, heuristic, "bwas", integer_weights(weight), reopen=not heuristic.consistent,
                      tie_break=tie_break, node_limit=node_limit, time_limit=time_limit, bpmx=bpmx, memory=memory,
                      batch=batch_size)


def _settings(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of batched weighted A*: its weight, BPMX, ties and batch size."""
    return {**weighted_best_first_settings(heuristic, options), "batch_size": str(options["batch_size"])}


register(Search(
    "bwas", "batched weighted A* (DeepCubeA's search): the B best open nodes expanded at once, on g + W * h",
    batched_weighted_astar, informed=True, family="best-first",
    options=(WEIGHT, BATCH_SIZE, BPMX, TIE_BREAK, NODE_LIMIT, MEMORY, TIME_LIMIT),
    setting_fields=("weight", "bpmx", "tie_break", "batch_size"), settings=_settings,
))
