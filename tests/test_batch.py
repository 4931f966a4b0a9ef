"""solve-batch: verified rows, known lengths checked, identical in parallel, resumable after a crash."""

import csv
import subprocess
import sys
import threading

import numpy as np
import pytest

from solvers.batch import ADDED_FIELDS, ROW_FIELDS, RUN_FIELDS, TIMING_FIELDS, solve_batch, solve_batch_afresh, \
    unfinished_path
from solvers.errors import InputError
from solvers.heuristics import baseline
from solvers.instances import load_instances, select_instances
from solvers.search import ida
from solvers.search.parallel_ida import parallel_ida_star
from solvers.solve import solve
from tests.conftest import distances

GOAL = tuple(range(9))


@pytest.fixture(scope="module")
def instance_file(tmp_path_factory):
    exact = distances(3, 3, GOAL)
    states = list(exact)
    chosen = [states[i] for i in np.random.default_rng(4).choice(len(states), 30, replace=False)]
    path = tmp_path_factory.mktemp("batch") / "eight.txt"
    lines = ["# thirty random 8-puzzles", "# board: 3x3", "# goal: " + " ".join(map(str, GOAL))]
    lines += [" ".join(map(str, s)) + f" | {exact[s]}" for s in chosen]
    path.write_text("\n".join(lines) + "\n")
    return path


def _rows(path):
    with open(path, newline="") as handle:
        return [{k: v for k, v in row.items() if k not in TIMING_FIELDS} for row in csv.DictReader(handle)]


def _run(instance_file, out, jobs=1, **limits):
    puzzle, instances = load_instances(instance_file)
    return solve_batch(puzzle, instances, baseline(puzzle, "manhattan"), out, jobs=jobs, **limits)


def test_every_instance_is_solved_at_its_known_length_and_parallel_runs_agree(instance_file, tmp_path):
    serial = _run(instance_file, tmp_path / "serial.csv")
    parallel = _run(instance_file, tmp_path / "parallel.csv", jobs=2)
    assert serial.n_solved == parallel.n_solved == 30 and serial.mismatches == ()
    rows = _rows(tmp_path / "serial.csv")
    assert rows == _rows(tmp_path / "parallel.csv")
    assert [int(r["id"]) for r in rows] == list(range(1, 31))
    assert all(r["length"] == r["known_length"] and len(r["moves"]) == int(r["length"]) for r in rows)
    assert serial.nodes_generated == sum(int(r["nodes_generated"]) for r in rows)


def test_resume_keeps_valid_rows_and_recomputes_a_half_written_line(instance_file, tmp_path):
    _run(instance_file, tmp_path / "full.csv")
    full = (tmp_path / "full.csv").read_text().splitlines()
    broken = tmp_path / "broken.csv"
    fields = next(csv.reader([full[5]]))
    fields[ROW_FIELDS.index("moves")] = "UUUU"
    bad_moves = ",".join(fields)
    broken.write_text("\n".join(full[:5] + [bad_moves] + full[7:12]) + "\n" + full[12][:20])
    summary = _run(instance_file, broken)
    assert summary.n_resumed == 9 and summary.n_solved == 30
    assert _rows(broken) == _rows(tmp_path / "full.csv")


def test_a_batch_afresh_solves_every_instance_again_and_resumes_only_an_interrupted_run(instance_file, tmp_path):
    """The main job's batch: each run solves all again (nothing kept from the finished run
    before), its rows moved to the output once complete; an interrupted run's rows, left in
    the unfinished file, are resumed by the next run and then moved."""
    puzzle, instances = load_instances(instance_file)
    out = tmp_path / "afresh.csv"
    for _ in range(2):
        summary = solve_batch_afresh(puzzle, instances, "manhattan", out)
        assert summary.n_resumed == 0 and summary.n_solved == 30
        assert out.exists() and not unfinished_path(out).exists() and len(_rows(out)) == 30
    finished, lines = _rows(out), out.read_text().splitlines()
    unfinished_path(out).write_text("\n".join(lines[:11]) + "\n")  # a run stopped after ten rows
    summary = solve_batch_afresh(puzzle, instances, "manhattan", out)
    assert summary.n_resumed == 10 and summary.n_solved == 30 and not unfinished_path(out).exists()
    assert _rows(out) == finished


