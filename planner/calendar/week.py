"""`planner week`'s seven days (README "Your week"): study hours, busy time, sessions, due counts,
minutes."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from planner.base import study_hours
from planner.base.days import as_clock, clock_text
from planner.calendar.busy import BusyEvent, read_busy
from planner.calendar.timetable import session_starts
from planner.memory.anki_load import AnkiLoad
from planner.plans import files as plans
from planner.plans import store

if TYPE_CHECKING:
    from planner.memory.anki_load import AnkiDays
    from planner.memory.review_memory import ReviewMemory

DAYS = 7


class WeekSession(NamedTuple):
    """A saved session on a day of the week, where it happens now."""

    ref: str  # `<run_id>` or `<run_id>#n`
    title: str
    start: _dt.time
    minutes: int
    done: bool
    moved: bool  # the review log moved it (the screen marks it; the JSON does not)
    note_ids: tuple[str, ...]
    missed: bool  # its day has passed, neither done nor dropped
    reviewed: int  # how many of its notes have their review for it, when partly done; else 0

    def to_json(self) -> dict[str, object]:
        """As `week --json` has always written it: `missed` only when missed."""
        data: dict[str, object] = {"run_id": self.ref, "title": self.title,
                                   "start": clock_text(self.start), "minutes": self.minutes,
                                   "done": self.done}
        if self.missed:
            data["missed"] = True  # only then: a week with none is as it always was
        return data


class WeekBusy(NamedTuple):
    """Busy time on one day: minutes after its midnight (1440: to the next midnight)."""

    start: int
    end: int
    title: str  # "" when the event has none
    all_day: bool

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {"start": study_hours.clock(self.start),
                                   "end": study_hours.clock(self.end), "title": self.title}
        if self.all_day:
            data["all_day"] = True
        return data


class WeekDay(NamedTuple):
    """One day of the week: its study hours, busy time, sessions, notes due and minutes."""

    date: _dt.date
    study_hours: tuple[study_hours.Window, ...]
    busy: tuple[WeekBusy, ...]
    sessions: tuple[WeekSession, ...]  # by start
    due: int
    daily_minutes: int | None
    # With an anki_collection set: Anki's load that day (None: the collection could not be
    # read); without one, `anki_set` is False and the JSON has no `anki`.
    anki_set: bool = False
    anki: AnkiLoad | None = None

    @property
    def planned_minutes(self) -> int:
        return sum(session.minutes for session in self.sessions)

    def to_json(self) -> dict[str, object]:
        """The day as `week --json` writes it."""
        data: dict[str, object] = {
            "date": self.date.isoformat(),
            "study_hours": study_hours.shown(self.study_hours),
            "busy": [busy.to_json() for busy in self.busy],
            "sessions": [session.to_json() for session in self.sessions],
            "due": self.due,
            "planned_minutes": self.planned_minutes,
            "daily_minutes": self.daily_minutes,
        }
        if self.anki_set:
            data["anki"] = None if self.anki is None else {"cards": self.anki.cards,
                                                           "minutes": self.anki.minutes}
        return data


class Week(NamedTuple):
    """The week's seven days, and what could not be read (one line each)."""

    start: _dt.date
    days: list[WeekDay]
    unknown: tuple[str, ...]  # busy calendars whose busy time is unknown
    warnings: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        """`week --json`."""
        return {"start": self.start.isoformat(), "days": [day.to_json() for day in self.days]}


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
    sessions: dict[_dt.date, list[WeekSession]] = {day: [] for day in wanted}
    for row, begins in zip(rows, session_starts(rows, review_time), strict=True):
        sessions[row.date].append(WeekSession(
            plans.row_ref(row), row.title, as_clock(begins.time()), row.minutes, bool(row.done),
            row.moved, tuple(row.note_ids), row.missed,
            len(row.reviewed) if row.partly else 0))
    busy = read_busy(sources, start, last, home=home, zone=zone, caldav_password=password) \
        if sources else None
    due = _due_counts(memory, days, today)
    result = []
    for day in days:
        begin = _dt.datetime.combine(day, _dt.time())
        end = begin + _dt.timedelta(days=1)
        events = [] if busy is None else [
            event for event in busy.events if event.start < end and event.end > begin]
        taken = sorted(sessions[day], key=lambda session: session.start)
        load = None if anki is None or anki.warning else \
            anki.days.get(day) or AnkiLoad(0, 0)
        result.append(WeekDay(day, study_hours.windows_on(hours, day),
                              tuple(_busy(event, begin, end) for event in events),
                              tuple(taken), due.get(day, 0), daily_minutes, anki is not None,
                              load))
    return Week(start, result, () if busy is None else busy.unknown,
                () if busy is None else busy.warnings)


def _busy(event: BusyEvent, begin: _dt.datetime, end: _dt.datetime) -> WeekBusy:
    """One busy event on one day; an all-day one says so (the screen shows it as a line)."""
    return WeekBusy(_minutes(max(event.start, begin), begin), _minutes(min(event.end, end), begin),
                    event.title, event.all_day)


def _minutes(moment: _dt.datetime, midnight: _dt.datetime) -> int:
    """Minutes of a moment after that day's midnight; the next midnight is 1440 (24:00)."""
    return min(int((moment - midnight).total_seconds() // 60), 1440)


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
