"""Table files: a PDB file's tables verified and written once per version of the file, then mapped
read-only by every load; rewritten when the PDB file or the table file changes; private memory
where none can be written."""

import errno
import multiprocessing
import os
import shutil

import h5py
import numpy as np
import pytest

from pdb_build import store, table_file
from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import preset
from pdb_build.store import PdbError, default_file_name, load_partition
from pdb_build.verify import verify_pdb
from solvers import atomic
from solvers.puzzle import Puzzle


@pytest.fixture
def pdb(tmp_path):
    puzzle = Puzzle(3, 3)
    partition = preset(puzzle, "4-4")
    path, built = build_pdb_file(plan_build(puzzle, partition), tmp_path / default_file_name(puzzle, partition))
    return path, [b.table for b in built]


@pytest.fixture
def verified(monkeypatch):
    """How many tables were checked against their checksums since the fixture began."""
    count = [0]
    real = store.checksum

    def counting(table):
        count[0] += 1
        return real(table)

    monkeypatch.setattr(store, "checksum", counting)
    return count


def _assert_tables(database, tables):
    assert len(database.tables) == len(tables)
    for loaded, built in zip(database.tables, tables):
        assert np.array_equal(loaded, built) and not loaded.flags.writeable


def test_the_first_load_verifies_and_writes_the_table_file_later_loads_map_it(pdb, verified):
    path, tables = pdb
    first = load_partition(path)
    table = path.with_name(path.name + table_file.SUFFIX)
    assert verified[0] == 2 and table.is_file() and table.stat().st_mode & 0o222 == 0  # read-only
    second = load_partition(path)
    assert verified[0] == 2  # mapped, not read again
    _assert_tables(first, tables)
    _assert_tables(second, tables)
    assert np.array_equal(second.buffer, np.concatenate(tables))


def test_a_new_version_of_the_pdb_file_is_verified_again(pdb, verified, tmp_path):
    path, tables = pdb
    load_partition(path)
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    _assert_tables(load_partition(path), tables)
    assert verified[0] == 4
    with h5py.File(path, "r+") as handle:  # one entry changed: the checksum no longer holds
        handle["pattern_0"][5] ^= 1
    with pytest.raises(PdbError, match="fails its checksum"):
        load_partition(path)


@pytest.mark.parametrize("damage", ["truncated", "header", "empty"])
def test_a_damaged_table_file_is_written_again(pdb, verified, damage):
    path, tables = pdb
    load_partition(path)
    table = path.with_name(path.name + table_file.SUFFIX)
    table.chmod(0o644)
    data = table.read_bytes()
    table.write_bytes({"truncated": data[:-1], "header": b"x" + data[1:], "empty": b""}[damage])
    _assert_tables(load_partition(path), tables)
    assert verified[0] == 4 and table.read_bytes() == data


def test_without_a_writable_folder_the_tables_are_read_into_memory(pdb, verified, tmp_path, monkeypatch):
    path, tables = pdb
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(table_file, "table_file_candidates", lambda path: [blocker / "x.tables", blocker / "y.tables"])
    _assert_tables(load_partition(path), tables)
    _assert_tables(load_partition(path), tables)
    assert verified[0] == 4 and not list(tmp_path.glob("*.tables*"))


@pytest.mark.parametrize("error", [errno.ENOLCK, errno.EOPNOTSUPP])
def test_a_lock_that_cannot_be_taken_still_writes_and_maps_the_table_file(pdb, verified, monkeypatch, error):
    """As on NFS without a lock service (ENOLCK) or a FUSE mount (EOPNOTSUPP): no turn is taken,
    the atomic rename keeps the file whole, and the tables load as ever."""
    path, tables = pdb

    def refused(descriptor, operation):
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(atomic.fcntl, "flock", refused)
    _assert_tables(load_partition(path), tables)
    assert path.with_name(path.name + table_file.SUFFIX).is_file() and verified[0] == 2
    _assert_tables(load_partition(path), tables)
    assert verified[0] == 2  # mapped from the file written without the lock


def test_a_copy_elsewhere_has_its_own_table_file(pdb, verified, tmp_path):
    path, tables = pdb
    load_partition(path)
    copy = tmp_path / "copy" / path.name
    copy.parent.mkdir()
    shutil.copy(path, copy)
    _assert_tables(load_partition(copy), tables)
    assert verified[0] == 4 and copy.with_name(copy.name + table_file.SUFFIX).is_file()


def test_verify_pdb_reads_the_pdb_file_itself_and_removes_a_table_file_that_differs(pdb):
    path, tables = pdb
    load_partition(path)
    table = path.with_name(path.name + table_file.SUFFIX)
    table.chmod(0o644)
    data = bytearray(table.read_bytes())
    data[table_file.HEADER_BYTES + 7] ^= 1  # the body: not noticed by a load
    table.write_bytes(bytes(data))
    assert not np.array_equal(load_partition(path).tables[0], tables[0])
    assert verify_pdb(path).ok and not table.exists()
    _assert_tables(load_partition(path), tables)


def _mapping_of(array: np.ndarray) -> str:
    """The file (or '') mapped at `array`'s first byte, from /proc/self/maps."""
    address = array.ctypes.data
    for line in open("/proc/self/maps"):
        fields = line.split()
        low, high = (int(x, 16) for x in fields[0].split("-"))
        if low <= address < high:
            return fields[5] if len(fields) > 5 else ""
    return ""


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs Linux's /proc")
def test_later_loads_map_the_table_file_itself(pdb):
    path, _ = pdb
    load_partition(path)
    table = path.with_name(path.name + table_file.SUFFIX)
    assert _mapping_of(load_partition(path).tables[0]) == str(table)
    assert _mapping_of(load_partition(path, shared=False).tables[0]) != str(table)


def _load_at_once(barrier, path, inodes):
    barrier.wait()
    database = load_partition(path)
    address = database.tables[0].ctypes.data
    for line in open("/proc/self/maps"):
        fields = line.split()
        low, high = (int(x, 16) for x in fields[0].split("-"))
        if low <= address < high:
            inodes.put(int(fields[4]))  # the inode of the mapped file
            return
    inodes.put(0)


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs Linux's /proc")
def test_processes_loading_a_new_file_at_once_all_map_one_table_file(pdb):
    path, _ = pdb
    context = multiprocessing.get_context("fork")
    barrier, inodes = context.Barrier(4), context.Queue()
    processes = [context.Process(target=_load_at_once, args=(barrier, path, inodes)) for _ in range(4)]
    for process in processes:
        process.start()
    found = sorted(inodes.get(timeout=120) for _ in processes)
    for process in processes:
        process.join(timeout=60)
    table = path.with_name(path.name + table_file.SUFFIX)
    assert found == [table.stat().st_ino] * 4
