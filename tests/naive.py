"""naive.py -- slow, plain-Python references that the kernels are tested against.

Written independently of the package: tuples for states, dicts for distances, brute force
where a clever method would be shorter.
"""

from __future__ import annotations

import functools
import math
from collections import deque
from itertools import combinations


def blank_moves(state: tuple, rows: int, cols: int) -> list[tuple]:
    """Every state one move away (the blank swapped with an orthogonal neighbour)."""
    blank = state.index(0)
    r, c = divmod(blank, cols)
    result = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        nr, nc = r + dr, c + dc
        if 0 <= nr < rows and 0 <= nc < cols:
            other = nr * cols + nc
            cells = list(state)
            cells[blank], cells[other] = cells[other], 0
            result.append(tuple(cells))
    return result


def exhaustive_distances(rows: int, cols: int, goal: tuple) -> dict[tuple, int]:
    """Exact distance to `goal` of every state that can reach it (BFS from the goal)."""
    distance = {goal: 0}
    frontier = deque([goal])
    while frontier:
        state = frontier.popleft()
        for nxt in blank_moves(state, rows, cols):
            if nxt not in distance:
                distance[nxt] = distance[state] + 1
                frontier.append(nxt)
    return distance


def hamming(state: tuple, goal: tuple) -> int:
    return sum(1 for s, g in zip(state, goal) if s != 0 and s != g)


