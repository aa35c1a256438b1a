"""The house by domain (README "How the code is laid out"): folders in layers, no circle, no module
over 600 lines.

Read from planner's own source with ast, every import counted: at the top, inside functions and
under TYPE_CHECKING alike, so a knot cannot hide in a lazy import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

PLANNER = ROOT / "planner"
# Bottom to top, as the README's architecture section lists them: a folder imports only folders
# below it (and the package's own __init__, for the version).
LAYERS = ["base", "notes", "plans", "memory", "calendar", "model", "records", "conversation", "ui",
          "agents", "cli"]
MAX_LINES = 600


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PLANNER.rglob("*.py"))}


def imported(path: Path) -> set[str]:
    """The planner modules `path` imports, anywhere in it."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            # `from planner.x import y`: y is a module when there is one by that name.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target.startswith("planner") and target != name:
                found.add(target)
    return found


GRAPH = {name: imported(path) for name, path in MODULES.items()}


def folder(name: str) -> str | None:
    """The folder a module lives in; None for planner's own __init__ and __main__."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def test_nothing_at_the_top_but_init_and_main() -> None:
    assert sorted(path.name for path in PLANNER.glob("*.py")) == ["__init__.py", "__main__.py"]
    folders = sorted(path.name for path in PLANNER.iterdir()
                     if path.is_dir() and (path / "__init__.py").exists())
    assert folders == sorted(LAYERS)


def upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every import of a module in a folder from a folder above it."""
    return [(name, target) for name, targets in sorted(graph.items()) for target in targets
            if folder(name) and folder(target)
            and LAYERS.index(folder(target)) > LAYERS.index(folder(name))]  # type: ignore[arg-type]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle a depth-first walk of the graph meets, as the modules along it."""
    found = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph.get(name, ())):
            if state.get(target) == 1:
                found.append([*path[path.index(target):], target])
            elif target not in state:
                visit(target, [*path, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return found


def test_every_folder_imports_only_folders_below_it() -> None:
    assert upward(GRAPH) == []


def test_no_circle_between_modules() -> None:
    assert circles(GRAPH) == []


def test_the_checks_find_a_circle_and_an_upward_import() -> None:
    # A check that cannot fail proves nothing: the same functions on a made-up graph.
    graph = {"planner.base.a": {"planner.ui.b"}, "planner.ui.b": {"planner.base.a"}}
    assert upward(graph) == [("planner.base.a", "planner.ui.b")]
    assert circles(graph) == [["planner.base.a", "planner.ui.b", "planner.base.a"]]


def test_an_import_inside_a_function_counts() -> None:
    reads = imported(PLANNER / "cli" / "run.py")
    assert "planner.conversation.flow" in reads  # imported inside _run only


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_over_600_lines(name: str) -> None:
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{name}: {lines} lines"


def test_json_from_outside_is_read_by_the_strict_reader_only() -> None:
    readers = [name for name, path in MODULES.items()
               if name != "planner.base.strictjson"
               and any(isinstance(node, ast.Attribute) and node.attr in ("loads", "load")
                       and isinstance(node.value, ast.Name) and node.value.id == "json"
                       for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))))]
    assert readers == []


# `_` and `N_` are gettext's names, meant to be imported everywhere.
GETTEXT = {"_", "N_"}


def private_imports(path: Path) -> list[str]:
    """`module._name` for every private name `path` imports from another planner module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("planner"):
            found += [f"{node.module}.{alias.name}" for alias in node.names
                      if alias.name.startswith("_") and not alias.name.startswith("__")
                      and alias.name not in GETTEXT]
    return found


def test_what_modules_share_is_public() -> None:
    shared = {name: found for name, path in MODULES.items() if (found := private_imports(path))}
    assert shared == {}


def test_a_private_import_is_found(tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_text("def f():\n    from planner.cli.common import _usage, _\n", encoding="utf-8")
    assert private_imports(path) == ["planner.cli.common._usage"]


def test_only_the_wire_reads_the_api_setting() -> None:
    """The wire is chosen once (planner.model.wire); no other module compares `api` values."""
    comparing = []
    for name, path in MODULES.items():
        if name in ("planner.model.wire", "planner.base.config", "planner.base.providers"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                words = [ast.unparse(part) for part in (node.left, *node.comparators)]
                if any(word.endswith(".api") or word in ("'responses'", "'chat'")
                       for word in words):
                    comparing.append(f"{name}: {ast.unparse(node)}")
    assert comparing == []
