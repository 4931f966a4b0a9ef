"""cli.py -- command-line front ends of the solvers: `solve-puzzle`, `solve-batch`, `compare-heuristics`,
`make-instances`.

solve-puzzle exit status: 0 solved, 1 the instance is unsolvable, 2 invalid input (one line
on stderr), 3 a node or time limit ended the search first, 130 interrupted (the anytime search,
once it has a solution, prints the best so far first).
solve-batch exit status: 0 every instance solved and no result contradicts a known optimum
(batch.contradicts_optimum), 1 some does, 2 invalid input, 3 some instance not solved (limit or unsolvable), 130
interrupted (the rows written so far stay; rerun to resume).
compare-heuristics exit status: 0 done (every instance solved at its known length), 1 a length
differs from a known optimum (the report is written), 2 invalid input, 130 interrupted.
make-instances exit status: 0 written, 2 invalid input, 130 interrupted (nothing written).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

from pdb_build.store import package_version
from solvers.atomic import atomic_target
from solvers.batch import solve_batch
from solvers.cli_support import (
    EXIT_GAVE_UP,
    EXIT_OK,
    EXIT_UNSOLVABLE,
    OneLineParser,
    positive_float,
    positive_int,
    run_guarded,
    show_progress,
)
from solvers.compile_notice import (
    add_verbose_option,
    announcing,
    batch_seconds,
    compare_seconds,
    instances_seconds,
    search_seconds,
    shown,
    term_classes,
)
from solvers.distributed import cluster_from_options, cluster_options, cluster_size
from solvers.errors import InputError
from solvers.experiments import compare, random_walk_states, read_states, require_solvable, uniform_states
from solvers.heuristics import accepted_forms, from_options, from_spec
from solvers.instances import load_instances, packaged_sets, select_instances
from solvers.make_instances import (
    MAX_SOLVE_CELLS,
    instance_file_text,
    optimal_lengths,
    random_instances,
    random_walk_instances,
)
from solvers.puzzle import Puzzle, load_puzzle, parse_board
from solvers.reports import check_report_folder, write_report
from solvers.search.registry import Search, all_options, informed_names, names_listed, search_named, searches, takers
from solvers.search.result import GAVE_UP, SOLVED, UNSOLVABLE
from solvers.solve import solve
from solvers.wording import count

EXIT_FOR_STATUS = {SOLVED: EXIT_OK, UNSOLVABLE: EXIT_UNSOLVABLE, GAVE_UP: EXIT_GAVE_UP}
# solve-batch runs each instance on one worker (--jobs of them; with --split-last a last instance
# alone is split over them), and compare-heuristics measures IDA*'s effort without limits
BATCH_WITHOUT = ("threads",)
COMPARED_OPTIONS = ("prune", "full_last_iteration", "bpmx")
COMPARED_BY_DEFAULT = ("manhattan", "linear-conflict")  # compare-heuristics without --heuristic


def solve_puzzle_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="solve-puzzle",
        description="Solve one sliding-tile puzzle. Moves name the direction the blank moves (U, D, L, R).",
        epilog="Exit status: 0 solved, 1 unsolvable, 2 invalid input, 3 node or time limit reached, 130 interrupted "
        "(anytime: after printing the best solution so far).",
    )
    parser.add_argument(
        "tiles",
        help='the tile in each cell, row by row, 0 for the blank: "1 2 3 4 6 8 7 5 0" or "1,2,3/4,6,8/7,5,0"',
    )
    parser.add_argument("--board", help="RxC, rows x columns (default: from the rows given or a square tile count)")
    parser.add_argument("--goal", help="the goal state (default: 1 2 ... N-1 with the blank last)")
    add_algorithm_option(parser, list(searches().values()))
    add_heuristic_options(parser)
    add_search_options(parser, list(searches().values()))
    cluster_options(parser, "--threads")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--show-boards", action="store_true", help="also print the board after every move")
    add_verbose_option(parser)
    return parser


def add_algorithm_option(parser: OneLineParser, offered: list[Search]) -> None:
    """--algorithm, one of the registered searches `offered`."""
    parser.add_argument("--algorithm", default="ida", choices=[s.name for s in offered],
                        help="search algorithm (default: ida): " + "; ".join(f"{s.name}, {s.summary}" for s in offered))


def add_heuristic_options(parser: OneLineParser) -> None:
    """--heuristic, --pdb and --reflect, shared by the commands that search."""
    parser.add_argument(
        "--heuristic",
        default="linear-conflict",
        help=f"heuristic for the informed searches ({', '.join(informed_names())}): {accepted_forms()}, or pdb "
        "(with --pdb); e.g. "
        "max(pdb:FILE+reflect, walking-distance); default: linear-conflict",
    )
    parser.add_argument("--pdb", action="append", metavar="FILE", help="a PDB file from build-pdb (repeat to take the max)")
    parser.add_argument("--reflect", action="store_true", help="also look the PDBs up on the mirrored state")


TRISTATE_VALUES = {"auto": None, "on": True, "off": False}  # the values of a "tristate" option


def add_search_options(parser: OneLineParser, offered: list[Search], only: tuple[str, ...] | None = None,
                       without: tuple[str, ...] = ()) -> None:
    """Add the command-line options of the searches `offered` (each option once, its help naming
    the searches that take it when not all do): with `only`, just those, and never those of
    `without`. Every value defaults to None: not given (`search_options`)."""
    options = {option.name: option for search in offered for option in search.options}
    for name, option in options.items():
        if option.kind == "object" or (only is not None and name not in only) or name in without:
            continue
        taking = [search.name for search in offered if search.takes(name)]
        help_text = option.help + ("" if len(taking) == len(offered) else f" ({', '.join(taking)})")
        if option.kind == "switch":
            parser.add_argument(option.flag, action="store_true", default=None, help=help_text)
        elif option.kind == "tristate":
            parser.add_argument(option.flag, choices=list(TRISTATE_VALUES), help=help_text)
        elif option.kind == "choice":
            parser.add_argument(option.flag, choices=option.choices, help=help_text)
        else:
            parser.add_argument(option.flag, type=positive_int if option.kind == "count" else positive_float,
                                help=help_text)


def search_options(args) -> dict:
    """solve's keywords for the search options given on the command line (`add_search_options`)."""
    given = {}
    for name, option in all_options().items():
        value = getattr(args, name, None)
        if option.kind == "tristate":
            value = TRISTATE_VALUES[value] if value is not None else None
        if value is not None:
            given[name] = value
    return given


