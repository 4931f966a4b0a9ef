"""The kernel cache: a run after an edit of a kernel module runs the edited code (a user's module
of registered kernels too), an edit of a module outside the key (a command's help) compiles
nothing, numba's code settings are in the key, two checkouts of the same sources at different
paths share their compiled kernels, the default folder is in the user's cache folder, and
`python -m solvers.jit --clear-cache` deletes it all."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import numba

from solvers import jit, kernel_cache
from solvers.heuristics.dispatch import Leaf

ROOT = Path(__file__).resolve().parent.parent

# IDA* with Manhattan distance on an 8-puzzle instance, in a process of its own (at most a
# million nodes). The Manhattan kind's kernels (tile_cost.py) are inlined into the heuristic's
# evaluations (evaluators.py), which the pass (depth_first.py) calls by address, and the pass
# calls its goal test without inlining it; none of these files is ida.py, the only file numba
# itself would check. The counts of the pass's kernel compiled and loaded, and those of the
# kernel that evaluates h (heuristic.py: h of the start and of the goal), a kernel with an
# index of its own.
SEARCH = """
import json
import solvers
from solvers.heuristics import heuristic
from solvers.puzzle import Puzzle
from solvers.search import depth_first
from solvers.solve import solve
puzzle = Puzzle(3, 3)
result = solve(puzzle, puzzle.state([8, 6, 7, 2, 5, 4, 3, 0, 1]), "ida", "manhattan", node_limit=10**6)
stats, h_stats = depth_first._bounded_pass.stats, heuristic._h_of_many.stats
print(json.dumps({"package": solvers.__file__, "status": result.status, "length": result.length,
                  "expanded": result.nodes_expanded, "compiled": sum(stats.cache_misses.values()),
                  "loaded": sum(stats.cache_hits.values()), "h_compiled": sum(h_stats.cache_misses.values()),
                  "h_loaded": sum(h_stats.cache_hits.values())}))
"""


def _copy_of_the_package(folder: Path) -> Path:
    source = folder / "src"
    ignore = shutil.ignore_patterns("__pycache__", "pdbs")
    for name in ("solvers", "pdb_build", "data"):
        shutil.copytree(ROOT / name, source / name, ignore=ignore)
    shutil.copy(ROOT / "pyproject.toml", source)
    return source


def _run(script: str, source: Path, cache: Path) -> dict:
    """`script`'s JSON output, run on the package copy `source` with the cache parent `cache`."""
    env = {**os.environ, kernel_cache.PARENT_VARIABLE: str(cache), "PYTHONPATH": str(source)}
    done = subprocess.run([sys.executable, "-c", script], cwd=source, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert Path(result.pop("package")).is_relative_to(source)
    return result


def _run_search(source: Path, cache: Path) -> dict:
    return _run(SEARCH, source, cache)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} not found once in {path.name}"
    path.write_text(text.replace(old, new))


def _edit_a_help_text(source: Path) -> None:
    """Edit the first help text of solve-puzzle's options, in the package copy `source`."""
    command = source / "solvers" / "commands" / "solve_puzzle.py"
    text = command.read_text()
    assert 'help="' in text
    command.write_text(text.replace('help="', 'help="edited: ', 1))


