"""The test suite's own shape: test modules import only the shared helpers beside conftest.py,
never one another; the helpers are found through `tests` alone; one way to run planner
(conftest's run_planner); test files named for what they test."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from conftest import ROOT

TESTS = ROOT / "tests"
TEST_FILES = sorted(TESTS.rglob("test_*.py"))
# Files once named for a milestone, not for what they test.
MILESTONES = {"test_everyday_commands", "test_ui_shape", "test_walkthrough_zh"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports (top level or inside a function), with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def test_there_are_test_files_to_check() -> None:
    assert len(TEST_FILES) > 100, TEST_FILES


def test_no_test_module_imports_another() -> None:
    found = [f"{path.relative_to(ROOT)}:{line} imports {module}"
             for path in sorted(TESTS.rglob("*.py")) for line, module in imported_modules(path)
             if module.split(".")[0].startswith("test_")]
    assert found == [], "move what is shared into a helper module beside conftest.py"


def test_the_helpers_are_found_through_tests_alone() -> None:
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert settings["tool"]["pytest"]["ini_options"]["pythonpath"] == ["tests"]


def test_test_module_names_are_unique() -> None:
    # Without a path entry for each folder, pytest imports every test module by its bare name.
    names = [path.stem for path in TEST_FILES]
    assert sorted({name for name in names if names.count(name) > 1}) == []


def test_one_way_to_run_planner() -> None:
    own = [f"{path.relative_to(ROOT)}:{node.lineno} defines {node.name}()"
           for path in TEST_FILES for node in ast.parse(path.read_text(encoding="utf-8")).body
           if isinstance(node, ast.FunctionDef) and node.name.startswith("planner")]
    assert own == [], "call conftest's run_planner (env_with, succeeded) instead"


def test_no_test_file_is_named_for_a_milestone() -> None:
    assert sorted(path.stem for path in TEST_FILES if path.stem in MILESTONES) == []
