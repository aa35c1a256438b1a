"""Replanning (README "A study plan to a goal"): the saved sessions of a goal still ahead, what a
new plan changes of them, and the one change that replaces them under the plans lock."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from planner.base.days import clock_text
from planner.base.i18n import t
from planner.conversation.saved_meanwhile import still_fits

if TYPE_CHECKING:
    from planner.calendar.timetable import Timetable
    from planner.memory.readiness import GoalTarget
    from planner.plans.study import Proposal, Session, StudyPlan


class Ahead(NamedTuple):
    """A saved session of the goal still ahead: its reference and where it is."""

    ref: str
    date: _dt.date
    start: _dt.time | None
    minutes: int
    note_ids: tuple[str, ...]


def sessions_ahead(home: Path, goal: GoalTarget, today: _dt.date) -> list[Ahead]:
    """The goal's saved sessions from today on, neither done nor dropped (at their moved time)."""
    return [each for each in _open_sessions(home, goal, today) if each.date >= today]


def missed_count(home: Path, goal: GoalTarget, today: _dt.date) -> int:
    """How many of the goal's saved sessions are missed: their day passed, neither done nor
    dropped."""
    return sum(1 for each in _open_sessions(home, goal, today) if each.date < today)


def _open_sessions(home: Path, goal: GoalTarget, today: _dt.date) -> list[Ahead]:
    from planner.memory.marking import quiet_marks
    from planner.plans import files as plans
    from planner.plans import store

    try:
        rows = plans.good_rows(store.list_plans(home, False, True, today, quiet_marks(home)))
    except plans.PlansError:
        return []
    folded = goal.name.casefold()
    return [Ahead(plans.row_ref(row), row.date, row.start, row.minutes, tuple(row.note_ids))
            for row in rows if row.goal is not None
            and row.goal.casefold() == folded and not row.done and not row.dropped]


def replacing_lines(timetable: Timetable | None, plan: Proposal) -> tuple[str, ...]:
    """A replan run's study plan: what it changes of the goal's sessions still ahead (the SAVE
    screen's list); () in any other run."""
    from planner.plans.study import StudyPlan

    if timetable is None or not timetable.replaced or timetable.goal is None \
            or not isinstance(plan, StudyPlan):
        return ()
    old = [each for each in sessions_ahead(timetable.home, timetable.goal, timetable.today)
           if each.ref in timetable.replaced]
    return tuple(changes(old, plan.sessions))


def left_out(home: Path, timetable: Timetable | None) -> frozenset[str]:
    """The saved sessions the SAVE screen's warnings leave out: the dropped ones (the review
    log is read only when a plan is shown) and, in a replan run, those replaced."""
    from planner.memory.marking import quiet_marks

    return quiet_marks(home).dropped | (frozenset() if timetable is None else timetable.replaced)


def save_check(timetable: Timetable | None, plan: Proposal, home: Path,
               run_id: str) -> Callable[[], None]:
    """The check a run's save makes under the plans lock: in a replan run a study plan also
    records the sessions it replaces as dropped (replaced_then); else still_fits."""
    from planner.plans.study import StudyPlan

    if timetable is not None and timetable.replaced and isinstance(plan, StudyPlan):
        return replaced_then(timetable, plan, home, tuple(sorted(timetable.replaced)), run_id)
    return still_fits(timetable, plan)


def changes(old: list[Ahead], new: tuple[Session, ...]) -> list[str]:
    """What the replan changes, session by session: kept, moved, added, removed."""
    lines: list[str] = []
    left = list(old)
    for session in new:
        same = next((each for each in left if each.note_ids == session.note_ids
                     and each.date == session.date and each.start == session.start), None)
        moved = same or next((each for each in left if each.note_ids == session.note_ids), None)
        shown = t("{date} {start} {minutes} min {notes}", date=session.date.isoformat(),
                  start=_clock(session.start), minutes=session.minutes,
                  notes=", ".join(session.note_ids))
        if same is not None:
            lines.append(t("kept: {session}", session=shown))
        elif moved is not None:
            lines.append(t("moved from {date} {start}: {session}", date=moved.date.isoformat(),
                           start=_clock(moved.start), session=shown))
        else:
            lines.append(t("added: {session}", session=shown))
        if moved is not None:
            left.remove(moved)
    for each in left:
        lines.append(t("removed: {date} {start} {minutes} min {notes}",
                       date=each.date.isoformat(), start=_clock(each.start),
                       minutes=each.minutes, notes=", ".join(each.note_ids)))
    return lines


def _clock(start: _dt.time | None) -> str:
    return "--:--" if start is None else clock_text(start)


def replaced_then(timetable: Timetable, plan: StudyPlan, home: Path, replacing: tuple[str, ...],
                  run_id: str) -> Callable[[], None]:
    """The check under the plans lock: the plan still fits, then the replaced sessions' drop
    lines (each naming `run_id`) go into the review log before the plan file is written. A
    drop so named counts only once that file exists (planner.memory.log), so a crash between
    the two leaves neither."""
    fits = still_fits(timetable, plan)

    def check() -> None:
        fits()
        if replacing:
            from planner.memory import log as review_log

            moment = _dt.datetime.now(_dt.UTC)
            try:
                review_log.append(home, [review_log.Drop(ref, moment, run_id)
                                         for ref in replacing])
            except review_log.ReviewLogError as error:
                raise OSError(str(error)) from None

    return check
