"""data_files.py -- where the data shipped with tilepdb lives: benchmark sets and partition presets.

data/ is the one source of truth. Run from a source checkout (pyproject.toml beside the
packages; also an editable install), the files are read there; a wheel ships the same files
as the package `tilepdb_data` (pyproject.toml maps data/ to it), found with importlib.resources.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the folder holding the packages: a checkout, or site-packages
DATA_PACKAGE = "tilepdb_data"


def in_checkout() -> bool:
    """Whether tilepdb runs from a source checkout (pyproject.toml beside its packages)."""
    return (ROOT / "pyproject.toml").is_file()


def data_folder() -> Path:
    """The folder of the shipped data files: the checkout's data/, else the installed package's."""
    if in_checkout():
        return ROOT / "data"
    return Path(str(files(DATA_PACKAGE)))
