"""build.py -- build a partition's pattern databases into one file, or load it if it exists.

`plan_build` lays out every pattern's abstract space and works out the memory the build
needs at its peak (the finished tables kept for writing plus the largest work table and
layout); `build_pdb_file` checks that memory, builds the tables one by one and writes the
file atomically; `load_or_build` is the one entry point the solvers use.
"""

from __future__ import annotations

import resource
import shutil
from dataclasses import dataclass
from pathlib import Path

from pdb_build.abstraction import AbstractSpace, abstract_space
from pdb_build.bfs import BuiltTable, build_table, check_memory, size_text, work_bytes
from pdb_build.compress import NONE, Compression, parse_compression
from pdb_build.partitions import Partition
from pdb_build.ranking import check_pattern_size, n_placements
from pdb_build.store import (
    ADDITIVE, DEFAULT_CODEC, PLAIN, ZERO_AWARE, PatternDatabase, build_facts, check_codec, check_target,
    default_file_name, load_partition, write_partition,
)
from solvers.atomic import open_lock, taking_turn
from solvers.errors import InputError
from solvers.puzzle import Puzzle


@dataclass(frozen=True)
class BuildPlan:
    puzzle: Puzzle
    partition: Partition
    additive: bool
    spaces: tuple[AbstractSpace, ...]
    zero_aware: bool = False

    @property
    def table_entries(self) -> list[int]:
        if self.zero_aware:
            return [s.n_states for s in self.spaces]
        return [n_placements(self.puzzle.n_cells, len(p)) for p in self.partition.patterns]

    @property
    def memory_needed(self) -> int:
        """Peak bytes: every finished table, plus the largest work table and its layout (a
        zero-aware table is its work table: counted once)."""
        layouts = [sum(a.nbytes for a in vars(s).values() if hasattr(a, "nbytes")) for s in self.spaces]
        work = [0 if self.zero_aware else work_bytes(s) for s in self.spaces]
        return sum(self.table_entries) + max(w + b for w, b in zip(work, layouts))


def plan_build(puzzle: Puzzle, partition: Partition, additive: bool = True, zero_aware: bool = False) -> BuildPlan:
    """Lay out the partition's patterns, refusing up front any that cannot fit in memory (and a
    zero-aware build of non-additive tables)."""
    if zero_aware and not additive:
        raise InputError("zero-aware tables are additive: --zero-aware cannot be combined with --non-additive")
    for pattern in partition.patterns:
        check_pattern_size(puzzle.n_cells, len(pattern))
        lower_bound = 2 * n_placements(puzzle.n_cells, len(pattern))
        check_memory(lower_bound, f"the table of tiles {','.join(map(str, pattern))}")
    spaces = tuple(abstract_space(puzzle, pattern, additive) for pattern in partition.patterns)
    plan = BuildPlan(puzzle, partition, additive, spaces, zero_aware)
    check_memory(plan.memory_needed, f"building partition {partition.name}")
    return plan


def build_tables(plan: BuildPlan, *, progress: bool = False) -> list[BuiltTable]:
    """Build every table of the plan, in pattern order."""
    return [
        build_table(space, pattern, progress=progress, zero_aware=plan.zero_aware)[0]
        for space, pattern in zip(plan.spaces, plan.partition.patterns)
    ]


def build_pdb_file(
    plan: BuildPlan, path: str | Path, *, force: bool = False, progress: bool = False, codec: str = DEFAULT_CODEC,
    compression: Compression = NONE,
) -> tuple[Path, list[BuiltTable]]:
    """Build the plan's tables and write them to `path`, encoded with `compression`
    (compress.py) and stored with `codec` (store.CODECS); `path` is refused if it exists,
    unless `force`, and so is delta encoding of plain tables, before anything is built."""
    path = Path(path)
    check_target(path, force)
    check_codec(codec)
    if compression.delta and not plan.zero_aware:
        raise InputError("--compress delta needs zero-aware tables (--zero-aware): in a plain table one move can "
                         "change an entry by more than one, which one bit cannot follow")
    if compression != NONE:  # encoding copies the largest table once more
        check_memory(plan.memory_needed + max(plan.table_entries), f"building and encoding partition {plan.partition.name}")
    check_disk_space(path, sum(plan.table_entries))
    built = build_tables(plan, progress=progress)
    path = write_partition(path, plan.puzzle, plan.partition, built, force=force, codec=codec, compression=compression)
    return path, built


