"""dibbs.py -- DIBBS (Sewell & Jacobson 2021): bidirectional search on dynamically improved bounds.

Each node carries f-bar = g + h + (g - h_own), h toward the other end and h_own toward its own:
g - h_own is how much the path from its own end exceeds the estimate of that distance, an
excess any path through the node also pays from the other side. DIBBS expands, in the
direction of the smaller least f-bar (on a tie, the one with fewer open nodes, forward if
equal), a node of least f-bar, the one of least g among them, and stops when the incumbent U is at most ceil((fbar_F + fbar_B) / 2) of
the two least f-bars. That is a lower bound on every path not yet found only where h(n) - h(m)
<= d(n, m) for every two states, in both directions: a consistent heuristic. With an inconsistent
one (plain PDB tables, which take the least entry over the blank's cells) DIBBS stops early
with a longer path, so the search refuses it. The kernel is bidirectional.py's; it evaluates
both heuristics at every node.
"""

from __future__ import annotations

from typing import NamedTuple

from solvers.jit import kernel
from solvers.search.bidirectional import BACKWARD, EXHAUSTED, FORWARD, STOP, least_in_direction, register_bidirectional


class DynamicallyImprovedBounds(NamedTuple):
    epsilon: int  # the cost of the cheapest move


@kernel
def total_error_key(rule, g, h, h_own):
    """f-bar = 2g + h - h_own (BAE*'s b, bae.py)."""
    return 2 * g + h - h_own


@kernel
def total_error_choice(forward, forward_row, backward, backward_row, upper, forward_next):
    """The choice (bidirectional.py's `choose`) of a rule on f-bar, given each direction's least
    f-bar and a row holding it (-1 for an empty direction) and whether, unless it stops, the
    forward search expands next: EXHAUSTED if a direction is empty, STOP once U is at most
    ceil((forward + backward) / 2), a lower bound on every path not yet found with a consistent
    heuristic."""
    if forward_row < 0 or backward_row < 0:
        return EXHAUSTED, upper, -1, -1
    bound = (forward + backward + 1) // 2
    if upper <= bound:
        return STOP, bound, -1, -1
    if forward_next:
        return FORWARD, bound, forward_row, -1
    return BACKWARD, bound, -1, backward_row


@kernel
def _choose(rule, least_key, sizes, rows, open_count, upper, memo):
    """DIBBS's next expansion or its stop (bidirectional.py's `choose`)."""
    forward, forward_row, _ = least_in_direction(least_key, 0, rows)
    backward, backward_row, _ = least_in_direction(least_key, 1, rows)
    forward_next = forward < backward or (forward == backward and open_count[0] <= open_count[1])
    return total_error_choice(forward, forward_row, backward, backward_row, upper, forward_next)


dibbs = register_bidirectional(
    "dibbs", "DIBBS: bidirectional search on f-bar = 2g + h - h_own, stopping at the mean of the two least"
    "; it takes consistent heuristics only",
    DynamicallyImprovedBounds(1), total_error_key, _choose, reads_own=True, needs_consistent=True)
