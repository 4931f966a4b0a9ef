"""Fault drill, bad input: every parser and command fuzzed with hypothesis.

The rule checked everywhere: a bad input ends with exit status 2 and exactly one line on
stderr (never a traceback); a valid input is solved correctly (0), or reported unsolvable (1)
when it really is. The expected status is worked out here from what the input really is,
independently of the package.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import assume, event, example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from pdb_build.cli import build_pdb_main
from pdb_build.store import load_partition
from solvers.cli import compare_heuristics_main, solve_batch_main, solve_puzzle_main
from solvers.errors import InputError
from solvers.heuristics import ALIASES, NAMED, from_spec
from solvers.heuristics.spec import MAX_DEPTH
from solvers.puzzle import Puzzle, PuzzleError, load_puzzle, parse_board, parse_tiles
from solvers.search.registry import search_named
from tests.faults_support import (
    FUZZ,
    assert_one_line_error,
    bfs_distances,
    call,
    inversion_solvable,
    read_rows,
    replay,
)

SUPPORTED = range(2, 9)


@functools.cache
def exact(rows: int, cols: int, goal: tuple) -> dict:
    """Exact distances for boards of at most 9 cells (3x3 only for the two standard goals)."""
    return bfs_distances(rows, cols, goal)


def default_goal(n: int) -> tuple:
    return (*range(1, n), 0)


def solvability_and_length(rows, cols, start, goal):
    """(solvable, optimal length or None when not computed here)."""
    if rows * cols <= 8 or goal in (default_goal(9), tuple(range(9))):
        distances = exact(rows, cols, goal)
        return start in distances, distances.get(start)
    return inversion_solvable(start, goal, cols), None


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A scratch folder, also the working directory, so that no default path escapes into the repository."""
    folder = tmp_path_factory.mktemp("faults-inputs")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        yield folder


# ------------------------------------------------------------------ solve-puzzle, structured

BOARD_SHAPES = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 2)]  # valid and cheap to solve
BIG_SHAPES = [(4, 4), (8, 8), (5, 3)]  # valid sizes, only ever given with a mutated (invalid) state
BAD_SHAPES = [(1, 4), (4, 1), (1, 1), (9, 9), (0, 0), (1, 9), (2, 9), (100, 100)]

BAD_BOARD_TEXTS = ["", "x", "3x", "x3", "3*3", "3x3x3", "-3x4", "3x-4", "3.0x3", "three", "3,3", "0x0", "1x1",
                   "9x9", "100x100", "-3x-3", "99999999999999999999x2", "2 2"]


def board_text(draw, rows, cols):
    form = draw(st.sampled_from(["{r}x{c}", "{r}x{c}", "{r}X{c}", " {r} x {c} ", "{r}\u00d7{c}", "0{r}x{c}", "bad"]))
    if form == "bad":
        text = draw(st.sampled_from(BAD_BOARD_TEXTS))
    else:
        text = form.format(r=rows, c=cols)
    match = re.fullmatch(r"\s*([0-9]+)\s*[xX\u00d7]\s*([0-9]+)\s*", text)
    return text, (int(match.group(1)), int(match.group(2))) if match else None


@st.composite
def puzzle_cases(draw):
    kind = draw(st.sampled_from(["ok"] * 6 + ["big", "bad"]))
    rows, cols = draw(st.sampled_from({"ok": BOARD_SHAPES, "big": BIG_SHAPES, "bad": BAD_SHAPES}[kind]))
    n = rows * cols
    # (a 100x100 board gets 64 tiles 1..64: too few for it, and no 8x8 puzzle either)
    tiles = [str(t) for t in draw(st.permutations(range(n)))] if n <= 100 else [str(t) for t in range(1, 65)]
    mutation = draw(st.sampled_from(["none"] * 7 + ["duplicate", "drop", "extra", "range", "negative", "huge", "token"]))
    if kind == "big":
        assume(mutation != "none")
    if mutation != "none" and tiles:
        where = draw(st.integers(0, len(tiles) - 1))
        if mutation == "duplicate":
            other = draw(st.integers(0, len(tiles) - 1))
            assume(other != where)
            tiles[where] = tiles[other]
        elif mutation == "drop":
            del tiles[where]
        elif mutation == "extra":
            tiles.insert(where, str(draw(st.integers(0, n - 1))))  # a repeated tile (n itself could fit a bigger board)
        elif mutation == "range":
            tiles[where] = str(draw(st.integers(n, n + 1000)))
        elif mutation == "negative":
            tiles[where] = str(draw(st.integers(-(10**6), -1)))
        elif mutation == "huge":
            tiles[where] = str(draw(st.integers(10**18, 10**40)))
        else:
            tiles[where] = draw(st.sampled_from(["x", "1.5", "0x1", "--", "1e3", "NaN", "\u00bd", "3-", "++1", "-0", "+1",
                                                 "\uff11", "\u0661", "1\u00a02"]))
    # the goal: only where the board is small enough to check exactly
    goal = None
    goal_choice = draw(st.sampled_from(["none", "given", "given", "bad"]))
    if kind == "ok" and goal_choice == "given":
        if n == 9:
            goal = draw(st.sampled_from([default_goal(9), tuple(range(9))]))
        else:
            goal = tuple(draw(st.permutations(range(n))))
        goal = " ".join(map(str, goal))
    elif goal_choice == "bad":
        goal = draw(st.sampled_from(["1 2 3", "0 0 0 0", "a b c d", " ".join(map(str, range(1, n + 1))), ""]))
    # how the board is given: --board, row marks, or inferred from a square count
    how = draw(st.sampled_from(["flag", "rows", "inferred"]))
    argv = []
    flag_board = None
    if how == "flag":
        text, flag_board = board_text(draw, rows, cols)
        argv.append(f"--board={text}")
        if flag_board is None:
            flag_board = "invalid"
    if how == "rows" and cols > 0 and len(tiles) == n and rows > 0:
        separator = draw(st.sampled_from(["/", ";", "\n", " / "]))
        within = draw(st.sampled_from([" ", ","]))
        text = separator.join(within.join(tiles[r * cols:(r + 1) * cols]) for r in range(rows))
        shape = (rows, cols) if rows > 1 else None
    else:
        within = draw(st.sampled_from([" ", ",", ", ", "\t", "  "]))
        text = within.join(tiles)
        shape = None
    algorithm = draw(st.sampled_from(["ida", "ida", "astar", "bfs"] + (["iddfs"] if n <= 6 else [])))
    heuristic = draw(st.sampled_from(["linear-conflict", "lc", "manhattan", "LC", " Manhattan "]
                                     + (["hamming", "zero", "none"] if n <= 6 else [])))
    if goal is not None:
        argv.append(f"--goal={goal}")
    argv += ["--algorithm", algorithm, "--heuristic", heuristic, "--json", "--node-limit", "3000000", "--", text]
    return argv, tiles, shape, flag_board, goal


