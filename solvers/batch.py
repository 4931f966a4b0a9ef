"""batch.py -- solve a set of instances into a CSV file: verified, resumable, in parallel.

One CSV row per instance (columns ROW_FIELDS; `iterations` lists each IDA* iteration as
bound:expanded:generated; `lower_bound` is what the search proved the shortest length to be at
least and `suboptimality` the length over it, as SearchResult's, both empty where nothing is
proven; `first_seconds` and `found_seconds` are the seconds from the start of the search to
its first solution and to the one reported, which differ where a search improves on its first
solution (anytime); FRONTIER_FIELDS hold a bidirectional search's counts in each direction and
the depth at which its two searches met), appended and flushed to disk as each instance finishes, so that a crash
loses at most the instances being solved. Rerunning with the same output keeps every complete,
valid row (a solved row must replay to the goal in its stated length), drops a half-written
last line, and solves only the instances still missing. The finished file is rewritten in
instance order.

Workers are forked processes: the heuristic is built once in the parent before the fork and
shared with the workers; its PDB tables are read-only maps of the files themselves
(pdb_build/store.py), so they are never copied. On a Dask cluster (solvers/distributed.py)
each worker loads the PDB files itself, once, and maps the same files: one copy of the
tables per machine.
"""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
from tqdm import tqdm

from solvers.atomic import output_target, write_csv
from solvers.distributed import cluster_size, run_on_cluster
from solvers.errors import InputError
from solvers.forked import forked_map
from solvers.heuristics import Heuristic, from_recipe, from_spec
from solvers.instances import Instance
from solvers.puzzle import Puzzle, PuzzleError, SolutionError
from solvers.search.node_store import memory_budget
from solvers.search.registry import checked_options, given_options, search_named, setting_fields
from solvers.search.result import GAVE_UP, SOLVED, SearchResult, checked_start
from solvers.solve import solve

SEARCH_SETTING_FIELDS = tuple(setting_fields())  # every registered search's (registry.py)
SETTINGS_FIELDS = ("algorithm", "heuristic", "tables", *SEARCH_SETTING_FIELDS)
# the limits a row's search ran under, as given ("none": not given; "auto": the default memory
# share), and the threads it used: rows of one file may differ in them (run_limits)
LIMIT_FIELDS = ("node_limit", "time_limit", "memory")
RUN_FIELDS = (*LIMIT_FIELDS, "threads")
NOT_GIVEN, DEFAULT_MEMORY = "none", "auto"
# a bidirectional search's counts in each direction and where they met (SearchResult.frontiers;
# empty for the other searches)
FRONTIER_FIELDS = ("forward_expanded", "backward_expanded", "forward_necessary", "backward_necessary",
                   "meeting_depth")
ROW_FIELDS = [
    "id", "status", "length", "known_length", "lower_bound", "suboptimality", "initial_h", "nodes_expanded",
    "nodes_generated", "nodes_stored", "seconds", "first_seconds", "found_seconds", "moves", "iterations",
    *SETTINGS_FIELDS,
    *RUN_FIELDS, "bpmx_raises", "bpmx_cutoffs", *FRONTIER_FIELDS,
]
FIRST_SETTINGS_FIELD = ROW_FIELDS.index("algorithm")
# columns added after results files were first written: an older file's rows resume with them
# empty (limits unknown: such a row that gave up is solved again)
ADDED_FIELDS = ("lower_bound", "suboptimality", "first_seconds", "found_seconds", *RUN_FIELDS, *FRONTIER_FIELDS,
                "nodes_stored")
# settings columns added after results files were first written, whose options were then fixed
# at what is now their default: an older file's rows resume with what the default records
ADDED_SETTINGS = ("rules",)
# the columns the clock fills, which differ between otherwise equal runs of a batch
TIMING_FIELDS = ("seconds", "first_seconds", "found_seconds")


