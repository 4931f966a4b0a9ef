"""atomic.py -- outputs that appear whole or not at all, and never destroy what is not an output.

atomic_target guarantees:
- A regular file (existing or not) is written as a temporary file beside it, then renamed over
  it: a reader sees the old file or the whole new one, never a part.
- A symbolic link is written through: its final target is written as above (the temporary file
  beside that target, renamed onto it), and the link stays a link. A dangling link creates its
  target.
- A path that exists and is not a regular file (a folder, a FIFO, a device, a socket), a loop of
  links, and a stream name (`-`, /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N) are refused
  with a one-line OutputError naming the path and what it is: renaming a file over /dev/null or a
  FIFO would replace it, and a file that is read back, seeked in or rewritten cannot be a stream.
  Only a writer that streams its output by nature asks for stream names (`stream=True`): they
  are then written straight, with neither temporary file nor rename (`-` being standard output).
- The temporary file is named `.<name>.<host>.<pid>-<unique>.tmp`, where host names this
  machine's process ids (its host name, and on Linux a digest of its boot and process-id
  namespace). The next writer of the file (or taker of its lock, open_lock) removes the temporary
  files of killed writers: at once where host is this one and the process is gone; else (a file
  of another machine sharing the folder, or of an older name without host) once left untouched
  for ABANDONED_SECONDS and not of a process that may run here. A running writer's are kept.

Writers of one file that must not both write it take turns on a lock file beside it
(open_lock, taking_turn); the holder removes the lock file as it gives up its turn, so none is
left once the writers have ended.
"""

from __future__ import annotations

import csv
import functools
import glob
import hashlib
import os
import re
import socket
import stat
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

from solvers import interrupts
from solvers.errors import OutputError

try:
    import fcntl
except ImportError:  # Windows: no lock (taking_turn)
    fcntl = None

# A writer's process id says nothing about writers on other machines sharing the folder (NFS), and
# may have been reused: such a temporary file is abandoned only once it has also been left
# untouched this long, far longer than any writer pauses between writes.
ABANDONED_SECONDS = 6 * 3600

# names that mean an open standard stream or descriptor, never a file to be replaced
STREAM_NAMES = re.compile(r"-|/dev/std(?:out|err)|/dev/fd/\d+|/proc/self/fd/\d+")
STANDARD_OUTPUT = Path("/dev/stdout")

# `.<name>.` is followed by this, then `.tmp`; names without host were written by older versions
_TEMPORARY = re.compile(r"(?:(?P<host>[A-Za-z0-9_-]+)\.)?(?P<pid>\d+)-[0-9a-f]+", re.ASCII)

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


@contextmanager
def atomic_target(path: str | Path, *, stream: bool = False) -> Iterator[Path]:
    """Yield a temporary path to write in place of `path`; on success it is renamed onto
    `path`'s final target (output_target: a link is written through).

    On any exception (KeyboardInterrupt included) the temporary file is removed and the target
    is left as it was. The target's folder is created if needed. The temporary name holds this
    host and process (module docstring), so that files left by killed writers can be found, and
    a unique suffix, so that writers in several threads never share one. Refused (OutputError,
    before anything is written) as output_target refuses. With `stream`, a stream name is
    yielded as a path to open for writing (`-`: /dev/stdout), written straight."""
    path = Path(path)
    target = output_target(path, stream=stream)
    if is_stream_name(path):
        _flush_standard_streams()  # what this process printed comes first
        yield target
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(target)
    temporary = target.with_name(f".{target.name}.{_this_host()}.{os.getpid()}-{uuid.uuid4().hex}.tmp")
    try:
        yield temporary
        interrupts.raise_if_requested()  # an interrupt swallowed while writing must not commit
        os.replace(temporary, target)
    finally:
        if temporary.exists():
            temporary.unlink()


def output_target(path: str | Path, *, stream: bool = False) -> Path:
    """Where writing `path` puts its bytes: `path` itself, or the final target of a symbolic link
    (even a dangling one); with `stream`, a stream name itself (`-`: /dev/stdout).

    Refused with a one-line OutputError: a stream name without `stream`, a loop of links, and an
    existing path that is not a regular file (_KINDS). Reading such a path back could wait for
    a writer forever (a FIFO), so a command that reads its output before writing it asks here first.
    """
    path = Path(path)
    if is_stream_name(path):
        if not stream:
            shown = "- (standard output)" if str(path) == "-" else str(path)
            raise OutputError(f"{shown} is a stream, not a regular file; give a file path")
        return STANDARD_OUTPUT if str(path) == "-" else path
    target = _final(path)
    if target.is_symlink():
        raise OutputError(f"{path} is a loop of symbolic links, not a regular file; give a file path")
    try:
        mode = target.stat().st_mode
    except OSError:  # missing, or its folder unreachable: the writer finds out
        return target
    if stat.S_ISREG(mode):
        return target
    kind = next((name for test, name in _KINDS if test(mode)), "a special file")
    leads = f"{path} leads to {target}, which" if target != path else str(path)
    raise OutputError(f"{leads} is {kind}, not a regular file; give a file path")


