"""The puzzle model: parsing, validation, solvability against exhaustive reachability, replay."""

import itertools

import numpy as np
import pytest

from solvers.puzzle import Puzzle, PuzzleError, SolutionError, load_puzzle, parse_board, parse_tiles
from tests.conftest import distances


def test_eight_puzzle_has_181440_reachable_states_at_most_31_moves_away(eight_puzzle_distances):
    assert len(eight_puzzle_distances) == 181_440
    assert max(eight_puzzle_distances.values()) == 31


@pytest.mark.parametrize(
    "text",
    ["1 2 3 4 6 8 7 5 0", "1,2,3/4,6,8/7,5,0", "1, 2, 3; 4, 6, 8; 7, 5, 0", "1 2 3\n4 6 8\n7 5 0\n"],
)
def test_text_forms_parse_to_the_same_state(text):
    puzzle, state = load_puzzle(text)
    assert puzzle.board == "3x3"
    assert state.dtype == np.uint8
    assert state.tolist() == [1, 2, 3, 4, 6, 8, 7, 5, 0]


def test_nested_lists_give_the_board_shape():
    puzzle, state = load_puzzle([[1, 3, 0], [4, 2, 6], [7, 5, 8], [10, 11, 9]])
    assert (puzzle.rows, puzzle.cols) == (4, 3)
    assert state.tolist() == [1, 3, 0, 4, 2, 6, 7, 5, 8, 10, 11, 9]


def test_marked_rows_give_the_board_shape():
    puzzle, _ = load_puzzle("1 2 3 4/5 6 7 0")
    assert (puzzle.rows, puzzle.cols) == (2, 4)


def test_board_option_and_goal():
    puzzle, state = load_puzzle("2 8 3 1 6 4 7 0 5", "3x3", "1 2 3 8 0 4 7 6 5")
    assert puzzle.goal.tolist() == [1, 2, 3, 8, 0, 4, 7, 6, 5]
    assert puzzle.goal_cell[0] == 4 and puzzle.goal_cell[8] == 3


@pytest.mark.parametrize("text, rows, cols", [("4x3", 4, 3), ("3X4", 3, 4), (" 2x8 ", 2, 8), ("5×5", 5, 5)])
def test_parse_board(text, rows, cols):
    assert parse_board(text) == (rows, cols)


@pytest.mark.parametrize(
    "tiles, board, goal, message",
    [
        ("1 2 3 4 5 6 7 0", None, None, "cannot infer the board from 8 tiles"),
        ("1 2 3 4 5 6 7 8 0", "4x4", None, "has 9 tiles but a 4x4 board needs 16"),
        ("1 2 2 4 5 6 7 8 0", None, None, "tile 2 appears twice and tile 3 is missing"),
        ("1 2 3 4 5 6 7 8 9", None, None, "tile 9 is out of range 0..8"),
        ("1 2 3 4 -5 6 7 8 0", None, None, "tile '-5' is not a non-negative integer in digits 0-9"),
        ("1 2 3 4 5.5 6 7 8 0", None, None, "tile '5.5' is not a non-negative integer in digits 0-9"),
        ("1 2 3 4 five 6 7 8 0", None, None, "tile 'five' is not a non-negative integer in digits 0-9"),
        ("", None, None, "no tiles given"),
        ("1 2 3/4 5/6 7 0", None, None, "rows have different lengths"),
        ("1 2 3/4 5 6/7 8 0", "3x3", "1 2 3 4 5 6 7 8", "goal has 8 tiles"),
        ("1 2 3 4 5 6 7 8 0", "3 by 3", None, "not of the form RxC"),
        ("0 1", "1x2", None, "board 1x2 is not supported"),
        ("0 " * 81, "9x9", None, "board 9x9 is not supported"),
        ("1 2 3 4/5 6 7 0", "4x2", None, "has 2 rows of 4 tiles but the board is 4x2"),
    ],
)
def test_invalid_input_gives_one_line_message(tiles, board, goal, message):
    with pytest.raises(PuzzleError) as error:
        load_puzzle(tiles, board, goal)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "text",
    ["1 2 3 4 6 8 7 5 0", "1,2,3,4,6,8,7,5,0", "1, 2 ,3 , 4,6,8,7,5,0", "1\t2\t3\t4\t6\t8\t7\t5\t0",
     "  1 2 3 4 6 8 7 5 0  ", "\n1 2 3\n4 6 8\n7 5 0\n\n", "1 2 3\r\n4 6 8\r\n7 5 0\r\n", "1 2 3 / 4 6 8 / 7 5 0",
     "1,2,3;4,6,8;7,5,0", "01 02 03 04 06 08 07 05 00"],
)
def test_every_documented_text_form_is_accepted(text):
    tiles, _ = parse_tiles(text)
    assert tiles == [1, 2, 3, 4, 6, 8, 7, 5, 0]


