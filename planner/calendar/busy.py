"""Busy time from the person's calendars (README "Your week"): an .ics file, a vdir folder, a
CalDAV calendar.

Three small readers behind `read_busy`, as vdirsyncer keeps one module per store: each turns its
source into calendar text, and one expander turns calendar text into busy intervals. They only
ever read. This is the only module that imports recurring_ical_events, and it parses calendars
with icalendar (ics.py writes them); both are imported lazily, when a calendar is read.

What counts as busy: every occurrence (recurring events expanded) overlapping the window, except
events planner wrote (UID ending @planner), cancelled ones and TRANSP:TRANSPARENT ones. An
all-day event (DTSTART a date) is busy like any other unless marked TRANSP:TRANSPARENT (RFC
5545's default; calendar programs mark their "free" all-day events so), or its source says
`"all_day": "free"` (a birthdays calendar). An event with no end lasts as RFC 5545 says: a
day for a date, nothing for a date-time (so it takes no time). Times are converted to the local
zone and made naive (wall_clock); floating times and dates are local wall-clock time already.
Aware times are compared as aware times: an event during the hour lived twice when the clocks go
back covers the wall-clock times it touches, never dropped because its naive end is not after
its naive start. Days are kept a day inside the calendar's ends (planner.base.days), and so is
the expander's span; a time that passes an end in the local zone stays at that end.

Bounds (README "Your week"): 16 MiB per file, 10,000 occurrences per source overlapping the window,
and, so
one rule cannot hold the run, a repeating rule whose expansion up to the window would take more
than a million steps; and, so many small rules cannot hold it either, one budget per source (a
file, a whole vdir, one CalDAV answer) for all its events: every event, every listed date, every
step its rules may take up to the window and every occurrence the expander yields count against
MAX_SOURCE_STEPS, and the expansion stops after MAX_SECONDS whatever took them. Past one, or
when a source cannot be read (missing, not a calendar, a
broken event anywhere in it, a server that refuses or times out), the source gives no events at
all: one warning line names it, its label goes in `unknown`, and the other sources still count.
A vdir with one broken file is unknown as a whole: its other files alone would show time free
that the broken one may hold.

Speed (README "Your week"): a file source's occurrences are kept in `.planner/` (busy_cache) for
the window
and AHEAD_DAYS on, keyed by each file's size, modification time and inode, so an unchanged vdir
is only listed and stat'ed (icalendar is not even imported). A file read anew is first scanned
as bytes (busy_scan.may_touch: one whose every event provably lies outside those days is not
parsed), and only the lines busy time needs are parsed (busy_scan.essentials). CalDAV is never
cached: one time-range query per source per call.

Titles (SUMMARY) are made inert here and cut to TITLE_CHARS, so a BusyEvent can be printed as it
is; they are for the person's screen only, never the model's request. Source labels and the
warning lines are inert too.
"""

from __future__ import annotations

import datetime as _dt
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from planner.base import storage
from planner.base.days import FIRST_DAY, LAST_DAY
from planner.base.i18n import t
from planner.base.inert import inert_line
from planner.base.oserrors import os_reason
from planner.calendar import busy_scan, wall_clock

MAX_FILE_BYTES = 16 * storage.MIB
MAX_EVENTS = 10_000
MAX_VDIR_FILES = 100_000
MAX_VDIR_BYTES = 512 * storage.MIB
MAX_RULE_STEPS = 1_000_000
# One budget per source (an .ics file, a whole vdir, one CalDAV answer) for all of its events:
# every event, every RDATE/EXDATE and every step its rules may take up to the window counts, and
# every occurrence the expander yields; past it, or past MAX_SECONDS, its busy time is unknown.
MAX_SOURCE_STEPS = 2_000_000
MAX_SECONDS = 8.0
TITLE_CHARS = 200
# File sources' occurrences are worked out (and cached) for the window and at least this many
# days on, so the next days' runs find them in the cache.
AHEAD_DAYS = 120
# Occurrences are asked for this much beyond the window on each side, then cut exactly in the
# local zone: no zone is more than 26 hours from another.
_PAD = _dt.timedelta(days=2)
_LABEL_CHARS = 120
_BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark, which some programs write first


