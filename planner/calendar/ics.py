"""Saved plans as iCalendar (RFC 5545) events; the only module that imports icalendar."""

# icalendar costs ~50 ms to import, so it is imported inside the functions that write or read
# calendar text: only the calendar commands pay for it, and an unchanged vdir not even then.
#
# Events: the caller builds one EventSpec per plan or series session (events_from_rows does it
# from `list_plans` rows, done and dropped included); plan_events checks and lays them out
# (same-day events one after another from review_time, in the order they were saved), and each
# is written by icalendar with a digest of what it is made from (X-PLANNER-SOURCE), so an
# unchanged event is known without writing it again.
#
# Time zones: each plan starts at review_time on its date, local time. When the local zone
# has an IANA name (TZ, or the /etc/localtime link), DTSTART carries that TZID and the file
# holds a VTIMEZONE built for the years the plans span, so a calendar in another zone still
# shows the right moment. When the zone has no name (a POSIX TZ string such as "CST-8"), the
# start is converted with the system's own rules for that date and written in UTC.

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
from collections.abc import Iterable
from typing import NamedTuple

from planner.base import days
from planner.base.errors import UsageError
from planner.base.i18n import _, language, t
from planner.plans.files import ListedPlan, PlanRow, is_run_id


class CalendarRefused(UsageError, ValueError):
    """A plan that cannot become a calendar event (its UID, its time): exit 2."""


PRODID = "-//planner//review plans//EN"
ALARM_BEFORE = _dt.timedelta(minutes=10)
DEFAULT_NAME = "planner reviews"
# The default name in each language (README "中文界面"): a calendar_name set in config is used as it
# is.
DEFAULT_NAMES = {"en": DEFAULT_NAME, "zh": "planner 复习"}


def calendar_name(configured: str) -> str:
    """Config's calendar_name; the default one in the person's language."""
    return DEFAULT_NAMES.get(language(), configured) if configured == DEFAULT_NAME else configured


def written_source(planned: Planned) -> str:
    """X-PLANNER-SOURCE: the digest, and the language (other than English) the words are in,
    so a change of language rewrites each event once (README "中文界面")."""
    return planned.source if language() == "en" else f"{planned.source}.{language()}"
UID_SUFFIX = "@planner"
# A planner UID: a run ID, a session number for a series, @planner (written unescaped).
_UID = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,110}@planner", re.ASCII)
# An event whose plan's saving time is unknown (an older run ID) last changed "long ago".
_UNKNOWN = _dt.datetime(2000, 1, 1, tzinfo=_dt.UTC)
_LAST_SECOND = _dt.datetime(9999, 12, 31, 23, 59, 59)  # UTC, as LAST-MODIFIED is written
_TAIL = b"END:VCALENDAR\r\n"
_HEADS: dict[tuple[object, ...], bytes] = {}
_FOLD = re.compile(rb"\r?\n[ \t]")
_UID_LINE = re.compile(rb"^UID(?:;[^:\r\n]*)?:([^\r\n]*)", re.M | re.I)
_PRODID = re.compile(rb"^PRODID(?:;[^:\r\n]*)?:([^\r\n]*)", re.M | re.I)
_CALNAME = re.compile(rb"^X-WR-CALNAME(?:;[^:\r\n]*)?:([^\r\n]*)", re.M | re.I)
# These three lines are never folded (short values), so they are matched as written.
_SEQUENCE = re.compile(rb"^SEQUENCE:([0-9]{1,9})\r?$", re.M)
_MODIFIED = re.compile(rb"^LAST-MODIFIED:([0-9]{8}T[0-9]{6}Z)\r?$", re.M)
_VOLATILE = re.compile(rb"^DTSTAMP:[^\r\n]*\r?\n", re.M)
_SOURCE = re.compile(rb"^X-PLANNER-SOURCE:([0-9a-f]{32}(?:\.[a-z]{2})?)\r?$", re.M)
# Raised whenever the way an event is written changes, so every event is written anew once.
_FORMAT = 1
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
    clock = days.parse_clock(text)
    if clock is None:
        raise CalendarRefused(t("review_time must be a 24-hour time \"HH:MM\", got {value}",
                           value=repr(text)))
    return clock


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


