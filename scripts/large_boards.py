"""large_boards.py -- the suboptimal searches on large boards (6x6 to 8x8), beside a Python peer's.

Usage:

    python scripts/large_boards.py --set uniform6x6-100 --config greedy --config beam:beam_width=100 \\
        [--first 20] [--heuristic SPEC] [--time-limit 60] [--out results/large-boards] [--peer slidingpuzzle]

--set names a set of uniformly random solvable states (uniform6x6-100, uniform7x7-100,
uniform8x8-50; made by `make-instances --seed 1`), any other packaged set or an instance file.
Each --config SEARCH[:OPTION=VALUE[,OPTION=VALUE...]] (repeatable; e.g. greedy,
greedy:tie_break=fifo, wastar:weight=3, anytime:time_limit=60, beam:beam_width=10000) is a
registered search and its options, each value read by its option's kind (the registry's
Option); the heuristic is --heuristic (default: linear conflict, solve-puzzle's). Every
configuration solves the first --first N instances (default 20) through solve_batch on one
core (jobs=1), --time-limit seconds per instance at most (default 60; a configuration's own
time_limit wins), every solution replayed, one resumable CSV per configuration under --out (its
rows record their limits; a row found under other limits is solved again). Each
configuration runs in a fresh process of this script, so that the peak resident memory shown is
its own (ru_maxrss; the kernels are compiled, or loaded from the disk cache, beforehand in this
process, so the child only loads them: of its peak, about 170 MB is Python, numpy, numba and the
loaded kernels). A rerun that finds every row done shows the peak of the run that solved them
(kept in --out/peak-memory.json).

--peer slidingpuzzle adds the Python package slidingpuzzle 0.1.5 (PyPI; never a dependency of
tilepdb) on the same instances: it is installed once into --out/peer-venv, and its greedy
best-first search and its beam search (width --peer-beam-width, default 100), both with its own
default heuristic (linear conflict plus the corner-tiles and last-moves terms), run there in a
driver process under the same time limit per instance (the peer has none of its own: an alarm
stops it). The peer's goal puts the blank last; a state is mirrored so that the blank's goal
cell is the peer's, the tiles relabelled, and its moves (the cells the blank moves to) mapped
back to U/D/L/R and replayed on the original instance with tilepdb's Puzzle.

Prints a row per configuration: instances solved, mean length of the solved ones, mean seconds
per instance, mean seconds to the first solution (the anytime search's first one), max seconds,
peak resident memory; writes <set>-summary.csv and <set>.png (mean length against mean seconds
per instance, one labelled point per configuration) into --out.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from solvers.atomic import atomic_target, write_csv
from solvers.batch import redone, run_limits, solve_batch
from solvers.benchmark_points import (NO_PLOT_NOTE, Config, Series, config_label, limits_tag, mean_or_blank,
                                      parse_config, plot_length_against_seconds, read_rows, run_measured, slug)
from solvers.cli_support import OneLineParser, positive, run_guarded
from solvers.compile_notice import announcing, search_seconds, shown
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.instances import instance_path, load_instances
from solvers.puzzle import Puzzle, PuzzleError, SolutionError
from solvers.search.registry import search_named
from solvers.search.result import GAVE_UP, SOLVED
from solvers.solve import solve

ROOT = Path(__file__).resolve().parent.parent
PROG = "large_boards.py"
SETS = ("uniform6x6-100", "uniform7x7-100", "uniform8x8-50")
DEFAULT_CONFIGS = ("greedy", "wastar:weight=3", "beam:beam_width=10000")
DEFAULT_HEURISTIC = "linear-conflict"  # solve-puzzle's and solve's default (solvers/commands/options.py, solvers/solve.py)
LIMIT_OPTIONS = ("time_limit", "node_limit")  # recorded in each row (solve_batch's run_limits), not in the label
PEAKS_FILE = "peak-memory.json"  # the peak resident MB of the run that solved each results file's rows

PEER, PEER_VERSION = "slidingpuzzle", "0.1.5"
PEER_NAME = f"{PEER} {PEER_VERSION}"
PEER_HEURISTIC = "linear_conflict_distance"  # the peer's default: linear conflict, corner tiles and last moves added
PEER_FIELDS = ["id", "status", "length", "seconds", "first_seconds", "nodes_expanded", "nodes_generated", "moves",
               "solver", "configuration"]
# The driver run by the peer's interpreter: a job (JSON on stdin) in, a JSON line per instance out.
# slidingpuzzle.search(board, "greedy" | "beam", **options) has no time or node limit of its own;
# an interval timer raises OutOfTime in its pure-Python loop at the limit.
PEER_DRIVER = r'''
import json, signal, sys, time
import numpy as np
import slidingpuzzle

class OutOfTime(Exception):
    pass

def _alarm(signum, frame):
    raise OutOfTime

signal.signal(signal.SIGALRM, _alarm)
job = json.load(sys.stdin)
print(json.dumps({"version": slidingpuzzle.__version__}), flush=True)
for number, tiles in job["instances"]:
    board = np.array(tiles, dtype=np.int64).reshape(job["shape"])
    result, began = None, time.perf_counter()
    try:
        signal.setitimer(signal.ITIMER_REAL, job["time_limit"])
        try:
            result = slidingpuzzle.search(board, job["algorithm"], **job["options"])
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except OutOfTime:
        pass
    seconds = time.perf_counter() - began
    solution = None if result is None or result.solution is None else [[int(y), int(x)] for y, x in result.solution]
    print(json.dumps({"id": number, "seconds": seconds, "solution": solution,
                      "expanded": None if result is None else result.expanded,
                      "generated": None if result is None else result.generated}), flush=True)
'''


def main() -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", required=True, metavar="|".join(SETS) + "|NAME|FILE",
                        help="the instances: a uniform set, another packaged set or an instance file")
    parser.add_argument("--first", type=positive(int, "a whole number", 1 << 31), default=20,
                        help="solve the first N instances (default 20)")
    parser.add_argument("--config", action="append", metavar="SEARCH[:OPTION=VALUE,...]",
                        help=f"a search and its options, e.g. wastar:weight=3 (repeat; default: "
                             f"{' '.join(DEFAULT_CONFIGS)})")
    parser.add_argument("--heuristic", default=DEFAULT_HEURISTIC, metavar="SPEC",
                        help=f"the heuristic of every configuration (solve-puzzle's grammar; default {DEFAULT_HEURISTIC})")
    parser.add_argument("--time-limit", type=positive(float, "a number of seconds", 1e9), default=60.0,
                        help="seconds per instance before a search gives up (default 60; a configuration's own "
                             "time_limit wins)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "large-boards", help="folder of the results")
    parser.add_argument("--peer", choices=(PEER,), help=f"also run the Python package {PEER_NAME} (installed into "
                                                        "--out/peer-venv) on the same instances")
    parser.add_argument("--peer-beam-width", type=positive(int, "a whole number", 1 << 31), default=100,
                        help="the width of the peer's beam search (default 100)")
    parser.add_argument("--one-config", help=argparse.SUPPRESS)  # a child process: one configuration's batch
    args = parser.parse_args()
    puzzle, instances = load_instances(args.set)
    if args.first > len(instances):
        parser.error(f"--first takes 1 to {len(instances)}")
    chosen = instances[:args.first]
    set_name = instance_path(args.set).stem
    heuristic = from_spec(puzzle, args.heuristic).with_kernels(True)
    if args.one_config is not None:
        return _solve_one(puzzle, chosen, heuristic, parse_config(args.one_config), args, set_name)
    configs = [parse_config(text) for text in args.config or DEFAULT_CONFIGS]  # all checked before any run
    for config in configs:
        if "threads" in config.options:
            raise InputError(f"--config {config.label}: each instance runs on one core; no threads")
    peer_flips = _peer_frame(puzzle) if args.peer else None
    peer_python = _peer_python(args.out / "peer-venv") if args.peer else None  # installed, or refused, before any run
    print(f"{set_name}: the first {len(chosen)} instances of {puzzle.board}, {heuristic.name}, one core each, "
          f"{args.time_limit:g} s per instance at most", flush=True)
    table, contradicted = [], False
    for config in configs:
        out = _results_file(args, set_name, config, heuristic.name)
        _warm_up(puzzle, chosen[0].start, heuristic, config)
        to_solve = _missing(out, chosen, run_limits(config.algorithm, _options(args, config)))
        status, peak = run_measured([sys.executable, str(Path(__file__).resolve()), "--one-config", config.label,
                                      "--set", args.set, "--first", str(args.first), "--heuristic", args.heuristic,
                                      "--time-limit", repr(args.time_limit), "--out", str(args.out)])
        if status not in (0, 1):  # the child said why (a one-line error, an interrupt)
            return status
        contradicted = contradicted or status == 1
        table.append(_summary("tilepdb", config.label, heuristic.name, out, chosen, _peak(out, peak, to_solve)))
    if args.peer:
        for algorithm, options, label in (("greedy", {}, "greedy"),
                                          ("beam", {"width": args.peer_beam_width}, f"beam:width={args.peer_beam_width}")):
            out = args.out / f"{set_name}-{slug(PEER_NAME)}-{slug(label)}-{limits_tag(args.time_limit)}.csv"
            to_solve = _missing(out, chosen, None)
            peak = _run_peer(peer_python, puzzle, chosen, peer_flips, algorithm, options, label, args.time_limit, out)
            table.append(_summary(PEER_NAME, label, PEER_HEURISTIC, out, chosen, _peak(out, peak, to_solve)))
    _print_table(table)
    summary_file = args.out / f"{set_name}-summary.csv"
    write_csv(summary_file, table)
    plot = _plot(table, args.out / f"{set_name}.png", set_name, len(chosen), heuristic.name)
    print(f"wrote {summary_file}" + (f" and {plot}" if plot else NO_PLOT_NOTE))
    return 1 if contradicted else 0


def _results_file(args, set_name: str, config: Config, heuristic_name: str) -> Path:
    """The CSV of a configuration's rows: the set, the search and its options but the limits
    (each row records its own), and the heuristic."""
    label = config_label(config.algorithm, {k: v for k, v in config.options.items() if k not in LIMIT_OPTIONS})
    return args.out / f"{set_name}-{slug(label)}-{slug(heuristic_name)}.csv"


def _options(args, config: Config) -> dict:
    """The search options of `config`, its own time limit winning over --time-limit."""
    return {"time_limit": args.time_limit, **config.options}


def _solve_one(puzzle: Puzzle, chosen, heuristic, config: Config, args, set_name: str) -> int:
    """The child process: one configuration's batch, on one core; 1 if a row contradicts a known optimum."""
    out = _results_file(args, set_name, config, heuristic.name)
    # a row found under other limits (an earlier --time-limit) is solved again under these
    summary = solve_batch(puzzle, chosen, heuristic, out, algorithm=config.algorithm, jobs=1,
                          progress=sys.stderr.isatty(), report=lambda line: print(line, file=sys.stderr),
                          redo_other_limits=True, **_options(args, config))
    print(f"{config.label}: " + "; ".join(summary.lines()), flush=True)
    return 1 if summary.mismatches else 0


