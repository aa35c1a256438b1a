"""Which folder is the home (README "Going on with a conversation"): each rule, their order, the
data folder made only on the
first write (0700), read-only commands that create nothing, and `planner where`.

Every test works from a bare folder that is not the home, with HOME and XDG_DATA_HOME pointed
at temporary folders (the `home` fixture already does; these tests set their own).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from conftest import run_dirs, run_planner, snapshot
from typer.testing import CliRunner

from planner.cli.app import app

runner = CliRunner()


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A bare current folder, a user folder and a data folder of its own (not created)."""
    bare = tmp_path / "elsewhere"
    bare.mkdir()
    user = tmp_path / "someone"
    user.mkdir()
    monkeypatch.chdir(bare)
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return {"bare": bare, "user": user, "data": tmp_path / "xdg" / "planner", "root": tmp_path}


def where(*args: str) -> dict:
    """`planner where --json` in this process (the options given before `where`)."""
    result = runner.invoke(app, [*args, "where", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_outside_any_home_the_data_folder_is_the_home(place: dict[str, Path]) -> None:
    before = snapshot(place["root"])
    report = where()
    assert report["rule"] == "user" and report["home"] == str(place["data"])
    assert report["home_exists"] is False
    assert "not a planner home" in report["why"]
    assert report["config"] == str(place["data"] / "config.json")
    assert report["index"] == str(place["data"] / ".planner" / "notes-index.sqlite3")
    assert report["notes_source"] == "samples" and report["notes"] is None
    # Looking is not writing: the data folder is not made.
    assert snapshot(place["root"]) == before and not place["data"].exists()


def test_without_xdg_data_home_it_is_under_local_share(place: dict[str, Path],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_DATA_HOME")
    report = where()
    assert report["home"] == str(place["user"] / ".local" / "share" / "planner")


@pytest.mark.parametrize("marker", ["config.json", "plans", "tool-records", "notes"])
def test_a_folder_holding_a_marker_is_the_home(place: dict[str, Path], marker: str) -> None:
    bare = place["bare"]
    if marker.endswith(".json"):
        (bare / marker).write_text("{}")
    else:
        (bare / marker).mkdir()
    report = where()
    assert report["rule"] == "current" and report["home"] == str(bare)
    shown = marker if marker.endswith(".json") else f"{marker}/"
    assert report["why"] == f"the current folder is a planner home (it holds {shown})"
    assert not place["data"].exists()


@pytest.mark.parametrize("other", ["demo-plans", "notes.json", "README.md"])
def test_other_names_do_not_make_a_home(place: dict[str, Path], other: str) -> None:
    (place["bare"] / other).mkdir()
    assert where()["rule"] == "user"


def test_the_rules_in_order(place: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root = place["root"]
    by_option, by_env = root / "by-option", root / "by-env"
    by_option.mkdir()
    by_env.mkdir()
    (place["bare"] / "plans").mkdir()
    place["data"].mkdir(parents=True)
    # The current folder is a home: it wins over the data folder, even an existing one.
    assert where()["rule"] == "current"
    monkeypatch.setenv("PLANNER_HOME", str(by_env))
    report = where()
    assert (report["rule"], report["home"], report["why"]) == (
        "env", str(by_env), "given by PLANNER_HOME")
    # --home wins over PLANNER_HOME, given before the command or after it.
    for args in (["--home", str(by_option), "where", "--json"],
                 ["where", "--json", "--home", str(by_option)]):
        result = runner.invoke(app, args, catch_exceptions=False)
        report = json.loads(result.stdout)
        assert (report["rule"], report["home"], report["why"]) == (
            "option", str(by_option), "given with --home")


def test_the_where_screen_says_where_and_why(place: dict[str, Path]) -> None:
    result = runner.invoke(app, ["where"], catch_exceptions=False)
    assert result.exit_code == 0
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    labels = [line.split()[0] for line in lines if not line.startswith(" ")]
    # Then the busy calendars and the memory in use (tests/test_where.py).
    assert labels == ["Home", "Config", "Notes", "Index", "Busy", "Memory"]
    # The table wraps to the terminal, and folds a long path anywhere: compare the characters.
    words = "".join(result.stdout.split())
    data = place["data"]
    assert words == "".join((
        f"Home {data} your data folder: no --home, no PLANNER_HOME, and the current folder is "
        "not a planner home (it holds none of config.json, plans/, tool-records/, notes/); it "
        "does not exist yet: the first run creates it (private, 0700) "
        f"Config {data / 'config.json'} not there: the built-in defaults are used "
        "(config.example.json shows them) "
        "Notes the built-in samples N1, N2, N3 the home has no notes/ folder and no notes.json "
        f"Index {data / '.planner' / 'notes-index.sqlite3'} not built yet; used only when the "
        "notes are a folder "
        "Busy none busy_calendars in the config lists calendars whose events are busy time "
        f"Memory {data / 'memory.json'} FSRS's default parameters are used (planner fit fits "
        "them to your reviews)").split())


def test_where_names_the_notes_source_in_spec_order(place: dict[str, Path]) -> None:
    home = place["bare"]
    (home / "notes.json").write_text("[]")
    (home / "config.json").write_text("{}")
    report = where()
    assert (report["notes_source"], report["notes"]) == ("notes.json", str(home / "notes.json"))
    (home / "notes").mkdir()
    report = where()
    assert (report["notes_source"], report["notes"]) == ("folder", str(home / "notes"))
    (home / "config.json").write_text(json.dumps({"notes_dir": "vault"}))
    report = where()
    assert (report["notes_source"], report["notes"], report["notes_exists"]) == (
        "folder", str(home / "vault"), False)
    assert report["config_exists"] is True and report["config_problem"] is None


def test_where_with_a_broken_config_still_answers(place: dict[str, Path]) -> None:
    (place["bare"] / "config.json").write_text('{"modle": "x"}')
    report = where()
    assert "unknown key 'modle'" in report["config_problem"]
    other = place["root"] / "other.json"
    report = where("-c", str(other))
    assert report["config"] == str(other) and report["config_exists"] is False
    assert report["config_problem"] == f"{other}: no such config file"


def environment(place: dict[str, Path], **extra: str) -> dict[str, str]:
    return {**os.environ, "HOME": str(place["user"]),
            "XDG_DATA_HOME": str(place["root"] / "xdg"), **extra}


READ_ONLY = [["where"], ["runs"], ["costs"], ["plans"], ["plans", "--demo"], ["notes"],
             ["notes", "RAG"], ["due"], ["reviews"], ["export", "--ics"], ["--dry-run"],
             ["key", "status"]]


@pytest.mark.slow
def test_read_only_commands_create_nothing(place: dict[str, Path]) -> None:
    before = snapshot(place["root"])
    for args in READ_ONLY:
        result = run_planner(*args, cwd=place["bare"], env=environment(place))
        assert result.returncode == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr
    shown = run_planner("show", cwd=place["bare"], env=environment(place))
    assert shown.returncode == 2
    assert shown.stderr == (f"Error: no runs in {place['data']}/tool-records/ yet; planner "
                            "--demo makes one\n")
    assert snapshot(place["root"]) == before and not place["data"].exists()


@pytest.mark.slow
@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077], ids=["000", "022", "077"])
def test_the_first_run_creates_the_data_folder_private(place: dict[str, Path],
                                                       umask: int) -> None:
    old = os.umask(umask)
    try:
        result = run_planner("--demo", cwd=place["bare"], env=environment(place))
    finally:
        os.umask(old)
    assert result.returncode == 0, result.stderr
    data = place["data"]
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    (run,) = run_dirs(data)
    assert f"Records: {data}/tool-records/{run.name}" in result.stderr
    # Nothing in the current folder; a second run uses the same folder.
    assert list(place["bare"].iterdir()) == []
    again = run_planner("runs", "--json", cwd=place["bare"], env=environment(place))
    assert [row["run_id"] for row in json.loads(again.stdout)] == [run.name]


@pytest.mark.slow
def test_a_current_home_is_used_and_the_data_folder_never_made(place: dict[str, Path]) -> None:
    (place["bare"] / "tool-records").mkdir()
    result = run_planner("--demo", cwd=place["bare"], env=environment(place))
    assert result.returncode == 0, result.stderr
    (run,) = run_dirs(place["bare"])
    assert f"Records: tool-records/{run.name}" in result.stderr
    assert not (place["root"] / "xdg").exists()


@pytest.mark.slow
def test_a_data_folder_that_cannot_be_made_is_one_line(place: dict[str, Path]) -> None:
    (place["root"] / "xdg").write_text("a file where the data folder's parent should be")
    before = snapshot(place["root"])
    result = run_planner("--demo", cwd=place["bare"], env=environment(place))
    assert result.returncode == 1
    assert result.stderr.startswith(f"Error: could not create the home folder {place['data']} (")
    assert result.stderr.endswith("nothing was written (use --home DIR to choose another "
                                  "folder)\n")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert snapshot(place["root"]) == before
