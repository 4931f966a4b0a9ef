"""Fault drill, outputs: an output path never destroys what is not an output.

A device, a FIFO or a folder given as an output is refused in one line with exit status 2 and
left as it was; a symbolic link is written through (it stays a link, its target holds the
output); `-` is standard output where a command streams its output, and refused in one line
where the output must be a file (a results file read back to resume, an HDF5 file). No lock
file outlives the commands, and the temporary files of killed writers go with the next write.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from pdb_build.build import load_or_build
from pdb_build.cli import build_pdb_main
from pdb_build.partitions import custom
from pdb_build.store import load_partition
from solvers.atomic import atomic_target
from solvers.cli import make_instances_main, solve_batch_main
from solvers.instances import load_instances
from solvers.puzzle import Puzzle
from tests.faults_support import assert_one_line_error, build_small_pdb, call, read_rows, script

ONE_INSTANCE = "# board: 2x2\n1 2 0 3\n"
BUILD = ["--board", "2x3", "--pattern", "1,2,3", "--pattern", "4,5", "--quiet"]
MAKE = ["--board", "2x3", "--count", "3", "--quiet"]


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A scratch folder, also the working directory, holding the one-instance file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "one.txt").write_text(ONE_INSTANCE)
    return tmp_path


def _solve_batch(out: str, *extra: str) -> tuple[int, str, str]:
    return call(solve_batch_main, ["one.txt", "--out", out, "--quiet", "--jobs", "1", *extra])


def _host_part(folder: Path) -> str:
    """The host part of the temporary names this process writes, read off a real temporary file."""
    with atomic_target(folder / "probe") as temporary:
        temporary.write_text("probe")
    (folder / "probe").unlink()
    return temporary.name[len(".probe."):-len(".tmp")].rpartition(".")[0]


def _impossible_pid() -> int:
    """A process id above the largest this machine gives: no process has it."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1


