"""The bidirectional searches and reverse A* against exact distances (exhaustive BFS): every
solvable 2x3 state on two goals and 2x4 state (each by one search), samples of 3x3 states
with every heuristic kind that can be built toward the start; each direction's counts, the
meeting state on the solution, the lower bound of a search that gives up; PDB tables built
toward the start against exact distances; tables kept toward a start and read again; the rules
of the code behind the published counts, on every 2x3 state and against the sheet's own
expansions."""

import numpy as np
import pytest

import pdb_build.build
from pdb_build.build import build_pdb_file, plan_build
from pdb_build.partitions import Partition, preset
from solvers.errors import InputError
from solvers.heuristics.pdb_lookup import mirror_maps
from solvers.heuristics.spec import from_spec
from solvers.instances import load_instances, published_columns
from solvers.puzzle import Puzzle
from solvers.search.bidirectional import BACKWARD, DIBBS_CODE, FORWARD, _partition_folder, heuristic_toward, \
    rule_kernels, rule_of
from solvers.search.dvcbs import DynamicVertexCover, _cover_side
from solvers.search.registry import searches
from tests import naive
from tests.conftest import distances

BIDIRECTIONAL = [name for name, search in searches().items() if search.family == "bidirectional"]
TOWARD_START = [*BIDIRECTIONAL, "reverse-astar"]
WITH_CODE_RULES = [name for name in BIDIRECTIONAL if searches()[name].takes("rules")]
CONSISTENT_ONLY = [name for name in BIDIRECTIONAL if rule_kernels(rule_of(name)).needs_consistent]
OTHER_2X3_GOAL = (1, 2, 3, 0, 5, 4)
HARDEST_3X3 = (8, 6, 7, 2, 5, 4, 3, 0, 1)  # 31 moves from the standard goal


def _solved_exactly(puzzle: Puzzle, heuristic, name: str, states, **options) -> None:
    """`name` (with `options`) finds and proves each state's exact distance and reports
    consistent frontiers."""
    search = searches()[name]
    for state, distance in states:
        result = search.run(puzzle, np.array(state, dtype=np.uint8), heuristic, **options)
        assert result.length == distance and result.optimal and result.lower_bound == distance, (name, state)
        assert 0 < result.nodes_stored <= result.nodes_generated + 2  # the roots, and children stored once
        frontiers = result.frontiers
        if frontiers is None:
            continue
        assert frontiers.forward_expanded + frontiers.backward_expanded == result.nodes_expanded
        assert frontiers.forward_necessary <= frontiers.forward_expanded
        assert frontiers.backward_necessary <= frontiers.backward_expanded
        along = puzzle.states_along(np.array(state, dtype=np.uint8), result.moves)
        assert puzzle.format(along[frontiers.meeting_depth]) == frontiers.meeting


def _sample(rows: int, cols: int, size: int, seed: int) -> list[tuple[tuple, int]]:
    """`size` states drawn from every solvable state of the board, and a farthest one."""
    exact = sorted(distances(rows, cols, tuple(int(t) for t in Puzzle(rows, cols).goal)).items())
    picked = [exact[i] for i in np.random.default_rng(seed).choice(len(exact), size, replace=False)]
    return [*picked, max(exact, key=lambda item: item[1])]


@pytest.mark.parametrize("name", TOWARD_START)
@pytest.mark.parametrize("goal", [None, OTHER_2X3_GOAL])
def test_every_2x3_state_gets_its_exact_length(name, goal):
    puzzle = Puzzle(2, 3, goal)
    exact = distances(2, 3, tuple(int(t) for t in puzzle.goal))
    _solved_exactly(puzzle, from_spec(puzzle, "manhattan"), name, sorted(exact.items()))


