"""restarts.py -- randomized restarts (Gomes, Selman & Kautz 1998): runs with other random choices and growing budgets.

A search whose random choices decide most of its cost has a heavy-tailed cost: most runs end
quickly, a few wander for very long. Greedy search's ties on uniformly random 7x7 and 8x8
states are such a choice: a state that one seed leaves unsolved after a million stored nodes
another seed solves within a hundred thousand (docs/developer/lab-notes.md, "Greedy search restarted"). Restarting cuts
the tail: run k is seeded by k (xorshift.seeded) and may store at most `unit` times the k-th
term of Luby, Sinclair & Zuckerman's sequence (1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ...; within a
logarithmic factor of the best fixed budget for any distribution of the cost, IPL 1993) nodes.
A run that reaches its budget is abandoned and the next begins from nothing. The budgets are
capped at the search's node limit, and the first run whose budget reaches it is the last: the
search is then as complete as one run without restarts. The time limit covers all the runs
together.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from solvers.search.result import GAVE_UP, SearchResult, at_node_limit, time_limit_reason


def luby(k: int) -> int:
    """The k-th term (k = 1, 2, ...) of Luby's sequence: 2^(i-1) when k = 2^i - 1, else the
    term k - 2^(i-1) + 1 for the i with 2^(i-1) <= k < 2^i - 1."""
    while True:
        i = k.bit_length()
        if k == (1 << i) - 1:
            return 1 << (i - 1)
        k -= (1 << (i - 1)) - 1


def restarting(run_once: Callable[[int, int, float | None], SearchResult], unit: int, max_nodes: int,
               time_limit: float | None) -> SearchResult:
    """The result of the first of the runs `run_once(run, node_limit, time_limit)` (run = 0, 1,
    ...; each with that node limit and the time left) that does not give up at its own budget:
    a solution, an exhausted space, the node limit `max_nodes` or the time limit. Its node and
    BPMX counts, seconds and `found` cover every run (seconds from the first run's start, the
    runs' set-up and replays included); a KeyboardInterrupt propagates."""
    began = time.perf_counter()
    expanded = generated = raises = cutoffs = 0
    run, left = 0, time_limit
    while True:
        budget = min(unit * luby(run + 1), max_nodes)
        result = run_once(run, budget, left)
        expanded, generated = expanded + result.nodes_expanded, generated + result.nodes_generated
        raises, cutoffs = raises + result.bpmx_raises, cutoffs + result.bpmx_cutoffs
        spent = time.perf_counter() - began
        out_of_time = time_limit is not None and spent >= time_limit
        if not at_node_limit(result) or budget >= max_nodes or out_of_time:
            break
        run, left = run + 1, None if time_limit is None else time_limit - spent
    seconds = time.perf_counter() - began
    return dataclasses.replace(
        result, nodes_expanded=expanded, nodes_generated=generated, bpmx_raises=raises, bpmx_cutoffs=cutoffs,
        seconds=seconds,
        found=((result.length, seconds),) if result.found else (),
        reason=time_limit_reason(time_limit) if result.status == GAVE_UP and out_of_time else result.reason,
    )