def manhattan(state: tuple, goal: tuple, cols: int) -> int:
    total = 0
    for cell, tile in enumerate(state):
        if tile:
            goal_cell = goal.index(tile)
            total += abs(cell // cols - goal_cell // cols) + abs(cell % cols - goal_cell % cols)
    return total


def _fewest_removals(goal_positions: list[int]) -> int:
    """Fewest entries to delete so that the rest increase (tried by brute force over subsets)."""
    n = len(goal_positions)
    for removed in range(n + 1):
        for drop in combinations(range(n), removed):
            kept = [p for i, p in enumerate(goal_positions) if i not in drop]
            if all(a < b for a, b in zip(kept, kept[1:])):
                return removed
    return n


def linear_conflict(state: tuple, goal: tuple, rows: int, cols: int) -> int:
    """Manhattan plus two moves per tile that must leave its goal row or column."""
    extra = 0
    for r in range(rows):
        row = [state[r * cols + c] for c in range(cols)]
        positions = [goal.index(t) % cols for t in row if t and goal.index(t) // cols == r]
        extra += 2 * _fewest_removals(positions)
    for c in range(cols):
        col = [state[r * cols + c] for r in range(rows)]
        positions = [goal.index(t) // cols for t in col if t and goal.index(t) % cols == c]
        extra += 2 * _fewest_removals(positions)
    return manhattan(state, goal, cols) + extra


PARENT_PRUNING = ("UD", "DU", "LR", "RL")


def ida_star_counts(state: tuple, goal: tuple, rows: int, cols: int, h, *, forbidden=PARENT_PRUNING,
                    complete: bool = False, order: str = "UDLR", bpmx: bool = False,
                    bpmx_counts: list | None = None) -> tuple[int, list[tuple]]:
    """Plain recursive IDA*: (solution length, [(bound, expanded, generated) per iteration]).

    Children are generated with the blank moving in `order` (a permutation of "UDLR"), skipping
    a move when the path's moves would then end with one of the `forbidden` strings (by default
    the move back to the parent); a node counts as expanded when its children are generated,
    and every child counts as generated, including those cut off by the bound. With `complete`
    the iteration that finds the goal goes on to its end, expanding goals like any node.

    With `bpmx` (bidirectional pathmax, by its definition): a node's value is passed down as
    value - 1 where it beats the child's own h, and a child's value - 1 (as generated, or as
    its subtree left it) raises the node's; a node whose raised f exceeds the bound returns at
    once, offering that f as the next bound. `bpmx_counts`, if given, receives [raises, cutoffs].
    """
    steps = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
    forbidden = set(forbidden)
    lengths = sorted({len(word) for word in forbidden})
    fired = [0, 0]

    def raised(value, g, by, bound):
        """(the node's value after a child offered `by`, whether the node is now cut off)."""
        if not bpmx or by - 1 <= value:
            return value, False
        fired[0] += 1
        cut = g + by - 1 > bound
        fired[1] += cut
        return by - 1, cut

    def search(node, path, value, bound, counts):
        """(goal depth or None, smallest f above the bound, the node's final value)."""
        counts[0] += 1
        found, best_cut = None, None
        blank = node.index(0)
        r, c = divmod(blank, cols)
        g = len(path)
        for letter in order:
            moved = path + letter
            if any(moved[-k:] in forbidden for k in lengths if k <= len(moved)):
                continue
            nr, nc = r + steps[letter][0], c + steps[letter][1]
            if not (0 <= nr < rows and 0 <= nc < cols):
                continue
            cells = list(node)
            cells[blank], cells[nr * cols + nc] = cells[nr * cols + nc], 0
            child = tuple(cells)
            counts[1] += 1
            child_value = max(h(child), value - 1) if bpmx else h(child)
            value, cut_off = raised(value, g, child_value, bound)
            if cut_off:
                return found, g + value if best_cut is None else min(best_cut, g + value), value
            f = len(moved) + child_value
            if f > bound:
                best_cut = f if best_cut is None else min(best_cut, f)
                continue
            if child == goal and found is None:
                found = len(moved)
                if not complete:
                    return found, best_cut, value
            deeper, cut, child_value = search(child, moved, child_value, bound, counts)
            if deeper is not None and found is None:
                found = deeper
                if not complete:
                    return found, cut, value
            if cut is not None:
                best_cut = cut if best_cut is None else min(best_cut, cut)
            value, cut_off = raised(value, g, child_value, bound)
            if cut_off:
                return found, g + value if best_cut is None else min(best_cut, g + value), value
        return found, best_cut, value

    if state == goal:
        return 0, []
    bound = h(state)
    passes = []
    while True:
        counts = [0, 0]
        found, cut, _ = search(state, "", h(state), bound, counts)
        passes.append((bound, counts[0], counts[1]))
        if found is not None:
            if bpmx_counts is not None:
                bpmx_counts[:] = fired
            return found, passes
        bound = cut


def _moved(effect: tuple, letter: str) -> tuple:
    """`effect` (blank cell, frozenset of (cell, tile) for every cell whose tile is not its
    own; tiles are named by the cell they started in, the blank by "blank") after the blank
    moves by `letter`, on a board without edges."""
    (row, col), displaced = effect
    board = dict(displaced)
    step = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}[letter]
    target = (row + step[0], col + step[1])
    board[(row, col)] = board.get(target, target)
    board[target] = "blank"
    return target, frozenset((cell, tile) for cell, tile in board.items() if tile != cell)


IDENTITY = ((0, 0), frozenset({((0, 0), "blank")}))


def non_duplicate_counts(max_length: int) -> list[int]:
    """For d = 0..max_length, how many strings of d moves are not duplicates (their effect on a
    board without edges is that of no shorter string, nor of a lexicographically smaller one of
    d moves): the number of effects reached in d moves and in no fewer, from the sets of
    effects of all strings of each length."""
    level, reached, counts = {IDENTITY}, {IDENTITY}, [1]
    for _ in range(max_length):
        level = {_moved(effect, letter) for effect in level for letter in "UDLR"}
        counts.append(len(level - reached))
        reached |= level
    return counts


def _effect_and_cells(moves: str) -> tuple[tuple, list]:
    effect, cells = IDENTITY, [(0, 0)]
    for letter in moves:
        effect = _moved(effect, letter)
        cells.append(effect[0])
    return effect, cells


def smaller_equivalent_in_box(moves: str) -> str | None:
    """The first string in shortlex order (U < D < L < R) before `moves` with the same effect
    whose blank stays within the bounding box of the blank's path along `moves`, or None; brute
    force over every string in the box."""
    target, cells = _effect_and_cells(moves)
    rows = range(min(r for r, _ in cells), max(r for r, _ in cells) + 1)
    cols = range(min(c for _, c in cells), max(c for _, c in cells) + 1)
    step = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}

    def strings(prefix, effect, length):
        """(string, effect) of every string of `length` moves in the box that extends `prefix`, in order."""
        if len(prefix) == length:
            yield prefix, effect
            return
        for letter in "UDLR":
            (row, col), _ = effect
            if row + step[letter][0] in rows and col + step[letter][1] in cols:
                yield from strings(prefix + letter, _moved(effect, letter), length)

    for length in range(len(moves) % 2, len(moves) + 1, 2):
        for other, effect in strings("", IDENTITY, length):
            if length == len(moves) and _order(other) >= _order(moves):
                return None
            if effect == target:
                return other
    return None


def _order(moves: str) -> tuple:
    return tuple("UDLR".index(letter) for letter in moves)


def pattern_distances(rows: int, cols: int, goal: tuple, pattern: tuple, additive: bool = True) -> dict:
    """Exact abstract distance of every (placement, blank cell) of `pattern`'s tiles.

    A placement lists the cell of each pattern tile in the order of `pattern`. 0-1 BFS from
    the goal: the blank swapping with a pattern tile costs 1; with any other tile it costs 0
    if `additive`, else 1. Moves are reversible, so distances from the goal are distances to it.
    """
    start = (tuple(goal.index(t) for t in pattern), goal.index(0))
    distance = {start: 0}
    frontier = deque([start])
    while frontier:
        state = frontier.popleft()
        placement, blank = state
        r, c = divmod(blank, cols)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = r + dr, c + dc
            if not (0 <= nr < rows and 0 <= nc < cols):
                continue
            cell = nr * cols + nc
            if cell in placement:
                moved = tuple(blank if p == cell else p for p in placement)
                nxt, cost = (moved, cell), 1
            else:
                nxt, cost = (placement, cell), (0 if additive else 1)
            if nxt not in distance or distance[state] + cost < distance[nxt]:
                distance[nxt] = distance[state] + cost
                if cost == 0:
                    frontier.appendleft(nxt)
                else:
                    frontier.append(nxt)
    return distance


def pattern_table(rows: int, cols: int, goal: tuple, pattern: tuple, additive: bool = True) -> dict:
    """Placement -> the smallest abstract distance over the blank's cells."""
    table: dict = {}
    for (placement, _), d in pattern_distances(rows, cols, goal, pattern, additive).items():
        table[placement] = min(d, table.get(placement, d))
    return table


@functools.cache
def cached_pattern_table(rows: int, cols: int, goal: tuple, pattern: tuple) -> dict:
    """pattern_table of an additive pattern, computed once per process."""
    return pattern_table(rows, cols, goal, pattern)


def pattern_sum(rows: int, cols: int, state: tuple, goal: tuple, patterns) -> int:
    """The sum over `patterns` (disjoint, additive) of their tables' entries for `state`."""
    return sum(cached_pattern_table(rows, cols, goal, tuple(p))[tuple(state.index(t) for t in p)] for p in patterns)


def placement_index(cells: list[int]) -> int:
    """The table index of a placement (cells[i] = the cell of the pattern's i-th tile) exactly
    as the module docstring of pdb_build/ranking.py defines it: colex map rank times k! plus
    the Lehmer rank of the order, computed from the definitions."""
    k = len(cells)
    occupied = sorted(cells)
    map_rank = sum(math.comb(c, j + 1) for j, c in enumerate(occupied))
    order = [occupied.index(c) for c in cells]
    lehmer = [sum(1 for later in order[i + 1 :] if later < order[i]) for i in range(k)]
    return map_rank * math.factorial(k) + sum(d * math.factorial(k - 1 - i) for i, d in enumerate(lehmer))


def walking_distance(state: tuple, goal: tuple, rows: int, cols: int) -> int:
    """Takahashi's walking distance by its definition: for rows, then for columns, the fewest
    moves of a tile across a line into the blank's line that turn the state's table of
    (line, goal line) counts into the goal's, by a fresh breadth-first search."""
    total = 0
    for line_of, n_lines in ((lambda cell: cell // cols, rows), (lambda cell: cell % cols, cols)):
        goal_line = {tile: line_of(goal.index(tile)) for tile in goal}

        def table(s):
            counts = [[0] * n_lines for _ in range(n_lines)]
            for cell, tile in enumerate(s):
                if tile:
                    counts[line_of(cell)][goal_line[tile]] += 1
            return tuple(map(tuple, counts)), line_of(s.index(0))

        total += _line_moves(table(state), table(goal), n_lines)
    return total


@functools.cache
def _line_moves(start, target, n_lines: int) -> int:
    seen = {start: 0}
    frontier = deque([start])
    while frontier:
        current = frontier.popleft()
        if current == target:
            return seen[current]
        counts, blank = current
        for other in (blank - 1, blank + 1):
            if not 0 <= other < n_lines:
                continue
            for g in range(n_lines):
                if counts[other][g]:
                    moved = [list(row) for row in counts]
                    moved[other][g] -= 1
                    moved[blank][g] += 1
                    nxt = (tuple(map(tuple, moved)), other)
                    if nxt not in seen:
                        seen[nxt] = seen[current] + 1
                        frontier.append(nxt)
    raise ValueError("the goal's table is not reachable")


def first_pdb_violation(rows: int, cols: int, goal: tuple, pattern: tuple, table: dict):
    """(placement, check) of the first placement, by placement_index, that breaks a check of
    pdb_build/verify.py on the additive `table` (placement -> value, 255 for UNREACHED), or None.

    Checks, in this order: the goal is 0 ("goal not zero", before any other); then per
    placement: "unreached" (255, unless the pattern holds every tile), "zero away from goal",
    "parity" (value + pattern tiles on odd cells, goal's included, is even), "steep rise" (free
    cells connected and a neighbour more than one higher), "no way down" (no neighbour lower);
    finally the unreached count ("unreached count": half the placements for a pattern of every
    tile, else none).
    """
    n = rows * cols
    goal_placement = tuple(goal.index(t) for t in pattern)
    if table[goal_placement] != 0:
        return goal_placement, "goal not zero"

    def odd(placement):
        return sum((c // cols + c % cols) % 2 for c in placement)

    def moved(placement):
        for i, cell in enumerate(placement):
            r, c = divmod(cell, cols)
            for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if 0 <= nr < rows and 0 <= nc < cols and nr * cols + nc not in placement:
                    yield placement[:i] + (nr * cols + nc,) + placement[i + 1 :]

    def connected(placement):
        free = [c for c in range(n) if c not in placement]
        seen, todo = {free[0]}, [free[0]]
        while todo:
            r, c = divmod(todo.pop(), cols)
            for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                cell = nr * cols + nc
                if 0 <= nr < rows and 0 <= nc < cols and cell in free and cell not in seen:
                    seen.add(cell)
                    todo.append(cell)
        return len(seen) == len(free)

    every_tile = len(pattern) == n - 1
    for placement in sorted(table, key=lambda p: placement_index(list(p))):
        value = table[placement]
        if value == 255:
            if every_tile:
                continue
            return placement, "unreached"
        if value == 0 and placement != goal_placement:
            return placement, "zero away from goal"
        if (value + odd(placement) + odd(goal_placement)) % 2:
            return placement, "parity"
        others = [table[p] for p in moved(placement)]
        if connected(placement) and any(w > value + 1 for w in others):
            return placement, "steep rise"
        if value > 0 and not any(w < value for w in others):
            return placement, "no way down"
    unreached = sum(1 for v in table.values() if v == 255)
    if unreached != (len(table) // 2 if every_tile else 0):
        return None, "unreached count"
    return None


def zero_aware_table(rows: int, cols: int, goal: tuple, pattern: tuple) -> dict:
    """(placement, blank cell) -> the exact additive abstract distance: the naive region-aware
    0-1 BFS of `pattern_distances` (moves of other tiles cost 0, of pattern tiles 1), with no
    minimum over the blank. A zero-aware table holds this value for every (placement, region
    of the blank): the blank's cells in one region share it."""
    return pattern_distances(rows, cols, goal, pattern, additive=True)


def zero_aware_sum(state: tuple, patterns: list[tuple], tables: list[dict]) -> int:
    """The zero-aware additive heuristic of `state`: the sum over the patterns of their
    `zero_aware_table` values at the tiles' cells and the blank's cell."""
    blank = state.index(0)
    return sum(table[(tuple(state.index(t) for t in pattern), blank)] for pattern, table in zip(patterns, tables))


def first_zero_aware_violation(rows: int, cols: int, goal: tuple, pattern: tuple, table: dict):
    """(placement, blank cell, check) of the first entry that breaks a check of
    pdb_build/verify.py on the zero-aware `table` ((placement, blank cell) -> value for every
    placement and free cell, 255 for UNREACHED, one value for all the blank cells of a region),
    or None. An entry is a placement and a region of its free cells (4-neighbour connected),
    named by the region's lowest cell; entries are taken in the order of the zero-aware index:
    map rank, then region (regions are numbered by their lowest cell), then order rank.

    Checks, in this order: the goal entry is 0 ("goal not zero", before any other); then per
    entry: "unreached" (255, unless the pattern holds every tile), "zero away from goal",
    "parity" (value + pattern tiles on odd cells, goal's included, is even), "one apart" (a
    pattern tile moving into the region leads to an entry, with the blank on the cell the tile
    left, whose value is not exactly one away), "no way down" (none exactly one lower);
    finally the unreached count ((None, None, "unreached count"): half the entries for a
    pattern of every tile, else none).
    """
    n_orders = math.factorial(len(pattern))

    def steps(cell):
        r, c = divmod(cell, cols)
        return [nr * cols + nc for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if 0 <= nr < rows and 0 <= nc < cols]

    def region(placement, blank):
        seen, todo = {blank}, [blank]
        while todo:
            for cell in steps(todo.pop()):
                if cell not in placement and cell not in seen:
                    seen.add(cell)
                    todo.append(cell)
        return seen

    def odd(placement):
        return sum((c // cols + c % cols) % 2 for c in placement)

    def index_order(entry):
        map_rank, order_rank = divmod(placement_index(list(entry[0])), n_orders)
        return map_rank, entry[1], order_rank

    lowest = {key: min(region(*key)) for key in table}
    goal_placement = tuple(goal.index(t) for t in pattern)
    goal_entry = (goal_placement, lowest[(goal_placement, goal.index(0))])
    if table[goal_entry] != 0:
        return (*goal_entry, "goal not zero")
    every_tile = len(pattern) == rows * cols - 1
    entries = sorted({(placement, low) for (placement, _), low in lowest.items()}, key=index_order)
    for placement, low in entries:
        value = table[(placement, low)]
        if value == 255:
            if every_tile:
                continue
            return placement, low, "unreached"
        if value == 0 and (placement, low) != goal_entry:
            return placement, low, "zero away from goal"
        if (value + odd(placement) + odd(goal_placement)) % 2:
            return placement, low, "parity"
        cells = region(placement, low)
        others = [table[(placement[:i] + (free,) + placement[i + 1 :], cell)]
                  for i, cell in enumerate(placement) for free in steps(cell) if free in cells]
        if any(abs(w - value) != 1 for w in others):
            return placement, low, "one apart"
        if value > 0 and value - 1 not in others:
            return placement, low, "no way down"
    unreached = sum(1 for entry in entries if table[entry] == 255)
    if unreached != (len(entries) // 2 if every_tile else 0):
        return None, None, "unreached count"
    return None


def dual_state(state: tuple, goal: tuple) -> tuple:
    """The dual of `state` by its definition: tile t of the dual stands on the goal cell of the
    tile that `state` puts on t's goal cell. For the goal 0 1 2 ... it is the inverse
    permutation (tile t on cell state[t])."""
    dual = [None] * len(state)
    for tile in range(len(state)):
        dual[goal.index(state[goal.index(tile)])] = tile
    return tuple(dual)


def packed_words(state: tuple, bits: int, per_word: int) -> list[int]:
    """A state as node_store packs it, by arithmetic on Python integers: cell c in word
    c // per_word, shifted by bits * (c % per_word)."""
    words = [0] * -(-len(state) // per_word)
    for cell, tile in enumerate(state):
        words[cell // per_word] += tile << (bits * (cell % per_word))
    return words


def bulb_run(state: tuple, goal: tuple, rows: int, cols: int, h, width: int,
             node_limit: float = math.inf) -> tuple[str | None, int]:
    """BULB (Furcy & Koenig 2005) as solvers/search/bulb.py's docstring defines it, written as
    the paper writes it, a recursive probe per layer: (the blank's moves to the goal, or None
    when a pass refused no slice; nodes expanded, counting a layer again each time its
    children are generated again to take another slice).

    The children of a layer (its states in order, U, D, L, R from each, never the move back) that
    no layer on the stack holds nor an earlier child are sorted by h (stably) and cut into slices
    of `width`; slice i costs i discrepancies. A pass with budget D tries at each layer slices
    1, 2, ... while the budget left allows, then slice 0. A layer without children is a dead end,
    and so is one where a new child would find `node_limit` nodes held (the stack's and the
    children so far). The first child that is the goal ends the search."""
    import sys

    steps = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}
    back = {"U": "D", "D": "U", "L": "R", "R": "L"}
    expanded = 0
    refused = False
    stack = {state}

    class Found(Exception):
        pass

    def children(layer):
        """The layer's new children as (state, moves), sorted by h; None at the node limit."""
        nonlocal expanded
        kids, seen = [], set()
        for node, path in layer:
            expanded += 1
            r, c = divmod(node.index(0), cols)
            for letter, (dr, dc) in steps.items():
                if (path and path[-1] == back[letter]) or not (0 <= r + dr < rows and 0 <= c + dc < cols):
                    continue
                cells = list(node)
                cells[r * cols + c], cells[(r + dr) * cols + c + dc] = cells[(r + dr) * cols + c + dc], 0
                child = tuple(cells)
                if child == goal:
                    raise Found(path + letter)
                if child in stack or child in seen:
                    continue
                if len(stack) + len(kids) >= node_limit:
                    return None
                seen.add(child)
                kids.append((child, path + letter))
        return sorted(kids, key=lambda kid: h(kid[0]))

    def probe(layer, left):
        nonlocal refused
        kids = children(layer)
        if not kids:
            return
        slices = [kids[i:i + width] for i in range(0, len(kids), width)]
        refused = refused or len(slices) - 1 > left
        for k, i in enumerate([*range(1, min(left, len(slices) - 1) + 1), 0]):
            if k > 0:
                children(layer)  # the same children, generated again
            stack.update(s for s, _ in slices[i])
            probe(slices[i], left - i)
            stack.difference_update(s for s, _ in slices[i])

    if state == goal:
        return "", 0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))
    try:
        budget = 0
        while True:
            refused = False
            try:
                probe([(state, "")], budget)
            except Found as found:
                return found.args[0], expanded
            if not refused:
                return None, expanded
            budget += 1
    finally:
        sys.setrecursionlimit(limit)
