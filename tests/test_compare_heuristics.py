"""compare-heuristics as a user runs it: instance and state files read as solve-batch reads them,
known lengths checked, unsolvable states refused, an --out folder it does not own left alone,
plots with one marker per instance, one-line errors."""

import csv
import dataclasses
import json
import math

import numpy as np
import pytest
from matplotlib.ticker import MaxNLocator

from solvers.commands import compare_heuristics as compare_command
from solvers.cli import compare_heuristics_main
from solvers.errors import InputError
from solvers.experiments import compare, full_iteration
from solvers.heuristics import baseline
from solvers.instances import load_instances
from solvers.reports import WIDTH, figures, summary_table
from solvers.search.ida import ida_star
from tests import naive
from tests.conftest import distances

BLANK_FIRST_3X3 = tuple(range(9))
HARDEST_8 = [(8, 0, 6, 5, 4, 7, 2, 3, 1), (8, 7, 6, 0, 4, 1, 2, 5, 3)]


def _read(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def _run(capsys, *argv):
    """compare-heuristics in this process; returns (exit status, stdout, stderr)."""
    status = compare_heuristics_main([*map(str, argv), "--quiet"])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _one_line_error(status, out, err):
    assert status == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    return err


def test_the_hardest_8_puzzle_file_is_solved_towards_its_header_goal(tmp_path, capsys):
    """The file's `# goal:` (blank first) is honoured although only --board is given: both
    positions are 31 moves from it (exhaustive BFS), and 27 and 25 from the blank-last goal."""
    exact = distances(3, 3, BLANK_FIRST_3X3)
    assert [exact[s] for s in HARDEST_8] == [31, 31]
    status, out, err = _run(capsys, "--board", "3x3", "--instances", "data/hardest8-31.txt", "--heuristic", "manhattan",
                            "--sample", 300, "--out", tmp_path / "r")
    assert status == 0 and err == ""
    assert out.startswith("3x3 board, goal 0 1 2 3 4 5 6 7 8: 300 states (uniform random), solving 2 instances")
    rows = _read(tmp_path / "r" / "per_instance.csv")
    assert [(r["instance"], r["status"], r["length"], r["known_length"]) for r in rows] == \
        [("1", "solved", "31", "31"), ("2", "solved", "31", "31")]
    assert json.loads((tmp_path / "r" / "meta.json").read_text())["goal"] == list(BLANK_FIRST_3X3)
    for row in _read(tmp_path / "r" / "per_state.csv"):  # the sample and its exact distances use that goal too
        state = tuple(map(int, row["state"].split()))
        assert int(row["exact"]) == exact[state] and int(row["manhattan"]) == naive.manhattan(state, BLANK_FIRST_3X3, 3)


def test_a_wrong_known_length_is_reported_and_the_exit_status_is_1(tmp_path, capsys):
    instances = tmp_path / "wrong.txt"
    instances.write_text("# goal: 0 1 2 3 4 5 6 7 8\n" + " ".join(map(str, HARDEST_8[0])) + " | 31\n"
                         + " ".join(map(str, HARDEST_8[1])) + " | 30\n")
    status, out, err = _run(capsys, "--instances", instances, "--heuristic", "manhattan", "--sample", 300,
                            "--out", tmp_path / "r")
    assert status == 1
    assert err == "MISMATCH: manhattan solved instance 2 in 31 moves, but its known optimal length is 30\n"
    assert [r["length"] for r in _read(tmp_path / "r" / "per_instance.csv")] == ["31", "31"]


def test_korf_instances_are_solved_towards_their_header_goal(tmp_path, capsys):
    """Without --goal, Korf's 100 are solvable (towards the blank-first goal of the header), and
    the lengths equal the published ones. Two of the cheapest for Manhattan distance."""
    status, out, err = _run(capsys, "--instances", "data/korf100.txt", "--only", "79,12", "--heuristic", "manhattan",
                            "--sample", 2000, "--out", tmp_path / "r")
    assert status == 0 and err == ""
    _, korf = load_instances("data/korf100.txt")
    rows = _read(tmp_path / "r" / "per_instance.csv")
    assert [(int(r["instance"]), r["status"], int(r["length"])) for r in rows] == \
        [(12, "solved", korf[11].optimal), (79, "solved", korf[78].optimal)]
    assert json.loads((tmp_path / "r" / "meta.json").read_text())["goal"] == list(range(16))


def test_an_instance_the_goal_cannot_be_reached_from_is_refused(tmp_path, capsys):
    status, out, err = _run(capsys, "--instances", "data/korf100.txt", "--goal", " ".join(map(str, [*range(1, 16), 0])),
                            "--first", 2, "--out", tmp_path / "r")
    assert "korf100.txt: 2 instances cannot reach the goal 1 2 3" in _one_line_error(status, out, err)
    assert "numbered in file order: 1, 2;" in err and not (tmp_path / "r").exists()


def _states_file(path, states, header="# goal: 0 1 2 3 4 5 6 7 8\n"):
    path.write_text(header + "".join(" ".join(map(str, s)) + "\n" for s in states))
    return path


def test_unsolvable_states_are_refused_and_the_means_are_over_the_listed_states(tmp_path, capsys):
    exact = distances(3, 3, BLANK_FIRST_3X3)
    chosen = list(exact)[1000:1200:10]
    unsolvable = (0, 2, 1, 3, 4, 5, 6, 7, 8)
    assert unsolvable not in exact
    states = _states_file(tmp_path / "states.txt", chosen[:5] + [unsolvable] + chosen[5:])
    status, out, err = _run(capsys, "--states", states, "--out", tmp_path / "r")
    message = _one_line_error(status, out, err)
    assert "states.txt: 1 state cannot reach the goal 0 1 2 3 4 5 6 7 8" in message and "order: 6;" in message
    status, out, err = _run(capsys, "--states", _states_file(states, chosen), "--heuristic", "lc", "--out", tmp_path / "r")
    assert status == 0
    (summary,) = _read(tmp_path / "r" / "summary.csv")
    h = np.array([naive.linear_conflict(s, BLANK_FIRST_3X3, 3, 3) for s in chosen])
    distance = np.array([exact[s] for s in chosen])
    assert int(summary["states"]) == len(chosen) == 20
    assert float(summary["mean_h"]) == pytest.approx(h.mean(), abs=1e-4)
    assert float(summary["mean_h_over_exact"]) == pytest.approx(np.mean(h / distance), abs=1e-4)
    assert float(summary["share_h_equals_exact"]) == pytest.approx(np.mean(h == distance), abs=1e-4)


def test_a_states_file_whose_header_names_another_goal_than_the_instances_is_refused(tmp_path, capsys):
    states = _states_file(tmp_path / "states.txt", [(1, 2, 3, 4, 5, 6, 7, 0, 8)], header="# goal: 1 2 3 4 5 6 7 8 0\n")
    status, out, err = _run(capsys, "--instances", "data/hardest8-31.txt", "--states", states, "--out", tmp_path / "r")
    assert "states.txt: its header is for Puzzle(3x3, goal=1 2 3 4 5 6 7 8 0), not " \
        "Puzzle(3x3, goal=0 1 2 3 4 5 6 7 8)" in _one_line_error(status, out, err)
    without_header = _states_file(tmp_path / "plain.txt", [HARDEST_8[0]], header="")
    status, out, err = _run(capsys, "--instances", "data/hardest8-31.txt", "--states", without_header,
                            "--heuristic", "manhattan", "--out", tmp_path / "r")
    assert status == 0 and _read(tmp_path / "r" / "per_state.csv")[0]["exact"] == "31"


def test_an_out_folder_with_files_is_refused_and_force_replaces_only_its_own(tmp_path, capsys):
    out = tmp_path / "r"
    first = ["--board", "3x3", "--sample", 300, "--heuristic", "manhattan", "--out", out]
    assert _run(capsys, *first, "--instances", "data/hardest8-31.txt")[0] == 0
    assert (out / "per_instance.csv").exists() and (out / "nodes_per_instance.png").exists()
    before = (out / "per_state.csv").read_text()
    status, out_text, err = _run(capsys, *first, "--seed", 2)
    assert "already holds 9 files" in _one_line_error(status, out_text, err) and "--force" in err
    assert (out / "per_state.csv").read_text() == before
    (out / "notes.txt").write_text("mine\n")
    assert _run(capsys, *first, "--seed", 2, "--force")[0] == 0
    assert (out / "per_state.csv").read_text() != before and (out / "notes.txt").read_text() == "mine\n"
    for stale in ("per_instance.csv", "predicted_vs_measured.png", "nodes_per_instance.png"):
        assert not (out / stale).exists(), stale  # the first run's, which this run does not write
    assert "per_instance.csv" in json.loads((out / "manifest.json").read_text())["files"]


@pytest.mark.parametrize("files, message", [
    ({"summary.csv": "someone's\n"}, "summary.csv was not written by compare-heuristics"),
    ({"manifest.json": "[1, 2]\n", "summary.csv": "x\n"}, "manifest.json is not a manifest of compare-heuristics"),
    ({"manifest.json": json.dumps({"owner": "compare-heuristics", "files": ["../outside.txt"]})},
     "manifest.json is not a manifest of compare-heuristics"),
])
def test_force_never_replaces_a_file_no_manifest_of_its_own_names(tmp_path, capsys, files, message):
    out = tmp_path / "r"
    out.mkdir()
    (tmp_path / "outside.txt").write_text("keep\n")
    for name, text in files.items():
        (out / name).write_text(text)
    status, out_text, err = _run(capsys, "--board", "3x3", "--sample", 100, "--out", out, "--force")
    assert message in _one_line_error(status, out_text, err)
    assert {p.name: p.read_text() for p in out.iterdir()} == files and (tmp_path / "outside.txt").exists()


@pytest.fixture(scope="module")
def comparison():
    puzzle, instances = load_instances("data/hardest8-31.txt")
    states = np.array(list(distances(3, 3, BLANK_FIRST_3X3))[::300], dtype=np.uint8)
    heuristics = [baseline(puzzle, "manhattan"), baseline(puzzle, "linear-conflict")]
    return compare(puzzle, heuristics, states, instances=instances)


def _integer_ticks(axes):
    return isinstance(axes.xaxis.get_major_locator(), MaxNLocator) and \
        all(float(t).is_integer() for t in axes.get_xticks())


def test_plots_show_instances_as_markers_with_integer_ticks_and_say_what_they_show(comparison):
    meta = {"board": "3x3", "source": "uniform random"}
    plots = figures(comparison, meta)
    assert list(plots) == ["h_distributions.png", "predicted_vs_measured.png", "nodes_per_instance.png"]
    n_states = f"{len(comparison.states):,} states (uniform random)"
    (axes,) = plots["h_distributions.png"].axes
    assert n_states in axes.get_title() and "manhattan, linear-conflict" in axes.get_title() and _integer_ticks(axes)
    (axes,) = plots["nodes_per_instance.png"].axes
    assert "2 instances" in axes.get_title() and "manhattan, linear-conflict" in axes.get_title()
    lines = axes.get_lines()
    assert len(lines) == 2 and all(line.get_linestyle() == "None" and line.get_marker() not in ("", "None")
                                   for line in lines)
    assert [list(line.get_xdata()) for line in lines] == [[1, 2], [1, 2]] and _integer_ticks(axes)
    (axes,) = plots["predicted_vs_measured.png"].axes
    texts = " ".join([axes.get_title(), axes.get_xlabel(), axes.get_ylabel()])
    assert texts.count("Korf, Reid & Edelkamp (KRE)") == 1 and "2 instances" in texts and n_states in texts
    assert "manhattan, linear-conflict" in texts


def test_a_single_instance_is_counted_in_the_singular(comparison):
    one = dataclasses.replace(comparison, instance_rows=[r for r in comparison.instance_rows if r["instance"] == 1])
    for figure in list(figures(one, {"board": "3x3", "source": "uniform random"}).values())[1:]:
        assert "3x3 board, 1 instance" in figure.axes[0].get_title()


def test_a_mistyped_heuristic_or_a_backward_range_is_one_plain_line(tmp_path, capsys):
    status, out, err = _run(capsys, "--board", "3x3", "--heuristic", "manhatan", "--out", tmp_path / "r")
    assert "manhatan" in _one_line_error(status, out, err)
    status, out, err = _run(capsys, "--instances", "data/korf100.txt", "--only", "5-3", "--out", tmp_path / "r")
    assert "5-3 runs backwards; write 3-5" in _one_line_error(status, out, err)
    status, out, err = _run(capsys, "--board", "3x3", "--only", "1", "--out", tmp_path / "r")
    assert "--only and --first choose among the instances of --instances" in _one_line_error(status, out, err)
    status, out, err = _run(capsys, "--sample", 10, "--out", tmp_path / "r")
    assert "--board is needed" in _one_line_error(status, out, err)
    assert not (tmp_path / "r").exists()


def test_an_error_of_the_heuristic_parser_is_passed_through_as_one_line(tmp_path, capsys, monkeypatch):
    def parser_error(puzzle, spec):
        raise InputError(f"unknown heuristic {spec!r}\n  accepted: zero, hamming, manhattan\n  closest: manhattan")

    monkeypatch.setattr(compare_command, "from_spec", parser_error)
    status, out, err = _run(capsys, "--board", "3x3", "--heuristic", "manhatan", "--out", tmp_path / "r")
    assert _one_line_error(status, out, err) == ("compare-heuristics: error: unknown heuristic 'manhatan' "
                                                 "accepted: zero, hamming, manhattan closest: manhattan\n")


def test_the_report_says_how_ida_counted_and_a_full_last_iteration_is_the_kre_measurement(tmp_path, capsys):
    """meta.json and summary.md name the move pruning and which nodes the counts include; with
    --full-last-iteration the counts of IDA*'s last iteration are those of the complete pass
    that the KRE prediction is compared with."""
    common = ["--board", "3x3", "--instances", "data/hardest8-31.txt", "--heuristic", "manhattan", "--sample", 300]
    status, _, _ = _run(capsys, *common, "--out", tmp_path / "stop")
    assert status == 0
    meta = json.loads((tmp_path / "stop" / "meta.json").read_text())
    assert (meta["prune"], meta["full_last_iteration"]) == ("fsm", False) and "first solution" in meta["node_counts"]
    status, _, _ = _run(capsys, *common, "--prune", "parent", "--full-last-iteration", "--out", tmp_path / "full")
    assert status == 0
    meta = json.loads((tmp_path / "full" / "meta.json").read_text())
    assert (meta["prune"], meta["full_last_iteration"]) == ("parent", True)
    assert "do not depend on the move order" in meta["node_counts"]
    assert "IDA* with move pruning `parent`; its node counts include every node of the last iteration" in \
        " ".join((tmp_path / "full" / "summary.md").read_text().split())
    puzzle, instances = load_instances("data/hardest8-31.txt", "3x3")
    heuristic = baseline(puzzle, "manhattan")
    for instance, row in zip(instances, _read(tmp_path / "full" / "per_instance.csv")):
        result = ida_star(puzzle, instance.start, heuristic, prune="parent", full_last_iteration=True)
        last = full_iteration(puzzle, instance.start, heuristic, result.length, "parent")
        assert int(row["nodes_generated"]) == result.nodes_generated
        assert int(row["last_iteration_expanded"]) == result.iterations[-1].nodes_expanded == last[0]
        assert result.iterations[-1].nodes_generated == last[1]


def test_the_summary_and_the_table_printed_fit_in_100_columns_and_the_csv_keeps_every_measure(tmp_path, capsys):
    status, out, err = _run(capsys, "--instances", "data/hardest8-31.txt", "--heuristic", "manhattan",
                            "--heuristic", "linear-conflict", "--heuristic", "walking-distance", "--sample", 300,
                            "--out", tmp_path / "r")
    assert status == 0 and err == ""
    summary = (tmp_path / "r" / "summary.md").read_text()
    assert max(map(len, summary.splitlines())) <= WIDTH
    table = [line for line in summary.splitlines() if line.startswith("|")]
    assert [cell.strip() for cell in table[0].strip("|").split("|")] == \
        ["heuristic", "mean h", "h / h*", "h <= h*", "evals/s", "nodes", "seconds", "KRE ratio"]
    assert [line.split("|")[1].strip() for line in table[2:]] == ["manhattan", "linear-conflict", "walking-distance"]
    assert all(line in out.splitlines() for line in table)  # printed as written
    fields = _read(tmp_path / "r" / "summary.csv")[0]
    assert {"std_h", "share_h_equals_exact", "mean_absolute_error", "nodes_per_second", "kre_mean_ratio"} <= set(fields)


def test_heuristics_whose_names_would_widen_the_table_are_numbered_below_it():
    names = [f"max(pdb:data/pdbs/4x4-blank-first-{p}.h5+reflect, walking-distance)" for p in ("7-8", "6-6-3")]
    rows = [{"heuristic": name, "states": 100, "mean_h": 41.25, "std_h": 3.5, "evaluations_per_second": 12_345_678,
             "instances": 10, "total_nodes_generated": 123_456_789, "total_seconds": 12.5,
             "kre_predicted_over_measured": 1.2345} for name in names]
    table, key = summary_table(rows)
    assert max(map(len, table + key)) <= WIDTH
    assert [line.split("|")[1].strip() for line in table[2:4]] == ["h1", "h2"]
    assert table[4] == "" and " ".join(table[5:]) == f"Heuristics: h1: `{names[0]}`; h2: `{names[1]}`."
    assert "| 123,456,789 |" in table[2] and "h / h*" not in table[0]  # no exact distances: no such column


def _crowded(axis):
    """The neighbouring labels of `axis` (drawn) that touch: level ones whose boxes overlap,
    slanted ones (parallel, anchored at their ticks) less than a text's height apart across."""
    renderer = axis.figure.canvas.get_renderer()
    along = "x0" if axis.axis_name == "x" else "y0"
    labels = sorted((t for t in axis.get_ticklabels(which="both") if t.get_visible() and t.get_text()),
                    key=lambda t: getattr(t.get_window_extent(renderer), along))
    slant = math.radians(labels[0].get_rotation())
    if slant == 0:
        boxes = [t.get_window_extent(renderer) for t in labels]
        return [(a.get_text(), b.get_text()) for (a, box), (b, other) in zip(zip(labels, boxes),
                                                                               zip(labels[1:], boxes[1:]))
                if box.overlaps(other)]
    anchors = [t.get_transform().transform(t.get_position())[0] for t in labels]
    tall = []
    for label in labels:
        label.set_rotation(0)
        tall.append(label.get_window_extent(renderer).height)
        label.set_rotation(math.degrees(slant))
    return [(a.get_text(), b.get_text()) for a, b, x, y, h in zip(labels, labels[1:], anchors, anchors[1:], tall)
            if (y - x) * math.sin(slant) < h]


@pytest.mark.parametrize("low, high, above, below", [(3_162, 63_240, 1.3, 0.8), (31, 33, 1.01, 0.99),
                                                     (100, 10**9, 1.3, 0.8)])
def test_the_prediction_plots_axis_labels_never_overlap(comparison, low, high, above, below):
    """However far the instances' measured nodes spread (a decade or two, where the logarithmic
    axis labels minor ticks too, a few nodes, or many decades), no two labels of an axis touch."""
    measured = np.geomspace(low, high, 6).round().astype(int)
    rows = [{**comparison.instance_rows[0], "heuristic": name, "instance": number, "last_iteration_expanded": int(m),
             "predicted_last_iteration": round(m * factor)}
            for name, factor in (("manhattan", above), ("linear-conflict", below)) for number, m in enumerate(measured, 1)]
    plots = figures(dataclasses.replace(comparison, instance_rows=rows), {"board": "3x3", "source": "uniform random"})
    figure = plots["predicted_vs_measured.png"]
    figure.tight_layout()
    figure.canvas.draw()
    (axes,) = figure.axes
    assert _crowded(axes.xaxis) == [] and _crowded(axes.yaxis) == []
    assert axes.xaxis.get_ticklabels()[0].get_rotation() == 45
