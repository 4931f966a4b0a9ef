"""xorshift.py -- the seeded random numbers of the search kernels (random ties, type-based draws).

An xorshift64* generator (Vigna, 2016): a search seeded with RANDOM_SEED makes the same choices
at every run, so its counts are repeatable and a naive twin can follow it. A search restarted
with other random choices (restarts.py) seeds its k-th run with `seeded(k)`, RANDOM_SEED for
k = 0.
"""

from __future__ import annotations

import numpy as np

from solvers.jit import kernel

RANDOM_SEED = 0x9E3779B97F4A7C15
RANDOM_BITS = 23  # the bits random_bits returns
RUN_MIX = 0xBF58476D1CE4E5B9  # an odd multiplier (splitmix64's) that spreads run numbers over the seeds


@kernel
def random_bits(state):
    """(the next state of the generator, RANDOM_BITS random bits from it); `state` is a uint64."""
    state ^= state >> np.uint64(12)
    state ^= state << np.uint64(25)
    state ^= state >> np.uint64(27)
    return state, np.int64((state * np.uint64(2685821657736338717)) >> np.uint64(41))


@kernel
def seeded(run):
    """The generator's first state for the `run`-th run (a non-negative integer) of a search:
    RANDOM_SEED for run 0, another non-zero state for each other run."""
    state = np.uint64(RANDOM_SEED) ^ (np.uint64(run) * np.uint64(RUN_MIX))
    return state if state != np.uint64(0) else np.uint64(RANDOM_SEED)
