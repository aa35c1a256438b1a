"""The command line is a thin edge (README "How the code is laid out"): the domain raises the
failures' family, one module says them and gives the exit codes, one table checks the mode
flags, and no function grows past a screenful.

Read from planner's own source with ast, as the layout test reads its imports; the mode flags
run the command line in this process.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT
from typer.testing import CliRunner

from planner.base.errors import UsageError
from planner.calendar import ics
from planner.cli.app import app
from planner.plans import files

PLANNER = ROOT / "planner"
# What the command line may still catch itself: the handler (exits.py, app.py), completion that
# never fails, the init wizard's one retry of a refused question and its hidden key, a staged
# proposal's run folder told how its save ended, and lines that add to a domain error (plans).
# The rest (fallbacks, rewordings) is the domain's: a "value or problem" function, or the
# error family with the final words. It only goes down.
MAX_EXCEPT_IN_CLI = 19
MAX_FUNCTION_LINES = 80
# Functions over the limit anywhere in planner: none (five were split in part six).
LONG_ELSEWHERE: set[str] = set()
# Where an exit code is given: the handler of the error family and the console-script entry.
EXIT_MODULES = {"exits.py", "app.py"}


def trees(root: Path, folder: str = "") -> dict[str, ast.Module]:
    """Each module under root/folder by its path in root, parsed."""
    return {str(path.relative_to(root)): ast.parse(path.read_text(encoding="utf-8"))
            for path in sorted((root / folder).rglob("*.py"))}


def except_clauses(root: Path) -> list[str]:
    return [f"{name}:{node.lineno}" for name, tree in trees(root, "cli").items()
            for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler)]


def long_functions(root: Path) -> set[str]:
    return {f"{name}:{node.name}" for name, tree in trees(root).items()
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES}


def exit_calls(root: Path) -> list[str]:
    """Each `Exit(...)`, `SystemExit(...)` or `sys.exit(...)` in cli/ outside EXIT_MODULES."""
    found = []
    for name, tree in trees(root, "cli").items():
        if Path(name).name in EXIT_MODULES:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            called = node.func
            word = called.attr if isinstance(called, ast.Attribute) else \
                called.id if isinstance(called, ast.Name) else ""
            if word in ("Exit", "SystemExit", "exit"):
                found.append(f"{name}:{node.lineno}")
    return found


def test_the_command_line_catches_little() -> None:
    found = except_clauses(PLANNER)
    assert len(found) <= MAX_EXCEPT_IN_CLI, found


def test_no_function_over_80_lines() -> None:
    assert long_functions(PLANNER) <= LONG_ELSEWHERE


def test_exit_codes_are_given_in_one_module() -> None:
    assert exit_calls(PLANNER) == []


def test_the_checks_find_an_except_a_long_function_and_an_exit(tmp_path: Path) -> None:
    (tmp_path / "cli").mkdir()
    body = "".join(f"    x = {number}\n" for number in range(MAX_FUNCTION_LINES))
    (tmp_path / "cli" / "long.py").write_text(
        f"import typer\n\n\ndef f():\n{body}    try:\n        pass\n    except OSError:\n"
        "        raise typer.Exit(1)\n", encoding="utf-8")
    assert except_clauses(tmp_path) == ["cli/long.py:87"]
    assert long_functions(tmp_path) == {"cli/long.py:f"}
    assert exit_calls(tmp_path) == ["cli/long.py:88"]


# Mixes of mode flags and the one line each is refused with (exit 2), as the table says them.
REFUSED = [
    (["--demo", "--dry-run"], "choose one of --demo and --dry-run"),
    (["--demo", "-r", "N1"], "--demo uses fixed scripted replies that would not be about your "
     "text; use --request TEXT (live) or --dry-run --request TEXT"),
    (["--continue", "last", "--demo"], "--continue cannot be used with --demo: the demo's "
     "scripted replies cannot go on with a conversation; use --continue with -r TEXT (live) or "
     "add --dry-run"),
    (["--continue", "last", "--dry-run"], "--continue needs your next message: planner "
     "--continue [RUN] -r TEXT"),
    (["--until", "2099-01-01"], "choose a mode: --demo, --dry-run (-n) or --request TEXT (-r); "
     "planner -h shows them all"),
    (["-r", "  "], "--request needs some text"),
    (["--demo", "--until", "2099-01-01"], "--until is for a live run (--request) or --dry-run; "
     "the demo's scripted plan has no deadline"),
    (["--demo", "--goal", "JLPT"], "--goal is for a live run (--request) or --dry-run; the "
     "demo's scripted plan has no goal"),
    (["--dry-run", "--replan"], "--replan needs --goal NAME: the goal whose sessions still "
     "ahead are replaced"),
    (["--dry-run", "--goal", "JLPT", "--until", "2099-01-01"], "--goal sets the deadline itself "
     "(the day before the goal); give --goal or --until, not both"),
    (["--demo", "runs"], "--request, --demo, --dry-run, --continue and --until cannot be "
     "combined with a subcommand"),
    (["--goal", "JLPT", "runs"], "--goal cannot be combined with a subcommand"),
]


@pytest.mark.parametrize(("flags", "line"), REFUSED)
def test_a_mix_of_mode_flags_is_one_line_and_exit_2(tmp_path: Path, flags: list[str],
                                                    line: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    result = CliRunner().invoke(app, ["--home", str(home), *flags])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [f"Error: {line}"]
    assert list(home.iterdir()) == []  # refused before anything is read or written


def test_the_domain_raises_the_family() -> None:
    with pytest.raises(UsageError, match="name a run before #"):
        files.split_ref("#3")
    with pytest.raises(UsageError, match="cannot become a calendar UID"):
        ics.event_uid("../x")
