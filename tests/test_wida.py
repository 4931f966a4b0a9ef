"""Weighted IDA* against exact distances: on every 2x4 state and a large sample of the 3x3 its
solutions are never shorter than the shortest nor longer than W times it, and its lower bound
never exceeds the shortest; its passes are those of a naive weighted IDA*; W = 1 is IDA*; a
larger W searches less; the weight is checked and belongs to the weighted searches.

The heuristic is max(hamming, manhattan), Manhattan distance in value, whose first lookup is
often below the second: the kernel asks for a child's h only up to the value that cuts the
child off (its f translated into h), and stops at Hamming where that is enough. One heuristic
throughout also keeps the kernels to compile to two (weighted and IDA*'s)."""

import math
from fractions import Fraction

import numpy as np
import pytest

from solvers.cli import solve_puzzle_main
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.puzzle import Puzzle
from solvers.search import depth_first
from solvers.search.wastar import integer_weights
from solvers.search.wida import weighted_ida_star
from solvers.solve import solve
from tests.conftest import STANDARD_2X4, STANDARD_3X3, default_forbidden
from tests.naive import ida_star_counts

SPEC = "max(hamming, manhattan)"


@pytest.fixture
def in_this_thread(monkeypatch):
    """Passes run in the test's thread: the worker thread that lets Ctrl-C stop a kernel
    (interrupt.py) costs about a millisecond a pass, and a test over every state makes some
    hundred thousand passes."""
    monkeypatch.setattr(depth_first, "interruptible", lambda function, args, stop: function(*args))


def _states(exact, low, high, every):
    """Every `every`-th state in order whose distance lies in low..high."""
    return [s for s, d in sorted(exact.items()) if low <= d <= high][::every]


def _assert_within_the_weight(puzzle, exact, states, weight):
    """wida from each of `states`: shortest <= length <= W * shortest; max(h, ceil(length / W))
    <= lower bound <= shortest; no pass bound above W * shortest (a move counts a in the
    bounds); never marked optimal."""
    heuristic = from_spec(puzzle, SPEC)
    a, _ = integer_weights(weight)
    for state in states:
        start = np.array(state, dtype=np.uint8)
        result = weighted_ida_star(puzzle, start, heuristic, weight=weight)
        shortest = exact[state]
        assert shortest <= result.length <= weight * shortest, state
        assert max(heuristic(start), math.ceil(result.length / Fraction(weight))) <= result.lower_bound <= shortest, \
            state
        assert all(p.bound <= a * weight * shortest for p in result.iterations), state
        assert not result.optimal


@pytest.mark.parametrize("weight", [1.5, 3.0])
def test_every_2x4_state_is_solved_within_the_weight_of_its_shortest(in_this_thread, two_by_four_distances, weight):
    _assert_within_the_weight(Puzzle(2, 4, STANDARD_2X4), two_by_four_distances, sorted(two_by_four_distances),
                              weight)


@pytest.mark.parametrize("weight", [1.5, 3.0])
def test_a_large_3x3_sample_is_solved_within_the_weight_of_its_shortest(in_this_thread, eight_puzzle_distances,
                                                                       weight):
    """Every 60th 3x3 state in order (3,024)."""
    _assert_within_the_weight(Puzzle(3, 3), eight_puzzle_distances, sorted(eight_puzzle_distances)[::60], weight)


@pytest.mark.parametrize("weight, complete", [(1.0, False), (1.5, False), (3.0, False), (1.5, True)])
def test_the_passes_are_those_of_a_naive_weighted_ida(eight_puzzle_distances, weight, complete):
    """The passes (bounds, expanded, generated) equal those of a naive IDA* with h' = W * h
    from scratch at every node, whose bound on g + W * h is the kernel's over a, with the last
    pass completed or not."""
    puzzle = Puzzle(3, 3)
    heuristic = from_spec(puzzle, SPEC)
    a, _ = integer_weights(weight)
    for state in _states(eight_puzzle_distances, 14, 18, 4000):
        result = solve(puzzle, np.array(state, dtype=np.uint8), "wida", heuristic, weight=weight,
                       full_last_iteration=complete)
        length, passes = ida_star_counts(state, STANDARD_3X3, 3, 3,
                                         lambda s: weight * heuristic(np.array(s, dtype=np.uint8)),
                                         forbidden=default_forbidden(), complete=complete)
        assert result.length == length, state
        assert [(p.bound, p.nodes_expanded, p.nodes_generated) for p in result.iterations] == \
            [(a * bound, expanded, generated) for bound, expanded, generated in passes], state


