"""entry.py -- where the console scripts start: Ctrl-C and SIGTERM are one line from the first moment.

A command spends a good part of a second importing numpy, numba, h5py and its own modules
before its body runs under `cli_support.run_guarded`, which reports an interrupt as one line and
exit status 130. Each function here installs the same handling first (solvers/interrupts.py,
which needs only the standard library), then imports its command and runs it: Ctrl-C or SIGTERM
while the command's modules load or its options are parsed ends it with "<prog>: interrupted"
and status 130, and so does one that comes after its body has finished, while the process shuts
down. Only the interpreter's own start-up, before this module is imported, is beyond reach.

pyproject.toml's [project.scripts] name these functions; `python -m solvers.cli` and
`python -m pdb_build.cli` come here too. The commands' own functions stay in solvers/cli.py and
pdb_build/cli.py for Python callers (they take an argument list and return the status).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable

from solvers import interrupts


def _command(prog: str, module: str) -> Callable[[], int]:
    """The console script of command `prog`, whose main function in `module` is named after it."""
    function = prog.replace("-", "_") + "_main"

    def main() -> int:
        return _run(prog, module, function)

    main.__name__ = main.__qualname__ = function
    return main


solve_puzzle_main = _command("solve-puzzle", "solvers.cli")
solve_batch_main = _command("solve-batch", "solvers.cli")
compare_heuristics_main = _command("compare-heuristics", "solvers.cli")
make_instances_main = _command("make-instances", "solvers.cli")
learn_heuristic_main = _command("learn-heuristic", "solvers.cli")
build_pdb_main = _command("build-pdb", "pdb_build.cli")
verify_pdb_main = _command("verify-pdb", "pdb_build.cli")


def _run(prog: str, module: str, function: str) -> int:
    """The exit status of command `prog`, whose main function is `function` of `module`, run on
    sys.argv with interrupts handled from before the import of `module` to the process's end.
    Another error while an interrupt is pending is what the interrupt broke (an import cut
    short), reported as the interrupt; without one it is a bug, raised with its traceback."""
    interrupts.install()
    try:
        try:
            main = getattr(importlib.import_module(module), function)
            interrupts.raise_if_requested()  # one that a finaliser run by an import swallowed
            return main()
        finally:  # the command's output is complete and flushed (run_guarded) or it never began
            interrupts.exit_at_once(f"{prog}: interrupted")
    except KeyboardInterrupt:  # before the command's own handling began, or between its end and ours
        return _interrupted(prog)
    except Exception:
        if not interrupts.requested():
            raise
        return _interrupted(prog)


def _interrupted(prog: str) -> int:
    print(f"{prog}: interrupted", file=sys.stderr)
    return interrupts.EXIT_INTERRUPTED
