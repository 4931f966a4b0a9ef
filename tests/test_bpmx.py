"""BPMX (bidirectional pathmax) in IDA* and A*: the kernel's passes, counters and the counts of
its raises and cutoffs against a naive recursive IDA* with BPMX by its definition
(tests/naive.py); optimal lengths unchanged on every 2x4 state and on 3x3 samples with
inconsistent heuristics; nothing changes with consistent ones; the automatic default; the
command line and batch records."""

import csv

import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom
from solvers.batch import solve_batch
from solvers.cli import solve_puzzle_main
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.instances import Instance
from solvers.puzzle import Puzzle
from solvers.search.astar import astar
from solvers.search.ida import ida_star
from solvers.solve import solve
from tests.conftest import assert_ida_matches_naive, distances

BLANK_FIRST_3X3 = tuple(range(9))
STANDARD_2X4 = (1, 2, 3, 4, 5, 6, 7, 0)


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """Inconsistent heuristics (plain tables take the minimum over the blank; +dual jumps when
    the blank reaches its goal cell) on the 3x3 and the 2x4."""
    folder = tmp_path_factory.mktemp("bpmx")
    eight, wide = Puzzle(3, 3, BLANK_FIRST_3X3), Puzzle(2, 4, STANDARD_2X4)
    three = build_pdb_file(plan_build(eight, custom(eight, ["1,2,4,5", "3,6,7,8"])), folder / "3x3.h5")[0]
    zero_aware = build_pdb_file(plan_build(eight, custom(eight, ["1,2,4,5", "3,6,7,8"]), zero_aware=True),
                                folder / "3x3-za.h5")[0]
    two = build_pdb_file(plan_build(wide, custom(wide, ["1,2,5", "3,4,6,7"])), folder / "2x4.h5")[0]
    return {"3x3": f"pdb:{three}", "3x3-za": f"pdb:{zero_aware}", "2x4": f"pdb:{two}"}


def _sample(exact, n, seed, low=14):
    states = [s for s in exact if exact[s] >= low]
    return [states[i] for i in np.random.default_rng(seed).choice(len(states), n, replace=False)]


@pytest.mark.parametrize("suffix", ["+reflect+dual", "+dual", ""])
@pytest.mark.parametrize("complete", [False, True])
def test_ida_with_bpmx_matches_a_naive_ida_with_bpmx(tables, suffix, complete):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    heuristic = from_spec(puzzle, tables["3x3"] + suffix)
    assert not heuristic.consistent
    states = _sample(distances(3, 3, BLANK_FIRST_3X3), 10, seed=3)
    assert_ida_matches_naive(puzzle, heuristic, states, BLANK_FIRST_3X3, bpmx=True, full_last_iteration=complete)


def test_bpmx_fires_and_saves_nodes_with_the_dual_lookup(tables):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    heuristic = from_spec(puzzle, tables["3x3"] + "+reflect+dual")
    exact = distances(3, 3, BLANK_FIRST_3X3)
    with_bpmx = without = cutoffs = 0
    for state in _sample(exact, 40, seed=5, low=20):
        start = np.array(state, dtype=np.uint8)
        on, off = ida_star(puzzle, start, heuristic, bpmx=True), ida_star(puzzle, start, heuristic, bpmx=False)
        assert on.length == off.length == exact[state] and on.bpmx and not off.bpmx
        assert off.bpmx_raises == off.bpmx_cutoffs == 0 and on.bpmx_cutoffs <= on.bpmx_raises
        with_bpmx += on.nodes_generated
        without += off.nodes_generated
        cutoffs += on.bpmx_cutoffs
    assert cutoffs > 0 and with_bpmx < without


@pytest.mark.parametrize("spec", ["manhattan", "3x3-za+reflect"])
def test_bpmx_changes_nothing_with_a_consistent_heuristic_and_is_off_by_default(tables, spec):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    heuristic = from_spec(puzzle, tables["3x3-za"] + "+reflect" if spec.startswith("3x3") else spec)
    assert heuristic.consistent
    for state in _sample(distances(3, 3, BLANK_FIRST_3X3), 5, seed=11, low=22):
        start = np.array(state, dtype=np.uint8)
        on, auto = ida_star(puzzle, start, heuristic, bpmx=True), ida_star(puzzle, start, heuristic)
        assert on.bpmx and not auto.bpmx and on.bpmx_raises == 0
        assert on.iterations == auto.iterations and on.moves == auto.moves
        if spec == "manhattan":
            assert astar(puzzle, start, heuristic, bpmx=True).bpmx_raises == 0


