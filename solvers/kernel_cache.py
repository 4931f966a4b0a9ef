"""kernel_cache.py -- the on-disk cache of compiled kernels, keyed on everything they depend on.

numba checks a cached kernel against its own source file only, but tilepdb's kernels inline and
call kernels of other modules (a search inlines every heuristic kind it is compiled for, and the
kinds call the ranking kernels), so an edit to one module would leave its callers' cached code
in force: old numbers, reported as new. Here every tilepdb kernel is cached instead in one folder
per *key*, a digest of

  - the sources of the *kernel modules* (below), and
  - the versions of Python, numpy, numba and llvmlite, and the machine's architecture, and
  - numba's settings that change the code it generates (CODE_SETTINGS: bounds checks, the
    optimisation level, debug information, vectorising, the target CPU), so that a debugging
    run with NUMBA_BOUNDSCHECK=1 never reuses code compiled without the checks.

The kernel modules. A kernel's code depends on its source and on what numba reads from its
module's globals when it compiles it: constants, other kernels, the overloads and intrinsics
that generate code, the classes of the data it is compiled for; and these come from the
modules it imports, and theirs. So the kernel modules are the modules of `solvers` and
`pdb_build` that import numba, llvmlite or the kernel machinery (KERNEL_IMPORTS: the decorators
of jit.py, the intrinsics of bits.py, the kinds' registry dispatch.py), every module of the
packages that those import, transitively, and the package (`__init__.py`) of each, which Python
runs first. An import counts wherever it is written (inside a function too); imports are read
from the source text, so a text that merely looks like one (in a docstring) adds a module: the
key may cover more than it needs, never less. Left out are the modules that only call kernels
from Python, with arguments; an edit of one leaves the key as it is, and every kernel cached.
In this tree they are the command-line front ends (pdb_build/cli.py; solvers/cli.py,
cli_support.py, entry.py and every module of solvers/commands/), batches and reports (batch.py,
benchmark_points.py, forked.py, make_instances.py, output_folder.py, reports.py), the training
loops of solvers/learning/ (bootstrap.py, davi.py, fit.py, learn.py), and the search modules
that registry.py imports by name, not by an import statement, which hand their options to the
kernels of depth_first.py and best_first.py (solvers/search/: anytime.py, astar.py, bwas.py,
greedy.py, ida.py, parallel_ida.py, restarts.py, reverse_astar.py, wastar.py, wida.py).

What an argument brings is numba's own affair: its type is in numba's index of each kernel,
except what a type names by identity, a NamedTuple's class (its field names are not in the
type) or a kernel passed as an argument. So a compile whose argument types name a class or a
function of a module outside the key (another package module, a user's or a test's module;
the kernel's own module excepted, whose source numba checks) neither reads nor writes the
cache, and nor does one for data of a class with kernels registered for it from outside the
key (`note_kernels`: a reader, an evaluation); `cacheable_data` says so in advance for a
heuristic's data (heuristics/term.py). A kernel whose function a package module outside the
key defines (through a kernel module's factory) is never cached.

Where the files are. The keys' folders live in one parent: `$TILEPDB_KERNEL_CACHE` when that
is set, else `$NUMBA_CACHE_DIR/tilepdb-kernels` when NUMBA_CACHE_DIR is set, else the user's
cache folder (`$XDG_CACHE_HOME` or `~/.cache`, then `tilepdb-kernels`). Nothing in a key's
folder depends on where the sources are: a kernel of a kernel module is filed under its
package's dotted name (`solvers.search/depth_first.is_goal-<line>.py311.nbi`), and the stamp that
numba checks in its index is the digest of the module's source (never its path, time or
size), so every checkout or clone of one commit loads the kernels another compiled. Kernels
defined outside the packages (tests/, scripts/) keep numba's own layout in the same folder,
filed by their file's path and checked against its content; the key covers the package
kernels they call. Each process touches its key's folder; folders of other keys untouched for
a day are removed, so the cache does not grow without bound. Where the parent is not writable
(or there is no home folder), kernels are compiled in every process and never cached.
`solvers/__pycache__/kernels`, where earlier versions cached beside the sources, is never read;
`python -m solvers.jit --clear-cache` removes it with the rest (`cached_folders`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import platform
import re
import shutil
import sys
import tempfile
import time
import types
from pathlib import Path

import llvmlite
import numba
import numpy
from numba.core import types as numba_types
from numba.core.caching import CompileResultCacheImpl, FunctionCache, UserProvidedCacheLocator
from numba.core.dispatcher import Dispatcher

from solvers.data_files import ROOT

SOURCE_PACKAGES = ("solvers", "pdb_build")
# what a module imports (a name or any module below it) to be a kernel module: numba and
# llvmlite, and the modules through which kernels are made (the decorators) and generated (the
# intrinsics, the kinds' dispatch)
KERNEL_IMPORTS = ("numba", "llvmlite", "solvers.jit", "solvers.bits", "solvers.heuristics.dispatch")
# the libraries whose classes argument types may name: their versions are in the key
VERSIONED_LIBRARIES = ("builtins", "numpy", "numba", "llvmlite")
# numba.config names whose values change generated code (numba's own cache keys on none of them)
CODE_SETTINGS = ("BOUNDSCHECK", "OPT", "DEBUGINFO_DEFAULT", "LOOP_VECTORIZE", "SLP_VECTORIZE", "ENABLE_AVX",
                 "CPU_NAME", "CPU_FEATURES", "EXTEND_VARIABLE_LIFETIMES", "FASTMATH")
PARENT_VARIABLE = "TILEPDB_KERNEL_CACHE"
PARENT_NAME = "tilepdb-kernels"
FORMER_PARENT = ("solvers", "__pycache__", "kernels")  # below ROOT: where earlier versions cached
STALE_AFTER = 24 * 3600  # seconds since its last use after which another key's folder is removed
# what reading a damaged index, or one naming a module this process cannot import, raises
UNREADABLE_INDEX = (OSError, EOFError, ValueError, ImportError, AttributeError, pickle.UnpicklingError)

# an import statement: at a line's start (any indentation) or after `;` or `:` (`try: import x`);
# its names in parentheses over several lines, or on one line continued by backslashes
_LINE = r"(?:[^\n;\\]|\\[\s\S])*"  # to the line's end or a `;`, past backslashes that continue it
_IMPORT = re.compile(
    rf"(?:^|[;:])[ \t]*(?:from[ \t]+(?P<base>\.*[\w.]*)[ \t]+import[ \t]*(?P<names>\([^)]*\)|{_LINE})"
    rf"|import[ \t]+(?P<modules>{_LINE}))",
    re.MULTILINE)


def package_sources() -> dict[str, tuple[Path, bytes]]:
    """Every module of SOURCE_PACKAGES: its file and source by dotted name (a package by its
    `__init__.py`)."""
    found = {}
    for package in SOURCE_PACKAGES:
        for folder, subfolders, names in os.walk(ROOT / package):
            subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
            for name in names:
                if not name.endswith(".py") or name.startswith("."):
                    continue
                path = Path(folder) / name
                parts = path.relative_to(ROOT).with_suffix("").parts
                try:
                    found[".".join(parts[:-1] if name == "__init__.py" else parts)] = (path, path.read_bytes())
                except OSError:  # removed meanwhile (a checkout switching branches): left out
                    continue
    return found


def imported_names(module: str, is_package: bool, source: bytes) -> set[str]:
    """The dotted names that the import statements of `module` may import, with their parents
    (`from a.b import c` gives a, a.b and a.b.c, whether c is a module or a name)."""
    names = set()
    package = module if is_package else module.rpartition(".")[0]
    for found in _IMPORT.finditer(source.decode("utf-8", "replace")):
        if found["modules"] is not None:
            names |= {_first_word(item) for item in _items(found["modules"])}
            continue
        base = found["base"].lstrip(".")
        level = len(found["base"]) - len(base)
        if level:
            anchor = package.split(".")[:len(package.split(".")) - level + 1]
            base = ".".join(anchor + ([base] if base else []))
        names |= {base} | {f"{base}.{_first_word(item)}" for item in _items(found["names"])}
    return {".".join(parts[:end]) for parts in (name.split(".") for name in names if name)
            for end in range(1, len(parts) + 1)}


def _items(text: str) -> list[str]:
    text = re.sub(r"#[^\n]*", "", text).replace("\\\n", " ").strip().strip("()")
    return [item for item in text.split(",") if item.strip()]


def _first_word(item: str) -> str:
    return item.split()[0]


def kernel_modules(sources: dict[str, tuple[Path, bytes]]) -> set[str]:
    """The names of the kernel modules among `sources` (package_sources): those importing
    KERNEL_IMPORTS, the package modules they import, transitively, and the packages of all."""
    imports = {module: imported_names(module, path.name == "__init__.py", source)
               for module, (path, source) in sources.items()}
    found = {module for module, names in imports.items()
             if any(name == root or name.startswith(root + ".") for name in names for root in KERNEL_IMPORTS)}
    waiting = list(found)
    while waiting:
        module = waiting.pop()
        packages = {module.rsplit(".", depth)[0] for depth in range(1, module.count(".") + 1)}
        for other in (imports[module] | packages) & (sources.keys() - found):
            found.add(other)
            waiting.append(other)
    return found


def cache_key() -> str:
    """The digest of everything the compiled code depends on (see the module docstring)."""
    return _keyed(package_sources())[0]


def _keyed(sources: dict[str, tuple[Path, bytes]]) -> tuple[str, dict[str, str]]:
    """The key of `sources`, and the digest of each kernel module's source by its name."""
    digest = hashlib.sha256()
    versions = (sys.version, platform.machine(), numpy.__version__, numba.__version__, llvmlite.__version__)
    settings = tuple(f"{name}={getattr(numba.config, name, None)!r}" for name in CODE_SETTINGS)
    for part in (*versions, *settings):
        digest.update(part.encode() + b"\0")
    modules = {module: hashlib.sha256(sources[module][1]).hexdigest() for module in sorted(kernel_modules(sources))}
    for module, source_digest in modules.items():
        digest.update(f"{module}={source_digest}".encode() + b"\0")
    return digest.hexdigest()[:20], modules


