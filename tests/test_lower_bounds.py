"""Every search's lower bound against exact distances: never above the shortest length, the
length itself when the search proves it optimal, a weighted search's length over its weight,
and IDA*'s last bound when it gives up; none for a heuristic that may overestimate."""

import numba
import numpy as np
import pytest

from solvers.heuristics import baseline, user_heuristic
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests.conftest import STANDARD_2X4, distances
from tests.test_user_heuristic import hamming_by_hand


@pytest.mark.parametrize("algorithm, options, every", [("ida", {}, 20), ("astar", {}, 5), ("wastar", {"weight": 2.0}, 2),
                                                       ("greedy", {}, 2)])
def test_bounds_never_exceed_the_shortest_length_on_the_2x4_states(algorithm, options, every):
    """A regular sample of the 2x4 states (every `every`-th in order)."""
    puzzle = Puzzle(2, 4, STANDARD_2X4)
    manhattan = baseline(puzzle, "manhattan")
    for state, shortest in sorted(distances(2, 4, STANDARD_2X4).items())[::every]:
        start = np.array(state, dtype=np.uint8)
        result = solve(puzzle, start, algorithm, manhattan, **options)
        assert result.lower_bound <= shortest <= result.length, state
        if result.optimal:
            assert result.lower_bound == result.length == shortest
        if algorithm == "wastar":
            assert result.length <= 2 * shortest
            assert result.lower_bound == max(manhattan(start), -(-result.length // 2))
            if shortest > 0:
                assert result.suboptimality == pytest.approx(result.length / result.lower_bound)


def test_ida_giving_up_proves_its_last_bound(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    for state in [s for s, d in sorted(eight_puzzle_distances.items()) if d >= 30][:20]:
        result = solve(puzzle, np.array(state, dtype=np.uint8), "ida", manhattan, node_limit=2_000)
        assert result.status == "gave_up" and result.suboptimality is None
        assert result.lower_bound == result.iterations[-1].bound <= eight_puzzle_distances[state]


def test_a_depth_limited_search_proves_only_what_its_pass_rules_out(eight_puzzle_distances):
    """A solution found within the depth limit proves nothing beyond h (it need not be the
    shortest); a pass that ends without one proves the shortest is longer than the limit."""
    puzzle = Puzzle(3, 3)
    for state in [s for s, d in sorted(eight_puzzle_distances.items()) if 8 <= d <= 14][:20]:
        start = np.array(state, dtype=np.uint8)
        shortest = eight_puzzle_distances[state]
        found = solve(puzzle, start, "dfs", depth_limit=shortest + 6)
        assert found.status == "solved" and found.lower_bound <= shortest <= found.length
        none = solve(puzzle, start, "dfs", depth_limit=shortest - 2)
        assert none.status == "gave_up" and none.lower_bound == shortest - 1


@numba.njit
def twice_hamming(board):
    """Twice a user's Hamming distance: a user's function, which may overestimate."""
    return 2 * hamming_by_hand(board)


def test_a_heuristic_that_may_overestimate_proves_nothing():
    """With BPMX (a user's function gets it by default) and without. BPMX raises a child's h
    to its parent's h - 1, above 0 at the goal here: IDA* still recognises the goal (the node
    limit ends a search that would run on without it)."""
    puzzle = Puzzle(3, 3)
    start = puzzle.replay(puzzle.goal, "ULDRUL")
    heuristic = user_heuristic(puzzle, twice_hamming)
    for algorithm in ("ida", "astar", "wastar"):
        for bpmx in (None, False):
            result = solve(puzzle, start, algorithm, heuristic, bpmx=bpmx, node_limit=100_000)
            assert result.bpmx == (bpmx is None), (algorithm, bpmx)
            assert result.length == 6 and not result.optimal, (algorithm, bpmx)
            assert result.lower_bound is None and result.suboptimality is None
