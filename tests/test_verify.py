"""verify-pdb: the checked invariants hold on brute-force tables, the kernel agrees with its naive
twin entry for entry, and changed entries (checksum recomputed) are named with exit status 1."""

import subprocess
import sys
from itertools import permutations

import h5py
import numpy as np
import pytest

from pdb_build import verify
from pdb_build.abstraction import abstract_space
from pdb_build.bfs import build_table
from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom, preset
from pdb_build.ranking import PlacementRanking
from pdb_build.store import checksum, default_file_name
from pdb_build.verify import check_table, placement_graph, verify_pdb
from solvers.puzzle import Puzzle
from tests import naive
from tests.conftest import STANDARD_3X3

CHECKS = {
    verify.GOAL_NOT_ZERO: "goal not zero", verify.IS_UNREACHED: "unreached",
    verify.ZERO_AWAY_FROM_GOAL: "zero away from goal", verify.WRONG_PARITY: "parity",
    verify.STEEP_RISE: "steep rise", verify.NO_WAY_DOWN: "no way down", verify.UNREACHED_COUNT: "unreached count",
}
CASES = [
    (3, 3, STANDARD_3X3, (1, 2)),
    (3, 3, STANDARD_3X3, (1, 2, 3, 4)),
    (3, 3, (1, 2, 3, 8, 0, 4, 7, 6, 5), (1, 3, 5, 7)),
    (3, 3, tuple(range(9)), (1, 2, 3, 4, 5)),
    (3, 3, STANDARD_3X3, (1, 2, 3, 4, 5, 6, 7, 8)),
    (2, 4, (1, 2, 3, 4, 5, 6, 7, 0), (1, 2, 3)),
    (3, 4, (*range(1, 12), 0), (1, 2, 5, 6)),
    (4, 4, tuple(range(16)), (5, 6, 9, 10)),
]


def _full_table(rows, cols, goal, pattern, additive=True):
    """Every placement -> its brute-force value (255 where the naive BFS never reached it)."""
    reached = naive.pattern_table(rows, cols, goal, pattern, additive)
    return {p: reached.get(p, 255) for p in permutations(range(rows * cols), len(pattern))}


def _as_array(puzzle, pattern, full):
    ranking = PlacementRanking(puzzle.n_cells, len(pattern))
    table = np.empty(ranking.size, dtype=np.uint8)
    table[ranking.rank(np.array(list(full)))] = list(full.values())
    return table


def _kernel_verdict(puzzle, pattern, table, graph):
    bad = check_table(table, puzzle, pattern, graph)
    if bad is None:
        return None
    cells = None if bad.index < 0 else tuple(int(c) for c in PlacementRanking(puzzle.n_cells, len(pattern)).unrank(bad.index)[0])
    return cells, CHECKS[bad.code]


@pytest.mark.parametrize("rows, cols, goal, pattern", CASES)
def test_brute_force_tables_pass_every_check(rows, cols, goal, pattern):
    """The invariants are true: the tables of a plain 0-1 BFS obey them, and so do the built ones."""
    puzzle = Puzzle(rows, cols, goal)
    full = _full_table(rows, cols, goal, pattern)
    assert naive.first_pdb_violation(rows, cols, goal, pattern, full) is None
    assert check_table(_as_array(puzzle, pattern, full), puzzle, pattern, placement_graph(puzzle, len(pattern))) is None


def test_what_is_not_checked_does_not_hold():
    """Neighbours can differ by far more than one where a placement's free cells are split, and
    the way down from an entry can skip values."""
    full = _full_table(3, 3, STANDARD_3X3, (1, 2, 3, 4))
    steps = {p: [full[q] - v for q in _neighbours(p)] for p, v in full.items()}
    assert max(max(s) for s in steps.values()) == 7
    skipping = [p for p, s in steps.items() if full[p] > 0 and -1 not in s]
    assert sorted(min(steps[p]) for p in skipping) == [-5, -3, -3, -3, -3]