def expected_puzzle(tiles, shape, flag_board, goal):
    """(valid, rows, cols, start, goal) from what the input really is."""
    if not tiles or not all(re.fullmatch(r"[0-9]+", t) for t in tiles):
        return False, None
    values = [int(t) for t in tiles]
    if flag_board == "invalid":
        return False, None
    if flag_board is not None:
        board = flag_board
        if shape is not None and shape != board:
            return False, None
    elif shape is not None:
        board = shape
    else:
        side = math.isqrt(len(values))
        if side * side != len(values):
            return False, None
        board = (side, side)
    rows, cols = board
    if rows not in SUPPORTED or cols not in SUPPORTED:
        return False, None
    n = rows * cols
    if sorted(values) != list(range(n)):
        return False, None
    goal_state = default_goal(n)
    if goal is not None:
        tokens = [t for t in re.split(r"[\s,]+", goal.strip()) if t]
        if not all(re.fullmatch(r"[0-9]+", t) for t in tokens) or sorted(map(int, tokens)) != list(range(n)):
            return False, None
        goal_state = tuple(map(int, tokens))
    return True, (rows, cols, tuple(values), goal_state)


def check_solved_record(record, rows, cols, start, goal, length):
    assert record["board"] == f"{rows}x{cols}" and tuple(record["start"]) == start and tuple(record["goal"]) == goal
    assert record["status"] == "solved" and record["length"] == len(record["moves"])
    assert replay(start, record["moves"], rows, cols) == goal, "the reported solution does not reach the goal"
    if length is not None and record["optimal"]:
        assert record["length"] == length, f"length {record['length']} but the optimum is {length}"


@FUZZ
@given(puzzle_cases())
def test_solve_puzzle_structured_inputs(work, case):
    argv, tiles, shape, flag_board, goal = case
    status, out, err = call(solve_puzzle_main, argv)
    valid, facts = expected_puzzle(tiles, shape, flag_board, goal)
    event(f"exit status {status}")
    if not valid:
        assert_one_line_error(status, out, err, "solve-puzzle")
        assert out == ""
        return
    rows, cols, start, goal_state = facts
    solvable, length = solvability_and_length(rows, cols, start, goal_state)
    assert status == (0 if solvable else 1), f"status {status}, stdout {out!r}, stderr {err!r}"
    assert err == ""
    record = json.loads(out)
    if solvable:
        check_solved_record(record, rows, cols, start, goal_state, length)
    else:
        assert record["solvable"] is False and record["length"] is None


# ------------------------------------------------------------------ solve-puzzle, random text

near_text = st.text(alphabet=st.sampled_from(list("0123456789 ,/;\n-+xX") + ["\u00d7", "a", "\u0663", "\x00", "\t"]),
                    max_size=40)
any_text = st.one_of(near_text, st.text(max_size=30))
names = st.sampled_from(["linear-conflict", "lc", "manhattan", "hamming", "pdb", "pdb:", "max()", "max(pdb:a,pdb:b)",
                         "pdb:+reflect", "euclid", "", " ", "LC", "zero", "max(manhattan)", "pdb:/nonexistent/x.h5"])


@FUZZ
@given(tiles=any_text, board=st.one_of(st.none(), any_text), goal=st.one_of(st.none(), any_text),
       heuristic=st.one_of(names, st.text(max_size=20)), algorithm=st.sampled_from(["ida", "astar", "bfs", "dfs", "x"]))
