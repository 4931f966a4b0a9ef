"""bae.py -- BAE* (Sadhukhan 2013): bidirectional search on the total of both heuristics' errors, alternating directions.

Each node carries b = f + d, f = g + h with h toward the other end and d = g - h_own, the error
of the heuristic toward its own end: DIBBS's f-bar (dibbs.py), the same key. BAE* differs from
DIBBS in what it expands: it alternates the directions, one expansion each (forward first),
where DIBBS expands in the direction of the smaller least key, and among the nodes of least b
it takes one of greatest g, where DIBBS takes one of least g. It stops, as DIBBS does, when the
incumbent U is at most ceil((b_F + b_B) / 2) of the two least b's, a lower bound on every path
not yet found only with a consistent heuristic; the search refuses one that may not be. A
public hog2-based implementation also discards, unexpanded, a node the other direction has
closed (BS*'s nipping); this one expands it, as dibbs.py does. The kernel is bidirectional.py's.
"""

from __future__ import annotations

from typing import NamedTuple

from solvers.jit import kernel
from solvers.search.bidirectional import NO_KEY, register_bidirectional
from solvers.search.dibbs import total_error_choice, total_error_key

TURN = 0  # the memo slot that flips at every expansion: 1 when the forward search has the move


class AdditiveError(NamedTuple):
    epsilon: int  # the cost of the cheapest move


@kernel
def _least_key_deepest_row(least_key, d, rows):
    """(the least key of direction d's open nodes, the greatest g among the rows holding it);
    (NO_KEY, -1) if it has none."""
    best, best_row = NO_KEY, -1
    for row in range(rows[d]):
        if least_key[d, row] <= best and least_key[d, row] != NO_KEY:
            best, best_row = least_key[d, row], row
    return best, best_row


@kernel
def _choose(rule, least_key, sizes, rows, open_count, upper, memo):
    """BAE*'s next expansion or its stop (bidirectional.py's `choose`)."""
    forward, forward_row = _least_key_deepest_row(least_key, 0, rows)
    backward, backward_row = _least_key_deepest_row(least_key, 1, rows)
    memo[TURN] ^= 1
    return total_error_choice(forward, forward_row, backward, backward_row, upper, memo[TURN] == 1)


bae = register_bidirectional(
    "bae", "BAE*: bidirectional search on b = 2g + h - h_own, alternating directions, stopping at the mean of the "
    "two least; it takes consistent heuristics only",
    AdditiveError(1), total_error_key, _choose, reads_own=True, needs_consistent=True)
