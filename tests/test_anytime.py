"""The anytime search (the staged solver, then wider beams or restarting weighted A*) against exact distances:
given time it reaches the shortest length and proves it, both ways; its solutions only get
shorter; its lower bound never exceeds the shortest length. Ctrl-C after a solution keeps the
best one."""

import json

import numpy as np
import pytest

from solvers.cli import solve_puzzle_main
from solvers.heuristics import baseline
from solvers.instances import load_instances
from solvers.puzzle import Puzzle
from solvers.search import anytime
from solvers.search.anytime import fitted, runs, weights_from
from solvers.solve import solve
from tests.conftest import STANDARD_2X4, distances


def test_the_weights_fall_halfway_to_one_then_reach_it():
    assert weights_from(5.0) == [5.0, 3.0, 2.0, 1.5, 1.25, 1.125, 1.062, 1.0]  # to the thousandth
    assert weights_from(1.0) == [1.0]


def test_the_runs_start_narrow_and_widen_or_lower_the_weight():
    assert runs("beams", 2.0)[:4] == [("staged", None), ("beam", 1000), ("beam", 4000), ("beam", 16000)]
    assert runs("weights", 3.0) == [("staged", None), *(("wastar", w) for w in weights_from(3.0))]


def test_the_last_beam_is_narrowed_to_the_time_left():
    """Seconds grow with the width: 16,000 in 18 s predicts 64,000 in 72 s, so with 36 s left the
    beam is 0.8 * 36 / 18 times the last one; with 30 s left none 1.5 times wider fits."""
    assert fitted(("beam", 64000), (16000, 18.0), 36.0) == ("beam", 25600)
    assert fitted(("beam", 64000), (16000, 18.0), 30.0) is None
    assert fitted(("beam", 4000), (1000, 1.0), 100.0) == ("beam", 4000)  # it fits as it is
    assert fitted(("beam", 4000), (1000, 1.0), None) == ("beam", 4000)  # no time limit
    assert fitted(("wastar", 2.0), (1000, 1.0), 0.1) == ("wastar", 2.0)  # weights are not fitted


@pytest.mark.parametrize("improve", ["beams", "weights"])
def test_given_time_it_reaches_and_proves_the_shortest_length_on_the_2x4_states(improve):
    """Every thirtieth 2x4 state, in order: the beams become breadth-first search, the weights A*."""
    puzzle = Puzzle(2, 4, STANDARD_2X4)
    manhattan = baseline(puzzle, "manhattan")
    for state, shortest in sorted(distances(2, 4, STANDARD_2X4).items())[::30]:
        result = solve(puzzle, np.array(state, dtype=np.uint8), "anytime", manhattan, weight=5.0, improve=improve)
        assert (result.length, result.optimal, result.lower_bound) == (shortest, True, shortest), state
        lengths = [length for length, _ in result.found]
        assert lengths == sorted(lengths, reverse=True) and len(set(lengths)) == len(lengths)
        assert lengths[-1] == shortest
        assert result.reason == anytime.NOTHING_SHORTER


def test_wider_beams_improve_on_the_first_solution_of_15_puzzles():
    """Korf's first four instances, the runs ended by a node limit (so the same runs at every
    speed): the staged solver's first solution, then beams of 1,000 and more that are shorter,
    never below the published optimum."""
    puzzle, instances = load_instances("korf100")
    improved = 0
    for instance in instances[:4]:
        result = solve(puzzle, instance.start, "anytime", "manhattan", node_limit=2_000_000)
        assert result.reason in ("node limit of 2,000,000 held nodes reached", anytime.NOTHING_SHORTER), result.reason
        lengths = [length for length, _ in result.found]
        assert lengths == sorted(lengths, reverse=True) and lengths[-1] == result.length >= instance.optimal
        assert lengths[0] == solve(puzzle, instance.start, "staged").length
        improved += len(lengths) > 1
    assert improved == 4


