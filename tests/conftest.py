"""Shared fixtures: exhaustive distance tables of small boards, computed once per test process."""

import functools

import pytest

from tests.naive import exhaustive_distances

STANDARD_3X3 = (1, 2, 3, 4, 5, 6, 7, 8, 0)
STANDARD_2X4 = (1, 2, 3, 4, 5, 6, 7, 0)


@functools.cache
def distances(rows: int, cols: int, goal: tuple) -> dict:
    return exhaustive_distances(rows, cols, goal)


@pytest.fixture(scope="session")
def eight_puzzle_distances():
    return distances(3, 3, STANDARD_3X3)


@pytest.fixture(scope="session")
def two_by_four_distances():
    return distances(2, 4, STANDARD_2X4)


def default_forbidden() -> tuple[str, ...]:
    """The move strings that IDA* never tries by default (its default move pruning), for the naive IDA*."""
    from solvers.search.move_pruning import DEFAULT_PRUNE, PRUNE_LENGTHS, forbidden_strings

    return forbidden_strings(PRUNE_LENGTHS[DEFAULT_PRUNE])


def assert_ida_matches_naive(puzzle, heuristic, states, goal: tuple, **options) -> None:
    """IDA* with `heuristic` (and solve's `options`) from each of `states` finds the exact length
    and the same passes and counters as a naive IDA* that evaluates h on every node from
    scratch (the kernels evaluate children incrementally), both with the default move pruning,
    and both with BPMX where the search applied it (with the same counts of its raises and
    cutoffs)."""
    import numpy as np

    from solvers.solve import solve
    from tests.naive import ida_star_counts

    exact = distances(puzzle.rows, puzzle.cols, goal)
    for state in states:
        result = solve(puzzle, np.array(state, dtype=np.uint8), "ida", heuristic, **options)
        fired = []
        length, passes = ida_star_counts(state, goal, puzzle.rows, puzzle.cols,
                                         lambda s: heuristic(np.array(s, dtype=np.uint8)), forbidden=default_forbidden(),
                                         complete=options.get("full_last_iteration", False), bpmx=result.bpmx,
                                         bpmx_counts=fired)
        assert result.length == length == exact[state], state
        assert [(p.bound, p.nodes_expanded, p.nodes_generated) for p in result.iterations] == passes, state
        assert [result.bpmx_raises, result.bpmx_cutoffs] == (fired or [0, 0]), state


def run_on_a_terminal(args: list[str], env: dict | None = None, timeout: float = 600) -> tuple[int, str, str]:
    """Run `args` with stderr on a pseudo-terminal, as at a user's terminal (progress bars and
    notices are drawn there), and stdout a pipe; returns (exit status, stdout, what reached the
    terminal). For commands whose stdout is short: it is read once the command ends."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import termios

    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 24 rows of 100 columns
    try:
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=side, env=env)
        os.close(side)
        side = None
        shown = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal's other side closed with the process
                break
            if not chunk:
                break
            shown += chunk
        out = process.stdout.read()
        status = process.wait(timeout)
    finally:
        os.close(main)
        if side is not None:
            os.close(side)
    return status, out.decode(), shown.decode(errors="replace")
