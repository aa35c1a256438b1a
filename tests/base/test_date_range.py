"""Every date the week and busy time compute is in range: `week --start`, busy time and free
slots near 0001-01-01 and 9999-12-31 give one line and exit 2, or the days there are, never a
traceback. A time near either end may not exist in another zone (noon of 0001-01-02 in
Kiritimati is still 0001-01-01 in UTC; an evening of 9999-12-30 in Pago Pago is 9999-12-31 in
UTC), so calendars are written with events in several zones at both ends.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from conftest import run_planner

from planner.base.days import FIRST_DAY, LAST_DAY
from planner.calendar import busy_scan
from planner.calendar.busy import read_busy
from planner.calendar.free_time import Span, free_spans
from planner.calendar.timetable import Timetable

ZONES = ("UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Shanghai")
EDGE_DAYS = (_dt.date(1, 1, 1), _dt.date(1, 1, 2), _dt.date(1, 1, 3), _dt.date(9999, 12, 29),
             _dt.date(9999, 12, 30), _dt.date(9999, 12, 31))


def write_edges(path: Path) -> None:
    """Events at 01:00, 12:00 and 22:00 of the days at both ends, floating and in three zones,
    a daily series that runs into the end, and an all-day busy day on the last day."""
    from icalendar import Calendar, Event

    calendar = Calendar()
    calendar.add("prodid", "-//test//edges//EN")
    calendar.add("version", "2.0")

    def add(uid: str, start: _dt.date, end: _dt.date, title: str, **more: object) -> None:
        event = Event()
        event.add("uid", uid)
        event.add("dtstamp", _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC))
        event.add("summary", title)
        event.add("dtstart", start)
        event.add("dtend", end)
        for key, value in more.items():
            event.add(key, value)
        calendar.add_component(event)

    number = 0
    for day in EDGE_DAYS:
        for hour in (1, 12, 22):
            for zone in (None, _dt.UTC, ZoneInfo("Asia/Shanghai"), ZoneInfo("America/New_York")):
                start = _dt.datetime.combine(day, _dt.time(hour), tzinfo=zone)
                title = "floating" if zone is None else f"in {zone}"
                add(f"edge-{number}@example.com", start, start + _dt.timedelta(minutes=59),
                    title)
                number += 1
    start = _dt.datetime(9999, 12, 20, 10, tzinfo=_dt.UTC)
    add("daily@example.com", start, start + _dt.timedelta(hours=1), "daily",
        rrule={"freq": "daily"})
    add("allday@example.com", LAST_DAY, LAST_DAY + _dt.timedelta(days=1), "all day",
        transp="OPAQUE")
    path.write_bytes(calendar.to_ical())


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize(("first", "last"), [(FIRST_DAY, FIRST_DAY + _dt.timedelta(days=6)),
                                             (LAST_DAY - _dt.timedelta(days=6), LAST_DAY)])
def test_busy_time_at_both_ends_in_every_zone(home: Path, zone: str, first: _dt.date,
                                              last: _dt.date) -> None:
    write_edges(home / "edges.ics")
    found = read_busy([{"ics": "edges.ics"}], first, last, home=home, zone=ZoneInfo(zone))
    assert found.unknown == () and found.warnings == ()
    floating = [event for event in found.events if event.title == "floating"]
    # the floating events are where they are written, on the usable days among them
    assert {event.start.date() for event in floating} == {
        day for day in EDGE_DAYS if first <= day <= last}
    for event in found.events:
        assert event.end > event.start
    if last == LAST_DAY:
        assert any(event.title == "all day" for event in found.events)
        assert sum(event.title == "daily" for event in found.events) >= 6


def test_days_past_either_end_are_kept_inside(home: Path) -> None:
    """Asked for every day there is, busy time is read for the days planner can use."""
    write_edges(home / "edges.ics")
    found = read_busy([{"ics": "edges.ics"}], _dt.date.min, _dt.date.max, home=home,
                      zone=ZoneInfo("Asia/Shanghai"), cache=False)
    assert found.unknown == ()
    assert any(event.title == "floating" for event in found.events)


def test_the_byte_scan_at_both_ends() -> None:
    data = (b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:99991231T100000Z\r\n"
            b"DTEND:99991231T110000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    assert busy_scan.may_touch(data, _dt.date.max, _dt.date.max)
    assert busy_scan.may_touch(data, _dt.date.min, _dt.date.max)
    assert not busy_scan.may_touch(data, _dt.date.min, _dt.date.min)


def test_free_slots_near_the_end(home: Path) -> None:
    """A clock late in year 9999: busy time is read up to the last usable day, and free_slots
    gives the days there are."""
    write_edges(home / "edges.ics")
    today = _dt.date(9999, 12, 20)
    timetable = Timetable(home=home, mode="live", hours={"daily": ((0, 24 * 60),)},
                          daily_minutes=None, review_time="19:00", today=today,
                          sources=[{"ics": "edges.ics"}], zone=ZoneInfo("Pacific/Kiritimati"))
    assert timetable.last_day == LAST_DAY
    days = timetable.free_days(_dt.date(9999, 12, 28), 14, 30)
    assert [day["date"] for day in days] == ["9999-12-28", "9999-12-29", "9999-12-30"]
    assert days[-1]["slots"] == []  # the all-day event
    assert timetable.busy().unknown == ()


def test_free_slots_near_the_start(home: Path) -> None:
    write_edges(home / "edges.ics")
    timetable = Timetable(home=home, mode="live", hours={"daily": ((0, 24 * 60),)},
                          daily_minutes=None, review_time="19:00", today=FIRST_DAY,
                          sources=[{"ics": "edges.ics"}], zone=ZoneInfo("Pacific/Pago_Pago"))
    days = timetable.free_days(FIRST_DAY, 2, 30)
    assert [day["date"] for day in days] == ["0001-01-02", "0001-01-03"]
    assert all(day["slots"] for day in days)
    assert timetable.busy().unknown == ()


def test_a_window_to_midnight_on_the_last_day() -> None:
    assert free_spans(LAST_DAY, [(22 * 60, 24 * 60)], [], 30, None) == [
        Span(_dt.datetime(9999, 12, 30, 22), _dt.datetime(9999, 12, 31))]


@pytest.mark.parametrize(("start", "zone"), [("9999-12-24", "Pacific/Kiritimati"),
                                             ("0001-01-02", "Pacific/Pago_Pago")])
def test_week_at_both_ends(home: Path, start: str, zone: str) -> None:
    write_edges(home / "edges.ics")
    (home / "config.json").write_text(json.dumps({"busy_calendars": [{"ics": "edges.ics"}]}),
                                      encoding="utf-8")
    done = run_planner("week", "--json", "--start", start, env={**os.environ, "TZ": zone})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "busy" not in done.stderr
    days = json.loads(done.stdout)["days"]
    assert days[0]["date"] == start and len(days) == 7
    assert any(busy["title"] == "floating" for day in days for busy in day["busy"])
    # and as a table, in the terminal
    shown = run_planner("week", "--start", start, env={**os.environ, "TZ": zone})
    assert shown.returncode == 0 and "Traceback" not in shown.stderr


@pytest.mark.parametrize("start", ["0001-01-01", "9999-12-25", "9999-12-26", "9999-12-30",
                                   "9999-12-31"])
@pytest.mark.parametrize("json_flag", [(), ("--json",)], ids=["table", "json"])
def test_a_week_past_either_end_is_one_line_and_exit_2(home: Path, start: str,
                                                       json_flag: tuple[str, ...]) -> None:
    # (from 9999-12-26 on, its seventh day is past the last date Python has)
    done = run_planner("week", *json_flag, "--start", start)
    assert done.returncode == 2
    assert done.stderr == (f"Error: --start {start}: the week would pass the end of the "
                           "calendar\n")
    # --json says the same line on stdout, as every failure
    assert done.stdout == "" if not json_flag else json.loads(done.stdout) == {
        "error": f"--start {start}: the week would pass the end of the calendar", "exit_code": 2}
