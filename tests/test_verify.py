"""verify-pdb: the checked invariants hold on brute-force tables, plain and zero-aware, the kernel
agrees with its naive twins entry for entry, and changed entries (checksum recomputed) are named
with exit status 1."""

import math
import subprocess
import sys
from collections import Counter
from itertools import permutations

import h5py
import numpy as np
import pytest

from pdb_build import verify
from pdb_build.abstraction import abstract_space, region_layout
from pdb_build.bfs import UNREACHED, build_table, table_stats
from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom, preset
from pdb_build.ranking import PlacementRanking
from pdb_build.store import checksum, default_file_name
from pdb_build.verify import check_table, entry_layout, placement_graph, verify_pdb
from solvers.errors import InputError
from solvers.puzzle import Puzzle
from tests import naive
from tests.conftest import STANDARD_3X3, run_on_a_terminal
from tests.forging import forged

CHECKS = {
    verify.GOAL_NOT_ZERO: "goal not zero", verify.IS_UNREACHED: "unreached",
    verify.ZERO_AWAY_FROM_GOAL: "zero away from goal", verify.WRONG_PARITY: "parity",
    verify.STEEP_RISE: "steep rise", verify.NO_WAY_DOWN: "no way down", verify.UNREACHED_COUNT: "unreached count",
    verify.NOT_ONE_APART: "one apart",
}
BLANK_FIRST_3X3 = tuple(range(9))
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
    with forged(copy) as handle:
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


def test_quiet_keeps_the_terminal_free_of_progress_bars_never_of_verdicts_or_errors(built_file, tmp_path):
    command = [sys.executable, "-c", "import sys; from pdb_build.cli import verify_pdb_main; sys.exit(verify_pdb_main())"]
    status, out, shown = run_on_a_terminal([*command, str(built_file)])
    assert status == 0 and out.startswith(f"{built_file}: OK") and "entry" in shown  # a bar per table
    status, out, shown = run_on_a_terminal([*command, str(built_file), "--quiet"])
    assert status == 0 and out.startswith(f"{built_file}: OK") and shown == ""
    status, out, shown = run_on_a_terminal([*command, str(tmp_path / "missing.h5"), "--quiet"])
    assert status == 2 and out == "" and shown.startswith("verify-pdb: error: ") and "missing.h5" in shown


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


def test_every_entry_of_a_plain_table_changed_by_two_fails(built_file):
    """Rules 1-5 let some entries changed by two pass (their neighbours hide it); rule 6, the
    minimum over regions of the verified exact zero-aware distances, catches every one tried:
    every seventh entry of the 3x3 4-4 tables (the brute-force tables of tests/naive.py) raised
    by two, and lowered by two where it stays positive."""
    puzzle = Puzzle(3, 3)
    graph = placement_graph(puzzle, 4)
    hidden_by_rules_1_to_5 = 0
    for pattern in preset(puzzle, "4-4").patterns:
        goal = tuple(int(t) for t in puzzle.goal)
        table = _as_array(puzzle, pattern, _full_table(3, 3, goal, pattern))
        assert verify.check_against_exact(table, puzzle, pattern, graph) is None
        for index in range(0, table.size, 7):
            for delta in (2, -2):
                if int(table[index]) + delta < 1:
                    continue
                changed = table.copy()
                changed[index] = int(changed[index]) + delta
                hidden_by_rules_1_to_5 += check_table(changed, puzzle, pattern, graph) is None
                failure = verify.check_against_exact(changed, puzzle, pattern, graph)
                assert failure is not None and f"entry {index:,} " in failure, (pattern, index, delta)
    assert hidden_by_rules_1_to_5 > 0  # why rule 6 is needed


def test_non_additive_files_and_unreadable_files_exit_2(tmp_path):
    puzzle = Puzzle(2, 3)
    path = build_pdb_file(plan_build(puzzle, custom(puzzle, ["1,2"]), additive=False), tmp_path / "na.h5")[0]
    status, stdout, stderr = run(str(path), str(tmp_path / "missing.h5"))
    assert status == 2 and stdout == ""
    assert stderr.splitlines() == [
        f"verify-pdb: error: {path}: not verified: non-additive tables are not supported "
        "(every move costs 1 there, so neighbouring placements differ by the blank's walk)",
        f"verify-pdb: error: {tmp_path / 'missing.h5'}: no such PDB file; build it with build-pdb (see build-pdb "
        "--help)",
    ]


def _full_zero_aware(rows, cols, goal, pattern):
    """Every (placement, blank cell) -> its brute-force zero-aware value (255 where never reached)."""
    reached = naive.zero_aware_table(rows, cols, goal, pattern)
    n = rows * cols
    return {(p, b): reached.get((p, b), 255) for p in permutations(range(n), len(pattern)) for b in range(n) if b not in p}


