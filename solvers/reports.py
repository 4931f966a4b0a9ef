"""reports.py -- write a Comparison (experiments.py) to files: CSV, Markdown and PNG plots.

The files it writes::

    summary.csv                one row per heuristic (strength measures, IDA* totals, KRE: ratio of
                               the predicted to the measured totals, and the mean per-instance ratio)
    summary.md                 its key columns (TABLE_COLUMNS) in lines of at most WIDTH characters,
                               which compare-heuristics prints too
    per_state.csv              `state`, then h of every heuristic (and `exact` when known)
    per_instance.csv           one row per heuristic and instance
    h_distributions.png, predicted_vs_measured.png, nodes_per_instance.png   (needs matplotlib)
    meta.json                  the command line, seed, package version, date, IDA*'s move pruning and
                               which nodes its counters include (`node_counts`)
    manifest.json              the files above, which a later run with `force` replaces (output_folder.py)
"""

from __future__ import annotations

import itertools
import json
import textwrap
import time
from pathlib import Path

import numpy as np

from solvers.atomic import atomic_target, write_csv
from solvers.experiments import Comparison
from solvers.output_folder import check_folder, claim_folder
from solvers.wording import count

REPORT_FILES = ("summary.csv", "summary.md", "per_state.csv", "per_instance.csv", "meta.json",
                "h_distributions.png", "predicted_vs_measured.png", "nodes_per_instance.png")
OWNER = "compare-heuristics"
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LABEL_SLANT = 45  # degrees: the x labels of the prediction plot, which a logarithmic axis may crowd


def summary_rows(comparison: Comparison) -> list[dict]:
    rows = []
    for measured in comparison.measures:
        row = measured.row()
        mine = [r for r in comparison.instance_rows if r["heuristic"] == measured.name and r["length"] is not None]
        if mine:
            generated = sum(r["nodes_generated"] for r in mine)
            seconds = sum(r["seconds"] for r in mine)
            row.update(instances=len(mine), total_nodes_generated=generated, total_seconds=round(seconds, 3),
                       nodes_per_second=round(generated / max(seconds, 1e-9)),
                       kre_predicted_over_measured=round(sum(r["predicted_last_iteration"] for r in mine)
                                                         / sum(r["last_iteration_expanded"] for r in mine), 4),
                       kre_mean_ratio=round(float(np.mean([r["predicted_last_iteration"] / r["last_iteration_expanded"]
                                                           for r in mine])), 4))
        rows.append(row)
    return rows


def check_report_folder(folder: str | Path, force: bool) -> None:
    """Raise InputError unless `write_report` may write into `folder` (see output_folder.py)."""
    check_folder(folder, REPORT_FILES, force=force, owner=OWNER)