class BusyEvent(NamedTuple):
    """One busy occurrence: naive local wall-clock times, end after start."""

    start: _dt.datetime
    end: _dt.datetime
    title: str  # SUMMARY, inert and cut; "" if none. For the person's screen only.
    all_day: bool = False  # DTSTART a date: shown as a line on its days (README "Your week")


class BusyTimes(NamedTuple):
    events: tuple[BusyEvent, ...]  # sorted by start
    unknown: tuple[str, ...]  # the label of each source whose busy time is unknown
    warnings: tuple[str, ...]  # one line each, naming the source


class _Unknown(Exception):
    """A source whose busy time cannot be known; str() is why (without the source's name),
    or, with `whole`, the whole line (a CalDAV message already names the server)."""

    def __init__(self, why: str, whole: bool = False) -> None:
        super().__init__(why)
        self.whole = whole


class _Window(NamedTuple):
    first: _dt.date
    last: _dt.date
    start: _dt.datetime  # first 00:00, local
    end: _dt.datetime  # the day after last, 00:00, local


def _window(first: _dt.date, last: _dt.date) -> _Window:
    return _Window(first, last, _dt.datetime.combine(first, _dt.time()),
                   _dt.datetime.combine(last + _dt.timedelta(days=1), _dt.time()))


# (start, end, title, all-day): local times; title None for an occurrence that is not busy.
Occurrence = tuple[_dt.datetime, _dt.datetime, str | None, bool]


def read_busy(sources: Sequence[Mapping[str, str]], first: _dt.date, last: _dt.date, *,
              home: Path, zone: _dt.tzinfo | None,
              caldav_password: Callable[[str, str | None], str | None] | None = None,
              timeout: float = 30, cache: bool = True) -> BusyTimes:
    """Busy time overlapping the days `first` … `last` from every source; never raises for a
    source that cannot be read (its label goes in `unknown`, with a warning line).

    `sources` are checked config entries: {"ics": PATH}, {"vdir": DIR} (relative to `home`) or
    {"caldav": URL, "calendar": NAME?, "user": USER?}. `zone`: the local zone (None: the
    system's). `caldav_password(url, user)` gives a CalDAV source's password (None: none); it is
    called only for CalDAV sources. `timeout`: seconds per read from a server, each request
    ending after it plus a margin in all. `cache`: keep the busy time of file sources in
    `home`/.planner/ (busy_cache), so unchanged files are not read again.
    """
    # Only days planner can use (planner.base.days), so every time worked out from them exists.
    first, last = min(max(first, FIRST_DAY), LAST_DAY), min(max(last, FIRST_DAY), LAST_DAY)
    window = _window(first, max(first, last))
    events: list[BusyEvent] = []
    unknown: list[str] = []
    warnings: list[str] = []
    for source in sources:
        label = source_label(source)
        counter = _Counter(window)
        try:
            found = _read_source(source, window, home, zone, caldav_password, timeout, cache,
                                 counter)
            free_all_day = source.get("all_day") == "free"
            events.extend(event for event in found if not (free_all_day and event.all_day))
        except _Unknown as problem:
            warnings.extend(counter.said)
            unknown.append(label)
            warnings.append(str(problem) if problem.whole else t(
                "busy calendar {source} {why}; its busy time is unknown", source=label,
                why=str(problem)))
        else:
            warnings.extend(counter.said)
    events.sort()
    return BusyTimes(tuple(events), tuple(unknown), tuple(warnings))