@functools.cache
def _this_process() -> tuple[str, dict[str, str], dict[Path, str]]:
    """The key as this process read the sources first, the digest of each kernel module's source
    then read by its name, and the kernel modules by their files: what every kernel compiled in
    this process is filed and checked under."""
    sources = package_sources()
    key, modules = _keyed(sources)
    return key, modules, {sources[module][0].resolve(): module for module in modules}


def in_key(thing) -> bool:
    """Whether `thing` (a class, a function or a numba dispatcher) is defined in a kernel module."""
    module = getattr(getattr(thing, "py_func", thing), "__module__", None)
    return module in _this_process()[1]


# classes with kernels registered for them from outside the kernel modules (note_kernels);
# written at registration, when a module is imported, and only read afterwards
_OUTSIDE_KERNELS: set[type] = set()


def note_kernels(data_class: type, *functions) -> None:
    """Record the kernels registered for `data_class` (a reader, an evaluation): where the class
    or any of `functions` comes from outside the kernel modules, the key does not cover them."""
    if not all(in_key(f) for f in (data_class, *functions)):
        _OUTSIDE_KERNELS.add(data_class)


def cacheable_data(data) -> bool:
    """Whether kernels compiled for `data` (a kind's nested tuples of arrays and numbers) may be
    cached under the key: every named tuple in it is of a kernel module's class with no kernels
    registered for it from outside."""
    if not isinstance(data, tuple):
        return True
    kind = type(data)
    if kind is not tuple and (not in_key(kind) or kind in _OUTSIDE_KERNELS):
        return False
    return all(cacheable_data(item) for item in data)