@example(tiles="1 2 3 4 5 6 7 8 0", board="3x3", goal=None, heuristic="lc", algorithm="ida")
@example(tiles="0 1 2 3", board=None, goal="1 2 3 0", heuristic="manhattan", algorithm="astar")
@example(tiles="1 0 3 2", board="2x2", goal=None, heuristic="lc", algorithm="ida")
def test_solve_puzzle_random_text(work, tiles, board, goal, heuristic, algorithm):
    argv = ["--json", "--node-limit", "200000", "--algorithm", algorithm, f"--heuristic={heuristic}"]
    if board is not None:
        argv.append(f"--board={board}")
    if goal is not None:
        argv.append(f"--goal={goal}")
    status, out, err = call(solve_puzzle_main, [*argv, "--", tiles])
    event(f"exit status {status}")
    assert status in (0, 1, 2, 3), (status, err)
    if status == 2:
        assert_one_line_error(status, out, err, "solve-puzzle")
        return
    assert "Traceback" not in err and err == "", err
    record = json.loads(out)
    rows, cols = map(int, record["board"].split("x"))
    start, goal_state = tuple(record["start"]), tuple(record["goal"])
    assert sorted(start) == sorted(goal_state) == list(range(rows * cols))
    if status == 0:
        length = solvability_and_length(rows, cols, start, goal_state)[1] if rows * cols <= 9 else None
        check_solved_record(record, rows, cols, start, goal_state, length if algorithm != "dfs" else None)
    elif status == 1:
        assert rows * cols > 9 or not solvability_and_length(rows, cols, start, goal_state)[0]


# ------------------------------------------------------------------ numeric options

number_texts = st.one_of(
    st.integers(-(10**6), 10**18).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["0", "-0", "+5", " 7 ", "1_000", "0x10", "1e3", "", "five", "nan", "-inf", "9" * 30,
                     "1.5", "-1", "00012"]),
)


def expected_positive(text: str, convert) -> bool:
    try:
        value = convert(text)
    except ValueError:
        return False
    return value > 0


@FUZZ
@given(option=st.sampled_from(["--node-limit", "--depth-limit", "--time-limit"]), text=number_texts,
       algorithm=st.sampled_from(["ida", "dfs", "astar"]))
def test_solve_puzzle_numeric_options(work, option, text, algorithm):
    convert = float if option == "--time-limit" else int
    if expected_positive(text, convert):
        # the sizes a user may reasonably give; the extremes have tests of their own below
        assume(convert(text) < {"--node-limit": 2**63, "--depth-limit": 10**4, "--time-limit": 1e6}[option])
    status, out, err = call(solve_puzzle_main, ["1 2 3 4 5 6 0 7 8", "--algorithm", algorithm, f"{option}={text}"])
    if expected_positive(text, convert) and not search_named(algorithm).takes(option[2:].replace("-", "_")):
        assert_one_line_error(status, out, err, "solve-puzzle")  # the option of another search
        assert f"only, not to {algorithm}" in err
    elif expected_positive(text, convert):
        assert status in (0, 3) and "Traceback" not in err and err == "", (status, err)
        if status == 0 and algorithm != "dfs":
            assert "length     2" in out
    else:
        assert_one_line_error(status, out, err, "solve-puzzle")


@pytest.mark.parametrize("limit", ["inf", "1e10", "1e300"])
def test_a_huge_time_limit_is_no_traceback(work, limit):
    """A time limit beyond what a timer can wait for is either no limit or a one-line refusal."""
    status, out, err = call(solve_puzzle_main, ["8 6 7 2 5 4 3 0 1", "--time-limit", limit])
    if status == 2:
        assert_one_line_error(status, out, err, "solve-puzzle")
    else:
        assert status == 0 and "length     31" in out
        assert err == "", f"stderr: {err[:400]!r}"


@pytest.mark.parametrize("algorithm", ["ida", "astar", "bfs", "iddfs", "dfs"])
def test_a_node_limit_beyond_64_bits_is_no_traceback(work, algorithm):
    status, out, err = call(solve_puzzle_main, ["1 2 3 4 5 6 0 7 8", "--algorithm", algorithm,
                                                "--node-limit", str(2**64 + 5)])
    if status == 2:
        assert_one_line_error(status, out, err, "solve-puzzle")
    else:
        assert status == 0 and "length     2" in out and err == ""


@pytest.mark.parametrize("depth", [str(10**11), str(10**30)])
def test_a_huge_dfs_depth_limit_is_no_traceback(depth):
    """Run in a fresh process: the search might try to allocate per-depth arrays."""
    done = subprocess.run([sys.executable, "-m", "solvers.cli", "1 2 3 4 5 6 0 7 8", "--algorithm", "dfs",
                           "--depth-limit", depth], capture_output=True, text=True, timeout=120, check=False)
    if done.returncode == 2:
        assert_one_line_error(done.returncode, done.stdout, done.stderr, "solve-puzzle")
    else:
        assert done.returncode == 0 and "Traceback" not in done.stderr, (done.returncode, done.stderr[-600:])


# ------------------------------------------------------------------ parsers through the API

tile_values = st.one_of(st.integers(-5, 20), st.integers(), st.floats(), st.text(max_size=3), st.none(), st.booleans())
nested = st.recursive(tile_values, lambda children: st.lists(children, max_size=5), max_leaves=20)
arrays = hnp.arrays(
    dtype=st.sampled_from([np.int64, np.uint8, np.int8, np.float64, np.bool_, np.dtype("U3")]),
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4),
)


