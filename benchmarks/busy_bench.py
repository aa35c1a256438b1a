"""Time reading busy time (README "Your week") from a vdir of 10,000 events, a quarter weekly
recurring.

Usage: .venv/bin/python benchmarks/busy_bench.py [--events N] [--days D] [--repeat R]

Builds a vdir in a temporary folder, one .ics per event as vdirsyncer keeps them: three quarters
single events spread from three years ago to a year ahead (half in UTC, half in Europe/Berlin
with its VTIMEZONE), a quarter weekly series starting in the last three years, most of them
ending after a term (UNTIL), one in ten open-ended. Then, in fresh processes (each pays for its
own imports, which are timed too), times `read_busy` for today … D days on: with the cache in
.planner/ warm (as planner runs from the second time on: no file read, icalendar not imported),
without the cache (every file read; the byte scan spares parsing those outside the window), and
without the cache or the scan. Prints the medians of R runs and how many events were found.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BERLIN = """BEGIN:VTIMEZONE\r
TZID:Europe/Berlin\r
BEGIN:DAYLIGHT\r
TZOFFSETFROM:+0100\r
TZOFFSETTO:+0200\r
TZNAME:CEST\r
DTSTART:19700329T020000\r
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\r
END:DAYLIGHT\r
BEGIN:STANDARD\r
TZOFFSETFROM:+0200\r
TZOFFSETTO:+0100\r
TZNAME:CET\r
DTSTART:19701025T030000\r
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\r
END:STANDARD\r
END:VTIMEZONE\r
"""


def event_text(uid: str, start: _dt.datetime, minutes: int, summary: str, berlin: bool,
               rule: str | None) -> bytes:
    """One calendar file with one event, as a calendar program writes it."""
    if berlin:
        head, when = BERLIN, f"DTSTART;TZID=Europe/Berlin:{start:%Y%m%dT%H%M%S}\r\n"
        end = f"DTEND;TZID=Europe/Berlin:{start + _dt.timedelta(minutes=minutes):%Y%m%dT%H%M%S}"
    else:
        head, when = "", f"DTSTART:{start:%Y%m%dT%H%M%S}Z\r\n"
        end = f"DTEND:{start + _dt.timedelta(minutes=minutes):%Y%m%dT%H%M%S}Z"
    lines = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Example//Calendar//EN\r\n" + head
             + f"BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20250101T000000Z\r\n" + when + end + "\r\n"
             + (f"RRULE:{rule}\r\n" if rule else "")
             + f"SUMMARY:{summary}\r\nLOCATION:Room 4\r\nDESCRIPTION:Bring the notes from "
             "last time\\, and the book.\r\nSTATUS:CONFIRMED\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")
    return lines.encode("utf-8")


def make_vdir(folder: Path, today: _dt.date, events: int = 10_000, seed: int = 23) -> None:
    """`events` files: a quarter weekly series, the rest single events (see the module doc)."""
    chance = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(events):
        recurring = number % 4 == 0
        if recurring:
            day = today - _dt.timedelta(days=chance.randrange(0, 3 * 365))
            if chance.random() < 0.1:
                rule = "FREQ=WEEKLY"
            else:
                until = day + _dt.timedelta(weeks=chance.randrange(4, 27))
                rule = f"FREQ=WEEKLY;UNTIL={until:%Y%m%d}T235959Z"
        else:
            day = today + _dt.timedelta(days=chance.randrange(-3 * 365, 365))
            rule = None
        start = _dt.datetime.combine(day, _dt.time(chance.randrange(7, 21),
                                                   chance.choice((0, 15, 30, 45))))
        uid = f"{number:05d}-{chance.getrandbits(48):012x}@example.com"
        (folder / f"{uid}.ics").write_bytes(event_text(
            uid, start, chance.choice((30, 45, 60, 90, 120)), f"Event {number}",
            number % 2 == 0, rule))


RUN = """
import datetime as _dt, sys, time
from pathlib import Path
from zoneinfo import ZoneInfo
from planner.calendar import busy
if sys.argv[3] == "off":
    busy._may_touch = lambda data, window: True
first = _dt.date.fromisoformat(sys.argv[2])
last = first + _dt.timedelta(days=int(sys.argv[4]))
started = time.perf_counter()
found = busy.read_busy([{"vdir": sys.argv[1]}], first, last, home=Path(sys.argv[5]),
                       zone=ZoneInfo("Europe/Berlin"), cache=sys.argv[3] == "warm")
took = time.perf_counter() - started
print(took, int("icalendar" in sys.modules), len(found.events), len(found.unknown))
"""


def run(vdir: Path, home: Path, today: _dt.date, mode: str, days: int) -> tuple:
    output = subprocess.run([sys.executable, "-c", RUN, str(vdir), today.isoformat(), mode,
                             str(days), str(home)], check=True, capture_output=True, text=True,
                            cwd=ROOT).stdout.split()
    return float(output[0]), int(output[1]), int(output[2]), int(output[3])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    today = _dt.date.today()
    with tempfile.TemporaryDirectory() as temporary:
        vdir = Path(temporary) / "vdir"
        make_vdir(vdir, today, arguments.events)
        home = Path(temporary) / "home"
        home.mkdir()
        run(vdir, home, today, "warm", arguments.days)  # fills the cache
        names = {"warm": "cache warm", "cold": "no cache, byte scan",
                 "off": "no cache, no byte scan"}
        for mode in ("warm", "cold", "off"):
            runs = [run(vdir, home, today, mode, arguments.days)
                    for _ in range(arguments.repeat)]
            took = statistics.median(row[0] for row in runs)
            print(f"{names[mode]:24}: read_busy median {took:.3f} s of {arguments.repeat} "
                  f"(runs {', '.join(f'{row[0]:.3f}' for row in runs)}); icalendar imported: "
                  f"{bool(runs[0][1])}; {runs[0][2]} busy events, {runs[0][3]} unknown")


if __name__ == "__main__":
    main()
