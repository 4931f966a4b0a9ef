"""open_list.py -- the best-first searches' open list: a binary min-heap of nodes ordered by a pair of keys.

An entry is (first, second, node) in three parallel arrays: `first` is the node's priority,
`second` orders entries of equal priority (best_first.py builds it from the tie-breaking rule
and a push counter, so that no two entries are equal and the order is total), `node` the
node's number in the search's store. Ordering by a pair, not by one key packed from both,
leaves the whole int64 range to the priority, so no priority can wrap. The heap holds stale
entries (of nodes reached again by a shorter path, or closed) until they are popped or until
`compact` drops them, which keeps the heap at most twice the size of its live entries.
"""

from __future__ import annotations

from solvers.jit import kernel


@kernel
def heap_push(first, second, nodes, size, key, tie, node):
    """Insert (key, tie, node) into the heap of `size` entries (room for one more is required):
    placed at slot `size`, it rises past greater parents."""
    i = size
    while i > 0:
        up = (i - 1) >> 1
        if first[up] < key or (first[up] == key and second[up] <= tie):
            break
        first[i] = first[up]
        second[i] = second[up]
        nodes[i] = nodes[up]
        i = up
    first[i] = key
    second[i] = tie
    nodes[i] = node


@kernel
def _sift_down(first, second, nodes, size, i, key, tie, node):
    """Place (key, tie, node) at slot `i` of a heap of `size` entries, moving smaller children up."""
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        right = child + 1
        if right < size and (first[right] < first[child] or
                             (first[right] == first[child] and second[right] < second[child])):
            child = right
        if first[child] > key or (first[child] == key and second[child] >= tie):
            break
        first[i] = first[child]
        second[i] = second[child]
        nodes[i] = nodes[child]
        i = child
    first[i] = key
    second[i] = tie
    nodes[i] = node


@kernel
def heap_pop(first, second, nodes, size):
    """Remove and return the least (key, tie, node) of a heap of `size` > 0 entries."""
    least = (first[0], second[0], nodes[0])
    size -= 1
    if size > 0:  # the last entry fills the root's place and sinks
        _sift_down(first, second, nodes, size, 0, first[size], second[size], nodes[size])
    return least


@kernel
def heapify(first, second, nodes, size):
    """Make the first `size` entries a heap (Floyd's bottom-up construction, linear time)."""
    for i in range(size // 2 - 1, -1, -1):
        _sift_down(first, second, nodes, size, i, first[i], second[i], nodes[i])


@kernel
def compact(first, second, nodes, size, live):
    """Keep only the entries i of the first `size` with live[i] true, as a heap; returns their number."""
    kept = 0
    for i in range(size):
        if live[i]:
            first[kept] = first[i]
            second[kept] = second[i]
            nodes[kept] = nodes[i]
            kept += 1
    heapify(first, second, nodes, kept)
    return kept
