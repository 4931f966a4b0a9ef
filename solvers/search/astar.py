"""astar.py -- A* (Hart, Nilsson & Raphael 1968): best first on f = g + h with duplicate detection.

The kernel is the best-first one (best_first.py) with the priority weights (1, 1). A closed node
reached again by a shorter path is reopened where the heuristic may be inconsistent (PDBs that
take the minimum over the blank's positions are only admissible), which keeps the first goal
popped optimal; with a consistent heuristic that never happens. Ties among equal f follow
`tie_break` (default: toward the larger g, the node nearer the goal).
"""

from __future__ import annotations

import numpy as np

from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search.best_first import AUTO, TIE_BREAK, best_first, best_first_settings
from solvers.search.registry import BPMX, MEMORY, NODE_LIMIT, TIME_LIMIT, Search, register
from solvers.search.result import SearchResult


def astar(
    puzzle: Puzzle,
    start: np.ndarray,
    heuristic: Heuristic,
    *,
    node_limit: int | None = None,
    time_limit: float | None = None,
    bpmx: bool | None = None,
    tie_break: str = AUTO,
    memory: float | None = None,
) -> SearchResult:
    """Shortest solution from `start` by A* with `heuristic`, replayed and checked.

    A* stores every node it reaches (packed, node_store.py: any board up to 8x8), and gives
    up (status GAVE_UP) once `node_limit` nodes are stored (default: as many as `memory` GiB
    hold, or a share of the memory available, node_store.memory_budget) or `time_limit` seconds have passed; a
    limit whose nodes would not fit is refused before the search. A search that gives up proves
    the least f of its open nodes as a lower bound. `bpmx` applies one level of bidirectional
    pathmax at each expansion (None: where the heuristic may be inconsistent, as for IDA*); the
    result counts the raised parents.
    """
    return best_first(puzzle, start, heuristic, "astar", (1, 1), reopen=not heuristic.consistent,
                      tie_break=tie_break, node_limit=node_limit, time_limit=time_limit, bpmx=bpmx, memory=memory)


register(Search(
    "astar", "A*: best first on f = g + h with duplicate detection; optimal with an admissible heuristic", astar,
    informed=True, family="best-first", options=(BPMX, TIE_BREAK, NODE_LIMIT, MEMORY, TIME_LIMIT), setting_fields=("bpmx", "tie_break"),
    settings=best_first_settings,
))
