"""Fault drill, signals during a search: Ctrl-C (SIGINT) and SIGTERM stop every algorithm promptly
with exit status 130 and one line, A* and BFS included (their kernels run in a worker thread and
watch a stop flag), the anytime search prints its best solution first, and solve-batch --jobs 1
keeps the rows written so far."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.faults_support import data_rows, kill_group, script, spawn, wait_for

KORF_GOAL = " ".join(map(str, range(16)))
KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 57 moves: every algorithm here runs for many seconds


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("algorithm, heuristic", [("astar", "manhattan"), ("bfs", "zero"), ("ida", "hamming"),
                                                  ("iddfs", "zero")])
def test_a_search_stops_promptly_with_status_130(algorithm, heuristic, sig):
    process = spawn(script("solve-puzzle") + [KORF_1, "--goal", KORF_GOAL, "--algorithm", algorithm,
                                              "--heuristic", heuristic])
    try:
        time.sleep(4)  # past start-up and compilation, inside the kernel
        if process.poll() is not None:
            pytest.skip(f"{algorithm} ended before the signal ({process.returncode})")
        sent = time.monotonic()
        kill_group(process, sig)
        _, err = process.communicate(timeout=30)
        elapsed = time.monotonic() - sent
    finally:
        if process.poll() is None:
            kill_group(process)
    assert process.returncode == 130, err[-800:]
    assert err == "solve-puzzle: interrupted\n", err[-800:]
    assert elapsed < 5, f"{algorithm} took {elapsed:.1f} s to stop"


# solve-puzzle's anytime search, the signal sent by the process to itself half a second after its
# first run (the staged solver) returned: inside the second run, made A* (seconds long, and
# nothing shorter before its end), whatever the time a loaded machine takes before; the search
# improves by weights, so that the best-first kernel is compiled before its clock starts, as the
# kernels of the runs it makes always are (a signal inside the compiler leaves llvmlite's objects
# half made, and their finalizers print to stderr).
ANYTIME = textwrap.dedent("""
    import os, signal, sys, threading
    from solvers.cli import solve_puzzle_main
    from solvers.search import anytime

    real = anytime.one_run

    def first_then_signal(puzzle, start, heuristic, run, shorter_than, **limits):
        if run != anytime.FIRST_RUN:
            return real(puzzle, start, heuristic, ("wastar", 1.0), shorter_than, **limits)
        result = real(puzzle, start, heuristic, run, shorter_than, **limits)
        with open(sys.argv[2], "w") as first:
            first.write(result.moves)
        threading.Timer(0.5, os.kill, (os.getpid(), int(sys.argv[1]))).start()
        return result

    anytime.one_run = first_then_signal
    sys.exit(solve_puzzle_main(sys.argv[3:]))
""")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_the_anytime_search_prints_its_best_solution_then_exits_130(tmp_path, sig):
    first = tmp_path / "first.txt"
    process = spawn([sys.executable, "-c", ANYTIME, str(int(sig)), str(first), KORF_1, "--goal", KORF_GOAL,
                     "--algorithm", "anytime", "--improve", "weights", "--weight", "1.5", "--heuristic", "manhattan",
                     "--json"],
                    cwd=Path(__file__).resolve().parents[1])
    try:
        out, err = process.communicate(timeout=180)
    finally:
        if process.poll() is None:
            kill_group(process)
    assert process.returncode == 130, err[-800:]
    assert err == "solve-puzzle: interrupted\n", err[-800:]
    record = json.loads(out)
    assert (record["status"], record["interrupted"], record["optimal"]) == ("solved", True, False)
    assert record["moves"] == first.read_text() and [length for length, _ in record["found"]] == [record["length"]]
    assert record["lower_bound"] <= 57  # Korf's first instance takes 57 moves


def test_solve_batch_with_one_job_keeps_its_rows_when_interrupted(tmp_path):
    instances = tmp_path / "korf.txt"
    text = open("data/korf100.txt").read()
    instances.write_text(text)
    out = tmp_path / "rows.csv"
    process = spawn(script("solve-batch") + [str(instances), "--heuristic", "manhattan", "--jobs", "1",
                                             "--out", str(out), "--quiet"])
    try:
        assert wait_for(lambda: out.exists() and data_rows(out) >= 1, timeout=120), "no row was written"
        kill_group(process, signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            kill_group(process)
    assert process.returncode == 130, err[-800:]
    assert err.endswith("interrupted; the rows written so far are kept, rerun to resume\n"), err[-800:]
    assert data_rows(out) >= 1


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    """`solve-puzzle ... | true` (the reader is gone before the first line): no BrokenPipeError
    traceback, status 141 (128 + SIGPIPE)."""
    command = " ".join(f"'{part}'" for part in script("solve-puzzle")) + " '8 6 7 2 5 4 3 0 1' --show-boards"
    err = tmp_path / "err.txt"
    done = subprocess.run(["bash", "-c", f"set -o pipefail; {command} 2>{err} | true"], capture_output=True,
                          text=True, timeout=120)
    assert err.read_text() == ""
    assert done.returncode == 141


def test_children_get_ctrl_c_even_when_the_suite_runs_with_it_ignored():
    """A suite started in the background inherits SIGINT ignored; the drills' children must not."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        child = spawn([sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT).__name__)"])
    finally:
        signal.signal(signal.SIGINT, previous)
    out, _ = child.communicate(timeout=60)
    assert out.strip() == "default_int_handler"
