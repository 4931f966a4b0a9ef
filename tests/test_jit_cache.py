"""The kernel cache: a run after an edit of any module runs the edited code (a user's module of
registered kernels too), numba's code settings are in the key, a run with no edit loads every
kernel from the cache, and `python -m solvers.jit --clear-cache` deletes it all."""

import json
import os
import shutil
import subprocess
import sys
from math import factorial
from pathlib import Path

from solvers import jit, kernel_cache

ROOT = Path(__file__).resolve().parent.parent

# A* with Manhattan distance on an 8-puzzle instance, in a process of its own. A* inlines the
# Manhattan kind's kernels (tile_cost.py) and calls the goal test of depth_first.py without
# inlining it; neither file is astar.py, the only file numba itself would check. The counts of
# A*'s kernel compiled and loaded, and those of the kernel that evaluates h (heuristic.py: h of
# the start and of the goal), a kernel with an index of its own.
SEARCH = """
import json
import solvers
from solvers.heuristics import heuristic
from solvers.puzzle import Puzzle
from solvers.search import best_first
from solvers.solve import solve
puzzle = Puzzle(3, 3)
result = solve(puzzle, puzzle.state([8, 6, 7, 2, 5, 4, 3, 0, 1]), "astar", "manhattan")
stats, h_stats = best_first._best_first.stats, heuristic._h_of_many.stats
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


def _run_search(source: Path, cache: Path) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(source)}
    done = subprocess.run([sys.executable, "-c", SEARCH], cwd=source, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert Path(result.pop("package")).is_relative_to(source)
    return result


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} not found once in {path.name}"
    path.write_text(text.replace(old, new))


def test_a_run_after_an_edit_runs_the_edited_kernels(tmp_path):
    source, cache = _copy_of_the_package(tmp_path), tmp_path / "cache"
    first = _run_search(source, cache)
    assert first["status"] == "solved" and first["length"] == 31 and first["compiled"] > 0 and first["h_compiled"] > 0
    [first_folder] = (cache / kernel_cache.PARENT_NAME).iterdir()

    # an inlined kernel: children's h halved, still admissible, so A* stays optimal but expands more
    tile_cost = source / "solvers" / "heuristics" / "tile_cost.py"
    original_tile_cost = tile_cost.read_text()
    _edit(tile_cost, "    scratch[row + 1, column] = h\n    return h\n", "    scratch[row + 1, column] = h\n    return h // 2\n")
    halved = _run_search(source, cache)
    assert halved["length"] == 31 and halved["expanded"] > first["expanded"] and halved["compiled"] > 0
    tile_cost.write_text(original_tile_cost)

    # a kernel called without inlining: no state is the goal, so A* expands every state reachable,
    # half of the 9! permutations
    depth_first = source / "solvers" / "search" / "depth_first.py"
    _edit(depth_first, "def is_goal(board, goal):\n", "def is_goal(board, goal):\n    return False\n")
    blind = _run_search(source, cache)
    assert blind["status"] != "solved" and blind["expanded"] == factorial(9) // 2

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
    assert len(list((cache / kernel_cache.PARENT_NAME).iterdir())) == 3


def test_the_key_covers_every_package_module_and_the_versions(tmp_path, monkeypatch):
    source = _copy_of_the_package(tmp_path)
    monkeypatch.setattr(kernel_cache, "ROOT", source)
    key = kernel_cache.cache_key()
    names = {path.relative_to(source).as_posix() for path in kernel_cache.source_files()}
    assert names == {path.relative_to(ROOT).as_posix() for package in ("solvers", "pdb_build")
                     for path in (ROOT / package).rglob("*.py") if "__pycache__" not in path.parts}
    (source / "pdb_build" / "ranking.py").write_text((source / "pdb_build" / "ranking.py").read_text() + "\n")
    assert kernel_cache.cache_key() != key
    monkeypatch.setattr(kernel_cache.numba, "__version__", "0.0.0")
    assert len({key, kernel_cache.cache_key()}) == 2


def test_other_keys_folders_are_removed_after_a_day(tmp_path, monkeypatch):
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
    assert folder == parent / kernel_cache.cache_key()
    assert sorted(p.name for p in parent.iterdir()) == sorted([folder.name, "recent"])


def test_clear_cache_deletes_every_cached_kernel_and_nothing_else(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(jit, "ROOT", tmp_path)
    monkeypatch.setattr(jit, "in_checkout", lambda: True)
    in_tree = ["solvers/__pycache__/heuristics._h_of-273.py311.nbi", "pdb_build/__pycache__/ranking.cell_set_rank-59.py311.nbi",
               "tests/__pycache__/test_bits.k-9.py311.2.nbc"]
    kept = ["solvers/__pycache__/jit.cpython-311.pyc", "solvers/ranking.nbi", "data/__pycache__/x.nbi",
            "numba/other/f.nbi"]
    keyed = ["numba/tilepdb-kernels/0123/solvers_ab/x.nbi", "numba/tilepdb-kernels/4567/search_cd/y.nbc"]
    for name in in_tree + kept + keyed:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert jit.clear_cache_main(["--clear-cache"]) == 0
    assert capsys.readouterr().out == (f"removed 2 cache folders in {tmp_path / 'numba' / 'tilepdb-kernels'} "
                                       "and 3 cached kernel files beside the sources\n")
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == sorted(kept)


# A user's module that registers its own kernel for a package reader class (pdb_read.py's plain
# tables): the kind and its data are the package's, the kernel is not, so the cache key, made of
# the package sources, cannot see an edit of it.
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
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}

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
