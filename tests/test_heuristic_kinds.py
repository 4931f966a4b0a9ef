"""Heuristic kinds through the one interface: walking distance against its definition, every kind
through every search, combinations, user functions, and many threads sharing one heuristic."""

from __future__ import annotations

import re
import threading
from typing import NamedTuple

import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom
from solvers.errors import InputError
from solvers.experiments import full_iteration
from solvers.heuristics import Heuristic, from_spec
from solvers.heuristics.dispatch import register_kind
from solvers.heuristics.term import Term
from solvers.jit import inline_kernel
from solvers.puzzle import Puzzle
from solvers.search import depth_first
from solvers.search.effort import predict_ida
from solvers.solve import solve
from tests import naive
from tests.conftest import STANDARD_2X4, STANDARD_3X3, assert_ida_matches_naive, distances

SNAIL_3X3 = (1, 2, 3, 8, 0, 4, 7, 6, 5)
KINDS = ["zero", "hamming", "manhattan", "linear-conflict", "walking-distance"]


@pytest.fixture(scope="module")
def pdb_files(tmp_path_factory):
    """Additive 3x3 PDBs for the standard goal: the 4-4 partition and its halves, as separate files."""
    puzzle = Puzzle(3, 3, STANDARD_3X3)
    folder = tmp_path_factory.mktemp("kinds")
    paths = {}
    for name, patterns in {"4-4": ["1,2,4,5", "3,6,7,8"], "a": ["1,2,4,5"], "b": ["3,6,7,8"], "c": ["1,2,3"]}.items():
        paths[name], _ = build_pdb_file(plan_build(puzzle, custom(puzzle, patterns)), folder / f"{name}.h5")
    return puzzle, paths


@pytest.mark.parametrize("rows, cols, goal", [(3, 3, STANDARD_3X3), (3, 3, SNAIL_3X3), (2, 4, STANDARD_2X4),
                                              (2, 4, (0, 1, 2, 3, 4, 5, 6, 7))])
def test_walking_distance_equals_its_definition_and_is_admissible_everywhere(rows, cols, goal):
    exact = distances(rows, cols, goal)
    states = list(exact)
    h = from_spec(Puzzle(rows, cols, goal), "walking-distance").evaluate_many(np.array(states, dtype=np.uint8))
    stride = 1 if rows * cols <= 8 else 13
    for i in range(0, len(states), stride):
        assert h[i] == naive.walking_distance(states[i], goal, rows, cols), states[i]
    true = np.array([exact[s] for s in states])
    assert (h <= true).all()
    manhattan = from_spec(Puzzle(rows, cols, goal), "manhattan").evaluate_many(np.array(states, dtype=np.uint8))
    assert (h >= manhattan).all() and h.mean() > manhattan.mean()


def test_walking_distance_on_a_15_puzzle_sample_and_its_table_size():
    puzzle = Puzzle(4, 4)
    term = from_spec(puzzle, "wd").terms[0]
    assert len(term.data.v_keys) == len(term.data.h_keys) == 24964  # Takahashi's count for 4x4
    rng = np.random.default_rng(5)
    states = [puzzle.random_state(rng) for _ in range(10)]
    values = from_spec(puzzle, "walking-distance").evaluate_many(np.array(states))
    goal = tuple(puzzle.goal.tolist())
    assert list(values) == [naive.walking_distance(tuple(s.tolist()), goal, 4, 4) for s in states]


# parallel IDA* runs IDA*'s compiled pass: it is searched in the same test as IDA*, which
# compiles that pass once for the kind
@pytest.mark.parametrize("algorithm", ["ida", "astar"])
@pytest.mark.parametrize("spec", KINDS + ["pdb:4-4", "pdb:4-4+reflect", "max(pdb:a, walking-distance, lc)",
                                          "sum(pdb:a, pdb:b)"])
def test_every_kind_through_every_search_is_optimal(pdb_files, algorithm, spec):
    puzzle, paths = pdb_files
    heuristic = from_spec(puzzle, _with_paths(spec, paths))
    exact = distances(3, 3, STANDARD_3X3)
    states = list(exact)
    chosen = np.random.default_rng(7).choice(len(states), 6 if spec == "zero" else 25, replace=False)
    searches = {"ida": [("ida", {}), ("ida", {"threads": 2})], "astar": [("astar", {})]}[algorithm]
    for i in chosen:
        if spec == "zero" and exact[states[i]] > 18:
            continue
        start = np.array(states[i], dtype=np.uint8)
        for search, options in searches:
            result = solve(puzzle, start, search, heuristic, **options)
            assert result.length == exact[states[i]], (spec, search, options, states[i])


