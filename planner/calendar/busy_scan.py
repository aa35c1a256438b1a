"""What busy time is read from calendar text (README "Your week" Speed): the lines it needs, and a
byte scan
that tells a file whose every event lies outside the days asked for without parsing it.

A vdir of years of events is mostly outside any window, and a real calendar file is mostly
descriptions, attendees, alarms and time zone rules: `may_touch` spares the parser the first,
`essentials` the second. Both are conservative: what they do not recognise is kept or parsed.
"""

from __future__ import annotations

import datetime as _dt
import re

# --- what is parsed ---------------------------------------------------------------------------

# The lines busy time is made of; the rest (descriptions, attendees, alarms, stamps) is most of
# a real calendar file's bytes and most of the parser's time (README "Your week" Speed).
_KEPT = re.compile(rb"^(?:BEGIN|END|CALSCALE|X-WR-TIMEZONE|UID|DTSTART|DTEND|DURATION|RRULE|RDATE|"
                   rb"EXDATE|EXRULE|RECURRENCE-ID|SEQUENCE|STATUS|TRANSP|SUMMARY)[;:][^\r\n]*"
                   rb"(?:\r?\n|$)", re.M | re.I)
# A block is found by its two ends, each a pattern of its own: one pattern from BEGIN to END
# tries every later BEGIN again when no END follows (quadratic time on a hostile file).
_TIMEZONE = (re.compile(rb"^BEGIN:VTIMEZONE\r?\n", re.M | re.I),
             re.compile(rb"^END:VTIMEZONE[^\r\n]*(?:\r?\n|$)", re.M | re.I))
_ALARMS = (re.compile(rb"^BEGIN:VALARM\r?\n", re.M | re.I),
           re.compile(rb"^END:VALARM[^\r\n]*(?:\r?\n|$)", re.M | re.I))
_TZID = re.compile(rb";TZID=\"?([^;:\"\r\n]*)", re.I)
_KNOWN_ZONES: dict[bytes, bool] = {}


def essentials(data: bytes) -> bytes:
    """The calendar text with only what busy time needs: lines unfolded, alarms dropped, event
    lines other than times, rules, identity, status, transparency and title dropped, and the
    VTIMEZONE blocks dropped when every TZID is a zone the system knows by name (the parser
    then uses the system's rules for it, as calendar programs do); kept whole otherwise."""
    text = _UNFOLD.sub(b"", data)
    if b"BEGIN:VALARM" in text.upper():
        text = _without(text, _blocks(text, *_ALARMS))
    zones = b""
    if b"VTIMEZONE" in text.upper():
        spans = _blocks(text, *_TIMEZONE)
        if not all(_known_zone(name) for name in set(_TZID.findall(text))):
            zones = b"".join(text[start:end] for start, end in spans)
        text = _without(text, spans)
    kept = b"".join(match.group(0) for match in _KEPT.finditer(text))
    if not zones:
        return kept
    # The zones go back in right after the calendar's first line.
    first, _, rest = kept.partition(b"\n")
    return first + b"\n" + zones + rest


def _blocks(text: bytes, begin: re.Pattern[bytes], end: re.Pattern[bytes]) -> list[tuple[int, int]]:
    """Where each block from a `begin` line to the next `end` line lies, in one pass."""
    spans = []
    position = 0
    while (opened := begin.search(text, position)) is not None:
        closed = end.search(text, opened.end())
        if closed is None:
            break  # no END after this BEGIN: none after any later one either
        spans.append((opened.start(), closed.end()))
        position = closed.end()
    return spans


def _without(text: bytes, spans: list[tuple[int, int]]) -> bytes:
    kept, position = [], 0
    for start, end in spans:
        kept.append(text[position:start])
        position = end
    kept.append(text[position:])
    return b"".join(kept)


def _known_zone(name: bytes) -> bool:
    known = _KNOWN_ZONES.get(name)
    if known is None:
        from zoneinfo import ZoneInfo

        try:
            ZoneInfo(name.decode("ascii"))
            known = True
        except (ValueError, OSError, KeyError, UnicodeDecodeError):
            known = False
        if len(_KNOWN_ZONES) < 1000:
            _KNOWN_ZONES[name] = known
    return known


# --- the byte scan that spares parsing --------------------------------------------------------

