"""compile_notice.py -- what a command says before numba compiles kernels the disk cache lacks.

numba compiles a kernel for every new combination of argument types (a search once for every
heuristic, a heuristic's evaluations for its tree of kinds, a search for the tree itself where
the heuristic is specialised, a table builder for a pattern size), which takes seconds to a
minute, and then keeps the code in the on-disk cache (kernel_cache.py): the first command that
uses a heuristic, a search or a kind of table is slow without a word, later ones start at once.
A command-line front end runs its work inside `announcing(...)`; the first time numba is about
to compile there, a line goes to stderr, for example

    solve-puzzle: compiling search kernels for every heuristic (once, about 15 s)

Contract:
- At most two lines per `announcing` block: one before the first kernel of the search or the
  command, one before the first of a heuristic's evaluations (heuristics/evaluators.py), told
  apart by the outermost kernel being compiled; and only in the process that opened it (not in
  forked workers; Dask workers never open one).
- The line is printed when, and only when, numba is about to compile: numba's dispatcher raises
  its "numba:compile" event only after the code for the argument types was found neither in
  this process nor in the disk cache (`load_overload` of kernel_cache's cache missed), right
  before it compiles. Nothing is checked ahead, so the notice never compiles anything itself
  and never announces a compile that does not happen; with NUMBA_DISABLE_JIT=1 nothing is
  compiled and nothing is printed. Kernels that are never cached (a search for a user's
  function: user_function.py) are compiled in every process, and announced in every one.
- The seconds are an estimate (COMPILE_SECONDS, measured on one machine), rounded
  (`about`); the line does not promise them. Where the estimate is below MIN_NOTICE_SECONDS
  nothing is printed.
- "once" is said only where the compiled code is kept: not where no cache folder is writable
  (kernel_cache.cache_folder) or the front end says the kernels are not cacheable (a user's
  function: Term.cacheable); the line then says that the compile recurs.
- Printed only where `shown` says: with --verbose, or on a terminal unless --quiet. The Python
  API never opens a block and stays silent.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from collections.abc import Iterable, Iterator

from numba.core import event
from tqdm import tqdm

from solvers.kernel_cache import cache_folder

# Estimated seconds that numba takes to compile a command's kernels from an empty cache: what
# the line says. Measured with `python scripts/bench_compile.py --commands`: a cold run minus a
# warm run of each command on a 3x3 board with 3x3 4-4 tables, in CPU seconds (about the wall
# seconds of an idle machine; here a 2-core x86-64 VM, numba 0.68). Re-measure after a change
# to the kernels or a new numba, and update. A search takes its family's seconds (compiled once
# for every heuristic) and a heuristic's evaluations those of its classes of term
# (term_classes): the largest and half of each other, since a class's kernels, compiled once,
# are often compiled already (max(pdb:FILE+reflect, linear-conflict) took 3.5 s after each
# alone, about 8 s from an empty cache). A search compiled for a heuristic (--specialise) takes
# its family's seconds and all of its classes'.
COMPILE_SECONDS = {
    # a search's own kernels (move pruning's machine, the search, its goal test), by family
    # (each search's registration says its family); an uninformed search compiles no heuristic
    "search": {"depth-first": 6, "best-first": 22, "bidirectional": 25, "uninformed": 9},
    # what each class of term adds: its kernels compiled once (a later heuristic reuses them) and
    # the evaluations that call them, and its evaluation of many states (EVALUATION_SHARE of it)
    "term": {"tile-cost": 2, "gaschnig": 2, "walking-distance": 3, "linear-conflict": 3, "pdb": 5,
             "pdb dual": 7, "user": 4, "learned": 8},
    # what a command compiles besides: solve-batch's runs, compare-heuristics' sampling and
    # exact distances, build-pdb, verify-pdb, make-instances with and without its optimal
    # lengths (IDA* with walking distance)
    "command": {"batch": 2, "compare": 2, "build": 6, "verify": 12, "instances": 1, "instances solved": 6},
}
EVALUATION_SHARE = 0.1  # a heuristic's evaluation kernel against a search that calls it
MIN_NOTICE_SECONDS = 3  # a shorter compile goes unannounced: no one waits long enough to wonder
# LAZY: the kinds and the search registry are imported by the functions that read them, so that
# build-pdb and verify-pdb, which estimate only their own kernels, start without loading every
# kind and search (tests/test_import_graph.py)


def add_verbose_option(parser) -> None:
    """--verbose, which shows the notice also where stderr is not a terminal (every command
    that has it has --quiet too, which hides it on a terminal: cli_support.add_quiet_option)."""
    parser.add_argument("--verbose", action="store_true",
                        help="say on stderr when kernels are first compiled, which takes seconds (said on a terminal "
                        "anyway, unless --quiet)")


def shown(verbose: bool, quiet: bool = False) -> bool:
    """Whether a command prints the notice: with --verbose, else only on a terminal and not with
    --quiet (a log or a pipe gets only what it asked for)."""
    return verbose or (not quiet and sys.stderr.isatty())


def term_classes(spec: str) -> set[str]:
    """The classes of the terms of a heuristic spec (spec.py's grammar; `pdb` alone for
    --heuristic pdb --pdb FILE), as COMPILE_SECONDS["term"] names them: each term's kind says
    its own (kinds.compile_class)."""
    from solvers.heuristics.kinds import compile_class  # here: pdb_build's commands need no kind (LAZY)

    classes = set()
    for token in (t.strip().lower() for t in re.split(r"[(),]", spec)):
        if token in ("", "max", "sum"):
            continue
        classes.add(compile_class("pdb:" if token == "pdb" else token))
    return classes


def search_seconds(algorithm: str, spec: str, specialised: bool = True) -> float:
    """Estimated compile seconds of the search `algorithm`'s own kernels with the heuristic
    `spec`: compiled for its tree (`specialised`: its terms' kernels are compiled into the search),
    or once for every heuristic (the terms are then the evaluations': `evaluation_seconds`)."""
    from solvers.search.registry import search_named  # here: pdb_build's commands need no search (LAZY)

    family = search_named(algorithm).family
    seconds = COMPILE_SECONDS["search"][family]
    if not specialised or family == "uninformed":
        return seconds
    return seconds + sum(COMPILE_SECONDS["term"][c] for c in term_classes(spec))


def evaluation_seconds(algorithm: str, spec: str) -> float:
    """Estimated compile seconds of the evaluations of the heuristic `spec` (its terms' kernels,
    evaluators.py) that the searches compiled once call; none for an uninformed search."""
    from solvers.search.registry import search_named  # LAZY, as above

    if search_named(algorithm).family == "uninformed":
        return 0.0
    seconds = sorted((COMPILE_SECONDS["term"][c] for c in term_classes(spec)), reverse=True)
    return seconds[0] + sum(seconds[1:]) / 2 if seconds else 0.0


def batch_seconds(algorithm: str, spec: str, specialised: bool = True) -> float:
    """Estimated compile seconds of solve-batch's own kernels with `algorithm` and the heuristic
    `spec` (as search_seconds)."""
    return COMPILE_SECONDS["command"]["batch"] + search_seconds(algorithm, spec, specialised)


def compare_seconds(specs: Iterable[str], solving: bool, specialised: bool = True) -> float:
    """Estimated compile seconds of compare-heuristics' own kernels with the heuristics `specs`:
    with instances (`solving`), IDA* for each (`specialised`) or once for all; without, each
    one's evaluation of many states where `specialised` (else the evaluations are compiled:
    `evaluation_seconds`)."""
    specs = list(specs)
    seconds = COMPILE_SECONDS["command"]["compare"]
    if not specialised:
        return seconds + (COMPILE_SECONDS["search"]["depth-first"] if solving else 0)
    if solving:
        return seconds + sum(search_seconds("ida", spec) for spec in specs)
    return seconds + EVALUATION_SHARE * sum(evaluation_seconds("ida", spec) for spec in specs)


def build_seconds() -> float:
    """Estimated compile seconds of build-pdb's table builder."""
    return COMPILE_SECONDS["command"]["build"]


def verify_seconds() -> float:
    """Estimated compile seconds of verify-pdb's checks."""
    return COMPILE_SECONDS["command"]["verify"]


def instances_seconds(solving: bool) -> float:
    """Estimated compile seconds of make-instances, with its optimal lengths if `solving`."""
    return COMPILE_SECONDS["command"]["instances solved" if solving else "instances"]


def about(seconds: float) -> str:
    """`seconds` as the line says them: "about 5 s", "about 15 s", "about 2 min"."""
    if seconds >= 90:
        return f"about {max(2, round(seconds / 60))} min"
    if seconds >= 10:
        return f"about {5 * max(2, round(seconds / 5))} s"
    return f"about {max(1, round(seconds))} s"


@contextlib.contextmanager
def announcing(prog: str, what: str, seconds: float, show: bool, cacheable: bool = True,
               heuristic_seconds: float = 0.0, heuristic_cacheable: bool = True) -> Iterator[None]:
    """Inside the block, print `prog: compiling <what> (once, about N s)` to stderr before the
    first kernel numba compiles in this process other than a heuristic's evaluations, and
    `prog: compiling this heuristic's evaluations (once, about M s)` before the first of those
    (evaluators.py; `heuristic_seconds` M), each where it is compiled (see the module
    docstring); nothing if not `show`, and no line whose seconds are below MIN_NOTICE_SECONDS.
    Where the code is not kept (`cacheable` False for the kernels, `heuristic_cacheable` for the
    evaluations, or no writable cache folder) the lines say so instead of "once"."""
    if not show:
        yield
        return
    lines = {kind: f"{prog}: compiling {named} ({_when(seconds_of, kept)})"
             for kind, named, seconds_of, kept in (
                 ("kernels", what, seconds, cacheable),
                 ("evaluations", "this heuristic's evaluations", heuristic_seconds, heuristic_cacheable))
             if seconds_of >= MIN_NOTICE_SECONDS}
    if not lines:
        yield
        return
    with event.install_listener("numba:compile", _Notice(lines)):
        yield


def _when(seconds: float, cacheable: bool) -> str:
    if not cacheable:
        return f"{about(seconds)}, in every run: these kernels are not cached"
    if cache_folder() is None:
        return f"{about(seconds)}, in every run: no cache folder is writable"
    return f"once, {about(seconds)}"


EVALUATIONS_MODULE = "solvers.heuristics.evaluators"  # where the kernels of a heuristic's evaluations are


class _Notice(event.Listener):
    """numba's event listener that prints each of `lines` (by kind: "kernels", "evaluations") at
    the first compile in this process of a kernel of that kind, told by the outermost kernel
    being compiled (a kernel compiles the kernels it calls inside its own compile)."""

    def __init__(self, lines: dict[str, str]):
        self.lines = dict(lines)
        self.process = os.getpid()
        self.lock = threading.Lock()
        self.depth = threading.local()

    def on_start(self, started) -> None:
        if os.getpid() != self.process:
            return
        depth = getattr(self.depth, "value", 0)
        self.depth.value = depth + 1
        if depth:
            return
        function = getattr(started.data.get("dispatcher"), "py_func", None)
        kind = "evaluations" if getattr(function, "__module__", None) == EVALUATIONS_MODULE else "kernels"
        with self.lock:
            line = self.lines.pop(kind, None)
        if line is None:
            return
        try:
            with tqdm.external_write_mode(file=sys.stderr):  # above any progress bar
                print(line, file=sys.stderr, flush=True)
        except (OSError, ValueError):  # stderr closed: the notice is never worth an error
            pass

    def on_end(self, ended) -> None:
        if os.getpid() == self.process:
            self.depth.value = max(0, getattr(self.depth, "value", 1) - 1)