@pytest.mark.parametrize("name", TOWARD_START)
def test_every_2x4_state_gets_its_exact_length(name):
    """Each solvable 2x4 state is solved by one of the searches, dealt at random so that each
    search meets states of every depth (every search on every state would take the suite six
    times as long)."""
    puzzle = Puzzle(2, 4)
    exact = sorted(distances(2, 4, tuple(int(t) for t in puzzle.goal)).items())
    dealt = np.random.default_rng(24).permutation(len(exact)) % len(TOWARD_START)
    share = [exact[i] for i in np.flatnonzero(dealt == TOWARD_START.index(name))]
    _solved_exactly(puzzle, from_spec(puzzle, "manhattan"), name, share)


@pytest.mark.parametrize("name", TOWARD_START)
def test_sampled_3x3_states_get_their_exact_lengths(name):
    puzzle = Puzzle(3, 3)
    _solved_exactly(puzzle, from_spec(puzzle, "manhattan"), name, _sample(3, 3, 150, 9))


@pytest.mark.parametrize("name", WITH_CODE_RULES)
def test_the_published_codes_rules_give_exact_lengths(name):
    """Every solvable 2x3 state on two goals and a sample of 3x3 states."""
    for goal in (None, OTHER_2X3_GOAL):
        puzzle = Puzzle(2, 3, goal)
        exact = distances(2, 3, tuple(int(t) for t in puzzle.goal))
        _solved_exactly(puzzle, from_spec(puzzle, "manhattan"), name, sorted(exact.items()), rules=DIBBS_CODE)
    puzzle = Puzzle(3, 3)
    _solved_exactly(puzzle, from_spec(puzzle, "manhattan"), name, _sample(3, 3, 60, 5), rules=DIBBS_CODE)


@pytest.mark.parametrize("name", WITH_CODE_RULES)
def test_the_published_codes_rules_expand_as_many_nodes_as_the_sheet(name):
    """Under `rules=dibbs-code` NBS, DVCBS and GBFHS expand exactly the nodes the published sheet
    (tinamil/dibbs's code) counts on Korf's instances 12 and 79 with Manhattan distance; under
    their papers' rules, other numbers."""
    puzzle, instances = load_instances("korf100")
    published = published_columns("korf100-manhattan-bidirectional")[f"{name}_expanded"]
    heuristic = from_spec(puzzle, "manhattan")
    for number in (12, 79):
        start = instances[number - 1].start
        assert searches()[name].run(puzzle, start, heuristic, rules=DIBBS_CODE).nodes_expanded == published[number - 1]
        assert searches()[name].run(puzzle, start, heuristic).nodes_expanded != published[number - 1]


def test_the_published_dvcbs_values_a_cover_with_every_backward_cluster_by_those_alone():
    """Forward clusters of 2 and 10 nodes (g 0 and 1), a backward one of 3 (g 0), bound 2: both
    forward clusters meet the backward one. The least cover is the backward cluster (3 nodes),
    so the paper expands backward; the published code values {forward g 0, backward g 0} as 3
    too, and takes the forward side on that tie, its first cluster being the smaller."""
    forward, backward = np.array([2, 10]), np.array([3])
    assert _cover_side(DynamicVertexCover(1, False), forward, backward, 2) == BACKWARD
    assert _cover_side(DynamicVertexCover(1, True), forward, backward, 2) == FORWARD


def test_bae_alternates_directions_where_dibbs_chooses_by_the_least_key():
    """BAE* expands forward and backward in turn (forward first), so its forward expansions are
    its backward ones or one more; DIBBS, on the same key and bound, chooses the direction of
    the smaller least key and expands other nodes."""
    puzzle = Puzzle(3, 3)
    heuristic = from_spec(puzzle, "manhattan")
    splits = []
    for state, distance in _sample(3, 3, 40, 3):
        start = np.array(state, dtype=np.uint8)
        bae, dibbs = (searches()[name].run(puzzle, start, heuristic) for name in ("bae", "dibbs"))
        assert bae.length == dibbs.length == distance
        bae_split = (bae.frontiers.forward_expanded, bae.frontiers.backward_expanded)
        assert bae_split[0] - bae_split[1] in (0, 1), state
        splits.append((bae_split, (dibbs.frontiers.forward_expanded, dibbs.frontiers.backward_expanded)))
    assert any(bae_split != dibbs_split for bae_split, dibbs_split in splits)
    assert any(abs(forward - backward) > 1 for _, (forward, backward) in splits)


