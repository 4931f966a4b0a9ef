"""type_buckets.py -- type-based exploration's buckets: open nodes grouped by their type (g, h).

Type-based exploration (Xie, Müller & Holte, AAAI 2014) lets a greedy search leave a plateau
of equal h: now and then it expands, instead of a best node, one drawn by choosing a type
uniformly among the types of the open nodes and then a node of that type uniformly. Nodes of
a rare (g, h) are drawn as often as whole crowds of a common one, so the search samples every
depth and distance it has reached, not only the crowded plateau.

The buckets are five arrays and a counter array, `Types` (all made by `new_types`):

- `table`: an open-addressing hash table (linear probing, a power-of-two size at most half
  full) of bucket number + 1 per slot, 0 for an empty slot;
- `buckets[b] = (key, start, size, capacity, listed_at)`: bucket b holds the nodes of type
  `key` = g << 32 | h in `members[start:start + size]`; `listed_at` is its place in `listed`
  (-1 when not listed);
- `listed[:n_listed]`: the buckets a draw chooses among (those that may hold a node);
- `members`: the node numbers of every bucket, each bucket's in one segment, moved to a segment
  twice as large at the end when it fills up (the old one is abandoned: at most about twice
  the members ever added);
- `counts = (n_buckets, n_listed, members_used)`.

A member is *stale* once its node is closed or its (g, h) is no longer the bucket's key; a
draw drops stale members it meets, and a bucket found empty leaves `listed` (it rejoins when a
node of its type is added). The kernels return the (possibly grown) arrays, numba's arrays
being fixed in size.
"""

from __future__ import annotations

import numpy as np

from solvers.jit import kernel
from solvers.search.node_store import grown
from solvers.search.xorshift import random_bits

KEY, START, SIZE, CAPACITY, LISTED_AT = range(5)
N_BUCKETS, N_LISTED, MEMBERS_USED = range(3)
FIRST_SEGMENT = 4  # members a new bucket has room for
# a node is a member once per path it is stored with (rarely more than once), and segments are
# at most half full after a move, with abandoned ones behind them: about three int32 per node
BYTES_PER_NODE = 3 * 4
HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


@kernel
def new_types(slots, member_room):
    """Empty buckets with a table of `slots` (a power of two) and room for `member_room` members."""
    return (np.zeros(slots, dtype=np.int32), np.empty((slots // 2, 5), dtype=np.int64),
            np.empty(slots // 2, dtype=np.int32), np.empty(member_room, dtype=np.int32),
            np.zeros(3, dtype=np.int64))


@kernel
def type_key(g, h):
    """The key of type (g, h), g and h non-negative and below 2^31."""
    return (np.int64(g) << 32) | np.int64(h)


@kernel
def _home(key, slots):
    """The first table slot probed for `key`."""
    return np.int64((np.uint64(key) * HASH_MULTIPLIER) >> np.uint64(40)) & (slots - 1)


@kernel
def _bucket_of(table, buckets, key):
    """(the bucket of `key` or -1, the slot where it is or would go)."""
    slots = table.shape[0]
    slot = _home(key, slots)
    while table[slot] != 0:
        bucket = table[slot] - 1
        if buckets[bucket, KEY] == key:
            return bucket, slot
        slot = (slot + 1) & (slots - 1)
    return -1, slot


@kernel
def _rehashed(table, buckets, n_buckets):
    """A table twice as large holding the first `n_buckets` buckets."""
    larger = np.zeros(2 * table.shape[0], dtype=np.int32)
    for bucket in range(n_buckets):
        slot = _bucket_of(larger, buckets, buckets[bucket, KEY])[1]
        larger[slot] = bucket + 1
    return larger


@kernel
def _new_bucket(types, key, slot):
    """`types` with a new empty bucket of `key` at table slot `slot`; (types, the bucket)."""
    table, buckets, listed, members, counts = types
    bucket = counts[N_BUCKETS]
    if bucket == buckets.shape[0]:
        buckets = grown(buckets, 2 * bucket)
        listed = grown(listed, 2 * bucket)
    table[slot] = bucket + 1
    counts[N_BUCKETS] += 1
    buckets[bucket, KEY] = key
    buckets[bucket, START] = 0
    buckets[bucket, SIZE] = 0
    buckets[bucket, CAPACITY] = 0
    buckets[bucket, LISTED_AT] = -1
    if 2 * counts[N_BUCKETS] > table.shape[0]:
        table = _rehashed(table, buckets, counts[N_BUCKETS])
    return (table, buckets, listed, members, counts), bucket


@kernel
def _room_in(types, bucket):
    """`types` with room for one more member in `bucket` (its segment moved if full)."""
    table, buckets, listed, members, counts = types
    size, capacity = buckets[bucket, SIZE], buckets[bucket, CAPACITY]
    if size < capacity:
        return types
    capacity = max(FIRST_SEGMENT, 2 * capacity)
    used = counts[MEMBERS_USED]
    if used + capacity > members.shape[0]:
        members = grown(members, max(2 * members.shape[0], used + capacity))
    start = buckets[bucket, START]
    members[used:used + size] = members[start:start + size]
    buckets[bucket, START] = used
    buckets[bucket, CAPACITY] = capacity
    counts[MEMBERS_USED] = used + capacity
    return table, buckets, listed, members, counts


@kernel
def add_member(types, node, key):
    """`types` with open node `node` added to the bucket of type `key` (listed if it was not)."""
    bucket, slot = _bucket_of(types[0], types[1], key)
    if bucket < 0:
        types, bucket = _new_bucket(types, key, slot)
    types = _room_in(types, bucket)
    table, buckets, listed, members, counts = types
    members[buckets[bucket, START] + buckets[bucket, SIZE]] = node
    buckets[bucket, SIZE] += 1
    if buckets[bucket, LISTED_AT] < 0:
        buckets[bucket, LISTED_AT] = counts[N_LISTED]
        listed[counts[N_LISTED]] = bucket
        counts[N_LISTED] += 1
    return types


@kernel
def _unlist(buckets, listed, counts, place):
    """Take the bucket at `listed[place]` out of the list (the last one fills its place)."""
    last = counts[N_LISTED] - 1
    buckets[listed[place], LISTED_AT] = -1
    if place < last:
        listed[place] = listed[last]
        buckets[listed[place], LISTED_AT] = place
    counts[N_LISTED] = last


@kernel
def draw_member(types, random_state, closed, g, h):
    """(a node drawn by type, the generator's next state): a listed bucket chosen uniformly, then
    one of its members uniformly, removed from it (the last member fills its place); stale
    members met on the way are dropped, empty buckets unlisted. -1 if no bucket is listed."""
    table, buckets, listed, members, counts = types
    state = np.uint64(random_state)  # a caller's int would otherwise be typed int64
    while counts[N_LISTED] > 0:
        state, pick = random_bits(state)
        place = pick % counts[N_LISTED]
        bucket = listed[place]
        size = buckets[bucket, SIZE]
        if size == 0:
            _unlist(buckets, listed, counts, place)
            continue
        state, pick = random_bits(state)
        start = buckets[bucket, START]
        at = start + pick % size
        node = members[at]
        members[at] = members[start + size - 1]
        buckets[bucket, SIZE] = size - 1
        if not closed[node] and type_key(g[node], h[node]) == buckets[bucket, KEY]:
            return node, state
    return -1, state
