"""bench_compile.py -- seconds numba takes to compile a heuristic and the searches that use it, from a cold cache.

Each case runs in a fresh process with NUMBA_CACHE_DIR set to an empty folder, so nothing is
loaded from numba's cache: it times loading the heuristic, its first evaluation (the
evaluation kernel) and then the first call of each search (IDA*, A* where the board allows it,
Knuth's effort estimator), IDA* and A* capped at 100 nodes, so that the figure is nearly all
compiling. Cases: a 3x3 board with 4-4 tables built here (zero-aware with the reflected lookup,
and with the reflected and dual lookups: the largest kind), and, where data/pdbs/ holds them,
Korf & Felner's 6-6-6-6 24-puzzle tables (plain and zero-aware, with reflection) and a maximum
over three zero-aware 6-6-6-6 partitions (LazyLookups). Writes results/bench_compile.csv.

With --commands it times whole commands instead (COMMANDS: solve-puzzle, solve-batch,
compare-heuristics, build-pdb, verify-pdb and make-instances on 3x3 boards, 3x3 tables built
here): each runs in a fresh process, first with an empty NUMBA_CACHE_DIR (cold), then again
with the cache it filled (warm); the difference is the command's compile time (wall, and CPU:
the process's user and system time, which other work on the machine does not inflate), what
solvers/compile_notice.py's COMPILE_SECONDS estimates. Writes results/bench_compile_commands.csv.
With --commands --after it times instead a heuristic for a search already compiled for others
(AFTER: the same cache, the commands before run first), and writes results/bench_compile_after.csv.
With --specialise the searching commands compile their searches for each heuristic (their
--specialise), and the file names end in _specialised.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom
from solvers.atomic import write_csv
from solvers.cli_support import run_guarded
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.puzzle import Puzzle
from solvers.search.effort import predict_ida
from solvers.solve import solve

ROOT = Path(__file__).resolve().parent.parent
PDBS = ROOT / "data" / "pdbs"
BLANK_FIRST_3X3 = tuple(range(9))
CATALOGUE_3 = ("6-6-6-6", "6-6-6-6-s1", "6-6-6-6-s2")
MAINS = {"solve-puzzle": "solvers.cli:solve_puzzle_main", "solve-batch": "solvers.cli:solve_batch_main",
         "compare-heuristics": "solvers.cli:compare_heuristics_main",
         "make-instances": "solvers.cli:make_instances_main", "build-pdb": "pdb_build.cli:build_pdb_main",
         "verify-pdb": "pdb_build.cli:verify_pdb_main"}  # each command's function (pyproject's scripts)
SPECIALISING = ("solve-puzzle", "solve-batch", "compare-heuristics")  # the commands that take --specialise
START_3X3 = "8 6 7 2 5 4 3 0 1"  # 31 moves: the search itself takes milliseconds
# (case, command, arguments): {plain}, {zero} and {out} name the 3x3 4-4 tables (plain, zero-aware) and a
# scratch file
COMMANDS = (
    ("solve-puzzle ida manhattan", "solve-puzzle", [START_3X3, "--heuristic", "manhattan"]),
    ("solve-puzzle ida linear-conflict", "solve-puzzle", [START_3X3]),
    ("solve-puzzle ida walking-distance", "solve-puzzle", [START_3X3, "--heuristic", "walking-distance"]),
    ("solve-puzzle ida gaschnig", "solve-puzzle", [START_3X3, "--heuristic", "gaschnig"]),
    ("solve-puzzle ida pdb", "solve-puzzle", [START_3X3, "--heuristic", "pdb:{plain}"]),
    ("solve-puzzle ida pdb zero-aware +reflect", "solve-puzzle", [START_3X3, "--heuristic", "pdb:{zero}+reflect"]),
    ("solve-puzzle ida pdb zero-aware +reflect+dual", "solve-puzzle",
     [START_3X3, "--heuristic", "pdb:{zero}+reflect+dual"]),
    ("solve-puzzle ida max(pdb +reflect, linear-conflict)", "solve-puzzle",
     [START_3X3, "--heuristic", "max(pdb:{plain}+reflect, linear-conflict)"]),
    ("solve-puzzle wida linear-conflict", "solve-puzzle", [START_3X3, "--algorithm", "wida", "--weight", "1.5"]),
    ("solve-puzzle astar manhattan", "solve-puzzle", [START_3X3, "--heuristic", "manhattan", "--algorithm", "astar"]),
    ("solve-puzzle astar linear-conflict", "solve-puzzle", [START_3X3, "--algorithm", "astar"]),
    ("solve-puzzle astar pdb zero-aware +reflect", "solve-puzzle",
     [START_3X3, "--heuristic", "pdb:{zero}+reflect", "--algorithm", "astar"]),
    ("solve-puzzle beam linear-conflict", "solve-puzzle", [START_3X3, "--algorithm", "beam"]),
    ("solve-puzzle nbs linear-conflict", "solve-puzzle", [START_3X3, "--algorithm", "nbs"]),
    ("solve-puzzle bfs", "solve-puzzle", [START_3X3, "--algorithm", "bfs"]),
    ("solve-batch ida linear-conflict", "solve-batch", ["hardest8-31", "--jobs", "1", "--out", "{out}.csv"]),
    ("compare-heuristics manhattan, linear-conflict", "compare-heuristics",
     ["--board", "3x3", "--sample", "100", "--instances", "hardest8-31", "--out", "{out}"]),
    ("compare-heuristics manhattan, linear-conflict, no instances", "compare-heuristics",
     ["--board", "3x3", "--sample", "100", "--out", "{out}"]),
    ("build-pdb 4-4", "build-pdb", ["--board", "3x3", "--preset", "4-4", "--out", "{out}.h5"]),
    ("build-pdb 4-4 zero-aware", "build-pdb", ["--board", "3x3", "--preset", "4-4", "--zero-aware", "--out",
                                               "{out}.h5"]),
    ("verify-pdb", "verify-pdb", ["{plain}"]),
    ("verify-pdb zero-aware", "verify-pdb", ["{zero}"]),
    ("make-instances", "make-instances", ["--board", "3x3", "--count", "3", "--out", "{out}.txt"]),
    ("make-instances, no lengths", "make-instances", ["--board", "3x3", "--count", "3", "--solve", "off", "--out",
                                                      "{out}.txt"]),
)
# (case, command, arguments, what runs before it with the same cache): what a further heuristic costs a
# search already compiled for others (--after)
AFTER = (
    ("solve-puzzle ida linear-conflict after manhattan", "solve-puzzle", [START_3X3],
     [[START_3X3, "--heuristic", "manhattan"]]),
    ("solve-puzzle ida pdb +reflect after manhattan", "solve-puzzle", [START_3X3, "--heuristic", "pdb:{plain}+reflect"],
     [[START_3X3, "--heuristic", "manhattan"]]),
    ("solve-puzzle ida max(pdb +reflect, linear-conflict) after both", "solve-puzzle",
     [START_3X3, "--heuristic", "max(pdb:{plain}+reflect, linear-conflict)"],
     [[START_3X3, "--heuristic", "pdb:{plain}+reflect"], [START_3X3]]),
    ("solve-puzzle astar linear-conflict after manhattan", "solve-puzzle", [START_3X3, "--algorithm", "astar"],
     [[START_3X3, "--algorithm", "astar", "--heuristic", "manhattan"]]),
    ("solve-puzzle beam linear-conflict after manhattan", "solve-puzzle", [START_3X3, "--algorithm", "beam"],
     [[START_3X3, "--algorithm", "beam", "--heuristic", "manhattan"]]),
    ("solve-puzzle dibbs linear-conflict after nbs", "solve-puzzle", [START_3X3, "--algorithm", "dibbs"],
     [[START_3X3, "--algorithm", "nbs"]]),
)


def _child(case: dict) -> None:
    """In a fresh process: time each step of `case` and print them as one JSON line."""
    began = time.perf_counter()
    puzzle = Puzzle(case["rows"], case["cols"], tuple(range(case["rows"] * case["cols"])))
    heuristic = from_spec(puzzle, case["spec"])
    start = puzzle.goal.copy()
    start[[1, 2]] = start[[2, 1]]  # two swaps of tiles, the blank at home: an even permutation,
    start[[3, 4]] = start[[4, 3]]  # so solvable, and not the goal
    seconds = {"load": time.perf_counter() - began}
    for step in ["evaluate", *case["searches"]]:
        began = time.perf_counter()
        if step == "evaluate":
            heuristic(start)
        elif step == "effort":
            predict_ida(puzzle, start, heuristic, int(heuristic(start)) + 2, n_probes=1)
        else:
            solve(puzzle, start, step, heuristic, node_limit=100)
        seconds[step] = time.perf_counter() - began
    print(json.dumps({name: round(value, 2) for name, value in seconds.items()}))


def _cases(folder: Path) -> list[dict]:
    puzzle = Puzzle(3, 3, BLANK_FIRST_3X3)
    plan = plan_build(puzzle, custom(puzzle, ["1,2,4,5", "3,6,7,8"]), additive=True, zero_aware=True)
    small = build_pdb_file(plan, folder / "3x3-4-4-zero-aware.h5")[0]
    cases = [
        {"name": "3x3 4-4 zero-aware +reflect", "rows": 3, "cols": 3, "spec": f"pdb:{small}+reflect",
         "searches": ["ida", "astar", "effort"]},
        {"name": "3x3 4-4 zero-aware +reflect+dual", "rows": 3, "cols": 3, "spec": f"pdb:{small}+reflect+dual",
         "searches": ["ida", "astar"]},
    ]
    files = {"5x5 6-6-6-6 +reflect": ["6-6-6-6"], "5x5 6-6-6-6 zero-aware +reflect": ["6-6-6-6-zero-aware"],
             "5x5 three zero-aware 6-6-6-6 partitions +reflect": [f"{p}-zero-aware" for p in CATALOGUE_3]}
    for name, stems in files.items():
        paths = [PDBS / f"5x5-blank-first-{stem}.h5" for stem in stems]
        if all(path.exists() for path in paths):
            lookups = [f"pdb:{path}+reflect" for path in paths]
            spec = lookups[0] if len(lookups) == 1 else f"max({', '.join(lookups)})"
            cases.append({"name": name, "rows": 5, "cols": 5, "spec": spec, "searches": ["ida", "effort"]})
    return cases


def _command_seconds(command: str, arguments: list[str], cache: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of `command` in a fresh process with
    NUMBA_CACHE_DIR=`cache`. CPU seconds (user + system of the child) are what compiling costs
    where other work shares the cores; on an idle machine they are about the wall seconds."""
    module, function = MAINS[command].split(":")
    code = f"import sys; from {module} import {function}; sys.exit({function}(sys.argv[1:]))"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *arguments], capture_output=True, text=True,
                          env={**os.environ, "NUMBA_CACHE_DIR": cache})
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{command} {' '.join(arguments)}: exit status {done.returncode}: "
                           f"{done.stderr.strip().splitlines()[-1:]}")
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def _commands(out: Path, only: str | None, after: bool, specialise: bool) -> int:
    """--commands: each of COMMANDS (those whose name contains `only`) cold, then warm; with
    --after each of AFTER so, once its commands before ran with the same cache; with
    `specialise`, the searching commands compile their searches for each heuristic
    (--specialise). Prints and writes the compile seconds, wall and CPU."""
    print(f"compile seconds of whole commands (cold - warm){', --specialise' if specialise else ''}, "
          f"{platform.processor() or platform.machine()}, {time.strftime('%Y-%m-%d')}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        puzzle = Puzzle(3, 3)
        files = {}
        for name, zero_aware in (("plain", False), ("zero", True)):
            plan = plan_build(puzzle, custom(puzzle, ["1,2,4,5", "3,6,7,8"]), additive=True, zero_aware=zero_aware)
            files[name] = str(build_pdb_file(plan, Path(folder) / f"3x3-4-4-{name}.h5")[0])
        cases = AFTER if after else tuple((*case, []) for case in COMMANDS)
        for number, (case, command, arguments, before) in enumerate(cases):
            if only is None or only in case:
                extra = ["--specialise"] if specialise and command in SPECIALISING else []
                runs = [[a.format(**files, out=f"{folder}/out{number}") for a in each] + extra
                        for each in [*before, arguments]]
                rows.append(_compile_row(case, command, runs, Path(folder) / f"out{number}"))
    write_csv(out, rows)
    print(f"wrote {out}")
    return 0


def _compile_row(case: str, command: str, runs: list[list[str]], outputs: Path) -> dict:
    """Each of `runs` (argument lists of `command`) but the last in a fresh process with one new
    cache, then the last twice, cold and warm (its outputs, named from `outputs`, removed
    between); prints and returns the row."""
    with tempfile.TemporaryDirectory() as cache:
        for arguments in runs[:-1]:
            _command_seconds(command, arguments, cache)
        cold = _command_seconds(command, runs[-1], cache)
        for path in outputs.parent.glob(f"{outputs.name}*"):  # the warm run writes them again
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
        warm = _command_seconds(command, runs[-1], cache)
    print(f"{case:<52} cold {cold[0]:6.1f} s  warm {warm[0]:5.1f} s  compile {cold[0] - warm[0]:6.1f} s "
          f"wall, {cold[1] - warm[1]:6.1f} s CPU", flush=True)
    return {"case": case, "cold_seconds": f"{cold[0]:.2f}", "warm_seconds": f"{warm[0]:.2f}",
            "compile_seconds": f"{cold[0] - warm[0]:.2f}", "cold_cpu_seconds": f"{cold[1]:.2f}",
            "warm_cpu_seconds": f"{warm[1]:.2f}", "compile_cpu_seconds": f"{cold[1] - warm[1]:.2f}"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="the CSV file (default: results/bench_compile.csv, with --commands "
                        "results/bench_compile_commands.csv)")
    parser.add_argument("--commands", action="store_true", help="time whole commands, cold against warm (COMMANDS)")
    parser.add_argument("--after", action="store_true",
                        help="with --commands, the cases of AFTER: a heuristic for a search compiled for others")
    parser.add_argument("--only", metavar="TEXT", help="with --commands, only the cases whose name contains TEXT")
    parser.add_argument("--specialise", action="store_true",
                        help="with --commands, the searches compiled for each heuristic (the commands' --specialise)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(json.loads(args.child))
        return 0
    if not args.commands and (args.after or args.only or args.specialise):
        raise InputError("--after, --only and --specialise go with --commands")
    if args.commands:
        default = ("bench_compile_after" if args.after else "bench_compile_commands") \
            + ("_specialised" if args.specialise else "") + ".csv"
        return _commands(Path(args.out or ROOT / "results" / default), args.only, args.after, args.specialise)
    args.out = args.out or str(ROOT / "results" / "bench_compile.csv")
    print(f"cold compile seconds, one process per case, {platform.processor() or platform.machine()}, "
          f"{time.strftime('%Y-%m-%d')}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for case in _cases(Path(folder)):
            with tempfile.TemporaryDirectory() as cache:
                done = subprocess.run([sys.executable, __file__, "--child", json.dumps(case)], capture_output=True,
                                      text=True, env={**os.environ, "NUMBA_CACHE_DIR": cache})
            if done.returncode != 0:
                print(f"{case['name']}: failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
                return 1
            seconds = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{case['name']:<50} " + "  ".join(f"{step} {value:6.1f} s" for step, value in seconds.items()),
                  flush=True)
            rows.append({"case": case["name"], **{step: seconds.get(step, "")
                                                  for step in ("load", "evaluate", "ida", "astar", "effort")}})
    write_csv(Path(args.out), rows)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench_compile.py", main))
