"""learn.py -- learn-heuristic's work: train a model over features and write its model file, with checkpoints.

    learn_heuristic(puzzle, "manhattan, cells", "model.h5", seconds=600, seed=1)

trains by DAVI (davi.py), or with `method="bootstrap"` by bootstrap learning from the
solutions of searches guided by the heuristic learned so far (bootstrap.py), until the budget
is spent (`seconds` of training, or `iterations`: DAVI's iterations, bootstrap's rounds; both:
whichever comes first; a warm start's seconds count, its iterations do not), then writes the
model file (solvers/heuristics/model_file.py) with its provenance: method, settings (as
chosen for the features: davi.resolved), seed, budget, seconds, iterations, states seen, target
refreshes, the loss curve, and the held-out check (held_out.py: the model's error beside the
best admissible feature's on states it never trained on; its `line` is what learn-heuristic
prints). Every `checkpoint_seconds` the whole training state goes atomically
to the checkpoint file beside the model (`<out>.checkpoint.npz`) and the model so far to `out`;
`resume=True` continues from the checkpoint (refused unless its board, goal, features, sizes
and settings are the ones asked for), with the random generator where it stood, so a killed or
interrupted training loses at most one checkpoint interval, and a budget counts the seconds and
iterations of every run. A finished training removes its checkpoint. `progress(state)` is
called after every iteration (the front end's progress bar).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from solvers.atomic import atomic_target
from solvers.errors import InputError
from solvers.heuristics.features import feature_set
from solvers.heuristics.model_file import read_model, write_model
from solvers.heuristics.network import Network
from solvers.learning.bootstrap import BootstrapSettings, bootstrap_step
from solvers.learning.davi import DaviSettings, DaviState, davi_start, davi_step, fresh_start, resolved
from solvers.learning.fit import Adam
from solvers.learning.held_out import held_out_check
from solvers.puzzle import Puzzle


class Method(NamedTuple):
    """A training method: its settings' type (whose instance with no arguments is the default),
    how a training starts and takes one iteration, on one DaviState, and its settings with what
    they leave to the features chosen."""

    settings: type
    start: Callable
    step: Callable
    resolve: Callable = lambda features, settings: settings


METHODS = {"davi": Method(DaviSettings, davi_start, davi_step, resolved),
           "bootstrap": Method(BootstrapSettings, fresh_start, bootstrap_step)}
DEFAULT_HIDDEN = (64, 32)
CHECKPOINT_SECONDS = 60.0


def checkpoint_path(out: str | Path) -> Path:
    """The checkpoint file of a training that writes `out`."""
    out = Path(out)
    return out.with_name(out.name + ".checkpoint.npz")


def learn_heuristic(puzzle: Puzzle, features_spec: str, out: str | Path, *, method: str = "davi",
                    hidden: tuple[int, int] = DEFAULT_HIDDEN, seconds: float | None = None,
                    iterations: int | None = None, seed: int = 1, settings: NamedTuple | None = None,
                    resume: bool = False, force: bool = False, checkpoint_seconds: float = CHECKPOINT_SECONDS,
                    progress=None) -> Path:
    """Train and write the model file `out` (module docstring); returns its path, whose
    training attributes hold the held-out check (`read_model(out).training["held_out"]`, its
    line: held_out_line). `settings` are the method's (DaviSettings, BootstrapSettings; None:
    its defaults). Refused (one line): an unknown method, no budget, an existing `out` without
    `force` or `resume`, a checkpoint that does not match, `resume` without a checkpoint."""
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; the methods are {', '.join(METHODS)}")
    trainer = METHODS[method]
    settings = trainer.settings() if settings is None else settings
    if not isinstance(settings, trainer.settings):
        raise TypeError(f"{method} takes {trainer.settings.__name__}, not {type(settings).__name__}")
    if seconds is None and iterations is None:
        raise InputError("give a budget: seconds or iterations of training")
    out = Path(out)
    features = feature_set(puzzle, features_spec)
    settings = trainer.resolve(features, settings)
    meta = {"method": method, "board": puzzle.board, "goal": puzzle.goal.tolist(), "features": features.spec,
            "hidden": list(hidden), "settings": settings._asdict(), "seed": seed}
    rng = np.random.default_rng(seed)
    if resume:
        state, spent, rng = read_checkpoint(checkpoint_path(out), meta)
        began = time.perf_counter()
    else:
        if out.exists() and not force:
            raise InputError(f"{out} exists; give --force to overwrite it, or --resume to continue its training")
        began, spent = time.perf_counter(), 0.0  # a warm start's seconds count toward the budget
        state = trainer.start(features, hidden, settings, rng)
    saved = time.perf_counter()

    def elapsed() -> float:
        return spent + time.perf_counter() - began

    while not _spent(state, elapsed(), seconds, iterations):
        state = trainer.step(features, settings, state, rng)
        if progress is not None:
            progress(state)
        if time.perf_counter() - saved >= checkpoint_seconds:
            _save(out, features, state, meta, elapsed(), rng, seconds, iterations)
            saved = time.perf_counter()
    spent = elapsed()
    cold = getattr(settings, "warm", None) == 0  # DAVI without its warm start
    advice = ", start from the feature with a warm start (without --warm 0)" if cold else ""
    check = held_out_check(features, state.network, seed, advice=advice)
    _save(out, features, state, meta, spent, rng, seconds, iterations, {} if check is None else {"held_out": check})
    checkpoint_path(out).unlink(missing_ok=True)
    return out


def held_out_line(model: str | Path) -> str | None:
    """The line of the held-out check recorded in the model file `model` (None: none recorded)."""
    return read_model(model).training.get("held_out", {}).get("line")


def _spent(state: DaviState, seconds_so_far: float, seconds: float | None, iterations: int | None) -> bool:
    return (seconds is not None and seconds_so_far >= seconds) or (iterations is not None and state.iterations >= iterations)


def _save(out: Path, features, state: DaviState, meta: dict, seconds: float, rng: np.random.Generator,
          budget_seconds: float | None, budget_iterations: int | None, extra: dict | None = None) -> None:
    """The checkpoint, then the model so far (its training attributes with `extra` added)."""
    write_checkpoint(checkpoint_path(out), state, meta, seconds, rng)
    training = {**meta, "budget_seconds": budget_seconds, "budget_iterations": budget_iterations,
                "seconds": round(seconds, 3), "iterations": state.iterations, "states": state.states,
                "target_refreshes": state.refreshes, "longest_walk": state.longest, **(extra or {})}
    del training["board"], training["goal"], training["features"]  # the model file's own attributes
    write_model(out, features, state.network, training, np.array(state.curve, dtype=np.float64).reshape(-1, 2),
                force=True)


def write_checkpoint(path: Path, state: DaviState, meta: dict, seconds: float, rng: np.random.Generator) -> None:
    """The training state to `path` atomically (npz: every array, and the rest as JSON)."""
    arrays = {}
    for prefix, network in (("network", state.network), ("target", state.target)):
        arrays.update({f"{prefix}.{name}": array for name, array in zip(network._fields, network)})
    for moment in ("first", "second"):
        arrays.update({f"adam.{moment}.{name}": a for name, a in getattr(state.adam, moment).items()})
    arrays["curve"] = np.array(state.curve, dtype=np.float64).reshape(-1, 2)
    facts = {"meta": meta, "seconds": seconds, "rng": rng.bit_generator.state, "adam_steps": state.adam.steps,
             **{name: getattr(state, name) for name in ("longest", "iterations", "states", "loss_sum", "loss_count",
                                                        "refreshes")}}
    arrays["facts"] = np.array(json.dumps(facts))
    with atomic_target(path) as temporary:
        with open(temporary, "wb") as handle:
            np.savez(handle, **arrays)


def read_checkpoint(path: Path, meta: dict) -> tuple[DaviState, float, np.random.Generator]:
    """(state, seconds spent, random generator) of the checkpoint at `path`, refused (one line)
    if it is missing, unreadable, or of another training than `meta` describes."""
    if not path.is_file():
        raise InputError(f"no checkpoint to resume from: {path} does not exist")
    try:
        with np.load(path) as stored:
            arrays = {name: stored[name] for name in stored.files}
        facts = json.loads(str(arrays.pop("facts")))
        networks = [Network(**{n: arrays[f"{prefix}.{n}"] for n in Network._fields}) for prefix in ("network", "target")]
        moments = [{n.split(".")[2]: a for n, a in arrays.items() if n.startswith(f"adam.{m}.")} for m in ("first", "second")]
    except (OSError, ValueError, KeyError) as error:
        raise InputError(f"{path}: not a readable checkpoint ({type(error).__name__}); delete it to start again") from None
    if facts["meta"] != meta:
        differing = sorted(k for k in meta if facts["meta"].get(k) != meta[k])
        raise InputError(f"{path}: a checkpoint of another training (its {', '.join(differing)} differ); give the "
                         "same options, or delete it to start again")
    rng = np.random.default_rng()
    rng.bit_generator.state = facts["rng"]
    state = DaviState(networks[0], networks[1], Adam(moments[0], moments[1], facts["adam_steps"]), facts["longest"],
                      facts["iterations"], facts["states"], facts["loss_sum"], facts["loss_count"], facts["refreshes"],
                      tuple(tuple(row) for row in arrays["curve"].tolist()))
    return state, float(facts["seconds"]), rng


def plot_learning_curve(model: str | Path) -> Path | None:
    """The loss curve of the model file `model` (loss against states seen, log scale) as
    `<model>.png`, written atomically; None, and nothing written, without matplotlib."""
    stored = read_model(model)
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(model).with_suffix(Path(model).suffix + ".png")
    figure, axes = plt.subplots(figsize=(7, 4))
    curve = stored.loss_curve
    axes.plot(curve[:, 0], curve[:, 1], marker=".")
    axes.set(yscale="log", xlabel="states seen", ylabel="mean squared error",
             title=f"{Path(model).name}: {stored.training.get('method', '')} on {stored.puzzle.board}")
    figure.tight_layout()
    with atomic_target(path) as temporary:
        figure.savefig(temporary, dpi=110, format="png")
    plt.close(figure)
    return path