def test_bpmx_is_on_by_default_where_the_heuristic_may_be_inconsistent(tables):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    start = np.array(max(distances(3, 3, BLANK_FIRST_3X3), key=distances(3, 3, BLANK_FIRST_3X3).get), dtype=np.uint8)
    for spec, expected in [(tables["3x3"], True), (tables["3x3-za"] + "+dual", True), (tables["3x3-za"], False),
                           (f"max({tables['3x3-za']}, manhattan)", False), (f"max({tables['3x3']}, manhattan)", True),
                           ("linear-conflict", False)]:
        assert from_spec(puzzle, spec).consistent is not expected, spec
    plain, zero_aware = from_spec(puzzle, tables["3x3"]), from_spec(puzzle, tables["3x3-za"])
    assert ida_star(puzzle, start, plain).bpmx and astar(puzzle, start, plain).bpmx
    assert not ida_star(puzzle, start, zero_aware).bpmx and not astar(puzzle, start, zero_aware).bpmx


def test_every_2x4_state_keeps_its_optimal_length_with_bpmx(tables):
    puzzle = Puzzle(2, 4, STANDARD_2X4)
    heuristic = from_spec(puzzle, tables["2x4"] + "+dual")
    exact = distances(2, 4, STANDARD_2X4)
    fired = 0
    for state, length in exact.items():
        result = ida_star(puzzle, np.array(state, dtype=np.uint8), heuristic, bpmx=True)
        assert result.length == length, state
        fired += result.bpmx_cutoffs
    assert fired > 0


def test_astar_and_parallel_ida_with_bpmx_are_optimal(tables):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    heuristic = from_spec(puzzle, tables["3x3"] + "+reflect+dual")
    exact = distances(3, 3, BLANK_FIRST_3X3)
    raises = 0
    states = _sample(exact, 30, seed=9, low=24) + [max(exact, key=exact.get)]
    for state in states:
        start = np.array(state, dtype=np.uint8)
        on, off = astar(puzzle, start, heuristic, bpmx=True), astar(puzzle, start, heuristic, bpmx=False)
        assert on.length == off.length == exact[state]
        raises += on.bpmx_raises
    assert raises > 0
    for state in states[:4]:
        parallel = solve(puzzle, np.array(state, dtype=np.uint8), "ida", heuristic, threads=2, bpmx=True)
        assert parallel.length == exact[state] and parallel.bpmx


def test_command_line_and_batch_record_bpmx(tables, tmp_path, capsys):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    start = "8 7 6 0 4 1 2 5 3"
    assert solve_puzzle_main([start, "--goal", "0 1 2 3 4 5 6 7 8", "--heuristic", tables["3x3"] + "+reflect+dual",
                              "--bpmx", "on"]) == 0
    assert "bpmx " in capsys.readouterr().out
    assert solve_puzzle_main([start, "--goal", "0 1 2 3 4 5 6 7 8", "--heuristic", tables["3x3"], "--bpmx", "off",
                              "--json"]) == 0
    assert '"bpmx": false' in capsys.readouterr().out
    with pytest.raises(InputError, match="BPMX applies to ida, astar, reverse-astar, wastar, bwas, greedy and anytime only"):
        solve(puzzle, np.array(BLANK_FIRST_3X3[::-1], dtype=np.uint8), "bfs", "zero", bpmx=True)
    heuristic = from_spec(puzzle, tables["3x3"] + "+dual")
    instances = [Instance(i + 1, np.array(s, dtype=np.uint8), exact)
                 for i, (s, exact) in enumerate(list(distances(3, 3, BLANK_FIRST_3X3).items())[5000:5004])]
    out = tmp_path / "rows.csv"
    solve_batch(puzzle, instances, heuristic, out)
    rows = list(csv.DictReader(out.open()))
    assert {r["bpmx"] for r in rows} == {"yes"} and all(int(r["bpmx_raises"]) >= int(r["bpmx_cutoffs"]) for r in rows)
    with pytest.raises(InputError, match="BPMX yes"):
        solve_batch(puzzle, instances, heuristic, out, bpmx=False)