def is_stream_name(path: str | Path) -> bool:
    """Whether `path` names a standard stream or an open descriptor (STREAM_NAMES)."""
    return STREAM_NAMES.fullmatch(str(path)) is not None


def _final(path: Path) -> Path:
    """`path`, or the path its chain of symbolic links ends at (still a link only for a loop)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _flush_standard_streams() -> None:
    """Write out what this process buffered for its standard output and error."""
    for handle in (sys.stdout, sys.stderr):
        if handle is not None:
            handle.flush()


def open_lock(path: str | Path) -> IO:
    """The lock file of `path` (`<target>.lock` beside its final target, output_target's),
    opened for taking_turn, its folder made if needed; raises OSError where it cannot be (a
    read-only folder, a full disk). The temporary files of `path` left by killed writers are
    removed first (atomic_target), so that a taker of the lock clears them even when it need
    not write."""
    target = _final(Path(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(target)
    return open(target.with_name(target.name + ".lock"), "a")


@contextmanager
def taking_turn(lock: IO) -> Iterator[None]:
    """Hold `lock` (open_lock) while the block runs, so that processes writing one file at once
    take turns; then remove the lock file and close it. Where no lock can be taken (Windows; NFS
    without a lock service, some FUSE mounts) the block runs without a turn."""
    lock, held = _locked(lock)
    try:
        yield
    finally:
        _release(lock, held)


def _locked(lock: IO) -> tuple[IO, bool]:
    """(`lock` or the lock file opened again, whether its turn is held), once held or known not
    to be had. A lock file removed by the holder before this process's lock was granted is no
    longer the one at its path: the path is opened again, so that every waiter ends up on the one
    file there."""
    while fcntl is not None:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        except OSError:  # no lock service here: no turn taken
            return lock, False
        if _same_file(lock):
            return lock, True
        try:
            again = open(lock.name, lock.mode)
        except OSError:  # its folder unwritable meanwhile: no turn to be had
            return lock, False
        lock.close()
        lock = again
    return lock, False


def _same_file(lock: IO) -> bool:
    """Whether the path of the open file `lock` still names that file."""
    try:
        named = os.stat(lock.name)
    except OSError:
        return False
    opened = os.fstat(lock.fileno())
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _release(lock: IO, held: bool) -> None:
    """Remove the lock file and close it. Held, it is removed first: no other process holds it
    then, and one that waits for it sees it gone (_locked). Without a turn, only once closed
    (Windows removes no open file), and only if its path still names it."""
    if held:
        with suppress(OSError):  # a read-only folder keeps it; it is reused
            os.unlink(lock.name)
        lock.close()
        return
    same = _same_file(lock)
    lock.close()
    if same:
        with suppress(OSError):
            os.unlink(lock.name)


def _remove_abandoned(target: Path) -> None:
    """Remove the temporary files of `target` left by killed writers (_abandoned)."""
    now = time.time()
    for stale in target.parent.glob(f".{glob.escape(target.name)}.*.tmp"):
        owner = _TEMPORARY.fullmatch(stale.name[len(target.name) + 2 : -len(".tmp")])
        if owner is None:  # a temporary file of another file, whose name extends this one's
            continue
        try:
            untouched = now - stale.stat().st_mtime
        except OSError:  # removed meanwhile
            continue
        if _abandoned(owner["host"], int(owner["pid"]), untouched):
            stale.unlink(missing_ok=True)


def _abandoned(host: str | None, pid: int, untouched: float) -> bool:
    """Whether a temporary file written by process `pid` on `host` (None: a name without its
    host), left untouched for `untouched` seconds, was left by a killed writer: one of this host
    whose process is known to be gone; else one untouched for ABANDONED_SECONDS and not of a
    process that may run here (a process id of another host says nothing of this one's)."""
    here = host == _this_host()
    runs = _runs(pid) if here or host is None else None
    if here and runs is False:
        return True
    return untouched > ABANDONED_SECONDS and runs is not True


def _runs(pid: int) -> bool | None:
    """Whether process `pid` runs on this machine; None where it cannot be told (Windows, where
    os.kill would end it)."""
    if os.name == "nt":
        return None
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # none, or a number no process can have
        return False
    except PermissionError:  # another user's
        return True
    return True


@functools.cache
def _this_host() -> str:
    """This host's part of a temporary name: the host name (letters, digits, `-` and `_`
    only, shortened), and on Linux a digest of the boot and process-id namespace, so that
    containers sharing a host name but not their process ids never take each other's files
    for their own."""
    host = re.sub(r"[^A-Za-z0-9-]", "_", socket.gethostname())[:32] or "_"
    try:
        with open("/proc/sys/kernel/random/boot_id") as boot:
            space = boot.read().strip() + os.readlink("/proc/self/ns/pid")
    except OSError:  # not Linux: the host name alone
        return host
    return f"{host}-{hashlib.sha256(space.encode()).hexdigest()[:8]}"


def write_csv(path: str | Path, rows: list[dict], fields: list[str] | None = None) -> Path:
    """Write `rows` as a CSV file with a header of `fields` (default: the first row's keys),
    atomically (atomic_target: through a link; a path that is not a regular file is refused)."""
    with atomic_target(path) as temporary, temporary.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields or list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return Path(path)