def _zero_aware_array(puzzle, pattern, full):
    """`full` as a zero-aware table, laid out by abstraction.region_layout, and the layout."""
    block_offset, region_of_cell = layout = region_layout(puzzle, len(pattern))
    n_orders = math.factorial(len(pattern))
    ranks = PlacementRanking(puzzle.n_cells, len(pattern)).rank(np.array([p for p, _ in full]))
    maps, orders = np.divmod(ranks, n_orders)
    blanks = np.array([b for _, b in full])
    table = np.empty(int(block_offset[-1]) * n_orders, dtype=np.uint8)
    table[(block_offset[maps] + region_of_cell[maps, blanks]) * n_orders + orders] = list(full.values())
    return table, layout


def _zero_aware_entry(puzzle, k, layout, index):
    """(placement, cells of the blank's region) of entry `index` of a zero-aware table."""
    block_offset, region_of_cell = layout
    block, order = divmod(int(index), math.factorial(k))
    m = int(np.searchsorted(block_offset, block, side="right")) - 1
    placement = PlacementRanking(puzzle.n_cells, k).unrank(m * math.factorial(k) + order)[0]
    region = np.flatnonzero(region_of_cell[m] == block - block_offset[m])
    return tuple(int(c) for c in placement), tuple(int(c) for c in region)


def _zero_aware_verdict(puzzle, pattern, table, graph, layout, sample=None):
    """The kernel's first bad entry as the naive twin names it: (placement, lowest blank cell, check)."""
    bad = check_table(table, puzzle, pattern, graph, layout=layout, sample=sample)
    if bad is None:
        return None
    if bad.index < 0:
        return None, None, CHECKS[bad.code]
    placement, region = _zero_aware_entry(puzzle, len(pattern), layout, bad.index)
    return placement, region[0], CHECKS[bad.code]


@pytest.mark.parametrize("rows, cols, goal, pattern", [
    (3, 3, STANDARD_3X3, (1, 2, 3, 4)),
    (3, 3, BLANK_FIRST_3X3, (1, 3, 5, 7)),
    (2, 4, (1, 2, 3, 4, 5, 6, 7, 0), (1, 2, 3)),
])
def test_brute_force_zero_aware_tables_pass_every_check(rows, cols, goal, pattern):
    """The zero-aware invariants are true, every edge joining entries exactly one apart among
    them: a region-aware 0-1 BFS obeys them. They are not vacuous: the blank's region changes
    the value of some placements (and plain neighbours of (1, 2, 3, 4) differ by up to 7)."""
    puzzle = Puzzle(rows, cols, goal)
    full = _full_zero_aware(rows, cols, goal, pattern)
    assert naive.first_zero_aware_violation(rows, cols, goal, pattern, full) is None
    table, layout = _zero_aware_array(puzzle, pattern, full)
    assert check_table(table, puzzle, pattern, placement_graph(puzzle, len(pattern)), layout=layout) is None
    assert len({(p, v) for (p, _), v in full.items()}) > len({p for p, _ in full})


@pytest.mark.parametrize("goal, pattern", [(STANDARD_3X3, (1, 2, 3)), (BLANK_FIRST_3X3, (2, 5, 8))])
def test_the_zero_aware_kernel_names_the_same_first_bad_entry_as_its_naive_twin(goal, pattern):
    """Every single changed entry is caught, and at the entry itself (a sample of just it fails).
    Besides random entries, a deepest one is changed: all its neighbours are one lower, so two
    lower leaves it no way down."""
    puzzle = Puzzle(3, 3, goal)
    full = _full_zero_aware(3, 3, goal, pattern)
    table, layout = _zero_aware_array(puzzle, pattern, full)
    graph = placement_graph(puzzle, len(pattern))
    checks = Counter()
    for index in [np.argmax(table), *np.random.default_rng(11).choice(table.size, 15, replace=False)]:
        placement, region = _zero_aware_entry(puzzle, len(pattern), layout, index)
        value = int(table[index])
        for new in sorted({value - 2, value - 1, value + 1, value + 2, 0, UNREACHED} - {value}):
            if new < 0:
                continue
            changed_table = table.copy()
            changed_table[index] = new
            changed = full | {(placement, cell): new for cell in region}
            expected = naive.first_zero_aware_violation(3, 3, goal, pattern, changed)
            assert expected is not None
            assert _zero_aware_verdict(puzzle, pattern, changed_table, graph, layout) == expected
            own = _zero_aware_verdict(puzzle, pattern, changed_table, graph, layout, np.array([index]))
            assert own[:2] == (placement, region[0])
            checks[own[2]] += 1
    assert set(checks) == {"unreached", "zero away from goal", "parity", "one apart", "no way down"}


