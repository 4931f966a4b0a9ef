"""Learned heuristics: the features and the network's kernel and batch evaluations against a naive
twin on random states of every board size, searches guided by a model, model files and their
refusals, and the training's parts (walks, gradients, DAVI against exact distances, checkpoints)."""

from __future__ import annotations

import h5py
import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom
from solvers.data_files import data_folder
from solvers.errors import InputError
from solvers.file_checksum import FILE_CHECKSUM
from solvers.experiments import compare
from solvers.heuristics import from_spec
from solvers.heuristics.features import feature_set, inputs_of
from solvers.heuristics.learned import batch_h
from solvers.heuristics.model_file import ModelError, read_model, shipped_models, weights_checksum, write_model
from solvers.heuristics.network import Network, forward
from solvers.learning.bootstrap import BootstrapSettings, bootstrap_step, guide, solved_examples
from solvers.learning.davi import (DEFAULT_THRESHOLD, DEFAULT_WARM, WARM_THRESHOLD, DaviSettings, davi_start,
                                   fresh_start)
from solvers.learning.fit import loss_and_gradients
from solvers.learning.held_out import HELD_OUT_STATES, held_out_check, held_out_states
from solvers.learning.learn import checkpoint_path, learn_heuristic
from solvers.learning.walks import UNDO, children, scrambled, walked
from solvers.instances import Instance
from solvers.make_instances import random_instances
from solvers.puzzle import Puzzle
from solvers.reports import write_report
from solvers.solve import solve
from tests import naive
from tests.conftest import STANDARD_2X4, STANDARD_3X3, default_forbidden, distances
from tests.forging import forged
from tests.incremental import walk_values

FEATURES = "manhattan, linear-conflict, blank, cells"


def naive_inputs(state: tuple, goal: tuple, rows: int, cols: int) -> list[float]:
    """The inputs of FEATURES as features.py documents them, computed by hand."""
    n = rows * cols
    blank = [1.0 if tile == 0 else 0.0 for tile in state]
    cells = [0.0] * ((n - 1) * n)
    for cell, tile in enumerate(state):
        if tile:
            cells[(tile - 1) * n + cell] = 1.0
    return [naive.manhattan(state, goal, cols), naive.linear_conflict(state, goal, rows, cols), *blank, *cells]


def naive_h(network: Network, inputs: list[float], at_goal: bool) -> int:
    """h as the kind documents it: the network's output in floats, rounded, at least 1, 0 at the goal."""
    x = (np.array(inputs) - network.shift) / network.spread
    hidden1 = np.maximum(x @ network.w1 + network.b1, 0.0)
    hidden2 = np.maximum(hidden1 @ network.w2 + network.b2, 0.0)
    out = float(hidden2 @ network.w3 + network.b3[0])
    return 0 if at_goal else max(int(np.floor(out + 0.5)), 1)


def manhattan_like_network(n_inputs: int, rng: np.random.Generator, noise: float, hidden=(12, 6)) -> Network:
    """A network whose output is Manhattan distance (the first input) plus random terms of size about `noise`:
    h spreads over many values, as a trained one's does."""
    h1, h2 = hidden
    w1, w2, w3 = rng.normal(0, noise, (n_inputs, h1)), rng.normal(0, 0.5, (h1, h2)), rng.normal(0, 0.5, h2)
    w1[:, 0], w2[:, 0], w2[0, :], w3[0] = 0.0, 0.0, 0.0, 1.0
    w1[0, 0], w2[0, 0] = 1.0, 1.0
    return Network(np.zeros(n_inputs), np.ones(n_inputs), w1, rng.normal(0, noise, h1), w2, np.abs(rng.normal(0, 0.5, h2)),
                   w3, np.array([0.3]))


def model_file(tmp_path, puzzle: Puzzle, spec: str, network_of, name="model.h5"):
    features = feature_set(puzzle, spec)
    network = network_of(features.n_inputs)
    path = write_model(tmp_path / name, features, network, {"method": "hand-made"}, np.zeros((0, 2)))
    return path, network


@pytest.mark.parametrize("board", [(2, 3), (3, 3), (4, 4), (5, 5), (7, 7)])
def test_kernel_and_batch_evaluations_match_a_naive_forward_pass_on_random_states(board, tmp_path):
    rows, cols = board
    puzzle = Puzzle(rows, cols)
    goal = tuple(int(t) for t in puzzle.goal)
    rng = np.random.default_rng(rows * 10 + cols)
    path, network = model_file(tmp_path, puzzle, FEATURES, lambda n: manhattan_like_network(n, rng, 0.7))
    heuristic = from_spec(puzzle, f"learned:{path}")
    states = np.vstack([random_instances(puzzle, 40, seed=rows), puzzle.goal[None]])
    expected = [naive_h(network, naive_inputs(tuple(map(int, s)), goal, rows, cols), tuple(map(int, s)) == goal)
                for s in states]
    assert heuristic.evaluate_many(states).tolist() == expected
    assert batch_h(heuristic.terms[0], states).tolist() == expected
    assert len(set(expected)) > 5  # the states spread over many values of h


