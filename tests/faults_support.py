"""Functions shared by the fault-drill tests (tests/test_faults_*.py).

Running a command in-process with its output captured, checking the one-line error rule,
an independent replay of solutions, small PDB files built into temporary folders, and
processes started in their own POSIX session (so that a signal reaches forked workers too, and
nothing is left behind).
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

from solvers.batch import TIMING_FIELDS
from tests.naive import blank_moves

BIN = Path(sys.executable).parent

# hypothesis keeps caches (unicode tables, constants) in a folder: keep it out of the repository
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "tilepdb-faults-hypothesis")

# Reproducible, modest hypothesis runs that write nothing into the repository.
FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def call(main: Callable[[list[str]], int], argv: list[str]) -> tuple[int, str, str]:
    """Run a command's main function in this process; (exit status, stdout, stderr).

    argparse's usage errors leave through SystemExit: its code is taken as the status. Any
    other exception propagates (it would be a traceback for the user).
    """
    out, err = io.StringIO(), io.StringIO()
    hook = threading.excepthook
    # pytest intercepts exceptions in threads; a user would see them printed on stderr
    threading.excepthook = threading.__excepthook__
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as leave:
                status = leave.code if isinstance(leave.code, int) else (0 if leave.code is None else 1)
    finally:
        threading.excepthook = hook
    return status, out.getvalue(), err.getvalue()


def assert_one_line_error(status: int, out: str, err: str, prog: str, *, expected: int = 2) -> str:
    """The error rule: exit status `expected`, exactly one line on stderr naming the command,
    no traceback; returns that line."""
    assert status == expected, f"exit status {status}, expected {expected}; stderr: {err!r}"
    assert "Traceback" not in err and "Exception ignored" not in err and "Exception in thread" not in err, err
    assert err.endswith("\n") and err.count("\n") == 1, f"stderr is not exactly one line: {err!r}"
    assert err.startswith(f"{prog}: "), err
    return err.rstrip("\n")


def replay(state: tuple, moves: str, rows: int, cols: int) -> tuple:
    """The state reached by blank moves, written independently of the package."""
    cells = list(state)
    delta = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
    for letter in moves:
        blank = cells.index(0)
        r, c = divmod(blank, cols)
        dr, dc = delta[letter]
        nr, nc = r + dr, c + dc
        assert 0 <= nr < rows and 0 <= nc < cols, f"move {letter} leaves the board"
        other = nr * cols + nc
        cells[blank], cells[other] = cells[other], 0
    return tuple(cells)


def bfs_distances(rows: int, cols: int, goal: tuple) -> dict[tuple, int]:
    """Exact distances to `goal` (only for small boards)."""
    distance = {goal: 0}
    frontier = [goal]
    while frontier:
        following = []
        for state in frontier:
            for nxt in blank_moves(state, rows, cols):
                if nxt not in distance:
                    distance[nxt] = distance[state] + 1
                    following.append(nxt)
        frontier = following
    return distance


def inversion_solvable(state: tuple, goal: tuple, cols: int) -> bool:
    """Classic inversion rule for odd widths: solvable iff the tiles' inversion parities agree."""
    assert cols % 2 == 1

    def parity(s):
        tiles = [t for t in s if t]
        return sum(a > b for i, a in enumerate(tiles) for b in tiles[i + 1:]) % 2

    return parity(state) == parity(goal)


def read_rows(path: Path, drop=TIMING_FIELDS) -> list[dict]:
    with open(path, newline="") as handle:
        return [{k: v for k, v in row.items() if k not in drop} for row in csv.DictReader(handle)]


def build_small_pdb(path: Path, rows: int, cols: int, patterns: list[str], goal=None, codec: str = "none") -> Path:
    """Build an additive PDB file for a small board through the API, stored with `codec`."""
    from pdb_build.build import build_pdb_file, plan_build
    from pdb_build.partitions import custom
    from solvers.puzzle import Puzzle

    puzzle = Puzzle(rows, cols, goal)
    built_path, _ = build_pdb_file(plan_build(puzzle, custom(puzzle, patterns)), path, codec=codec)
    return built_path


# ---------------------------------------------------------------- processes


def script(command: str) -> list[str]:
    """The console script `command` of the virtualenv, run by this interpreter."""
    return [sys.executable, str(BIN / command)]


def spawn(argv: list[str], **kwargs) -> subprocess.Popen:
    """Start a command in a new POSIX session (its own process group), output captured, with Ctrl-C
    at its default action even where the suite itself runs with it ignored (started in the
    background, `pytest &`, or by a job scheduler), which a child would otherwise inherit."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **kwargs.pop("env", {})}
    return subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, env=env,
        preexec_fn=_interrupts_at_default, **kwargs
    )


def _interrupts_at_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def group_members(pgid: int) -> list[tuple[int, str]]:
    """(pid, state) of every live (non-zombie) process in process group `pgid`, from /proc."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state not in ("Z", "X"):
            members.append((int(entry), state))
    return members


def wait_until_group_gone(pgid: int, timeout: float = 10.0) -> list[tuple[int, str]]:
    """Wait for every process of the group to end; returns those still alive at the timeout."""
    deadline = time.monotonic() + timeout
    while True:
        alive = group_members(pgid)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def kill_group(process: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    """Send `sig` to the process group of a process started by `spawn` (ignoring a gone group)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def cleanup(process: subprocess.Popen) -> None:
    """For finally blocks: make sure the process and its whole group are gone and reaped."""
    kill_group(process, signal.SIGKILL)
    with contextlib.suppress(Exception):
        process.communicate(timeout=10)
    wait_until_group_gone(process.pid, timeout=5)


def wait_for(predicate: Callable[[], bool], timeout: float, poll: float = 0.005) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(poll)
    return predicate()


def data_rows(path: Path) -> int:
    """Complete data lines in a CSV file that is being written (header excluded)."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError):
        return 0
    return max(text.count("\n") - 1, 0)


def write_eight_puzzles(path: Path, count: int, seed: int, exact: dict) -> list[tuple]:
    """Write `count` uniform random 8-puzzles for the standard goal, each with its optimal
    length from `exact`, as an instance file at `path`; return the states."""
    from solvers.puzzle import Puzzle

    rng = np.random.default_rng(seed)
    puzzle = Puzzle(3, 3)
    states = [tuple(int(t) for t in puzzle.random_state(rng)) for _ in range(count)]
    path.write_text("# board: 3x3\n" + "".join(f"{' '.join(map(str, s))} | {exact[s]}\n" for s in states))
    return states
