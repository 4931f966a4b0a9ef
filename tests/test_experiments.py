"""Experiments: state sources, exact distances, strength measures, KRE prediction, the report files."""

import csv
import itertools
import json

import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import preset
from solvers.cli import compare_heuristics_main
from solvers.experiments import (
    ExactDistances,
    full_iteration,
    h_distribution_by_blank,
    kre_prediction,
    measure,
    random_walk_states,
    uniform_states,
)
from solvers.heuristics import baseline
from solvers.puzzle import Puzzle
from solvers.search.move_pruning import tree_counts
from tests import naive
from tests.conftest import distances

BLANK_FIRST_3X3 = tuple(range(9))


def test_uniform_states_are_solvable_and_uniform():
    puzzle = Puzzle(2, 3)
    states = uniform_states(puzzle, 36_000, seed=5)
    assert all(puzzle.is_solvable(s) for s in states)
    counts = {}
    for s in map(bytes, states):
        counts[s] = counts.get(s, 0) + 1
    assert len(counts) == 360
    chi_square = sum((c - 100) ** 2 / 100 for c in counts.values())
    assert chi_square < 480
    assert np.array_equal(states, uniform_states(puzzle, 36_000, seed=5))


def test_short_random_walks_end_at_their_length():
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    exact = distances(3, 3, BLANK_FIRST_3X3)
    for length in (1, 4, 6):  # a shorter end would close a cycle of at most 2 * 6 - 2 < 12 moves
        for state in random_walk_states(puzzle, 50, length, seed=length):
            assert exact[tuple(state.tolist())] == length
    for state in random_walk_states(puzzle, 50, 40, seed=2):
        assert exact[tuple(state.tolist())] % 2 == 0


@pytest.mark.parametrize("rows, cols, goal", [(3, 3, BLANK_FIRST_3X3), (2, 4, (1, 2, 3, 4, 5, 6, 7, 0))])
def test_exact_distances_equal_the_naive_bfs(rows, cols, goal):
    exact = distances(rows, cols, goal)
    table = ExactDistances(Puzzle(rows, cols, goal))
    states = np.array(list(exact), dtype=np.uint8)
    assert (table(states) == np.array(list(exact.values()))).all()
    assert (table.table != 255).sum() == len(exact)


def test_measures_against_exact_distances():
    puzzle = Puzzle(3, 3)
    states = uniform_states(puzzle, 20_000, seed=3)
    exact = ExactDistances(puzzle)(states)
    measured, values = measure(baseline(puzzle, "linear-conflict"), states, exact)
    assert measured.admissible and 0 < measured.share_exact < 0.1
    assert measured.mean == pytest.approx(values.mean()) and measured.histogram.sum() == 20_000
    assert measured.mean_ratio == pytest.approx(np.mean(values[exact > 0] / exact[exact > 0]))


def test_manhattan_mean_on_the_15_puzzle_matches_its_exact_expectation():
    """Each tile's cell is uniform over the 16 cells on the solvable half too, so E[h] is the
    average over tiles of the mean distance from their goal cells: 37 for both usual goals."""
    puzzle = Puzzle(4, 4, list(range(16)))
    expectation = sum(puzzle.cell_distance(c, int(puzzle.goal_cell[t])) for t in range(1, 16) for c in range(16)) / 16
    assert expectation == 37.0
    measured, _ = measure(baseline(puzzle, "manhattan"), uniform_states(puzzle, 200_000, seed=1))
    assert abs(measured.mean - expectation) < 0.05


def _tree_by_enumeration(puzzle, start_blank, depth):
    counts = np.zeros((depth + 1, puzzle.n_cells))
    counts[0, start_blank] = 1
    paths = [(start_blank, None)]
    for i in range(1, depth + 1):
        paths = [(int(puzzle.neighbours[c, d]), d) for c, last in paths for d in range(4)
                 if puzzle.neighbours[c, d] >= 0 and (last is None or d != last ^ 1)]
        for cell, _ in paths:
            counts[i, cell] += 1
    return counts