def test_learned_heuristics_compose_in_the_tree_and_read_pdb_features(tmp_path):
    puzzle = Puzzle(3, 3, STANDARD_3X3)
    pdb, _ = build_pdb_file(plan_build(puzzle, custom(puzzle, ["1,2,3,4", "5,6,7,8"])), tmp_path / "44.h5")
    spec = f"manhattan, pdb:{pdb}, pdb:{pdb}+reflect, patterns:{pdb}+reflect, cells"
    features = feature_set(puzzle, spec)
    states = np.array(list(distances(3, 3, STANDARD_3X3)), dtype=np.uint8)[::97]
    table = [from_spec(puzzle, f"pdb:{pdb}").evaluate_many(states), from_spec(puzzle, f"pdb:{pdb}+reflect").evaluate_many(states)]
    inputs = inputs_of(features, states)
    assert inputs[:, 1].tolist() == table[0].tolist() and inputs[:, 2].tolist() == table[1].tolist()
    # the patterns' entries add up to the lookup of their view (the reflected one where it is larger)
    assert (inputs[:, 3] + inputs[:, 4]).tolist() == table[0].tolist()
    assert np.maximum(inputs[:, 3] + inputs[:, 4], inputs[:, 5] + inputs[:, 6]).tolist() == table[1].tolist()
    # the model reads the patterns: their entries are the PDB term's own columns, so they are
    # what the move-by-move update must get right
    rng = np.random.default_rng(3)
    path, _ = model_file(tmp_path, puzzle, f"patterns:{pdb}+reflect, cells",
                         lambda n: manhattan_like_network(n, rng, 0.5))
    learned = from_spec(puzzle, f"learned:{path}")
    # move by move, every feature's and the first layer's update gives the values from scratch
    walked, exact, _ = walk_values(learned, np.random.default_rng(8), 200, np.iinfo(np.int64).max)
    assert exact == learned.evaluate_many(walked).tolist() == batch_h(learned.terms[0], walked).tolist()
    combined = from_spec(puzzle, f"max(linear-conflict, learned:{path})")
    by_hand = np.maximum(from_spec(puzzle, "linear-conflict").evaluate_many(states), learned.evaluate_many(states))
    assert combined.evaluate_many(states).tolist() == by_hand.tolist()
    assert not combined.admissible and combined.overestimates


# The search tests share one model: each search kernel is compiled once per heuristic, and a
# feature spec without linear conflict keeps each compile short.
SEARCH_FEATURES = "manhattan, cells"


@pytest.fixture(scope="module")
def search_model(tmp_path_factory):
    """A learned:FILE heuristic on the 2x4 board over SEARCH_FEATURES."""
    puzzle = Puzzle(2, 4)
    rng = np.random.default_rng(2)
    path, _ = model_file(tmp_path_factory.mktemp("model"), puzzle, SEARCH_FEATURES,
                         lambda n: manhattan_like_network(n, rng, 0.5))
    return puzzle, from_spec(puzzle, f"learned:{path}")


def test_ida_with_a_learned_heuristic_matches_a_naive_ida_that_evaluates_every_node_from_scratch(
        search_model, two_by_four_distances):
    # the kernels update the first layer move by move; the naive search evaluates each node anew
    puzzle, heuristic = search_model
    goal = tuple(int(t) for t in puzzle.goal)
    states = [s for s, d in two_by_four_distances.items() if 14 <= d <= 20][::1501][:6]
    for state in states:
        result = solve(puzzle, np.array(state, dtype=np.uint8), "ida", heuristic)
        length, passes = naive.ida_star_counts(state, goal, 2, 4, lambda s: heuristic(np.array(s, dtype=np.uint8)),
                                               forbidden=default_forbidden())
        assert not result.bpmx and result.length == length >= two_by_four_distances[state]
        assert [(p.bound, p.nodes_expanded, p.nodes_generated) for p in result.iterations] == passes


@pytest.mark.parametrize("algorithm, options", [
    ("astar", {}), ("greedy", {}), ("beam", {"beam_width": 20}), ("bulb", {"beam_width": 5}),
    ("anytime", {"time_limit": 2.0}), ("wastar", {"weight": 1.5}), ("bwas", {"batch_size": 10}),
])
def test_every_search_takes_a_learned_heuristic_and_its_bound_only_from_its_admissible_feature(
        algorithm, options, search_model, two_by_four_distances):
    puzzle, heuristic = search_model
    goal = tuple(int(t) for t in puzzle.goal)
    for start in random_instances(puzzle, 4, seed=9):
        result = solve(puzzle, start, algorithm, heuristic, **options)
        state = tuple(map(int, start))
        assert result.status == "solved" and result.length >= two_by_four_distances[state] and not result.bpmx
        bound = naive.manhattan(state, goal, 4)  # SEARCH_FEATURES' one admissible heuristic
        assert (result.lower_bound, result.bound_from) == (bound, "manhattan")
        assert result.optimal == (result.length == bound)


