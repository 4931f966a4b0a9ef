"""cli.py -- the command-line front ends of the solvers, by command: `solve-puzzle`, `solve-batch`,
`compare-heuristics`, `make-instances`, `learn-heuristic` (each in its module of solvers/commands/, which says its
exit statuses). The console scripts and `python -m solvers.cli` (solve-puzzle) run them through
solvers/entry.py, which handles Ctrl-C before these modules are imported.
"""

from __future__ import annotations

import sys

if __name__ == "__main__":  # before the imports below, as the console script does
    from solvers.entry import solve_puzzle_main as _solve_puzzle_script

    sys.exit(_solve_puzzle_script())

from solvers.commands.compare_heuristics import compare_heuristics_main, compare_heuristics_parser
from solvers.commands.learn_heuristic import learn_heuristic_main, learn_heuristic_parser
from solvers.commands.make_instances import make_instances_main, make_instances_parser
from solvers.commands.solve_batch import solve_batch_main, solve_batch_parser
from solvers.commands.solve_puzzle import solve_puzzle_main, solve_puzzle_parser

__all__ = ["compare_heuristics_main", "compare_heuristics_parser", "learn_heuristic_main", "learn_heuristic_parser",
           "make_instances_main", "make_instances_parser",
           "solve_batch_main", "solve_batch_parser", "solve_puzzle_main", "solve_puzzle_parser"]
