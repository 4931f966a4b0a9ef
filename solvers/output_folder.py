"""output_folder.py -- a folder of outputs that runs share: a run replaces only the files it owns.

A run claims a folder for the file names it may write and records them in the folder's
MANIFEST before it writes any of them, so every file a run wrote there is named by the
manifest, even if the run was killed. A folder that already holds files is refused unless
`force`; with `force` the files an earlier run's manifest names are removed (those only,
never another file), and a file this run would write that no manifest names is refused,
never overwritten.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

from solvers.atomic import atomic_target
from solvers.errors import InputError
from solvers.wording import count

MANIFEST = "manifest.json"


def check_folder(folder: str | Path, names: Collection[str], *, force: bool, owner: str) -> list[Path]:
    """Raise InputError unless a run of `owner` may write `names` into `folder`.

    Returns the files an earlier run's manifest names, which `claim_folder` removes.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder} is a file, not a folder")
    try:
        present = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    except OSError as error:
        raise InputError(f"cannot list {folder}: {error.strerror or error}") from None
    if present and not force:
        shown = ", ".join(present[:3]) + (", ..." if len(present) > 3 else "")
        raise InputError(f"{folder} already holds {count(len(present), 'file')} ({shown}); use --force to replace "
                         "the files of an earlier run there (no other file is touched), or choose another folder")
    owned = _owned(folder / MANIFEST, owner) if present else []
    for name in names:
        path = folder / name
        if name not in owned and (path.exists() or path.is_symlink()):
            raise InputError(f"{path} was not written by {owner} (no {MANIFEST} names it); "
                             "move it away or choose another folder")
    return [folder / name for name in owned]


def claim_folder(folder: str | Path, names: Collection[str], *, force: bool, owner: str) -> None:
    """`check_folder`, then remove the earlier run's files and record `names` as this run's."""
    for path in check_folder(folder, names, force=force, owner=owner):
        if path.is_file() or path.is_symlink():
            path.unlink()
    with atomic_target(Path(folder) / MANIFEST) as temporary:
        temporary.write_text(json.dumps({"owner": owner, "files": sorted(names)}, indent=2) + "\n")


def _owned(manifest: Path, owner: str) -> list[str]:
    """The file names `manifest` records for `owner` ([] without a manifest); InputError if it is not one."""
    if not manifest.exists():
        return []
    try:
        record = json.loads(manifest.read_text())
        names = record["files"] if record["owner"] == owner else None
    except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError):
        names = None
    if not isinstance(names, list) or not all(isinstance(n, str) and _plain(n) for n in names):
        raise InputError(f"{manifest} is not a manifest of {owner}; move it away or choose another folder")
    return names


def _plain(name: str) -> bool:
    """Whether `name` names a file inside the folder itself (no separator, not . or ..)."""
    return name not in ("", ".", "..", MANIFEST) and "/" not in name and "\\" not in name
