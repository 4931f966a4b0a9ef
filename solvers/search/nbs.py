"""nbs.py -- NBS (Chen, Holte, Zilles & Sturtevant, IJCAI 2017): bidirectional search that expands pairs of nodes.

A pair (u, v), u open forward and v open backward, has the lower bound
lb(u, v) = max(f_F(u), f_B(v), g_F(u) + g_B(v) + epsilon) on every path through both, and
every pair with lb below the shortest length C* must lose one of its nodes before C* is proven.
NBS raises a bound L, starting at max(h_F(start), h_B(goal), 1), and expands, while some pair
of *ready* nodes has lb <= L, both nodes of one: in each direction the ready node of least g.
The nodes with f below L are ready; those with f = L are made ready one at a time, forward
first, only while no pair qualifies (as the authors' queues of waiting and ready nodes do);
when none is left it raises L to the least of the two directions' least f above L and the
least g_F + g_B + epsilon, and it stops once L >= U. So it expands at most twice the
nodes of the must-expand pairs' smallest vertex cover. The kernel is bidirectional.py's.

The code behind the published counts (tinamil/dibbs; `--rules dibbs-code`) bounds a pair by
g_F(u) + g_B(v) alone, without epsilon: a weaker bound, still a lower one.
"""

from __future__ import annotations

from typing import NamedTuple

from solvers.jit import kernel
from solvers.search.bidirectional import BOTH, EXHAUSTED, NO_KEY, STOP, f_key, initial_bound, raised_bound, \
    register_bidirectional

BOUND, STARTED, ADMITTED = 0, 1, 2  # NBS's slots of the rule's memo (ADMITTED: one per direction)


class NearOptimalBidirectional(NamedTuple):
    epsilon: int  # the cost of the cheapest move (the paper); 0 under the published code's rules



@kernel
def _ready_row(least_key, sizes, d, rows, bound, admitted):
    """The least g of direction d's ready nodes: those with f below `bound`, and with f equal to
    it where some are admitted (-1 if none)."""
    for row in range(rows[d]):
        if least_key[d, row] < bound or (admitted > 0 and least_key[d, row] == bound):
            return row
    return -1


@kernel
def _at_bound(sizes, d, rows, bound):
    """How many of direction d's open nodes have f equal to `bound`."""
    count = 0
    for row in range(rows[d]):
        count += sizes[d, row, bound]
    return count


@kernel
def _choose(rule, least_key, sizes, rows, open_count, upper, memo):
    """NBS's next pair or its stop (bidirectional.py's `choose`); memo[BOUND] is L and
    memo[ADMITTED + d] how many nodes of f = L direction d has made ready."""
    if memo[STARTED] == 0:
        memo[STARTED] = 1
        memo[BOUND] = initial_bound(least_key)
    while True:
        bound = memo[BOUND]
        if open_count[0] == 0 or open_count[1] == 0:
            return EXHAUSTED, bound, -1, -1
        forward = _ready_row(least_key, sizes, 0, rows, bound, memo[ADMITTED])
        backward = _ready_row(least_key, sizes, 1, rows, bound, memo[ADMITTED + 1])
        paired = forward >= 0 and backward >= 0
        if paired and forward + backward + rule.epsilon <= bound:
            if upper <= bound:
                return STOP, bound, -1, -1
            for d, row in ((0, forward), (1, backward)):
                if least_key[d, row] == bound:  # the node expanded is one of those admitted
                    memo[ADMITTED + d] -= 1
            return BOTH, bound, forward, backward
        admitted = False
        for d in range(2):
            if not admitted and memo[ADMITTED + d] < _at_bound(sizes, d, rows, bound):
                memo[ADMITTED + d] += 1
                admitted = True
        if admitted:
            continue
        raised = raised_bound(sizes, rows, bound, forward, backward, rule.epsilon)
        if raised == NO_KEY:
            return EXHAUSTED, bound, -1, -1
        memo[BOUND] = raised
        memo[ADMITTED] = memo[ADMITTED + 1] = 0
        if upper <= raised:
            return STOP, raised, -1, -1



nbs = register_bidirectional(
    "nbs", "NBS: bidirectional search expanding both nodes of a pair of least lower bound"
    "; optimal with an admissible heuristic, at most twice the necessary expansions by the paper's rules",
    NearOptimalBidirectional(1), f_key, _choose, code_rule=NearOptimalBidirectional(0))
