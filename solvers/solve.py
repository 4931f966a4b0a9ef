"""solve.py -- one entry point that runs any search of tilepdb by name."""

from __future__ import annotations

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic, from_spec
from solvers.puzzle import Puzzle
from solvers.search.astar import astar
from solvers.search.ida import ida_star
from solvers.search.move_pruning import DEFAULT_PRUNE
from solvers.search.parallel_ida import parallel_ida_star
from solvers.search.result import SearchResult, checked_start
from solvers.search.uninformed import bfs, depth_limited_dfs, iddfs

INFORMED = ("ida", "astar")
UNINFORMED = ("bfs", "dfs", "iddfs")
ALGORITHMS = INFORMED + UNINFORMED
MAX_NODE_LIMIT = (1 << 62) - 1


def solve(
    puzzle: Puzzle,
    start: np.ndarray,
    algorithm: str = "ida",
    heuristic: str | Heuristic = "linear-conflict",
    *,
    node_limit: int | None = None,
    time_limit: float | None = None,
    depth_limit: int | None = None,
    threads: int = 1,
    client=None,
    prune: str | None = None,
    full_last_iteration: bool = False,
    bpmx: bool | None = None,
) -> SearchResult:
    """Solve `start` with the named algorithm; the result's solution has been replayed and checked.

    `heuristic` (a spec such as "manhattan" or "pdb:FILE+reflect", see solvers/heuristics/spec.py, or
    a Heuristic) is used by ida and astar only. `prune` (none, parent or fsm; default
    DEFAULT_PRUNE) and `full_last_iteration` (complete the last iteration, for counters that do
    not depend on the move order) apply to ida only: see solvers/search/ida.py. `bpmx`
    (bidirectional pathmax: True, False, or None for where the heuristic may be inconsistent)
    applies to ida and astar.
    `node_limit` caps nodes expanded (ida, iddfs, dfs) or stored (astar, bfs); the defaults
    are each search's own. `time_limit` (seconds) applies to ida, iddfs and dfs,
    `depth_limit` to dfs. `threads` > 1 runs ida on that many threads (parallel_ida.py; no
    node limit there); a Dask `client` (solvers/distributed.py) runs its subtrees on the
    cluster's workers instead, `threads` of them at a time.
    """
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if node_limit is not None and not 0 < node_limit <= MAX_NODE_LIMIT:
        raise InputError(f"the node limit must lie in 1..{MAX_NODE_LIMIT:,}, not {node_limit:,}")
    if time_limit is not None and not time_limit > 0:
        raise InputError(f"the time limit must be positive, not {time_limit}")
    if isinstance(heuristic, str):
        heuristic = from_spec(puzzle, heuristic)
    if threads < 1:
        raise InputError(f"the number of threads must be at least 1, not {threads}")
    if algorithm != "ida" and (prune is not None or full_last_iteration):
        raise InputError(f"move pruning and the full last iteration apply to ida only, not to {algorithm}")
    start = checked_start(puzzle, start, heuristic if algorithm in INFORMED else None)
    if algorithm not in INFORMED and bpmx:
        raise InputError(f"BPMX applies to ida and astar only, not to {algorithm}")
    limits = {} if node_limit is None else {"node_limit": node_limit}
    ida_options = {"prune": prune or DEFAULT_PRUNE, "full_last_iteration": full_last_iteration, "bpmx": bpmx}
    if algorithm == "ida" and (threads > 1 or client is not None):
        if node_limit is not None:
            raise InputError("a node limit is not supported with parallel search; use --time-limit")
        return parallel_ida_star(puzzle, start, heuristic, threads=threads, time_limit=time_limit, client=client,
                                 **ida_options)
    if algorithm == "ida":
        return ida_star(puzzle, start, heuristic, time_limit=time_limit, **ida_options, **limits)
    if algorithm == "astar":
        return astar(puzzle, start, heuristic, bpmx=bpmx, **({} if node_limit is None else {"max_nodes": node_limit}))
    if algorithm == "bfs":
        return bfs(puzzle, start, **({} if node_limit is None else {"max_nodes": node_limit}))
    if algorithm == "iddfs":
        return iddfs(puzzle, start, time_limit=time_limit, **limits)
    return depth_limited_dfs(
        puzzle, start, time_limit=time_limit, **limits, **({} if depth_limit is None else {"depth_limit": depth_limit})
    )
