"""One folder for everything (README "Looking back"): --home and PLANNER_HOME hold the config,
the notes and the records; a home that is missing, a file or badly configured is named.

Every case runs the installed `planner` with no terminal (stdin closed, a new session) and
checks the exit code, the message and what is, and is not, on disk.
"""


from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import all_files, env_with, one_error, run_dirs, run_planner, snapshot
from run_records import (
    COMMANDS,
)

# --- one folder for everything: --home and PLANNER_HOME ------------------------------------------


def other_home(tmp_path: Path) -> Path:
    """A home folder with its own config.json (model, currency) and notes.json."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({
        "model": "home-model", "extra_body": {},
        "prices": {"currency": "CNY"},
    }))
    (other / "notes.json").write_text(json.dumps(
        [{"id": "H1", "title": "家里的笔记", "text": "只在这个家里"}], ensure_ascii=False))
    return other


@pytest.mark.slow
@pytest.mark.parametrize("how", ["--home", "PLANNER_HOME"])
def test_the_home_holds_config_notes_and_records(home: Path, tmp_path: Path, how: str) -> None:
    other = other_home(tmp_path)
    # The current folder's config.json must not be read when another home is given.
    (home / "config.json").write_text(json.dumps({"model": "cwd-model"}))
    before_cwd = snapshot(home)

    def run(*args: str) -> subprocess.CompletedProcess:
        if how == "--home":
            return run_planner("--home", str(other), *args)
        return run_planner(*args, env=env_with(PLANNER_HOME=str(other)))

    body = json.loads(run("-n").stdout)
    assert body["model"] == "home-model" and "thinking" not in body
    assert "H1: 家里的笔记" in body["messages"][0]["content"]
    assert run("--demo").returncode == 0
    assert len(run_dirs(other)) == 1 and not (home / "tool-records").exists()
    (row,) = json.loads(run("runs", "--json").stdout)
    assert row["run_id"] == run_dirs(other)[0].name and row["currency"] == "CNY"
    assert json.loads(run("costs", "--json").stdout)["currency"] == "CNY"
    assert json.loads(run("show", "--json").stdout)["currency"] == "CNY"
    # --config still wins over the home's config.json.
    explicit = tmp_path / "explicit.json"
    explicit.write_text(json.dumps({"model": "explicit-model"}))
    assert json.loads(run("-n", "-c", str(explicit)).stdout)["model"] == "explicit-model"
    assert snapshot(home) == before_cwd


def test_a_bad_home_config_is_named(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text('{"modle": "x"}')
    result = run_planner("-n", env=env_with(PLANNER_HOME=str(other)))
    one_error(result, 2, f"{other / 'config.json'}: unknown key 'modle'")
    assert result.stdout == ""


def test_the_home_option_wins_over_planner_home(home: Path, tmp_path: Path) -> None:
    other = other_home(tmp_path)
    result = run_planner("--home", str(home), "-n", env=env_with(PLANNER_HOME=str(other)))
    assert json.loads(result.stdout)["model"] == "deepseek-v4-flash"


@pytest.mark.parametrize(
    "args",
    [["--demo"], ["--dry-run"], ["-r", "review N1"], ["runs"], ["show"], ["costs"], ["plans"],
     ["export", "--ics"], ["notes"]],
    ids=lambda args: args[0])
def test_a_home_that_does_not_exist_is_named(home: Path, tmp_path: Path,
                                             args: list[str]) -> None:
    missing = tmp_path / "typo"
    result = run_planner("--home", str(missing), *args)
    one_error(result, 2, f"--home {missing}: no such folder")
    assert "free space" not in result.stderr
    result = run_planner(*args, env=env_with(PLANNER_HOME=str(missing)))
    one_error(result, 2, f"PLANNER_HOME={missing}: no such folder")
    if args[0] in COMMANDS:
        result = run_planner(args[0], "--home", str(missing), *args[1:])
        one_error(result, 2, f"--home {missing}: no such folder")
    assert not missing.exists() and all_files(home) == []


def test_a_home_that_is_a_file_is_named(home: Path) -> None:
    (home / "afile").write_text("x")
    before = snapshot(home)
    one_error(run_planner("--home", "afile", "--demo"), 2, "--home afile: is not a folder")
    assert snapshot(home) == before
