"""Dual lookups (`pdb:PATH+dual`, `pdb:PATH+reflect+dual`): where they are admissible, checked on
every state of the 3x3 and the 2x4 for two goals, plain and zero-aware tables and several
partitions; the kernels against the tables read on the naive dual state (tests/naive.py); IDA*
against a naive IDA* evaluating h from scratch; the refusals.

What the exhaustive check shows: the tables read on the dual state never exceed the distance
when the blank is on its goal cell (there a solution read backwards is a solution of the dual,
so the dual is exactly as far from the goal), and do exceed it on thousands of states whose
blank is elsewhere, for every goal, partition and table kind tried. So a dual lookup counts
only while the blank is on its goal cell.
"""

import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.compress import DELTA
from pdb_build.partitions import custom
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests import naive
from tests.conftest import assert_ida_matches_naive, distances

BLANK_FIRST_3X3 = tuple(range(9))
BLANK_LAST_3X3 = (1, 2, 3, 4, 5, 6, 7, 8, 0)
BLANK_FIRST_2X4 = tuple(range(8))
BLANK_LAST_2X4 = (1, 2, 3, 4, 5, 6, 7, 0)
PARTITIONS = {
    (3, 3): [["1,2,4,5", "3,6,7,8"], ["1,2", "3,4,5", "6,7,8"], ["1,3,4", "2,5,8", "6,7"]],
    (2, 4): [["1,2,3", "4,5,6,7"], ["1,2", "3,4", "5,6,7"], ["1,5", "2,6", "3,7,4"]],
}
CASES = [(3, 3, BLANK_FIRST_3X3), (3, 3, BLANK_LAST_3X3), (2, 4, BLANK_FIRST_2X4), (2, 4, BLANK_LAST_2X4)]


def _build(folder, puzzle, patterns, *, zero_aware=False, additive=True, compression=None):
    name = f"{puzzle.board}-{puzzle.goal[0]}-{'_'.join(patterns)}-{zero_aware}-{additive}-{compression.name if compression else 'none'}.h5"
    if (folder / name.replace(",", "")).exists():  # built by an earlier test of the module
        return folder / name.replace(",", "")
    plan = plan_build(puzzle, custom(puzzle, patterns), additive=additive, zero_aware=zero_aware)
    extra = {} if compression is None else {"compression": compression}
    return build_pdb_file(plan, folder / name.replace(",", ""), **extra)[0]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("dual")


def _every_state(rows, cols, goal):
    exact = distances(rows, cols, goal)
    states = list(exact)
    duals = np.array([naive.dual_state(s, goal) for s in states], dtype=np.uint8)
    return (np.array(states, dtype=np.uint8), duals, np.array([exact[s] for s in states]),
            np.array([s[goal.index(0)] == 0 for s in states]))


@pytest.mark.parametrize("rows, cols, goal", CASES)
def test_naive_dual_is_an_involution_that_keeps_a_blank_on_its_goal_cell(rows, cols, goal):
    for state in list(distances(rows, cols, goal))[::53]:
        dual = naive.dual_state(state, goal)
        assert naive.dual_state(dual, goal) == state
        assert (dual[goal.index(0)] == 0) == (state[goal.index(0)] == 0)
    assert naive.dual_state(goal, goal) == goal
    assert naive.dual_state((3, 0, 1, 2, 4, 5, 6, 7, 8), BLANK_FIRST_3X3) == (1, 2, 3, 0, 4, 5, 6, 7, 8)


@pytest.mark.parametrize("rows, cols, goal", CASES)
@pytest.mark.parametrize("zero_aware", [False, True])
def test_dual_reading_is_admissible_exactly_when_the_blank_is_home_and_the_kernel_reads_the_naive_dual(
        folder, rows, cols, goal, zero_aware):
    """On every state: the tables on the naive dual state never exceed the distance when the
    blank is on its goal cell, exceed it on some state when it is not (why +dual counts only at
    home), and `+dual` is max(h(s), h(dual(s)) if the blank is home)."""
    puzzle = Puzzle(rows, cols, goal)
    states, duals, exact, home = _every_state(rows, cols, goal)
    for patterns in PARTITIONS[(rows, cols)]:
        path = _build(folder, puzzle, patterns, zero_aware=zero_aware)
        regular = from_spec(puzzle, f"pdb:{path}")
        on_state, on_dual = regular.evaluate_many(states), regular.evaluate_many(duals)
        assert (on_dual[home] <= exact[home]).all(), patterns
        assert (on_dual[~home] > exact[~home]).sum() > 100, patterns  # not admissible away from home
        with_dual = from_spec(puzzle, f"pdb:{path}+dual").evaluate_many(states)
        assert np.array_equal(with_dual, np.where(home, np.maximum(on_state, on_dual), on_state)), patterns
        assert (with_dual <= exact).all() and (with_dual > on_state).any(), patterns


