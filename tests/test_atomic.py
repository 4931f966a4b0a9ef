"""Atomic outputs: temporary files of killed writers are cleared (at once where their process is
known gone, else once old), a live or recent writer's are kept, and writers in several threads
of one process never share a temporary file; a link is written through, a path that is not a
regular file is refused and left as it was, a stream is written straight only where asked for;
writers take turns on a lock file that is gone once they are done."""

import os
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from solvers import atomic
from solvers.atomic import ABANDONED_SECONDS, atomic_target, open_lock, output_target, taking_turn, write_csv
from solvers.errors import InputError, OutputError

ROOT = Path(__file__).resolve().parents[1]


def _dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(child.stdout)


def _impossible_pid() -> int:
    """A process id above the largest this machine gives: no process has it."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1


def _host_part(tmp_path: Path) -> str:
    """The host part of the temporary names this process writes, read off a real temporary file."""
    with atomic_target(tmp_path / "probe") as temporary:
        temporary.write_text("probe")
    return temporary.name[len(".probe."):-len(".tmp")].rpartition(".")[0]


def _aged(path: Path, seconds: float) -> None:
    old = time.time() - seconds
    os.utime(path, (old, old))


def test_files_of_killed_writers_go_once_old_and_those_of_live_ones_stay(tmp_path):
    """A temporary file named without its host goes only when its process is not running here
    and it has been left untouched for ABANDONED_SECONDS: a young one may be another machine's
    live writer's."""
    target = tmp_path / "out.csv"
    dead_pid = _dead_pid()
    dead = tmp_path / f".out.csv.{dead_pid}-0123abcd.tmp"
    young = tmp_path / f".out.csv.{dead_pid}-89abcd.tmp"
    live = tmp_path / f".out.csv.{os.getpid()}-4567ef.tmp"
    for path, text in ((dead, "left by a killed writer"), (young, "another machine's writer"), (live, "being written")):
        path.write_text(text)
    for path in (dead, live):
        _aged(path, ABANDONED_SECONDS + 60)
    with atomic_target(target) as temporary:
        temporary.write_text("whole")
    assert target.read_text() == "whole"
    assert not dead.exists() and young.exists() and live.exists()


def test_the_temporary_name_holds_the_host_and_the_process(tmp_path):
    host = _host_part(tmp_path)
    assert host.startswith(socket.gethostname().replace(".", "_")[:32])
    with atomic_target(tmp_path / "out.csv") as temporary:
        assert temporary.parent == tmp_path
        assert temporary.name.startswith(f".out.csv.{host}.{os.getpid()}-") and temporary.name.endswith(".tmp")
        temporary.write_text("whole")


def test_a_file_of_a_gone_process_of_this_host_goes_at_once_others_by_age(tmp_path):
    """Of this host, a temporary file whose process is gone goes at once however recent, and a
    running process's stays; one of another host goes only once untouched for ABANDONED_SECONDS,
    whatever its process id means here; a file whose name only extends the target's is another
    file's."""
    host = _host_part(tmp_path)
    gone = tmp_path / f".out.csv.{host}.{_impossible_pid()}-0a.tmp"
    running = tmp_path / f".out.csv.{host}.{os.getpid()}-0b.tmp"
    running_old = tmp_path / f".out.csv.{host}.{os.getpid()}-0c.tmp"
    elsewhere = tmp_path / f".out.csv.another-host.{_impossible_pid()}-0d.tmp"
    elsewhere_old = tmp_path / f".out.csv.another-host.{os.getpid()}-0e.tmp"
    other_file = tmp_path / f".out.csv.x.{host}.{_impossible_pid()}-0f.tmp"
    for path in (gone, running, running_old, elsewhere, elsewhere_old, other_file):
        path.write_text("partial")
    for path in (running_old, elsewhere_old, other_file):
        _aged(path, ABANDONED_SECONDS + 60)
    write_csv(tmp_path / "out.csv", [{"a": 1}])
    left = {p.name for p in tmp_path.iterdir()}
    assert gone.name not in left and elsewhere_old.name not in left
    assert {running.name, running_old.name, elsewhere.name, other_file.name} <= left


