"""Atomic outputs: the old temporary files of killed writers are cleared, a live or recent writer's are kept,
and writers in several threads of one process never share a temporary file."""

import os
import subprocess
import sys
import threading
import time

from solvers.atomic import ABANDONED_SECONDS, atomic_target


def _dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(child.stdout)


def test_files_of_killed_writers_go_once_old_and_those_of_live_ones_stay(tmp_path):
    """A temporary file goes only when its process is not running here and it has been left
    untouched for ABANDONED_SECONDS: a young one may be another machine's live writer's."""
    target = tmp_path / "out.csv"
    dead_pid = _dead_pid()
    dead = tmp_path / f".out.csv.{dead_pid}-0123abcd.tmp"
    young = tmp_path / f".out.csv.{dead_pid}-89abcd.tmp"
    live = tmp_path / f".out.csv.{os.getpid()}-4567ef.tmp"
    for path, text in ((dead, "left by a killed writer"), (young, "another machine's writer"), (live, "being written")):
        path.write_text(text)
    old = time.time() - ABANDONED_SECONDS - 60
    for path in (dead, live):
        os.utime(path, (old, old))
    with atomic_target(target) as temporary:
        temporary.write_text("whole")
    assert target.read_text() == "whole"
    assert not dead.exists() and young.exists() and live.exists()


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
