"""verify_encoded.py -- check an encoded (build-pdb --compress) file against a fresh rebuild.

An encoded table cannot be checked entry by entry the way verify.py checks a plain or
zero-aware one: min:K entries are minima over merged blocks and delta entries single bits.
So the tables are built again from the file's board, goal, partition and kind (the builder's
BFS, as build-pdb runs it), encoded as the file says (compress.py), and compared byte for
byte with the stored tables; the first difference is reported with the uncompressed entries
it stands for. This is as costly as the build, in time and memory; plain and zero-aware
files keep verify.py's independent invariant checks.
"""

from __future__ import annotations

import math

import numpy as np

from pdb_build.build import build_tables, plan_build
from pdb_build.compress import compress, stored_values
from pdb_build.store import ZERO_AWARE, PatternDatabase


def first_difference(database: PatternDatabase, *, progress: bool = False) -> tuple[str | None, int]:
    """(None when every stored table equals the encoding of a rebuilt one, else one line naming
    the first table and stored entry that differ; the uncompressed entries compared)."""
    plan = plan_build(database.puzzle, database.partition, zero_aware=database.table_kind == ZERO_AWARE)
    rebuilt = build_tables(plan, progress=progress)
    compression = database.compression
    compared = 0
    for number, (pattern, stored, table) in enumerate(zip(database.partition.patterns, database.tables, rebuilt)):
        factorial_k = math.factorial(len(pattern))
        expected = compress(table.table, factorial_k, compression)
        if np.array_equal(stored, expected):
            compared += table.table.size
            continue
        n_stored = compression.stored_entries(table.table.size // factorial_k, factorial_k)
        ours, theirs = stored_values(stored, n_stored, compression), stored_values(expected, n_stored, compression)
        entry = int(np.flatnonzero(ours != theirs)[0])
        block, order = divmod(entry, factorial_k)
        first = (block << compression.merge_shift) * factorial_k + order
        merged = "" if compression.merge == 1 else (
            f" (the minimum over {compression.merge} blocks from uncompressed entry {first:,} on, step {factorial_k:,})")
        return (f"table {number} (tiles {','.join(map(str, pattern))}): stored entry {entry:,}{merged} holds "
                f"{int(ours[entry])}, a rebuild encoded as {compression.name} holds {int(theirs[entry])}"), compared
    return None, compared