def source_label(source: Mapping[str, str]) -> str:
    """A short, inert name for a source: its path or URL (no password), and calendar name."""
    if "caldav" in source:
        from planner.calendar.caldav_sync import shown_url

        label = shown_url(str(source["caldav"]))
        if source.get("calendar"):
            label += f" ({source['calendar']})"
    else:
        label = str(source.get("ics") or source.get("vdir") or "?")
    label = inert_line(label)
    return label if len(label) <= _LABEL_CHARS else "…" + label[-(_LABEL_CHARS - 1):]


def _read_source(source: Mapping[str, str], window: _Window, home: Path,
                 zone: _dt.tzinfo | None,
                 password: Callable[[str, str | None], str | None] | None,
                 timeout: float, cache: bool, counter: _Counter) -> list[BusyEvent]:
    if "ics" in source:
        path = home / source["ics"]
        return _read_files(path, [(path.name, str(path))], False, window, zone, counter,
                           home if cache else None)
    if "vdir" in source:
        folder = home / source["vdir"]
        return _read_files(folder, _vdir_files(folder), True, window, zone, counter,
                           home if cache else None)
    return _read_caldav(source, window, zone, counter, password, timeout)


# --- the three readers -----------------------------------------------------------------------


def _shown_path(path: Path, home: Path) -> str:
    """A path as the person may find it: relative to the home when inside it."""
    try:
        return str(path.relative_to(home))
    except ValueError:
        return inert_line(str(path))


def _read_file(path: Path | str, entry: str | None) -> bytes:
    """A calendar file's bytes, or _Unknown saying why (naming the vdir entry, if one)."""
    try:
        return storage.read_regular_file(path, MAX_FILE_BYTES)
    except FileNotFoundError:
        why: str = t("does not exist")
    except storage.FileRefused as refused:
        why = refused.reason
    except OSError as error:
        why = t("cannot be read ({why})", why=os_reason(error))
    if entry is None:
        raise _Unknown(why)
    raise _Unknown(t("has a file {file} that {why}", file=entry, why=why))


def _vdir_files(folder: Path) -> list[tuple[str, str]]:
    """Every *.ics file of a vdir folder: name and path (hidden and other files skipped)."""
    try:
        with os.scandir(folder) as found:
            names = sorted((entry.name, entry.path) for entry in found
                           if entry.name.endswith(".ics") and not entry.name.startswith("."))
    except FileNotFoundError:
        raise _Unknown(t("does not exist")) from None
    except NotADirectoryError:
        raise _Unknown(t("is not a folder")) from None
    except OSError as error:
        raise _Unknown(t("cannot be read ({why})",
                         why=os_reason(error))) from None
    if len(names) > MAX_VDIR_FILES:
        raise _Unknown(t("has more than {most:,} calendar files", most=MAX_VDIR_FILES))
    return names


