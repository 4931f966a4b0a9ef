"""anytime.py -- anytime search: a first solution by greedy search, then restarting weighted A* (Richter, Thayer & Ruml 2010) with ever smaller weights.

The first run is greedy best-first search (greedy.py), which answers quickly on every board the
toolkit holds. While time is left, weighted A* (wastar.py) runs again from the start with
weight W, then halfway to 1 each time, then 1, each run pruned by the best length so far: a
child with g + h at least that length is not stored, so every run seeks only shorter solutions
and stores far fewer nodes than an unpruned one. Each run proves something: a solution of
length L at weight w means the shortest is at least ceil(L / w), and a run that exhausts its
pruned space proves (with an admissible h) that no shorter solution exists. A run that reaches
the node limit is followed by the next, smaller weight only if time is left: the pruning bound
is then tighter, so it may succeed where the last failed.

The search ends when the time limit is reached, when the weights are used up, or as soon as the
best solution meets the best lower bound (then it is optimal). The result lists every better
solution with its time (`found`), the clock started once the kernels are compiled. Ctrl-C
(KeyboardInterrupt) after the first solution ends it too: the best so far is returned, marked
`interrupted`.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.best_first import AUTO, TIE_BREAK, prepare
from solvers.search.greedy import greedy_best_first
from solvers.search.registry import BPMX, MEMORY, NODE_LIMIT, TIME_LIMIT, Search, register
from solvers.search.result import GAVE_UP, SOLVED, SearchResult
from solvers.search.wastar import DEFAULT_WEIGHT, WEIGHT, weighted_astar, weighted_best_first_settings

LAST_STEP = 0.05  # a weight this close to 1 is followed by 1 itself
GREEDY = None  # the weight of the first run: greedy search


def weights_from(weight: float) -> list[float]:
    """The weights of the weighted runs: `weight`, then halfway to 1 each time, then 1."""
    weights = [weight]
    while weights[-1] > 1.0:
        following = 1.0 + (weights[-1] - 1.0) / 2
        weights.append(following if following - 1.0 >= LAST_STEP else 1.0)
    return weights


def one_run(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, weight: float | None, shorter_than: int | None,
            **limits) -> SearchResult:
    """One run of the anytime search: greedy search for `weight` GREEDY, else weighted A* at
    `weight` seeking only solutions shorter than `shorter_than` (None: any)."""
    if weight is GREEDY:
        return greedy_best_first(puzzle, start, heuristic, **limits)
    return weighted_astar(puzzle, start, heuristic, weight=weight, prune_at=shorter_than, **limits)


def anytime_search(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, weight: float = DEFAULT_WEIGHT,
                   node_limit: int | None = None, time_limit: float | None = None,
                   bpmx: bool | None = None, tie_break: str = AUTO, memory: float | None = None) -> SearchResult:
    """The shortest solution from `start` that the anytime search (see the module docstring)
    finds within `time_limit` seconds (None: until the weights are used up), each run storing at
    most `node_limit` nodes (or what `memory` GiB hold); replayed and checked. Marked optimal when it meets the best lower
    bound; `lower_bound` is the best over the runs.

    A KeyboardInterrupt (Ctrl-C) before the first solution propagates, as from any search; one
    after it ends the search with the best solution so far, `interrupted` set (its node counts
    those of the completed runs): the caller decides what an interrupted search means for it."""
    prepare(puzzle, heuristic, bpmx)
    began = time.perf_counter()
    best: SearchResult | None = None
    bound, found, expanded, generated = 0, [], 0, 0
    result: SearchResult | None = None
    interrupted = False
    try:
        for run_weight in [GREEDY, *weights_from(weight)]:
            # the first run has the whole limit (a limit shorter than the set-up before it still runs it)
            left = time_limit if time_limit is None or result is None else time_limit - (time.perf_counter() - began)
            if left is not None and left <= 0:
                break
            shorter_than = None if best is None or not heuristic.admissible else best.length
            result = one_run(puzzle, start, heuristic, run_weight, shorter_than, node_limit=node_limit,
                             time_limit=left, bpmx=bpmx, tie_break=tie_break, memory=memory)
            expanded += result.nodes_expanded
            generated += result.nodes_generated
            bound = max(bound, _proven(result, shorter_than))
            if result.status == SOLVED and (best is None or result.length < best.length):
                moment = round(time.perf_counter() - began, 6)
                # one assignment, so that an interrupt never leaves `found` out of step with `best`
                best, found = result, [*found, (result.length, moment)]
            if best is None or best.length <= bound or _out_of_time(result):
                break  # no solution to improve, nothing shorter can exist, or no time left
    except KeyboardInterrupt:
        if best is None:
            raise  # nothing to keep
        interrupted = True
    outcome = best if best is not None else result
    proven_optimal = outcome.status == SOLVED and heuristic.admissible and outcome.length <= bound
    return dataclasses.replace(
        outcome, algorithm="anytime", nodes_expanded=expanded, nodes_generated=generated,
        seconds=time.perf_counter() - began, found=tuple(found), interrupted=interrupted, optimal=proven_optimal,
        lower_bound=(outcome.length if proven_optimal else bound) if heuristic.admissible else None,
        reason=outcome.reason if outcome.status == GAVE_UP else "",
    )


def _proven(result: SearchResult, shorter_than: int | None) -> int:
    """The lower bound on the shortest length that a run proved: its own, or `shorter_than`
    when it searched its whole pruned space without a solution."""
    if result.status == GAVE_UP and shorter_than is not None and result.reason.startswith("no solution shorter"):
        return shorter_than
    return result.lower_bound or 0


def _out_of_time(result: SearchResult) -> bool:
    return result.status == GAVE_UP and result.reason.startswith("time limit")


register(Search(
    "anytime", "anytime: a greedy solution, then weighted A* from weight W down to 1, each run seeking a shorter one",
    anytime_search, informed=True, options=(WEIGHT, BPMX, TIE_BREAK, NODE_LIMIT, MEMORY, TIME_LIMIT),
    setting_fields=("weight", "bpmx", "tie_break"), settings=weighted_best_first_settings,
))