def _warm_up(puzzle: Puzzle, start, heuristic, config: Config) -> None:
    """Compile (or load from the disk cache) the kernels of `config` here, in the parent, so that
    the child measured for memory does not compile them: a search of one node. A search without
    a node limit is left to compile in its child."""
    if not search_named(config.algorithm).takes("node_limit"):
        return
    options = {**config.options, "node_limit": 1, "time_limit": None}
    with announcing(PROG, f"the kernels of {config.algorithm} for this heuristic",
                    search_seconds(config.algorithm, heuristic.spec, heuristic.specialised), shown(False)):
        solve(puzzle, start, config.algorithm, heuristic, **options)


def _missing(out: Path, chosen, limits: dict | None) -> bool:
    """Whether some of `chosen` have no row in `out` yet, or one that the batch run under `limits`
    (solve_batch's run_limits, with redo_other_limits as _solve_one runs it; None for the peer's
    rows, which record none) solves again (batch.redone): a run will solve them."""
    if not out.exists():
        return True
    try:
        rows = read_rows(out)
        return any(i.number not in rows or (limits is not None and redone(rows[i.number], limits, False, True))
                   for i in chosen)
    except (ValueError, KeyError, OSError):
        return True


def _peak(out: Path, measured: float, solved_now: bool) -> float | str:
    """The peak resident MB to show for `out`'s rows: of this run where it solved some of them (the
    larger of it and an earlier partial run's), else the earlier run's, kept in PEAKS_FILE beside."""
    path = out.parent / PEAKS_FILE
    try:
        peaks = json.loads(path.read_text()) if path.exists() else {}
    except (OSError, ValueError):
        peaks = {}
    if not solved_now:
        return peaks.get(out.name, "")
    peaks[out.name] = round(max(measured, peaks.get(out.name, 0.0)), 1)
    with atomic_target(path) as temporary:
        temporary.write_text(json.dumps(peaks, indent=1, sort_keys=True) + "\n")
    return peaks[out.name]


