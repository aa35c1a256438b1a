"""A home in the current folder is said once: when the current folder is the home only because it
holds planner's folders, and the data folder has a config.json too, one line (the first time in
that folder) says which home is used and how to choose the other; planner where says it always."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_planner

LINE = "The home is the current folder (it holds {found}), not your data folder {data}"


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A project folder holding plans/, and a data folder (XDG) with a config.json."""
    project = tmp_path / "project"
    (project / "plans").mkdir(parents=True)
    user = tmp_path / "user"
    user.mkdir(exist_ok=True)
    data = tmp_path / "xdg" / "planner"
    data.mkdir(parents=True)
    (data / "config.json").write_text('{"daily_minutes": 40}')
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("PLANNER_HOME", raising=False)
    monkeypatch.setenv("LANGUAGE", "en")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "400")
    return {"project": project, "data": data, "root": tmp_path}


def runs(*args: str) -> tuple[str, list]:
    result = run_planner(*args, "runs", "--json")
    assert result.returncode == 0, result.stderr
    return result.stderr, json.loads(result.stdout)


def test_said_once_in_a_folder(place: dict[str, Path]) -> None:
    said, rows = runs()
    assert rows == []
    assert said.count("\n") == 1 and said.startswith(
        LINE.format(found="plans/", data=place["data"]))
    assert f"planner --home {place['data']} uses that one" in said
    # Once: the next commands in this folder are quiet.
    assert runs()[0] == ""
    assert run_planner("plans").stderr == ""
    # Remembered in the data folder, never in the project folder.
    assert sorted(os.listdir(place["project"])) == ["plans"]
    remembered = (place["data"] / ".planner" / "other-home-said").read_text().split("\n")
    assert str(place["project"]) in remembered
    # Another such folder: said there too, once.
    other = place["root"] / "other"
    (other / "notes").mkdir(parents=True)
    first = run_planner("runs", cwd=other)
    assert first.stderr.startswith(LINE.format(found="notes/", data=place["data"]))
    assert run_planner("runs", cwd=other).stderr == ""


def test_where_says_it_every_time(place: dict[str, Path]) -> None:
    for _ in range(2):
        result = run_planner("where", "--json")
        assert result.returncode == 0 and result.stderr == ""
        report = json.loads(result.stdout)
        assert report["rule"] == "current" and report["other_home"] == str(place["data"])
        assert report["why"] == (
            "the current folder is a planner home (it holds plans/); your data folder "
            f"{place['data']} has a config.json too: planner --home {place['data']} uses that "
            "one")
    # where did not use up the one line of the other commands.
    assert LINE.format(found="plans/", data=place["data"]) in runs()[0]


@pytest.mark.parametrize("case", ["config here", "no config there", "--home", "PLANNER_HOME",
                                  "data folder is here"])
def test_not_said_when_there_is_no_choice(place: dict[str, Path], case: str) -> None:
    env = None
    args: tuple[str, ...] = ()
    cwd = None
    if case == "config here":
        (place["project"] / "config.json").write_text("{}")
    elif case == "no config there":
        (place["data"] / "config.json").unlink()
    elif case == "--home":
        args = ("--home", str(place["project"]))
    elif case == "PLANNER_HOME":
        env = {**os.environ, "PLANNER_HOME": str(place["project"])}
    else:
        cwd = place["data"]
        (place["data"] / "plans").mkdir()
    result = run_planner(*args, "runs", "--json", env=env, cwd=cwd)
    assert result.returncode == 0 and result.stderr == ""
    report = json.loads(run_planner(*args, "where", "--json", env=env, cwd=cwd).stdout)
    assert report["other_home"] is None and "config.json too" not in report["why"]


def test_the_line_in_chinese(place: dict[str, Path]) -> None:
    result = run_planner("runs", env={**os.environ, "LANGUAGE": "zh"})
    assert result.returncode == 0
    assert result.stderr.startswith("主文件夹是当前文件夹（其中有 plans/），不是你的数据文件夹")
    assert f"planner --home {place['data']} 会使用那一个" in result.stderr


@pytest.mark.parametrize("xdg", [None, "", "  ", "/srv/data"])
def test_the_data_folder_looked_at_is_platformdirs_answer(xdg: str | None,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    from planner.base.home import data_folder, user_folder

    monkeypatch.setenv("HOME", str(tmp_path))
    if xdg is None:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
    assert data_folder() == user_folder()
