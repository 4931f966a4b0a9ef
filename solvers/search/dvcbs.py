"""dvcbs.py -- DVCBS (Shperberg, Felner, Shimony, Sturtevant & Hayoun, AAAI 2019): bidirectional search by dynamic vertex covers.

Like NBS (nbs.py), DVCBS raises a bound L from max(h_F(start), h_B(goal), 1); every open
node with f <= L is *ready*. It groups each direction's ready nodes into clusters by g, and
joins a forward cluster g_F and a backward one g_B when g_F + g_B + epsilon <= L: every such
pair of nodes must lose one before L can pass. Of this must-expand graph it finds a minimum
vertex cover, counting each cluster by its nodes (the graph is a staircase, so its minimal
covers are a prefix of each side's clusters by g), and expands a whole cluster of least g of
one side of a minimum cover: the side whose first cluster is in a minimum cover, the smaller
one where both are, backward on a tie or where neither is (the least ready g's summing to L
exactly), as the implementation behind the published counts (tinamil/dibbs) chooses. The
cluster is expanded node by node while L, the side's least ready g and the stopping test
allow; the cover is then found again. With no pair left, L rises to the
least of the two directions' least f above L and g_F + g_B + epsilon, and the search stops
once L >= U. The kernel is bidirectional.py's.

That implementation (`--rules dibbs-code`) values a cover of forward clusters and every
backward cluster as the backward ones alone, so it also takes the forward side where the
all-backward cover is a minimum; the paper's rule values every cover by all its nodes, which
expands fewer nodes on Korf's 100 (docs/developer/lab-notes.md, "The rules of the published code").
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solvers.jit import kernel
from solvers.search.bidirectional import BACKWARD, EXHAUSTED, FORWARD, NO_KEY, STOP, f_key, initial_bound, \
    least_g_within, raised_bound, register_bidirectional

BOUND, STARTED, SIDE, CLUSTER, CLUSTER_BOUND = range(5)  # DVCBS's slots of the rule's memo
NO_SIDE = -1


class DynamicVertexCover(NamedTuple):
    epsilon: int  # the cost of the cheapest move
    backward_valued: bool  # a cover holding every backward cluster counts those alone (the published code)


@kernel
def _clusters(sizes, d, rows, bound, top):
    """The ready nodes of direction d (f <= `bound`) with g <= `top`, counted by g: a count per g
    from 0 to `top` (zero where none)."""
    counts = np.zeros(max(0, top + 1), dtype=np.int64)
    for row in range(min(rows[d], top + 1)):
        for f in range(min(bound + 1, sizes.shape[2])):
            counts[row] += sizes[d, row, f]
    return counts


@kernel
def _cover_side(rule, forward, backward, bound):
    """The side (FORWARD or BACKWARD) whose cluster of least g a minimum vertex cover holds,
    given the clusters' counts by g (forward[g], backward[g]); BACKWARD where neither holds one
    (no pair joined) or on a tie. A cover costs its nodes; under rule.backward_valued (the
    published code's) one of fewer than every forward cluster and of every backward cluster costs
    its backward nodes alone. For each forward prefix only the cover with the fewest backward
    clusters is valued, as in the published code: by the papers' rules a longer one only costs more."""
    f_rows = np.nonzero(forward)[0]
    b_rows = np.nonzero(backward)[0]
    least = NO_KEY
    holds_forward, holds_backward = False, False
    # covers: the first i forward clusters and the first j backward ones, such that no forward
    # cluster after i joins a backward one after j
    for i in range(f_rows.shape[0] + 1):
        forward_cost = forward[f_rows[:i]].sum()
        for j in range(b_rows.shape[0] + 1):
            if i < f_rows.shape[0] and j < b_rows.shape[0] and f_rows[i] + b_rows[j] + rule.epsilon <= bound:
                continue  # the pair (i, j) is not covered
            cost = backward[b_rows[:j]].sum()
            if not (rule.backward_valued and j == b_rows.shape[0] and i < f_rows.shape[0]):
                cost += forward_cost
            if cost < least:
                least, holds_forward, holds_backward = cost, i > 0, j > 0
            elif cost == least:
                holds_forward, holds_backward = holds_forward or i > 0, holds_backward or j > 0
            break  # the fewest backward clusters that cover, for this forward prefix
    if holds_forward and (not holds_backward or forward[f_rows[0]] < backward[b_rows[0]]):
        return FORWARD
    return BACKWARD


@kernel
def _choose(rule, least_key, sizes, rows, open_count, upper, memo):
    """DVCBS's next expansion or its stop (bidirectional.py's `choose`); memo[BOUND] is L,
    memo[SIDE], memo[CLUSTER] and memo[CLUSTER_BOUND] the cluster being expanded (its side, its
    g and the L it was chosen at)."""
    if memo[STARTED] == 0:
        memo[STARTED] = 1
        memo[BOUND] = initial_bound(least_key)
        memo[SIDE] = NO_SIDE
    while True:
        bound = memo[BOUND]
        if upper <= bound:
            return STOP, bound, -1, -1
        if open_count[0] == 0 or open_count[1] == 0:
            return EXHAUSTED, bound, -1, -1
        forward = least_g_within(least_key, 0, rows, bound)
        backward = least_g_within(least_key, 1, rows, bound)
        side = memo[SIDE]
        if side != NO_SIDE and memo[CLUSTER_BOUND] == bound:
            row = forward if side == FORWARD else backward
            if row == memo[CLUSTER]:
                return side, bound, row, row
        memo[SIDE] = NO_SIDE
        if forward >= 0 and backward >= 0 and forward + backward <= bound:
            forward_clusters = _clusters(sizes, 0, rows, bound, bound - backward - rule.epsilon)
            backward_clusters = _clusters(sizes, 1, rows, bound, bound - forward - rule.epsilon)
            side = _cover_side(rule, forward_clusters, backward_clusters, bound)
            memo[SIDE], memo[CLUSTER_BOUND] = side, bound
            memo[CLUSTER] = forward if side == FORWARD else backward
            return side, bound, memo[CLUSTER], memo[CLUSTER]
        raised = raised_bound(sizes, rows, bound, forward, backward, rule.epsilon)
        if raised == NO_KEY:
            return EXHAUSTED, bound, -1, -1
        memo[BOUND] = raised


dvcbs = register_bidirectional(
    "dvcbs", "DVCBS: bidirectional search expanding a cluster of a minimum vertex cover of the must-expand graph"
    "; optimal with an admissible heuristic",
    DynamicVertexCover(1, False), f_key, _choose, code_rule=DynamicVertexCover(1, True))