@dataclass(frozen=True)
class BatchSummary:
    """What a batch run ended with (rows kept from an earlier run included)."""

    n_instances: int
    n_solved: int
    n_not_solved: int  # gave up at a limit, or unsolvable
    n_resumed: int
    n_retried: int  # rows of an earlier run solved again under this run's limits (read_finished_rows)
    mismatches: tuple[int, ...]  # instance ids whose result contradicts the known optimum (contradicts_optimum)
    mean_length: float
    suboptimalities: tuple[float, ...]  # length / lower bound of each solved row that has a lower bound
    nodes_generated: int
    search_seconds: float
    wall_seconds: float

    @property
    def nodes_per_second(self) -> float:
        return self.nodes_generated / self.search_seconds if self.search_seconds else 0.0

    def lines(self) -> list[str]:
        return [
            f"instances {self.n_instances}: {self.n_solved} solved, {self.n_not_solved} not solved"
            + (f" ({self.n_resumed} kept from an earlier run)" if self.n_resumed else "")
            + (f" ({self.n_retried} solved again under this run's limits)" if self.n_retried else ""),
            f"mean length {self.mean_length:.2f}, {self.nodes_generated:,} nodes generated, "
            f"{self.search_seconds:.2f} s of search ({self.nodes_per_second / 1e6:.2f} M nodes/s), "
            f"{self.wall_seconds:.2f} s wall",
        ] + ([self._suboptimality_line()] if any(s > 1 for s in self.suboptimalities) else [])

    def _suboptimality_line(self) -> str:
        """How far the solutions may be from the shortest, for a search that need not prove optimality."""
        proven = sum(s == 1 for s in self.suboptimalities)
        return (f"length / lower bound {np.mean(self.suboptimalities):.3f} on average, at most "
                f"{max(self.suboptimalities):.3f}; {proven} of {len(self.suboptimalities)} proven optimal")


def run_settings(algorithm: str, heuristic: Heuristic, options: dict) -> dict:
    """What every row of a batch records of how it was solved: the algorithm, the heuristic's
    name, each table file's name and SHA-256, and the settings the search registered (for IDA*
    the move pruning, whether the last iteration was completed and whether BPMX was applied;
    `options`, solve's keywords; other searches' fields left empty). A resumed run must use
    the same."""
    search = search_named(algorithm)
    tables = ";".join(f"{Path(path).name}={checksum}" for path, checksum in heuristic.provenance)
    settings = {"algorithm": algorithm, "heuristic": heuristic.name, "tables": tables,
                **dict.fromkeys(SEARCH_SETTING_FIELDS, "")}
    settings.update(search.settings(heuristic, search.with_defaults(options)))
    return settings


def run_limits(algorithm: str, options: dict, threads: int = 1) -> dict:
    """What a row records of how its search was bounded (`options`, solve's keywords, as the
    user gave them): the node and time limits and the memory in GiB, each NOT_GIVEN when not
    given (a search that stores nodes then takes its node limit from memory, DEFAULT_MEMORY
    being the default share), and the `threads` its search ran on."""
    takes_memory = search_named(algorithm).takes("memory")
    memory = options.get("memory")
    return {
        "node_limit": NOT_GIVEN if options.get("node_limit") is None else str(options["node_limit"]),
        "time_limit": NOT_GIVEN if options.get("time_limit") is None else f"{options['time_limit']:g}",
        "memory": NOT_GIVEN if not takes_memory else DEFAULT_MEMORY if memory is None else f"{memory:g}",
        "threads": str(threads),
    }


def _allows_more(limit: str, earlier: str) -> bool:
    """Whether a limit recorded as `limit` may let a search go further than `earlier` did: a
    larger number, NOT_GIVEN against a number, or an earlier one unknown (an older file's
    empty column) or not comparable (DEFAULT_MEMORY against a number)."""
    if limit == earlier:
        return False
    if earlier == "" or limit == NOT_GIVEN:
        return True
    if earlier == NOT_GIVEN:
        return False
    try:
        return float(limit) > float(earlier)
    except ValueError:
        return True


