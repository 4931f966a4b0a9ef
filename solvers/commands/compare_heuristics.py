"""compare_heuristics.py -- `compare-heuristics`: heuristics side by side on sampled states and on instances.

Exit status: 0 done (every instance solved at its known length), 1 a length differs from a
known optimum (the report is written), 2 invalid input, 130 interrupted.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from pdb_build.store import package_version
from solvers.cli_support import (
    EXIT_OK,
    EXIT_UNSOLVABLE,
    OneLineParser,
    add_goal_option,
    add_quiet_option,
    positive_int,
    run_guarded,
    show_progress,
)
from solvers.commands.options import (
    TRISTATE_VALUES,
    add_search_options,
    add_specialise_option,
    search_options,
)
from solvers.compile_notice import (
    add_verbose_option,
    announcing,
    compare_seconds,
    evaluation_seconds,
    shown,
    term_classes,
)
from solvers.errors import InputError
from solvers.experiments import compare, random_walk_states, read_states, require_solvable, uniform_states
from solvers.heuristics import accepted_forms, from_spec
from solvers.instances import load_instances, select_instances
from solvers.puzzle import Puzzle, parse_board
from solvers.reports import check_report_folder, write_report
from solvers.search.registry import search_named
from solvers.wording import count

# compare-heuristics measures IDA*'s effort without limits, under these options of its search
COMPARED_OPTIONS = ("prune", "full_last_iteration", "bpmx")


COMPARED_BY_DEFAULT = ("manhattan", "linear-conflict")  # compare-heuristics without --heuristic


def compare_heuristics_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="compare-heuristics",
        description="Compare heuristics on sampled states (strength) and on instances (IDA* effort, KRE prediction).",
        epilog=f"Heuristic specs: {accepted_forms()}; e.g. max(pdb:FILE+reflect, walking-distance). Exit status: 0 done (every instance solved at its known length), 1 a length differs "
        "from a known optimum, 2 invalid input, 130 interrupted.",
    )
    parser.add_argument("--board", help="RxC, rows x columns (default: the header of the --instances or --states "
                        "file, else a square tile count; needed without such a file)")
    add_goal_option(parser, from_file=True)
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
    add_specialise_option(parser)
    parser.add_argument("--exact", choices=list(TRISTATE_VALUES), default="auto",
                        help="compare with exact distances: auto (the default) on boards of at most 9 cells; "
                        "on works up to 12 cells, with time and memory")
    parser.add_argument("--out", required=True, help="output folder (summary.csv, summary.md, per_state.csv, ...); "
                        "one that holds files is refused without --force")
    parser.add_argument("--force", action="store_true", help="write into an --out folder that holds files: the files "
                        "of an earlier run there (listed in its manifest.json) are replaced, no other file is touched")
    add_quiet_option(parser)
    add_verbose_option(parser)
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
    kept = not any("user" in term_classes(spec) for spec in specs)
    with announcing("compare-heuristics", "kernels for these heuristics",
                    compare_seconds(specs, bool(args.instances), args.specialise), shown(args.verbose, args.quiet),
                    kept or not args.specialise,
                    0.0 if args.specialise else sum(evaluation_seconds("ida", spec) for spec in specs), kept):
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
    heuristics = [from_spec(puzzle, spec).with_kernels(args.specialise) for spec in specs]
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
