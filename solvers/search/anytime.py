"""anytime.py -- anytime search: restarting weighted A* (Richter, Thayer & Ruml 2010) with ever smaller weights.

It starts as weighted A* with weight W (wastar.py) and, while time is left, searches again from
scratch with a smaller weight (halfway to 1 each time, then 1), keeping the shortest solution
found. Each run proves something: its solution of length L at weight w means the shortest is at
least ceil(L / w). The search ends when the time limit is reached, when a run at weight 1 (A*)
ends, or as soon as the best solution meets the best lower bound (then it is optimal). The
result lists every better solution with its time (`found`). Ctrl-C (KeyboardInterrupt) after
the first solution ends it too: the best so far is returned, marked `interrupted`.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.registry import BPMX, NODE_LIMIT, TIME_LIMIT, Search, register
from solvers.search.result import GAVE_UP, SOLVED, SearchResult
from solvers.search.wastar import DEFAULT_WEIGHT, WEIGHT, weight_settings, weighted_astar

LAST_STEP = 0.05  # a weight this close to 1 is followed by 1 itself


def weights_from(weight: float) -> list[float]:
    """The weights of the runs: `weight`, then halfway to 1 each time, then 1."""
    weights = [weight]
    while weights[-1] > 1.0:
        following = 1.0 + (weights[-1] - 1.0) / 2
        weights.append(following if following - 1.0 >= LAST_STEP else 1.0)
    return weights


def anytime_search(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, weight: float = DEFAULT_WEIGHT,
                   node_limit: int | None = None, time_limit: float | None = None,
                   bpmx: bool | None = None) -> SearchResult:
    """The shortest solution from `start` that restarting weighted A* finds within `time_limit`
    seconds (None: until a run at weight 1 ends), each run storing at most `node_limit` nodes;
    replayed and checked. Marked optimal when a run at weight 1 found it or when it meets the
    best lower bound; `lower_bound` is the best over the runs.

    A KeyboardInterrupt (Ctrl-C) before the first solution propagates, as from any search; one
    after it ends the search with the best solution so far, `interrupted` set (its node counts
    those of the completed runs): the caller decides what an interrupted search means for it."""
    began = time.perf_counter()
    best: SearchResult | None = None
    bound, found, expanded, generated = 0, [], 0, 0
    result: SearchResult | None = None
    interrupted = False
    try:
        for run_weight in weights_from(weight):
            # the first run has the whole limit (a limit shorter than the set-up before it still runs it)
            left = time_limit if time_limit is None or result is None else time_limit - (time.perf_counter() - began)
            if left is not None and left <= 0:
                break
            result = weighted_astar(puzzle, start, heuristic, weight=run_weight, node_limit=node_limit,
                                    time_limit=left, bpmx=bpmx)
            expanded += result.nodes_expanded
            generated += result.nodes_generated
            if result.lower_bound is not None:
                bound = max(bound, result.lower_bound)
            if result.status == SOLVED and (best is None or result.length < best.length):
                moment = round(time.perf_counter() - began, 6)
                # one assignment, so that an interrupt never leaves `found` out of step with `best`
                best, found = result, [*found, (result.length, moment)]
            if result.status != SOLVED or result.optimal or (best is not None and best.length <= bound):
                break  # out of time or nodes, or nothing shorter can exist
    except KeyboardInterrupt:
        if best is None:
            raise  # nothing to keep
        interrupted = True
    outcome = best if best is not None else result
    return dataclasses.replace(
        outcome, algorithm="anytime", nodes_expanded=expanded, nodes_generated=generated,
        seconds=time.perf_counter() - began, found=tuple(found), interrupted=interrupted,
        optimal=outcome.status == SOLVED and heuristic.admissible and (outcome.optimal or outcome.length <= bound),
        lower_bound=(outcome.length if outcome.status == SOLVED and outcome.length <= bound else bound)
        if heuristic.admissible else None,
        reason=outcome.reason if outcome.status == GAVE_UP else "",
    )


register(Search(
    "anytime", "anytime: weighted A* from weight W, again with smaller weights while time is left, the best kept",
    anytime_search, informed=True, options=(WEIGHT, BPMX, NODE_LIMIT, TIME_LIMIT),
    setting_fields=("weight", "bpmx"), settings=weight_settings,
))
