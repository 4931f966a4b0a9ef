"""bench_codecs.py -- which HDF5 compression loads a PDB table fastest: none, gzip, lzf, Zstandard, Blosc.

Writes the 7-tile table of the 4x4 7-8 partition (57,657,600 entries, blank-first goal) with
each codec in 4 Mi-entry chunks and times writing and reading it back; writes the figures
to results/bench_codecs.csv. store.py uses the winner.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import h5py
import hdf5plugin
import numpy as np

from pdb_build.build import build_tables, plan_build
from pdb_build.partitions import custom
from solvers.atomic import write_csv
from solvers.puzzle import Puzzle

ROOT = Path(__file__).resolve().parent.parent
CODECS = {
    "none": {},
    "gzip level 1": dict(compression="gzip", compression_opts=1),
    "gzip level 4": dict(compression="gzip", compression_opts=4),
    "lzf": dict(compression="lzf"),
    "zstd level 3": dict(**hdf5plugin.Zstd(clevel=3)),
    "blosc lz4": dict(**hdf5plugin.Blosc(cname="lz4", clevel=5, shuffle=hdf5plugin.Blosc.NOSHUFFLE)),
}


def main() -> None:
    puzzle = Puzzle(4, 4, list(range(16)))
    table = build_tables(plan_build(puzzle, custom(puzzle, ["1,2,3,4,5,6,7"])))[0].table
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, options in CODECS.items():
            path = Path(folder) / "table.h5"
            began = time.perf_counter()
            with h5py.File(path, "w") as handle:
                handle.create_dataset("t", data=table, chunks=(1 << 22,), **options)
            written = time.perf_counter() - began
            began = time.perf_counter()
            with h5py.File(path, "r") as handle:
                back = handle["t"][...]
            read = time.perf_counter() - began
            assert np.array_equal(back, table)
            rows.append({"codec": name, "write_seconds": round(written, 3), "read_seconds": round(read, 3),
                         "file_mib": round(path.stat().st_size / 2**20, 1)})
            print(f"{name:<14} write {written:6.2f} s  read {read:6.2f} s  {rows[-1]['file_mib']:7.1f} MiB")
    out = write_csv(ROOT / "results" / "bench_codecs.csv", rows)
    print(f"wrote {out}; {time.strftime('%Y-%m-%d')}")


if __name__ == "__main__":
    main()
