"""benchmark_points.py -- what the benchmark scripts share: configurations read from text, their rows, their plot.

A *configuration* is a registered search and some of its options, written
SEARCH[:OPTION=VALUE[,OPTION=VALUE...]] (`greedy`, `wastar:weight=3`, `beam:beam_width=10000`);
each value is read by its Option's kind (solvers/search/registry.py), so a search's new option
is accepted here without a change. A *point* of a benchmark is one configuration's rows on a
set of instances (a solve_batch CSV file, solvers/batch.py), summarised as its mean length and
mean seconds per instance; `plot_length_against_seconds` draws points as series, and
`run_measured` runs a configuration's process and measures its peak resident memory.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from pdb_build.build import built_file
from pdb_build.store import default_file_name
from solvers.atomic import atomic_target
from solvers.commands.options import TRISTATE_VALUES
from solvers.cli_support import positive
from solvers.errors import InputError
from solvers.search.registry import search_named
from solvers.solve import MAX_NODE_LIMIT

NO_PLOT_NOTE = " (no plot: pip install 'tilepdb[plots]')"  # after "wrote FILE" when matplotlib is missing
SWITCH_VALUES = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}
# how a configuration's text reads the numeric kinds of option (each refuses 0 and below, as the registry says)
_READERS = {
    "count": positive(int, "a whole number", MAX_NODE_LIMIT),
    "seconds": positive(float, "a number of seconds", 1e9),
    "number": positive(float, "a number", 1e9),
    "folder": Path,
}


@dataclass(frozen=True)
class Config:
    """One configuration: the search's name, the options given (solve's keywords), and its
    text in a canonical form (`label`, also used in file names)."""

    algorithm: str
    options: dict
    label: str


def parse_config(text: str) -> Config:
    """The configuration written `text` (SEARCH[:OPTION=VALUE,...]); a one-line InputError for
    an unknown search (naming the searches), an option the search does not take (naming its
    options), an option given twice, or a value its kind does not accept."""
    name, _, given = text.strip().partition(":")
    search = search_named(name.strip())
    offered = {option.name: option for option in search.options if option.kind != "object"}
    options: dict = {}
    for item in filter(None, (part.strip() for part in given.split(","))):
        key, equals, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not equals:
            raise InputError(f"--config {text}: {item!r} is not OPTION=VALUE")
        if key not in offered:
            choices = ", ".join(offered) or "none"
            raise InputError(f"--config {text}: {search.name} has no option {key!r}; its options: {choices}")
        if key in options:
            raise InputError(f"--config {text}: {key} is given twice")
        options[key] = _option_value(text, offered[key], value.strip())
    return Config(search.name, options, config_label(search.name, options))


def config_label(algorithm: str, options: dict) -> str:
    """A configuration's text in its canonical form, which parse_config reads back: the search,
    then its options in the order given (`wastar:weight=3,bpmx=on`)."""
    return algorithm + ("" if not options else ":" + ",".join(f"{k}={_shown(v)}" for k, v in options.items()))


def _option_value(text: str, option, value: str):
    """`value` read as `option`'s kind; a one-line InputError naming what it takes otherwise."""
    if option.kind in _READERS:
        try:
            return _READERS[option.kind](value)
        except argparse.ArgumentTypeError as error:
            raise InputError(f"--config {text}: {option.name}: {error}") from None
    words = {"choice": {choice: choice for choice in option.choices}, "switch": SWITCH_VALUES,
             "tristate": TRISTATE_VALUES}.get(option.kind)
    if words is None:
        raise InputError(f"--config {text}: {option.name} cannot be given in a configuration")
    if value.lower() not in words:
        raise InputError(f"--config {text}: {option.name} takes {', '.join(words)}, not {value!r}")
    return words[value.lower()]


def _shown(value) -> str:
    """An option's value as a label writes it: numbers with %g, switches and tristates as on/off/auto."""
    if value is True or value is False or value is None:
        return {True: "on", False: "off", None: "auto"}[value]
    if isinstance(value, float):
        short = f"{value:g}"
        return short if float(short) == value else repr(value)
    return str(value)


def slug(text: str) -> str:
    """`text` (a configuration's label, a heuristic's name) as part of a file name:
    `beam:beam_width=100` -> `beam-beam_width=100`, `max(pdb:a.h5, manhattan)` -> `max-pdb-a.h5-manhattan`."""
    return re.sub(r"[^A-Za-z0-9.=_+-]+", "-", text).strip("-")


def limits_tag(time_limit: float, node_limit: int | None = None) -> str:
    """The limits per instance in the name of a results file whose rows record none (a peer's,
    not solve_batch's): "60s", "120s-2e+07n", so that a row found under one limit is never
    resumed under another."""
    return f"{time_limit:g}s" + ("" if node_limit is None else f"-{node_limit:g}n")