def test_the_admissible_parts_of_a_learned_maximum_are_its_admissible_parts_and_features(tmp_path):
    puzzle = Puzzle(2, 4)
    rng = np.random.default_rng(4)
    with_feature, _ = model_file(tmp_path, puzzle, SEARCH_FEATURES, lambda n: manhattan_like_network(n, rng, 0.5))
    encodings_only, _ = model_file(tmp_path, puzzle, "blank, cells", lambda n: manhattan_like_network(n, rng, 0.5),
                                   name="encodings.h5")
    parts = from_spec(puzzle, f"max(learned:{with_feature}, linear-conflict)").admissible_parts()
    assert sorted(h.name for h in parts) == ["linear-conflict", "manhattan"]
    assert from_spec(puzzle, f"learned:{encodings_only}").admissible_parts() == ()
    assert [h.name for h in from_spec(puzzle, "linear-conflict").admissible_parts()] == ["linear-conflict"]
    start = random_instances(puzzle, 1, seed=3)[0]
    result = solve(puzzle, start, "greedy", f"learned:{encodings_only}")
    assert result.status == "solved" and (result.lower_bound, result.bound_from, result.optimal) == (None, "", False)


def test_compare_reports_how_a_learned_heuristic_errs_beside_manhattan_and_searches_only_with_manhattan(
        search_model, two_by_four_distances, tmp_path):
    puzzle, learned = search_model
    manhattan = from_spec(puzzle, "manhattan")
    ordered = sorted(two_by_four_distances)
    states = np.array(ordered[::37], dtype=np.uint8)
    instances = [Instance(i + 1, np.array(s, dtype=np.uint8), two_by_four_distances[s])
                 for i, s in enumerate(ordered[5::4001])]
    comparison = compare(puzzle, [manhattan, learned], states, instances=instances, exact=True)
    measured = {m.name: m for m in comparison.measures}
    for heuristic, at in ((learned, states), (manhattan, states)):
        error = heuristic.evaluate_many(at).astype(int) - [two_by_four_distances[tuple(s)] for s in at.tolist()]
        over = error[error > 0]
        assert measured[heuristic.name].errors == pytest.approx({
            "mean_error": error.mean(), "mean_absolute_error": np.abs(error).mean(),
            "share_overestimated": over.size / error.size, "mean_overestimate": over.mean() if over.size else 0.0,
            "max_overestimate": over.max() if over.size else 0})
    assert measured[learned.name].errors["share_overestimated"] > 0 == measured["manhattan"].errors["max_overestimate"]
    starts = np.array([instance.start for instance in instances])
    expected = learned.evaluate_many(starts).astype(int) - [instance.optimal for instance in instances]
    assert measured[learned.name].instance_errors["mean_error"] == pytest.approx(expected.mean())
    assert comparison.not_searched == (learned.name,)
    assert {row["heuristic"] for row in comparison.instance_rows} == {"manhattan"}
    write_report(comparison, tmp_path / "report", {"command": "test", "package_version": "0", "seed": 1,
                                                   "source": "every 37th state"})
    summary = " ".join((tmp_path / "report" / "summary.md").read_text().split())  # its lines wrapped at 100
    assert f"because they may overestimate (IDA*'s optimality and KRE's prediction assume a heuristic that never " \
           f"does): {learned.name}." in summary
    assert "instance_share_overestimated" in (tmp_path / "report" / "summary.csv").read_text().splitlines()[0]


def test_model_files_round_trip_with_their_provenance(tmp_path):
    puzzle = Puzzle(2, 3, [0, 1, 2, 3, 4, 5])
    rng = np.random.default_rng(1)
    path, network = model_file(tmp_path, puzzle, "manhattan, blank", lambda n: manhattan_like_network(n, rng, 0.5))
    stored = read_model(path, puzzle)
    assert stored.puzzle == puzzle and stored.features == "manhattan, blank"
    assert stored.training == {"method": "hand-made"} and stored.pdb_files == ()
    assert all(np.array_equal(a, b) for a, b in zip(stored.network, network))
    with pytest.raises(InputError, match="exists"):
        write_model(path, feature_set(puzzle, "manhattan, blank"), network, {}, np.zeros((0, 2)))


