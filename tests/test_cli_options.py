"""The options the seven commands share, as --help shows them and as the commands read them: one
name for what runs at once (--jobs, the former --threads still read), --quiet everywhere with one
help, limits that say they hold per instance, every option listed once, helps that fit a
terminal and point to the guide where a list would not."""

import argparse
import re
from pathlib import Path

import pytest

from pdb_build.cli import build_pdb_parser, verify_pdb_parser
from solvers.cli import (
    compare_heuristics_parser,
    learn_heuristic_parser,
    make_instances_parser,
    solve_batch_parser,
    solve_puzzle_parser,
)
from solvers.cli_support import QUIET_HELP
from solvers.commands.options import search_options
from solvers.instances import load_instances, packaged_sets
from solvers.puzzle import Puzzle
from solvers.search.registry import searches

ROOT = Path(__file__).resolve().parent.parent
PARSERS = {"solve-puzzle": solve_puzzle_parser, "solve-batch": solve_batch_parser, "build-pdb": build_pdb_parser,
           "verify-pdb": verify_pdb_parser, "compare-heuristics": compare_heuristics_parser,
           "learn-heuristic": learn_heuristic_parser, "make-instances": make_instances_parser}
START = "8 6 7 2 5 4 3 0 1"


def _option(parser, flag: str):
    (action,) = [a for a in parser._actions if flag in a.option_strings]
    return action


def _help(name: str, monkeypatch) -> str:
    """`name --help` as a terminal of 100 columns shows it."""
    monkeypatch.setenv("COLUMNS", "100")
    return PARSERS[name]().format_help()


@pytest.mark.parametrize("name", PARSERS)
def test_every_option_is_listed_once_in_the_usage_and_once_below_it(name, monkeypatch):
    """Every flag but a former name appears once in the usage and heads one entry of the list;
    other mentions ("unless --quiet") are words of another option's help."""
    text = _help(name, monkeypatch)
    usage, listing = text.split("\n\n", 1)
    shown = [a.option_strings[-1] for a in PARSERS[name]()._actions
             if a.option_strings and a.help != argparse.SUPPRESS]
    in_usage = re.findall(r"[\[(| ](--[a-z][a-z-]*)", usage)
    entries = re.findall(r"^  (?:-\w, )?(--[a-z][a-z-]*)", listing, flags=re.MULTILINE)
    assert sorted(entries) == sorted(shown)
    assert sorted(in_usage) == sorted(f for f in shown if f != "--help")


@pytest.mark.parametrize("name", PARSERS)
def test_every_help_fits_in_100_columns(name, monkeypatch):
    assert max(map(len, _help(name, monkeypatch).splitlines())) <= 100


@pytest.mark.parametrize("name", PARSERS)
def test_every_command_takes_quiet_with_the_same_help(name):
    parser = PARSERS[name]()
    assert _option(parser, "--quiet").help == QUIET_HELP
    assert "progress bars" in QUIET_HELP and "results, warnings and errors are printed" in QUIET_HELP


def test_jobs_says_what_runs_at_once_and_solve_puzzle_still_reads_threads(monkeypatch):
    """solve-puzzle's --jobs is IDA*'s threads (the search keyword `threads`); --threads, its
    former name, still works but is no longer listed. solve-batch's --jobs is its worker
    processes, one instance each."""
    puzzle = solve_puzzle_parser()
    assert search_options(puzzle.parse_args([START, "--jobs", "3"])) == {"threads": 3}
    assert search_options(puzzle.parse_args([START, "--threads", "3"])) == {"threads": 3}
    assert search_options(puzzle.parse_args([START])) == {}
    assert "--threads" not in _help("solve-puzzle", monkeypatch)
    assert "threads" in _option(puzzle, "--jobs").help and "tree" in _option(puzzle, "--jobs").help
    batch = _option(solve_batch_parser(), "--jobs").help
    assert "worker processes" in batch and "one instance" in batch
    for name in ("solve-puzzle", "solve-batch"):
        assert "--jobs workers" in _option(PARSERS[name](), "--cluster").help


@pytest.mark.parametrize("name", ["solve-puzzle", "solve-batch"])
def test_the_limits_say_they_hold_per_instance(name):
    parser = PARSERS[name]()
    for flag in ("--time-limit", "--node-limit"):
        assert "per instance" in _option(parser, flag).help, flag


@pytest.mark.parametrize("name", [n for n in PARSERS if n != "verify-pdb"])
def test_the_goal_help_says_the_default_and_gives_the_blank_first_goal_of_the_packaged_sets(name):
    """The goal quoted in --help, copied as it stands, is the goal of Korf's 100 and of every
    packaged 4x4 set."""
    text = _option(PARSERS[name](), "--goal").help
    assert "blank last" in text and "blank first" in text
    (quoted,) = re.findall(r"--goal ([0-9,]+)", text)
    goal = Puzzle(4, 4, quoted).goal.tolist()
    four_by_four = [load_instances(n)[0] for n in packaged_sets()]
    four_by_four = [puzzle for puzzle in four_by_four if puzzle.board == "4x4"]
    assert four_by_four and all(puzzle.goal.tolist() == goal for puzzle in four_by_four)
    assert goal == load_instances("korf100")[0].goal.tolist() == list(range(16))


def test_codec_and_compress_each_say_what_they_do_and_how_they_differ():
    parser = build_pdb_parser()
    codec, compress = _option(parser, "--codec").help, _option(parser, "--compress").help
    assert "how the file stores the tables, losslessly" in codec and "unlike --compress" in codec
    assert "how many bits each entry takes" in compress and "unlike --codec" in compress
    assert "in memory while searching" in compress


def test_the_algorithm_help_names_every_search_and_the_guide_describes_each():
    searches_by_name = searches()
    for name in ("solve-puzzle", "solve-batch"):
        text = _option(PARSERS[name](), "--algorithm").help
        assert len(text) < 400 and "docs/guide/solving.md" in text
        assert all(search in text for search in searches_by_name)
    guide = (ROOT / "docs" / "guide" / "solving.md").read_text()
    assert [search for search in searches_by_name if f"`{search}`" not in guide] == []
