"""Weighted A* against exact distances: its solutions are never shorter than the shortest and
never longer than W times it, W = 1 is A*, and a larger W searches less."""

import numpy as np
import pytest

from solvers.cli import solve_puzzle_main
from solvers.errors import InputError
from solvers.heuristics import baseline
from solvers.puzzle import Puzzle
from solvers.solve import solve


def _sample(distances, n, seed):
    states = sorted(distances)
    rng = np.random.default_rng(seed)
    return [states[i] for i in rng.choice(len(states), n, replace=False)]


@pytest.mark.parametrize("weight", [1.0, 1.5, 2.0, 5.0])
def test_solutions_lie_within_the_weight_of_the_shortest(eight_puzzle_distances, weight):
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    for state in _sample(eight_puzzle_distances, 60, int(weight * 10)):
        result = solve(puzzle, np.array(state, dtype=np.uint8), "wastar", manhattan, weight=weight)
        shortest = eight_puzzle_distances[state]
        assert shortest <= result.length <= weight * shortest, (state, result.length, shortest)
        assert result.optimal == (weight == 1.0)


def test_weight_one_is_astar_and_a_larger_weight_searches_less(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    states = [s for s in _sample(eight_puzzle_distances, 200, 7) if eight_puzzle_distances[s] >= 20][:30]
    expanded = {}
    for weight in (1.0, 3.0):
        expanded[weight] = 0
        for state in states:
            start = np.array(state, dtype=np.uint8)
            result = solve(puzzle, start, "wastar", manhattan, weight=weight)
            expanded[weight] += result.nodes_expanded
            if weight == 1.0:
                astar = solve(puzzle, start, "astar", manhattan)
                assert (result.length, result.nodes_expanded) == (astar.length, astar.nodes_expanded)
    assert expanded[3.0] < expanded[1.0]


def test_the_weight_is_checked_and_belongs_to_weighted_search(capsys):
    puzzle = Puzzle(3, 3)
    start = puzzle.state("8 6 7 2 5 4 3 0 1")
    with pytest.raises(InputError, match="the weight must lie in 1..1000"):
        solve(puzzle, start, "wastar", "manhattan", weight=0.5)
    with pytest.raises(InputError, match="a weight applies to wastar, bwas, anytime and wida only, not to ida"):
        solve(puzzle, start, "ida", "manhattan", weight=2.0)
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "wastar", "--weight", "1.5", "--heuristic",
                              "manhattan"]) == 0
    out = capsys.readouterr().out
    assert "algorithm  wastar" in out and "(not necessarily optimal)" in out
