"""store.py -- pattern databases as self-describing HDF5 files: write atomically, load verified.

One file per partition. File attributes describe the partition; each pattern's table is a
1-D uint8 dataset `pattern_<i>` (stored with one of CODECS: uncompressed and contiguous by
default, so that a load maps the file's own bytes and any HDF5 reader takes it; Zstandard
through hdf5plugin, chunked, is several times smaller and is decompressed into each process's
memory at every load, gzip slower still, see BENCHMARKS.md) whose attributes hold everything
needed to use and trust it: its tiles, board, goal, cost model, ranking scheme, entry count,
maximum, mean and histogram of values, build seconds, format and package versions and a
SHA-256 checksum of the table bytes. The file attribute `file_checksum`
(solvers/file_checksum.py) covers every attribute of the file and its tables, the tables'
checksums among them: a file whose attributes were changed after it was written is refused.

A *zero-aware* file (`table_kind = "zero-aware"`, format version 2) holds per pattern one
byte per (placement, blank region) (bfs.py, `zero_aware`): the dataset is indexed by
(block_offset[map] + region) * k! + order, the layout of abstraction.region_layout, which
depends only on the board and k and is recomputed on load (a small cost beside reading the
tables) rather than stored. Plain files keep format version 1 and no `table_kind` attribute is
needed to read them (files written before zero-aware tables existed load unchanged); a tilepdb
that predates zero-aware tables refuses a version-2 file by its version.

A *compressed* file (`build-pdb --compress`, format version 3, attribute `compression`: min:K,
nibble or delta, see compress.py) stores each table encoded; its `entries` attribute counts
the uncompressed entries, `stored_entries` and `bits_per_entry` the encoded ones, the checksum
covers the stored bytes, and max, mean and histogram describe the values a lookup yields
(after min-merging; the original values for the lossless encodings).

Loading checks the format and version, the file checksum, the ranking scheme (the index
layout of ranking.py), every table's checksum, and the board, goal and partition against what
the caller expects, and refuses any mismatch with a one-line PdbError. There is one stored copy
of each table, the file's: an uncompressed table is mapped read-only from the file itself (every
process of a machine shares it through the page cache) and an encoded one is read into memory;
either way its checksum is computed again at every load, so bytes changed since the last load
are never used.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import h5py
import hdf5plugin
import numpy as np

from pdb_build.abstraction import region_layout
from pdb_build.bfs import BuiltTable, table_stats
from pdb_build.compress import NONE, Compression, check_compressible, compress, parse_compression
from pdb_build.pages import table_memory
from pdb_build.partitions import Partition, check_patterns, preset_names
from pdb_build.ranking import RANKING_SCHEME, check_pattern_size, n_placements
from solvers.atomic import atomic_target, output_target
from solvers.errors import InputError
from solvers.file_checksum import FILE_CHECKSUM, file_checksum
from solvers.puzzle import Puzzle, parse_board

FORMAT = "tilepdb-pattern-database"
FORMAT_VERSION = 1  # plain tables (one value per placement)
ZERO_AWARE_FORMAT_VERSION = 2  # zero-aware tables (one value per placement and blank region)
COMPRESSED_FORMAT_VERSION = 3  # either kind, encoded (compress.py)
PLAIN, ZERO_AWARE = "plain", "zero-aware"
TABLE_KINDS = {PLAIN: FORMAT_VERSION, ZERO_AWARE: ZERO_AWARE_FORMAT_VERSION}
CHUNK_ENTRIES = 1 << 22
ADDITIVE, NON_ADDITIVE = "additive", "non-additive"
CODECS = {
    "zstd": dict(hdf5plugin.Zstd(clevel=3)),
    "gzip": dict(compression="gzip", compression_opts=4),
    "none": {},
}
DEFAULT_CODEC = "none"


class PdbError(InputError):
    """A PDB file that cannot be used; the message names the file and the reason."""


@dataclass(frozen=True)
class PatternDatabase:
    """A loaded, verified partition file: one table per pattern."""

    path: Path
    puzzle: Puzzle
    partition: Partition
    cost_model: str
    buffer: np.ndarray  # memory holding every table (read-only): the mapped file, its tables read, or a merge's
    tables: tuple[np.ndarray, ...]  # views of `buffer`, one per pattern
    checksums: tuple[str, ...] = ()  # SHA-256 of each table, as verified on load
    table_kind: str = PLAIN  # or ZERO_AWARE
    # zero-aware only, per pattern: (block_offset, region_of_cell) of abstraction.region_layout
    layouts: tuple[tuple[np.ndarray, np.ndarray], ...] = ()
    compression: Compression = NONE  # how `tables` are encoded (compress.py)

    @property
    def checksum(self) -> str:
        """One SHA-256 over the tables' checksums: what a batch records of the file it used."""
        return hashlib.sha256(";".join(self.checksums).encode()).hexdigest()


