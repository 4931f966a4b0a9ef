"""learned.py -- `learned:FILE`: a heuristic learned over features (a model file of learn-heuristic), evaluated inside the search kernels.

The kind's data holds the features' own heuristics as a tree of nodes (dispatch.py) and the
quantized network (network.py). Its scratch columns, from its first:

    hidden1 columns    the first layer's sums (integers, units of 1/QUANT)
    1 column           the number of tiles out of their goal cells (0: the goal, where h = 0)
    f columns          the values of the f heuristic features
    the rest           the heuristic features' own columns

The network's first inputs are read from those columns (`inputs`): a heuristic's value, or,
for a patterns item (features.py), the columns where its PDB term keeps each instance's entry.
A move changes the first layer's sums by the weights of the inputs it changes: the moved
tile's two cells, the blank's two cells and the heuristic inputs that changed; the layers
after the first are evaluated at every node (hidden1 x hidden2 multiplications). The values
are exact integers, so a state's h is the same whether reached move by move or evaluated from
nothing (by `evaluate_many`, or by `batch_h` as matrix products for many states at once).

Unlike the other kinds, whose kernels LLVM inlines into each search, the kind's two kernels are
`kernel`s, called: a call costs little beside the network's work at each node, and the code of
the features' kernels (PDB lookups among them) is then generated once for a model, not again in
every search (docs/developer/lab-notes.md, "Compile time").

A learned heuristic may overestimate: its term is neither admissible nor consistent, so the
searches apply no BPMX by default, claim no optimality from it and take lower bounds only
from admissible heuristics (solvers/search/result.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from solvers.heuristics.dispatch import MaxNode, node_child_values, node_values, register_kind, shifted_nodes
from solvers.heuristics.features import FeatureSet, inputs_of
from solvers.heuristics.kinds import register_prefixed
from solvers.heuristics.model_file import read_model
from solvers.heuristics.network import QUANT, Quantized, h_of, quantized, quantized_forward
from solvers.heuristics.term import Term
from solvers.jit import inline_kernel, kernel
from solvers.puzzle import Puzzle

PREFIX = "learned:"


class LearnedData(NamedTuple):
    """The kind's data (module docstring): `layout` is (hidden1, f heuristic features, blank's
    first input or -1, tiles' first input or -1); heuristic input i is the column
    `inputs[i]` counted from the features' values."""

    features: tuple  # one node per heuristic feature, columns counted from the features' first
    model: Quantized
    goal_cell: np.ndarray  # uint8: the goal cell of each tile
    layout: np.ndarray  # int64[4]
    inputs: np.ndarray  # int64[k]


@dataclass(frozen=True, eq=False)
class LearnedTerm(Term):
    """A learned heuristic's term; `features` and `network` are what it evaluates."""

    features: FeatureSet | None = None
    network: object = None

    def admissible_inputs(self) -> tuple:
        return self.features.admissible

    def sum_refusal(self) -> str:
        return f"{self.name} cannot be added: a learned heuristic counts every tile's moves (take max(...) otherwise)"


def learned_term(puzzle: Puzzle, features: FeatureSet, network, name: str, spec: str,
                 provenance: tuple[tuple[str, str], ...] = ()) -> LearnedTerm:
    """The term of `network` (a network.Network) over `features` on `puzzle`."""
    nodes, inputs, feature_columns = [], [], 0
    n_features = len(features.heuristics)
    for i, (heuristic, entries) in enumerate(zip(features.heuristics, features.entries)):
        shifted = shifted_nodes(heuristic.tree, feature_columns)
        nodes.append(shifted[0] if len(shifted) == 1 else MaxNode(shifted))
        inputs += [n_features + feature_columns + e for e in range(entries)] if entries else [i]
        feature_columns += heuristic.n_columns
    model = quantized(network)
    hidden1 = model.b1.shape[0]
    layout = np.array([hidden1, n_features, features.blank_offset, features.cells_offset], dtype=np.int64)
    data = LearnedData(tuple(nodes), model, puzzle.goal_cell.copy(), layout, np.array(inputs, dtype=np.int64))
    width = hidden1 + 1 + n_features + feature_columns
    return LearnedTerm(puzzle, name, spec, data, width, provenance=(*provenance, *features.provenance),
                       admissible=False, consistent=False, overestimates=True, features=features, network=network)


