"""Fault drill, crashes: build-pdb and solve-batch killed (SIGKILL) or interrupted (SIGINT) at a
random moment. A killed build leaves nothing at its target and a rerun succeeds; an interrupted
one stops promptly with status 130 and one line. A killed or interrupted batch resumes and ends
with every instance exactly once, the rows equal to an uninterrupted run's. No process of the
command's group outlives it.

Each command runs in a POSIX session of its own (setsid), and every signal goes to its whole process group
(as a terminal's Ctrl-C would), so that forked workers get it too.
"""

from __future__ import annotations

import csv
import os
import random
import signal
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pdb_build.store import load_partition
from solvers.batch import TIMING_FIELDS, solve_batch
from solvers.cli import solve_batch_main
from solvers.heuristics import baseline
from solvers.instances import load_instances
from solvers.puzzle import Puzzle
from tests.conftest import STANDARD_3X3, distances
from tests.faults_support import (
    FUZZ,
    call,
    cleanup,
    data_rows,
    kill_group,
    read_rows,
    replay,
    script,
    spawn,
    wait_for,
    wait_until_group_gone,
    write_eight_puzzles,
)

SEED = int(os.environ.get("FAULTS_SEED", random.SystemRandom().randrange(10**6)))
BIG_PATTERN = ["--board", "4x4", "--pattern", "1,2,3,4,5,6,7"]  # about 4 s of BFS on two cores


class Output:
    """Collects a running process's stdout and stderr in threads, so that pipes never fill."""

    def __init__(self, process):
        self.out: list[str] = []
        self.err: list[str] = []
        self.threads = [threading.Thread(target=self._pump, args=(stream, sink), daemon=True)
                        for stream, sink in ((process.stdout, self.out), (process.stderr, self.err))]
        for thread in self.threads:
            thread.start()

    @staticmethod
    def _pump(stream, sink):
        for line in stream:
            sink.append(line)

    def join(self):
        for thread in self.threads:
            thread.join(timeout=10)
        return "".join(self.out), "".join(self.err)


def temporaries(folder: Path, name: str) -> list[Path]:
    return [p for p in folder.iterdir() if p.name.startswith(f".{name}.") and p.name.endswith(".tmp")]


def assert_group_gone(process):
    alive = wait_until_group_gone(process.pid, timeout=10)
    assert alive == [], f"processes of the group left behind: {alive}"


def interrupt_promptly(process, output: Output, expected_stderr: str) -> None:
    """SIGINT to the process group: it must exit with 130 within 10 s, printing exactly
    `expected_stderr`."""
    sent = time.monotonic()
    kill_group(process, signal.SIGINT)
    process.wait(timeout=30)
    elapsed = time.monotonic() - sent
    _, err = output.join()
    assert elapsed < 10, f"{expected_stderr.split(':')[0]} took {elapsed:.1f} s to stop after SIGINT"
    assert process.returncode == 130, (process.returncode, err[-800:])
    assert err == expected_stderr, err[-1500:]


def rerun_to_completion(command: list[str]) -> str:
    """Run the batch again: it must exit 0 and leave no process behind; returns its stdout."""
    process = spawn(command)
    try:
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr[-800:]
        assert_group_gone(process)
    finally:
        cleanup(process)
    return stdout


# ------------------------------------------------------------------ build-pdb

def test_build_pdb_killed_at_random_moments_leaves_no_file_and_reruns(tmp_path):
    rng = random.Random(SEED)
    target = tmp_path / "seven.h5"
    command = [*script("build-pdb"), *BIG_PATTERN, "--out", str(target), "--quiet"]
    # 1. SIGKILL at a random moment (start-up, BFS or writing)
    delay = rng.uniform(0.2, 4.5)
    process = spawn(command)
    try:
        finished = wait_for(lambda: process.poll() is not None, timeout=delay)
        if not finished:
            kill_group(process, signal.SIGKILL)
        process.communicate(timeout=30)
        assert_group_gone(process)
        if not finished:
            assert not target.exists(), f"a file is at the target after SIGKILL at {delay:.2f} s (seed {SEED})"
    finally:
        cleanup(process)
    target.unlink(missing_ok=True)
    # 2. SIGKILL while the file is being written: as soon as the temporary file appears
    process = spawn(command)
    try:
        seen = wait_for(lambda: bool(temporaries(tmp_path, target.name)) or process.poll() is not None,
                        timeout=60, poll=0.001)
        assert seen
        kill_group(process, signal.SIGKILL)
        process.communicate(timeout=30)
        assert_group_gone(process)
        assert not target.exists() or process.returncode == 0, "a partial file is at the target after SIGKILL"
    finally:
        cleanup(process)
    target.unlink(missing_ok=True)
    # 3. the rerun succeeds and the file loads, verified
    process = spawn(command)
    try:
        _out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        database = load_partition(target, Puzzle(4, 4))
        assert database.partition.patterns == ((1, 2, 3, 4, 5, 6, 7),)
        assert database.tables[0].size == 16 * 15 * 14 * 13 * 12 * 11 * 10
    finally:
        cleanup(process)


