"""jit.py -- the one compile policy for every numba kernel in tilepdb.

Kernels are decorated with `kernel` (or `parallel_kernel`) and never pass numba options
themselves: compiled code is cached on disk (`cache=True`), integer code never uses
fastmath, and the GIL is released so that threads can run kernels side by side.
"""

import numba

KERNEL_OPTIONS = {"cache": True, "fastmath": False, "nogil": True}


def kernel(function):
    """Compile `function` as a nopython numba kernel under the project's policy."""
    return numba.njit(**KERNEL_OPTIONS)(function)


def parallel_kernel(function):
    """Like `kernel`, with numba's `prange` loops run on all threads."""
    return numba.njit(parallel=True, **KERNEL_OPTIONS)(function)


def inline_kernel(function):
    """Like `kernel`, inlined into its callers by numba: for the small per-node helpers that
    take a whole KernelHeuristic tuple, which would otherwise be copied at every call."""
    return numba.njit(inline="always", **KERNEL_OPTIONS)(function)
