"""Free time (README "Your week"): study windows minus taken spans, and the checks of one session.

Pure arithmetic on naive local datetimes: no files, servers or clocks. Windows are minutes after
midnight, (start, end), start before end, sorted and not overlapping (planner.base.study_hours);
a window may end at 1440, midnight at the end of the day. Taken spans are busy events and the
sessions of saved plans; they may lie on any day (one across midnight takes from both days).

What `session_problem` says is for the model, so it holds times and dates only: never an
event's title, place or description (free/busy, as CalDAV's own free-busy query returns).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import NamedTuple

from planner.base.i18n import t
from planner.base.study_hours import WEEKDAYS, Window, clock


class Span(NamedTuple):
    """A stretch of local wall-clock time, start before end (naive datetimes)."""

    start: _dt.datetime
    end: _dt.datetime


def free_spans(day: _dt.date, windows: Sequence[Window], taken: Sequence[Span], at_least: int,
               minutes_left: int | None) -> list[Span]:
    """The free stretches of at least `at_least` minutes inside `day`'s windows, after every
    taken span; none when `minutes_left` (the day's budget left, None: no limit) is less."""
    if minutes_left is not None and minutes_left < at_least:
        return []
    need = _dt.timedelta(minutes=at_least)
    midnight = _dt.datetime.combine(day, _dt.time())
    blocking = sorted(span for span in taken if span.end > span.start)
    free = []
    for first, last in windows:
        cursor = midnight + _dt.timedelta(minutes=first)
        end = midnight + _dt.timedelta(minutes=last)
        for span in blocking:
            if span.end <= cursor:
                continue
            if span.start >= end:
                break
            if span.start - cursor >= need:
                free.append(Span(cursor, span.start))
            cursor = max(cursor, span.end)
            if cursor >= end:
                break
        if end - cursor >= need:
            free.append(Span(cursor, end))
    return free


def session_problem(start: _dt.datetime, minutes: int, windows: Sequence[Window],
                    busy: Sequence[Span], plans: Sequence[Span], planned_minutes: int,
                    daily_minutes: int | None, until: _dt.date | None,
                    anki_minutes: int = 0) -> str | None:
    """None when a session of `minutes` from `start` may be planned; else the one reason, as a
    line for the model (times only, never a title). Checked in this order: the deadline, the
    study hours of that day, busy time, saved plans, the day's budget of minutes
    (`planned_minutes`, of which `anki_minutes` are Anki's reviews)."""
    day = start.date()
    end = start + _dt.timedelta(minutes=minutes)
    if until is not None and day > until:
        return t("{date} is after the deadline {until}", date=day.isoformat(),
                 until=until.isoformat())
    problem = _outside_hours(start, end, windows)
    if problem is not None:
        return problem
    session = Span(start, end)
    for span in sorted(busy):
        if _overlap(session, span):
            first, last = _shown_span(span, day)
            return t("overlaps busy time {start}–{end} on {date}", start=first, end=last,
                     date=day.isoformat())
    for span in sorted(plans):
        if _overlap(session, span):
            first, last = _shown_span(span, day)
            return t("overlaps the saved plan at {start}–{end} on {date}", start=first,
                     end=last, date=day.isoformat())
    if daily_minutes is not None and planned_minutes + minutes > daily_minutes and anki_minutes:
        return t("would make {date} hold {total} minutes of review, {anki} of them Anki's; "
                 "daily_minutes is {most}", date=day.isoformat(),
                 total=planned_minutes + minutes, anki=anki_minutes, most=daily_minutes)
    if daily_minutes is not None and planned_minutes + minutes > daily_minutes:
        return t("would make {date} hold {total} planned minutes; daily_minutes is {most}",
                 date=day.isoformat(), total=planned_minutes + minutes, most=daily_minutes)
    return None


def _outside_hours(start: _dt.datetime, end: _dt.datetime,
                   windows: Sequence[Window]) -> str | None:
    day = start.date()
    if not windows:
        return t("{date} has no study hours ({weekday}); choose another date",
                 date=day.isoformat(), weekday=WEEKDAYS[day.weekday()])
    midnight = _dt.datetime.combine(day, _dt.time())
    for first, last in windows:
        window_start = midnight + _dt.timedelta(minutes=first)
        window_end = midnight + _dt.timedelta(minutes=last)
        if window_start <= start < window_end:
            if end <= window_end:
                return None
            return t("ends at {time} on {date}, after the study hours of that day end ({end})",
                     time=end.strftime("%H:%M"), date=end.date().isoformat(),
                     end=clock(last) if last < 24 * 60 else "24:00")
    return t("starts at {time} on {date}, outside the study hours of that day ({hours})",
             time=start.strftime("%H:%M"), date=day.isoformat(), hours=_hours(windows))


def _hours(windows: Sequence[Window]) -> str:
    """Windows as "19:00–22:00,06:30–07:30" (no spaces: the words the model has always been
    sent)."""
    return ",".join(f"{clock(first)}–{clock(last) if last < 24 * 60 else '24:00'}"
                     for first, last in windows)


def _overlap(one: Span, other: Span) -> bool:
    """Whether two spans share time; spans that only touch do not."""
    return other.start < one.end and one.start < other.end


def _shown_span(span: Span, day: _dt.date) -> tuple[str, str]:
    """A span's ends as HH:MM; an end on another day than `day` also names its date."""
    return _moment(span.start, day), _moment(span.end, day)


def _moment(moment: _dt.datetime, day: _dt.date) -> str:
    if moment.date() == day:
        return moment.strftime("%H:%M")
    if moment.date() == day + _dt.timedelta(days=1) and moment.time() == _dt.time():
        return "24:00"
    return f"{moment.date().isoformat()} {moment.strftime('%H:%M')}"
