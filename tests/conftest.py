"""Shared fixtures: exhaustive distance tables of small boards, computed once per session."""

import functools

import pytest

from tests.naive import exhaustive_distances

STANDARD_3X3 = (1, 2, 3, 4, 5, 6, 7, 8, 0)
STANDARD_2X4 = (1, 2, 3, 4, 5, 6, 7, 0)


@functools.cache
def distances(rows: int, cols: int, goal: tuple) -> dict:
    return exhaustive_distances(rows, cols, goal)


@pytest.fixture(scope="session")
def eight_puzzle_distances():
    return distances(3, 3, STANDARD_3X3)


@pytest.fixture(scope="session")
def two_by_four_distances():
    return distances(2, 4, STANDARD_2X4)