def redone(row: dict, limits: dict, retry_gave_up: bool, redo_other_limits: bool) -> bool:
    """Whether an earlier run's valid `row` is solved again by a run under `limits`
    (run_limits): with `redo_other_limits`, every row recorded under other limits or threads;
    a row that gave up, when `retry_gave_up` or when some limit of this run may let the search
    go further than the row's did. Other rows are kept as they are, with their own limits."""
    if redo_other_limits and any(row[f] != limits[f] for f in RUN_FIELDS):
        return True
    return row["status"] == GAVE_UP and (retry_gave_up or any(_allows_more(limits[f], row[f]) for f in LIMIT_FIELDS))


def result_row(instance: Instance, result: SearchResult, settings: dict) -> dict:
    suboptimality = result.suboptimality
    return {
        "id": instance.number,
        "status": result.status,
        "length": "" if result.length is None else result.length,
        "known_length": "" if instance.optimal is None else instance.optimal,
        "lower_bound": "" if result.lower_bound is None else result.lower_bound,
        "suboptimality": "" if suboptimality is None else f"{suboptimality:.4f}",
        "initial_h": result.initial_h,
        "nodes_expanded": result.nodes_expanded,
        "nodes_generated": result.nodes_generated,
        "nodes_stored": result.nodes_stored,
        "seconds": f"{result.seconds:.6f}",
        "first_seconds": f"{result.found[0][1]:.6f}" if result.found else "",
        "found_seconds": f"{result.found[-1][1]:.6f}" if result.found else "",
        "moves": result.moves or "",
        "iterations": " ".join(f"{i.bound}:{i.nodes_expanded}:{i.nodes_generated}" for i in result.iterations),
        **settings,
        "bpmx_raises": result.bpmx_raises,
        "bpmx_cutoffs": result.bpmx_cutoffs,
        **{f: "" if result.frontiers is None else getattr(result.frontiers, f) for f in FRONTIER_FIELDS},
    }


def read_finished_rows(path: Path, puzzle: Puzzle, instances: list[Instance], settings: dict,
                       defaults: dict) -> tuple[dict[int, dict], dict[int, dict]]:
    """The valid rows of an earlier run's output, by instance id: those of `instances`, and the
    complete rows of other instances of the file (kept in the file, never dropped, when a run
    selects fewer instances with --only or --first).

    A row is kept when it is complete (ends with a new line, has every field), names an
    instance of this set once, and, if solved, its moves replay from that instance to the
    goal in its stated length. Anything else, such as a half-written last line, is dropped.
    A complete row solved with other `settings` (SETTINGS_FIELDS) is refused with
    a one-line InputError: rows of different runs never mix. A file written before a column of
    ADDED_SETTINGS existed gives its rows the value of `defaults` (run_settings without options).
    An output that is not a regular file (a stream such as `-`, a FIFO, a device, a folder) is
    refused first with a one-line OutputError (atomic.output_target): the file is read back and
    rewritten whole, which a stream cannot be.
    """
    output_target(path)
    if not path.exists():
        return {}, {}
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {path} to resume it: {error}") from None
    header = text.split("\n", 1)[0].split(",")
    if text:
        _check_header(path, header, settings)
    if not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    by_id = {i.number: i for i in instances}
    kept: dict[int, dict] = {}
    others: dict[int, dict] = {}
    for row in csv.DictReader(text.splitlines()):
        if None in row.values() or set(row) != set(header):  # a short or long line
            continue
        row = {field: row.get(field, defaults[field] if field in ADDED_SETTINGS else "")  # a column added since
               for field in ROW_FIELDS}
        try:
            number = int(row["id"])
            if number in kept or number in others:
                continue
            if any(row[f] != settings[f] for f in SETTINGS_FIELDS):
                raise _OtherSettings(row)
            if number not in by_id:
                others[number] = row
                continue
            instance = by_id[number]
            if row["status"] == SOLVED:
                puzzle.check_solution(instance.start, row["moves"], int(row["length"]))
            kept[number] = row
        except _OtherSettings:
            raise InputError(f"{path} holds rows solved with {_described(row)}, not with {_described(settings)}; "
                             "resume with the same settings or choose another --out") from None
        except (ValueError, SolutionError, PuzzleError):  # a number that is not one, moves that do not solve
            continue
    return kept, others


