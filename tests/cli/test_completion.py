"""Shell completion through the shells' own protocol: the real `planner` is run as bash, zsh and
fish run it at each Tab (`_PLANNER_COMPLETE=complete_bash` with COMP_WORDS and COMP_CWORD, ...),
never by calling the functions. Commands, options, run IDs for show, done, drop and move, goal
names for --goal; --show-completion and --install-completion (Typer's).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_planner

NEWEST = "20261203T120000000000Z-bbbbbb"
PLANNED = "20261202T120000000000Z-cccccc"  # a saved plan whose run folder is gone
OLDEST = "20261201T120000000000Z-aaaaaa"


@pytest.fixture
def runs(home: Path) -> Path:
    """A home with two runs in tool-records/ and one more saved plan in plans/."""
    for run_id in (OLDEST, NEWEST):
        (home / "tool-records" / run_id).mkdir(parents=True)
    (home / "tool-records" / ".gitkeep").write_text("")
    (home / "plans").mkdir()
    (home / "plans" / f"{PLANNED}.json").write_text("{}")
    (home / "plans" / ".gitkeep").write_text("")
    return home


def tab(*words: str, shell: str = "bash", cwd: Path | None = None) -> list[str]:
    """What the shell offers at Tab after `words` (the last one is what is being typed)."""
    env = {**os.environ, "_PLANNER_COMPLETE": f"complete_{shell}"}
    line = " ".join(["planner", *words])
    if shell == "bash":
        env.update(COMP_WORDS=line, COMP_CWORD=str(len(words)))
    else:
        env["_TYPER_COMPLETE_ARGS"] = line
        if shell == "fish":
            env["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    result = run_planner(cwd=cwd, env=env)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return [line for line in result.stdout.splitlines() if line]  # bash: "" for nothing


def test_commands_and_options_complete(home: Path) -> None:
    assert tab("sh") == ["show"]
    assert {"init", "runs", "show", "done", "drop", "move", "plans"} <= set(tab(""))
    assert tab("show", "--j") == ["--json"]
    assert tab("--dry") == ["--dry-run"]


@pytest.mark.parametrize("command", ["show", "done", "drop", "move"])
def test_run_ids_complete_newest_first(runs: Path, command: str) -> None:
    assert tab(command, "") == [NEWEST, PLANNED, OLDEST]


def test_only_the_run_ids_that_start_with_what_is_typed(runs: Path) -> None:
    assert tab("show", "20261202") == [PLANNED]
    assert tab("drop", "zzz") == []


def test_the_home_on_the_command_line_is_the_one_completed(runs: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "tool-records" / "20270101T000000000000Z-dddddd").mkdir(parents=True)
    assert tab("--home", str(elsewhere), "show", "") == ["20270101T000000000000Z-dddddd"]
    assert tab("show", "--home", str(elsewhere), "") == ["20270101T000000000000Z-dddddd"]
    assert tab("show", "--home", str(tmp_path / "missing"), "") == []  # nothing, no error


def test_zsh_and_fish_get_the_same_run_ids(runs: Path) -> None:
    assert tab("done", "2026120", shell="zsh") == [
        f"_arguments '*: :((\"{NEWEST}\"", f'"{PLANNED}"', f'"{OLDEST}"))\'']
    assert tab("drop", "2026120", shell="fish") == [NEWEST, PLANNED, OLDEST]


def test_goal_names_complete_for_goal(home: Path) -> None:
    help_text = run_planner("--help").stdout
    if "--goal" not in help_text:
        pytest.skip("this planner has no --goal option yet")
    (home / "config.json").write_text(json.dumps({"goals": [
        {"name": "JLPT N2", "date": "2099-07-04", "notes": ["N1"]},
        {"name": "TOEFL", "date": "2099-09-01", "notes": ["N2"]}]}))
    assert tab("-r", "x", "--goal", "j") == ["JLPT N2"]
    assert tab("-r", "x", "--goal", "") == ["JLPT N2", "TOEFL"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_prints_each_shells_script(home: Path, shell: str) -> None:
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    result = run_planner("--show-completion", shell, env=env)
    assert result.returncode == 0, result.stderr
    assert f"_PLANNER_COMPLETE=complete_{shell}" in result.stdout


def test_install_completion_writes_into_the_persons_bash_setup(home: Path) -> None:
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}
    result = run_planner("--install-completion", "bash", env=env)
    assert result.returncode == 0, result.stderr
    user = Path(os.environ["HOME"])
    script = user / ".bash_completions" / "planner.sh"
    assert "_PLANNER_COMPLETE=complete_bash" in script.read_text()
    assert str(script) in (user / ".bashrc").read_text()


def test_install_completion_says_so_in_chinese(home: Path) -> None:
    env = {**os.environ, "_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1", "LANGUAGE": "zh_CN"}
    result = run_planner("--install-completion", "bash", env=env)
    assert result.returncode == 0, result.stderr
    script = Path(os.environ["HOME"]) / ".bash_completions" / "planner.sh"
    assert result.stdout == f"已为 bash 安装补全：{script}\n重新打开终端后补全生效\n"
    assert "_PLANNER_COMPLETE=complete_bash" in script.read_text()


HOSTILE = ("20261204T120000000000Z-\x1b[31mred", "20261204T120000000000Z-x\nrm -rf ~",
           "20261204T120000000000Z-\u202egnp.exe", "20261204T120000000000Z-\x9b2J")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_name_no_one_could_type_is_never_offered(runs: Path, shell: str) -> None:
    for name in HOSTILE:
        (runs / "tool-records" / name).mkdir()
    (runs / "plans" / "20261205T120000000000Z-\u2066x.json").write_text("{}")
    offered = tab("show", "2026120", shell=shell)
    assert not any(char in line for line in offered for char in "\x1b\x9b\u202e\u2066"), offered
    assert not any("rm -rf" in line for line in offered), offered
    if shell != "zsh":  # zsh's answer is one line of its own syntax
        assert offered == [NEWEST, PLANNED, OLDEST]


def test_a_goal_name_no_one_could_type_is_never_offered(home: Path) -> None:
    # The config refuses such a name (so nothing is offered); completion leaves it out too.
    (home / "config.json").write_text(json.dumps({"goals": [
        {"name": "JLPT\x1b[2J N2", "date": "2099-07-04", "notes": ["N1"]},
        {"name": "JLPT\nrm -rf ~", "date": "2099-07-04", "notes": ["N1"]}]}))
    assert tab("-r", "x", "--goal", "j") == []
