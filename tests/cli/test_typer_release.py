"""planner/cli/help.py translates Click's help and usage errors by patching Typer's own copy of
Click (typer._click) where it has no public API: a Typer release outside the range it was
written for fails here, naming what help.py relies on, before a person sees English help."""

import importlib
import importlib.metadata
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
# The Typer releases help.py was written for (each checked against the private parts below).
WRITTEN_FOR = ((0, 26), (0, 29))
# What help.py (and app.py) reach past Typer's public API for: module, then attribute path.
PRIVATE = (
    ("typer.core", "_"),
    ("typer.core", "TyperGroup"),
    ("typer.core", "TyperOption.get_help_record"),
    ("typer.core", "TyperArgument.get_help_record"),
    ("typer.main", "get_command"),
    ("typer._completion_shared", "install"),
    ("typer._click", "Context"),
    ("typer._click.formatting", "HelpFormatter.write_usage"),
    ("typer._click.formatting", "HelpFormatter.write_heading"),
    ("typer._click.formatting", "term_len"),
    ("typer._click.exceptions", "UsageError.show"),
    ("typer._click.types", "_NumberRangeBase._describe_range"),
    ("typer._click.utils", "echo"),
    ("typer._click._textwrap", "TextWrapper._split"),
    ("typer._click._textwrap", "TextWrapper._wrap_chunks"),
    ("typer._click.core", "Command.get_help_option"),
    ("typer._click.core", "Parameter.make_metavar"),
)


def _major_minor(version: str) -> tuple[int, int]:
    major, minor = re.match(r"(\d+)\.(\d+)", version).groups()  # type: ignore[union-attr]
    return int(major), int(minor)


def test_the_installed_typer_is_one_help_py_was_written_for() -> None:
    version = importlib.metadata.version("typer")
    low, high = WRITTEN_FOR
    assert low <= _major_minor(version) < high, (
        f"Typer {version} is outside {low}–{high}: check planner/cli/help.py's patches of "
        f"{', '.join(f'{module}.{name}' for module, name in PRIVATE)} against it, then widen "
        "WRITTEN_FOR here and the bound in pyproject.toml")


def test_pyproject_bounds_typer_to_that_range_and_rich_too() -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["dependencies"]
    (low, high) = WRITTEN_FOR
    assert f"typer>={low[0]}.{low[1]},<{high[0]}.{high[1]}" in dependencies
    assert any(re.fullmatch(r"rich>=[\d.]+,<\d+", each) for each in dependencies)


@pytest.mark.parametrize(("module", "path"), PRIVATE, ids=[".".join(each) for each in PRIVATE])
def test_each_private_part_help_py_patches_is_there(module: str, path: str) -> None:
    found: object = importlib.import_module(module)
    for name in path.split("."):
        assert hasattr(found, name), f"{module}.{path} is gone: planner/cli/help.py needs it"
        found = getattr(found, name)
