"""Random lookups (`pdb:PATH+reflect+random`): one of a term's lookups chosen per state by a hash
of the state. Checked on every 3x3 and 2x4 state: the value is one of the lookups (computed
apart, on the mirrored state by hand), each is chosen on a fair share of states, the choice
depends on the state only, and the value never exceeds the distance; IDA* with it against a
naive IDA* evaluating h from scratch (the kernels update every lookup incrementally); the
refusals."""

import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests.conftest import assert_ida_matches_naive, distances

BLANK_FIRST_3X3 = tuple(range(9))
STANDARD_2X4 = (1, 2, 3, 4, 5, 6, 7, 0)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("random")
    eight, wide = Puzzle(3, 3, BLANK_FIRST_3X3), Puzzle(2, 4, STANDARD_2X4)
    patterns = custom(eight, ["1,2,4,5", "3,6,7,8"])
    return {
        "plain": build_pdb_file(plan_build(eight, patterns), folder / "plain.h5")[0],
        "zero-aware": build_pdb_file(plan_build(eight, patterns, zero_aware=True), folder / "za.h5")[0],
        "2x4": build_pdb_file(plan_build(wide, custom(wide, ["1,2,3,5", "4,6,7"]), additive=False),
                              folder / "2x4.h5")[0],
    }


def _mirrored(states: np.ndarray) -> np.ndarray:
    """Each 3x3 state of the blank-first goal mirrored in the main diagonal: the tile on (r, c)
    moves to (c, r) and becomes the tile whose goal is the mirror of its own."""
    cell = np.array([(c % 3) * 3 + c // 3 for c in range(9)])
    mirrored = np.empty_like(states)
    mirrored[:, cell] = cell[states]  # with this goal, tile t's goal cell is t
    return mirrored


@pytest.mark.parametrize("kind", ["plain", "zero-aware"])
def test_the_random_lookup_is_one_of_the_lookups_chosen_by_the_state(files, kind):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    exact = distances(3, 3, BLANK_FIRST_3X3)
    states = np.array(list(exact), dtype=np.uint8)
    regular = from_spec(puzzle, f"pdb:{files[kind]}")
    on_state, on_mirror = regular.evaluate_many(states), regular.evaluate_many(_mirrored(states))
    assert np.array_equal(from_spec(puzzle, f"pdb:{files[kind]}+reflect").evaluate_many(states),
                          np.maximum(on_state, on_mirror))
    random = from_spec(puzzle, f"pdb:{files[kind]}+reflect+random")
    values = random.evaluate_many(states)
    assert not random.consistent
    assert ((values == on_state) | (values == on_mirror)).all()
    differ = on_state != on_mirror
    share = (values[differ] == on_state[differ]).mean()
    assert 0.45 < share < 0.55  # the hash splits the states about evenly
    assert np.array_equal(values, random.evaluate_many(states[::-1])[::-1])  # the state alone decides
    assert (values <= np.array([exact[tuple(s)] for s in states.tolist()])).all()


def test_random_lookups_of_a_non_additive_file_on_every_2x4_state(files):
    puzzle = Puzzle(2, 4, STANDARD_2X4)
    exact = distances(2, 4, STANDARD_2X4)
    states = np.array(list(exact), dtype=np.uint8)
    values = from_spec(puzzle, f"pdb:{files['2x4']}+random").evaluate_many(states)
    maximum = from_spec(puzzle, f"pdb:{files['2x4']}").evaluate_many(states)
    assert (values <= maximum).all() and (values < maximum).any()
    assert (values <= np.array([exact[tuple(s)] for s in states.tolist()])).all()


@pytest.mark.parametrize("kind", ["plain", "zero-aware"])
def test_ida_with_a_random_lookup_matches_a_naive_ida(files, kind):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    heuristic = from_spec(puzzle, f"max(pdb:{files[kind]}+reflect+random, hamming)")
    assert len(heuristic.terms) == 2  # a random lookup is never merged into another term's maximum
    exact = distances(3, 3, BLANK_FIRST_3X3)
    candidates = [s for s in exact if exact[s] >= 20]
    chosen = [candidates[i] for i in np.random.default_rng(4).choice(len(candidates), 6, replace=False)]
    assert_ida_matches_naive(puzzle, heuristic, chosen, BLANK_FIRST_3X3)
    for state in chosen[:3]:  # and through parallel IDA* (A* compiles a kernel of its own per kind: not here)
        assert solve(puzzle, np.array(state, dtype=np.uint8), "ida", heuristic, threads=2).length == exact[state]


def test_refusals_are_one_line(files):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    plain = files["plain"]
    for spec, reason in [(f"pdb:{plain}+random", "only one; add \\+reflect"),
                         (f"pdb:{plain}+reflect+dual+random", "does not take \\+dual"),
                         (f"sum(pdb:{plain}+reflect+random, pdb:{plain})", "without \\+reflect, \\+dual or \\+random")]:
        with pytest.raises(InputError, match=reason) as caught:
            from_spec(puzzle, spec)
        assert "\n" not in str(caught.value)
