"""bench_startup.py -- seconds from a command's start to its answer, with the kernel cache cold and warm.

Runs `solve-puzzle "8 6 7 2 5 4 3 0 1" --heuristic manhattan --algorithm A` (a 31-move 8-puzzle:
its search takes a few milliseconds, so the figure is start-up: imports, the cache key, loading
or compiling the kernels) in fresh processes: once with NUMBA_CACHE_DIR set to an empty folder
(cold: every kernel compiled) and then --runs times with that folder kept (warm: every kernel
loaded), for IDA* and A*. Prints and writes results/bench_startup.csv (median and range).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from solvers.atomic import write_csv
from solvers.cli_support import run_guarded

ROOT = Path(__file__).resolve().parent.parent
COMMAND = "import sys; from solvers.cli import solve_puzzle_main; sys.exit(solve_puzzle_main(sys.argv[1:]))"
START = "8 6 7 2 5 4 3 0 1"


def _seconds(algorithm: str, cache: str) -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", COMMAND, START, "--heuristic", "manhattan", "--algorithm", algorithm],
                   check=True, capture_output=True, env={**os.environ, "NUMBA_CACHE_DIR": cache})
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="warm runs per search (default 10)")
    args = parser.parse_args()
    rows = []
    for algorithm in ("ida", "astar"):
        with tempfile.TemporaryDirectory() as cache:
            cold = _seconds(algorithm, cache)
            warm = [_seconds(algorithm, cache) for _ in range(args.runs)]
        rows.append({"algorithm": algorithm, "cold_seconds": f"{cold:.2f}",
                     "warm_median_seconds": f"{statistics.median(warm):.3f}",
                     "warm_min_seconds": f"{min(warm):.3f}", "warm_max_seconds": f"{max(warm):.3f}",
                     "machine": platform.processor() or platform.machine()})
        print(f"{algorithm}: cold {cold:.2f} s, warm median {statistics.median(warm):.3f} s "
              f"({min(warm):.3f}-{max(warm):.3f}, {args.runs} runs)", flush=True)
    write_csv(ROOT / "results" / "bench_startup.csv", rows)  # the folder is created if needed
    return 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench_startup.py", main))
