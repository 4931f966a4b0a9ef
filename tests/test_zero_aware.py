"""Zero-aware tables (build-pdb --zero-aware): one value per (placement, blank region), checked
against the naive region-aware 0-1 BFS of tests/naive.py, through the file format and the
pdb: lookup kind (start and incremental child), and in searches."""

import math

import h5py
import numpy as np
import pytest

from pdb_build.abstraction import abstract_space, region_layout
from pdb_build.bfs import UNREACHED, build_table
from pdb_build.build import build_pdb_file, plan_build
from pdb_build.cli import build_pdb_main
from pdb_build.partitions import custom, preset
from pdb_build.store import PLAIN, ZERO_AWARE, PdbError, load_partition
from pdb_build.verify import verify_pdb
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.heuristics.pdb_files import loaded
from solvers.instances import load_instances
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests import naive
from tests.conftest import STANDARD_3X3, assert_ida_matches_naive, distances
from tests.forging import forged

BLANK_FIRST_3X3 = tuple(range(9))
PATTERNS_3X3 = [(1, 2, 4, 5), (3, 6, 7, 8)]


def _index(puzzle, pattern, cells, blank, layout):
    """The zero-aware index of (cells of the pattern's tiles, blank cell), from the definitions:
    (block_offset[map] + region) * k! + Lehmer rank of the order (naive.placement_index)."""
    k = len(pattern)
    block_offset, region_of_cell = layout
    plain = naive.placement_index(list(cells))
    map_rank, order = divmod(plain, math.factorial(k))
    return (int(block_offset[map_rank]) + int(region_of_cell[map_rank, blank])) * math.factorial(k) + order


@pytest.mark.parametrize(
    "rows, cols, goal, pattern",
    [
        (3, 3, STANDARD_3X3, (1, 2, 4, 5)),
        (3, 3, STANDARD_3X3, (3, 6, 7, 8)),
        (3, 3, BLANK_FIRST_3X3, (2, 5, 8)),
        (3, 3, STANDARD_3X3, (1, 2, 3, 4, 5, 6, 7, 8)),
        (2, 4, None, (1, 2, 3)),
        (2, 4, (0, 1, 2, 3, 4, 5, 6, 7), (4, 5, 6, 7)),
        (3, 4, None, (1, 2, 5, 6)),
        (3, 4, tuple(range(12)), (3, 7, 11)),
    ],
)
def test_every_entry_equals_the_naive_region_aware_bfs(rows, cols, goal, pattern):
    puzzle = Puzzle(rows, cols, goal)
    built, _ = build_table(abstract_space(puzzle, pattern), pattern, zero_aware=True)
    layout = region_layout(puzzle, len(pattern))
    assert built.zero_aware and built.table.size == int(layout[0][-1]) * math.factorial(len(pattern))
    reference = naive.zero_aware_table(rows, cols, tuple(puzzle.goal.tolist()), pattern)
    expected = np.full(built.table.size, UNREACHED, dtype=np.uint8)
    for (cells, blank), value in reference.items():
        index = _index(puzzle, pattern, cells, blank, layout)
        assert expected[index] in (UNREACHED, value)  # the blank's cells in one region agree
        expected[index] = value
    assert np.array_equal(built.table, expected)
    plain, _ = build_table(abstract_space(puzzle, pattern), pattern)
    assert plain.table.size < built.table.size or len(pattern) == puzzle.n_cells - 1


@pytest.fixture(scope="module")
def files_3x3(tmp_path_factory):
    folder = tmp_path_factory.mktemp("zero-aware")
    puzzle = Puzzle(3, 3, STANDARD_3X3)
    patterns = [",".join(map(str, p)) for p in PATTERNS_3X3]
    paths = {}
    for name, zero_aware in (("za", True), ("plain", False)):
        paths[name], _ = build_pdb_file(plan_build(puzzle, custom(puzzle, patterns), zero_aware=zero_aware),
                                        folder / f"{name}.h5")
    for number, pattern in enumerate(patterns):
        paths[f"za{number}"], _ = build_pdb_file(plan_build(puzzle, custom(puzzle, [pattern]), zero_aware=True),
                                                 folder / f"za{number}.h5")
    return puzzle, paths


def test_h_on_every_3x3_state_equals_naive_beats_additive_and_is_admissible(files_3x3):
    puzzle, paths = files_3x3
    exact = distances(3, 3, STANDARD_3X3)
    states = list(exact)
    array = np.array(states, dtype=np.uint8)
    zero_aware = from_spec(puzzle, f"pdb:{paths['za']}").evaluate_many(array)
    plain = from_spec(puzzle, f"pdb:{paths['plain']}").evaluate_many(array)
    tables = [naive.zero_aware_table(3, 3, STANDARD_3X3, p) for p in PATTERNS_3X3]
    assert zero_aware.tolist() == [naive.zero_aware_sum(s, PATTERNS_3X3, tables) for s in states]
    assert (zero_aware >= plain).all() and (zero_aware > plain).any()
    assert (zero_aware <= np.array([exact[s] for s in states])).all()
    summed = from_spec(puzzle, f"sum(pdb:{paths['za0']}, pdb:{paths['za1']})").evaluate_many(array)
    assert np.array_equal(summed, zero_aware)


