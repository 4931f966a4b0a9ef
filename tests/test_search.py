"""Searches: optimal lengths against exhaustive BFS, counters against a naive IDA*, limits."""

import numpy as np
import pytest

from solvers.errors import InputError
from solvers.heuristics import baseline
from solvers.puzzle import Puzzle, load_puzzle
from solvers.search.result import GAVE_UP, SOLVED, UNSOLVABLE
from solvers.solve import solve
from tests import naive
from tests.conftest import STANDARD_2X4, STANDARD_3X3, default_forbidden, distances

KORF_GOAL = " ".join(map(str, range(16)))


def _sample(exact: dict, n: int, seed: int) -> list[tuple]:
    states = list(exact)
    rng = np.random.default_rng(seed)
    return [states[i] for i in rng.choice(len(states), size=n, replace=False)]


@pytest.mark.parametrize(
    "rows, cols, goal, n_states", [(3, 3, STANDARD_3X3, 1000), (2, 4, STANDARD_2X4, 500)]
)
@pytest.mark.parametrize(
    "algorithm, heuristic",
    [("ida", "linear-conflict"), ("ida", "hamming"), ("astar", "manhattan"), ("astar", "linear-conflict"),
     ("bfs", "zero"), ("iddfs", "zero")],
)
def test_optimal_lengths_agree_with_exhaustive_bfs(rows, cols, goal, n_states, algorithm, heuristic):
    exact = distances(rows, cols, goal)
    puzzle = Puzzle(rows, cols, goal)
    if heuristic == "zero":  # a blind search costs about a minute per 1000 8-puzzle states: a tenth of them
        n_states //= 10
    for state in _sample(exact, n_states, seed=rows * cols):
        result = solve(puzzle, np.array(state, dtype=np.uint8), algorithm, heuristic)
        assert result.status == SOLVED and result.optimal
        assert result.length == exact[state], state
        assert len(result.moves) == result.length


