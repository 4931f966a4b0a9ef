"""Fault drill, limits: node and time limits end searches cleanly (solve-puzzle exit 3, solve-batch
rows `gave_up`), promptly, on every algorithm that documents them; builds that cannot fit in
memory are refused up front naming needed and available memory; a full disk is a one-line
error that leaves no partial output behind.
"""

from __future__ import annotations

import json
import re
import resource
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pdb_build.build import plan_build
from pdb_build.cli import build_pdb_main
from pdb_build.partitions import custom, preset
from solvers.cli import solve_batch_main, solve_puzzle_main
from solvers.errors import InputError
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests.faults_support import FUZZ, assert_one_line_error, call, read_rows, script

HARD_8 = ["8 6 7 2 5 4 3 0 1", "6 4 7 8 5 0 3 2 1"]  # 31 moves each from the default goal
KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 57 moves from the blank-first goal
KORF_GOAL = " ".join(map(str, range(16)))


# ------------------------------------------------------------------ solve-puzzle

@pytest.mark.parametrize("algorithm", ["ida", "astar", "bfs", "iddfs", "dfs"])
def test_a_node_limit_ends_every_algorithm_with_status_3(algorithm):
    status, out, err = call(solve_puzzle_main, [HARD_8[0], "--algorithm", algorithm, "--node-limit", "500", "--json"])
    assert status == 3 and err == "", (status, err)
    record = json.loads(out)
    assert record["status"] == "gave_up" and record["length"] is None and not record["moves"]


def test_a_node_limit_of_one_is_a_limit():
    """--node-limit 1 on a position two moves away: one node may be expanded, so the search gives up."""
    status, out, _err = call(solve_puzzle_main, ["1 2 3 4 5 6 0 7 8", "--heuristic", "zero", "--node-limit", "1", "--json"])
    record = json.loads(out)
    assert status == 3 and record["nodes_expanded"] <= 1, (
        f"status {status}, {record['nodes_expanded']} nodes expanded with --node-limit 1")


@st.composite
def shallow_states(draw):
    """A solvable 8-puzzle at most 14 moves from the goal (a random walk), so that even an
    unlimited search is quick."""
    puzzle = Puzzle(3, 3)
    state = puzzle.goal.copy()
    for letter in draw(st.lists(st.sampled_from("UDLR"), max_size=14)):
        try:
            state = puzzle.replay(state, letter)
        except InputError:
            pass
    return tuple(int(t) for t in state)


@FUZZ
@given(state=shallow_states(), limit=st.integers(1, 400),
       heuristic=st.sampled_from(["zero", "hamming", "manhattan", "linear-conflict"]),
       algorithm=st.sampled_from(["ida", "iddfs"]))
def test_a_node_limit_is_never_exceeded(state, limit, heuristic, algorithm):
    """Whatever the limit, a search expands at most that many nodes: it solves within it or gives up."""
    puzzle = Puzzle(3, 3)
    start = np.array(state, dtype=np.uint8)
    if algorithm == "iddfs":
        assume(heuristic == "zero")
    result = solve(puzzle, start, algorithm, heuristic, node_limit=limit)
    assert result.status in ("solved", "gave_up")
    assert result.nodes_expanded <= limit, (
        f"{algorithm}/{heuristic}: {result.nodes_expanded} nodes expanded with a limit of {limit} ({result.status})")


def test_a_time_limit_ends_ida_promptly_with_status_3():
    began = time.monotonic()
    status, out, err = call(solve_puzzle_main, [KORF_1, "--goal", KORF_GOAL, "--heuristic", "manhattan",
                                                "--time-limit", "0.3"])
    assert status == 3 and err == "" and "gave up    time limit of 0.3 s" in out, (status, out, err)
    assert time.monotonic() - began < 15  # hours without the limit; the margin is for a cold compile


def test_a_time_limit_bounds_an_8x8_puzzle():
    """A random 8x8 position is far beyond IDA*; the time limit must still end it."""
    puzzle = Puzzle(8, 8)
    start = puzzle.random_state(np.random.default_rng(5))
    began = time.monotonic()
    status, _out, err = call(solve_puzzle_main, [" ".join(map(str, start)), "--time-limit", "0.5"])
    assert status == 3 and err == "", (status, err)
    assert time.monotonic() - began < 15  # a cold compile included