def test_combinations_are_admissible_and_equal_the_maximum_of_their_parts(pdb_files):
    puzzle, paths = pdb_files
    exact = distances(3, 3, STANDARD_3X3)
    states = np.array(list(exact), dtype=np.uint8)
    true = np.array(list(exact.values()))
    parts = ["pdb:4-4+reflect", "walking-distance", "linear-conflict", "pdb:c"]
    values = [from_spec(puzzle, _with_paths(p, paths)).evaluate_many(states) for p in parts]
    combined = from_spec(puzzle, _with_paths(f"max({', '.join(parts)})", paths)).evaluate_many(states)
    assert (combined == np.max(values, axis=0)).all()
    assert (combined <= true).all()
    added = from_spec(puzzle, _with_paths("sum(pdb:a, pdb:b)", paths)).evaluate_many(states)
    assert (added == from_spec(puzzle, f"pdb:{paths['4-4']}").evaluate_many(states)).all()
    nested = from_spec(puzzle, _with_paths("max(sum(pdb:a, pdb:b), max(wd, pdb:c+reflect))", paths))
    assert (nested.evaluate_many(states) <= true).all()


@pytest.mark.parametrize("spec, message", [
    ("sum(pdb:a, pdb:4-4)", "shares tiles"),
    ("sum(sum(pdb:a, pdb:b), pdb:c)", "shares tiles \\[1, 2, 3\\]"),
    ("sum(pdb:a, linear-conflict)", "cannot be added"),
    ("sum(pdb:a+reflect, pdb:b)", "without \\+reflect"),
    ("walking-distanse", "did you mean 'walking-distance'"),
    ("max(manhattan, euclid)", "unknown heuristic 'euclid'.*Accepted: zero"),
    ("pdb:a+reflet", "unknown suffix '\\+reflet'"),
    ("pdb:a+dual+reflet", "unknown suffix '\\+reflet'; the suffixes a pdb: file takes are \\+reflect, \\+dual"),
    ("pbd:a", "unknown heuristic 'pbd:a'; did you mean 'pdb:'\\? Accepted"),
    ("euclid", "unknown heuristic 'euclid'\\. Accepted: zero"),
    ("max(manhattan, lc", "not of the form max"),
    ("max(manhattan,)", "an empty part"),
    ("user:no_such_module:h", "cannot import module"),
])
def test_refusals_say_why_in_one_line(pdb_files, spec, message):
    puzzle, paths = pdb_files
    with pytest.raises(InputError, match=message) as error:
        from_spec(puzzle, _with_paths(spec, paths))
    assert "\n" not in str(error.value)


def test_threads_sharing_one_heuristic_get_the_sequential_results(pdb_files):
    """Many threads evaluating and searching with one heuristic object at once (as Dask workers'
    threads do) get exactly what one thread gets, every time. The PDB files of a maximum are one
    lookup term, so this heuristic is compiled as max(pdb:a, walking-distance, lc) above is: no
    kernel of its own."""
    puzzle, paths = pdb_files
    heuristic = from_spec(puzzle, _with_paths("max(pdb:4-4+reflect, pdb:c, walking-distance, lc)", paths))
    exact = distances(3, 3, STANDARD_3X3)
    states = np.array(list(exact), dtype=np.uint8)
    rng = np.random.default_rng(11)
    starts = states[rng.choice(len(states), 30, replace=False)]
    expected_h = heuristic.evaluate_many(states)
    expected_runs = [_summary(solve(puzzle, s, "ida", heuristic)) for s in starts]
    failures = []

    def work(seed):
        order = np.random.default_rng(seed).permutation(len(starts))
        for _ in range(3):
            if not (heuristic.evaluate_many(states) == expected_h).all():
                failures.append("evaluate_many")
            for i in order:
                if _summary(solve(puzzle, starts[i], "ida", heuristic)) != expected_runs[i]:
                    failures.append(("solve", i))
                if heuristic(starts[i]) != expected_h[_row(states, starts[i])]:
                    failures.append(("h", i))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures


def _summary(result):
    return result.length, result.moves, result.nodes_expanded, result.nodes_generated


def _row(states, state):
    return int(np.flatnonzero((states == state).all(axis=1))[0])


def _with_paths(spec: str, paths: dict) -> str:
    """`spec` with each pdb:NAME replaced by the path of that fixture file."""
    return re.sub(r"pdb:([\w-]+?)(?=[+,)]|$)", lambda m: f"pdb:{paths[m.group(1)]}", spec)


