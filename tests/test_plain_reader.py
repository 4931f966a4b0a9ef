"""PDB files read by other tools: plain h5py (hdf5plugin for Zstandard only) and the index formula
of the user guide (docs/guide/pdbs.md), in a fresh interpreter that never imports tilepdb, agree with the toolkit."""

import json
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import custom
from pdb_build.ranking import PlacementRanking
from pdb_build.store import load_partition
from solvers.puzzle import Puzzle

# The guide's reader: its placement_index word for word, h5py, and hdf5plugin for zstd only.
PLAIN_READER = '''
import json, math, sys
import h5py
if sys.argv[2] == "zstd":
    import hdf5plugin  # only for files written with --codec zstd: registers the Zstandard filter

def placement_index(cells):
    """cells[i] = the cell of the pattern's i-th tile, in the order of the `tiles` attribute."""
    k = len(cells)
    occupied = sorted(cells)                                   # the map: the occupied cells
    map_rank = sum(math.comb(c, j + 1) for j, c in enumerate(occupied))
    order = [occupied.index(c) for c in cells]                 # which occupied cell each tile holds
    order_rank = 0
    for i in range(k):                                         # Lehmer code, lexicographic
        order_rank = order_rank * (k - i) + sum(1 for later in order[i + 1:] if later < order[i])
    return map_rank * math.factorial(k) + order_rank

values = []
with h5py.File(sys.argv[1], "r") as pdb:
    assert pdb.attrs["ranking_scheme"] == "map-colex*order-lex"
    for number, placements in enumerate(json.loads(sys.argv[3])):
        table = pdb[f"pattern_{number}"]
        values.append([int(table[placement_index(cells)]) for cells in placements])
assert not any(name.split(".")[0] in ("pdb_build", "solvers", "tests") for name in sys.modules)
print(json.dumps(values))
'''


@pytest.fixture(scope="module")
def puzzle():
    return Puzzle(4, 4, list(range(16)))


@pytest.mark.parametrize("codec, filters", [("zstd", [32015]), ("gzip", [h5py.h5z.FILTER_DEFLATE]), ("none", [])])
def test_plain_h5py_reads_the_same_entries_as_the_toolkit(puzzle, tmp_path, codec, filters):
    partition = custom(puzzle, ["1,2,3,4", "5,6,7"])
    path, _ = build_pdb_file(plan_build(puzzle, partition), tmp_path / f"{codec}.h5", codec=codec)
    with h5py.File(path) as handle:
        plist = handle["pattern_0"].id.get_create_plist()
        assert [plist.get_filter(i)[0] for i in range(plist.get_nfilters())] == filters
    rng = np.random.default_rng(3)
    placements = [
        [rng.permutation(16)[: len(pattern)].tolist() for _ in range(300)] for pattern in partition.patterns
    ]
    done = subprocess.run(
        [sys.executable, "-I", "-c", PLAIN_READER, str(path), codec, json.dumps(placements)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    database = load_partition(path, puzzle, partition)
    for table, chosen, plain in zip(database.tables, placements, json.loads(done.stdout)):
        ranking = PlacementRanking(16, len(chosen[0]))
        assert table[ranking.rank(np.array(chosen))].tolist() == plain


def test_the_reader_is_the_guides():
    function = PLAIN_READER[PLAIN_READER.index("def placement_index") : PLAIN_READER.index("values = []")].strip()
    assert function in (Path(__file__).resolve().parent.parent / "docs" / "guide" / "pdbs.md").read_text()


def test_the_guides_worked_example(puzzle):
    """Tiles 1-7 of Korf's instance 1 on cells 11,10,15,12,7,8,3 (see docs/guide/pdbs.md)."""
    cells = [11, 10, 15, 12, 7, 8, 3]
    assert int(PlacementRanking(16, 7).rank(cells)[0]) == 8111 * 5040 + 3357 == 40_882_797