@pytest.mark.parametrize("zero_aware", [False, True])
def test_reflect_and_dual_take_the_maximum_of_the_four_lookups(folder, zero_aware):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    states, duals, exact, home = _every_state(3, 3, BLANK_FIRST_3X3)
    path = _build(folder, puzzle, ["1,2,4,5", "3,6,7,8"], zero_aware=zero_aware)
    reflected = from_spec(puzzle, f"pdb:{path}+reflect")
    on_state, on_dual = reflected.evaluate_many(states), reflected.evaluate_many(duals)
    expected = np.where(home, np.maximum(on_state, on_dual), on_state)
    for suffix in ("+reflect+dual", "+dual+reflect", "+DUAL+Reflect"):
        assert np.array_equal(from_spec(puzzle, f"pdb:{path}{suffix}").evaluate_many(states), expected), suffix
    assert (expected <= exact).all() and (expected > on_state).any()


def test_non_additive_tables_on_the_dual_are_admissible_at_home(folder):
    puzzle = Puzzle(3, 3, BLANK_LAST_3X3)
    states, duals, exact, home = _every_state(3, 3, BLANK_LAST_3X3)
    path = _build(folder, puzzle, ["1,2,4,5", "3,6,7,8"], additive=False)
    values = from_spec(puzzle, f"pdb:{path}+dual").evaluate_many(states)
    assert (values <= exact).all()
    assert np.array_equal(values[home], np.maximum(from_spec(puzzle, f"pdb:{path}").evaluate_many(states),
                                                   from_spec(puzzle, f"pdb:{path}").evaluate_many(duals))[home])


# A* reads a dual term through the same kernels whatever tables and lookups it wraps: one case
# searches with it too (each heuristic shape compiles A* again)
@pytest.mark.parametrize("goal, zero_aware, suffix, with_astar", [
    (BLANK_FIRST_3X3, False, "+dual", False), (BLANK_FIRST_3X3, True, "+reflect+dual", False),
    (BLANK_FIRST_3X3, False, "+reflect+dual", False), (BLANK_LAST_3X3, True, "+dual", False),
    (BLANK_LAST_3X3, False, "+reflect+dual", True),
])
def test_ida_with_dual_is_optimal_and_matches_a_naive_ida_evaluating_from_scratch(folder, goal, zero_aware, suffix,
                                                                                   with_astar):
    puzzle = Puzzle(3, 3, goal)
    heuristic = from_spec(puzzle, f"pdb:{_build(folder, puzzle, ['1,2,4,5', '3,6,7,8'], zero_aware=zero_aware)}{suffix}")
    exact = distances(3, 3, goal)
    candidates = [s for s in exact if 16 <= exact[s] <= 24]
    chosen = [candidates[i] for i in np.random.default_rng(7).choice(len(candidates), 6, replace=False)]
    chosen += [s for s in candidates if s[goal.index(0)] == 0][:2]  # start with the blank home
    assert_ida_matches_naive(puzzle, heuristic, chosen, goal)
    if with_astar:
        hardest = max(exact, key=exact.get)
        assert solve(puzzle, np.array(hardest, dtype=np.uint8), "astar", heuristic).length == exact[hardest]


def test_max_merges_dual_and_plain_terms(folder):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    a = _build(folder, puzzle, ["1,2,4,5", "3,6,7,8"])
    b = _build(folder, puzzle, ["1,2", "3,4,5", "6,7,8"], zero_aware=True)
    states = np.array(list(distances(3, 3, BLANK_FIRST_3X3))[::31], dtype=np.uint8)
    merged = from_spec(puzzle, f"max(pdb:{a}+dual, pdb:{b}+reflect)").evaluate_many(states)
    apart = np.maximum(from_spec(puzzle, f"pdb:{a}+dual").evaluate_many(states),
                       from_spec(puzzle, f"pdb:{b}+reflect").evaluate_many(states))
    assert np.array_equal(merged, apart)


def test_refusals_are_one_line(folder):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    delta = _build(folder, puzzle, ["1,2,4,5", "3,6,7,8"], zero_aware=True, compression=DELTA)
    plain = _build(folder, puzzle, ["1,2,4,5", "3,6,7,8"])
    wide = _build(folder, Puzzle(2, 4, BLANK_LAST_2X4), ["1,2,3", "4,5,6,7"])
    refusals = [
        (puzzle, f"pdb:{delta}+dual", "delta"),
        (puzzle, f"sum(pdb:{plain}+dual, pdb:{plain})", "without \\+reflect, \\+dual or"),
        (Puzzle(2, 4, BLANK_LAST_2X4), f"pdb:{wide}+dual+reflect", "square board"),
        (puzzle, f"pdb:{plain}+duel", "unknown suffix '\\+duel'"),
    ]
    for board, spec, reason in refusals:
        with pytest.raises(InputError, match=reason) as caught:
            from_spec(board, spec)
        assert "\n" not in str(caught.value)
    assert from_spec(puzzle, f"pdb:{delta}")(np.array(BLANK_FIRST_3X3, dtype=np.uint8)) == 0
