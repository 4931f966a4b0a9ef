"""The package modules import one another without a circle: the graph of every import statement
of solvers/ and pdb_build/ (at module level or inside a function, where a circle is only
hidden) has no cycle, so any module can be imported first, none reads a name from a
half-imported module, and the layers stay layers. The registries (kinds.py, registry.py)
import their members by name, after every module is whole."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _module_name(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name.removesuffix(".__init__")


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package modules that `path` imports anywhere (a package's __init__ for `from package
    import name` where name is not a module of it)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                      for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found & modules


def _graph() -> dict[str, set[str]]:
    paths = [*ROOT.glob("solvers/**/*.py"), *ROOT.glob("pdb_build/**/*.py")]
    modules = {_module_name(p): p for p in paths}
    return {name: _imports(path, set(modules)) - {name} for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (each holds a circle)."""
    order, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        on_stack.add(module)
        for other in sorted(graph[module]):
            if other not in order:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], order[other])
        if low[module] == order[module]:
            component = []
            while not component or component[-1] != module:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return found


def test_the_package_modules_import_one_another_without_a_circle():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_table_commands_start_without_the_kinds_or_the_searches():
    """build-pdb and verify-pdb estimate only their own compile: importing their front end loads
    no heuristic kind and no search (each would cost their start-up for nothing)."""
    code = ("import sys, pdb_build.cli; print(sorted(m for m in sys.modules "
            "if m.startswith(('solvers.heuristics', 'solvers.search'))))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
