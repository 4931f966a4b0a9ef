"""move_pruning.py -- which move strings a depth-first search skips: finite-state machines over U, D, L, R.

A depth-first search reaches one state by many paths. Taylor & Korf (1993, "Pruning duplicate
nodes in depth-first search") remove many of them for one table lookup per child: a finite-state
machine reads the moves from the root and says when a path ends in a string known to be
redundant. Three machines, by the longest forbidden string (PRUNE_MODES):

    none     forbids nothing (1 state)
    parent   forbids undoing the previous move: UD, DU, LR, RL (5 states)
    fsm      forbids every minimal duplicate of at most FSM_MAX_LENGTH moves (see below)

Definitions. A move string names the blank's moves, coded 0..3 for U, D, L, R (the kernels'
order, in which move ^ 1 undoes move). Its *effect* is the arrangement of the tiles and the
blank it produces on a board so large that the blank never reaches an edge. A string is a
*duplicate* when a shorter string, or a lexicographically smaller one of the same length, has
the same effect (it is not the least of its effect in *shortlex* order); the least one is
*canonical*. Replacing a substring by an equivalent smaller one makes the whole string smaller,
so every substring of a canonical string is canonical, and the duplicates are exactly the
strings that contain a *minimal duplicate*: a duplicate whose proper substrings (its prefix
and its suffix one move shorter) are canonical.

Generation (`forbidden_strings`), length by length: a depth-first enumeration, in
lexicographic order, of the strings with no minimal duplicate found so far (so with a
canonical prefix and suffix), from the middle of a board of side 2 * max_length + 1; each
string's effect is hashed incrementally. A string whose effect was stored before, confirmed by
replaying the stored string (its *witness*: canonical, so shorter, or of the same length and
lexicographically smaller), is a minimal duplicate; any other is canonical and stored.
FSM_MAX_LENGTH = 12 gives 2,540 minimal duplicates: the four inverse pairs, the 6-move ones of
the blank circling a 2x2 block one and a half times (RDLURD = DRULDR; three full circuits,
12 moves, are the identity), and longer ones over 2x3 and larger blocks (8, 9, 10, 11 and 12
moves); the automaton has 9,223 states. They cut the brute-force branching factor of the
15-puzzle from 2.130 (parent) to 2.008 (2.068 with 8 moves, 2.034 with 10, 2.002 with 13,
1.985 with 14); longer strings cut little more and take much longer and more memory to
generate. Generation runs once per process (`automaton`; the kernels are cached on disk).

The default, fsm, is the fastest measured (scripts/bench_pruning.py; BENCHMARKS.md, "Move
pruning: parent against fsm"; the rates in docs/developer/lab-notes.md): IDA* generates far
fewer nodes than with parent, at a slightly lower rate per node (the larger table), and so takes less time. With parent,
the kernel is as fast as one that compares the move with the previous one's inverse
(bench_ida.py).

The automaton (`build_automaton`, Aho-Corasick over the forbidden strings): next_state[state,
move] is the state after `move`, or PRUNED when the move completes a forbidden string; state 0
is the empty history. A search keeps one state per depth; a subtree searched on its own starts
in the state of the path to its root (parallel_ida.py).

Safety on a finite board. Replacing a forbidden substring X of a path by its witness Y keeps the
path's end state and does not lengthen it, provided Y can be played wherever X can: the
generator keeps X only when Y's blank path lies within the bounding box of X's (a rectangle
that X's cells, hence the board, contain; for every minimal duplicate up to 12 moves it does,
so none is dropped). Each replacement makes the path smaller in shortlex order, so repeating
it ends at a path with no forbidden substring: of the same end state, no longer, and played
entirely on the board. Hence every state within d moves is still reached within d moves, every
optimal path has an unpruned optimal twin (whose nodes all have f <= the optimal length, h
being admissible), and IDA* with any of the machines finds the optimal length. The tests check
this against exhaustive search on the 3x3 and 2x4 boards, and count the strings the machine
accepts against a naive enumeration of the definition.
"""

from __future__ import annotations

import functools
from collections import deque

import numpy as np

from solvers.errors import InputError
from solvers.jit import kernel
from solvers.puzzle import MOVE_LETTERS, Puzzle

FSM_MAX_LENGTH = 12
PRUNE_LENGTHS = {"none": 0, "parent": 2, "fsm": FSM_MAX_LENGTH}  # the longest forbidden string of each mode
PRUNE_MODES = tuple(PRUNE_LENGTHS)
DEFAULT_PRUNE = "fsm"
PRUNED = -1
N_MOVES = 4
EMPTY_SLOT = -1