def test_sum_and_max_mix_zero_aware_and_plain_files(files_3x3, tmp_path):
    puzzle, paths = files_3x3
    other, _ = build_pdb_file(plan_build(puzzle, custom(puzzle, ["3,6,7,8"])), tmp_path / "plain1.h5")
    states = np.array(list(distances(3, 3, STANDARD_3X3))[::97], dtype=np.uint8)
    za0 = from_spec(puzzle, f"pdb:{paths['za0']}").evaluate_many(states)
    plain1 = from_spec(puzzle, f"pdb:{other}").evaluate_many(states)
    assert np.array_equal(from_spec(puzzle, f"sum(pdb:{paths['za0']}, pdb:{other})").evaluate_many(states), za0 + plain1)
    both = from_spec(puzzle, f"max(pdb:{paths['za']}, pdb:{paths['plain']})").evaluate_many(states)
    assert np.array_equal(both, from_spec(puzzle, f"pdb:{paths['za']}").evaluate_many(states))
    with pytest.raises(InputError, match="shares tiles"):
        from_spec(puzzle, f"sum(pdb:{paths['za']}, pdb:{other})")


def test_ida_with_zero_aware_tables_is_optimal_and_its_incremental_h_matches_a_naive_ida(files_3x3):
    """IDA* evaluates children incrementally (the blank's cell is the cell the tile left); a
    naive IDA* evaluating every node from scratch must see the same passes."""
    puzzle, paths = files_3x3
    heuristic = from_spec(puzzle, f"pdb:{paths['za']}")
    exact = distances(3, 3, STANDARD_3X3)
    states = [s for s in exact if 14 <= exact[s] <= 24]
    chosen = [states[i] for i in np.random.default_rng(3).choice(len(states), 8, replace=False)]
    assert_ida_matches_naive(puzzle, heuristic, chosen, STANDARD_3X3)
    hardest = max(exact, key=exact.get)
    assert solve(puzzle, np.array(hardest, dtype=np.uint8), "astar", heuristic).length == exact[hardest]


def test_reflected_zero_aware_lookup_is_admissible_and_at_least_the_identity(tmp_path):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    path, _ = build_pdb_file(plan_build(puzzle, preset(puzzle, "4-4"), zero_aware=True), tmp_path / "bf.h5")
    exact = distances(3, 3, BLANK_FIRST_3X3)
    states = list(exact)
    array = np.array(states, dtype=np.uint8)
    alone = from_spec(puzzle, f"pdb:{path}").evaluate_many(array)
    reflected = from_spec(puzzle, f"pdb:{path}+reflect")
    values = reflected.evaluate_many(array)
    assert (values >= alone).all() and (values > alone).any()
    assert (values <= np.array([exact[s] for s in states])).all()
    for i in np.random.default_rng(5).choice(len(states), 5, replace=False):
        assert solve(puzzle, array[i], "ida", reflected).length == exact[states[i]]


def test_file_kind_and_plain_files_without_a_table_kind_load_unchanged(files_3x3, tmp_path):
    puzzle, paths = files_3x3
    database = load_partition(paths["za"], puzzle)
    assert database.table_kind == ZERO_AWARE and len(database.layouts) == 2
    with h5py.File(paths["za"], "r") as handle:
        assert handle.attrs["table_kind"] == "zero-aware" and handle.attrs["format_version"] == 2
    # a file as written before table kinds existed: format version 1, no table_kind attribute
    old = tmp_path / "old.h5"
    old.write_bytes(paths["plain"].read_bytes())
    with forged(old) as handle:
        assert handle.attrs["format_version"] == 1
        del handle.attrs["table_kind"]
    loaded = load_partition(old, puzzle)
    assert loaded.table_kind == PLAIN and loaded.layouts == ()
    states = np.array(list(distances(3, 3, STANDARD_3X3))[::53], dtype=np.uint8)
    assert np.array_equal(from_spec(puzzle, f"pdb:{old}").evaluate_many(states),
                          from_spec(puzzle, f"pdb:{paths['plain']}").evaluate_many(states))
    lying = tmp_path / "lying.h5"
    lying.write_bytes(paths["za"].read_bytes())
    with forged(lying) as handle:
        handle.attrs["format_version"] = 1
    with pytest.raises(PdbError, match="format version 1 does not match its table kind 'zero-aware' and compression 'none'; rebuild"):
        load_partition(lying, puzzle)