@FUZZ
@given(value=st.one_of(nested, arrays, st.lists(st.integers(0, 8), min_size=9, max_size=9).map(tuple),
                       st.permutations(range(9)), st.permutations(range(4)).map(np.array)),
       board=st.one_of(st.none(), st.text(max_size=8), st.tuples(st.integers(-3, 12), st.integers(-3, 12))))
def test_load_puzzle_api_accepts_or_raises_puzzle_error(value, board):
    try:
        puzzle, start = load_puzzle(value, board)
    except PuzzleError as error:
        assert "\n" not in str(error) and str(error)
        return
    assert sorted(start.tolist()) == list(range(puzzle.n_cells))
    assert 2 <= puzzle.rows <= 8 and 2 <= puzzle.cols <= 8


def test_load_puzzle_api_zero_dimensional_array():
    """A numpy scalar array is user data like any other: PuzzleError, not TypeError."""
    with pytest.raises(PuzzleError):
        load_puzzle(np.array(5))


@FUZZ
@given(st.one_of(st.text(max_size=12), st.builds("{}x{}".format, st.integers(-5, 200), st.integers(-5, 200))))
def test_parse_board_accepts_or_raises_puzzle_error(text):
    try:
        rows, cols = parse_board(text)
    except PuzzleError as error:
        assert "\n" not in str(error)
        return
    assert rows in SUPPORTED and cols in SUPPORTED


@FUZZ
@given(st.one_of(near_text, st.text(max_size=30)))
def test_parse_tiles_accepts_or_raises_puzzle_error(text):
    try:
        tiles, shape = parse_tiles(text)
    except PuzzleError as error:
        assert "\n" not in str(error)
        return
    assert tiles and all(isinstance(t, int) for t in tiles)
    assert shape is None or shape[0] * shape[1] == len(tiles)


@FUZZ
@given(st.one_of(names, st.text(max_size=25), st.builds(lambda a, b: f"max({a},{b})", st.text(max_size=8),
                                                           st.text(max_size=8))))
def test_heuristic_specs_accept_or_raise_one_line_input_error(work, spec):
    try:
        heuristic = from_spec(Puzzle(3, 3), spec)
    except InputError as error:
        assert "\n" not in str(error) and str(error)
        return
    assert _plain_names(spec) <= set(NAMED) | set(ALIASES), spec
    assert heuristic.name


def _plain_names(spec: str) -> set[str]:
    """The names inside an accepted spec, combinators and parentheses taken away."""
    words = spec.lower().replace("max(", ",").replace("sum(", ",").replace(")", ",").split(",")
    return {w.strip() for w in words if w.strip()}


def nested_max(depth: int) -> str:
    return "max(" * depth + "manhattan" + ")" * depth


def nested_both(depth: int) -> str:
    """A spec `depth` deep whose sums and maxima all survive the merging: one level of nested
    code per level of the spec."""
    spec = "manhattan"
    for level in range(depth):
        spec = f"max({spec}, zero)" if level % 2 else f"sum({spec}, zero)"
    return spec


@pytest.mark.parametrize("nest", [nested_max, nested_both])
def test_a_spec_at_the_most_depth_is_read_and_one_deeper_refused(nest):
    puzzle = Puzzle(2, 2)
    assert from_spec(puzzle, nest(MAX_DEPTH)).name
    with pytest.raises(InputError, match=f"^heuristic nests {MAX_DEPTH + 1} deep; the most is {MAX_DEPTH}$"):
        from_spec(puzzle, nest(MAX_DEPTH + 1))


@pytest.mark.parametrize("spec, depth", [(nested_max(MAX_DEPTH + 1), MAX_DEPTH + 1), (nested_max(495), 495),
                                         ("sum(" * 5000 + "manhattan" + ")" * 5000, 5000),
                                         ("max(" * 100_000 + "manhattan", 100_000)])
@pytest.mark.parametrize("command", ["solve-puzzle", "solve-batch", "compare-heuristics"])
def test_a_spec_nested_too_deep_is_one_line_in_every_command(work, command, spec, depth):
    instances = work / "deep.txt"
    instances.write_text("# board: 2x2\n1 2 0 3 | 1\n")
    main, argv = {
        "solve-puzzle": (solve_puzzle_main, ["1 2 0 3", "--board", "2x2"]),
        "solve-batch": (solve_batch_main, [str(instances), "--out", str(work / "deep.csv"), "--quiet"]),
        "compare-heuristics": (compare_heuristics_main, ["--board", "2x2", "--out", str(work / "deep"), "--quiet"]),
    }[command]
    status, out, err = call(main, [*argv, f"--heuristic={spec}"])
    line = assert_one_line_error(status, out, err, command)
    assert line == f"{command}: error: heuristic nests {depth} deep; the most is {MAX_DEPTH}"
    assert not (work / "deep.csv").exists() and not (work / "deep").exists()


def test_solve_puzzle_takes_a_spec_at_the_most_depth(work):
    status, out, err = call(solve_puzzle_main, ["1 2 0 3", "--board", "2x2", f"--heuristic={nested_max(MAX_DEPTH)}"])
    assert status == 0 and err == "", err
    assert "length     1 (optimal)" in out