def solve_puzzle_main(argv: list[str] | None = None) -> int:
    """Run `solve-puzzle`; returns the exit status."""
    args = solve_puzzle_parser().parse_args(argv)
    return run_guarded("solve-puzzle", lambda: _solve_puzzle(args))


def _solve_puzzle(args) -> int:
    puzzle, start = load_puzzle(args.tiles, args.board, args.goal)
    heuristic = from_options(puzzle, args.heuristic, args.pdb, args.reflect)
    search = search_named(args.algorithm)
    if (args.scheduler or args.cluster) and not search.takes("executor"):
        raise InputError(f"--scheduler and --cluster split the search of {names_listed(takers('executor'))} only")
    given = search_options(args)
    with cluster_from_options(args, args.threads or 1) as client:
        if client is not None:
            given["threads"] = cluster_size(client)
        with announcing("solve-puzzle", _compiled(search), search_seconds(args.algorithm, heuristic.spec),
                        shown(args.verbose), _cacheable(search, heuristic)):
            result = solve(puzzle, start, args.algorithm, heuristic, client=client, **given)
    kinds = {option.name: option.kind for option in search.options}
    searched = {name: value for name, value in search.with_defaults(given).items()
                if kinds[name] in ("choice", "switch", "number")}  # how it searched; limits are in the result
    if args.json:
        record = {
            "board": puzzle.board,
            "goal": puzzle.goal.tolist(),
            "start": start.tolist(),
            **result.to_dict(),
            **searched,
        }
        if args.show_boards and result.status == SOLVED:
            record["boards"] = [s.tolist() for s in puzzle.states_along(start, result.moves)]
        print(json.dumps(record))
    else:
        print(_report(puzzle, start, result, args.show_boards, searched))
    if result.interrupted:  # its best solution is shown; the command still ends as interrupted
        raise KeyboardInterrupt
    return EXIT_FOR_STATUS[result.status]


def _compiled(search: Search) -> str:
    """What a search compiles, as the compile notice names it."""
    return "search kernels for this heuristic" if search.informed else "search kernels"


