"""Every kernel goes through the one compile policy in solvers/jit.py: no module but jit.py
decorates with numba's jit or passes it options (prose may name them)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_module_sets_numba_options_itself():
    offenders = []
    for path in [*ROOT.glob("solvers/**/*.py"), *ROOT.glob("pdb_build/**/*.py"), *ROOT.glob("scripts/*.py")]:
        if path.name == "jit.py":
            continue
        text = path.read_text()
        if re.search(r"^\s*@(numba\.)?n?jit\b|(^|[=(\s])(numba\.)?n?jit\(|fastmath\s*=", text, re.MULTILINE):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
