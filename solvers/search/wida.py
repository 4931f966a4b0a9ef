"""wida.py -- weighted IDA*: iterative deepening on f = g + W * h, a solution at most W times the shortest.

IDA*'s kernel (depth_first.py) with the bound on f = a * g + b * h for integer weights in
lowest terms with b / a = W, honoured to 1 / WEIGHT_DENOMINATOR as in weighted A* (wastar.py,
whose `--weight` option it shares): the first bound is b * h(start), each next one the least
f above the last. With an admissible heuristic and W >= 1, every node of a shortest path
(length C) has f <= b * C, so some pass with a bound of at most b * C finds a solution of
length L with a * L <= that bound: L <= W * C. The lower bound is what the passes proved:
none before the last found a path whose f stays below the last bound B, so b * C >= B, and
the shortest length is at least ceil(B / b), which is at least h(start) and ceil(L / W). The
passes' bounds (`iterations`) are values of f, in which a move counts a (1 for W = 1, which
is IDA*: the same passes and counts).

A larger W finds longer solutions and, well above 1, expands fewer nodes than IDA*. Closer to
1, f takes finer values than IDA*'s g + h, the bound rises in smaller steps and the passes
multiply, so that a weight near 1 can expand more nodes than IDA* itself.
"""

from __future__ import annotations

import numpy as np

from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.depth_first import deepening_search
from solvers.search.ida import deepening_settings
from solvers.search.move_pruning import DEFAULT_PRUNE
from solvers.search.registry import FULL_LAST_ITERATION, NODE_LIMIT, PRUNE, TIME_LIMIT, Search, register
from solvers.search.result import SearchResult, checked_start, unsolvable_result, verified
from solvers.search.wastar import DEFAULT_WEIGHT, WEIGHT, integer_weights, weight_setting


def weighted_ida_star(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, weight: float = DEFAULT_WEIGHT,
                      prune: str = DEFAULT_PRUNE, full_last_iteration: bool = False, node_limit: int | None = None,
                      time_limit: float | None = None) -> SearchResult:
    """A solution from `start` of at most `weight` times the shortest length (with an admissible
    heuristic), by weighted IDA*, replayed and checked. `prune` and `full_last_iteration` are
    as for IDA* (ida.py); `node_limit` (nodes expanded) and `time_limit` (seconds) end the
    search as GAVE_UP, with the lower bound its passes proved. BPMX is not applied (the kernel
    does not combine it with weights). The result is marked optimal only for weight 1."""
    weights = integer_weights(weight)
    start = checked_start(puzzle, start, heuristic)
    if not puzzle.is_solvable(start):
        return unsolvable_result("wida", heuristic.name)
    result = deepening_search(puzzle, start, heuristic, "wida", prune=prune, full_last_iteration=full_last_iteration,
                              bpmx=False, node_limit=node_limit or 0, time_limit=time_limit, weights=weights)
    return verified(puzzle, start, result)


def _settings(heuristic: Heuristic, options: dict) -> dict:
    """IDA*'s settings (BPMX never applied) and the weight."""
    options = {**options, "bpmx": False}
    return {**deepening_settings(heuristic, options), **weight_setting(heuristic, options)}


register(Search(
    "wida", "weighted IDA*: iterative deepening on g + W * h; a solution at most W times the shortest",
    weighted_ida_star, informed=True, family="depth-first", options=(WEIGHT, PRUNE, FULL_LAST_ITERATION, NODE_LIMIT, TIME_LIMIT),
    setting_fields=("weight", "prune", "full_last_iteration", "bpmx"), settings=_settings,
))
