"""gbfhs.py -- GBFHS (Barley, Riddle, Linares López, Dobson & Pommerening, SoCS 2018): general breadth-first heuristic search, level by level.

GBFHS raises a limit on f level by level, from max(h_F(start), h_B(goal), 1). At limit F it
splits F between the directions' limits on g, g_B = floor(F / 2) and g_F = F - g_B (the
cheapest move costs 1), and expands every open node of f <= F and g below its direction's
limit, forward first, then backward, least g first; nodes generated meanwhile that qualify
are expanded in the same level (with g below the limit, as the paper states; the
implementation behind the published counts, tinamil/dibbs, also expands those whose g equals
it, which reaches the meeting sooner: BENCHMARKS.md). A path found of length at most F ends
the search: every path shorter than F would have met in a node that one of the levels below
expanded. The kernel is bidirectional.py's.
"""

from __future__ import annotations

from typing import NamedTuple

from solvers.jit import kernel
from solvers.search.bidirectional import BACKWARD, EXHAUSTED, FORWARD, STOP, f_key, initial_bound, \
    least_g_within, register_bidirectional

LIMIT, PHASE, STARTED = 0, 1, 2  # GBFHS's slots of the rule's memo


class GeneralBreadthFirst(NamedTuple):
    epsilon: int  # the cost of the cheapest move



@kernel
def _choose(rule, least_key, sizes, rows, open_count, upper, memo):
    """GBFHS's next expansion or its stop (bidirectional.py's `choose`); memo[LIMIT] is the
    level's limit on f, memo[PHASE] 0 while it expands forward, 1 backward."""
    if memo[STARTED] == 0:
        memo[STARTED] = 1
        memo[LIMIT] = initial_bound(least_key)
    while True:
        limit = memo[LIMIT]
        if upper <= limit:
            return STOP, limit, -1, -1
        if open_count[0] == 0 or open_count[1] == 0:
            return EXHAUSTED, limit, -1, -1
        backward_g = (limit - rule.epsilon + 1) // 2
        forward_g = limit - rule.epsilon + 1 - backward_g
        if memo[PHASE] == 0:
            row = least_g_within(least_key, 0, rows, limit)
            if 0 <= row < forward_g:
                return FORWARD, limit, row, -1
            memo[PHASE] = 1
        row = least_g_within(least_key, 1, rows, limit)
        if 0 <= row < backward_g:
            return BACKWARD, limit, -1, row
        memo[LIMIT] += 1
        memo[PHASE] = 0



gbfhs = register_bidirectional(
    "gbfhs", "GBFHS: bidirectional search level by level on a limit of f split between the directions' limits on g"
    "; optimal with an admissible heuristic",
    GeneralBreadthFirst(1), f_key, _choose)
