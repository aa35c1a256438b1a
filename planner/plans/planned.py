"""What is planned on each day: the minutes of the saved sessions still to come."""

from __future__ import annotations

import datetime as _dt
import os

from planner.plans import files as plans


def minutes_by_day(home: str | os.PathLike[str], today: _dt.date,
                   marks: plans.Marks = plans.NO_MARKS) -> dict[str, int]:
    """Each day's planned minutes from today on: saved sessions, not dropped, at their moved
    dates; {} when the plans folder cannot be listed."""
    try:
        rows = plans.list_plans(home, False, False, today, marks)
    except plans.PlansError:
        return {}
    planned: dict[str, int] = {}
    for row in rows:
        if row.problem is None and not row.dropped:
            planned[row.date] = planned.get(row.date, 0) + row.minutes
    return planned
