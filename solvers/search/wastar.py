"""wastar.py -- weighted A* (Pohl 1970): best first on f = g + W * h, a solution at most W times the shortest.

With an admissible heuristic and W >= 1, the first goal taken from the open list is at most
W times longer than the shortest solution: every node that the search orders before it has
g + W * h no larger than W times the optimum. A larger W expands fewer nodes and finds longer
solutions; W = 1 is A*. The kernel is A*'s (astar.py) with integer priority weights (a, b),
b / a = W to 1 / WEIGHT_DENOMINATOR in lowest terms (integer_weights, shared with weighted IDA*).
"""

from __future__ import annotations

import math

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.astar import best_first
from solvers.search.depth_first import bpmx_setting
from solvers.search.registry import BPMX, NODE_LIMIT, TIME_LIMIT, Option, Search, register
from solvers.search.result import SearchResult

WEIGHT_DENOMINATOR = 1000
MAX_WEIGHT = 1000.0  # the priority must fit in the heap key beside g
DEFAULT_WEIGHT = 2.0
WEIGHT = Option("weight", "number", f"weighted searches' weight W on h (default {DEFAULT_WEIGHT:g}): a solution of "
                "at most W times the shortest length", "a weight applies", DEFAULT_WEIGHT)


def weighted_astar(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, weight: float = DEFAULT_WEIGHT,
                   node_limit: int | None = None, time_limit: float | None = None,
                   bpmx: bool | None = None) -> SearchResult:
    """A solution from `start` of at most `weight` times the shortest length (with an admissible
    heuristic), by weighted A*, replayed and checked; limits and BPMX as for A* (astar.py).
    The result is marked optimal only for weight 1."""
    return best_first(puzzle, start, heuristic, "wastar", integer_weights(weight), node_limit=node_limit,
                      time_limit=time_limit, bpmx=bpmx)


def integer_weights(weight: float) -> tuple[int, int]:
    """(a, b) in lowest terms with b / a = `weight` to 1 / WEIGHT_DENOMINATOR; a one-line
    InputError unless 1 <= weight <= MAX_WEIGHT (the range of weighted A*)."""
    if not 1.0 <= weight <= MAX_WEIGHT:
        raise InputError(f"the weight must lie in 1..{MAX_WEIGHT:g}, not {weight:g}")
    scaled = round(weight * WEIGHT_DENOMINATOR)
    common = math.gcd(WEIGHT_DENOMINATOR, scaled)
    return WEIGHT_DENOMINATOR // common, scaled // common


def weight_settings(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of a weighted search: its weight and whether BPMX applied."""
    return {"weight": f"{options['weight']:g}", **bpmx_setting(heuristic, options)}


register(Search(
    "wastar", "weighted A*: best first on g + W * h; a solution at most W times the shortest", weighted_astar,
    informed=True, options=(WEIGHT, BPMX, NODE_LIMIT, TIME_LIMIT), setting_fields=("weight", "bpmx"),
    settings=weight_settings,
))
