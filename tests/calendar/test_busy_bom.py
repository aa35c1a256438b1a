"""A busy .ics starting with a UTF-8 byte order mark (as some Windows programs write it) is read
like any other: its events are busy time, in a file, a vdir and `week --json`."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from zoneinfo import ZoneInfo

from conftest import run_planner

from planner.calendar.busy import BusyEvent, read_busy

BOM = b"\xef\xbb\xbf"
DAY = _dt.date.today() + _dt.timedelta(days=1)
START = _dt.datetime.combine(DAY, _dt.time(18, 30))


def calendar_with_bom() -> bytes:
    from icalendar import Calendar, Event

    calendar = Calendar()
    calendar.add("prodid", "-//test//bom//EN")
    calendar.add("version", "2.0")
    event = Event()
    event.add("uid", "bom@example.com")
    event.add("dtstamp", _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC))
    event.add("summary", "Choir")
    event.add("dtstart", START)
    event.add("dtend", START + _dt.timedelta(minutes=90))
    calendar.add_component(event)
    data = BOM + calendar.to_ical()
    assert data.startswith(BOM + b"BEGIN:VCALENDAR")
    return data


CHOIR = BusyEvent(START, START + _dt.timedelta(minutes=90), "Choir")


def test_a_file_with_a_byte_order_mark(home: Path) -> None:
    (home / "busy.ics").write_bytes(calendar_with_bom())
    for cache in (True, False):
        found = read_busy([{"ics": "busy.ics"}], DAY, DAY, home=home,
                          zone=ZoneInfo("Europe/Berlin"), cache=cache)
        assert found == ((CHOIR,), (), ())


def test_a_vdir_file_with_a_byte_order_mark(home: Path) -> None:
    (home / "cal").mkdir()
    (home / "cal" / "choir.ics").write_bytes(calendar_with_bom())
    found = read_busy([{"vdir": "cal"}], DAY, DAY, home=home, zone=ZoneInfo("Europe/Berlin"))
    assert found == ((CHOIR,), (), ())


def test_week_json_shows_it(home: Path) -> None:
    (home / "busy.ics").write_bytes(calendar_with_bom())
    (home / "config.json").write_text(json.dumps({"busy_calendars": [{"ics": "busy.ics"}]}),
                                      encoding="utf-8")
    done = run_planner("week", "--json", "--start", DAY.isoformat())
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["days"][0]["busy"] == [
        {"start": "18:30", "end": "20:00", "title": "Choir"}]
