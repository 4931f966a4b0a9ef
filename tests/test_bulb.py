"""BULB against exact distances, beam search and a naive twin: slices wider than any layer are
breadth-first search (the shortest length, marked optimal); slices of one state still solve
every state tried; where beam search of the same width empties BULB solves, and where beam
search solves BULB's first pass is that search; the kernel finds the solution and expands the
nodes that tests/naive.py's recursive BULB does; limits and the width option."""

import csv

import numpy as np
import pytest

from solvers.batch import solve_batch
from solvers.cli import solve_puzzle_main
from solvers.errors import InputError
from solvers.heuristics import baseline
from solvers.instances import Instance
from solvers.puzzle import Puzzle
from solvers.search.beam import beam_search
from solvers.search.bulb import _pushed, bulb_search
from solvers.search.node_store import EMPTY, find, new_index
from solvers.search.result import proved_none_shorter
from solvers.solve import solve
from tests.conftest import STANDARD_2X4, distances
from tests.naive import bulb_run, manhattan
from tests.test_beam import UNBOUNDED, _far, _random_walk, _sample

STANDARD_2X3 = (1, 2, 3, 4, 5, 0)


def _boards(eight_puzzle_distances):
    """(puzzle, exact distances) of the 3x3 and 2x4 boards."""
    return ((Puzzle(3, 3), eight_puzzle_distances), (Puzzle(2, 4, STANDARD_2X4), distances(2, 4, STANDARD_2X4)))


def _bulb(puzzle, state, heuristic, width, **limits):
    return bulb_search(puzzle, np.array(state, dtype=np.uint8), heuristic, beam_width=width, **limits)


def test_the_index_finds_the_stack_alone_through_pushes_pops_and_refills():
    # states of one word, pushed and popped at random; an entry above the top is stale
    rng = np.random.default_rng(3)
    states = rng.choice(1 << 40, 120, replace=False).astype(np.uint64).reshape(-1, 1)
    codes = np.zeros((40, 1), dtype=np.uint64)
    index, used, stack, refills = new_index(1), 0, [], 0
    for _ in range(2000):
        if len(stack) == codes.shape[0] or (stack and rng.random() < 0.4):
            del stack[len(stack) - rng.integers(1, len(stack) + 1):]
        else:
            state = rng.choice([s for s in range(len(states)) if s not in stack])
            codes[len(stack)] = states[state]
            slots = index.shape[0]
            index, now_used = _pushed(index, used, codes, len(stack))
            refills += now_used < used and index.shape[0] == slots
            used = now_used
            stack.append(state)
        for s in range(len(states)):
            node = find(index, codes, states, s)[0]
            assert (node != EMPTY and node < len(stack)) == (s in stack)
            assert node == EMPTY or node >= len(stack) or stack[node] == s
        assert 4 * used <= 3 * index.shape[0]
    assert refills > 0


def test_slices_wider_than_any_layer_are_breadth_first_on_2x3_and_2x4():
    for puzzle, n in ((Puzzle(2, 3, STANDARD_2X3), None), (Puzzle(2, 4, STANDARD_2X4), 100)):
        exact = distances(puzzle.rows, puzzle.cols, tuple(puzzle.goal))
        heuristic = baseline(puzzle, "manhattan")
        for state in sorted(exact) if n is None else _sample(exact, n, 7):
            result = _bulb(puzzle, state, heuristic, UNBOUNDED)
            shortest = exact[state]
            assert (result.length, result.optimal, result.lower_bound) == (shortest, True, shortest), state


def test_slices_of_one_state_solve_every_2x3_state_and_a_sample_of_2x4():
    # every 2x4 state at a width of 1 takes half a minute here: 2x3 in full, 2x4 by a sample
    for puzzle, n in ((Puzzle(2, 3, STANDARD_2X3), None), (Puzzle(2, 4, STANDARD_2X4), 400)):
        exact = distances(puzzle.rows, puzzle.cols, tuple(puzzle.goal))
        heuristic = baseline(puzzle, "manhattan")
        for state in sorted(exact) if n is None else _sample(exact, n, 11):
            result = _bulb(puzzle, state, heuristic, 1)  # bulb_search replays the solution
            shortest = exact[state]
            assert result.status == "solved" and result.length >= shortest, state
            assert (result.length - shortest) % 2 == 0 and result.lower_bound <= shortest, state


@pytest.mark.parametrize("board, width, n", [("3x3", 1, 150), ("2x4", 1, 150), ("2x4", 2, 1500)])
def test_bulb_solves_where_beam_empties_and_otherwise_first_searches_as_beam(eight_puzzle_distances, board, width, n):
    puzzle, exact = _boards(eight_puzzle_distances)[board == "2x4"]
    heuristic = baseline(puzzle, "manhattan")
    emptied, solved = 0, 0
    for state in _sample(exact, n, width):  # a beam of 2 empties on about one 2x4 state in 200
        beam = beam_search(puzzle, np.array(state, dtype=np.uint8), heuristic, beam_width=width)
        if beam.status == "solved" and solved == 40:
            continue
        bulb = _bulb(puzzle, state, heuristic, width)
        assert bulb.status == "solved" and bulb.length >= exact[state], state
        if beam.status == "solved":  # pass 0 is beam search, and it found this solution
            assert (bulb.moves, bulb.nodes_expanded, bulb.nodes_generated, bulb.optimal) == \
                (beam.moves, beam.nodes_expanded, beam.nodes_generated, beam.optimal), state
            solved += 1
        else:
            assert beam.reason.startswith("the beam emptied"), state
            assert bulb.nodes_expanded > beam.nodes_expanded and not bulb.optimal, state
            emptied += 1
    assert emptied > 0 and solved > 0


