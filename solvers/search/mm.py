"""mm.py -- MM (Holte, Felner, Sharon & Sturtevant, AAAI 2016): the bidirectional search that meets in the middle.

Each direction's open nodes are ranked by pr(n) = max(f(n), 2 g(n)), f = g + h with h toward
the other end, so neither search goes past the middle of the shortest path before the other
does. MM expands a node of least pr, C = min(pr_F, pr_B), from the direction holding it
(forward on a tie), the one of least g among them; it stops when the incumbent U is at most
max(C, fmin_F, fmin_B, gmin_F + gmin_B + epsilon) (epsilon: the cheapest move, 1 here), which
makes U the shortest length with an admissible heuristic. The kernel is bidirectional.py's.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.jit import kernel
from solvers.search.bidirectional import BACKWARD, EXHAUSTED, FORWARD, NO_KEY, STOP, f_key, least_in_direction, \
    register_bidirectional


class MeetInTheMiddle(NamedTuple):
    epsilon: int  # the cost of the cheapest move



@kernel
def _choose(rule, least_key, sizes, rows, open_count, upper, memo):
    """MM's next expansion or its stop (bidirectional.py's `choose`)."""
    least_pr = np.full(2, NO_KEY, dtype=np.int64)
    pr_row = np.full(2, -1, dtype=np.int64)
    least_f = np.full(2, NO_KEY, dtype=np.int64)
    least_g = np.full(2, -1, dtype=np.int64)
    for d in range(2):
        least_f[d], _, least_g[d] = least_in_direction(least_key, d, rows)
        for row in range(rows[d]):
            if least_key[d, row] != NO_KEY and max(least_key[d, row], 2 * row) < least_pr[d]:
                least_pr[d], pr_row[d] = max(least_key[d, row], 2 * row), row
    if least_g[0] < 0 or least_g[1] < 0:
        return EXHAUSTED, upper, -1, -1
    c = min(least_pr[0], least_pr[1])
    bound = max(c, least_f[0], least_f[1], least_g[0] + least_g[1] + rule.epsilon)
    if upper <= bound:
        return STOP, bound, -1, -1
    if least_pr[0] <= least_pr[1]:
        return FORWARD, bound, pr_row[0], -1
    return BACKWARD, bound, -1, pr_row[1]



mm = register_bidirectional(
    "mm", "MM: bidirectional search meeting in the middle, on max(f, 2g) in each direction"
    "; optimal with an admissible heuristic",
    MeetInTheMiddle(1), f_key, _choose)
