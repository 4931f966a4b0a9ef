"""bench_codecs.py -- which of store.py's codecs loads the 4x4 7-8 PDB file fastest: zstd, gzip, none.

Rewrites every table of data/pdbs/4x4-blank-first-7-8.h5 (576,576,000 entries; built first if
missing) with each codec through store.write_partition, then times store.load_partition (read,
decompress, SHA-256 of every table) three times each: from disk (the file dropped from the
page cache with posix_fadvise) and from the page cache. Writes the figures to
results/bench_codecs.csv; the default codec of build-pdb is the fastest.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import h5py

from pdb_build.bfs import BuiltTable
from pdb_build.build import load_or_build
from pdb_build.partitions import preset
from pdb_build.store import CODECS, load_partition, write_partition
from solvers.atomic import write_csv
from solvers.puzzle import Puzzle

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "data" / "pdbs" / "4x4-blank-first-7-8.h5"
REPEATS = 3


def drop_from_page_cache(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
        os.posix_fadvise(descriptor, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(descriptor)


def timed_load(path: Path, cold: bool) -> float:
    if cold:
        drop_from_page_cache(path)
    began = time.perf_counter()
    load_partition(path)
    return time.perf_counter() - began


def main() -> None:
    puzzle = Puzzle(4, 4, list(range(16)))
    database = load_or_build(puzzle, preset(puzzle, "7-8"), SOURCE, progress=sys.stderr.isatty())
    with h5py.File(SOURCE) as handle:
        built = [
            BuiltTable(pattern, True, table, tuple(handle[f"pattern_{i}"].attrs["level_sizes"]),
                       float(handle[f"pattern_{i}"].attrs["build_seconds"]))
            for i, (pattern, table) in enumerate(zip(database.partition.patterns, database.tables))
        ]
    del database
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for codec in CODECS:
            path = Path(folder) / f"7-8-{codec}.h5"
            began = time.perf_counter()
            write_partition(path, puzzle, preset(puzzle, "7-8"), built, codec=codec)
            written = time.perf_counter() - began
            cold = min(timed_load(path, cold=True) for _ in range(REPEATS))
            warm = min(timed_load(path, cold=False) for _ in range(REPEATS))
            rows.append({"codec": codec, "write_seconds": round(written, 2), "load_from_disk_seconds": round(cold, 2),
                         "load_from_page_cache_seconds": round(warm, 2), "file_mib": round(path.stat().st_size / 2**20, 1)})
            print(f"{codec:<5} write {written:6.2f} s  load from disk {cold:6.2f} s  from page cache {warm:6.2f} s  "
                  f"{rows[-1]['file_mib']:7.1f} MiB", flush=True)
            path.unlink()
    out = write_csv(ROOT / "results" / "bench_codecs.csv", rows)
    print(f"wrote {out}; {time.strftime('%Y-%m-%d')}")


if __name__ == "__main__":
    main()