def start_of(date: _dt.date, clock: _dt.time, zone: LocalZone, after: int = 0) -> _dt.datetime:
    """When an event on `date` starts, `after` minutes past `clock`: aware, zoned or in UTC."""
    wall = _dt.datetime.combine(date, clock)
    wall += _dt.timedelta(minutes=after)
    if zone.tzinfo is not None:
        return wall.replace(tzinfo=zone.tzinfo)
    # A naive datetime's astimezone() reads the C library's local time rules (TZ included),
    # including summer time on that very date.
    return wall.astimezone().astimezone(_dt.UTC)


# --- events -------------------------------------------------------------------------------------


class EventSpec(NamedTuple):
    """One calendar event: a plan, or one session of a series; built by the caller."""

    uid: str  # event_uid(run_id) or event_uid(run_id, n)
    date: _dt.date
    minutes: int
    title: str
    notes: tuple[tuple[str, str | None], ...]  # (note ID, title as saved or None)
    file: str  # the plan file, as shown to the person
    simulated: bool
    done: bool = False  # reviewed: DESCRIPTION starts with "done"
    dropped: bool = False  # `planner drop`: STATUS:CANCELLED
    saved_order: str = ""  # sorts same-day events in the order they were saved (the run ID)
    created: _dt.datetime | None = None  # when the plan was saved: LAST-MODIFIED of a new event
    # The start the plan gives (README "Your week"); None: laid out from review_time
    start: _dt.time | None = None
    # A plain export's revision (README "中文界面"): how often the review log changed the event, and
    # when
    # it last did (LAST-MODIFIED, if later than the plan's saving).
    sequence: int = 0
    modified: _dt.datetime | None = None


class Item(NamedTuple):
    """One event as a calendar object of its own (a vdir file, a CalDAV resource)."""

    uid: str
    data: bytes


class Revision(NamedTuple):
    """An event as it should now be written, and what changed: created, updated or unchanged."""

    data: bytes
    change: str


def event_uid(run_id: str, session: int | None = None) -> str:
    """`<run_id>@planner`, or `<run_id>-<n>@planner` for session n (from 1) of a series."""
    # A UID is written unescaped and becomes a file name: only planner's run-ID form.
    if not is_run_id(run_id):
        raise CalendarRefused(t("{run_id} cannot become a calendar UID", run_id=repr(run_id)))
    if session is None:
        return f"{run_id}{UID_SUFFIX}"
    if type(session) is not int or session < 1:
        raise CalendarRefused(t("session numbers start at 1, got {session}", session=repr(session)))
    return f"{run_id}-{session}{UID_SUFFIX}"


def events_from_rows(rows: Iterable[ListedPlan]) -> list[EventSpec]:
    """One EventSpec per `list_plans` row: a plan, or one session of a series (its own UID,
    `<run_id>-<n>@planner`), marked done or dropped as the row says; a file that cannot be
    used is left out."""
    events = []
    for row in rows:
        if not isinstance(row, PlanRow):
            continue
        if not is_run_id(row.run_id):
            raise CalendarRefused(t("{file}: its run ID cannot become a calendar UID",
                               file=row.file))
        notes = tuple((note.id, note.title) for note in row.notes)
        events.append(EventSpec(
            event_uid(row.run_id, row.session), row.date, row.minutes,
            row.title, notes, row.file, row.simulated, done=bool(row.done),
            dropped=bool(row.dropped), saved_order=row.run_id,
            created=created_from_run_id(row.run_id), start=row.start))
    return events


def created_from_run_id(run_id: str) -> _dt.datetime | None:
    """When a run started, read from its ID (`20261130T100000123456Z-...`), or None."""
    try:
        return _dt.datetime.strptime(run_id[:22], "%Y%m%dT%H%M%S%fZ").replace(tzinfo=_dt.UTC)
    except ValueError:
        return None


def calendar_ics(events: Iterable[EventSpec], review_time: str, *, name: str = DEFAULT_NAME,
                 now: _dt.datetime | None = None, zone: LocalZone | None = None,
                 previous: bytes | None = None) -> bytes:
    """One calendar file (METHOD:PUBLISH, named); `previous`, an earlier copy, keeps revisions."""
    zone = local_zone() if zone is None else zone
    planned = plan_events(events, review_time, zone)
    earlier = _vevents(previous) if previous else {}
    blocks = []
    for event in planned:
        old = earlier.get(event.spec.uid)
        if old is not None and source_of(old) == written_source(event):
            blocks.append(old)  # made from the same plan as before: kept as it was written
        else:
            block = _render(event, now)
            blocks.append(block if old is None else revise(block, old, now).data)
    years = [event.start.year for event in planned]
    head = _head({"method": "PUBLISH", "name": _text(name), "x-wr-calname": _text(name)},
                 zone, min(years, default=0), max(years, default=0))
    return b"".join([head, *blocks, _TAIL])