def test_models_for_another_board_or_goal_and_damaged_files_are_refused(tmp_path):
    puzzle = Puzzle(2, 3)
    rng = np.random.default_rng(1)
    path, network = model_file(tmp_path, puzzle, "manhattan, cells", lambda n: manhattan_like_network(n, rng, 0.5))
    with pytest.raises(ModelError, match="trained for a 2x3 board, not 3x2"):
        from_spec(Puzzle(3, 2), f"learned:{path}")
    with pytest.raises(ModelError, match="trained for goal 1 2 3 4 5 0, not 0 1 2 3 4 5"):
        from_spec(Puzzle(2, 3, [0, 1, 2, 3, 4, 5]), f"learned:{path}")
    with pytest.raises(ModelError, match="no such model file"):
        from_spec(puzzle, f"learned:{tmp_path / 'none.h5'}")
    (tmp_path / "text.h5").write_text("not a model\n")
    with pytest.raises(ModelError, match="not a readable tilepdb model file"):
        from_spec(puzzle, f"learned:{tmp_path / 'text.h5'}")

    def altered(name, change, opened=forged):
        copy = tmp_path / name
        copy.write_bytes(path.read_bytes())
        with opened(copy) as handle:
            change(handle)
        return copy

    def tamper(handle, value=None):
        weights = handle["w2"][()]
        weights[0, 0] = weights[0, 0] + 1.0 if value is None else value
        handle["w2"][...] = weights

    def not_finite(value):
        def change(handle):
            tamper(handle, value)
            handle.attrs["checksum"] = weights_checksum(Network(**{n: handle[n][()] for n in Network._fields}))
        return change

    def unsigned(copy):
        return h5py.File(copy, "r+")

    for name, change in {"goal.h5": lambda h: h.attrs.__setitem__("goal", h.attrs["goal"][::-1]),
                         "board.h5": lambda h: h.attrs.__setitem__("board_rows", 1),
                         "weights.h5": tamper}.items():
        with pytest.raises(ModelError, match="were changed after it was written"):
            from_spec(puzzle, f"learned:{altered(name, change, unsigned)}")
    unsigned_file = altered("unsigned.h5", lambda h: h.attrs.__delitem__(FILE_CHECKSUM), unsigned)
    with pytest.raises(ModelError, match="older tilepdb.*train the model again"):
        from_spec(puzzle, f"learned:{unsigned_file}")
    cases = {
        "nan.h5": (not_finite(np.nan), "w2 hold values that are not finite"),
        "infinite.h5": (not_finite(-np.inf), "w2 hold values that are not finite"),
        "tampered.h5": (tamper, "fail their checksum"),
        "missing.h5": (lambda h: h.__delitem__("w3"), "damaged: KeyError"),
        "version.h5": (lambda h: h.attrs.__setitem__("format_version", 99), "format version 99 is not 1"),
        "other.h5": (lambda h: h.attrs.__setitem__("format", "something else"), "not a tilepdb model file"),
        "features.h5": (lambda h: h.attrs.__setitem__("features", "manhattan, blank"), "features give 7 inputs but its network reads 31"),
    }
    for name, (change, message) in cases.items():
        with pytest.raises(ModelError, match=message):
            from_spec(puzzle, f"learned:{altered(name, change)}")


@pytest.mark.parametrize("item", ["pdb", "patterns"])
def test_a_model_whose_pdb_file_is_missing_or_differs_is_refused_with_the_command_that_builds_it(item, tmp_path):
    puzzle = Puzzle(2, 4)
    folder = tmp_path / "pdbs"
    folder.mkdir()
    pdb, _ = build_pdb_file(plan_build(puzzle, custom(puzzle, ["1,2,3", "4,5,6,7"])), folder / "34.h5")
    rng = np.random.default_rng(4)
    path, _ = model_file(tmp_path, puzzle, f"{item}:{pdb}, blank", lambda n: manhattan_like_network(n, rng, 0.5))
    assert read_model(path).features == f"{item}:pdbs/34.h5, blank"  # relative to the model's folder
    moved = tmp_path / "moved"
    moved.mkdir()
    (moved / "pdbs").mkdir()
    (moved / "model.h5").write_bytes(path.read_bytes())
    (moved / "pdbs" / "34.h5").write_bytes(pdb.read_bytes())
    assert from_spec(puzzle, f"learned:{moved / 'model.h5'}").evaluate_many(puzzle.goal[None]).tolist() == [0]
    pdb.unlink()
    with pytest.raises(ModelError) as refusal:
        from_spec(puzzle, f"learned:{path}")
    message = str(refusal.value)
    assert "34.h5, which is missing; build it with: build-pdb --board 2x4" in message and f"--out {pdb}" in message
    build_pdb_file(plan_build(puzzle, custom(puzzle, ["1,2,3", "4,5,6,7"]), zero_aware=True), pdb)
    with pytest.raises(ModelError, match="is not the one the model was trained on"):
        from_spec(puzzle, f"learned:{path}")


def test_shipped_models_are_found_by_name_and_name_the_pdb_files_they_read_and_their_training(tmp_path):
    names = shipped_models()
    assert "6x6-blank-first-5-5-5-5-5-5-5-davi" in names
    for name in names:
        stored = read_model(name)
        board = stored.puzzle.board
        assert stored.path == data_folder() / "models" / f"{name}.h5" and name.startswith(f"{board}-blank-first-")
        assert stored.training["method"] == "davi" and stored.training["seconds"] > 0
        for entry in stored.pdb_files:  # where build-pdb writes by default from a checkout's root
            assert entry["path"].startswith("../pdbs/") and entry["build"].startswith(f"build-pdb --board {board}")
        elsewhere = tmp_path / name / "models"  # a copy beside no PDB files: refused with the command
        elsewhere.mkdir(parents=True)
        (elsewhere / "m.h5").write_bytes(stored.path.read_bytes())
        with pytest.raises(ModelError, match=f"which is missing; build it with: build-pdb --board {board}"):
            from_spec(stored.puzzle, f"learned:{elsewhere / 'm.h5'}")
    with pytest.raises(ModelError, match="no such model file .the shipped models: .*6x6-blank-first"):
        read_model("no-such-model")


