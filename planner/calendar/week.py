"""`planner week`'s seven days (README "Your week"): study hours, busy time, sessions, due counts,
minutes."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.base import study_hours
from planner.calendar.busy import BusyEvent, read_busy
from planner.calendar.timetable import session_starts
from planner.plans import files as plans
from planner.plans import store

if TYPE_CHECKING:
    from planner.memory.anki_load import AnkiDays
    from planner.memory.review_memory import ReviewMemory

DAYS = 7


class Week(NamedTuple):
    """The `week --json` object's days, and what could not be read (one line each)."""

    start: _dt.date
    days: list[dict[str, Any]]
    unknown: tuple[str, ...]  # busy calendars whose busy time is unknown
    warnings: tuple[str, ...]


def week(*, home: Path, demo: bool, start: _dt.date, today: _dt.date,
         hours: Mapping[str, tuple[study_hours.Window, ...]], daily_minutes: int | None,
         review_time: str, sources: Sequence[Mapping[str, str]], zone: _dt.tzinfo | None,
         password: Callable[[str, str | None], str | None] | None,
         marks: plans.Marks, memory: ReviewMemory | None,
         anki: AnkiDays | None = None) -> Week:
    """Seven days from `start`; raises plans.PlansError when the plans cannot be listed.
    With `anki` (an anki_collection is set) each day also has Anki's load: `{"cards",
    "minutes"}`, null when the collection could not be read."""
    last = start + _dt.timedelta(days=DAYS - 1)
    days = [start + _dt.timedelta(days=offset) for offset in range(DAYS)]
    wanted = set(days)
    rows = [row for row in plans.good_rows(store.list_plans(home, demo, True, today, marks))
            if not row.dropped and row.date in wanted]
    rows.sort(key=lambda row: (row.date, row.run_id, row.session or 0))
    sessions: dict[_dt.date, list[dict[str, Any]]] = {day: [] for day in wanted}
    for row, begins in zip(rows, session_starts(rows, review_time), strict=True):
        session = {"run_id": plans.row_ref(row), "title": row.title,
                   "start": begins.strftime("%H:%M"), "minutes": row.minutes,
                   "done": bool(row.done)}
        if row.moved:
            session["moved"] = True  # for the screen's mark; week --json leaves it out
        session["note_ids"] = list(row.note_ids)  # for the screen; week --json leaves it out
        if row.missed:
            session["missed"] = True  # only then: a week with none is as it always was
        if row.partly:
            # Its notes reviewed so far, for the screen (1/3); week --json leaves it out.
            session["part"] = f"{len(row.reviewed)}/{len(row.note_ids)}"
        sessions[row.date].append(session)
    busy = read_busy(sources, start, last, home=home, zone=zone, caldav_password=password) \
        if sources else None
    due = _due_counts(memory, days, today)
    result = []
    for day in days:
        begin = _dt.datetime.combine(day, _dt.time())
        end = begin + _dt.timedelta(days=1)
        events = [] if busy is None else [
            event for event in busy.events if event.start < end and event.end > begin]
        taken = sorted(sessions[day], key=lambda session: session["start"])
        found = {
            "date": day.isoformat(),
            "study_hours": study_hours.shown(study_hours.windows_on(hours, day)),
            "busy": [_busy(event, begin, end) for event in events],
            "sessions": taken,
            "due": due.get(day, 0),
            "planned_minutes": sum(session["minutes"] for session in taken),
            "daily_minutes": daily_minutes,
        }
        if anki is not None:
            load = anki.days.get(day)
            found["anki"] = None if anki.warning else {
                "cards": 0 if load is None else load.cards,
                "minutes": 0 if load is None else load.minutes}
        result.append(found)
    return Week(start, result, () if busy is None else busy.unknown,
                () if busy is None else busy.warnings)


def _busy(event: BusyEvent, begin: _dt.datetime, end: _dt.datetime) -> dict[str, object]:
    """One busy event on one day; an all-day one says so (the screen shows it as a line)."""
    shown: dict[str, object] = {"start": _clock(max(event.start, begin), begin),
                                "end": _clock(min(event.end, end), begin), "title": event.title}
    if event.all_day:
        shown["all_day"] = True
    return shown


def _clock(moment: _dt.datetime, midnight: _dt.datetime) -> str:
    """HH:MM of a moment on that day; the next midnight is 24:00."""
    return "24:00" if moment - midnight >= _dt.timedelta(days=1) else moment.strftime("%H:%M")


def _due_counts(memory: ReviewMemory | None, days: list[_dt.date],
                today: _dt.date) -> dict[_dt.date, int]:
    """Notes falling due on each day; today's count holds the overdue ones too."""
    if memory is None:
        return {}
    from planner.memory.schedule import local_date

    titles = memory.titles()
    counts: dict[_dt.date, int] = {}
    for note_id, schedule in memory.schedules().items():
        if schedule.due is None or note_id not in titles:
            continue
        day = local_date(schedule.due)
        if not isinstance(day, _dt.date):
            continue  # after 9999-12-31
        if day < today:
            day = today
        if days[0] <= day <= days[-1]:
            counts[day] = counts.get(day, 0) + 1
    return counts