def _cacheable(search: Search, heuristic) -> bool:
    """Whether the kernels of `search` with `heuristic` are kept in the disk cache (not for a
    heuristic with a user's function: Term.cacheable)."""
    return not search.informed or all(term.cacheable for term in heuristic.terms)


def _report(puzzle, start, result, show_boards: bool, searched: dict) -> str:
    lines = [
        f"board      {puzzle.board}, goal {' '.join(map(str, puzzle.goal))}",
        f"algorithm  {result.algorithm}" + (f", heuristic {result.heuristic}" if result.heuristic != "zero" else "")
        + (f", weight {searched['weight']:g}" if "weight" in searched else ""),
    ]
    if result.status == UNSOLVABLE:
        lines.append("unsolvable: the goal cannot be reached from this state (permutation parity)")
        return "\n".join(lines)
    if result.status == GAVE_UP:
        lines.append(f"gave up    {result.reason}")
    else:
        lines.append(f"length     {result.length}" + (" (optimal)" if result.optimal else " (not necessarily optimal)"))
        lines.append(f"moves      {result.moves or '(none: already the goal)'}")
    if result.interrupted:
        lines.append("stopped    interrupted before the search ended: the best solution found so far")
    if len(result.found) > 1:
        lines.append("found      " + ", ".join(f"{length} moves at {seconds:.2f} s" for length, seconds in result.found))
    if not result.optimal and result.lower_bound is not None:
        within = f" (this solution is at most {result.suboptimality:.3f} times the shortest)" \
            if result.suboptimality is not None else ""
        lines.append(f"bound      the shortest solution has at least {result.lower_bound} moves{within}")
    how = f" (move pruning {searched['prune']}{', last iteration completed' if searched['full_last_iteration'] else ''})" \
        if "prune" in searched else ""
    lines.append(f"nodes      {result.nodes_expanded:,} expanded, {result.nodes_generated:,} generated{how}")
    if result.bpmx:
        cutoffs = f", {count(result.bpmx_cutoffs, 'parent')} cut off" if result.iterations else ""  # bounded passes
        lines.append(f"bpmx       {count(result.bpmx_raises, 'parent')} raised{cutoffs}")
    lines.append(f"time       {result.seconds:.3f} s")
    if show_boards and result.status == SOLVED:
        for step, state in enumerate(puzzle.states_along(start, result.moves)):
            title = "start" if step == 0 else f"move {step}: {result.moves[step - 1]}"
            lines += ["", title, puzzle.format(state)]
    return "\n".join(lines)


def solve_batch_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="solve-batch",
        description="Solve every instance of a benchmark file; one verified CSV row per instance, resumable.",
        epilog="Exit status: 0 all solved at their known lengths, 1 a length differs from a known optimum, "
        "2 invalid input, 3 some instance not solved, 130 interrupted (rerun to resume).",
    )
    parser.add_argument("instances", help="instance file: one puzzle per line, optional '| known length', "
                        "'# board: RxC' and '# goal: ...' header lines; or a packaged set: "
                        f"{', '.join(packaged_sets())}")
    parser.add_argument("--board", help="RxC (default: the file's header, else a square tile count)")
    parser.add_argument("--goal", help="the goal state (default: the file's header, else blank last)")
    informed = [s for s in searches().values() if s.informed]
    add_algorithm_option(parser, informed)
    add_heuristic_options(parser)
    add_search_options(parser, informed, without=BATCH_WITHOUT)
    parser.add_argument("--out", help="the CSV file (default: results/<instances>-<heuristic>.csv); "
                        "an existing one is resumed")
    parser.add_argument("--jobs", type=positive_int, default=os.cpu_count() or 1,
                        help="worker processes (default: all cores)")
    cluster_options(parser, "--jobs")
    parser.add_argument("--split-last", action="store_true",
                        help="split a last instance left alone over the --jobs threads (IDA* without a node limit; "
                        "its node counts then depend on the schedule; the row records the threads)")
    parser.add_argument("--retry-gave-up", action="store_true",
                        help="solve again every row of the --out file that gave up (by default only those whose "
                        "limits this run's may exceed: a larger --node-limit, --time-limit or --memory)")
    parser.add_argument("--redo-other-limits", action="store_true",
                        help="solve again every row of the --out file recorded under other limits or threads than "
                        "this run's, so that the file holds one run's (by default solved rows keep their own)")
    parser.add_argument("--first", type=positive_int, help="solve only the first K instances")
    parser.add_argument("--only", metavar="LIST", help="solve only these instances, by number: e.g. 38,40,1-5")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_verbose_option(parser, quiet=True)
    return parser


