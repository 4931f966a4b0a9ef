"""jit.py -- the one compile policy for every numba kernel in tilepdb, and its on-disk cache.

Kernels are decorated with `kernel` (or `parallel_kernel`, `inline_kernel`) and never pass
numba options themselves: integer code never uses fastmath, the GIL is released so that threads
can run kernels side by side, and compiled code is cached on disk in a folder keyed on every
source it may depend on (kernel_cache.py), so no cached kernel outlives an edit of any module.
`python -m solvers.jit --clear-cache` deletes the cached kernels (to reclaim the space).
"""

import argparse
import functools
import shutil
import sys
from pathlib import Path

import numba

from solvers import wording
from solvers.data_files import ROOT, in_checkout
from solvers.kernel_cache import cache_on_disk, cached_folders

KERNEL_OPTIONS = {"fastmath": False, "nogil": True}  # the disk cache is kernel_cache's
JIT_ENABLED = not numba.config.DISABLE_JIT  # NUMBA_DISABLE_JIT=1 runs every kernel as plain Python


def kernel(function):
    """Compile `function` as a nopython numba kernel under the project's policy. It keeps numba's
    reference counting (it may allocate arrays) even where a `inline_kernel`, which has none,
    calls it: numba would otherwise give it its caller's setting."""
    return cache_on_disk(numba.njit(_nrt=True, **KERNEL_OPTIONS)(function))


def parallel_kernel(function):
    """Like `kernel`, with numba's `prange` loops run on all threads."""
    return cache_on_disk(numba.njit(parallel=True, **KERNEL_OPTIONS)(function))


def inline_kernel(function):
    """Like `kernel`, for the small per-node helpers of the search kernels (heuristic kinds,
    their readers and views, the search rules): numba compiles it once for each set of argument
    types, and LLVM inlines it into every kernel that calls it (numba's `forceinline`), so a
    call costs nothing at run time and a search compiled for a new heuristic reuses the helpers
    already compiled (or cached) for another.

    Compiled without numba's reference counting: an array passed to a function that LLVM
    inlines keeps an increment and a decrement that numba's pruning no longer pairs, at every
    call, which cost linear conflict most of its speed. So an inline kernel must not allocate
    (numba refuses it at compile time: "Only accept returning of array passed into the function
    as argument"); what allocates is a `kernel`, called from it."""
    return cache_on_disk(numba.njit(forceinline=True, _nrt=False, **KERNEL_OPTIONS)(function))


def address_kernel(function):
    """Like `inline_kernel`, for the kernels that others call by their native address
    (solvers/by_address.py: a heuristic's evaluations, a bidirectional rule's kernels): compiled
    once per type of the data it serves, without numba's reference counting, and never inlined
    (its callers are compiled without knowing it)."""
    return cache_on_disk(numba.njit(_nrt=False, **KERNEL_OPTIONS)(function))


@functools.cache
def uncached(compiled):
    """`compiled` (a kernel, with its options) recompiled without the disk cache: for arguments whose numba type
    cannot be found again in another process (a user's function inside a heuristic), which
    would otherwise add files to the cache at every run. With NUMBA_DISABLE_JIT=1, `compiled` is
    the plain function and is returned as it is."""
    if not hasattr(compiled, "py_func"):
        return compiled
    options = {name: value for name, value in compiled.targetoptions.items() if name != "nopython"}  # njit's own
    return numba.njit(**options)(compiled.py_func)


def in_tree_cache_files() -> list[Path]:
    """numba's own cache files (index `*.nbi`, code `*.nbc`) in the __pycache__ folders beside the
    sources, left by versions of tilepdb that cached there (never read any more)."""
    folders = ["solvers", "pdb_build", *(["tests", "scripts"] if in_checkout() else [])]  # installed: not ours
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("__pycache__/*.nb[ic]"))


def clear_cache_main(argv: list[str] | None = None) -> int:
    """`python -m solvers.jit --clear-cache`: delete the cached kernels; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m solvers.jit", description="tilepdb's cache of compiled kernels")
    parser.add_argument("--clear-cache", action="store_true", required=True,
                        help="delete the cached kernels; each is compiled again on its next use")
    parser.parse_args(argv)
    folders, files = cached_folders(), in_tree_cache_files()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    for path in files:
        path.unlink(missing_ok=True)
    places = sorted({str(folder.parent) for folder in folders})
    print(f"removed {wording.count(len(folders), 'cache folder')}{' in ' + ', '.join(places) if places else ''}"
          f" and {wording.count(len(files), 'cached kernel file')} beside the sources")
    return 0


if __name__ == "__main__":
    sys.exit(clear_cache_main())
