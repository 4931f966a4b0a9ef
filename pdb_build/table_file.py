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
time and inode when it was read, and each table's checksum, offset and size), then the
tables one after the other. The header is written last, so a table file with a valid header is
complete. A PDB file changed since (rebuilt, copied over), a header that
does not match the tables the PDB file declares, or a table file of the wrong size, and the table
file is written again from tables verified anew. Processes that load a file at once take turns
on a lock file (`<file>.tables.lock`): one writes, the others map what it wrote. Where no lock
can be taken (Windows; NFS without a lock service, some FUSE mounts), two first loads at once each
write their own temporary file and rename it: the last rename wins, and every file a reader maps
is whole all the same. Temporary files of killed writers are removed by a later writer once
they are old (solvers/atomic.py), never those of a writer that may still run. Where no table
file can be written (a full disk, read-only folders), the tables are read into this process's
memory, as verified as ever. The body of a table file is trusted once written (it is not hashed
again at each load): `verify-pdb` reads the PDB file itself, and removes a table file whose
tables differ from the verified ones.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from pdb_build.pages import table_memory
from solvers.atomic import atomic_target, open_lock, taking_turn

MAGIC = b"tilepdb-tables 1\n"
HEADER_BYTES = 1 << 16  # a multiple of every page size
SUFFIX = ".tables"


def source_stamp(path: Path) -> dict:
    """What identifies a version of the file at `path`: its size, modification time and inode (not
    its device, which differs between the clients of one network file system)."""
    status = path.stat()
    return {"size": status.st_size, "mtime_ns": status.st_mtime_ns, "inode": status.st_ino}


def table_offsets(sizes: list[int]) -> list[int]:
    """Where each table of `sizes` bytes starts in a table file: one after the other, after the header."""
    return [HEADER_BYTES + int(start) for start in np.cumsum([0, *sizes[:-1]])]


def table_file_candidates(path: Path) -> list[Path]:
    """Where the table file of the PDB file `path` may be, in the order they are tried."""
    resolved = path.resolve()
    beside = resolved.with_name(resolved.name + SUFFIX)
    try:
        user_cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tilepdb-tables"
    except RuntimeError:  # no home folder
        return [beside]
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    return [beside, user_cache / f"{resolved.name}.{digest}{SUFFIX}"]


def table_header(path: Path, sizes: list[int], checksums: list[str]) -> dict:
    """The header a table file of this version of `path` holds."""
    return {"source": source_stamp(path), "checksums": list(checksums), "sizes": list(sizes),
            "offsets": table_offsets(sizes)}


def shared_tables(path: Path, sizes: list[int], checksums: list[str],
                  fill: Callable[[list[np.ndarray]], None]) -> tuple[np.ndarray, list[np.ndarray]]:
    """(buffer, tables): the tables of the PDB file `path` (`sizes` bytes each, declared with
    `checksums`), as read-only views of one mapped table file, written first where none matches
    this version of the file. `fill(tables)` reads the tables from the PDB file into the given
    writable arrays and checks them against their checksums; whatever it raises (PdbError on a
    mismatch) propagates, and no table file is left behind. Without a writable folder, the
    tables are filled into this process's memory instead."""
    header = table_header(path, sizes, checksums)
    candidates = table_file_candidates(path)
    for candidate in candidates:
        mapped = _mapped_if_current(candidate, header)
        if mapped is not None:
            return mapped
    for candidate in candidates:
        try:
            with _turn(candidate):
                mapped = _mapped_if_current(candidate, header)  # written meanwhile by another process?
                if mapped is None:
                    _write(candidate, header, fill)
                    mapped = _mapped_if_current(candidate, header)
        except _Unwritable:
            continue
        if mapped is not None:
            return mapped
    return private_tables(sizes, fill)


