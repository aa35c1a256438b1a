"""`planner where` beside the home, config, notes and index: the busy calendars (and whether each
can be read: an unreadable one is listed as such, never left out), the goals when the config has
them, and the memory model in use (fitted or FSRS's defaults). It reads no calendar and sends
nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import run_planner
from typer.testing import CliRunner

from planner.cli.app import app

runner = CliRunner()


def where(*args: str) -> dict:
    result = run_planner("where", "--json", *args)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return json.loads(result.stdout)


def test_busy_calendars_are_listed_with_whether_they_can_be_read(home: Path) -> None:
    (home / "classes.ics").write_text("BEGIN:VCALENDAR\nEND:VCALENDAR\n")
    (home / "work").mkdir()
    (home / "locked.ics").write_text("BEGIN:VCALENDAR\nEND:VCALENDAR\n")
    (home / "locked.ics").chmod(0)
    (home / "config.json").write_text(json.dumps({"busy_calendars": [
        {"ics": "classes.ics"}, {"vdir": "work"}, {"ics": "~/missing.ics"},
        {"vdir": "classes.ics"}, {"ics": "locked.ics"},
        {"caldav": "https://me:secret@dav.example/cal/", "calendar": "Uni"}]}))
    before = sorted(os.listdir(home))
    report = where()
    user = Path(os.environ["HOME"])
    busy = report["busy_calendars"]
    assert [(item["kind"], item["place"], item["readable"]) for item in busy] == [
        ("ics", str(home / "classes.ics"), True),
        ("vdir", str(home / "work"), True),
        ("ics", str(user / "missing.ics"), False),
        ("vdir", str(home / "classes.ics"), False),
        ("ics", str(home / "locked.ics"), os.geteuid() == 0),  # root reads any file
        ("caldav", "https://dav.example/cal/", None),
    ]
    assert busy[2]["problem"] == "does not exist" and busy[3]["problem"] == "is not a folder"
    assert "secret" not in json.dumps(report)
    # Nothing was read into a cache or created.
    assert sorted(os.listdir(home)) == before
    table = run_planner("where")
    assert table.returncode == 0
    text = " ".join(table.stdout.split())
    assert "Busy" in text and "missing.ics" in text
    assert "cannot be used: does not exist; its busy time is unknown" in text
    assert "cannot be used: is not a folder" in text
    assert "a CalDAV server: asked only when a command needs the busy time" in text
    assert text.count("can be read") >= 2


def test_no_busy_calendars_and_a_broken_config_still_answer(home: Path) -> None:
    report = where()
    assert report["busy_calendars"] == [] and "goals" not in report
    assert "busy_calendars in the config lists" in " ".join(run_planner("where").stdout.split())
    (home / "config.json").write_text('{"busy_calendars": 3}')
    report = where()
    assert report["config_problem"] and report["busy_calendars"] == []


def test_the_memory_in_use(home: Path) -> None:
    report = where()
    assert report["memory"] == {"in_use": "defaults", "file": str(home / "memory.json"),
                                "problem": None, "reviews": None, "fitted_at": None}
    assert "FSRS's default parameters are used" in " ".join(run_planner("where").stdout.split())
    (home / "memory.json").write_text(json.dumps({
        "version": 1, "parameters": [0.5] * 21, "reviews": 812,
        "fitted_at": "2026-11-02T08:00:00Z"}))
    memory = where()["memory"]
    assert (memory["in_use"], memory["reviews"], memory["fitted_at"]) == (
        "fitted", 812, "2026-11-02T08:00:00Z")
    text = " ".join(run_planner("where").stdout.split())
    assert "fitted parameters are used (planner fit made them from 812 reviews)" in text
    (home / "memory.json").write_text("{not json")
    memory = where()["memory"]
    assert memory["in_use"] == "defaults" and "memory.json" in memory["problem"]


def test_goals_are_listed_when_the_config_has_them(home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import planner.base.config as config_module

    (home / "config.json").write_text("{}")
    goals = [{"name": "JLPT N2", "date": "2026-12-06", "notes": ["tag:jlpt", "N1"]},
             SimpleNamespace(name="读解", date="2027-01-08", notes=("folder:jp/",))]
    loaded = SimpleNamespace(notes_dir=None, busy_calendars=(), goals=goals)
    monkeypatch.setattr(config_module, "load_config", lambda *given: loaded)
    result = runner.invoke(app, ["where", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["goals"] == [
        {"name": "JLPT N2", "date": "2026-12-06", "selectors": 2, "retention": None},
        {"name": "读解", "date": "2027-01-08", "selectors": 1, "retention": None}]
    table = runner.invoke(app, ["where"], catch_exceptions=False)
    text = " ".join(table.stdout.split())
    assert "Goals JLPT N2 on 2026-12-06" in text and "读解 on 2027-01-08" in text
    loaded.goals = []
    text = " ".join(runner.invoke(app, ["where"], catch_exceptions=False).stdout.split())
    assert "goals in the config sets them" in text


def test_a_relative_busy_calendar_is_looked_for_beside_the_config(home: Path,
                                                                   tmp_path: Path) -> None:
    (home / "classes.ics").write_text("BEGIN:VCALENDAR\nEND:VCALENDAR\n")
    (home / "config.json").write_text(json.dumps({"busy_calendars": [{"ics": "classes.ics"}]}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_planner("--home", str(home), "where", "--json", cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    (busy,) = json.loads(result.stdout)["busy_calendars"]
    assert (busy["place"], busy["readable"]) == (str(home / "classes.ics"), True)
    # A config given with -c from another folder: its paths are that folder's.
    settings = tmp_path / "settings"
    settings.mkdir()
    (settings / "config.json").write_text(json.dumps({"busy_calendars": [{"vdir": "cal"}]}))
    result = run_planner("--home", str(home), "-c", str(settings / "config.json"), "where",
                         "--json", cwd=elsewhere)
    (busy,) = json.loads(result.stdout)["busy_calendars"]
    assert (busy["place"], busy["readable"], busy["problem"]) == (
        str(settings / "cal"), False, "does not exist")


def test_the_configs_goals_are_listed(home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"desired_retention": 0.85, "goals": [
        {"name": "JLPT N2", "date": "2027-07-04", "notes": ["tag:jlpt", "N1"], "retention": 0.9},
        {"name": "读解", "date": "2027-01-08", "notes": ["folder:jp/"]}]}, ensure_ascii=False))
    report = where()
    assert report["goals"] == [
        {"name": "JLPT N2", "date": "2027-07-04", "selectors": 2, "retention": 0.9},
        {"name": "读解", "date": "2027-01-08", "selectors": 1, "retention": 0.85}]
    text = " ".join(run_planner("where").stdout.split())
    assert "Goals JLPT N2 on 2027-07-04" in text and "读解 on 2027-01-08" in text
    (home / "config.json").write_text("{}")
    assert where()["goals"] == []
    assert "Goals none goals in the config sets them" in " ".join(
        run_planner("where").stdout.split())
