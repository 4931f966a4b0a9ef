"""Greedy best-first search against exact distances on every state of the 2x4 board: every
solution is replayed and never shorter than the shortest, the lower bound is h of the start;
its randomized restarts against the runs they are made of."""

import numpy as np
import pytest

from solvers.cli import solve_puzzle_main
from solvers.errors import InputError
from solvers.heuristics import baseline
from solvers.puzzle import Puzzle
from solvers.search.best_first import best_first
from solvers.search import restarts
from solvers.search.restarts import luby, restarting
from solvers.search.result import GAVE_UP, SOLVED, SearchResult, node_limit_reason, time_limit_reason
from solvers.solve import solve
from tests.conftest import STANDARD_2X4, distances


def test_a_quarter_of_the_2x4_states_are_solved_and_bounded_below_by_h():
    """Every fourth solvable 2x4 state in BFS order, so every depth (each state costs a
    search's fixed cost, which dominates on so small a board)."""
    puzzle = Puzzle(2, 4, STANDARD_2X4)
    manhattan = baseline(puzzle, "manhattan")
    longer = 0
    for state, shortest in list(distances(2, 4, STANDARD_2X4).items())[::4]:
        start = np.array(state, dtype=np.uint8)
        result = solve(puzzle, start, "greedy", manhattan)
        assert result.length >= shortest and result.lower_bound == manhattan(start) <= shortest, state
        assert not result.optimal
        longer += result.length > shortest
    assert longer > 250  # greedy ignores the path's length: many of its solutions are longer


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


def test_luby_sequence_starts_as_published():
    assert [luby(k) for k in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]


def _fake_runs(solved_at: int | None, asked: list):
    """A run_once that gives up at its budget until run `solved_at`, recording (run, budget)."""
    def run_once(run, budget, left):
        asked.append((run, budget))
        if run == solved_at:
            return SearchResult(SOLVED, "greedy", "h", length=3, moves="RRD", nodes_expanded=5, nodes_generated=9,
                                found=((3, 0.0),))
        return SearchResult(GAVE_UP, "greedy", "h", nodes_expanded=budget, nodes_generated=2 * budget,
                            reason=node_limit_reason(budget, "stored nodes"))
    return run_once


def test_restarts_grow_their_budgets_as_luby_and_count_every_run():
    asked = []
    result = restarting(_fake_runs(5, asked), 10, 1000, None)
    assert asked == [(0, 10), (1, 10), (2, 20), (3, 10), (4, 10), (5, 20)]
    assert result.status == SOLVED and result.moves == "RRD"
    assert (result.nodes_expanded, result.nodes_generated) == (60 + 5, 120 + 9)
    assert result.found == ((3, result.seconds),)


def test_restarts_end_at_the_first_budget_that_reaches_the_node_limit():
    asked = []
    result = restarting(_fake_runs(None, asked), 10, 30, None)
    assert asked == [(0, 10), (1, 10), (2, 20), (3, 10), (4, 10), (5, 20), (6, 30)]
    assert result.status == GAVE_UP and result.reason == node_limit_reason(30, "stored nodes")


def test_restarted_greedy_is_its_runs_one_after_another(monkeypatch, eight_puzzle_distances):
    """With a tiny unit, greedy search is run k = 0, 1, ... of the kernel seeded by k under
    budgets of unit * luby(k + 1) stored nodes, up to the first that solves: same solution, and
    its counts are theirs added up."""
    from solvers.search import greedy

    monkeypatch.setattr(greedy, "RESTART_UNIT", 40)
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    far = [s for s, d in sorted(eight_puzzle_distances.items()) if d >= 26][::300]
    restarted = 0
    for state in far:
        start = np.array(state, dtype=np.uint8)
        result = solve(puzzle, start, "greedy", manhattan, tie_break="random")
        expanded = generated = run = 0
        while True:
            one = best_first(puzzle, start, manhattan, "greedy", (0, 1), reopen=False, tie_break="random",
                             node_limit=40 * luby(run + 1), run=run)
            expanded, generated = expanded + one.nodes_expanded, generated + one.nodes_generated
            if one.status == SOLVED:
                break
            run += 1
        restarted += run > 0
        assert result.moves == one.moves and (result.nodes_expanded, result.nodes_generated) == (expanded, generated)
        assert result.length >= eight_puzzle_distances[state]
        if run > 0:
            last_restarted = start
    assert restarted > len(far) // 2  # the budgets were small enough to restart most searches
    once = solve(puzzle, last_restarted, "greedy", manhattan, tie_break="random", restarts=False)
    plain = best_first(puzzle, last_restarted, manhattan, "greedy", (0, 1), reopen=False, tie_break="random")
    restarted_result = solve(puzzle, last_restarted, "greedy", manhattan, tie_break="random")
    assert (once.moves, once.nodes_expanded) == (plain.moves, plain.nodes_expanded) != \
        (restarted_result.moves, restarted_result.nodes_expanded)  # without restarts: run 0 alone, unbounded


def test_restarts_share_one_time_limit_and_report_it(monkeypatch):
    """Each run gets the time left; a run that ends past the limit ends the search with the
    reason naming the limit given, not the time its last run had."""
    clock = iter([0.0, 4.0, 11.0, 11.0])
    monkeypatch.setattr(restarts.time, "perf_counter", lambda: next(clock))
    asked, lefts = [], []

    def run_once(run, budget, left):
        lefts.append(left)
        return _fake_runs(None, asked)(run, budget, left)

    result = restarting(run_once, 10, 1000, 10.0)
    assert lefts == [10.0, 6.0] and result.status == GAVE_UP
    assert result.reason == time_limit_reason(10.0) and result.seconds == 11.0


def test_restarted_greedy_reports_an_unsolvable_start_and_takes_a_memory_budget():
    puzzle = Puzzle(3, 3)
    unsolvable = np.array([2, 1, 3, 4, 5, 6, 7, 8, 0], dtype=np.uint8)
    assert solve(puzzle, unsolvable, "greedy", "manhattan").status == "unsolvable"
    start = np.array([8, 6, 7, 2, 5, 4, 3, 0, 1], dtype=np.uint8)
    result = solve(puzzle, start, "greedy", "manhattan", memory=0.001)
    assert result.status == SOLVED and result.length >= 31


def test_restarts_without_random_choices_are_refused_in_one_line(capsys):
    puzzle = Puzzle(3, 3)
    with pytest.raises(InputError, match="ties larger-g make none"):
        solve(puzzle, np.array(puzzle.goal), "greedy", "manhattan", tie_break="larger-g", restarts=True)
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "greedy", "--tie-break", "fifo",
                              "--restarts", "on"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ties fifo make none" in err[0]