def _summary(solver: str, label: str, heuristic_name: str, out: Path, chosen, peak) -> dict:
    """One configuration's line of the table from its rows."""
    rows = read_rows(out)
    mine = [rows[i.number] for i in chosen]
    solved = [r for r in mine if r["status"] == SOLVED]
    seconds = [float(r["seconds"]) for r in mine]
    return {
        "solver": solver, "configuration": label, "heuristic": heuristic_name, "instances": len(chosen),
        "solved": len(solved), "mean_length": mean_or_blank(int(r["length"]) for r in solved),
        "mean_seconds": mean_or_blank(seconds),
        "mean_first_seconds": mean_or_blank(float(r["first_seconds"]) for r in solved if r["first_seconds"]),
        "max_seconds": round(max(seconds), 3), "peak_rss_mb": peak, "rows": out.name,
    }


def _print_table(table: list[dict]) -> None:
    print("\n| solver | configuration | solved | mean length | mean s per instance | mean s to first solution | "
          "max s | peak memory (MB) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for line in table:
        print(f"| {line['solver']} | {line['configuration']} | {line['solved']}/{line['instances']} | "
              f"{line['mean_length']} | {line['mean_seconds']} | {line['mean_first_seconds']} | {line['max_seconds']} | "
              f"{line['peak_rss_mb']} |")
    print()


def _plot(table: list[dict], path: Path, set_name: str, n: int, heuristic_name: str) -> Path | None:
    """Mean length against mean seconds per instance, a labelled point per configuration, tilepdb's
    and the peer's apart; None without matplotlib."""
    series = []
    for solver, marker in (("tilepdb", "o"), (PEER_NAME, "s")):
        points = [(line["mean_seconds"], line["mean_length"], line["configuration"]) for line in table
                  if line["solver"] == solver and line["mean_length"] != ""]
        named = f"tilepdb, {heuristic_name}" if solver == "tilepdb" else f"{PEER_NAME}, its {PEER_HEURISTIC}"
        series.append(Series(named, points, {"marker": marker, "linestyle": "none"}))
    return plot_length_against_seconds(path, series, f"{set_name}: the first {n} instances",
                                       "mean seconds per instance (one core)")


# --- the peer: slidingpuzzle 0.1.5 ---------------------------------------------------------------

def _peer_frame(puzzle: Puzzle) -> tuple[bool, bool]:
    """(flip the rows, flip the columns): the mirror of the board that takes the blank's goal cell
    to the last cell, where the peer's goal (1, 2, ..., N-1, blank) puts it; a one-line InputError
    when the blank's goal is not a corner."""
    row, col = divmod(puzzle.blank_goal_cell, puzzle.cols)
    if row not in (0, puzzle.rows - 1) or col not in (0, puzzle.cols - 1):
        raise InputError(f"--peer {PEER}: its goal puts the blank in the bottom-right corner, where no mirror of "
                         f"the board takes cell {puzzle.blank_goal_cell}, this set's goal cell of the blank")
    return row != puzzle.rows - 1, col != puzzle.cols - 1


def _mirrored(puzzle: Puzzle, cell: int, flips: tuple[bool, bool]) -> int:
    row, col = divmod(cell, puzzle.cols)
    row = puzzle.rows - 1 - row if flips[0] else row
    col = puzzle.cols - 1 - col if flips[1] else col
    return row * puzzle.cols + col


def peer_board(puzzle: Puzzle, state, flips: tuple[bool, bool]) -> list[int]:
    """`state` as the peer's problem, row-major: the board mirrored by `flips` and each tile
    renamed after its goal cell there (the cell's number plus one), so that our goal becomes the
    peer's 1, 2, ..., N-1, blank and every move of ours one of the peer's."""
    board = [0] * puzzle.n_cells
    for cell, tile in enumerate(int(t) for t in state):
        board[_mirrored(puzzle, cell, flips)] = 0 if tile == 0 else _mirrored(puzzle, int(puzzle.goal_cell[tile]), flips) + 1
    return board


def peer_moves(puzzle: Puzzle, board: list[int], solution: list[list[int]], flips: tuple[bool, bool]) -> str:
    """The peer's solution (the (row, column) each move takes the blank to, on its board) as our
    move letters on the original state: mirrored back, U and D swapped where rows were flipped,
    L and R where columns were."""
    row, col = divmod(board.index(0), puzzle.cols)
    letters = []
    for y, x in solution:
        step = {(-1, 0): "U", (1, 0): "D", (0, -1): "L", (0, 1): "R"}.get((y - row, x - col))
        if step is None:
            raise SolutionError(f"the peer's move to ({y}, {x}) does not move the blank from ({row}, {col}) by one cell")
        if flips[0] and step in "UD" or flips[1] and step in "LR":
            step = {"U": "D", "D": "U", "L": "R", "R": "L"}[step]
        letters.append(step)
        row, col = y, x
    return "".join(letters)


def _peer_python(venv: Path) -> Path:
    """The interpreter of the peer's own virtual environment at `venv`, made and filled with
    slidingpuzzle==0.1.5 the first time (python3 -m venv, pip install); a one-line InputError
    with pip's error when it cannot be installed."""
    python = venv / "bin" / "python"
    if python.exists() and _peer_version(python) == PEER_VERSION:
        return python
    print(f"installing {PEER}=={PEER_VERSION} into {venv} (once)", file=sys.stderr, flush=True)
    base = shutil.which("python3") or sys.executable
    for command in ([base, "-m", "venv", str(venv)],
                    [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--quiet",
                     f"{PEER}=={PEER_VERSION}"]):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            said = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
            errors = [line for line in said if line.startswith("ERROR")] or said[-1:]
            raise InputError(f"cannot install {PEER}=={PEER_VERSION} into {venv}: {' '.join(errors) or 'no message'}")
    if _peer_version(python) != PEER_VERSION:
        raise InputError(f"{venv} holds {PEER} {_peer_version(python) or 'not at all'}, not {PEER_VERSION}; remove it")
    return python


def _peer_version(python: Path) -> str | None:
    done = subprocess.run([str(python), "-c", f"import {PEER}; print({PEER}.__version__)"],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def _run_peer(python: Path, puzzle: Puzzle, chosen, flips, algorithm: str, options: dict, label: str,
              time_limit: float, out: Path) -> float:
    """The peer's `algorithm` on the instances of `chosen` that `out` lacks a valid row of, in
    one driver process; a row each appended to `out` (its solution replayed on our instance and
    its length checked; one that does not replay is recorded as "invalid"). Its peak resident MB."""
    rows = _peer_rows_kept(out, puzzle, chosen, label)
    write_csv(out, [rows[n] for n in sorted(rows)], PEER_FIELDS)
    todo = [i for i in chosen if i.number not in rows]
    if not todo:
        return 0.0
    boards = {i.number: peer_board(puzzle, i.start, flips) for i in todo}
    by_id = {i.number: i for i in todo}
    job = json.dumps({"shape": [puzzle.rows, puzzle.cols], "algorithm": algorithm, "options": options,
                      "time_limit": time_limit, "instances": [[n, boards[n]] for n in boards]})
    with out.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=PEER_FIELDS)

        def on_line(line: str) -> None:
            answer = json.loads(line)
            if "version" in answer:
                if answer["version"] != PEER_VERSION:
                    raise InputError(f"the peer's environment runs {PEER} {answer['version']}, not {PEER_VERSION}")
                return
            row = _peer_row(puzzle, by_id[answer["id"]], boards[answer["id"]], answer, flips, label)
            writer.writerow(row)
            handle.flush()
            os.fsync(handle.fileno())
            rows[answer["id"]] = row

        status, peak = run_measured([str(python), "-c", PEER_DRIVER], job, on_line)
    if status != 0 or set(by_id) - set(rows):
        raise InputError(f"the {PEER} driver ({label}) stopped with status {status} before solving every instance; "
                         f"its rows so far are in {out}")
    write_csv(out, [rows[n] for n in sorted(rows)], PEER_FIELDS)
    return peak


def _peer_row(puzzle: Puzzle, instance, board: list[int], answer: dict, flips, label: str) -> dict:
    """A row of the peer's answer for `instance`, its solution replayed on the instance."""
    row = {"id": instance.number, "status": GAVE_UP, "length": "", "seconds": f"{answer['seconds']:.6f}",
           "first_seconds": "", "nodes_expanded": answer["expanded"] or "", "nodes_generated": answer["generated"] or "",
           "moves": "", "solver": PEER_NAME, "configuration": label}
    if answer["solution"] is None:
        return row
    try:
        moves = peer_moves(puzzle, board, answer["solution"], flips)
        puzzle.check_solution(instance.start, moves, len(answer["solution"]))
    except (SolutionError, PuzzleError) as error:
        print(f"{PROG}: the peer's solution of instance {instance.number} ({label}) is wrong: {error}", file=sys.stderr)
        return {**row, "status": "invalid"}
    return {**row, "status": SOLVED, "length": len(moves), "first_seconds": row["seconds"], "moves": moves}


def _peer_rows_kept(out: Path, puzzle: Puzzle, chosen, label: str) -> dict[int, dict]:
    """The complete rows of an earlier run of the peer's `label` in `out`, by id (those of
    other instances kept too); a solved row only if its moves replay from its instance to the goal."""
    try:
        text = out.read_text() if out.exists() else ""
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {out} to resume it: {error}") from None
    text = text[: text.rfind("\n") + 1]  # a half-written last line dropped
    by_id = {i.number: i for i in chosen}
    kept: dict[int, dict] = {}
    for row in csv.DictReader(text.splitlines()):
        if None in row.values() or set(row) != set(PEER_FIELDS) or row["solver"] != PEER_NAME \
                or row["configuration"] != label:
            continue
        try:
            number = int(row["id"])
            if row["status"] == SOLVED and number in by_id:
                puzzle.check_solution(by_id[number].start, row["moves"], int(row["length"]))
        except (ValueError, SolutionError, PuzzleError):
            continue
        kept.setdefault(number, row)
    return kept


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(run_guarded(PROG, main))
