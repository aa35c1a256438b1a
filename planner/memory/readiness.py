"""Recall on a goal's day: the one prediction every goal screen shows (README "A study plan to
a goal").

For a note: its reviews replayed with the person's parameters (the fitted memory, through the
cache), then one `good` review at each planned session still ahead that holds it (dated today or
later and before the goal's day, at its date and start), then FSRS's retrievability at 09:00
local on the goal's day; a note with no review and no session: 0. `recall_on_day` is that
function; the SAVE screen, `planner goals`, `goal_notes` and the first request's line all ask it,
with the sessions they mean ("with this plan", "without it").

Speed: the reviews so far come replayed from the cache; only the planned reviews are replayed
here, through planner.memory.schedule (the one module importing fsrs).
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.base.days import read_clock
from planner.memory.log import Review

if TYPE_CHECKING:
    from planner.base.config import Config
    from planner.base.goals import Goal
    from planner.memory.review_memory import ReviewMemory
    from planner.memory.schedule import NoteState
    from planner.plans import files as plans
    from planner.plans.study import Proposal

# (when, the notes it holds): a planned session as the prediction takes it.
Planned = tuple[_dt.datetime, Sequence[str]]
ASKED_AT = _dt.time(9, 0)  # the goal's day is asked about at 09:00 local
DEFAULT_START = "19:00"
_PLANNED_RUN = "planned"  # the run_id of a review that is only planned (never written)


class GoalTarget(NamedTuple):
    """A goal with its notes resolved: what a run for it and its screens ask about."""

    name: str
    date: _dt.date
    retention: float
    note_ids: tuple[str, ...]

    @property
    def deadline(self) -> _dt.date:
        return self.date - _dt.timedelta(days=1)


class SavedSession(NamedTuple):
    """A saved session as the goal screens count it."""

    date: _dt.date
    start: _dt.time | None
    minutes: int
    note_ids: tuple[str, ...]
    goal: str | None
    done: bool
    dropped: bool
    reviewed: tuple[str, ...] = ()  # its notes reviewed for it so far (partly done: some)
    missed: bool = False  # its day has passed, neither done nor dropped
    run_id: str | None = None
    saved: plans.SavedReadiness | None = None  # its plan's readiness when saved (version 5)


class GoalOutlook(NamedTuple):
    """A goal's readiness on its day with a proposed plan and without it (the SAVE screen's
    line): the same fields as planner.conversation.events.GoalOutlook."""

    name: str
    date: _dt.date
    retention: float
    total: int
    ready_with: int
    ready_without: int
    not_ready: tuple[tuple[str, float], ...]
    uncovered: tuple[str, ...]


def target(goal: Goal, note_ids: Iterable[str]) -> GoalTarget:
    """A goal of the config with its notes (planner.notes.selectors resolved them)."""
    return GoalTarget(goal.name, goal.date, goal.retention, tuple(note_ids))


def asked_moment(day: _dt.date) -> _dt.datetime:
    """09:00 local on `day`, in UTC: when recall on the goal's day is measured."""
    return _dt.datetime.combine(day, ASKED_AT).astimezone().astimezone(_dt.UTC)


def session_moment(day: _dt.date, start: _dt.time | None, default_start: str = DEFAULT_START
                   ) -> _dt.datetime:
    """A session's start (local `day` at `start`, else `default_start`), in UTC."""
    clock = read_clock(default_start) if start is None else start  # review_time: checked
    local = _dt.datetime.combine(day, clock)
    return local.astimezone().astimezone(_dt.UTC)