def test_a_foreign_output_file_is_not_overwritten(instance_file, tmp_path):
    foreign = tmp_path / "notes.csv"
    foreign.write_text("my,precious,data\n")
    with pytest.raises(ValueError, match="not a solve-batch results file"):
        _run(instance_file, foreign)
    assert foreign.read_text() == "my,precious,data\n"


def test_node_limits_are_recorded_as_not_solved(instance_file, tmp_path):
    summary = _run(instance_file, tmp_path / "limited.csv", node_limit=50)
    rows = _rows(tmp_path / "limited.csv")
    assert summary.n_not_solved == sum(r["status"] == "gave_up" for r in rows) > 0
    assert all(r["length"] == "" and r["moves"] == "" for r in rows if r["status"] == "gave_up")


def cli(*args):
    done = subprocess.run([sys.executable, "-c", "import sys; from solvers.cli import solve_batch_main; "
                           "sys.exit(solve_batch_main(sys.argv[1:]))", *args],
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr


def test_cli_summary_and_exit_statuses(instance_file, tmp_path):
    out = tmp_path / "cli.csv"
    status, stdout, stderr = cli(str(instance_file), "--heuristic", "lc", "--out", str(out), "--jobs", "2", "--quiet")
    assert status == 0, stderr
    assert "instances 30: 30 solved, 0 not solved" in stdout and "nodes generated" in stdout
    assert list(csv.DictReader(out.open()))[0].keys() == set(ROW_FIELDS)
    wrong = tmp_path / "wrong.txt"
    text = instance_file.read_text().splitlines()
    length = int(text[3].split("|")[1])
    wrong.write_text("\n".join(text[:3] + [text[3].split("|")[0] + f"| {length + 2}"]) + "\n")
    status, _, stderr = cli(str(wrong), "--out", str(tmp_path / "wrong.csv"), "--quiet")
    assert status == 1 and "MISMATCH: instance 1" in stderr
    status, _, _ = cli(str(instance_file), "--out", str(tmp_path / "limit.csv"), "--node-limit", "20", "--quiet")
    assert status == 3


@pytest.mark.parametrize("algorithm", ["bfs", "iddfs", "dfs", "staged"])
def test_the_uninformed_searches_run_in_a_batch_and_the_optimal_ones_meet_every_known_length(instance_file, tmp_path,
                                                                                             algorithm):
    out = tmp_path / f"{algorithm}.csv"
    status, stdout, stderr = cli(str(instance_file), "--algorithm", algorithm, "--only", "1-6", "--out", str(out),
                                 "--jobs", "1", "--quiet")
    assert status == 0 and "6 solved" in stdout, stderr
    rows = _rows(out)
    assert len(rows) == 6 and all(r["algorithm"] == algorithm for r in rows)
    optimal = algorithm in ("bfs", "iddfs")
    assert all((r["length"] == r["known_length"]) if optimal else int(r["length"]) >= int(r["known_length"])
               for r in rows)


def test_a_suboptimal_search_contradicts_a_known_optimum_only_by_what_it_proves(instance_file, tmp_path):
    # weighted A* at weight 3 finds longer solutions than the known optima: no contradiction
    out = tmp_path / "weighted.csv"
    status, _, stderr = cli(str(instance_file), "--algorithm", "wastar", "--weight", "3", "--heuristic", "manhattan",
                            "--out", str(out), "--quiet")
    rows = list(csv.DictReader(out.open()))
    assert status == 0 and "MISMATCH" not in stderr, stderr
    assert any(int(r["length"]) > int(r["known_length"]) for r in rows)
    # a known length below the proven lower bound (h of the start at least) is one
    text = instance_file.read_text().splitlines()
    wrong = tmp_path / "too-short.txt"
    wrong.write_text("\n".join(text[:3] + [text[3].split("|")[0] + "| 1"]) + "\n")
    status, _, stderr = cli(str(wrong), "--algorithm", "wastar", "--weight", "3", "--heuristic", "manhattan",
                            "--out", str(tmp_path / "too-short.csv"), "--quiet")
    assert status == 1 and "MISMATCH: instance 1 solved in" in stderr and "proven lower bound" in stderr


def test_a_malformed_instance_line_is_named(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("# board: 3x3\n1 2 3 4 5 6 7 8 0\n1 2 3 4 5 6 7 8\n")
    status, stdout, stderr = cli(str(bad), "--out", str(tmp_path / "x.csv"))
    assert status == 2 and "bad.txt, line 3: instance has 8 tiles" in stderr and stderr.count("\n") == 1


def test_only_selects_instances_by_number_and_refuses_bad_selections(instance_file):
    _, instances = load_instances(instance_file)
    chosen = select_instances(instances, "30, 2-4,3")
    assert [i.number for i in chosen] == [2, 3, 4, 30]
    assert [i.start.tolist() for i in chosen] == [instances[n - 1].start.tolist() for n in (2, 3, 4, 30)]
    for bad, message in (("31", "outside 1-30"), ("0", "outside 1-30"), ("5-2", "runs backwards; write 2-5"), ("x", "not a number"),
                         ("", "not a number"), ("1,,2", "not a number")):
        with pytest.raises(InputError, match=message):
            select_instances(instances, bad)


def test_a_single_instance_left_runs_on_one_worker_unless_split_last_asks(instance_file, tmp_path, monkeypatch):
    """A batch of one instance gives the row of --jobs 1 whatever --jobs, apart from the seconds;
    with split_last its tree is split over the jobs and the row says on how many threads."""
    puzzle, instances = load_instances(instance_file)
    hardest = max(instances, key=lambda i: i.optimal)
    splits = []

    def counted(*args, **kwargs):
        splits.append(kwargs["threads"])
        return parallel_ida_star(*args, **kwargs)

    monkeypatch.setattr(ida, "parallel_ida_star", counted)
    sequential = solve_batch(puzzle, [hardest], baseline(puzzle, "manhattan"), tmp_path / "seq.csv", jobs=1)
    solve_batch(puzzle, [hardest], baseline(puzzle, "manhattan"), tmp_path / "two.csv", jobs=2)
    assert splits == [] and _rows(tmp_path / "two.csv") == _rows(tmp_path / "seq.csv")
    assert _rows(tmp_path / "seq.csv")[0]["threads"] == "1"
    summary = solve_batch(puzzle, [hardest], baseline(puzzle, "manhattan"), tmp_path / "one.csv", jobs=2,
                          split_last=True)
    assert splits == [2]
    row = _rows(tmp_path / "one.csv")[0]
    assert summary.n_solved == 1 and row["length"] == row["known_length"] == str(hardest.optimal)
    assert row["threads"] == "2"
    assert row["iterations"].split()[:-1] == _rows(tmp_path / "seq.csv")[0]["iterations"].split()[:-1]
    assert sequential.n_solved == 1


def test_rows_record_their_limits_and_a_rerun_under_larger_ones_solves_what_gave_up(instance_file, tmp_path):
    """Rows that gave up are solved again when the new limits may let them go further, kept
    under the same or smaller ones; --retry-gave-up retries them anyway; --redo-other-limits
    redoes every row recorded under other limits; solved rows otherwise keep their own."""
    puzzle, instances = load_instances(instance_file)
    heuristic, out = baseline(puzzle, "manhattan"), tmp_path / "limits.csv"
    first = solve_batch(puzzle, instances[:10], heuristic, out, node_limit=60)
    rows = _rows(out)
    gave_up = {r["id"] for r in rows if r["status"] == "gave_up"}
    assert 0 < len(gave_up) < 10 and first.n_not_solved == len(gave_up)
    assert {(r["node_limit"], r["time_limit"], r["memory"], r["threads"]) for r in rows} == {("60", "none", "none", "1")}
    again = solve_batch(puzzle, instances[:10], heuristic, out, node_limit=30)
    assert (again.n_resumed, again.n_retried) == (10, 0) and _rows(out) == rows
    forced = solve_batch(puzzle, instances[:10], heuristic, out, node_limit=60, retry_gave_up=True)
    assert (forced.n_resumed, forced.n_retried) == (10 - len(gave_up), len(gave_up)) and _rows(out) == rows
    larger = solve_batch(puzzle, instances[:10], heuristic, out, node_limit=10_000_000)
    assert larger.n_retried == len(gave_up) and larger.n_solved == 10
    by_id = {r["id"]: r for r in _rows(out)}
    assert {by_id[i]["node_limit"] for i in gave_up} == {"10000000"}
    assert {r["node_limit"] for i, r in by_id.items() if i not in gave_up} == {"60"}
    unlimited = solve_batch(puzzle, instances[:10], heuristic, out, redo_other_limits=True)
    assert unlimited.n_retried == 10 and {r["node_limit"] for r in _rows(out)} == {"none"}
    for i, row in by_id.items():  # the same search without a limit: the same rows but for the limit
        assert {k: v for k, v in row.items() if k != "node_limit"} == \
            {k: v for k, v in _rows(out)[int(i) - 1].items() if k != "node_limit"}


def test_a_row_without_its_limits_that_gave_up_is_solved_again(instance_file, tmp_path):
    """Rows of a file written before the limit columns: their limits are unknown, so those that
    gave up are solved again; solved ones are kept."""
    puzzle, instances = load_instances(instance_file)
    out = tmp_path / "older.csv"
    solve_batch(puzzle, instances[:6], baseline(puzzle, "manhattan"), out, node_limit=60)
    rows = list(csv.DictReader(out.open()))
    with out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=[f for f in ROW_FIELDS if f not in RUN_FIELDS], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    gave_up = sum(r["status"] == "gave_up" for r in rows)
    summary = solve_batch(puzzle, instances[:6], baseline(puzzle, "manhattan"), out, node_limit=60)
    assert gave_up > 0 and (summary.n_resumed, summary.n_retried) == (6 - gave_up, gave_up)


def test_rows_record_their_settings_and_a_resume_with_other_settings_is_refused(instance_file, tmp_path):
    """Each row names its algorithm, heuristic and tables (file and SHA-256); rows of runs with
    other settings never mix: the second run is refused and the file left as it was."""
    from pdb_build.build import build_pdb_file, plan_build
    from pdb_build.partitions import preset
    from pdb_build.store import load_partition
    from solvers.heuristics import from_spec

    puzzle, instances = load_instances(instance_file)
    pdb, _ = build_pdb_file(plan_build(puzzle, preset(puzzle, "4-4")), tmp_path / "44.h5")
    out = tmp_path / "rows.csv"
    solve_batch(puzzle, instances[:3], from_spec(puzzle, f"pdb:{pdb}+reflect"), out)
    rows = _rows(out)
    checksum = load_partition(pdb, puzzle).checksum
    assert {(r["algorithm"], r["heuristic"], r["tables"]) for r in rows} == {("ida", "pdb:44.h5+reflect", f"44.h5={checksum}")}
    assert {(r["prune"], r["full_last_iteration"], r["bpmx"]) for r in rows} == {("fsm", "no", "yes")}
    before = out.read_text()
    reflected = from_spec(puzzle, f"pdb:{pdb}+reflect")
    for heuristic, algorithm, search in [(from_spec(puzzle, f"pdb:{pdb}"), "ida", {}), (reflected, "astar", {}),
                                         (baseline(puzzle, "manhattan"), "ida", {}), (reflected, "ida", {"prune": "parent"}),
                                         (reflected, "ida", {"full_last_iteration": True}),
                                         (reflected, "ida", {"bpmx": False})]:
        with pytest.raises(InputError, match="holds rows solved with ida \\+ pdb:44.h5\\+reflect .*, prune fsm, "
                                             "full last iteration no, BPMX yes, not with"):
            solve_batch(puzzle, instances, heuristic, out, algorithm=algorithm, **search)
        assert out.read_text() == before
    summary = solve_batch(puzzle, instances[:5], from_spec(puzzle, f"pdb:{pdb}+reflect"), out)
    assert summary.n_resumed == 3 and summary.n_solved == 5


def test_a_run_on_fewer_instances_keeps_the_other_rows_of_its_file(instance_file, tmp_path):
    puzzle, instances = load_instances(instance_file)
    out = tmp_path / "rows.csv"
    solve_batch(puzzle, instances[:6], baseline(puzzle, "manhattan"), out)
    everything = _rows(out)
    summary = solve_batch(puzzle, instances[2:3], baseline(puzzle, "manhattan"), out)
    assert summary.n_resumed == 1 and summary.n_instances == 1
    assert _rows(out) == everything


def test_prune_and_full_last_iteration_reach_every_row_and_order_independent_counts(instance_file, tmp_path):
    """With the last iteration completed, the rows of a serial, a parallel and a split run hold
    the same counters (and those of ida_star); A* takes neither setting."""
    from solvers.search.ida import ida_star

    puzzle, instances = load_instances(instance_file)
    heuristic = baseline(puzzle, "manhattan")
    search = {"prune": "parent", "full_last_iteration": True}
    solve_batch(puzzle, instances[:8], heuristic, tmp_path / "serial.csv", **search)
    solve_batch(puzzle, instances[:8], heuristic, tmp_path / "parallel.csv", jobs=2, **search)
    hardest = max(instances[:8], key=lambda i: i.optimal)
    solve_batch(puzzle, [hardest], heuristic, tmp_path / "split.csv", jobs=2, split_last=True, **search)
    serial = _rows(tmp_path / "serial.csv")
    assert serial == _rows(tmp_path / "parallel.csv")
    assert _rows(tmp_path / "split.csv") == [{**r, "threads": "2"} for r in serial if r["id"] == str(hardest.number)]
    assert {(r["prune"], r["full_last_iteration"]) for r in serial} == {("parent", "yes")}
    alone = ida_star(puzzle, hardest.start, heuristic, **search)
    assert _rows(tmp_path / "split.csv")[0]["nodes_generated"] == str(alone.nodes_generated)
    with pytest.raises(InputError, match="apply to ida and wida only, not to astar"):
        solve_batch(puzzle, instances, heuristic, tmp_path / "astar.csv", algorithm="astar", prune="fsm")
    solve_batch(puzzle, instances[:2], heuristic, tmp_path / "astar.csv", algorithm="astar")
    assert {(r["prune"], r["full_last_iteration"]) for r in _rows(tmp_path / "astar.csv")} == {("", "")}


def test_a_file_of_an_older_solve_batch_is_refused_naming_what_it_lacks(instance_file, tmp_path):
    puzzle, instances = load_instances(instance_file)
    out = tmp_path / "old.csv"
    out.write_text(",".join(ROW_FIELDS[: ROW_FIELDS.index("tables") + 1]) + "\n")  # before the search settings
    with pytest.raises(InputError, match="older solve-batch, without the prune, full_last_iteration, bpmx, bpmx_raises, "
                                         "bpmx_cutoffs of its rows"):
        solve_batch(puzzle, instances, baseline(puzzle, "manhattan"), out)


def test_a_file_written_before_another_search_registered_its_settings_resumes(instance_file, tmp_path):
    """A search added later brings a setting column (weight); a file of rows without it still
    resumes a run of a search that does not record it, and is rewritten with every column."""
    puzzle, instances = load_instances(instance_file)
    out = tmp_path / "before.csv"
    solve_batch(puzzle, instances[:2], baseline(puzzle, "manhattan"), out)
    rows = list(csv.DictReader(out.open()))
    older = [f for f in ROW_FIELDS if f != "weight"]
    with out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=older, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    summary = solve_batch(puzzle, instances[:3], baseline(puzzle, "manhattan"), out)
    assert summary.n_resumed == 2 and summary.n_solved == 3
    assert list(csv.DictReader(out.open()))[0].keys() == set(ROW_FIELDS)


def test_rows_written_before_the_choice_of_rules_resume_as_following_their_papers(instance_file, tmp_path):
    """An NBS file without the rules column (written before the choice existed, when NBS
    followed its paper) resumes a run of the default rules and gains the column; a run of
    the published code's rules is refused, naming both."""
    puzzle, instances = load_instances(instance_file)
    out = tmp_path / "nbs.csv"
    solve_batch(puzzle, instances[:2], "manhattan", out, algorithm="nbs")
    rows = list(csv.DictReader(out.open()))
    assert {row["rules"] for row in rows} == {"paper"}
    with out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=[f for f in ROW_FIELDS if f != "rules"], extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    summary = solve_batch(puzzle, instances[:3], "manhattan", out, algorithm="nbs")
    assert summary.n_resumed == 2 and summary.n_solved == 3
    assert {row["rules"] for row in csv.DictReader(out.open())} == {"paper"}
    with pytest.raises(InputError, match="solved with nbs \\+ manhattan, rules paper, not with nbs \\+ manhattan, "
                                         "rules dibbs-code;"):
        solve_batch(puzzle, instances[:3], "manhattan", out, algorithm="nbs", rules="dibbs-code")


def test_a_resumed_file_of_another_weight_is_refused_naming_it(instance_file, tmp_path):
    puzzle, instances = load_instances(instance_file)
    out = tmp_path / "weighted.csv"
    solve_batch(puzzle, instances[:2], "manhattan", out, algorithm="wastar", weight=1.5)
    with pytest.raises(InputError, match="solved with wastar \\+ manhattan, BPMX no, tie break larger-g, weight 1.5, "
                                         "not with wastar \\+ manhattan, BPMX no, tie break larger-g, weight 2;"):
        solve_batch(puzzle, instances[:3], "manhattan", out, algorithm="wastar", weight=2.0)


def test_a_batch_takes_no_threads_of_its_own(instance_file, tmp_path):
    puzzle, instances = load_instances(instance_file)
    with pytest.raises(InputError, match="takes no threads or executor of its own"):
        solve_batch(puzzle, instances[:2], "manhattan", tmp_path / "threads.csv", threads=2)


def test_batches_in_two_threads_of_one_process_keep_their_own_heuristics(instance_file, tmp_path):
    """In this process (jobs 1): forked pools started from two threads could deadlock the test itself."""
    jobs = 1
    puzzle, instances = load_instances(instance_file)
    names = ("manhattan", "hamming")
    for name in names:
        solve_batch(puzzle, instances, baseline(puzzle, name), tmp_path / f"{name}-sequential.csv", jobs=jobs)
    failures = []

    def run(name):
        try:
            solve_batch(puzzle, instances, baseline(puzzle, name), tmp_path / f"{name}-thread.csv", jobs=jobs)
        except BaseException as error:  # reported by the main thread's assertion below
            failures.append(error)

    threads = [threading.Thread(target=run, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for name in names:
        assert _rows(tmp_path / f"{name}-thread.csv") == _rows(tmp_path / f"{name}-sequential.csv")
    assert _rows(tmp_path / "manhattan-thread.csv") != _rows(tmp_path / "hamming-thread.csv")


def test_rows_hold_what_the_search_proved_and_when_it_found_its_solutions(instance_file, tmp_path):
    """A weighted search's rows carry its result's lower bound and suboptimality (the known
    length lies between them); an optimal search's prove its lengths; the times of the first
    and the reported solution come in order within the search's seconds (they differ where the
    anytime search improves: tests/test_anytime.py)."""
    puzzle, instances = load_instances(instance_file)
    weighted = solve_batch(puzzle, instances[:8], "manhattan", tmp_path / "wastar.csv", algorithm="wastar", weight=2.0)
    optimal = solve_batch(puzzle, instances[:8], "manhattan", tmp_path / "ida.csv")
    anytime = solve_batch(puzzle, instances[:8], "manhattan", tmp_path / "anytime.csv", algorithm="anytime", weight=5.0)
    rows = {name: list(csv.DictReader((tmp_path / f"{name}.csv").open())) for name in ("wastar", "ida", "anytime")}
    for row, instance in zip(rows["wastar"], instances):
        result = solve(puzzle, instance.start, "wastar", "manhattan", weight=2.0)
        assert (int(row["lower_bound"]), float(row["suboptimality"])) == (result.lower_bound,
                                                                          pytest.approx(result.suboptimality, abs=5e-5))
        assert int(row["lower_bound"]) <= int(row["known_length"]) <= int(row["length"]) <= 2 * int(row["known_length"])
    for row in rows["ida"]:
        assert (row["lower_bound"], row["suboptimality"]) == (row["length"], "1.0000")
        assert row["first_seconds"] == row["found_seconds"] == row["seconds"]
    for row in rows["wastar"] + rows["ida"] + rows["anytime"]:
        assert float(row["first_seconds"]) <= float(row["found_seconds"]) <= float(row["seconds"])
    assert len(optimal.lines()) == 2 and anytime.n_solved == 8  # an optimal search: no suboptimality line
    ratios = [float(r["suboptimality"]) for r in rows["wastar"]]
    assert weighted.lines()[2] == (f"length / lower bound {sum(ratios) / 8:.3f} on average, at most {max(ratios):.3f}; "
                                   f"{ratios.count(1.0)} of 8 proven optimal")


def test_a_file_written_before_the_proof_and_timing_columns_resumes_with_them_empty(instance_file, tmp_path):
    puzzle, instances = load_instances(instance_file)
    out = tmp_path / "before.csv"
    solve_batch(puzzle, instances[:2], "manhattan", out)
    rows = list(csv.DictReader(out.open()))
    older = [f for f in ROW_FIELDS if f not in ADDED_FIELDS]
    with out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=older, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    summary = solve_batch(puzzle, instances[:3], "manhattan", out)
    assert summary.n_resumed == 2 and summary.n_solved == 3 and summary.suboptimalities == (1.0,)
    resumed = list(csv.DictReader(out.open()))
    assert list(resumed[0]) == ROW_FIELDS
    assert [[r[f] for f in ADDED_FIELDS] for r in resumed[:2]] == [[""] * len(ADDED_FIELDS)] * 2
    assert resumed[2]["lower_bound"] == resumed[2]["length"] and resumed[2]["suboptimality"] == "1.0000"


def test_an_instance_interrupted_after_a_solution_gets_no_row_and_is_solved_on_resume(instance_file, tmp_path,
                                                                                      monkeypatch):
    """Ctrl-C in the anytime search's second run of instance 3 (solved in this process): the
    search keeps its first solution, but the batch writes no row for it and stops as interrupted."""
    from solvers.search import anytime

    puzzle, instances = load_instances(instance_file)
    third, runs, real = tuple(instances[2].start.tolist()), [], anytime.one_run

    def second_run_interrupted(puzzle, start, *args, **kwargs):
        runs.append(tuple(start.tolist()))
        if runs.count(third) == 2:
            raise KeyboardInterrupt
        return real(puzzle, start, *args, **kwargs)

    monkeypatch.setattr(anytime, "one_run", second_run_interrupted)
    out = tmp_path / "anytime.csv"
    with pytest.raises(KeyboardInterrupt) as stopped:
        solve_batch(puzzle, instances[:6], "manhattan", out, algorithm="anytime", weight=5.0)
    assert stopped.traceback[-1].path.name == "batch.py"  # the search returned its first solution; the batch refused it
    assert [int(r["id"]) for r in _rows(out)] == [1, 2]
    monkeypatch.undo()
    summary = solve_batch(puzzle, instances[:6], "manhattan", out, algorithm="anytime", weight=5.0)
    assert summary.n_resumed == 2 and summary.n_solved == 6
    assert [int(r["id"]) for r in _rows(out)] == list(range(1, 7))
