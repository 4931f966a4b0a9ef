"""greedy.py -- greedy best-first search: always expand the stored node of least h, whatever its path's length.

The fastest way to some solution with a good heuristic, and no bound on how long it is: the
priority ignores g. The kernel is the best-first one (best_first.py) with the priority weights
(0, 1); every state is stored once and expanded at most once (no reopening: the priority
ignores g, so a shorter path to a closed node would only re-expand its subtree), and an open
node reached by a shorter path keeps the shorter one. Ties among equal h go by default toward
the smaller g, at random among equal g (`tie_break`, best_first.py says why), and `explore` adds type-based exploration's
draws (Xie, Müller & Holte 2014; type_buckets.py). Where ties or draws are random it restarts by
default (`restarts`, restarts.py): on large boards its random choices decide most of its cost,
and runs with other choices and budgets of stored nodes that grow as Luby's sequence answer where one
run wanders (docs/developer/lab-notes.md, "Greedy search restarted"). The search is complete on
every board it can hold; the result's lower bound is h of the start.
"""

from __future__ import annotations

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.best_first import AUTO, EXPLORE, RANDOM_TIES, TIE_BREAK, checked_search, greedy_settings, \
    prepare, stored_search, tie_rule
from solvers.search.registry import BPMX, MEMORY, NODE_LIMIT, TIME_LIMIT, Option, Search, register
from solvers.search.restarts import restarting
from solvers.search.result import SearchResult, unsolvable_result

# The first run's budget of stored nodes (the unit of Luby's sequence). Of the first 20 uniformly
# random 7x7 and 8x8 states, a run of greedy search that finds a solution mostly does so within
# this many stored nodes (docs/developer/lab-notes.md, "Greedy search restarted").
RESTART_UNIT = 100_000


def greedy_best_first(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, node_limit: int | None = None,
                      time_limit: float | None = None, bpmx: bool | None = None,
                      tie_break: str = AUTO, explore: float = 0.0, restarts: bool | None = None,
                      memory: float | None = None) -> SearchResult:
    """Some solution from `start` by greedy best-first search on h, replayed and checked;
    limits and BPMX as for A* (astar.py), the node limit (or `memory`) bounding each run and the
    time limit all of them; `tie_break` and `explore` (the chance, below 1, of expanding a node
    drawn by type instead of a best one) as best_first.py says; `restarts` (None: where ties or
    draws are random) runs again with other random choices as restarts.py says. Never marked
    optimal."""
    restart = restarts_apply(restarts, tie_break, explore)
    start, max_nodes = checked_search(puzzle, start, heuristic, "greedy", node_limit, memory, explore)
    if not puzzle.is_solvable(start):
        return unsolvable_result("greedy", heuristic.name)

    def run_once(run: int, budget: int, left: float | None) -> SearchResult:
        return stored_search(puzzle, start, heuristic, "greedy", (0, 1), budget, reopen=False, tie_break=tie_break,
                             time_limit=left, bpmx=bpmx, explore=explore, run=run)

    if not restart:
        return run_once(0, max_nodes, time_limit)
    prepare(puzzle, heuristic, bpmx)  # compiled before the clock starts, as every search is
    return restarting(run_once, RESTART_UNIT, max_nodes, time_limit)


def restarts_apply(restarts: bool | None, tie_break: str, explore: float) -> bool:
    """Whether greedy search restarts: as asked, or by default (None) where its choices are
    random (random ties, or draws by type). Restarts without random choices would repeat one
    run under growing budgets, so asking for them is refused (one-line InputError)."""
    random_choices = tie_rule(tie_break, True) in RANDOM_TIES or explore > 0
    if restarts and not random_choices:
        raise InputError(f"greedy search restarts with other random choices: ties {tie_break} make none "
                         f"(ties {' or '.join(RANDOM_TIES)}, or --explore, do)")
    return random_choices if restarts is None else restarts


def _settings(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of greedy search: BPMX, its tie-breaking, its draws by type and
    whether restarts applied (on: it restarts where a run reaches its budget)."""
    return {**greedy_settings(heuristic, options), "explore": f"{options['explore']:g}",
            "restarts": "on" if restarts_apply(options["restarts"], options["tie_break"], options["explore"]) else "off"}


RESTARTS = Option("restarts", "tristate", "greedy search's randomized restarts: runs with other random ties, each "
                  f"storing at most {RESTART_UNIT:,} nodes times Luby's sequence (1, 1, 2, 1, 1, 2, 4, ...; the "
                  "node limit bounds each run, the time limit all), until one answers; auto (the default) restarts "
                  f"where ties or draws are random ({', '.join(RANDOM_TIES)})", "restarts apply")

register(Search(
    "greedy", "greedy best-first: the stored node of least h first; fast, no bound on the length", greedy_best_first,
    informed=True, family="best-first", options=(BPMX, TIE_BREAK, EXPLORE, RESTARTS, NODE_LIMIT, MEMORY, TIME_LIMIT),
    setting_fields=("bpmx", "tie_break", "explore", "restarts"), settings=_settings,
))