def event_items(events: Iterable[EventSpec], review_time: str, *,
                now: _dt.datetime | None = None, zone: LocalZone | None = None) -> list[Item]:
    """Each event as a calendar object of its own, SEQUENCE 0 (pass each through revise)."""
    zone = local_zone() if zone is None else zone
    return render_items(plan_events(events, review_time, zone), zone, now)


class Planned(NamedTuple):
    """An event placed in time, with a digest of everything its text is made from."""

    spec: EventSpec
    start: _dt.datetime
    source: str  # written as X-PLANNER-SOURCE: the same digest, the same event


def plan_events(events: Iterable[EventSpec], review_time: str,
                zone: LocalZone | None = None) -> list[Planned]:
    """The events checked and laid out in time, without writing any calendar text."""
    zone = local_zone() if zone is None else zone
    clock = parse_clock(review_time)
    events = list(events)
    after = layout(events)
    planned, seen = [], set()
    for spec in events:
        if not _UID.fullmatch(spec.uid):
            raise CalendarRefused(t("{file}: {uid} is not a planner calendar UID", file=spec.file,
                               uid=repr(spec.uid)))
        if spec.uid in seen:
            # Two events with one UID would merge into one in every calendar.
            raise CalendarRefused(t("{file}: the calendar UID {uid} appears twice", file=spec.file,
                               uid=spec.uid))
        seen.add(spec.uid)
        try:
            if spec.start is not None:
                start = start_of(spec.date, spec.start, zone)
            else:
                start = start_of(spec.date, clock, zone, after[spec.uid])
        except (OverflowError, ValueError):  # ValueError: "year 10000 is out of range"
            # README "A screen you can trust": plan dates end at 9999-12-30, but the plans before it
            # that day can push
            # its start past the calendar's end. One line, like any event that cannot be made.
            raise CalendarRefused(t("{file}: its event on {date} would start too near the end of "
                               "the calendar (9999-12-31), after the plans before it that day",
                               file=spec.file, date=spec.date.isoformat())) from None
        # Everything the event's text is made from, except `created` (only a new event's
        # LAST-MODIFIED) and `saved_order` (already in `start`).
        made_of = [_FORMAT, spec.uid, start.isoformat(), str(start.tzinfo), spec.minutes,
                   spec.title, spec.notes, spec.file, spec.simulated, spec.done, spec.dropped]
        digest = hashlib.sha256(json.dumps(made_of, ensure_ascii=False).encode("utf-8"))
        planned.append(Planned(spec, start, digest.hexdigest()[:32]))
    return planned


def render_items(planned: Iterable[Planned], zone: LocalZone,
                 now: _dt.datetime | None = None) -> list[Item]:
    """Planned events as calendar objects of their own, written by icalendar."""
    # RFC 4791 4.1: a calendar object resource carries no METHOD; the name is the collection's.
    return [Item(event.spec.uid, _head({}, zone, event.start.year, event.start.year)
                 + _render(event, now) + _TAIL) for event in planned]


def source_of(data: bytes) -> str | None:
    """The X-PLANNER-SOURCE digest in an event planner wrote, or None."""
    match = _SOURCE.search(data)
    return match[1].decode("ascii") if match else None


def _render(planned: Planned, now: _dt.datetime | None) -> bytes:
    """BEGIN:VEVENT ... END:VEVENT with SEQUENCE 0 and LAST-MODIFIED = when it was saved."""
    from icalendar import Alarm, Event

    spec = planned.spec
    title = _text(spec.title)
    event = Event()
    event.add("uid", spec.uid)
    event.add("dtstamp", _stamp(now))
    event.add("sequence", spec.sequence)
    # With no earlier copy to compare with, the event last changed when its plan was saved, or
    # when the review log last changed it.
    changed = spec.created or _UNKNOWN
    if spec.modified is not None and spec.modified > changed:
        changed = spec.modified
    event.add("last-modified", _second(changed))
    event.add("summary", title)
    event.add("description", _description(spec))
    event.add("dtstart", planned.start)
    event.add("duration", _dt.timedelta(minutes=spec.minutes))
    event.add("status", "CANCELLED" if spec.dropped else "CONFIRMED")
    event.add("x-planner-source", written_source(planned))
    if not (spec.done or spec.dropped):
        # No reminder for a review that happened or will not happen.
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", title)
        alarm.add("trigger", -ALARM_BEFORE)
        event.add_component(alarm)
    return bytes(event.to_ical())