@pytest.mark.parametrize("prune, complete", [("fsm", False), ("parent", True)])
def test_weight_one_is_ida(eight_puzzle_distances, prune, complete):
    puzzle = Puzzle(3, 3)
    heuristic = from_spec(puzzle, SPEC)
    for state in _states(eight_puzzle_distances, 20, 31, 3000):
        start = np.array(state, dtype=np.uint8)
        weighted = solve(puzzle, start, "wida", heuristic, weight=1.0, prune=prune, full_last_iteration=complete)
        ida = solve(puzzle, start, "ida", heuristic, prune=prune, full_last_iteration=complete)
        assert weighted.length == ida.length == eight_puzzle_distances[state], state
        assert (weighted.nodes_expanded, weighted.nodes_generated, weighted.iterations) == \
            (ida.nodes_expanded, ida.nodes_generated, ida.iterations), state
        assert weighted.optimal and weighted.lower_bound == weighted.length


def test_a_larger_weight_expands_fewer_nodes_on_far_states(in_this_thread, eight_puzzle_distances):
    """From W = 2 on (closer to 1 the passes multiply: see wida.py)."""
    puzzle = Puzzle(3, 3)
    heuristic = from_spec(puzzle, SPEC)
    states = _states(eight_puzzle_distances, 26, 31, 500)
    expanded = {weight: sum(weighted_ida_star(puzzle, np.array(s, dtype=np.uint8), heuristic, weight=weight)
                            .nodes_expanded for s in states) for weight in (1.0, 2.0, 3.0)}
    assert expanded[3.0] < expanded[2.0] < expanded[1.0]


def test_giving_up_proves_what_the_passes_ruled_out(eight_puzzle_distances):
    """The lower bound of a search that a node limit ends is the least length L with b * L at
    least its last pass's bound (every earlier pass ended below it)."""
    puzzle = Puzzle(3, 3)
    heuristic = from_spec(puzzle, SPEC)
    _, b = integer_weights(1.5)
    for state in _states(eight_puzzle_distances, 28, 31, 250):
        start = np.array(state, dtype=np.uint8)
        result = solve(puzzle, start, "wida", heuristic, weight=1.5, node_limit=300)
        assert result.status == "gave_up" and result.suboptimality is None
        assert heuristic(start) <= result.lower_bound == -(-result.iterations[-1].bound // b) \
            <= eight_puzzle_distances[state]


def test_the_weight_is_checked_and_belongs_to_the_weighted_searches(capsys):
    puzzle = Puzzle(3, 3)
    start = puzzle.state("8 6 7 2 5 4 3 0 1")
    with pytest.raises(InputError, match="the weight must lie in 1..1000, not 0.5$"):
        solve(puzzle, start, "wida", SPEC, weight=0.5)
    for other in ("ida", "astar"):
        with pytest.raises(InputError, match=rf"^a weight applies to .*wida.* only, not to {other}$"):
            solve(puzzle, start, other, SPEC, weight=2.0)
    with pytest.raises(InputError, match="^BPMX applies to .* only, not to wida$"):
        solve(puzzle, start, "wida", SPEC, bpmx=True)
    assert [integer_weights(w) for w in (1.0, 1.5, 3.0, 1.25, 1.001, 2.675)] == \
        [(1, 1), (2, 3), (1, 3), (4, 5), (1000, 1001), (40, 107)]
    for finer in (1.0005, 2.6751):  # once rounded half to even and run as another weight, unrecorded
        with pytest.raises(InputError, match=rf"^the weight must be a multiple of 0.001 .*, not {finer}$"):
            solve(puzzle, start, "wastar", SPEC, weight=finer)
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "wida", "--weight", "1.5", "--prune", "parent",
                              "--full-last-iteration", "--heuristic", SPEC]) == 0
    out = capsys.readouterr().out
    assert f"algorithm  wida, heuristic {SPEC}, weight 1.5" in out and "(not necessarily optimal)" in out
    assert "(move pruning parent, last iteration completed)" in out
