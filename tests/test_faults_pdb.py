"""Fault drill, PDB files: corrupt, foreign or mismatched files are refused before any search,
with one line naming the file and the reason (exit status 2), by solve-puzzle and solve-batch.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import h5py
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pdb_build.build import load_or_build
from pdb_build.cli import build_pdb_main
from pdb_build.partitions import custom
from pdb_build.store import PdbError, checksum, load_partition
from solvers.cli import solve_batch_main, solve_puzzle_main
from solvers.puzzle import Puzzle
from tests.faults_support import FUZZ, assert_one_line_error, build_small_pdb, call
from tests.forging import forged

HARD_8 = "8 6 7 2 5 4 3 0 1"  # 31 moves from the default goal


@pytest.fixture(scope="module")
def pdbs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("faults-pdb")
    return {
        "good": build_small_pdb(folder / "good-3x3.h5", 3, 3, ["1,2,3,4", "5,6,7,8"]),
        "zstd": build_small_pdb(folder / "zstd-3x3.h5", 3, 3, ["1,2,3,4", "5,6,7,8"], codec="zstd"),
        "blank-first": build_small_pdb(folder / "blank-first-3x3.h5", 3, 3, ["1,2,3,4", "5,6,7,8"], goal=list(range(9))),
        "2x4": build_small_pdb(folder / "board-2x4.h5", 2, 4, ["1,2,3", "4,5,6,7"]),
        "other-partition": build_small_pdb(folder / "other-3x3.h5", 3, 3, ["1,2,3", "4,5,6", "7,8"]),
    }


def copy_of(source: Path, folder: Path, name: str) -> Path:
    target = folder / name
    shutil.copyfile(source, target)
    return target


def assert_refused_before_search(path: Path, folder: Path, *, puzzle=HARD_8, extra=(), how="--pdb") -> str:
    """solve-puzzle and solve-batch both refuse `path` in one line naming it, and search nothing."""

    def no_search(*args, **kwargs):
        raise AssertionError("a search started with a PDB file that should have been refused")

    heuristic = ["--heuristic", "pdb", "--pdb", str(path)] if how == "--pdb" else ["--heuristic", how.format(path=path)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("solvers.commands.solve_puzzle.solve", no_search)
        patch.setattr("solvers.commands.solve_batch.solve_batch", no_search)
        status, out, err = call(solve_puzzle_main, [puzzle, *heuristic, *extra])
        line = assert_one_line_error(status, out, err, "solve-puzzle")
        assert str(path) in line, line
        assert out == ""
        instances = folder / "instances.txt"
        instances.write_text(puzzle + "\n")
        out_csv = folder / "refused.csv"
        status, out, err = call(solve_batch_main, [str(instances), *heuristic, *extra, "--out", str(out_csv), "--quiet"])
        batch_line = assert_one_line_error(status, out, err, "solve-batch")
        assert str(path) in batch_line, batch_line
        assert not out_csv.exists(), "solve-batch wrote an output for a refused PDB"
    return line


def test_the_good_file_is_used(pdbs, tmp_path):
    """The control: the intact file solves the hard 8-puzzle position optimally."""
    status, out, err = call(solve_puzzle_main, [HARD_8, "--heuristic", "pdb", "--pdb", str(pdbs["good"]), "--json"])
    assert status == 0, err
    assert json.loads(out)["length"] == 31


# ------------------------------------------------------------------ damaged files

@pytest.mark.parametrize("keep", ["0", "1", "8", "512", "quarter", "half", "minus 100", "minus 1"])
def test_truncated_files(pdbs, tmp_path, keep):
    data = pdbs["good"].read_bytes()
    size = {"quarter": len(data) // 4, "half": len(data) // 2, "minus 100": len(data) - 100,
            "minus 1": len(data) - 1}.get(keep) or int(keep)
    path = tmp_path / f"truncated-{keep.replace(' ', '')}.h5"
    path.write_bytes(data[:size])
    assert_refused_before_search(path, tmp_path)


def chunk_location(path: Path, table: int) -> tuple[int, int]:
    """(offset, size) in the file of a table's stored bytes: the whole table where it is stored
    contiguous, else its first chunk."""
    with h5py.File(path) as handle:
        dataset = handle[f"pattern_{table}"]
        if dataset.chunks is None:
            return dataset.id.get_offset(), dataset.id.get_storage_size()
        info = dataset.id.get_chunk_info(0)
    return info.byte_offset, info.size


@FUZZ
@given(codec=st.sampled_from(["good", "zstd"]), table=st.integers(0, 1), where=st.floats(0, 1, exclude_max=True),
       width=st.integers(1, 8), mask=st.integers(1, 255))
def test_flipped_bytes_inside_a_tables_stored_data(pdbs, tmp_path_factory, codec, table, where, width, mask):
    """In an uncompressed or a Zstandard file: either the decompression fails or the checksum
    does, a one-line refusal either way."""
    folder = tmp_path_factory.mktemp("flip")
    offset, size = chunk_location(pdbs[codec], table)
    data = bytearray(pdbs[codec].read_bytes())
    start = offset + int(where * size)
    for i in range(start, min(start + width, offset + size)):
        data[i] ^= mask
    path = folder / "flipped.h5"
    path.write_bytes(bytes(data))
    line = assert_refused_before_search(path, folder)
    assert "checksum" in line or "not a readable" in line, line


@pytest.mark.parametrize("table, index", [(0, 0), (0, 1511), (1, 3023), (1, 100)])
def test_a_table_value_changed_by_one(pdbs, tmp_path, table, index):
    path = copy_of(pdbs["good"], tmp_path, "changed.h5")
    with h5py.File(path, "r+") as handle:
        values = handle[f"pattern_{table}"][...]
        values[index] = values[index] + 1 if values[index] < 254 else values[index] - 1
        handle[f"pattern_{table}"][...] = values
    line = assert_refused_before_search(path, tmp_path)
    assert "checksum" in line and "corrupt" in line, line


@pytest.mark.parametrize("value", [0, 2, 999, -1, "1", "one", 1.5, None])
def test_wrong_format_version(pdbs, tmp_path, value):
    path = copy_of(pdbs["good"], tmp_path, "version.h5")
    with forged(path) as handle:
        if value is None:
            del handle.attrs["format_version"]
        else:
            handle.attrs["format_version"] = value
    line = assert_refused_before_search(path, tmp_path)
    assert "format version" in line and "rebuild" in line, line


@pytest.mark.parametrize("change", ["format", "no format", "no checksum", "no table", "no patterns attribute",
                                    "goal garbage", "rows garbage", "tiles mismatch", "uint16 table", "short table"])
def test_damaged_attributes_and_datasets(pdbs, tmp_path, change):
    path = copy_of(pdbs["good"], tmp_path, "damaged.h5")
    with forged(path) as handle:
        if change == "format":
            handle.attrs["format"] = "someone-elses-format"
        elif change == "no format":
            del handle.attrs["format"]
        elif change == "no checksum":
            del handle["pattern_1"].attrs["checksum"]
        elif change == "no table":
            del handle["pattern_1"]
        elif change == "no patterns attribute":
            del handle.attrs["patterns"]
        elif change == "goal garbage":
            handle.attrs["goal"] = np.array([7, 7, 7])
        elif change == "rows garbage":
            handle.attrs["board_rows"] = 99
        elif change == "tiles mismatch":
            handle["pattern_0"].attrs["tiles"] = np.array([1, 2, 3])
        else:
            attrs = dict(handle["pattern_1"].attrs)
            values = handle["pattern_1"][...]
            del handle["pattern_1"]
            data = values.astype(np.uint16) if change == "uint16 table" else values[:-1]
            handle.create_dataset("pattern_1", data=data).attrs.update(attrs)
    assert_refused_before_search(path, tmp_path)


# ------------------------------------------------------------------ not PDB files at all

def test_non_hdf5_empty_missing_directory_fifo_and_devices(pdbs, tmp_path):
    text = tmp_path / "text.h5"
    text.write_text("this is not an HDF5 file\n")
    noise = tmp_path / "noise.h5"
    noise.write_bytes(np.random.default_rng(7).integers(0, 256, 50_000, dtype=np.uint8).tobytes())
    header_only = tmp_path / "signature-only.h5"
    header_only.write_bytes(pdbs["good"].read_bytes()[:8] + b"\0" * 4000)
    empty = tmp_path / "empty.h5"
    empty.write_bytes(b"")
    csv_file = tmp_path / "results.csv"
    csv_file.write_text("id,status\n1,solved\n")
    other_hdf5 = tmp_path / "other.h5"
    with h5py.File(other_hdf5, "w") as handle:
        handle.create_dataset("data", data=np.arange(10))
    directory = tmp_path / "a-directory.h5"
    directory.mkdir()
    fifo = tmp_path / "fifo.h5"
    os.mkfifo(fifo)
    dangling = tmp_path / "dangling.h5"
    dangling.symlink_to(tmp_path / "nowhere.h5")
    for path in [text, noise, header_only, empty, csv_file, other_hdf5, directory, fifo, dangling,
                 tmp_path / "missing.h5", Path("/dev/null")]:
        assert_refused_before_search(path, tmp_path)


# ------------------------------------------------------------------ mismatched files

def test_a_file_for_another_board(pdbs, tmp_path):
    line = assert_refused_before_search(pdbs["2x4"], tmp_path)
    assert "2x4" in line and "3x3" in line
    line = assert_refused_before_search(pdbs["good"], tmp_path, puzzle="1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15")
    assert "3x3" in line and "4x4" in line


def test_a_file_for_another_goal(pdbs, tmp_path):
    line = assert_refused_before_search(pdbs["blank-first"], tmp_path)
    assert "goal" in line
    line = assert_refused_before_search(pdbs["good"], tmp_path, extra=["--goal", "0 1 2 3 4 5 6 7 8"])
    assert "goal" in line


@pytest.mark.parametrize("how", ["pdb:{path}", "pdb:{path}+reflect", "max(pdb:GOOD, pdb:{path})",
                                 "max(pdb:{path},pdb:GOOD)"])
def test_spec_forms_name_the_bad_file(pdbs, tmp_path, how):
    how = how.replace("GOOD", str(pdbs["good"]))
    assert_refused_before_search(pdbs["blank-first"], tmp_path, how=how)


def test_a_good_file_and_a_bad_one_with_repeated_pdb_options(pdbs, tmp_path):
    truncated = tmp_path / "cut.h5"
    truncated.write_bytes(pdbs["good"].read_bytes()[:3000])
    assert_refused_before_search(truncated, tmp_path, extra=["--pdb", str(pdbs["good"])])


def test_a_file_for_another_partition_is_refused_by_the_api(pdbs):
    puzzle = Puzzle(3, 3)
    wanted = custom(puzzle, ["1,2,3,4", "5,6,7,8"])
    with pytest.raises(PdbError, match="holds partition") as refusal:
        load_partition(pdbs["other-partition"], puzzle, wanted)
    assert str(pdbs["other-partition"]) in str(refusal.value) and "\n" not in str(refusal.value)
    before = pdbs["other-partition"].read_bytes()
    with pytest.raises(PdbError, match="holds partition"):
        load_or_build(puzzle, wanted, pdbs["other-partition"])
    assert pdbs["other-partition"].read_bytes() == before, "load_or_build overwrote a file it should refuse"


# ------------------------------------------------------------------ consistent-looking files with a bad partition

def rewrite_partition(path: Path, patterns: list[tuple[int, ...]], source_tables: list[int]) -> None:
    """Rewrite a file's partition: table i becomes a copy of source table source_tables[i], with its
    tiles, attributes and checksums made consistent, so that only the partition itself is wrong."""
    with forged(path) as handle:
        originals = [(handle[f"pattern_{i}"][...], dict(handle[f"pattern_{i}"].attrs)) for i in range(2)]
        for i in range(2):
            del handle[f"pattern_{i}"]
        handle.attrs["patterns"] = ";".join(",".join(map(str, p)) for p in patterns)
        for i, (pattern, source) in enumerate(zip(patterns, source_tables)):
            values, attrs = originals[source]
            dataset = handle.create_dataset(f"pattern_{i}", data=values)
            dataset.attrs.update(attrs)
            dataset.attrs["tiles"] = np.array(pattern, dtype=np.int64)
            dataset.attrs["checksum"] = checksum(values)


def test_a_partition_naming_a_tile_not_on_the_board_is_refused(pdbs, tmp_path):
    path = copy_of(pdbs["good"], tmp_path, "tile-99.h5")
    rewrite_partition(path, [(1, 2, 3, 4), (5, 6, 7, 99)], [0, 1])
    assert_refused_before_search(path, tmp_path)


def test_a_partition_holding_the_blank_is_refused(pdbs, tmp_path):
    path = copy_of(pdbs["good"], tmp_path, "blank.h5")
    rewrite_partition(path, [(1, 2, 3, 4), (0, 6, 7, 8)], [0, 1])
    assert_refused_before_search(path, tmp_path)


def test_a_partition_with_overlapping_patterns_is_refused_not_hung(pdbs, tmp_path):
    """Patterns that overlap make the sum inadmissible (and confuse the incremental update):
    the file must be refused, never searched with. Run in a process of its own, with a timeout."""
    path = copy_of(pdbs["good"], tmp_path, "overlap.h5")
    rewrite_partition(path, [(1, 2, 3, 4), (1, 2, 3, 4)], [0, 0])
    try:
        done = subprocess.run([sys.executable, "-m", "solvers.cli", HARD_8, "--heuristic", "pdb", "--pdb", str(path)],
                              capture_output=True, text=True, timeout=10, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("solve-puzzle with a PDB file whose patterns overlap was still running after 10 s")
    line = assert_one_line_error(done.returncode, done.stdout, done.stderr, "solve-puzzle")
    assert str(path) in line


# ------------------------------------------------------------------ random damage anywhere in the file

DAMAGE_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    from pdb_build.store import PdbError, load_partition
    from solvers.puzzle import Puzzle

    source, target, trials = sys.argv[1], sys.argv[2], int(sys.argv[3])
    original = open(source, "rb").read()
    reference = [t.copy() for t in load_partition(source, Puzzle(3, 3)).tables]
    rng = np.random.default_rng(2024)
    outcome = {"refused": 0, "intact": 0, "problems": []}
    for trial in range(trials):
        data = bytearray(original)
        if trial % 4 == 3:
            data = data[: int(rng.integers(0, len(data)))]
        else:
            for _ in range(int(rng.integers(1, 4))):
                data[int(rng.integers(0, len(data)))] ^= int(rng.integers(1, 256))
        open(target, "wb").write(bytes(data))
        try:
            database = load_partition(target, Puzzle(3, 3))
        except PdbError as error:
            message = str(error)
            if "\\n" in message or target not in message:
                outcome["problems"].append(f"trial {trial}: bad message {message!r}")
            outcome["refused"] += 1
            continue
        except BaseException as error:
            outcome["problems"].append(f"trial {trial}: {type(error).__name__}: {str(error)[:200]}")
            continue
        if all(np.array_equal(a, b) for a, b in zip(database.tables, reference)):
            outcome["intact"] += 1
        else:
            outcome["problems"].append(f"trial {trial}: loaded DIFFERENT tables without complaint")
    print(json.dumps(outcome))
""")