def test_a_zero_aware_table_of_every_tile_has_its_unsolvable_half_unreached():
    puzzle = Puzzle(3, 3)
    pattern = tuple(range(1, 9))
    layout = region_layout(puzzle, 8)
    built, _ = build_table(abstract_space(puzzle, pattern), pattern, zero_aware=True)
    table, graph = built.table.copy(), placement_graph(puzzle, 8)
    assert table_stats(table).unreached == table.size // 2
    assert check_table(table, puzzle, pattern, graph, layout=layout) is None
    reached, unreached = np.flatnonzero(table == 20)[100], np.flatnonzero(table == UNREACHED)[100]
    table[reached] = UNREACHED  # fine at itself: its neighbours name it
    bad = check_table(table, puzzle, pattern, graph, layout=layout)
    assert bad.code == verify.NOT_ONE_APART and f"entry {reached:,} " in verify.describe(bad, table, puzzle, pattern, graph, layout)
    table[reached], table[unreached] = 20, 20
    assert check_table(table, puzzle, pattern, graph, layout=layout, sample=np.array([unreached])).index == unreached


def test_a_layout_other_than_the_boards_regions_is_refused():
    puzzle = Puzzle(3, 3)
    block_offset, region_of_cell = region_layout(puzzle, 4)
    m = int(np.flatnonzero(np.diff(block_offset) == 2)[0])
    swapped = region_of_cell.copy()
    swapped[m][region_of_cell[m] >= 0] = 1 - region_of_cell[m][region_of_cell[m] >= 0]
    graph = placement_graph(puzzle, 4)
    assert entry_layout(graph, (block_offset, region_of_cell)).zero_aware
    with pytest.raises(InputError, match="region layout"):
        entry_layout(graph, (block_offset, swapped))


ZERO_AWARE_FILES = [
    (3, 3, STANDARD_3X3, "4-4"),
    (3, 3, BLANK_FIRST_3X3, "4-4"),
    (2, 4, None, ["1,2,3", "4,5,6,7"]),
    (3, 4, None, "5-6"),
]


@pytest.fixture(scope="module")
def zero_aware_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("verify-zero-aware")
    paths = []
    for number, (rows, cols, goal, patterns) in enumerate(ZERO_AWARE_FILES):
        puzzle = Puzzle(rows, cols, goal)
        partition = preset(puzzle, patterns) if isinstance(patterns, str) else custom(puzzle, patterns)
        path = folder / f"{number}-{default_file_name(puzzle, partition, table_kind='zero-aware')}"
        paths.append(build_pdb_file(plan_build(puzzle, partition, zero_aware=True), path)[0])
    return paths


def test_zero_aware_files_pass_in_full_and_sampled(zero_aware_files):
    for path in zero_aware_files:
        with h5py.File(path) as handle:
            sizes = [handle[name].size for name in handle if name.startswith("pattern_")]
        assert verify_pdb(path).entries_checked == sum(sizes), path
        sampled = verify_pdb(path, 500, seed=3)
        assert sampled.ok and sampled.entries_checked == 500 * len(sizes)
    status, stdout, stderr = run(str(zero_aware_files[0]))
    assert status == 0 and stdout.startswith(f"{zero_aware_files[0]}: OK, "), stderr


@pytest.mark.parametrize("change, check", [
    (lambda v: v + 1, "of the wrong parity: every move of a pattern tile changes it"),
    (lambda v: v + 2, "is not one higher or lower"),
    (lambda v: 0, "but only the goal placement with the blank in its goal region may be 0"),
    (lambda v: UNREACHED, "(UNREACHED), but every placement of fewer than 8 tiles is reachable"),
])
def test_a_changed_zero_aware_entry_is_named_with_its_check(zero_aware_files, tmp_path, change, check):
    """An entry of map 0 (the cells 0..k-1), whose neighbours all come later in the table, is
    named by the check it fails itself."""
    path = zero_aware_files[0]
    with h5py.File(path) as handle:
        table, tiles = handle["pattern_1"][...], tuple(int(t) for t in handle["pattern_1"].attrs["tiles"])
    puzzle, layout = Puzzle(3, 3), region_layout(Puzzle(3, 3), len(tiles))
    index = int(np.flatnonzero(table[: layout[0][1] * math.factorial(len(tiles))] > 0)[0])
    new = change(int(table[index]))
    verdict = verify_pdb(_changed_copy(path, tmp_path, 1, index, new - int(table[index])))
    placement, region = _zero_aware_entry(puzzle, len(tiles), layout, index)
    entry = (f"table 1 (tiles {','.join(map(str, tiles))}): entry {index:,} (tiles {','.join(map(str, tiles))} on cells "
             f"{','.join(map(str, placement))}, blank in cells {','.join(map(str, region))}) = {new}")
    assert not verdict.ok and verdict.failure.startswith(entry) and check in verdict.failure
