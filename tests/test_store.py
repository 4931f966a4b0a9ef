"""PDB files: self-description, verified loading, refusals with one-line reasons, atomic writes."""

import re
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np
import pytest

from pdb_build import build
from pdb_build.build import build_pdb_file, load_or_build, plan_build
from pdb_build.partitions import custom, preset
from pdb_build.store import FORMAT_VERSION, PdbError, default_file_name, load_partition, write_partition
from solvers.errors import InputError
from solvers.puzzle import Puzzle
from tests.forging import forged


@pytest.fixture(scope="module")
def built_file(tmp_path_factory):
    puzzle = Puzzle(3, 3)
    partition = preset(puzzle, "4-4")
    path = tmp_path_factory.mktemp("pdb") / default_file_name(puzzle, partition)
    path, built = build_pdb_file(plan_build(puzzle, partition), path)
    return puzzle, partition, path, built


def test_file_describes_itself(built_file):
    puzzle, partition, path, built = built_file
    assert path.name == "3x3-blank-last-4-4.h5"
    with h5py.File(path) as handle:
        assert handle.attrs["format_version"] == FORMAT_VERSION
        assert handle.attrs["partition"] == "4-4" and handle.attrs["cost_model"] == "additive"
        for number, table in enumerate(built):
            attrs = handle[f"pattern_{number}"].attrs
            assert tuple(attrs["tiles"]) == table.pattern
            assert attrs["entries"] == 3024 and attrs["board_rows"] == 3 and attrs["board_cols"] == 3
            assert list(attrs["goal"]) == puzzle.goal.tolist()
            assert attrs["max"] == table.table.max() and np.isclose(attrs["mean"], table.table.mean())
            assert list(attrs["histogram"]) == np.bincount(table.table).tolist()
            assert attrs["checksum"].startswith("sha256:") and attrs["ranking_scheme"]
            assert attrs["build_seconds"] >= 0 and attrs["package_version"]


def test_load_round_trip(built_file):
    puzzle, partition, path, built = built_file
    database = load_partition(path, puzzle, partition)
    assert database.partition.patterns == partition.patterns
    for table, original in zip(database.tables, built):
        assert np.array_equal(table, original.table)
        assert not table.flags.writeable


def test_mismatches_are_refused(built_file):
    puzzle, partition, path, _ = built_file
    with pytest.raises(PdbError, match="built for a 3x3 board, not 4x4"):
        load_partition(path, Puzzle(4, 4))
    with pytest.raises(PdbError, match="built for goal 1 2 3 4 5 6 7 8 0, not 0 1 2"):
        load_partition(path, Puzzle(3, 3, list(range(9))))
    with pytest.raises(PdbError, match="holds partition 4-4"):
        load_partition(path, puzzle, custom(puzzle, ["1,2,3", "4,5,6,7,8"]))


def _copy(path, tmp_path, name="copy.h5"):
    target = tmp_path / name
    target.write_bytes(path.read_bytes())
    return target


def test_a_changed_entry_fails_the_checksum(built_file, tmp_path):
    puzzle, partition, path, built = built_file
    copy = _copy(path, tmp_path)
    with h5py.File(copy, "r+") as handle:
        table = handle["pattern_1"][...]
        table[100] += 1
        handle["pattern_1"][...] = table
    with pytest.raises(PdbError, match="fails its checksum; the file is corrupt"):
        load_partition(copy, puzzle)


def test_wrong_version_truncated_empty_and_foreign_files(built_file, tmp_path):
    puzzle, _, path, _ = built_file
    old = _copy(path, tmp_path, "old.h5")
    with h5py.File(old, "r+") as handle:
        handle.attrs["format_version"] = 0
    with pytest.raises(PdbError, match="format version 0 is not"):
        load_partition(old, puzzle)
    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    empty = tmp_path / "empty.h5"
    empty.write_bytes(b"")
    text = tmp_path / "text.h5"
    text.write_text("not hdf5")
    for broken in (truncated, empty, text):
        with pytest.raises(PdbError, match=str(broken.name)) as error:
            load_partition(broken, puzzle)
        assert "\n" not in str(error.value)
    with pytest.raises(PdbError, match="no such PDB file"):
        load_partition(tmp_path / "missing.h5", puzzle)


def test_existing_files_are_kept_unless_forced(built_file):
    puzzle, partition, path, built = built_file
    before = path.read_bytes()
    with pytest.raises(InputError, match="exists; use --force"):
        write_partition(path, puzzle, partition, built)
    assert path.read_bytes() == before


