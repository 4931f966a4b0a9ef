"""The registry is the one list of searches: every registered search runs through `solve` and
through a batch, and every one of its options reaches the commands that offer it."""

import csv

import numpy as np
import pytest

from solvers.batch import FRONTIER_FIELDS, ROW_FIELDS, RUN_FIELDS, solve_batch
from solvers.cli import compare_heuristics_parser, solve_batch_parser, solve_puzzle_parser
from solvers.instances import Instance
from solvers.puzzle import Puzzle
import solvers.search.registry as registry
from solvers.search.registry import NODE_LIMIT, Option, Search, all_options, register, searches
from solvers.solve import solve

SEARCHES = list(searches())


def _flags(parser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


@pytest.mark.parametrize("name", SEARCHES)
def test_every_search_solves_through_solve_at_a_length_the_exact_distance_bounds(name, eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    states = sorted(s for s in eight_puzzle_distances if 8 <= eight_puzzle_distances[s] <= 14)
    rng = np.random.default_rng(len(name))
    for i in rng.choice(len(states), 5, replace=False):
        result = solve(puzzle, np.array(states[i], dtype=np.uint8), name, "manhattan")
        shortest = eight_puzzle_distances[states[i]]
        assert result.status == "solved" and result.length >= shortest
        if result.optimal:
            assert result.length == shortest


def test_an_option_name_defined_again_otherwise_or_a_name_taken_is_refused_at_registration(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTERED", dict(searches()))
    other_limit = Option(NODE_LIMIT.name, "count", "another meaning", "another limit applies")
    with pytest.raises(ValueError, match="option 'node_limit' is defined twice"):
        register(Search("other", "a search", lambda *args: None, informed=False, family="uninformed",
                        options=(other_limit,)))
    with pytest.raises(ValueError, match="a search named 'astar' is registered twice"):
        register(Search("astar", "a search", lambda *args: None, informed=False, family="uninformed"))
    register(Search("other", "a search", lambda *args: None, informed=False, family="uninformed",
                    options=(NODE_LIMIT,)))
    assert list(searches()) == [*SEARCHES, "other"] and all_options()["node_limit"] is NODE_LIMIT


def test_every_option_reaches_the_commands_and_every_setting_the_batch_rows():
    puzzle_flags, batch_flags = _flags(solve_puzzle_parser()), _flags(solve_batch_parser())
    for option in all_options().values():
        if option.kind != "object":
            assert option.flag in puzzle_flags, option.flag
    for search in searches().values():  # solve-batch offers every search
        for option in search.options:
            assert option.flag in batch_flags or option.name in ("threads", "executor"), option.flag
    assert {"--prune", "--full-last-iteration", "--bpmx"} <= _flags(compare_heuristics_parser())
    for search in searches().values():
        assert set(search.setting_fields) <= set(ROW_FIELDS), search.name


@pytest.mark.parametrize("name", list(searches()))
def test_every_search_runs_a_batch_that_records_its_settings(name, tmp_path, eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    states = sorted(s for s in eight_puzzle_distances if eight_puzzle_distances[s] == 12)[:3]
    instances = [Instance(i + 1, np.array(s, dtype=np.uint8), None) for i, s in enumerate(states)]
    out = tmp_path / f"{name}.csv"
    summary = solve_batch(puzzle, instances, "manhattan", out, algorithm=name)
    assert summary.n_solved == 3
    rows = list(csv.DictReader(out.open()))
    search = searches()[name]
    assert {r["algorithm"] for r in rows} == {name}
    assert all(r[field] != "" for r in rows for field in search.setting_fields)
    counters = {"bpmx_raises", "bpmx_cutoffs", *FRONTIER_FIELDS}
    assert all(r[field] == "" for r in rows for field in set(ROW_FIELDS[ROW_FIELDS.index("tables") + 1:])
               - set(search.setting_fields) - set(RUN_FIELDS) - counters)
    assert all(r[field] != "" for r in rows for field in RUN_FIELDS)
    bidirectional = search.family == "bidirectional"
    assert all((r[field] != "") == bidirectional for r in rows for field in FRONTIER_FIELDS)
