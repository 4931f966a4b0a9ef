"""Parallel IDA*: the sequential length, and the sequential counters in every iteration but the last."""

import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import preset
from solvers.heuristics import baseline, from_spec
from solvers.instances import load_instances
from solvers.puzzle import Puzzle
from solvers.search.ida import ida_star
from solvers.search.parallel_ida import parallel_ida_star
from tests.conftest import STANDARD_3X3, distances


def _counters(result):
    return [(i.bound, i.nodes_expanded, i.nodes_generated) for i in result.iterations]


@pytest.mark.parametrize("threads, split_depth", [(2, None), (3, 1), (2, 5)])
def test_random_8_puzzles_match_the_sequential_search(threads, split_depth):
    puzzle = Puzzle(3, 3)
    exact = distances(3, 3, STANDARD_3X3)
    states = list(exact)
    heuristic = baseline(puzzle, "manhattan")
    for i in np.random.default_rng(threads).choice(len(states), 60, replace=False):
        start = np.array(states[i], dtype=np.uint8)
        sequential = ida_star(puzzle, start, heuristic)
        parallel = parallel_ida_star(puzzle, start, heuristic, threads=threads, split_depth=split_depth)
        assert parallel.length == sequential.length == exact[states[i]]
        assert _counters(parallel)[:-1] == _counters(sequential)[:-1]


def test_korf_instances_with_a_pdb(tmp_path):
    puzzle, instances = load_instances("data/korf100.txt")
    path, _ = build_pdb_file(plan_build(puzzle, preset(puzzle, "5-5-5")), tmp_path / "555.h5")
    heuristic = from_spec(puzzle, f"pdb:{path}+reflect")
    for instance in (instances[1], instances[8]):  # without BPMX, which the top of the split leaves out
        sequential = ida_star(puzzle, instance.start, heuristic, bpmx=False)
        parallel = parallel_ida_star(puzzle, instance.start, heuristic, threads=2, bpmx=False)
        assert parallel.length == sequential.length == instance.optimal
        assert _counters(parallel)[:-1] == _counters(sequential)[:-1]


def test_time_limit_and_unsolvable():
    puzzle, instances = load_instances("data/korf100.txt")
    result = parallel_ida_star(puzzle, instances[0].start, baseline(puzzle, "hamming"), threads=2, time_limit=0.3)
    assert result.status == "gave_up" and "time limit" in result.reason and result.seconds < 10
    eight = Puzzle(3, 3)
    assert parallel_ida_star(eight, eight.state("1 2 3 4 6 8 5 7 0"), baseline(eight, "manhattan")).status == "unsolvable"


@pytest.mark.parametrize("prune", ["none", "parent", "fsm"])
def test_with_a_full_last_iteration_the_parallel_search_is_the_sequential_one(prune):
    """Same counters in every iteration and the same solution: no subtree is stopped, and the
    first work item in move order that found a solution gives it; each subtree starts in the
    automaton's state of its path."""
    puzzle = Puzzle(3, 3)
    exact = distances(3, 3, STANDARD_3X3)
    states = list(exact)
    heuristic = baseline(puzzle, "manhattan")
    for i in np.random.default_rng(7).choice(len(states), 25, replace=False):
        start = np.array(states[i], dtype=np.uint8)
        sequential = ida_star(puzzle, start, heuristic, prune=prune, full_last_iteration=True)
        parallel = parallel_ida_star(puzzle, start, heuristic, threads=2, split_depth=4, prune=prune,
                                     full_last_iteration=True)
        assert parallel.length == exact[states[i]]
        assert (parallel.moves, _counters(parallel)) == (sequential.moves, _counters(sequential))


def test_cluster_tasks_group_small_work_items_to_a_minimum_size():
    from solvers.search.parallel_ida import task_groups

    predicted = np.array([50, 5, 30, 0, 10, 5, 1])
    order = [0, 2, 4, 1, 5, 6, 3]  # largest first
    assert task_groups(order, predicted, 0) == [[i] for i in order]  # threads: one item a task
    assert task_groups(order, predicted, 20) == [[0], [2], [4, 1, 5], [6, 3]]
    assert task_groups(order, predicted, 1000) == [[0, 2, 4, 1, 5, 6], [3]]  # the whole (101) in one, then the rest
    assert task_groups(order, predicted, 1000, min_groups=2) == [[0], [2, 4, 1, 5], [6, 3]]  # groups of 101 // 2
    assert task_groups([], predicted, 20) == []
    groups = task_groups(order, predicted, 20)
    assert sorted(i for g in groups for i in g) == sorted(order)
    assert all(predicted[g].sum() >= 20 for g in groups[:-1])
