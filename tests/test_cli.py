"""solve-puzzle as a user runs it: output, JSON, exit statuses, one-line errors."""

import json
import os
import subprocess
import sys

import pytest

from solvers.cli import solve_puzzle_main
from tests.conftest import run_on_a_terminal

KORF_GOAL = " ".join(map(str, range(16)))


def run(*args):
    """Run solve-puzzle in a fresh interpreter; returns (exit status, stdout, stderr)."""
    done = subprocess.run(
        [sys.executable, "-m", "solvers.cli", *args], capture_output=True, text=True, timeout=300
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "args, length",
    [
        (["1 2 3 4 6 8 7 5 0"], 4),
        (["--board", "4x3", "1 3 0 4 2 6 7 5 8 10 11 9"], 5),
        (["2 8 3 1 6 4 7 0 5", "--goal", "1 2 3 8 0 4 7 6 5"], 5),
        (["8 6 7 2 5 4 3 0 1", "--algorithm", "astar", "--heuristic", "manhattan"], 31),
        (["14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "--goal", KORF_GOAL, "--heuristic", "linear-conflict"], 57),
    ],
)
def test_json_output_reports_the_optimal_length(args, length, capsys):
    assert solve_puzzle_main([*args, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["solvable"] is True and record["length"] == length and len(record["moves"]) == length
    assert record["nodes_expanded"] > 0 and record["seconds"] >= 0


def test_text_output_and_boards(capsys):
    assert solve_puzzle_main(["1 2 3 4 6 8 7 5 0", "--show-boards"]) == 0
    out = capsys.readouterr().out
    assert "length     4 (optimal)" in out and "moves      ULDR" in out
    assert out.rstrip().endswith("1 2 3\n4 5 6\n7 8 .")


def test_unsolvable_exits_1_with_a_message():
    status, out, err = run("1 2 3 4 6 8 5 7 0")
    assert status == 1 and "unsolvable" in out and err == ""


def test_unsolvable_json(capsys):
    assert solve_puzzle_main(["1 2 3 4 6 8 5 7 0", "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["solvable"] is False and record["length"] is None


@pytest.mark.parametrize(
    "args, message",
    [
        (["1 2 3 4 5 6 7 8"], "cannot infer the board"),
        (["1 2 2 4 5 6 7 8 0"], "tile 2 appears twice"),
        (["1 2 3 4 5 6 7 8 0", "--board", "9x9"], "board 9x9 is not supported"),
        (["1 2 3 4 5 6 7 8 0", "--heuristic", "euclid"], "unknown heuristic"),
        (["1 2 3 4 5 6 7 8 0", "--algorithm", "dijkstra"], "invalid choice"),
        (["1 2 3 4 5 6 7 8 0", "--prune", "all"], "invalid choice"),
        (["1 2 3 4 5 6 7 8 0", "--algorithm", "astar", "--prune", "fsm"], "apply to ida and wida only, not to astar"),
        (["1 2 3 4 5 6 7 8 0", "--node-limit", "-5"], "must be positive"),
        (["1 2 3 4 5 6 7 8 0", "--goal", "1 2 3"], "goal has 3 tiles"),
        (["1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 16 17 18 19 20 21 22 23 24", "--algorithm", "bfs", "--node-limit",
          str(1 << 60)], "of memory but only"),
        ([], "the following arguments are required"),
    ],
)
def test_invalid_input_exits_2_with_one_line_and_no_traceback(args, message):
    status, out, err = run(*args)
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_limit_reached_exits_3(capsys):
    args = ["14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", "--goal", KORF_GOAL, "--node-limit", "1000"]
    assert solve_puzzle_main(args) == 3
    assert "gave up    node limit of 1,000" in capsys.readouterr().out


def test_prune_and_full_last_iteration_are_reported(capsys):
    """Each prune mode finds the optimal 31 moves; the JSON record and the text say how ida
    searched, and completing the last iteration counts more nodes."""
    records = {}
    for mode in ("none", "parent", "fsm"):
        for full in ([], ["--full-last-iteration"]):
            assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--heuristic", "manhattan", "--prune", mode, *full, "--json"]) == 0
            records[mode, bool(full)] = json.loads(capsys.readouterr().out)
    assert {r["length"] for r in records.values()} == {31}
    assert all(r["prune"] == mode and r["full_last_iteration"] == full for (mode, full), r in records.items())
    assert records["fsm", True]["nodes_generated"] < records["parent", True]["nodes_generated"] \
        < records["none", True]["nodes_generated"]
    assert records["fsm", True]["nodes_generated"] > records["fsm", False]["nodes_generated"]
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--heuristic", "manhattan", "--full-last-iteration"]) == 0
    assert "generated (move pruning fsm, last iteration completed)" in capsys.readouterr().out


def test_an_unexpected_exception_is_reported_as_a_bug_with_its_traceback(capsys):
    from solvers.cli_support import EXIT_BUG, run_guarded

    def broken():
        raise ZeroDivisionError("a bug")

    assert run_guarded("solve-puzzle", broken) == EXIT_BUG
    err = capsys.readouterr().err
    assert "Traceback" in err and "ZeroDivisionError: a bug" in err
    assert err.splitlines()[-1] == ("solve-puzzle: internal error: this is a bug in tilepdb; "
                                    "please report it with the traceback above")


def test_quiet_keeps_the_terminal_free_of_the_compile_notice_never_of_the_result(tmp_path):
    """From an empty kernel cache, at a terminal: without --quiet the first compile is announced
    there; with --quiet the terminal stays empty and the result is printed all the same."""
    args = [sys.executable, "-m", "solvers.cli", "8 6 7 2 5 4 3 0 1", "--heuristic", "manhattan"]
    for quiet in (False, True):
        cache = tmp_path / f"cache-{quiet}"
        status, out, shown = run_on_a_terminal([*args, *(["--quiet"] if quiet else [])],
                                               env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
        assert status == 0 and "length     31 (optimal)" in out
        assert list(cache.rglob("*.nbi"))  # it did compile
        assert (shown == "") == quiet, shown


@pytest.mark.parametrize("jobs", ["--jobs", "--threads"])
def test_jobs_runs_ida_on_threads_and_threads_is_still_read(jobs, capsys):
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--heuristic", "manhattan", jobs, "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["length"] == 31


def test_the_anytime_report_names_only_the_settings_that_applied(capsys):
    """Beams take no weight and no tie-breaking: the report and the JSON record name neither,
    but the way the search improved; its weighted runs name their weight."""
    common = ["8 6 7 2 5 4 3 0 1", "--algorithm", "anytime", "--heuristic", "manhattan"]
    assert solve_puzzle_main(common) == 0
    out = capsys.readouterr().out
    assert "algorithm  anytime (beams), heuristic manhattan\n" in out and "weight" not in out
    assert solve_puzzle_main([*common, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["improve"] == "beams" and "weight" not in record and "tie_break" not in record
    assert solve_puzzle_main([*common, "--improve", "weights", "--weight", "3"]) == 0
    assert "algorithm  anytime (weights), heuristic manhattan, weight 3\n" in capsys.readouterr().out
    assert solve_puzzle_main([*common, "--improve", "weights", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["improve"], record["weight"], record["tie_break"]) == ("weights", 2.0, "auto")
    assert solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "wastar", "--heuristic", "manhattan"]) == 0
    assert "algorithm  wastar, heuristic manhattan, weight 2\n" in capsys.readouterr().out
