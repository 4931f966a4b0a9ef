"""wastar.py -- weighted A* (Pohl 1970): best first on f = g + W * h, a solution at most W times the shortest.

With an admissible heuristic and W >= 1, the first goal taken from the open list is at most
W times longer than the shortest solution: every node that the search orders before it has
g + W * h no larger than W times the optimum. A larger W expands fewer nodes and finds longer
solutions; W = 1 is A*. The kernel is the best-first one (best_first.py) with integer priority
weights (a, b), b / a = W in lowest terms, W a multiple of 1 / WEIGHT_DENOMINATOR
(integer_weights, shared with weighted IDA*). Closed nodes are reopened only where the heuristic may be inconsistent:
with a consistent one the bound holds without reopening (Likhachev, Gordon & Thrun 2003); a
run pruned by a cost bound reopens always, so that exhausting it proves no shorter solution.
"""

from __future__ import annotations

import math

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.best_first import AUTO, TIE_BREAK, best_first, best_first_settings
from solvers.search.registry import BPMX, MEMORY, NODE_LIMIT, TIME_LIMIT, Option, Search, register
from solvers.search.result import SearchResult

WEIGHT_DENOMINATOR = 1000
MAX_WEIGHT = 1000.0  # the weighted searches' range: b * h stays far inside int64
WEIGHT_TOLERANCE = 1e-6  # in thousandths: how far a decimal weight's binary value may lie from its multiple
DEFAULT_WEIGHT = 2.0
WEIGHT = Option("weight", "number", f"weighted searches' weight W on h (default {DEFAULT_WEIGHT:g}): a solution of "
                "at most W times the shortest length", "a weight applies", DEFAULT_WEIGHT)


def weighted_astar(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, weight: float = DEFAULT_WEIGHT,
                   node_limit: int | None = None, time_limit: float | None = None,
                   bpmx: bool | None = None, tie_break: str = AUTO,
                   prune_at: int | None = None, memory: float | None = None) -> SearchResult:
    """A solution from `start` of at most `weight` times the shortest length (with an admissible
    heuristic), by weighted A*, replayed and checked; limits, BPMX and ties as for A*
    (astar.py). `prune_at` (the Python API only) drops every child with g + h >= prune_at, so
    that only solutions shorter than it are sought. The result is marked optimal only for
    weight 1 without pruning."""
    return best_first(puzzle, start, heuristic, "wastar", integer_weights(weight), reopen=not heuristic.consistent or prune_at is not None,
                      tie_break=tie_break, node_limit=node_limit, time_limit=time_limit, bpmx=bpmx, prune_at=prune_at,
                      memory=memory)


def integer_weights(weight: float) -> tuple[int, int]:
    """(a, b) in lowest terms with b / a = `weight`; a one-line InputError unless 1 <= weight <=
    MAX_WEIGHT (the range of weighted A*) and `weight` is a multiple of 1 / WEIGHT_DENOMINATOR
    (a finer weight would silently run as a rounded one)."""
    if not 1.0 <= weight <= MAX_WEIGHT:
        raise InputError(f"the weight must lie in 1..{MAX_WEIGHT:g}, not {weight:g}")
    scaled = round(weight * WEIGHT_DENOMINATOR)
    if abs(weight * WEIGHT_DENOMINATOR - scaled) > WEIGHT_TOLERANCE:
        raise InputError(f"the weight must be a multiple of {1 / WEIGHT_DENOMINATOR:g} (the searches weigh h by "
                         f"whole thousandths), not {weight!r}")
    common = math.gcd(WEIGHT_DENOMINATOR, scaled)
    return WEIGHT_DENOMINATOR // common, scaled // common


def weight_setting(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of a weighted search's weight."""
    return {"weight": f"{options['weight']:g}"}


def weighted_best_first_settings(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of a weighted best-first search: its weight, whether BPMX
    applied and its tie-breaking."""
    return {**weight_setting(heuristic, options), **best_first_settings(heuristic, options)}


register(Search(
    "wastar", "weighted A*: best first on g + W * h; a solution at most W times the shortest", weighted_astar,
    informed=True, family="best-first", options=(WEIGHT, BPMX, TIE_BREAK, NODE_LIMIT, MEMORY, TIME_LIMIT),
    setting_fields=("weight", "bpmx", "tie_break"),
    settings=weighted_best_first_settings,
))