@pytest.mark.parametrize("width, node_limit, n", [(2, None, 25), (3, None, 25), (2, 15, 5), (2, 60, 10)])
def test_the_kernel_finds_the_solution_and_expands_the_nodes_of_the_naive_bulb(eight_puzzle_distances, width,
                                                                                node_limit, n):
    puzzle = Puzzle(3, 3)
    heuristic = baseline(puzzle, "manhattan")
    goal = tuple(puzzle.goal)
    limits = {} if node_limit is None else {"node_limit": node_limit}
    statuses = set()
    # 15 nodes hold no path to a far state (they hold 7 layers of 2 at most), and 60 hold one to most states
    far = node_limit == 15
    for state in _far(eight_puzzle_distances, n) if far else _sample(eight_puzzle_distances, n, width):
        result = _bulb(puzzle, state, heuristic, width, **limits)
        moves, expanded = bulb_run(state, goal, 3, 3, lambda s: manhattan(s, goal, 3), width, **limits)
        assert (result.moves, result.nodes_expanded) == (moves, expanded), state
        statuses.add(result.status)
    assert statuses == {"gave_up"} if far else "solved" in statuses


def test_the_node_and_time_limits_end_the_search(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    far = np.array(_far(eight_puzzle_distances, 1)[0], dtype=np.uint8)
    for width, node_limit, layers in ((UNBOUNDED, 50, "50 nodes"), (1, 10, "1 node")):
        limited = solve(puzzle, far, "bulb", "manhattan", beam_width=width, node_limit=node_limit)
        assert limited.status == "gave_up" and limited.reason == \
            f"node limit of {node_limit} nodes too small to hold a path of layers of {layers} to the goal"
    large = Puzzle(8, 8)
    timed_out = solve(large, np.array(_random_walk(large, 40, 3), dtype=np.uint8), "bulb", "manhattan",
                      beam_width=UNBOUNDED, time_limit=0.2)
    assert timed_out.status == "gave_up" and timed_out.reason == "time limit of 0.2 s reached"


def test_a_large_board_is_solved_from_a_random_walk():
    puzzle = Puzzle(6, 6)
    state = _random_walk(puzzle, 40, 6)
    result = solve(puzzle, np.array(state, dtype=np.uint8), "bulb", "manhattan", beam_width=100)  # replayed
    assert result.status == "solved" and result.lower_bound == manhattan(state, tuple(puzzle.goal), 6) <= result.length
    assert result.length % 2 == 0  # the blank ends where the walk left it


def test_the_width_is_checked_shared_with_beam_and_recorded(capsys, tmp_path, eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    start = puzzle.state("8 6 7 2 5 4 3 0 1")
    for bad in (0, -3, 2.5, True):
        with pytest.raises(InputError, match=r"^the beam width must be a whole number of at least 1, not"):
            solve(puzzle, start, "bulb", "manhattan", beam_width=bad)
    with pytest.raises(InputError, match="^a beam width applies to beam and bulb only, not to astar$"):
        solve(puzzle, start, "astar", "manhattan", beam_width=10)
    assert solve(puzzle, puzzle.state("2 1 3 4 5 6 7 8 0"), "bulb", "manhattan").status == "unsolvable"
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "bulb", "--beam-width", "2", "--heuristic",
                              "manhattan"]) == 0
    assert "algorithm  bulb" in capsys.readouterr().out
    states = sorted(s for s in eight_puzzle_distances if eight_puzzle_distances[s] == 16)[:2]
    out = tmp_path / "bulb.csv"
    solve_batch(puzzle, [Instance(i + 1, np.array(s, dtype=np.uint8), None) for i, s in enumerate(states)],
                "manhattan", out, algorithm="bulb", beam_width=7)
    assert [row["beam_width"] for row in csv.DictReader(out.open())] == ["7", "7"]


def test_sought_shorter_than_a_length_they_find_the_shortest_or_say_none_was_found():
    """On 2x4 states: a bound one above the shortest length gives the shortest from breadth-first
    beams and BULB and from BULB of width 1 (complete within the bound); a bound at the shortest
    length gives nothing, proved by the breadth-first searches and said so by the narrow one
    (tried where the shortest is short: its passes over every sequence of discrepancies grow
    exponentially with the length)."""
    puzzle = Puzzle(2, 4, STANDARD_2X4)
    heuristic = baseline(puzzle, "manhattan")
    exact = distances(2, 4, STANDARD_2X4)
    for state in _sample(exact, 40, 4):
        shortest = exact[state]
        if shortest == 0:
            continue
        for search, width in ((beam_search, UNBOUNDED), (bulb_search, UNBOUNDED), (bulb_search, 1)):
            board = np.array(state, dtype=np.uint8)
            found = search(puzzle, board, heuristic, beam_width=width, shorter_than=shortest + 1)
            assert found.length == shortest, (search, width, state)
            if width == 1 and shortest > 20:
                continue
            none = search(puzzle, board, heuristic, beam_width=width, shorter_than=shortest)
            assert none.status == "gave_up"
            assert proved_none_shorter(none) == (width == UNBOUNDED), none.reason
    with pytest.raises(InputError, match="shorter than 0 moves"):
        beam_search(puzzle, np.array(STANDARD_2X4, dtype=np.uint8), heuristic, shorter_than=0)
