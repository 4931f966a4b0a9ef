"""table_file.py -- a PDB file's tables, decompressed once into a file that every process maps read-only.

Read into each process's own memory, the tables of one PDB file cost their full size once per
process (a machine running four Dask workers held four copies) and their decompression at every
start. Instead, the first load of a version of a PDB file reads its tables from the HDF5 file,
checks each against its checksum and writes them, uncompressed, to a *table file* beside it
(`<file>.tables`; under `$XDG_CACHE_HOME` or `~/.cache`, `tilepdb-tables/`, where that folder is
read-only), atomically and read-only. Every later load, by any process, finds the table file,
checks that it was written from this version of the PDB file, and maps it read-only: all the
processes of a machine share one copy of the tables in the page cache, and a start costs neither
decompression nor hashing.

Layout: a header of HEADER_BYTES (the magic line, then JSON: the PDB file's size, modification
time, inode and device when it was read, and each table's checksum, offset and size), then the
tables one after the other (the page-aligned header keeps them page-aligned as a whole). The header is written last, so a table file
with a valid header is complete. A PDB file changed since (rebuilt, copied over), a header that
does not match the tables the PDB file declares, or a table file of the wrong size, and the table
file is written again from tables verified anew. Where no table file can be written (a full disk,
read-only folders), the tables are read into this process's memory, as verified as ever.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from pdb_build.pages import table_memory
from solvers.atomic import atomic_target

MAGIC = b"tilepdb-tables 1\n"
HEADER_BYTES = 1 << 16  # a multiple of every page size
SUFFIX = ".tables"


def source_stamp(path: Path) -> dict:
    """What identifies a version of the file at `path`: size, modification time, inode, device."""
    status = path.stat()
    return {"size": status.st_size, "mtime_ns": status.st_mtime_ns, "inode": status.st_ino, "device": status.st_dev}


def table_offsets(sizes: list[int]) -> list[int]:
    """Where each table of `sizes` bytes starts in a table file: one after the other, after the header."""
    return [HEADER_BYTES + int(start) for start in np.cumsum([0, *sizes[:-1]])]


def table_file_candidates(path: Path) -> list[Path]:
    """Where the table file of the PDB file `path` may be, in the order they are tried."""
    user_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tilepdb-tables"
    resolved = path.resolve()
    mangled = "_".join(part for part in resolved.parent.parts if part not in ("/", "\\")) + "_" + resolved.name
    return [resolved.with_name(resolved.name + SUFFIX), user_cache / (mangled + SUFFIX)]


def shared_tables(path: Path, sizes: list[int], checksums: list[str],
                  fill: Callable[[list[np.ndarray]], None]) -> tuple[np.ndarray, list[np.ndarray]]:
    """(buffer, tables): the tables of the PDB file `path` (`sizes` bytes each, declared with
    `checksums`), as read-only views of one mapped table file, written first where none matches
    this version of the file. `fill(tables)` reads the tables from the PDB file into the given
    writable arrays and checks them against their checksums; whatever it raises (PdbError on a
    mismatch) propagates, and no table file is left behind. Without a writable folder, the
    tables are filled into this process's memory instead."""
    header = {"source": source_stamp(path), "checksums": list(checksums), "sizes": list(sizes),
              "offsets": table_offsets(sizes)}
    candidates = table_file_candidates(path)
    for candidate in candidates:
        mapped = _mapped_if_current(candidate, header)
        if mapped is not None:
            return mapped
    for candidate in candidates:
        try:
            _write(candidate, header, fill)
        except _Unwritable:
            continue
        mapped = _mapped_if_current(candidate, header)
        if mapped is not None:
            return mapped
    buffer = table_memory(sum(sizes))
    tables = [buffer[start: start + size] for start, size in zip(np.cumsum([0, *sizes[:-1]]), sizes)]
    fill(tables)
    for array in (buffer, *tables):
        array.setflags(write=False)
    return buffer, tables


class _Unwritable(Exception):
    """The table file cannot be written here (its folder, the disk)."""


def _mapped_if_current(candidate: Path, header: dict) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """The table file `candidate` mapped read-only, if it exists, is complete and matches `header`."""
    try:
        with candidate.open("rb") as handle:
            head = handle.read(HEADER_BYTES)
        size = candidate.stat().st_size
    except OSError:
        return None
    if not head.startswith(MAGIC):
        return None
    try:
        stored = json.loads(head[len(MAGIC):].rstrip(b" \n"))
    except ValueError:
        return None
    if stored != header or size != _file_size(header):
        return None
    mapped = np.memmap(candidate, dtype=np.uint8, mode="r").view(np.ndarray)  # plain arrays for the kernels
    tables = [mapped[start: start + size] for start, size in zip(header["offsets"], header["sizes"])]
    return mapped[HEADER_BYTES:], tables


def _file_size(header: dict) -> int:
    return header["offsets"][-1] + header["sizes"][-1]


def _write(candidate: Path, header: dict, fill: Callable[[list[np.ndarray]], None]) -> None:
    """Write the table file `candidate` atomically: the tables (filled and checked by `fill`),
    then the header; read-only once complete. Raises _Unwritable where the file cannot be
    written; what `fill` raises propagates."""
    encoded = MAGIC + json.dumps(header).encode()
    if len(encoded) >= HEADER_BYTES:
        raise _Unwritable("the header of the table file is too large")
    total = _file_size(header)
    try:
        candidate.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _Unwritable(str(error)) from error
    with atomic_target(candidate) as temporary:
        try:
            with temporary.open("wb") as handle:
                if hasattr(os, "posix_fallocate"):  # the space taken now: a full disk is an error here,
                    os.posix_fallocate(handle.fileno(), 0, total)  # not a SIGBUS while the map is written
                else:
                    handle.truncate(total)
            writable = np.memmap(temporary, dtype=np.uint8, mode="r+", shape=(total,))
        except OSError as error:
            raise _Unwritable(str(error)) from error
        fill([writable[start: start + size] for start, size in zip(header["offsets"], header["sizes"])])
        try:
            writable.flush()
            del writable
            with temporary.open("r+b") as handle:
                handle.write(encoded + b" " * (HEADER_BYTES - len(encoded) - 1) + b"\n")
                handle.flush()
                os.fsync(handle.fileno())
            temporary.chmod(0o444)
        except OSError as error:
            raise _Unwritable(str(error)) from error