def package_version() -> str:
    try:
        return metadata.version("tilepdb")
    except metadata.PackageNotFoundError:
        return "unknown"


def goal_id(puzzle: Puzzle) -> str:
    """A short name of the goal for file names: blank-last, blank-first, or a hash."""
    n = puzzle.n_cells
    if puzzle.goal.tolist() == [*range(1, n), 0]:
        return "blank-last"
    if puzzle.goal.tolist() == list(range(n)):
        return "blank-first"
    return "goal-" + hashlib.sha1(puzzle.goal.tobytes()).hexdigest()[:8]


def default_file_name(puzzle: Puzzle, partition: Partition, cost_model: str = ADDITIVE, table_kind: str = PLAIN,
                      compression: Compression = NONE) -> str:
    """The file name derived from board, goal, partition, cost model, table kind and compression."""
    suffix = "" if cost_model == ADDITIVE else f"-{cost_model}"
    suffix += "" if table_kind == PLAIN else f"-{table_kind}"
    suffix += "" if compression == NONE else f"-{compression.name.replace(':', '')}"
    return f"{puzzle.board}-{goal_id(puzzle)}-{partition.name}{suffix}.h5"


def checksum(table: np.ndarray) -> str:
    return "sha256:" + hashlib.sha256(np.ascontiguousarray(table)).hexdigest()


def build_command(database: PatternDatabase, out: str | Path | None = None) -> str:
    """The build-pdb command that writes a file of the same tables as `database`'s, at `out`
    (default: its path)."""
    return _command(database.puzzle, _pattern_words(database.partition.patterns), database.cost_model,
                    database.table_kind, database.compression, database.path if out is None else out)


def _pattern_words(patterns) -> list[str]:
    return [f"--pattern {','.join(map(str, p))}" for p in patterns]


def _command(puzzle: Puzzle, partition_words: list[str], cost_model: str, table_kind: str, compression: Compression,
             out, *, force: bool = False) -> str:
    """The build-pdb command of a file of `puzzle`'s board and goal, the partition `partition_words`
    name (--pattern or --preset words), its cost model, table kind and compression, at `out`."""
    words = ["build-pdb", "--board", puzzle.board]
    if puzzle != Puzzle(puzzle.rows, puzzle.cols):
        words += ["--goal", f"'{' '.join(map(str, puzzle.goal))}'"]
    words += partition_words
    words += ["--non-additive"] if cost_model == NON_ADDITIVE else []
    words += ["--zero-aware"] if table_kind == ZERO_AWARE else []
    words += [] if compression == NONE else ["--compress", compression.name]
    words += ["--force"] if force else []
    return " ".join([*words, "--out", str(out)])


def check_target(path: Path, force: bool) -> None:
    """Refuse, before any work, a path that cannot take a file (a folder, a device, a FIFO, a
    stream: atomic.output_target), and an existing file unless `force`."""
    output_target(path)
    if path.exists() and not force:
        raise PdbError(f"{path} exists; use --force to overwrite it")