def _run(command: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """A console script run as a user runs it."""
    return subprocess.run([*script(command), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


# ---------------------------------------------------------------- devices, FIFOs, folders


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device needs root")
def test_a_character_device_as_out_is_refused_and_stays_a_device(work):
    """`mknod -m 666 fake c 1 3; solve-batch one.txt --out fake` once replaced the device (as
    /dev/null would be) with a regular CSV file."""
    fake = work / "fake"
    os.mknod(fake, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    done = _run("solve-batch", "one.txt", "--out", "fake", cwd=work)
    line = assert_one_line_error(done.returncode, done.stdout, done.stderr, "solve-batch")
    assert line == "solve-batch: error: fake is a character device, not a regular file; give a file path"
    assert stat.S_ISCHR(fake.lstat().st_mode) and fake.lstat().st_rdev == os.makedev(1, 3)
    assert sorted(p.name for p in work.iterdir()) == ["fake", "one.txt"]


def test_a_fifo_as_out_is_refused_without_waiting_for_a_writer(work):
    """solve-batch reads its output back to resume it: a FIFO would wait for a writer forever."""
    fifo = work / "fifo"
    os.mkfifo(fifo)
    done = _run("solve-batch", "one.txt", "--out", "fifo", cwd=work)
    line = assert_one_line_error(done.returncode, done.stdout, done.stderr, "solve-batch")
    assert line.endswith("fifo is a FIFO (named pipe), not a regular file; give a file path")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_fifo_is_refused_by_the_commands_that_replace_a_file_with_force(work):
    fifo = work / "fifo"
    os.mkfifo(fifo)
    for main, prog, argv in ((make_instances_main, "make-instances", MAKE), (build_pdb_main, "build-pdb", BUILD)):
        status, out, err = call(main, [*argv, "--out", "fifo", "--force"])
        line = assert_one_line_error(status, out, err, prog)
        assert line.endswith("fifo is a FIFO (named pipe), not a regular file; give a file path")
        assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in work.iterdir()) == ["fifo", "one.txt"]


def test_a_folder_as_out_is_refused_and_left_empty(work):
    (work / "folder").mkdir()
    status, out, err = _solve_batch("folder")
    assert assert_one_line_error(status, out, err, "solve-batch").endswith("folder is a folder, not a regular file; "
                                                                          "give a file path")
    assert list((work / "folder").iterdir()) == []


# ---------------------------------------------------------------- symbolic links


def test_solve_batch_writes_through_a_link_and_resumes_through_it(work):
    (work / "results").mkdir()
    link = work / "link.csv"
    link.symlink_to(Path("results") / "real.csv")
    status, _, err = _solve_batch("link.csv")
    assert status == 0, err
    assert link.is_symlink() and os.readlink(link) == str(Path("results") / "real.csv")
    first = read_rows(work / "results" / "real.csv")
    assert [(r["id"], r["status"], r["length"]) for r in first] == [("1", "solved", "1")]
    status, out, err = _solve_batch("link.csv")  # a second run keeps the row it reads through the link
    assert status == 0 and "1 kept from an earlier run" in out, err
    assert link.is_symlink() and read_rows(work / "results" / "real.csv") == first
    assert sorted(p.name for p in (work / "results").iterdir()) == ["real.csv"]


def test_make_instances_with_force_writes_through_a_link(work):
    real = work / "real.txt"
    real.write_text("old\n")
    (work / "link.txt").symlink_to("real.txt")
    status, _, err = call(make_instances_main, [*MAKE, "--out", "link.txt", "--force"])
    assert status == 0, err
    assert (work / "link.txt").is_symlink()
    puzzle, instances = load_instances(real)
    assert puzzle == Puzzle(2, 3) and len(instances) == 3


def test_build_pdb_with_force_writes_through_a_link(work):
    real = work / "real.h5"
    real.write_bytes(b"an older file")
    (work / "link.h5").symlink_to("real.h5")
    status, _, err = call(build_pdb_main, [*BUILD, "--out", "link.h5", "--force"])
    assert status == 0, err
    assert (work / "link.h5").is_symlink()
    assert load_partition(real, Puzzle(2, 3)).partition.patterns == custom(Puzzle(2, 3), ["1,2,3", "4,5"]).patterns
    assert sorted(p.name for p in work.iterdir()) == ["link.h5", "one.txt", "real.h5"]


# ---------------------------------------------------------------- standard output


def test_make_instances_writes_dash_to_standard_output(work):
    status, out, err = call(make_instances_main, [*MAKE, "--out", "-"])
    assert status == 0, err
    lines = [line for line in out.splitlines() if line and not line.startswith("#")]
    assert len(lines) == 3
    assert sorted(p.name for p in work.iterdir()) == ["one.txt"]


def test_outputs_that_must_be_files_refuse_standard_output_in_one_line(work):
    """A results file is read back to resume and rewritten whole; an HDF5 file is seeked in.
    (Only `-` is given to the commands: should the refusal ever fail, a file named `-` appears
    here, where /dev/stdout would be replaced for the whole machine; test_atomic.py refuses the
    other stream names without writing.)"""
    refusal = "error: - (standard output) is a stream, not a regular file; give a file path"
    status, out, err = _solve_batch("-")
    assert assert_one_line_error(status, out, err, "solve-batch").endswith(refusal)
    status, out, err = call(build_pdb_main, [*BUILD, "--out", "-"])
    assert assert_one_line_error(status, out, err, "build-pdb").endswith(refusal)
    assert sorted(p.name for p in work.iterdir()) == ["one.txt"]


# ---------------------------------------------------------------- lock and temporary files


def test_no_lock_file_outlives_a_batch_or_a_pdb_load(work):
    puzzle = Puzzle(2, 3)
    partition = custom(puzzle, ["1,2,3", "4,5"])
    path = work / "pdbs" / "made.h5"
    load_or_build(puzzle, partition, path)  # built, under its lock
    load_or_build(puzzle, partition, path)  # loaded
    (work / "six.txt").write_text("# board: 2x3\n1 2 3 4 0 5\n4 1 2 0 5 3\n")
    status, _, err = call(solve_batch_main, ["six.txt", "--out", "out.csv", "--quiet", "--jobs", "1",
                                             "--heuristic", "pdb", "--pdb", str(path)])
    assert status == 0, err
    assert not [p for p in work.rglob("*") if p.name.endswith(".lock")]
    assert sorted(p.name for p in (work / "pdbs").iterdir()) == ["made.h5"]


def test_temporary_files_of_gone_writers_go_with_the_next_write_and_a_running_ones_stay(work):
    host = _host_part(work)
    for output in ("out.csv", "pdb.h5"):
        (work / f".{output}.{host}.{_impossible_pid()}-0a.tmp").write_bytes(b"left by a killed writer")
        (work / f".{output}.{host}.{os.getpid()}-0b.tmp").write_bytes(b"being written")
    status, _, err = _solve_batch("out.csv")
    assert status == 0, err
    build_small_pdb(work / "pdb.h5", 2, 3, ["1,2,3", "4,5"])
    assert sorted(p.name for p in work.glob(".*.tmp")) == [f".out.csv.{host}.{os.getpid()}-0b.tmp",
                                                           f".pdb.h5.{host}.{os.getpid()}-0b.tmp"]


def test_a_load_that_builds_a_missing_file_clears_a_killed_builds_temporary_files(work):
    host = _host_part(work)
    left = work / f".made.h5.{host}.{_impossible_pid()}-0a.tmp"
    left.write_bytes(b"half an HDF5 file")
    puzzle = Puzzle(2, 3)
    load_or_build(puzzle, custom(puzzle, ["1,2,3", "4,5"]), work / "made.h5")
    assert sorted(p.name for p in work.iterdir()) == ["made.h5", "one.txt"]