def test_depth_limited_dfs_finds_a_valid_solution_within_the_limit(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    for state in _sample(eight_puzzle_distances, 100, seed=3):
        result = solve(puzzle, np.array(state, dtype=np.uint8), "dfs", depth_limit=31)
        assert result.status == SOLVED and not result.optimal
        assert eight_puzzle_distances[state] <= result.length <= 31
        assert result.length % 2 == eight_puzzle_distances[state] % 2


def test_depth_limited_dfs_gives_up_below_the_distance():
    puzzle, start = load_puzzle("8 6 7 2 5 4 3 0 1")
    result = solve(puzzle, start, "dfs", depth_limit=29)
    assert result.status == GAVE_UP and "no solution within 29 moves" in result.reason


# Hamming's counters are compared with the same naive IDA* in tests/test_heuristic_kinds.py
# (states 12 to 20 moves away); here, far states too, where Hamming's trees cost the naive search
# twenty seconds
@pytest.mark.parametrize("heuristic", ["manhattan", "linear-conflict"])
def test_ida_counters_equal_a_naive_recursive_ida(heuristic, eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    h = baseline(puzzle, heuristic)
    goal = STANDARD_3X3
    for state in _sample(eight_puzzle_distances, 20, seed=11):
        result = solve(puzzle, np.array(state, dtype=np.uint8), "ida", heuristic)
        length, passes = naive.ida_star_counts(state, goal, 3, 3, lambda s: h(np.array(s, dtype=np.uint8)),
                                               forbidden=default_forbidden())
        assert result.length == length
        assert [(i.bound, i.nodes_expanded, i.nodes_generated) for i in result.iterations] == passes


@pytest.mark.parametrize(
    "tiles, board, goal, length",
    [
        ("1 2 3 4 6 8 7 5 0", None, None, 4),
        ("1 3 0 4 2 6 7 5 8 10 11 9", "4x3", None, 5),
        ("2 8 3 1 6 4 7 0 5", None, "1 2 3 8 0 4 7 6 5", 5),
        ("8 6 7 2 5 4 3 0 1", None, None, 31),
        ("8 0 6 5 4 7 2 3 1", None, "0 1 2 3 4 5 6 7 8", 31),
        ("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", None, KORF_GOAL, 57),
    ],
)
def test_seed_and_benchmark_examples(tiles, board, goal, length):
    puzzle, start = load_puzzle(tiles, board, goal)
    result = solve(puzzle, start, "ida", "linear-conflict")
    assert result.length == length
    assert puzzle.is_goal(puzzle.replay(start, result.moves))


def test_unsolvable_is_reported_without_searching():
    puzzle, start = load_puzzle("1 2 3 4 6 8 5 7 0")
    for algorithm in ("ida", "astar", "bfs", "iddfs", "dfs"):
        result = solve(puzzle, start, algorithm)
        assert result.status == UNSOLVABLE and not result.solvable
        assert result.nodes_generated == 0 and result.moves is None


def test_start_at_goal_has_length_zero():
    puzzle = Puzzle(3, 4)
    for algorithm in ("ida", "astar", "bfs", "iddfs", "dfs"):
        result = solve(puzzle, puzzle.goal.copy(), algorithm)
        assert result.status == SOLVED and result.length == 0 and result.moves == ""


def test_astar_and_ida_agree_on_a_rectangular_board():
    puzzle = Puzzle(3, 4)
    rng = np.random.default_rng(5)
    for _ in range(15):
        start = puzzle.random_state(rng)
        ida = solve(puzzle, start, "ida", "linear-conflict")
        astar = solve(puzzle, start, "astar", "manhattan")
        assert ida.length == astar.length


def test_node_limits_end_searches_cleanly():
    puzzle, start = load_puzzle("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", None, KORF_GOAL)
    for algorithm in ("ida", "astar", "bfs", "iddfs"):
        result = solve(puzzle, start, algorithm, "manhattan", node_limit=5000)
        assert result.status == GAVE_UP and result.moves is None and "limit" in result.reason


def test_time_limit_ends_ida_within_an_iteration():
    puzzle, start = load_puzzle("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", None, KORF_GOAL)
    result = solve(puzzle, start, "ida", "hamming", time_limit=0.3)  # hours of search otherwise
    assert result.status == GAVE_UP and "time limit of 0.3 s reached" in result.reason
    assert result.seconds < 10


@pytest.mark.parametrize("rows, cols", [(4, 5), (5, 5), (6, 6), (8, 8), (3, 7)])
def test_searches_that_store_states_work_on_boards_past_sixteen_cells(rows, cols):
    """States of more than one 64-bit word: A* and BFS find IDA*'s optimal lengths (one word
    held 16 cells; a wrong packing or hash would merge distinct states and shorten paths)."""
    puzzle = Puzzle(rows, cols)
    rng = np.random.default_rng(rows * 10 + cols)
    for _ in range(3):
        start = puzzle.goal.copy()
        for move in rng.integers(0, 4, size=30):
            moved = puzzle.replay(start, "UDLR"[move]) if _legal(puzzle, start, move) else start
            start = moved
        optimal = solve(puzzle, start, "ida", "manhattan").length
        assert solve(puzzle, start, "astar", "manhattan").length == optimal
        if optimal <= 14:
            assert solve(puzzle, start, "bfs").length == optimal


def _legal(puzzle, state, move) -> bool:
    return puzzle.neighbours[int(np.flatnonzero(state == 0)[0]), move] >= 0


def test_a_node_limit_beyond_memory_is_refused_before_searching():
    puzzle = Puzzle(5, 5)
    for algorithm in ("astar", "bfs"):
        with pytest.raises(InputError, match="of memory but only"):
            solve(puzzle, puzzle.goal.copy(), algorithm, "manhattan", node_limit=1 << 60)


def test_unknown_algorithm():
    puzzle = Puzzle(3, 3)
    with pytest.raises(InputError, match="unknown algorithm"):
        solve(puzzle, puzzle.goal.copy(), "dijkstra")


def test_the_default_node_limit_shrinks_to_the_memory_available(monkeypatch):
    """With little memory free, A* and BFS store fewer nodes than their defaults instead of
    refusing to start; an explicit limit beyond it is still refused."""
    from pdb_build import bfs
    from solvers.search import node_store

    monkeypatch.setattr(node_store, "available_memory", lambda: 50 * 2**20)
    monkeypatch.setattr(bfs, "available_memory", lambda: 50 * 2**20)
    puzzle = Puzzle(3, 3)
    start = puzzle.state("8 6 7 2 5 4 3 0 1")
    assert solve(puzzle, start, "astar", "manhattan").length == 31
    result = solve(puzzle, start, "bfs")
    assert result.status == SOLVED and result.length == 31
    with pytest.raises(InputError, match="of memory but only"):
        solve(puzzle, start, "astar", "manhattan", node_limit=10_000_000)
