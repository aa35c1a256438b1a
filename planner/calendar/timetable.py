"""The person's time for one run (README "Your week"): study hours, busy time, saved plans, the
deadline.

It answers three questions: where does this proposal's session go (the start it gives, or the
first free slot), is it allowed (the program's checks), and where is there room (free_slots).
Busy time is read once, when first needed, for today to the deadline or 60 days on.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.base import study_hours
from planner.base.days import LAST_DAY, as_clock, read_clock
from planner.base.i18n import t
from planner.calendar import free_time, ics
from planner.calendar.busy import BusyEvent, BusyTimes, read_busy
from planner.calendar.free_time import Span
from planner.calendar.rejections import rejection
from planner.plans import files as plans
from planner.plans import store
from planner.plans.plan import START, InvalidArguments, ReviewPlan, ReviewSeries

if TYPE_CHECKING:
    from planner.memory.anki_load import AnkiDays
    from planner.memory.readiness import GoalTarget

AHEAD_DAYS = 60  # busy time is read this far ahead at least
MAX_AHEAD_DAYS = 366
NO_BUSY = BusyTimes((), (), ())


class Placed(NamedTuple):
    """A proposal with its start, and whether the program chose that start."""

    plan: ReviewPlan | ReviewSeries
    chosen: bool


class Timetable:
    """Study hours, daily minutes, busy calendars and saved plans of one home, for one run."""

    def __init__(self, *, home: Path, mode: str, hours: Mapping[str, tuple[study_hours.Window,
                 ...]], daily_minutes: int | None, review_time: str, today: _dt.date,
                 until: _dt.date | None = None, sources: Sequence[Mapping[str, str]] = (),
                 zone: _dt.tzinfo | None = None,
                 password: Callable[[str, str | None], str | None] | None = None,
                 marks: Callable[[], plans.Marks] = lambda: plans.NO_MARKS,
                 anki_collection: Path | None = None) -> None:
        self.home, self.mode, self.hours = home, mode, hours
        self.daily_minutes, self.review_time = daily_minutes, review_time
        self.today, self.until = today, until
        self.sources, self.zone, self.password, self.marks = sources, zone, password, marks
        self._busy: BusyTimes | None = None
        self._said = False  # whether the busy calendars' warnings were handed out
        self._plans: dict[_dt.date, list[Span]] | None = None
        self._minutes: dict[_dt.date, int] = {}
        # Anki's collection.anki2 (README "Your week"): its daily reviews take daily_minutes too.
        self.anki_collection = anki_collection
        self._anki: AnkiDays | None = None
        self._anki_said = False
        # A saved session (`<run_id>[#n]`) left out of the plans: the one being moved.
        self.leave_out: str | None = None
        # Saved sessions (`<run_id>#n`) a replan replaces: left out of the plans as leave_out is.
        self.replaced: frozenset[str] = frozenset()
        self.minutes_per_note = 15  # planner's own plan: a session of k notes lasts k times this
        # A run for a goal (--goal): the goal and its notes; its day's eve is `until`.
        self.goal: GoalTarget | None = None

    # --- what the run knows ------------------------------------------------------------------

    @property
    def last_day(self) -> _dt.date:
        """The last day busy time is read for: the deadline or 60 days on, at most 366 (and
        never past the last day planner can use)."""
        ahead = _days_on(self.today, AHEAD_DAYS)
        last = max(self.until, ahead) if self.until is not None else ahead
        return min(last, _days_on(self.today, MAX_AHEAD_DAYS))

    def busy(self) -> BusyTimes:
        """Busy time from every source, read once; NO_BUSY when there are none."""
        if self._busy is None:
            self._busy = NO_BUSY if not self.sources else read_busy(
                self.sources, self.today, self.last_day, home=self.home, zone=self.zone,
                caldav_password=self.password)
        return self._busy

    def unread_after(self, days: Sequence[_dt.date]) -> _dt.date | None:
        """The last day busy time was read for, when a session of `days` lies after it (its
        busy time is unknown); None when there is none, or no busy calendar."""
        if self.sources and max(days) > self.last_day:
            return self.last_day
        return None

    def unsaid_warnings(self) -> tuple[str, ...]:
        """The busy calendars' and Anki's collection's warning lines, each once, after they
        were read (else none)."""
        lines: tuple[str, ...] = ()
        if self._busy is not None and not self._said:
            self._said = True
            lines = self._busy.warnings
        if self._anki is not None and not self._anki_said:
            self._anki_said = True
            lines += (self._anki.warning,) if self._anki.warning else ()
        return lines

    def busy_on(self, day: _dt.date) -> list[BusyEvent]:
        """The busy events that touch `day`."""
        start = _dt.datetime.combine(day, _dt.time())
        end = start + _dt.timedelta(days=1)
        return [event for event in self.busy().events if event.start < end and event.end > start]

    def plans_on(self, day: _dt.date) -> list[Span]:
        """Saved plans' sessions (not dropped) on `day`, laid out as README "Calendars" says."""
        if self._plans is None:
            self._read_plans()
        assert self._plans is not None
        return self._plans.get(day, [])

    def planned_minutes(self, day: _dt.date) -> int:
        """The minutes already taken on `day` from daily_minutes: the saved plans' sessions
        (not dropped) and Anki's reviews due that day."""
        if self._plans is None:
            self._read_plans()
        return self._minutes.get(day, 0) + self.anki_minutes(day)

    def anki_minutes(self, day: _dt.date) -> int:
        """The minutes Anki's reviews due on `day` take (0 without a readable collection)."""
        load = self.anki_days().days.get(day)
        return 0 if load is None else load.minutes

    def anki_days(self) -> AnkiDays:
        """Anki's load from today to the last day busy time is read for, read once."""
        if self._anki is None:
            from planner.memory.anki_load import read_load

            self._anki = read_load(self.anki_collection, self.today, self.last_day, self.today)
        return self._anki

    def windows(self, day: _dt.date) -> tuple[study_hours.Window, ...]:
        return study_hours.windows_on(self.hours, day)

    def _read_plans(self) -> None:
        demo = self.mode == "demo"
        try:
            # The review log's marks are asked for only when there are plans to mark.
            rows = plans.good_rows(store.list_plans(self.home, demo, False, self.today,
                                                    self.marks())) \
                if store.plan_names(store.plans_dir(self.home, demo)) else []
        except plans.PlansError:
            rows = []
        self.use_rows(rows)

    def use_rows(self, rows: list[plans.PlanRow]) -> None:
        """Take the saved plans from `rows` (store.list_plans's, read once by the caller)."""
        rows = [row for row in rows if not row.dropped
                and (self.leave_out is None or plans.row_ref(row) != self.leave_out)
                and plans.row_ref(row) not in self.replaced]
        self._plans, self._minutes = {}, {}
        for row, start in zip(rows, session_starts(rows, self.review_time), strict=True):
            day = row.date
            self._plans.setdefault(day, []).append(
                Span(start, start + _dt.timedelta(minutes=row.minutes)))
            self._minutes[day] = self._minutes.get(day, 0) + row.minutes

    # --- placing and checking ----------------------------------------------------------------

    def place(self, plan: ReviewPlan | ReviewSeries) -> Placed:
        """The plan with its start (given, or the first free slot), or InvalidArguments with
        the reason, in words the model may read: times only, never an event's title."""
        days = list(plan.days)
        start = plan.start
        chosen = start is None
        if start is None:
            start = self._common_start(days, plan.minutes)
        failures = []
        for number, day in enumerate(days, 1):
            moment = _dt.datetime.combine(day, start)
            problem = free_time.session_problem(
                moment, plan.minutes, self.windows(day), self.busy_spans(day),
                self.plans_on(day), self.planned_minutes(day), self.daily_minutes, self.until,
                self.anki_minutes(day))
            if problem is None:
                continue
            if len(days) > 1:
                # Every failing session of a series is named, so one repair mends them all.
                failures.append((number, day.isoformat(), problem))
            elif chosen:  # only the deadline or the budget can stop a free slot
                raise InvalidArguments("date", problem)
            else:
                raise InvalidArguments(START, problem)
        if failures:
            raise rejection(failures, len(days))
        return Placed(plan._replace(start=start), chosen)

    def _common_start(self, days: list[_dt.date], minutes: int) -> _dt.time:
        """The earliest start free on every day, or InvalidArguments saying which day is full."""
        free: list[list[Span]] = []
        for day in days:
            self._before_deadline(day, len(days))
            spans = free_time.free_spans(day, self.windows(day), self._taken(day), minutes,
                                         self.minutes_left(day))
            if not spans:
                raise InvalidArguments("date" if len(days) == 1 else "dates",
                                       self.no_room(day, minutes, self.minutes_left(day)))
            free.append(spans)
        # The earliest common start is the start of a free span on some day: any later common
        # start can move earlier until it meets one.
        length = _dt.timedelta(minutes=minutes)
        for clock in sorted({span.start.time() for spans in free for span in spans}):
            if all(any(span.start <= _dt.datetime.combine(day, clock)
                       and _dt.datetime.combine(day, clock) + length <= span.end
                       for span in spans) for day, spans in zip(days, free, strict=True)):
                return as_clock(clock)
        raise InvalidArguments("dates", t("no start time is free on every date of the series; "
                                          "give start, or other dates"))

    def _before_deadline(self, day: _dt.date, sessions: int) -> None:
        if self.until is not None and day > self.until:
            raise InvalidArguments("date" if sessions == 1 else "dates", t(
                "{date} is after the deadline {until}", date=day.isoformat(),
                until=self.until.isoformat()))

    def no_room(self, day: _dt.date, minutes: int, left: int | None) -> str:
        """Why `day` has no free slot of `minutes` (`left`: the day's minutes still free)."""
        windows = self.windows(day)
        if not windows:
            return t("{date} has no study hours ({weekday}); choose another date",
                     date=day.isoformat(), weekday=study_hours.WEEKDAYS[day.weekday()])
        anki = self.anki_minutes(day)
        if left is not None and left < minutes and anki:
            return t("{date} has {left} of its daily {most} minutes left (Anki's reviews take "
                     "{anki}); a session of {minutes} minutes does not fit",
                     date=day.isoformat(), left=left, most=self.daily_minutes, anki=anki,
                     minutes=minutes)
        if left is not None and left < minutes:
            return t("{date} has {left} of its daily {most} minutes left; a session of "
                     "{minutes} minutes does not fit", date=day.isoformat(), left=left,
                     most=self.daily_minutes, minutes=minutes)
        return t("{date} has no free slot of {minutes} minutes in its study hours ({hours}); "
                 "call free_slots, or choose another date", date=day.isoformat(),
                 # No spaces in a value: see free_time._hours.
                 minutes=minutes, hours=",".join(study_hours.shown(windows)))

    def busy_spans(self, day: _dt.date) -> list[Span]:
        return [Span(event.start, event.end) for event in self.busy_on(day)]

    def _taken(self, day: _dt.date) -> list[Span]:
        return sorted(self.busy_spans(day) + self.plans_on(day))

    def minutes_left(self, day: _dt.date) -> int | None:
        """The minutes of daily_minutes still free on `day`, after saved plans and Anki's
        reviews; None when there is no limit."""
        if self.daily_minutes is None:
            return None
        return max(self.daily_minutes - self.planned_minutes(day), 0)

    # --- free_slots ---------------------------------------------------------------------------

    def free_days(self, first: _dt.date, days: int, minutes: int) -> list[dict[str, Any]]:
        """Each day's free slots of at least `minutes` and its minutes left (None: no limit)."""
        result = []
        for offset in range(days):
            if first > LAST_DAY - _dt.timedelta(days=offset):
                break  # past the calendar's end: no more days
            day = first + _dt.timedelta(days=offset)
            left = self.minutes_left(day)
            after_deadline = self.until is not None and day > self.until
            spans = [] if after_deadline else free_time.free_spans(
                day, self.windows(day), self._taken(day), minutes, left)
            found = {"date": day.isoformat(),
                     "slots": [{"start": span.start.strftime("%H:%M"),
                                "end": _end_clock(span)} for span in spans],
                     "minutes_left": left}
            if self.sources and (day > self.last_day or self.busy().unknown):
                # Busy time past the window read, or from a source that could not be read, is
                # unknown: the model is told, never that the time is free.
                found["busy_unknown"] = True
            result.append(found)
        return result


def _days_on(day: _dt.date, days: int) -> _dt.date:
    """`days` days after `day`, or the last day planner can use when that is earlier."""
    return day + _dt.timedelta(days=days) if day <= LAST_DAY - _dt.timedelta(days=days) \
        else max(day, LAST_DAY)


def session_starts(rows: Sequence[plans.PlanRow], review_time: str) -> list[_dt.datetime]:
    """Each row's local start: its own `start`, else README "Calendars"' review_time layout."""
    events = ics.events_from_rows(rows)
    after = ics.layout(events)
    clock = read_clock(review_time)
    starts = []
    for row, event in zip(rows, events, strict=True):
        day = row.date
        if row.start is not None:
            starts.append(_dt.datetime.combine(day, row.start))
        else:
            starts.append(_dt.datetime.combine(day, clock)
                          + _dt.timedelta(minutes=after[event.uid]))
    return starts


def _end_clock(span: Span) -> str:
    """A slot's end as HH:MM; a slot that runs to midnight ends at 24:00."""
    if span.end.date() > span.start.date():
        return "24:00"
    return span.end.strftime("%H:%M")
