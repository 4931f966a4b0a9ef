"""instances.py -- benchmark instance files: one puzzle per line, with an optional known length.

Format (see data/korf100.txt):

    # any comment
    # board: 4x4                      optional header; without it the board is inferred
    # goal: 0 1 2 3 ... 15            optional header; default goal otherwise
    14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3 | 57

Each instance line lists the tiles row by row, as solvers/puzzle.py's parse_tiles reads text
(tiles in the digits 0-9 between spaces or commas; `/` or `;` may mark rows); `| N` gives its
known optimal length, N in the digits 0-9. Instances are numbered from 1 in file order. The benchmark sets shipped with tilepdb (the data
files with a header, e.g. korf100) can be named instead of given by path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solvers.data_files import data_folder
from solvers.errors import InputError
from solvers.puzzle import Puzzle, PuzzleError, infer_board, parse_board, parse_tiles


@dataclass(frozen=True)
class Instance:
    number: int
    start: np.ndarray
    optimal: int | None


HEADER = re.compile(r"#\s*(board|goal)\s*:\s*(.*)")
MAX_DIGITS = 100  # past every length and instance number by far; int() refuses text of thousands of digits


def packaged_sets() -> list[str]:
    """Names of the benchmark sets shipped with tilepdb: the data files with a board or goal header."""
    return sorted(
        path.stem for path in data_folder().glob("*.txt")
        if any(HEADER.fullmatch(line.strip()) for line in path.read_text().splitlines())
    )


def published_counts(name: str) -> list[int]:
    """The node counts of a shipped data file of published counts (`korf100-manhattan-nodes`,
    `korf24-50-expansions`): one per instance, in the instance file's order; comments skipped."""
    lines = (data_folder() / f"{name}.txt").read_text().splitlines()
    return [int(line) for line in lines if line.strip() and not line.startswith("#")]


def published_columns(name: str) -> dict[str, list[int]]:
    """The columns of a shipped data file of published counts with several per instance
    (`korf24-50-c-solver-expansions`): named by its `# columns:` comment line, each a list
    in the instance file's order."""
    lines = (data_folder() / f"{name}.txt").read_text().splitlines()
    header = next((line for line in lines if line.startswith("# columns:")), None)
    if header is None:
        raise InputError(f"{name}.txt has no '# columns:' line")
    names = header.split(":", 1)[1].split()
    rows = [line.split() for line in lines if line.strip() and not line.startswith("#")]
    return {column: [int(row[i]) for row in rows] for i, column in enumerate(names)}


def instance_path(source: str | Path) -> Path:
    """The file `source` names: itself if it exists, else the packaged set of that name (e.g. "korf100")."""
    path = Path(source)
    if not path.exists() and str(source) in packaged_sets():
        return data_folder() / f"{source}.txt"
    return path


def load_instances(
    source: str | Path, board: str | None = None, goal=None, *, like: Puzzle | None = None
) -> tuple[Puzzle, list[Instance]]:
    """Read an instance file, given by path or as a packaged set's name; `board`/`goal` given
    here override the file's header.

    `like` is the puzzle the file must be for (another file's): it stands in for a missing
    header, and a header that names another board or goal is refused. Raises InputError
    naming the file and line for any malformed line.
    """
    path = instance_path(source)
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        offer = "" if path.exists() else f" (packaged sets: {', '.join(packaged_sets())})"
        raise InputError(f"cannot read instance file {path}: {error}{offer}") from None
    header = {}
    rows = []
    for number, line in enumerate(lines, 1):
        match = HEADER.fullmatch(line.strip())
        if match:
            header[match.group(1)] = match.group(2)
        elif line.strip() and not line.lstrip().startswith("#"):
            rows.append((number, line))
    if not rows:
        raise InputError(f"{path}: no instances found")
    board = board or header.get("board") or (like.board if like is not None else None)
    goal = goal if goal is not None else header.get("goal")
    try:
        rows_cols = parse_board(board) if board is not None else None
        puzzle_goal = goal
    except PuzzleError as error:
        raise InputError(f"{path}: {error}") from None
    if rows_cols is None:
        first_line, first = rows[0]
        try:
            tiles, shape = parse_tiles(first.split("|")[0])
            rows_cols = infer_board(len(tiles), shape)
        except PuzzleError as error:
            raise InputError(f"{path}, line {first_line}: {error}") from None
    if puzzle_goal is None and like is not None and rows_cols == (like.rows, like.cols):
        puzzle_goal = like.goal
    try:
        puzzle = Puzzle(*rows_cols, puzzle_goal)
    except PuzzleError as error:
        raise InputError(f"{path}: {error}") from None
    if like is not None and puzzle != like:
        raise InputError(f"{path}: its header is for {puzzle}, not {like} as expected")
    instances = []
    for line_number, line in rows:
        tiles, _, known = line.partition("|")
        try:
            start = puzzle.state(tiles, "instance")
            optimal = _known_length(known)
        except PuzzleError as error:
            raise InputError(f"{path}, line {line_number}: {error}") from None
        instances.append(Instance(len(instances) + 1, start, optimal))
    return puzzle, instances


def _known_length(text: str) -> int | None:
    """The known length after an instance's `|` (None: none given)."""
    digits = text.strip()
    if not digits:
        return None
    if not re.fullmatch(r"[0-9]+", digits):
        raise PuzzleError(f"known length {digits!r} is not a non-negative integer in digits 0-9")
    if _too_long(digits):
        raise PuzzleError(f"known length {digits[:20]}... is out of range ({len(digits)} digits)")
    return int(digits)


def _too_long(digits: str) -> bool:
    return len(digits.lstrip("0")) > MAX_DIGITS


def select_instances(instances: list[Instance], selection: str) -> list[Instance]:
    """The instances whose numbers `selection` names ("38,40,1-3": numbers and ranges), in file order.

    Raises InputError for malformed text or a number the file does not have.
    """
    wanted = set()
    for part in selection.split(","):
        match = re.fullmatch(r"\s*([0-9]+)\s*(?:-\s*([0-9]+)\s*)?", part)
        if not match:
            raise InputError(f"instance selection {selection!r}: {part.strip()!r} is not a number or a range such as 3-7")
        if any(_too_long(number) for number in match.groups() if number):
            raise InputError(f"instance selection: {part.strip()[:20]}... is outside 1-{len(instances)}")
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if low > high:
            raise InputError(f"instance selection {selection!r}: {low}-{high} runs backwards; write {high}-{low}")
        if not 1 <= low <= high <= len(instances):
            raise InputError(f"instance selection {selection!r}: {part.strip()} is outside 1-{len(instances)}")
        wanted.update(range(low, high + 1))
    return [instance for instance in instances if instance.number in wanted]
