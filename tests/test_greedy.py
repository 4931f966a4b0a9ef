"""Greedy best-first search against exact distances on every state of the 2x4 board: every
solution is replayed and never shorter than the shortest, the lower bound is h of the start."""

import numpy as np

from solvers.cli import solve_puzzle_main
from solvers.heuristics import baseline
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests.conftest import STANDARD_2X4, distances


def test_every_2x4_state_is_solved_and_bounded_below_by_h():
    puzzle = Puzzle(2, 4, STANDARD_2X4)
    manhattan = baseline(puzzle, "manhattan")
    longer = 0
    for state, shortest in distances(2, 4, STANDARD_2X4).items():
        start = np.array(state, dtype=np.uint8)
        result = solve(puzzle, start, "greedy", manhattan)
        assert result.length >= shortest and result.lower_bound == manhattan(start) <= shortest, state
        assert not result.optimal
        longer += result.length > shortest
    assert longer > 1000  # greedy ignores the path's length: many of its solutions are longer


def test_greedy_expands_fewer_nodes_than_astar_on_far_states(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    far = [s for s, d in sorted(eight_puzzle_distances.items()) if d >= 26][:40]
    greedy = sum(solve(puzzle, np.array(s, dtype=np.uint8), "greedy", manhattan).nodes_expanded for s in far)
    astar = sum(solve(puzzle, np.array(s, dtype=np.uint8), "astar", manhattan).nodes_expanded for s in far)
    assert greedy < astar


def test_the_command_reports_the_bound(capsys):
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "greedy", "--heuristic", "manhattan"]) == 0
    out = capsys.readouterr().out
    assert "algorithm  greedy" in out and "(not necessarily optimal)" in out
    assert "bound      the shortest solution has at least 21 moves" in out  # Manhattan distance of the start