# ------------------------------------------------------------------ solve-batch: instance files

@st.composite
def instance_files(draw):
    """Good lines with one or more bad ones; returns (text, number of the first bad line, header?)."""
    header = draw(st.booleans())
    n_good = draw(st.integers(0, 6))
    lines = (["# some benchmark"] + (["# board: 3x3"] if header else []))
    good = [" ".join(map(str, draw(st.permutations(range(9))))) for _ in range(n_good)]
    body = []
    for line in good:
        body += draw(st.lists(st.sampled_from(["", "   ", "# comment", "#", "  # indented comment"]), max_size=2))
        body.append(line + draw(st.sampled_from(["", " | 20", "|0", " |  31 ", " | 99999999999999999999"])))
    perm = [str(t) for t in draw(st.permutations(range(9)))]
    kind = draw(st.sampled_from(["count", "extra", "duplicate", "range", "token", "known", "shape", "column", "negative",
                                 "empty tile", "empty row"]))
    if kind == "count":
        bad = " ".join(perm[:-1])
    elif kind == "extra":
        bad = " ".join(perm + ["9"])
    elif kind == "duplicate":
        bad = " ".join(perm[:-1] + [perm[0]])
    elif kind == "range":
        bad = " ".join(perm[:-1] + [str(draw(st.integers(9, 10**20)))])
    elif kind == "negative":
        bad = " ".join(perm[:-1] + [str(draw(st.integers(-100, -1)))])
    elif kind == "token":
        bad = " ".join(perm[:-1] + [draw(st.sampled_from(["x", "1.0", "8a", "\u00bd", "0x0", "-0", "+0", "\uff10",
                                                          "\u0660"]))])
    elif kind == "known":
        bad = " ".join(perm) + " | " + draw(st.sampled_from(["-1", "abc", "1.5", "3 | 4", "1e2", "x", "-0", "\u0663",
                                                             "9" * 5000]))
    elif kind == "empty tile":
        bad = ",".join(perm[:4]) + ",," + ",".join(perm[4:])
    elif kind == "empty row":
        bad = "/".join(" ".join(perm[r * 3:(r + 1) * 3]) for r in range(3)) + draw(st.sampled_from(["/", ";", " / "]))
    elif kind == "shape":
        bad = "/".join([" ".join(perm[:4]), " ".join(perm[4:])])
    else:
        bad = "/".join(perm)  # nine rows of one tile on a 3x3 board
    if not header and not good:
        body.append("1 2 3 4 5 6 7 8 0")
    # without a header the board is read off the first instance line: keep the bad line after it
    # (a bad first line without header has a test of its own below)
    first_instance = next((i for i, line in enumerate(body) if line.strip() and not line.lstrip().startswith("#")), -1)
    position = draw(st.integers(0 if header else first_instance + 1, len(body)))
    body.insert(position, bad)
    body += draw(st.lists(st.sampled_from(["1 2 3 4 5 6 7 8 0", "8 6 7 2 5 4 3 0 1 | 31", "oops", ""]), max_size=3))
    text = "\n".join(lines + body) + draw(st.sampled_from(["", "\n", "\n\n"]))
    return text, len(lines) + position + 1, header


@FUZZ
@given(instance_files())
def test_a_malformed_instance_line_is_named_by_its_number(work, case):
    text, bad_line, _ = case
    path = work / "instances.txt"
    path.write_text(text)
    out_csv = work / "never-written.csv"
    status, out, err = call(solve_batch_main, [str(path), "--out", str(out_csv), "--quiet", "--jobs", "1"])
    line = assert_one_line_error(status, out, err, "solve-batch")
    assert f"{path}, line {bad_line}:" in line, line
    assert not out_csv.exists()


@pytest.mark.parametrize("first", ["1 2 3 4 5 6 7 x 0", "1 2 3 4 5 6 7 8", "1,2,3/4,5,6/7,8"])
def test_a_malformed_first_line_without_header_is_named_by_its_number(work, first):
    """Without a '# board:' header the board is read off the first instance line; when that line
    is malformed the message must still name it (README: a malformed line is named by its number)."""
    path = work / "headerless.txt"
    path.write_text(f"# no header here\n\n{first}\n1 2 3 4 5 6 7 8 0\n")
    status, out, err = call(solve_batch_main, [str(path), "--out", str(work / "x.csv"), "--quiet"])
    line = assert_one_line_error(status, out, err, "solve-batch")
    assert "line 3" in line, line


LENIENT_TILES = {  # text, what the one line names
    "-0 1 2 3": "tile '-0' is not a non-negative integer in digits 0-9",
    "+1 2 3 0": "tile '+1' is not a non-negative integer in digits 0-9",
    "1 2 3 \uff10": "tile '\uff10' is not a non-negative integer in digits 0-9",  # full-width 0
    "1 2 3 \u0660": "tile '\u0660' is not a non-negative integer in digits 0-9",  # Arabic-Indic 0
    "1,,2 3 0": "an empty tile in '1,,2 3 0'",
    "1 2 3 0,": "an empty tile in '1 2 3 0,'",
    "1 2/3 0/": "an empty row in '1 2/3 0/'",
    "1 2;;3 0": "an empty row in '1 2;;3 0'",
    "1 2 3 " + "9" * 5000: "is out of range",
}


