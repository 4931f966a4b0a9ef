"""held_out.py -- the check at the end of a training: the model beside the best admissible feature, on states it never saw.

    held_out_check(features, network, seed)   a JSON-ready dict whose "line" learn-heuristic prints

HELD_OUT_STATES states are drawn uniformly (Puzzle.random_state) from a random stream of their
own (the seed sequence [seed, HELD_OUT_STREAM], never the training's), and evaluated by the
model as a search sees it (the output rounded, at least 1 away from the goal, 0 at it) and by
every admissible heuristic among the features.

On boards of at most EXACT_CELLS cells every state's distance is known (one breadth-first
search, experiments.ExactDistances: under a second on 3x3, 1.4 s on 2x5; 12 cells would take
minutes), and the check gives mean absolute errors: the model's, and the best admissible
feature's (the one of least error). Where the model's is not the smaller, the line says the
model is worse (no better, on a tie) and what to do.

On larger boards the admissible features are the floor: the best is the one of largest mean h
(it never exceeds the distance, so the largest is the closest). Where the model's h is below
it, the model is surely further from the distance than the feature; and where the model's
mean h is below the feature's, its mean absolute error is surely the larger (it is at least
mean(h* - h), which then exceeds mean(h* - f), the feature's): the line says the model is worse.
A mean h above the feature's proves nothing either way (the model may overestimate), and the
line gives the share of states where it is below the feature.

Without an admissible feature the check gives the model's error alone (exact distances), or
nothing on a larger board (None): there is nothing to compare it with.
"""

from __future__ import annotations

import numpy as np

from solvers.heuristics.features import FeatureSet
from solvers.heuristics.learned import batch_h, learned_term
from solvers.heuristics.network import Network

HELD_OUT_STATES = 1000
HELD_OUT_STREAM = 1  # the held-out states' stream: seed sequence [seed, HELD_OUT_STREAM]
EXACT_CELLS = 10  # boards of at most this many cells are checked against exact distances


def held_out_states(puzzle, seed: int, n: int = HELD_OUT_STATES) -> np.ndarray:
    """`n` states drawn uniformly from the states that reach the goal, from the held-out stream of `seed`."""
    rng = np.random.default_rng([seed, HELD_OUT_STREAM])
    return np.array([puzzle.random_state(rng) for _ in range(n)], dtype=np.uint8)


def held_out_check(features: FeatureSet, network: Network, seed: int, *, advice: str = "",
                   n: int = HELD_OUT_STATES) -> dict | None:
    """The model `network` over `features` beside the best admissible feature on `n` held-out
    states (module docstring): a dict of plain values with the figures and the `line` to show;
    None on a board beyond EXACT_CELLS cells without an admissible feature. `advice` is added
    to what the line says to do when the model is worse (e.g. a warm start)."""
    puzzle = features.puzzle
    exact = puzzle.n_cells <= EXACT_CELLS
    if not exact and not features.admissible:
        return None
    states = held_out_states(puzzle, seed, n)
    model = batch_h(learned_term(puzzle, features, network, "learned (in training)", "learned"), states)
    model = model.astype(np.int64)
    values = {h.name: h.evaluate_many(states).astype(np.int64) for h in features.admissible}
    check = {"states": int(n), "seed": [int(seed), HELD_OUT_STREAM],
             "against": "exact distances" if exact else "admissible features"}
    opening = f"held-out check on {n:,} random states"
    if exact:
        from solvers.experiments import ExactDistances  # the searches' module; imported only when used

        distances = ExactDistances(puzzle)(states)
        model_error = float(np.abs(model - distances).mean())
        check["model_mean_absolute_error"] = round(model_error, 4)
        if not values:
            check["line"] = (f"{opening} with exact distances: the model's mean absolute error is "
                             f"{model_error:.2f} moves (no feature is an admissible heuristic to compare it with)")
            return check
        errors = {name: float(np.abs(v - distances).mean()) for name, v in values.items()}
        best = min(errors, key=errors.get)
        check.update(feature=best, feature_mean_absolute_error=round(errors[best], 4),
                     share_below_feature=round(float(np.mean(model < values[best])), 4),
                     worse=model_error >= errors[best])
        if check["worse"]:
            compared = "worse than" if model_error > errors[best] else "no better than"
            check["line"] = (f"{opening} with exact distances: the model's mean absolute error, {model_error:.2f} "
                             f"moves, is {compared} {best}'s, {errors[best]:.2f} (the best admissible feature): "
                             + _what_to_do(best, advice))
        else:
            check["line"] = (f"{opening} with exact distances: the model's mean absolute error is {model_error:.2f} "
                             f"moves, {best}'s {errors[best]:.2f} (the best admissible feature): the model is better")
        return check
    means = {name: float(v.mean()) for name, v in values.items()}
    best = max(means, key=means.get)
    model_mean, below = float(model.mean()), float(np.mean(model < values[best]))
    check.update(model_mean_h=round(model_mean, 4), feature=best, feature_mean_h=round(means[best], 4),
                 share_below_feature=round(below, 4), worse=model_mean < means[best])
    opening += f" ({puzzle.board} is too large for exact distances; the admissible features are the floor)"
    if check["worse"]:
        check["line"] = (f"{opening}: the model's mean h, {model_mean:.2f}, is below {best}'s, {means[best]:.2f} (the "
                         f"best admissible feature), and it is below {best} on {below:.0%} of the states, so its "
                         f"mean absolute error is surely larger: the model is worse than {best}: "
                         + _what_to_do(best, advice))
    else:
        check["line"] = (f"{opening}: the model's mean h is {model_mean:.2f}, {best}'s {means[best]:.2f} (the best "
                         f"admissible feature); the model is below {best} on {below:.0%} of the states, where it is "
                         f"surely further from the distance")
    return check


def _what_to_do(feature: str, advice: str) -> str:
    return f"train longer (--seconds, --iterations){advice}, or search with {feature} itself"
