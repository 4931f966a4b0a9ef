"""network.py -- the model of a learned heuristic: a small network over the features, trained in floats, searched with in integers.

    out = w3 . relu(W2 relu(W1 x' + b1) + b2) + b3,   x' = (x - shift) / spread

x being a state's inputs (features.py) and shift and spread each input's mean and spread over
the training states. h is `out` rounded, at least 1 away from the goal and 0 at it
(`h_of`): a search recognises the goal by h = 0, and every other state is at least one move away.

Training works on a `Network` of floats. The searches evaluate its `Quantized` form: the
normalisation folded into the first layer, whose weights and biases are multiplied by QUANT and
rounded to integers, so that the first layer's sums (kept per node by the learned kind and
updated by each move from the inputs the move changes) are exact, the same whether computed
from nothing or move by move; the layers after it stay in floats. `forward` is the naive
evaluation of a Network, `quantized_forward` the matrix products of a Quantized one (what a
batch of states is evaluated by).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

QUANT = 2 ** 20  # first-layer weights in units of 1/QUANT: rounding moves `out` by far less than a move


class Network(NamedTuple):
    """A network of floats: w1 (inputs, hidden1), w2 (hidden1, hidden2), w3 (hidden2,)."""

    shift: np.ndarray
    spread: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray  # shape (1,)

    @property
    def sizes(self) -> tuple[int, int, int]:
        """(inputs, hidden1, hidden2)."""
        return self.w1.shape[0], self.w1.shape[1], self.w2.shape[1]


class Quantized(NamedTuple):
    """A network as the searches evaluate it: w1 and b1 integers (units of 1/QUANT, the
    normalisation folded in), w2 transposed (hidden2, hidden1) so that a row is one unit's."""

    w1: np.ndarray  # int64 (inputs, hidden1)
    b1: np.ndarray  # int64 (hidden1,)
    w2t: np.ndarray  # float64 (hidden2, hidden1)
    b2: np.ndarray
    w3: np.ndarray
    b3: np.ndarray


def initial_network(n_inputs: int, hidden: tuple[int, int], rng: np.random.Generator,
                    shift: np.ndarray | None = None, spread: np.ndarray | None = None) -> Network:
    """A network of random weights (He initialisation) with the given input normalisation
    (none by default)."""
    h1, h2 = hidden
    if n_inputs < 1 or h1 < 1 or h2 < 1:
        raise ValueError(f"a network needs inputs and two hidden layers, not {n_inputs}, {h1}, {h2}")
    return Network(
        np.zeros(n_inputs) if shift is None else np.asarray(shift, dtype=np.float64),
        np.ones(n_inputs) if spread is None else np.asarray(spread, dtype=np.float64),
        rng.normal(0.0, np.sqrt(2.0 / n_inputs), (n_inputs, h1)), np.zeros(h1),
        rng.normal(0.0, np.sqrt(2.0 / h1), (h1, h2)), np.zeros(h2),
        rng.normal(0.0, np.sqrt(1.0 / h2), h2), np.zeros(1),
    )


def normalisation(inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(shift, spread) of each input column: its mean and standard deviation (1 where constant)."""
    spread = inputs.std(axis=0)
    return inputs.mean(axis=0), np.where(spread > 1e-9, spread, 1.0)


def forward(network: Network, inputs: np.ndarray) -> np.ndarray:
    """`out` of every row of `inputs` (the naive evaluation, in floats)."""
    x = (inputs - network.shift) / network.spread
    hidden1 = np.maximum(x @ network.w1 + network.b1, 0.0)
    hidden2 = np.maximum(hidden1 @ network.w2 + network.b2, 0.0)
    return hidden2 @ network.w3 + network.b3[0]


def quantized(network: Network) -> Quantized:
    """The network as the searches evaluate it (module docstring)."""
    w1 = network.w1 / network.spread[:, None]
    b1 = network.b1 - network.shift @ w1
    return Quantized(np.rint(w1 * QUANT).astype(np.int64), np.rint(b1 * QUANT).astype(np.int64),
                     np.ascontiguousarray(network.w2.T), network.b2.copy(), network.w3.copy(), network.b3.copy())


def quantized_forward(model: Quantized, inputs: np.ndarray) -> np.ndarray:
    """`out` of every row of `inputs` by the quantized network, as matrix products."""
    sums = inputs @ model.w1.astype(np.float64) + model.b1  # integers below 2^53: exact in floats
    hidden1 = np.maximum(sums / QUANT, 0.0)
    hidden2 = np.maximum(hidden1 @ model.w2t.T + model.b2, 0.0)
    return hidden2 @ model.w3 + model.b3[0]


def h_of(out: np.ndarray, at_goal: np.ndarray) -> np.ndarray:
    """h (int64) from `out`: rounded, at least 1, and 0 where `at_goal`."""
    return np.where(at_goal, 0, np.maximum(np.floor(np.asarray(out) + 0.5), 1)).astype(np.int64)
