"""The staged solver against exact distances and naive twins: its steps fill every cell once,
within their bound on abstract states, and end at the goal's blank on every board and goal blank; it solves every 2x3 and 2x4 state
and uniformly random states of every board up to 8x8, with solutions that meet no state
twice; each step's breadth-first search takes as few moves as a naive one over the same
abstract states; the loops are cut as a naive loop-erased walk cuts them."""

from collections import deque

import numpy as np
import pytest

from solvers.cli import solve_puzzle_main
from solvers.puzzle import MOVE_LETTERS, Puzzle
from solvers.search.result import SOLVED, UNSOLVABLE
from solvers.search.staged import ANY_CELL, MAX_STEP_STATES, _placing_moves, staged_search, steps, without_loops
from solvers.solve import solve
from tests.conftest import STANDARD_2X4, distances

SIDES = range(2, 9)


def _goal_with_blank_at(rows, cols, cell):
    """The usual goal of the board with the blank moved to `cell` (tiles 1, 2, ... elsewhere in order)."""
    tiles = list(range(1, rows * cols))
    tiles.insert(cell, 0)
    return tiles


@pytest.mark.parametrize("rows", SIDES)
def test_the_steps_fill_every_cell_once_and_end_with_the_goal_blank(rows):
    for cols in SIDES:
        for blank in {0, cols - 1, rows * cols // 2, rows * cols - 1}:
            puzzle = Puzzle(rows, cols, _goal_with_blank_at(rows, cols, blank))
            found = steps(puzzle)
            cells = [cell for step in found for cell in step]
            assert sorted(cells) == list(range(rows * cols)) and found[-1][-1] == blank
            assert len(found[-1]) == 4
            free = rows * cols
            for step in found[:-1]:  # within the bound on a step's abstract states, or a pair
                assert len(step) <= 2 or free ** (len(step) + 1) <= MAX_STEP_STATES
                free -= len(step)


def _replayed_states(puzzle, start, moves):
    return [state.tobytes() for state in puzzle.states_along(np.array(start, dtype=np.uint8), moves)]


@pytest.mark.parametrize("board", [(2, 3), (2, 4)])
def test_it_solves_every_state_of_the_small_boards_without_meeting_a_state_twice(board):
    rows, cols = board
    goal = STANDARD_2X4 if board == (2, 4) else (1, 2, 3, 4, 5, 0)
    puzzle = Puzzle(rows, cols, goal)
    for state, shortest in distances(rows, cols, goal).items():
        result = staged_search(puzzle, np.array(state, dtype=np.uint8))
        assert result.status == SOLVED and result.length >= shortest and not result.optimal
        seen = _replayed_states(puzzle, state, result.moves)
        assert len(set(seen)) == len(seen)


@pytest.mark.parametrize("rows", SIDES)
def test_it_solves_uniformly_random_states_of_every_board(rows):
    rng = np.random.default_rng(rows)
    for cols in SIDES:
        blank = int(rng.integers(rows * cols))
        puzzle = Puzzle(rows, cols, _goal_with_blank_at(rows, cols, blank))
        for _ in range(3):
            state = puzzle.random_state(rng)
            result = staged_search(puzzle, state)  # replayed to the goal before it returns
            assert result.status == SOLVED and result.lower_bound == 0
            seen = _replayed_states(puzzle, state, result.moves)
            assert len(set(seen)) == len(seen)


def test_it_reaches_other_goals_and_knows_unsolvable_states():
    puzzle = Puzzle(3, 3, [1, 2, 3, 8, 0, 4, 7, 6, 5])
    result = solve(puzzle, np.array([2, 8, 3, 1, 6, 4, 7, 0, 5], dtype=np.uint8), "staged")
    assert result.status == SOLVED and result.length >= 5
    assert solve(Puzzle(3, 3), np.array([1, 2, 3, 4, 6, 8, 5, 7, 0], dtype=np.uint8), "staged").status == UNSOLVABLE


def _naive_fewest(puzzle, free, pieces, targets):
    """Breadth-first search over tuples of the pieces' cells, as _placing_moves's contract says."""
    first = tuple(pieces)
    seen = {first: 0}
    queue = deque([first])
    while queue:
        at = queue.popleft()
        if all(target == ANY_CELL or cell == target for cell, target in zip(at, targets)):
            return seen[at]
        for direction in range(4):
            to = int(puzzle.neighbours[at[0], direction])
            if to < 0 or not free[to]:
                continue
            child = (to, *(at[0] if cell == to else cell for cell in at[1:]))
            if child not in seen:
                seen[child] = seen[at] + 1
                queue.append(child)
    return None


def test_each_step_takes_as_few_moves_as_a_naive_search():
    rng = np.random.default_rng(11)
    puzzle = Puzzle(4, 5)
    for trial in range(60):
        free = rng.random(puzzle.n_cells) < 0.8
        cells = np.flatnonzero(free)
        if len(cells) < 4:
            continue
        n_pieces = 2 + trial % 2
        pieces = rng.choice(cells, n_pieces, replace=False)
        targets = rng.choice(cells, n_pieces, replace=False)
        targets[0] = ANY_CELL if trial % 3 else targets[0]
        fewest = _naive_fewest(puzzle, free, [int(c) for c in pieces], [int(c) for c in targets])
        moves, found, _ = _placing_moves(puzzle.neighbours, free, pieces.astype(np.int64), targets.astype(np.int64))
        assert found == (fewest is not None)
        if found:
            assert len(moves) == fewest
            board = np.full(puzzle.n_cells, 99, dtype=np.int64)  # tiles alike, the pieces numbered
            board[pieces] = np.arange(n_pieces)
            blank = int(pieces[0])
            for code in moves:
                to = int(puzzle.neighbours[blank, code])
                assert free[to]
                board[blank], board[to] = board[to], board[blank]
                blank = to
            assert all(target == ANY_CELL or board[target] == piece for piece, target in enumerate(targets))


def _naive_loop_erased(puzzle, start, moves):
    """The walk's states with each loop cut as it closes (chronological loop erasure), as moves."""
    kept = [start.tobytes()]
    letters = []
    for step in range(1, len(moves) + 1):
        state = puzzle.replay(start, moves[:step]).tobytes()
        if state in kept:
            cut = kept.index(state)
            del kept[cut + 1:], letters[cut:]
        else:
            kept.append(state)
            letters.append(moves[step - 1])
    return "".join(letters)


def test_the_loops_are_cut_as_a_naive_loop_erased_walk_cuts_them():
    rng = np.random.default_rng(5)
    puzzle = Puzzle(2, 3)
    for _ in range(40):
        start = puzzle.random_state(rng)
        blank, codes = int(np.flatnonzero(start == 0)[0]), []
        for _ in range(int(rng.integers(0, 60))):
            options = [d for d in range(4) if puzzle.neighbours[blank, d] >= 0]
            codes.append(int(rng.choice(options)))
            blank = int(puzzle.neighbours[blank, codes[-1]])
        kept = without_loops(puzzle, start, codes)
        assert "".join(MOVE_LETTERS[c] for c in kept) == _naive_loop_erased(puzzle, start, "".join(
            MOVE_LETTERS[c] for c in codes))


def test_the_command_solves_a_7x7_state_at_once(capsys):
    state = Puzzle(7, 7).random_state(np.random.default_rng(2))
    assert solve_puzzle_main([" ".join(map(str, state)), "--algorithm", "staged"]) == 0
    out = capsys.readouterr().out
    assert "algorithm  staged" in out and "(not necessarily optimal)" in out and "bound" not in out


def test_out_of_time_it_gives_up_between_steps():
    puzzle = Puzzle(8, 8)
    state = puzzle.random_state(np.random.default_rng(4))
    result = solve(puzzle, state, "staged", time_limit=1e-9)
    assert (result.status, result.reason) == ("gave_up", "time limit of 1e-09 s reached")
    assert solve(puzzle, state, "staged", time_limit=60).status == SOLVED
