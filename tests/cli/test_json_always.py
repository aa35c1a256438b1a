"""Machine output stays machine output: every command's `--json` answers JSON on stdout in every
case, a failure and a refusal included, with its one line on stderr as without --json.

A failure is `{"error": LINE, "exit_code": N}` (LINE: the failure's line in English, without
`Error: `; null for a mistake in the command line itself, which Click reports); `fit --json`
that fits nothing is `{"adopted": false, "reason": LINE, ...}`, exit 0.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_planner, snapshot

pytestmark = pytest.mark.slow  # a planner process per case

# Every command with --json (the test below checks the list is whole).
JSON_COMMANDS = ["goals", "runs", "show", "costs", "fit", "forecast", "notes", "where", "plans",
                 "week", "done", "reviews", "due", "plan"]
# The commands that read config.json.
READ_CONFIG = ["goals", "runs", "show", "costs", "forecast", "notes", "week", "done", "due",
               "plan"]


def answered(result, code: int) -> dict:
    """The JSON on stdout of a command that failed with `code`, its one line on stderr."""
    assert "Traceback" not in result.stderr
    assert result.returncode == code, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    data = json.loads(result.stdout)
    assert data == {"error": lines[0].removeprefix("Error: "), "exit_code": code}, data
    return data


def test_the_list_holds_every_command_with_json() -> None:
    import typer

    from planner.cli.app import app

    command = typer.main.get_command(app)
    having = sorted(name for name, sub in command.commands.items()
                    if any("--json" in param.opts for param in sub.params))
    assert having == sorted(JSON_COMMANDS)


@pytest.mark.parametrize("name", JSON_COMMANDS)
def test_a_missing_home_is_json_on_stdout(name: str, home: Path) -> None:
    before = snapshot(home)
    data = answered(run_planner(name, "--json", "--home", str(home / "missing")), 2)
    assert data["error"].startswith(f"--home {home / 'missing'}: no such folder")
    assert snapshot(home) == before


@pytest.mark.parametrize("name", READ_CONFIG)
def test_a_damaged_config_is_json_on_stdout(name: str, home: Path) -> None:
    (home / "config.json").write_text("{", encoding="utf-8")
    before = snapshot(home)
    data = answered(run_planner(name, "--json"), 2)
    assert data["error"].startswith("config.json: is not valid JSON")
    assert snapshot(home) == before


def test_show_without_runs_is_json(home: Path) -> None:
    data = answered(run_planner("show", "--json"), 2)
    assert data["error"].startswith("no runs in tool-records/ yet")


def test_done_without_a_plan_is_json(home: Path) -> None:
    before = snapshot(home)
    answered(run_planner("done", "--json"), 2)
    assert snapshot(home) == before


def test_fit_with_too_few_reviews_is_a_refusal_in_json(home: Path) -> None:
    before = snapshot(home)
    result = run_planner("fit", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    line = "0 counting reviews; a fit needs at least 50: 50 more. Nothing was changed."
    assert (data["adopted"], data["reason"], data["reviews"]) == (False, line, 0)
    # The line itself, as without --json, on stderr: stdout is the JSON alone.
    assert result.stderr.splitlines() == [line]
    assert snapshot(home) == before  # no memory.json written


def test_fit_refusal_without_json_is_the_line_on_stdout(home: Path) -> None:
    result = run_planner("fit")
    assert result.returncode == 0
    assert result.stdout == ("0 counting reviews; a fit needs at least 50: 50 more. Nothing was "
                             "changed.\n")


def test_a_mistake_in_the_command_line_is_json_too(home: Path) -> None:
    result = run_planner("due", "--days", "x", "--json")
    assert result.returncode == 2
    assert json.loads(result.stdout) == {"error": None, "exit_code": 2}
    assert "Invalid value for '--days'" in result.stderr


def test_without_json_a_failure_writes_nothing_on_stdout(home: Path) -> None:
    result = run_planner("show")
    assert result.returncode == 2 and result.stdout == ""
    # --json as the text of an option is not the flag.
    result = run_planner("--request", "--json", env={**os.environ, "DEEPSEEK_API_KEY": ""})
    assert result.returncode == 2 and result.stdout == ""


def test_the_json_error_is_english_when_the_screen_is_chinese(home: Path) -> None:
    result = run_planner("show", "--json", env={**os.environ, "LANGUAGE": "zh"})
    assert result.returncode == 2
    assert json.loads(result.stdout)["error"].startswith("no runs in tool-records/ yet")
    assert result.stderr.startswith("错误")