def test_walks_and_children_are_legal_moves_of_the_naive_model(two_by_four_distances):
    puzzle = Puzzle(2, 4)
    rng = np.random.default_rng(6)
    lengths = rng.integers(0, 40, 300)
    states = scrambled(puzzle, lengths, rng)
    for state, length in zip(states, lengths):  # a walk of k moves ends at most k moves away, at k's parity
        distance = two_by_four_distances[tuple(map(int, state))]
        assert distance <= length and (length - distance) % 2 == 0
    kids, legal = children(puzzle, states[:40])
    for state, row, allowed in zip(states[:40], kids, legal):
        expected = set(naive.blank_moves(tuple(map(int, state)), 2, 4))
        assert {tuple(map(int, k)) for k, ok in zip(row, allowed) if ok} == expected
        assert allowed.sum() == len(expected)


def test_walks_of_length_zero_stay_at_the_goal_and_never_undo_their_last_move():
    puzzle = Puzzle(2, 3)
    rng = np.random.default_rng(1)
    assert (scrambled(puzzle, np.zeros(5, dtype=int), rng) == puzzle.goal).all()
    exact = distances(2, 3, tuple(int(t) for t in puzzle.goal))
    two = scrambled(puzzle, np.full(300, 2), rng)  # a walk that never undoes a move is two moves away
    assert {exact[tuple(map(int, s))] for s in two} == {2}


@pytest.mark.parametrize("board", [(2, 3), (3, 3), (4, 5)])
def test_the_walk_kernel_follows_a_naive_walk_reading_the_same_random_numbers(board):
    rows, cols = board
    puzzle = Puzzle(rows, cols)
    rng = np.random.default_rng(rows * cols)
    lengths, draws = rng.integers(0, 60, 40), rng.random((40, 60))
    walks = walked(puzzle.goal.astype(np.uint8), puzzle.blank_goal_cell, puzzle.neighbours.astype(np.int64),
                   lengths, draws, UNDO)
    for walk, length, row in zip(walks, lengths, draws):
        state, previous = tuple(int(t) for t in puzzle.goal), None
        for draw in row[:length]:  # the children in U, D, L, R order but the one the last move came from
            options = [child for child in naive.blank_moves(state, rows, cols) if child != previous]
            state, previous = options[int(draw * len(options))], state
        assert tuple(map(int, walk)) == state


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(3)
    network = Network(rng.normal(0, 1, 5), rng.uniform(0.5, 2, 5), rng.normal(0, 1, (5, 7)), rng.normal(0, 1, 7),
                      rng.normal(0, 1, (7, 4)), rng.normal(0, 1, 4), rng.normal(0, 1, 4), rng.normal(0, 1, 1))
    inputs, targets = rng.normal(0, 1, (9, 5)), rng.normal(0, 3, 9)
    _, gradients = loss_and_gradients(network, inputs, targets)
    step = 1e-6
    for name, gradient in gradients.items():
        array = getattr(network, name)
        for index in list(np.ndindex(array.shape))[:6]:
            moved = [array.copy(), array.copy()]
            moved[0][index] += step
            moved[1][index] -= step
            up, down = (loss_and_gradients(network._replace(**{name: m}), inputs, targets)[0] for m in moved)
            assert gradient[index] == pytest.approx((up - down) / (2 * step), rel=1e-4, abs=1e-6), (name, index)


DAVI_2X3 = DaviSettings(batch=200, max_moves=30, check_every=50, threshold=0.02, rate=3e-3)


def test_davi_learns_every_2x3_distance_to_within_half_a_move(tmp_path):
    puzzle = Puzzle(2, 3)
    exact = distances(2, 3, tuple(int(t) for t in puzzle.goal))
    out = learn_heuristic(puzzle, "cells", tmp_path / "m.h5", hidden=(64, 32), iterations=3000, seed=1,
                          settings=DAVI_2X3)
    states = np.array(list(exact), dtype=np.uint8)
    stored = read_model(out, puzzle)
    assert np.abs(forward(stored.network, inputs_of(feature_set(puzzle, "cells"), states)) - list(exact.values())).max() < 0.5
    assert from_spec(puzzle, f"learned:{out}").evaluate_many(states).tolist() == list(exact.values())
    assert stored.training["iterations"] == 3000 and stored.training["method"] == "davi"
    assert stored.loss_curve.shape == (60, 2) and not checkpoint_path(out).exists()


