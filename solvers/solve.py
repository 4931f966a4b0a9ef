"""solve.py -- one entry point that runs any registered search by name (solvers/search/registry.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic, from_spec
from solvers.puzzle import Puzzle
from solvers.search.registry import checked_options, given_options, names_listed, search_named, takers
from solvers.search.result import SearchResult, checked_start

MAX_NODE_LIMIT = (1 << 62) - 1


def solve(
    puzzle: Puzzle,
    start: np.ndarray,
    algorithm: str = "ida",
    heuristic: str | Heuristic = "linear-conflict",
    *,
    client=None,
    **options,
) -> SearchResult:
    """Solve `start` with the registered search `algorithm`; the result's solution has been
    replayed and checked.

    `heuristic` (a spec such as "manhattan" or "pdb:FILE+reflect", see solvers/heuristics/spec.py, or
    a Heuristic) is used by the informed searches only. `options` are the search's own
    (node_limit, time_limit, prune, bpmx, threads, ...: each search's registration lists
    them); one set to None counts as not given, and one the search does not take is refused
    with a one-line InputError unless it asks for nothing (a switch off, `threads=1`). A Dask `client` (solvers/distributed.py) runs IDA*'s subtrees on the
    cluster's workers, `threads` of them at a time.
    """
    search = search_named(algorithm)
    given = checked_options(search, given_options(search, options))
    _check_limits(given)
    if client is not None:
        if not search.takes("executor"):
            raise InputError(f"a Dask cluster splits the search of {names_listed(takers('executor'))} only, "
                             f"not of {algorithm}")
        if "executor" in given:
            raise InputError("give a Dask client or an executor, not both")
        from solvers.distributed import ClusterExecutor  # the Dask extra, only when a cluster is used

        given["executor"] = ClusterExecutor(client)
    if isinstance(heuristic, str):
        heuristic = from_spec(puzzle, heuristic)
    heuristic = heuristic if search.informed else None
    start = checked_start(puzzle, start, heuristic)
    return _bound_named(search.run(puzzle, start, heuristic, **given), heuristic, start)


def _bound_named(result: SearchResult, heuristic: Heuristic | None, start: np.ndarray) -> SearchResult:
    """`result` with `bound_from` set, and, where its heuristic may overestimate, the lower bound
    that the heuristic's admissible parts prove at the start (the search proved none): a
    solution of that length is optimal."""
    if heuristic is None or not result.solvable:
        return result
    if result.lower_bound is not None:  # proven by the search (with an inadmissible h: by exhausting a space)
        return replace(result, bound_from=heuristic.name) if heuristic.admissible else result
    parts = heuristic.admissible_parts()
    if not parts:
        return result
    bound = max(h(start) for h in parts)
    name = parts[0].name if len(parts) == 1 else f"max({', '.join(h.name for h in parts)})"
    return replace(result, lower_bound=bound, bound_from=name, optimal=result.length == bound)


def _check_limits(given: dict) -> None:
    node_limit, time_limit = given.get("node_limit"), given.get("time_limit")
    if node_limit is not None and not 0 < node_limit <= MAX_NODE_LIMIT:
        raise InputError(f"the node limit must lie in 1..{MAX_NODE_LIMIT:,}, not {node_limit:,}")
    if time_limit is not None and not time_limit > 0:
        raise InputError(f"the time limit must be positive, not {time_limit}")