def test_a_run_after_an_edit_runs_the_edited_kernels(tmp_path):
    source, cache = _copy_of_the_package(tmp_path), tmp_path / "cache"
    first = _run_search(source, cache)
    assert first["status"] == "solved" and first["length"] == 31 and first["compiled"] > 0 and first["h_compiled"] > 0
    [first_folder] = cache.iterdir()

    # an inlined kernel: children's h one less, still admissible, so IDA* stays optimal but expands more
    tile_cost = source / "solvers" / "heuristics" / "tile_cost.py"
    original_tile_cost = tile_cost.read_text()
    _edit(tile_cost, "    scratch[row + 1, column] = h\n    return h\n",
          "    scratch[row + 1, column] = h\n    return h - 1 if h > 0 else h\n")
    halved = _run_search(source, cache)
    assert halved["length"] == 31 and halved["expanded"] > first["expanded"] and halved["compiled"] > 0
    tile_cost.write_text(original_tile_cost)

    # a kernel called without inlining: no state is the goal, so IDA* searches until its node limit
    depth_first = source / "solvers" / "search" / "depth_first.py"
    _edit(depth_first, "def is_goal(board, goal):\n", "def is_goal(board, goal):\n    return False\n")
    blind = _run_search(source, cache)
    assert blind["status"] == "gave_up" and blind["expanded"] >= 10**6

    # no edit since: every kernel is loaded, none compiled; the original sources find their folder again
    again = _run_search(source, cache)
    assert again["expanded"] == blind["expanded"] and again["compiled"] == again["h_compiled"] == 0
    assert again["loaded"] > 0 and again["h_loaded"] > 0
    depth_first.write_text(depth_first.read_text().replace("    return False\n", "", 1))
    # ... where a damaged index is a miss, never an error: its kernel compiles again, the others
    # load, same result (each kernel reads its own index through the same code)
    [index] = first_folder.rglob("heuristic._h_of_many-*.nbi")
    index.write_bytes(index.read_bytes()[:40])
    back = _run_search(source, cache)
    counts = ("compiled", "loaded", "h_compiled", "h_loaded")
    assert {k: v for k, v in back.items() if k not in counts} == {k: v for k, v in first.items() if k not in counts}
    assert back["compiled"] == 0 and back["loaded"] > 0 and back["h_compiled"] > 0 and back["h_loaded"] == 0
    assert len(list(cache.iterdir())) == 3


def test_the_key_covers_the_kernel_modules_what_they_import_and_the_versions(tmp_path, monkeypatch):
    source = _copy_of_the_package(tmp_path)
    monkeypatch.setattr(kernel_cache, "ROOT", source)

    def modules():
        return kernel_cache.kernel_modules(kernel_cache.package_sources())

    # kernels, the machinery and the modules they import (puzzle.py has no kernel), with their packages
    assert {"solvers.search.depth_first", "solvers.heuristics.tile_cost", "pdb_build.ranking", "solvers.bits",
            "solvers.heuristics.dispatch", "solvers.puzzle", "solvers.heuristics", "solvers"} <= modules()
    # front ends: parsing, help, batches, reports, and a search module that only passes options on
    outside = {"solvers.commands.solve_puzzle", "solvers.cli", "solvers.batch", "solvers.reports", "solvers.search.ida"}
    assert not outside & modules()
    key = kernel_cache.cache_key()

    _edit_a_help_text(source)
    assert kernel_cache.cache_key() == key

    ranking = source / "pdb_build" / "ranking.py"
    ranking.write_text(ranking.read_text() + "\n")
    assert kernel_cache.cache_key() != key

    # an import inside a kernel module's function brings a module into the key, then its edits count
    _edit(ranking, "def check_pattern_size(n_cells: int, k: int) -> None:\n",
          "def check_pattern_size(n_cells: int, k: int) -> None:\n    from solvers import reports  # noqa\n")
    assert "solvers.reports" in modules()
    key = kernel_cache.cache_key()
    reports = source / "solvers" / "reports.py"
    reports.write_text(reports.read_text() + "\n")
    assert kernel_cache.cache_key() != key

    # a new module that imports numba is a kernel module
    (source / "solvers" / "search" / "extra.py").write_text("import numba.core.types as t  # noqa\n")
    assert "solvers.search.extra" in modules()

    key = kernel_cache.cache_key()
    monkeypatch.setattr(kernel_cache.numba, "__version__", "0.0.0")
    assert kernel_cache.cache_key() != key


def test_imports_are_read_in_every_form():
    source = b"""
from __future__ import annotations
import numpy as np, solvers.moves
from . import depth_first
from ..heuristics.pdb_rank import (Index,  # a comment
                                   Instances)
from solvers.search.result import \\
    SearchResult
def later():
    import pdb_build.ranking
try: from solvers import wording
except ImportError: pass
"""
    names = kernel_cache.imported_names("solvers.search.best_first", False, source)
    assert {"numpy", "solvers.moves", "solvers.search.depth_first", "solvers.heuristics.pdb_rank.Instances",
            "solvers.search.result.SearchResult", "pdb_build.ranking", "solvers.wording", "solvers"} <= names
    assert "np" not in names and "solvers.heuristics.pdb_rank.Index" in names