def _read_files(source: Path, files: list[tuple[str, str]], in_vdir: bool, window: _Window,
                zone: _dt.tzinfo | None, counter: _Counter,
                home: Path | None) -> list[BusyEvent]:
    """The busy time of one file source (one .ics file, or a vdir's files), through the cache
    in `home` (None: no cache). Occurrences are worked out for the cache's days (the window
    and AHEAD_DAYS on), so the next runs find them there while the files stay as they are."""
    from planner.calendar import busy_cache

    cached = path = digest = None
    if home is not None:
        path, digest = busy_cache.cache_path(home, source, zone)
        loaded = busy_cache.load(path, digest)
        if isinstance(loaded, busy_cache.Damaged):
            counter.said.append(t("the busy cache {file} was damaged ({why}); it is rebuilt "
                                  "from the calendar", file=_shown_path(path, home),
                                  why=inert_line(loaded.why)))
        else:
            cached = loaded
    if cached is not None and cached.first <= window.first and window.last <= cached.last:
        days, old = _window(cached.first, cached.last), cached.files
    else:
        ahead = min(window.first, LAST_DAY - _dt.timedelta(days=AHEAD_DAYS)) \
            + _dt.timedelta(days=AHEAD_DAYS)
        days = _window(window.first, max(window.last, ahead))
        old = {}
    new: dict[str, tuple[busy_cache.FileKey, list[busy_cache.Occurrence]]] = {}
    events: list[BusyEvent] = []
    total = 0
    changed = False
    for name, path_of_file in files:
        counter.check_time()
        try:
            key = busy_cache.key_of(os.stat(path_of_file))
        except OSError:
            key = None  # reading says why
        total += key.size if key is not None else 0
        if total > MAX_VDIR_BYTES:
            raise _Unknown(t("has more than {size} of calendar files",
                             size=f"{MAX_VDIR_BYTES // storage.MIB} MiB"))
        hit = old.get(name)
        if key is not None and hit is not None and hit[0] == key:
            occurrences = hit[1]
            new[name] = hit
        else:
            changed = True
            entry = inert_line(name) if in_vdir else None
            data = _read_file(path_of_file, entry)
            found = _occurrences(data, days, zone, entry, counter) \
                if _may_touch(data, days) else []
            if found is None:  # too many for the cache's days: the window's alone, uncached
                found = _occurrences(data, window, zone, entry, counter, charge=False)
                if found is None:
                    raise _Unknown(_too_many(window))
            elif key is not None and not any(char in name for char in "\t\n\r"):
                new[name] = (key, found)  # (a name the cache's lines cannot hold: read again)
            occurrences = found
        for start, end, title, all_day in occurrences:
            if start < window.end and end > window.start:
                counter.add()
                if title is not None:
                    events.append(BusyEvent(start, end, title, all_day))
    if home is not None and path is not None and digest is not None and (
            changed or len(new) != len(old) or cached is None
            or (cached.first, cached.last) != (days.first, days.last)):
        busy_cache.save(home, path, digest,
                        busy_cache.Cached(days.first, days.last, new))
    return events


def _read_caldav(source: Mapping[str, str], window: _Window, zone: _dt.tzinfo | None,
                 counter: _Counter, password: Callable[[str, str | None], str | None] | None,
                 timeout: float) -> list[BusyEvent]:
    """The server's time-range query, once, for the window and a margin; expanded here."""
    from planner.calendar import caldav_sync

    url, user = str(source["caldav"]), source.get("user")
    secret = password(url, user) if password is not None else None
    start, end = (wall_clock.aware_utc(wall_clock.shifted(window.start, -_PAD), zone),
                  wall_clock.aware_utc(wall_clock.shifted(window.end, _PAD), zone))
    try:
        found = caldav_sync.time_range(url, source.get("calendar"), user, secret, start, end,
                                       timeout=timeout, most=MAX_EVENTS + 1)
    except caldav_sync.TooMany:
        raise _Unknown(_too_many(window)) from None
    except caldav_sync.SyncError as error:
        raise _Unknown(t("{problem}; its busy time is unknown", problem=str(error)),
                       whole=True) from None
    # The server's time is bounded by `timeout`; the seconds bound the expansion alone.
    counter.deadline = time.monotonic() + MAX_SECONDS
    events: list[BusyEvent] = []
    for data in found:
        occurrences = _occurrences(data, window, zone, None, counter)
        if occurrences is None:
            raise _Unknown(_too_many(window))
        for start, end, title, all_day in occurrences:
            counter.add()
            if title is not None:
                events.append(BusyEvent(start, end, title, all_day))
    return events


# --- calendar text to busy time --------------------------------------------------------------


