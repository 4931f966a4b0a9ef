"""model_file.py -- a learned heuristic's model file: HDF5, describing and checking itself as a PDB file does.

What a file holds (written by learn-heuristic, read by the `learned:FILE` heuristic):

    attributes   format, format_version, package_version, board_rows, board_cols, goal;
                 features: the feature spec (features.py), its PDB files named relative to
                 the model file's folder; pdb_files: JSON list of {path, checksum, build} of
                 every PDB file the features read (relative path, the checksum it had when the
                 model was trained, the build-pdb command that writes it); hidden: the two
                 hidden layers' sizes; training: JSON of how the model was trained (method,
                 budget, seed, seconds, states seen, ...); checksum: SHA-256 over the weights
                 (what a batch records of the model); file_checksum: SHA-256 over every
                 attribute and every array (solvers/file_checksum.py)
    datasets     the network's arrays (network.Network's fields); loss_curve: (states seen,
                 loss) rows of the training

Reading refuses, with one line (ModelError): a missing or non-HDF5 file, another format or
version, a file without a file checksum (written by an older tilepdb) or whose attributes or
arrays fail it (a relabelled board, goal or feature list), a damaged file (an array missing or
of the wrong shape, weights that fail their checksum or are not finite), a model for another
board or goal, and a PDB file of its features that is missing
or differs from the one the model was trained on, naming the file and the command that
builds it. Nothing is read half: the whole file is checked before a term is made.

Models shipped with tilepdb are in the data folder's models/ (data/models/ in a checkout) and
are named by their file's stem: `learned:6x6-blank-first-5-5-5-5-5-5-5-davi`. Their PDB files
are named relative to that folder (../pdbs/, where build-pdb writes by default from a
checkout's root).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import h5py
import numpy as np

from pdb_build.store import build_command, check_target, package_version, raised_by_h5py
from solvers.atomic import atomic_target
from solvers.data_files import data_folder
from solvers.errors import InputError
from solvers.file_checksum import FILE_CHECKSUM, file_checksum
from solvers.heuristics.features import PATTERNS_PREFIX, FeatureSet, feature_set
from solvers.heuristics.network import Network
from solvers.heuristics.pdb_files import loaded
from solvers.heuristics.pdb_terms import PREFIX as PDB_PREFIX
from solvers.puzzle import Puzzle, PuzzleError

FORMAT = "tilepdb-learned-heuristic"
FORMAT_VERSION = 1
MODELS = "models"  # the shipped models' folder in the data folder


class ModelError(InputError):
    """A model file that cannot be used, in one line."""


@dataclass(frozen=True)
class StoredModel:
    """A model file's contents, checked (module docstring)."""

    path: Path
    puzzle: Puzzle
    features: str  # the spec as stored: PDB files relative to the model's folder
    pdb_files: tuple[dict, ...]
    network: Network
    training: dict = field(default_factory=dict)
    loss_curve: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    checksum: str = ""

    def pdb_path(self, entry: dict) -> Path:
        """Where a PDB file of the features is: its stored path from the model's folder."""
        return (self.path.parent / entry["path"]).resolve()

    def feature_set(self) -> FeatureSet:
        """The model's features with their PDB files found and checked against the ones it was
        trained on (ModelError naming a missing or different file and how to build it)."""
        spec = self.features
        for entry in self.pdb_files:
            where = self.pdb_path(entry)
            if not where.is_file():
                raise ModelError(f"{self.path}: reads PDB file {where}, which is missing; build it with: "
                                 f"{_command(entry, where)}")
            spec = _renamed(spec, entry["path"], str(where))
        features = feature_set(self.puzzle, spec)
        found = {str(Path(file).resolve()): checksum for file, checksum in features.provenance}
        for entry in self.pdb_files:
            where = self.pdb_path(entry)
            if found.get(str(where)) != entry["checksum"]:
                raise ModelError(f"{self.path}: PDB file {where} is not the one the model was trained on (its tables "
                                 f"differ); build that one with: {_command(entry, where)}, or train the model again")
        if features.n_inputs != self.network.sizes[0]:
            raise ModelError(f"{self.path}: its features give {features.n_inputs} inputs but its network reads "
                             f"{self.network.sizes[0]}; the file is damaged")
        return features


def _renamed(spec: str, file: str, name: str) -> str:
    """`spec` with the PDB file `file` of its items (pdb:FILE, patterns:FILE) named `name`."""
    for prefix in (PDB_PREFIX, PATTERNS_PREFIX):
        spec = spec.replace(prefix + file, prefix + name)
    return spec


def _command(entry: dict, where: Path) -> str:
    return entry["build"].replace("--out {out}", f"--out {where}")


def weights_checksum(network: Network) -> str:
    """SHA-256 over the network's arrays, shapes included."""
    digest = hashlib.sha256()
    for name, array in zip(network._fields, network):
        array = np.ascontiguousarray(array, dtype=np.float64)
        digest.update(f"{name}{array.shape}".encode())
        digest.update(array.tobytes())
    return "sha256:" + digest.hexdigest()