def solve_batch_main(argv: list[str] | None = None) -> int:
    """Run `solve-batch`; returns the exit status."""
    args = solve_batch_parser().parse_args(argv)
    return run_guarded("solve-batch", lambda: _solve_batch(args),
                       "interrupted; the rows written so far are kept, rerun to resume")


def _solve_batch(args) -> int:
    puzzle, instances = load_instances(args.instances, args.board, args.goal)
    instances = select_instances(instances, args.only) if args.only is not None else instances
    instances = instances[: args.first] if args.first else instances
    heuristic = from_options(puzzle, args.heuristic, args.pdb, args.reflect)
    if args.out is not None and not args.out.strip():
        raise InputError("--out needs a file name")
    out = Path(args.out) if args.out else Path("results") / f"{Path(args.instances).stem}-{_slug(heuristic.name)}.csv"
    with cluster_from_options(args, args.jobs) as client:
        where = count(args.jobs, "job") if client is None else f"Dask cluster of {count(cluster_size(client), 'thread')}"
        print(f"{count(len(instances), 'instance')} of {puzzle}, {args.algorithm} with {heuristic.name}, {where}, "
              f"writing {out}")
        with announcing("solve-batch", _compiled(search_named(args.algorithm)),
                        batch_seconds(args.algorithm, heuristic.spec), shown(args.verbose, args.quiet),
                        _cacheable(search_named(args.algorithm), heuristic)):
            summary = solve_batch(
                puzzle, instances, heuristic, out, algorithm=args.algorithm, jobs=args.jobs,
                progress=show_progress(args.quiet), report=lambda line: print(line, file=sys.stderr), client=client,
                retry_gave_up=args.retry_gave_up, redo_other_limits=args.redo_other_limits, split_last=args.split_last,
                **search_options(args),
            )
    print("\n".join(summary.lines()))
    if summary.mismatches:
        print(f"solve-batch: ERROR: {len(summary.mismatches)} results contradict the known optima "
              f"(instances {', '.join(map(str, summary.mismatches))})", file=sys.stderr)
        return EXIT_UNSOLVABLE
    return EXIT_GAVE_UP if summary.n_not_solved else EXIT_OK


def compare_heuristics_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="compare-heuristics",
        description="Compare heuristics on sampled states (strength) and on instances (IDA* effort, KRE prediction).",
        epilog=f"Heuristic specs: {accepted_forms()}; e.g. max(pdb:FILE+reflect, walking-distance). Exit status: 0 done (every instance solved at its known length), 1 a length differs "
        "from a known optimum, 2 invalid input, 130 interrupted.",
    )
    parser.add_argument("--board", help="RxC, rows x columns (default: the header of the --instances or --states "
                        "file, else a square tile count; needed without such a file)")
    parser.add_argument("--goal", help="the goal state (default: the file's header, else blank last)")
    parser.add_argument("--heuristic", action="append", metavar="SPEC",
                        help="a heuristic to compare (repeat; default: manhattan and linear-conflict)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--sample", type=positive_int, default=100_000,
                        help="uniform random solvable states to sample (default 100000)")
    source.add_argument("--walk", type=positive_int, metavar="LENGTH",
                        help="instead, end points of random walks of LENGTH moves from the goal (--walks of them)")
    source.add_argument("--states", metavar="FILE", help="instead, the states listed in FILE (read like an "
                        "instance file; unsolvable states are refused)")
    parser.add_argument("--walks", type=positive_int, default=10_000, help="how many random walks (default 10000)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--instances", metavar="FILE", help="also solve these instances with IDA* and each heuristic "
                        "(an instance file or a packaged set's name, e.g. korf100; read as solve-batch reads "
                        "them; a length that differs from a known one is reported)")
    parser.add_argument("--only", metavar="LIST", help="solve only these instances, by number: e.g. 38,40,1-5")
    parser.add_argument("--first", type=positive_int, metavar="K", help="solve only the first K instances")
    add_search_options(parser, [search_named("ida")], only=COMPARED_OPTIONS)
    parser.add_argument("--exact", choices=list(TRISTATE_VALUES), default="auto",
                        help="compare with exact distances: auto (the default) on boards of at most 9 cells; "
                        "on works up to 12 cells, with time and memory")
    parser.add_argument("--out", required=True, help="output folder (summary.csv, summary.md, per_state.csv, ...); "
                        "one that holds files is refused without --force")
    parser.add_argument("--force", action="store_true", help="write into an --out folder that holds files: the files "
                        "of an earlier run there (listed in its manifest.json) are replaced, no other file is touched")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    add_verbose_option(parser, quiet=True)
    return parser


