"""Planner's own plan for a goal (README "A study plan to a goal"): sessions in the person's free
time that make the most of the goal's notes ready on its day, then take the fewest minutes, then
end earliest in the evening.

A greedy, scored by the one readiness function (planner.memory.readiness.recall_on_day): each
note not yet ready gets its last review as late as the free time allows (the least stable notes
first, since they need it most) and one earlier review, as early as there is room, to build
stability; a note that two reviews cannot make ready tries three, and one that cannot be made
ready gets none (its minutes would buy nothing). No cramming: a note not ready gets at least two
reviews, the last two at least two days apart. The reviews of a day are packed into sessions of
one to three notes from the day's first free time. Deterministic: the same home gives the same
plan. Bounded: at most 500 notes, a year of days and 60 sessions (a study plan's most).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from planner.base.days import as_clock
from planner.base.errors import Failure
from planner.base.i18n import t
from planner.calendar import free_time
from planner.calendar.free_time import Span
from planner.calendar.study_placing import place
from planner.memory.readiness import (
    GoalTarget,
    Planned,
    ready_count,
    recall_on_day,
    session_moment,
)
from planner.plans.schema import MAX_STUDY_SESSIONS, PlanError
from planner.plans.study import Session, StudyPlan

if TYPE_CHECKING:
    from planner.calendar.timetable import Timetable
    from planner.memory.schedule import NoteState

NOTES_PER_SESSION = 3
MIN_GAP = _dt.timedelta(days=2)  # the last two reviews of a note not ready: no cramming
MAX_NOTES = 500
MAX_DAYS = 366


class BestPlan(NamedTuple):
    """Planner's plan for a goal (None: nothing would help) and what it makes of the goal's
    notes on the day; `recall` is each note's recall with it."""

    goal: GoalTarget
    plan: StudyPlan | None
    ready: int
    of: int
    minutes: int
    recall: Mapping[str, float]
    reviewed: tuple[str, ...]  # the notes the plan reviews, in the goal's order

    @property
    def first_day(self) -> _dt.date | None:
        return None if self.plan is None else self.plan.sessions[0].date

    @property
    def last_day(self) -> _dt.date | None:
        return None if self.plan is None else self.plan.sessions[-1].date


@dataclass
class _Day:
    """One day's free time for the plan: its free spans, how many notes fit, the notes given."""

    day: _dt.date
    spans: list[Span]
    capacity: int
    notes: list[str] = field(default_factory=list)

    @property
    def left(self) -> int:
        return self.capacity - len(self.notes)

    def moment(self) -> _dt.datetime:
        """When the day's first session would start, in UTC (as the prediction takes it)."""
        return session_moment(self.day, self.spans[0].start.time())


def best_plan(timetable: Timetable, goal: GoalTarget, states: Mapping[str, NoteState],
              parameters: Sequence[float], saved: Sequence[Planned], minutes_per_note: int,
              now: _dt.datetime, title: str, proposed: Sequence[Session] = (),
              base: Mapping[str, float] | None = None) -> BestPlan:
    """The plan for `goal` from `now` (local, naive) to the day before it, in the timetable's
    free time; `saved`: the saved sessions still ahead that it adds to (not the ones it
    replaces); `proposed`: sessions of a proposal it comes after (their time is taken, their
    reviews count, and a note they review may need only a last review more)."""
    today = now.date()
    ids = goal.note_ids[:MAX_NOTES]
    before = [*saved, *((session_moment(session.date, session.start), session.note_ids)
                        for session in proposed)]
    if base is None or proposed:  # `base`: the recall with `saved`, when the caller knows it
        base = recall_on_day(states, parameters, ids, before, goal.date, today)
    waiting = [note for note in ids if round(base[note], 3) < goal.retention]
    days = _free_days(timetable, goal, minutes_per_note, now, proposed) if waiting else []
    if not days:
        return BestPlan(goal, None, ready_count(base, goal.retention), len(ids), 0, base, ())
    planned_before = _planned_moments(before, ids)
    order = sorted(waiting, key=lambda note: (_stability(states.get(note)), note))
    given: dict[str, list[int]] = {}
    for note in order:
        chosen = _reviews_for(note, days, planned_before.get(note, ()), states, parameters,
                              before, goal, today)
        if chosen is not None:
            given[note] = chosen
            for index in chosen:
                days[index].notes.append(note)
    plan = _packed(days, ids, minutes_per_note, title, given, order)
    if plan is None:
        return BestPlan(goal, None, ready_count(base, goal.retention), len(ids), 0, base, ())
    try:
        placed, _chosen = place(timetable, plan)  # every session checked as a proposal's
    except PlanError as error:  # never expected: the plan is made of the timetable's free time
        raise Failure(t("planner's own plan did not pass its own checks ({reason}); nothing "
                        "was saved; please report this", reason=str(error))) from None
    sessions = [*before, *((session_moment(session.date, session.start), session.note_ids)
                           for session in placed.sessions)]
    # Only the notes the plan reviews change from `base`: only theirs are replayed again.
    recall = {**base, **recall_on_day(states, parameters, placed.note_ids, sessions, goal.date,
                                      today)}
    return BestPlan(goal, placed, ready_count(recall, goal.retention), len(ids),
                    placed.minutes, recall, placed.note_ids)


