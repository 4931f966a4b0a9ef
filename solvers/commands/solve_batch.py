"""solve_batch.py -- `solve-batch`: every instance of a set, one verified CSV row each, resumable.

Exit status: 0 every instance solved and no result contradicts a known optimum
(batch.contradicts_optimum), 1 some does, 2 invalid input, 3 some instance not solved (limit or
unsolvable), 130 interrupted (the rows written so far stay; rerun to resume).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from solvers.batch import solve_batch
from solvers.cli_support import (
    EXIT_GAVE_UP,
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
    JOBS,
    add_algorithm_option,
    add_heuristic_options,
    add_search_options,
    announced,
    search_options,
)
from solvers.compile_notice import (
    add_verbose_option,
    batch_seconds,
    shown,
)
from solvers.distributed import cluster_from_options, cluster_options, cluster_size
from solvers.errors import InputError
from solvers.heuristics import from_options
from solvers.instances import load_instances, packaged_sets, select_instances
from solvers.search.registry import search_named, searches
from solvers.wording import count

# solve-batch runs each instance on one worker (--jobs of them; with --split-last a last instance
# alone is split over them): it takes no threads of its own
BATCH_WITHOUT = ("threads",)


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
    add_goal_option(parser, from_file=True)
    every = list(searches().values())
    add_algorithm_option(parser, every)
    add_heuristic_options(parser)
    add_search_options(parser, every, without=BATCH_WITHOUT)
    parser.add_argument("--out", help="the CSV file (default: results/<instances>-<heuristic>.csv); "
                        "an existing one is resumed")
    parser.add_argument(JOBS, type=positive_int, default=os.cpu_count() or 1,
                        help="worker processes, each solving one instance at a time (default: all cores)")
    cluster_options(parser)
    parser.add_argument("--split-last", action="store_true",
                        help="split a last instance left alone over the --jobs threads (IDA* without a node limit; "
                        "its node counts then depend on the schedule; the row records the threads)")
    parser.add_argument("--retry-gave-up", action="store_true",
                        help="solve again every row of the --out file that gave up (by default only those whose "
                        "limits this run's may exceed: a larger --node-limit, --time-limit or --memory)")
    parser.add_argument("--redo-other-limits", action="store_true",
                        help="solve again every row of the --out file recorded under other limits or threads than "
                        "this run's, so that the file holds one run's (by default solved rows keep their own)")
    parser.add_argument("--first", type=positive_int, metavar="K", help="solve only the first K instances")
    parser.add_argument("--only", metavar="LIST", help="solve only these instances, by number: e.g. 38,40,1-5")
    add_quiet_option(parser)
    add_verbose_option(parser)
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
    heuristic = from_options(puzzle, args.heuristic, args.pdb, args.reflect).with_kernels(args.specialise)
    if args.out is not None and not args.out.strip():
        raise InputError("--out needs a file name")
    out = Path(args.out) if args.out else Path("results") / f"{Path(args.instances).stem}-{_slug(heuristic.name)}.csv"
    with cluster_from_options(args, args.jobs) as client:
        where = count(args.jobs, "job") if client is None else f"Dask cluster of {count(cluster_size(client), 'thread')}"
        print(f"{count(len(instances), 'instance')} of {puzzle}, {args.algorithm} with {heuristic.name}, {where}, "
              f"writing {out}")
        with announced("solve-batch", search_named(args.algorithm), heuristic, batch_seconds,
                       shown(args.verbose, args.quiet)):
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


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-")