def compare_heuristics_main(argv: list[str] | None = None) -> int:
    """Run `compare-heuristics`; returns the exit status."""
    parser = compare_heuristics_parser()
    args = parser.parse_args(argv)
    command = "compare-heuristics " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    return run_guarded("compare-heuristics", lambda: _compare_heuristics(args, command))


def _compare_heuristics(args, command: str) -> int:
    if not args.out.strip():
        raise InputError("--out needs a folder name")
    check_report_folder(args.out, args.force)
    specs = args.heuristic or list(COMPARED_BY_DEFAULT)
    with announcing("compare-heuristics", "kernels for these heuristics", compare_seconds(specs, bool(args.instances)),
                    shown(args.verbose, args.quiet), not any("user" in term_classes(spec) for spec in specs)):
        return _compared(args, command, specs)


def _compared(args, command: str, specs: list[str]) -> int:
    puzzle, instances = _compared_instances(args)
    if args.states:
        puzzle, states = read_states(args.states, args.board, args.goal, like=puzzle)
        source = f"from {args.states}"
    else:
        puzzle = puzzle or _compared_puzzle(args)
        if args.walk:
            states, source = random_walk_states(puzzle, args.walks, args.walk, args.seed), f"random-walk ({args.walk} moves)"
        else:
            states, source = uniform_states(puzzle, args.sample, args.seed), "uniform random"
    heuristics = [from_spec(puzzle, spec) for spec in specs]
    solving = f", solving {count(len(instances), 'instance')} from {args.instances}" if instances else ""
    print(f"{puzzle.board} board, goal {' '.join(map(str, puzzle.goal))}: {count(len(states), 'state')} ({source})"
          f"{solving}; heuristics {', '.join(h.name for h in heuristics)}; writing {args.out}")
    comparison = compare(puzzle, heuristics, states, instances=instances, exact=TRISTATE_VALUES[args.exact],
                         progress=show_progress(args.quiet), **search_options(args))
    meta = {"command": command, "package_version": package_version(), "seed": args.seed, "source": source}
    for path in write_report(comparison, args.out, meta, force=args.force):
        print(f"wrote {path}")
    print(Path(args.out, "summary.md").read_text())
    for row in comparison.mismatches:
        print(f"MISMATCH: {row['heuristic']} solved instance {row['instance']} in {row['length']} moves, "
              f"but its known optimal length is {row['known_length']}", file=sys.stderr)
    return EXIT_UNSOLVABLE if comparison.mismatches else EXIT_OK


def _compared_instances(args) -> tuple[Puzzle | None, list | None]:
    """The puzzle and the instances chosen by --instances, --only and --first (None, None without a file)."""
    if not args.instances:
        if args.only is not None or args.first:
            raise InputError("--only and --first choose among the instances of --instances FILE")
        return None, None
    puzzle, instances = load_instances(args.instances, args.board, args.goal)
    instances = select_instances(instances, args.only) if args.only is not None else instances
    instances = instances[: args.first] if args.first else instances
    require_solvable(puzzle, instances, args.instances, "instance")
    return puzzle, instances


def _compared_puzzle(args) -> Puzzle:
    """The puzzle of --board and --goal, when no file names it."""
    if args.board is None:
        raise InputError("--board is needed without an --instances or --states file")
    return Puzzle(*parse_board(args.board), args.goal)