def write_model(path: str | Path, features: FeatureSet, network: Network, training: dict,
                loss_curve: np.ndarray, *, force: bool = False) -> Path:
    """Write the model atomically to `path` (refused if it exists, unless `force`); the PDB
    files of `features` are named relative to its folder."""
    path = Path(path)
    check_target(path, force)
    folder = path.absolute().parent
    spec, entries = features.spec, []
    for file, checksum in features.provenance:
        relative = os.path.relpath(Path(file).absolute(), folder)
        spec = _renamed(spec, file, relative)
        database = loaded(file, features.puzzle)
        entries.append({"path": relative, "checksum": checksum, "build": build_command(database, "{out}")})
    puzzle = features.puzzle
    try:
        with atomic_target(path) as temporary, h5py.File(temporary, "w") as handle:
            handle.attrs.update(
                format=FORMAT, format_version=FORMAT_VERSION, package_version=package_version(),
                board_rows=puzzle.rows, board_cols=puzzle.cols, goal=puzzle.goal.astype(np.int64),
                features=spec, pdb_files=json.dumps(entries), hidden=np.array(network.sizes[1:], dtype=np.int64),
                training=json.dumps(training), checksum=weights_checksum(network),
            )
            for name, array in zip(network._fields, network):
                handle.create_dataset(name, data=np.asarray(array, dtype=np.float64))
            handle.create_dataset("loss_curve", data=np.asarray(loss_curve, dtype=np.float64).reshape(-1, 2))
            handle.attrs[FILE_CHECKSUM] = file_checksum(handle, data=True)
    except OSError as error:
        raise ModelError(f"cannot write {path}: {error.strerror or error}") from None
    return path


def shipped_models() -> list[str]:
    """Names of the models shipped with tilepdb: the model files in the data folder's models/."""
    return sorted(path.stem for path in (data_folder() / MODELS).glob("*.h5"))


def model_path(source: str | Path) -> Path:
    """The file `source` names: itself if it exists, else the shipped model of that name."""
    path = Path(source)
    if not path.exists() and str(source) in shipped_models():
        return data_folder() / MODELS / f"{source}.h5"
    return path


def read_model(path: str | Path, puzzle: Puzzle | None = None) -> StoredModel:
    """The checked contents of the model file at `path` (or the shipped model of that name),
    for `puzzle` if given (module docstring)."""
    path = model_path(path).absolute()
    if not path.is_file():
        raise ModelError(f"{path}: no such model file (the shipped models: {', '.join(shipped_models()) or 'none'})")
    try:
        with h5py.File(path, "r") as handle:
            stored = _read(path, handle)
    except Exception as error:
        if not raised_by_h5py(error):  # a bug of ours: shown as it is
            raise
        raise ModelError(f"{path}: not a readable tilepdb model file ({str(error).splitlines()[0]})") from None
    if puzzle is not None and (stored.puzzle.rows, stored.puzzle.cols) != (puzzle.rows, puzzle.cols):
        raise ModelError(f"{path}: trained for a {stored.puzzle.board} board, not {puzzle.board}")
    if puzzle is not None and stored.puzzle != puzzle:
        raise ModelError(f"{path}: trained for goal {' '.join(map(str, stored.puzzle.goal))}, not "
                         f"{' '.join(map(str, puzzle.goal))}")
    return stored


def _read(path: Path, handle: h5py.File) -> StoredModel:
    attrs = handle.attrs
    if attrs.get("format") != FORMAT:
        raise ModelError(f"{path}: not a tilepdb model file")
    version = attrs.get("format_version")
    if version != FORMAT_VERSION:
        shown = repr(version.item() if isinstance(version, np.generic) else version)
        raise ModelError(f"{path}: format version {shown} is not {FORMAT_VERSION}, the "
                         "version this tilepdb reads; train the model again with learn-heuristic")
    if FILE_CHECKSUM not in attrs:
        raise ModelError(f"{path}: written by an older tilepdb, without a checksum over its attributes; train the "
                         "model again with learn-heuristic")
    if str(attrs[FILE_CHECKSUM]) != file_checksum(handle, data=True):
        raise ModelError(f"{path}: its attributes or arrays were changed after it was written (they fail the file "
                         "checksum); train the model again with learn-heuristic")
    try:  # a missing or malformed attribute or array: a damaged file, not a bug
        puzzle = Puzzle(int(attrs["board_rows"]), int(attrs["board_cols"]), attrs["goal"])
        pdb_files = tuple(json.loads(str(attrs["pdb_files"])))
        if not all(isinstance(e, dict) and {"path", "checksum", "build"} <= set(e) for e in pdb_files):
            raise ValueError("pdb_files")
        arrays = {name: handle[name][()] for name in Network._fields}
        network = Network(**{name: np.asarray(a, dtype=np.float64) for name, a in arrays.items()})
        stored = StoredModel(path, puzzle, str(attrs["features"]), pdb_files, network,
                             json.loads(str(attrs["training"])), np.asarray(handle["loss_curve"][()]),
                             str(attrs["checksum"]))
    except (KeyError, ValueError, TypeError, PuzzleError) as error:
        raise ModelError(f"{path}: damaged: {type(error).__name__} {str(error).splitlines()[0] if str(error) else ''}"
                         .rstrip()) from None
    _check_shapes(path, network)
    if weights_checksum(network) != stored.checksum:
        raise ModelError(f"{path}: its weights fail their checksum; the file is damaged")
    not_finite = [name for name, array in zip(network._fields, network) if not np.all(np.isfinite(array))]
    if not_finite:
        raise ModelError(f"{path}: its arrays {', '.join(not_finite)} hold values that are not finite (NaN or "
                         "infinite); train the model again with learn-heuristic")
    return stored


def _check_shapes(path: Path, network: Network) -> None:
    n_inputs, hidden1, hidden2 = network.w1.shape[0], network.w1.shape[-1], network.w2.shape[-1]
    expected = {"shift": (n_inputs,), "spread": (n_inputs,), "w1": (n_inputs, hidden1), "b1": (hidden1,),
                "w2": (hidden1, hidden2), "b2": (hidden2,), "w3": (hidden2,), "b3": (1,)}
    for name, shape in expected.items():
        if getattr(network, name).shape != shape:
            raise ModelError(f"{path}: array {name} has shape {getattr(network, name).shape}, not {shape}; the file "
                             "is damaged")
