"""bench_index.py -- how well the node index's hash spreads states: first slots and probes per insert.

Usage:

    python scripts/bench_index.py [--states 60001] [--boards 4x4,5x5,6x6]

For each board, the first --states states of a breadth-first search from the goal (the states a
best-first search stores first: near one another, differing in a few cells) are packed as the
searches pack them (node_store.pack) and inserted, in that order, into an index of the size
the searches give it (node_store.new_index: the power of two at least twice the count). Prints
the distinct first slots (against the number a uniformly random hash reaches on average,
m * (1 - (1 - 1/m)^n)) and the mean probes per insert (1 + the slots passed by linear probing).
Counts only; no timing.
"""

from __future__ import annotations

import argparse
from collections import deque

import numpy as np

from solvers.puzzle import Puzzle, parse_board
from solvers.search.node_store import EMPTY, slot_of, find, new_index, pack, packing


def breadth_first_states(puzzle: Puzzle, count: int) -> np.ndarray:
    """The first `count` states of a breadth-first search from the goal, one per row."""
    start = tuple(int(t) for t in puzzle.goal)
    seen, queue, states = {start}, deque([start]), [start]
    while queue and len(states) < count:
        state = queue.popleft()
        blank = state.index(0)
        for target in puzzle.neighbours[blank]:
            if target < 0:
                continue
            cells = list(state)
            cells[blank], cells[target] = cells[target], 0
            child = tuple(cells)
            if child not in seen:
                seen.add(child)
                queue.append(child)
                states.append(child)
    return np.array(states[:count], dtype=np.uint8)


def spread(puzzle: Puzzle, states: np.ndarray) -> tuple[int, float, float]:
    """(distinct first slots, their expected number for a random hash, mean probes per insert)."""
    bits, per_word, words = packing(puzzle)
    codes = np.empty((len(states), words), dtype=np.uint64)
    for row, state in enumerate(states):
        pack(state, bits, per_word, codes, row)
    slots = new_index(len(states))
    first = np.array([slot_of(codes, row, slots) for row in range(len(states))])
    probes = 0
    for row in range(len(states)):
        node, slot = find(slots, codes, codes, row)
        assert node == EMPTY
        probes += 1 + (slot - first[row]) % slots.shape[0]
        slots[slot] = row
    m, n = slots.shape[0], len(states)
    return len(set(first.tolist())), m * (1 - (1 - 1 / m) ** n), probes / n


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench_index.py", description=__doc__.split("\n")[0])
    parser.add_argument("--states", type=int, default=60_001)
    parser.add_argument("--boards", default="4x4,5x5,6x6")
    args = parser.parse_args()
    print("| board | states | slots | distinct first slots | random hash | probes per insert |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for board in args.boards.split(","):
        puzzle = Puzzle(*parse_board(board))
        states = breadth_first_states(puzzle, args.states)
        distinct, expected, probes = spread(puzzle, states)
        print(f"| {board} | {len(states):,} | {new_index(len(states)).shape[0]:,} | {distinct:,} | {expected:,.0f} | "
              f"{probes:.2f} |", flush=True)


if __name__ == "__main__":
    main()
