"""Compiling ahead (python -m solvers.compile_ahead): what it compiled is what a later command
finds in the cache, so that command compiles nothing; a name it does not know is refused."""

import os
import subprocess
import sys

START = "8 6 7 2 5 4 3 0 1"


def _run(cache, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], env={**os.environ, "TILEPDB_KERNEL_CACHE": str(cache)},
                          capture_output=True, text=True, timeout=600)


def test_a_command_after_compiling_ahead_compiles_nothing(tmp_path):
    ahead = _run(tmp_path, "-m", "solvers.compile_ahead", "--search", "ida", "--heuristic", "linear-conflict")
    assert ahead.returncode == 0, ahead.stderr
    assert ahead.stdout.startswith("3 steps compiled or found their kernels in ")
    solved = _run(tmp_path, "-m", "solvers.cli", START, "--heuristic", "linear-conflict", "--verbose")
    assert solved.returncode == 0 and "length     31 (optimal)" in solved.stdout
    assert solved.stderr == ""  # no compile notice: nothing left to compile
    other = _run(tmp_path, "-m", "solvers.cli", START, "--heuristic", "walking-distance", "--verbose")
    assert other.stderr.startswith("solve-puzzle: compiling this heuristic's evaluations (once, about ")
    assert "search kernels" not in other.stderr  # only the heuristic was not compiled ahead


def test_an_unknown_search_is_refused_in_one_line(tmp_path):
    done = _run(tmp_path, "-m", "solvers.compile_ahead", "--search", "nosuch")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "nosuch" in done.stderr
