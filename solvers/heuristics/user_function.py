"""user_function.py -- a heuristic of the user's own: a numba-compiled function of the board.

Its two forms::

    user_heuristic(puzzle, my_h)                      h = my_h(board) at every node
    user_heuristic(puzzle, my_h, child=my_h_child)    h = my_h_child(h_parent, board, tile, source, target)
                                                      after a move (the board is after it)

`my_h` is an `@numba.njit` function of a uint8 board (the tile in each cell) returning an
integer (a value below 0 counts as 0); `child`, if given, returns the same value incrementally. The spec form is
`user:MODULE:FUNCTION` or `user:MODULE:FUNCTION:CHILD`: the functions are imported by name, so
they must be importable wherever the search runs (in a worker process of solve-batch they are
found again in `__main__` or their module; on a Dask worker their module must be installed).
The search kernels compile again for every new function (a few seconds, once per process);
the result is not written to numba's disk cache. The toolkit cannot check that a user's
heuristic is admissible: with an inadmissible one, IDA* and A* return solutions that may not
be shortest (every solution is still replayed and checked to reach the goal).
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

import numpy as np
from numba.core import config
from numba.core.registry import CPUDispatcher

from solvers.errors import InputError
from solvers.heuristics.dispatch import register_kind
from solvers.heuristics.kinds import register_prefixed
from solvers.heuristics.term import Term
from solvers.jit import kernel
from solvers.puzzle import Puzzle

PREFIX = "user:"


class UserFunction(NamedTuple):
    full: object  # a numba dispatcher: board -> h


class UserIncremental(NamedTuple):
    full: object  # a numba dispatcher: board -> h
    child: object  # a numba dispatcher: (h_parent, board, tile, source, target) -> h


def user_term(puzzle: Puzzle, function, child=None) -> Term:
    """A term evaluating the numba function `function` (and `child` after a move, if given).

    Refused (one-line InputError): anything but numba-compiled functions (plain functions are
    accepted when NUMBA_DISABLE_JIT=1, where numba compiles nothing), and a function that does
    not return 0 at the goal (a search could never recognise the goal).
    """
    for f in (function,) if child is None else (function, child):
        if not _compiled(f):
            raise InputError(f"{getattr(f, '__name__', f)!r} is not a numba-compiled function; decorate it "
                             "with @numba.njit")
    try:
        at_goal = function(puzzle.goal.copy())
    except Exception as error:  # noqa: BLE001 - whatever the user's function raises becomes one line
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise InputError(f"{function.__name__} fails on a board of {puzzle.board}: {type(error).__name__}: {first}") from None
    if at_goal != 0:
        raise InputError(f"{function.__name__} gives {at_goal!r} at the goal, not 0; a heuristic must be 0 there")
    plain = [getattr(f, "py_func", f) for f in (function, child) if f is not None]
    if len({f.__module__ for f in plain}) > 1:
        raise InputError("the function and its incremental form must be defined in the same module")
    spec = PREFIX + ":".join([plain[0].__module__] + [f.__qualname__ for f in plain])
    name = PREFIX + plain[0].__qualname__
    data = UserFunction(function) if child is None else UserIncremental(function, child)
    return Term(puzzle, name, spec, data, 1, cacheable=False, admissible=False)


def _compiled(function) -> bool:
    return isinstance(function, CPUDispatcher) or (config.DISABLE_JIT and callable(function))


def term_from_spec(puzzle: Puzzle, text: str) -> Term:
    """The term of `user:MODULE:FUNCTION[:CHILD]` (the functions imported by name)."""
    parts = text[len(PREFIX):].split(":")
    if len(parts) not in (2, 3) or not all(parts):
        raise InputError(f"heuristic {text!r}: write user:MODULE:FUNCTION or user:MODULE:FUNCTION:CHILD")
    try:
        module = importlib.import_module(parts[0])
    except Exception as error:  # noqa: BLE001 - ImportError, or whatever the module raises on import
        raise InputError(f"heuristic {text!r}: cannot import module {parts[0]!r} ({type(error).__name__}: "
                         f"{str(error).splitlines()[0] if str(error) else ''})") from None
    functions = []
    for name in parts[1:]:
        if not hasattr(module, name):
            raise InputError(f"heuristic {text!r}: module {parts[0]!r} has no function {name!r}")
        functions.append(getattr(module, name))
    return user_term(puzzle, *functions)


# The scratch keeps the function's own value (its incremental form starts from it); the value
# returned counts below 0 as 0, since the searches size their stacks by a bound that assumes h >= 0.
# These are `kernel`s, called, not inline kernels: a user's function may allocate arrays, which
# needs numba's reference counting, and numba gives a function its caller's setting.


@kernel
def _start(data, board, position, scratch, row, column):
    h = np.int64(data.full(board))
    scratch[row, column] = h
    return max(h, 0)


@kernel
def _child(data, board, position, scratch, row, column, tile, source, target):
    h = np.int64(data.full(board))
    scratch[row + 1, column] = h
    return max(h, 0)


@kernel
def _incremental_child(data, board, position, scratch, row, column, tile, source, target):
    h = np.int64(data.child(scratch[row, column], board, tile, source, target))
    scratch[row + 1, column] = h
    return max(h, 0)


register_kind(UserFunction, _start, _child)
register_kind(UserIncremental, _start, _incremental_child)
register_prefixed(PREFIX, term_from_spec, "user")