@pytest.mark.parametrize("moment", ["bfs", "writing"])
def test_build_pdb_interrupted_exits_130_promptly_with_one_line(tmp_path, moment):
    rng = random.Random(SEED + 1)
    target = tmp_path / "interrupted.h5"
    process = spawn([*script("build-pdb"), *BIG_PATTERN, "--out", str(target), "--quiet"])
    output = Output(process)
    try:
        if moment == "bfs":
            assert wait_for(lambda: any("memory needed" in line for line in output.out), timeout=60)
            time.sleep(rng.uniform(0.0, 2.0))
        else:
            assert wait_for(lambda: bool(temporaries(tmp_path, target.name)) or process.poll() is not None,
                            timeout=60, poll=0.001)
        if process.poll() is not None:
            pytest.skip(f"the build finished before it could be interrupted ({moment})")
        interrupt_promptly(process, output, "build-pdb: interrupted; no file was written\n")
        assert not target.exists()
        assert temporaries(tmp_path, target.name) == [], "the temporary file was left behind"
        assert_group_gone(process)
    finally:
        cleanup(process)


# ------------------------------------------------------------------ solve-batch

N_BATCH = 200


@pytest.fixture(scope="module")
def batch_setup(tmp_path_factory):
    """200 random 8-puzzles with their optimal lengths, and the rows of an uninterrupted run."""
    folder = tmp_path_factory.mktemp("faults-crash-batch")
    path = folder / "two-hundred.txt"
    states = write_eight_puzzles(path, N_BATCH, 11, distances(3, 3, STANDARD_3X3))
    reference = folder / "reference.csv"
    loaded_puzzle, instances = load_instances(path)
    solve_batch(loaded_puzzle, instances, baseline(loaded_puzzle, "hamming"), reference, jobs=1)
    return path, states, read_rows(reference)


def batch_command(instances: Path, out: Path) -> list[str]:
    # hamming is slow enough (about a second for the 200 on two cores) to be caught midway
    return [*script("solve-batch"), str(instances), "--heuristic", "hamming", "--out", str(out), "--jobs", "2", "--quiet"]


def check_complete(out: Path, states, reference):
    rows = read_rows(out)
    ids = [int(r["id"]) for r in rows]
    assert sorted(ids) == list(range(1, N_BATCH + 1)), "an instance is missing or appears twice"
    assert ids == sorted(ids), "the finished file is not in instance order"
    assert rows == reference, "the resumed rows differ from an uninterrupted run's"
    for row, state in zip(rows, states):
        assert row["status"] == "solved" and row["length"] == row["known_length"]
        assert replay(state, row["moves"], 3, 3) == STANDARD_3X3


def test_solve_batch_killed_midway_resumes_to_the_same_rows(batch_setup, tmp_path):
    instances, states, reference = batch_setup
    rng = random.Random(SEED + 2)
    out = tmp_path / "killed.csv"
    command = batch_command(instances, out)
    threshold = rng.randint(5, 150)
    process = spawn(command)
    try:
        reached = wait_for(lambda: data_rows(out) >= threshold or process.poll() is not None, timeout=120)
        assert reached
        if process.poll() is not None:
            pytest.skip(f"the batch finished before {threshold} rows were written (seed {SEED})")
        kill_group(process, signal.SIGKILL)
        process.communicate(timeout=30)
        assert_group_gone(process)
    finally:
        cleanup(process)
    partial = data_rows(out)
    assert partial < N_BATCH, "the batch was not killed midway"
    assert "kept from an earlier run" in rerun_to_completion(command)
    check_complete(out, states, reference)


