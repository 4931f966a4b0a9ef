"""kernel_cache.py -- the on-disk cache of compiled kernels, keyed on everything they depend on.

numba checks a cached kernel against its own source file only, but tilepdb's kernels inline and
call kernels of other modules (a search inlines every heuristic kind it is compiled for, and the
kinds call the ranking kernels), so an edit to one module would leave its callers' cached code
in force: old numbers, reported as new. Here every tilepdb kernel is cached instead in one folder
per *key*, a digest of

  - the source of every module of the packages `solvers` and `pdb_build` (all the modules whose
    kernels can be compiled together), and
  - the versions of Python, numpy, numba and llvmlite, and the machine's architecture, and
  - numba's settings that change the code it generates (CODE_SETTINGS: bounds checks, the
    optimisation level, debug information, vectorising, the target CPU), so that a debugging
    run with NUMBA_BOUNDSCHECK=1 never reuses code compiled without the checks.

An edit, a `git pull` or a `pip install --upgrade` changes the key, so the next process compiles
into a new folder, and running sources seen before (a branch switched back, a second checkout of
one commit) finds their folder again. Kernels defined outside the packages (tests/, scripts/)
share the folder: numba checks their own file, and the key covers the package kernels they call.
Data whose types, or whose registered kernels, come from outside the packages (a kind, a PDB
reader or an evaluation of a user's module) is not covered by the key: searches compiled for it
skip the disk cache (`cacheable_data`, heuristics/term.py).

The folders live in one parent: `$NUMBA_CACHE_DIR/tilepdb-kernels` when NUMBA_CACHE_DIR is set,
else `solvers/__pycache__/kernels` beside the sources (as numba's own cache), or the user's cache
folder (`$XDG_CACHE_HOME` or `~/.cache`, then `tilepdb-kernels`) where the sources are read-only.
Each process touches its key's folder; folders of other keys untouched for a day are removed, so
the cache does not grow without bound. Where no folder is writable, kernels are compiled in every
process and never cached.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

import llvmlite
import numba
import numpy
from numba.core.caching import CompileResultCacheImpl, FunctionCache, UserProvidedCacheLocator
from numba.core.dispatcher import Dispatcher

from solvers.data_files import ROOT

SOURCE_PACKAGES = ("solvers", "pdb_build")
# numba.config names whose values change generated code (numba's own cache keys on none of them)
CODE_SETTINGS = ("BOUNDSCHECK", "OPT", "DEBUGINFO_DEFAULT", "LOOP_VECTORIZE", "SLP_VECTORIZE", "ENABLE_AVX",
                 "CPU_NAME", "CPU_FEATURES", "EXTEND_VARIABLE_LIFETIMES", "FASTMATH")
PARENT_NAME = "tilepdb-kernels"
STALE_AFTER = 24 * 3600  # seconds since its last use after which another key's folder is removed
# what reading a damaged index, or one naming a module this process cannot import, raises
UNREADABLE_INDEX = (OSError, EOFError, ValueError, ImportError, AttributeError, pickle.UnpicklingError)


def source_files() -> list[Path]:
    """The Python sources of the packages whose kernels are compiled together, sorted."""
    found = []
    for package in SOURCE_PACKAGES:
        for folder, subfolders, names in os.walk(ROOT / package):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            found += [Path(folder) / name for name in names if name.endswith(".py") and not name.startswith(".")]
    return sorted(found)


def cache_key() -> str:
    """The digest of everything the compiled code depends on (see the module docstring)."""
    digest = hashlib.sha256()
    versions = (sys.version, platform.machine(), numpy.__version__, numba.__version__, llvmlite.__version__)
    settings = tuple(f"{name}={getattr(numba.config, name, None)!r}" for name in CODE_SETTINGS)
    for part in (*versions, *settings):
        digest.update(part.encode() + b"\0")
    for path in source_files():
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        try:
            digest.update(path.read_bytes() + b"\0")
        except OSError:  # removed meanwhile (a checkout switching branches): its absence is hashed
            digest.update(b"\1")
    return digest.hexdigest()[:20]


def from_packages(thing) -> bool:
    """Whether `thing` (a class, a function or a numba dispatcher) is defined in SOURCE_PACKAGES."""
    module = getattr(getattr(thing, "py_func", thing), "__module__", None) or ""
    return module.partition(".")[0] in SOURCE_PACKAGES


# classes of the packages with kernels registered for them from outside (note_kernels);
# written at registration, when a module is imported, and only read afterwards
_OUTSIDE_KERNELS: set[type] = set()


def note_kernels(data_class: type, *functions) -> None:
    """Record the kernels registered for `data_class` (a reader, an evaluation): where the class
    or any of `functions` comes from outside the packages, the key does not cover them."""
    if not all(from_packages(f) for f in (data_class, *functions)):
        _OUTSIDE_KERNELS.add(data_class)


def cacheable_data(data) -> bool:
    """Whether kernels compiled for `data` (a kind's nested tuples of arrays and numbers) may be
    cached under the key: every named tuple in it is of a package class with no kernels
    registered for it from outside."""
    if not isinstance(data, tuple):
        return True
    kind = type(data)
    if kind is not tuple and (not from_packages(kind) or kind in _OUTSIDE_KERNELS):
        return False
    return all(cacheable_data(item) for item in data)


def cache_parents() -> list[Path]:
    """The folders that may hold the keys' folders, in the order they are tried."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return [Path(os.environ["NUMBA_CACHE_DIR"]) / PARENT_NAME]
    beside = ROOT / "solvers" / "__pycache__" / "kernels"
    try:
        user_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    except RuntimeError:  # no home folder
        return [beside]
    return [beside, user_cache / PARENT_NAME]


@functools.cache
def cache_folder() -> Path | None:
    """This process's cache folder (created and touched), or None where no parent is writable.
    Removes the folders of other keys that were not used for STALE_AFTER seconds."""
    key = cache_key()
    for parent in cache_parents():
        folder = parent / key
        try:
            folder.mkdir(parents=True, exist_ok=True)
            os.utime(folder)
            tempfile.TemporaryFile(dir=folder).close()
        except OSError:
            continue
        _remove_stale_folders(parent, key)
        return folder
    return None


def _remove_stale_folders(parent: Path, key: str) -> None:
    now = time.time()
    for folder in parent.iterdir():
        try:
            stale = folder.name != key and folder.is_dir() and now - folder.stat().st_mtime > STALE_AFTER
        except OSError:  # removed meanwhile by another process
            continue
        if stale:
            shutil.rmtree(folder, ignore_errors=True)


class _KeyedLocator(UserProvidedCacheLocator):
    """numba's locator for a given cache folder, given the key's folder."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = str(cache_folder() / self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        if cache_folder() is None or not os.path.exists(py_file):
            return None
        locator = cls(py_func, py_file)
        try:
            locator.ensure_cache_path()
        except OSError:
            return None
        return locator


class _KeyedCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_KeyedLocator]


class _KeyedFunctionCache(FunctionCache):
    """numba's cache of a function's compiled code in the key's folder. A cache is an aid, never
    a condition: an index that cannot be read (damaged, or naming a module this process cannot
    import) is a miss, and code that cannot be saved (a full disk, a quota, a folder removed
    meanwhile) is not saved."""

    _impl_class = _KeyedCacheImpl

    def load_overload(self, sig, target_context):
        try:
            return super().load_overload(sig, target_context)
        except UNREADABLE_INDEX:
            return None

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except UNREADABLE_INDEX:  # saving reads the index first: start it afresh, once
            try:
                os.unlink(self._cache_file._index_path)
                super().save_overload(sig, data)
            except UNREADABLE_INDEX:
                pass


def cache_on_disk(compiled):
    """`compiled` (a numba dispatcher) with its compiled code cached in the key's folder; as it is
    where the JIT is disabled (a plain function) or no folder is writable."""
    if isinstance(compiled, Dispatcher) and cache_folder() is not None:
        try:
            compiled._cache = _KeyedFunctionCache(compiled.py_func)
        except RuntimeError:  # numba's "no locator available": the folder became unwritable
            pass
    return compiled


def cached_folders() -> list[Path]:
    """Every key's folder in every parent (this key's too)."""
    return sorted(folder for parent in cache_parents() if parent.is_dir() for folder in parent.iterdir())