# a search that reads the heuristic toward its own end (DIBBS) and one that does not, with the
# kinds whose tables depend on the target state
@pytest.mark.parametrize("name, spec", [("dibbs", "linear-conflict"), ("nbs", "walking-distance")])
def test_other_heuristic_kinds_toward_the_start(name, spec):
    puzzle = Puzzle(3, 3)
    _solved_exactly(puzzle, from_spec(puzzle, spec), name, _sample(3, 3, 40, 7))


def _must_expand(rows: int, cols: int, start: tuple) -> tuple[int, int, int]:
    """Counted by brute force from exact distances, for Manhattan distance and the shortest
    length C: the states with d(start, s) + h_F(s) < C, those with d(s, goal) + h_B(s) < C, and
    the least vertex cover of the must-expand graph (Eckerle, Chen, Sturtevant, Zilles & Holte,
    ICAPS 2017), whose edges join such a forward state u and backward state v with
    d(start, u) + d(v, goal) + 1 < C. Each block of states at forward depth i meets each at
    backward depth j with i + j <= C - 2 or none of it, so a least cover takes whole blocks:
    the forward depths below some k and the backward ones up to C - 2 - k."""
    puzzle = Puzzle(rows, cols)
    goal = tuple(int(t) for t in puzzle.goal)
    to_goal, from_start = distances(rows, cols, goal), distances(rows, cols, start)
    states = np.array(list(to_goal), dtype=np.uint8)
    length = to_goal[start]
    toward_goal = from_spec(puzzle, "manhattan").evaluate_many(states)
    toward_start = from_spec(Puzzle(rows, cols, goal=start), "manhattan").evaluate_many(states)
    forward_depth = np.array([from_start[tuple(s)] for s in states.tolist()])
    backward_depth = np.array(list(to_goal.values()))
    forward = forward_depth[forward_depth + toward_goal < length]
    backward = backward_depth[backward_depth + toward_start < length]
    by_forward_depth = np.bincount(forward, minlength=length + 1)
    by_backward_depth = np.bincount(backward, minlength=length + 1)
    cover = min(by_forward_depth[:k].sum() + by_backward_depth[:max(0, length - 1 - k)].sum()
                for k in range(length + 1))
    return len(forward), len(backward), int(cover)


@pytest.mark.parametrize("name", BIDIRECTIONAL)
def test_necessary_expansions_against_a_brute_force_count(name):
    """Each direction's necessary expansions are states with g + h below the length, so at most
    as many as there are; and those of a search that reads only the heuristic toward the other
    end (all but DIBBS and BAE*, which also read the one toward its own end and may expand fewer) cover
    the must-expand graph, so at least its least vertex cover."""
    reads_own = rule_kernels(rule_of(name)).reads_own
    rng = np.random.default_rng(11)
    starts = [tuple(int(t) for t in Puzzle(2, 3).random_state(rng)) for _ in range(12)]
    starts += [tuple(int(t) for t in Puzzle(3, 3).random_state(rng)) for _ in range(3)]
    for start in starts:
        rows, cols = (2, 3) if len(start) == 6 else (3, 3)
        board = Puzzle(rows, cols)
        result = searches()[name].run(board, np.array(start, dtype=np.uint8), from_spec(board, "manhattan"))
        if result.length == 0:
            continue
        forward, backward, cover = _must_expand(rows, cols, start)
        frontiers = result.frontiers
        assert frontiers.forward_necessary <= forward and frontiers.backward_necessary <= backward, start
        if not reads_own:
            assert frontiers.forward_necessary + frontiers.backward_necessary >= cover, start


