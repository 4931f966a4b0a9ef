"""Pattern tables: every entry against a plain 0-1 BFS, admissibility on whole boards, histograms."""

import numpy as np
import pytest

from pdb_build.abstraction import abstract_space
from pdb_build.bfs import UNREACHED, build_table
from pdb_build.partitions import preset
from pdb_build.ranking import PlacementRanking
from solvers.puzzle import Puzzle
from tests import naive
from tests.conftest import STANDARD_3X3, distances

SNAIL_3X3 = (1, 2, 3, 8, 0, 4, 7, 6, 5)
BLANK_FIRST_4X4 = tuple(range(16))


def _build(puzzle, pattern, additive=True):
    return build_table(abstract_space(puzzle, pattern, additive), pattern, keep_work_table=True)


def _assert_table_equals_naive(puzzle, pattern, additive=True):
    built, _ = _build(puzzle, pattern, additive)
    reference = naive.pattern_table(puzzle.rows, puzzle.cols, tuple(puzzle.goal.tolist()), pattern, additive)
    ranking = PlacementRanking(puzzle.n_cells, len(pattern))
    expected = np.full(ranking.size, UNREACHED, dtype=np.uint8)
    expected[ranking.rank(np.array(list(reference)))] = list(reference.values())
    assert np.array_equal(built.table, expected)
    return built


@pytest.mark.parametrize("goal", [STANDARD_3X3, SNAIL_3X3, tuple(range(9))])
@pytest.mark.parametrize("additive", [True, False])
def test_every_entry_of_every_3x3_preset_table(goal, additive):
    puzzle = Puzzle(3, 3, goal)
    for pattern in preset(puzzle, "4-4").patterns:
        _assert_table_equals_naive(puzzle, pattern, additive)


@pytest.mark.parametrize(
    "rows, cols, goal, pattern",
    [
        (3, 3, STANDARD_3X3, (1, 2)),
        (3, 3, STANDARD_3X3, (2, 5, 8)),
        (3, 3, STANDARD_3X3, (1, 2, 3, 4, 5, 6, 7, 8)),
        (2, 4, None, (1, 2, 3)),
        (2, 4, (0, 1, 2, 3, 4, 5, 6, 7), (4, 5, 6, 7)),
        (4, 2, None, (1, 3, 5, 7)),
        (3, 4, None, (1, 2, 5, 6)),
        (4, 3, (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), (3, 4, 7)),
        (4, 4, BLANK_FIRST_4X4, (1, 2, 3)),
        (4, 4, None, (6, 7, 10, 11)),
        (2, 2, None, (1, 2)),
        (8, 8, None, (1, 63)),  # the largest board; two tiles keep the naive BFS short
    ],
)
def test_small_patterns_equal_the_naive_bfs(rows, cols, goal, pattern):
    _assert_table_equals_naive(Puzzle(rows, cols, goal), pattern)


@pytest.mark.parametrize("pattern", [(1, 2), (2, 5, 8)])
def test_non_additive_small_patterns_equal_the_naive_bfs(pattern):
    _assert_table_equals_naive(Puzzle(3, 3), pattern, additive=False)


def test_work_table_holds_the_distance_of_every_blank_position():
    puzzle = Puzzle(3, 3, SNAIL_3X3)
    pattern = (1, 3, 5, 7)
    space = abstract_space(puzzle, pattern)
    _, work = _build(puzzle, pattern)
    ranking = PlacementRanking(9, 4)
    for (placement, blank), distance in naive.pattern_distances(3, 3, SNAIL_3X3, pattern).items():
        index = int(ranking.rank([placement])[0])
        map_rank, order = divmod(index, space.factorial_k)
        block = space.block_offset[map_rank] + space.region_of_cell[map_rank, blank]
        assert work[block * space.factorial_k + order] == distance


def test_a_five_tile_table_and_its_histogram_match_the_naive_bfs():
    puzzle = Puzzle(3, 4, tuple(range(12)))
    built = _assert_table_equals_naive(puzzle, (1, 2, 3, 4, 5))
    histogram = np.bincount(built.table)
    assert histogram.sum() == 12 * 11 * 10 * 9 * 8 and built.table.max() == len(histogram) - 1


def _partition_sums(puzzle, partition, exact):
    states = np.array(list(exact), dtype=np.uint8)
    total = np.zeros(len(states), dtype=np.int64)
    for pattern in partition.patterns:
        built, _ = _build(puzzle, pattern)
        placements = np.stack([np.argmax(states == tile, axis=1) for tile in pattern], axis=1)
        total += built.table[PlacementRanking(puzzle.n_cells, len(pattern)).rank(placements)]
    return states, total


@pytest.mark.parametrize("goal", [STANDARD_3X3, SNAIL_3X3])
def test_additive_sum_never_exceeds_the_exact_distance_on_the_8_puzzle(goal):
    puzzle = Puzzle(3, 3, goal)
    exact = distances(3, 3, goal)
    states, total = _partition_sums(puzzle, preset(puzzle, "4-4"), exact)
    true = np.array(list(exact.values()))
    assert len(states) == 181_440
    assert (total <= true).all()
    manhattan = np.array([naive.manhattan(tuple(s), goal, 3) for s in states.tolist()])
    assert (total >= manhattan).all() and total.mean() > manhattan.mean() + 1


def test_region_distances_change_by_at_most_one_per_move_on_the_8_puzzle():
    """Keeping the blank's region (the work table) gives a consistent additive heuristic."""
    puzzle = Puzzle(3, 3)
    exact = distances(3, 3, STANDARD_3X3)
    index = {state: i for i, state in enumerate(exact)}
    value = np.zeros(len(exact), dtype=np.int64)
    for pattern in preset(puzzle, "4-4").patterns:
        space = abstract_space(puzzle, pattern)
        _, work = _build(puzzle, pattern)
        ranking = PlacementRanking(9, len(pattern))
        for state, i in index.items():
            map_rank, order = divmod(int(ranking.rank([[state.index(t) for t in pattern]])[0]), space.factorial_k)
            block = space.block_offset[map_rank] + space.region_of_cell[map_rank, state.index(0)]
            value[i] += work[block * space.factorial_k + order]
    for state, i in index.items():
        assert value[i] <= exact[state]
        for nxt in naive.blank_moves(state, 3, 3):
            assert abs(value[i] - value[index[nxt]]) <= 1


def test_the_minimum_over_blank_positions_is_not_consistent():
    """The stored table (minimum over the blank's positions, as in Korf & Felner) can change by
    more than one per move: here tile 1 leaves cell 3, and the blank's cut-off corner no
    longer offers the one-move finish."""
    puzzle = Puzzle(3, 3)
    built, _ = _build(puzzle, (1, 2))
    ranking = PlacementRanking(9, 2)
    before, after = built.table[ranking.rank([[3, 1], [4, 1]])]
    assert (before, after) == (1, 4)
