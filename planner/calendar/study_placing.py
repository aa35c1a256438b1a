"""Placing a proposal in the person's week, whatever tool made it: `place` is the one entry.

A plan or a series gets its start (given, or the first free slot on every date) from the
timetable. A study plan's sessions are placed and checked at once:

Each session is checked as a single plan is (study hours, busy time, saved plans, the day's
minutes, the deadline); this plan's own earlier sessions count as taken time and minutes. A
session without a start gets the first free slot after the earlier sessions of its day. Every
failing session is named, so that the model can mend them all in one repair.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, NamedTuple, overload

from planner.base import days
from planner.base.i18n import t
from planner.calendar import free_time
from planner.calendar.free_time import Span
from planner.calendar.rejections import rejection
from planner.plans.study import Proposal, Session, StudyPlan

if TYPE_CHECKING:
    from planner.calendar.timetable import Timetable

@overload
def place(timetable: Timetable, plan: StudyPlan) -> tuple[StudyPlan, tuple[bool, ...]]: ...
@overload
def place(timetable: Timetable, plan: Proposal) -> tuple[Proposal, tuple[bool, ...]]: ...


def place(timetable: Timetable, plan: Proposal) -> tuple[Proposal, tuple[bool, ...]]:
    """The proposal (of the same kind) with every start known, and which starts the program
    chose (one for a plan or a series, one per session for a study plan); InvalidArguments
    (SessionsRejected naming every failing session) when it does not fit."""
    if isinstance(plan, StudyPlan):
        placed = place_study(timetable, plan)
        return placed.plan, placed.chosen
    found = timetable.place(plan)
    return found.plan, (found.chosen,)

class PlacedStudy(NamedTuple):
    """A study plan with every start known, and which starts the program chose."""

    plan: StudyPlan
    chosen: tuple[bool, ...]


def place_study(timetable: Timetable, plan: StudyPlan) -> PlacedStudy:
    """Every session placed and checked; SessionsRejected naming every one that fails."""
    own_spans: dict[_dt.date, list[Span]] = {}
    own_minutes: dict[_dt.date, int] = {}
    failures: list[tuple[int, str, str]] = []
    placed: list[Session] = []
    for number, session in enumerate(plan.sessions, 1):
        day = session.date
        mine = own_spans.get(day, [])
        planned = timetable.planned_minutes(day) + own_minutes.get(day, 0)
        if session.start is None:
            start, problem = _first_free(timetable, day, session.minutes, mine, planned)
        else:
            start = _dt.datetime.combine(day, session.start)
            problem = free_time.session_problem(
                start, session.minutes, timetable.windows(day), timetable.busy_spans(day),
                [*timetable.plans_on(day), *mine], planned, timetable.daily_minutes,
                timetable.until, timetable.anki_minutes(day))
        if problem is not None or start is None:
            failures.append((number, day.isoformat(), problem or ""))
            continue
        own_spans.setdefault(day, []).append(
            Span(start, start + _dt.timedelta(minutes=session.minutes)))
        own_minutes[day] = own_minutes.get(day, 0) + session.minutes
        placed.append(session._replace(start=days.as_clock(start.time())))
    if failures:
        raise rejection(failures, len(plan.sessions))
    return PlacedStudy(plan._replace(sessions=tuple(placed)),
                       tuple(session.start is None for session in plan.sessions))


def _first_free(timetable: Timetable, day: _dt.date, minutes: int, mine: list[Span],
                planned: int) -> tuple[_dt.datetime | None, str | None]:
    """The first free start after this plan's earlier sessions of `day`, or the reason."""
    if timetable.until is not None and day > timetable.until:
        return None, t("{date} is after the deadline {until}", date=day.isoformat(),
                       until=timetable.until.isoformat())
    left = None if timetable.daily_minutes is None else max(timetable.daily_minutes - planned, 0)
    taken = sorted([*timetable.busy_spans(day), *timetable.plans_on(day), *mine])
    after = max((span.end for span in mine), default=None)
    for span in free_time.free_spans(day, timetable.windows(day), taken, minutes, left):
        start = span.start if after is None else max(span.start, after)
        if start + _dt.timedelta(minutes=minutes) <= span.end:
            return start, None
    return None, timetable.no_room(day, minutes, left)

