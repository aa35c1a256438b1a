"""Moving one saved session: the new time checked as a proposed session is.

The session itself is left out of the saved plans it is checked against (it is leaving its old
time); everything else counts: study hours, busy time, the other sessions, the day's minutes and
the deadline of the plan (its goal's day, or the `--until` of the run that saved it).
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

from planner.base.i18n import t
from planner.calendar import free_time

if TYPE_CHECKING:
    from planner.calendar.timetable import Timetable


def move_problem(timetable: Timetable, moment: _dt.datetime, minutes: int) -> str | None:
    """None when a session of `minutes` may move to `moment`; else the one reason."""
    day = moment.date()
    if day < timetable.today:
        return t("{date} is in the past; a session moves to today or later",
                 date=day.isoformat())
    return free_time.session_problem(
        moment, minutes, timetable.windows(day), timetable.busy_spans(day),
        timetable.plans_on(day), timetable.planned_minutes(day), timetable.daily_minutes,
        timetable.until, timetable.anki_minutes(day))