def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch):
    puzzle = Puzzle(3, 3)
    partition = preset(puzzle, "4-4")
    plan = plan_build(puzzle, partition)
    target = tmp_path / "out.h5"

    def explode(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("pdb_build.store.checksum", explode)
    with pytest.raises(KeyboardInterrupt):
        build_pdb_file(plan, target)
    assert list(tmp_path.iterdir()) == []


def test_load_or_build_builds_once(tmp_path):
    puzzle = Puzzle(2, 4)
    partition = custom(puzzle, ["1,2,3", "4,5,6,7"])
    path = tmp_path / "2x4.h5"
    first = load_or_build(puzzle, partition, path)
    stamp = path.stat().st_mtime_ns
    second = load_or_build(puzzle, partition, path)
    assert path.stat().st_mtime_ns == stamp
    assert all(np.array_equal(a, b) for a, b in zip(first.tables, second.tables))


def test_two_builds_of_one_missing_file_at_once_build_it_once(tmp_path, monkeypatch):
    """Two searches that need one missing file at once (two threads here, each with its own
    handle on the lock, as two processes have): the second waits for the first's turn and reads
    the file it built, instead of building it again and refusing the file that appeared."""
    puzzle = Puzzle(2, 4)
    partition = custom(puzzle, ["1,2,3", "4,5,6,7"])
    builds, at_lock, release = [], [], threading.Event()
    second_at_lock = threading.Event()
    real_build, real_lock = build.build_pdb_file, build.open_lock

    def slow_build(*args, **kwargs):
        builds.append(1)
        release.wait(30)
        return real_build(*args, **kwargs)

    def counted_lock(path):
        at_lock.append(path)
        if len(at_lock) == 2:
            second_at_lock.set()
        return real_lock(path)

    monkeypatch.setattr(build, "build_pdb_file", slow_build)
    monkeypatch.setattr(build, "open_lock", counted_lock)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(build.built_file, puzzle, partition, tmp_path)
        while not builds:
            time.sleep(0.01)
        second = pool.submit(build.built_file, puzzle, partition, tmp_path)
        assert second_at_lock.wait(30)
        time.sleep(0.2)  # the second thread is now waiting for its turn
        release.set()
        assert first.result() == second.result() == tmp_path / default_file_name(puzzle, partition)
    assert len(builds) == 1
    assert load_partition(first.result(), puzzle, partition).partition == partition


def test_a_file_that_cannot_be_built_in_its_folder_is_one_line(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    puzzle = Puzzle(2, 4)
    with pytest.raises(InputError, match=r"^cannot write .*a-file") as error:
        build.built_file(puzzle, custom(puzzle, ["1,2,3", "4,5,6,7"]), blocker / "folder")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("where", ["file", "pattern_1"])
@pytest.mark.parametrize("scheme", ["map-lex*order-lex", "map-colex*order-lex/2"])
def test_another_ranking_scheme_is_refused(built_file, tmp_path, where, scheme):
    puzzle, _, path, _ = built_file
    other = _copy(path, tmp_path, "other.h5")
    with forged(other) as handle:
        (handle if where == "file" else handle[where]).attrs["ranking_scheme"] = scheme
    with pytest.raises(PdbError, match=re.escape(f"indexed by ranking scheme '{scheme}', not 'map-colex")) as error:
        load_partition(other, puzzle)
    assert "\n" not in str(error.value) and str(other) in str(error.value)


def test_an_unknown_codec_is_refused_before_building(tmp_path):
    puzzle = Puzzle(3, 3)
    with pytest.raises(InputError, match="unknown codec 'lz4'; choose one of zstd, gzip, none"):
        build_pdb_file(plan_build(puzzle, preset(puzzle, "4-4")), tmp_path / "x.h5", codec="lz4")
    assert list(tmp_path.iterdir()) == []


def test_table_memory_is_zeroed_writable_and_exactly_sized():
    from pdb_build.pages import table_memory

    for n_bytes in (1, 3 << 20, (2 << 20) + 5):
        table = table_memory(n_bytes)
        assert table.shape == (n_bytes,) and table.dtype == np.uint8 and not table.any()
        table[-1] = 7
        assert table[-1] == 7


def test_a_bug_while_loading_is_not_reported_as_a_damaged_file(built_file, tmp_path, monkeypatch):
    """Only what h5py raises means a bad file; an error of tilepdb's own code reaches the caller."""
    from pdb_build import store

    def broken(*args):
        raise TypeError("a bug")

    copy = tmp_path / built_file[2].name  # a new version of the file: its tables are verified again
    shutil.copy(built_file[2], copy)
    monkeypatch.setattr(store, "checksum", broken)
    with pytest.raises(TypeError, match="a bug"):
        load_partition(copy)
