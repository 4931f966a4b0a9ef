"""Fault drill, signals: Ctrl-C (SIGINT) and SIGTERM stop every algorithm promptly with exit status
130 and one line, A* and BFS included (their kernels run in a worker thread and watch a stop
flag), the anytime search prints its best solution first, and solve-batch --jobs 1 keeps the
rows written so far; every command says the same one line while it starts (importing its
modules) and after it has finished (while the process shuts down)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.faults_support import cleanup, data_rows, kill_group, script, spawn, wait_for

ROOT = Path(__file__).resolve().parents[1]

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


def catches_sigterm(pid: int) -> bool:
    """Whether process `pid` has a handler for SIGTERM: the first thing a command installs
    (solvers/entry.py), before it imports anything heavy; Python itself handles only SIGINT."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            caught = next(line for line in handle if line.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return False
    return bool(int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1)


def maps_library(pid: int, name: str) -> bool:
    """Whether process `pid` has a file whose path holds `name` mapped (a shared library loaded)."""
    with open(f"/proc/{pid}/maps") as handle:
        return name in handle.read()


def interrupted_at_start(argv: list[str], sig: int, moment: float) -> tuple[int, str]:
    """Start a command and send it `sig` `moment` seconds after its start, or once it has
    installed its handlers if that is later (the interpreter's own start-up comes before: Python's,
    not the command's); its exit status and stderr. The handlers must come before the command's
    heavy imports: numba's compiler library is not loaded yet when they are in place."""
    started = time.monotonic()
    process = spawn(argv)
    try:
        assert wait_for(lambda: catches_sigterm(process.pid), timeout=60), "the command never installed its handlers"
        assert not maps_library(process.pid, "llvmlite"), "the handlers came after the heavy imports"
        time.sleep(max(0.0, started + moment - time.monotonic()))
        assert process.poll() is None, "the command ended before the signal"
        kill_group(process, sig)
        _, err = process.communicate(timeout=60)
    finally:
        cleanup(process)
    return process.returncode, err


@pytest.mark.parametrize("sig, moment", [(signal.SIGINT, 0.0), (signal.SIGINT, 0.05), (signal.SIGINT, 0.1),
                                         (signal.SIGINT, 0.2), (signal.SIGINT, 0.4), (signal.SIGTERM, 0.05),
                                         (signal.SIGTERM, 0.2)])
def test_a_signal_while_solve_puzzle_starts_is_one_line_and_status_130(sig, moment):
    """Within its first second solve-puzzle imports numpy, numba and its modules, then parses its
    options; the signal lands in any of them."""
    status, err = interrupted_at_start(script("solve-puzzle") + [KORF_1, "--goal", KORF_GOAL, "--heuristic",
                                                                 "manhattan"], sig, moment)
    assert status == 130, err[-800:]
    assert err == "solve-puzzle: interrupted\n", err[-800:]


@pytest.mark.parametrize("command, arguments", [
    ("solve-batch", ["{data}/korf100.txt", "--heuristic", "manhattan", "--jobs", "1", "--out", "{tmp}/rows.csv"]),
    ("compare-heuristics", ["--instances", "{data}/korf100.txt", "--heuristic", "manhattan", "--out", "{tmp}/report"]),
    ("make-instances", ["--board", "3x4", "--count", "100000", "--out", "{tmp}/instances.txt"]),
    ("learn-heuristic", ["--board", "3x3", "--features", "manhattan", "--out", "{tmp}/model.h5"]),
    ("build-pdb", ["--board", "4x4", "--pattern", "1,2,3,4,5,6,7", "--out", "{tmp}/tables.h5"]),
    ("verify-pdb", ["{tmp}/tables.h5"]),
])
def test_ctrl_c_while_any_command_starts_is_one_line_and_status_130(tmp_path, command, arguments):
    argv = script(command) + [a.format(data=ROOT / "data", tmp=tmp_path) for a in arguments] + ["--quiet"] * (
        command != "verify-pdb")
    status, err = interrupted_at_start(argv, signal.SIGINT, 0.1)
    assert status == 130, err[-800:]
    assert err == f"{command}: interrupted\n", err[-800:]  # not yet the body's line (solve-batch's, build-pdb's)
    assert list(tmp_path.iterdir()) == []


# solve-puzzle run through its console script's function, a signal sent by the process to itself
# from its last exit callback: after the command has printed its result, while Python shuts down.
AT_EXIT = textwrap.dedent("""
    import atexit, os, sys, time
    from solvers import entry

    sent = int(sys.argv.pop(1))

    def interrupt_while_shutting_down():
        os.kill(os.getpid(), sent)
        time.sleep(10)  # the handler runs here

    atexit.register(interrupt_while_shutting_down)
    sys.exit(entry.solve_puzzle_main())
""")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_after_a_command_finished_is_one_line_and_status_130(sig):
    process = spawn([sys.executable, "-c", AT_EXIT, str(int(sig)), "1 2 3 0", "--board", "2x2", "--heuristic",
                     "manhattan"], cwd=ROOT)
    try:
        out, err = process.communicate(timeout=120)
    finally:
        cleanup(process)
    assert "length     0" in out  # printed and flushed before the interrupt
    assert process.returncode == 130, err[-800:]
    assert err == "solve-puzzle: interrupted\n", err[-800:]
