"""puzzle.py -- the sliding-tile puzzle model: board, goal, parsing, solvability, replay.

A *board* has `rows` x `cols` cells numbered in row-major order (cell 0 is the top-left).
A *state* is a `np.uint8` array whose entry `i` is the tile in cell `i`; tile 0 is the blank.
A *puzzle* is a board plus a goal state. A *move* names the direction the blank moves:
`U`, `D`, `L` or `R` (the tile next to the blank in that direction slides into the blank's
cell). A solution is a string of such letters.

Every function here that takes text or user data validates it and raises `PuzzleError`,
whose message is one line that says what is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from solvers.errors import InputError

MIN_SIDE = 2
MAX_SIDE = 8
MOVE_LETTERS = "UDLR"
UP, DOWN, LEFT, RIGHT = range(4)
NO_CELL = -1
# tiles as text (parse_tiles)
ROW_MARKS = re.compile(r"[/;\n]")
SPACES = " \t\r\f\v"  # ASCII's: other white space is no separator
SPACE_RUN = re.compile(f"[{SPACES}]+")
TILE = re.compile(r"[0-9]+")
MAX_TILE_DIGITS = 18  # past every board's tiles; int() refuses text of thousands of digits


class PuzzleError(InputError):
    """Invalid puzzle input; the message is one line meant for the user."""


def inverse_move(move: int) -> int:
    """The move that undoes `move` (U<->D, L<->R)."""
    return move ^ 1


def parse_board(text: str) -> tuple[int, int]:
    """Parse `RxC` (rows x columns, e.g. `4x3`) into `(rows, cols)` within the supported sizes."""
    match = re.fullmatch(r"\s*([0-9]+)\s*[xX×]\s*([0-9]+)\s*", str(text))
    if not match:
        raise PuzzleError(f"board {text!r} is not of the form RxC (rows x columns), e.g. 4x4")
    rows, cols = int(match.group(1)), int(match.group(2))
    check_board_size(rows, cols)
    return rows, cols


def check_board_size(rows: int, cols: int) -> None:
    """Raise `PuzzleError` unless both sides lie in MIN_SIDE..MAX_SIDE."""
    if not (MIN_SIDE <= rows <= MAX_SIDE and MIN_SIDE <= cols <= MAX_SIDE):
        raise PuzzleError(
            f"board {rows}x{cols} is not supported: rows and columns must be between "
            f"{MIN_SIDE} and {MAX_SIDE}"
        )


def parse_tiles(value) -> tuple[list[int], tuple[int, int] | None]:
    """Read tiles from text or (nested) sequences.

    Text separates tiles by spaces (or tabs) or by commas and rows by `/`, `;` or new lines, e.g.
    `"1 2 3 4 6 8 7 5 0"` or `"1,2,3/4,6,8/7,5,0"`; spaces may stand around commas and row marks,
    and before and after the whole text. A tile in text is a non-negative integer written in
    the digits 0-9. Anything else is refused in one line naming it: another token (`-0`, `+3`,
    `5.5`, digits of other scripts), an empty tile (`7,,3`, a comma at either end of a row) and
    an empty row (a row mark at either end, or two with nothing between). A nested sequence
    lists rows; its tiles are integers (Python's or numpy's) or text as above.
    Returns the flat tiles and, when rows were marked, the shape `(rows, cols)`.
    """
    if isinstance(value, str):
        text = value.strip(SPACES + "\n")
        rows = [_text_row(row, text) for row in ROW_MARKS.split(text)] if text else []
    elif isinstance(value, np.ndarray):
        if value.ndim not in (1, 2):
            raise PuzzleError(f"cannot read tiles from a {value.ndim}-dimensional array; give a row or a grid")
        rows = value.tolist() if value.ndim == 2 else [value.tolist()]
    elif isinstance(value, Sequence) and value and all(
        isinstance(row, Sequence) and not isinstance(row, str) for row in value
    ):
        rows = [list(row) for row in value]
    elif isinstance(value, Sequence):
        rows = [list(value)]
    else:
        raise PuzzleError(f"cannot read tiles from a {type(value).__name__}")
    tiles = [_as_tile(token) for row in rows for token in row]
    if not tiles:
        raise PuzzleError("no tiles given")
    if len(rows) == 1:
        return tiles, None
    widths = {len(row) for row in rows}
    if len(widths) != 1:
        raise PuzzleError(f"rows have different lengths: {', '.join(str(len(r)) for r in rows)}")
    return tiles, (len(rows), widths.pop())


def _text_row(row: str, text: str) -> list[str]:
    """The tokens of one row of `text`: its fields between commas, each one or more tokens
    between spaces."""
    if not row.strip(SPACES):
        raise PuzzleError(f"an empty row in {_shown(text)}: a row mark (/, ; or a new line) stands between "
                          "two rows of tiles")
    fields = [SPACE_RUN.split(field.strip(SPACES)) for field in row.split(",")]
    if [""] in fields:
        raise PuzzleError(f"an empty tile in {_shown(row.strip(SPACES))}: a comma stands between two tiles")
    return [token for field in fields for token in field]


def _as_tile(token) -> int:
    """One tile as an int: an integer (Python's or numpy's, not a boolean), or text in the
    digits 0-9."""
    if isinstance(token, (bool, np.bool_)):
        raise PuzzleError(f"tile {token!r} is not an integer")
    if isinstance(token, (int, np.integer)):
        return int(token)
    if not isinstance(token, str):
        raise PuzzleError(f"tile {token!r} is not an integer")
    if not TILE.fullmatch(token):
        raise PuzzleError(f"tile {_shown(token)} is not a non-negative integer in digits 0-9")
    digits = len(token.lstrip("0"))
    if digits > MAX_TILE_DIGITS:
        raise PuzzleError(f"tile {_shown(token)} is out of range: no board has a tile of {digits} digits")
    return int(token)


def _shown(text: str) -> str:
    """`text` quoted for a message, cut short if long."""
    return repr(text) if len(text) <= 40 else repr(text[:40]) + "..."


def infer_board(n_tiles: int, shape: tuple[int, int] | None) -> tuple[int, int]:
    """The board implied by the marked rows, or else by a square number of tiles."""
    if shape is not None:
        check_board_size(*shape)
        return shape
    side = int(round(n_tiles**0.5))
    if side * side != n_tiles:
        raise PuzzleError(
            f"cannot infer the board from {n_tiles} tiles (not a square); give the board as RxC"
        )
    check_board_size(side, side)
    return side, side


def default_goal(n_cells: int) -> np.ndarray:
    """Tiles 1..N-1 in row-major order with the blank last."""
    return np.array([*range(1, n_cells), 0], dtype=np.uint8)


class Puzzle:
    """A board of `rows` x `cols` cells with a goal state.

    Read-only numpy tables for the kernels::

      goal        uint8[N]     the tile in each cell of the goal
      goal_cell   uint8[N]     the goal cell of each tile
      neighbours  int8[N, 4]   the cell the blank reaches from each cell by U, D, L, R
                               (NO_CELL where the move leaves the board)
    """

    def __init__(self, rows: int, cols: int, goal=None):
        check_board_size(rows, cols)
        self.rows, self.cols = rows, cols
        self.n_cells = rows * cols
        self.goal = default_goal(self.n_cells) if goal is None else self._validated(goal, "goal")
        self.goal_cell = np.argsort(self.goal).astype(np.uint8)
        self.neighbours = _neighbour_table(rows, cols)
        for table in (self.goal, self.goal_cell, self.neighbours):
            table.setflags(write=False)

    @property
    def board(self) -> str:
        """The board as `RxC`."""
        return f"{self.rows}x{self.cols}"

    @property
    def blank_goal_cell(self) -> int:
        return int(self.goal_cell[0])

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, Puzzle)
            and (self.rows, self.cols) == (other.rows, other.cols)
            and np.array_equal(self.goal, other.goal)
        )

    def __hash__(self) -> int:
        return hash((self.rows, self.cols, self.goal.tobytes()))

    def __repr__(self) -> str:
        return f"Puzzle({self.board}, goal={' '.join(map(str, self.goal))})"

    def state(self, value, what: str = "puzzle") -> np.ndarray:
        """Parse and validate a state of this board; returns a fresh uint8 array."""
        return self._validated(value, what)

    def _validated(self, value, what: str) -> np.ndarray:
        tiles, shape = parse_tiles(value)
        if shape is not None and shape != (self.rows, self.cols):
            raise PuzzleError(
                f"{what} has {shape[0]} rows of {shape[1]} tiles but the board is {self.board}"
            )
        n = self.n_cells
        if len(tiles) != n:
            raise PuzzleError(f"{what} has {len(tiles)} tiles but a {self.board} board needs {n}")
        for tile in tiles:
            if not 0 <= tile < n:
                raise PuzzleError(f"{what}: tile {tile} is out of range 0..{n - 1}")
        seen: set[int] = set()
        for tile in tiles:
            if tile in seen:
                missing = min(set(range(n)) - set(tiles))
                raise PuzzleError(f"{what}: tile {tile} appears twice and tile {missing} is missing")
            seen.add(tile)
        return np.array(tiles, dtype=np.uint8)

    def is_goal(self, state: np.ndarray) -> bool:
        return bool(np.array_equal(state, self.goal))

    def is_solvable(self, state: np.ndarray) -> bool:
        """Whether the goal is reachable from `state`.

        Every move swaps the blank with a neighbour: it flips the parity of the permutation
        that maps `state` onto the goal and changes the blank's row-plus-column distance to
        its goal cell by one. Both parities therefore agree on every reachable state, and on
        rectangular boards of at least 2x2 every state where they agree is reachable (Wilson
        1974). For the blank-last goal on odd widths this is the familiar inversion-count rule;
        on even widths it is the rule that adds the blank's row.
        """
        permutation = self.goal_cell[state]
        blank_cell = int(np.flatnonzero(state == 0)[0])
        blank_distance = self.cell_distance(blank_cell, self.blank_goal_cell)
        return permutation_parity(permutation) == blank_distance % 2

    def cell_distance(self, a: int, b: int) -> int:
        """Row-plus-column (Manhattan) distance between two cells."""
        return abs(a // self.cols - b // self.cols) + abs(a % self.cols - b % self.cols)

    def replay(self, start: np.ndarray, moves: str) -> np.ndarray:
        """The state reached from `start` by the blank moves `moves`; PuzzleError on an illegal move."""
        state = np.array(start, dtype=np.uint8)
        blank = int(np.flatnonzero(state == 0)[0])
        for step, letter in enumerate(moves, 1):
            if letter not in MOVE_LETTERS:
                raise PuzzleError(f"move {step} is {letter!r}; moves are U, D, L, R")
            target = int(self.neighbours[blank, MOVE_LETTERS.index(letter)])
            if target == NO_CELL:
                raise PuzzleError(f"move {step} ({letter}) takes the blank off the board")
            state[blank], state[target] = state[target], 0
            blank = target
        return state

    def check_solution(self, start: np.ndarray, moves: str, length: int) -> None:
        """Raise `SolutionError` unless `moves` has `length` moves and leads `start` to the goal."""
        if len(moves) != length:
            raise SolutionError(f"solution has {len(moves)} moves but its length is given as {length}")
        try:
            end = self.replay(start, moves)
        except PuzzleError as error:
            raise SolutionError(f"solution does not replay: {error}") from None
        if not self.is_goal(end):
            raise SolutionError(f"solution {moves!r} does not reach the goal")

    def states_along(self, start: np.ndarray, moves: str) -> list[np.ndarray]:
        """The boards from `start` through every move of `moves` (len(moves) + 1 states)."""
        return [self.replay(start, moves[:i]) for i in range(len(moves) + 1)]

    def format(self, state: np.ndarray) -> str:
        """The state as a grid of right-aligned numbers, `.` for the blank."""
        width = len(str(self.n_cells - 1))
        cells = [(str(t) if t else ".").rjust(width) for t in state]
        return "\n".join(" ".join(cells[r * self.cols : (r + 1) * self.cols]) for r in range(self.rows))

    def random_state(self, rng: np.random.Generator) -> np.ndarray:
        """A state drawn uniformly from the states from which the goal is reachable.

        A uniform permutation is drawn; if it is unsolvable, swapping the two lowest non-blank
        tiles (a bijection between the two halves) makes it solvable, so the result is uniform.
        """
        state = rng.permutation(self.n_cells).astype(np.uint8)
        if not self.is_solvable(state):
            a, b = np.flatnonzero(state == 1)[0], np.flatnonzero(state == 2)[0]
            state[a], state[b] = state[b], state[a]
        return state


class SolutionError(RuntimeError):
    """A search produced a solution that does not replay to the goal: a bug, never user error."""


def permutation_parity(permutation: np.ndarray) -> int:
    """0 for an even permutation of 0..n-1, 1 for an odd one (n minus the number of cycles)."""
    seen = np.zeros(len(permutation), dtype=bool)
    n_cycles = 0
    for start in range(len(permutation)):
        if not seen[start]:
            n_cycles += 1
            cell = start
            while not seen[cell]:
                seen[cell] = True
                cell = permutation[cell]
    return (len(permutation) - n_cycles) % 2


def _neighbour_table(rows: int, cols: int) -> np.ndarray:
    table = np.full((rows * cols, 4), NO_CELL, dtype=np.int8)
    for cell in range(rows * cols):
        row, col = divmod(cell, cols)
        if row > 0:
            table[cell, UP] = cell - cols
        if row < rows - 1:
            table[cell, DOWN] = cell + cols
        if col > 0:
            table[cell, LEFT] = cell - 1
        if col < cols - 1:
            table[cell, RIGHT] = cell + 1
    return table


def load_puzzle(tiles, board: str | tuple[int, int] | None = None, goal=None) -> tuple[Puzzle, np.ndarray]:
    """Parse a puzzle given as tiles, an optional board (`"RxC"` or `(rows, cols)`) and goal.

    Without a board, it is taken from the rows marked in `tiles` or from a square tile count.
    Returns the `Puzzle` and the validated start state.
    """
    flat, shape = parse_tiles(tiles)
    if board is None:
        rows, cols = infer_board(len(flat), shape)
    elif isinstance(board, str):
        rows, cols = parse_board(board)
    else:
        rows, cols = board
    puzzle = Puzzle(rows, cols, goal)
    return puzzle, puzzle.state(tiles)
