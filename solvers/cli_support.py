"""cli_support.py -- what every command-line front end shares: one-line errors and exit statuses."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable

from solvers import interrupts
from solvers.errors import InputError
from solvers.interrupts import EXIT_INTERRUPTED

EXIT_OK, EXIT_UNSOLVABLE, EXIT_INVALID, EXIT_GAVE_UP = 0, 1, 2, 3
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command whose reader went away
EXIT_BUG = 70  # EX_SOFTWARE of sysexits.h: an internal error


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit status 2."""

    def error(self, message):
        self.exit(EXIT_INVALID, f"{self.prog}: error: {message} (see --help)\n")


def run_guarded(prog: str, body: Callable[[], int], interrupted: str = "interrupted") -> int:
    """Run a command's body; InputError becomes one line on stderr (the lines of a longer
    message joined by spaces) and exit status 2,
    Ctrl-C or SIGTERM becomes `interrupted` on stderr and exit status 130; a reader of stdout
    that went away (`| head`) ends the command quietly with status 141. Any other exception is a
    bug: its traceback, one line that says so, and exit status 70; but after an interrupt was
    asked for, it is what the interruption broke (a compile cut short), reported as the interrupt."""
    interrupts.install()
    try:
        status = body()
        sys.stdout.flush()  # the last lines delivered now, while a reader that went away is still ours to report
        interrupts.raise_if_requested()  # an interrupt swallowed at the very end still counts
        return status
    except InputError as error:
        print(f"{prog}: error: {' '.join(line.strip() for line in str(error).splitlines() if line.strip())}",
              file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print(f"{prog}: {interrupted}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return EXIT_BROKEN_PIPE
    except Exception:
        if interrupts.requested():  # what an interrupted step (numba's compiler, say) broke: still Ctrl-C
            print(f"{prog}: {interrupted}", file=sys.stderr)
            return EXIT_INTERRUPTED
        traceback.print_exc()  # not bad input: a bug, shown in full
        print(f"{prog}: internal error: this is a bug in tilepdb; please report it with the traceback above",
              file=sys.stderr)
        return EXIT_BUG


QUIET_HELP = ("no progress bars and no notice of a first compile on stderr; results, warnings and errors are "
              "printed all the same")


def add_quiet_option(parser: argparse.ArgumentParser) -> None:
    """--quiet, the same in every command: it silences what only shows that work goes on."""
    parser.add_argument("--quiet", action="store_true", help=QUIET_HELP)


def add_goal_option(parser: argparse.ArgumentParser, from_file: bool = False) -> None:
    """--goal, the same in every command (`from_file`: an instance file's header may name it)."""
    default = "the file's header, else " if from_file else ""
    parser.add_argument("--goal", metavar="TILES",
                        help=f"the goal state as tiles (default: {default}1 2 ... N-1, the blank last); Korf's sets, "
                        "like every packaged set, put the blank first: on 4x4 "
                        "--goal 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15")


def show_progress(quiet: bool) -> bool:
    """Whether a command draws progress bars: not with --quiet, and only on a terminal, so that
    a log or a pipe gets whole lines (such as MISMATCH: ...) and no bar fragments."""
    return not quiet and sys.stderr.isatty()


def positive(convert: Callable[[str], float], noun: str, largest: float) -> Callable[[str], float]:
    """An argparse type: `convert` the text and require 0 < value <= `largest`."""

    def parse(text: str):
        try:
            value = convert(text)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{text!r} is not {noun}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text!r} must be positive" + (" (1 or more)" if convert is int else ""))
        if value > largest:
            shown = f"{largest:,}" if convert is int else f"{largest:g}"
            raise argparse.ArgumentTypeError(f"{text!r} is too large; the most is {shown}")
        return value

    return parse


positive_int = positive(int, "an integer", (1 << 62) - 1)
positive_float = positive(float, "a number", 1e9)