@pytest.mark.parametrize(
    "text, message",
    [
        ("-0 1 2 3", "tile '-0' is not a non-negative integer in digits 0-9"),
        ("+3 1 2 0", "tile '+3' is not a non-negative integer in digits 0-9"),
        ("1 2 3 \uff10", "tile '\uff10' is not a non-negative integer in digits 0-9"),  # full-width 0
        ("1 2 3 \u0660", "tile '\u0660' is not a non-negative integer in digits 0-9"),  # Arabic-Indic 0
        ("1 2 \u00b3 0", "tile '\u00b3' is not a non-negative integer in digits 0-9"),  # superscript 3
        ("1\u00a02 3 0", "tile '1\\xa02' is not a non-negative integer in digits 0-9"),  # no-break space
        ("1 2 3 0x0", "tile '0x0' is not a non-negative integer in digits 0-9"),
        ("1 2 3 0 | 4", "tile '|' is not a non-negative integer in digits 0-9"),
        ("7,,3 1 0", "an empty tile in '7,,3 1 0'"),
        (",1,2,3,0", "an empty tile in ',1,2,3,0'"),
        ("1,2,3,0,", "an empty tile in '1,2,3,0,'"),
        ("1 2/3 0/", "an empty row in '1 2/3 0/'"),
        ("/1 2/3 0", "an empty row in '/1 2/3 0'"),
        ("1 2;;3 0", "an empty row in '1 2;;3 0'"),
        ("1 2\n\n3 0", "an empty row in '1 2\\n\\n3 0'"),
        ("1 2 3 " + "9" * 5000, "is out of range: no board has a tile of 5000 digits"),
        (" \n ", "no tiles given"),
    ],
)
def test_lenient_tiles_are_refused_naming_the_token(text, message):
    with pytest.raises(PuzzleError) as error:
        parse_tiles(text)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_tiles_from_python_values():
    assert parse_tiles([[1, 2], [3, 0]]) == ([1, 2, 3, 0], (2, 2))
    assert parse_tiles(np.array([1, 2, 3, 0], dtype=np.uint8)) == ([1, 2, 3, 0], None)
    assert parse_tiles(np.array([[1, 2], [3, 0]])) == ([1, 2, 3, 0], (2, 2))
    assert parse_tiles(["1", "2", "3", "0"]) == ([1, 2, 3, 0], None)
    with pytest.raises(PuzzleError, match="tile '-1' is not a non-negative integer"):
        parse_tiles(["1", "2", "3", "-1"])


def test_parse_tiles_rejects_booleans_and_objects():
    with pytest.raises(PuzzleError):
        parse_tiles([True, False])
    with pytest.raises(PuzzleError):
        parse_tiles(3.5)


def _goals(rows, cols, rng):
    n = rows * cols
    yield tuple([*range(1, n), 0])
    yield tuple(range(n))
    for _ in range(2):
        yield tuple(int(t) for t in rng.permutation(n))


@pytest.mark.parametrize("rows, cols", [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 2)])
def test_solvability_matches_exhaustive_reachability(rows, cols):
    rng = np.random.default_rng(rows * 10 + cols)
    n = rows * cols
    for goal in _goals(rows, cols, rng):
        reachable = distances(rows, cols, goal)
        assert len(reachable) * 2 == np.prod(range(1, n + 1))
        puzzle = Puzzle(rows, cols, goal)
        if n <= 6:
            states = itertools.permutations(range(n))
        else:
            states = (tuple(int(t) for t in rng.permutation(n)) for _ in range(3000))
        for state in states:
            assert puzzle.is_solvable(np.array(state, dtype=np.uint8)) == (state in reachable), state


def test_seed_examples_solvability():
    puzzle = Puzzle(3, 3)
    assert puzzle.is_solvable(puzzle.state("1 2 3 4 6 8 7 5 0"))
    assert not puzzle.is_solvable(puzzle.state("1 2 3 4 6 8 5 7 0"))


def test_replay_and_check_solution():
    puzzle, start = load_puzzle("1 2 3 4 6 8 7 5 0")
    assert puzzle.replay(start, "ULDR").tolist() == puzzle.goal.tolist()
    puzzle.check_solution(start, "ULDR", 4)
    with pytest.raises(SolutionError):
        puzzle.check_solution(start, "ULDL", 4)
    with pytest.raises(SolutionError):
        puzzle.check_solution(start, "ULDR", 5)
    with pytest.raises(SolutionError, match="off the board"):
        puzzle.check_solution(start, "RRRR", 4)
    with pytest.raises(PuzzleError, match="moves are U, D, L, R"):
        puzzle.replay(start, "UX")


def test_states_along_and_format():
    puzzle, start = load_puzzle("1 2 3 4 6 8 7 5 0")
    boards = puzzle.states_along(start, "ULDR")
    assert len(boards) == 5 and boards[0].tolist() == start.tolist()
    assert puzzle.format(boards[-1]) == "1 2 3\n4 5 6\n7 8 ."


def test_random_states_are_solvable_and_uniform():
    puzzle = Puzzle(2, 3)
    rng = np.random.default_rng(7)
    counts = {}
    n_draws = 36_000
    for _ in range(n_draws):
        state = puzzle.random_state(rng)
        assert puzzle.is_solvable(state)
        counts[state.tobytes()] = counts.get(state.tobytes(), 0) + 1
    assert len(counts) == 360
    expected = n_draws / 360
    chi_square = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi_square < 480  # 359 degrees of freedom: p ~ 1e-4
