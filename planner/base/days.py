"""The days planner can use: dates at the edges of the calendar (README "A screen you can trust").

Python's calendar runs from 0001-01-01 to 9999-12-31, but a time near either end may not exist
in another time zone: noon of 0001-01-01 in Shanghai is still year 0 in UTC, an evening of
9999-12-31 in New York is already year 10000 there, and converting either raises OverflowError.
No time zone is a day or more away from UTC, so planner reads only what lies at least a day
inside each end: a date (a plan's, a note's `sr-due`, `done --date`) from FIRST_DAY to LAST_DAY,
a time (the review log's) from FIRST_TIME to LAST_TIME. Such a value can be shown as a local date
and placed in UTC in every zone; and the rule is the same in every zone, so a file reads the same
on every machine. A value outside is checked like any other wrong value: its line or file is
skipped with its one warning (an `sr-due` date is ignored, as a typo in it is).

What is computed from these may still pass the end: FSRS schedules a review up to a century
ahead, and a review late in year 9999 (a hand edit, a wrong clock) falls due after 9999-12-31.
Such a due date is AFTER_LAST_DAY, never an error.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import TypeGuard

FIRST_DAY = _dt.date(1, 1, 2)
LAST_DAY = _dt.date(9999, 12, 30)
FIRST_TIME = _dt.datetime(1, 1, 2, tzinfo=_dt.UTC)
LAST_TIME = _dt.datetime(9999, 12, 30, 23, 59, 59, 999999, tzinfo=_dt.UTC)
# How a due date past the calendar's end is written where a date's ISO form goes (`--json`, the
# model's due_notes lookup): valid JSON, a string like the dates it stands beside, sorting after
# every YYYY-MM-DD; null keeps meaning "no due date". Screens show it translated.
AFTER_LAST_DAY_TEXT = "after 9999-12-31"


class AfterLastDay:
    """A due date past 9999-12-31, which no date can hold: only ever the one AFTER_LAST_DAY.

    Its isoformat() is AFTER_LAST_DAY_TEXT, so code that writes a date's ISO form writes it
    unchanged; code that computes with dates (distances, weekdays, comparisons) must look for
    it first, and the type checker makes it.
    """

    __slots__ = ()

    def isoformat(self) -> str:
        """`after 9999-12-31`."""
        return AFTER_LAST_DAY_TEXT

    def __repr__(self) -> str:
        return "AFTER_LAST_DAY"


AFTER_LAST_DAY = AfterLastDay()


def usable_day(day: _dt.date) -> bool:
    """Whether a date read from a file or the command line is one planner can use."""
    return FIRST_DAY <= day <= LAST_DAY


def usable_time(moment: _dt.datetime) -> bool:
    """Whether an aware time (the review log's) is one planner can use in every time zone."""
    return FIRST_TIME <= moment <= LAST_TIME


# The one form of each that plans, the review log, the config and the command line accept; every
# other spelling Python's fromisoformat would take ("20261207", "2026-W49-1", "9:5") is refused.
_DATE_FORM = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
_CLOCK_FORM = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])", re.ASCII)


def date_form(value: object) -> TypeGuard[str]:
    """Whether `value` is text written YYYY-MM-DD (a real calendar day or not)."""
    return type(value) is str and _DATE_FORM.fullmatch(value) is not None


def parse_date(value: object) -> _dt.date | None:
    """`value` as a date when it is written YYYY-MM-DD and names a real calendar day; else None."""
    if not date_form(value):
        return None
    try:
        return _dt.date.fromisoformat(value)
    except ValueError:
        return None


class Clock(_dt.time):
    """A clock time of a plan (hours and minutes), a `time` that prints as plans write it:
    "19:00", never "19:00:00", wherever it is shown."""

    __slots__ = ()

    def __str__(self) -> str:
        return clock_text(self)


def parse_clock(value: object) -> Clock | None:
    """`value` as a time when it is a 24-hour clock time "HH:MM" (00:00 to 23:59); else None."""
    match = _CLOCK_FORM.fullmatch(value) if type(value) is str else None
    return None if match is None else Clock(int(match[1]), int(match[2]))


def read_date(text: str) -> _dt.date:
    """A date that was checked where it was read (a plan file, the review log): ValueError if
    it is not one after all."""
    day = parse_date(text)
    if day is None:
        raise ValueError(text)
    return day


def read_clock(text: str) -> Clock:
    """A clock time that was checked where it was read: ValueError if it is not one."""
    clock = parse_clock(text)
    if clock is None:
        raise ValueError(text)
    return clock


def as_clock(time: _dt.time) -> Clock:
    """The hours and minutes of `time` (a slot's start) as a plan's clock time."""
    return Clock(time.hour, time.minute)


def clock_text(time: _dt.time) -> str:
    """A time as plans write it, "HH:MM"."""
    return f"{time.hour:02d}:{time.minute:02d}"


def minutes_of(time: _dt.time) -> int:
    """A time of day as minutes after midnight."""
    return time.hour * 60 + time.minute