def batch_h(term: LearnedTerm, states: np.ndarray) -> np.ndarray:
    """h of every row of `states` by matrix products over the whole batch (int64); the same
    values as the term's kernels give."""
    inputs = inputs_of(term.features, states)
    out = quantized_forward(term.data.model, inputs)
    return h_of(out, np.all(states == term.puzzle.goal, axis=1))


@inline_kernel
def _output(data, scratch, row, column, misplaced):
    """h from the first layer's sums in scratch[row] (module docstring)."""
    if misplaced == 0:
        return np.int64(0)
    model = data.model
    hidden1 = model.w2t.shape[1]
    out = model.b3[0]
    for unit in range(model.w2t.shape[0]):
        total = model.b2[unit]
        for j in range(hidden1):
            value = scratch[row, column + j]
            if value > 0:
                total += model.w2t[unit, j] * (value / QUANT)
        if total > 0.0:
            out += model.w3[unit] * total
    return max(np.int64(np.floor(out + 0.5)), np.int64(1))


@inline_kernel
def _add_input(model, scratch, row, column, hidden1, index, times):
    for j in range(hidden1):
        scratch[row, column + j] += times * model.w1[index, j]


@kernel
def _start(data, board, position, scratch, row, column):
    hidden1, f, blank, cells = data.layout[0], data.layout[1], data.layout[2], data.layout[3]
    model = data.model
    for j in range(hidden1):
        scratch[row, column + j] = model.b1[j]
    values = column + hidden1 + 1
    node_values(data.features, board, position, scratch, row, values + f, values)
    for i in range(data.inputs.shape[0]):
        _add_input(model, scratch, row, column, hidden1, i, scratch[row, values + data.inputs[i]])
    n = board.shape[0]
    if blank >= 0:
        _add_input(model, scratch, row, column, hidden1, blank + position[0], 1)
    misplaced = 0
    for tile in range(1, n):
        if cells >= 0:
            _add_input(model, scratch, row, column, hidden1, cells + (tile - 1) * n + position[tile], 1)
        misplaced += position[tile] != data.goal_cell[tile]
    scratch[row, column + hidden1] = misplaced
    return _output(data, scratch, row, column, misplaced)


@kernel
def _child(data, board, position, scratch, row, column, tile, source, target):
    hidden1, f, blank, cells = data.layout[0], data.layout[1], data.layout[2], data.layout[3]
    model = data.model
    for j in range(hidden1):
        scratch[row + 1, column + j] = scratch[row, column + j]
    values = column + hidden1 + 1
    node_child_values(data.features, board, position, scratch, row, values + f, values, tile, source, target)
    for i in range(data.inputs.shape[0]):
        change = scratch[row + 1, values + data.inputs[i]] - scratch[row, values + data.inputs[i]]
        if change != 0:
            _add_input(model, scratch, row + 1, column, hidden1, i, change)
    n = board.shape[0]
    if blank >= 0:  # the blank went from `target` to `source`
        _add_input(model, scratch, row + 1, column, hidden1, blank + source, 1)
        _add_input(model, scratch, row + 1, column, hidden1, blank + target, -1)
    if cells >= 0:
        _add_input(model, scratch, row + 1, column, hidden1, cells + (tile - 1) * n + target, 1)
        _add_input(model, scratch, row + 1, column, hidden1, cells + (tile - 1) * n + source, -1)
    goal = data.goal_cell[tile]
    misplaced = scratch[row, column + hidden1] + (target != goal) - (source != goal)
    scratch[row + 1, column + hidden1] = misplaced
    return _output(data, scratch, row + 1, column, misplaced)


def term_from_spec(puzzle: Puzzle, text: str) -> LearnedTerm:
    """The term of `learned:FILE` (the model file read and checked by model_file.py, its
    features checked)."""
    model = read_model(text[len(PREFIX):], puzzle)
    return learned_term(model.puzzle, model.feature_set(), model.network, PREFIX + model.path.name,
                        PREFIX + str(model.path), provenance=((str(model.path), model.checksum),))


register_kind(LearnedData, _start, _child)
register_prefixed(PREFIX, term_from_spec, "learned")