def reflected_max_spec(puzzle, partitions, table_kind: str, folder: Path) -> str:
    """The heuristic spec of the maximum over `partitions`, each partition's tables of
    `table_kind` in `folder` read with the reflected lookup; missing tables are built first
    (pdb_build.build.built_file; their build time printed)."""
    lookups = []
    for partition in partitions:
        began = time.perf_counter()
        missing = not (folder / default_file_name(puzzle, partition, table_kind=table_kind)).exists()
        path = built_file(puzzle, partition, folder, table_kind=table_kind)
        if missing:
            print(f"built {path} in {time.perf_counter() - began:.1f} s", flush=True)
        lookups.append(f"pdb:{path}+reflect")
    return lookups[0] if len(lookups) == 1 else f"max({', '.join(lookups)})"


def read_rows(path: Path) -> dict[int, dict]:
    """The rows of a results CSV file (solve_batch's, or any with an `id` column), by instance id."""
    with Path(path).open() as handle:
        return {int(row["id"]): row for row in csv.DictReader(handle)}


def mean_or_blank(values) -> float | str:
    """The mean rounded to 3 decimals; "" (an empty table cell) for no values."""
    values = list(values)
    return round(sum(values) / len(values), 3) if values else ""


@dataclass(frozen=True)
class Series:
    """Points of a plot: (seconds, length, note) each, the note written beside its point when
    not empty; `style` goes to matplotlib's plot (marker, linestyle, colour)."""

    label: str
    points: list[tuple[float, float, str]]
    style: dict


def plot_length_against_seconds(path: Path, series: list[Series], title: str, xlabel: str) -> Path | None:
    """Mean length against mean seconds per instance (log scale), one line or marker set per
    series, written to `path` (PNG) atomically; None, and nothing written, without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 5))
    drawn = [one for one in series if one.points]
    for one in drawn:
        axes.plot([p[0] for p in one.points], [p[1] for p in one.points], label=one.label, **one.style)
        for seconds, length, note in one.points:
            if note:
                axes.annotate(note, (seconds, length), textcoords="offset points", xytext=(4, 4), fontsize=8)
    axes.set(xscale="log", xlabel=xlabel, ylabel="mean length (moves)", title=title)
    return saved_figure(figure, path, legend=bool(drawn))


def saved_figure(figure, path: Path, legend: bool = True) -> Path:
    """Write a matplotlib `figure` (with its axes' legend where `legend`) to `path` as PNG,
    atomically, and close it; returns `path`."""
    import matplotlib.pyplot as plt

    if legend:
        for axes in figure.axes:
            axes.legend()
    figure.tight_layout()
    with atomic_target(path) as temporary:
        figure.savefig(temporary, dpi=110, format="png")
    plt.close(figure)
    return path


# The small process run_measured starts the command from: a child's peak resident memory
# (ru_maxrss) counts the memory of the process it was started from (Linux keeps the high-water
# mark across fork and exec), so the command is started from this one of a few MB, which sends
# the command's ru_maxrss (kB, from wait4) through the pipe named by its first argument, passes
# SIGTERM on, leaves Ctrl-C to the command (it has the terminal's too) and exits with its status.
_SPAWNER = r"""
import os, signal, sys
pid = os.fork()
if pid == 0:
    os.close(int(sys.argv[1]))
    os.execv(sys.argv[2], sys.argv[2:])
def forward(signum, frame):
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, forward)
_, status, usage = os.wait4(pid, 0)
os.write(int(sys.argv[1]), str(usage.ru_maxrss).encode())
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def run_measured(command: list[str], job: str | None = None, on_line=None) -> tuple[int, float]:
    """Run `command` (its first item an executable's path; `job` on its stdin if given, each line
    of its stdout to `on_line` if given, else to ours) and wait for it: its exit status (128 + the
    signal's number if a signal ended it) and its peak resident memory in MB, its own alone (not
    that of this process, which a child started from it directly would count). Any exception
    here (Ctrl-C, or one raised by `on_line`) ends the command with SIGTERM, waits for it and is
    raised."""
    read_end, write_end = os.pipe()
    try:
        process = subprocess.Popen([sys.executable, "-S", "-c", _SPAWNER, str(write_end), *command],
                                   stdin=None if job is None else subprocess.PIPE,
                                   stdout=None if on_line is None else subprocess.PIPE, text=True, pass_fds=(write_end,))
    finally:
        os.close(write_end)
    with os.fdopen(read_end) as measured:
        try:
            if job is not None:
                process.stdin.write(job)
                process.stdin.close()
            if on_line is not None:
                for line in process.stdout:
                    on_line(line)
            status = process.wait()
        except BaseException:
            process.terminate()
            process.wait()
            raise
        finally:
            if process.stdout is not None:
                process.stdout.close()
        kilobytes = measured.read().strip()
    return status, int(kilobytes) / 1024 if kilobytes else 0.0
