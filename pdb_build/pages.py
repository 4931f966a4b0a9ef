"""pages.py -- memory for large read-mostly tables, backed by huge pages where the OS allows.

A PDB lookup is a random read into gigabytes of tables; with 4 KiB pages nearly every read
also misses the TLB and walks the page tables. Memory from `table_memory` is an anonymous
mapping advised MADV_HUGEPAGE (Linux transparent huge pages, 2 MiB pages), so the same reads
need about 500 times fewer TLB entries. Where the advice is not available (another OS, THP
set to "never") the mapping is ordinary memory: only the speed differs, never the contents.
"""

from __future__ import annotations

import mmap

import numpy as np

HUGE_PAGE = 2 << 20


def table_memory(n_bytes: int) -> np.ndarray:
    """A writable, zero-filled uint8 array of `n_bytes`, advised to live on huge pages."""
    size = max(HUGE_PAGE, -(-n_bytes // HUGE_PAGE) * HUGE_PAGE)
    if hasattr(mmap, "MAP_PRIVATE"):  # POSIX: private, so that transparent huge pages apply
        mapping = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    else:  # Windows: anonymous memory, ordinary pages
        mapping = mmap.mmap(-1, size)
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is not None:
        try:
            mapping.madvise(advice)
        except OSError:  # THP disabled: ordinary pages
            pass
    return np.frombuffer(mapping, dtype=np.uint8, count=n_bytes)