def recall_on_day(states: Mapping[str, NoteState], parameters: Sequence[float],
                  note_ids: Iterable[str], planned: Sequence[Planned], day: _dt.date,
                  today: _dt.date) -> dict[str, float]:
    """Each note's chance of recall (0-1) at 09:00 local on `day`: its card (`states`,
    replayed with `parameters`) after one `good` review at each planned session holding it
    that is dated from `today` to the day before `day`."""
    from planner.memory.schedule import replay, retrievability

    wanted = dict.fromkeys(note_ids)
    # From the start of today (local) to the start of the goal's day.
    first, cutoff = session_moment(today, _dt.time()), session_moment(day, _dt.time())
    reviews: list[Review] = []
    for moment, held in planned:
        if not first <= moment < cutoff:
            continue
        for note_id in held:
            if note_id not in wanted:
                continue
            state = states.get(note_id)
            if state is not None:
                if not state.exact:
                    # a card FSRS cannot carry on (README "A screen you can trust"): its recall
                    # stays
                    continue
                # A session earlier today than the latest review counts from that review.
                moment = max(moment, state.last_review)
            reviews.append(Review(_PLANNED_RUN, note_id, None, moment, "good", None))
    replayed: Mapping[str, NoteState] = {}
    if reviews:
        touched = {review.note_id for review in reviews}
        start = {note_id: states[note_id] for note_id in touched if note_id in states}
        replayed = replay(reviews, parameters=parameters, start=start)
    asked = asked_moment(day)
    recall: dict[str, float] = {}
    for note_id in wanted:
        state = replayed.get(note_id) or states.get(note_id)
        value = None
        if state is not None:
            try:
                value = retrievability(parameters, state.stability, state.last_review, asked)
            except (OverflowError, ZeroDivisionError):
                value = None
        recall[note_id] = 0.0 if value is None else min(1.0, max(0.0, value))
    return recall


def ready_count(recall: Mapping[str, float], retention: float) -> int:
    """How many notes reach `retention` (rounded to three decimals, as shown)."""
    return sum(1 for value in recall.values() if round(value, 3) >= retention)


def least_ready(recall: Mapping[str, float], retention: float) -> list[tuple[str, float]]:
    """The notes short of `retention`, least ready first (ties by ID)."""
    return sorted(((note_id, value) for note_id, value in recall.items()
                   if round(value, 3) < retention), key=lambda item: (item[1], item[0]))


# --- the saved sessions -----------------------------------------------------------------------


def read_saved_sessions(home: str | os.PathLike[str], today: _dt.date,
                        marks: plans.Marks, leave_out: frozenset[str] = frozenset()
                        ) -> list[SavedSession]:
    """Every saved session, past ones included, at its moved date and start, marked done and
    dropped, less those `leave_out` names (`RUN#n`: the sessions a replan replaces); [] when
    the plans folder cannot be listed. The one reader of plans/ here."""
    from planner.plans import files as plans
    from planner.plans import store

    try:
        rows = store.list_plans(home, False, True, today, marks)
    except plans.PlansError:
        return []
    return sessions_from_rows(plans.good_rows(rows), leave_out)


def sessions_from_rows(rows: Iterable[plans.PlanRow], leave_out: frozenset[str] = frozenset()
                       ) -> list[SavedSession]:
    """The saved sessions of store.list_plans's rows (past ones included), as above."""
    from planner.plans import files as plans

    sessions = []
    for row in rows:
        if leave_out and plans.row_ref(row) in leave_out:
            continue
        sessions.append(SavedSession(row.date, row.start,
                                     row.minutes, tuple(row.note_ids), row.goal,
                                     bool(row.done), bool(row.dropped), row.reviewed,
                                     row.missed, row.run_id, row.readiness))
    return sessions


def sessions_ahead(sessions: Iterable[SavedSession], today: _dt.date, day: _dt.date,
                   default_start: str = DEFAULT_START) -> list[Planned]:
    """The sessions a prediction for `day` counts: from today to the day before, neither
    dropped nor done; one partly done holds the notes not yet reviewed for it."""
    return [(session_moment(session.date, session.start, default_start),
             tuple(note for note in session.note_ids if note not in session.reviewed)
             if session.reviewed else session.note_ids)
            for session in sessions if today <= session.date < day
            and not session.dropped and not session.done]


def proposal_sessions(plan: Proposal, default_start: str = DEFAULT_START) -> list[Planned]:
    """The sessions of a proposed plan, series or study plan, as the prediction takes them."""
    from planner.plans.study import StudyPlan

    if isinstance(plan, StudyPlan):
        return [(session_moment(session.date, session.start, default_start),
                 tuple(session.note_ids)) for session in plan.sessions]
    return [(session_moment(day, plan.start, default_start), tuple(plan.note_ids))
            for day in plan.days]


