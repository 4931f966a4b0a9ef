"""make_instances.py -- benchmark instance files for any board and goal: random states, exact lengths.

States come from the samplers of solvers/experiments.py (the same seed gives the same states as
compare-heuristics draws): uniform random solvable states, or the ends of random walks from the
goal that never undo the previous move. On boards of at most MAX_SOLVE_CELLS cells each state's
optimal length is found by IDA* with walking distance, its solution replayed. The text is the
format solvers/instances.py reads: comment lines, `# board: RxC`, `# goal: ...`, then one
instance per line, the tiles row by row and, when known, `| optimal length`. Every function here
is pure: the same arguments give the same states and the same text.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from tqdm import tqdm

from solvers.errors import InputError
from solvers.experiments import random_walk_states, uniform_states
from solvers.heuristics import baseline
from solvers.instances import HEADER
from solvers.puzzle import Puzzle
from solvers.search.result import SOLVED, UNSOLVABLE
from solvers.solve import solve

MAX_SOLVE_CELLS = 12  # 2x6, the slowest of these, takes a fraction of a second per uniform random state
SOLVER_HEURISTIC = "walking-distance"  # admissible, and on 2x6 much faster than linear conflict


def random_instances(puzzle: Puzzle, count: int, seed: int) -> np.ndarray:
    """`count` states, each drawn uniformly from those that can reach the goal, as a uint8
    array of shape (count, cells); the same seed gives the same states."""
    _check_count_and_seed(count, seed)
    return uniform_states(puzzle, count, seed)


def random_walk_instances(puzzle: Puzzle, count: int, length: int, seed: int) -> np.ndarray:
    """The ends of `count` random walks of exactly `length` moves from the goal, none undoing
    the move before it, as a uint8 array of shape (count, cells); each is at most `length`
    moves from the goal, with the parity of `length`. The same seed gives the same states."""
    _check_count_and_seed(count, seed)
    if length < 0:
        raise InputError(f"a random walk has 0 or more moves, not {length}")
    return random_walk_states(puzzle, count, length, seed)


def _check_count_and_seed(count: int, seed: int) -> None:
    if count < 1:
        raise InputError(f"the number of instances must be 1 or more, not {count}")
    if seed < 0:
        raise InputError(f"the seed must be 0 or more, not {seed}")


def optimal_lengths(puzzle: Puzzle, states: np.ndarray, *, progress: bool = False) -> list[int]:
    """The optimal length of each state, by IDA* with walking distance (every solution replayed
    by solve()); a tqdm bar on stderr if `progress`. Raises InputError for a board of more than
    MAX_SOLVE_CELLS cells or a state that cannot reach the goal."""
    if puzzle.n_cells > MAX_SOLVE_CELLS:
        raise InputError(f"optimal lengths are computed for boards of at most {MAX_SOLVE_CELLS} cells, "
                         f"not {puzzle.board} ({puzzle.n_cells} cells); leave them out and solve the file "
                         "with solve-batch")
    heuristic = baseline(puzzle, SOLVER_HEURISTIC)
    lengths = []
    for number, state in enumerate(tqdm(states, desc="solving", unit="instance", disable=not progress), 1):
        result = solve(puzzle, state, "ida", heuristic)
        if result.status == UNSOLVABLE:
            raise InputError(f"state {number} ({' '.join(map(str, state))}) cannot reach the goal")
        if result.status != SOLVED or not result.optimal:
            raise RuntimeError(f"IDA* did not prove the optimal length of state {number}: {result.status}")
        lengths.append(result.length)
    return lengths


def instance_file_text(puzzle: Puzzle, states: np.ndarray, lengths: Sequence[int] | None = None,
                       comment_lines: Sequence[str] = ()) -> str:
    """The instance file of `states` that solvers.instances.load_instances reads back as the same
    puzzle and states: each comment line after `# `, the board and goal headers, then one line
    per state with ` | length` if `lengths` are given. Raises InputError if there are not as many
    lengths as states, or if a comment line spans lines or would read as a header."""
    if lengths is not None and len(lengths) != len(states):
        raise InputError(f"{len(lengths)} lengths for {len(states)} states")
    for line in comment_lines:
        if len(f"# {line}".splitlines()) != 1 or HEADER.fullmatch(f"# {line}"):
            raise InputError(f"comment line {line!r} would not read back as a comment")
    header = [*(f"# {line}" for line in comment_lines), f"# board: {puzzle.board}", f"# goal: {_tiles(puzzle.goal)}"]
    body = [_tiles(state) + ("" if lengths is None else f" | {lengths[i]}") for i, state in enumerate(states)]
    return "\n".join(header + body) + "\n"


def _tiles(state: np.ndarray) -> str:
    return " ".join(map(str, state.tolist()))