def _reviews_for(note: str, days: list[_Day], planned: Sequence[_dt.datetime],
                 states: Mapping[str, NoteState], parameters: Sequence[float],
                 before: Sequence[Planned], goal: GoalTarget, today: _dt.date
                 ) -> list[int] | None:
    """The days (indexes) of the reviews that make `note` ready, last as late as there is
    room; None when none do within the room left."""
    last = next((index for index in range(len(days) - 1, -1, -1) if days[index].left > 0), None)
    if last is None:
        return None
    latest_earlier = days[last].day - MIN_GAP
    # A review the note already has (saved or proposed) two days before may be its earlier one.
    if any(moment.date() <= latest_earlier for moment in planned):
        if _ready(note, [last], days, states, parameters, before, goal, today):
            return [last]
    earlier = [index for index in range(last) if days[index].left > 0
               and days[index].day <= latest_earlier]
    if not earlier:
        return None
    tries = [[earlier[0], last]]
    if earlier[-1] != earlier[0]:
        tries.append([earlier[-1], last])
        middle = next((index for index in earlier if index > earlier[0]
                       and days[index].day - days[earlier[0]].day >= MIN_GAP), None)
        if middle is not None:
            tries.append([earlier[0], middle, last])
    for chosen in tries:
        if _ready(note, chosen, days, states, parameters, before, goal, today):
            return chosen
    return None


def _ready(note: str, chosen: Iterable[int], days: list[_Day], states: Mapping[str, NoteState],
           parameters: Sequence[float], before: Sequence[Planned], goal: GoalTarget,
           today: _dt.date) -> bool:
    planned = [*before, *((days[index].moment(), (note,)) for index in chosen)]
    recall = recall_on_day(states, parameters, (note,), planned, goal.date, today)
    return round(recall[note], 3) >= goal.retention