# h of an 8-puzzle state by Manhattan distance (heuristic.py's kernel inlines the kind's kernels
# of tile_cost.py, for the package's NamedTuples Leaf and TileCost) and the goal test of
# depth_first.py: two small kernels of two packages, and how many of them were compiled and loaded
SMALL_KERNELS = """
import json
import solvers
from solvers.heuristics import baseline, heuristic
from solvers.puzzle import Puzzle
from solvers.search.depth_first import is_goal
puzzle = Puzzle(3, 3)
start = puzzle.state([8, 6, 7, 2, 5, 4, 3, 0, 1])
h = baseline(puzzle, "manhattan")(start)
is_goal(start, puzzle.goal)
kernels = (heuristic._h_of_many, is_goal)
print(json.dumps({"package": solvers.__file__, "h": int(h),
                  "compiled": sum(sum(k.stats.cache_misses.values()) for k in kernels),
                  "loaded": sum(sum(k.stats.cache_hits.values()) for k in kernels)}))
"""


def test_checkouts_at_other_paths_load_each_others_kernels(tmp_path):
    """The same sources at two paths (a second checkout, a clone) and one cache parent: the second
    compiles nothing, and so does a third whose only edit is a command's help."""
    cache = tmp_path / "cache"
    first = _copy_of_the_package(tmp_path / "first")
    second = _copy_of_the_package(tmp_path / "second")
    edited = _copy_of_the_package(tmp_path / "edited")
    _edit_a_help_text(edited)

    assert _run(SMALL_KERNELS, first, cache) == {"h": 21, "compiled": 2, "loaded": 0}
    assert _run(SMALL_KERNELS, second, cache) == {"h": 21, "compiled": 0, "loaded": 2}
    assert _run(SMALL_KERNELS, edited, cache) == {"h": 21, "compiled": 0, "loaded": 2}
    # filed by the packages' dotted names, not by the paths of the sources
    [folder] = cache.iterdir()
    assert {index.parent.name for index in folder.rglob("*.nbi")} == {"solvers.heuristics", "solvers.search"}


class _Outside(NamedTuple):  # a class of this module: outside the key
    value: int


def test_argument_types_naming_what_the_key_misses_skip_the_cache():
    outside, inside = numba.typeof(_Outside(1)), numba.typeof(Leaf((1,), 0))
    covered = kernel_cache.covered_types
    assert covered((inside, numba.int64), "solvers.moves") and not covered((inside, outside), "solvers.moves")
    assert covered((outside,), _Outside.__module__)  # a test's own kernel: numba checks this file
    # a kernel passed as an argument is named by identity too
    here = numba.njit(lambda x: x)
    assert not covered((numba.typeof(here),), "solvers.moves") and covered((numba.typeof(here),), __name__)


