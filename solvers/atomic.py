"""atomic.py -- outputs that appear whole or not at all: write a temporary file, then rename.

Writers of one file that must not both write it take turns on a lock file beside it (taking_turn).
"""

from __future__ import annotations

import csv
import glob
import os
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from solvers import interrupts

try:
    import fcntl
except ImportError:  # Windows: no lock (taking_turn)
    fcntl = None

# A writer's process id says nothing about writers on other machines sharing the folder (NFS), and
# may have been reused: a temporary file is abandoned only once it has also been left untouched
# this long, far longer than any writer pauses between writes.
ABANDONED_SECONDS = 6 * 3600


@contextmanager
def atomic_target(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside `path` to write; on success it is renamed to `path`.

    On any exception (KeyboardInterrupt included) the temporary file is removed and `path`
    is left as it was. The parent folder is created if needed. The temporary name holds this
    process's id, so that files left by killed writers can be found, and a unique suffix, so
    that writers in several threads never share one.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}-{uuid.uuid4().hex}.tmp")
    try:
        yield temporary
        interrupts.raise_if_requested()  # an interrupt swallowed while writing must not commit
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


def open_lock(path: str | Path) -> IO:
    """The lock file of `path` (`<path>.lock` beside it, left there), opened, its folder made
    if needed; raises OSError where it cannot be (a read-only folder, a full disk)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return open(path.with_name(path.name + ".lock"), "a")


@contextmanager
def taking_turn(lock: IO) -> Iterator[None]:
    """Hold `lock` (open_lock) while the block runs, so that processes writing one file at once
    take turns, then close it. Where no lock can be taken (Windows; NFS without a lock service,
    some FUSE mounts) the block runs without a turn."""
    with lock:
        if fcntl is not None:
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            except OSError:  # no lock service here: no turn taken
                pass
        yield


def _remove_abandoned(path: Path) -> None:
    """Remove temporary files of `path` left by writers that were killed: untouched for
    ABANDONED_SECONDS and not of a process known to run here."""
    now = time.time()
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        pid = stale.name[len(path.name) + 2 : -len(".tmp")].partition("-")[0]
        try:
            untouched = now - stale.stat().st_mtime
        except OSError:  # removed meanwhile
            continue
        if untouched > ABANDONED_SECONDS and not (pid.isdigit() and _known_running(int(pid))):
            stale.unlink(missing_ok=True)


def _known_running(pid: int) -> bool:
    """Whether process `pid` runs on this machine (never known on Windows, where os.kill would end it)."""
    if os.name == "nt":
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_csv(path: str | Path, rows: list[dict], fields: list[str] | None = None) -> Path:
    """Write `rows` as a CSV file with a header of `fields` (default: the first row's keys), atomically."""
    with atomic_target(path) as temporary, temporary.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields or list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return Path(path)