def layout(events: list[EventSpec]) -> dict[str, int]:
    """Minutes after review_time at which each event without its own start begins: same-day
    events one after another, in the order they were saved; a dropped event takes no time."""
    by_date: dict[_dt.date, list[EventSpec]] = {}
    for spec in events:
        if spec.start is None:
            by_date.setdefault(spec.date, []).append(spec)
    after = {}
    for same_day in by_date.values():
        taken = 0
        for spec in sorted(same_day, key=lambda spec: (spec.saved_order, spec.uid)):
            after[spec.uid] = taken
            if not spec.dropped:
                taken += spec.minutes
    return after


def _head(properties: dict[str, str], zone: LocalZone, first: int, last: int) -> bytes:
    """BEGIN:VCALENDAR, its properties and the VTIMEZONE for the years first..last."""
    key = (tuple(properties.items()), zone.name, first, last)
    head = _HEADS.get(key)
    if head is None:
        from icalendar import Calendar, Timezone

        calendar = Calendar()
        calendar.add("prodid", PRODID)
        calendar.add("version", "2.0")
        calendar.add("calscale", "GREGORIAN")
        for name, value in properties.items():
            calendar.add(name, value)
        if first and zone.name not in (None, "UTC"):
            # Only the years the events span: a VTIMEZONE from 1970 to 2038 costs ~10 ms.
            try:
                calendar.add_component(Timezone.from_tzid(
                    zone.name, first_date=_dt.date(first - 1, 1, 1),
                    last_date=_dt.date(last + 2, 1, 1)))
            except (ValueError, OverflowError):
                # A zone icalendar does not know, or years at the calendar's edge (0 or 10000
                # does not exist): DTSTART still names the zone (as before).
                pass
        head = calendar.to_ical().removesuffix(_TAIL)
        _HEADS[key] = head
    return head


def _description(spec: EventSpec) -> str:
    """`done` for a reviewed event, then the notes' IDs and titles (as saved) and the file."""
    # In the person's language (README "中文界面"); the file and the notes' words as they are.
    lines = [_("done"), ""] if spec.done else []
    lines.append(_("Notes to review:"))
    for note_id, title in spec.notes:
        lines.append(_text(f"{note_id}  {title}" if title else note_id))
    saved = (_("Saved by planner in {file} (a simulated demo plan)") if spec.simulated else
             _("Saved by planner in {file}"))
    lines += ["", _text(saved.format(file=spec.file))]
    return "\n".join(lines)


def _stamp(now: _dt.datetime | None) -> _dt.datetime:
    return _second(now or _dt.datetime.now(_dt.UTC))


def _second(moment: _dt.datetime) -> _dt.datetime:
    return moment.astimezone(_dt.UTC).replace(microsecond=0)


def _text(value: str) -> str:
    """Text for a calendar property: control characters shown escaped, never written raw."""
    if value.isprintable():
        return value
    return _CONTROL.sub(_escaped, value)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


# --- revisions: SEQUENCE and LAST-MODIFIED follow content ---------------------------------------
# No state file: the earlier copy (the feed, the vdir file, the server's event) holds the event's
# SEQUENCE and LAST-MODIFIED. Unchanged content keeps both; changed content gets SEQUENCE + 1 and
# LAST-MODIFIED = now. Content is the VEVENT without DTSTAMP, SEQUENCE and LAST-MODIFIED.


def revise(new: bytes, previous: bytes | None, now: _dt.datetime | None = None) -> Revision:
    """`new` (from event_items or a VEVENT block) stamped against its earlier copy, if any."""
    if previous is None:
        return Revision(new, "created")
    uid = item_uid(new)
    old = _vevents(previous).get(uid or "")
    if old is None:
        return Revision(new, "created")
    sequence, modified = _revision_of(old)
    kept = _restamp(new, sequence, modified)
    # Our own earlier copy differs at most in DTSTAMP; a server's copy is written its own way
    # (order, folding, line ends), so the content is then compared as parsed by icalendar.
    if without_stamps(kept) == without_stamps(previous):
        return Revision(kept, "unchanged")
    content = _content(previous, uid)
    if content is not None and content == _content(new, uid):
        return Revision(kept, "unchanged")
    moment = _stamp(now)
    try:
        last = _dt.datetime.strptime((modified or b"").decode(), "%Y%m%dT%H%M%SZ")
    except ValueError:
        last = None  # none, or no real time (a 30 February, year 0): now is later enough
    # Later than the earlier copy, unless it is the calendar's last second (README "A screen you can
    # trust").
    if last is not None and last < _LAST_SECOND:
        moment = max(moment, last.replace(tzinfo=_dt.UTC) + _dt.timedelta(seconds=1))
    return Revision(_restamp(new, sequence + 1, moment.strftime("%Y%m%dT%H%M%SZ").encode()),
                    "updated")


