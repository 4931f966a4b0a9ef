"""bench_build.py -- build speed, memory, file size and load time of the preset PDBs.

Builds the 4x4 5-5-5, 6-6-3 and 7-8 partitions and the 5x5 6-6-6-6 partition for Korf's
blank-first goal, each in a fresh process (so that its peak resident memory is its own),
then loads each file, verified, in another fresh process. Prints per table: entries,
seconds, entries/second; per file: peak resident memory, file size, load time. Writes the
figures to results/bench_build.csv. Files go to data/pdbs/ (kept for the solvers).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from solvers.atomic import write_csv

ROOT = Path(__file__).resolve().parent.parent
PARTITIONS = [("4x4", "5-5-5"), ("4x4", "6-6-3"), ("4x4", "7-8"), ("5x5", "6-6-6-6")]


def blank_first(board: str) -> str:
    rows, cols = map(int, board.split("x"))
    return " ".join(map(str, range(rows * cols)))


def build_one(board: str, name: str, out: str) -> None:
    """Child: warm up the kernels, build one partition, print its figures as JSON."""
    from pdb_build.build import build_pdb_file, plan_build
    from pdb_build.partitions import preset
    from solvers.puzzle import Puzzle, parse_board

    warm = Puzzle(3, 3)
    build_pdb_file(plan_build(warm, preset(warm, "4-4")), Path(out).with_suffix(".warmup.h5"), force=True)
    Path(out).with_suffix(".warmup.h5").unlink()
    puzzle = Puzzle(*parse_board(board), blank_first(board))
    plan = plan_build(puzzle, preset(puzzle, name))
    began = time.perf_counter()
    path, built = build_pdb_file(plan, out, force=True, progress=sys.stderr.isatty())
    print(json.dumps({
        "tables": [{"tiles": list(t.pattern), "entries": int(t.table.size), "seconds": t.seconds} for t in built],
        "total_seconds": time.perf_counter() - began,
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "file_bytes": path.stat().st_size,
    }))


def load_one(board: str, out: str) -> None:
    """Child: load one file with full verification, print the seconds as JSON."""
    from pdb_build.store import load_partition
    from solvers.puzzle import Puzzle, parse_board

    puzzle = Puzzle(*parse_board(board), blank_first(board))
    began = time.perf_counter()
    load_partition(out, puzzle)
    print(json.dumps({"load_seconds": time.perf_counter() - began}))


def child(*args: str) -> dict:
    done = subprocess.run([sys.executable, __file__, *args], stdout=subprocess.PIPE, check=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="build only these (e.g. 4x4:7-8); repeatable")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_build.csv"))
    args = parser.parse_args()
    chosen = [p for p in PARTITIONS if not args.only or f"{p[0]}:{p[1]}" in args.only]
    rows = []
    for board, name in chosen:
        out = str(ROOT / "data" / "pdbs" / f"{board}-blank-first-{name}.h5")
        built = child("--build-one", board, name, out)
        loaded = child("--load-one", board, out)
        for table in built["tables"]:
            rows.append({
                "board": board, "partition": name, "tiles": ",".join(map(str, table["tiles"])),
                "entries": table["entries"], "seconds": round(table["seconds"], 2),
                "entries_per_second": round(table["entries"] / table["seconds"]),
                "peak_rss_mib": round(built["peak_rss_bytes"] / 2**20),
                "file_mib": round(built["file_bytes"] / 2**20, 1),
                "load_seconds": round(loaded["load_seconds"], 2),
            })
    print(f"{'partition':<14} {'tiles':<24} {'entries':>13} {'seconds':>8} {'M entries/s':>11} "
          f"{'peak RSS MiB':>12} {'file MiB':>9} {'load s':>7}")
    for r in rows:
        print(f"{r['board'] + ' ' + r['partition']:<14} {r['tiles']:<24} {r['entries']:>13,} {r['seconds']:>8.2f} "
              f"{r['entries_per_second'] / 1e6:>11.2f} {r['peak_rss_mib']:>12,} {r['file_mib']:>9} {r['load_seconds']:>7}")
    out = write_csv(args.out, rows)
    print(f"wrote {out}; {time.strftime('%Y-%m-%d')}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--build-one":
        build_one(*sys.argv[2:5])
    elif len(sys.argv) > 1 and sys.argv[1] == "--load-one":
        load_one(*sys.argv[2:4])
    else:
        sys.exit(main())
