"""Effort prediction (Knuth's random probes) against the nodes a naive IDA* expands, pass by pass."""

import numpy as np
import pytest

from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.puzzle import Puzzle
from solvers.search.effort import iteration_bounds, predict_ida
from tests.conftest import STANDARD_3X3, default_forbidden
from tests.naive import ida_star_counts

GOAL = STANDARD_3X3


@pytest.fixture(scope="module")
def eight_puzzle_states(eight_puzzle_distances):
    rng = np.random.default_rng(7)
    far = sorted(s for s, d in eight_puzzle_distances.items() if 18 <= d <= 22)
    return [far[i] for i in rng.choice(len(far), 4, replace=False)]


# a maximum of two kinds: a probe carries several scratch columns down to the child it follows
@pytest.mark.parametrize("spec", ["manhattan", "max(manhattan, linear-conflict)"])
def test_each_pass_estimate_is_within_its_error_of_the_pass_ida_completes(spec, eight_puzzle_states,
                                                                         eight_puzzle_distances):
    puzzle = Puzzle(3, 3, goal=np.array(GOAL, dtype=np.uint8))
    heuristic = from_spec(puzzle, spec)
    for state in eight_puzzle_states:
        length, passes = ida_star_counts(state, GOAL, 3, 3, lambda s: heuristic(np.array(s, dtype=np.uint8)),
                                         forbidden=default_forbidden(), complete=True)
        prediction = predict_ida(puzzle, np.array(state, dtype=np.uint8), heuristic, length, n_probes=20_000)
        assert length == eight_puzzle_distances[state]
        assert [bound for bound, _, _ in prediction.passes] == [bound for bound, _, _ in passes]
        for (bound, estimate, error), (_, expanded, _) in zip(prediction.passes, passes):
            assert abs(estimate - expanded) <= 4 * error + 1e-9, (state, bound, estimate, error, expanded)
            assert abs(estimate - expanded) <= 0.1 * expanded, (state, bound, estimate, expanded)
        total = sum(expanded for _, expanded, _ in passes)
        assert abs(prediction.nodes_expanded - total) <= 4 * prediction.standard_error + 1e-9


def test_a_tree_without_branches_is_estimated_exactly():
    puzzle = Puzzle(3, 3, goal=np.array(GOAL, dtype=np.uint8))
    one_move = np.array([1, 2, 3, 4, 5, 6, 7, 0, 8], dtype=np.uint8)  # the blank moved left once
    prediction = predict_ida(puzzle, one_move, from_spec(puzzle, "manhattan"), 1, n_probes=3)
    # bound 1: the root, then its one child with f <= 1 (the goal), then the goal's children have f = 3
    assert prediction.passes == ((1, 2.0, 0.0),)


def test_iteration_bounds_and_bad_lengths():
    assert iteration_bounds(68, 82) == [68, 70, 72, 74, 76, 78, 80, 82]
    assert iteration_bounds(65, 81) == [65, 67, 69, 71, 73, 75, 77, 79, 81]
    assert iteration_bounds(40, 41) == [40, 41]
    assert iteration_bounds(7, 7) == [7]
    assert iteration_bounds(0, 4, step=1) == [0, 1, 2, 3, 4]  # e.g. Hamming, which may not change at a move
    with pytest.raises(InputError, match="1 or 2"):
        iteration_bounds(0, 4, step=3)
    with pytest.raises(InputError, match="shorter than h"):
        iteration_bounds(10, 8)
    puzzle = Puzzle(3, 3, goal=np.array(GOAL, dtype=np.uint8))
    with pytest.raises(InputError, match="probes"):
        predict_ida(puzzle, np.array(GOAL, dtype=np.uint8), from_spec(puzzle, "manhattan"), 0, n_probes=0)
