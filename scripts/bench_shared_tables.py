"""bench_shared_tables.py -- load time of a PDB file's tables, and the memory of processes that share them.

For each table set found in data/pdbs/ (Korf's 7-8 for the 15-puzzle; Korf & Felner's 6-6-6-6
zero-aware for the 24-puzzle; build them with build-pdb first), in fresh processes:

  load      seconds of `load_partition` (the file's tables mapped and every checksum computed),
            twice: the first from wherever the operating system holds the file, the next from
            its page cache
  memory    1, 2 and 4 processes started together, each loading `pdb:FILE+reflect` and solving
            one instance by IDA* (15-puzzle: Korf's instance 1; 24-puzzle: Korf & Felner's
            instance 38, the easiest); once all have solved, the sum of their proportional set
            sizes (PSS: a page shared by n processes counts 1/n in each) and of their RSS

Writes results/bench_shared_tables.csv and prints the rows.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

from solvers.atomic import write_csv
from solvers.cli_support import run_guarded

ROOT = Path(__file__).resolve().parent.parent
SETS = {  # file in data/pdbs -> (instance file, instance number)
    "4x4-blank-first-7-8.h5": ("korf100.txt", 1),
    "5x5-blank-first-6-6-6-6-zero-aware.h5": ("korf24-50.txt", 38),
}
LOAD = """
import sys, time
from pdb_build.store import load_partition
began = time.perf_counter()
load_partition(sys.argv[1])
print(time.perf_counter() - began)
"""
SOLVE = """
import sys
from solvers.heuristics import from_spec
from solvers.instances import load_instances
from solvers.solve import solve
puzzle, instances = load_instances(sys.argv[2])
heuristic = from_spec(puzzle, f"pdb:{sys.argv[1]}+reflect").with_kernels(True)
result = solve(puzzle, instances[int(sys.argv[3]) - 1].start, "ida", heuristic)
print(result.length, flush=True)
sys.stdin.readline()
"""


def _memory(pid: int) -> tuple[int, int]:
    """(PSS, RSS) of process `pid` in bytes, from /proc/PID/smaps_rollup."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value, *_ = line.split()
        fields[name.rstrip(":")] = int(value) * 1024
    return fields["Pss"], fields["Rss"]


def _load_seconds(path: Path) -> float:
    done = subprocess.run([sys.executable, "-c", LOAD, str(path)], check=True, capture_output=True, text=True,
                          cwd=ROOT)
    return float(done.stdout)


def _shared_memory(path: Path, instances: Path, number: int, n_processes: int) -> tuple[int, int, float]:
    """(summed PSS, summed RSS, wall seconds) of n processes solving the instance together."""
    began = time.perf_counter()
    children = [subprocess.Popen([sys.executable, "-c", SOLVE, str(path), str(instances), str(number)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
                for _ in range(n_processes)]
    try:
        for child in children:
            if not child.stdout.readline().strip():
                raise RuntimeError("a solving process ended without a solution")
        wall = time.perf_counter() - began
        pss, rss = (sum(values) for values in zip(*(_memory(child.pid) for child in children)))
    finally:
        for child in children:
            child.communicate("\n")
    return pss, rss, wall


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    rows = []
    for name, (instance_file, number) in SETS.items():
        path = ROOT / "data" / "pdbs" / name
        if not path.is_file():
            print(f"{name}: not in data/pdbs, skipped", flush=True)
            continue
        loads = [_load_seconds(path), _load_seconds(path)]
        row = {"tables": name, "first_load_seconds": f"{loads[0]:.2f}", "next_load_seconds": f"{loads[1]:.2f}"}
        for n in (1, 2, 4):
            pss, rss, wall = _shared_memory(path, ROOT / "data" / instance_file, number, n)
            row.update({f"pss_{n}_mib": f"{pss / 2**20:.0f}", f"rss_{n}_mib": f"{rss / 2**20:.0f}",
                        f"wall_{n}_seconds": f"{wall:.1f}"})
        row["machine"] = platform.processor() or platform.machine()
        print(json.dumps(row), flush=True)
        rows.append(row)
    if rows:
        write_csv(ROOT / "results" / "bench_shared_tables.csv", rows)  # the folder is created if needed
    return 0


if __name__ == "__main__":
    sys.exit(run_guarded("bench_shared_tables.py", main))