def test_a_writer_killed_mid_write_leaves_a_file_the_next_writer_removes(tmp_path):
    target = tmp_path / "out.txt"
    program = textwrap.dedent("""
        import sys, time
        from solvers.atomic import atomic_target
        with atomic_target(sys.argv[1]) as temporary:
            temporary.write_text("half")
            print(temporary.name, flush=True)
            time.sleep(600)
    """)
    child = subprocess.Popen([sys.executable, "-c", program, str(target)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        left = tmp_path / child.stdout.readline().strip()
    finally:
        child.kill()
        child.communicate()
    assert left.read_text() == "half"
    with atomic_target(target) as temporary:
        temporary.write_text("whole")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_threads_writing_one_target_each_write_a_whole_file(tmp_path):
    target = tmp_path / "out.txt"
    texts = [str(i) * 100_000 for i in range(8)]
    barrier = threading.Barrier(len(texts))

    def write(text):
        with atomic_target(target) as temporary:
            barrier.wait()
            temporary.write_text(text)

    threads = [threading.Thread(target=write, args=(t,)) for t in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert target.read_text() in texts
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


# ---------------------------------------------------------------- what the path is


def test_a_link_is_written_through_to_its_target_which_stays_a_link(tmp_path):
    (tmp_path / "data").mkdir()
    real = tmp_path / "data" / "real.csv"
    real.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(Path("data") / "real.csv")
    chained = tmp_path / "chained.csv"
    chained.symlink_to("link.csv")
    write_csv(chained, [{"a": 1}])
    assert chained.is_symlink() and link.is_symlink() and os.readlink(link) == str(Path("data") / "real.csv")
    assert real.read_text() == "a\n1\n"
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["real.csv"]


def test_a_dangling_link_creates_its_target(tmp_path):
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "made" / "new.csv")
    with atomic_target(link) as temporary:
        assert temporary.parent == tmp_path / "made"
        temporary.write_text("new")
    assert link.is_symlink() and (tmp_path / "made" / "new.csv").read_text() == "new"


def test_a_loop_of_links_is_refused(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    with pytest.raises(OutputError, match="loop of symbolic links"):
        write_csv(loop, [{"a": 1}])


def _refused(path: Path, kind: str) -> str:
    with pytest.raises(OutputError) as refusal, atomic_target(path) as temporary:
        temporary.write_text("never")
    message = str(refusal.value)
    assert "\n" not in message and message == f"{path} is {kind}, not a regular file; give a file path"
    return message


def test_a_folder_a_fifo_and_a_socket_are_refused_and_left_as_they_were(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    listening = socket.socket(socket.AF_UNIX)
    sock = tmp_path / "sock"
    listening.bind(str(sock))
    try:
        _refused(folder, "a folder")
        _refused(fifo, "a FIFO (named pipe)")
        _refused(sock, "a socket")
    finally:
        listening.close()
    assert folder.is_dir() and stat.S_ISFIFO(fifo.lstat().st_mode) and stat.S_ISSOCK(sock.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "folder", "sock"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="making a device needs root")
def test_a_character_device_is_refused_and_stays_a_device(tmp_path):
    device = tmp_path / "fake"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    _refused(device, "a character device")
    link = tmp_path / "to-device"
    link.symlink_to(device)
    with pytest.raises(OutputError, match=f"leads to {device}, which is a character device"):
        write_csv(link, [{"a": 1}])
    assert stat.S_ISCHR(device.lstat().st_mode) and device.lstat().st_rdev == os.makedev(1, 3)


def test_the_refusal_is_bad_input_not_an_unwritable_path(tmp_path):
    """Callers turn OSError into "cannot write": a refusal is bad input, and says why."""
    with pytest.raises(OutputError) as refusal:
        output_target(tmp_path)
    assert isinstance(refusal.value, InputError) and not isinstance(refusal.value, OSError)


@pytest.mark.parametrize("name", ["-", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/2"])
def test_a_stream_is_refused_where_a_file_is_needed(name):
    with pytest.raises(OutputError, match="is a stream, not a regular file; give a file path"):
        output_target(name)


def test_a_stream_asked_for_is_written_straight(tmp_path):
    """With `stream`, a descriptor is written without temporary file or rename, and `-` is standard output."""
    read_end, write_end = os.pipe()
    try:
        with atomic_target(f"/dev/fd/{write_end}", stream=True) as straight:
            assert straight == Path(f"/dev/fd/{write_end}")
            straight.write_text("through the pipe\n")
        assert os.read(read_end, 100) == b"through the pipe\n"
    finally:
        os.close(read_end)
        os.close(write_end)
    program = textwrap.dedent("""
        from solvers.atomic import atomic_target
        print("first", flush=False)
        with atomic_target("-", stream=True) as straight:
            straight.write_text("second\\n")
    """)
    done = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "first\nsecond\n"
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- taking turns


TAKER = textwrap.dedent("""
    import os, sys, time
    from solvers.atomic import open_lock, taking_turn
    target, log, turns = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for _ in range(turns):
        with taking_turn(open_lock(target)):
            with open(log, "a") as handle:
                handle.write(f"in {os.getpid()}\\n")
            time.sleep(0.002)
            with open(log, "a") as handle:
                handle.write(f"out {os.getpid()}\\n")
""")


def test_processes_take_turns_and_leave_no_lock_file(tmp_path):
    """Processes that remove the lock file as they give up their turn still never hold it at once:
    one that was granted a removed file's lock opens the path again."""
    target, log = tmp_path / "out.h5", tmp_path / "log"
    takers = [subprocess.Popen([sys.executable, "-c", TAKER, str(target), str(log), "40"], cwd=ROOT)
              for _ in range(4)]
    assert [taker.wait(timeout=120) for taker in takers] == [0] * 4
    lines = log.read_text().splitlines()
    assert len(lines) == 4 * 40 * 2
    for entered, left in zip(lines[::2], lines[1::2]):
        assert entered.split() == ["in", left.split()[1]] and left.startswith("out "), (entered, left)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log"]


def test_the_lock_file_is_removed_and_the_turn_runs_where_no_lock_can_be_taken(tmp_path, monkeypatch):
    def refused(fd, operation):
        raise OSError(37, "No locks available")

    monkeypatch.setattr(atomic.fcntl, "flock", refused)
    ran = []
    with taking_turn(open_lock(tmp_path / "out.h5")):
        ran.append(True)
        assert (tmp_path / "out.h5.lock").exists()
    assert ran and list(tmp_path.iterdir()) == []


def test_the_lock_of_a_link_is_its_targets_and_taking_it_clears_killed_writers_files(tmp_path):
    host = _host_part(tmp_path)
    target = tmp_path / "real.h5"
    link = tmp_path / "link.h5"
    link.symlink_to(target.name)
    gone = tmp_path / f".real.h5.{host}.{_impossible_pid()}-0a.tmp"
    gone.write_bytes(b"half a file")
    with taking_turn(open_lock(link)):
        assert (tmp_path / "real.h5.lock").exists() and not gone.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.h5", "probe"]