def automaton(mode: str) -> np.ndarray:
    """The read-only int32 array next_state[state, move] of prune `mode` (PRUNE_MODES), state 0
    the empty history; built once per process. A one-line InputError names the modes."""
    if mode not in PRUNE_LENGTHS:
        raise InputError(f"unknown prune mode {mode!r}; choose one of {', '.join(PRUNE_MODES)}")
    return _automaton_of_length(PRUNE_LENGTHS[mode])


@functools.cache
def _automaton_of_length(max_length: int) -> np.ndarray:
    return build_automaton(forbidden_strings(max_length))


def build_automaton(forbidden) -> np.ndarray:
    """Aho-Corasick over the U/D/L/R strings `forbidden`: a read-only int32 array next_state[state,
    move] (state 0 the empty history, PRUNED when the move ends a string that has a forbidden
    suffix). Following it from state 0, a string is accepted exactly when it contains no
    forbidden string."""
    children = [[-1] * N_MOVES]
    bad = [False]  # the node's string ends with a forbidden string
    for word in forbidden:
        node = 0
        for letter in word:
            move = MOVE_LETTERS.index(letter)
            if children[node][move] < 0:
                children[node][move] = len(children)
                children.append([-1] * N_MOVES)
                bad.append(False)
            node = children[node][move]
        bad[node] = True
    delta = [[0] * N_MOVES for _ in children]  # the goto function with the failure links folded in
    failure = [0] * len(children)
    order, queue = [], deque([0])
    while queue:
        node = queue.popleft()
        order.append(node)
        for move in range(N_MOVES):
            child = children[node][move]
            if child < 0:
                delta[node][move] = delta[failure[node]][move] if node else 0
                continue
            failure[child] = delta[failure[node]][move] if node else 0
            bad[child] = bad[child] or bad[failure[child]]  # the failure node is shallower: final already
            delta[node][move] = child
            queue.append(child)
    states = [node for node in order if not bad[node]]
    number = {node: state for state, node in enumerate(states)}
    table = np.array([[PRUNED if bad[target] else number[target] for target in delta[node]] for node in states],
                     dtype=np.int32).reshape(len(states), N_MOVES)
    table.setflags(write=False)
    return table


@functools.cache
def forbidden_strings(max_length: int) -> tuple[str, ...]:
    """Every minimal duplicate of at most `max_length` moves (see the module docstring) whose
    witness stays within its bounding box, shortest first, then in lexicographic move order."""
    width = 2 * max_length + 1
    capacity = 1 << (2 * 3**max_length).bit_length()  # more than twice the strings that undo no move
    keys = np.zeros(capacity, dtype=np.uint64)
    codes = np.zeros(capacity, dtype=np.int64)
    lengths = np.full(capacity, EMPTY_SLOT, dtype=np.int8)
    lengths[0] = 0  # the empty string: key 0 (nothing moved), slot 0
    forbidden: list[str] = []
    transitions = build_automaton(forbidden)
    for length in range(1, max_length + 1):
        found = _minimal_duplicates(transitions, length, width, keys, codes, lengths)
        if found.size:
            forbidden += [_decoded(int(code), length) for code in found]
            transitions = build_automaton(forbidden)
    return tuple(forbidden)


def _decoded(code: int, length: int) -> str:
    """The string of `length` moves whose codes are the base-4 digits of `code`, first move first."""
    return "".join(MOVE_LETTERS[(code >> 2 * (length - 1 - i)) & 3] for i in range(length))