def encode_pdb_file(
    source: str | Path, path: str | Path, compression: Compression, *, force: bool = False, codec: str = DEFAULT_CODEC,
) -> tuple[Path, list[BuiltTable]]:
    """Write the tables of the uncompressed PDB file `source` (loaded and verified) to `path`
    encoded with `compression`, without building them again; each table keeps its build
    facts (level sizes, build seconds). Refuses a `source` that is already encoded."""
    path = Path(path)
    check_target(path, force)
    check_codec(codec)
    database = load_partition(source)
    if database.compression != NONE:
        raise InputError(f"{database.path}: already encoded ({database.compression.name}); encode an uncompressed file")
    if database.cost_model != ADDITIVE:
        raise InputError(f"{database.path}: holds {database.cost_model} tables; only additive tables are encoded")
    check_disk_space(path, database.buffer.nbytes)
    built = [
        BuiltTable(pattern, True, table, facts.level_sizes, facts.seconds, database.table_kind == ZERO_AWARE)
        for pattern, table, facts in zip(database.partition.patterns, database.tables, build_facts(database.path))
    ]
    path = write_partition(path, database.puzzle, database.partition, built, force=force, codec=codec,
                           compression=compression)
    return path, built


def check_disk_space(path: Path, needed: int) -> None:
    """Refuse up front when the file (at most `needed` bytes: the tables uncompressed) may not
    fit on its disk or under the process's file-size limit."""
    folder = next((p for p in [path.parent, *path.parent.parents] if p.exists()), Path("."))
    free = shutil.disk_usage(folder).free
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    room = free if limit == resource.RLIM_INFINITY else min(free, limit)
    if needed + (1 << 20) > room:
        raise InputError(f"cannot write {path}: it needs up to {size_text(needed)} but only {size_text(room)} can be written there")


def built_file(puzzle: Puzzle, partition: Partition, folder: str | Path, *, table_kind: str = PLAIN,
               form: str = "none", progress: bool = False) -> Path:
    """The file of `partition` for `puzzle` in `folder` (default_file_name), of `table_kind`
    ("plain" or "zero-aware") and encoded as `form` (compress.parse_compression's text), built
    first where it is missing (made_once), or encoded from the unencoded file (itself built if
    missing)."""
    compression = parse_compression(form)
    path = Path(folder) / default_file_name(puzzle, partition, table_kind=table_kind, compression=compression)

    def make():
        if form == "none":
            build_pdb_file(plan_build(puzzle, partition, zero_aware=table_kind == ZERO_AWARE), path, progress=progress)
        else:
            encode_pdb_file(built_file(puzzle, partition, folder, table_kind=table_kind, progress=progress), path,
                            compression)

    return made_once(path, make)


def made_once(path: Path, make) -> Path:
    """`path`, made first by `make()` where it is missing. Processes that need a missing file at
    once take turns (solvers/atomic.py's taking_turn): one makes it and the others then find it,
    where each would otherwise make it and all but the first refuse the file that appeared. A
    one-line InputError where the folder of `path` cannot be written."""
    if path.exists():
        return path
    try:
        lock = open_lock(path)
    except OSError as error:
        raise InputError(f"cannot write {path}: {error.strerror or error}") from None
    with taking_turn(lock):
        if not path.exists():  # else made meanwhile by the process that held the turn
            make()
    return path


def load_or_build(
    puzzle: Puzzle, partition: Partition, path: str | Path, *, progress: bool = False
) -> PatternDatabase:
    """Load the verified additive PDB at `path`, building and writing it first if it is missing (made_once)."""
    path = Path(path)
    made_once(path, lambda: build_pdb_file(plan_build(puzzle, partition, additive=True), path, progress=progress))
    database = load_partition(path, puzzle, partition)
    if database.cost_model != ADDITIVE:
        raise InputError(f"{path}: holds {database.cost_model} tables, not additive ones")
    return database