def _check_header(path: Path, header: list[str], settings: dict) -> None:
    """Accept the header of a results file whose columns are ROW_FIELDS in order, but for
    ADDED_FIELDS and settings of other searches than this run's (added after the file was
    written: their columns are empty in its rows); refuse any other with a one-line InputError,
    naming what an older file lacks."""
    if header == ROW_FIELDS:
        return
    if header != [f for f in ROW_FIELDS if f in header] or ROW_FIELDS[FIRST_SETTINGS_FIELD] not in header:
        raise InputError(f"{path} exists and is not a solve-batch results file; choose another --out")
    needed = [f for f in ROW_FIELDS if f not in header and f not in ADDED_FIELDS and f not in ADDED_SETTINGS
              and not (f in SETTINGS_FIELDS and settings[f] == "")]
    if needed:
        raise InputError(f"{path} was written by an older solve-batch, without the {', '.join(needed)} of its "
                         "rows; choose another --out (or move the file away) to start afresh")


class _OtherSettings(Exception):
    """A complete row of a run with other settings."""


def _described(settings: dict) -> str:
    """A run's settings in words: "ida + manhattan, prune fsm, full last iteration no, BPMX yes"."""
    tables = f" (tables {settings['tables']})" if settings["tables"] else ""
    searched = "".join(f", {_SETTING_WORDS.get(f, f.replace('_', ' '))} {settings[f]}"
                       for f in SEARCH_SETTING_FIELDS if settings[f])
    return f"{settings['algorithm']} + {settings['heuristic']}{tables}{searched}"


_SETTING_WORDS = {"bpmx": "BPMX"}


def solve_instance(puzzle: Puzzle, algorithm: str, heuristic: Heuristic, options: dict,
                   instance: Instance) -> tuple[Instance, SearchResult]:
    """One instance solved (a verified result), paired with it; the task a worker runs.
    `options` are solve's keywords (limits, and for IDA* the move pruning and the full last
    iteration)."""
    return instance, solve(puzzle, instance.start, algorithm, heuristic, **options)


def _solve_rebuilt(puzzle: Puzzle, algorithm: str, recipe: tuple, options: dict,
                   instance: Instance) -> tuple[Instance, SearchResult]:
    """`solve_instance` on a cluster worker, the heuristic rebuilt there from its recipe."""
    return solve_instance(puzzle, algorithm, from_recipe(recipe), options, instance)


def _results(todo: list[Instance], work: tuple, jobs: int, client,
             split_last: bool) -> Iterator[tuple[Instance, SearchResult, int]]:
    """Solve `todo` with `work` (solve_instance's puzzle, algorithm, heuristic and options) on a
    Dask cluster (`client`), in this process (jobs == 1) or in `jobs` forked workers, yielding
    (instance, result, threads its search ran on) as they finish. With `split_last`, a single
    instance left for a search that splits its tree (IDA* without a node limit) runs on `jobs`
    threads or on the cluster instead."""
    puzzle, algorithm, heuristic, options = work
    if split_last and len(todo) == 1 and (client is not None or jobs > 1) and splits(algorithm, options):
        threads = jobs if client is None else cluster_size(client)
        yield todo[0], solve(puzzle, todo[0].start, algorithm, heuristic, **options, threads=threads,
                             client=client), threads
        return
    if client is not None:
        solved = run_on_cluster(client, partial(_solve_rebuilt, puzzle, algorithm, heuristic.recipe(), options), todo)
    elif jobs == 1 or len(todo) <= 1:
        solved = (solve_instance(*work, instance) for instance in todo)
    else:
        # compile (or load) the kernels once, before the workers inherit them
        solve(puzzle, todo[0].start, algorithm, heuristic, **{**options, "node_limit": 1, "time_limit": None})
        solved = forked_map(solve_instance, (puzzle, algorithm, heuristic, shared_memory(work, jobs)), todo, jobs)
    yield from ((instance, result, 1) for instance, result in solved)


def splits(algorithm: str, options: dict) -> bool:
    """Whether `algorithm` with solve's `options` can split one instance's tree over threads."""
    return search_named(algorithm).takes("threads") and options.get("node_limit") is None


