"""Fault drill, load: a thousand random 8-puzzles through solve-batch on two workers, every
solution checked against exact distances computed independently, nothing left running."""

from __future__ import annotations

import numpy as np

from solvers.puzzle import Puzzle
from tests.conftest import STANDARD_3X3, distances
from tests.faults_support import (
    cleanup,
    read_rows,
    replay,
    script,
    spawn,
    wait_until_group_gone,
)

N_LOAD = 1000


def test_a_thousand_instances_on_two_workers(tmp_path):
    exact = distances(3, 3, STANDARD_3X3)
    puzzle = Puzzle(3, 3)
    rng = np.random.default_rng(1000)
    states = [tuple(int(t) for t in puzzle.random_state(rng)) for _ in range(N_LOAD)]
    instances = tmp_path / "thousand.txt"
    # half of them with their known length, so that the batch checks those itself as well
    instances.write_text("# board: 3x3\n" + "".join(
        " ".join(map(str, s)) + (f" | {exact[s]}" if i % 2 else "") + "\n" for i, s in enumerate(states)))
    out = tmp_path / "thousand.csv"
    process = spawn([*script("solve-batch"), str(instances), "--heuristic", "linear-conflict", "--out", str(out),
                     "--jobs", "2", "--quiet"])
    try:
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr[-1500:]
        assert stderr == "", stderr[-1500:]
        assert f"instances {N_LOAD}: {N_LOAD} solved, 0 not solved" in stdout
        alive = wait_until_group_gone(process.pid, timeout=10)
        assert alive == [], f"worker processes left behind: {alive}"
    finally:
        cleanup(process)
    rows = read_rows(out)
    assert [int(r["id"]) for r in rows] == list(range(1, N_LOAD + 1))
    for row, state in zip(rows, states):
        assert row["status"] == "solved", row
        assert int(row["length"]) == exact[state] == len(row["moves"]), (row["id"], row["length"], exact[state])
        assert replay(state, row["moves"], 3, 3) == STANDARD_3X3, row["id"]
        assert int(row["nodes_generated"]) >= int(row["nodes_expanded"]) >= 0


def test_korf_100_with_five_five_five_reproduces_every_published_length(tmp_path):
    """Korf's 100 through solve-batch on two workers with a 5-5-5 PDB built here: every length
    equals the published optimum (the batch checks them and exits 1 on a mismatch), every move
    string replays to the goal, and no worker is left running."""
    from pdb_build.build import build_pdb_file, plan_build
    from pdb_build.partitions import preset
    from solvers.instances import load_instances

    puzzle, instances = load_instances("data/korf100.txt")
    pdb, _ = build_pdb_file(plan_build(puzzle, preset(puzzle, "5-5-5")), tmp_path / "555.h5")
    out = tmp_path / "korf100.csv"
    process = spawn([*script("solve-batch"), "data/korf100.txt", "--heuristic", "pdb", "--pdb", str(pdb),
                     "--reflect", "--out", str(out), "--jobs", "2", "--quiet"])
    try:
        stdout, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr[-1500:]
        assert "instances 100: 100 solved, 0 not solved" in stdout and "mean length 53.05" in stdout
        assert wait_until_group_gone(process.pid, timeout=10) == []
    finally:
        cleanup(process)
    rows = read_rows(out)
    assert [int(r["length"]) for r in rows] == [i.optimal for i in instances]
    goal = tuple(range(16))
    for row, instance in zip(rows, instances):
        assert replay(tuple(instance.start.tolist()), row["moves"], 4, 4) == goal, row["id"]
