"""The anytime search (restarting weighted A*) against exact distances: given time it reaches
the shortest length and proves it; its solutions only get shorter, each within its run's weight;
its lower bound never exceeds the shortest length."""

import json

import numpy as np
import pytest

from solvers.cli import solve_puzzle_main
from solvers.heuristics import baseline
from solvers.puzzle import Puzzle
from solvers.search.anytime import weights_from
from solvers.solve import solve
from tests.conftest import STANDARD_2X4, distances


def test_the_weights_fall_halfway_to_one_then_reach_it():
    assert weights_from(5.0) == [5.0, 3.0, 2.0, 1.5, 1.25, 1.125, 1.0625, 1.0]
    assert weights_from(1.0) == [1.0]


def test_given_time_it_reaches_and_proves_the_shortest_length_on_the_2x4_states():
    """Every tenth 2x4 state, in order."""
    puzzle = Puzzle(2, 4, STANDARD_2X4)
    manhattan = baseline(puzzle, "manhattan")
    improved = 0
    for state, shortest in sorted(distances(2, 4, STANDARD_2X4).items())[::10]:
        result = solve(puzzle, np.array(state, dtype=np.uint8), "anytime", manhattan, weight=5.0)
        assert (result.length, result.optimal, result.lower_bound) == (shortest, True, shortest), state
        lengths = [length for length, _ in result.found]
        assert lengths == sorted(lengths, reverse=True) and len(set(lengths)) == len(lengths)
        assert lengths[0] <= 5 * shortest and lengths[-1] == shortest
        improved += len(lengths) > 1
    assert improved > 10  # the first, heavily weighted run is often longer


@pytest.mark.parametrize("time_limit", [1e-4, 0.05])
def test_out_of_time_it_keeps_its_best_and_a_sound_bound(eight_puzzle_distances, time_limit):
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    far = [s for s, d in sorted(eight_puzzle_distances.items()) if d >= 28][:20]
    for state in far:
        shortest = eight_puzzle_distances[state]
        result = solve(puzzle, np.array(state, dtype=np.uint8), "anytime", manhattan, weight=3.0,
                       time_limit=time_limit)
        assert result.lower_bound is not None and result.lower_bound <= shortest
        if result.length is not None:
            assert result.length >= shortest and result.optimal == (result.length == result.lower_bound)


def test_the_command_shows_every_better_solution(capsys):
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "anytime", "--weight", "5", "--heuristic",
                              "manhattan", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["algorithm"], record["length"], record["optimal"], record["lower_bound"]) == ("anytime", 31,
                                                                                                True, 31)
    assert record["suboptimality"] == 1.0 and len(record["found"]) > 1 and record["weight"] == 5.0
