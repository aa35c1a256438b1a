"""Dates as a person reads them: the weekday and how far away the day is."""

from __future__ import annotations

import datetime as _dt

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def parse_day(date: object) -> _dt.date | None:
    """The day an ISO date names; None when it names none."""
    try:
        return _dt.date.fromisoformat(date) if isinstance(date, str) else None
    except ValueError:
        return None


def describe_date(date: str, today: _dt.date) -> str:
    """A date as a person reads it: `2026-12-08 (Tuesday, in 8 days)`."""
    day = parse_day(date)
    if day is None:
        return str(date)
    return f"{date} ({WEEKDAYS[day.weekday()]}, {distance(day, today)})"


def distance(day: _dt.date, today: _dt.date) -> str:
    """`today`, `tomorrow`, `yesterday`, `in N days` or `N days ago`."""
    days = (day - today).days
    if days == 0:
        return "today"
    if days == 1:
        return "tomorrow"
    if days == -1:
        return "yesterday"
    return f"in {days:,} days" if days > 0 else f"{-days:,} days ago"