@pytest.mark.parametrize("tiles", list(LENIENT_TILES))
@pytest.mark.parametrize("where", ["start", "goal"])
def test_lenient_tiles_are_refused_in_one_line_naming_them(work, tiles, where):
    argv = ["--board", "2x2", "--", "1 2 3 0"] if where == "goal" else ["--board", "2x2", "--", tiles]
    if where == "goal":
        argv[2:2] = ["--goal", tiles]
    status, out, err = call(solve_puzzle_main, argv)
    assert LENIENT_TILES[tiles] in assert_one_line_error(status, out, err, "solve-puzzle")
    assert out == ""


@pytest.mark.parametrize("tiles", list(LENIENT_TILES))
def test_lenient_tiles_in_an_instance_file_are_refused_naming_the_line(work, tiles):
    path = work / "lenient.txt"
    path.write_text(f"# board: 2x2\n1 2 3 0 | 0\n{tiles} | 3\n")
    status, out, err = call(solve_batch_main, [str(path), "--out", str(work / "lenient.csv"), "--quiet"])
    line = assert_one_line_error(status, out, err, "solve-batch")
    assert f"{path}, line 3: " in line and LENIENT_TILES[tiles] in line, line
    assert not (work / "lenient.csv").exists()


# ------------------------------------------------------------------ a length of 0 against a known one

@pytest.mark.parametrize("start, known, expected", [
    ("1 2 3 0", 1, 1),  # solved in 0 moves: shorter than the known optimum
    ("1 2 0 3", 0, 1),  # solved in 1 move, proven: longer than a known 0
    ("1 2 3 0", 0, 0),
])
def test_solve_batch_exits_1_on_every_contradiction_of_a_known_length(work, start, known, expected):
    path = work / "goal.txt"
    path.write_text(f"# board: 2x2\n# goal: 1 2 3 0\n{start} | {known}\n")
    out_csv = work / "goal.csv"
    out_csv.unlink(missing_ok=True)
    argv = [str(path), "--out", str(out_csv), "--quiet", "--jobs", "1", "--heuristic", "manhattan"]
    for run in ("first", "resumed"):  # the row as solved, then as read back from the file
        status, out, err = call(solve_batch_main, argv)
        assert status == expected, (run, status, err)
        assert ("MISMATCH" in err) == (expected == 1 and run == "first"), (run, err)
        assert ("contradict the known optima (instances 1)" in err) == (expected == 1), (run, err)


def test_compare_heuristics_exits_1_when_a_length_of_0_contradicts_a_known_one(work):
    path = work / "goal-compared.txt"
    path.write_text("# board: 2x2\n# goal: 1 2 3 0\n1 2 3 0 | 1\n")
    status, out, err = call(compare_heuristics_main, ["--instances", str(path), "--heuristic", "manhattan",
                                                      "--sample", "100", "--out", str(work / "compared"), "--quiet"])
    assert status == 1, err
    assert "MISMATCH: manhattan solved instance 1 in 0 moves, but its known optimal length is 1" in err


@functools.cache
def eight_distances():
    return exact(3, 3, default_goal(9))


@FUZZ
@given(states=st.lists(st.permutations(range(9)).map(tuple), min_size=1, max_size=5),
       known=st.lists(st.sampled_from(["true", "none", "off"]), min_size=5, max_size=5))
def test_valid_instance_files_get_the_right_rows_and_status(work, states, known):
    distances = eight_distances()
    lines = ["# board: 3x3"]
    for state, how in zip(states, known):
        suffix = ""
        if how != "none" and state in distances:
            suffix = f" | {distances[state] + (0 if how == 'true' else 2)}"
        lines.append(" ".join(map(str, state)) + suffix)
    path = work / "valid.txt"
    path.write_text("\n".join(lines) + "\n")
    out_csv = work / "valid.csv"
    out_csv.unlink(missing_ok=True)
    status, _out, err = call(solve_batch_main, [str(path), "--out", str(out_csv), "--quiet", "--jobs", "1"])
    mismatch = any(how == "off" and s in distances for s, how in zip(states, known))
    unsolvable = any(s not in distances for s in states)
    assert status == (1 if mismatch else 3 if unsolvable else 0), (status, err)
    assert "Traceback" not in err
    rows = read_rows(out_csv)
    assert [int(r["id"]) for r in rows] == list(range(1, len(states) + 1))
    for row, state in zip(rows, states):
        if state in distances:
            assert row["status"] == "solved" and int(row["length"]) == distances[state]
            assert replay(state, row["moves"], 3, 3) == default_goal(9)
        else:
            assert row["status"] == "unsolvable" and row["length"] == "" and row["moves"] == ""


