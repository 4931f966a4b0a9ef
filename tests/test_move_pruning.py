"""Move pruning: the automata against the definition of a duplicate, and IDA* with each of them
against exhaustive search (lengths) and against naive searches (counters, any move order)."""

import itertools

import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom, preset
from solvers.errors import InputError
from solvers.heuristics import baseline, from_spec
from solvers.heuristics.dispatch import Leaf
from solvers.heuristics.tile_cost import TileCost
from solvers.puzzle import Puzzle
from solvers.search.depth_first import _bounded_pass
from solvers.search.ida import ida_star
from solvers.search.move_pruning import (
    FSM_MAX_LENGTH,
    PRUNE_LENGTHS,
    PRUNE_MODES,
    PRUNED,
    automaton,
    build_automaton,
    forbidden_strings,
    tree_counts,
)
from tests import naive
from tests.conftest import STANDARD_2X4, STANDARD_3X3, distances

BLANK_FIRST_3X3 = tuple(range(9))
NAIVE_MAX_LENGTH = 10  # the naive enumeration of effects takes about a second up to here


def _accepts(transitions, moves: str) -> bool:
    state = 0
    for letter in moves:
        state = transitions[state, "UDLR".index(letter)]
        if state == PRUNED:
            return False
    return True


def _sample(exact: dict, n: int, seed: int) -> list[tuple]:
    states = sorted(exact)
    return [states[i] for i in np.random.default_rng(seed).choice(len(states), n, replace=False)]


def test_none_and_parent_are_the_tiny_automata():
    assert automaton("none").tolist() == [[0, 0, 0, 0]]
    assert forbidden_strings(PRUNE_LENGTHS["parent"]) == ("UD", "DU", "LR", "RL")
    parent = automaton("parent")
    assert parent.shape == (5, 4) and not parent.flags.writeable
    for moves in map("".join, itertools.product("UDLR", repeat=5)):
        assert _accepts(parent, moves) == all(a != "UDLR"["UDLR".index(b) ^ 1] for a, b in zip(moves, moves[1:]))


def test_an_automaton_accepts_exactly_the_strings_without_a_forbidden_substring():
    fsm = automaton("fsm")
    forbidden = forbidden_strings(FSM_MAX_LENGTH)
    assert forbidden[:8] == ("UD", "DU", "LR", "RL", "LURDLU", "LDRULD", "RULDRU", "RDLURD")
    rng = np.random.default_rng(4)
    strings = [*map("".join, itertools.product("UDLR", repeat=6)),
               *("".join(rng.choice(list("UDLR"), size=n)) for n in rng.integers(7, 40, size=3000)),
               *(w[:-1] for w in forbidden), *forbidden, *(w + "U" for w in forbidden[::7])]
    for moves in strings:
        assert _accepts(fsm, moves) == (not any(w in moves for w in forbidden)), moves
    odd = build_automaton(["UU", "DUUL"])  # not minimal: DUUL contains UU
    assert not _accepts(odd, "RDUU") and _accepts(odd, "DULU")


def test_an_unknown_mode_is_one_line():
    with pytest.raises(InputError, match="unknown prune mode 'all'; choose one of none, parent, fsm"):
        automaton("all")
    assert PRUNE_MODES == ("none", "parent", "fsm")


