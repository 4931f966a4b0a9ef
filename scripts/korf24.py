"""korf24.py -- the N easiest of Korf & Felner's 50 24-puzzle instances, solved with the chosen tables.

Orders data/korf24-50.txt by the published effort (data/korf24-50-expansions.txt: nodes
expanded with 6-6-6-6 and reflection, Korf & Felner 2002), takes the --easiest N (default
10), builds the tables the configuration needs into data/pdbs/ once (--partitions: 5x5
presets of data/partitions/, comma-separated, or catalogue:NAME for the presets a catalogue
file lists; default Korf & Felner's 6-6-6-6; plain tables, or zero-aware with --zero-aware;
the build time is printed, not counted) and solves them with IDA*, h the maximum over the
partitions each read with the reflected lookup, BPMX as --bpmx says, on --jobs worker
processes (solve_batch: every solution replayed, every length checked against the published
optimum). Rows go to results/korf24/easiest-N-<tables>[-<partitions>].csv; rerunning resumes
from the rows already there. Prints per instance the published and our nodes expanded and
seconds, then the totals and the wall time, and writes ...-summary.csv beside the rows.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

from pdb_build.partitions import catalogue, preset
from pdb_build.store import PLAIN, ZERO_AWARE
from solvers.atomic import write_csv
from solvers.batch import solve_batch
from solvers.benchmark_points import reflected_max_spec
from solvers.cli_support import run_guarded
from solvers.heuristics import from_spec
from solvers.instances import load_instances, published_counts

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--easiest", type=int, default=10, help="how many of the 50, easiest first (default 10)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    add_table_options(parser)
    parser.add_argument("--bpmx", choices=("auto", "on", "off"), default="auto")
    args = parser.parse_args()
    puzzle, chosen = easiest(parser, args)
    effort = published_counts("korf24-50-expansions")
    spec, tables = configured_spec(puzzle, args)
    heuristic = from_spec(puzzle, spec).with_kernels(True)
    out = ROOT / "results" / "korf24" / f"easiest-{args.easiest}-{tables}.csv"
    bpmx = None if args.bpmx == "auto" else args.bpmx == "on"
    print(f"the {len(chosen)} easiest of Korf & Felner's 50 by published effort, IDA* + {heuristic.name}, "
          f"{args.jobs} processes -> {out}", flush=True)
    hardest_first = chosen[::-1]  # the longest searches start first, so no worker is left alone at the end
    summary = solve_batch(puzzle, hardest_first, heuristic, out, jobs=args.jobs, bpmx=bpmx, progress=sys.stderr.isatty(),
                          report=lambda line: print(line, file=sys.stderr))
    with out.open() as handle:
        rows = {int(r["id"]): r for r in csv.DictReader(handle)}
    table = []
    print(f"{'#':>3} {'length':>6} {'published expanded':>19} {'ours expanded':>15} {'ratio':>6} {'seconds':>9}")
    for instance in chosen:
        row = rows[instance.number]
        expanded = int(row["nodes_expanded"])
        table.append({"instance": instance.number, "length": row["length"], "status": row["status"],
                      "published_expanded": effort[instance.number - 1], "nodes_expanded": expanded,
                      "nodes_generated": int(row["nodes_generated"]), "seconds": float(row["seconds"]),
                      "heuristic": row["heuristic"], "bpmx": row["bpmx"]})
        print(f"{instance.number:>3} {row['length']:>6} {effort[instance.number - 1]:>19,} {expanded:>15,} "
              f"{expanded / effort[instance.number - 1]:>6.2f} {float(row['seconds']):>9.1f}")
    print("\n".join(summary.lines()))
    total = sum(r["nodes_expanded"] for r in table)
    published = sum(r["published_expanded"] for r in table)
    print(f"nodes expanded: ours {total:,}, published {published:,} ({total / published:.2f}x); "
          f"{summary.wall_seconds:.1f} s wall for this run ({time.strftime('%Y-%m-%d')})")
    write_csv(out.with_name(out.stem + "-summary.csv"), table)
    return 1 if summary.mismatches or summary.n_solved != len(chosen) else 0


def easiest(parser: argparse.ArgumentParser, args) -> tuple:
    """(puzzle, the --easiest N of Korf & Felner's 50 by published effort, easiest first)."""
    if not 1 <= args.easiest <= 50:
        parser.error("--easiest takes 1 to 50")
    puzzle, instances = load_instances(ROOT / "data" / "korf24-50.txt")
    effort = published_counts("korf24-50-expansions")
    return puzzle, sorted(instances, key=lambda i: effort[i.number - 1])[: args.easiest]


def add_table_options(parser: argparse.ArgumentParser) -> None:
    """--partitions and --zero-aware, the configuration of the heuristic (configured_spec)."""
    parser.add_argument("--partitions", default="6-6-6-6",
                        help="5x5 presets, comma-separated, or catalogue:NAME (default 6-6-6-6)")
    parser.add_argument("--zero-aware", action="store_true", help="zero-aware tables instead of plain ones")


def configured_spec(puzzle, args) -> tuple[str, str]:
    """(heuristic spec, name of the configuration) of --partitions and --zero-aware: the maximum
    over the partitions, each with the reflected lookup; missing tables are built first (into
    data/pdbs/, their build time printed). The name is the table kind, then the partitions
    unless they are the default 6-6-6-6 (e.g. "zero-aware", "plain-small")."""
    kind = ZERO_AWARE if args.zero_aware else PLAIN
    spec = reflected_max_spec(puzzle, _partitions(puzzle, args.partitions), kind, ROOT / "data" / "pdbs")
    named = "" if args.partitions == "6-6-6-6" else "-" + args.partitions.replace("catalogue:", "").replace(",", "+")
    return spec, kind + named


def _partitions(puzzle, text: str) -> tuple:
    """The partitions --partitions names: presets, comma-separated, or catalogue:NAME."""
    if text.startswith("catalogue:"):
        return catalogue(puzzle, text.split(":", 1)[1])
    return tuple(preset(puzzle, name.strip()) for name in text.split(","))


if __name__ == "__main__":
    sys.exit(run_guarded("korf24.py", main))
