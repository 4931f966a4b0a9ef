"""The best-first kernel's policies against a naive twin: for every tie-breaking rule, with and
without reopening and pruning, the kernel expands, generates and stores as many nodes as a plain
Python best-first search that orders its heap by the same keys, and returns the same path; the
open list's heap against heapq; the bound of a search that gives up; greedy never reopens."""

import heapq
import random

import numpy as np
import pytest

from solvers.heuristics import baseline
from solvers.puzzle import Puzzle
from solvers.search.best_first import (
    EXPLORE_SCALE, G_LIMIT, H_LIMIT, SEQ_BITS, SEQ_LIMIT, TIE_BREAKS, best_first,
)
from solvers.search.xorshift import RANDOM_SEED, RUN_MIX
from solvers.search.open_list import compact, heap_pop, heap_push
from solvers.search.result import moves_to_text
from tests.conftest import STANDARD_2X4, STANDARD_3X3, distances
from tests.naive import manhattan

MASK64 = (1 << 64) - 1


def _random_bits(state: int) -> tuple[int, int]:
    state ^= state >> 12
    state = (state ^ (state << 25)) & MASK64
    state ^= state >> 27
    return state, ((state * 2685821657736338717) & MASK64) >> 41


def _tie_key(tie: str, g: int, pushes: int, state: int) -> tuple[int, int]:
    part, order = 0, pushes
    if tie == "larger-g":
        part = G_LIMIT - 1 - g
    elif tie == "smaller-g":  # at random among equal g, then by the pushes' low bits
        part = g
        state, noise = _random_bits(state)
        order = (noise << (SEQ_BITS - 23)) | (pushes & ((1 << (SEQ_BITS - 23)) - 1))
    elif tie == "lifo":
        order = SEQ_LIMIT - 1 - pushes
    elif tie == "random":
        state, part = _random_bits(state)
    return (part << SEQ_BITS) | order, state


class NaiveTypes:
    """Type-based exploration's buckets (type_buckets.py) as a dict of lists: the same draws."""

    def __init__(self):
        self.members, self.listed, self.place = {}, [], {}

    def add(self, node: int, key: tuple) -> None:
        self.members.setdefault(key, []).append(node)
        if key not in self.place:
            self.place[key] = len(self.listed)
            self.listed.append(key)

    def draw(self, rng: int, live) -> tuple[int, int]:
        while self.listed:
            rng, pick = _random_bits(rng)
            place = pick % len(self.listed)
            key = self.listed[place]
            bucket = self.members[key]
            if not bucket:
                last = self.listed.pop()
                del self.place[key]
                if place < len(self.listed):
                    self.listed[place], self.place[last] = last, place
                continue
            rng, pick = _random_bits(rng)
            at = pick % len(bucket)
            node = bucket[at]
            bucket[at] = bucket[-1]
            bucket.pop()
            if live(node, key):
                return node, rng
        return -1, rng