def private_tables(sizes: list[int], fill: Callable[[list[np.ndarray]], None]) -> tuple[np.ndarray, list[np.ndarray]]:
    """(buffer, tables) filled by `fill` in this process's own memory, read-only."""
    buffer = table_memory(sum(sizes))
    tables = [buffer[start: start + size] for start, size in zip(np.cumsum([0, *sizes[:-1]]), sizes)]
    fill(tables)
    for array in (buffer, *tables):
        array.setflags(write=False)
    return buffer, tables


def discard_if_different(path: Path, tables: list[np.ndarray], checksums: list[str]) -> list[Path]:
    """Remove every table file of this version of `path` whose tables differ from `tables` (which
    were verified against `checksums`); returns the files removed."""
    header = table_header(path, [t.size for t in tables], checksums)
    removed = []
    for candidate in table_file_candidates(path):
        mapped = _mapped_if_current(candidate, header)
        if mapped is not None and not all(np.array_equal(a, b) for a, b in zip(mapped[1], tables)):
            del mapped
            candidate.unlink(missing_ok=True)
            removed.append(candidate)
    return removed


class _Unwritable(Exception):
    """The table file cannot be written here (its folder, the disk)."""


@contextmanager
def _turn(candidate: Path) -> Iterator[None]:
    """Hold the lock of `candidate`'s table file (solvers/atomic.py's taking_turn) while the block runs."""
    try:
        lock = open_lock(candidate)
    except OSError as error:
        raise _Unwritable(str(error)) from error
    with taking_turn(lock):
        yield


def _mapped_if_current(candidate: Path, header: dict) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """The table file `candidate` mapped read-only, if it exists, is complete and matches `header`.
    Header, size and map come from one open file, so a file renamed over it meanwhile is never mixed in."""
    try:
        with candidate.open("rb") as handle:
            head = handle.read(HEADER_BYTES)
            if not head.startswith(MAGIC):
                return None
            try:
                stored = json.loads(head[len(MAGIC):].rstrip(b" \n"))
            except ValueError:
                return None
            if stored != header or os.fstat(handle.fileno()).st_size != _file_size(header):
                return None
            mapped = np.memmap(handle, dtype=np.uint8, mode="r").view(np.ndarray)  # plain arrays for the kernels
    except OSError:
        return None
    tables = [mapped[start: start + size] for start, size in zip(header["offsets"], header["sizes"])]
    return mapped[HEADER_BYTES:], tables


def _file_size(header: dict) -> int:
    return header["offsets"][-1] + header["sizes"][-1]


def _write(candidate: Path, header: dict, fill: Callable[[list[np.ndarray]], None]) -> None:
    """Write the table file `candidate` (its lock held): the tables (filled and checked by `fill`)
    into a temporary file (solvers/atomic.py), then the header, then the rename; read-only once
    complete. Raises _Unwritable where the file cannot be written; what `fill` raises propagates,
    and the temporary file is removed either way."""
    encoded = MAGIC + json.dumps(header).encode()
    if len(encoded) >= HEADER_BYTES:
        raise _Unwritable("the header of the table file is too large")
    total = _file_size(header)
    filled = False
    try:
        with atomic_target(candidate) as temporary:
            _write_tables(temporary, total, header, fill)
            filled = True
            _write_header(temporary, encoded)
    except OSError as error:  # the rename; an OSError of `fill` is its own
        if not filled:
            raise
        raise _Unwritable(str(error)) from error


def _write_tables(temporary: Path, total: int, header: dict, fill: Callable[[list[np.ndarray]], None]) -> None:
    """Allocate `temporary` (`total` bytes) and let `fill` write the tables through a map of it."""
    try:
        with temporary.open("xb") as handle:
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
    except OSError as error:
        raise _Unwritable(str(error)) from error


def _write_header(temporary: Path, encoded: bytes) -> None:
    """Write the header into the first HEADER_BYTES of `temporary`, to disk, and make it read-only."""
    try:
        with temporary.open("r+b") as handle:
            handle.write(encoded + b" " * (HEADER_BYTES - len(encoded) - 1) + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        temporary.chmod(0o444)
    except OSError as error:
        raise _Unwritable(str(error)) from error