@pytest.mark.parametrize("name", TOWARD_START)
def test_an_unsolvable_start_is_reported_without_a_search(name):
    puzzle = Puzzle(3, 3)
    result = searches()[name].run(puzzle, np.array([1, 2, 3, 4, 6, 8, 5, 7, 0], dtype=np.uint8),
                                  from_spec(puzzle, "manhattan"))
    assert result.status == "unsolvable" and result.nodes_expanded == 0


@pytest.mark.parametrize("name", BIDIRECTIONAL)
def test_a_node_limit_gives_up_with_a_proven_bound(name):
    puzzle = Puzzle(3, 3)
    heuristic = from_spec(puzzle, "manhattan")
    result = searches()[name].run(puzzle, np.array(HARDEST_3X3, dtype=np.uint8), heuristic, node_limit=200)
    assert result.status == "gave_up" and "node limit of 200" in result.reason
    assert heuristic(np.array(HARDEST_3X3, dtype=np.uint8)) <= result.lower_bound <= 31


@pytest.fixture(scope="module")
def pdb_files(tmp_path_factory):
    """Additive PDB files for the blank-first goals of 3x3 (4-4) and 2x4 (3-4), plain and
    zero-aware, and a non-additive 3x3 one."""
    folder = tmp_path_factory.mktemp("pdbs")
    files = {}
    for rows, cols, partition in ((3, 3, preset(Puzzle(3, 3, tuple(range(9))), "4-4")),
                                  (2, 4, Partition("3-4", ((1, 2, 3), (4, 5, 6, 7))))):
        puzzle = Puzzle(rows, cols, tuple(range(rows * cols)))
        files[rows, cols] = build_pdb_file(plan_build(puzzle, partition), folder / f"{rows}x{cols}.h5")[0]
        files[rows, cols, "zero-aware"] = build_pdb_file(plan_build(puzzle, partition, zero_aware=True),
                                                         folder / f"{rows}x{cols}-zero-aware.h5")[0]
    puzzle = Puzzle(3, 3, tuple(range(9)))
    files["max"] = build_pdb_file(plan_build(puzzle, preset(puzzle, "4-4"), additive=False), folder / "max.h5")[0]
    return files


def test_tables_kept_toward_a_start_are_built_once_and_read_by_every_later_search(pdb_files, tmp_path, monkeypatch):
    """With a folder to keep them in, the first search of a start builds its tables there and
    the next ones (another bidirectional search, reverse A*) read them; all find the length."""
    builds = []
    build = pdb_build.build.build_pdb_file
    monkeypatch.setattr(pdb_build.build, "build_pdb_file", lambda *a, **k: builds.append(a[1]) or build(*a, **k))
    puzzle = Puzzle(3, 3, tuple(range(9)))
    heuristic = from_spec(puzzle, f"pdb:{pdb_files[3, 3]}")
    exact = distances(3, 3, tuple(range(9)))
    start = max(exact, key=exact.get)
    kept = tmp_path / "toward"
    for name in ("nbs", "reverse-astar", "mm"):
        result = searches()[name].run(puzzle, np.array(start, dtype=np.uint8), heuristic, toward_tables=kept)
        assert result.length == exact[start] and result.optimal, name
    assert len(builds) == 1 and len(list(kept.glob("*/*.h5"))) == 1
    other = Partition("4-4", ((1, 3, 5, 7), (2, 4, 6, 8)))  # the same name, other tiles: a folder of its own
    assert _partition_folder(kept, other) != _partition_folder(kept, preset(puzzle, "4-4"))
    (tmp_path / "a-file").write_text("")
    with pytest.raises(InputError, match="cannot keep tables built toward the start in"):
        searches()["mm"].run(puzzle, np.array(start, dtype=np.uint8), heuristic, toward_tables=tmp_path / "a-file")


