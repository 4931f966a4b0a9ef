"""bench_learned.py -- how fast a learned heuristic evaluates: inside the search kernels, move by move, against whole batches as matrix products.

Usage:

    python scripts/bench_learned.py [--board 5x5] [--features "manhattan, linear-conflict, blank, cells"]
        [--hidden 64,32] [--states 20000] [--beam-width 1000] [--first 5]

A model of random weights over --features (the speed of an evaluation does not depend on what
the weights are) is written to a temporary folder; then, on one core:

- batch: h of --states uniformly random states by `learned.batch_h` (the features of every
  state, then the network as matrix products over the whole batch), in batches of 1,000,
  10,000 and all of them;
- kernel, from nothing: the same states by `Heuristic.evaluate_many` (the search kernels'
  evaluation, each state evaluated from nothing);
- in a search: beam search of width --beam-width on --first uniformly random states with the
  learned heuristic and with the maximum of its heuristic features alone (what the network
  adds per node), each holding at most SEARCH_NODES nodes (random weights guide no beam to
  the goal), in microseconds per generated node: the search evaluates each child move by move
  (learned.py).

Prints microseconds per state (per generated node in the searches).
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

from solvers.cli_support import run_guarded
from solvers.heuristics import from_spec
from solvers.heuristics.features import feature_set
from solvers.heuristics.learned import batch_h
from solvers.heuristics.model_file import write_model
from solvers.heuristics.network import initial_network
from solvers.make_instances import random_instances
from solvers.puzzle import Puzzle, parse_board
from solvers.search.beam import beam_search, prepare


SEARCH_NODES = 1_000_000  # nodes each timed beam search may hold: seconds of search, whatever h says


def per_state(function, states: np.ndarray, repeats: int = 3) -> float:
    """The least microseconds per state of `function(states)` over `repeats` runs."""
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        function(states)
        best = min(best, time.perf_counter() - began)
    return best / len(states) * 1e6


def search_rate(puzzle: Puzzle, heuristic, starts: list[np.ndarray], width: int) -> float:
    """Microseconds per generated node of beam search of `width` from each of `starts`, each
    search holding at most SEARCH_NODES nodes: a model of random weights guides no beam to the
    goal, so a search without a limit would wander until the memory is full."""
    prepare(puzzle, heuristic)  # compiled before the clock starts
    generated = seconds = 0.0
    for start in starts:
        result = beam_search(puzzle, start, heuristic, beam_width=width, node_limit=SEARCH_NODES)
        generated += result.nodes_generated
        seconds += result.seconds
    return seconds / generated * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="5x5")
    parser.add_argument("--features", default="manhattan, linear-conflict, blank, cells")
    parser.add_argument("--hidden", default="64,32")
    parser.add_argument("--states", type=int, default=20_000)
    parser.add_argument("--beam-width", type=int, default=1000)
    parser.add_argument("--first", type=int, default=5)
    args = parser.parse_args()
    puzzle = Puzzle(*parse_board(args.board))
    features = feature_set(puzzle, args.features)
    hidden = tuple(int(h) for h in args.hidden.split(","))
    network = initial_network(features.n_inputs, hidden, np.random.default_rng(1))
    states = np.array(random_instances(puzzle, args.states, seed=1), dtype=np.uint8)
    print(f"{puzzle.board}, features {args.features!r}, hidden {args.hidden}, {features.n_inputs} inputs; "
          f"{platform.processor() or platform.machine()}, {time.strftime('%Y-%m-%d')}")
    with tempfile.TemporaryDirectory() as folder:
        path = write_model(Path(folder) / "model.h5", features, network, {"method": "random weights"}, np.zeros((0, 2)))
        learned = from_spec(puzzle, f"learned:{path}").with_kernels(True)  # the searches compiled for it
        term = learned.terms[0]
        for size in (1_000, 10_000, len(states)):
            batch_h(term, states[:size])  # warmed up
            print(f"batch of {size:>7,}, matrix products   {per_state(lambda s: batch_h(term, s), states[:size]):8.2f} us a state")
        learned.evaluate_many(states[:10])
        print(f"kernel, each state from nothing      {per_state(learned.evaluate_many, states):8.2f} us a state")
        starts = [np.asarray(s) for s in random_instances(puzzle, args.first, seed=2)]
        alone = from_spec(puzzle, f"max({', '.join(h.spec for h in features.heuristics)})" if features.heuristics
                          else "zero").with_kernels(True)
        for name, heuristic in ((f"learned:{path.name}", learned), (alone.name, alone)):
            rate = search_rate(puzzle, heuristic, starts, args.beam_width)
            print(f"beam {args.beam_width:,}, {name:<30} {rate:8.2f} us a generated node")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_guarded("bench_learned.py", main))
