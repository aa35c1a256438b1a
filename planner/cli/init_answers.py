"""The answers of `planner init` read as values: study hours and a goal's day (README "The first
ten minutes"). An answer that cannot be used is Refused, its message saying why."""

from __future__ import annotations

from planner.base.i18n import _

NONE_WORDS = frozenset({"none", "无", "不"})  # a day with no study hours (`fri none`)


class Refused(Exception):
    """An answer that cannot be used; the message says why."""


def hours_answer(answer: str) -> dict[str, list[str]]:
    """`19:00-22:00` or `mon 18:00-20:00, 21:00-22:00; daily 19:00-22:00` as study_hours."""
    hours: dict[str, list[str]] = {}
    for part in answer.split(";"):
        words = part.replace(",", " ").split()
        if not words:
            continue
        # A first word without a digit names the day (daily, mon, ...); an unknown one goes to
        # the check as it is, and so does a window that is not one: its line names the problem.
        named = not any(char.isdigit() for char in words[0])
        day, windows = (words[0].lower(), words[1:]) if named else ("daily", words)
        if named and len(windows) == 1 and windows[0].lower() in NONE_WORDS:
            windows = []  # `fri none`: no study hours on Fridays (an empty list)
        hours.setdefault(day, []).extend(windows)
    return hours


def goal_date_answer(answer: str) -> str:
    """A goal's day as typed: a real date written YYYY-MM-DD, after today ("": no goal)."""
    import datetime as _dt
    import re

    if not answer:
        return answer
    try:
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", answer, re.ASCII):
            raise ValueError
        day = _dt.date.fromisoformat(answer)
    except ValueError:
        raise Refused(_("{date} is not a real date written YYYY-MM-DD, e.g. 2027-01-17").format(
            date=answer[:40])) from None
    today = _dt.date.today()
    if day <= today:
        raise Refused(_("{date} is not after today ({today}); a goal's day is ahead").format(
            date=answer, today=today.isoformat()))
    return answer
