"""Study hours, daily minutes and busy calendars in config.json (README "Your week")."""

from __future__ import annotations

import datetime as _dt
import json
import subprocess
from pathlib import Path

import pytest
from conftest import PLANNER

from planner.base import study_hours
from planner.base.config import ConfigError, parse_config, study_windows


def test_the_default_is_one_evening_window_every_day() -> None:
    config = parse_config({})
    assert study_windows(config) == study_hours.DEFAULT
    assert study_hours.windows_on(study_windows(config), _dt.date(2026, 12, 8)) == ((1140, 1320),)


@pytest.mark.parametrize(("review_time", "window"), [
    ("19:00", (1140, 1320)), ("08:30", (510, 1320)), ("20:00", (1200, 1380)),
    ("21:30", (1290, 1439)), ("23:59", (1438, 1439)),
])
def test_review_time_alone_means_one_daily_window(review_time: str, window: tuple) -> None:
    config = parse_config({"review_time": review_time})
    assert study_windows(config) == {"daily": (window,)}


def test_a_weekday_key_wins_over_daily() -> None:
    config = parse_config({"study_hours": {"daily": ["19:00-21:00"], "tue": [],
                                           "sat": ["14:00-16:00", "09:00-11:00"]}})
    hours = study_windows(config)
    assert study_hours.windows_on(hours, _dt.date(2026, 12, 7)) == ((1140, 1260),)  # Monday
    assert study_hours.windows_on(hours, _dt.date(2026, 12, 8)) == ()  # Tuesday
    assert study_hours.windows_on(hours, _dt.date(2026, 12, 12)) == ((540, 660), (840, 960))


@pytest.mark.parametrize(("value", "words"), [
    ({"daily": "19:00-22:00"}, '"daily" must be a list'),
    ({"someday": []}, "unknown key 'someday'"),
    ({"daily": ["7:00-9:00"]}, "'7:00-9:00'; a window is \"HH:MM-HH:MM\""),
    ({"daily": ["22:00-19:00"]}, "whose start is not before its end"),
    ({"daily": ["19:00-21:00", "20:00-22:00"]}, "windows that overlap"),
    ({"daily": ["24:00-25:00"]}, "a window is"),
    ({"daily": ["１９:00-22:00"]}, "a window is"),
    ([], "must be an object"),
    ({}, "must be an object"),
])
def test_bad_study_hours_name_the_key(value: object, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"study_hours": value})
    assert "key 'study_hours'" in str(caught.value) and words in str(caught.value)


@pytest.mark.parametrize("value", [4, 601, 30.0, True, "40"])
def test_daily_minutes_is_a_whole_number_from_5_to_600(value: object) -> None:
    with pytest.raises(ConfigError, match="key 'daily_minutes' must be a whole number from 5"):
        parse_config({"daily_minutes": value})
    assert parse_config({"daily_minutes": 40}).daily_minutes == 40
    assert parse_config({"daily_minutes": None}).daily_minutes is None


def test_busy_calendars_are_checked_source_by_source() -> None:
    sources = [{"ics": "classes.ics"}, {"vdir": "~/.calendars/work"},
               {"caldav": "https://dav.example/cal/", "calendar": "Uni", "user": "me"}]
    assert parse_config({"busy_calendars": sources}).busy_calendars == tuple(sources)
    for bad, words in [
        ({"ics": "a", "vdir": "b"}, "key 'busy_calendars[1]' must be an object with one of"),
        ({"http": "x"}, "must be an object with one of"),
        ({"ics": ""}, "key 'busy_calendars[1].ics' must be a non-empty string"),
        ({"ics": "a\x00b"}, "holds a control character"),
        ({"vdir": "d", "user": "me"}, "unknown key 'busy_calendars[1].user'"),
        ({"caldav": "ftp://x"}, "key 'busy_calendars[1].caldav' must start with http"),
        ("classes.ics", "must be an object with one of"),
    ]:
        with pytest.raises(ConfigError) as caught:
            parse_config({"busy_calendars": [bad]})
        assert words in str(caught.value), bad
    with pytest.raises(ConfigError, match="must be a list of at most 10 sources"):
        parse_config({"busy_calendars": {"ics": "a"}})


def test_a_bad_key_is_one_line_and_exit_2(home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"study_hours": {"daily": ["19-22"]}}))
    result = subprocess.run([PLANNER, "--dry-run"], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "key 'study_hours'" in result.stderr
    assert "Traceback" not in result.stderr