# --- what the screens ask ---------------------------------------------------------------------


def memory_states(memory: ReviewMemory) -> tuple[Mapping[str, NoteState], tuple[float, ...]]:
    """The replayed cards of the review memory and the parameters they were replayed with."""
    from planner.memory.schedule import scheduler_parameters

    states = memory.memory().states
    return states, scheduler_parameters(memory.parameters())


def readiness_line(home: str | os.PathLike[str], mode: str, goal: GoalTarget, plan: Any,
                   memory: ReviewMemory, today: _dt.date, config: Config,
                   replaced: frozenset[str] = frozenset()) -> GoalOutlook:
    """The SAVE screen's readiness: the goal's notes ready on its day with the saved sessions
    (less those a replan replaces) and this proposal, and with the saved sessions alone."""
    from planner.memory.marking import quiet_marks

    del mode  # a run for a goal is live; its saved sessions are the home's plans/
    states, parameters = memory_states(memory)
    saved = sessions_ahead(read_saved_sessions(home, today, quiet_marks(home), replaced), today,
                           goal.date, config.review_time)
    proposed = proposal_sessions(plan, config.review_time)
    with_plan = recall_on_day(states, parameters, goal.note_ids, saved + proposed, goal.date,
                              today)
    without = recall_on_day(states, parameters, goal.note_ids, saved, goal.date, today)
    covered = {note for _, held in proposed for note in held}
    return GoalOutlook(
        goal.name, goal.date, goal.retention, len(goal.note_ids),
        ready_count(with_plan, goal.retention), ready_count(without, goal.retention),
        tuple((note_id, round(value, 3))
              for note_id, value in least_ready(with_plan, goal.retention)),
        tuple(note_id for note_id in goal.note_ids if note_id not in covered))


class GoalSessions(NamedTuple):
    """A goal's saved sessions: planned (every one not dropped, done included) and done, with
    their minutes, and missed (day passed, neither done nor dropped)."""

    planned: int
    done: int
    minutes_planned: int
    minutes_done: int
    missed: int

    def to_json(self) -> dict[str, int]:
        return self._asdict()


class GoalReadiness(NamedTuple):
    """How many of a goal's notes are ready on its day: with the saved sessions, and with the
    reviews so far alone."""

    with_plans: int
    without_plans: int


class OwnPlanBound(NamedTuple):
    """What planner's own plan reaches for a goal: its notes ready, and its minutes."""

    ready: int
    minutes: int


class GoalReport(NamedTuple):
    """One goal as `planner goals` shows it; a past goal has no readiness."""

    name: str
    date: _dt.date
    past: bool
    notes: int
    sessions: GoalSessions
    ready: GoalReadiness | None
    not_ready: tuple[tuple[str, float], ...] | None  # (note, recall), least ready first
    best: OwnPlanBound | None = None  # planner's own plan, for a goal ahead

    def to_json(self) -> dict[str, Any]:
        """As `planner goals --json` has always written it."""
        return {"name": self.name, "date": self.date.isoformat(), "past": self.past,
                "notes": self.notes, "sessions": self.sessions.to_json(),
                "ready": None if self.ready is None else self.ready._asdict(),
                "not_ready": None if self.not_ready is None else [
                    {"id": note, "recall": recall} for note, recall in self.not_ready],
                "best": None if self.best is None else self.best._asdict()}


def goal_sessions(sessions: Iterable[SavedSession], name: str) -> GoalSessions:
    """The sessions of the plans saved for the goal `name` (any case)."""
    mine = _goal_sessions(sessions, name)
    done = [session for session in mine if session.done]
    return GoalSessions(len(mine), len(done), sum(session.minutes for session in mine),
                        sum(session.minutes for session in done),
                        sum(1 for session in mine if session.missed))


def _goal_sessions(sessions: Iterable[SavedSession], name: str) -> list[SavedSession]:
    """The sessions of the plans saved for the goal `name` (any case), not dropped."""
    folded = name.casefold()
    return [session for session in sessions if session.goal is not None
            and session.goal.casefold() == folded and not session.dropped]


