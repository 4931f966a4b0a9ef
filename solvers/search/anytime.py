"""anytime.py -- anytime search: a first solution by the staged solver, then ever wider beams or restarting weighted A* while time is left.

The first run is the staged solver (staged.py): it places the tiles a line at a time, each
step by an exact search over a few tiles, so it answers within milliseconds on every solvable
state of every board the toolkit holds, with a long solution. The runs after it seek only
shorter solutions than the best so far, in one of two ways (`improve`):

- "beams" (the default): beam search (beam.py) from FIRST_BEAM_WIDTH, each IMPROVE_FACTOR
  times wider than the last, building no layer as deep as the best length. A wider beam costs
  time in proportion and finds shorter solutions; a beam that cut no layer was breadth-first
  search, and its solution is optimal (or it proved that none is shorter). On uniformly random
  6x6 and 7x7 states this gave the shortest solutions per second (BENCHMARKS.md, "Large
  boards").
- "weights": restarting weighted A* (Richter, Thayer & Ruml 2010; wastar.py) from weight W,
  then halfway to 1 each time, then 1, each run pruned by the best length so far (a child with
  g + h at least that length is not stored, with an admissible h). A solution of length L at
  weight w proves the shortest at least ceil(L / w), and a run that exhausts its pruned space
  proves that none is shorter: the way to a proven optimum where A* can finish.

With a time limit, a beam whose time (its width times the last beam's seconds per width)
would overrun the time left is narrowed to fit it, and none is run when that is not MIN_GROWTH
times wider than the last.

The search ends when the time limit is reached, when the runs are used up (a beam wider than
the node limit, no wider beam fitting the time left, or weight 1), when a run reaches the node
limit, or as soon as the best solution meets the best lower bound (then it is optimal). The
result lists every better solution with its time (`found`), the clock started once the kernels
are compiled. Ctrl-C (KeyboardInterrupt) after the first solution ends it too: the best so far
is returned, marked `interrupted`.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic
from solvers.puzzle import Puzzle
from solvers.search import beam, best_first, staged
from solvers.search.beam import beam_search
from solvers.search.best_first import AUTO, TIE_BREAK
from solvers.search.staged import staged_search
from solvers.search.registry import BPMX, MEMORY, NODE_LIMIT, TIME_LIMIT, Option, Search, register
from solvers.search.result import (
    GAVE_UP, SOLVED, SearchResult, at_limit, checked_start, proved_none_shorter, time_limit_reason,
)
from solvers.search.wastar import (
    DEFAULT_WEIGHT, WEIGHT, WEIGHT_DENOMINATOR, integer_weights, weighted_astar, weighted_best_first_settings,
)

LAST_STEP = 0.05  # a weight this close to 1 is followed by 1 itself
# A first run by BULB (widths 100 and 1000 tried) took up to 14.8 s on uniformly random 7x7
# states and did not answer within a minute on some 8x8 ones; the staged solver answers on
# every state at once (BENCHMARKS.md, "Large boards"), and the beams bounded by its length stop
# early where they would wander.
FIRST_BEAM_WIDTH = 1000
IMPROVE_FACTOR = 4  # each beam this many times wider than the last
# A beam's time grows about in proportion to its width, so the last beam is narrowed to what the
# time left holds (with a margin: layers grow unevenly), rather than cut off by the limit with
# nothing to show; a beam not MIN_GROWTH times wider than the last seldom finds a shorter path.
FIT_SHARE = 0.8
MIN_GROWTH = 1.5
IMPROVEMENTS = ("beams", "weights")
FIRST_RUN = ("staged", None)
# why the anytime search stopped improving a solution (its result's reason; a limit says its own)
RUNS_USED_UP = "every run was made"
NO_WIDER_BEAM_FITS = f"no beam {MIN_GROWTH:g} times wider than the last fits in the time left"
NOTHING_SHORTER = "nothing shorter can exist: the solution meets the lower bound"


def weights_from(weight: float) -> list[float]:
    """The weights of the weighted runs: `weight`, then halfway to 1 each time (to the
    thousandth the searches can weigh by), then 1."""
    weights = [weight]
    while weights[-1] > 1.0:
        following = round((1.0 + (weights[-1] - 1.0) / 2) * WEIGHT_DENOMINATOR) / WEIGHT_DENOMINATOR
        weights.append(following if following - 1.0 >= LAST_STEP else 1.0)
    return weights


def runs(improve: str, weight: float) -> list[tuple[str, float | None]]:
    """The runs of the anytime search in order, as (search, width or weight, None for the
    staged solver): the first, then beams IMPROVE_FACTOR times wider each time (to widths no
    layer can reach) or the weights."""
    if improve == "weights":
        return [FIRST_RUN, *(("wastar", w) for w in weights_from(weight))]
    return [FIRST_RUN, *(("beam", FIRST_BEAM_WIDTH * IMPROVE_FACTOR ** k) for k in range(12))]


def fitted(run: tuple[str, float | None], last_beam: tuple[int, float] | None, left: float | None) -> tuple[str, float | None] | None:
    """`run`, or for a beam after `last_beam` (its width and seconds) one narrowed to fit in
    FIT_SHARE of the `left` seconds (None: no limit); None when no beam MIN_GROWTH times wider
    than the last fits."""
    if run[0] != "beam" or last_beam is None or left is None:
        return run
    width, seconds = last_beam
    fits = int(width * FIT_SHARE * left / max(seconds, 1e-9))
    if fits < MIN_GROWTH * width:
        return None
    return ("beam", min(int(run[1]), fits))


def one_run(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, run: tuple[str, float | None], shorter_than: int | None,
            *, bpmx: bool | None, tie_break: str, **limits) -> SearchResult:
    """One run of the anytime search: the staged solver, or beam search at the width of `run`
    seeking only solutions shorter than `shorter_than` (None: any), or weighted A* at its weight
    pruned by `shorter_than` where the heuristic is admissible."""
    search, value = run
    if search == "staged":
        return staged_search(puzzle, start)
    if search == "beam":
        return beam_search(puzzle, start, heuristic, beam_width=int(value), shorter_than=shorter_than, **limits)
    prune_at = shorter_than if heuristic.admissible else None
    return weighted_astar(puzzle, start, heuristic, weight=value, prune_at=prune_at, bpmx=bpmx,
                          tie_break=tie_break, **limits)


def anytime_search(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, *, weight: float = DEFAULT_WEIGHT,
                   improve: str = "beams", node_limit: int | None = None, time_limit: float | None = None,
                   bpmx: bool | None = None, tie_break: str = AUTO, memory: float | None = None) -> SearchResult:
    """The shortest solution from `start` that the anytime search (see the module docstring)
    finds within `time_limit` seconds (None: until its runs are used up), each run storing at
    most `node_limit` nodes (or what `memory` GiB hold); replayed and checked. `improve` is
    "beams" or "weights"; `weight` is the first weight of "weights", `bpmx` and `tie_break`
    apply to its weighted runs. Marked optimal when it meets the best lower bound;
    `lower_bound` is the best over the runs.

    A KeyboardInterrupt (Ctrl-C) before the first solution propagates, as from any search; one
    after it ends the search with the best solution so far, `interrupted` set (its node counts
    those of the completed runs): the caller decides what an interrupted search means for it."""
    if improve not in IMPROVEMENTS:
        raise InputError(f"the anytime search improves by {' or '.join(IMPROVEMENTS)}, not {improve!r}")
    integer_weights(weight)  # a weight out of range or too fine is refused before any run
    start = checked_start(puzzle, start, heuristic)
    staged.prepare(puzzle)
    if improve == "beams":
        beam.prepare(puzzle, heuristic)
    else:
        best_first.prepare(puzzle, heuristic, bpmx)
    began = time.perf_counter()
    initial_h = heuristic(start)
    best: SearchResult | None = None
    bound, found, expanded, generated = initial_h if heuristic.admissible else 0, [], 0, 0
    result: SearchResult | None = None
    interrupted = False
    stopped = RUNS_USED_UP
    try:
        last_beam = None
        for nominal in runs(improve, weight):
            left = None if time_limit is None else time_limit - (time.perf_counter() - began)
            run = fitted(nominal, last_beam, left)
            if result is not None and (run is None or (left is not None and left <= 0)):
                stopped = NO_WIDER_BEAM_FITS if run is None else time_limit_reason(time_limit)
                break
            shorter_than = None if best is None else best.length
            # the staged solver takes no limits: it answers within milliseconds in little memory
            limits = {} if run == FIRST_RUN else {"node_limit": node_limit, "time_limit": left, "memory": memory}
            run_began = time.perf_counter()
            result = one_run(puzzle, start, heuristic, run, shorter_than, bpmx=bpmx, tie_break=tie_break, **limits)
            if run[0] == "beam":
                last_beam = (int(run[1]), time.perf_counter() - run_began)
            expanded += result.nodes_expanded
            generated += result.nodes_generated
            bound = max(bound, _proven(result, shorter_than))
            if result.status == SOLVED and (best is None or result.length < best.length):
                moment = round(time.perf_counter() - began, 6)
                # one assignment, so that an interrupt never leaves `found` out of step with `best`
                best, found = result, [*found, (result.length, moment)]
            if best is None or best.length <= bound or result.optimal or at_limit(result):
                # no solution to improve, nothing shorter can exist, or no time or memory left
                stopped = result.reason if best is None or at_limit(result) else NOTHING_SHORTER
                break
    except KeyboardInterrupt:
        if best is None:
            raise  # nothing to keep
        interrupted, stopped = True, "interrupted"
    outcome = best if best is not None else result
    proven_optimal = outcome.status == SOLVED and (outcome.optimal or (heuristic.admissible and outcome.length <= bound))
    return dataclasses.replace(
        outcome, algorithm="anytime", heuristic=heuristic.name, initial_h=initial_h, nodes_expanded=expanded,
        nodes_generated=generated, seconds=time.perf_counter() - began, found=tuple(found), interrupted=interrupted, optimal=proven_optimal,
        lower_bound=(outcome.length if proven_optimal else bound) if heuristic.admissible else None,
        reason=outcome.reason if outcome.status == GAVE_UP else stopped,
    )


def _proven(result: SearchResult, shorter_than: int | None) -> int:
    """The lower bound on the shortest length that a run proved: its own, or `shorter_than`
    when it searched its whole pruned space without a solution."""
    if shorter_than is not None and proved_none_shorter(result):
        return shorter_than
    return result.lower_bound or 0


IMPROVE = Option("improve", "choice", "how the anytime search improves on its first solution: beams (ever wider "
                 "beam searches, the default) or weights (restarting weighted A* from --weight down to 1, each run "
                 "pruned by the best length)", "a way to improve applies", "beams", IMPROVEMENTS)


def _settings(heuristic: Heuristic, options: dict) -> dict:
    """What a batch row records of the anytime search: how it improves, and its weighted runs' settings."""
    return {"improve": options["improve"], **weighted_best_first_settings(heuristic, options)}


register(Search(
    "anytime", "anytime: a staged solution, then ever wider beams (or weighted A* from W down to 1) while time is left",
    anytime_search, informed=True, family="best-first", options=(IMPROVE, WEIGHT, BPMX, TIE_BREAK, NODE_LIMIT, MEMORY, TIME_LIMIT),
    setting_fields=("improve", "weight", "bpmx", "tie_break"), settings=_settings,
))