def without_stamps(data: bytes) -> bytes:
    """A calendar text without its DTSTAMP lines, the one thing that changes on every export."""
    return _VOLATILE.sub(b"", data)


def item_uid(data: bytes) -> str | None:
    """The UID of the first VEVENT in a calendar text, or None."""
    # Found directly rather than through _vevents: a vdir export asks this of every file.
    begin = data.find(b"BEGIN:VEVENT")
    end = data.find(b"END:VEVENT", begin)
    if begin < 0 or end < 0:
        return None
    return _value(_UID_LINE, _unfold(data[begin:end]))


def calendar_identity(data: bytes) -> tuple[str | None, str | None]:
    """A calendar text's PRODID and X-WR-CALNAME as written (escaped), or None for each."""
    # The calendar's own properties come before its first component (RFC 5545 3.6).
    end = data.find(b"\nBEGIN:", data.find(b"BEGIN:VCALENDAR") + 1)
    header = _unfold(data if end < 0 else data[:end + 1])
    return _value(_PRODID, header), _value(_CALNAME, header)


def is_planner_item(data: bytes) -> bool:
    """Whether a calendar object was written by planner: its PRODID and an @planner UID."""
    prodid, _ = calendar_identity(data)
    uid = item_uid(data)
    return prodid == PRODID and uid is not None and uid.endswith(UID_SUFFIX)


def _vevents(data: bytes) -> dict[str, bytes]:
    """Each VEVENT of a calendar text by UID, as written (folded lines, any line ends)."""
    found: dict[str, bytes] = {}
    begin = position = 0
    inside = False
    for line in data.splitlines(keepends=True):
        name = line.rstrip(b"\r\n").upper()
        if name == b"BEGIN:VEVENT":
            begin, inside = position, True
        position += len(line)
        if name == b"END:VEVENT" and inside:
            inside = False
            block = data[begin:position]
            uid = _value(_UID_LINE, _unfold(block))
            if uid is not None:
                found.setdefault(uid, block)
    return found


def _revision_of(block: bytes) -> tuple[int, bytes | None]:
    """An earlier copy's SEQUENCE (0 if absent) and LAST-MODIFIED (as written, or None)."""
    sequence = _SEQUENCE.search(block)
    modified = _MODIFIED.search(block)
    return (int(sequence[1]) if sequence else 0), (modified[1] if modified else None)


def _restamp(data: bytes, sequence: int, modified: bytes | None) -> bytes:
    """Our own `data` (CRLF lines) with its VEVENT's SEQUENCE and LAST-MODIFIED replaced."""
    at = data.find(b"BEGIN:VEVENT")
    event = _SEQUENCE.sub(b"SEQUENCE:%d\r" % sequence, data[at:], count=1)
    if modified is not None:
        event = _MODIFIED.sub(b"LAST-MODIFIED:" + modified + b"\r", event, count=1)
    return data[:at] + event


def _content(data: bytes, uid: str | None) -> bytes | None:
    """The VEVENT with this UID as icalendar writes it, without DTSTAMP, SEQUENCE,
    LAST-MODIFIED and X-PLANNER-SOURCE; None when it cannot be read."""
    from icalendar import Calendar

    try:
        calendar = Calendar.from_ical(data)
        for event in calendar.walk("VEVENT"):
            if str(event.get("UID")) == uid:
                for name in ("DTSTAMP", "SEQUENCE", "LAST-MODIFIED", "X-PLANNER-SOURCE"):
                    event.pop(name, None)
                return bytes(event.to_ical())
    except Exception:  # a copy icalendar cannot read counts as changed
        pass
    return None


def _unfold(data: bytes) -> bytes:
    return _FOLD.sub(b"", data)


def _value(pattern: re.Pattern[bytes], text: bytes) -> str | None:
    match = pattern.search(text)
    return match[1].decode("utf-8", "replace") if match else None
