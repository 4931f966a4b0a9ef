"""gbfhs.py -- GBFHS (Barley, Riddle, Linares López, Dobson & Pommerening, SoCS 2018): general breadth-first heuristic search, level by level.

GBFHS raises a limit on f level by level, from max(h_F(start), h_B(goal), 1). At limit F it
splits F between the directions' limits on g, g_B = floor(F / 2) and g_F = F - g_B (the
cheapest move costs 1), and expands every open node of f <= F and g below its direction's
limit, forward first, then backward, least g first; nodes generated meanwhile that qualify
are expanded in the same level. A path found of length at most F ends the search: every path
shorter than F would have met in a node that one of the levels below expanded. The kernel is
bidirectional.py's.

Under the rules of the code behind the published counts (tinamil/dibbs; `--rules dibbs-code`)
a direction's level also expands the nodes it generates whose g equals its limit, but not
those that were open at that g when it began, which reach the meeting sooner: at the start of
each direction's turn the rule notes how many open nodes each bucket of the row at the limit
holds, and takes a node from a bucket that has more (a bucket is last in, first out, so that
node is one the turn generated). An older node of that row reached again with a smaller g
leaves its bucket, and one node generated there then counts as older: the counts stay those
of the published code on most instances, not all (docs/developer/lab-notes.md, "The rules of the published code").
"""

from __future__ import annotations

from typing import NamedTuple

from solvers.jit import kernel
from solvers.search.bidirectional import BACKWARD, EXHAUSTED, FORWARD, MEMO_SLOTS, STOP, f_key, initial_bound, \
    least_g_within, named_bucket, register_bidirectional

LIMIT, PHASE, STARTED, NOTED = 0, 1, 2, 3  # GBFHS's slots of the rule's memo; NOTED: the turn's buckets noted


class GeneralBreadthFirst(NamedTuple):
    epsilon: int  # the cost of the cheapest move
    generated_at_limit: bool  # also expand the nodes a turn generates at its limit on g (the published code)


@kernel
def _note_row(sizes, d, row, memo):
    """Note in memo[MEMO_SLOTS + key] how many open nodes of direction d each bucket (row, key) holds."""
    memo[MEMO_SLOTS:] = 0
    if row < sizes.shape[1]:
        memo[MEMO_SLOTS:MEMO_SLOTS + sizes.shape[2]] = sizes[d, row]


@kernel
def _generated_bucket(sizes, d, row, bound, memo):
    """The least key up to `bound` of a bucket (row, key) of direction d that holds more nodes than
    _note_row noted (-1 if none)."""
    for key in range(min(bound + 1, sizes.shape[2])):
        if sizes[d, row, key] > memo[MEMO_SLOTS + key]:
            return key
    return -1


@kernel
def _choose(rule, least_key, sizes, rows, open_count, upper, memo):
    """GBFHS's next expansion or its stop (bidirectional.py's `choose`); memo[LIMIT] is the
    level's limit on f, memo[PHASE] 0 while it expands forward, 1 backward, 2 when done."""
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
        while memo[PHASE] < 2:
            d = memo[PHASE]
            g_limit = limit - rule.epsilon + 1 - backward_g if d == 0 else backward_g
            if rule.generated_at_limit and memo[NOTED] == 0:
                _note_row(sizes, d, g_limit, memo)
                memo[NOTED] = 1
            row = least_g_within(least_key, d, rows, limit)
            chosen = row if 0 <= row < g_limit else -1
            if rule.generated_at_limit and row == g_limit:
                key = _generated_bucket(sizes, d, row, limit, memo)
                if key >= 0:
                    chosen = named_bucket(sizes, row, key)
            if chosen >= 0:
                return (FORWARD, limit, chosen, -1) if d == 0 else (BACKWARD, limit, -1, chosen)
            memo[PHASE] += 1
            memo[NOTED] = 0
        memo[LIMIT] += 1
        memo[PHASE] = 0


gbfhs = register_bidirectional(
    "gbfhs", "GBFHS: bidirectional search level by level on a limit of f split between the directions' limits on g"
    "; optimal with an admissible heuristic",
    GeneralBreadthFirst(1, False), f_key, _choose, code_rule=GeneralBreadthFirst(1, True))
