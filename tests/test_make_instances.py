"""make-instances: files that load back as written, reproducible from the seed, lengths equal to an
exhaustive BFS, uniform states spread as the 8-puzzle's distances are, walks within their length,
and one-line refusals."""

import shlex
from pathlib import Path

import numpy as np
import pytest

from solvers.cli import make_instances_main
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.instances import load_instances
from solvers.make_instances import instance_file_text, random_instances, random_walk_instances
from solvers.puzzle import Puzzle
from solvers.solve import solve
from tests.conftest import STANDARD_3X3, distances

BLANK_FIRST_3X3 = tuple(range(9))
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def fixed_date(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")  # 2026-12-01


def _run(capsys, *argv) -> tuple[int, str, str]:
    """make-instances in this process; returns (exit status, stdout, stderr)."""
    try:
        status = make_instances_main([str(a) for a in argv])
    except SystemExit as stop:  # a usage error, reported by the parser
        status = stop.code
    out, err = capsys.readouterr()
    return status, out, err


def _exact(goal: tuple, states) -> np.ndarray:
    table = distances(3, 3, goal)
    return np.array([table[tuple(int(t) for t in state)] for state in states])


def test_a_written_file_loads_back_as_the_same_puzzle_states_and_lengths(capsys, tmp_path):
    out = tmp_path / "eight.txt"
    status, printed, _ = _run(capsys, "--board", "3x3", "--goal", "0 1 2 3 4 5 6 7 8", "--count", 30, "--seed", 7,
                              "--out", out)
    assert status == 0 and str(out) in printed
    puzzle, instances = load_instances(out)
    assert puzzle == Puzzle(3, 3, BLANK_FIRST_3X3)
    expected = random_instances(puzzle, 30, 7)
    assert np.array_equal([i.start for i in instances], expected)
    assert [i.optimal for i in instances] == list(_exact(BLANK_FIRST_3X3, expected))


def test_the_api_text_round_trips_with_and_without_lengths(tmp_path):
    puzzle = Puzzle(2, 3, (0, 5, 4, 3, 2, 1))
    states = random_walk_instances(puzzle, 5, 9, seed=3)
    for lengths in (None, [9, 7, 5, 3, 1]):
        path = tmp_path / "six.txt"
        path.write_text(instance_file_text(puzzle, states, lengths, ["six tiles", "goal reversed"]))
        loaded, instances = load_instances(path)
        assert loaded == puzzle and np.array_equal([i.start for i in instances], states)
        assert [i.optimal for i in instances] == (lengths or [None] * 5)
    assert path.read_text().startswith("# six tiles\n# goal reversed\n# board: 2x3\n# goal: 0 5 4 3 2 1\n")


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_states(capsys, tmp_path):
    def written(name, seed, *more):
        _run(capsys, "--board", "4x4", "--count", 50, "--seed", seed, *more, "--out", tmp_path / name)
        return (tmp_path / name).read_bytes()

    first = written("a.txt", 1)
    assert written("b.txt", 1, "--quiet") == first
    other = written("c.txt", 2)
    assert other != first
    assert set(first.splitlines()[5:]).isdisjoint(other.splitlines()[5:])
    walk = written("walk-a.txt", 1, "--walk", 30)
    assert written("walk-b.txt", 1, "--walk", 30) == walk != written("walk-c.txt", 2, "--walk", 30)


def test_the_header_names_the_command_that_writes_the_same_file(capsys, tmp_path):
    _run(capsys, "--board", "2x4", "--count", 20, "--walk", 11, "--seed", 5, "--out", tmp_path / "one.txt")
    text = (tmp_path / "one.txt").read_text()
    made = next(line for line in text.splitlines() if line.startswith("# Made on 2026-12-01 by: make-instances "))
    assert "(seed 5)" in text
    argv = shlex.split(made.partition("by: ")[2])[1:]
    assert argv == ["--board", "2x4", "--goal", "1 2 3 4 5 6 7 0", "--count", "20", "--walk", "11", "--seed", "5",
                    "--solve", "on"]
    _run(capsys, *argv, "--out", tmp_path / "two.txt")
    assert (tmp_path / "two.txt").read_text() == text


@pytest.mark.parametrize("goal", [STANDARD_3X3, BLANK_FIRST_3X3], ids=["blank-last", "blank-first"])
def test_every_written_length_is_the_exact_distance(capsys, goal):
    for source in ([], ["--walk", 25]):
        status, text, _ = _run(capsys, "--board", "3x3", "--goal", " ".join(map(str, goal)), "--count", 150, *source)
        rows = [line.split("|") for line in text.splitlines() if not line.startswith("#")]
        states = [tuple(map(int, tiles.split())) for tiles, _ in rows]
        assert status == 0 and len(rows) == 150
        assert [int(length) for _, length in rows] == list(_exact(goal, states))


def test_uniform_states_are_solvable_and_spread_like_all_states():
    puzzle = Puzzle(3, 3)
    states = random_instances(puzzle, 2000, seed=11)
    assert all(puzzle.is_solvable(state) for state in states)
    assert len({state.tobytes() for state in states}) > 1970  # 181,440 states: about 11 repeats expected
    everything = np.array(list(distances(3, 3, STANDARD_3X3).values()))
    assert len(everything) == 181_440 and everything.mean() == pytest.approx(21.97, abs=0.005)
    sample = _exact(STANDARD_3X3, states)
    assert sample.mean() == pytest.approx(everything.mean(), abs=0.35)  # sd 3.37: 4.6 standard errors
    even = np.mean(sample % 2 == 0)  # the blank on one of 5 cells an even distance from its goal cell, or 4 odd
    assert even == pytest.approx(np.mean(everything % 2 == 0), abs=0.05) and 0.5 < np.mean(everything % 2 == 0) < 0.6
    blank_cells = np.bincount(np.argmax(states == 0, axis=1), minlength=9)
    assert blank_cells.min() > 2000 / 9 * 0.7


@pytest.mark.parametrize("length", [0, 1, 2, 7, 20, 45])
def test_a_random_walk_ends_within_its_length_and_of_its_parity(length):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    states = random_walk_instances(puzzle, 300, length, seed=length)
    exact = _exact(BLANK_FIRST_3X3, states)
    assert (exact <= length).all() and (exact % 2 == length % 2).all()
    if length == 0:
        assert all(puzzle.is_goal(state) for state in states)
    else:
        assert len({state.tobytes() for state in states}) > 1


def test_lengths_by_default_on_small_boards_only(capsys):
    def lines(*argv):
        return [line for line in _run(capsys, *argv)[1].splitlines() if not line.startswith("#")]

    assert all(" | " in line for line in lines("--board", "2x5", "--count", 5))
    assert all(" | " not in line for line in lines("--board", "4x4", "--count", 5))
    assert all(" | " not in line for line in lines("--board", "3x3", "--count", 5, "--solve", "off"))
    assert all(" | " in line for line in lines("--board", "4x3", "--count", 3, "--solve", "on", "--out", "-"))


@pytest.mark.parametrize("argv, message", [
    (["--board", "9x9"], "board 9x9 is not supported"),
    (["--board", "3by3"], "board '3by3' is not of the form RxC"),
    (["--count", 5], "the following arguments are required: --board"),
    (["--board", "3x3", "--goal", "0 1 2 3 4 5 6 7"], "goal has 8 tiles but a 3x3 board needs 9"),
    (["--board", "3x3", "--goal", "0 1 2 3 4 5 6 7 7"], "goal: tile 7 appears twice and tile 8 is missing"),
    (["--board", "3x3", "--count", 0], "'0' must be positive"),
    (["--board", "3x3", "--count", "many"], "'many' is not an integer"),
    (["--board", "3x3", "--walk", -1], "'-1' must be positive"),
    (["--board", "3x3", "--walk", 0], "'0' must be positive"),  # as compare-heuristics --walk
    (["--board", "3x3", "--seed", -1], "the seed must be 0 or more, not -1"),
    (["--board", "4x4", "--solve", "on"], "optimal lengths are computed for boards of at most 12 cells, not 4x4"),
    (["--board", "3x3", "--out", ""], "--out needs a file name"),
])
def test_bad_input_is_one_line_and_exit_status_2(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    status, out, err = _run(capsys, *argv)
    assert status == 2 and out == "" and list(tmp_path.iterdir()) == []
    assert err.startswith("make-instances: error: ") and message in err and err.count("\n") == 1


def test_an_existing_file_is_replaced_only_with_force(capsys, tmp_path):
    out = tmp_path / "kept.txt"
    out.write_text("mine\n")
    status, _, err = _run(capsys, "--board", "3x3", "--out", out)
    assert status == 2 and "exists; pass --force" in err and out.read_text() == "mine\n"
    status, _, err = _run(capsys, "--board", "3x3", "--out", tmp_path)
    assert status == 2 and "is a folder" in err
    assert _run(capsys, "--board", "3x3", "--count", 3, "--out", out, "--force")[0] == 0
    assert len(load_instances(out)[1]) == 3
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]  # no temporary file left


def test_the_api_refuses_what_would_not_read_back():
    puzzle = Puzzle(3, 3)
    states = random_instances(puzzle, 2, seed=1)
    for lengths, comments, message in [([1], [], "1 lengths for 2 states"),
                                       (None, ["board: 4x4"], "would not read back as a comment"),
                                       (None, ["two\nlines"], "would not read back as a comment")]:
        with pytest.raises(InputError, match=message):
            instance_file_text(puzzle, states, lengths, comments)
    with pytest.raises(InputError, match="the number of instances must be 1 or more, not 0"):
        random_instances(puzzle, 0, seed=1)


def test_the_shipped_random_15_puzzle_set_is_seed_1_uniform_towards_korf100s_goal():
    puzzle, instances = load_instances(ROOT / "data" / "random15-1000.txt")
    assert puzzle == load_instances(ROOT / "data" / "korf100.txt")[0] == Puzzle(4, 4, range(16))
    assert np.array_equal([i.start for i in instances], random_instances(puzzle, 1000, seed=1))
    _assert_known_lengths_hold(puzzle, instances)


def test_korf_and_felners_1000_are_15_puzzle_states_whose_known_lengths_hold():
    puzzle, instances = load_instances("kf1000-15")
    assert puzzle == Puzzle(4, 4, range(16)) and len(instances) == 1000
    assert sum(i.optimal for i in instances) == 52_522
    _assert_known_lengths_hold(puzzle, instances)


def _assert_known_lengths_hold(puzzle, instances):
    """Every known length is at least linear conflict and has Manhattan distance's parity, and
    the three shortest are found again by IDA* with walking distance."""
    lengths = np.array([i.optimal for i in instances])
    bounds = from_spec(puzzle, "linear-conflict").evaluate_many(np.array([i.start for i in instances]))
    manhattan = from_spec(puzzle, "manhattan").evaluate_many(np.array([i.start for i in instances]))
    assert (lengths >= bounds).all() and ((lengths - manhattan) % 2 == 0).all()  # admissible bounds, parity
    for i in np.argsort(lengths)[:3]:  # the shortest ones solved again, with another heuristic
        assert solve(puzzle, instances[i].start, "ida", "walking-distance").length == lengths[i]