def covered_types(value, own_module: str) -> bool:
    """Whether every class and function that the numba type `value` (or a tuple of them) names
    by identity is covered: by the key (a kernel module's, with no kernels registered for it
    from outside), by the versions (VERSIONED_LIBRARIES), or by numba's check of the source of
    `own_module` (the compiled kernel's module)."""
    if isinstance(value, numba_types.Dispatcher):
        value = value.dispatcher
    if isinstance(value, Dispatcher):
        value = value.py_func
    if isinstance(value, numba_types.Type):
        return covered_types(value.key, own_module)
    if isinstance(value, (tuple, list, frozenset)):
        return all(covered_types(item, own_module) for item in value)
    if isinstance(value, (type, types.FunctionType)):
        module = getattr(value, "__module__", None) or ""
        return (module == own_module or module.partition(".")[0] in VERSIONED_LIBRARIES
                or (in_key(value) and value not in _OUTSIDE_KERNELS))
    return True


def cache_parent() -> Path | None:
    """The folder that holds the keys' folders (see the module docstring); None without a home
    folder."""
    if os.environ.get(PARENT_VARIABLE):
        return Path(os.environ[PARENT_VARIABLE])
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]) / PARENT_NAME
    user_cache = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(user_cache):  # unset, or relative: which the XDG specification says to ignore
        try:
            user_cache = Path.home() / ".cache"
        except RuntimeError:  # no home folder
            return None
    return Path(user_cache) / PARENT_NAME


