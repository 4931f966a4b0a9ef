"""jit.py -- the one compile policy for every numba kernel in tilepdb.

Kernels are decorated with `kernel` (or `parallel_kernel`) and never pass numba options
themselves: compiled code is cached on disk (`cache=True`), integer code never uses
fastmath, and the GIL is released so that threads can run kernels side by side.
"""

import functools

import numba

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
