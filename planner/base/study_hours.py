"""Study hours (README "Your week"): the windows of each weekday, read from config and asked by
date."""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Mapping

from planner.base.days import minutes_of, parse_clock
from planner.base.i18n import t

# Minutes after midnight, start before end: (1140, 1320) is 19:00-22:00.
Window = tuple[int, int]
StudyHours = Mapping[str, tuple[Window, ...]]

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
KEYS = ("daily",) + WEEKDAYS
DEFAULT: StudyHours = {"daily": ((19 * 60, 22 * 60),)}
MAX_WINDOWS = 12  # per day: more is a typo, never a timetable
_WINDOW = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])-([01][0-9]|2[0-3]):([0-5][0-9])",
                     re.ASCII)
_LATEST_END = 22 * 60
_LAST_MINUTE = 23 * 60 + 59


class BadStudyHours(ValueError):
    """A study_hours value that cannot be used; the message says which part and why."""


def parse(value: object) -> dict[str, tuple[Window, ...]]:
    """Check a config study_hours object; never converts a value."""
    if not isinstance(value, dict) or not value:
        raise BadStudyHours(t("must be an object such as {example}",
                               example='{"daily": ["19:00-22:00"]}'))
    parsed: dict[str, tuple[Window, ...]] = {}
    for key, windows in value.items():
        if key not in KEYS:
            raise BadStudyHours(t("has an unknown key {key} (known: {known})", key=_short(key),
                                   known=", ".join(KEYS)))
        if not isinstance(windows, list) or len(windows) > MAX_WINDOWS:
            raise BadStudyHours(t("\"{key}\" must be a list of at most {most} windows "
                                   "\"HH:MM-HH:MM\" (an empty list: no study that day)",
                                   key=key, most=MAX_WINDOWS))
        parsed[key] = _windows(key, windows)
    return parsed


def _windows(key: str, windows: list[object]) -> tuple[Window, ...]:
    result = []
    for text in windows:
        match = _WINDOW.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise BadStudyHours(t("\"{key}\" holds {value}; a window is \"HH:MM-HH:MM\", "
                                   "24-hour clock", key=key, value=_short(text)))
        start = int(match[1]) * 60 + int(match[2])
        end = int(match[3]) * 60 + int(match[4])
        if start >= end:
            raise BadStudyHours(t("\"{key}\" holds {value}, whose start is not before its end",
                                   key=key, value=text))
        result.append((start, end))
    result.sort()
    for (_, end), (start, _) in zip(result, result[1:], strict=False):
        if start < end:
            raise BadStudyHours(t("\"{key}\" has windows that overlap", key=key))
    return tuple(result)


def from_review_time(review_time: str) -> dict[str, tuple[Window, ...]]:
    """The one daily window a config with only review_time means: to 22:00, or 3 hours."""
    clock = parse_clock(review_time)
    assert clock is not None  # config checked it
    start = minutes_of(clock)
    end = min(max(_LATEST_END, start + 180), _LAST_MINUTE)
    if end <= start:  # review_time 23:59: a window of one minute would fit nothing
        start = end - 1
    return {"daily": ((start, end),)}


def windows_on(hours: StudyHours, day: _dt.date) -> tuple[Window, ...]:
    """The study windows of `day`: its weekday's own, else the daily ones, else none."""
    weekday = WEEKDAYS[day.weekday()]
    if weekday in hours:
        return tuple(hours[weekday])
    return tuple(hours.get("daily", ()))


def clock(minutes: int) -> str:
    """Minutes after midnight as HH:MM."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def shown(windows: tuple[Window, ...]) -> list[str]:
    """Windows as the "HH:MM-HH:MM" texts config uses."""
    return [f"{clock(start)}-{clock(end)}" for start, end in windows]


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."
