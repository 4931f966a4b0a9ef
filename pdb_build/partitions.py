"""partitions.py -- disjoint partitions of the tiles into patterns: presets and custom ones.

A preset is a text file `data/partitions/<RxC>-<sizes>.txt` (shipped as package data, see
solvers/data_files.py): comment lines, then a sketch of
the board in which every goal cell carries the letter of its pattern and one cell is `.`,
where the sketch expects the blank's goal. A pattern is the set of tiles whose goal cells
carry its letter, so a preset works for any goal:

- if a symmetry of the board (rotation or reflection) carries the sketch's `.` onto the
  cell where the goal puts the blank, the sketch is turned by it (for the blank-last goal,
  the blank-first sketches are rotated by 180 degrees);
- otherwise the cell holding the goal's blank hands its letter to the sketch's `.` cell.

Either way the pattern sizes are those of the preset's name; patterns are listed by their
smallest tile.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from solvers.data_files import data_folder
from solvers.errors import InputError
from solvers.puzzle import Puzzle

BLANK_MARK = "."


@dataclass(frozen=True)
class Partition:
    """Disjoint patterns of tiles (each sorted ascending), named."""

    name: str
    patterns: tuple[tuple[int, ...], ...]

    @property
    def sizes(self) -> str:
        return "-".join(str(len(p)) for p in self.patterns)


def preset_folder() -> Path:
    """The folder of the preset files."""
    return data_folder() / "partitions"


def preset_names(puzzle: Puzzle) -> list[str]:
    """Names of the presets for this puzzle's board."""
    return sorted(p.stem.split("-", 1)[1] for p in preset_folder().glob(f"{puzzle.board}-*.txt"))


def preset(puzzle: Puzzle, name: str) -> Partition:
    """The preset `name` (e.g. "7-8") for this puzzle's board and goal."""
    path = preset_folder() / f"{puzzle.board}-{name}.txt"
    if not path.is_file():
        names = preset_names(puzzle)
        offer = f"presets for {puzzle.board}: {', '.join(names)}" if names else f"there are no presets for {puzzle.board}"
        raise InputError(f"unknown preset {name!r}; {offer} (or give --pattern)")
    labels = _read_sketch(path, puzzle)
    labels = _fit_to_goal(labels, puzzle)
    letters = sorted(set(labels) - {BLANK_MARK})
    patterns = sorted(
        tuple(sorted(int(puzzle.goal[cell]) for cell, label in enumerate(labels) if label == letter))
        for letter in letters
    )
    return Partition(name, tuple(patterns))


def catalogue(puzzle: Puzzle, name: str) -> tuple[Partition, ...]:
    """The partitions of the catalogue `data/partitions/catalogue-<RxC>-<name>.txt`: comment
    lines, then one preset name per line (a heuristic takes the maximum over them)."""
    path = preset_folder() / f"catalogue-{puzzle.board}-{name}.txt"
    if not path.is_file():
        names = sorted(p.stem.split("-", 2)[2] for p in preset_folder().glob(f"catalogue-{puzzle.board}-*.txt"))
        raise InputError(f"unknown catalogue {name!r} for {puzzle.board}; catalogues: {', '.join(names) or 'none'}")
    lines = [line.strip() for line in path.read_text().splitlines()]
    return tuple(preset(puzzle, line) for line in lines if line and not line.startswith("#"))


def custom(puzzle: Puzzle, pattern_texts: list[str]) -> Partition:
    """A partition from texts such as "1,2,3" (one per pattern), validated for this puzzle."""
    patterns = []
    for text in pattern_texts:
        tokens = re.split(r"[ \t]*,[ \t]*|[ \t]+", text.strip(" \t"))  # an empty token: a stray comma
        if not all(re.fullmatch(r"[0-9]+", t) for t in tokens):
            raise InputError(f"pattern {text!r} is not a list of tile numbers in digits 0-9 such as 1,2,3")
        patterns.append(tuple(sorted(int(t) for t in tokens)))
    check_patterns(puzzle, patterns)
    return Partition(f"custom-{'-'.join(str(len(p)) for p in patterns)}-{tiles_digest(patterns)}", tuple(patterns))


def tiles_digest(patterns) -> str:
    """A short digest of which tiles each pattern holds, for names that the partition's name
    alone would not keep apart."""
    return hashlib.sha1(repr([tuple(p) for p in patterns]).encode()).hexdigest()[:8]


def check_patterns(puzzle: Puzzle, patterns) -> None:
    """Refuse patterns that are empty, hold the blank or a missing tile, repeat or overlap."""
    if not patterns:
        raise InputError("no patterns given")
    seen: dict[int, int] = {}
    for number, pattern in enumerate(patterns, 1):
        if not pattern:
            raise InputError(f"pattern {number} is empty")
        for tile in pattern:
            if tile == 0:
                raise InputError(f"pattern {number} holds the blank (0); patterns list tiles 1..{puzzle.n_cells - 1}")
            if not 0 < tile < puzzle.n_cells:
                raise InputError(f"pattern {number}: tile {tile} does not exist on a {puzzle.board} board")
            if tile in seen:
                where = "twice" if seen[tile] == number else f"in patterns {seen[tile]} and {number}"
                raise InputError(f"tile {tile} appears {where}; patterns must be disjoint")
            seen[tile] = number


def _read_sketch(path: Path, puzzle: Puzzle) -> list[str]:
    rows = [line.split() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    if len(rows) != puzzle.rows or any(len(row) != puzzle.cols for row in rows):
        raise InputError(f"{path}: the sketch is not a {puzzle.board} grid")
    labels = [label for row in rows for label in row]
    if labels.count(BLANK_MARK) != 1 or not all(re.fullmatch(r"[A-Z]", x) for x in labels if x != BLANK_MARK):
        raise InputError(f"{path}: the sketch needs one '.' and capital letters elsewhere")
    return labels


def _fit_to_goal(labels: list[str], puzzle: Puzzle) -> list[str]:
    sketch_blank = labels.index(BLANK_MARK)
    goal_blank = puzzle.blank_goal_cell
    for symmetry in _symmetries(puzzle.rows, puzzle.cols):
        if symmetry[sketch_blank] == goal_blank:
            turned = [""] * len(labels)
            for cell, label in enumerate(labels):
                turned[symmetry[cell]] = label
            return turned
    handed = list(labels)
    handed[sketch_blank], handed[goal_blank] = labels[goal_blank], BLANK_MARK
    return handed


def _symmetries(rows: int, cols: int) -> list[list[int]]:
    """Cell maps of the board's symmetries, the identity first."""
    maps = [
        lambda r, c: (r, c),
        lambda r, c: (rows - 1 - r, cols - 1 - c),
        lambda r, c: (rows - 1 - r, c),
        lambda r, c: (r, cols - 1 - c),
    ]
    if rows == cols:
        maps += [
            lambda r, c: (c, r),
            lambda r, c: (cols - 1 - c, rows - 1 - r),
            lambda r, c: (c, rows - 1 - r),
            lambda r, c: (cols - 1 - c, r),
        ]
    result = []
    for cell_map in maps:
        images = (cell_map(*divmod(cell, cols)) for cell in range(rows * cols))
        result.append([r * cols + c for r, c in images])
    return result
