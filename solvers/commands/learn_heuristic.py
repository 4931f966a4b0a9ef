"""learn_heuristic.py -- `learn-heuristic`: train a heuristic over features and write its model file.

Exit status: 0 written, 2 invalid input, 130 interrupted (the last checkpoint kept: --resume
continues from it).
"""

from __future__ import annotations

import argparse

from tqdm import tqdm

from solvers.cli_support import (
    EXIT_OK,
    OneLineParser,
    add_goal_option,
    add_quiet_option,
    positive,
    positive_int,
    run_guarded,
    show_progress,
)
from solvers.errors import InputError
from solvers.learning.bootstrap import BootstrapSettings
from solvers.learning.davi import DEFAULT_THRESHOLD, DEFAULT_WARM, WARM_THRESHOLD, DaviSettings
from solvers.learning.learn import CHECKPOINT_SECONDS, DEFAULT_HIDDEN, METHODS, checkpoint_path, held_out_line, \
    learn_heuristic, plot_learning_curve
from solvers.puzzle import Puzzle, parse_board

DAVI, BOOTSTRAP = DaviSettings(), BootstrapSettings()


def learn_heuristic_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="learn-heuristic",
        description="Learn a heuristic over features (heuristics of the grammar, PDB files, encodings of the state) "
                    "and write it as a model file for the heuristic learned:FILE.",
        epilog="Exit status: 0 written, 2 invalid input, 130 interrupted (the last checkpoint kept: --resume "
               "continues from it).",
    )
    parser.add_argument("--board", required=True, help="RxC, rows x columns")
    add_goal_option(parser)
    parser.add_argument("--features", required=True, metavar="SPEC",
                        help="comma-separated: heuristics of the grammar (manhattan, linear-conflict, pdb:FILE, "
                             "pdb:FILE+reflect, ...), each one input; patterns:FILE[+reflect], each pattern's "
                             "entry of a PDB file (in both views); and encodings: blank (the blank's cell), "
                             "cells (every tile's cell)")
    parser.add_argument("--method", choices=list(METHODS), default="davi",
                        help="davi: approximate value iteration over random walks back from the goal (the default); "
                             "bootstrap: rounds that solve random-walk instances with weighted A* guided by the "
                             "heuristic learned so far and fit it to the moves left along each solution")
    parser.add_argument("--hidden", default=",".join(map(str, DEFAULT_HIDDEN)), metavar="H1,H2",
                        help=f"the two hidden layers' sizes (default {','.join(map(str, DEFAULT_HIDDEN))})")
    parser.add_argument("--seconds", type=positive(float, "a number of seconds", 1e7),
                        help="train for this many seconds (of every run, resumed ones too)")
    parser.add_argument("--iterations", type=positive_int, help="train for this many iterations (bootstrap: rounds)")
    parser.add_argument("--batch", type=positive_int, help=f"states per iteration (default {DAVI.batch}; bootstrap: "
                        f"per Adam step, default {BOOTSTRAP.batch})")
    parser.add_argument("--max-moves", type=positive_int, help=f"the longest random walk back from the goal "
                        f"(default {DAVI.max_moves}; bootstrap {BOOTSTRAP.max_moves})")
    parser.add_argument("--warm", type=_iterations_or_none, metavar="N",
                        help="davi: first fit the network to the maximum of the admissible heuristics among the "
                             "features for N iterations, then draw walks of every length up to --max-moves from the "
                             f"start (default {DEFAULT_WARM} where a feature is an admissible heuristic, else none; "
                             "0: no warm start, the walks grow from the goal)")
    parser.add_argument("--threshold", type=positive(float, "a number", 1e9),
                        help=f"davi: refresh the target network when the mean loss since the last check is "
                             f"below this (default {DEFAULT_THRESHOLD:g}; with a warm start "
                             f"{WARM_THRESHOLD:.0e}".replace("e+0", "e") + ", more than any loss: a refresh at every "
                             "check)")
    parser.add_argument("--rate", type=positive(float, "a number", 1.0), default=DAVI.rate,
                        help=f"Adam's learning rate (default {DAVI.rate:g})")
    parser.add_argument("--instances", type=positive_int, help=f"bootstrap: instances solved per round (default "
                        f"{BOOTSTRAP.instances})")
    parser.add_argument("--search-nodes", type=positive_int, help=f"bootstrap: the nodes weighted A* may store per "
                        f"instance (default {BOOTSTRAP.search_nodes:,})")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--out", required=True, help="the model file to write")
    parser.add_argument("--force", action="store_true", help="overwrite an existing --out file")
    parser.add_argument("--resume", action="store_true", help="continue the training from --out's checkpoint")
    parser.add_argument("--checkpoint-seconds", type=positive(float, "a number of seconds", 1e7),
                        default=CHECKPOINT_SECONDS,
                        help=f"seconds between checkpoints (default {CHECKPOINT_SECONDS:g})")
    add_quiet_option(parser)
    return parser


def learn_heuristic_main(argv: list[str] | None = None) -> int:
    """Run `learn-heuristic`; returns the exit status."""
    args = learn_heuristic_parser().parse_args(argv)
    return run_guarded("learn-heuristic", lambda: _learn(args),
                       f"interrupted; the last checkpoint is kept: give --resume to continue ({checkpoint_path(args.out)})")


def _learn(args) -> int:
    puzzle = Puzzle(*parse_board(args.board), args.goal)
    hidden = _hidden(args.hidden)
    settings = _settings(args)
    total = args.iterations
    with tqdm(total=total, unit=" iterations", disable=not show_progress(args.quiet)) as bar:
        def progress(state):
            bar.update(1)
            if state.curve:
                bar.set_postfix(loss=f"{state.curve[-1][1]:.4f}", states=f"{state.states:,}", walk=state.longest)

        out = learn_heuristic(puzzle, args.features, args.out, method=args.method, hidden=hidden,
                              seconds=args.seconds, iterations=args.iterations, seed=args.seed, settings=settings,
                              resume=args.resume, force=args.force, checkpoint_seconds=args.checkpoint_seconds,
                              progress=progress)
    plot = plot_learning_curve(out)
    print(f"wrote {out}" + ("" if plot is None else f" and its learning curve {plot}"))
    line = held_out_line(out)
    if line is not None:
        print(line)
    return EXIT_OK


def _iterations_or_none(text: str) -> int:
    """--warm: a number of iterations, 0 for none."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be 0 (no warm start) or more")
    return value


def _settings(args):
    """The --method's settings: its defaults, with the options given."""
    defaults = METHODS[args.method].settings()
    given = {"batch": args.batch, "max_moves": args.max_moves, "rate": args.rate}
    only_bootstrap = {"instances": args.instances, "search_nodes": args.search_nodes}
    if args.method != "bootstrap":
        named = [f"--{name.replace('_', '-')}" for name, value in only_bootstrap.items() if value is not None]
        if named:
            raise InputError(f"{' and '.join(named)} apply to --method bootstrap only")
        given.update(warm=args.warm, threshold=args.threshold)
    else:
        davi_only = [name for name in ("warm", "threshold") if getattr(args, name) is not None]
        if davi_only:
            raise InputError(f"{' and '.join(f'--{name}' for name in davi_only)} apply to --method davi only")
        given.update(only_bootstrap)
    return defaults._replace(**{name: value for name, value in given.items() if value is not None})


def _hidden(text: str) -> tuple[int, int]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if len(sizes) != 2 or min(sizes) < 1:
        raise InputError(f"--hidden {text!r}: give the two hidden layers' sizes, e.g. 64,32")
    return sizes
