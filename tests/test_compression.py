"""Compressed tables (build-pdb --compress min:K|nibble|delta): each file's lookups against the
uncompressed file's on every state of the 3x3 (equal for the lossless encodings, never above
for min:K, equal to the minimum over the merged entries of the naive table), through the
search kernels' incremental child evaluation (IDA* against a naive IDA* that evaluates h from
scratch), and the refusals."""

import csv
import math

import h5py
import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.cli import build_pdb_main
from pdb_build.compress import DELTA, NIBBLE, NONE, Compression, compress, merged_index, parse_compression, stored_values
from pdb_build.partitions import custom
from pdb_build.ranking import PlacementRanking
from pdb_build.store import checksum, load_partition
from pdb_build.verify import verify_pdb
from solvers.cli import compare_heuristics_main
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.puzzle import Puzzle
from solvers.search.parallel_ida import parallel_ida_star
from solvers.solve import solve
from tests import naive
from tests.conftest import STANDARD_3X3, assert_ida_matches_naive, distances
from tests.forging import forged

BLANK_FIRST_3X3 = tuple(range(9))
CASES = [  # (goal, patterns): two goals, patterns of 2 to 4 tiles whose values fit in 4 bits
    (BLANK_FIRST_3X3, [(1, 2, 4, 5), (3, 6, 7, 8)]),
    (STANDARD_3X3, [(1, 2, 3), (4, 5, 6), (7, 8)]),
]


def _build(folder, puzzle, patterns, *, zero_aware=False, compression=NONE):
    name = f"{'za' if zero_aware else 'plain'}-{compression.name.replace(':', '')}.h5"
    plan = plan_build(puzzle, custom(puzzle, [",".join(map(str, p)) for p in patterns]), zero_aware=zero_aware)
    path, _ = build_pdb_file(plan, folder / name, compression=compression)
    return path


@pytest.fixture(scope="module", params=range(len(CASES)))
def files(request, tmp_path_factory):
    """(puzzle, patterns, every solvable state, {name: path}) for one case of CASES."""
    goal, patterns = CASES[request.param]
    folder = tmp_path_factory.mktemp("compressed")
    puzzle = Puzzle(3, 3, goal)
    paths = {"plain": _build(folder, puzzle, patterns), "za": _build(folder, puzzle, patterns, zero_aware=True)}
    for form in ("min:2", "min:4", "nibble"):
        for kind in ("plain", "za"):
            paths[f"{kind}-{form}"] = _build(folder, puzzle, patterns, zero_aware=kind == "za",
                                             compression=parse_compression(form))
    paths["za-delta"] = _build(folder, puzzle, patterns, zero_aware=True, compression=DELTA)
    states = np.array(list(distances(3, 3, goal)), dtype=np.uint8)
    return puzzle, patterns, states, paths


def _h(puzzle, path, states):
    return from_spec(puzzle, f"pdb:{path}").evaluate_many(states)


def test_lossless_encodings_give_the_uncompressed_values_on_every_state(files):
    puzzle, _, states, paths = files
    for kind in ("plain", "za"):
        assert np.array_equal(_h(puzzle, paths[f"{kind}-nibble"], states), _h(puzzle, paths[kind], states))
    assert np.array_equal(_h(puzzle, paths["za-delta"], states), _h(puzzle, paths["za"], states))


def test_min_compression_never_exceeds_and_equals_the_merged_minimum(files):
    """On every state, h of a min:K file is at most the uncompressed h, and each pattern's value
    is the minimum of the naive table over the entries merged with the state's entry."""
    puzzle, patterns, states, paths = files
    goal = tuple(puzzle.goal.tolist())
    for form in ("min:2", "min:4"):
        compression = parse_compression(form)
        lossy = _h(puzzle, paths[f"plain-{form}"], states)
        assert (lossy <= _h(puzzle, paths["plain"], states)).all()
        assert (_h(puzzle, paths[f"za-{form}"], states) <= _h(puzzle, paths["za"], states)).all()
        expected = np.zeros(len(states), dtype=np.int64)
        for pattern in patterns:
            reference = naive.pattern_table(3, 3, goal, pattern)  # {cells of the tiles: value}
            k = len(pattern)
            ranking = PlacementRanking(9, k)
            full = np.full(ranking.size, 255, dtype=np.int64)
            for cells, value in reference.items():
                full[naive.placement_index(list(cells))] = value
            merged = np.full(ranking.size, 255, dtype=np.int64)
            np.minimum.at(merged, merged_index(np.arange(ranking.size), math.factorial(k), compression), full)
            cells = np.array([[list(s).index(t) for t in pattern] for s in states], dtype=np.int64)
            expected += merged[merged_index(ranking.rank(cells), math.factorial(k), compression)]
        assert np.array_equal(lossy, expected), form


