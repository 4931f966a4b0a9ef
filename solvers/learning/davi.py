"""davi.py -- deep approximate value iteration over features (DAVI: Agostinelli, McAleer, Shmakov & Baldi, Nature Machine Intelligence 2019).

Each iteration draws a batch of states by random walks back from the goal (walks.py), of
lengths uniform from 0 to the current longest walk, computes each state's target

    0 at the goal, elsewhere the minimum over its children c of 1 + h_target(c)

(h_target(goal) = 0; elsewhere the target network's output, at least 0), raised to the maximum
of the admissible heuristics among the features where that is larger (the distance is never
below it, and the minimum over children of noisy values drifts low), and takes one Adam
step of the network toward the targets (fit.py). The target network is a copy of the network,
refreshed every `check_every` iterations when the mean loss since the last check is below
`threshold` (as Agostinelli et al. refresh theirs); each refresh lengthens the longest walk by
`grow` moves, up to `max_moves`, so that the values spread outward from the goal as those
near it become right. Everything the next iteration needs is in a `DaviState` (a checkpoint
holds one): the same seed and state give the same training.

A warm start (`warm` iterations) first fits the network to the maximum of the admissible
heuristics among the features (a PDB's lookups) on walks of every length up to `max_moves`, and
the walks then start at `max_moves`: the targets are a PDB's values and better from the first
iteration, so value iteration improves on the PDB everywhere at once instead of growing from
the goal, and where it has learned nothing the network still says what the PDB says.
`warm=None` (the default) chooses for the features (`resolved`): DEFAULT_WARM iterations where
they hold an admissible heuristic, none where they do not; `warm=0` asks for none. Likewise
`threshold=None` is DEFAULT_THRESHOLD without a warm start and WARM_THRESHOLD with one: fitted
over walks of every length the loss stays far above the first, and a target network that is
never refreshed takes one step of value iteration only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.errors import InputError
from solvers.heuristics.features import FeatureSet, inputs_of
from solvers.heuristics.network import Network, forward, initial_network, normalisation
from solvers.learning.fit import Adam, loss_and_gradients
from solvers.learning.walks import children, scrambled

NORMALISATION_STATES = 4096  # states drawn to set the inputs' normalisation
DEFAULT_WARM = 1000  # warm-start iterations where the features hold an admissible heuristic (warm=None)
DEFAULT_THRESHOLD = 0.05  # the refresh threshold without a warm start (threshold=None)
WARM_THRESHOLD = 1e9  # and with one: a refresh at every check


class DaviSettings(NamedTuple):
    """How DAVI trains (module docstring); `rate` is Adam's learning rate. `warm` and
    `threshold` None: chosen for the features (`resolved`)."""

    batch: int = 1000
    max_moves: int = 100
    first_moves: int = 4
    grow: int = 4
    check_every: int = 100
    threshold: float | None = None
    rate: float = 1e-3
    warm: int | None = None


def resolved(features: FeatureSet, settings: DaviSettings) -> DaviSettings:
    """`settings` with what they leave to the features chosen (module docstring): `warm` None
    is DEFAULT_WARM where a feature is an admissible heuristic and 0 where none is; `threshold`
    None is WARM_THRESHOLD with a warm start and DEFAULT_THRESHOLD without."""
    if settings.warm is None:
        settings = settings._replace(warm=DEFAULT_WARM if features.admissible else 0)
    if settings.threshold is None:
        settings = settings._replace(threshold=WARM_THRESHOLD if settings.warm else DEFAULT_THRESHOLD)
    return settings


class DaviState(NamedTuple):
    """Where a training stands: the network and its target copy, Adam's state, the longest walk
    now drawn, the iterations and states seen so far, the loss since the last check (sum and
    count), the target refreshes so far, and the loss curve ((states seen, mean loss) per check)."""

    network: Network
    target: Network
    adam: Adam
    longest: int
    iterations: int
    states: int
    loss_sum: float
    loss_count: int
    refreshes: int
    curve: tuple[tuple[int, float], ...]


def fresh_start(features: FeatureSet, hidden: tuple[int, int], settings, rng: np.random.Generator) -> DaviState:
    """A fresh training by `settings` (any method's, with max_moves and first_moves): random
    weights, the inputs normalised over walks of every length up to `max_moves`, the target
    network a copy."""
    puzzle = features.puzzle
    sample = scrambled(puzzle, rng.integers(0, settings.max_moves + 1, NORMALISATION_STATES), rng)
    network = initial_network(features.n_inputs, hidden, rng, *normalisation(inputs_of(features, sample)))
    return DaviState(network, network, Adam.fresh(network), min(settings.first_moves, settings.max_moves), 0, 0,
                     0.0, 0, 0, ())


def davi_start(features: FeatureSet, hidden: tuple[int, int], settings: DaviSettings,
               rng: np.random.Generator) -> DaviState:
    """A fresh DAVI training (fresh_start), warm-started where `settings.warm` asks for it
    (None: where a feature is an admissible heuristic, `resolved`)."""
    settings = resolved(features, settings)
    state = fresh_start(features, hidden, settings, rng)
    if not settings.warm:
        return state
    network = warm_started(features, state.network, settings, rng)
    return state._replace(network=network, target=network, longest=settings.max_moves)


def warm_started(features: FeatureSet, network: Network, settings: DaviSettings, rng: np.random.Generator) -> Network:
    """`network` after `settings.warm` Adam steps toward the maximum of the features' admissible
    heuristics on walks of 0 to `max_moves` moves (module docstring); refused (one-line
    InputError) where no feature is an admissible heuristic."""
    if not features.admissible:
        raise InputError("a warm start fits the network to the admissible heuristics among the features, and "
                         f"{features.spec!r} has none (add manhattan or a PDB file)")
    adam = Adam.fresh(network)
    for _ in range(settings.warm):
        states = scrambled(features.puzzle, rng.integers(0, settings.max_moves + 1, settings.batch), rng)
        targets = admissible_floor(features, states)
        _, gradients = loss_and_gradients(network, inputs_of(features, states), targets)
        network, adam = adam.step(network, gradients, settings.rate)
    return network


def value_targets(features: FeatureSet, target: Network, states: np.ndarray) -> np.ndarray:
    """Each state's DAVI target (module docstring) by the network `target`."""
    kids, legal = children(features.puzzle, states)
    flat = kids.reshape(-1, features.puzzle.n_cells)
    values = forward(target, inputs_of(features, flat))
    return targets_from_values(features.puzzle, states, flat, legal, values, admissible_floor(features, states))


def targets_from_values(puzzle, states: np.ndarray, flat_children: np.ndarray, legal: np.ndarray,
                        values: np.ndarray, floor: np.ndarray | None) -> np.ndarray:
    """Each state's DAVI target from the target network's `values` of its children
    (`flat_children`, walks.children's reshaped to one row a child, `legal` marking the real
    ones) and the admissible `floor` (or None): 0 at the goal, elsewhere the least
    1 + max(value, 0) over its children (0 for a child at the goal), raised to the floor."""
    values = np.maximum(values, 0.0)
    values[np.all(flat_children == puzzle.goal, axis=1)] = 0.0
    costs = np.where(legal, 1.0 + values.reshape(legal.shape), np.inf).min(axis=1)
    return np.where(np.all(states == puzzle.goal, axis=1), 0.0, costs if floor is None else np.maximum(costs, floor))


def admissible_floor(features: FeatureSet, states: np.ndarray) -> np.ndarray | None:
    """The maximum of the features' admissible heuristics at each state (float64), a lower
    bound on its distance; None where no feature is one."""
    if not features.admissible:
        return None
    return np.max([h.evaluate_many(states) for h in features.admissible], axis=0).astype(np.float64)


def davi_step(features: FeatureSet, settings: DaviSettings, state: DaviState, rng: np.random.Generator) -> DaviState:
    """The training after one more iteration (module docstring)."""
    settings = resolved(features, settings)
    states = scrambled(features.puzzle, rng.integers(0, state.longest + 1, settings.batch), rng)
    targets = value_targets(features, state.target, states)
    loss, gradients = loss_and_gradients(state.network, inputs_of(features, states), targets)
    network, adam = state.adam.step(state.network, gradients, settings.rate)
    state = state._replace(network=network, adam=adam, iterations=state.iterations + 1,
                           states=state.states + settings.batch, loss_sum=state.loss_sum + loss,
                           loss_count=state.loss_count + 1)
    if state.iterations % settings.check_every:
        return state
    mean = state.loss_sum / state.loss_count
    state = state._replace(loss_sum=0.0, loss_count=0, curve=(*state.curve, (state.states, mean)))
    if mean >= settings.threshold:
        return state
    return state._replace(target=state.network, refreshes=state.refreshes + 1,
                          longest=min(settings.max_moves, state.longest + settings.grow))