def ready_when_saved(sessions: Iterable[SavedSession], name: str) -> int | None:
    """How many of the goal's notes its newest plan (not dropped) made ready when it was
    saved, as its file records (version 5); None when it records none."""
    recorded = [(session.run_id or "", session.saved) for session in
                _goal_sessions(sessions, name) if session.saved is not None]
    if not recorded:
        return None
    # Run IDs begin with the time they were made: the greatest is the newest plan.
    return max(recorded, key=lambda item: item[0])[1].ready


def goal_report(goal: GoalTarget, sessions: Sequence[SavedSession],
                states: Mapping[str, NoteState], parameters: Sequence[float], today: _dt.date,
                default_start: str = DEFAULT_START,
                recall_out: dict[str, float] | None = None) -> GoalReport:
    """One goal as `planner goals --json` gives it: its sessions, how many of its notes are
    ready on its day with the saved sessions and with the reviews so far alone, and the notes
    not ready (least ready first, recall with the saved sessions); a past goal has no
    readiness."""
    past = goal.date < today
    report = GoalReport(goal.name, goal.date, past, len(goal.note_ids),
                        goal_sessions(sessions, goal.name), None, None)
    if past:
        return report
    ahead = sessions_ahead(sessions, today, goal.date, default_start)
    with_plans = recall_on_day(states, parameters, goal.note_ids, ahead, goal.date, today)
    if recall_out is not None:
        recall_out.update(with_plans)
    without = recall_on_day(states, parameters, goal.note_ids, [], goal.date, today)
    return report._replace(
        ready=GoalReadiness(ready_count(with_plans, goal.retention),
                            ready_count(without, goal.retention)),
        not_ready=tuple((note_id, round(value, 3))
                        for note_id, value in least_ready(with_plans, goal.retention)))


def saved_ahead(home: str | os.PathLike[str], goal: GoalTarget, today: _dt.date,
                default_start: str = DEFAULT_START) -> list[Planned]:
    """The saved sessions a prediction for the goal's day counts, read now."""
    from planner.memory.marking import quiet_marks

    return sessions_ahead(read_saved_sessions(home, today, quiet_marks(home)), today, goal.date,
                          default_start)


def ready_now(home: str | os.PathLike[str], goal: GoalTarget, memory: ReviewMemory | None,
              today: _dt.date, default_start: str = DEFAULT_START) -> int:
    """How many of the goal's notes would be ready on its day with what is saved now."""
    states, parameters = memory_states(memory) if memory is not None else ({}, ())
    if not parameters:
        from planner.memory.schedule import scheduler_parameters

        parameters = scheduler_parameters(None)
    recall = recall_on_day(states, parameters, goal.note_ids,
                           saved_ahead(home, goal, today, default_start), goal.date, today)
    return ready_count(recall, goal.retention)


def goal_notes(home: str | os.PathLike[str], goal: GoalTarget, memory: ReviewMemory,
               today: _dt.date, default_start: str = DEFAULT_START) -> list[dict[str, Any]]:
    """The goal's notes least ready first, as `goal_notes` answers: ID, title, due date,
    recall now and on the goal's day (0-1, three decimals) and the saved sessions ahead
    holding each."""
    states, parameters = memory_states(memory)
    ahead = saved_ahead(home, goal, today, default_start)
    on_day = recall_on_day(states, parameters, goal.note_ids, ahead, goal.date, today)
    schedules = memory.schedules_of(goal.note_ids)
    due = memory.due_dates(goal.note_ids)
    titles = memory.titles()
    counts = dict.fromkeys(goal.note_ids, 0)
    for _moment, held in ahead:
        for note_id in held:
            if note_id in counts:
                counts[note_id] += 1
    rows = []
    for note_id in sorted(goal.note_ids, key=lambda note: (on_day[note], note)):
        now = schedules[note_id].retrievability
        day = due[note_id]
        rows.append({"id": note_id, "title": titles.get(note_id),
                     # AFTER_LAST_DAY's isoformat() says "after 9999-12-31".
                     "due": None if day is None else day.isoformat(),
                     "recall_now": 0.0 if now is None else round(now / 100, 3),
                     "recall_on_day": round(on_day[note_id], 3),
                     "sessions_planned": counts[note_id]})
    return rows