_UNFOLD = re.compile(rb"\r?\n[ \t]")
_START = re.compile(rb"^DTSTART(?:;[^:\r\n]*)?:([0-9]{8})(?:T[0-9]{6}Z?)?\r?$", re.M)
_END = re.compile(rb"^DTEND(?:;[^:\r\n]*)?:([0-9]{8})(?:T[0-9]{6}Z?)?\r?$", re.M)
_DURATION = re.compile(rb"^DURATION(?:;[^:\r\n]*)?:\+?P(?:([0-9]{1,6})W|(?:([0-9]{1,6})D)?"
                       rb"(?:T(?:([0-9]{1,7})H)?(?:([0-9]{1,9})M)?(?:([0-9]{1,9})S)?)?)\r?$",
                       re.M)
_RRULE = re.compile(rb"^RRULE(?:;[^:\r\n]*)?:([^\r\n]*)\r?$", re.M)
# Every line naming a property the scan reads: each must also match its strict form above.
_NAMED = re.compile(rb"^(DTSTART|DTEND|DURATION|RRULE)[;:]", re.M)
_UNTIL = re.compile(rb"(?:^|;)UNTIL=([0-9]{8})(?:T[0-9]{6}Z?)?(?:;|\r?$)")
_MARGIN = _dt.timedelta(days=2)


def may_touch(data: bytes, first_day: _dt.date, last_day: _dt.date) -> bool:
    """False only when every event of the file provably lies outside first_day … last_day (with two
    days' margin for time zones); True whenever the scan is unsure, so the file is parsed."""
    text = data.upper()
    head = text.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"BEGIN:VCALENDAR") or b"END:VCALENDAR" not in text:
        return True  # not a calendar: parsing says so
    if b"RDATE" in text or b"RANGE=" in text:
        return True
    if b"\n " in text or b"\n\t" in text:
        text = _UNFOLD.sub(b"", text)
    blocks = text.split(b"BEGIN:VEVENT")[1:]
    # (the margin stops at the calendar's ends: no event lies beyond them)
    first = first_day - _MARGIN if first_day > _dt.date.min + _MARGIN else _dt.date.min
    last = last_day + _MARGIN if last_day < _dt.date.max - _MARGIN else _dt.date.max
    for block in blocks:
        block = block.split(b"END:VEVENT", 1)[0]
        if b"BEGIN:VALARM" in block:  # an alarm's own DURATION is not the event's
            block = _without_alarms(block)
        span = _dates(block)
        if span is None:
            return True
        begins, ends, rule = span
        if begins > last:
            continue  # an event and all its repeats start after the window
        if rule is None:
            if ends < first:
                continue
            return True
        until = _UNTIL.search(rule)
        if until is None or b"COUNT=" in rule:
            return True
        last_start = _date(until[1])
        if last_start is None or last_start + (ends - begins) >= first:
            return True
    return False


def _without_alarms(block: bytes) -> bytes:
    """The block with each BEGIN:VALARM … END:VALARM cut out (upper-case text), in one pass."""
    kept, position = [], 0
    while (start := block.find(b"BEGIN:VALARM", position)) >= 0:
        end = block.find(b"END:VALARM", start + len(b"BEGIN:VALARM"))
        if end < 0:
            break
        kept.append(block[position:start])
        position = end + len(b"END:VALARM")
    kept.append(block[position:])
    return b"".join(kept)


def _dates(block: bytes) -> tuple[_dt.date, _dt.date, bytes | None] | None:
    """An event block's start date, end date (at least the start) and RRULE; None if unsure."""
    named = _NAMED.findall(block)
    starts = _START.findall(block)
    rules = _RRULE.findall(block)
    ends_found = _END.findall(block)
    durations = list(_DURATION.finditer(block))
    if (len(starts) != 1 or len(rules) > 1 or len(ends_found) + len(durations) > 1
            or len(named) != len(starts) + len(rules) + len(ends_found) + len(durations)
            or (begins := _date(starts[0])) is None):
        return None
    if ends_found:
        ends = _date(ends_found[0])
        if ends is None:
            return None
    elif durations:
        match = durations[0]
        weeks, days, hours, minutes, seconds = (int(part or 0) for part in match.groups())
        length = _dt.timedelta(weeks=weeks, days=days, hours=hours, minutes=minutes,
                               seconds=seconds)
        try:
            ends = begins + _dt.timedelta(days=length.days + 1)
        except OverflowError:
            return None
    else:
        ends = begins + _dt.timedelta(days=1) if begins < _dt.date.max else begins
    return begins, max(ends, begins), rules[0] if rules else None


def _date(digits: bytes) -> _dt.date | None:
    try:
        return _dt.date(int(digits[:4]), int(digits[4:6]), int(digits[6:8]))
    except ValueError:
        return None
