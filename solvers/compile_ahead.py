"""compile_ahead.py -- every search, and every built-in kind's evaluations, compiled into the kernel cache ahead of use.

    python -m solvers.compile_ahead

For a cluster node's image, a CI cache or a machine about to run many first commands: it runs
each registered search once with its default options (the searches compiled once for every
heuristic, with Manhattan distance; IDA* also with BPMX), evaluates each built-in kind alone
and each form of lookup of a plain and a zero-aware table built here (each tree type's
evaluations), and builds and verifies those tables (the builder's and the checker's kernels),
with a progress bar. Afterwards a command with any search at its default options and one of
those heuristics compiles nothing; another heuristic (a combination, encoded tables) compiles
only its own evaluations, a few seconds, once. Searches compiled for a heuristic's own tree
(`--specialise`) are compiled on first use: there is one per search and heuristic type.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from tqdm import tqdm

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom
from pdb_build.verify import verify_pdb
from solvers.cli_support import run_guarded
from solvers.errors import InputError
from solvers.heuristics import NAMED, from_spec
from solvers.experiments import random_walk_states
from solvers.kernel_cache import cache_folder
from solvers.puzzle import Puzzle, load_puzzle, parse_board
from solvers.search.registry import search_named, searches
from solvers.solve import solve

WALK = 8  # moves from the goal to the state searched: every search ends at once
PDB_FORMS = ("", "+reflect", "+dual", "+reflect+random")  # the lookups of one table (spec.py's grammar)


def compile_ahead(search_names: list[str] | None = None, specs: list[str] | None = None,
                  puzzle: Puzzle | None = None, progress: bool = False) -> int:
    """Compile (or load) into the disk cache the kernels of the searches `search_names` (default:
    every registered one) and the evaluations of the heuristics `specs` for `puzzle` (default:
    3x3; every built-in kind alone and every form of lookup of a plain and a zero-aware table
    built here, which are also verified); returns how many steps ran."""
    puzzle = puzzle or Puzzle(3, 3)
    start = random_walk_states(puzzle, 1, WALK, seed=1)[0]
    names = search_names or list(searches())
    for name in names:
        search_named(name)  # an unknown name refused before anything is compiled
    with tempfile.TemporaryDirectory() as folder:
        steps = [(f"search {name}", lambda name=name: solve(puzzle, start, name, "manhattan")) for name in names]
        if "ida" in names:  # its pass with BPMX is another kernel, on by default for the PDB lookups
            steps.append(("search ida with BPMX", lambda: solve(puzzle, start, "ida", "manhattan", bpmx=True)))
        if specs is None:
            tables = _tables(puzzle, Path(folder))
            specs = [*NAMED, *(f"pdb:{path}{form}" for path in tables.values() for form in PDB_FORMS)]
            steps += [(f"verify {name}", lambda path=path: verify_pdb(path)) for name, path in tables.items()]
        steps += [(f"heuristic {spec}", lambda spec=spec: from_spec(puzzle, spec)(start)) for spec in specs]
        for _, step in tqdm(steps, desc="compiling", unit="step", disable=not progress):
            step()
    return len(steps)


def _tables(puzzle: Puzzle, folder: Path) -> dict[str, Path]:
    """A plain and a zero-aware 4-4 table of `puzzle`, built into `folder`."""
    partition = custom(puzzle, ["1,2,4,5", "3,6,7,8"])
    return {name: build_pdb_file(plan_build(puzzle, partition, zero_aware=zero_aware), folder / f"{name}.h5")[0]
            for name, zero_aware in (("plain", False), ("zero-aware", True))}


def main(argv: list[str] | None = None) -> int:
    """`python -m solvers.compile_ahead`: compile ahead; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m solvers.compile_ahead", description=__doc__.splitlines()[0])
    parser.add_argument("--search", action="append", metavar="NAME",
                        help="a search to compile (repeat; default: every one)")
    parser.add_argument("--heuristic", action="append", metavar="SPEC",
                        help="a heuristic whose evaluations to compile, as solve-puzzle takes it (repeat; default: "
                        "every built-in kind alone and every lookup of small 3x3 tables built here)")
    parser.add_argument("--board", default="3x3", help="RxC, the board of the --heuristic specs (default 3x3)")
    parser.add_argument("--goal", metavar="TILES", help="their goal (default: 1 2 ... N-1, the blank last)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    def run() -> int:
        where = cache_folder()
        if where is None:
            raise InputError("no cache folder is writable: the compiled kernels would not be kept")
        rows, cols = parse_board(args.board)
        puzzle = Puzzle(rows, cols, None if args.goal is None else load_puzzle(args.goal, args.board)[1])
        steps = compile_ahead(args.search, args.heuristic, puzzle, progress=not args.quiet and sys.stderr.isatty())
        print(f"{steps} steps compiled or found their kernels in {where}")
        return 0

    return run_guarded("compile-ahead", run)


if __name__ == "__main__":
    sys.exit(main())