def test_cli_builds_zero_aware_files_and_refuses_non_additive(tmp_path, capsys):
    out = tmp_path / "cli.h5"
    assert build_pdb_main(["--board", "3x3", "--preset", "4-4", "--zero-aware", "--out", str(out), "--quiet"]) == 0
    assert "zero-aware" in capsys.readouterr().out
    assert load_partition(out).table_kind == ZERO_AWARE
    assert build_pdb_main(["--board", "3x3", "--preset", "4-4", "--zero-aware", "--non-additive",
                           "--out", str(tmp_path / "no.h5"), "--quiet"]) == 2
    assert "cannot be combined with --non-additive" in capsys.readouterr().err
    assert verify_pdb(out).ok


@pytest.fixture(scope="module")
def korf_5_5_5(tmp_path_factory):
    puzzle = Puzzle(4, 4, list(range(16)))
    folder = tmp_path_factory.mktemp("korf")
    partition = preset(puzzle, "5-5-5")
    za, _ = build_pdb_file(plan_build(puzzle, partition, zero_aware=True), folder / "za.h5")
    plain, _ = build_pdb_file(plan_build(puzzle, partition), folder / "plain.h5")
    return puzzle, za, plain


def test_korf_instances_with_a_zero_aware_5_5_5_are_optimal(korf_5_5_5):
    puzzle, za, plain = korf_5_5_5
    _, instances = load_instances("data/korf100.txt", like=puzzle)
    heuristic, additive = from_spec(puzzle, f"pdb:{za}"), from_spec(puzzle, f"pdb:{plain}")
    easy = sorted(instances, key=lambda i: i.optimal)[:2]
    for instance in easy:
        result = solve(puzzle, instance.start, "ida", heuristic)
        assert result.length == instance.optimal
        assert heuristic(instance.start) >= additive(instance.start)


def _mirrored_3x3(state: tuple) -> tuple:
    """The state mirrored in the main diagonal, for the blank-first goal (tile t's mirror is the
    tile whose home is the mirror of t's home: t itself mirrored)."""
    mirror = [(c % 3) * 3 + c // 3 for c in range(9)]
    out = [0] * 9
    for cell, tile in enumerate(state):
        out[mirror[cell]] = mirror[tile]
    return tuple(out)


def test_a_maximum_of_zero_aware_partitions_reads_lazily_and_stays_exact(tmp_path):
    """max(...) of zero-aware files with reflection takes the lazy kind: a pattern two partitions
    share is one instance, and lookups that cannot change the maximum are not read. Its h must
    be the naive maximum of the partitions' zero-aware sums in both views on every state, and
    IDA* (children evaluated lazily) must see the passes of a naive IDA*."""
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    partitions = [[(1, 2, 3, 4), (5, 6, 7, 8)], [(1, 2, 3, 4), (5, 8), (6, 7)], [(1, 5, 6, 7), (2, 3, 4, 8)]]
    paths = [build_pdb_file(plan_build(puzzle, custom(puzzle, [",".join(map(str, p)) for p in patterns]),
                                       zero_aware=True), tmp_path / f"p{number}.h5")[0]
             for number, patterns in enumerate(partitions)]
    heuristic = from_spec(puzzle, "max(" + ", ".join(f"pdb:{path}+reflect" for path in paths) + ")")
    data = heuristic.terms[0].data
    assert type(data.lookups).__name__ == "LazyLookups"
    assert len(data.instances.instance_pattern) == 2 * (sum(map(len, partitions)) - 1)  # (1, 2, 3, 4) held once per view
    held = heuristic.terms[0].databases  # in the term's shared memory only, and so are the loaded files
    assert all(np.shares_memory(table, data.reader.tables) for database in held for table in database.tables)
    assert all(any(loaded(path, puzzle) is database for database in held) for path in paths)
    exact = distances(3, 3, BLANK_FIRST_3X3)
    states = list(exact)[::5]
    tables = {p: naive.zero_aware_table(3, 3, BLANK_FIRST_3X3, p) for patterns in partitions for p in patterns}
    expected = [max(naive.zero_aware_sum(view, patterns, [tables[p] for p in patterns])
                    for patterns in partitions for view in (s, _mirrored_3x3(s))) for s in states]
    assert heuristic.evaluate_many(np.array(states, dtype=np.uint8)).tolist() == expected
    assert all(h <= exact[s] for h, s in zip(expected, states))
    hard = [s for s in exact if 16 <= exact[s] <= 26]
    chosen = [hard[i] for i in np.random.default_rng(11).choice(len(hard), 8, replace=False)]
    assert_ida_matches_naive(puzzle, heuristic, chosen, BLANK_FIRST_3X3)
