"""cli.py -- command-line front ends of the solvers (`solve-puzzle`).

Exit status: 0 solved, 1 the instance is unsolvable, 2 invalid input (one line on stderr),
3 a node or time limit ended the search first, 130 interrupted.
"""

from __future__ import annotations

import json
import sys

from solvers.cli_support import (
    EXIT_GAVE_UP,
    EXIT_OK,
    EXIT_UNSOLVABLE,
    OneLineParser,
    positive_float,
    positive_int,
    run_guarded,
)
from solvers.heuristics import ALIASES, KIND_NAMES
from solvers.puzzle import load_puzzle
from solvers.search.result import GAVE_UP, SOLVED, UNSOLVABLE
from solvers.solve import ALGORITHMS, solve

EXIT_FOR_STATUS = {SOLVED: EXIT_OK, UNSOLVABLE: EXIT_UNSOLVABLE, GAVE_UP: EXIT_GAVE_UP}


def solve_puzzle_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="solve-puzzle",
        description="Solve one sliding-tile puzzle. Moves name the direction the blank moves (U, D, L, R).",
        epilog="Exit status: 0 solved, 1 unsolvable, 2 invalid input, 3 node or time limit reached.",
    )
    parser.add_argument(
        "tiles",
        help='the tile in each cell, row by row, 0 for the blank: "1 2 3 4 6 8 7 5 0" or "1,2,3/4,6,8/7,5,0"',
    )
    parser.add_argument("--board", help="RxC, rows x columns (default: from the rows given or a square tile count)")
    parser.add_argument("--goal", help="the goal state (default: 1 2 ... N-1 with the blank last)")
    parser.add_argument("--algorithm", default="ida", choices=ALGORITHMS, help="search algorithm (default: ida)")
    parser.add_argument(
        "--heuristic",
        default="linear-conflict",
        help=f"heuristic for ida and astar: {', '.join(KIND_NAMES)} (aliases: {', '.join(ALIASES)}); "
        "default: linear-conflict",
    )
    parser.add_argument("--node-limit", type=positive_int, help="give up after this many nodes")
    parser.add_argument("--time-limit", type=positive_float, help="give up after this many seconds (ida)")
    parser.add_argument("--depth-limit", type=positive_int, help="deepest solution dfs looks for (default: 31)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.add_argument("--show-boards", action="store_true", help="also print the board after every move")
    return parser


def solve_puzzle_main(argv: list[str] | None = None) -> int:
    """Run `solve-puzzle`; returns the exit status."""
    args = solve_puzzle_parser().parse_args(argv)
    return run_guarded("solve-puzzle", lambda: _solve_puzzle(args))


def _solve_puzzle(args) -> int:
    puzzle, start = load_puzzle(args.tiles, args.board, args.goal)
    result = solve(
        puzzle,
        start,
        args.algorithm,
        args.heuristic,
        node_limit=args.node_limit,
        time_limit=args.time_limit,
        depth_limit=args.depth_limit,
    )
    if args.json:
        record = {
            "board": puzzle.board,
            "goal": puzzle.goal.tolist(),
            "start": start.tolist(),
            **result.to_dict(),
        }
        if args.show_boards and result.status == SOLVED:
            record["boards"] = [s.tolist() for s in puzzle.states_along(start, result.moves)]
        print(json.dumps(record))
    else:
        print(_report(puzzle, start, result, args.show_boards))
    return EXIT_FOR_STATUS[result.status]


def _report(puzzle, start, result, show_boards: bool) -> str:
    lines = [
        f"board      {puzzle.board}, goal {' '.join(map(str, puzzle.goal))}",
        f"algorithm  {result.algorithm}" + (f", heuristic {result.heuristic}" if result.heuristic != "zero" else ""),
    ]
    if result.status == UNSOLVABLE:
        lines.append("unsolvable: the goal cannot be reached from this state (permutation parity)")
        return "\n".join(lines)
    if result.status == GAVE_UP:
        lines.append(f"gave up    {result.reason}")
    else:
        lines.append(f"length     {result.length}" + (" (optimal)" if result.optimal else " (not necessarily optimal)"))
        lines.append(f"moves      {result.moves or '(none: already the goal)'}")
    lines.append(f"nodes      {result.nodes_expanded:,} expanded, {result.nodes_generated:,} generated")
    lines.append(f"time       {result.seconds:.3f} s")
    if show_boards and result.status == SOLVED:
        for step, state in enumerate(puzzle.states_along(start, result.moves)):
            title = "start" if step == 0 else f"move {step}: {result.moves[step - 1]}"
            lines += ["", title, puzzle.format(state)]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(solve_puzzle_main())
