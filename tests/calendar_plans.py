"""Plans placed on calendars: khal's agenda, a class timetable folder, plans saved on given
days."""

from __future__ import annotations

import datetime as _dt
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import today
from people import ScriptedPerson
from plan_files import day as plans_day
from plan_files import save_review
from plan_files import write_raw as write
from stub_server import Reply, StubServer

from planner.base.config import load_config
from planner.cli.run import timetable_for
from planner.conversation.flow import run_flow
from planner.model.client import LiveClient
from planner.notes.catalog import SAMPLE_NOTES

KHAL = str(Path(sys.executable).with_name("khal"))
BERLIN = "Europe/Berlin"


def day(offset: int) -> str:
    """The date `offset` days from today in Berlin, where the planner under test runs."""
    return plans_day(offset, BERLIN)


def save(home: Path, run_id: str, offset: int, **details: object) -> Path:
    """A plan file `offset` days from today in Berlin (plan_files.save_review)."""
    return save_review(home, run_id, offset, zone=BERLIN, **details)  # type: ignore[arg-type]


class Khal:
    """khal with its own config, calendar folder and cache in a temporary folder."""

    def __init__(self, root: Path, zone: str = BERLIN) -> None:
        root.mkdir()
        self.calendar = root / "calendar"
        self.calendar.mkdir()
        self.config = root / "khal.conf"
        self.config.write_text(
            "[calendars]\n[[planner]]\n"
            f"path = {self.calendar}\ntype = calendar\n"
            f"[sqlite]\npath = {root / 'khal.db'}\n"
            f"[locale]\nlocal_timezone = {zone}\ndefault_timezone = {zone}\n"
            "timeformat = %H:%M\ndateformat = %Y-%m-%d\nlongdateformat = %Y-%m-%d\n"
            "datetimeformat = %Y-%m-%d %H:%M\nlongdatetimeformat = %Y-%m-%d %H:%M\n",
            encoding="utf-8")
        # HOME and XDG folders in the temporary folder too: khal reads nothing of this machine's.
        self.env = {**os.environ, "HOME": str(root), "XDG_CONFIG_HOME": str(root / "config"),
                    "XDG_DATA_HOME": str(root / "data"), "XDG_CACHE_HOME": str(root / "cache"),
                    "TZ": "UTC"}

    def run(self, *args: str) -> str:
        done = subprocess.run([KHAL, "-c", str(self.config), *args], capture_output=True,
                              text=True, timeout=120, env=self.env, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def import_file(self, path: Path) -> None:
        self.run("import", "--batch", "-a", "planner", str(path))

    def events(self, start: str, end: str) -> list[dict]:
        fields = ["uid", "title", "start-date", "start-time", "end-time", "duration",
                  "description", "all-day", "alarms-list"]
        out = self.run("list", "--once", *[arg for name in fields for arg in ("--json", name)],
                       start, end)
        # One JSON list per day; days without events print [].
        return [event for line in out.splitlines() if line.strip()
                for event in json.loads(line)]

    def files(self) -> list[str]:
        return sorted(path.name for path in self.calendar.iterdir()
                      if path.name.endswith(".ics"))


def next_weekday(weekday: int, month: int, last: bool) -> _dt.date:
    """The next first/last `weekday` of `month` after today (summer-time changes fall there)."""
    berlin_today = today(BERLIN)
    for year in (berlin_today.year, berlin_today.year + 1):
        days = [_dt.date(year, month, number) for number in range(1, 32)
                if _is_date(year, month, number)]
        matching = [d for d in days if d.weekday() == weekday]
        found = matching[-1] if last else matching[0]
        if found > berlin_today:
            return found
    raise AssertionError("unreachable")


def _is_date(year: int, month: int, number: int) -> bool:
    try:
        _dt.date(year, month, number)
    except ValueError:
        return False
    return True


def offset_of(date: _dt.date) -> int:
    return (date - today(BERLIN)).days


def build_plans(home: Path) -> dict[str, tuple[str, int, str]]:
    """Plans on ordinary days and on both summer-time change days; run_id -> (date, min, title)."""
    spring = offset_of(next_weekday(6, 3, last=True))   # last Sunday of March
    autumn = offset_of(next_weekday(6, 10, last=True))  # last Sunday of October
    wanted = {
        "20261130T100000000000Z-aaaaa1": (1, 20, "RAG基础复习"),
        "20261130T100000000000Z-aaaaa2": (9, 45, "Vector search; chunking, again"),
        "20261130T100000000000Z-aaaaa3": (spring, 30, "Spring forward"),
        "20261130T100000000000Z-aaaaa4": (autumn, 120, "Fall back"),
        "20261130T100000000000Z-aaaaa5": (0, 1, "Today, one minute"),
    }
    for run_id, (offset, minutes, title) in wanted.items():
        save(home, run_id, offset, minutes=minutes, title=title)
    # Version 1: the UID comes from the file name.
    write(home, "20261001T000000000000Z-0b0b0b.json", {
        "simulated": False,
        "plan": {"title": "Old format", "note_ids": ["N3"], "date": day(3), "minutes": 25}})
    save(home, "20261130T100000000000Z-past01", -2, title="Already past")
    result = {run_id: (day(offset), minutes, title)
              for run_id, (offset, minutes, title) in wanted.items()}
    result["20261001T000000000000Z-0b0b0b"] = (day(3), 25, "Old format")
    return result


def clock(minutes: int, start: str = "19:00") -> str:
    hours, mins = map(int, start.split(":"))
    end = hours * 60 + mins + minutes
    return f"{end // 60 % 24:02d}:{end % 60:02d}"


def check_in_khal(agenda: Khal, expected: dict, start: str = "19:00") -> None:
    events = agenda.events(day(-400), day(800))
    assert sorted(event["uid"] for event in events) == sorted(f"{r}@planner" for r in expected)
    for event in events:
        date, minutes, title = expected[event["uid"].removesuffix("@planner")]
        assert event["title"] == title
        assert event["start-date"] == date
        assert event["start-time"] == start
        assert event["end-time"] == clock(minutes, start)
        assert event["all-day"] == "False"
        assert [alarm["delta"] for alarm in event["alarms-list"]] == [-600.0]
    assert agenda.files() == sorted(f"{r}@planner.ics" for r in expected)


SECRET = "Organic Chemistry SECRET-7f3a"
PLACE = "Lab building B-SECRET"
KEY = "sk-test-week"


def weekday_in(days: int) -> _dt.date:
    return today() + _dt.timedelta(days=days)


DAY = weekday_in(3)  # the class is weekly on this weekday, 19:00-20:00 local time


def write_class_vdir(folder: Path, day: _dt.date = DAY) -> Path:
    """A vdir as khal keeps it: a weekly class (one exception), a cancelled and a transparent
    event, an all-day event marked free, and one of planner's own events."""
    from icalendar import Calendar, Event

    folder.mkdir(parents=True, exist_ok=True)

    def put(name: str, **fields: object) -> None:
        calendar = Calendar()
        calendar.add("prodid", "-//test//week//EN")
        calendar.add("version", "2.0")
        event = Event()
        for key, value in fields.items():
            event.add(key.replace("_", "-"), value)
        calendar.add_component(event)
        (folder / f"{name}.ics").write_bytes(calendar.to_ical())

    start = _dt.datetime.combine(day, _dt.time(19))
    put("class", uid="class-1@uni", dtstamp=_dt.datetime(2026, 1, 1, tzinfo=_dt.UTC),
        summary=SECRET, location=PLACE, description="bring the lab coat SECRET",
        dtstart=start, dtend=start + _dt.timedelta(hours=1),
        rrule={"freq": "weekly", "count": 10},
        exdate=[start + _dt.timedelta(weeks=2)])
    put("cancelled", uid="c@uni", dtstamp=_dt.datetime(2026, 1, 1, tzinfo=_dt.UTC),
        summary="cancelled talk", status="CANCELLED",
        dtstart=start + _dt.timedelta(hours=1), dtend=start + _dt.timedelta(hours=2))
    put("free", uid="f@uni", dtstamp=_dt.datetime(2026, 1, 1, tzinfo=_dt.UTC),
        summary="reminder only", transp="TRANSPARENT",
        dtstart=start + _dt.timedelta(hours=1), dtend=start + _dt.timedelta(hours=2))
    # Marked free, as calendar programs mark a "free" all-day event (an unmarked one is busy).
    put("allday", uid="a@uni", dtstamp=_dt.datetime(2026, 1, 1, tzinfo=_dt.UTC),
        summary="holiday", dtstart=day, dtend=day + _dt.timedelta(days=1), transp="TRANSPARENT")
    put("ours", uid="20261101T100000000000Z-abcdef@planner",
        dtstamp=_dt.datetime(2026, 1, 1, tzinfo=_dt.UTC), summary="an exported plan",
        dtstart=start + _dt.timedelta(hours=1), dtend=start + _dt.timedelta(hours=2))
    return folder


def configure(home: Path, url: str = "http://127.0.0.1:9", **values: object):
    data = {"model": "stub-model", "base_url": url, "timeout_seconds": 5, "max_calls": 4,
            "max_repairs": 2, "study_hours": {"daily": ["19:00-22:00"]},
            "busy_calendars": [{"vdir": "classes"}], **values}
    (home / "config.json").write_text(json.dumps(data), encoding="utf-8")
    return load_config(home / "config.json")


def run(home: Path, server: StubServer, *replies: dict, answers=("SAVE\n",),
        until: _dt.date | None = None, request: str = "plan N1 for me", **config: object):
    """One live run of `request` through the real SDK; the person types `answers` at the SAVE
    prompts."""
    server.add(*(Reply(body=reply) for reply in replies))
    settings = configure(home, server.url, **config)
    person = ScriptedPerson(list(answers), save_only=True)
    outcome = run_flow(request, client=LiveClient(settings, KEY), person=person,
                       home=home, config=settings, notes=SAMPLE_NOTES, mode="live",
                       today=today(),
                       timetable=timetable_for(settings, home, "live", today(), until))
    return outcome, person


def results_sent(server: StubServer) -> list[dict]:
    """Every tool result the model was sent (the last request holds them all), decoded."""
    messages = server.requests[-1].body["messages"]
    return [json.loads(message["content"]) for message in messages if message["role"] == "tool"]
