"""Busy time's work is bounded per source, not per item: recurrence expansion counts every
event, every listed date and every step of every rule of one source (an .ics file, a whole vdir)
against one budget; past it, one warning names the source and its busy time is unknown, never
free, within seconds whatever the file holds.

The calendar is written with icalendar, as a calendar program would: 300 small events, each
repeating daily since 1900. Each rule alone is well within its bound; together they held
`planner week` for minutes.
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from conftest import run_planner

from planner.calendar import busy
from planner.calendar.busy import read_busy
from planner.calendar.timetable import Timetable

BERLIN = ZoneInfo("Europe/Berlin")
WEEK_SECONDS = 10  # the whole command, start-up included


def calendar_bytes(events: int, since: _dt.datetime = _dt.datetime(1900, 1, 1, 8)) -> bytes:
    """`events` small events, each repeating daily from `since`, one minute apart."""
    from icalendar import Calendar, Event

    calendar = Calendar()
    calendar.add("prodid", "-//test//budget//EN")
    calendar.add("version", "2.0")
    for number in range(events):
        event = Event()
        start = since + _dt.timedelta(minutes=number)
        event.add("uid", f"daily-{number}@example.com")
        event.add("dtstamp", _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC))
        event.add("summary", f"Daily {number}")
        event.add("dtstart", start)
        event.add("dtend", start + _dt.timedelta(minutes=30))
        event.add("rrule", {"freq": "daily"})
        calendar.add_component(event)
    return calendar.to_ical()


def write_vdir(folder: Path, events: int) -> Path:
    """The same events, one file each, as vdirsyncer keeps them."""
    from icalendar import Calendar

    folder.mkdir()
    whole = Calendar.from_ical(calendar_bytes(events))
    for number, event in enumerate(whole.walk("VEVENT")):
        one = Calendar()
        one.add("prodid", "-//test//budget//EN")
        one.add("version", "2.0")
        one.add_component(event)
        (folder / f"{number:03d}.ics").write_bytes(one.to_ical())
    return folder


def configure(home: Path, source: dict) -> None:
    (home / "config.json").write_text(json.dumps({
        "study_hours": {"daily": ["07:00-22:00"]}, "busy_calendars": [source]}),
        encoding="utf-8")


def test_300_daily_events_in_one_file_make_its_busy_time_unknown_at_once(home: Path) -> None:
    data = calendar_bytes(300)
    assert len(data) < 64 * 1024  # a small file
    (home / "busy.ics").write_bytes(data)
    configure(home, {"ics": "busy.ics"})
    started = time.monotonic()
    done = run_planner("week", "--json", timeout=60)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert took < WEEK_SECONDS
    (line,) = done.stderr.splitlines()
    assert line.startswith("busy calendar busy.ics has too many events and repeats to expand")
    assert line.endswith("its busy time is unknown")
    assert "Traceback" not in done.stderr
    days = json.loads(done.stdout)["days"]
    assert len(days) == 7 and all(day["busy"] == [] for day in days)
    # Nothing was cached for a source that could not be worked out.
    assert not list((home / ".planner").glob("busy-*.txt"))


def test_the_budget_is_the_whole_source_not_each_file(home: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Each file's ~46,000 steps are well within a budget of 200,000; 30 files are not."""
    monkeypatch.setattr(busy, "MAX_SOURCE_STEPS", 200_000)
    write_vdir(home / "classes", 30)
    today = _dt.date.today()
    found = read_busy([{"vdir": "classes"}], today, today + _dt.timedelta(days=6), home=home,
                      zone=BERLIN)
    assert found.events == ()
    assert found.unknown == ("classes",)
    (line,) = found.warnings
    assert line.startswith("busy calendar classes has too many events and repeats")


def test_a_few_such_events_are_read(home: Path) -> None:
    """The budget is no bound on ordinary calendars: five daily events are read."""
    (home / "busy.ics").write_bytes(calendar_bytes(5, _dt.datetime(2020, 1, 1, 8)))
    today = _dt.date.today()
    found = read_busy([{"ics": "busy.ics"}], today, today + _dt.timedelta(days=6), home=home,
                      zone=BERLIN)
    assert found.unknown == () and found.warnings == ()
    assert len(found.events) == 5 * 7


def test_a_run_treats_the_source_as_unknown_never_free(home: Path) -> None:
    """As a source that cannot be read: free_slots says its busy time is unknown, the warning
    is handed out once."""
    (home / "busy.ics").write_bytes(calendar_bytes(300))
    today = _dt.date.today()
    timetable = Timetable(home=home, mode="live", hours={"daily": ((19 * 60, 22 * 60),)},
                          daily_minutes=None, review_time="19:00", today=today,
                          sources=[{"ics": "busy.ics"}], zone=BERLIN)
    days = timetable.free_days(today, 2, 30)
    assert all(day["busy_unknown"] is True for day in days)
    assert timetable.busy().unknown == ("busy.ics",)
    (line,) = timetable.unsaid_warnings()
    assert "busy.ics" in line and "unknown" in line
    assert timetable.unsaid_warnings() == ()


def test_time_is_bounded_too(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the source's seconds (whatever took them) its busy time is unknown as well."""
    (home / "busy.ics").write_bytes(calendar_bytes(5))
    monkeypatch.setattr(busy, "MAX_SECONDS", 0.0)
    today = _dt.date.today()
    found = read_busy([{"ics": "busy.ics"}], today, today, home=home, zone=BERLIN)
    assert found.unknown == ("busy.ics",) and found.events == ()
    assert found.warnings == (
        "busy calendar busy.ics took more than 0 seconds to read; its busy time is unknown",)


def test_listed_dates_count_against_the_budget(home: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """An RDATE list is work too: a source whose events list more dates than the budget is
    unknown."""
    monkeypatch.setattr(busy, "MAX_SOURCE_STEPS", 100)
    from icalendar import Calendar, Event

    calendar = Calendar()
    calendar.add("prodid", "-//test//budget//EN")
    calendar.add("version", "2.0")
    event = Event()
    start = _dt.datetime(2026, 1, 5, 9)
    event.add("uid", "listed@example.com")
    event.add("dtstart", start)
    event.add("dtend", start + _dt.timedelta(hours=1))
    event.add("rdate", [start + _dt.timedelta(days=number) for number in range(1, 200)])
    calendar.add_component(event)
    (home / "busy.ics").write_bytes(calendar.to_ical())
    found = read_busy([{"ics": "busy.ics"}], _dt.date(2026, 1, 5), _dt.date(2026, 1, 11),
                      home=home, zone=BERLIN, cache=False)
    assert found.unknown == ("busy.ics",)
