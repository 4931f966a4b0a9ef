"""Preset and custom partitions: sizes kept for every goal, validation of custom patterns."""

import numpy as np
import pytest

from pdb_build.partitions import catalogue, custom, preset, preset_names
from solvers.errors import InputError
from solvers.puzzle import Puzzle

PRESETS = [("3x3", "4-4"), ("4x4", "5-5-5"), ("4x4", "6-6-3"), ("4x4", "7-8"), ("5x5", "6-6-6-6"), ("3x4", "5-6"), ("4x3", "5-6"),
           ("6x6", "5-6-6-6-6-6"), ("6x6", "5-5-5-5-5-5-5"), ("7x7", "5-5-5-5-5-5-5-5-5-3"),
           ("7x7", "5-5-5-5-5-5-5-5-5-3-s1")]


def _goals(rows, cols):
    n = rows * cols
    rng = np.random.default_rng(n)
    return [None, list(range(n)), rng.permutation(n).tolist()]


@pytest.mark.parametrize("board, name", PRESETS)
def test_presets_partition_all_tiles_with_the_named_sizes_for_any_goal(board, name):
    rows, cols = map(int, board.split("x"))
    for goal in _goals(rows, cols):
        puzzle = Puzzle(rows, cols, goal)
        partition = preset(puzzle, name)
        tiles = [t for p in partition.patterns for t in p]
        assert sorted(tiles) == list(range(1, rows * cols))
        assert sorted(len(p) for p in partition.patterns) == sorted(int(s) for s in name.split("-") if s.isdigit())


@pytest.mark.parametrize("board, name", [(b, n) for b, n in PRESETS if b in ("6x6", "7x7")])
def test_the_large_board_presets_are_connected_blocks(board, name):
    # a pattern whose goal cells touch interacts more, so its table adds more to Manhattan distance
    rows, cols = map(int, board.split("x"))
    puzzle = Puzzle(rows, cols, list(range(rows * cols)))
    for pattern in preset(puzzle, name).patterns:
        cells = {int(puzzle.goal_cell[t]) for t in pattern}
        reached, frontier = set(), [min(cells)]
        while frontier:
            cell = frontier.pop()
            reached.add(cell)
            frontier += [n for n in puzzle.neighbours[cell] if n in cells and n not in reached]
        assert reached == cells, pattern


def test_seven_eight_splits_the_top_and_bottom_two_rows():
    blank_first = Puzzle(4, 4, list(range(16)))
    assert preset(blank_first, "7-8").patterns == ((1, 2, 3, 4, 5, 6, 7), (8, 9, 10, 11, 12, 13, 14, 15))
    blank_last = Puzzle(4, 4)
    assert preset(blank_last, "7-8").patterns == ((1, 2, 3, 4, 5, 6, 7, 8), (9, 10, 11, 12, 13, 14, 15))


def test_the_24_puzzle_preset_is_korf_and_felners_partition():
    # Korf & Felner 2002 (AIJ 134), the 24-puzzle's four six-tile patterns for the blank-first goal;
    # three are the same 3x2 block turned about the board
    patterns = preset(Puzzle(5, 5, list(range(25))), "6-6-6-6").patterns
    assert patterns == ((1, 2, 5, 6, 7, 12), (3, 4, 8, 9, 13, 14), (10, 11, 15, 16, 20, 21), (17, 18, 19, 22, 23, 24))
    cells = [{divmod(t, 5) for t in p} for p in patterns[1:]]
    shapes = [{(r - min(r for r, _ in c), k - min(k for _, k in c)) for r, k in c} for c in cells]
    assert shapes[0] == shapes[1] == {(r, k) for r in range(3) for k in range(2)} == {(k, r) for r, k in shapes[2]}


def test_a_goal_with_the_blank_in_the_centre_keeps_the_sizes():
    snail = Puzzle(3, 3, [1, 2, 3, 8, 0, 4, 7, 6, 5])
    assert sorted(map(len, preset(snail, "4-4").patterns)) == [4, 4]


def test_preset_names_per_board():
    assert preset_names(Puzzle(4, 4)) == ["5-5-5", "6-6-3", "7-8"]
    with pytest.raises(InputError, match="presets for 4x4: 5-5-5, 6-6-3, 7-8"):
        preset(Puzzle(4, 4), "8-8")
    with pytest.raises(InputError, match="no presets for 2x5"):
        preset(Puzzle(2, 5), "4-5")


def test_custom_patterns_are_validated():
    puzzle = Puzzle(4, 4)
    partition = custom(puzzle, ["3,1,2", "4 5 6"])
    assert partition.patterns == ((1, 2, 3), (4, 5, 6)) and partition.name.startswith("custom-3-3-")
    for texts, message in [
        (["1,2", "2,3"], "tile 2 appears in patterns 1 and 2"),
        (["1,1"], "tile 1 appears twice"),
        (["0,1"], "holds the blank"),
        (["1,16"], "tile 16 does not exist"),
        (["1,x"], "not a list of tile numbers"),
        ([""], "not a list of tile numbers"),
        (["1,,2"], "not a list of tile numbers"),
        (["1,2,"], "not a list of tile numbers"),
        (["\u0661,\u0662"], "in digits 0-9"),
        (["\uff11,\uff12"], "in digits 0-9"),
        (["1\n2"], "not a list of tile numbers"),
    ]:
        with pytest.raises(InputError, match=message):
            custom(puzzle, texts)


def test_the_small_catalogue_is_clausecker_and_reinefelds_seven_partitions():
    # Clausecker & Reinefeld 2019, catalogues/small-t.cat: seven 6-6-6-6 partitions (the
    # transposes come from the reflected lookup); the first is Korf & Felner's, 18 patterns in all
    puzzle = Puzzle(5, 5, list(range(25)))
    partitions = catalogue(puzzle, "small")
    assert len(partitions) == 7 == len({p.patterns for p in partitions})
    assert partitions[0] == preset(puzzle, "6-6-6-6")
    for partition in partitions:
        assert sorted(t for p in partition.patterns for t in p) == list(range(1, 25))
        assert [len(p) for p in partition.patterns] == [6, 6, 6, 6]
    assert len({p for partition in partitions for p in partition.patterns}) == 18
    assert partitions[5].patterns == ((1, 2, 5, 6, 10, 11), (3, 4, 9, 14, 19, 24), (7, 8, 12, 13, 18, 23),
                                      (15, 16, 17, 20, 21, 22))
    with pytest.raises(InputError, match="unknown catalogue 'big' for 5x5; catalogues: small"):
        catalogue(puzzle, "big")
