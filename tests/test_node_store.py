"""The packed node store of the searches that keep states: packing against a naive twin, round
trips on boards of 5x5 to 8x8, and the hash index finding every stored state and no other."""

import numpy as np
import pytest

from solvers.puzzle import Puzzle
from solvers.search.node_store import EMPTY, find, insert, new_index, pack, packing, unpack
from tests.naive import packed_words

BOARDS = [(5, 5), (6, 6), (7, 7), (8, 8), (5, 8), (7, 3)]


def _random_states(puzzle: Puzzle, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(puzzle.n_cells) for _ in range(n)], dtype=np.uint8)


@pytest.mark.parametrize("rows, cols", BOARDS)
def test_states_round_trip_and_pack_as_the_naive_twin(rows, cols):
    puzzle = Puzzle(rows, cols)
    layout = packing(puzzle)
    assert layout.bits == (puzzle.n_cells - 1).bit_length() and layout.words * layout.per_word >= puzzle.n_cells
    states = _random_states(puzzle, 200, rows * cols)
    codes = np.empty((len(states), layout.words), dtype=np.uint64)
    board = np.empty(puzzle.n_cells, dtype=np.uint8)
    for row, state in enumerate(states):
        pack(state, layout.bits, layout.per_word, codes, row)
        assert [int(w) for w in codes[row]] == packed_words(tuple(int(t) for t in state), layout.bits,
                                                            layout.per_word)
        blank = unpack(codes, row, layout.bits, layout.per_word, board)
        assert np.array_equal(board, state) and state[blank] == 0


@pytest.mark.parametrize("rows, cols", [(6, 6), (8, 8)])
def test_the_index_finds_every_stored_state_and_no_other(rows, cols):
    puzzle = Puzzle(rows, cols)
    bits, per_word, words = packing(puzzle)
    states = _random_states(puzzle, 3000, rows + cols)
    stored, absent = states[:2000], states[2000:]
    codes = np.empty((len(stored), words), dtype=np.uint64)
    keys = np.empty((1, words), dtype=np.uint64)
    index = new_index(4)  # small, so that it is rebuilt as it fills
    for node, state in enumerate(stored):
        pack(state, bits, per_word, codes, node)
        found, slot = find(index, codes, codes, node)
        assert found == EMPTY
        index = insert(index, codes, node, slot, node + 1)
    for node, state in enumerate(stored):
        pack(state, bits, per_word, keys, 0)
        assert find(index, codes, keys, 0)[0] == node
    for state in absent:
        pack(state, bits, per_word, keys, 0)
        assert find(index, codes, keys, 0)[0] == EMPTY


@pytest.mark.parametrize("rows, cols", [(4, 4), (3, 4), (5, 5)])
def test_states_that_differ_only_in_their_last_cells_spread_over_the_slots(rows, cols):
    """The slot depends on every cell: one-word states (boards of up to 16 cells) that differ
    only in the tiles of their last six cells take about as many distinct first slots as a
    uniformly random hash gives (a product alone never lets the top bits move the slot)."""
    from itertools import permutations

    from solvers.search.node_store import slot_of

    puzzle = Puzzle(rows, cols)
    layout = packing(puzzle)
    head = list(range(puzzle.n_cells - 6))
    states = np.array([head + list(tail) for tail in permutations(range(puzzle.n_cells - 6, puzzle.n_cells))],
                      dtype=np.uint8)
    codes = np.empty((len(states), layout.words), dtype=np.uint64)
    for row, state in enumerate(states):
        pack(state, layout.bits, layout.per_word, codes, row)
    slots = new_index(len(states))
    distinct = len({slot_of(codes, row, slots) for row in range(len(states))})
    m, n = slots.shape[0], len(states)
    assert distinct >= 0.97 * m * (1 - (1 - 1 / m) ** n)
