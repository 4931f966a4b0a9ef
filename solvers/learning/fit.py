"""fit.py -- fitting a network (solvers/heuristics/network.py) to targets: mean squared error and Adam.

`gradients` is the backward pass of network.forward, written out for its two hidden layers
of rectified units (tests compare it with finite differences); `Adam` keeps the moment
estimates of Kingma & Ba's method (ICLR 2015) for every trained array. The inputs'
normalisation (shift, spread) is fixed before training and not trained.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.heuristics.network import Network

TRAINED = ("w1", "b1", "w2", "b2", "w3", "b3")


def loss_and_gradients(network: Network, inputs: np.ndarray, targets: np.ndarray) -> tuple[float, dict]:
    """The mean squared error of network.forward(inputs) against `targets`, and its gradient
    with respect to every array of TRAINED."""
    x = (inputs - network.shift) / network.spread
    z1 = x @ network.w1 + network.b1
    a1 = np.maximum(z1, 0.0)
    z2 = a1 @ network.w2 + network.b2
    a2 = np.maximum(z2, 0.0)
    error = a2 @ network.w3 + network.b3[0] - targets
    d_out = 2.0 * error / error.shape[0]
    d_z2 = np.outer(d_out, network.w3) * (z2 > 0)
    d_z1 = (d_z2 @ network.w2.T) * (z1 > 0)
    return float(np.mean(error ** 2)), {
        "w1": x.T @ d_z1, "b1": d_z1.sum(axis=0), "w2": a1.T @ d_z2, "b2": d_z2.sum(axis=0),
        "w3": a2.T @ d_out, "b3": np.array([d_out.sum()]),
    }


class Adam(NamedTuple):
    """Adam's state: first and second moment estimates by array name, and the steps taken."""

    first: dict
    second: dict
    steps: int

    @classmethod
    def fresh(cls, network: Network) -> Adam:
        zeros = {name: np.zeros_like(getattr(network, name)) for name in TRAINED}
        return cls(zeros, {name: a.copy() for name, a in zeros.items()}, 0)

    def step(self, network: Network, gradients: dict, rate: float,
             betas: tuple[float, float] = (0.9, 0.999)) -> tuple[Network, Adam]:
        """The network after one step along `gradients` at learning rate `rate`, and the new state."""
        b1, b2 = betas
        steps = self.steps + 1
        first = {n: b1 * self.first[n] + (1 - b1) * g for n, g in gradients.items()}
        second = {n: b2 * self.second[n] + (1 - b2) * g * g for n, g in gradients.items()}
        scale = rate * np.sqrt(1 - b2 ** steps) / (1 - b1 ** steps)
        moved = {n: getattr(network, n) - scale * first[n] / (np.sqrt(second[n]) + 1e-8) for n in TRAINED}
        return network._replace(**moved), Adam(first, second, steps)