def test_random_damage_anywhere_is_refused_or_harmless(pdbs, tmp_path):
    """400 random byte flips and truncations anywhere in the file (metadata included), loaded in a
    separate process so that a crash of the HDF5 library would show as such: every load either
    refuses with a one-line PdbError naming the file or returns exactly the original tables."""
    target = tmp_path / "damaged.h5"
    done = subprocess.run([sys.executable, "-c", DAMAGE_SCRIPT, str(pdbs["good"]), str(target), "400"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"the loader process died (status {done.returncode}): {done.stderr[-1500:]}"
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["problems"] == [], outcome["problems"][:10]
    assert outcome["refused"] > 100


# ------------------------------------------------------------------ the file checksum: attributes that cannot lie

def test_a_file_relabelled_for_another_board_of_as_many_cells_is_refused(pdbs, tmp_path):
    """A 2x4 file relabelled as a 4x2 board's, its table checksums intact: without a checksum
    over the attributes its tables would be read for the wrong board and give wrong optimal
    lengths."""
    path = copy_of(pdbs["2x4"], tmp_path, "relabelled.h5")
    with h5py.File(path, "r+") as handle:
        handle.attrs["board_rows"], handle.attrs["board_cols"] = 4, 2
    status, out, err = call(solve_puzzle_main, ["1 2 / 3 4 / 5 6 / 0 7", "--board", "4x2", "--heuristic", f"pdb:{path}"])
    line = assert_one_line_error(status, out, err, "solve-puzzle")
    assert str(path) in line and "attributes were changed after it was written" in line, line


@pytest.mark.parametrize("change", ["goal", "partition name", "tiles", "table kind", "compression", "cost model",
                                    "a note", "no file checksum value"])
def test_any_attribute_changed_after_writing_fails_the_file_checksum(pdbs, tmp_path, change):
    path = copy_of(pdbs["good"], tmp_path, "changed.h5")
    with h5py.File(path, "r+") as handle:
        dataset = handle["pattern_0"]
        if change == "goal":
            handle.attrs["goal"] = np.array([2, 1, 3, 4, 5, 6, 7, 8, 0])
        elif change == "partition name":
            handle.attrs["partition"] = "4-4-renamed"
        elif change == "tiles":
            dataset.attrs["tiles"] = np.array([1, 2, 3, 5])
        elif change == "table kind":
            handle.attrs["table_kind"] = "plain "
        elif change == "compression":
            dataset.attrs["bits_per_entry"] = 4
        elif change == "cost model":
            handle.attrs["cost_model"] = "non-additive"
        elif change == "a note":
            dataset.attrs["note"] = "checked by hand"
        else:
            handle.attrs["file_checksum"] = "sha256:" + "0" * 64
    with pytest.raises(PdbError, match="attributes were changed after it was written"):
        load_partition(path)


def test_a_file_without_a_file_checksum_is_refused_with_the_command_that_rebuilds_it(pdbs, tmp_path):
    path = copy_of(pdbs["blank-first"], tmp_path, "older.h5")
    with h5py.File(path, "r+") as handle:
        del handle.attrs["file_checksum"]
    with pytest.raises(PdbError, match="older tilepdb") as error:
        load_partition(path)
    command = str(error.value).partition("rebuild it with: ")[2]
    assert command == (f"build-pdb --board 3x3 --goal '0 1 2 3 4 5 6 7 8' --pattern 1,2,3,4 --pattern 5,6,7,8 "
                       f"--force --out {path}")


# ------------------------------------------------------------------ one stored copy: the file's own bytes

def test_the_tables_are_the_files_own_bytes_mapped_and_nothing_is_written_beside_it(pdbs, tmp_path):
    path = copy_of(pdbs["good"], tmp_path, "mapped.h5")
    database = load_partition(path)
    with h5py.File(path, "r") as handle:
        offsets = [handle[f"pattern_{i}"].id.get_offset() for i in range(2)]
        assert all(np.array_equal(handle[f"pattern_{i}"][...], database.tables[i]) for i in range(2))
    assert [t.ctypes.data - database.buffer.ctypes.data for t in database.tables] == offsets
    assert database.buffer.size == path.stat().st_size and not database.buffer.flags.writeable
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mapped.h5"]


def test_a_compressed_codec_is_read_into_memory_and_verified(pdbs):
    database = load_partition(pdbs["zstd"])
    reference = load_partition(pdbs["good"])
    assert all(np.array_equal(a, b) for a, b in zip(database.tables, reference.tables))
    assert database.buffer.size == sum(t.size for t in database.tables)


def test_table_bytes_changed_after_a_first_load_are_refused_at_the_next_load(pdbs, tmp_path):
    """The bytes are checked at every load: flipping a byte of a table in the file, its
    modification time set back, is caught by the next command."""
    path = copy_of(pdbs["good"], tmp_path, "flipped-later.h5")
    assert_solves = call(solve_puzzle_main, [HARD_8, "--heuristic", f"pdb:{path}"])
    assert assert_solves[0] == 0 and "31" in assert_solves[1], assert_solves
    database = load_partition(path)
    offset = int(database.tables[1].ctypes.data - database.buffer.ctypes.data) + 777
    del database
    before = path.stat()
    with path.open("r+b") as handle:
        handle.seek(offset)
        value = handle.read(1)[0]
        handle.seek(offset)
        handle.write(bytes([value ^ 1]))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    line = assert_refused_before_search(path, tmp_path, how="pdb:{path}")
    assert "table 1" in line and "fails its checksum" in line, line


# ------------------------------------------------------------------ a missing file names the command that makes it

@pytest.mark.parametrize("name, options", [
    ("3x3-blank-first-4-4.h5", []), ("3x3-blank-last-4-4-zero-aware.h5", ["--zero-aware"]),
    ("3x3-blank-first-4-4-nibble.h5", ["--compress", "nibble"]),
])
def test_a_missing_file_named_as_build_pdb_names_it_gets_the_command_that_builds_it(tmp_path, name, options):
    path = tmp_path / "pdbs" / name
    status, out, err = call(solve_puzzle_main, [HARD_8, *(["--goal", "0 1 2 3 4 5 6 7 8"] if "first" in name else []),
                                                "--heuristic", f"pdb:{path}"])
    line = assert_one_line_error(status, out, err, "solve-puzzle")
    command = line.partition("build it with: ")[2]
    assert command.startswith("build-pdb --board 3x3") and "--preset 4-4" in command, line
    assert all(option in command for option in options), line
    assert call(build_pdb_main, [*shlex.split(command)[1:], "--quiet"])[0] == 0
    assert load_partition(path).partition.name == "4-4"


def test_any_other_missing_file_is_told_to_build_it_with_build_pdb(tmp_path):
    line = assert_refused_before_search(tmp_path / "mine.h5", tmp_path, how="pdb:{path}")
    assert "no such PDB file; build it with build-pdb (see build-pdb --help)" in line, line
