"""`planner forecast` without the command line (README "A memory fitted to you"): the reviews and
minutes due on each of
the next days from today's memory, and the minutes a review takes.

Day 1 is today and also holds every overdue note; a note's later reviews are not projected (its
due date is where today's memory puts it). Minutes per review are the person's median from the
log: each recorded review's plan minutes divided by the notes recorded with it; else 5.
"""

from __future__ import annotations

import datetime as _dt
import statistics
from collections.abc import Mapping
from typing import TYPE_CHECKING

from planner.base.days import AfterLastDay
from planner.base.errors import UsageError
from planner.base.i18n import t

if TYPE_CHECKING:
    from planner.memory.schedule import NoteSchedule

DEFAULT_MINUTES = 5.0
MAX_DAYS = 365
MAX_RETENTIONS = 10  # desired retentions one forecast simulates


def retentions(text: str | None) -> list[float]:
    """--retention R[,R...], each 0.70-0.99; a UsageError (exit 2) otherwise."""
    if text is None:
        return []
    values = []
    for part in text.split(","):
        try:
            value = float(part.strip())
        except ValueError:
            value = -1.0
        if not 0.70 <= value <= 0.99:
            raise UsageError(t("--retention {value}: each must be a number from 0.70 to 0.99, "
                               "e.g. --retention 0.85,0.9,0.95", value=part.strip()[:20]))
        values.append(value)
    if len(values) > MAX_RETENTIONS:
        raise UsageError(t("--retention: at most 10 values"))
    return values


def minutes_per_review(shares: Mapping[float, int]) -> float:
    """The median minutes one review takes, from how often each share of a recorded plan's
    minutes (over the notes recorded with it) occurs (planner.memory.cache.minute_shares)."""
    total = sum(shares.values())
    if not total:
        return DEFAULT_MINUTES
    ordered = sorted(shares.items())
    values = []
    for middle in sorted({(total - 1) // 2, total // 2}):
        seen = 0
        for share, times in ordered:
            seen += times
            if seen > middle:
                values.append(share)
                break
    return float(statistics.mean(values))


def days_ahead(schedules: Mapping[str, NoteSchedule], titles: Mapping[str, str],
               today: _dt.date, days: int, minutes: float) -> list[dict[str, object]]:
    """`{"date", "reviews", "minutes"}` for each of `days` days from today (day 1 with every
    overdue note)."""
    from planner.memory.schedule import local_date

    counts = [0] * days
    for note_id, schedule in schedules.items():
        if schedule.due is None or note_id not in titles:
            continue
        day = local_date(schedule.due)
        if isinstance(day, AfterLastDay):
            continue
        index = max(0, (day - today).days)
        if index < days:
            counts[index] += 1
    return [{"date": (today + _dt.timedelta(days=index)).isoformat(), "reviews": count,
             "minutes": round(count * minutes, 1)} for index, count in enumerate(counts)]
