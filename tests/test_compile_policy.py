"""Every kernel goes through the one compile policy in solvers/jit.py: no module but jit.py
decorates with numba's jit or passes it options (prose may name them)."""

import ast
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


KERNEL_DECORATORS = {"kernel", "inline_kernel", "parallel_kernel"}
MAX_KERNEL_ARGUMENTS = 12  # kernel data travels in named tuples, not in long argument lists


def kernels_taking_more_than(limit: int, paths) -> list[str]:
    """The kernels (functions decorated by the compile policy) in `paths` with more than
    `limit` parameters, as 'file:name (count)'."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Name) and d.id in KERNEL_DECORATORS for d in node.decorator_list):
                if len(node.args.args) > limit:
                    found.append(f"{path.name}:{node.name} ({len(node.args.args)})")
    return found


def test_no_kernel_takes_a_long_argument_list():
    paths = [*ROOT.glob("solvers/**/*.py"), *ROOT.glob("pdb_build/**/*.py")]
    assert kernels_taking_more_than(MAX_KERNEL_ARGUMENTS, paths) == []


def test_the_argument_rule_sees_an_offence(tmp_path):
    offender = tmp_path / "offender.py"
    parameters = ", ".join(f"a{i}" for i in range(MAX_KERNEL_ARGUMENTS + 1))
    offender.write_text(f"@inline_kernel\ndef long_one({parameters}):\n    return a0\n")
    assert kernels_taking_more_than(MAX_KERNEL_ARGUMENTS, [offender]) == ["offender.py:long_one (13)"]