class _Counter:
    """One source's work so far: occurrences overlapping the window (at most MAX_EVENTS), and
    the steps spent expanding all its events (at most MAX_SOURCE_STEPS, within MAX_SECONDS)."""

    def __init__(self, window: _Window) -> None:
        self.window = window
        self.count = 0
        self.steps = 0.0
        self.said: list[str] = []  # warning lines that do not make the busy time unknown
        self.deadline = time.monotonic() + MAX_SECONDS

    def add(self) -> None:
        self.count += 1
        if self.count > MAX_EVENTS:
            raise _Unknown(_too_many(self.window))

    def spend(self, steps: float = 1) -> None:
        """Count `steps` against the source's budget; _Unknown once it is spent."""
        self.steps += steps
        if self.steps > MAX_SOURCE_STEPS:
            raise _Unknown(t("has too many events and repeats to expand (more than {most:,} "
                             "steps)", most=MAX_SOURCE_STEPS))
        self.check_time()

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise _Unknown(t("took more than {seconds} seconds to read",
                             seconds=f"{MAX_SECONDS:g}"))


def _too_many(window: _Window) -> str:
    return t("has more than {most:,} events from {first} to {last}", most=MAX_EVENTS,
             first=window.first.isoformat(), last=window.last.isoformat())


def _occurrences(data: bytes, days: _Window, zone: _dt.tzinfo | None, entry: str | None,
                 counter: _Counter, charge: bool = True) -> list[Occurrence] | None:
    """Every occurrence in one calendar text overlapping `days`, as local times with its title
    when busy (None when not); None when more than MAX_EVENTS do. _Unknown if it is not a
    calendar, holds an event that cannot be worked out, or spends the source's budget
    (`counter`; `charge`: whether its events and rules are counted, False when the same text is
    expanded again for fewer days)."""
    import icalendar
    import recurring_ical_events

    def broken(why: str) -> _Unknown:
        return _Unknown(why if entry is None else t("has a file {file} that {why}", file=entry,
                                                    why=why))

    try:
        calendar = icalendar.Calendar.from_ical(busy_scan.essentials(
            data.removeprefix(_BOM)))
    except Exception:  # the parser's errors are ValueErrors, but any failure means the same
        raise broken(t("is not an iCalendar file")) from None
    if not isinstance(calendar, icalendar.Calendar) or calendar.name != "VCALENDAR":
        raise broken(t("is not an iCalendar file"))
    found: list[Occurrence] = []
    titles: dict[int, tuple[str | None, bool]] = {}  # per component: title when busy, all-day
    try:
        counter.check_time()
        if charge:
            _check_rules(calendar, days, counter)
        query = recurring_ical_events.of(calendar)
        low, high = wall_clock.shifted(days.start, -_PAD), wall_clock.shifted(days.end, _PAD)
        for series in query.series:
            counter.check_time()
            for occurrence in _between(series, low, high):
                counter.spend()
                start, end = wall_clock.wall_span(occurrence.start, occurrence.end, zone)
                if not (start < days.end and end > days.start) or end <= start:
                    continue  # outside, or takes no time
                if len(found) >= MAX_EVENTS:
                    return None
                component = _source_of(occurrence)
                key = id(component)
                if key not in titles:
                    titles[key] = _busy_title(component), _all_day(component)
                found.append((start, end, *titles[key]))
    except _Unknown:
        raise
    except Exception:  # a rule, date or zone the libraries cannot use: that source is unknown
        raise broken(t("holds an event planner cannot read")) from None
    return found


def _between(series: Any, low: _dt.datetime, high: _dt.datetime) -> Iterator[Any]:
    """A series' occurrences from `low` to `high`. The library widens the span by the series'
    longest event first, which passes the calendar's ends near 0001-01-01 or 9999-12-31: then
    the span is narrowed by that much (nothing planner asks for lies beyond) and asked again."""
    yielded = False
    try:
        for occurrence in series.between(low, high):
            yielded = True
            yield occurrence
        return
    except OverflowError:
        lead = getattr(series, "_subtract_from_start", None)
        if yielded or not isinstance(lead, _dt.timedelta):
            raise
    margin = abs(lead) + _dt.timedelta(days=2)
    low = max(low, _dt.datetime.min + margin) if margin < _dt.timedelta(days=3_000_000) else low
    high = min(high, _dt.datetime.max - margin) if margin < _dt.timedelta(days=3_000_000) \
        else high
    yield from series.between(low, high)


