"""bench_compression.py -- the 15-puzzle 7-8 partition as plain, zero-aware and every encoding.

Builds (once, into data/pdbs/) the 7-8 preset for the blank-first goal plain and zero-aware,
encodes them with `build-pdb --from` (pdb_build.build.encode_pdb_file) as min:2, min:4 and
nibble (plain), delta and min:2 (zero-aware), and prints per file: file size, table memory
(bytes held in RAM) and bits per entry of the uncompressed table, the growth of the process's
resident memory and the seconds of loading it (verified, warm page cache), the mean h over
--states uniform random states (seed 1; without reflection), and Korf's 100 with reflection
on --jobs processes (mean nodes generated, seconds of search, wall seconds; every length
checked against the published optimum). An encoding a table cannot take (nibble of values
above 15) is reported as refused, with the reason. Figures go to results/bench_compression.csv.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np

from pdb_build.build import built_file
from pdb_build.partitions import preset
from pdb_build.store import PLAIN, ZERO_AWARE, load_partition
from solvers.atomic import write_csv
from solvers.batch import solve_batch
from solvers.cli_support import run_guarded
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.instances import load_instances

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "data" / "pdbs"
ENCODINGS = [(PLAIN, "none"), (PLAIN, "min:2"), (PLAIN, "min:4"), (PLAIN, "nibble"),
             (ZERO_AWARE, "none"), (ZERO_AWARE, "delta"), (ZERO_AWARE, "min:2")]


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure(puzzle, instances, path: Path, states: np.ndarray, jobs: int) -> dict:
    before = resident_bytes()
    began = time.perf_counter()
    database = load_partition(path, puzzle)
    load_seconds = time.perf_counter() - began
    resident = resident_bytes() - before
    entries = sum(_entries(path))
    heuristic = from_spec(puzzle, f"pdb:{path}").with_kernels(True)
    mean_h = float(heuristic.evaluate_many(states).mean())
    out = ROOT / "results" / "bench_compression" / f"{path.stem}.csv"
    out.unlink(missing_ok=True)
    began = time.perf_counter()
    summary = solve_batch(puzzle, instances, from_spec(puzzle, f"pdb:{path}+reflect").with_kernels(True), out, jobs=jobs,
                          progress=sys.stderr.isatty(), report=lambda line: print(line, file=sys.stderr))
    wall = time.perf_counter() - began
    rows = list(csv.DictReader(line for line in out.open() if not line.startswith("#")))
    return {
        "file_mib": round(path.stat().st_size / 2**20, 1), "table_mib": round(database.buffer.nbytes / 2**20, 1),
        "bits_per_entry": round(8 * database.buffer.nbytes / entries, 3),
        "resident_mib": round(resident / 2**20, 1), "load_seconds": round(load_seconds, 2),
        "mean_h": round(mean_h, 3), "korf100_solved": summary.n_solved, "all_optimal": not summary.mismatches,
        "mean_nodes_generated": round(sum(int(r["nodes_generated"]) for r in rows) / len(rows)),
        "search_seconds": round(summary.search_seconds, 2), "wall_seconds": round(wall, 2),
    }


def _entries(path: Path) -> list[int]:
    import h5py

    with h5py.File(path, "r") as handle:
        return [int(handle[f"pattern_{i}"].attrs["entries"]) for i in range(int(handle.attrs["n_patterns"]))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--states", type=int, default=1_000_000, help="random states for the mean h (default 10^6)")
    parser.add_argument("--only", action="append", help="only these encodings, e.g. zero-aware/delta")
    args = parser.parse_args()
    puzzle, instances = load_instances(ROOT / "data" / "korf100.txt")
    partition = preset(puzzle, "7-8")
    rng = np.random.default_rng(1)
    states = np.array([puzzle.random_state(rng) for _ in range(args.states)], dtype=np.uint8)
    table, failed = [], False
    for kind, form in ENCODINGS:
        name = f"{kind}/{form}"
        if args.only and name not in args.only:
            continue
        try:
            row = {"tables": name, **measure(puzzle, instances, built_file(puzzle, partition, FOLDER, table_kind=kind, form=form), states,
                                              args.jobs)}
            failed |= not row["all_optimal"] or row["korf100_solved"] != len(instances)
        except InputError as error:
            row = {"tables": name, "refused": str(error)}
        table.append(row)
        print(row, flush=True)
    print(f"\n7-8 partition, blank-first goal; Korf's 100 with reflection, {args.jobs} processes, "
          f"{time.strftime('%Y-%m-%d')}; mean h over {args.states:,} random states")
    for r in table:
        if "refused" in r:
            print(f"{r['tables']:<18} refused: {r['refused']}")
            continue
        print(f"{r['tables']:<18} file {r['file_mib']:>7} MiB  tables {r['table_mib']:>7} MiB  "
              f"{r['bits_per_entry']:>5} bits/entry  +RSS {r['resident_mib']:>7} MiB  load {r['load_seconds']:>5} s  "
              f"mean h {r['mean_h']:>7}  nodes {r['mean_nodes_generated']:>9,}  search {r['search_seconds']:>6} s  "
              f"wall {r['wall_seconds']:>6} s")
    fields = list(dict.fromkeys(key for row in table for key in row))
    write_csv(ROOT / "results" / "bench_compression.csv", [{f: row.get(f, "") for f in fields} for row in table], fields)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench_compression.py", main))
