"""Paths in the config: notes_dir and busy_calendars' ics and vdir expand `~` and `$VAR`, and a
relative path is relative to the config file's folder (not the home, not the current folder).

Anki files are named on the command line (`planner fit --anki FILE`), where the shell expands
them; the config has no Anki key.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

import pytest
from conftest import run_planner
from note_files import write_note

from planner.base.config import ConfigError, expand_path, load_config, parse_config
from planner.calendar.busy import read_busy

ICS = """BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//test//EN
BEGIN:VEVENT
UID:class-1@test
DTSTAMP:20260101T000000Z
DTSTART:20261005T100000
DTEND:20261005T113000
SUMMARY:Class
END:VEVENT
END:VCALENDAR
"""


@pytest.fixture
def places(home: Path, tmp_path: Path) -> dict[str, Path]:
    """The home (current folder), HOME (tmp_path/user) and a settings folder elsewhere."""
    settings = tmp_path / "settings"
    settings.mkdir()
    return {"home": home, "user": Path(os.environ["HOME"]), "settings": settings}


def notes_ids(*args: str) -> list[str]:
    result = run_planner("notes", "--json", *args)
    assert result.returncode == 0, result.stderr
    return [row["id"] for row in json.loads(result.stdout)]


# --- the rule itself ------------------------------------------------------------------------------


def test_expand_path(places: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    config = places["settings"] / "config.json"
    monkeypatch.setenv("VAULTS", "/srv/vaults")
    assert expand_path("~/vault", config) == places["user"] / "vault"
    assert expand_path("$VAULTS/jp", config) == Path("/srv/vaults/jp")
    assert expand_path("${VAULTS}/jp", config) == Path("/srv/vaults/jp")
    assert expand_path("vault", config) == places["settings"] / "vault"
    assert expand_path("../other/vault", config) == places["settings"].parent / "other/vault"
    assert expand_path("/abs/vault", config) == Path("/abs/vault")
    # A config given as a bare name is in the current folder.
    assert expand_path("vault", "config.json") == places["home"] / "vault"


def test_an_unset_variable_is_a_config_error_naming_it() -> None:
    os.environ.pop("PLANNER_NO_SUCH_VARIABLE", None)
    with pytest.raises(ConfigError) as caught:
        parse_config({"notes_dir": "$PLANNER_NO_SUCH_VARIABLE/notes"}, "c.json")
    assert str(caught.value) == ("c.json: key 'notes_dir' uses the variable "
                                 "$PLANNER_NO_SUCH_VARIABLE, which is not set")
    with pytest.raises(ConfigError, match=r"key 'busy_calendars\[2\].vdir' uses the variable"):
        parse_config({"busy_calendars": [{"ics": "a.ics"},
                                          {"vdir": "${PLANNER_NO_SUCH_VARIABLE}"}]})
    # The values stay as written in the parsed config; only the loader knows the file.
    assert parse_config({"notes_dir": "~/vault"}).notes_dir == "~/vault"


def test_an_unset_variable_is_one_line_and_exit_2(places: dict[str, Path]) -> None:
    (places["home"] / "config.json").write_text('{"notes_dir": "$PLANNER_NOPE_DIR/x"}')
    result = run_planner("notes", env={**os.environ})
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == ("Error: config.json: key 'notes_dir' uses the variable "
                             "$PLANNER_NOPE_DIR, which is not set\n")


# --- notes_dir ----------------------------------------------------------------------------------


def test_notes_dir_with_a_tilde(places: dict[str, Path]) -> None:
    write_note(places["user"] / "Vault", "jp.md", "敬語の練習")
    (places["home"] / "config.json").write_text('{"notes_dir": "~/Vault"}')
    assert notes_ids() == ["jp"]
    where = json.loads(run_planner("where", "--json").stdout)
    assert where["notes"] == str(places["user"] / "Vault") and where["notes_exists"] is True


def test_notes_dir_with_a_variable(places: dict[str, Path]) -> None:
    write_note(places["user"] / "sync" / "notes", "a.md", "文本")
    (places["home"] / "config.json").write_text('{"notes_dir": "$SYNC_ROOT/notes"}')
    result = run_planner("notes", "--json",
                         env={**os.environ, "SYNC_ROOT": str(places["user"] / "sync")})
    assert result.returncode == 0, result.stderr
    assert [row["id"] for row in json.loads(result.stdout)] == ["a"]


def test_notes_dir_is_relative_to_the_config_files_folder(places: dict[str, Path]) -> None:
    write_note(places["settings"] / "vault", "there.md", "配置旁边")
    write_note(places["home"] / "vault", "here.md", "家里")
    config = places["settings"] / "config.json"
    config.write_text('{"notes_dir": "vault"}')
    # Given with -c from elsewhere: the folder beside that file, not the home's.
    assert notes_ids("-c", str(config)) == ["there"]
    # The home's own config.json: the home's folder (as before).
    (places["home"] / "config.json").write_text('{"notes_dir": "vault"}')
    assert notes_ids() == ["here"]


def test_a_missing_notes_dir_names_what_it_became(places: dict[str, Path]) -> None:
    (places["home"] / "config.json").write_text('{"notes_dir": "~/gone"}')
    result = run_planner("notes")
    assert result.returncode == 2
    assert result.stderr == (f"Error: notes_dir: ~/gone ({places['user'] / 'gone'}) does not "
                             "exist; create it or change notes_dir in config.json\n")
    assert not (places["user"] / "gone").exists()


# --- busy_calendars -------------------------------------------------------------------------------


def busy_titles(config_path: Path, home: Path) -> tuple[list[str], tuple[str, ...]]:
    config = load_config(config_path, home)
    day = _dt.date(2026, 10, 5)
    found = read_busy(config.busy_calendars, day, day, home=home, zone=None, cache=False)
    return [event.title for event in found.events], found.unknown


def test_busy_calendar_paths_expand_and_follow_the_config(places: dict[str, Path],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    user, settings, home = places["user"], places["settings"], places["home"]
    (user / "calendars" / "work").mkdir(parents=True)
    (user / "calendars" / "work" / "one.ics").write_text(ICS)
    (user / "classes.ics").write_text(ICS)
    (settings / "beside.ics").write_text(ICS)
    monkeypatch.setenv("CALS", str(user / "calendars"))
    config = settings / "config.json"
    config.write_text(json.dumps({"busy_calendars": [
        {"ics": "~/classes.ics"}, {"vdir": "$CALS/work"}, {"ics": "beside.ics"}]}))
    loaded = load_config(config, home)
    assert loaded.busy_calendars == (
        {"ics": str(user / "classes.ics")}, {"vdir": str(user / "calendars" / "work")},
        {"ics": str(settings / "beside.ics")})
    # busy.py reads them from any home: the paths no longer depend on it.
    titles, unknown = busy_titles(config, home)
    assert titles == ["Class", "Class", "Class"] and unknown == ()
    # A relative one missing beside the config is unknown (never free), named by its path.
    config.write_text(json.dumps({"busy_calendars": [{"ics": "nope.ics"}]}))
    titles, unknown = busy_titles(config, home)
    assert titles == [] and unknown == (str(settings / "nope.ics"),)
    # The home's own config.json: a plain relative path stays as written (named so), read from
    # the home, which is its folder.
    (home / "beside.ics").write_text(ICS)
    (home / "config.json").write_text(json.dumps({"busy_calendars": [
        {"ics": "beside.ics"}, {"ics": "~/classes.ics"}, {"ics": "gone.ics"}]}))
    assert load_config(home / "config.json", home).busy_calendars == (
        {"ics": "beside.ics"}, {"ics": str(user / "classes.ics")}, {"ics": "gone.ics"})
    titles, unknown = busy_titles(home / "config.json", home)
    assert titles == ["Class", "Class"] and unknown == ("gone.ics",)


def test_caldav_urls_are_left_as_they_are(places: dict[str, Path]) -> None:
    config = places["settings"] / "config.json"
    source = {"caldav": "https://dav.example/$USER/~cal/", "calendar": "~Uni", "user": "$me"}
    config.write_text(json.dumps({"busy_calendars": [source]}))
    assert load_config(config, places["home"]).busy_calendars == (source,)