def _check_rules(calendar: Any, window: _Window, counter: _Counter) -> None:
    """Count every event, its listed dates and the steps its rules may take up to the window
    against the source's budget; _Unknown for one rule that would take more than MAX_RULE_STEPS
    to expand, or for a source whose events all together would pass MAX_SOURCE_STEPS."""
    for component in calendar.walk("VEVENT"):
        counter.spend(1 + _listed(component.get("RDATE")) + _listed(component.get("EXDATE")))
        rules = component.get("RRULE")
        if rules is None:
            continue
        start = component.get("DTSTART")
        if start is None:
            continue  # the expander says what is wrong
        begun = start.dt.date() if isinstance(start.dt, _dt.datetime) else start.dt
        days = max((window.last - begun).days + 3, 1)
        for rule in rules if isinstance(rules, list) else [rules]:
            steps = _rule_steps(rule, days)
            if steps > MAX_RULE_STEPS:
                raise _Unknown(t("has an event that repeats too often to expand (UID {uid})",
                                 uid=inert_line(str(component.get("UID", "?")))[:80]))
            counter.spend(steps)


def _listed(value: object) -> int:
    """How many dates an RDATE or EXDATE property (one, or a list of them) lists."""
    if value is None:
        return 0
    total = 0
    for one in value if isinstance(value, list) else [value]:
        total += len(getattr(one, "dts", None) or ()) or 1
    return total


_PER_DAY = {"SECONDLY": 86400.0, "MINUTELY": 1440.0, "HOURLY": 24.0, "DAILY": 1.0,
            "WEEKLY": 1 / 7, "MONTHLY": 1 / 28, "YEARLY": 1 / 365}
_EXPANDING = ("BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO",
              "BYMONTH", "BYSETPOS")


def _rule_steps(rule: Mapping[str, Any], days: int) -> float:
    """At most how many candidates a rule yields over `days` days (a generous estimate)."""
    freq = str((rule.get("FREQ") or ["DAILY"])[0]).upper()
    try:
        interval = max(int((rule.get("INTERVAL") or [1])[0]), 1)
    except (TypeError, ValueError):
        interval = 1
    steps = days * _PER_DAY.get(freq, 86400.0) / interval + 1
    for part in _EXPANDING:
        steps *= max(len(rule.get(part) or ()), 1)
    count = rule.get("COUNT")
    if count:
        try:
            steps = min(steps, int(count[0]) * 8)
        except (TypeError, ValueError):
            pass
    return steps


def _source_of(occurrence: Any) -> Any:
    """The event an occurrence repeats (or the changed instance it is): its UID, status,
    transparency, title and whether it is all-day are the occurrence's. Read from the library's
    occurrence directly; its public copy (as_component) costs more than everything else here."""
    adapter = getattr(occurrence, "_adapter", None)
    component = getattr(adapter, "_component", None)
    return component if component is not None else occurrence.as_component(False)


def _busy_title(component: Any) -> str | None:
    """An event's title (inert, cut) when its occurrences are busy time, else None."""
    if str(component.get("UID", "")).endswith("@planner"):
        return None
    if str(component.get("STATUS", "")).upper() == "CANCELLED":
        return None
    if str(component.get("TRANSP", "")).upper() == "TRANSPARENT":
        return None
    title = inert_line(str(component.get("SUMMARY", "")))
    if len(title) > TITLE_CHARS:
        title = title[:TITLE_CHARS - 1] + "…"
    return title


def _all_day(component: Any) -> bool:
    """Whether an event is all-day: its DTSTART is a date (RFC 5545)."""
    dtstart = component.get("DTSTART")
    return dtstart is not None and not isinstance(dtstart.dt, _dt.datetime)


def _may_touch(data: bytes, window: _Window) -> bool:
    """Whether a file may hold time in the window (busy_scan.may_touch)."""
    return busy_scan.may_touch(data, window.first, window.last)