def test_a_warm_start_fits_the_admissible_features_and_then_draws_every_walk_length(two_by_four_distances):
    puzzle = Puzzle(2, 4)
    features = feature_set(puzzle, "manhattan, blank, cells")
    settings = DaviSettings(batch=200, max_moves=30, warm=400, rate=3e-3)
    state = davi_start(features, (32, 16), settings, np.random.default_rng(2))
    goal = tuple(int(t) for t in puzzle.goal)
    states = np.array(list(two_by_four_distances), dtype=np.uint8)[::37]
    manhattan = [naive.manhattan(tuple(map(int, s)), goal, 4) for s in states]
    fresh = fresh_start(features, (32, 16), settings, np.random.default_rng(2))
    errors = [np.abs(forward(s.network, inputs_of(features, states)) - manhattan).mean() for s in (fresh, state)]
    assert errors[1] < 1.0 < errors[0]  # the network now says what Manhattan distance says
    assert state.longest == settings.max_moves and state.target is state.network and state.iterations == 0
    with pytest.raises(InputError, match="has none"):
        davi_start(feature_set(puzzle, "cells"), (8, 4), settings, np.random.default_rng(2))


def test_bootstrap_rounds_fit_the_moves_left_along_their_solutions_and_lower_the_error_on_3x3(eight_puzzle_distances):
    """A round fits the network to the moves each solution still takes (never fewer than the
    distance), which lowers its error against the distances of a ninth of all states; the next
    round searches with the heuristic learned so far and lowers it again."""
    puzzle = Puzzle(3, 3)
    features = feature_set(puzzle, SEARCH_FEATURES)
    settings = BootstrapSettings(instances=40, search_nodes=20_000, epochs=30, first_moves=30, grow=0)
    rng = np.random.default_rng(5)
    sample = sorted(eight_puzzle_distances)[::9]
    states, exact = np.array(sample, dtype=np.uint8), np.array([eight_puzzle_distances[s] for s in sample])

    def mean_error(state):
        return np.abs(forward(state.network, inputs_of(features, states)) - exact).mean()

    state = fresh_start(features, (32, 16), settings, rng)  # as learn.py starts a bootstrap training
    errors = [mean_error(state)]
    for round_number in range(2):
        guiding = guide(features, settings, state)
        assert guiding.overestimates == (round_number > 0)
        starts = scrambled(puzzle, rng.integers(10, 31, 10), rng)
        examples, targets, solved = solved_examples(features, settings, guiding, starts)
        assert solved > 0 and targets.tolist().count(0) == solved  # one goal per solution
        assert all(eight_puzzle_distances[tuple(s)] <= t for s, t in zip(examples.tolist(), targets)), round_number
        state = bootstrap_step(features, settings, state, rng)
        errors.append(mean_error(state))
    assert state.iterations == 2 and state.states > 0 and len(state.curve) == 2
    assert errors[2] < errors[1] < errors[0], errors  # each round, the second guided by the first's model


def test_an_interrupted_training_resumes_to_the_same_model_as_one_that_ran_through(tmp_path):
    puzzle = Puzzle(2, 3)
    settings = DAVI_2X3._replace(batch=50, check_every=5)
    straight = learn_heuristic(puzzle, "manhattan, cells", tmp_path / "a.h5", hidden=(8, 4), iterations=40, seed=3,
                               settings=settings)

    def interrupt_at_25(state):
        if state.iterations == 25:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        learn_heuristic(puzzle, "manhattan, cells", tmp_path / "b.h5", hidden=(8, 4), iterations=40, seed=3,
                        settings=settings, checkpoint_seconds=0.0, progress=interrupt_at_25)
    assert checkpoint_path(tmp_path / "b.h5").exists() and read_model(tmp_path / "b.h5").training["iterations"] == 24
    with pytest.raises(InputError, match="exists; give --force"):
        learn_heuristic(puzzle, "manhattan, cells", tmp_path / "b.h5", hidden=(8, 4), iterations=40, seed=3,
                        settings=settings)
    with pytest.raises(InputError, match="another training .its seed differ"):
        learn_heuristic(puzzle, "manhattan, cells", tmp_path / "b.h5", hidden=(8, 4), iterations=40, seed=4,
                        settings=settings, resume=True)
    resumed = learn_heuristic(puzzle, "manhattan, cells", tmp_path / "b.h5", hidden=(8, 4), iterations=40, seed=3,
                              settings=settings, resume=True)
    a, b = read_model(straight), read_model(resumed)
    assert all(np.array_equal(x, y) for x, y in zip(a.network, b.network)) and b.training["iterations"] == 40
    assert np.array_equal(a.loss_curve, b.loss_curve) and not checkpoint_path(resumed).exists()