BAD_FILES = {
    "empty": b"",
    "only comments": b"# one\n# board: 3x3\n\n",
    "binary": bytes(range(256)),
    "latin-1": "# caf\xe9\n1 2 3 4 5 6 7 8 0\n".encode("latin-1"),
    "nul bytes": b"1 2 3 4 5\x00 6 7 8 0\n",
    "board header unsupported": b"# board: 9x9\n1 2 3\n",
    "board header garbage": b"# board: big\n1 2 3 4 5 6 7 8 0\n",
    "board header 1xN": b"# board: 1x9\n1 2 3 4 5 6 7 8 0\n",
    "goal header wrong count": b"# goal: 1 2 3\n1 2 3 4 5 6 7 8 0\n",
    "goal header duplicate": b"# goal: 1 1 3 4 5 6 7 8 0\n1 2 3 4 5 6 7 8 0\n",
    "only a pipe": b"| 3\n",
    "non-square": b"1 2 3 4 5 6 7 0\n",
    "huge board inferred": (" ".join(map(str, range(100))) + "\n").encode(),
}


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_bad_instance_files_exit_2_with_one_line(work, name):
    path = work / f"{name.replace(' ', '-')}.txt"
    path.write_bytes(BAD_FILES[name])
    status, out, err = call(solve_batch_main, [str(path), "--out", str(work / "bad.csv"), "--quiet"])
    line = assert_one_line_error(status, out, err, "solve-batch")
    assert str(path) in line
    assert not (work / "bad.csv").exists()


@pytest.mark.parametrize("target", ["missing", "directory"])
def test_missing_or_directory_instance_file(work, target):
    path = work / "nowhere.txt" if target == "missing" else work
    status, out, err = call(solve_batch_main, [str(path), "--out", str(work / "m.csv"), "--quiet"])
    assert str(path) in assert_one_line_error(status, out, err, "solve-batch")


@FUZZ
@given(option=st.sampled_from(["--jobs", "--first", "--node-limit", "--time-limit"]), text=number_texts)
def test_solve_batch_numeric_options(work, option, text):
    convert = float if option == "--time-limit" else int
    if expected_positive(text, convert):
        assume(convert(text) < (1e6 if option == "--time-limit" else 2**63))
    path = work / "three.txt"
    path.write_text("# board: 3x3\n1 2 3 4 5 6 7 0 8 | 1\n1 2 3 4 5 6 0 7 8 | 2\n1 2 3 4 0 6 7 5 8 | 2\n")
    out_csv = work / "numeric.csv"
    out_csv.unlink(missing_ok=True)
    status, out, err = call(solve_batch_main, [str(path), "--out", str(out_csv), "--quiet", f"{option}={text}"])
    if not expected_positive(text, convert):
        assert_one_line_error(status, out, err, "solve-batch")
        assert not out_csv.exists()
        return
    assert status in (0, 3) and "Traceback" not in err, (status, err)
    rows = read_rows(out_csv)
    expected = min(3, int(text)) if option == "--first" else 3
    assert sorted(int(r["id"]) for r in rows) == list(range(1, expected + 1))
    assert all(r["status"] in ("solved", "gave_up") for r in rows)
    assert all(r["length"] == r["known_length"] for r in rows if r["status"] == "solved")


@FUZZ
@given(heuristic=st.one_of(names, st.text(max_size=15)), board=st.one_of(st.none(), st.sampled_from(BAD_BOARD_TEXTS)),
       goal=st.one_of(st.none(), near_text), algorithm=st.sampled_from(["ida", "astar", "bfs", ""]))
def test_solve_batch_option_text(work, heuristic, board, goal, algorithm):
    path = work / "one.txt"
    path.write_text("1 2 3 4 5 6 7 0 8\n")
    out_csv = work / "option.csv"
    out_csv.unlink(missing_ok=True)
    argv = [str(path), "--out", str(out_csv), "--quiet", f"--heuristic={heuristic}", f"--algorithm={algorithm}"]
    argv += [f"--board={board}"] if board is not None else []
    argv += [f"--goal={goal}"] if goal is not None else []
    status, out, err = call(solve_batch_main, argv)
    if status == 2:
        assert_one_line_error(status, out, err, "solve-batch")
        assert not out_csv.exists()
    else:
        assert status in (0, 1, 3) and "Traceback" not in err, (status, err)
        assert len(read_rows(out_csv)) == 1


def test_an_output_path_below_a_regular_file(work):
    instances = work / "one-more.txt"
    instances.write_text("1 2 3 4 5 6 7 0 8\n")
    blocker = work / "a-file"
    blocker.write_text("not a directory\n")
    status, out, err = call(solve_batch_main, [str(instances), "--out", str(blocker / "x.csv"), "--quiet"])
    assert_one_line_error(status, out, err, "solve-batch")
    assert blocker.read_text() == "not a directory\n"


@pytest.mark.parametrize("content", [b"\xff\xfe\x00garbage", b"id,status\n1,solved\n", b"my,own,data\n"])
def test_a_foreign_or_undecodable_output_file_is_refused_and_kept(work, content):
    instances = work / "keep.txt"
    instances.write_text("1 2 3 4 5 6 7 0 8\n")
    target = work / "foreign.csv"
    target.write_bytes(content)
    status, out, err = call(solve_batch_main, [str(instances), "--out", str(target), "--quiet"])
    assert str(target) in assert_one_line_error(status, out, err, "solve-batch")
    assert target.read_bytes() == content


# ------------------------------------------------------------------ build-pdb

pattern_texts = st.lists(
    st.one_of(
        st.lists(st.integers(-2, 11), min_size=0, max_size=5).map(lambda ts: ",".join(map(str, ts))),
        st.text(alphabet=st.sampled_from(list("0123456789, -x;")), max_size=8),
        st.sampled_from(["99999999999999999999", "1,,2", " 1 2 ", "1;2", "0", "1,1"]),
    ),
    min_size=1, max_size=3,
)


