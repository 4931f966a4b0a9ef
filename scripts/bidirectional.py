"""bidirectional.py -- the bidirectional searches beside A* and reverse A* on a set of instances, and beside their published counts.

Solves the instances of --set (a packaged set such as korf100, or an instance file; --first N
of them, --shortest N: the N of shortest known optimal length, --only LIST: those numbered, or
on the sheet's own runs --easiest N: the N with the fewest published A* expansions) with
each search of --config (comma-separated registered searches; default: A*, reverse A* and
every bidirectional search) and the heuristic --heuristic (default manhattan),
through solve_batch: every solution replayed, every length checked against the file's known
one, one resumable CSV of rows per search under --out.

Prints, per search, over the instances that every search solved: total expansions, the
necessary ones (g + h below the optimal length, bidirectional searches only), the most
nodes stored on one instance (its memory; none for IDA*), total seconds of search and
microseconds per expansion; for Korf's 100 with Manhattan distance, beside the
published totals of tinamil/dibbs's result sheet on the same instances
(data/korf100-manhattan-bidirectional.txt) and their ratios. Writes <set>-<heuristic>-summary.csv
(-first20, -easiest50, -shortest5 or -only5-7 before -summary for a subset) and a plot of each
instance's expansions against A*'s, one series per search (a long --only list named by its
count and a digest). --toward-tables DIR keeps the PDB
tables built toward each start for the next searches of that start; --setup only times
building them. --rules dibbs-code runs the searches that take rules (the registry's) by the rules
of the code behind the published counts (solvers/search/bidirectional.py's RULES), their files and rows named so.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

from solvers.atomic import write_csv
from solvers.batch import solve_batch
from solvers.benchmark_points import NO_PLOT_NOTE, read_rows, saved_figure, slug
from solvers.cli_support import OneLineParser, positive, run_guarded
from solvers.errors import InputError
from solvers.heuristics import from_spec
from solvers.instances import load_instances, published_columns, select_instances
from solvers.search.bidirectional import DIBBS_CODE, PAPER, heuristic_toward
from solvers.search.registry import names_listed, search_named, searches, takers

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED_SET, PUBLISHED_HEURISTIC = "korf100", "manhattan"  # the sheet's set and heuristic
ONLY_TAG_CHARACTERS = 24  # the longest --only list a file name spells out
DEFAULT_CONFIG = ["astar", "reverse-astar", *(name for name, s in searches().items() if s.family == "bidirectional")]
RULE_TAKERS = takers("rules")


def main() -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", default=PUBLISHED_SET, help="a packaged instance set or an instance file "
                                                             f"(default {PUBLISHED_SET})")
    parser.add_argument("--heuristic", default=PUBLISHED_HEURISTIC, help="a heuristic spec that can be built toward "
                                                                         "any state (default manhattan)")
    parser.add_argument("--config", default=",".join(DEFAULT_CONFIG),
                        help=f"searches, comma-separated (default {','.join(DEFAULT_CONFIG)})")
    parser.add_argument("--first", type=positive(int, "a whole number", 1 << 30), help="only the first N instances")
    parser.add_argument("--easiest", type=positive(int, "a whole number", 1 << 30),
                        help="only the N instances with the fewest published A* expansions (Korf's 100 with "
                             "Manhattan distance)")
    parser.add_argument("--shortest", type=positive(int, "a whole number", 1 << 30),
                        help="only the N instances with the shortest known optimal lengths (ties: the first)")
    parser.add_argument("--only", metavar="LIST", help="only these instances, by number: e.g. 5,7,1-3")
    parser.add_argument("--jobs", type=positive(int, "a whole number", 256), default=1,
                        help="worker processes, one core each (default 1; seconds are only comparable at 1)")
    parser.add_argument("--time-limit", type=positive(float, "a number of seconds", 1e9),
                        help="seconds per instance before a search gives up")
    parser.add_argument("--memory", type=positive(float, "a number of GiB", 1e6),
                        help="GiB of nodes per instance (default: a share of the memory available)")
    parser.add_argument("--toward-tables", type=Path, metavar="DIR",
                        help="keep the PDB tables built toward each start in DIR, built by the first search of "
                             "a start and read by the others (as much room per start as the goal's tables)")
    parser.add_argument("--rules", choices=(PAPER, DIBBS_CODE), default=PAPER,
                        help=f"the rules of {names_listed(RULE_TAKERS)}: {PAPER} (their papers', the default) or {DIBBS_CODE} "
                             "(those of the code behind the published counts)")
    parser.add_argument("--setup", action="store_true",
                        help="only time building the heuristic toward each start (a backward search's set-up)")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "bidirectional", help="folder of the results")
    args = parser.parse_args()
    names = [search_named(name.strip()).name for name in args.config.split(",") if name.strip()]
    if args.rules != PAPER and not set(names) & set(RULE_TAKERS):
        raise InputError(f"--rules {args.rules} is for {names_listed(RULE_TAKERS)}, and --config lists none of them")
    puzzle, instances = load_instances(args.set)
    published = _published(args, len(instances))
    chosen = _chosen(args, instances, published)
    heuristic = from_spec(puzzle, args.heuristic)
    tag = f"{slug(Path(args.set).stem)}-{slug(heuristic.name)}"
    options = {"time_limit": args.time_limit, "memory": args.memory, "toward_tables": args.toward_tables,
               "rules": None if args.rules == PAPER else args.rules}
    if args.setup:
        seconds = _setup_seconds(heuristic, chosen)
        print(f"{args.set}, {heuristic.name}: built toward {len(seconds)} starts in {sum(seconds):.1f} s, "
              f"{sum(seconds) / len(seconds):.2f} s each on average, at most {max(seconds):.2f} s")
        return 0
    print(f"{args.set}: {len(chosen)} instances, {heuristic.name}, {args.jobs} job(s)", flush=True)
    rows, labels = {}, {}
    for name in names:
        taken = {option.name for option in search_named(name).options}  # IDA* takes no memory budget, A* no tables
        labels[name] = f"{name}-{args.rules}" if args.rules != PAPER and "rules" in taken else name
        out = args.out / f"{tag}-{labels[name]}.csv"
        summary = solve_batch(puzzle, chosen, heuristic, out, algorithm=name, jobs=args.jobs,
                              progress=sys.stderr.isatty(), report=lambda line: print(line, file=sys.stderr),
                              redo_other_limits=True,
                              **{k: v for k, v in options.items() if v is not None and k in taken})
        if summary.mismatches:
            print(f"{name}: lengths differ from the known ones on instances {summary.mismatches}")
            return 1
        rows[labels[name]] = read_rows(out)
    numbers = [i.number for i in chosen if all(found[i.number]["status"] == "solved" for found in rows.values())]
    table = [_line(name, labels[name], rows[labels[name]], numbers, published) for name in names]
    _print_table(table, len(numbers), len(chosen), published is not None)
    chosen_tag = _subset_tag(args, chosen) + ("" if args.rules == PAPER else f"-{args.rules}")
    summary_file = args.out / f"{tag}{chosen_tag}-summary.csv"
    write_csv(summary_file, table)
    if "astar" not in rows or not numbers:
        print(f"wrote {summary_file} (no plot: it draws each search against A*, which needs --config with astar "
              "and an instance every search solved)")
    else:
        plot = _plot(rows, numbers, args.out / f"{tag}{chosen_tag}.png", f"{args.set}, {heuristic.name}")
        print(f"wrote {summary_file}" + (f" and {plot}" if plot else NO_PLOT_NOTE))
    return 0


def _published(args, n_instances: int) -> dict[str, list[int]] | None:
    """The sheet's columns where the run is the sheet's own (Korf's 100, Manhattan distance)."""
    if args.set != PUBLISHED_SET or args.heuristic != PUBLISHED_HEURISTIC:
        return None
    columns = published_columns("korf100-manhattan-bidirectional")
    assert all(len(column) == n_instances for column in columns.values())
    return columns


def _chosen(args, instances: list, published: dict | None) -> list:
    """The instances of --first, --easiest, --shortest or --only (all by default), in the set's order."""
    if sum(bool(choice) for choice in (args.first, args.easiest, args.shortest, args.only)) > 1:
        raise InputError("give one of --first, --easiest, --shortest and --only")
    if args.only:
        return select_instances(instances, args.only)
    if args.shortest:
        if any(instance.optimal is None for instance in instances):
            raise InputError(f"--shortest ranks instances by their known optimal lengths, and {args.set} does not "
                             "give every one")
        kept = sorted(instances, key=lambda instance: (instance.optimal, instance.number))[:args.shortest]
        return sorted(kept, key=lambda instance: instance.number)
    if args.easiest:
        if published is None:
            raise InputError(f"--easiest ranks instances by the published A* expansions, which exist only for "
                             f"--set {PUBLISHED_SET} with --heuristic {PUBLISHED_HEURISTIC}")
        effort = published["astar_expanded"]
        kept = set(sorted(range(len(instances)), key=lambda i: effort[i])[:args.easiest])
        return [instance for i, instance in enumerate(instances) if i in kept]
    return instances[:args.first] if args.first else instances


def _subset_tag(args, chosen: list) -> str:
    """What a subset's summary and plot add to the set's file names, so that they lie beside the
    whole set's: "-first20", "-easiest50", "-shortest5", "-only5-7" (--only named by the numbers
    it chose, so that `1-3` and `1,2,3` name one file and `1,3` another); numbers longer than
    ONLY_TAG_CHARACTERS are named by their count and a digest ("-only26-3f9a0c1e")."""
    if args.only:
        named = "-".join(str(instance.number) for instance in sorted(chosen, key=lambda instance: instance.number))
        if len(named) > ONLY_TAG_CHARACTERS:
            named = f"{len(chosen)}-{hashlib.sha256(named.encode()).hexdigest()[:8]}"
        return f"-only{named}"
    for option in ("first", "easiest", "shortest"):
        if getattr(args, option):
            return f"-{option}{getattr(args, option)}"
    return ""


def _setup_seconds(heuristic, chosen: list) -> list[float]:
    """The seconds heuristic_toward takes to build `heuristic` toward each chosen start (tables
    built, written and loaded), as a backward search does before its clock starts; the first
    start is built twice and timed the second time, the first having compiled the builder."""
    seconds = []
    for instance in [chosen[0], *chosen]:
        began = time.perf_counter()
        with heuristic_toward(heuristic, instance.start, "reverse-astar"):  # as its backward search would
            seconds.append(time.perf_counter() - began)
    return seconds[1:]


def _line(name: str, label: str, rows: dict[int, dict], numbers: list[int], published: dict | None) -> dict:
    """One search's totals over the instances `numbers` (`label` naming it), beside the sheet's
    where it has the search."""
    expanded = sum(int(rows[n]["nodes_expanded"]) for n in numbers)
    seconds = sum(float(rows[n]["seconds"]) for n in numbers)
    necessary = sum(int(rows[n]["forward_necessary"] or 0) + int(rows[n]["backward_necessary"] or 0)
                    for n in numbers)
    bidirectional = bool(numbers) and rows[numbers[0]]["forward_necessary"] != ""
    stored = max((int(rows[n].get("nodes_stored") or 0) for n in numbers), default=0)
    line = {"search": label, "expanded": expanded, "necessary": necessary if bidirectional else "",
            "most_stored": stored or "", "seconds": round(seconds, 3),
            "us_per_expansion": round(1e6 * seconds / max(1, expanded), 3),
            "published_expanded": "", "expanded_ratio": "", "published_us_per_expansion": "", "time_ratio": ""}
    column = name.replace("-", "_")
    if published is not None and f"{column}_expanded" in published and numbers:
        theirs = sum(published[f"{column}_expanded"][n - 1] for n in numbers)
        their_seconds = sum(published[f"{column}_ms"][n - 1] for n in numbers) / 1000
        their_rate = 1e6 * their_seconds / max(1, theirs)
        line.update(published_expanded=theirs, expanded_ratio=round(expanded / theirs, 4),
                    published_us_per_expansion=round(their_rate, 3),
                    time_ratio=round(line["us_per_expansion"] / their_rate, 3))
    return line


def _print_table(table: list[dict], solved: int, chosen: int, published: bool) -> None:
    print(f"\nover the {solved} of {chosen} instances that every search solved:")
    print("| search | expanded | necessary | most stored | seconds | us per expansion |"
          + (" published expanded | ratio | published us per expansion | ratio |" if published else ""))
    print("| --- | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: | ---: | ---: |" if published else ""))
    for line in table:
        cells = [line["search"], f"{line['expanded']:,}", f"{line['necessary']:,}" if line["necessary"] != "" else "",
                 f"{line['most_stored']:,}" if line["most_stored"] != "" else "", line["seconds"],
                 line["us_per_expansion"]]
        if published:
            theirs = line["published_expanded"]
            cells += [f"{theirs:,}" if theirs != "" else "", line["expanded_ratio"],
                      line["published_us_per_expansion"], line["time_ratio"]]
        print("| " + " | ".join(str(cell) for cell in cells) + " |")


def _plot(rows: dict[str, dict], numbers: list[int], path: Path, title: str) -> Path | None:
    """Each instance's expansions against A*'s (`rows` must hold A*'s), a series per other
    search (log-log); None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    figure, axes = plt.subplots(figsize=(7, 6))
    astar = [int(rows["astar"][n]["nodes_expanded"]) for n in numbers]
    for name, searched in rows.items():
        if name != "astar":
            axes.scatter(astar, [max(1, int(searched[n]["nodes_expanded"])) for n in numbers], s=12, label=name)
    low, high = min(astar), max(astar)
    axes.plot([low, high], [low, high], color="grey", linewidth=0.8, label="as many as A*")
    axes.set(xscale="log", yscale="log", xlabel="A*'s expansions", ylabel="expansions", title=title)
    return saved_figure(figure, path)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(run_guarded("bidirectional.py", main))