@pytest.mark.parametrize("start_blank", [0, 1, 4])
def test_brute_force_tree_counts_equal_enumeration(start_blank):
    puzzle = Puzzle(3, 3)
    counts = tree_counts(puzzle, start_blank, 12, "parent")
    assert np.array_equal(counts, _tree_by_enumeration(puzzle, start_blank, 12))


def test_kre_prediction_within_ten_percent_on_the_8_puzzle():
    """Korf, Reid & Edelkamp's setting: a fixed threshold, averaged over random start states."""
    puzzle = Puzzle(3, 3)
    heuristic = baseline(puzzle, "manhattan")
    sample = uniform_states(puzzle, 100_000, seed=1)
    _, values = measure(heuristic, sample)
    distribution = h_distribution_by_blank(puzzle, sample, values)
    starts = uniform_states(puzzle, 300, seed=9)
    for threshold in (22, 26):
        measured = sum(full_iteration(puzzle, s, heuristic, threshold)[0] for s in starts)
        predicted = sum(kre_prediction(puzzle, s, distribution, threshold) for s in starts)
        assert abs(predicted / measured - 1) < 0.10


@pytest.fixture(scope="module")
def pdb_file(tmp_path_factory):
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    path, _ = build_pdb_file(plan_build(puzzle, preset(puzzle, "4-4")), tmp_path_factory.mktemp("cmp") / "pdb.h5")
    return path


def _read(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_compare_heuristics_writes_every_output_and_per_state_values_are_right(tmp_path, pdb_file, capsys):
    states_file = tmp_path / "states.txt"
    exact = distances(3, 3, BLANK_FIRST_3X3)
    chosen = [s for s, _ in itertools.islice(exact.items(), 500, 800)]
    states_file.write_text("\n".join(" ".join(map(str, s)) for s in chosen) + "\n")
    instances = tmp_path / "instances.txt"
    instances.write_text("\n".join(" ".join(map(str, s)) + f" | {exact[s]}" for s in chosen[:5]) + "\n")
    out = tmp_path / "report"
    argv = ["--board", "3x3", "--goal", "0 1 2 3 4 5 6 7 8", "--heuristic", "manhattan", "--heuristic", "lc",
            "--heuristic", f"pdb:{pdb_file}", "--heuristic", f"pdb:{pdb_file}+reflect", "--states", str(states_file),
            "--instances", str(instances), "--out", str(out), "--quiet"]
    assert compare_heuristics_main(argv) == 0
    for name in ("summary.csv", "summary.md", "per_state.csv", "per_instance.csv", "meta.json",
                 "h_distributions.png", "predicted_vs_measured.png", "nodes_per_instance.png"):
        assert (out / name).stat().st_size > 0, name
    rows = _read(out / "per_state.csv")
    four = preset(Puzzle(3, 3, BLANK_FIRST_3X3), "4-4").patterns
    tables = [naive.pattern_table(3, 3, BLANK_FIRST_3X3, p) for p in four]
    for row, state in zip(rows, chosen):
        assert row["state"] == " ".join(map(str, state)) and int(row["exact"]) == exact[state]
        assert int(row["manhattan"]) == naive.manhattan(state, BLANK_FIRST_3X3, 3)
        assert int(row["linear-conflict"]) == naive.linear_conflict(state, BLANK_FIRST_3X3, 3, 3)
        assert int(row[f"pdb:{pdb_file.name}"]) == sum(t[tuple(state.index(x) for x in p)] for p, t in zip(four, tables))
    summary = _read(out / "summary.csv")
    assert [r["admissible_on_sample"] for r in summary] == ["True"] * 4
    per_instance = _read(out / "per_instance.csv")
    assert len(per_instance) == 20 and all(r["status"] == "solved" for r in per_instance)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["command"].startswith("compare-heuristics --board 3x3") and meta["package_version"]


def test_a_seeded_run_is_reproducible(tmp_path):
    for name in ("a", "b"):
        assert compare_heuristics_main(["--board", "2x4", "--sample", "2000", "--seed", "7",
                                        "--out", str(tmp_path / name), "--quiet"]) == 0
    assert (tmp_path / "a" / "per_state.csv").read_text() == (tmp_path / "b" / "per_state.csv").read_text()
