"""Placement ranking: a bijection onto 0..N!/(N-k)!-1, exhaustively on small sizes, sampled on large."""

import itertools
import math

import numpy as np
import pytest

from pdb_build.ranking import PlacementRanking
from solvers.errors import InputError
from tests import naive


@pytest.mark.parametrize("n_cells, k", [(4, 1), (4, 3), (6, 2), (9, 4), (9, 8), (12, 3), (16, 3), (8, 7)])
def test_exhaustive_round_trip_is_a_bijection(n_cells, k):
    ranking = PlacementRanking(n_cells, k)
    placements = np.array(list(itertools.permutations(range(n_cells), k)), dtype=np.int64)
    assert len(placements) == ranking.size == math.perm(n_cells, k)
    indices = ranking.rank(placements)
    assert sorted(indices.tolist()) == list(range(ranking.size))
    assert (ranking.unrank(indices) == placements).all()


def test_blocks_of_k_factorial_share_their_occupied_cells():
    ranking = PlacementRanking(9, 3)
    placements = ranking.unrank(np.arange(ranking.size))
    for block in range(0, ranking.size, 6):
        assert len({frozenset(p) for p in placements[block : block + 6].tolist()}) == 1


@pytest.mark.parametrize("n_cells, k", [(16, 8), (16, 7), (25, 6), (25, 7), (36, 8), (64, 8)])
def test_random_round_trips_on_large_sizes(n_cells, k):
    ranking = PlacementRanking(n_cells, k)
    rng = np.random.default_rng(n_cells * 10 + k)
    placements = np.array([rng.permutation(n_cells)[:k] for _ in range(5000)], dtype=np.int64)
    indices = ranking.rank(placements)
    assert indices.min() >= 0 and indices.max() < ranking.size
    assert (ranking.unrank(indices) == placements).all()
    sampled = rng.integers(0, ranking.size, size=5000)
    assert (ranking.rank(ranking.unrank(sampled)) == sampled).all()


def test_size_of_the_seven_eight_tables():
    assert PlacementRanking(16, 8).size == 518_918_400
    assert PlacementRanking(16, 7).size == 57_657_600


def test_invalid_sizes_and_arguments():
    with pytest.raises(InputError, match="patterns hold 1 to 8 tiles"):
        PlacementRanking(16, 9)
    with pytest.raises(InputError):
        PlacementRanking(4, 4)
    ranking = PlacementRanking(9, 2)
    with pytest.raises(InputError, match="cells must lie in"):
        ranking.rank([[0, 9]])
    with pytest.raises(InputError, match="indices must lie in"):
        ranking.unrank([72])


@pytest.mark.parametrize("n_cells, k", [(9, 4), (16, 6), (25, 6), (36, 8), (64, 8)])
def test_rank_follows_the_documented_formula(n_cells, k):
    # the scheme is part of the file format: files built by earlier versions must keep their meaning
    ranking = PlacementRanking(n_cells, k)
    rng = np.random.default_rng(k * 100 + n_cells)
    placements = [rng.permutation(n_cells)[:k].tolist() for _ in range(2000)]
    placements.append(list(range(n_cells - k, n_cells))[::-1])  # the highest cells, in reverse order
    ranks = ranking.rank(np.array(placements, dtype=np.int64))
    assert ranks.tolist() == [naive.placement_index(p) for p in placements]
