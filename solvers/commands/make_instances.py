"""make_instances.py -- `make-instances`: a benchmark instance file, its header saying how it was made.

Exit status: 0 written, 2 invalid input, 130 interrupted (nothing written).
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

from solvers.atomic import atomic_target, is_stream_name, output_target
from solvers.cli_support import (
    EXIT_OK,
    OneLineParser,
    add_goal_option,
    add_quiet_option,
    positive_int,
    run_guarded,
    show_progress,
)
from solvers.commands.options import (
    TRISTATE_VALUES,
)
from solvers.compile_notice import (
    add_verbose_option,
    announcing,
    instances_seconds,
    shown,
)
from solvers.errors import InputError
from solvers.make_instances import (
    MAX_SOLVE_CELLS,
    instance_file_text,
    optimal_lengths,
    random_instances,
    random_walk_instances,
)
from solvers.puzzle import Puzzle, parse_board
from solvers.wording import count


def make_instances_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="make-instances",
        description="Write a benchmark instance file: uniform random solvable states, or the ends of random "
        "walks from the goal, with their optimal lengths on small boards.",
        epilog="Exit status: 0 written, 2 invalid input, 130 interrupted (nothing written).",
    )
    parser.add_argument("--board", required=True, help="RxC, rows x columns")
    add_goal_option(parser)
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
    add_quiet_option(parser)
    add_verbose_option(parser)
    return parser


def make_instances_main(argv: list[str] | None = None) -> int:
    """Run `make-instances`; returns the exit status."""
    args = make_instances_parser().parse_args(argv)
    return run_guarded("make-instances", lambda: _make_instances(args), "interrupted; nothing written")


def _make_instances(args) -> int:
    puzzle = Puzzle(*parse_board(args.board), args.goal)
    asked = TRISTATE_VALUES[args.solve]
    solving = puzzle.n_cells <= MAX_SOLVE_CELLS if asked is None else asked
    out = None if is_stream_name(args.out) else _new_file(args.out, args.force)
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
    if args.out == "-":
        sys.stdout.write(text)
        return EXIT_OK
    if out is None:  # /dev/stdout and the like: written straight
        with atomic_target(args.out, stream=True) as stream:
            stream.write_text(text)
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
    output_target(path)  # a folder, a device, a FIFO: refused before any work
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