def make_instances_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="make-instances",
        description="Write a benchmark instance file: uniform random solvable states, or the ends of random "
        "walks from the goal, with their optimal lengths on small boards.",
        epilog="Exit status: 0 written, 2 invalid input, 130 interrupted (nothing written).",
    )
    parser.add_argument("--board", required=True, help="RxC, rows x columns")
    parser.add_argument("--goal", help="the goal state (default: 1 2 ... N-1 with the blank last)")
    parser.add_argument("--count", type=positive_int, default=100, help="how many instances (default 100)")
    parser.add_argument("--walk", type=positive_int, metavar="LENGTH", help="instead of uniform random states, the ends of "
                        "random walks of LENGTH moves from the goal that never undo the previous move")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--solve", choices=list(TRISTATE_VALUES), default="auto",
                        help="write each instance's optimal length: auto (the default) on boards of at most "
                        f"{MAX_SOLVE_CELLS} cells, where on is possible too; refused on larger ones")
    parser.add_argument("--out", default="-", help="the instance file (default: - for stdout); an existing one "
                        "is refused without --force")
    parser.add_argument("--force", action="store_true", help="replace an existing --out file")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_verbose_option(parser, quiet=True)
    return parser


def make_instances_main(argv: list[str] | None = None) -> int:
    """Run `make-instances`; returns the exit status."""
    args = make_instances_parser().parse_args(argv)
    return run_guarded("make-instances", lambda: _make_instances(args), "interrupted; nothing written")


def _make_instances(args) -> int:
    puzzle = Puzzle(*parse_board(args.board), args.goal)
    asked = TRISTATE_VALUES[args.solve]
    solving = puzzle.n_cells <= MAX_SOLVE_CELLS if asked is None else asked
    out = None if args.out == "-" else _new_file(args.out, args.force)
    with announcing("make-instances", "kernels for drawing" + (" and solving" if solving else "") + " instances",
                    instances_seconds(solving), shown(args.verbose, args.quiet)):
        return _made_instances(args, puzzle, solving, out)


def _made_instances(args, puzzle: Puzzle, solving: bool, out: Path | None) -> int:
    if args.walk is None:
        states = random_instances(puzzle, args.count, args.seed)
        source = f"{count(args.count, 'state')} drawn uniformly from the solvable states"
    else:
        states = random_walk_instances(puzzle, args.count, args.walk, args.seed)
        source = f"The ends of {count(args.count, 'random walk')} of {count(args.walk, 'move')} from the goal, " \
                 "none undoing the move before it"
    lengths = optimal_lengths(puzzle, states, progress=show_progress(args.quiet)) if solving else None
    text = instance_file_text(puzzle, states, lengths, [
        f"{source} (seed {args.seed}), {puzzle.board} board.",
        f"Made on {_today()} by: {_make_instances_command(args, puzzle, solving)}",
        "Format: the tile in each cell in row-major order (0 = blank), "
        + ('then "| optimal length" (IDA*, each solution replayed).' if solving
           else 'no optimal lengths yet (append "| length" when known).'),
    ])
    if out is None:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        with atomic_target(out) as temporary:
            temporary.write_text(text)
    except OSError as error:
        raise InputError(f"cannot write {out}: {error}") from None
    print(f"wrote {count(args.count, 'instance')} of {puzzle} to {out}")
    return EXIT_OK


def _new_file(name: str, force: bool) -> Path:
    """The file --out names; InputError if the name is empty or a folder's, or if the file exists
    and `force` is not given."""
    if not name.strip():
        raise InputError("--out needs a file name")
    path = Path(name)
    if path.is_dir():
        raise InputError(f"--out {name} is a folder; give a file name")
    if path.exists() and not force:
        raise InputError(f"{name} exists; pass --force to replace it")
    return path


def _make_instances_command(args, puzzle: Puzzle, solving: bool) -> str:
    """The make-instances command that writes the same instances (every option that sets them, none
    that names the file), so that the same options always give the same header."""
    walk = [] if args.walk is None else ["--walk", str(args.walk)]
    return shlex.join(["make-instances", "--board", puzzle.board, "--goal", " ".join(map(str, puzzle.goal)),
                       "--count", str(args.count), *walk, "--seed", str(args.seed),
                       "--solve", "on" if solving else "off"])


def _today() -> str:
    """Today's date (UTC), or that of SOURCE_DATE_EPOCH when set (reproducible builds' convention)."""
    seconds = os.environ.get("SOURCE_DATE_EPOCH")
    if seconds is not None and not seconds.isdigit():
        raise InputError(f"SOURCE_DATE_EPOCH {seconds!r} is not a number of seconds since 1970")
    return time.strftime("%Y-%m-%d", time.gmtime(None if seconds is None else int(seconds)))


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")


if __name__ == "__main__":
    sys.exit(solve_puzzle_main())