def expected_patterns(texts, n_cells):
    seen = set()
    for text in texts:
        if not re.fullmatch(r"[ \t]*[0-9]+(?:[ \t]*,[ \t]*[0-9]+|[ \t]+[0-9]+)*[ \t]*", text):
            return False
        tiles = [int(t) for t in re.findall(r"[0-9]+", text)]
        if any(not 0 < t < n_cells for t in tiles) or len(set(tiles)) != len(tiles) or seen & set(tiles):
            return False
        if len(tiles) > 8:
            return False
        seen |= set(tiles)
    return True


@st.composite
def valid_partitions(draw):
    tiles = draw(st.permutations(range(1, 9)))
    cuts = sorted(draw(st.sets(st.integers(1, 7), max_size=2)))
    size = draw(st.integers(max(cuts, default=0) + 1, 8))
    bounds = [0, *cuts, size]
    separator = draw(st.sampled_from([",", " ", ", "]))
    return [separator.join(map(str, tiles[a:b])) for a, b in itertools.pairwise(bounds)]


@FUZZ
@given(texts=st.one_of(pattern_texts, valid_partitions()))
def test_build_pdb_pattern_values(work, texts):
    out_file = work / "pattern.h5"
    out_file.unlink(missing_ok=True)
    argv = ["--board", "3x3", "--out", str(out_file), "--quiet"]
    for text in texts:
        argv.append(f"--pattern={text}")
    status, out, err = call(build_pdb_main, argv)
    event(f"exit status {status}")
    if expected_patterns(texts, 9):
        assert status == 0, err
        assert load_partition(out_file, Puzzle(3, 3)).partition.patterns
    else:
        assert_one_line_error(status, out, err, "build-pdb")
        assert not out_file.exists()


@FUZZ
@given(board=st.one_of(st.sampled_from(BAD_BOARD_TEXTS + ["2x2", "8x8", "2x8", "8X2", " 3 x 4 "]), near_text))
def test_build_pdb_board_values(work, board):
    out_file = work / "board.h5"
    out_file.unlink(missing_ok=True)
    status, out, err = call(build_pdb_main, [f"--board={board}", "--pattern=1,2", "--out", str(out_file), "--quiet"])
    match = re.fullmatch(r"\s*([0-9]+)\s*[xX\u00d7]\s*([0-9]+)\s*", board)  # ASCII digits only
    if match and int(match.group(1)) in SUPPORTED and int(match.group(2)) in SUPPORTED:
        assert status == 0, err
        assert out_file.exists()
    else:
        assert_one_line_error(status, out, err, "build-pdb")
        assert not out_file.exists()


@FUZZ
@given(board=st.sampled_from(["3x3", "2x2", "2x4", "8x8"]),
       name=st.one_of(st.text(min_size=1, max_size=12), st.sampled_from(
           ["7-8", "6-6-3", "5-5-5", "../3x3-4-4", "4-4/../../4-4", "4-4 ", "4-4\n", "*", ".", "..", "~"])))
def test_build_pdb_unknown_presets(work, board, name):
    assume(not (board == "3x3" and name == "4-4"))
    out_file = work / "preset.h5"
    out_file.unlink(missing_ok=True)
    status, out, err = call(build_pdb_main, [f"--board={board}", f"--preset={name}", "--out", str(out_file), "--quiet"])
    assert_one_line_error(status, out, err, "build-pdb")
    assert not out_file.exists()


def test_build_pdb_empty_preset_name(work):
    status, out, err = call(build_pdb_main, ["--board", "3x3", "--preset", "", "--out", str(work / "e.h5"), "--quiet"])
    assert_one_line_error(status, out, err, "build-pdb")


@pytest.mark.parametrize("argv", [
    ["--board", "3x3", "--goal", "1 2 3 4 5 6 7 8", "--preset", "4-4"],
    ["--board", "3x3", "--goal", "0 0 1 2 3 4 5 6 7", "--preset", "4-4"],
    ["--board", "3x3", "--goal", "x", "--preset", "4-4"],
    ["--board", "3x3", "--goal", "", "--preset", "4-4"],
    ["--board", "3x3", "--pattern", "1,2", "--pattern", ""],
    ["--board", "3x3"],
    ["--board", "3x3", "--preset", "4-4", "--out"],
    ["--board", "3x3", "--preset", "4-4", "--bogus"],
    [],
])
def test_build_pdb_other_bad_options(work, argv):
    status, out, err = call(build_pdb_main, [*argv] + (["--quiet"] if argv and argv[-1] != "--out" else []))
    assert_one_line_error(status, out, err, "build-pdb")
    assert not (work / "data").exists()


def test_build_pdb_output_is_a_directory(work):
    folder = work / "a-directory"
    folder.mkdir(exist_ok=True)
    status, out, err = call(build_pdb_main, ["--board", "3x3", "--preset", "4-4", "--out", str(folder), "--quiet",
                                             "--force"])
    assert str(folder) in assert_one_line_error(status, out, err, "build-pdb")
    assert folder.is_dir() and not any(folder.iterdir())
    assert not [p.name for p in work.iterdir() if p.name.startswith(".a-directory")], "temporary file left behind"
    shutil.rmtree(folder)