def _free_days(timetable: Timetable, goal: GoalTarget, minutes_per_note: int,
               now: _dt.datetime, proposed: Sequence[Session]) -> list[_Day]:
    """Each day from today to the goal's eve with room for a note: its free spans (after now
    today) and how many notes fit in them and in its minutes left."""
    today = now.date()
    last = min(goal.deadline, timetable.last_day, today + _dt.timedelta(days=MAX_DAYS - 1))
    if timetable.until is not None:
        last = min(last, timetable.until)
    own: dict[_dt.date, list[Span]] = {}
    for session in proposed:
        day = session.date
        if session.start is not None:
            start = _dt.datetime.combine(day, session.start)
            own.setdefault(day, []).append(
                Span(start, start + _dt.timedelta(minutes=session.minutes)))
    own_minutes: dict[_dt.date, int] = {}
    for session in proposed:
        day = session.date
        own_minutes[day] = own_minutes.get(day, 0) + session.minutes
    days = []
    day = today
    while day <= last:
        taken = [*timetable.busy_spans(day), *timetable.plans_on(day), *own.get(day, [])]
        if day == today:  # nothing before now
            taken.append(Span(_dt.datetime.combine(day, _dt.time()), now))
        left = timetable.minutes_left(day)
        if left is not None:
            left = max(left - own_minutes.get(day, 0), 0)
        spans = free_time.free_spans(day, timetable.windows(day), sorted(taken),
                                     minutes_per_note, left)
        fits = sum(int((span.end - span.start).total_seconds() // 60) // minutes_per_note
                   for span in spans)
        if left is not None:
            fits = min(fits, left // minutes_per_note)
        if fits > 0:
            days.append(_Day(day, spans, fits))
        day += _dt.timedelta(days=1)
    return days


def _packed(days: list[_Day], ids: Sequence[str], minutes_per_note: int, title: str,
            given: dict[str, list[int]], order: Sequence[str]) -> StudyPlan | None:
    """The days' notes as sessions of 1 to 3 notes from each day's first free time; when that
    makes more than a study plan's 60 sessions, the last notes given are left out."""
    rank = {note: number for number, note in enumerate(ids)}
    kept = [note for note in order if note in given]
    while kept:
        wanted = set(kept)
        sessions: list[Session] = []
        for plan_day in days:
            notes = sorted((note for note in plan_day.notes if note in wanted),
                           key=rank.__getitem__)
            sessions += _day_sessions(plan_day, notes, minutes_per_note)
        if len(sessions) <= MAX_STUDY_SESSIONS:
            return StudyPlan(title, tuple(sessions))
        kept.pop()
    return None


def _day_sessions(plan_day: _Day, notes: list[str], minutes_per_note: int) -> list[Session]:
    """The notes of one day in sessions of at most three, back to back in its free spans."""
    sessions = []
    for span in plan_day.spans:
        room = int((span.end - span.start).total_seconds() // 60) // minutes_per_note
        start = span.start
        while notes and room > 0:
            count = min(NOTES_PER_SESSION, room, len(notes))
            held, notes = notes[:count], notes[count:]
            room -= count
            minutes = count * minutes_per_note
            sessions.append(Session(plan_day.day, minutes, tuple(held),
                                    as_clock(start.time())))
            start += _dt.timedelta(minutes=minutes)
        if not notes:
            break
    return sessions


def _planned_moments(planned: Sequence[Planned], ids: Sequence[str]
                     ) -> dict[str, list[_dt.datetime]]:
    """Each note's planned reviews (local times), from the sessions it adds to."""
    wanted = set(ids)
    moments: dict[str, list[_dt.datetime]] = {}
    for moment, held in planned:
        for note in held:
            if note in wanted:
                moments.setdefault(note, []).append(moment.astimezone().replace(tzinfo=None))
    return moments


def _stability(state: NoteState | None) -> float:
    return 0.0 if state is None or state.stability is None else state.stability


class Addition(NamedTuple):
    """The smallest addition found that lifts a proposal: the notes it reviews, between which
    days, its minutes, how many notes are ready with it, and whether each needs one last review
    only."""

    note_ids: tuple[str, ...]
    first: _dt.date
    last: _dt.date
    minutes: int
    ready: int
    last_only: bool


class PlanWorth(NamedTuple):
    """What a proposal is worth beside planner's own plan in the same free time."""

    best_ready: int
    of: int
    best_minutes: int
    this_minutes: int
    addition: Addition | None


def plan_worth(timetable: Timetable, goal: GoalTarget, states: Mapping[str, NoteState],
               parameters: Sequence[float], saved: Sequence[Planned], minutes_per_note: int,
               now: _dt.datetime, proposal: StudyPlan | None, this_ready: int,
               this_minutes: int, best: BestPlan | None = None) -> PlanWorth:
    """Planner's plan for the goal in the free time the proposal had (`best`, when known),
    and, when the proposal makes fewer notes ready, the addition to it that lifts it most."""
    if best is None:
        best = best_plan(timetable, goal, states, parameters, saved, minutes_per_note, now, "")
    addition = None
    if proposal is not None and this_ready < best.ready:
        more = best_plan(timetable, goal, states, parameters, saved, minutes_per_note, now, "",
                         proposed=proposal.sessions)
        if more.plan is not None and more.ready > this_ready:
            reviews = sum(len(session.note_ids) for session in more.plan.sessions)
            addition = Addition(more.reviewed, more.plan.sessions[0].date,
                                more.plan.sessions[-1].date, more.minutes, more.ready,
                                reviews == len(more.reviewed))
    return PlanWorth(best.ready, best.of, best.minutes, this_minutes, addition)
