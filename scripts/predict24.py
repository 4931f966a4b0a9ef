"""predict24.py -- IDA*'s effort on Korf & Felner's 50, predicted before solving, against what was measured.

For each instance (all 50, or the --easiest N by published effort), Knuth's random probes
(solvers/search/effort.py: --probes per pass, default 10,000) estimate the nodes that IDA*
with korf24.py's heuristic (--partitions, --zero-aware: the same tables, built if missing)
and fsm move pruning expands, pass by pass up to the published optimal length, the last pass
to its end. Instances are predicted on --jobs processes. Writes
results/korf24/prediction-<tables>.csv: per instance the prediction and its standard error,
what korf24.py measured for it with the same tables (rows of any
results/korf24/easiest-*-<tables>.csv), the C solver's published count for the same
tables where data/korf24-50-c-solver-expansions.txt has one, and the predicted CPU hours at
--rate (default: the measured rows' expanded nodes per second of search). Plots predicted
against measured (matplotlib) to prediction-<tables>.png, and prints the plan for all 50:
predicted CPU hours per instance, their total, and which are worth splitting into subtrees.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from pathlib import Path

from korf24 import ROOT, add_table_options, configured_spec, easiest

from solvers.atomic import atomic_target, write_csv
from solvers.cli_support import run_guarded
from solvers.forked import forked_map
from solvers.heuristics import from_spec
from solvers.instances import published_columns
from solvers.search.effort import predict_ida

C_SOLVER_COLUMN = {"plain": "kf-additive", "zero-aware": "kf-zero-aware", "plain-small": "small-additive",
                   "zero-aware-small": "small-zero-aware"}


def _predict(puzzle, heuristic, probes, instance):
    prediction = predict_ida(puzzle, instance.start, heuristic, instance.optimal, n_probes=probes, seed=instance.number)
    return instance.number, prediction


def measured_rows(tables: str) -> dict[int, dict]:
    """Solved rows of every results/korf24/easiest-*-<tables>.csv, by instance."""
    rows = {}
    for path in sorted((ROOT / "results" / "korf24").glob(f"easiest-*-{tables}.csv")):
        with path.open() as handle:
            rows.update({int(r["id"]): r for r in csv.DictReader(handle) if r["status"] == "solved"})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--easiest", type=int, default=50, help="how many of the 50, easiest first (default all)")
    parser.add_argument("--probes", type=int, default=10_000, help="random probes per IDA* pass (default 10,000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rate", type=float, help="expanded nodes per second per core for the CPU hours")
    parser.add_argument("--split-hours", type=float, default=1.0,
                        help="instances predicted to need more CPU hours than this are split into subtrees")
    add_table_options(parser)
    args = parser.parse_args()
    puzzle, chosen = easiest(parser, args)
    spec, tables = configured_spec(puzzle, args)
    heuristic = from_spec(puzzle, spec)
    print(f"predicting {len(chosen)} instances, {args.probes:,} probes per pass, IDA* + {heuristic.name}", flush=True)
    began = time.perf_counter()
    predict_ida(puzzle, chosen[0].start, heuristic, chosen[0].optimal, n_probes=1)  # compile before forking
    predictions = dict(forked_map(_predict, (puzzle, heuristic, args.probes), chosen, args.jobs))
    predict_seconds = time.perf_counter() - began
    measured = measured_rows(tables)
    rate = args.rate or (sum(int(r["nodes_expanded"]) for r in measured.values())
                         / max(sum(float(r["seconds"]) for r in measured.values()), 1e-9) if measured else 4e6)
    c_solver = published_columns("korf24-50-c-solver-expansions").get(C_SOLVER_COLUMN.get(tables, ""))
    rows = []
    for instance in chosen:
        prediction = predictions[instance.number]
        row = measured.get(instance.number, {})
        rows.append({
            "instance": instance.number, "length": instance.optimal, "passes": len(prediction.passes),
            "predicted_expanded": round(prediction.nodes_expanded), "standard_error": round(prediction.standard_error),
            "measured_expanded": row.get("nodes_expanded", ""), "measured_seconds": row.get("seconds", ""),
            "c_solver_expanded": c_solver[instance.number - 1] if c_solver else "",
            "predicted_before_last": round(sum(e for _, e, _ in prediction.passes[:-1])),
            "measured_before_last": _before_last(row["iterations"]) if row else "",
            "predicted_cpu_hours": round(prediction.nodes_expanded / rate / 3600, 4),
        })
    out = ROOT / "results" / "korf24" / f"prediction-{tables}.csv"
    write_csv(out, rows)
    print(f"{'#':>3} {'length':>6} {'predicted':>17} {'+-':>15} {'measured':>15} {'pred/meas':>9} {'C solver':>17} "
          f"{'CPU h':>8}")
    for r in rows:
        ratio = f"{r['predicted_expanded'] / int(r['measured_expanded']):.2f}" if r["measured_expanded"] else ""
        measured_text = f"{int(r['measured_expanded']):,}" if r["measured_expanded"] else ""
        c_text = f"{r['c_solver_expanded']:,}" if r["c_solver_expanded"] != "" else ""
        print(f"{r['instance']:>3} {r['length']:>6} {r['predicted_expanded']:>17,} {r['standard_error']:>15,} "
              f"{measured_text:>15} {ratio:>9} {c_text:>17} {r['predicted_cpu_hours']:>8.2f}")
    for what, predicted, measured_column in (("in all", "predicted_expanded", "measured_expanded"),
                                              ("before the last pass", "predicted_before_last", "measured_before_last")):
        ratios = [r[predicted] / int(r[measured_column]) for r in rows if r[measured_column] not in ("", 0, "0")]
        if ratios:
            print(f"predicted / measured {what}: geometric mean {_geometric_mean(ratios):.2f}, "
                  f"from {min(ratios):.2f} to {max(ratios):.2f} over {len(ratios)} solved instances")
    hours = sum(r["predicted_cpu_hours"] for r in rows)
    split = [r["instance"] for r in rows if r["predicted_cpu_hours"] > args.split_hours]
    print(f"predicted in {predict_seconds:.1f} s wall on {args.jobs} processes; at {rate / 1e6:.2f} M expanded/s per core: "
          f"{hours:.1f} CPU hours in all, the largest {max(r['predicted_cpu_hours'] for r in rows):.1f}; "
          f"{len(split)} instances above {args.split_hours:g} CPU hours to split into subtrees: {split}")
    _plot(rows, out.with_suffix(".png"), tables)
    print(f"wrote {out} ({time.strftime('%Y-%m-%d')})")
    return 0


def _before_last(iterations: str) -> int:
    """Nodes expanded in the passes before the last, from a batch row's `iterations` field
    ("bound:expanded:generated" per pass)."""
    return sum(int(p.split(":")[1]) for p in iterations.split()[:-1])


def _geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def _plot(rows: list[dict], path: Path, tables: str) -> None:
    solved = [r for r in rows if r["measured_expanded"]]
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (pip install -e '.[plots]'): no plot", file=sys.stderr)
        return
    if not solved:
        return
    measured = [int(r["measured_expanded"]) for r in solved]
    predicted = [r["predicted_expanded"] for r in solved]
    figure, axes = plt.subplots(figsize=(5.5, 5))
    axes.errorbar(measured, predicted, yerr=[r["standard_error"] for r in solved], fmt="o", ms=4, capsize=2)
    for r, x, y in zip(solved, measured, predicted):
        axes.annotate(str(r["instance"]), (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    low, high = min(measured + predicted) / 2, max(measured + predicted) * 2
    axes.plot([low, high], [low, high], "k-", lw=0.8, label="predicted = measured")
    axes.plot([low, high], [2 * low, 2 * high], "k:", lw=0.6, label="x2, x0.5")
    axes.plot([low, high], [low / 2, high / 2], "k:", lw=0.6)
    axes.set(xscale="log", yscale="log", xlabel="nodes expanded, measured (IDA*, first solution)",
             ylabel="predicted (Knuth's probes, last pass to its end)",
             title=f"Korf & Felner's 24-puzzle instances, {tables} tables")
    axes.legend(fontsize=8)
    figure.tight_layout()
    with atomic_target(path) as temporary:
        figure.savefig(temporary, format="png", dpi=120)
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(run_guarded("predict24.py", main))
