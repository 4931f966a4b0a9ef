"""Beam search against exact distances: a beam wider than any layer is breadth-first search
(the shortest length, marked optimal); a narrow one is never shorter than the shortest, its
lower bound never above it, and it stores fewer nodes; large boards, limits and the width option."""

import csv
from collections import Counter

import numpy as np
import pytest

from solvers.batch import solve_batch
from solvers.cli import solve_puzzle_main
from solvers.errors import InputError
from solvers.heuristics import baseline
from solvers.instances import Instance
from solvers.puzzle import Puzzle
from solvers.search.beam import DEFAULT_BEAM_WIDTH, beam_search
from solvers.solve import solve
from tests.conftest import STANDARD_2X4, distances
from tests.naive import blank_moves, exhaustive_distances, manhattan

UNBOUNDED = 10**9  # wider than any layer of the boards below


def _sample(exact, n, seed):
    states = sorted(exact)
    rng = np.random.default_rng(seed)
    return [states[i] for i in rng.choice(len(states), n, replace=False)]


def _far(exact, n):
    return [s for s, d in sorted(exact.items()) if d >= 26][:n]


def test_an_unbounded_beam_is_breadth_first_on_3x3_and_2x4(eight_puzzle_distances):
    for puzzle, exact, n, counted in ((Puzzle(3, 3), eight_puzzle_distances, 30, 2),
                                      (Puzzle(2, 4, STANDARD_2X4), distances(2, 4, STANDARD_2X4), 300, 10)):
        heuristic = baseline(puzzle, "manhattan")
        for i, state in enumerate(_sample(exact, n, 5) + [tuple(puzzle.goal)]):
            result = beam_search(puzzle, np.array(state, dtype=np.uint8), heuristic, beam_width=UNBOUNDED)
            shortest = exact[state]
            assert (result.length, result.optimal, result.lower_bound) == (shortest, True, shortest), state
            if i < counted and shortest > 0:
                # each state stored once: every state nearer than the goal's parent layer is
                # expanded, then part of that layer, up to the goal's parent
                from_start = Counter(exhaustive_distances(puzzle.rows, puzzle.cols, state).values())
                before = sum(from_start[d] for d in range(shortest - 1))
                assert before < result.nodes_expanded <= before + from_start[shortest - 1], state


@pytest.mark.parametrize("width", [1, 4, 16, 64])
def test_a_narrow_beam_is_bounded_by_the_exact_distance(eight_puzzle_distances, width):
    puzzle = Puzzle(3, 3)
    heuristic = baseline(puzzle, "manhattan")
    goal = tuple(puzzle.goal)
    for state in _sample(eight_puzzle_distances, 150, width):
        shortest = eight_puzzle_distances[state]
        result = beam_search(puzzle, np.array(state, dtype=np.uint8), heuristic, beam_width=width)
        assert result.lower_bound <= shortest, state
        if result.status == "solved":
            assert result.length >= shortest and (result.length - shortest) % 2 == 0, state
            assert result.length == shortest or not result.optimal, state
            if not result.optimal:
                assert result.lower_bound == manhattan(state, goal, 3), state
        else:
            assert result.reason.startswith("the beam emptied"), state