def shared_memory(work: tuple, jobs: int) -> dict:
    """The options of `work` for one of `jobs` workers that run at once: a search that stores
    nodes, given neither a node limit nor a memory budget, gets its share of the default budget
    (node_store.memory_budget), so that the workers together fit where one search would."""
    _, algorithm, heuristic, options = work
    if not search_named(algorithm).takes("memory") or options.get("node_limit") is not None \
            or options.get("memory") is not None:
        return options
    return {**options, "memory": memory_budget(heuristic, jobs) / 2**30}


def solve_batch(
    puzzle: Puzzle,
    instances: list[Instance],
    heuristic: Heuristic | str,
    out: str | Path,
    *,
    algorithm: str = "ida",
    jobs: int = 1,
    progress: bool = False,
    report=print,
    client=None,
    retry_gave_up: bool = False,
    redo_other_limits: bool = False,
    split_last: bool = False,
    **options,
) -> BatchSummary:
    """Solve every instance not already finished in `out`, appending one verified row each.

    `heuristic` is a Heuristic or a spec (solvers/heuristics/spec.py), as for `solve`.

    `options` are the search's, as for `solve` (node_limit and time_limit per instance, IDA*'s
    prune and full_last_iteration, bpmx, ...); rows record the settings the search registered,
    and a file of rows solved with other settings is refused. Rows also record the limits they
    ran under and their threads (run_limits): an earlier row that gave up is solved again when
    this run's limits may let it go further, or always with `retry_gave_up`; with
    `redo_other_limits` every row recorded under other limits or threads is solved again, so
    that the file holds this run's alone; other rows are kept with their own limits (`redone`).
    The instances are solved by `jobs` forked workers, or, given a Dask `client` (see
    solvers/distributed.py), by the workers of its cluster, one instance each, so that a row
    never depends on the schedule. With `split_last`, a single IDA* instance left is split over
    them instead (same length; its counters then depend on which subtree finds the goal first,
    unless `full_last_iteration`; the row records the threads). A result that contradicts
    an instance's known optimum (`contradicts_optimum`) is reported through `report` at once and listed in the summary's
    `mismatches`. Ctrl-C stops the workers; the rows written
    so far stay, and the next run resumes from them. An instance whose search ended early on
    Ctrl-C with the best solution so far (SearchResult.interrupted) gets no row: the batch stops
    with KeyboardInterrupt all the same, and the next run solves that instance afresh.
    """
    search = search_named(algorithm)
    options = checked_options(search, given_options(search, options))
    if "threads" in options or "executor" in options:
        raise InputError("solve_batch spreads its instances over `jobs` workers or a cluster's (`client`); it takes "
                         "no threads or executor of its own")
    try:
        return _solve_batch(puzzle, instances, heuristic, Path(out), algorithm, jobs, options, progress, report, client,
                            (retry_gave_up, redo_other_limits, split_last))
    except OSError as error:
        raise InputError(f"cannot write {out}: {error.strerror or error}") from None


def unfinished_path(out: str | Path) -> Path:
    """Where solve_batch_afresh keeps the rows of a run until every instance has one."""
    out = Path(out)
    return out.with_name(f"{out.stem}.unfinished{out.suffix}")


def solve_batch_afresh(puzzle: Puzzle, instances: list[Instance], heuristic: Heuristic | str, out: str | Path,
                       **options) -> BatchSummary:
    """solve_batch with every instance solved again at each run, so that the summary times
    what this run did (a benchmark, the main job): the rows go to `out`'s unfinished sibling
    (unfinished_path), moved over `out` once every instance has its row; a run interrupted
    before that leaves them there, and the next run resumes them (its summary then counts them
    as kept). `options` are solve_batch's."""
    unfinished = unfinished_path(out)
    summary = solve_batch(puzzle, instances, heuristic, unfinished, **options)
    if summary.n_solved + summary.n_not_solved == summary.n_instances:
        unfinished.replace(out)
    return summary