@pytest.mark.parametrize("algorithm", ["iddfs", "dfs"])
def test_a_time_limit_ends_iddfs_and_dfs_too(algorithm):
    """README: --time-limit S gives up after S seconds (every search). Run in a process of its
    own with a timeout, since an ignored limit means a long search."""
    argv = [sys.executable, "-m", "solvers.cli", HARD_8[0], "--algorithm", algorithm, "--time-limit", "0.2"]
    if algorithm == "dfs":
        argv += ["--depth-limit", "60"]
    began = time.monotonic()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=6, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{algorithm} with --time-limit 0.2 was still searching after 6 s")
    took = time.monotonic() - began
    assert done.returncode == 3 and "time limit" in done.stdout, (
        f"{algorithm} with --time-limit 0.2 ended with status {done.returncode} after {took:.1f} s: "
        f"{done.stdout.strip().splitlines()[2:4]}")


# ------------------------------------------------------------------ solve-batch

@pytest.fixture
def hard_file(tmp_path):
    path = tmp_path / "hard.txt"
    # the easy one first (with workers, the first instance is also used to warm the kernels up)
    path.write_text("# board: 3x3\n1 2 3 4 5 6 7 0 8 | 1\n" + "".join(f"{s} | 31\n" for s in HARD_8))
    return path


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_batch_node_limits_are_gave_up_rows(hard_file, tmp_path, jobs):
    out = tmp_path / "nodes.csv"
    status, stdout, err = call(solve_batch_main, [str(hard_file), "--out", str(out), "--quiet", "--jobs", jobs,
                                                  "--node-limit", "200"])
    assert status == 3, (status, err)
    assert "error" not in err.lower() and "MISMATCH" not in err and "Traceback" not in err, err
    rows = read_rows(out)
    assert [r["status"] for r in rows] == ["solved", "gave_up", "gave_up"]
    assert all(r["length"] == "" and r["moves"] == "" for r in rows[1:])
    assert rows[0]["length"] == "1"
    assert "instances 3: 1 solved, 2 not solved" in stdout


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_batch_time_limits_are_gave_up_rows_and_prompt(hard_file, tmp_path, jobs):
    out = tmp_path / "time.csv"
    began = time.monotonic()
    status, _stdout, err = call(solve_batch_main, [str(hard_file), "--out", str(out), "--quiet", "--jobs", jobs,
                                                  "--heuristic", "zero", "--time-limit", "0.05"])
    took = time.monotonic() - began
    assert status == 3 and "Traceback" not in err and "MISMATCH" not in err, (status, err)
    rows = read_rows(out, drop=())
    assert [r["status"] for r in rows] == ["solved", "gave_up", "gave_up"]
    assert all(float(r["seconds"]) < 1.0 for r in rows), [r["seconds"] for r in rows]
    assert took < 10, f"a batch of 3 instances with --time-limit 0.05 took {took:.1f} s"


def test_batch_time_limits_hold_for_a_hard_first_instance_with_workers(tmp_path):
    """With workers, every instance (the first included) must stop at the time limit: a
    15-puzzle with the zero heuristic would otherwise search for hours."""
    path = tmp_path / "fifteen.txt"
    path.write_text(f"# board: 4x4\n# goal: {KORF_GOAL}\n{KORF_1} | 57\n{KORF_1} | 57\n")
    out = tmp_path / "fifteen.csv"
    command = [*script("solve-batch"), str(path), "--out", str(out), "--quiet", "--jobs", "2",
               "--heuristic", "zero", "--time-limit", "0.2"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=8, start_new_session=True, check=False)
    except subprocess.TimeoutExpired:
        pytest.fail("solve-batch --jobs 2 --time-limit 0.2 was still running after 8 s")
    assert done.returncode == 3, done.stderr[-800:]
    assert [r["status"] for r in read_rows(out)] == ["gave_up", "gave_up"]


def test_batch_of_unsolvable_instances_is_not_an_error(tmp_path):
    path = tmp_path / "unsolvable.txt"
    path.write_text("1 2 3 4 5 6 8 7 0\n2 1 3 4 5 6 7 8 0\n")
    out = tmp_path / "unsolvable.csv"
    status, _, err = call(solve_batch_main, [str(path), "--out", str(out), "--quiet", "--jobs", "1"])
    assert status == 3 and err == "", err
    assert [r["status"] for r in read_rows(out)] == ["unsolvable", "unsolvable"]


# ------------------------------------------------------------------ memory

