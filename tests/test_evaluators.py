"""A heuristic as data of one type (solvers/heuristics/evaluators.py): the searches compiled once
serve every heuristic, with the values and node counts of the searches compiled for the
heuristic's own tree; a second heuristic adds no compiled signature to a search, nor a second
rule to the bidirectional kernel; the descriptor rebuilds every kind of data a kind may hold."""

from __future__ import annotations

import gc
import pickle
from typing import NamedTuple

import numba
import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom
from solvers.heuristics import from_spec
from solvers.by_address import flattened, rebuilt
from solvers.heuristics.evaluators import Evaluators
from solvers.heuristics.heuristic import _h_of_many
from solvers.make_instances import random_instances
from solvers.puzzle import Puzzle
from solvers.search.beam import _beam
from solvers.search.best_first import _best_first
from solvers.search.bidirectional import _bidirectional
from solvers.search.depth_first import _bounded_pass
from solvers.solve import solve
from tests.conftest import STANDARD_3X3
from tests.incremental import walk_values

NO_LIMIT = np.iinfo(np.int64).max


@pytest.fixture(scope="module")
def tables_3x3(tmp_path_factory):
    """A plain and a zero-aware 3x3 table of (1,2,4,5), and a plain one of (3,6,7,8)."""
    puzzle = Puzzle(3, 3, STANDARD_3X3)
    folder = tmp_path_factory.mktemp("evaluators")
    plans = {"a": plan_build(puzzle, custom(puzzle, ["1,2,4,5"])),
             "b": plan_build(puzzle, custom(puzzle, ["3,6,7,8"])),
             "za": plan_build(puzzle, custom(puzzle, ["1,2,4,5"]), zero_aware=True)}
    return puzzle, {name: build_pdb_file(plan, folder / f"{name}.h5")[0] for name, plan in plans.items()}


# one tree holding every kind of data the built-in kinds keep: tables of several dtypes and
# dimensions, a plain and a zero-aware reader, a reflected and a dual view, sums and maxima
def _mixed_spec(paths) -> str:
    return (f"max(sum(pdb:{paths['a']}, pdb:{paths['b']}), pdb:{paths['a']}+reflect, pdb:{paths['za']}+dual, "
            "linear-conflict, walking-distance, gaschnig)")


def test_the_searches_compiled_once_give_the_values_and_counts_of_the_specialised_ones(tables_3x3):
    puzzle, paths = tables_3x3
    general = from_spec(puzzle, _mixed_spec(paths))
    specialised = general.with_kernels(True)
    assert isinstance(general.leaves, Evaluators) and specialised.leaves is specialised.tree
    states = np.array(random_instances(puzzle, 200, seed=5), dtype=np.uint8)
    assert general.evaluate_many(states).tolist() == specialised.evaluate_many(states).tolist()
    assert general.columns_of_many(states).tolist() == specialised.columns_of_many(states).tolist()
    for enough in (0, 12, 20, NO_LIMIT):  # every move's child and child_at_least, as A* and IDA* ask
        walks = [walk_values(h, np.random.default_rng(7), 300, enough) for h in (general, specialised)]
        assert walks[0][1:] == walks[1][1:]
    for start in states[:6]:
        one, other = (solve(puzzle, start, "ida", h) for h in (general, specialised))
        assert (one.moves, one.nodes_expanded, one.nodes_generated) == \
            (other.moves, other.nodes_expanded, other.nodes_generated)


def test_a_second_heuristic_adds_no_compiled_signature_to_a_search(tables_3x3):
    puzzle, paths = tables_3x3
    start = np.array(random_instances(puzzle, 1, seed=9)[0], dtype=np.uint8)
    first, *others = (from_spec(puzzle, spec) for spec in
                      ("manhattan", "linear-conflict", f"max(pdb:{paths['a']}+reflect, hamming)",
                       f"sum(pdb:{paths['za']}, pdb:{paths['b']})"))
    for algorithm in ("ida", "astar", "beam"):
        solve(puzzle, start, algorithm, first)
    kernels = (_bounded_pass, _best_first, _beam)
    before = [len(k.signatures) for k in kernels]
    for heuristic in others:
        for algorithm in ("ida", "astar", "beam"):
            solve(puzzle, start, algorithm, heuristic)
    assert [len(k.signatures) for k in kernels] == before
    # the bidirectional searches, each under a rule of its own, share one kernel too
    for algorithm in ("mm", "nbs", "dibbs", "gbfhs"):
        for heuristic in (first, others[0]):
            solve(puzzle, start, algorithm, heuristic)
    assert len([s for s in _bidirectional.signatures if "RuleByAddress" in str(s)]) == 1
    solve(puzzle, start, "ida", others[0].with_kernels(True))  # what the count would see otherwise
    assert len(_bounded_pass.signatures) == before[0] + 1


class _Odd(NamedTuple):
    grid: np.ndarray
    weights: np.ndarray
    scale: float
    flag: bool
    count: np.int64


@numba.njit
def _summed(value, address):
    odd = rebuilt(address, value)
    total = odd.scale * odd.count + (1.0 if odd.flag else 0.0)
    for i in range(odd.grid.shape[0]):
        for j in range(odd.grid.shape[1]):
            total += odd.grid[i, j] * odd.weights[j]
    return total


def test_the_descriptor_rebuilds_arrays_of_any_stride_numbers_and_flags():
    grid = np.arange(24, dtype=np.int16).reshape(4, 6)[:, ::2]  # not contiguous
    odd = _Odd(grid, np.array([0.5, -1.0, 2.0]), 0.25, True, np.int64(7))
    numba_type = numba.typeof(odd)
    words = []
    flattened(odd, numba_type, words)
    descriptor = np.array(words, dtype=np.int64)
    expected = 0.25 * 7 + 1.0 + sum(float(grid[i, j]) * odd.weights[j] for i in range(4) for j in range(3))
    assert _summed(numba.types.TypeRef(numba_type), descriptor.ctypes.data) == pytest.approx(expected)


def test_a_pickled_heuristic_makes_its_evaluators_again(tables_3x3):
    puzzle, paths = tables_3x3
    heuristic = from_spec(puzzle, f"max(pdb:{paths['a']}+reflect, linear-conflict)")
    states = np.array(random_instances(puzzle, 50, seed=3), dtype=np.uint8)
    values = heuristic.evaluate_many(states).tolist()
    copy = pickle.loads(pickle.dumps(heuristic))
    assert "leaves" not in copy.__dict__  # the addresses stayed behind
    assert copy.evaluate_many(states).tolist() == values


def test_evaluators_keep_their_tree_alive_and_never_leave_their_process(tables_3x3):
    puzzle, paths = tables_3x3
    heuristic = from_spec(puzzle, f"max(pdb:{paths['za']}+reflect, linear-conflict)")
    states = np.array(random_instances(puzzle, 50, seed=4), dtype=np.uint8)
    values = heuristic.evaluate_many(states).tolist()
    evaluators, n_columns, tree = heuristic.leaves, heuristic.n_columns, heuristic.tree
    assert evaluators.descriptor.base.obj.kept is tree  # the memory under the descriptor
    del heuristic, tree
    gc.collect()  # the descriptor holds the tree: its tables are still there for a kernel
    assert _h_of_many(evaluators, n_columns, states).tolist() == values
    with pytest.raises(TypeError, match="never leave"):
        pickle.dumps(evaluators)
