"""deepcubea.py -- DeepCubeA's test sets solved with pattern databases, beside DeepCubeA's own results.

Solves the first --first N instances (default 50) of one of DeepCubeA's four test sets
(data/deepcubea{15,24,35,48}-*.txt; Agostinelli et al. 2019) with each configuration given by
--config SEARCH[:VALUES] (repeatable): a registered search and, for a weighted search, its
weights (wastar:1.2,1.5,2; bwas:1.25 is DeepCubeA's own search, lambda = 0.8, at its batch of 20,000) or,
for beam search, its widths (beam:256,4096); each value is one
point of that search's curve. The heuristic is the sum of the disjoint PDBs of --partitions
(presets of data/partitions/ for the set's board, built into data/pdbs/ first if missing; the
build time is printed, not counted), read with the reflected lookup, or --heuristic SPEC.
Every instance goes through solve_batch (solutions replayed, lengths checked against the known
optima of the 15- and 24-puzzle sets), one CSV of rows per point under --out, resumable.

Prints, per point: instances solved, our mean length and DeepCubeA's on the same instances, the
share proven or known optimal where optima are known, the mean seconds of search per instance
(one core each), and per instance how many of ours are shorter than, equal to and longer than
DeepCubeA's; then DeepCubeA's published row for the whole set. Writes <set>-summary.csv and
<set>.png (mean length against mean seconds per instance, one curve per search, DeepCubeA's
point on it) beside the rows.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from pdb_build.partitions import preset
from pdb_build.store import PLAIN, ZERO_AWARE
from solvers.atomic import write_csv
from solvers.batch import solve_batch
from solvers.benchmark_points import (NO_PLOT_NOTE, Series, mean_or_blank, plot_length_against_seconds, read_rows,
                                     reflected_max_spec)
from solvers.cli_support import OneLineParser, positive, run_guarded
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.instances import load_instances, published_counts
from solvers.search.registry import search_named
from solvers.search.wastar import integer_weights

ROOT = Path(__file__).resolve().parent.parent

# DeepCubeA's published results per set (Agostinelli et al. 2019; forestagostinelli/DeepCubeA,
# results/puzzle*/output.txt): mean length, share optimal (None: no optima known), seconds per
# instance on its GPU machine (batched weighted A*).
PUBLISHED = {
    "15": ("deepcubea15-500", 52.022, 100.0, 8.8),
    "24": ("deepcubea24-496", 89.415, 99.8, 22.9),
    "35": ("deepcubea35-500", 124.652, None, 45.4),
    "48": ("deepcubea48-500", 255.670, None, 144.0),
}
# What each set gets unless told otherwise: the partitions, the configurations and the limits per
# instance (seconds, and nodes: room for the widest beam, its width times about 1.5 times the
# length, within this machine's memory with two workers) measured best on this machine
# (BENCHMARKS.md, "DeepCubeA's test sets").
DEFAULTS = {
    "15": ("7-8", ["ida"], 60.0, None),
    "24": ("6-6-6-6", ["beam:10000,100000"], 120.0, 20_000_000),
    "35": ("5-6-6-6-6-6", ["beam:10000,100000"], 300.0, 20_000_000),
    "48": ("5-5-5-5-5-5-5-5-5-3", ["beam:10000,30000"], 600.0, 20_000_000),
}
WEIGHTED = ("wastar", "bwas", "wida", "anytime")  # the searches whose values are weights
WIDTH_SEARCHES = ("beam", "bulb")  # whose values are beam widths


def main() -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", required=True, choices=tuple(PUBLISHED), help="the puzzle: 15, 24, 35 or 48")
    parser.add_argument("--first", type=positive(int, "a whole number", 500), default=50, help="solve the first N instances (default 50)")
    parser.add_argument("--jobs", type=positive(int, "a whole number", 256), default=1, help="worker processes, one core each (default 1)")
    parser.add_argument("--config", action="append", metavar="SEARCH[:VALUES]",
                        help="a search and its weights or beam widths, e.g. wastar:1.2,1.5 (repeat; default: the "
                             "best measured for the set)")
    parser.add_argument("--partitions", help="PDB presets for the set's board, comma-separated, their maximum taken "
                                             "(default: the best measured for the set)")
    parser.add_argument("--zero-aware", action="store_true", help="zero-aware tables instead of plain ones")
    parser.add_argument("--heuristic", help="a heuristic spec instead of --partitions (solve-puzzle's grammar)")
    parser.add_argument("--time-limit", type=positive(float, "a number of seconds", 1e9), help="seconds per instance before a search gives up "
                                                         "(default: the set's)")
    parser.add_argument("--node-limit", type=positive(int, "a whole number", 1 << 62), help="nodes per instance before a search gives up "
                                                        "(default: the set's)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "deepcubea", help="folder of the results")
    args = parser.parse_args()
    set_name, *published = PUBLISHED[args.set]
    default_partitions, default_configs, default_time, default_nodes = DEFAULTS[args.set]
    puzzle, instances = load_instances(set_name)
    if not 1 <= args.first <= len(instances):
        parser.error(f"--first takes 1 to {len(instances)}")
    chosen = instances[:args.first]
    deepcubea = published_counts(f"{set_name}-deepcubea-lengths")
    points = [point for text in args.config or default_configs for point in _points(text)]  # checked before any build
    limits = {"time_limit": default_time if args.time_limit is None else args.time_limit,
              "node_limit": default_nodes if args.node_limit is None else args.node_limit}
    spec, tables = _heuristic_spec(puzzle, args, default_partitions)
    heuristic = from_spec(puzzle, spec).with_kernels(True)
    print(f"{set_name}: the first {len(chosen)} instances, {heuristic.name}, {args.jobs} job(s), "
          f"{limits['time_limit']:g} s per instance at most", flush=True)
    table, contradicted = [], False
    for algorithm, option, value in points:
        options = {**limits, **({option: value} if option else {})}
        label = algorithm + (f"-{value:g}" if option else "")
        out = args.out / f"{set_name}-{label}-{tables}.csv"
        # rows record their limits; a row found under other limits is solved again under these
        summary = solve_batch(puzzle, chosen, heuristic, out, algorithm=algorithm, jobs=args.jobs,
                              progress=sys.stderr.isatty(), report=lambda line: print(line, file=sys.stderr),
                              redo_other_limits=True, **options)
        contradicted = contradicted or bool(summary.mismatches)
        table.append(_summary(algorithm, value, out, chosen, deepcubea))
    _print_table(table, published, set_name)
    summary_file = args.out / f"{set_name}-summary.csv"
    write_csv(summary_file, table)
    plot = _plot(table, published, args.out / f"{set_name}.png", set_name, len(chosen))
    print(f"wrote {summary_file}" + (f" and {plot}" if plot else NO_PLOT_NOTE))
    return 1 if contradicted else 0


def _heuristic_spec(puzzle, args, default_partitions: str) -> tuple[str, str]:
    """(heuristic spec, name of the tables for file names): --heuristic as given, or the
    maximum over the --partitions presets, each read with the reflected lookup; missing tables
    are built first (their build time printed)."""
    if args.heuristic:
        return args.heuristic, "custom"
    kind = ZERO_AWARE if args.zero_aware else PLAIN
    names = [name.strip() for name in (args.partitions or default_partitions).split(",")]
    spec = reflected_max_spec(puzzle, [preset(puzzle, name) for name in names], kind, ROOT / "data" / "pdbs")
    return spec, f"{kind}-{'+'.join(names)}"


def _points(text: str) -> list[tuple[str, str | None, float | int | None]]:
    """The points of one --config: (search, its option's name or None, value); a one-line
    InputError for an unknown search, values it does not take, or a weight or width out of range."""
    algorithm, _, values = text.partition(":")
    search_named(algorithm)  # an unknown search is refused with the choices
    if algorithm not in WEIGHTED and algorithm not in WIDTH_SEARCHES:
        if values:
            raise InputError(f"--config {text}: {algorithm} takes no weights or widths")
        return [(algorithm, None, None)]
    if not values:
        return [(algorithm, None, None)]  # the search's default
    option = "weight" if algorithm in WEIGHTED else "beam_width"
    points = []
    for value in values.split(","):
        try:
            number = float(value) if option == "weight" else int(value)
        except ValueError:
            raise InputError(f"--config {text}: {value!r} is not a {'weight' if option == 'weight' else 'whole number'}")
        if option == "weight":
            integer_weights(number)  # refuses a weight out of range
        elif number < 1:
            raise InputError(f"--config {text}: a beam width is at least 1, not {number}")
        points.append((algorithm, option, number))
    return points


def _summary(algorithm: str, value, out: Path, chosen, deepcubea: list[int]) -> dict:
    """One point's line of the table from its rows."""
    rows = read_rows(out)
    solved = [i for i in chosen if rows[i.number]["status"] == "solved"]
    ours = {i.number: int(rows[i.number]["length"]) for i in solved}
    theirs = {i.number: deepcubea[i.number - 1] for i in solved}
    known = [i for i in solved if i.optimal is not None]
    seconds = [float(rows[i.number]["seconds"]) for i in chosen]
    return {
        "search": algorithm, "value": "" if value is None else f"{value:g}", "instances": len(chosen),
        "solved": len(solved),
        "mean_length": mean_or_blank(ours.values()), "deepcubea_mean_length": mean_or_blank(theirs.values()),
        "optimal_percent": _percent(sum(ours[i.number] == i.optimal for i in known), len(known)),
        "deepcubea_optimal_percent": _percent(sum(theirs[i.number] == i.optimal for i in known), len(known)),
        "mean_seconds": mean_or_blank(seconds),
        "max_seconds": round(max(seconds), 3),
        "shorter": sum(ours[n] < theirs[n] for n in ours), "equal": sum(ours[n] == theirs[n] for n in ours),
        "longer": sum(ours[n] > theirs[n] for n in ours),
    }


def _percent(part: int, whole: int) -> float | str:
    return round(100 * part / whole, 1) if whole else ""


def _print_table(table: list[dict], published: list, set_name: str) -> None:
    print("\n| search | value | solved | mean length | DeepCubeA's, same instances | % optimal (DeepCubeA's) | "
          "mean s per instance | shorter / equal / longer |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for line in table:
        optimal = "" if line["optimal_percent"] == "" else \
            f"{line['optimal_percent']} ({line['deepcubea_optimal_percent']})"
        print(f"| {line['search']} | {line['value']} | {line['solved']}/{line['instances']} | {line['mean_length']} | "
              f"{line['deepcubea_mean_length']} | {optimal} | {line['mean_seconds']} | "
              f"{line['shorter']} / {line['equal']} / {line['longer']} |")
    length, optimal, seconds = published
    print(f"| DeepCubeA, published (all of {set_name}) | | | {length} | | "
          f"{'' if optimal is None else optimal} | {seconds} (GPU machine) | |\n")


def _plot(table: list[dict], published: list, path: Path, set_name: str, n: int) -> Path | None:
    """Mean length against mean seconds per instance, a curve per search and DeepCubeA's point;
    None without matplotlib."""
    series = []
    for algorithm in dict.fromkeys(line["search"] for line in table):
        points = sorted((line["mean_seconds"], line["mean_length"], line["value"]) for line in table
                        if line["search"] == algorithm and line["mean_length"] != "")
        series.append(Series(algorithm, points, {"marker": "o"}))
    same = next((line["deepcubea_mean_length"] for line in table if line["deepcubea_mean_length"] != ""), None)
    if same is not None:
        series.append(Series(f"DeepCubeA (its GPU machine, same {n} instances)", [(published[2], same, "")],
                             {"marker": "*", "markersize": 14, "linestyle": "none", "color": "black"}))
    return plot_length_against_seconds(path, series, f"{set_name}: the first {n} instances",
                                       "mean seconds of search per instance (ours: one core)")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(run_guarded("deepcubea.py", main))