def _solve_batch(puzzle, instances, heuristic, out, algorithm, jobs, options, progress, report, client, rerun):
    retry_gave_up, redo_other_limits, split_last = rerun
    if isinstance(heuristic, str):
        heuristic = from_spec(puzzle, heuristic)
    heuristic.check_for(puzzle)
    instances = [replace(i, start=checked_start(puzzle, i.start)) for i in instances]  # flat uint8 states
    began = time.perf_counter()
    settings = run_settings(algorithm, heuristic, options)
    kept, others = read_finished_rows(out, puzzle, instances, settings, run_settings(algorithm, heuristic, {}))
    limits = run_limits(algorithm, options)
    retried = {n for n, row in kept.items() if redone(row, limits, retry_gave_up, redo_other_limits)}
    rows = {n: row for n, row in kept.items() if n not in retried}
    write_csv(out, [r for _, r in sorted({**others, **rows}.items())], ROW_FIELDS)
    todo = [i for i in instances if i.number not in rows]
    bar = tqdm(total=len(instances), initial=len(rows), unit="instance", disable=not progress, leave=False)
    with out.open("a", newline="") as handle, bar:
        writer = csv.DictWriter(handle, fieldnames=ROW_FIELDS)
        for instance, result, threads in _results(todo, (puzzle, algorithm, heuristic, options), jobs, client,
                                                  split_last):
            if result.interrupted:  # a search in this process cut short by Ctrl-C (workers never see it): no row
                raise KeyboardInterrupt
            row = result_row(instance, result, {**settings, **limits, "threads": str(threads)})
            writer.writerow(row)
            handle.flush()
            os.fsync(handle.fileno())
            rows[instance.number] = row
            if contradicts_optimum(result.length, result.lower_bound, instance.optimal):
                found = "not solved" if result.length is None else f"solved in {result.length} moves"
                proven = "" if result.lower_bound is None else f" with a proven lower bound of {result.lower_bound}"
                with tqdm.external_write_mode():  # the bar, if drawn, is cleared first: never glued to the line
                    report(f"MISMATCH: instance {instance.number} {found}{proven}, "
                           f"but its known optimal length is {instance.optimal}")
            bar.update(1)
    write_csv(out, [r for _, r in sorted({**others, **rows}.items())], ROW_FIELDS)
    return _summary(instances, rows, len(kept) - len(retried), len(retried), time.perf_counter() - began)


def contradicts_optimum(length: int | None, lower_bound: int | None, optimum: int | None) -> bool:
    """Whether a result with a solution of `length` moves (None: none found) and a proven
    `lower_bound` (None: nothing proven) contradicts a known `optimum` (None: unknown): a
    solution shorter than the shortest, or a bound above it. A search that proves its solution
    optimal proves the length itself, so any other length is a contradiction; a longer solution
    of a search that proves less is none."""
    if optimum is None:
        return False
    return (length is not None and length < optimum) or (lower_bound is not None and lower_bound > optimum)


def _count(field: int | str) -> int | None:
    """A row's length or lower bound as a number, None where the row has none (an empty field); 0
    is a number like any other (a start that is the goal), written as an int in this run's rows
    and as text in rows read back."""
    return None if field == "" else int(field)


def _summary(instances: list[Instance], rows: dict[int, dict], n_resumed: int, n_retried: int,
             wall: float) -> BatchSummary:
    solved = [r for r in rows.values() if r["status"] == SOLVED]
    lengths = [int(r["length"]) for r in solved]
    known = {i.number: i.optimal for i in instances}
    mismatches = tuple(sorted(
        int(r["id"]) for r in rows.values()
        if contradicts_optimum(_count(r["length"]), _count(r["lower_bound"]), known[int(r["id"])])
    ))
    return BatchSummary(
        n_instances=len(instances),
        n_solved=len(solved),
        n_not_solved=len(rows) - len(solved),
        n_resumed=n_resumed,
        n_retried=n_retried,
        mismatches=mismatches,
        mean_length=float(np.mean(lengths)) if lengths else 0.0,
        suboptimalities=tuple(float(r["suboptimality"]) for r in solved if r["suboptimality"]),
        nodes_generated=sum(int(r["nodes_generated"]) for r in rows.values()),
        search_seconds=sum(float(r["seconds"]) for r in rows.values()),
        wall_seconds=wall,
    )
