"""PDB heuristics: equal to naive table sums, reflection and max, admissible; PDB-guided search."""

import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom, preset
from pdb_build.store import load_partition
from solvers.errors import InputError
from solvers.heuristics import from_options, from_spec, mirror_maps, pdb_heuristic
from solvers.heuristics.features import feature_set, inputs_of
from solvers.make_instances import random_instances
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests import naive
from tests.conftest import default_forbidden, distances

BLANK_FIRST_3X3 = tuple(range(9))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """PDB files for the 8-puzzle (blank-first goal): preset 4-4 and a custom 3-3-2."""
    folder = tmp_path_factory.mktemp("pdbs")
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    paths = {}
    for name, partition in [("4-4", preset(puzzle, "4-4")), ("3-3-2", custom(puzzle, ["1,2,5", "3,4,6", "7,8"]))]:
        paths[name], _ = build_pdb_file(plan_build(puzzle, partition), folder / f"{name}.h5")
    return puzzle, paths


def _naive_sum(state, goal, partition):
    return naive.pattern_sum(3, 3, state, goal, partition)


def _mirror(state, puzzle):
    cell_map, tile_map = mirror_maps(puzzle)
    mirrored = [0] * len(state)
    for cell, tile in enumerate(state):
        mirrored[cell_map[cell]] = int(tile_map[tile])
    return tuple(mirrored)


def test_sum_reflection_and_max_equal_naive_lookups_and_are_admissible(files):
    puzzle, paths = files
    exact = distances(3, 3, BLANK_FIRST_3X3)
    states = list(exact)
    array = np.array(states, dtype=np.uint8)
    four = load_partition(paths["4-4"], puzzle).partition.patterns
    three = load_partition(paths["3-3-2"], puzzle).partition.patterns
    plain = from_spec(puzzle, f"pdb:{paths['4-4']}").evaluate_many(array)
    reflected = from_spec(puzzle, f"pdb:{paths['4-4']}+reflect").evaluate_many(array)
    both = from_spec(puzzle, f"max(pdb:{paths['4-4']}+reflect, pdb:{paths['3-3-2']}+reflect)").evaluate_many(array)
    rng = np.random.default_rng(1)
    for i in rng.choice(len(states), 400, replace=False):
        state = states[i]
        mirrored = _mirror(state, puzzle)
        assert plain[i] == _naive_sum(state, BLANK_FIRST_3X3, four)
        assert reflected[i] == max(plain[i], _naive_sum(mirrored, BLANK_FIRST_3X3, four))
        assert both[i] == max(reflected[i], _naive_sum(state, BLANK_FIRST_3X3, three),
                              _naive_sum(mirrored, BLANK_FIRST_3X3, three))
    true = np.array([exact[s] for s in states])
    for h in (plain, reflected, both):
        assert (h <= true).all()
    assert (reflected >= plain).all() and reflected.mean() > plain.mean()


def test_files_that_share_a_pattern_share_its_table_and_give_the_same_values(files, tmp_path):
    # a catalogue of partitions repeats patterns: one table per (pattern, kind, checksum) in memory
    puzzle, paths = files
    other, _ = build_pdb_file(plan_build(puzzle, custom(puzzle, ["1,2,5", "3,4", "6,7,8"])), tmp_path / "3-2-3.h5")
    states = np.array(list(distances(3, 3, BLANK_FIRST_3X3)), dtype=np.uint8)
    merged = from_spec(puzzle, f"max(pdb:{paths['3-3-2']}+reflect, pdb:{other}+reflect)")
    apart = [from_spec(puzzle, f"pdb:{path}+reflect").evaluate_many(states) for path in (paths["3-3-2"], other)]
    assert np.array_equal(merged.evaluate_many(states), np.maximum(*apart))
    sizes = {p: t.size for path in (paths["3-3-2"], other) for p, t in zip(
        load_partition(path, puzzle).partition.patterns, load_partition(path, puzzle).tables)}
    assert len(sizes) == 5  # (1,2,5) is in both files
    assert merged.terms[0].data.reader.tables.size == sum(sizes.values())


@pytest.mark.parametrize("spec", ["4-4", "4-4+reflect"])
def test_pdb_ida_counts_equal_a_naive_ida_with_the_same_heuristic(files, spec):
    puzzle, paths = files
    name, _, reflect = spec.partition("+")
    heuristic = from_options(puzzle, "pdb", [paths[name]], bool(reflect))
    exact = distances(3, 3, BLANK_FIRST_3X3)
    states = list(exact)
    rng = np.random.default_rng(2)
    for i in rng.choice(len(states), 40, replace=False):
        state = states[i]
        result = solve(puzzle, np.array(state, dtype=np.uint8), "ida", heuristic)
        assert result.bpmx  # on by default: the minimum over the blank's regions is not consistent
        length, passes = naive.ida_star_counts(
            state, BLANK_FIRST_3X3, 3, 3, lambda s: heuristic(np.array(s, dtype=np.uint8)), forbidden=default_forbidden(),
            bpmx=True,
        )
        assert result.length == length == exact[state]
        assert [(p.bound, p.nodes_expanded, p.nodes_generated) for p in result.iterations] == passes


