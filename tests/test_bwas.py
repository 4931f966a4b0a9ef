"""Batched weighted A* against exact distances and weighted A*: one node at a time it is
weighted A*; with batches its solutions are real but unbounded, never claimed optimal, and what
it proves when it gives up is a true lower bound."""

import numpy as np
import pytest

from solvers.cli import solve_puzzle_main
from solvers.errors import InputError
from solvers.heuristics import baseline
from solvers.puzzle import Puzzle
from solvers.search.best_first import best_first
from solvers.solve import solve


def _far_states(distances, at_least, step):
    return [s for s, d in sorted(distances.items()) if d >= at_least][::step]


def test_a_batch_of_one_is_weighted_astar(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    for state in _far_states(eight_puzzle_distances, 20, 3000):
        start = np.array(state, dtype=np.uint8)
        batched = solve(puzzle, start, "bwas", manhattan, weight=1.5, batch_size=1)
        weighted = solve(puzzle, start, "wastar", manhattan, weight=1.5)
        assert (batched.moves, batched.nodes_expanded, batched.nodes_generated, batched.lower_bound) == \
            (weighted.moves, weighted.nodes_expanded, weighted.nodes_generated, weighted.lower_bound)


@pytest.mark.parametrize("batch_size", [10, 1000])
def test_batched_solutions_are_real_and_claim_no_bound(eight_puzzle_distances, batch_size):
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    for state in _far_states(eight_puzzle_distances, 18, 1500):
        start = np.array(state, dtype=np.uint8)
        result = solve(puzzle, start, "bwas", manhattan, weight=2.0, batch_size=batch_size)
        shortest = eight_puzzle_distances[state]
        assert result.length >= shortest and not result.optimal, state
        assert result.lower_bound == manhattan(start) <= shortest, state


def test_a_batched_search_that_gives_up_proves_a_true_lower_bound(eight_puzzle_distances):
    """With reopening, the least g + h of the open nodes, the untaken rest of the last batch
    among them, bounds the shortest length from below."""
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    proved_more = 0
    for state in _far_states(eight_puzzle_distances, 24, 400):
        start = np.array(state, dtype=np.uint8)
        result = best_first(puzzle, start, manhattan, "bwas", (1, 1), reopen=True, tie_break="fifo", batch=50,
                            node_limit=400)
        assert result.length is None and "node limit" in result.reason, state
        assert result.lower_bound <= eight_puzzle_distances[state], state
        proved_more += result.lower_bound > manhattan(start)
    assert proved_more > 0


def test_the_batch_size_belongs_to_bwas_and_is_checked(capsys):
    puzzle = Puzzle(3, 3)
    start = puzzle.state("8 6 7 2 5 4 3 0 1")
    with pytest.raises(InputError, match="^a batch size applies to bwas only, not to wastar$"):
        solve(puzzle, start, "wastar", "manhattan", batch_size=10)
    with pytest.raises(SystemExit) as refused:
        solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "bwas", "--batch-size", "0"])
    assert refused.value.code == 2 and "argument --batch-size: '0' must be positive" in capsys.readouterr().err
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "bwas", "--batch-size", "100", "--weight", "1.25",
                              "--heuristic", "manhattan"]) == 0
    out = capsys.readouterr().out
    assert "algorithm  bwas" in out and "(not necessarily optimal)" in out