def test_the_default_folder_is_in_the_users_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(kernel_cache.PARENT_VARIABLE, raising=False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert kernel_cache.cache_parent() == tmp_path / "xdg" / kernel_cache.PARENT_NAME
    kernel_cache.cache_folder.cache_clear()
    try:
        folder = kernel_cache.cache_folder()
        monkeypatch.setenv(kernel_cache.PARENT_VARIABLE, str(tmp_path / "a-file" / "kernels"))
        (tmp_path / "a-file").write_text("")
        kernel_cache.cache_folder.cache_clear()
        unwritable = kernel_cache.cache_folder()
    finally:
        kernel_cache.cache_folder.cache_clear()
    assert folder.parent == tmp_path / "xdg" / kernel_cache.PARENT_NAME and folder.is_dir()
    assert unwritable is None  # kernels are then compiled in every process

    monkeypatch.setenv(kernel_cache.PARENT_VARIABLE, str(tmp_path / "chosen"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert kernel_cache.cache_parent() == tmp_path / "chosen"
    monkeypatch.delenv(kernel_cache.PARENT_VARIABLE)
    assert kernel_cache.cache_parent() == tmp_path / "numba" / kernel_cache.PARENT_NAME
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert kernel_cache.cache_parent() == tmp_path / "home" / ".cache" / kernel_cache.PARENT_NAME


def test_other_keys_folders_are_removed_after_a_day(tmp_path, monkeypatch):
    monkeypatch.delenv(kernel_cache.PARENT_VARIABLE, raising=False)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    parent = tmp_path / kernel_cache.PARENT_NAME
    recent, old = parent / "recent", parent / "old"
    for folder in (recent, old):
        (folder / "sub").mkdir(parents=True)
    os.utime(old, (0, 0))
    kernel_cache.cache_folder.cache_clear()
    try:
        folder = kernel_cache.cache_folder()
    finally:
        kernel_cache.cache_folder.cache_clear()
    assert folder.parent == parent
    assert sorted(p.name for p in parent.iterdir()) == sorted([folder.name, "recent"])


def test_clear_cache_deletes_every_cached_kernel_and_nothing_else(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(kernel_cache.PARENT_VARIABLE, raising=False)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(jit, "ROOT", tmp_path)
    monkeypatch.setattr(kernel_cache, "ROOT", tmp_path)
    monkeypatch.setattr(jit, "in_checkout", lambda: True)
    in_tree = ["solvers/__pycache__/heuristics._h_of-273.py311.nbi", "pdb_build/__pycache__/ranking.cell_set_rank-59.py311.nbi",
               "tests/__pycache__/test_bits.k-9.py311.2.nbc"]
    kept = ["solvers/__pycache__/jit.cpython-311.pyc", "solvers/ranking.nbi", "data/__pycache__/x.nbi",
            "numba/other/f.nbi"]
    keyed = ["numba/tilepdb-kernels/0123/solvers_ab/x.nbi", "numba/tilepdb-kernels/4567/search_cd/y.nbc",
             "solvers/__pycache__/kernels/89ab/solvers.search/z.nbi"]  # where earlier versions cached
    for name in in_tree + kept + keyed:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert jit.clear_cache_main(["--clear-cache"]) == 0
    assert capsys.readouterr().out == (f"removed 3 cache folders in {tmp_path / 'numba' / 'tilepdb-kernels'}, "
                                       f"{tmp_path / 'solvers' / '__pycache__' / 'kernels'} "
                                       "and 3 cached kernel files beside the sources\n")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == sorted(kept)


# A user's module that registers its own kernel for a package reader class (pdb_read.py's plain
# tables): the kind and its data are the package's, the kernel is not, so the cache key, made of
# the kernel modules' sources, cannot see an edit of it.
USER_READER = """
from solvers.heuristics import pdb_read
from solvers.jit import inline_kernel

plain = pdb_read._plain_value


@inline_kernel
def scaled(reader, instances, instance, position):
    return plain(reader, instances, instance, position) // DIVISOR


pdb_read.register_reader(pdb_read.PlainTables, scaled)
"""
USER_SEARCH = """
import json, sys
import user_reader
from solvers.puzzle import Puzzle
from solvers.solve import solve
puzzle = Puzzle(3, 3)
result = solve(puzzle, puzzle.state([8, 6, 7, 2, 5, 4, 3, 0, 1]), "astar", "pdb:" + sys.argv[1])
print(json.dumps({"length": result.length, "expanded": result.nodes_expanded}))
"""


def test_an_edit_of_a_users_registered_reader_changes_the_next_run(tmp_path):
    from pdb_build.build import build_pdb_file, plan_build
    from pdb_build.partitions import preset
    from solvers.puzzle import Puzzle

    puzzle = Puzzle(3, 3)
    pdb, _ = build_pdb_file(plan_build(puzzle, preset(puzzle, "4-4")), tmp_path / "44.h5")
    module = tmp_path / "user_reader.py"
    env = {**os.environ, kernel_cache.PARENT_VARIABLE: str(tmp_path / "cache"), "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}

    def run(divisor):
        module.write_text(USER_READER.replace("DIVISOR", str(divisor)))
        done = subprocess.run([sys.executable, "-c", USER_SEARCH, str(pdb)], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    whole, halved = run(1), run(2)
    assert whole["length"] == halved["length"] == 31 and halved["expanded"] > whole["expanded"]


def test_numba_settings_that_change_the_code_change_the_key():
    """NUMBA_BOUNDSCHECK=1 (a debugging run) and NUMBA_OPT never reuse code compiled without them."""
    def key(**settings):
        done = subprocess.run([sys.executable, "-c", "from solvers import kernel_cache; print(kernel_cache.cache_key())"],
                              env={**os.environ, **settings}, capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    plain = key()
    assert len({plain, key(NUMBA_BOUNDSCHECK="1"), key(NUMBA_OPT="0")}) == 3 and key() == plain