def naive_best_first(start: tuple, goal: tuple, rows: int, cols: int, h, weights, reopen: bool, tie: str,
                     prune_at: int | None = None, explore: float = 0.0, batch: int = 1, seed: int = RANDOM_SEED):
    """(moves as direction codes or None, expanded, generated, stored): best first on
    a * g + b * h with the kernel's rules (best_first.py's docstring), written plainly; the
    open list's `batch` best live entries are taken at once and expanded in turn; `seed` is
    the random generator's first state."""
    a, b = weights
    neighbours = Puzzle(rows, cols, goal).neighbours
    states, g, hv, move, closed = [start], {start: 0}, {start: 0}, {start: -1}, set()
    number = {start: 0}
    heap, pushes, rng = [(0, 0, 0)], 1, seed
    chance, types = round(explore * EXPLORE_SCALE), NaiveTypes()
    types.add(0, (0, 0))

    def live(node, key):
        return states[node] not in closed and (g[states[node]], hv[states[node]]) == key

    expanded = generated = 0
    pending = []
    while heap or pending:
        node = -1
        if chance:
            rng, bits = _random_bits(rng)
            if bits % EXPLORE_SCALE < chance:
                node, rng = types.draw(rng, live)
        while node < 0 and (heap or pending):
            while not pending and heap:  # a batch of live entries, stale ones skipped
                while len(pending) < batch and heap:
                    priority, _, taken = heapq.heappop(heap)
                    if states[taken] not in closed and priority == a * g[states[taken]] + b * hv[states[taken]]:
                        pending.append(taken)
            if pending:
                node = pending.pop(0)
                if states[node] in closed:
                    node = -1
        if node < 0:
            break
        state = states[node]
        if state == goal:
            path = []
            while move[state] >= 0:
                path.append(move[state])
                blank = state.index(0)
                back = int(neighbours[blank, move[state] ^ 1])
                cells = list(state)
                cells[blank], cells[back] = cells[back], 0
                state = tuple(cells)
            return path[::-1], expanded, generated, len(states)
        closed.add(state)
        expanded += 1
        if node == 0:
            hv[state] = min(max(h(state), 0), H_LIMIT)
        blank = state.index(0)
        for direction in range(4):
            if node != 0 and direction == move[state] ^ 1:
                continue
            target = int(neighbours[blank, direction])
            if target < 0:
                continue
            cells = list(state)
            cells[blank], cells[target] = cells[target], 0
            child = tuple(cells)
            child_h, child_g = min(max(h(child), 0), H_LIMIT), g[state] + 1
            generated += 1
            if prune_at is not None and child_g + child_h >= prune_at:
                continue
            if child in number:
                if child_g >= g[child]:
                    continue
                if child in closed:
                    if not reopen:
                        continue
                    closed.remove(child)
                elif a == 0 and child_h <= hv[child]:
                    g[child], move[child] = child_g, direction
                    if chance:
                        types.add(number[child], (child_g, hv[child]))
                    continue
                child_h = max(child_h, hv[child])
            else:
                number[child] = len(states)
                states.append(child)
            g[child], hv[child], move[child] = child_g, child_h, direction
            key, rng = _tie_key(tie, child_g, pushes, rng)
            heapq.heappush(heap, (a * child_g + b * child_h, key, number[child]))
            pushes += 1
            if chance:
                types.add(number[child], (child_g, child_h))
    return None, expanded, generated, len(states)


def _naive_seed(run: int) -> int:
    """xorshift.seeded written plainly: RANDOM_SEED mixed with the run number, never zero."""
    return ((RANDOM_SEED ^ (run * RUN_MIX)) & MASK64) or RANDOM_SEED


def _kernel_run(puzzle, state, heuristic, weights, reopen, tie, prune_at=None, node_limit=None, explore=0.0, batch=1,
                run=0):
    return best_first(puzzle, np.array(state, dtype=np.uint8), heuristic, "twin", weights, reopen=reopen,
                      tie_break=tie, prune_at=prune_at, node_limit=node_limit, bpmx=False, explore=explore, batch=batch,
                      run=run)


def _twin_matches(puzzle, rows, cols, states, weights, reopen, tie, prune_at=None, explore=0.0, batch=1, run=0):
    heuristic = baseline(puzzle, "manhattan")
    for state in states:
        moves, expanded, generated, stored = naive_best_first(
            state, tuple(puzzle.goal.tolist()), rows, cols, lambda s: manhattan(s, tuple(puzzle.goal.tolist()), cols),
            weights, reopen, tie, prune_at, explore, batch, seed=_naive_seed(run))
        result = _kernel_run(puzzle, state, heuristic, weights, reopen, tie, prune_at, explore=explore, batch=batch,
                             run=run)
        assert (result.nodes_expanded, result.nodes_generated) == (expanded, generated), (state, tie)
        assert result.moves == (moves_to_text(np.array(moves, dtype=np.int8)) if moves is not None else None), state


@pytest.mark.parametrize("tie", TIE_BREAKS)
@pytest.mark.parametrize("weights, reopen", [((0, 1), False), ((1, 1), False), ((1, 3), True)])
def test_each_tie_break_follows_its_naive_twin_on_2x4_states(tie, weights, reopen):
    puzzle = Puzzle(2, 4, STANDARD_2X4)
    states = sorted(distances(2, 4, STANDARD_2X4))[::400]
    _twin_matches(puzzle, 2, 4, states, weights, reopen, tie)


