"""The default node limits follow the memory available: never more nodes than fit in the share
of it a search may fill, the tables mapped from files taken off, a batch's workers sharing it;
--memory sets the budget, and a search that reaches it says what its node limit counts."""

from types import SimpleNamespace

import numpy as np
import pytest

from pdb_build.bfs import available_memory
from solvers.batch import shared_memory
from solvers.heuristics import baseline
from solvers.puzzle import Puzzle
from solvers.search.best_first import BYTES_PER_NODE
from solvers.search.node_store import (
    DEFAULT_MEMORY_SHARE, MAX_NODES, mapped_bytes, memory_budget, node_bytes, node_capacity,
)
from solvers.solve import solve


@pytest.mark.parametrize("rows, cols", [(3, 3), (5, 5), (6, 6), (8, 8)])
def test_the_default_node_limit_fits_in_the_share_of_the_memory_available(rows, cols):
    puzzle = Puzzle(rows, cols)
    limit = node_capacity(puzzle, None, BYTES_PER_NODE, "astar")
    assert 1 <= limit <= MAX_NODES
    assert limit * node_bytes(puzzle, BYTES_PER_NODE) <= available_memory() * DEFAULT_MEMORY_SHARE * 1.01
    assert node_capacity(puzzle, None, BYTES_PER_NODE, "astar", memory=0.25) == \
        2**28 // node_bytes(puzzle, BYTES_PER_NODE)


def test_tables_mapped_from_files_are_taken_off_the_budget(tmp_path):
    path = tmp_path / "table.bin"
    path.write_bytes(bytes(1 << 20))
    mapped = np.memmap(path, dtype=np.uint8, mode="r").view(np.ndarray)
    plain = np.zeros(1 << 20, dtype=np.uint8)
    heuristic = SimpleNamespace(tree=((mapped[10:], (plain, mapped[:5])), 3))
    assert mapped_bytes(heuristic) == 1 << 20  # one mapping, counted once; the plain array not at all
    assert mapped_bytes(SimpleNamespace(tree=((plain,),))) == 0
    assert memory_budget(heuristic) <= memory_budget(None)


def test_a_batch_shares_the_budget_among_its_workers():
    puzzle = Puzzle(3, 3)
    manhattan = baseline(puzzle, "manhattan")
    shared = shared_memory((puzzle, "greedy", manhattan, {"time_limit": 5.0}), 4)
    assert shared["time_limit"] == 5.0 and 0 < shared["memory"] * 2**30 <= memory_budget(manhattan) / 4 * 1.01
    given = {"node_limit": 1000}
    assert shared_memory((puzzle, "greedy", manhattan, given), 4) is given
    assert shared_memory((puzzle, "ida", manhattan, {}), 4) == {}  # a search that stores no nodes


def test_a_memory_budget_bounds_the_nodes_and_the_result_says_what_it_counted():
    puzzle = Puzzle(5, 5)
    start = puzzle.state("24 23 22 21 20 19 18 17 16 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0")
    tiny = 0.0001  # GiB: a few hundred nodes
    expected = int(tiny * 2**30) // node_bytes(puzzle, BYTES_PER_NODE)
    result = solve(puzzle, start, "astar", "manhattan", memory=tiny)
    assert result.status == "gave_up" and result.reason == f"node limit of {expected:,} stored nodes reached"
    beam = solve(puzzle, start, "beam", "manhattan", beam_width=100000, memory=tiny)
    assert beam.status == "gave_up" and beam.reason.endswith("held nodes reached")