def _neighbours(placement):
    """The placements one tile of `placement` moved by one cell on 3x3 into a free cell."""
    for i, cell in enumerate(placement):
        for other in range(9):
            if other not in placement and abs(cell // 3 - other // 3) + abs(cell % 3 - other % 3) == 1:
                yield placement[:i] + (other,) + placement[i + 1 :]


@pytest.mark.parametrize("pattern", [(1, 2, 3), (2, 4, 6, 8)])
def test_the_kernel_names_the_same_first_bad_entry_as_its_naive_twin(pattern):
    puzzle = Puzzle(3, 3)
    full = _full_table(3, 3, STANDARD_3X3, pattern)
    graph = placement_graph(puzzle, len(pattern))
    rng = np.random.default_rng(7)
    changes = 0
    for placement in rng.permutation(np.array(list(full)))[:60]:
        placement = tuple(int(c) for c in placement)
        for delta in (-2, -1, 1, 2):
            value = full[placement] + delta
            if not 0 <= value < 255:
                continue
            changed = dict(full)
            changed[placement] = value
            expected = naive.first_pdb_violation(3, 3, STANDARD_3X3, pattern, changed)
            assert _kernel_verdict(puzzle, pattern, _as_array(puzzle, pattern, changed), graph) == expected
            if delta % 2:
                assert expected is not None  # an odd change always breaks the parity
            changes += expected is not None
    assert changes > 150


def test_a_bad_entry_is_found_in_a_four_by_four_table_and_by_sampling():
    puzzle = Puzzle(4, 4, list(range(16)))
    pattern = (1, 2, 3, 4, 5)
    built, _ = build_table(abstract_space(puzzle, pattern), pattern)
    table, graph = built.table.copy(), placement_graph(puzzle, 5)
    assert check_table(table, puzzle, pattern, graph) is None
    table[123_456] += 2
    bad = check_table(table, puzzle, pattern, graph)
    assert bad.code == verify.STEEP_RISE and bad.index < 123_456  # found from a neighbour first
    assert "neighbour entry 123,456 " in verify.describe(bad, table, puzzle, pattern, graph)
    table[123_456] -= 1  # now odd: found at the entry itself, so by a sample holding it
    sample = np.array([5, 99, 123_456, 500_000], dtype=np.int64)
    assert check_table(table, puzzle, pattern, graph, sample=sample).index == 123_456
    assert check_table(table, puzzle, pattern, graph, sample=sample[[0, 1, 3]]) is None


@pytest.fixture(scope="module")
def built_file(tmp_path_factory):
    puzzle = Puzzle(3, 3)
    partition = preset(puzzle, "4-4")
    path = tmp_path_factory.mktemp("verify") / default_file_name(puzzle, partition)
    return build_pdb_file(plan_build(puzzle, partition), path)[0]


def _changed_copy(path, tmp_path, number, index, delta):
    """A copy of `path` with one entry changed and its checksum recomputed as store.py does."""
    copy = tmp_path / f"changed-{number}-{index}-{delta}.h5"
    copy.write_bytes(path.read_bytes())
    with h5py.File(copy, "r+") as handle:
        dataset = handle[f"pattern_{number}"]
        table = dataset[...]
        table[index] = int(table[index]) + delta
        dataset[...] = table
        dataset.attrs["checksum"] = checksum(table)
    return copy


def run(*args):
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from pdb_build.cli import verify_pdb_main; sys.exit(verify_pdb_main())", *args],
        capture_output=True, text=True, timeout=300,
    )
    return done.returncode, done.stdout, done.stderr


def _entry_text(path, number, index):
    with h5py.File(path) as handle:
        tiles = [int(t) for t in handle[f"pattern_{number}"].attrs["tiles"]]
    cells = PlacementRanking(9, len(tiles)).unrank(index)[0]
    return f"entry {index:,} (tiles {','.join(map(str, tiles))} on cells {','.join(map(str, cells))})"


def test_a_good_file_passes_with_one_line_each(built_file):
    status, stdout, stderr = run(str(built_file), str(built_file), "--sample", "100")
    assert status == 0, stderr
    assert stdout.splitlines() == [f"{built_file}: OK, 200 entries checked in {line.rsplit(' in ', 1)[1]}" for line in stdout.splitlines()]
    assert verify_pdb(built_file).entries_checked == 2 * 3024


@pytest.mark.parametrize("number, index, delta", [(0, 1000, 1), (1, 2500, -2), (1, 2, 2)])
def test_a_changed_entry_with_a_fresh_checksum_fails_and_is_named(built_file, tmp_path, number, index, delta):
    with h5py.File(built_file) as handle:
        assert int(handle[f"pattern_{number}"][index]) + delta >= 1  # the change keeps the entry nonzero
    copy = _changed_copy(built_file, tmp_path, number, index, delta)
    status, stdout, stderr = run(str(built_file), str(copy))
    assert status == 1, stderr
    good, bad = stdout.splitlines()
    assert good.startswith(f"{built_file}: OK")
    assert bad.startswith(f"{copy}: FAILED: table {number} ") and _entry_text(copy, number, index) in bad
    assert not verify_pdb(copy).ok


def test_non_additive_files_and_unreadable_files_exit_2(tmp_path):
    puzzle = Puzzle(2, 3)
    path = build_pdb_file(plan_build(puzzle, custom(puzzle, ["1,2"]), additive=False), tmp_path / "na.h5")[0]
    status, stdout, stderr = run(str(path), str(tmp_path / "missing.h5"))
    assert status == 2 and stdout == ""
    assert stderr.splitlines() == [
        f"verify-pdb: error: {path}: not verified: non-additive tables are not supported "
        "(every move costs 1 there, so neighbouring placements differ by the blank's walk)",
        f"verify-pdb: error: {tmp_path / 'missing.h5'}: no such PDB file",
    ]
