"""Adding a search or a heuristic kind touches its module alone (and one line of a list): a toy
search and a toy kind, registered by a module of their own, reach solve, a batch's columns,
the commands' options and help, the spec grammar and the compile notice with no other edit."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A user's module: a search that hands its work to greedy search, with an option of its own
# recorded in batch rows, and a kind of its own (misplaced tiles, with its own kernels: counted
# from nothing at the start, changed by the moved tile alone after a move) that estimates its
# compile as walking distance's.
TOY_MODULE = '''
from typing import NamedTuple

import numpy as np

from solvers.heuristics.dispatch import register_kind
from solvers.heuristics.kinds import register_named
from solvers.heuristics.term import Term
from solvers.jit import inline_kernel
from solvers.search.greedy import greedy_best_first
from solvers.search.registry import NODE_LIMIT, Option, Search, register

PATIENCE = Option("patience", "count", "how patient the toy search is", "a patience applies", 3)


def toy_search(puzzle, start, heuristic, *, patience=3, node_limit=None):
    return greedy_best_first(puzzle, start, heuristic, node_limit=node_limit)


class Misplaced(NamedTuple):
    goal_cell: np.ndarray  # the goal cell of each tile


@inline_kernel
def _start(data, board, position, scratch, row, column):
    h = 0
    for cell in range(board.shape[0]):
        if board[cell] != 0 and data.goal_cell[board[cell]] != cell:
            h += 1
    scratch[row, column] = h
    return h


@inline_kernel
def _child(data, board, position, scratch, row, column, tile, source, target):
    h = scratch[row, column] + (data.goal_cell[tile] == source) - (data.goal_cell[tile] == target)
    scratch[row + 1, column] = h
    return h


def misplaced(puzzle):
    goal_cell = np.argsort(puzzle.goal).astype(np.int64)
    goal_cell.setflags(write=False)
    return Term(puzzle, "toy-distance", "toy-distance", Misplaced(goal_cell), 1, consistent=True)


register(Search("toy", "a toy search", toy_search, informed=True, family="uninformed",
                options=(PATIENCE, NODE_LIMIT), setting_fields=("patience",),
                settings=lambda heuristic, options: {"patience": str(options["patience"])}))
register_kind(Misplaced, _start, _child)
register_named("toy-distance", misplaced, "walking-distance", aliases=("toyd",))
'''

CHECK = '''
import contextlib, csv, io, json, sys
import toy_extension
from solvers.batch import ROW_FIELDS, solve_batch
from solvers.cli import solve_batch_parser, solve_puzzle_main
from solvers.compile_notice import search_seconds, term_classes, COMPILE_SECONDS
from solvers.heuristics import from_spec
from solvers.instances import Instance
from solvers.puzzle import Puzzle
from solvers.solve import solve
puzzle = Puzzle(3, 3)
start = puzzle.state([8, 6, 7, 2, 5, 4, 3, 0, 1])
result = solve(puzzle, start, "toy", "toyd", patience=5)
states = [puzzle.replay(puzzle.goal, moves) for moves in ("", "L", "LU", "LLUURDRDLLUR", "ULDRULDRUL")]
toy, hamming = from_spec(puzzle, "toyd"), from_spec(puzzle, "hamming")
values = [[int(toy(s)), int(hamming(s))] for s in [start, *states]]
by_astar = solve(puzzle, start, "astar", "toyd")
by_hamming = solve(puzzle, start, "astar", "hamming")  # the same values move by move: the same search
summary = solve_batch(puzzle, [Instance(1, start, 31)], "max(toy-distance, manhattan)", sys.argv[1], algorithm="toy",
                      patience=7)
row = next(csv.DictReader(open(sys.argv[1])))
help_text = solve_batch_parser().format_help()
refused = io.StringIO()
with contextlib.redirect_stderr(refused):
    status = solve_puzzle_main(["8 6 7 2 5 4 3 0 1", "--algorithm", "ida", "--patience", "2"])
print(json.dumps({"length": result.length, "heuristic": result.heuristic, "solved": summary.n_solved,
                  "column": "patience" in ROW_FIELDS, "row": row["patience"], "help": "--patience" in help_text,
                  "toy in help": "toy" in help_text, "refused": [status, refused.getvalue().strip()],
                  "classes": sorted(term_classes("max(toyd, lc)")),
                  "seconds": search_seconds("toy", "toyd") == COMPILE_SECONDS["search"]["uninformed"],
                  "values": values, "optimal": [by_astar.length, by_astar.optimal],
                  "same search": [by_astar.nodes_expanded, by_astar.nodes_generated] == [by_hamming.nodes_expanded,
                                                                                     by_hamming.nodes_generated]}))
'''


def test_a_toy_search_and_kind_registered_by_their_own_module_reach_every_front_end(tmp_path):
    (tmp_path / "toy_extension.py").write_text(TOY_MODULE)
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    done = subprocess.run([sys.executable, "-c", CHECK, str(tmp_path / "rows.csv")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen == {"length": seen["length"], "heuristic": "toy-distance", "solved": 1, "column": True, "row": "7",
                    "help": True, "toy in help": True,
                    "refused": [2, "solve-puzzle: error: a patience applies to toy only, not to ida"],
                    "classes": ["linear-conflict", "walking-distance"], "seconds": True,
                    "values": seen["values"], "optimal": [31, True], "same search": True}
    assert seen["length"] >= 31
    assert all(toy == hamming for toy, hamming in seen["values"]) and seen["values"][1] == [0, 0]
    assert len({toy for toy, _ in seen["values"]}) > 2
