"""kinds.py -- the registry of heuristic kinds by name: the one place a new kind is announced.

`NAMED` maps each plain name of the spec grammar to a function (puzzle -> Term); `PREFIXED`
maps each prefix (`pdb:`, `user:`) to a function (puzzle, text -> Term) that reads the rest
of the text; `TABLE_FILE` is the function (puzzle, path, reflect -> Term) of the command-line
options `--pdb FILE [--reflect]`. Importing a kind's module registers its kernels
(solvers/heuristics/dispatch.py).
"""

from __future__ import annotations

from functools import partial

from solvers.heuristics import gaschnig, linear_conflict, pdb_terms, tile_cost, user_function, walking_distance

NAMED = {
    "zero": partial(tile_cost.term, name="zero"),
    "hamming": partial(tile_cost.term, name="hamming"),
    "manhattan": partial(tile_cost.term, name="manhattan"),
    "linear-conflict": linear_conflict.term,
    "walking-distance": walking_distance.term,
    "gaschnig": gaschnig.term,
}
ALIASES = {"none": "zero", "md": "manhattan", "lc": "linear-conflict", "linear_conflict": "linear-conflict",
           "wd": "walking-distance", "walking_distance": "walking-distance"}
PREFIXED = {
    pdb_terms.PREFIX: pdb_terms.term_from_spec,
    user_function.PREFIX: user_function.term_from_spec,
}
TABLE_FILE = pdb_terms.path_term
