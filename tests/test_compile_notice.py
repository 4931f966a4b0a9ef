"""The compile notice: one line on stderr when a command compiles kernels the disk cache lacks,
nothing once they are cached, nothing off a terminal without --verbose, nothing from the API."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from solvers import compile_notice
from solvers.compile_notice import MIN_NOTICE_SECONDS, about, announcing, search_seconds, shown, term_classes
from solvers.search.registry import searches

START = "8 6 7 2 5 4 3 0 1"  # a 3x3 state 31 moves from the goal: the search takes milliseconds
NOTICE = re.compile(r"^solve-puzzle: compiling search kernels for every heuristic \(once, about \d+ s\)$")


def _solve_puzzle(cache: Path, *options: str) -> subprocess.CompletedProcess:
    """solve-puzzle in a process of its own with NUMBA_CACHE_DIR=`cache`, stderr a pipe."""
    done = subprocess.run([sys.executable, "-m", "solvers.cli", START, "--heuristic", "manhattan", *options],
                          env={**os.environ, "NUMBA_CACHE_DIR": str(cache)}, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert "length     31 (optimal)" in done.stdout
    return done


def _cached_kernels(cache: Path) -> list[Path]:
    return list(cache.rglob("*.nbi"))


def test_a_command_says_once_that_it_compiles_and_nothing_once_cached(tmp_path):
    first = _solve_puzzle(tmp_path, "--verbose")
    lines = first.stderr.splitlines()
    assert len(lines) == 1 and NOTICE.match(lines[0]), first.stderr
    assert _cached_kernels(tmp_path)
    again = _solve_puzzle(tmp_path, "--verbose")
    assert again.stderr == ""


def test_no_notice_off_a_terminal_without_verbose(tmp_path):
    # build-pdb: the quickest command to compile (and so also announced with --verbose)
    done = subprocess.run([sys.executable, "-m", "pdb_build.cli", "--board", "3x3", "--preset", "4-4", "--out",
                           str(tmp_path / "3x3.h5")], env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert _cached_kernels(tmp_path)  # it did compile


def _fresh_kernel(module: str | None = None):
    """A numba function never compiled before in this process (nor cached: no `cache=True`),
    defined as if in `module` where given."""
    def twice(x):
        return 2 * x

    twice.__module__ = module or twice.__module__
    return numba.njit(twice)


def test_a_heuristics_evaluations_have_a_line_of_their_own(capsys):
    evaluation, search = _fresh_kernel(compile_notice.EVALUATIONS_MODULE), _fresh_kernel()

    @numba.njit
    def calling(x):
        return search(x) + 1  # compiled inside this kernel's compile: no line of its own

    with announcing("solve-puzzle", "search kernels for every heuristic", 15, show=True, heuristic_seconds=4):
        assert evaluation(1) == 2
        assert calling(1) == 3
        assert _fresh_kernel(compile_notice.EVALUATIONS_MODULE)(1) == 2  # said already
    assert capsys.readouterr().err == ("solve-puzzle: compiling this heuristic's evaluations (once, about 4 s)\n"
                                       "solve-puzzle: compiling search kernels for every heuristic (once, about 15 s)\n")
    with announcing("solve-puzzle", "search kernels", 15, show=True, heuristic_seconds=MIN_NOTICE_SECONDS - 1):
        assert _fresh_kernel(compile_notice.EVALUATIONS_MODULE)(1) == 2  # too short to say
    assert capsys.readouterr().err == ""


def test_the_line_comes_before_the_first_compile_only(capsys):
    first, second = _fresh_kernel(), _fresh_kernel()
    with announcing("solve-puzzle", "search kernels for this heuristic", 15, show=True):
        assert first(1) == 2
        assert second(1) == 2
        assert first(2) == 4  # compiled already: no compile, no line
    assert capsys.readouterr().err == "solve-puzzle: compiling search kernels for this heuristic (once, about 15 s)\n"


def test_nothing_without_a_compile_without_show_or_outside_a_block(capsys):
    compiled = _fresh_kernel()
    compiled(1)
    with announcing("solve-puzzle", "search kernels", 15, show=True):
        compiled(3)  # loaded: nothing to compile
    with announcing("solve-puzzle", "search kernels", 15, show=False):
        _fresh_kernel()(1)
    with announcing("solve-puzzle", "search kernels", MIN_NOTICE_SECONDS - 1, show=True):
        _fresh_kernel()(1)  # too short to announce
    _fresh_kernel()(1)  # the Python API opens no block
    assert capsys.readouterr().err == ""


def test_shown_with_verbose_or_on_a_terminal_unless_quiet(monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    assert shown(True) and shown(True, quiet=True) and not shown(False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert shown(False) and not shown(False, quiet=True)


@pytest.mark.parametrize("seconds, said", [(0.2, "about 1 s"), (7.4, "about 7 s"), (12, "about 10 s"),
                                           (44, "about 45 s"), (100, "about 2 min")])
def test_seconds_are_rounded(seconds, said):
    assert about(seconds) == said


def test_the_notice_says_when_the_kernels_are_not_kept(capsys):
    with announcing("solve-puzzle", "search kernels for this heuristic", 15, show=True, cacheable=False):
        _fresh_kernel()(1)
    assert "(about 15 s, in every run: these kernels are not cached)" in capsys.readouterr().err


def test_term_classes_read_the_spec_grammar():
    assert term_classes("max(pdb:/a b/x.h5+reflect+dual, LC, sum(pdb:y.h5, manhattan))") == {
        "pdb dual", "linear-conflict", "pdb", "tile-cost"}
    assert term_classes("pdb") == {"pdb"} and term_classes("user:m:f") == {"user"}


def test_every_search_and_kind_has_an_estimate():
    """Each registration names a family or class that COMPILE_SECONDS knows."""
    from solvers.heuristics import kinds

    for name, search in searches().items():
        assert search.family in compile_notice.COMPILE_SECONDS["search"], name
        for spec in ("manhattan", "linear-conflict", "pdb:x.h5+reflect", "pdb:x.h5+reflect+dual"):
            assert search_seconds(name, spec) > 0
    assert kinds.compile_classes() <= set(compile_notice.COMPILE_SECONDS["term"])