def assert_memory_refusal(line: str):
    match = re.search(r"needs about ([0-9.]+) (MiB|GiB) of memory but only ([0-9.]+) (MiB|GiB) is available", line)
    assert match, line
    scale = {"MiB": 2**20, "GiB": 2**30}
    assert float(match.group(1)) * scale[match.group(2)] > float(match.group(3)) * scale[match.group(4)]


def test_a_build_that_cannot_fit_is_refused_up_front(tmp_path):
    target = tmp_path / "huge.h5"
    began = time.monotonic()
    status, out, err = call(build_pdb_main, ["--board", "5x5", "--pattern", "1,2,3,4,5,6,7,8", "--out", str(target),
                                             "--quiet"])
    assert time.monotonic() - began < 5, "the refusal was not up front"
    assert_memory_refusal(assert_one_line_error(status, out, err, "build-pdb"))
    assert not target.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("board, preset_name, available", [("4x4", "7-8", 2**30), ("4x4", "6-6-3", 2**20)])
def test_memory_checks_use_what_is_available_now(tmp_path, monkeypatch, board, preset_name, available):
    monkeypatch.setattr("pdb_build.bfs.available_memory", lambda: available)
    target = tmp_path / "small-memory.h5"
    began = time.monotonic()
    status, out, err = call(build_pdb_main, ["--board", board, "--preset", preset_name, "--out", str(target), "--quiet"])
    assert time.monotonic() - began < 10
    assert_memory_refusal(assert_one_line_error(status, out, err, "build-pdb"))
    assert not target.exists()
    rows, cols = map(int, board.split("x"))
    with pytest.raises(InputError, match="(MiB|GiB) is available"):
        plan_build(Puzzle(rows, cols), preset(Puzzle(rows, cols), preset_name))


def test_too_many_tiles_in_a_pattern_is_refused_before_memory(tmp_path):
    status, out, err = call(build_pdb_main, ["--board", "4x4", "--pattern", "1,2,3,4,5,6,7,8,9", "--out",
                                             str(tmp_path / "nine.h5"), "--quiet"])
    assert "1 to 8 tiles" in assert_one_line_error(status, out, err, "build-pdb")
    with pytest.raises(InputError):
        plan_build(Puzzle(4, 4), custom(Puzzle(4, 4), ["1,2,3,4,5,6,7,8,9"]))


# ------------------------------------------------------------------ a full disk

def _file_size_limit(limit: int):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes beyond the limit fail with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_build_pdb_on_a_full_disk_is_a_one_line_error_and_leaves_nothing(tmp_path):
    """A write that fails (here: a file-size limit standing in for a full disk) must end as
    `build-pdb: error: cannot write ...` with status 2, no file at the target and no temporary."""
    target = tmp_path / "full-disk.h5"
    done = subprocess.run([*script("build-pdb"), "--board", "4x4", "--pattern", "1,2,3,4,5", "--pattern", "6,7,8",
                           "--out", str(target), "--quiet"], capture_output=True, text=True, timeout=120,
                          preexec_fn=_file_size_limit(20_000), check=False)
    assert list(tmp_path.iterdir()) == [], f"left behind: {list(tmp_path.iterdir())}"
    assert done.returncode == 2, f"status {done.returncode}; stderr: {done.stderr[-1200:]}"
    line = assert_one_line_error(done.returncode, done.stdout, done.stderr, "build-pdb")
    assert "cannot write" in line and str(target) in line


def test_solve_batch_on_a_full_disk_is_a_one_line_error_and_resumable(tmp_path):
    instances = tmp_path / "forty.txt"
    puzzle = Puzzle(3, 3)
    rng = np.random.default_rng(3)
    instances.write_text("".join(" ".join(map(str, puzzle.random_state(rng))) + "\n" for _ in range(40)))
    out = tmp_path / "full.csv"
    command = [*script("solve-batch"), str(instances), "--out", str(out), "--quiet", "--jobs", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, preexec_fn=_file_size_limit(2_000),
                          check=False)
    rerun = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert rerun.returncode == 0, rerun.stderr[-800:]
    assert sorted(int(r["id"]) for r in read_rows(out)) == list(range(1, 41))
    assert done.returncode == 2, f"status {done.returncode}; stderr: {done.stderr[-1200:]}"
    line = assert_one_line_error(done.returncode, done.stdout, done.stderr, "solve-batch")
    assert str(out) in line
