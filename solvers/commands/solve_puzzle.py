"""solve_puzzle.py -- `solve-puzzle`: one puzzle, one search, its solution replayed.

Exit status: 0 solved, 1 the instance is unsolvable, 2 invalid input (one line on stderr), 3 a
node or time limit ended the search first, 130 interrupted (the anytime search, once it has a
solution, prints the best so far first).
"""

from __future__ import annotations

import json

from solvers.cli_support import (
    EXIT_GAVE_UP,
    EXIT_OK,
    EXIT_UNSOLVABLE,
    OneLineParser,
    add_goal_option,
    add_quiet_option,
    run_guarded,
)
from solvers.commands.options import (
    add_algorithm_option,
    add_heuristic_options,
    add_search_options,
    announced,
    search_options,
)
from solvers.compile_notice import (
    add_verbose_option,
    search_seconds,
    shown,
)
from solvers.distributed import cluster_from_options, cluster_options, cluster_size
from solvers.errors import InputError
from solvers.heuristics import from_options
from solvers.puzzle import load_puzzle
from solvers.search.registry import names_listed, search_named, searches, takers
from solvers.search.result import GAVE_UP, SOLVED, UNSOLVABLE
from solvers.solve import solve
from solvers.wording import count

EXIT_FOR_STATUS = {SOLVED: EXIT_OK, UNSOLVABLE: EXIT_UNSOLVABLE, GAVE_UP: EXIT_GAVE_UP}


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
    add_goal_option(parser)
    add_algorithm_option(parser, list(searches().values()))
    add_heuristic_options(parser)
    add_search_options(parser, list(searches().values()))
    cluster_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--show-boards", action="store_true", help="also print the board after every move")
    add_quiet_option(parser)
    add_verbose_option(parser)
    return parser


def solve_puzzle_main(argv: list[str] | None = None) -> int:
    """Run `solve-puzzle`; returns the exit status."""
    args = solve_puzzle_parser().parse_args(argv)
    return run_guarded("solve-puzzle", lambda: _solve_puzzle(args))


def _solve_puzzle(args) -> int:
    puzzle, start = load_puzzle(args.tiles, args.board, args.goal)
    heuristic = from_options(puzzle, args.heuristic, args.pdb, args.reflect).with_kernels(args.specialise)
    search = search_named(args.algorithm)
    if (args.scheduler or args.cluster) and not search.takes("executor"):
        raise InputError(f"--scheduler and --cluster split the search of {names_listed(takers('executor'))} only")
    given = search_options(args)
    with cluster_from_options(args, args.threads or 1) as client:
        if client is not None:
            given["threads"] = cluster_size(client)
        with announced("solve-puzzle", search, heuristic, search_seconds, shown(args.verbose, args.quiet)):
            result = solve(puzzle, start, args.algorithm, heuristic, client=client, **given)
    kinds = {option.name: option.kind for option in search.options}
    searched = _applied(search.name, {name: value for name, value in search.with_defaults(given).items()
                                      if kinds[name] in ("choice", "switch", "number")})  # limits are in the result
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


# Settings that apply only where another setting chose them: the anytime search's weight and
# tie-breaking are those of its weighted runs, which --improve beams never makes.
APPLIES_ONLY_WITH = {("anytime", "weight"): ("improve", "weights"), ("anytime", "tie_break"): ("improve", "weights")}


def _applied(algorithm: str, settings: dict) -> dict:
    """How `algorithm` searched: its `settings`, less those that did not apply (APPLIES_ONLY_WITH)."""
    conditions = {name: APPLIES_ONLY_WITH.get((algorithm, name)) for name in settings}
    return {name: value for name, value in settings.items()
            if conditions[name] is None or settings.get(conditions[name][0]) == conditions[name][1]}


def _report(puzzle, start, result, show_boards: bool, searched: dict) -> str:
    lines = [
        f"board      {puzzle.board}, goal {' '.join(map(str, puzzle.goal))}",
        f"algorithm  {result.algorithm}" + (f" ({searched['improve']})" if "improve" in searched else "")
        + (f", heuristic {result.heuristic}" if result.heuristic != "zero" else "")
        + (f", weight {searched['weight']:g}" if "weight" in searched else ""),
    ]
    if result.status == UNSOLVABLE:
        lines.append("unsolvable: the goal cannot be reached from this state (permutation parity)")
        return "\n".join(lines)
    if result.status == GAVE_UP:
        lines.append(f"gave up    {result.reason}")
    else:
        proof = f" (optimal: {result.bound_from} proves it)" if result.optimal and result.bound_from not in ("", result.heuristic) \
            else " (optimal)" if result.optimal else " (not necessarily optimal)"
        lines.append(f"length     {result.length}{proof}")
        lines.append(f"moves      {result.moves or '(none: already the goal)'}")
    if result.interrupted:
        lines.append("stopped    interrupted before the search ended: the best solution found so far")
    elif result.status == SOLVED and result.reason:  # the anytime search: why it stopped improving
        lines.append(f"stopped    {result.reason}")
    if len(result.found) > 1:
        lines.append("found      " + ", ".join(f"{length} moves at {seconds:.2f} s" for length, seconds in result.found))
    if not result.optimal and result.lower_bound:  # a bound of 0 says nothing
        within = f" (this solution is at most {result.suboptimality:.3f} times the shortest)" \
            if result.suboptimality is not None else ""
        source = f", by {result.bound_from}" if result.bound_from not in ("", result.heuristic) else ""
        lines.append(f"bound      the shortest solution has at least {result.lower_bound} moves{source}{within}")
    how = f" (move pruning {searched['prune']}{', last iteration completed' if searched['full_last_iteration'] else ''})" \
        if "prune" in searched else ""
    stored = f", {result.nodes_stored:,} stored" if result.nodes_stored else ""
    lines.append(f"nodes      {result.nodes_expanded:,} expanded, {result.nodes_generated:,} generated{stored}{how}")
    if result.frontiers is not None:
        met = result.frontiers
        lines.append(f"frontiers  forward {met.forward_expanded:,} expanded ({met.forward_necessary:,} necessary), "
                     f"backward {met.backward_expanded:,} ({met.backward_necessary:,}); met after move "
                     f"{met.meeting_depth} at {' '.join(met.meeting.split())}")
    if result.bpmx:
        cutoffs = f", {count(result.bpmx_cutoffs, 'parent')} cut off" if result.iterations else ""  # bounded passes
        lines.append(f"bpmx       {count(result.bpmx_raises, 'parent')} raised{cutoffs}")
    lines.append(f"time       {result.seconds:.3f} s")
    if show_boards and result.status == SOLVED:
        for step, state in enumerate(puzzle.states_along(start, result.moves)):
            title = "start" if step == 0 else f"move {step}: {result.moves[step - 1]}"
            lines += ["", title, puzzle.format(state)]
    return "\n".join(lines)
