"""Gaschnig's heuristic against its definition: the exact distance of the relaxed puzzle in which
the blank swaps with any tile, by breadth-first search over every state of small boards; and
IDA* with it finds the shortest solutions."""

from collections import deque

import numpy as np
import pytest

from solvers.heuristics import from_spec
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests.conftest import STANDARD_2X4, STANDARD_3X3


def relaxed_distances(goal: tuple) -> dict[tuple, int]:
    """Distance to `goal` of every arrangement when a move swaps the blank with any tile."""
    distance = {goal: 0}
    frontier = deque([goal])
    while frontier:
        state = frontier.popleft()
        blank = state.index(0)
        for other in range(len(state)):
            if other == blank:
                continue
            cells = list(state)
            cells[blank], cells[other] = cells[other], 0
            swapped = tuple(cells)
            if swapped not in distance:
                distance[swapped] = distance[state] + 1
                frontier.append(swapped)
    return distance


@pytest.mark.parametrize("rows, cols, goal", [(2, 3, (1, 2, 3, 4, 5, 0)), (2, 4, STANDARD_2X4),
                                              (2, 3, (0, 1, 2, 3, 4, 5))])
def test_it_is_the_relaxed_distance_of_every_state(rows, cols, goal):
    puzzle = Puzzle(rows, cols, " ".join(map(str, goal)))
    exact = relaxed_distances(goal)
    states = np.array(sorted(exact), dtype=np.uint8)
    h = from_spec(puzzle, "gaschnig").evaluate_many(states)
    assert h.tolist() == [exact[tuple(s)] for s in states.tolist()]


def test_ida_with_it_finds_the_shortest_solutions(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    assert tuple(puzzle.goal) == STANDARD_3X3
    heuristic = from_spec(puzzle, "gaschnig")
    assert heuristic.consistent and heuristic.admissible
    states = sorted(eight_puzzle_distances)
    for i in np.random.default_rng(5).choice(len(states), 12, replace=False):
        result = solve(puzzle, np.array(states[i], dtype=np.uint8), "ida", heuristic)
        assert result.length == eight_puzzle_distances[states[i]] and result.optimal
        assert result.initial_h <= result.length