@pytest.mark.parametrize("run", [1, 7])
def test_a_restarted_run_follows_its_twin_seeded_alike_and_chooses_otherwise(run):
    """Run k of a restarted search is seeded by xorshift.seeded(k): the kernel follows the twin
    seeded alike, and its random ties lead it elsewhere than run 0 on some 3x3 state."""
    puzzle = Puzzle(3, 3)
    states = sorted(distances(3, 3, STANDARD_3X3))[::9000]
    _twin_matches(puzzle, 3, 3, states, (0, 1), False, "random", run=run)
    heuristic = baseline(puzzle, "manhattan")
    assert any(_kernel_run(puzzle, s, heuristic, (0, 1), False, "random", run=run).moves !=
               _kernel_run(puzzle, s, heuristic, (0, 1), False, "random").moves for s in states)


@pytest.mark.parametrize("tie", ["smaller-g", "random"])
def test_greedy_and_pruned_weighted_runs_follow_their_twin_on_3x3_states(eight_puzzle_distances, tie):
    puzzle = Puzzle(3, 3)
    far = [s for s, d in sorted(eight_puzzle_distances.items()) if d >= 24][::500]
    _twin_matches(puzzle, 3, 3, far, (0, 1), False, tie)
    _twin_matches(puzzle, 3, 3, far, (1, 2), True, tie, prune_at=30)


@pytest.mark.parametrize("batch", [2, 7, 100])
@pytest.mark.parametrize("weights, reopen", [((1, 1), False), ((2, 3), True)])
def test_batches_follow_their_naive_twin(eight_puzzle_distances, batch, weights, reopen):
    """Batched best-first search (bwas.py) takes and expands the same nodes as the twin's batches."""
    puzzle = Puzzle(3, 3)
    far = [s for s, d in sorted(eight_puzzle_distances.items()) if d >= 22][::900]
    _twin_matches(puzzle, 3, 3, far, weights, reopen, "fifo", batch=batch)


@pytest.mark.parametrize("explore", [0.3, 0.9])
def test_type_based_exploration_follows_its_naive_twin(eight_puzzle_distances, explore):
    """Draws by type (type_buckets.py) expand the same nodes as the twin's dict of lists, for
    greedy search and for a weighted search that reopens."""
    puzzle = Puzzle(3, 3)
    far = [s for s, d in sorted(eight_puzzle_distances.items()) if d >= 24][::700]
    _twin_matches(puzzle, 3, 3, far, (0, 1), False, "random", explore=explore)
    _twin_matches(puzzle, 3, 3, far, (1, 2), True, "larger-g", explore=explore)
    two_by_four = Puzzle(2, 4, STANDARD_2X4)
    _twin_matches(two_by_four, 2, 4, sorted(distances(2, 4, STANDARD_2X4))[::500], (0, 1), False, "fifo",
                  explore=explore)