@pytest.mark.parametrize("time_limit", [1e-4, 0.05])
def test_out_of_time_it_keeps_its_best_and_a_sound_bound(eight_puzzle_distances, time_limit):
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    far = [s for s, d in sorted(eight_puzzle_distances.items()) if d >= 28][:20]
    for state in far:
        shortest = eight_puzzle_distances[state]
        result = solve(puzzle, np.array(state, dtype=np.uint8), "anytime", manhattan, weight=3.0,
                       time_limit=time_limit)
        assert result.lower_bound is not None and result.lower_bound <= shortest
        if result.length is not None:
            assert result.length >= shortest and result.optimal == (result.length == result.lower_bound)
            assert result.reason in (f"time limit of {time_limit:g} s reached", anytime.NO_WIDER_BEAM_FITS,
                                     anytime.NOTHING_SHORTER), result.reason


KORF_1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 57 moves (Korf 1985, the first of his 100)


def test_the_command_shows_every_better_solution(capsys):
    assert solve_puzzle_main([KORF_1, "--goal", " ".join(map(str, range(16))), "--algorithm", "anytime",
                              "--heuristic", "manhattan", "--time-limit", "3", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    lengths = [length for length, _ in record["found"]]
    assert record["algorithm"] == "anytime" and record["improve"] == "beams" and record["length"] == lengths[-1]
    assert len(lengths) > 1 and lengths == sorted(lengths, reverse=True) and lengths[-1] >= 57
    assert record["lower_bound"] <= 57 and record["optimal"] == (record["length"] == record["lower_bound"])


FAR = "8 6 7 2 5 4 3 0 1"  # 31 moves: the first run (the staged solver) finds a longer solution


def interrupting(monkeypatch, run: int) -> list:
    """Make the anytime search's `run`-th run (from 1, the staged solver's) raise KeyboardInterrupt, as
    Ctrl-C does inside a run; the results of the runs before it, in order."""
    returned, real = [], anytime.one_run

    def counted(*args, **kwargs):
        if len(returned) + 1 == run:
            raise KeyboardInterrupt
        returned.append(real(*args, **kwargs))
        return returned[-1]

    monkeypatch.setattr(anytime, "one_run", counted)
    return returned


def test_ctrl_c_after_the_first_run_returns_its_solution_marked_interrupted(monkeypatch):
    puzzle = Puzzle(3, 3)
    returned = interrupting(monkeypatch, run=2)
    result = solve(puzzle, np.array(FAR.split(), dtype=np.uint8), "anytime", "manhattan", weight=5.0)
    first = returned[0]
    assert (result.status, result.interrupted, result.reason) == ("solved", True, "interrupted")
    assert (result.moves, result.length) == (first.moves, first.length)
    assert first.length > 31 and not result.optimal and result.lower_bound == result.initial_h <= 31
    assert [length for length, _ in result.found] == [first.length] and result.found[0][1] <= result.seconds
    assert (result.nodes_expanded, result.nodes_generated) == (first.nodes_expanded, first.nodes_generated)


def test_ctrl_c_before_the_first_solution_propagates(monkeypatch):
    puzzle = Puzzle(3, 3)
    interrupting(monkeypatch, run=1)
    with pytest.raises(KeyboardInterrupt):
        solve(puzzle, np.array(FAR.split(), dtype=np.uint8), "anytime", "manhattan", weight=5.0)


@pytest.mark.parametrize("as_json", [True, False])
def test_the_command_prints_the_best_solution_then_exits_as_interrupted(monkeypatch, capsys, as_json):
    returned = interrupting(monkeypatch, run=2)
    status = solve_puzzle_main([FAR, "--algorithm", "anytime", "--weight", "5", "--heuristic", "manhattan",
                                *(["--json"] if as_json else [])])
    out, err = capsys.readouterr()
    assert (status, err) == (130, "solve-puzzle: interrupted\n")
    first = returned[0]
    if as_json:
        record = json.loads(out)
        assert (record["status"], record["interrupted"], record["optimal"]) == ("solved", True, False)
        assert (record["moves"], record["lower_bound"]) == (first.moves, record["initial_h"])
    else:
        assert f"length     {first.length} (not necessarily optimal)\nmoves      {first.moves}\nstopped    " in out


def test_the_command_interrupted_before_a_solution_prints_nothing(monkeypatch, capsys):
    interrupting(monkeypatch, run=1)
    status = solve_puzzle_main([FAR, "--algorithm", "anytime", "--heuristic", "manhattan", "--json"])
    assert (status, capsys.readouterr()) == (130, ("", "solve-puzzle: interrupted\n"))