@pytest.mark.parametrize("spec", KINDS[1:] + ["max(pdb:4-4+reflect, walking-distance, lc)", "sum(pdb:a, pdb:b)"])
def test_ida_counts_equal_a_naive_ida_that_evaluates_every_node_from_scratch(pdb_files, spec):
    """The kernels evaluate children incrementally (each kind from its scratch row); a naive IDA*
    that calls h on every node from scratch must see the same iterations and counters."""
    puzzle, paths = pdb_files
    heuristic = from_spec(puzzle, _with_paths(spec, paths))
    exact = distances(3, 3, STANDARD_3X3)
    states = [s for s in exact if 12 <= exact[s] <= 20]  # the naive search is slow
    chosen = [states[i] for i in np.random.default_rng(9).choice(len(states), 10, replace=False)]
    assert_ida_matches_naive(puzzle, heuristic, chosen, STANDARD_3X3)


# Two kinds with the same value, the Manhattan distance of the blank to its goal cell (admissible
# and consistent: each move carries the blank one cell). One reads the blank's cell through
# `position`, as the kind contract allows; its twin reads only the move's own arguments.


class BlankByPosition(NamedTuple):
    goal_row: int
    goal_col: int
    cols: int


class BlankByMove(NamedTuple):
    goal_row: int
    goal_col: int
    cols: int


@inline_kernel
def _blank_distance(data, cell):
    return abs(cell // data.cols - data.goal_row) + abs(cell % data.cols - data.goal_col)


@inline_kernel
def _blank_start(data, board, position, scratch, row, column):
    return _blank_distance(data, position[0])


@inline_kernel
def _blank_child_by_position(data, board, position, scratch, row, column, tile, source, target):
    return _blank_start(data, board, position, scratch, row, column)


@inline_kernel
def _blank_child_by_move(data, board, position, scratch, row, column, tile, source, target):
    return _blank_distance(data, source)  # the blank moved from `target` to `source`


register_kind(BlankByPosition, _blank_start, _blank_child_by_position)
register_kind(BlankByMove, _blank_start, _blank_child_by_move)


def _with_blank_distance(puzzle, data_class):
    goal_row, goal_col = divmod(puzzle.blank_goal_cell, puzzle.cols)
    blank = Term(puzzle, "blank", "blank", data_class(goal_row, goal_col, puzzle.cols), 0, consistent=True)
    return Heuristic(puzzle, [from_spec(puzzle, "hamming").terms[0], blank])


def test_every_search_keeps_the_blanks_cell_in_position():
    """IDA*, A*, parallel IDA*, the effort estimate and the experiments' full iterations give the
    same results with the kind that reads position[0] as with its twin: the blank's entry is
    exact after every move and undo."""
    puzzle = Puzzle(3, 3, SNAIL_3X3)
    by_position, by_move = (_with_blank_distance(puzzle, kind) for kind in (BlankByPosition, BlankByMove))
    # kinds of a module outside the packages stay out of the package kernels' disk cache, whose
    # index would name them where this module cannot be imported: the searches compiled for the
    # tree are compiled apart, and so are the evaluations that the searches compiled once call
    assert not by_position.cacheable
    assert by_position.with_kernels(True).kernel(depth_first._bounded_pass) is not depth_first._bounded_pass
    exact = distances(3, 3, SNAIL_3X3)
    starts = [s for s, d in exact.items() if d in (18, 24)][:4]
    for start in starts:
        start = np.array(start, dtype=np.uint8)
        # the limits end a search that never sees h = 0 at the goal (where the kind goes wrong)
        for search in (lambda h: solve(puzzle, start, "ida", h, node_limit=10**7),
                       lambda h: solve(puzzle, start, "astar", h),
                       lambda h: solve(puzzle, start, "ida", h, threads=2, full_last_iteration=True, time_limit=60)):
            reading, twin = search(by_position), search(by_move)
            assert reading.length == exact[tuple(start.tolist())]
            assert (reading.moves, reading.nodes_expanded, reading.nodes_generated, reading.iterations) == \
                (twin.moves, twin.nodes_expanded, twin.nodes_generated, twin.iterations)
        length = exact[tuple(start.tolist())]
        assert predict_ida(puzzle, start, by_position, length, n_probes=200) == \
            predict_ida(puzzle, start, by_move, length, n_probes=200)
        assert full_iteration(puzzle, start, by_position, length) == full_iteration(puzzle, start, by_move, length)
