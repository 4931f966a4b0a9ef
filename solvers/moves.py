"""moves.py -- the puzzle model's one move, as a kernel the searches, the effort estimator and the experiments call.

(The bounded depth-first pass of IDA*, IDDFS and DFS writes the same steps out: see
solvers/search/depth_first.py.)

A move slides the tile next to the blank into the blank's cell. The searches keep two views
of a state: `board` (the tile in every cell) and `position` (the cell of every tile,
position[0] the blank's: the heuristic kinds' contract, solvers/heuristics/dispatch.py).
`slide` changes both; its own reverse undoes it.
"""

from __future__ import annotations

from solvers.jit import kernel


@kernel
def slide(board, position, source, target):
    """Move the tile in cell `source` into cell `target` (the blank's, next to it); `board` and
    `position` say so afterwards (the blank in `source`). Returns the tile. The move is undone
    by slide(board, position, target, source)."""
    tile = board[source]
    board[target] = tile
    board[source] = 0
    position[tile] = target
    position[0] = source
    return tile
