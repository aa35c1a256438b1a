"""The SAVE screen of a study plan: its sessions by week, the notes left out, the readiness."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

from planner.base.days import clock_text
from planner.base.i18n import _, shown
from planner.base.inert import inert_line
from planner.base.study_hours import windows_on
from planner.ui.wrapping import Hanging

if TYPE_CHECKING:
    from planner.calendar.best_plan import PlanWorth
    from planner.conversation.events import ConfirmRequest
    from planner.memory.readiness import GoalOutlook

MAX_NAMED = 10  # notes named one by one on the screen; the rest are counted
WARN = "bold yellow"
# A panel row: label, value (a session's line hangs its notes under the first), style.
Row = tuple[str, "str | Hanging", str]


def study_rows(view: ConfirmRequest, daily_minutes: int | None) -> list[Row]:
    """The panel's rows: title, then each week (Monday to Sunday) with its minutes and
    sessions, the goal's notes no session covers, and the readiness line."""
    from planner.plans.study import StudyPlan

    plan = view.plan
    if not isinstance(plan, StudyPlan):
        raise TypeError("study_rows shows a study plan only")
    rows: list[Row] = [(_("Title"), inert_line(plan.title), "")]
    outlook = view.readiness
    if outlook is not None:
        rows.append((_("Goal"), _("{name}, {date}").format(
            name=inert_line(outlook.name), date=outlook.date.isoformat()), ""))
    chosen = view.sessions_chosen
    width = len(str(len(plan.sessions)))  # numbers right-aligned: " 9." above "10."
    weeks: dict[_dt.date, list[int]] = {}
    for index, session in enumerate(plan.sessions):
        day = session.date
        weeks.setdefault(day - _dt.timedelta(days=day.weekday()), []).append(index)
    for monday, indexes in weeks.items():
        minutes = sum(plan.sessions[index].minutes for index in indexes)
        sunday = monday + _dt.timedelta(days=6)
        # Only the days with study hours hold minutes: a Friday with none adds nothing.
        days = 7 if view.study_hours is None else sum(
            1 for offset in range(7)
            if windows_on(view.study_hours, monday + _dt.timedelta(days=offset)))
        budget = ("" if daily_minutes is None else
                  _(" of {most} min").format(most=f"{daily_minutes * days:,}"))
        rows.append((_("Week"), _("{first} – {last}: {minutes} min{budget}").format(
            first=monday.isoformat(), last=sunday.isoformat()[5:], minutes=f"{minutes:,}",
            budget=budget), "bold"))
        for index in indexes:
            session = plan.sessions[index]
            day = session.date
            mark = "*" if index < len(chosen) and chosen[index] else ""
            # The notes' lines after the first sit under the first note, each ID whole.
            head = _("{number}. {weekday} {date} {start}  {minutes} min  ").format(
                number=f"{index + 1:>{width}}", weekday=_short_weekday(day),
                date=day.isoformat(), start=(_clock(session.start) + mark).ljust(6),
                minutes=session.minutes)
            rows.append(("", Hanging(head, tuple(inert_line(note) for note in session.note_ids),
                                     _(", ")), ""))
    if any(chosen):
        rows.append(("", _("* start chosen by planner: the first free time"), "dim"))
    if outlook is not None:
        rows += _outlook_rows(outlook)
    if view.worth is not None:
        rows += _worth_rows(view.worth)
    for number, line in enumerate(view.replacing):
        rows.append((_("Replaces") if number == 0 else "", inert_line(shown(line)), ""))
    return rows


def _worth_rows(worth: PlanWorth) -> list[tuple[str, str, str]]:
    """Planner's own plan in the same free time, and the smallest addition found that lifts
    this one (README "A study plan to a goal")."""
    rows = [("", _("Planner's plan in your free time: {ready} of {total} ready in {minutes} "
                   "minutes (this plan: {this})").format(
        ready=worth.best_ready, total=worth.of, minutes=f"{worth.best_minutes:,}",
        this=f"{worth.this_minutes:,}"), "")]
    more = worth.addition
    if more is not None:
        words = (_("Adding a last review of these {count} notes between {first} and {last} "
                   "(+{minutes} minutes) makes {ready} ready") if more.last_only else
                 _("Adding reviews of these {count} notes between {first} and {last} "
                   "(+{minutes} minutes) makes {ready} ready"))
        rows.append(("", words.format(count=len(more.note_ids), first=more.first.isoformat()[5:],
                                      last=more.last.isoformat()[5:], minutes=f"{more.minutes:,}",
                                      ready=more.ready), WARN))
        rows.append(("", _named(more.note_ids), WARN))
    return rows


def _outlook_rows(outlook: GoalOutlook) -> list[Row]:
    rows: list[Row] = []
    if outlook.uncovered:
        rows.append((_("Left out"), _("{notes} (no session of this plan holds them)").format(
            notes=_named(outlook.uncovered)), WARN))
    rows.append(("", _("On {date}: {ready} of {total} notes ready ({percent}% or more); "
                       "without this plan: {without}").format(
        date=outlook.date.isoformat(), ready=outlook.ready_with, total=outlook.total,
        percent=round(outlook.retention * 100), without=outlook.ready_without), "bold"))
    if outlook.not_ready:
        rows.append(("", _("not ready: {notes}").format(notes=_named([
            # A no-break space: a note and its recall stay on one line (N3 69%).
            f"{note}\u00a0{round(recall * 100)}%" for note, recall in outlook.not_ready])), WARN))
    return rows


def _named(items: list[str] | tuple[str, ...]) -> str:
    """At most MAX_NAMED items, then how many more (note IDs are data: never translated)."""
    words = _(", ").join(inert_line(item) for item in items[:MAX_NAMED])
    if len(items) > MAX_NAMED:
        words += _(" and {count} more").format(count=len(items) - MAX_NAMED)
    return words


def _clock(start: _dt.time | None) -> str:
    return "--:--" if start is None else clock_text(start)


def _short_weekday(day: _dt.date) -> str:
    return (_("Mon"), _("Tue"), _("Wed"), _("Thu"), _("Fri"), _("Sat"),
            _("Sun"))[day.weekday()]