@pytest.mark.parametrize("rows, cols", [(3, 3), (2, 4)])
def test_the_pdb_toward_a_start_never_overestimates_and_is_0_there(pdb_files, rows, cols):
    """The tables built toward a random start, against exact distances to it from every state."""
    puzzle = Puzzle(rows, cols, tuple(range(rows * cols)))
    heuristic = from_spec(puzzle, f"pdb:{pdb_files[rows, cols]}")
    rng = np.random.default_rng(rows + cols)
    for _ in range(2):
        start = tuple(int(t) for t in puzzle.random_state(rng))
        exact = distances(rows, cols, start)
        with heuristic_toward(heuristic, np.array(start, dtype=np.uint8), "nbs") as toward:
            values = toward.evaluate_many(np.array(list(exact), dtype=np.uint8))
        assert values[list(exact).index(start)] == 0
        assert all(value <= distance for value, distance in zip(values, exact.values()))
        assert sum(values) > 0.5 * sum(exact.values())  # informative, not 0 everywhere


def test_a_reflected_pdb_toward_a_start_off_the_diagonal_reads_the_mirrored_partition(pdb_files, tmp_path):
    """`+reflect` toward a start whose blank lies off the diagonal: the maximum of the naive
    tables toward the start of the file's patterns and of the mirrored ones (each tile t as
    m(t)), on every state; never above the distance to the start (BFS), 0 there, above the
    file's patterns alone somewhere; a search that takes plain tables and one that needs
    zero-aware tables find the exact length with it (every search builds its heuristic toward
    the start through the same `heuristic_toward`, so one of each kind stands for the rest)."""
    puzzle = Puzzle(3, 3, tuple(range(9)))
    patterns = preset(puzzle, "4-4").patterns
    tile_map = mirror_maps(puzzle)[1]
    mirrored = [tuple(int(tile_map[t]) for t in pattern) for pattern in patterns]
    rng = np.random.default_rng(33)
    starts = [s for s in (tuple(int(t) for t in puzzle.random_state(rng)) for _ in range(20)) if s.index(0) % 4][:2]
    for number, start in enumerate(starts):
        exact = distances(3, 3, start)
        kept = tmp_path / f"toward-{number}"
        with heuristic_toward(from_spec(puzzle, f"pdb:{pdb_files[3, 3]}+reflect"), np.array(start, dtype=np.uint8),
                              "nbs", kept) as toward:
            values = toward.evaluate_many(np.array(list(exact), dtype=np.uint8))
        assert len(list(kept.glob("*/*.h5"))) == 2 and len(list(kept.glob("*/*-mirrored*.h5"))) == 1
        alone = [naive.pattern_sum(3, 3, state, start, patterns) for state in exact]
        assert values.tolist() == [max(a, naive.pattern_sum(3, 3, state, start, mirrored)) for a, state in zip(alone, exact)]
        assert all(value <= distance for value, distance in zip(values, exact.values()))
        assert values[list(exact).index(start)] == 0 and values.sum() > sum(alone)
        for name in (next(n for n in BIDIRECTIONAL if n not in CONSISTENT_ONLY), CONSISTENT_ONLY[0]):
            kind = (3, 3, "zero-aware") if name in CONSISTENT_ONLY else (3, 3)
            heuristic = from_spec(puzzle, f"pdb:{pdb_files[kind]}+reflect")
            result = searches()[name].run(puzzle, np.array(start, dtype=np.uint8), heuristic)
            assert result.length == exact[tuple(range(9))] and result.optimal, (name, start)


def test_a_reflection_with_other_suffixes_off_the_diagonal_is_refused_before_any_table_is_built(pdb_files,
                                                                                                tmp_path):
    puzzle = Puzzle(3, 3, tuple(range(9)))
    heuristic = from_spec(puzzle, f"pdb:{pdb_files[3, 3]}+dual+reflect")
    kept = tmp_path / "toward"
    with pytest.raises(InputError) as refused:  # the blank one move right of its goal cell: off the diagonal
        searches()["nbs"].run(puzzle, np.array([1, 0, 2, 3, 4, 5, 6, 7, 8], dtype=np.uint8), heuristic,
                              toward_tables=kept)
    message = str(refused.value)
    assert "\n" not in message and message.startswith("nbs searches backward, toward a start whose blank lies off")
    assert "+reflect alone" in message and not kept.exists()