@pytest.mark.parametrize("algorithm", ["ida", "astar"])
def test_pdb_searches_find_optimal_lengths_on_random_8_puzzles(files, algorithm):
    puzzle, paths = files
    heuristic = from_options(puzzle, "pdb", [paths["4-4"], paths["3-3-2"]], True)
    exact = distances(3, 3, BLANK_FIRST_3X3)
    states = list(exact)
    for i in np.random.default_rng(3).choice(len(states), 500, replace=False):
        result = solve(puzzle, np.array(states[i], dtype=np.uint8), algorithm, heuristic)
        assert result.length == exact[states[i]]


def test_korf_instances_with_a_five_five_five_pdb(tmp_path):
    from solvers.instances import load_instances

    puzzle, instances = load_instances("data/korf100.txt")
    path, _ = build_pdb_file(plan_build(puzzle, preset(puzzle, "5-5-5")), tmp_path / "555.h5")
    heuristic = from_options(puzzle, "pdb", [str(path)], reflect=True)
    for instance in (instances[1], instances[8], instances[4]):
        assert solve(puzzle, instance.start, "ida", heuristic).length == instance.optimal


def test_refusals(files):
    puzzle, paths = files
    with pytest.raises(InputError, match="built for goal 0 1 2 3 4 5 6 7 8, not 1 2 3"):
        from_spec(Puzzle(3, 3), f"pdb:{paths['4-4']}")
    off_diagonal = Puzzle(3, 3, (1, 0, 2, 3, 4, 5, 6, 7, 8))
    with pytest.raises(InputError, match="blank on the main diagonal"):
        pdb_heuristic(off_diagonal, [load_partition(paths["4-4"], puzzle)], reflect=True)
    with pytest.raises(InputError, match="needs a file path"):
        from_spec(puzzle, "pdb:")
    mixed = from_spec(puzzle, f"max(pdb:{paths['4-4']}+reflect, pdb:{paths['3-3-2']}, manhattan)")
    assert mixed.name == "max(manhattan, max(pdb:4-4.h5+reflect, pdb:3-3-2.h5))"
    with pytest.raises(InputError, match="needs at least one --pdb"):
        from_options(puzzle, "pdb", None, False)
    with pytest.raises(InputError, match="go with --heuristic pdb"):
        from_options(puzzle, "manhattan", [str(paths["4-4"])], False)


@pytest.mark.parametrize("board, patterns", [
    ((4, 4), ["1,2,3,4,5,6", "7,8,9,10,11,12", "13,14,15"]),
    ((5, 5), ["1,2,3,4", "5,6,7,8", "9,10,11,12", "13,14,15,16", "17,18,19,20", "21,22,23,24"]),
])
def test_lookups_on_larger_boards_read_the_entry_of_the_documented_index(tmp_path, board, patterns):
    """The search kernels rank placements with their own code (solvers/heuristics/pdb_lookup.py); it must read the
    same table entry as the documented index of ranking.py, for up to six tiles and 25 cells."""
    puzzle = Puzzle(*board, list(range(board[0] * board[1])))
    path, _ = build_pdb_file(plan_build(puzzle, custom(puzzle, patterns)), tmp_path / "p.h5")
    database = load_partition(path, puzzle)
    rng = np.random.default_rng(5)
    states = np.array([puzzle.random_state(rng) for _ in range(300)], dtype=np.uint8)
    values = pdb_heuristic(puzzle, [database]).evaluate_many(states)
    for state, value in zip(states.tolist(), values):
        tables = zip(database.partition.patterns, database.tables)
        assert value == sum(int(table[naive.placement_index([state.index(t) for t in p])]) for p, table in tables)


def test_per_pattern_features_are_each_patterns_naive_entry_in_both_views(files):
    puzzle, paths = files
    features = feature_set(puzzle, f"patterns:{paths['3-3-2']}+reflect, patterns:{paths['4-4']}")
    three, four = ([tuple(map(int, p)) for p in load_partition(paths[name], puzzle).partition.patterns]
                   for name in ("3-3-2", "4-4"))
    assert features.n_values == 2 * len(three) + len(four) == 8
    assert feature_set(puzzle, features.spec).spec == features.spec  # what a model file stores rebuilds it
    states = random_instances(puzzle, 30, seed=5)
    for row, state in zip(inputs_of(features, states), states):
        regular = tuple(map(int, state))
        mirrored = _mirror(regular, puzzle)
        entries = [naive.cached_pattern_table(3, 3, BLANK_FIRST_3X3, p)[tuple(s.index(t) for t in p)]
                   for s, patterns in ((regular, three), (mirrored, three), (regular, four)) for p in patterns]
        assert row.tolist() == entries
    with pytest.raises(InputError, match="needs a PDB file"):
        feature_set(puzzle, "patterns:+reflect")