def test_learn_heuristic_command_writes_a_model_and_refuses_bad_options_in_one_line(tmp_path, capsys):
    from solvers.cli import learn_heuristic_main

    out = tmp_path / "m.h5"
    assert learn_heuristic_main(["--board", "2x3", "--features", "manhattan, blank", "--iterations", "20",
                                 "--batch", "20", "--hidden", "4,3", "--out", str(out), "--quiet"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert from_spec(Puzzle(2, 3), f"learned:{out}").evaluate_many(Puzzle(2, 3).goal[None]).tolist() == [0]
    assert learn_heuristic_main(["--board", "2x3", "--features", "manhattan, blank", "--method", "bootstrap",
                                 "--iterations", "2", "--instances", "5", "--hidden", "4,3", "--out", str(out),
                                 "--force", "--quiet"]) == 0
    capsys.readouterr()
    training = read_model(out).training
    assert (training["method"], training["iterations"], training["settings"]["instances"]) == ("bootstrap", 2, 5)
    refusals = [
        (["--features", "manhattan, blank", "--iterations", "5"], "exists; give --force to overwrite it"),
        (["--features", "", "--iterations", "5", "--force"], "no features given"),
        (["--features", "manhattan, manhattan", "--iterations", "5", "--force"], "manhattan given twice"),
        (["--features", "cells", "--force"], "give a budget"),
        (["--features", "cells", "--iterations", "5", "--hidden", "4", "--force"], "give the two hidden layers"),
        (["--features", "cells", "--iterations", "5", "--resume", "--force"], "no checkpoint to resume from"),
        (["--features", "cells", "--iterations", "5", "--instances", "9", "--force"],
         "--instances apply to --method bootstrap only"),
        (["--features", "cells", "--iterations", "5", "--method", "bootstrap", "--warm", "9", "--force"],
         "--warm apply to --method davi only"),
        (["--features", "cells", "--iterations", "5", "--warm", "9", "--force"], "has none (add manhattan"),
    ]
    for extra, message in refusals:
        assert learn_heuristic_main(["--board", "2x3", "--out", str(out), "--quiet", *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    with pytest.raises(SystemExit) as refused:  # argparse's refusal of the option's value
        learn_heuristic_main(["--board", "2x3", "--features", "cells", "--iterations", "5", "--warm", "-1",
                              "--out", str(out), "--force", "--quiet"])
    err = capsys.readouterr().err
    assert refused.value.code == 2 and err.count("\n") == 1 and "'-1' must be 0 (no warm start) or more" in err


def test_the_default_warm_start_applies_where_a_feature_is_admissible_and_not_where_none_is(tmp_path):
    """DAVI's defaults warm-start from the admissible features (and refresh at every check), and
    quietly do not where no feature is admissible; warm=0 turns the warm start off."""
    puzzle = Puzzle(2, 3)
    states = np.array(list(distances(2, 3, tuple(int(t) for t in puzzle.goal))), dtype=np.uint8)
    manhattan = from_spec(puzzle, "manhattan").evaluate_many(states)

    def trained(spec, name, **given):
        out = learn_heuristic(puzzle, spec, tmp_path / name, hidden=(16, 8), iterations=3, seed=1,
                              settings=DaviSettings(batch=50, max_moves=20, **given))
        stored = read_model(out)
        values = forward(stored.network, inputs_of(feature_set(puzzle, spec), states))
        return stored.training, np.abs(values - manhattan)

    training, off = trained("manhattan, blank", "warm.h5")
    assert (training["settings"]["warm"], training["settings"]["threshold"]) == (DEFAULT_WARM, WARM_THRESHOLD)
    assert training["longest_walk"] == 20 and off.mean() < 0.5  # every walk length at once; the net says manhattan
    training, cold = trained("manhattan, blank", "cold.h5", warm=0)
    assert (training["settings"]["warm"], training["settings"]["threshold"]) == (0, DEFAULT_THRESHOLD)
    assert training["longest_walk"] == 4 and cold.mean() > 2.0  # the walks grow from the goal; the net knows little
    training, _ = trained("blank, cells", "encodings.h5")
    assert (training["settings"]["warm"], training["settings"]["threshold"]) == (0, DEFAULT_THRESHOLD)
    assert training["longest_walk"] == 4


def test_learn_heuristic_ends_with_a_held_out_line_that_gives_both_errors_and_names_the_best_feature(
        tmp_path, capsys, two_by_four_distances):
    from solvers.cli import learn_heuristic_main

    puzzle, out = Puzzle(2, 4), tmp_path / "m.h5"
    assert learn_heuristic_main(["--board", "2x4", "--features", "manhattan, linear-conflict", "--iterations", "200",
                                 "--batch", "100", "--max-moves", "40", "--hidden", "16,8", "--seed", "7",
                                 "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out.splitlines()
    check = read_model(out).training["held_out"]
    assert printed == [f"wrote {out}" + printed[0][len(f"wrote {out}"):], check["line"]]
    # the figures, recomputed from the same held-out states with a naive distance table
    states = held_out_states(puzzle, 7)
    assert len(states) == HELD_OUT_STATES and check["seed"] == [7, 1]
    exact = np.array([two_by_four_distances[tuple(s)] for s in states.tolist()])
    conflict = np.array([naive.linear_conflict(tuple(s), STANDARD_2X4, 2, 4) for s in states.tolist()])
    model = from_spec(puzzle, f"learned:{out}").evaluate_many(states)
    assert check["feature"] == "linear-conflict" and check["against"] == "exact distances"
    assert check["feature_mean_absolute_error"] == pytest.approx(np.abs(conflict - exact).mean(), abs=1e-4)
    assert check["model_mean_absolute_error"] == pytest.approx(np.abs(model - exact).mean(), abs=1e-4)
    assert check["worse"] is False and check["model_mean_absolute_error"] < check["feature_mean_absolute_error"]
    assert (f"mean absolute error is {check['model_mean_absolute_error']:.2f} moves, linear-conflict's "
            f"{check['feature_mean_absolute_error']:.2f} (the best admissible feature): the model is better"
            in check["line"])
    assert check["line"].startswith("held-out check on 1,000 random states with exact distances")


def test_a_model_worse_than_its_feature_is_reported_as_such_with_what_to_do(tmp_path, capsys, two_by_four_distances):
    from solvers.cli import learn_heuristic_main

    out = tmp_path / "m.h5"
    assert learn_heuristic_main(["--board", "2x4", "--features", "manhattan, blank", "--iterations", "1",
                                 "--warm", "0", "--hidden", "8,4", "--out", str(out), "--quiet"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    check = read_model(out).training["held_out"]
    assert check["worse"] is True and check["model_mean_absolute_error"] > check["feature_mean_absolute_error"]
    assert line == check["line"]
    assert (f"the model's mean absolute error, {check['model_mean_absolute_error']:.2f} moves, is worse than "
            f"manhattan's, {check['feature_mean_absolute_error']:.2f} (the best admissible feature): train longer "
            "(--seconds, --iterations), start from the feature with a warm start (without --warm 0), or search with "
            "manhattan itself") in line


def offset_manhattan(n_inputs: int, offset: float) -> Network:
    """A network whose output is its first input (Manhattan distance) plus `offset`."""
    w1, w2, w3 = np.zeros((n_inputs, 2)), np.zeros((2, 2)), np.zeros(2)
    w1[0, 0] = w2[0, 0] = w3[0] = 1.0
    return Network(np.zeros(n_inputs), np.ones(n_inputs), w1, np.zeros(2), w2, np.zeros(2), w3, np.array([offset]))


def test_beyond_exact_distances_the_check_takes_the_admissible_features_as_the_floor():
    """On 4x4 a model below its best admissible feature on average is surely worse (its mean
    absolute error exceeds the feature's); one above it is not called worse; without an admissible
    feature there is nothing to compare with and no check."""
    puzzle = Puzzle(4, 4)
    features = feature_set(puzzle, "manhattan, linear-conflict, blank")
    states = held_out_states(puzzle, 3)
    conflict = from_spec(puzzle, "linear-conflict").evaluate_many(states)
    manhattan = from_spec(puzzle, "manhattan").evaluate_many(states)
    below = held_out_check(features, offset_manhattan(features.n_inputs, -1.0), 3)
    assert (below["feature"], below["against"], below["worse"]) == ("linear-conflict", "admissible features", True)
    assert below["feature_mean_h"] == pytest.approx(conflict.mean(), abs=1e-4)
    assert below["model_mean_h"] == pytest.approx((manhattan - 1).mean(), abs=1e-4)
    assert below["share_below_feature"] == 1.0
    assert "(4x4 is too large for exact distances; the admissible features are the floor)" in below["line"]
    assert (f"and it is below linear-conflict on 100% of the states, so its mean absolute error is surely larger: "
            f"the model is worse than linear-conflict: train longer") in below["line"]
    above = held_out_check(features, offset_manhattan(features.n_inputs, 6.0), 3)
    assert above["worse"] is False and above["model_mean_h"] == pytest.approx((manhattan + 6).mean(), abs=1e-4)
    assert above["share_below_feature"] == pytest.approx(np.mean(manhattan + 6 < conflict), abs=1e-4)
    assert above["share_below_feature"] > 0
    assert f"the model is below linear-conflict on {above['share_below_feature']:.0%} of the states" in above["line"]
    encodings = feature_set(puzzle, "blank")
    assert held_out_check(encodings, offset_manhattan(encodings.n_inputs, 0.0), 3) is None


def test_without_an_admissible_feature_the_check_gives_the_models_error_alone():
    puzzle = Puzzle(2, 3)
    exact = distances(2, 3, tuple(int(t) for t in puzzle.goal))
    features = feature_set(puzzle, "blank, cells")
    constant = offset_manhattan(features.n_inputs, 5.0)._replace(w3=np.zeros(2))  # h = 5 away from the goal
    check = held_out_check(features, constant, 2)
    states = held_out_states(puzzle, 2).tolist()
    expected = np.mean([0 if exact[tuple(s)] == 0 else abs(5 - exact[tuple(s)]) for s in states])
    assert check["model_mean_absolute_error"] == pytest.approx(expected, abs=1e-4) and "feature" not in check
    assert check["line"] == ("held-out check on 1,000 random states with exact distances: the model's mean "
                             f"absolute error is {expected:.2f} moves (no feature is an admissible heuristic to "
                             "compare it with)")
