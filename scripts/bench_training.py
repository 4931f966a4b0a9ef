"""bench_training.py -- where a DAVI iteration's time goes, and whether a numerical library would train faster than numpy.

Usage:

    python scripts/bench_training.py [--board 6x6] [--features "manhattan, linear-conflict"]
        [--hidden 64,32] [--batch 1000] [--max-moves 400] [--iterations 30]

Times, on one core, the parts of --iterations DAVI iterations (solvers/learning/davi.py) of a
network of random weights over --features (a part's speed does not depend on the weights):

- walks: the batch's random walks back from the goal (walks.scrambled);
- children: every state's children (walks.children);
- features: the inputs of the states and of their children (features.inputs_of);
- admissible floor: the maximum of the admissible features (davi.admissible_floor);
- network (numpy): the target network over the children, the targets from its values, the
  loss's gradient and Adam's step, in float64, as training runs them (network.forward,
  davi.targets_from_values, fit.py).

Where JAX is installed (`pip install jax`), the network's part is timed again as one jitted
function on the same arrays (float32, JAX's default on CPU; the goal's special case of the
targets and Adam's bias correction left out): the most that training with JAX could save,
since the rest is the toolkit's own kernels either way. Prints milliseconds per iteration and
each part's share.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from solvers.cli_support import run_guarded
from solvers.heuristics.features import feature_set, inputs_of
from solvers.heuristics.network import forward
from solvers.learning.davi import DaviSettings, admissible_floor, fresh_start, targets_from_values
from solvers.learning.fit import loss_and_gradients
from solvers.learning.walks import children, scrambled
from solvers.puzzle import Puzzle, parse_board

PARTS = ("walks", "children", "features", "admissible floor", "network (numpy)")


def timed_iteration(features, state, settings: DaviSettings, rng: np.random.Generator, seconds: dict) -> tuple:
    """One DAVI iteration's work, each part's seconds added to `seconds`; returns the arrays
    the network's part works on (children's inputs, states' inputs, targets)."""
    puzzle = features.puzzle
    clock = time.perf_counter()

    def lap(part: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        seconds[part] += now - clock
        clock = now

    states = scrambled(puzzle, rng.integers(0, settings.max_moves + 1, settings.batch), rng)
    lap("walks")
    kids, legal = children(puzzle, states)
    flat = kids.reshape(-1, puzzle.n_cells)
    lap("children")
    child_inputs, inputs = inputs_of(features, flat), inputs_of(features, states)
    lap("features")
    floor = admissible_floor(features, states)
    lap("admissible floor")
    targets = targets_from_values(puzzle, states, flat, legal, forward(state.target, child_inputs), floor)
    _, gradients = loss_and_gradients(state.network, inputs, targets)
    state.adam.step(state.network, gradients, settings.rate)
    lap("network (numpy)")
    return child_inputs, inputs, targets


def jax_network_seconds(network, arrays: list[tuple], rate: float) -> float | None:
    """Seconds of the network's part over `arrays` (timed_iteration's) as one jitted JAX
    function (compiled before the clock); None where JAX is not installed."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def out(p, x):
        x = (x - p["shift"]) / p["spread"]
        a1 = jax.nn.relu(x @ p["w1"] + p["b1"])
        return jax.nn.relu(a1 @ p["w2"] + p["b2"]) @ p["w3"] + p["b3"][0]

    def loss(p, x, t):
        return jnp.mean((out(p, x) - t) ** 2)

    @jax.jit
    def step(p, first, second, kids, x, t):
        values = jnp.maximum(out(p, kids), 0.0).reshape(x.shape[0], -1).min(axis=1) + 1.0
        grads = jax.grad(loss)(p, x, jnp.maximum(values, t))
        first = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, first, grads)
        second = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, second, grads)
        p = jax.tree_util.tree_map(lambda w, m, v: w - rate * m / (jnp.sqrt(v) + 1e-8), p, first, second)
        return p, first, second

    params = {name: jnp.asarray(getattr(network, name), dtype=jnp.float32) for name in network._fields}
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    as32 = [tuple(jnp.asarray(a, dtype=jnp.float32) for a in triple) for triple in arrays]
    jax.block_until_ready(step(params, zeros, zeros, *as32[0]))  # compiled before the clock
    first = second = zeros
    began = time.perf_counter()
    for triple in as32:
        params, first, second = step(params, first, second, *triple)
    jax.block_until_ready(params)
    return time.perf_counter() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="6x6")
    parser.add_argument("--goal", help="the goal state (default: 1 2 ... N-1 with the blank last)")
    parser.add_argument("--features", default="manhattan, linear-conflict")
    parser.add_argument("--hidden", default="64,32")
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--max-moves", type=int, default=400)
    parser.add_argument("--iterations", type=int, default=30)
    args = parser.parse_args()
    puzzle = Puzzle(*parse_board(args.board), args.goal)
    features = feature_set(puzzle, args.features)
    settings = DaviSettings(batch=args.batch, max_moves=args.max_moves)
    rng = np.random.default_rng(1)
    state = fresh_start(features, tuple(int(h) for h in args.hidden.split(",")), settings, rng)
    seconds = dict.fromkeys(PARTS, 0.0)
    timed_iteration(features, state, settings, rng, dict(seconds))  # kernels compiled before the clock
    arrays = [timed_iteration(features, state, settings, rng, seconds) for _ in range(args.iterations)]
    total = sum(seconds.values())
    print(f"{puzzle.board}, features {args.features!r} ({features.n_inputs} inputs), hidden {args.hidden}, batch "
          f"{args.batch:,}, walks of 0-{args.max_moves} moves; {platform.processor() or platform.machine()}, "
          f"{time.strftime('%Y-%m-%d')}; ms per iteration:")
    for part in PARTS:
        print(f"  {part:<18} {seconds[part] / args.iterations * 1e3:8.2f}  {seconds[part] / total:6.1%}")
    print(f"  {'iteration':<18} {total / args.iterations * 1e3:8.2f}")
    jax_seconds = jax_network_seconds(state.network, arrays, settings.rate)
    if jax_seconds is None:
        print("JAX is not installed (pip install jax): the network's part was timed with numpy only")
    else:
        whole = total - seconds["network (numpy)"] + jax_seconds
        print(f"  network (JAX, jit) {jax_seconds / args.iterations * 1e3:8.2f}: an iteration would take "
              f"{whole / args.iterations * 1e3:.2f} ms, {total / whole:.2f} times as fast as with numpy")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded("bench_training.py", main))
