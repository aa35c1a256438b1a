"""The busy cache is checked when read back: planner wrote it, but a hand edit or a disk fault may
have changed it. A damaged cache (a time with a zone, NaN, an end before its start, a negative
count, a wrong type, a title that is not inert, a line cut short, not a cache at all) is one
warning line and rebuilt from the calendars: `week` and a run's free_slots say so once, never a
traceback, and show the busy time the calendar holds.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from conftest import run_planner

from planner.calendar import busy_cache
from planner.calendar.busy import BusyEvent, read_busy
from planner.calendar.timetable import Timetable

BERLIN = ZoneInfo("Europe/Berlin")
DAY = _dt.date.today() + _dt.timedelta(days=2)
START = _dt.datetime.combine(DAY, _dt.time(19))
CLASS = BusyEvent(START, START + _dt.timedelta(hours=1), "Chemistry")


def write_class(home: Path) -> None:
    from icalendar import Calendar, Event

    calendar = Calendar()
    calendar.add("prodid", "-//test//cache//EN")
    calendar.add("version", "2.0")
    event = Event()
    event.add("uid", "class@example.com")
    event.add("dtstamp", _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC))
    event.add("summary", "Chemistry")
    event.add("dtstart", START)
    event.add("dtend", START + _dt.timedelta(hours=1))
    calendar.add_component(event)
    (home / "busy.ics").write_bytes(calendar.to_ical())


def read(home: Path, zone: _dt.tzinfo | None = BERLIN):
    return read_busy([{"ics": "busy.ics"}], DAY, DAY, home=home, zone=zone)


def the_cache(home: Path) -> Path:
    (path,) = (home / ".planner").glob("busy-*.txt")
    return path


def replace_line(home: Path, kind: str, change) -> None:
    path = the_cache(home)
    lines = path.read_text(encoding="utf-8").split("\n")
    lines = [change(line) if line.startswith(kind) else line for line in lines]
    path.write_text("\n".join(lines), encoding="utf-8")


def field(number: int, value: str):
    def change(line: str) -> str:
        parts = line.split("\t")
        parts[number] = value
        return "\t".join(parts)
    return change


DAMAGE = {
    "a time with a zone": ("+", field(1, START.isoformat() + "+01:00")),
    "NaN": ("+", field(2, "NaN")),
    "an end before its start": ("+", field(2, (START - _dt.timedelta(hours=1)).isoformat())),
    "a negative count": ("F", field(1, "-5")),
    "a wrong type": ("F", field(3, "inode")),
    "a title that is not inert": ("+", field(3, "Chem\x1b[2Jistry")),
    "a day out of range": ("planner-busy-cache", field(3, "10000-01-01")),
    "days ending before they begin": ("planner-busy-cache", field(3, "2000-01-01")),
    "a line of no kind": ("F", lambda line: "?" + line),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_cache_is_one_warning_and_rebuilt(home: Path, damage: str) -> None:
    write_class(home)
    assert read(home) == ((CLASS,), (), ())
    kind, change = DAMAGE[damage]
    replace_line(home, kind, change)
    found = read(home)
    assert found.events == (CLASS,) and found.unknown == ()
    (line,) = found.warnings
    assert line.startswith(f"the busy cache .planner/{the_cache(home).name} was damaged (")
    assert line.endswith("); it is rebuilt from the calendar")
    # rebuilt: the next read finds it whole and says nothing
    loaded = busy_cache.load(the_cache(home), busy_cache.cache_path(
        home, home / "busy.ics", BERLIN)[1])
    assert isinstance(loaded, busy_cache.Cached)
    assert read(home) == ((CLASS,), (), ())


@pytest.mark.parametrize("text", [b"", b"{not json at all\n", b"\xff\xfe\x00garbage",
                                  b"planner-busy-cache-1\tabc\n"])
def test_a_cache_that_is_not_one_is_damaged(home: Path, text: bytes) -> None:
    write_class(home)
    read(home)
    the_cache(home).write_bytes(text)
    found = read(home)
    assert found.events == (CLASS,)
    assert len(found.warnings) == 1 and "damaged" in found.warnings[0]


def test_a_cache_cut_short_is_damaged(home: Path) -> None:
    write_class(home)
    read(home)
    path = the_cache(home)
    path.write_bytes(path.read_bytes()[:-1])
    assert read(home).warnings[0].startswith("the busy cache")


def test_a_cache_of_another_version_is_rebuilt_without_a_word(home: Path) -> None:
    write_class(home)
    read(home)
    replace_line(home, "planner-busy-cache", lambda line: line.replace(
        busy_cache.FORMAT, "planner-busy-cache-0"))
    assert read(home) == ((CLASS,), (), ())


def test_week_says_it_in_one_line(home: Path) -> None:
    write_class(home)
    (home / "config.json").write_text(json.dumps({"busy_calendars": [{"ics": "busy.ics"}]}),
                                      encoding="utf-8")
    first = run_planner("week", "--json", "--start", DAY.isoformat())
    assert first.returncode == 0 and first.stderr == ""
    replace_line(home, "+", field(1, "2026-13-45T99:00:00"))
    damaged = run_planner("week", "--json", "--start", DAY.isoformat())
    assert damaged.returncode == 0
    (line,) = damaged.stderr.splitlines()
    assert "busy cache" in line and "damaged" in line and "Traceback" not in damaged.stderr
    assert json.loads(damaged.stdout)["days"][0]["busy"] == [
        {"start": "19:00", "end": "20:00", "title": "Chemistry"}]
    again = run_planner("week", "--json", "--start", DAY.isoformat())
    assert again.stderr == "" and again.stdout == damaged.stdout


def test_a_runs_free_slots_say_it_once(home: Path) -> None:
    write_class(home)
    read(home)
    replace_line(home, "F", field(2, "-1x"))
    timetable = Timetable(home=home, mode="live", hours={"daily": ((18 * 60, 21 * 60),)},
                          daily_minutes=None, review_time="19:00", today=_dt.date.today(),
                          sources=[{"ics": "busy.ics"}], zone=BERLIN)
    (day,) = timetable.free_days(DAY, 1, 30)
    assert day["slots"] == [{"start": "18:00", "end": "19:00"}, {"start": "20:00", "end": "21:00"}]
    assert "busy_unknown" not in day
    (line,) = timetable.unsaid_warnings()
    assert "damaged" in line
    assert timetable.unsaid_warnings() == ()


def test_the_line_is_chinese_in_chinese(home: Path) -> None:
    import os

    write_class(home)
    (home / "config.json").write_text(json.dumps({"busy_calendars": [{"ics": "busy.ics"}]}),
                                      encoding="utf-8")
    chinese = {**os.environ, "LANGUAGE": "zh_CN"}
    run_planner("week", "--json", "--start", DAY.isoformat(), env=chinese)
    replace_line(home, "+", field(1, START.isoformat() + "Z"))
    done = run_planner("week", "--json", "--start", DAY.isoformat(), env=chinese)
    assert done.returncode == 0
    assert done.stderr == (f"忙碌时间缓存 .planner/{the_cache(home).name} "
                           "已损坏（含有带时区的时间）；已从日历重新生成\n")
