"""jit.py -- the one compile policy for every numba kernel in tilepdb, and its on-disk cache.

Kernels are decorated with `kernel` (or `parallel_kernel`) and never pass numba options
themselves: compiled code is cached on disk (`cache=True`), integer code never uses
fastmath, and the GIL is released so that threads can run kernels side by side.

numba checks a cached kernel against its own source file only, so after an edit to a module
whose kernels another module's kernels inline or call, the callers' cached code is stale:
`python -m solvers.jit --clear-cache` deletes the cached kernels (README, *Numba kernels*).
"""

import argparse
import functools
import os
import sys
from pathlib import Path

import warnings

import numba
from numba.core.errors import NumbaIRAssumptionWarning

# numba's pedantic SSA check warns about variables of inlined kernels ("... is not in scope")
# that its own passes handle; the code is correct (the tests compare every kernel with a naive
# twin), and users should not see numba's request to report it.
warnings.filterwarnings("ignore", category=NumbaIRAssumptionWarning)

from solvers.data_files import ROOT, in_checkout

KERNEL_OPTIONS = {"cache": True, "fastmath": False, "nogil": True}


def kernel(function):
    """Compile `function` as a nopython numba kernel under the project's policy."""
    return numba.njit(**KERNEL_OPTIONS)(function)


def parallel_kernel(function):
    """Like `kernel`, with numba's `prange` loops run on all threads."""
    return numba.njit(parallel=True, **KERNEL_OPTIONS)(function)


def inline_kernel(function):
    """Like `kernel`, inlined into its callers by numba: for the small per-node helpers of the
    search kernels (heuristic kinds, dispatch), which would otherwise cost a call and copies
    of their tuple arguments at every node."""
    return numba.njit(inline="always", **KERNEL_OPTIONS)(function)


@functools.cache
def uncached(compiled):
    """`compiled` (a `kernel`) recompiled without the disk cache: for arguments whose numba type
    cannot be found again in another process (a user's function inside a heuristic), which
    would otherwise add files to the cache at every run."""
    options = {key: value for key, value in KERNEL_OPTIONS.items() if key != "cache"}
    return numba.njit(**options)(compiled.py_func)


def cache_files() -> list[Path]:
    """numba's cache files (index *.nbi, code *.nbc) in the __pycache__ folders of the packages,
    and in a checkout also of tests/ and scripts/."""
    folders = ["solvers", "pdb_build", *(["tests", "scripts"] if in_checkout() else [])]
    return sorted(path for folder in folders for path in (ROOT / folder).rglob("__pycache__/*.nb[ic]"))


def clear_cache_main(argv: list[str] | None = None) -> int:
    """`python -m solvers.jit --clear-cache`: delete the cached kernels; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m solvers.jit", description="tilepdb's cache of compiled kernels")
    parser.add_argument("--clear-cache", action="store_true", required=True,
                        help="delete the cached kernels; each is compiled again on its next use")
    parser.parse_args(argv)
    removed = cache_files()
    for path in removed:
        path.unlink(missing_ok=True)
    print(f"removed {len(removed)} cached kernel files under {ROOT}")
    if os.environ.get("NUMBA_CACHE_DIR"):
        print(f"NUMBA_CACHE_DIR is set: numba caches in {os.environ['NUMBA_CACHE_DIR']} instead; "
              "empty it or point it at a fresh folder")
    return 0


if __name__ == "__main__":
    sys.exit(clear_cache_main())
