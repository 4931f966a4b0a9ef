"""bootstrap.py -- bootstrap learning of a heuristic from the solutions it finds (Jabbari Arfaee, Zilles & Holte, Artificial Intelligence 2011).

Each round draws `instances` start states by random walks back from the goal (walks.py), of
lengths uniform from half the current longest walk to it, and solves each with weighted A*
(weight `weight`, at most `search_nodes` stored nodes) guided by the heuristic learned so
far; the first round, before anything is learned, by `first_heuristic` (a spec of the grammar,
Manhattan distance by default). Every state along each solution found is an example whose
target is the number of moves that solution still takes from it (at least the state's
distance). The network is then fitted to the round's examples by `epochs` passes of Adam
steps over shuffled mini-batches of `batch` (fit.py). When at least `min_solved` of the round's
instances were solved, the longest walk grows by `grow` moves, up to `max_moves`, so that the
instances get harder as the heuristic gets better, as Jabbari Arfaee et al. grow theirs.

The training state is davi.py's DaviState, started as DAVI's (fresh_start: random weights, the
inputs normalised over walks), so that learn.py checkpoints both methods alike: an iteration
is a round, `target` the network that guided the round's searches, `refreshes` the rounds
that grew the walks, `states` the examples fitted.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.heuristics import Heuristic, from_spec
from solvers.heuristics.features import FeatureSet, inputs_of
from solvers.heuristics.learned import learned_term
from solvers.learning.davi import DaviState
from solvers.learning.fit import Adam, loss_and_gradients
from solvers.learning.walks import scrambled
from solvers.solve import solve


class BootstrapSettings(NamedTuple):
    """How bootstrap learning trains (module docstring); `rate` is Adam's learning rate."""

    instances: int = 100
    search_nodes: int = 100_000
    weight: float = 1.5
    first_heuristic: str = "manhattan"
    epochs: int = 20
    batch: int = 256
    max_moves: int = 200
    first_moves: int = 20
    grow: int = 10
    min_solved: float = 0.5
    rate: float = 1e-3


def guide(features: FeatureSet, settings: BootstrapSettings, state: DaviState) -> Heuristic:
    """The heuristic a round searches with: the network learned so far, or before any round
    `first_heuristic`."""
    puzzle = features.puzzle
    if state.iterations == 0:
        return from_spec(puzzle, settings.first_heuristic)
    return Heuristic(puzzle, [learned_term(puzzle, features, state.network, "learned (in training)", "learned")])


def solved_examples(features: FeatureSet, settings: BootstrapSettings, heuristic: Heuristic,
                    starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """(states, targets, instances solved): every state along the solution weighted A* finds
    from each of `starts` with `heuristic`, and the moves that solution takes from it."""
    puzzle = features.puzzle
    states, targets, solved = [], [], 0
    for start in starts:
        result = solve(puzzle, start, "wastar", heuristic, weight=settings.weight, node_limit=settings.search_nodes)
        if result.moves is None:
            continue
        solved += 1
        along = puzzle.states_along(start, result.moves)
        states += along
        targets += range(len(along) - 1, -1, -1)
    if not states:
        return np.empty((0, puzzle.n_cells), dtype=np.uint8), np.empty(0), 0
    return np.array(states, dtype=np.uint8), np.array(targets, dtype=np.float64), solved


def bootstrap_step(features: FeatureSet, settings: BootstrapSettings, state: DaviState,
                   rng: np.random.Generator) -> DaviState:
    """The training after one more round (module docstring)."""
    lengths = rng.integers(state.longest // 2, state.longest + 1, settings.instances)
    guiding = state.network
    states, targets, solved = solved_examples(features, settings, guide(features, settings, state),
                                              scrambled(features.puzzle, lengths, rng))
    network, adam, curve, seen = state.network, state.adam, state.curve, state.states + len(states)
    if len(states):
        network, adam, loss = _fitted(network, adam, inputs_of(features, states), targets, settings, rng)
        curve = (*curve, (seen, loss))
    grows = solved >= settings.min_solved * settings.instances
    return state._replace(network=network, target=guiding, adam=adam, iterations=state.iterations + 1, states=seen,
                          refreshes=state.refreshes + grows, curve=curve,
                          longest=min(settings.max_moves, state.longest + settings.grow) if grows else state.longest)


def _fitted(network, adam: Adam, inputs: np.ndarray, targets: np.ndarray, settings: BootstrapSettings,
            rng: np.random.Generator):
    """(network, adam, the mean loss of the last pass) after `epochs` passes of Adam steps over
    shuffled mini-batches of `batch` examples."""
    for _ in range(settings.epochs):
        losses = []
        order = rng.permutation(len(targets))
        for first in range(0, len(order), settings.batch):
            chosen = order[first:first + settings.batch]
            loss, gradients = loss_and_gradients(network, inputs[chosen], targets[chosen])
            network, adam = adam.step(network, gradients, settings.rate)
            losses.append(loss)
    return network, adam, float(np.mean(losses))