@functools.cache
def cache_folder() -> Path | None:
    """This process's cache folder (created and touched), or None where the parent is not
    writable. Removes the folders of other keys that were not used for STALE_AFTER seconds."""
    parent, key = cache_parent(), _this_process()[0]
    if parent is None:
        return None
    folder = parent / key
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return None
    _remove_stale_folders(parent, key)
    return folder


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
    """numba's locator of a kernel's files in the key's folder: a kernel module's kernel under its
    package's dotted name, checked against the digest of its module's source as the key read it;
    another file's kernel as numba files it, under its file's path, checked against its content."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        _, digests, files = _this_process()
        self._module = files.get(Path(py_file).resolve())
        if self._module is None:
            self._cache_path = str(cache_folder() / self.get_suitable_cache_subpath(py_file))
        else:
            self._cache_path = str(cache_folder() / self._module.rpartition(".")[0])
            self._stamp = digests[self._module]

    def get_source_stamp(self):
        return super().get_source_stamp() if self._module is None else self._stamp

    @classmethod
    def from_function(cls, py_func, py_file):
        if cache_folder() is None or not os.path.exists(py_file) or _outside_the_key(py_file):
            return None
        locator = cls(py_func, py_file)
        try:
            locator.ensure_cache_path()
        except OSError:
            return None
        return locator


def _outside_the_key(py_file: str) -> bool:
    """Whether `py_file` is a module of the packages that is not a kernel module."""
    path = Path(py_file).resolve()
    return path not in _this_process()[2] and any(path.is_relative_to(ROOT / package) for package in SOURCE_PACKAGES)


class _KeyedCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_KeyedLocator]


class _KeyedFunctionCache(FunctionCache):
    """numba's cache of a function's compiled code in the key's folder. A cache is an aid, never
    a condition: an index that cannot be read (damaged, or naming a module this process cannot
    import) is a miss, and code that cannot be saved (a full disk, a quota, a folder removed
    meanwhile) is not saved. Code compiled for argument types that name what the key does not
    cover (covered_types) is neither loaded nor saved."""

    _impl_class = _KeyedCacheImpl

    def _covers(self, sig) -> bool:
        return covered_types(getattr(sig, "args", sig), self._py_func.__module__)

    def load_overload(self, sig, target_context):
        if not self._covers(sig):
            return None
        try:
            return super().load_overload(sig, target_context)
        except UNREADABLE_INDEX:
            return None

    def save_overload(self, sig, data):
        if not self._covers(sig):
            return
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
    where the JIT is disabled (a plain function), no folder is writable or its function is defined
    in a package module outside the key."""
    if isinstance(compiled, Dispatcher) and cache_folder() is not None:
        try:
            compiled._cache = _KeyedFunctionCache(compiled.py_func)
        except RuntimeError:  # numba's "no locator available": unwritable, or outside the key
            pass
    return compiled


def cached_folders() -> list[Path]:
    """Every key's folder in the parent (this key's too), and in the folder beside the sources
    where earlier versions cached."""
    parents = [parent for parent in (cache_parent(), ROOT.joinpath(*FORMER_PARENT)) if parent is not None]
    return sorted(folder for parent in parents if parent.is_dir() for folder in parent.iterdir())
