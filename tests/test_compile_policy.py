"""Every kernel goes through the one compile policy in solvers/jit.py."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_module_sets_numba_options_itself():
    offenders = []
    for path in [*ROOT.glob("solvers/**/*.py"), *ROOT.glob("pdb_build/**/*.py"), *ROOT.glob("scripts/*.py")]:
        if path.name == "jit.py":
            continue
        text = path.read_text()
        if "njit" in text or "fastmath" in text or "numba.jit" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
