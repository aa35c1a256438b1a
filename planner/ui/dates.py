"""Dates as a person reads them: the weekday and how far away the day is."""

from __future__ import annotations

import datetime as _dt

from planner.base.days import AFTER_LAST_DAY, AFTER_LAST_DAY_TEXT, AfterLastDay
from planner.base.i18n import _

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def weekday(day: _dt.date) -> str:
    """The day's weekday in the person's language."""
    return (_("Monday"), _("Tuesday"), _("Wednesday"), _("Thursday"), _("Friday"),
            _("Saturday"), _("Sunday"))[day.weekday()]


def parse_day(date: object) -> _dt.date | None:
    """The day an ISO date names; None when it names none."""
    try:
        return _dt.date.fromisoformat(date) if isinstance(date, str) else None
    except ValueError:
        return None


def parse_due(date: object) -> _dt.date | AfterLastDay | None:
    """A `next_due` as `--json` writes it: a day, AFTER_LAST_DAY (past 9999-12-31), or None."""
    return AFTER_LAST_DAY if date == AFTER_LAST_DAY_TEXT else parse_day(date)


def describe_date(day: _dt.date, today: _dt.date) -> str:
    """A date as a person reads it: `2026-12-08 (Tuesday, in 8 days)`."""
    return _("{date} ({weekday}, {distance})").format(
        date=day.isoformat(), weekday=weekday(day), distance=distance(day, today))


def distance(day: _dt.date, today: _dt.date) -> str:
    """`today`, `tomorrow`, `yesterday`, `in N days` or `N days ago`."""
    days = (day - today).days
    if days == 0:
        return _("today")
    if days == 1:
        return _("tomorrow")
    if days == -1:
        return _("yesterday")
    if days > 0:
        return _("in {days} days").format(days=f"{days:,}")
    return _("{days} days ago").format(days=f"{-days:,}")
