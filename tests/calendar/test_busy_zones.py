"""Time zones honest at the edges: an event given in UTC or any zone is compared as an aware
time; on the night the clocks go back (or forward) its busy time stays where it is, never
dropped because its naive local end is not after its naive local start.

Berlin's clocks go back at 03:00 CEST on 2026-10-25 (01:00 UTC) to 02:00 CET, so 02:00-03:00 is
lived twice; they go forward at 02:00 CET on 2026-03-29 (01:00 UTC) to 03:00 CEST.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from conftest import run_planner

from planner.calendar.busy import BusyEvent, read_busy
from planner.calendar.free_time import Span, free_spans

BERLIN = ZoneInfo("Europe/Berlin")
BACK = _dt.date(2026, 10, 25)
FORWARD = _dt.date(2026, 3, 29)


def write_calendar(path: Path, *events: tuple[str, _dt.datetime, _dt.datetime]) -> None:
    from icalendar import Calendar, Event

    calendar = Calendar()
    calendar.add("prodid", "-//test//zones//EN")
    calendar.add("version", "2.0")
    for number, (title, start, end) in enumerate(events):
        event = Event()
        event.add("uid", f"zone-{number}@example.com")
        event.add("dtstamp", _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC))
        event.add("summary", title)
        event.add("dtstart", start)
        event.add("dtend", end)
        calendar.add_component(event)
    path.write_bytes(calendar.to_ical())


def utc(day: _dt.date, hour: int, minute: int = 0) -> _dt.datetime:
    return _dt.datetime.combine(day, _dt.time(hour, minute), tzinfo=_dt.UTC)


def local(day: _dt.date, hour: int, minute: int = 0) -> _dt.datetime:
    return _dt.datetime.combine(day, _dt.time(hour, minute))


def busy_on(home: Path, day: _dt.date, zone: _dt.tzinfo | None = BERLIN) -> tuple:
    return read_busy([{"ics": "busy.ics"}], day, day, home=home, zone=zone).events


def test_a_utc_event_in_the_repeated_hour_stays_busy(home: Path) -> None:
    """00:30-01:00 UTC is 02:30 CEST to 02:00 CET: its naive end is before its naive start,
    and it was dropped as taking no time. It covers the wall-clock times up to 03:00."""
    write_calendar(home / "busy.ics", ("Night shift", utc(BACK, 0, 30), utc(BACK, 1)))
    assert busy_on(home, BACK) == (BusyEvent(local(BACK, 2), local(BACK, 3), "Night shift"),)


@pytest.mark.parametrize(("start", "end", "first", "last"), [
    # an hour from 02:30 CEST to 02:30 CET: all of the repeated hour
    (utc(BACK, 0, 30), utc(BACK, 1, 30), local(BACK, 2), local(BACK, 3)),
    # 01:30 CEST to 02:30 CET: its naive end is after its start, yet it covers up to 03:00
    (utc(BACK - _dt.timedelta(days=1), 23, 30), utc(BACK, 1, 30), local(BACK, 1, 30),
     local(BACK, 3)),
    # across the night: 23:00 CEST to 04:00 CET
    (utc(BACK - _dt.timedelta(days=1), 21), utc(BACK, 3),
     local(BACK - _dt.timedelta(days=1), 23), local(BACK, 4)),
    # the clocks go forward: 01:30 CET to 03:30 CEST, an hour that the naive span holds whole
    (utc(FORWARD, 0, 30), utc(FORWARD, 1, 30), local(FORWARD, 1, 30), local(FORWARD, 3, 30)),
])
def test_aware_events_keep_their_wall_clock_time(home: Path, start: _dt.datetime,
                                                 end: _dt.datetime, first: _dt.datetime,
                                                 last: _dt.datetime) -> None:
    write_calendar(home / "busy.ics", ("Shift", start, end))
    (event,) = busy_on(home, last.date())
    assert (event.start, event.end) == (first, last)


def test_an_event_given_in_another_zone_is_compared_as_an_aware_time(home: Path) -> None:
    """23:30-00:30 EDT in New York on the night Berlin's clocks go back is 03:30-04:30 UTC,
    04:30-05:30 CET."""
    york = ZoneInfo("America/New_York")
    write_calendar(home / "busy.ics",
                   ("Call", _dt.datetime(2026, 10, 24, 23, 30, tzinfo=york),
                    _dt.datetime(2026, 10, 25, 0, 30, tzinfo=york)))
    assert busy_on(home, BACK) == (BusyEvent(local(BACK, 4, 30), local(BACK, 5, 30), "Call"),)


def test_the_systems_zone_is_used_the_same_way(home: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """With no zone given (the system's, from TZ) the repeated hour is kept as well."""
    import time

    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        write_calendar(home / "busy.ics", ("Night shift", utc(BACK, 0, 30), utc(BACK, 1)))
        assert busy_on(home, BACK, None) == (
            BusyEvent(local(BACK, 2), local(BACK, 3), "Night shift"),)
    finally:
        monkeypatch.undo()
        time.tzset()


def test_no_free_slot_is_offered_in_the_repeated_hour_it_holds(home: Path) -> None:
    write_calendar(home / "busy.ics", ("Night shift", utc(BACK, 0, 30), utc(BACK, 1)))
    taken = [Span(event.start, event.end) for event in busy_on(home, BACK)]
    free = free_spans(BACK, [(60, 4 * 60)], taken, 30, None)
    assert free == [Span(local(BACK, 1), local(BACK, 2)), Span(local(BACK, 3), local(BACK, 4))]


def test_week_shows_it_in_berlin(home: Path) -> None:
    write_calendar(home / "busy.ics", ("Night shift", utc(BACK, 0, 30), utc(BACK, 1)))
    (home / "config.json").write_text(json.dumps({"busy_calendars": [{"ics": "busy.ics"}]}),
                                      encoding="utf-8")
    done = run_planner("week", "--json", "--start", BACK.isoformat(),
                       env={**os.environ, "TZ": "Europe/Berlin"})
    assert done.returncode == 0, done.stderr
    first = json.loads(done.stdout)["days"][0]
    assert first["date"] == BACK.isoformat()
    assert first["busy"] == [{"start": "02:00", "end": "03:00", "title": "Night shift"}]
