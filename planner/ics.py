"""Saved plans as an iCalendar (RFC 5545) file; the only module that imports icalendar."""

# icalendar costs ~50 ms to import, so it is imported inside export_ics: only
# `planner export` pays for it.
#
# Time zones: each plan starts at review_time on its date, local time. When the local zone
# has an IANA name (TZ, or the /etc/localtime link), DTSTART carries that TZID and the file
# holds a VTIMEZONE built for the years the plans span, so a calendar in another zone still
# shows the right moment. When the zone has no name (a POSIX TZ string such as "CST-8"), the
# start is converted with the system's own rules for that date and written in UTC.

from __future__ import annotations

import datetime as _dt
import os
import re
from collections.abc import Iterable
from typing import NamedTuple

from planner.plans import is_run_id

PRODID = "-//planner//review plans//EN"
ALARM_BEFORE = _dt.timedelta(minutes=10)
_CLOCK = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])", re.ASCII)
_UTC_NAMES = frozenset({"UTC", "Etc/UTC", "Etc/UCT", "UCT", "Etc/Universal", "Universal",
                        "Etc/Zulu", "Zulu", "GMT", "Etc/GMT", "Etc/GMT0", "Etc/GMT+0",
                        "Etc/GMT-0", "GMT0", "GMT+0", "GMT-0", "Etc/Greenwich", "Greenwich"})
_ZONEINFO = "/zoneinfo/"
# Characters a calendar's text never holds raw (RFC 5545 3.3.11 allows HTAB; line breaks are
# written by the library): every other C0 control and DEL, the C1 controls, and the invisible
# format characters that reorder or hide text (bidi marks, embeddings, overrides and isolates,
# zero-width space, line and paragraph separators, BOM); the joiners U+200C/D are kept.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028-\u202e"
                      "\u2060-\u2069\ufeff\ufff9-\ufffb]")


class LocalZone(NamedTuple):
    """The local time zone: its IANA name and tzinfo, or (None, None) for 'convert to UTC'."""

    name: str | None
    tzinfo: _dt.tzinfo | None


def parse_clock(text: str) -> _dt.time:
    """"HH:MM" (24-hour) as a time; ValueError naming the rule otherwise."""
    match = _CLOCK.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"review_time must be a 24-hour time \"HH:MM\", got {text!r}")
    return _dt.time(int(match[1]), int(match[2]))


def local_zone() -> LocalZone:
    """The machine's local zone by IANA name when it has one; UTC zones give datetime.UTC."""
    name = _local_zone_name()
    if name is None:
        return LocalZone(None, None)
    if name in _UTC_NAMES:
        return LocalZone("UTC", _dt.UTC)
    from zoneinfo import ZoneInfo

    try:
        return LocalZone(name, ZoneInfo(name))
    except (KeyError, ValueError, OSError):  # ZoneInfoNotFoundError is a KeyError
        return LocalZone(None, None)


def _local_zone_name() -> str | None:
    tz = os.environ.get("TZ")
    if tz is not None:
        name = tz.removeprefix(":")
        if not name:
            return "UTC"  # an empty TZ means UTC to the C library
        if name.startswith("/"):
            return _name_from_path(name)
        # A name such as Asia/Shanghai; a POSIX rule such as "CST-8" has no file and is
        # refused by ZoneInfo, which sends it to the UTC conversion.
        return name if _is_zone_name(name) else None
    try:
        return _name_from_path(os.path.realpath("/etc/localtime"))
    except OSError:
        return None


def _name_from_path(path: str) -> str | None:
    index = path.rfind(_ZONEINFO)
    if index < 0:
        return None
    name = path[index + len(_ZONEINFO):]
    # Debian's zoneinfo also has posix/ and right/ copies of every zone.
    name = name.removeprefix("posix/")
    return name if _is_zone_name(name) and not name.startswith("right/") else None


def _is_zone_name(name: str) -> bool:
    return bool(name) and name.isascii() and ".." not in name and not name.startswith("/") \
        and all(part and (part[0].isalpha() or part[0] == "_") for part in name.split("/"))


def start_of(date: str, clock: _dt.time, zone: LocalZone) -> _dt.datetime:
    """When a plan on `date` starts: aware, in the named zone, or converted to UTC."""
    wall = _dt.datetime.combine(_dt.date.fromisoformat(date), clock)
    if zone.tzinfo is not None:
        return wall.replace(tzinfo=zone.tzinfo)
    # A naive datetime's astimezone() reads the C library's local time rules (TZ included),
    # including summer time on that very date.
    return wall.astimezone().astimezone(_dt.UTC)


def export_ics(rows: Iterable[dict], review_time: str, now: _dt.datetime | None = None,
               zone: LocalZone | None = None) -> bytes:
    """One VEVENT per plan row (rows with a problem are left out) as iCalendar bytes."""
    from icalendar import Alarm, Calendar, Event

    clock = parse_clock(review_time)
    zone = local_zone() if zone is None else zone
    stamp = (now or _dt.datetime.now(_dt.UTC)).astimezone(_dt.UTC).replace(microsecond=0)
    duration = _dt.timedelta(minutes=1)
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    first = last = None
    for row in rows:
        if row.get("problem") is not None:
            continue
        start = start_of(row["date"], clock, zone)
        first = start if first is None or start < first else first
        last = start if last is None or start > last else last
        title = _text(row["title"])
        event = Event()
        # The run ID is fixed when the plan is saved: importing again updates the same event.
        # plans.read_plan checked it (letters, digits, '.', '_', '-'); checked again here
        # because a UID is written unescaped.
        if not is_run_id(row["run_id"]):
            raise ValueError(f"{row['file']}: its run ID cannot become a calendar UID")
        event.add("uid", f"{row['run_id']}@planner")
        event.add("dtstamp", stamp)
        event.add("summary", title)
        event.add("description", _description(row))
        event.add("dtstart", start)
        event.add("duration", duration * row["minutes"])
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", title)
        alarm.add("trigger", -ALARM_BEFORE)
        event.add_component(alarm)
        calendar.add_component(event)
    if first is not None and last is not None and zone.name not in (None, "UTC"):
        # Only the years the plans span: a VTIMEZONE from 1970 to 2038 costs ~10 ms to build.
        calendar.add_missing_timezones(
            first_date=_dt.date(first.year - 1, 1, 1), last_date=_dt.date(last.year + 2, 1, 1)
        )
    return calendar.to_ical()


def _description(row: dict) -> str:
    """The notes' IDs and titles (as saved), one per line, and the plan file."""
    lines = ["Notes to review:"]
    for note in row["notes"]:
        title = note.get("title")
        lines.append(_text(f"{note['id']}  {title}" if title else note["id"]))
    simulated = " (a simulated demo plan)" if row["simulated"] else ""
    lines += ["", _text(f"Saved by planner in {row['file']}{simulated}")]
    return "\n".join(lines)


def _text(value: str) -> str:
    """Text for a calendar property: control characters shown escaped, never written raw."""
    if value.isprintable():
        return value
    return _CONTROL.sub(_escaped, value)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