def test_a_pruned_run_finds_only_shorter_solutions_and_proves_when_there_are_none(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    manhattan_h = baseline(puzzle, "manhattan")
    for state, shortest in sorted(eight_puzzle_distances.items())[::3000]:
        if shortest == 0:
            continue
        found = _kernel_run(puzzle, state, manhattan_h, (1, 3), True, "smaller-g", prune_at=shortest + 1)
        assert found.length is not None and found.length <= shortest * 3 and found.length < shortest + 1
        none = _kernel_run(puzzle, state, manhattan_h, (1, 3), True, "smaller-g", prune_at=shortest)
        assert none.status == "gave_up" and none.reason == f"no solution shorter than {shortest} moves exists"


def test_astar_giving_up_proves_the_least_f_of_its_open_nodes(eight_puzzle_distances):
    puzzle = Puzzle(3, 3)
    manhattan_h = baseline(puzzle, "manhattan")
    far = [s for s, d in sorted(eight_puzzle_distances.items()) if d >= 28][:20]
    raised = 0
    for state in far:
        result = _kernel_run(puzzle, state, manhattan_h, (1, 1), False, "smaller-g", node_limit=2000)
        assert result.status == "gave_up" and result.lower_bound <= eight_puzzle_distances[state]
        raised += result.lower_bound > manhattan_h(np.array(state, dtype=np.uint8))
    assert raised == len(far)  # A* raised every bound above h of the start before it gave up


def test_the_heap_pops_in_the_order_of_heapq_and_compacts_to_its_live_entries():
    rng = random.Random(3)
    first, second = np.zeros(600, dtype=np.int64), np.zeros(600, dtype=np.int64)
    nodes = np.zeros(600, dtype=np.int32)
    size, reference = 0, []
    for step in range(2000):
        if size < 600 and (size == 0 or rng.random() < 0.55):
            entry = (rng.randrange(50), rng.randrange(1 << 40), step)
            heap_push(first, second, nodes, size, *entry)
            heapq.heappush(reference, entry)
            size += 1
        else:
            assert tuple(int(v) for v in heap_pop(first, second, nodes, size)) == heapq.heappop(reference)
            size -= 1
    live = np.array([rng.random() < 0.5 for _ in range(size)])
    kept = sorted((int(first[i]), int(second[i]), int(nodes[i])) for i in range(size) if live[i])
    size = compact(first, second, nodes, size, live)
    assert sorted(tuple(int(v) for v in heap_pop(first, second, nodes, size - i)) for i in range(size)) == kept


def test_greedy_never_reopens_and_expands_each_state_at_most_once():
    puzzle = Puzzle(2, 4, STANDARD_2X4)
    heuristic = baseline(puzzle, "manhattan")
    for state in sorted(distances(2, 4, STANDARD_2X4))[::97]:
        result = _kernel_run(puzzle, state, heuristic, (0, 1), False, "random")
        assert result.nodes_expanded <= len(distances(2, 4, STANDARD_2X4))
        assert result.length is not None


def test_the_twin_itself_finds_exact_lengths_as_astar(two_by_four_distances):
    """The twin is a best-first search: as A* with Manhattan distance its lengths are exact."""
    for state, shortest in sorted(two_by_four_distances.items())[::1000]:
        moves, *_ = naive_best_first(state, STANDARD_2X4, 2, 4, lambda s: manhattan(s, STANDARD_2X4, 4), (1, 1),
                                     False, "fifo")
        assert len(moves) == shortest


def test_the_type_buckets_draw_as_the_naive_buckets_through_every_growth():
    """From the smallest table (2 slots, room for 1 member), adds, re-adds under a new g and
    draws follow NaiveTypes exactly: every rehash, bucket growth and segment move included."""
    from solvers.search.type_buckets import add_member, draw_member, new_types, type_key

    rng = random.Random(5)
    size = 5000
    closed = np.zeros(size, dtype=np.bool_)
    g, h = np.zeros(size, dtype=np.int32), np.zeros(size, dtype=np.int32)
    types, naive = new_types(2, 1), NaiveTypes()
    state, naive_state, nodes = np.uint64(RANDOM_SEED), RANDOM_SEED, 0
    for _ in range(20_000):
        if rng.random() < 0.6 and nodes < size:
            node, nodes = nodes, nodes + 1
            g[node], h[node] = rng.randrange(40), rng.randrange(60)
        elif rng.random() < 0.2 and nodes:
            node = rng.randrange(nodes)
            g[node] = rng.randrange(40)
        else:
            drawn, state = draw_member(types, np.uint64(state), closed, g, h)
            expected, naive_state = naive.draw(
                naive_state, lambda n, key: not closed[n] and (int(g[n]), int(h[n])) == key)
            assert (drawn, int(state)) == (expected, naive_state)
            if drawn >= 0:
                closed[drawn] = True
            continue
        types = add_member(types, node, type_key(g[node], h[node]))
        naive.add(node, (int(g[node]), int(h[node])))
    assert nodes == size and len(naive.members) > 500  # types: the table grew far past its first size