@pytest.mark.parametrize("name", TOWARD_START)
def test_pdb_heuristics_give_exact_lengths(pdb_files, name):
    """Plain tables (inconsistent) for every search that takes them, zero-aware ones for those
    that need a consistent heuristic."""
    puzzle = Puzzle(3, 3, tuple(range(9)))
    exact = sorted(distances(3, 3, tuple(range(9))).items())
    picked = [exact[i] for i in np.random.default_rng(5).choice(len(exact), 12, replace=False)]
    kind = (3, 3, "zero-aware") if name in CONSISTENT_ONLY else (3, 3)
    _solved_exactly(puzzle, from_spec(puzzle, f"pdb:{pdb_files[kind]}"), name, picked)


# 2x4 states, found by running every one: where DIBBS stops at a longer path if it takes plain
# tables, whose entries change by more than one per move; and where it did so with zero-aware
# tables when the search kernel evaluated each heuristic at two places, one of which numba
# compiled into a wrong value
DIBBS_HARD_STATES = ((7, 1, 3, 2, 4, 5, 0, 6), (0, 5, 3, 4, 2, 7, 6, 1), (0, 7, 3, 6, 4, 2, 5, 1),
                     (5, 2, 7, 3, 1, 6, 0, 4), (6, 4, 7, 0, 1, 5, 2, 3))


@pytest.mark.parametrize("name", CONSISTENT_ONLY)
def test_a_search_that_needs_consistency_refuses_an_inconsistent_heuristic_and_is_exact_with_one(pdb_files, name):
    puzzle = Puzzle(2, 4, tuple(range(8)))
    plain = from_spec(puzzle, f"pdb:{pdb_files[2, 4]}")
    with pytest.raises(InputError) as refused:
        searches()[name].run(puzzle, np.array(DIBBS_HARD_STATES[0], dtype=np.uint8), plain)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"{name} finds the shortest length only with a consistent")
    exact = distances(2, 4, tuple(range(8)))
    zero_aware = from_spec(puzzle, f"pdb:{pdb_files[2, 4, 'zero-aware']}")
    assert zero_aware.consistent and not plain.consistent
    _solved_exactly(puzzle, zero_aware, name, [(state, exact[state]) for state in DIBBS_HARD_STATES])


def test_a_non_additive_pdb_is_refused_in_one_line(pdb_files):
    puzzle = Puzzle(3, 3, tuple(range(9)))
    heuristic = from_spec(puzzle, f"pdb:{pdb_files['max']}")
    with pytest.raises(InputError) as refused:
        searches()["nbs"].run(puzzle, np.array([1, 0, 2, 3, 4, 5, 6, 7, 8], dtype=np.uint8), heuristic)
    message = str(refused.value)
    assert "\n" not in message and message.startswith("nbs searches backward, toward the start state")
    assert "only additive PDB files" in message


@pytest.mark.parametrize("rows, cols", [(5, 5), (8, 8), (3, 7)])
def test_larger_boards_get_a_stars_lengths(rows, cols):
    """On boards whose states take several words to pack, every bidirectional search proves the
    length A* proves, from states a walk of 16 moves away from the goal."""
    puzzle = Puzzle(rows, cols)
    heuristic = from_spec(puzzle, "manhattan")
    rng = np.random.default_rng(rows * cols)
    for _ in range(3):
        state = puzzle.goal.copy()
        blank = int(np.flatnonzero(state == 0)[0])
        for _ in range(16):
            target = int(rng.choice([c for c in puzzle.neighbours[blank] if c >= 0]))
            state[blank], state[target] = state[target], 0
            blank = target
        shortest = searches()["astar"].run(puzzle, state, heuristic).length
        for name in BIDIRECTIONAL:
            result = searches()[name].run(puzzle, state, heuristic)
            assert result.length == shortest and result.optimal, (name, rows, cols)