def test_solve_batch_interrupted_exits_130_promptly_and_a_rerun_completes(batch_setup, tmp_path):
    instances, states, reference = batch_setup
    rng = random.Random(SEED + 3)
    out = tmp_path / "interrupted.csv"
    command = batch_command(instances, out)
    threshold = rng.randint(5, 150)
    process = spawn(command)
    output = Output(process)
    try:
        assert wait_for(lambda: data_rows(out) >= threshold or process.poll() is not None, timeout=120)
        if process.poll() is not None:
            pytest.skip(f"the batch finished before {threshold} rows were written (seed {SEED})")
        interrupt_promptly(process, output,
                           "solve-batch: interrupted; the rows written so far are kept, rerun to resume\n")
        assert_group_gone(process)
    finally:
        cleanup(process)
    assert data_rows(out) < N_BATCH
    rerun_to_completion(command)
    check_complete(out, states, reference)


def test_solve_batch_terminated_leaves_no_orphans_and_no_tracebacks(batch_setup, tmp_path):
    """SIGTERM (kill PID, a scheduler's stop) to the main process only: its workers must not
    outlive it, nor print tracebacks; a rerun completes the batch."""
    instances, states, reference = batch_setup
    out = tmp_path / "terminated.csv"
    command = batch_command(instances, out)
    process = spawn(command)
    output = Output(process)
    try:
        assert wait_for(lambda: data_rows(out) >= 20 or process.poll() is not None, timeout=120)
        if process.poll() is not None:
            pytest.skip("the batch finished before it could be terminated")
        os.kill(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        _, err = output.join()
        assert_group_gone(process)
        rerun_to_completion(command)
        check_complete(out, states, reference)
        assert "Traceback" not in err, f"stderr after SIGTERM:\n{err[-1500:]}"
    finally:
        cleanup(process)


# ------------------------------------------------------------------ damaged results files are resumed

@pytest.fixture(scope="module")
def thirty(tmp_path_factory):
    """Thirty random 8-puzzles and the text of an uninterrupted run's output."""
    folder = tmp_path_factory.mktemp("faults-resume")
    path = folder / "thirty.txt"
    states = write_eight_puzzles(path, 30, 30, distances(3, 3, STANDARD_3X3))
    reference = folder / "reference.csv"
    status, _, err = call(solve_batch_main, [str(path), "--out", str(reference), "--quiet", "--jobs", "1"])
    assert status == 0, err
    return folder, path, states, reference.read_text()


@st.composite
def crash_damage(draw, text: str):
    """What crashes, restarts and a careless second run can leave: rows lost, repeated or out of
    order, solutions that no longer replay, blank lines, and a torn or zero-filled tail."""
    header, *lines = text.splitlines(keepends=True)
    columns = header.rstrip("\n").split(",")
    moves, length = columns.index("moves"), columns.index("length")
    lines = draw(st.permutations(lines)) if draw(st.booleans()) else list(lines)
    for _ in range(draw(st.integers(0, 5))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["delete", "repeat", "moves", "length", "blank"]))
        fields = lines[i].rstrip("\n").split(",")
        whole = len(fields) == len(columns)  # not a blank line inserted before
        if action == "delete":
            del lines[i]
        elif action == "repeat":
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
        elif action == "moves" and whole and fields[moves]:
            solution = fields[moves]
            fields[moves] = draw(st.sampled_from(["", "U", solution[::-1], solution[:-1], solution + "UD", "XYZ"]))
            lines[i] = ",".join(fields) + "\n"
        elif action == "length" and whole and fields[length]:
            fields[length] = str(int(fields[length]) + draw(st.sampled_from([-2, 2, 100])))
            lines[i] = ",".join(fields) + "\n"
        else:
            lines.insert(i, "\n")
    damaged = header + "".join(lines)
    tail = draw(st.sampled_from(["none", "cut", "zeros", "garbage"]))
    if tail == "cut":
        damaged = damaged[: draw(st.integers(len(header), len(damaged)))]
    elif tail == "zeros":
        damaged += "\0" * draw(st.integers(1, 4096))
    elif tail == "garbage":
        damaged += "17,solved,3,3"
    return damaged


@FUZZ
@given(data=st.data())
def test_a_damaged_results_file_is_resumed_to_every_instance_exactly_once(thirty, data):
    folder, instances, states, reference = thirty
    damaged = data.draw(crash_damage(reference))
    out = folder / "resumed.csv"
    out.write_text(damaged)
    status, _, err = call(solve_batch_main, [str(instances), "--out", str(out), "--quiet", "--jobs", "1"])
    assert status == 0, err
    assert out.read_text().count("\n") == 31
    rows = read_rows(out)
    expected = [{k: v for k, v in row.items() if k not in TIMING_FIELDS}
                for row in csv.DictReader(reference.splitlines())]
    assert rows == expected
    for row, state in zip(rows, states):
        assert replay(state, row["moves"], 3, 3) == STANDARD_3X3