def write_report(comparison: Comparison, folder: str | Path, meta: dict, *, force: bool = False) -> list[Path]:
    """Write every output into `folder` (each file atomically); returns the paths written.

    A folder that holds files is refused unless `force`, which replaces the files of an
    earlier report there and no others (output_folder.py).
    """
    folder = Path(folder)
    claim_folder(folder, REPORT_FILES, force=force, owner=OWNER)
    written = []
    summary = summary_rows(comparison)
    fields = list(dict.fromkeys(k for row in summary for k in row))
    written.append(write_csv(folder / "summary.csv", summary, fields))
    per_state = [{"state": " ".join(map(str, s)), **({"exact": int(comparison.exact[i])} if comparison.exact is not None else {}),
                  **{name: int(v[i]) for name, v in comparison.values.items()}} for i, s in enumerate(comparison.states.tolist())]
    written.append(write_csv(folder / "per_state.csv", per_state))
    if comparison.instance_rows:
        fields = list(dict.fromkeys(k for row in comparison.instance_rows for k in row))
        written.append(write_csv(folder / "per_instance.csv", comparison.instance_rows, fields))
    meta = {**meta, "board": comparison.puzzle.board, "goal": comparison.puzzle.goal.tolist(),
            "states": len(comparison.states), "instances": comparison.n_instances,
            "prune": comparison.prune, "full_last_iteration": comparison.full_last_iteration,
            "bpmx": {None: "auto", True: "on", False: "off"}[comparison.bpmx],
            "node_counts": comparison.node_counts, "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "not_searched": list(comparison.not_searched)}
    written.append(_write_text(folder / "summary.md", _markdown(summary, meta)))
    written.append(_write_text(folder / "meta.json", json.dumps(meta, indent=2) + "\n"))
    written += _plots(comparison, folder, meta)
    return written


def _write_text(path: Path, text: str) -> Path:
    with atomic_target(path) as temporary:
        temporary.write_text(text)
    return path


WIDTH = 100  # the widest line of summary.md (as compare-heuristics prints it too), words allowing

# The columns of summary.md, each (its field in summary.csv, its heading, what it holds); a
# column that no row fills is left out, and summary.csv keeps every field.
TABLE_COLUMNS = (
    ("heuristic", "heuristic", ""),
    ("mean_h", "mean h", "the mean of h over the states"),
    ("mean_h_over_exact", "h / h*", "the mean of h over the exact distance h* (states with h* > 0)"),
    ("admissible_on_sample", "h <= h*", "whether h never exceeded h* on the states"),
    ("evaluations_per_second", "evals/s", "evaluations of h per second"),
    ("total_nodes_generated", "nodes", "the nodes IDA* generated over the instances"),
    ("total_seconds", "seconds", "IDA*'s seconds over the instances"),
    ("kre_predicted_over_measured", "KRE ratio", "KRE's prediction of the nodes of IDA*'s last iterations over the "
     "nodes measured (totals)"),
)
NUMERIC = {"mean_h", "mean_h_over_exact", "evaluations_per_second", "total_nodes_generated", "total_seconds",
           "kre_predicted_over_measured"}


def summary_table(summary: list[dict]) -> tuple[list[str], list[str]]:
    """The Markdown table of the key columns of `summary` (TABLE_COLUMNS), padded to line up as
    plain text, and what its headings mean. Where the heuristics' names would make it wider
    than WIDTH, the rows name them h1, h2, ... and the list below the table says which is which."""
    columns = [c for c in TABLE_COLUMNS if any(row.get(c[0], "") != "" for row in summary)]
    headings, right = [heading for _, heading, _ in columns], [field in NUMERIC for field, _, _ in columns]
    cells = [[_cell(field, row.get(field, "")) for field, _, _ in columns] for row in summary]
    table = _table(headings, cells, right)
    if max(map(len, table)) > WIDTH:
        legend = "; ".join(f"h{number}: `{row[0]}`" for number, row in enumerate(cells, 1))
        table = _table(headings, [[f"h{number}", *row[1:]] for number, row in enumerate(cells, 1)], right)
        table += ["", *_wrapped(f"Heuristics: {legend}.")]
    meaning = "; ".join(f"`{heading}`, {what}" for _, heading, what in columns if what)
    return table, _wrapped(f"Columns: {meaning}. summary.csv holds every measure, per_instance.csv every instance.")


def _cell(field: str, value) -> str:
    if value == "":
        return ""
    if field == "admissible_on_sample":
        return "yes" if value else "no"
    if field in ("evaluations_per_second", "total_nodes_generated"):
        return f"{value:,}"
    return str(value)


def _table(headings: list[str], rows: list[list[str]], right: list[bool]) -> list[str]:
    widths = [max(len(text) for text in column) for column in zip(headings, *rows)]
    widths = [max(width, 3) for width in widths]

    def line(texts):
        return "| " + " | ".join(t.rjust(w) if r else t.ljust(w) for t, w, r in zip(texts, widths, right)) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if r else "-" * (w + 2) for w, r in zip(widths, right)) + "|"
    return [line(headings), rule, *(line(row) for row in rows)]


def _wrapped(text: str) -> list[str]:
    """`text` as lines of at most WIDTH characters, breaking between words only (a Markdown
    paragraph, or a code span, reads the same across the breaks)."""
    return textwrap.wrap(text, WIDTH, break_long_words=False, break_on_hyphens=False)


def _markdown(summary: list[dict], meta: dict) -> str:
    instances = f" · {count(meta['instances'], 'instance')}" if meta["instances"] else ""
    table, key = summary_table(summary)
    lines = [f"# Heuristic comparison, {meta['board']} board", "",
             *_wrapped(f"`{meta['command']}` · tilepdb {meta['package_version']} · seed {meta['seed']} · "
                       f"{count(meta['states'], 'state')} ({meta['source']}){instances} · {meta['date']}"), "",
             *table, "", *key]
    if any("mean_error" in row or "instance_mean_error" in row for row in summary):
        lines += [""] + _wrapped(
            "summary.csv also holds the errors against exact distances h* (on the states; `instance_` at the "
            "instances' starts, against their known lengths): `mean_error` is the mean of h - h*, "
            "`mean_absolute_error` that of |h - h*|, `share_overestimated` the share with h > h*, "
            "`mean_overestimate` and `max_overestimate` the mean and the largest excess there.")
    if meta["not_searched"]:
        lines += [""] + _wrapped(
            "Not searched with IDA*, because they may overestimate (IDA*'s optimality and KRE's prediction "
            f"assume a heuristic that never does): {', '.join(meta['not_searched'])}.")
    if meta["instances"] and len(meta["not_searched"]) < len(summary):
        lines += [""] + _wrapped(f"IDA* with move pruning `{meta['prune']}`; its node counts include "
                                 f"{meta['node_counts']}.")
        lines += [""] + _wrapped(
            "KRE: Korf, Reid & Edelkamp's prediction of the nodes expanded by IDA*'s last iteration; "
            "`kre_mean_ratio` in summary.csv is the mean of the per-instance ratios.")
    return "\n".join(lines) + "\n"