def _accepted_by_the_kernel(transitions, depth: int) -> list[int]:
    """Strings of d = 0..depth moves the bounded-pass kernel walks with the zero heuristic from
    the middle of a board that it never leaves: nodes expanded by a pass of bound d, less those
    of bound d - 1 (a goal that never matches: no pass stops early)."""
    side = 2 * depth + 1
    cells = np.arange(side * side)
    neighbours = np.stack([np.where(cells >= side, cells - side, -1), np.where(cells < side * (side - 1), cells + side, -1),
                           np.where(cells % side > 0, cells - 1, -1), np.where(cells % side < side - 1, cells + 1, -1)],
                          axis=1).astype(np.int16)
    leaves = (Leaf(TileCost(np.zeros((2, side * side), dtype=np.uint8)), 0),)
    expanded = []
    for bound in range(depth + 1):
        board = np.ones(side * side, dtype=np.uint8)
        board[side * side // 2] = 0
        outcome = _bounded_pass(board, bound, 0, neighbours, np.full(side * side, 2, dtype=np.uint8), leaves, 1,
                                np.zeros(bound + 1, dtype=np.int8), np.zeros(1, dtype=np.uint8), transitions, 0, None)
        expanded.append(int(outcome[3]))
    return [expanded[0], *np.diff(expanded).tolist()]


def test_the_fsm_accepts_exactly_the_strings_that_are_not_duplicates():
    """On a board whose edges are never reached, the strings of d moves that IDA*'s kernel walks
    with the fsm are as many as the strings of d moves that are not duplicates by the definition
    (naive: the effects reached in d moves and in no fewer), for every d up to NAIVE_MAX_LENGTH;
    parent and none keep more."""
    counts = naive.non_duplicate_counts(NAIVE_MAX_LENGTH)
    assert counts[:7] == [1, 4, 12, 36, 108, 324, 972 - 4]  # the first duplicates beyond UD...: RDLURD and kin
    assert _accepted_by_the_kernel(automaton("fsm"), NAIVE_MAX_LENGTH) == counts
    assert _accepted_by_the_kernel(automaton("parent"), NAIVE_MAX_LENGTH) == [1] + [4 * 3 ** (d - 1) for d in range(1, 11)]
    assert _accepted_by_the_kernel(automaton("none"), 4) == [4**d for d in range(5)]


def test_tree_counts_equal_the_kernels_walk():
    puzzle = Puzzle(4, 4)
    for mode in PRUNE_MODES:
        sizes = tree_counts(puzzle, 5, 9, mode).sum(axis=1)
        transitions = automaton(mode)
        heuristic = baseline(puzzle, "zero")
        never = np.full(16, 99, dtype=np.uint8)
        board = puzzle.goal.copy()
        board[[5, 15]] = board[[15, 5]]
        outcome = _bounded_pass(board, 9, 0, puzzle.neighbours, never, heuristic.leaves, heuristic.n_columns,
                                np.zeros(10, dtype=np.int8), np.zeros(1, dtype=np.uint8), transitions, 0, None)
        assert outcome[3] == sizes.sum(), mode


def test_every_forbidden_string_has_a_smaller_equivalent_within_its_box():
    """The safety condition, by brute force over the strings in the box: the first and the last
    forbidden string of each length (of every length up to 12: longer boxes take longer)."""
    forbidden = forbidden_strings(FSM_MAX_LENGTH)
    assert len(forbidden) == 2540 and max(map(len, forbidden)) == FSM_MAX_LENGTH == 12
    for length in sorted(set(map(len, forbidden))):
        mine = [w for w in forbidden if len(w) == length]
        for moves in (mine[0], mine[-1]):
            assert naive.smaller_equivalent_in_box(moves) is not None, moves
    assert naive.smaller_equivalent_in_box("DRULDR") is None  # canonical: its equivalent RDLURD comes later


@pytest.mark.parametrize("rows, cols, goal", [(2, 4, STANDARD_2X4), (3, 3, STANDARD_3X3)])
def test_fsm_keeps_every_optimal_length(rows, cols, goal):
    """Every state of the 2x4 board; on the 3x3 board a sample and every state 28 or more moves away."""
    puzzle = Puzzle(rows, cols, goal)
    exact = distances(rows, cols, goal)
    heuristic = baseline(puzzle, "manhattan")
    states = list(exact) if rows == 2 else _sample(exact, 1500, seed=3) + [s for s in exact if exact[s] >= 28]
    for state in states:
        result = ida_star(puzzle, np.array(state, dtype=np.uint8), heuristic, prune="fsm")
        assert result.length == exact[state], state


@pytest.mark.parametrize("rows, cols, goal", [(2, 4, STANDARD_2X4), (3, 3, STANDARD_3X3)])
def test_the_modes_agree_on_lengths_and_prune_in_order(rows, cols, goal):
    """Same lengths; with the last iteration completed, fsm expands and generates no more than
    parent, parent no more than none (each keeps a subset of the other's strings). States at
    most 24 moves away: without pruning, IDA* needs billions of nodes for some farther ones."""
    puzzle = Puzzle(rows, cols, goal)
    exact = distances(rows, cols, goal)
    heuristic = baseline(puzzle, "manhattan")
    for state in sorted(_sample({s: d for s, d in exact.items() if d <= 24}, 30, seed=5), key=exact.get):
        start = np.array(state, dtype=np.uint8)
        results = [ida_star(puzzle, start, heuristic, prune=mode, full_last_iteration=True) for mode in PRUNE_MODES]
        assert {r.length for r in results} == {exact[state]}
        none, parent, fsm = results
        assert fsm.nodes_expanded <= parent.nodes_expanded <= none.nodes_expanded
        assert fsm.nodes_generated <= parent.nodes_generated <= none.nodes_generated
    assert fsm.nodes_generated < parent.nodes_generated < none.nodes_generated  # the farthest state of the sample


@pytest.fixture(scope="module")
def pdb_heuristics(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pruning-pdbs")
    eight = Puzzle(3, 3, BLANK_FIRST_3X3)
    path, _ = build_pdb_file(plan_build(eight, preset(eight, "4-4")), folder / "44.h5")
    two_by_four = Puzzle(2, 4, STANDARD_2X4)
    other, _ = build_pdb_file(plan_build(two_by_four, custom(two_by_four, ["1,2,3,4", "5,6,7"])), folder / "43.h5")
    return {BLANK_FIRST_3X3: from_spec(eight, f"pdb:{path}+reflect"), STANDARD_2X4: from_spec(two_by_four, f"pdb:{other}")}


@pytest.mark.parametrize("goal, kind", [(BLANK_FIRST_3X3, "manhattan"), (BLANK_FIRST_3X3, "pdb"),
                                        (STANDARD_2X4, "manhattan"), (STANDARD_2X4, "pdb")])
@pytest.mark.parametrize("prune", ["parent", "fsm"])
def test_a_full_last_iteration_counts_the_same_in_any_move_order(pdb_heuristics, goal, kind, prune):
    """The kernel (moves in order U, D, L, R) and a naive IDA* trying them in the order R, L, D, U
    count the same nodes in every iteration, the last one included, when both complete it; the
    kernel's solution is the first it finds, so it differs from the naive one's but is optimal.
    Without BPMX: a parent that BPMX cuts off after some of its children depends on their order
    (tests/test_bpmx.py)."""
    rows, cols = (3, 3) if len(goal) == 9 else (2, 4)
    puzzle = Puzzle(rows, cols, goal)
    heuristic = pdb_heuristics[goal] if kind == "pdb" else baseline(puzzle, "manhattan")
    exact = distances(rows, cols, goal)
    forbidden = forbidden_strings(PRUNE_LENGTHS[prune])
    differ = 0
    for state in _sample(exact, 12, seed=len(goal)):
        start = np.array(state, dtype=np.uint8)
        result = ida_star(puzzle, start, heuristic, prune=prune, full_last_iteration=True, bpmx=False)
        stopping = ida_star(puzzle, start, heuristic, prune=prune, bpmx=False)
        h = lambda s: heuristic(np.array(s, dtype=np.uint8))  # noqa: E731
        length, passes = naive.ida_star_counts(state, goal, rows, cols, h, forbidden=forbidden, complete=True,
                                               order="RLDU")
        counters = [(i.bound, i.nodes_expanded, i.nodes_generated) for i in result.iterations]
        assert result.length == length == exact[state] and counters == passes
        assert result.moves == stopping.moves and counters[:-1] == passes[:-1]
        differ += stopping.iterations[-1] != result.iterations[-1]
    assert differ  # stopping at the first goal counts less, in some move-order-dependent way
