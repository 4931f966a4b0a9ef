"""options.py -- what the commands share: the search, heuristic and algorithm options, read the registry's way."""

from __future__ import annotations

import argparse
from pathlib import Path

from solvers.cli_support import (
    OneLineParser,
    positive_float,
    positive_int,
)
from solvers.compile_notice import announcing, evaluation_seconds
from solvers.heuristics import accepted_forms
from solvers.search.registry import Search, all_options, informed_names

TRISTATE_VALUES = {"auto": None, "on": True, "off": False}  # the values of a "tristate" option


GUIDE = "docs/guide/solving.md"  # where each search is described


def add_algorithm_option(parser: OneLineParser, offered: list[Search]) -> None:
    """--algorithm, one of the registered searches `offered`: their names here, what each does in GUIDE."""
    names = [s.name for s in offered]
    parser.add_argument("--algorithm", default="ida", choices=names, metavar="NAME",
                        help=f"the search (default: ida): {', '.join(names)}; {GUIDE} says what each does")


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
    add_specialise_option(parser)


def add_specialise_option(parser: OneLineParser) -> None:
    """--specialise, shared by the commands that search."""
    parser.add_argument("--specialise", action="store_true",
                        help="compile the search for this heuristic: full speed after a compile of seconds, once "
                        "(default: the search compiled once for every heuristic, a little slower)")


JOBS = "--jobs"  # how many run at once, in every command that runs work in parallel


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
        flag, *former = option.flags or (option.flag,)
        for shown_flag, shown_help in ((flag, help_text), *((f, argparse.SUPPRESS) for f in former)):
            _add_search_option(parser, option, shown_flag, shown_help)


def _add_search_option(parser: OneLineParser, option, flag: str, help_text: str) -> None:
    """One flag of search option `option`, read into its keyword's name."""
    named = {"dest": option.name, "help": help_text}
    if option.kind == "switch":
        parser.add_argument(flag, action="store_true", default=None, **named)
    elif option.kind == "tristate":
        parser.add_argument(flag, choices=list(TRISTATE_VALUES), **named)
    elif option.kind == "choice":
        parser.add_argument(flag, choices=option.choices, **named)
    elif option.kind == "folder":
        parser.add_argument(flag, type=Path, metavar="DIR", **named)
    else:
        parser.add_argument(flag, type=positive_int if option.kind == "count" else positive_float,
                            metavar=flag[2:].upper().replace("-", "_"), **named)


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


def compiled_kernels(search: Search, heuristic) -> str:
    """What a search compiles with `heuristic`, as the compile notice names it."""
    if not search.informed:
        return "search kernels"
    return "search kernels for this heuristic" if heuristic.specialised else "search kernels for every heuristic"


def cacheable_kernels(search: Search, heuristic) -> bool:
    """Whether the kernels of `search` with `heuristic` are kept in the disk cache (not those
    compiled for the tree of a heuristic with a user's function: Term.cacheable)."""
    return not search.informed or not heuristic.specialised or heuristic.cacheable


def announced(prog: str, search: Search, heuristic, seconds_of, show: bool):
    """The compile notice's block (compile_notice.announcing) of `prog` running `search` with
    `heuristic`, the search's own kernels estimated by `seconds_of(algorithm, spec, specialised)`
    (search_seconds, batch_seconds) and the evaluations that it compiles besides."""
    specialised = heuristic.specialised or not search.informed
    return announcing(prog, compiled_kernels(search, heuristic),
                      seconds_of(search.name, heuristic.spec, heuristic.specialised), show,
                      cacheable_kernels(search, heuristic),
                      0.0 if specialised else evaluation_seconds(search.name, heuristic.spec), heuristic.cacheable)