def figures(comparison: Comparison, meta: dict) -> dict:
    """The plots by file name, as matplotlib figures (Agg backend): the distribution of h, and
    with solved instances the KRE prediction against the measurement and the nodes per instance
    (one marker per instance, never joined). Raises ImportError without matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    board, names = f"{meta['board']} board", ", ".join(comparison.values)
    sample = f"{count(len(comparison.states), 'state')} ({meta['source']})"
    plots = {}
    figure, axes = plt.subplots(figsize=(8, 5))
    for name, values in comparison.values.items():
        counts = np.bincount(values) / len(values)
        axes.plot(np.arange(len(counts)), counts, marker=".", label=name)
    if comparison.exact is not None:
        counts = np.bincount(comparison.exact) / len(comparison.exact)
        axes.plot(np.arange(len(counts)), counts, linestyle="--", color="black", label="exact distance")
    axes.set(xlabel="h (moves)", ylabel="share of states", title=f"Distribution of h: {board}, {sample}\n{names}")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.legend()
    plots["h_distributions.png"] = figure
    rows = [r for r in comparison.instance_rows if r.get("last_iteration_expanded")]
    if rows:
        solved = count(len({r["instance"] for r in rows}), "instance")
        figure, axes = plt.subplots(figsize=(7, 6))
        for name in comparison.values:
            mine = [r for r in rows if r["heuristic"] == name]
            axes.scatter([r["last_iteration_expanded"] for r in mine], [r["predicted_last_iteration"] for r in mine],
                         s=14, label=name)
        low = min(min(r["last_iteration_expanded"], r["predicted_last_iteration"]) for r in rows)
        high = max(max(r["last_iteration_expanded"], r["predicted_last_iteration"]) for r in rows)
        axes.plot([low, high], [low, high], color="black", linewidth=0.8, label="prediction = measurement")
        axes.set(xscale="log", yscale="log", xlabel="nodes expanded by the last IDA* iteration (measured)",
                 ylabel="nodes expanded, KRE prediction",
                 title=f"Korf, Reid & Edelkamp (KRE) prediction vs measurement\n{board}, {solved}, "
                 f"h sampled on {sample}\n{names}")
        # a logarithmic axis that spans a decade or two, or less, labels minor ticks too (3x10^3,
        # 4x10^3, ...), wider than the room between them: slanted, each label ends at its tick
        axes.tick_params(axis="x", which="both", labelrotation=LABEL_SLANT, labelrotation_mode="xtick")
        axes.legend()
        plots["predicted_vs_measured.png"] = figure
        figure, axes = plt.subplots(figsize=(9, 5))
        for name, marker in zip(comparison.values, itertools.cycle(MARKERS)):
            mine = sorted((r for r in comparison.instance_rows if r["heuristic"] == name), key=lambda r: r["instance"])
            axes.plot([r["instance"] for r in mine], [max(r["nodes_generated"], 1) for r in mine],
                      linestyle="none", marker=marker, label=name)
        axes.set(yscale="log", xlabel="instance (number in the file)", ylabel="IDA* nodes generated",
                 title=f"IDA* nodes generated per instance: {board}, {solved}\n{names}")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.legend()
        plots["nodes_per_instance.png"] = figure
    return plots


def _plots(comparison: Comparison, folder: Path, meta: dict) -> list[Path]:
    try:
        plots = figures(comparison, meta)
    except ImportError:
        print("matplotlib is not installed (pip install 'tilepdb[plots]'); no plots written")
        return []
    return [_save(figure, folder / name) for name, figure in plots.items()]


def _save(figure, path: Path) -> Path:
    import matplotlib.pyplot as plt

    figure.tight_layout()
    with atomic_target(path) as temporary:
        figure.savefig(temporary, dpi=110, format="png")
    plt.close(figure)
    return path