def test_a_beam_of_one_can_empty_and_gives_up_saying_so(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    heuristic = baseline(puzzle, "manhattan")
    outcomes = [beam_search(puzzle, np.array(s, dtype=np.uint8), heuristic, beam_width=1)
                for s in _far(eight_puzzle_distances, 40)]
    emptied = [r for r in outcomes if r.status == "gave_up"]
    assert emptied and all("the beam emptied" in r.reason and r.length is None for r in emptied)
    assert any(r.status == "solved" for r in outcomes)


def test_a_narrower_beam_stores_fewer_nodes_on_far_states(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    heuristic = baseline(puzzle, "manhattan")
    far = _far(eight_puzzle_distances, 30)
    stored = {}
    for width in (5, 50, 500):
        results = [beam_search(puzzle, np.array(s, dtype=np.uint8), heuristic, beam_width=width) for s in far]
        assert not any(r.optimal for r in results)  # every one of these searches cut a layer
        stored[width] = sum(r.nodes_expanded for r in results)
    assert stored[5] < stored[50] < stored[500]


def _random_walk(puzzle, length, seed):
    """The end of a walk of `length` blank moves from the goal, never straight back."""
    rng = np.random.default_rng(seed)
    state, previous = tuple(puzzle.goal), None
    for _ in range(length):
        choices = [s for s in blank_moves(state, puzzle.rows, puzzle.cols) if s != previous]
        state, previous = choices[rng.integers(len(choices))], state
    return state


@pytest.mark.parametrize("rows, cols", [(6, 6), (7, 7), (8, 8)])
def test_large_boards_are_solved_from_random_walks(rows, cols):
    puzzle = Puzzle(rows, cols)
    state = _random_walk(puzzle, 40, rows)
    start = np.array(state, dtype=np.uint8)
    result = solve(puzzle, start, "beam", "manhattan", beam_width=100)  # `solve` replays the solution
    h = manhattan(state, tuple(puzzle.goal), cols)
    assert result.status == "solved" and result.lower_bound == h <= result.length
    assert result.length % 2 == 40 % 2  # the blank ends where the walk left it


def test_the_node_and_time_limits_end_the_search(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    far = np.array(_far(eight_puzzle_distances, 1)[0], dtype=np.uint8)
    limited = solve(puzzle, far, "beam", "manhattan", beam_width=UNBOUNDED, node_limit=50)
    assert limited.status == "gave_up" and limited.reason == "node limit of 50 held nodes reached"
    large = Puzzle(8, 8)
    timed_out = solve(large, np.array(_random_walk(large, 40, 3), dtype=np.uint8), "beam", "manhattan",
                      beam_width=UNBOUNDED, time_limit=0.2)
    assert timed_out.status == "gave_up" and timed_out.reason == "time limit of 0.2 s reached"


def test_the_width_is_checked_belongs_to_beam_and_is_recorded(capsys, tmp_path, eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    start = puzzle.state("8 6 7 2 5 4 3 0 1")
    for bad in (0, -3, 2.5, True):
        with pytest.raises(InputError, match=r"^the beam width must be a whole number of at least 1, not"):
            solve(puzzle, start, "beam", "manhattan", beam_width=bad)
    with pytest.raises(InputError, match="^a beam width applies to beam and bulb only, not to astar$"):
        solve(puzzle, start, "astar", "manhattan", beam_width=10)
    for given in ("10", str(DEFAULT_BEAM_WIDTH)):  # the default width too: an explicit option is a request
        assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "ida", "--beam-width", given]) == 2
        assert capsys.readouterr().err == "solve-puzzle: error: a beam width applies to beam and bulb only, not to ida\n"
    with pytest.raises(InputError, match="^a beam width applies to beam and bulb only, not to astar$"):
        solve(puzzle, start, "astar", "manhattan", beam_width=DEFAULT_BEAM_WIDTH)
    with pytest.raises(InputError, match="^BPMX applies to .* only, not to beam$"):
        solve(puzzle, start, "beam", "manhattan", bpmx=False)
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "beam", "--beam-width", "50", "--heuristic",
                              "manhattan"]) == 0
    assert "algorithm  beam" in capsys.readouterr().out
    states = sorted(s for s in eight_puzzle_distances if eight_puzzle_distances[s] == 16)[:2]
    out = tmp_path / "beam.csv"
    solve_batch(puzzle, [Instance(i + 1, np.array(s, dtype=np.uint8), None) for i, s in enumerate(states)],
                "manhattan", out, algorithm="beam", beam_width=7)
    assert [row["beam_width"] for row in csv.DictReader(out.open())] == ["7", "7"]
