"""atomic.py -- outputs that appear whole or not at all: write a temporary file, then rename."""

from __future__ import annotations

import csv
import glob
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from solvers import interrupts


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


def _remove_abandoned(path: Path) -> None:
    """Remove temporary files of `path` left by writers that were killed (their process is gone)."""
    for stale in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        pid = stale.name[len(path.name) + 2 : -len(".tmp")].partition("-")[0]
        if pid.isdigit() and not _running(int(pid)):
            stale.unlink(missing_ok=True)


def _running(pid: int) -> bool:
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
