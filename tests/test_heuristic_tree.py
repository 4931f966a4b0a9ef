"""Heuristics as trees of max and sum nodes: sum(pdb:FILE, manhattan) against its naive twin (the
PDB plus the Manhattan distance of the tiles outside its patterns), optimal IDA* and A* with it,
sums and maxima nested both ways, the refusals of what is not additive, and the flags and specs
of a tree."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.heuristics.dispatch import Leaf, MaxNode, SumNode
from solvers.instances import load_instances
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests import naive
from tests.conftest import STANDARD_3X3, distances
from tests.incremental import walk_values

NO_LIMIT = np.iinfo(np.int64).max


def _manhattan_of(state: tuple, goal: tuple, cols: int, tiles) -> int:
    """Manhattan distance of `tiles` only, in plain Python."""
    total = 0
    for tile in tiles:
        cell, home = state.index(tile), goal.index(tile)
        total += abs(cell // cols - home // cols) + abs(cell % cols - home % cols)
    return total


def _hamming_of(state: tuple, goal: tuple, tiles) -> int:
    return sum(state.index(t) != goal.index(t) for t in tiles)


@pytest.fixture(scope="module")
def files_3x3(tmp_path_factory):
    """3x3 files for the standard goal: additive plain tables of (1,2,4,5), (3,6,7,8), (1,2,3), a
    zero-aware table of (1,2,4,5) and a non-additive one of (1,2,4,5), with their naive tables."""
    puzzle = Puzzle(3, 3, STANDARD_3X3)
    folder = tmp_path_factory.mktemp("tree")
    plans = {
        "a": plan_build(puzzle, custom(puzzle, ["1,2,4,5"])),
        "b": plan_build(puzzle, custom(puzzle, ["3,6,7,8"])),
        "c": plan_build(puzzle, custom(puzzle, ["1,2,3"])),
        "za": plan_build(puzzle, custom(puzzle, ["1,2,4,5"]), zero_aware=True),
        "na": plan_build(puzzle, custom(puzzle, ["1,2,4,5"]), additive=False),
    }
    paths = {name: build_pdb_file(plan, folder / f"{name}.h5")[0] for name, plan in plans.items()}
    tables = {
        "a": naive.pattern_table(3, 3, STANDARD_3X3, (1, 2, 4, 5)),
        "b": naive.pattern_table(3, 3, STANDARD_3X3, (3, 6, 7, 8)),
        "c": naive.pattern_table(3, 3, STANDARD_3X3, (1, 2, 3)),
        "za": naive.zero_aware_table(3, 3, STANDARD_3X3, (1, 2, 4, 5)),
    }
    return puzzle, paths, tables


def _naive_pdb(name: str, state: tuple, tables: dict) -> int:
    pattern = {"a": (1, 2, 4, 5), "b": (3, 6, 7, 8), "c": (1, 2, 3), "za": (1, 2, 4, 5)}[name]
    placement = tuple(state.index(t) for t in pattern)
    return tables[name][(placement, state.index(0))] if name == "za" else tables[name][placement]


def test_a_pdb_plus_manhattan_of_the_other_tiles_equals_its_naive_twin_on_every_state(files_3x3):
    puzzle, paths, tables = files_3x3
    exact = distances(3, 3, STANDARD_3X3)
    states = list(exact)
    array = np.array(states, dtype=np.uint8)
    for name in ("a", "c", "za"):
        values = from_spec(puzzle, f"sum(pdb:{paths[name]}, manhattan)").evaluate_many(array)
        uncovered = [t for t in range(1, 9) if t not in {"a": (1, 2, 4, 5), "c": (1, 2, 3), "za": (1, 2, 4, 5)}[name]]
        expected = [_naive_pdb(name, s, tables) + _manhattan_of(s, STANDARD_3X3, 3, uncovered) for s in states]
        assert values.tolist() == expected
        assert all(v <= exact[s] for v, s in zip(values.tolist(), states))  # admissible
    three = from_spec(puzzle, f"sum(pdb:{paths['a']}, pdb:{paths['c'].parent / 'b.h5'}, hamming)")
    assert three.evaluate_many(array).tolist() == [_naive_pdb("a", s, tables) + _naive_pdb("b", s, tables)
                                                   for s in states]  # no tile is left to Hamming
    alone = from_spec(puzzle, f"sum(hamming, pdb:{paths['c']})").evaluate_many(array)
    assert alone.tolist() == [_naive_pdb("c", s, tables) + _hamming_of(s, STANDARD_3X3, range(4, 9)) for s in states]


def test_on_a_15_puzzle_sample_the_sum_is_the_pdb_plus_manhattan_of_the_rest(tmp_path):
    puzzle = Puzzle(4, 4, tuple(range(16)))
    goal = tuple(range(16))
    path, _ = build_pdb_file(plan_build(puzzle, custom(puzzle, ["1,2,3"])), tmp_path / "three.h5")
    table = naive.pattern_table(4, 4, goal, (1, 2, 3))
    rng = np.random.default_rng(3)
    states = [puzzle.random_state(rng) for _ in range(400)]
    values = from_spec(puzzle, f"sum(pdb:{path}, md)").evaluate_many(np.array(states))
    pdb = from_spec(puzzle, f"pdb:{path}").evaluate_many(np.array(states))
    for value, alone, state in zip(values.tolist(), pdb.tolist(), states):
        state = tuple(state.tolist())
        expected = table[tuple(state.index(t) for t in (1, 2, 3))] + _manhattan_of(state, goal, 4, range(4, 16))
        assert value == expected and alone == table[tuple(state.index(t) for t in (1, 2, 3))]


# each search compiles once per tree shape (tens of seconds): every shape is searched by one of
# them. The maximum's shape is that of the tree rebuilt in another process below (the PDB files
# of sum(pdb:a, pdb:b) are one lookup term): one compiled evaluation; linear conflict in a
# maximum is searched in tests/test_heuristic_kinds.py and valued in a tree below.
TREES = {"ida": ["sum(pdb:{a}, manhattan)", "max(sum(pdb:{c}, manhattan), sum(pdb:{a}, pdb:{b}))"],
         "astar": ["sum(pdb:{za}, hamming)"]}


@pytest.mark.parametrize("algorithm", list(TREES))
def test_searches_with_a_tree_are_optimal_on_the_eight_puzzle(files_3x3, algorithm):
    puzzle, paths, _ = files_3x3
    exact = distances(3, 3, STANDARD_3X3)
    states = list(exact)
    for spec in (tree.format(**paths) for tree in TREES[algorithm]):
        heuristic = from_spec(puzzle, spec)
        for i in np.random.default_rng(17).choice(len(states), 30, replace=False):
            result = solve(puzzle, np.array(states[i], dtype=np.uint8), algorithm, heuristic)
            assert result.length == exact[states[i]], (spec, states[i])


def test_ida_with_a_pdb_plus_manhattan_finds_korfs_lengths(tmp_path):
    puzzle, instances = load_instances("data/korf100.txt")
    path, _ = build_pdb_file(plan_build(puzzle, custom(puzzle, ["1,2,3,4,5"])), tmp_path / "five.h5")
    heuristic = from_spec(puzzle, f"sum(pdb:{path}, manhattan)")
    manhattan = from_spec(puzzle, "manhattan")
    for instance in (instances[78], instances[11]):
        assert heuristic(instance.start) >= manhattan(instance.start)
        assert solve(puzzle, instance.start, "ida", heuristic).length == instance.optimal


def test_a_maximum_of_sums_and_a_sum_of_maxima_equal_their_naive_values(files_3x3):
    puzzle, paths, tables = files_3x3
    states = list(distances(3, 3, STANDARD_3X3))[::7]
    array = np.array(states, dtype=np.uint8)
    spec = (f"max(sum(pdb:{paths['a']}, manhattan), linear-conflict, "
            f"sum(pdb:{paths['b']}, max(pdb:{paths['a']}, pdb:{paths['za']})), sum(pdb:{paths['c']}, hamming))")
    values = from_spec(puzzle, spec).evaluate_many(array)
    expected = [max(_naive_pdb("a", s, tables) + _manhattan_of(s, STANDARD_3X3, 3, (3, 6, 7, 8)),
                    naive.linear_conflict(s, STANDARD_3X3, 3, 3),
                    _naive_pdb("b", s, tables) + max(_naive_pdb("a", s, tables), _naive_pdb("za", s, tables)),
                    _naive_pdb("c", s, tables) + _hamming_of(s, STANDARD_3X3, range(4, 9))) for s in states]
    assert values.tolist() == expected
    nested = from_spec(puzzle, f"sum(max(pdb:{paths['a']}, pdb:{paths['za']}), sum(pdb:{paths['b']}, zero), hamming)")
    assert nested.evaluate_many(array).tolist() == [
        max(_naive_pdb("a", s, tables), _naive_pdb("za", s, tables)) + _naive_pdb("b", s, tables) for s in states]


def test_the_tree_is_laid_out_as_nodes_over_leaves(files_3x3):
    puzzle, paths, _ = files_3x3
    flat = from_spec(puzzle, "max(manhattan, linear-conflict)")
    assert all(type(node) is Leaf for node in flat.tree)
    tree = from_spec(puzzle, f"max(sum(pdb:{paths['a']}, manhattan), "
                             f"sum(pdb:{paths['b']}, max(pdb:{paths['a']}, zero)))")
    assert [type(node) for node in tree.tree] == [SumNode, SumNode]
    assert sorted(type(m).__name__ for m in tree.tree[1].members) == ["Leaf", MaxNode.__name__]
    columns = [t.width for t in tree.terms]
    assert tree.n_columns == sum(columns)


def test_incremental_values_of_a_tree_equal_its_values_from_scratch(files_3x3):
    puzzle, paths, _ = files_3x3
    heuristic = from_spec(puzzle, f"max(sum(pdb:{paths['za']}, manhattan), sum(pdb:{paths['c']}, hamming))")
    for enough in (NO_LIMIT, 8):
        states, exact, at_least = walk_values(heuristic, np.random.default_rng(23), 300, enough)
        true = heuristic.evaluate_many(states).tolist()
        assert exact == true
        assert all(min(enough, h) <= v <= h for v, h in zip(at_least, true))


@pytest.mark.parametrize("spec, reason", [
    ("sum(manhattan, linear-conflict)", "linear-conflict cannot be added"),
    ("sum(pdb:a, linear-conflict)", "linear-conflict cannot be added"),
    ("sum(pdb:a, walking-distance)", "walking-distance cannot be added"),
    ("sum(pdb:a, pdb:a)", "shares tiles \\[1, 2, 4, 5\\]"),
    ("sum(pdb:a, pdb:za)", "shares tiles \\[1, 2, 4, 5\\]"),
    ("sum(manhattan, hamming)", "both count the tiles that no other part covers"),
    ("sum(pdb:na, manhattan)", "not one additive PDB file"),
    ("sum(max(pdb:a, pdb:a+reflect), pdb:b)", "not one additive PDB file"),
    ("sum(pdb:a+reflect, manhattan)", "without \\+reflect"),
    ("sum(sum(pdb:a, manhattan), pdb:b)", "shares tiles \\[3, 6, 7, 8\\]"),
    ("sum(max(pdb:b, manhattan), pdb:a)", "shares tiles"),
])
def test_what_is_not_additive_is_refused_with_the_reason_in_one_line(files_3x3, spec, reason):
    puzzle, paths, _ = files_3x3
    for name, path in sorted(paths.items(), key=lambda item: -len(item[0])):
        spec = spec.replace(f"pdb:{name}", f"pdb:{path}")
    with pytest.raises(InputError, match=reason) as error:
        from_spec(puzzle, spec)
    assert "\n" not in str(error.value)


def test_flags_follow_the_parts(files_3x3):
    puzzle, paths, _ = files_3x3
    exact = distances(3, 3, STANDARD_3X3)
    consistent = from_spec(puzzle, f"sum(pdb:{paths['za']}, manhattan)")
    assert consistent.consistent and consistent.admissible
    assert not from_spec(puzzle, f"sum(pdb:{paths['a']}, manhattan)").consistent  # plain tables are not
    values = dict(zip(exact, consistent.evaluate_many(np.array(list(exact), dtype=np.uint8)).tolist()))
    for state, h in list(values.items())[::11]:
        for child in naive.blank_moves(state, 3, 3):
            assert abs(values[child] - h) <= 1


def _evaluated_elsewhere(puzzle, spec, states):
    return from_spec(puzzle, spec).evaluate_many(states).tolist()


def test_a_trees_spec_rebuilds_it_in_another_process(files_3x3):
    puzzle, paths, _ = files_3x3
    heuristic = from_spec(puzzle, f"max(sum(pdb:{paths['c']}, manhattan), sum(pdb:{paths['a']}, pdb:{paths['b']}))")
    assert heuristic.name == "max(sum(pdb:c.h5, manhattan), sum(pdb:a.h5, pdb:b.h5))"
    states = np.array(list(distances(3, 3, STANDARD_3X3))[::31], dtype=np.uint8)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        there = pool.apply(_evaluated_elsewhere, (puzzle, heuristic.spec, states))
    assert there == heuristic.evaluate_many(states).tolist()
    assert from_spec(puzzle, heuristic.spec).spec == heuristic.spec
