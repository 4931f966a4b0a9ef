"""data_files.py -- where the data shipped with tilepdb lives: benchmark sets and partition presets.

data/ is the one source of truth. Run from a source checkout (pyproject.toml beside the
packages; also an editable install), the files are read there; a wheel ships the same files
as the package `tilepdb_data` (pyproject.toml maps data/ to it), found with importlib.resources.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
DATA_PACKAGE = "tilepdb_data"


def data_folder() -> Path:
    """The folder of the shipped data files: the checkout's data/, else the installed package's."""
    if (CHECKOUT / "pyproject.toml").is_file():
        return CHECKOUT / "data"
    return Path(str(files(DATA_PACKAGE)))
