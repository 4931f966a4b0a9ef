"""effort.py -- how many nodes IDA* will expand, predicted before it runs: Knuth's random probes.

A pass of IDA* with bound b expands the nodes of a tree: the paths from the start, under the
search's move pruning, whose nodes all have f = g + h <= b. Knuth (1975) estimates the size of
such a tree without searching it: walk down from the root choosing one child at random among
those that would be expanded (f <= b), and add up the products of the numbers of such
children met on the way (1 for the root, then d1, d1*d2, ...). The mean of that sum over many
probes is an unbiased estimate of the number of nodes the pass expands when it runs to its
end; single probes vary a great deal (the product is large on the rare deep walks), so the
mean of few probes tends to fall short, which the standard error it comes with shows.

IDA* runs one pass per bound: from h(start) up to the solution's length, in steps of two
where the heuristic keeps the parity of f (every move changes g by one and h by one: Manhattan,
additive PDBs whose patterns hold every tile), else of one. `predict_ida` sums the estimates of those
passes; the last one is estimated to its end, whereas IDA* stops it at the first solution,
so a prediction is an upper estimate of what IDA* expands on an instance.

The probes evaluate the heuristic with the search's own kernels (solvers/heuristics/dispatch)
and its move-pruning automaton, so the tree they sample is the tree IDA* searches (without
BPMX).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers.errors import InputError
from solvers.heuristics import Heuristic
from solvers.heuristics.dispatch import h_child_at_least, h_start
from solvers.jit import kernel
from solvers.moves import slide
from solvers.puzzle import Puzzle
from solvers.search.depth_first import N_DIRECTIONS, row_offsets
from solvers.search.move_pruning import DEFAULT_PRUNE, PRUNED, automaton


@kernel
def _probes(board, bound, neighbours, leaves, n_columns, transitions, n_probes, seed):
    """(mean, standard error of the mean) of Knuth's estimate over `n_probes` random probes of
    the tree of nodes with f <= `bound` below `board` (restored afterwards)."""
    np.random.seed(seed)
    offsets = row_offsets(transitions)
    capacity = bound + 2
    scratch = np.zeros((capacity, n_columns), dtype=np.int64)
    position = np.zeros(board.shape[0], dtype=np.int64)
    path = np.zeros(capacity, dtype=np.int64)  # the cells the blank left, to walk back up
    kept = np.zeros(n_columns, dtype=np.int64)  # the scratch row of the child the probe follows
    root_blank = 0
    while board[root_blank] != 0:
        root_blank += 1
    total = 0.0
    squares = 0.0
    for _ in range(n_probes):
        h = h_start(leaves, board, position, scratch, 0)
        estimate = 0.0
        if h <= bound:
            estimate = 1.0
        weight = 1.0
        blank = root_blank
        state = np.int64(0)
        depth = 0
        while estimate > 0.0:
            count = 0
            chosen = -1
            for move in range(N_DIRECTIONS):
                target = neighbours[blank, move]
                if target < 0 or offsets[state + move] == PRUNED:
                    continue
                tile = slide(board, position, target, blank)
                # below `bound - depth` (f <= bound) the value is h and the child's row complete
                if h_child_at_least(leaves, board, position, scratch, depth, tile, target, blank, bound - depth) \
                        < bound - depth:
                    count += 1
                    if np.random.randint(count) == 0:  # each passing child followed with chance 1 / count
                        chosen = move
                        kept[:] = scratch[depth + 1]
                slide(board, position, blank, target)
            if count == 0:
                break
            weight *= count
            estimate += weight
            target = neighbours[blank, chosen]
            slide(board, position, target, blank)
            scratch[depth + 1] = kept
            path[depth] = blank
            state = offsets[state + chosen]
            blank = target
            depth += 1
        while depth > 0:  # back to the root
            depth -= 1
            back = path[depth]
            slide(board, position, back, blank)
            blank = back
        total += estimate
        squares += estimate * estimate
    mean = total / n_probes
    variance = max(squares / n_probes - mean * mean, 0.0)
    return mean, np.sqrt(variance / n_probes)


@dataclass(frozen=True)
class EffortPrediction:
    """Predicted nodes expanded by IDA* on one start: per pass (bound, estimate, standard
    error), and their total."""

    passes: tuple[tuple[int, float, float], ...]
    n_probes: int

    @property
    def nodes_expanded(self) -> float:
        return sum(estimate for _, estimate, _ in self.passes)

    @property
    def standard_error(self) -> float:
        return float(np.sqrt(sum(error * error for _, _, error in self.passes)))


def iteration_bounds(initial_h: int, length: int, step: int = 2) -> list[int]:
    """The bounds IDA* runs to reach a solution of `length` from h(start) = `initial_h`: the
    first, then with `step` 2 every bound of the solution's parity up to it (a heuristic that
    changes by one at every move: Manhattan, or additive PDBs over every tile), with `step` 1
    every bound (any other heuristic: then a prediction may count a pass that IDA* skips)."""
    if length < initial_h:
        raise InputError(f"a solution of {length} moves is shorter than h(start) = {initial_h}: "
                         "the heuristic is not admissible here, or the length is wrong")
    if step not in (1, 2):
        raise InputError(f"the step between IDA*'s bounds is 1 or 2, not {step}")
    first = initial_h + 1 + (length - initial_h - 1) % step
    return [initial_h] + list(range(first, length + 1, step)) if length > initial_h else [initial_h]


def predict_ida(puzzle: Puzzle, start, heuristic: Heuristic, length: int, *, n_probes: int = 10_000,
                seed: int = 1, prune: str = DEFAULT_PRUNE, step: int = 2) -> EffortPrediction:
    """Knuth's estimate of the nodes IDA* with `heuristic` and move pruning `prune` expands on
    `start`, whose optimal solution has `length` moves (known, e.g. from the instance file):
    `n_probes` probes per pass, the passes those of `iteration_bounds(h(start), length, step)`,
    the last estimated to its end (see the module docstring)."""
    board = puzzle.state(start, "start").copy()
    heuristic.check_for(puzzle)
    if n_probes < 1:
        raise InputError("the number of probes must be at least 1")
    transitions = automaton(prune)
    probe = heuristic.kernel(_probes)
    passes = []
    for number, bound in enumerate(iteration_bounds(heuristic(board), length, step)):
        mean, error = probe(board, bound, puzzle.neighbours, heuristic.leaves, heuristic.n_columns, transitions,
                            n_probes, seed + number)
        passes.append((bound, float(mean), float(error)))
    return EffortPrediction(tuple(passes), n_probes)