def check_codec(codec: str) -> None:
    if codec not in CODECS:
        raise InputError(f"unknown codec {codec!r}; choose one of {', '.join(CODECS)}")


def write_partition(
    path: str | Path, puzzle: Puzzle, partition: Partition, built: list[BuiltTable], *, force: bool = False,
    codec: str = DEFAULT_CODEC, compression: Compression = NONE,
) -> Path:
    """Write the tables of `partition` to `path` atomically (temporary file, then rename),
    encoded with `compression` (compress.py) and stored with `codec` (a key of CODECS).

    Refuses an existing `path` unless `force`, an unknown codec and an encoding that cannot
    hold a table (compress.check_compressible). On any failure no file is left at `path` (an
    existing one is untouched) and the temporary file is removed.
    """
    path = Path(path)
    check_target(path, force)
    check_codec(codec)
    cost_model = ADDITIVE if all(b.additive for b in built) else NON_ADDITIVE
    kinds = {ZERO_AWARE if b.zero_aware else PLAIN for b in built}
    if len(kinds) != 1:
        raise InputError("one file holds tables of one kind: all zero-aware or none")
    table_kind = kinds.pop()
    for table in built:
        check_compressible(compression, table.table, table.zero_aware, f"the table of tiles {','.join(map(str, table.pattern))}")
    try:
        with atomic_target(path) as temporary, h5py.File(temporary, "w") as handle:
            common = {
                "format": FORMAT,
                "format_version": TABLE_KINDS[table_kind] if compression == NONE else COMPRESSED_FORMAT_VERSION,
                "table_kind": table_kind,
                "compression": compression.name,
                "package_version": package_version(),
                "board_rows": puzzle.rows,
                "board_cols": puzzle.cols,
                "goal": puzzle.goal.astype(np.int64),
                "cost_model": cost_model,
                "ranking_scheme": RANKING_SCHEME,
            }
            handle.attrs.update(common)
            handle.attrs.update(
                partition=partition.name,
                patterns=";".join(",".join(map(str, p)) for p in partition.patterns),
                n_patterns=len(partition.patterns),
                created=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            )
            for number, table in enumerate(built):
                factorial_k = math.factorial(len(table.pattern))
                stored = compress(table.table, factorial_k, compression)
                # uncompressed tables contiguous, so that a load maps them; a filter needs chunks
                chunks = (min(CHUNK_ENTRIES, stored.size),) if CODECS[codec] else None
                dataset = handle.create_dataset(f"pattern_{number}", data=stored, chunks=chunks, **CODECS[codec])
                stats = table_stats(stored if compression.merge > 1 else table.table)
                dataset.attrs.update(common)
                dataset.attrs.update(
                    tiles=np.array(table.pattern, dtype=np.int64),
                    entries=table.table.size,
                    stored_entries=compression.stored_entries(table.table.size // factorial_k, factorial_k),
                    bits_per_entry=compression.bits,
                    max=stats.max,
                    mean=stats.mean,
                    unreached=stats.unreached,
                    histogram=stats.histogram,
                    level_sizes=np.array(table.level_sizes, dtype=np.int64),
                    build_seconds=table.seconds,
                    checksum=checksum(stored),
                )
            handle.attrs[FILE_CHECKSUM] = file_checksum(handle, data=False)
    except OSError as error:
        raise PdbError(f"cannot write {path}: {error.strerror or error}") from None
    return path


@dataclass(frozen=True)
class BuildFacts:
    """What a file records of how one of its tables was built."""

    level_sizes: tuple[int, ...]
    seconds: float


def build_facts(path: str | Path) -> list[BuildFacts]:
    """The build facts of every table of the (loaded, hence verified) file at `path`."""
    with h5py.File(path, "r") as handle:
        return [BuildFacts(tuple(int(n) for n in handle[f"pattern_{i}"].attrs["level_sizes"]),
                           float(handle[f"pattern_{i}"].attrs["build_seconds"]))
                for i in range(int(handle.attrs["n_patterns"]))]


def load_partition(path: str | Path, puzzle: Puzzle | None = None, partition: Partition | None = None) -> PatternDatabase:
    """Open `path`, verify it and give its tables read-only: an uncompressed table mapped from
    the file itself (processes share it through the page cache), an encoded one read into this
    process's memory; every table's checksum is computed again at every load.

    Refuses (PdbError) a missing or non-HDF5 file, another format or version, a file without a
    file checksum (written by an older tilepdb: the message gives the command that rebuilds it),
    attributes that fail the file checksum, a table that fails its checksum, and, when given, a
    board, goal or partition other than `puzzle`'s and `partition`'s.
    """
    path = Path(path)
    if not path.is_file():
        raise PdbError(f"{path}: no such PDB file; {missing_file_hint(path)}")
    try:
        with path.open("rb") as raw, h5py.File(path, "r") as handle:
            database = _read(path, handle, puzzle, partition, raw)
            if os.stat(path).st_ino != os.fstat(raw.fileno()).st_ino:  # replaced while read: mixed versions
                raise PdbError(f"{path}: was replaced while it was loaded; load it again")
            return database
    except Exception as error:
        if not raised_by_h5py(error):  # a bug of ours: shown as it is
            raise
        raise PdbError(f"{path}: not a readable tilepdb PDB file ({_reason(error)})") from None


# default_file_name's form: board, goal id, partition, then the suffixes of its options
_DEFAULT_NAME = re.compile(r"(?P<board>[0-9]+x[0-9]+)-(?P<goal>blank-first|blank-last)-(?P<partition>[0-9-]+?)"
                           r"(?P<non_additive>-non-additive)?(?P<zero_aware>-zero-aware)?"
                           r"(?:-(?P<compression>min[0-9]+|nibble|delta))?\.h5")


def missing_file_hint(path: Path) -> str:
    """How to make the missing PDB file `path`: the build-pdb command, where its name is one
    that build-pdb gives a preset's file (default_file_name), else where to look."""
    match = _DEFAULT_NAME.fullmatch(path.name)
    try:
        puzzle = Puzzle(*parse_board(match["board"])) if match else None
        form = (match["compression"] if match else None) or "none"
        compression = parse_compression(f"min:{form[3:]}" if form.startswith("min") else form)
    except InputError:  # a board or an encoding build-pdb does not make
        puzzle = None
    if puzzle is None or match["partition"] not in preset_names(puzzle):
        return "build it with build-pdb (see build-pdb --help)"
    if match["goal"] == "blank-first":
        puzzle = Puzzle(puzzle.rows, puzzle.cols, np.arange(puzzle.n_cells))
    return "build it with: " + _command(
        puzzle, ["--preset", match["partition"]], NON_ADDITIVE if match["non_additive"] else ADDITIVE,
        ZERO_AWARE if match["zero_aware"] else PLAIN, compression, path)


def raised_by_h5py(error: Exception) -> bool:
    """Whether h5py raised `error` (its innermost frame is h5py's): reading a file that is not
    HDF5 or whose structures are damaged raises OSError, KeyError, RuntimeError, ValueError...
    from deep inside h5py, and every one of them means a bad file."""
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    return frame is not None and "h5py" in Path(frame.tb_frame.f_code.co_filename).parts


def _reason(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _check_ranking(path: Path, attrs) -> None:
    scheme = attrs.get("ranking_scheme")
    if scheme != RANKING_SCHEME:
        raise PdbError(
            f"{path}: indexed by ranking scheme {scheme!r}, not {RANKING_SCHEME!r}, the scheme "
            "this tilepdb reads; rebuild it with build-pdb"
        )


def _read(path: Path, handle: h5py.File, puzzle: Puzzle | None, expected: Partition | None, raw) -> PatternDatabase:
    """The database of the open file `handle` (`raw`: the same file opened for mapping), checked
    as load_partition says."""
    attrs = handle.attrs
    if attrs.get("format") != FORMAT:
        raise PdbError(f"{path}: not a tilepdb PDB file")
    version = attrs.get("format_version")
    versions = (*TABLE_KINDS.values(), COMPRESSED_FORMAT_VERSION)
    if version not in versions:
        shown = version.item() if isinstance(version, np.generic) else version
        raise PdbError(
            f"{path}: format version {shown!r} is not {', '.join(map(str, versions))}, the versions "
            "this tilepdb reads; rebuild it with build-pdb"
        )
    _check_file_checksum(path, handle)
    table_kind = str(attrs.get("table_kind", PLAIN))  # files written before table kinds are plain
    try:
        compression = parse_compression(str(attrs.get("compression", "none")))
    except InputError as error:
        raise PdbError(f"{path}: {error}") from None
    expected_version = TABLE_KINDS.get(table_kind) if compression == NONE else COMPRESSED_FORMAT_VERSION
    if table_kind not in TABLE_KINDS or expected_version != version:
        raise PdbError(f"{path}: format version {version} does not match its table kind {table_kind!r} and "
                       f"compression {compression.name!r}; rebuild it with build-pdb")
    _check_ranking(path, attrs)
    try:  # a missing or malformed attribute: a damaged file, not a bug
        stored, patterns, cost_model = _described(attrs)
        partition = Partition(str(attrs["partition"]), patterns)
    except (KeyError, ValueError, TypeError) as error:
        raise PdbError(f"{path}: not a readable tilepdb PDB file (its metadata: {_reason(error)})") from None
    if puzzle is not None and (stored.rows, stored.cols) != (puzzle.rows, puzzle.cols):
        raise PdbError(f"{path}: built for a {stored.board} board, not {puzzle.board}")
    if puzzle is not None and stored != puzzle:
        raise PdbError(
            f"{path}: built for goal {' '.join(map(str, stored.goal))}, not {' '.join(map(str, puzzle.goal))}"
        )
    try:
        check_patterns(stored, patterns)
        for pattern in patterns:
            check_pattern_size(stored.n_cells, len(pattern))
    except InputError as error:
        raise PdbError(f"{path}: its partition is invalid: {error}") from None
    if cost_model not in (ADDITIVE, NON_ADDITIVE):
        raise PdbError(f"{path}: unknown cost model {cost_model!r}")
    if expected is not None and expected.patterns != partition.patterns:
        raise PdbError(f"{path}: holds partition {partition.name} {patterns}, not {expected.name} {expected.patterns}")
    if table_kind == ZERO_AWARE and cost_model != ADDITIVE:
        raise PdbError(f"{path}: zero-aware tables must be additive, not {cost_model}")
    layouts: tuple = ()
    if table_kind == ZERO_AWARE:
        by_size = {k: region_layout(stored, k) for k in {len(p) for p in patterns}}
        layouts = tuple(by_size[len(p)] for p in patterns)
        blocks = [int(layout[0][-1]) for layout in layouts]
    else:
        blocks = [n_placements(stored.n_cells, len(p)) // math.factorial(len(p)) for p in patterns]
    sizes = [compression.stored_bytes(b, math.factorial(len(p))) for b, p in zip(blocks, patterns)]
    datasets = []
    for number, (pattern, size) in enumerate(zip(patterns, sizes)):
        dataset = handle.get(f"pattern_{number}")
        if not isinstance(dataset, h5py.Dataset) or "checksum" not in dataset.attrs:
            raise PdbError(f"{path}: table {number} or its checksum is missing; the file is damaged")
        _check_ranking(path, dataset.attrs)
        if tuple(np.ravel(dataset.attrs.get("tiles", ())).tolist()) != pattern:
            raise PdbError(f"{path}: table {number} is not for the tiles {pattern}")
        if dataset.shape != (size,) or dataset.dtype != np.uint8:
            raise PdbError(f"{path}: table {number} has the wrong shape or type")
        datasets.append(dataset)
    checksums = [str(dataset.attrs["checksum"]) for dataset in datasets]
    buffer, tables = _mapped_tables(raw, datasets) or _read_tables(datasets, sizes)
    for number, (pattern, table) in enumerate(zip(patterns, tables)):
        if checksum(table) != checksums[number]:
            raise PdbError(f"{path}: table {number} (tiles {','.join(map(str, pattern))}) fails its checksum; "
                           "the file is corrupt")
    return PatternDatabase(
        path, stored, partition, cost_model, buffer, tuple(tables), tuple(checksums), table_kind, layouts, compression
    )


def _described(attrs) -> tuple[Puzzle, tuple[tuple[int, ...], ...], str]:
    """(puzzle, patterns, cost model) that a file's attributes give; KeyError, ValueError or
    TypeError where one is missing or malformed."""
    puzzle = Puzzle(int(attrs["board_rows"]), int(attrs["board_cols"]), attrs["goal"])
    patterns = tuple(tuple(int(t) for t in part.split(",")) for part in str(attrs["patterns"]).split(";"))
    return puzzle, patterns, str(attrs["cost_model"])


def _check_file_checksum(path: Path, handle: h5py.File) -> None:
    """Refuse a file without a file checksum (with the command that rebuilds it) or whose
    attributes fail it."""
    stored = handle.attrs.get(FILE_CHECKSUM)
    if stored is None:
        raise PdbError(f"{path}: written by an older tilepdb, without a checksum over its attributes; rebuild it "
                       f"with: {_rebuild_command(path, handle.attrs)}")
    if str(stored) != file_checksum(handle, data=False):
        raise PdbError(f"{path}: its attributes were changed after it was written (they fail the file checksum); "
                       "rebuild it with build-pdb")


def _rebuild_command(path: Path, attrs) -> str:
    """The build-pdb command that writes the file `attrs` describe over `path`, or a general
    advice where the attributes do not say."""
    try:
        puzzle, patterns, cost_model = _described(attrs)
        compression = parse_compression(str(attrs.get("compression", "none")))
    except (KeyError, ValueError, TypeError):  # InputError is a ValueError
        return "build-pdb (see build-pdb --help)"
    table_kind = str(attrs.get("table_kind", PLAIN))
    return _command(puzzle, _pattern_words(patterns), cost_model, table_kind, compression, path, force=True)


def _mapped_tables(raw, datasets: list[h5py.Dataset]) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """(buffer, tables): the whole file `raw` mapped read-only and each dataset's bytes in it,
    if every dataset is stored contiguous and unfiltered (else None)."""
    offsets = [dataset.id.get_offset() for dataset in datasets]
    if any(offset is None or dataset.chunks is not None for offset, dataset in zip(offsets, datasets)):
        return None
    mapped = np.memmap(raw, dtype=np.uint8, mode="r").view(np.ndarray)  # plain arrays for the kernels
    return mapped, [mapped[offset: offset + dataset.size] for offset, dataset in zip(offsets, datasets)]


def _read_tables(datasets: list[h5py.Dataset], sizes: list[int]) -> tuple[np.ndarray, list[np.ndarray]]:
    """(buffer, tables): the datasets read (decompressed) into this process's memory, read-only."""
    buffer = table_memory(sum(sizes))
    tables = [buffer[start: start + size] for start, size in zip(np.cumsum([0, *sizes[:-1]]), sizes)]
    for dataset, table in zip(datasets, tables):
        dataset.read_direct(table)
    for array in (buffer, *tables):
        array.setflags(write=False)
    return buffer, tables
