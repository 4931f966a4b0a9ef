"""experiments.py -- how strong a heuristic is and what it buys: samples, measures, KRE prediction.

State sources: uniform random solvable states (seeded), random walks from the goal, or a file
(read like an instance file; a state from which the goal cannot be reached is refused).
Measures per heuristic: mean, standard deviation and histogram of h, evaluations per second;
against exact distances (boards small enough for an exhaustive BFS) the mean h/h*, the share
with h = h* and a check that h <= h* everywhere; on instances, IDA* effort.

Effort prediction (Korf, Reid & Edelkamp 2001): an IDA* iteration with bound d expands about
E[N(d)] = sum_i sum_b N_{i,b} P_b(d - i) nodes, where N_{i,b} counts the nodes at depth i of
the brute-force tree below the start (pruned by the search's move-pruning automaton) whose
blank stands in cell b, computed exactly, and P_b(x) is the share of sampled states with the
blank in cell b and h <= x. It is compared with the nodes expanded by a complete iteration with
that bound (the search does not stop at the goal), here the bound equal to the optimal length.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

from pdb_build.ranking import permutation_rank, permutation_unrank
from solvers.errors import InputError
from solvers.heuristics import Heuristic
from solvers.instances import Instance, load_instances
from solvers.jit import kernel
from solvers.moves import slide
from solvers.puzzle import Puzzle
from solvers.search.depth_first import PassOptions, exhaustive_pass
from solvers.search.move_pruning import DEFAULT_PRUNE, automaton, tree_counts
from solvers.solve import solve
from solvers.wording import count

MAX_EXHAUSTIVE_CELLS = 12
UNKNOWN = 255


# --- state sources -------------------------------------------------------------------------


@kernel
def _make_solvable(states, goal_cell, cols, blank_goal_cell):
    """Swap tiles 1 and 2 in every row whose parity does not match its blank's distance."""
    n = states.shape[1]
    seen = np.zeros(n, dtype=np.bool_)
    for row in range(states.shape[0]):
        seen[:] = False
        cycles = 0
        blank = 0
        for start in range(n):
            if states[row, start] == 0:
                blank = start
            if not seen[start]:
                cycles += 1
                cell = start
                while not seen[cell]:
                    seen[cell] = True
                    cell = goal_cell[states[row, cell]]
        distance = abs(blank // cols - blank_goal_cell // cols) + abs(blank % cols - blank_goal_cell % cols)
        if (n - cycles) % 2 != distance % 2:
            a = 0
            while states[row, a] != 1:
                a += 1
            b = 0
            while states[row, b] != 2:
                b += 1
            states[row, a], states[row, b] = 2, 1


def uniform_states(puzzle: Puzzle, n: int, seed: int) -> np.ndarray:
    """`n` states drawn uniformly from the solvable ones (Puzzle.random_state, vectorised)."""
    rng = np.random.default_rng(seed)
    states = rng.permuted(np.tile(np.arange(puzzle.n_cells, dtype=np.uint8), (n, 1)), axis=1)
    _make_solvable(states, puzzle.goal_cell, puzzle.cols, puzzle.blank_goal_cell)
    return states


def random_walk_states(puzzle: Puzzle, n: int, length: int, seed: int) -> np.ndarray:
    """`n` end points of random walks of `length` moves from the goal, never undoing a move."""
    rng = np.random.default_rng(seed)
    return _walks(puzzle.goal, puzzle.neighbours, n, length, rng.integers(0, 1 << 62, size=n * max(length, 1)))


@kernel
def _walks(goal, neighbours, n, length, randomness):
    states = np.empty((n, goal.shape[0]), dtype=np.uint8)
    position = np.zeros(goal.shape[0], dtype=np.int64)  # kept by `slide`, not read
    for row in range(n):
        board = goal.copy()
        blank = 0
        while board[blank] != 0:
            blank += 1
        last = -1
        for step in range(length):
            options = 0
            choice = np.empty(4, dtype=np.int64)
            for d in range(4):
                if neighbours[blank, d] >= 0 and (last < 0 or d != last ^ 1):
                    choice[options] = d
                    options += 1
            d = choice[randomness[row * length + step] % options]
            target = neighbours[blank, d]
            slide(board, position, target, blank)
            blank = target
            last = d
        states[row] = board
    return states


def read_states(path: str | Path, board: str | None = None, goal=None, *,
                like: Puzzle | None = None) -> tuple[Puzzle, np.ndarray]:
    """The puzzle and states of a file read as an instance file (solvers/instances.py: its
    `# board:`/`# goal:` header honoured unless `board`/`goal` override it, `like` as there;
    a `| length` is ignored). Raises InputError if the goal cannot be reached from a state."""
    puzzle, listed = load_instances(path, board, goal, like=like)
    require_solvable(puzzle, listed, path, "state")
    return puzzle, np.array([entry.start for entry in listed], dtype=np.uint8)


def require_solvable(puzzle: Puzzle, listed: list[Instance], path: str | Path, noun: str) -> None:
    """Raise InputError naming the entries of file `path` (by number in file order) from which
    the goal of `puzzle` cannot be reached; they have no distance to measure or to solve."""
    unsolvable = [entry.number for entry in listed if not puzzle.is_solvable(entry.start)]
    if unsolvable:
        shown = ", ".join(map(str, unsolvable[:10])) + (", ..." if len(unsolvable) > 10 else "")
        raise InputError(f"{path}: {count(len(unsolvable), noun)} cannot reach the goal {' '.join(map(str, puzzle.goal))} "
                         f"(permutation parity), numbered in file order: {shown}; check the goal or remove what "
                         "cannot be solved")


# --- exact distances ---------------------------------------------------------------------


@kernel
def _all_distances(goal, neighbours, n_states):
    """Distance to the goal of every state, indexed by the state's permutation rank."""
    distance = np.full(n_states, UNKNOWN, dtype=np.uint8)
    queue = np.empty(n_states // 2, dtype=np.int64)
    board = goal.copy()
    position = np.zeros(goal.shape[0], dtype=np.int64)  # kept by `slide`, not read
    distance[permutation_rank(board, board.shape[0])] = 0
    queue[0] = permutation_rank(board, board.shape[0])
    head, tail = 0, 1
    while head < tail:
        rank = queue[head]
        head += 1
        permutation_unrank(rank, board.shape[0], board)
        blank = 0
        while board[blank] != 0:
            blank += 1
        for d in range(4):
            target = neighbours[blank, d]
            if target < 0:
                continue
            slide(board, position, target, blank)
            child = permutation_rank(board, board.shape[0])
            if distance[child] == UNKNOWN:
                distance[child] = distance[rank] + 1
                queue[tail] = child
                tail += 1
            slide(board, position, blank, target)
    return distance


@kernel
def _ranks(states):
    out = np.empty(states.shape[0], dtype=np.int64)
    for i in range(states.shape[0]):
        out[i] = permutation_rank(states[i], states.shape[1])
    return out


class ExactDistances:
    """Every state's distance to the goal, from one breadth-first search (boards of <= 12 cells)."""

    def __init__(self, puzzle: Puzzle):
        if puzzle.n_cells > MAX_EXHAUSTIVE_CELLS:
            raise InputError(f"exact distances need a board of at most {MAX_EXHAUSTIVE_CELLS} cells, not {puzzle.board}")
        self.puzzle = puzzle
        self.table = _all_distances(puzzle.goal, np.asarray(puzzle.neighbours, dtype=np.int64), math.factorial(puzzle.n_cells))

    def __call__(self, states: np.ndarray) -> np.ndarray:
        return self.table[_ranks(np.ascontiguousarray(states, dtype=np.uint8))].astype(np.int64)


# --- measures ------------------------------------------------------------------------------


@dataclass(frozen=True)
class StrengthMeasures:
    name: str
    n_states: int
    mean: float
    std: float
    histogram: np.ndarray
    evaluations_per_second: float
    mean_ratio: float | None = None  # mean of h / h* over states with h* > 0
    share_exact: float | None = None  # share of states with h == h*
    admissible: bool | None = None  # h <= h* on every state
    errors: dict | None = None  # error_measures against h* of the states
    instance_errors: dict | None = None  # error_measures of h at the instances' starts against their known lengths

    def row(self) -> dict:
        def fmt(value, digits=4):
            return "" if value is None else round(value, digits)

        return {
            "heuristic": self.name, "states": self.n_states, "mean_h": round(self.mean, 4),
            "std_h": round(self.std, 4), "evaluations_per_second": round(self.evaluations_per_second),
            "mean_h_over_exact": fmt(self.mean_ratio), "share_h_equals_exact": fmt(self.share_exact),
            "admissible_on_sample": "" if self.admissible is None else self.admissible,
            **{key: fmt(value) for key, value in (self.errors or {}).items()},
            **{f"instance_{key}": fmt(value) for key, value in (self.instance_errors or {}).items()},
        }


def error_measures(values: np.ndarray, exact: np.ndarray) -> dict:
    """How h (`values`) errs against the distances `exact` of the same states: the mean error
    h - h*, the mean absolute error, the share of states where h > h* (overestimated), the mean
    and the largest excess over those states (0 where none is overestimated)."""
    error = np.asarray(values, dtype=np.int64) - np.asarray(exact, dtype=np.int64)
    over = error[error > 0]
    return {"mean_error": float(error.mean()), "mean_absolute_error": float(np.abs(error).mean()),
            "share_overestimated": float(over.size / error.size),
            "mean_overestimate": float(over.mean()) if over.size else 0.0,
            "max_overestimate": int(over.max()) if over.size else 0}


def measure(heuristic: Heuristic, states: np.ndarray, exact: np.ndarray | None = None) -> tuple[StrengthMeasures, np.ndarray]:
    """Evaluate `heuristic` on every state; returns the measures and the h values."""
    heuristic.evaluate_many(states[:1])  # compile before timing
    began = time.perf_counter()
    values = heuristic.evaluate_many(states).astype(np.int64)
    seconds = max(time.perf_counter() - began, 1e-9)
    extra = {}
    if exact is not None:
        positive = exact > 0
        extra = dict(
            mean_ratio=float(np.mean(values[positive] / exact[positive])) if positive.any() else 1.0,
            share_exact=float(np.mean(values == exact)),
            admissible=bool(np.all(values <= exact)),
            errors=error_measures(values, exact),
        )
    measures = StrengthMeasures(
        heuristic.name, len(values), float(values.mean()), float(values.std()),
        np.bincount(values), len(values) / seconds, **extra,
    )
    return measures, values


# --- effort prediction ---------------------------------------------------------------------


def h_distribution_by_blank(puzzle: Puzzle, states: np.ndarray, values: np.ndarray) -> np.ndarray:
    """P[b, x]: among the sampled states with the blank in cell b, the share with h <= x
    (a cell no sampled state has its blank in gets the distribution over all states)."""
    blanks = np.argmax(states == 0, axis=1)
    counts = np.zeros((puzzle.n_cells, int(values.max()) + 1), dtype=np.float64)
    np.add.at(counts, (blanks, values), 1.0)
    totals = counts.sum(axis=1, keepdims=True)
    overall = np.cumsum(counts.sum(axis=0)) / len(values)
    cumulative = np.cumsum(counts, axis=1) / np.maximum(totals, 1.0)
    cumulative[totals[:, 0] == 0] = overall
    return cumulative


def kre_prediction(puzzle: Puzzle, start: np.ndarray, distribution: np.ndarray, bound: int,
                   prune: str = DEFAULT_PRUNE) -> float:
    """E[N(bound)] = sum_i sum_b N_{i,b} P_b(bound - i), with P_b(x) = distribution[b, x] and
    N the brute-force tree pruned by `prune`."""
    counts = tree_counts(puzzle, int(np.argmax(start == 0)), bound, prune)
    top = distribution.shape[1] - 1
    return float(sum(np.dot(counts[depth], distribution[:, min(bound - depth, top)]) for depth in range(bound + 1)))


def full_iteration(puzzle: Puzzle, start: np.ndarray, heuristic: Heuristic, bound: int,
                   prune: str = DEFAULT_PRUNE) -> tuple[int, int]:
    """(expanded, generated) by one complete IDA* iteration with `bound` and move pruning
    `prune` (it does not stop at the goal, and expands goals like any node)."""
    done = exhaustive_pass(puzzle, heuristic, np.array(start, dtype=np.uint8), bound, 0, np.zeros(1, dtype=np.uint8),
                           PassOptions(automaton(prune)))
    return done.nodes_expanded, done.nodes_generated


# --- the comparison workflow ---------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """Everything `compare` measured; `write` puts it into files."""

    puzzle: Puzzle
    states: np.ndarray
    exact: np.ndarray | None
    measures: list[StrengthMeasures]
    values: dict[str, np.ndarray]  # h of every state, by heuristic name
    instance_rows: list[dict]  # one per (heuristic, instance)
    prune: str = DEFAULT_PRUNE  # IDA*'s move pruning
    full_last_iteration: bool = False  # whether IDA*'s counters include its whole last iteration
    bpmx: bool | None = None  # IDA*'s BPMX option (None: where a heuristic may be inconsistent)
    n_instances: int = 0  # the instances given
    not_searched: tuple[str, ...] = ()  # heuristics measured on the instances but not searched: they may overestimate

    @property
    def node_counts(self) -> str:
        """In words, which nodes IDA*'s counters include."""
        if self.full_last_iteration:
            return "every node of the last iteration (its counts do not depend on the move order)"
        return "the last iteration up to the first solution found (its counts depend on the move order)"

    @property
    def mismatches(self) -> list[dict]:
        """The instance rows whose length differs from the instance's known optimal length."""
        return [r for r in self.instance_rows if r["known_length"] is not None and r["length"] != r["known_length"]]


def compare(
    puzzle: Puzzle,
    heuristics: list[Heuristic],
    states: np.ndarray,
    *,
    instances: list | None = None,
    exact: bool | None = None,
    progress: bool = False,
    prune: str = DEFAULT_PRUNE,
    full_last_iteration: bool = False,
    bpmx: bool | None = None,
) -> Comparison:
    """Measure every heuristic on `states` and, given instances, solve each with IDA*.

    `exact` (default: when the board has at most 9 cells) adds the exact distance of every
    state, and how each heuristic errs against it (error_measures); instances with known
    optimal lengths add the same measures of h at their starts. For each solved instance the
    row holds IDA*'s length beside the known one (`mismatches` lists those that differ), nodes
    and seconds (IDA* with move pruning `prune`, its last iteration completed if
    `full_last_iteration`, BPMX as `bpmx` says: see solvers/search/ida.py), and for its last
    iteration (bound = optimal length, completed without stopping at the goal, without BPMX:
    what KRE predicts) the measured and the KRE-predicted nodes expanded. A heuristic that may
    overestimate (a learned one) is measured but not searched: IDA*'s optimality, and KRE's
    prediction, assume one that never does.
    """
    if exact is None:
        exact = puzzle.n_cells <= 9
    distances = ExactDistances(puzzle)(states) if exact else None
    known = [instance for instance in instances or [] if instance.optimal is not None]
    not_searched = tuple(h.name for h in heuristics if h.overestimates) if instances else ()
    measures, values, rows = [], {}, []
    for heuristic in heuristics:
        measured, h = measure(heuristic, states, distances)
        if known:
            starts = np.array([instance.start for instance in known], dtype=np.uint8)
            measured = replace(measured, instance_errors=error_measures(
                heuristic.evaluate_many(starts), np.array([instance.optimal for instance in known])))
        measures.append(measured)
        values[heuristic.name] = h
        if instances and heuristic.name not in not_searched:
            rows += _ida_rows(puzzle, heuristic, instances, h_distribution_by_blank(puzzle, states, h), progress,
                              prune, full_last_iteration, bpmx)
    return Comparison(puzzle, states, distances, measures, values, rows, prune, full_last_iteration, bpmx,
                      len(instances or []), not_searched)


def _ida_rows(puzzle: Puzzle, heuristic: Heuristic, instances: list, distribution: np.ndarray, progress: bool,
              prune: str, full_last_iteration: bool, bpmx: bool | None) -> list[dict]:
    """One row per instance of IDA*'s search with `heuristic` (see `compare`), beside KRE's
    prediction from `distribution` (h_distribution_by_blank)."""
    rows = []
    solve(puzzle, instances[0].start, "ida", heuristic, bpmx=bpmx, node_limit=1)  # compile before timing
    for instance in tqdm(instances, desc=heuristic.name, disable=not progress, leave=False):
        result = solve(puzzle, instance.start, "ida", heuristic, prune=prune, full_last_iteration=full_last_iteration,
                       bpmx=bpmx)
        row = {"heuristic": heuristic.name, "instance": instance.number, "status": result.status,
               "length": result.length, "known_length": instance.optimal, "initial_h": result.initial_h,
               "nodes_expanded": result.nodes_expanded, "nodes_generated": result.nodes_generated,
               "seconds": round(result.seconds, 6),
               "nodes_per_second": round(result.nodes_generated / max(result.seconds, 1e-9)),
               "bpmx": "yes" if result.bpmx else "no", "bpmx_cutoffs": result.bpmx_cutoffs}
        if result.length is not None:
            completed = full_last_iteration and not result.bpmx and result.iterations
            last = result.iterations[-1].nodes_expanded if completed \
                else full_iteration(puzzle, instance.start, heuristic, result.length, prune)[0]
            predicted = kre_prediction(puzzle, instance.start, distribution, result.length, prune)
            row.update(last_iteration_expanded=last, predicted_last_iteration=round(predicted, 1))
        rows.append(row)
    return rows
