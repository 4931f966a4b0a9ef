"""The layers hold, read from every module's imports: the search layer never imports the Dask
layer, the batch or the commands; the workflows never import the commands' support; no
module imports another module's private names (they may change without notice)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = [*ROOT.glob("solvers/**/*.py"), *ROOT.glob("pdb_build/**/*.py"), *ROOT.glob("scripts/*.py")]

# module prefixes a layer must not import (prefix match on dotted names)
FORBIDDEN = {
    "solvers/search/": ("solvers.distributed", "solvers.batch", "solvers.cli", "solvers.commands", "solvers.cli_support",
                        "solvers.experiments", "solvers.solve", "distributed", "dask"),
    "solvers/heuristics/": ("solvers.search", "solvers.distributed", "solvers.batch", "solvers.cli", "solvers.commands",
                            "solvers.cli_support", "solvers.experiments", "solvers.solve"),
    "pdb_build/": ("solvers.search", "solvers.distributed", "solvers.batch", "solvers.experiments"),
}
WORKFLOWS = ("solvers/batch.py", "solvers/experiments.py", "solvers/solve.py", "solvers/reports.py",
             "solvers/make_instances.py", "solvers/instances.py", "solvers/distributed.py")
COMMAND_SUPPORT = ("solvers.cli", "solvers.commands", "solvers.cli_support")


def imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every import in `path`, at any depth (imports inside functions too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, [alias.name for alias in node.names]))
    return found


def _matches(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_layers_import_only_what_lies_below_them():
    offenders = []
    for path in PRODUCT:
        relative = path.relative_to(ROOT).as_posix()
        forbidden = [p for folder, prefixes in FORBIDDEN.items() if relative.startswith(folder) for p in prefixes]
        if relative in WORKFLOWS:
            forbidden += COMMAND_SUPPORT
        offenders += [f"{relative} imports {module}" for module, _ in imports(path) if _matches(module, tuple(forbidden))]
    assert offenders == []


def test_no_module_imports_another_modules_private_names():
    offenders = []
    for path in PRODUCT:
        for module, names in imports(path):
            if module.startswith(("solvers", "pdb_build")):
                offenders += [f"{path.relative_to(ROOT).as_posix()}: {name} from {module}"
                              for name in names if name.startswith("_")]
    assert offenders == []


def test_the_rules_see_an_offence():
    """The checks read what they claim to: a private import and a forbidden one are found."""
    sample = ROOT / "tests" / "floors_sample.txt"
    try:
        sample.write_text("def f():\n    from solvers.distributed import _settle\n")
        assert imports(sample) == [("solvers.distributed", ["_settle"])]
        assert _matches("solvers.distributed", FORBIDDEN["solvers/search/"])
    finally:
        sample.unlink()