def test_every_compressed_file_solves_as_a_naive_ida_star_evaluating_from_scratch(files):
    """Same lengths, passes and counters as naive IDA* with h evaluated from scratch on every
    node: the kernels' incremental child values (delta: decoded from the parent's) are exact."""
    puzzle, _, states, paths = files
    goal = tuple(puzzle.goal.tolist())
    exact = distances(3, 3, goal)
    rng = np.random.default_rng(11)
    chosen = [tuple(s) for s in states[rng.choice(len(states), 4, replace=False)]]
    chosen.append(max(exact, key=exact.get))
    for name in ("za-delta", "za-nibble", "plain-min:4", "za-min:2"):
        assert_ida_matches_naive(puzzle, from_spec(puzzle, f"pdb:{paths[name]}+reflect" if goal == BLANK_FIRST_3X3
                                                   else f"pdb:{paths[name]}"), chosen, goal)


def test_delta_with_reflection_and_a_star(files):
    puzzle, _, states, paths = files
    reflected = f"pdb:{paths['za-delta']}+reflect"
    assert np.array_equal(from_spec(puzzle, reflected).evaluate_many(states[::7]),
                          from_spec(puzzle, f"pdb:{paths['za']}+reflect").evaluate_many(states[::7]))
    exact = distances(3, 3, tuple(puzzle.goal.tolist()))
    for state in states[:: len(states) // 5]:
        assert solve(puzzle, state, "astar", from_spec(puzzle, reflected)).length == exact[tuple(state)]
        assert parallel_ida_star(puzzle, state, from_spec(puzzle, reflected), threads=2).length == exact[tuple(state)]


def test_the_file_records_its_encoding_and_its_size(files):
    puzzle, patterns, _, paths = files
    plain, delta = load_partition(paths["za"]), load_partition(paths["za-delta"])
    assert delta.compression == DELTA and plain.compression == NONE
    for full, packed in zip(plain.tables, delta.tables):
        assert packed.size == -(-full.size // 8)
        assert np.array_equal(stored_values(packed, full.size, DELTA), (full >> 1) & 1)
    nibble = load_partition(paths["plain-nibble"])
    assert [t.size for t in nibble.tables] == [-(-PlacementRanking(9, len(p)).size // 2) for p in patterns]
    with h5py.File(paths["plain-min:4"]) as handle:
        assert handle.attrs["compression"] == "min:4" and handle.attrs["format_version"] == 3
        dataset = handle["pattern_0"]
        k = len(patterns[0])
        assert dataset.attrs["entries"] == PlacementRanking(9, k).size
        assert dataset.attrs["stored_entries"] == -(-math.comb(9, k) // 4) * math.factorial(k) == dataset.size


def test_encodings_round_trip_and_refuse_what_they_cannot_hold():
    table = np.array([3, 0, 15, 7, 1, 2], dtype=np.uint8)
    assert np.array_equal(stored_values(compress(table, 2, NIBBLE), 6, NIBBLE), table)
    assert np.array_equal(stored_values(compress(table, 2, DELTA), 6, DELTA), (table >> 1) & 1)
    assert np.array_equal(compress(table, 2, parse_compression("min:2")), [3, 0, 1, 2])
    assert np.array_equal(compress(table, 2, parse_compression("min:4")), [1, 0])
    assert parse_compression("MIN:8") == Compression("min:8", merge=8)
    for bad in ("min:3", "min:1", "min:", "zip", "min:-2"):
        with pytest.raises(InputError, match="unknown compression"):
            parse_compression(bad)


@pytest.mark.parametrize("argv, message", [
    (["--compress", "delta"], "--compress delta needs zero-aware tables"),
    (["--compress", "nibble", "--pattern", "1,2,3,4,5,6,7,8"], "--compress nibble holds values up to 15"),
    (["--compress", "min:3"], "unknown compression 'min:3'"),
])
def test_build_pdb_refuses_an_encoding_in_one_line(tmp_path, capsys, argv, message):
    pattern = [] if "--pattern" in argv else ["--pattern", "1,2,3", "--pattern", "4,5,6,7,8"]
    status = build_pdb_main(["--board", "3x3", "--out", str(tmp_path / "x.h5"), "--quiet", *pattern, *argv])
    err = capsys.readouterr().err
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x.h5").exists()


def test_build_pdb_from_an_uncompressed_file_encodes_it_without_building(files, tmp_path, capsys):
    puzzle, _, states, paths = files
    out = tmp_path / "encoded.h5"
    assert build_pdb_main(["--from", str(paths["za"]), "--compress", "delta", "--out", str(out)]) == 0
    assert f"as delta, 1 bits per entry: {out}" in capsys.readouterr().out
    assert all(map(np.array_equal, load_partition(out).tables, load_partition(paths["za-delta"]).tables))
    assert np.array_equal(_h(puzzle, out, states[::5]), _h(puzzle, paths["za"], states[::5]))
    for argv, message in ((["--from", str(out), "--compress", "min:2"], "already encoded (delta)"),
                          (["--from", str(paths["za"]), "--compress", "none"], "--from takes --compress"),
                          (["--from", str(paths["za"]), "--compress", "min:2", "--board", "3x3"], "--from takes")):
        assert build_pdb_main([*argv, "--out", str(tmp_path / "again.h5")]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


def test_verify_pdb_compares_an_encoded_file_with_a_rebuild(files, tmp_path):
    """Every encoded file passes; one changed stored byte in a copy (checksum rewritten, so the
    loader accepts it) is found and named."""
    _, _, _, paths = files
    for name in ("plain-min:4", "za-nibble", "za-delta"):
        verdict = verify_pdb(paths[name])
        assert verdict.ok, verdict.line()
        broken = tmp_path / f"{name.replace(':', '')}.h5"
        broken.write_bytes(paths[name].read_bytes())
        with forged(broken) as handle:
            dataset = handle["pattern_1"]
            stored = dataset[...]
            stored[len(stored) // 2] ^= 1
            dataset[...] = stored
            dataset.attrs["checksum"] = checksum(stored)
        verdict = verify_pdb(broken)
        assert not verdict.ok and "table 1 " in verdict.failure and "a rebuild encoded as" in verdict.failure, verdict.line()


def test_compare_heuristics_reads_encoded_files(files, tmp_path, capsys):
    """The hardest 8-puzzles (blank-first goal) with the delta and min:4 files beside the plain
    one: every length optimal, and the per-state h of the delta file equals the zero-aware one."""
    puzzle, _, _, paths = files
    if puzzle.blank_goal_cell != 0:
        pytest.skip("the instances' goal is blank first; this case's tables are for another goal")
    specs = [f"pdb:{paths['za']}", f"pdb:{paths['za-delta']}", f"pdb:{paths['plain-min:4']}"]
    argv = ["--instances", "data/hardest8-31.txt", "--sample", "200", "--out", str(tmp_path / "r"), "--quiet"]
    for spec in specs:
        argv += ["--heuristic", spec]
    status = compare_heuristics_main(argv)
    captured = capsys.readouterr()
    assert status == 0 and captured.err == "", captured.err
    rows = list(csv.DictReader((tmp_path / "r" / "per_state.csv").open()))
    names = [c for c in rows[0] if c.startswith("pdb:")]
    assert len(names) == 3 and all(int(r[names[0]]) == int(r[names[1]]) >= int(r[names[2]]) for r in rows)
    solved = list(csv.DictReader((tmp_path / "r" / "per_instance.csv").open()))
    assert {(r["length"], r["known_length"]) for r in solved} == {("31", "31")}