@kernel
def _term(cell, content, n_cells):
    """A 64-bit hash of `content` lying in `cell`; 0 when it is the cell's own (splitmix64)."""
    if cell == content:
        return np.uint64(0)
    z = np.uint64(cell * n_cells + content) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def _minimal_duplicates(transitions, length, width, keys, codes, lengths):
    """The codes (base-4, first move first) of the minimal duplicates of exactly `length` moves,
    in lexicographic order, with their witness inside their bounding box.

    Enumerates the strings of `length` moves that `transitions` accepts (it forbids the minimal
    duplicates of fewer moves) on a `width` x `width` board, the blank in the middle, and looks
    each string's effect up in the open-addressing table (keys, codes, lengths; EMPTY_SLOT
    lengths mark free slots) that holds the canonical strings of fewer moves; the canonical
    strings of `length` moves are added to it.
    """
    n_cells = width * width
    centre = (width // 2) * width + width // 2
    step = np.array([-width, width, -1, 1], dtype=np.int64)
    board = np.arange(n_cells, dtype=np.int64)  # the cell each tile came from; the blank came from the centre
    witness = np.arange(n_cells, dtype=np.int64)
    next_move = np.zeros(length + 1, dtype=np.int64)
    state = np.zeros(length + 1, dtype=np.int64)
    blank = np.full(length + 1, centre, dtype=np.int64)
    key = np.zeros(length + 1, dtype=np.uint64)
    code = np.zeros(length + 1, dtype=np.int64)
    low = np.full(length + 1, width // 2, dtype=np.int64)  # bounding box of the blank's path: rows, columns
    high = np.full(length + 1, width // 2, dtype=np.int64)
    left = np.full(length + 1, width // 2, dtype=np.int64)
    right = np.full(length + 1, width // 2, dtype=np.int64)
    found = np.empty(16, dtype=np.int64)
    n_found = 0
    mask = keys.shape[0] - 1
    depth = 0
    while True:
        move = next_move[depth]
        if move == N_MOVES:
            if depth == 0:
                return found[:n_found]
            depth -= 1
            board[blank[depth + 1]] = board[blank[depth]]
            board[blank[depth]] = centre
            continue
        next_move[depth] = move + 1
        following = transitions[state[depth], move]
        if following == PRUNED:
            continue
        here = blank[depth]
        there = here + step[move]
        tile = board[there]
        board[here] = tile
        board[there] = centre
        depth += 1
        state[depth] = following
        blank[depth] = there
        key[depth] = (key[depth - 1] ^ _term(here, centre, n_cells) ^ _term(there, tile, n_cells)
                      ^ _term(here, tile, n_cells) ^ _term(there, centre, n_cells))
        code[depth] = code[depth - 1] * N_MOVES + move
        low[depth] = min(low[depth - 1], there // width)
        high[depth] = max(high[depth - 1], there // width)
        left[depth] = min(left[depth - 1], there % width)
        right[depth] = max(right[depth - 1], there % width)
        if depth < length:
            next_move[depth] = 0
            continue
        slot = np.int64(key[depth] & np.uint64(mask))
        seen = False
        while lengths[slot] != EMPTY_SLOT and not seen:
            if keys[slot] == key[depth]:
                seen, inside = _same_effect(witness, board, codes[slot], lengths[slot], centre, step, width,
                                            low[depth], high[depth], left[depth], right[depth])
                if seen and inside:
                    if n_found == found.shape[0]:
                        found = np.concatenate((found, np.empty_like(found)))
                    found[n_found] = code[depth]
                    n_found += 1
            slot = (slot + 1) & mask
        if not seen:
            keys[slot] = key[depth]
            codes[slot] = code[depth]
            lengths[slot] = length
        depth -= 1
        board[blank[depth + 1]] = board[blank[depth]]
        board[blank[depth]] = centre


@kernel
def _same_effect(witness, board, witness_code, witness_length, centre, step, width, low, high, left, right):
    """(whether the string `witness_code` of `witness_length` moves, played on the identity
    board `witness`, leaves it equal to `board`; whether its blank path stays within rows
    low..high and columns left..right). `witness` is the identity again on return."""
    here = centre
    inside = True
    for i in range(witness_length):
        move = (witness_code >> (2 * (witness_length - 1 - i))) & 3
        there = here + step[move]
        witness[here] = witness[there]
        witness[there] = centre
        here = there
        row, column = there // width, there % width
        inside &= low <= row <= high and left <= column <= right
    same = True
    for cell in range(board.shape[0]):
        if witness[cell] != board[cell]:
            same = False
            break
    for i in range(witness_length - 1, -1, -1):
        move = (witness_code >> (2 * (witness_length - 1 - i))) & 3
        there = here - step[move]
        witness[here] = witness[there]
        witness[there] = centre
        here = there
    return same, inside


def tree_counts(puzzle: Puzzle, start_blank: int, depth: int, mode: str) -> np.ndarray:
    """counts[i, b]: the nodes at depth i (0..depth) of the brute-force tree below a state with
    the blank in cell `start_blank`, pruned by `mode`, whose blank stands in cell b (float64:
    exact up to 2**53)."""
    return _tree_counts(np.asarray(puzzle.neighbours, dtype=np.int64), automaton(mode), start_blank, depth)


@kernel
def _tree_counts(neighbours, transitions, start_blank, depth):
    """Dynamic programming over (blank cell, automaton state), one depth at a time."""
    n_cells, n_states = neighbours.shape[0], transitions.shape[0]
    counts = np.zeros((depth + 1, n_cells), dtype=np.float64)
    current = np.zeros((n_cells, n_states), dtype=np.float64)
    current[start_blank, 0] = 1.0
    counts[0, start_blank] = 1.0
    for i in range(1, depth + 1):
        following = np.zeros((n_cells, n_states), dtype=np.float64)
        for cell in range(n_cells):
            for state in range(n_states):
                ways = current[cell, state]
                if ways == 0.0:
                    continue
                for move in range(N_MOVES):
                    target = neighbours[cell, move]
                    after = transitions[state, move]
                    if target >= 0 and after != PRUNED:
                        following[target, after] += ways
        current = following
        for cell in range(n_cells):
            counts[i, cell] = current[cell].sum()
    return counts
