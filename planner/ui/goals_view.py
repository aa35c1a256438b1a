"""`planner goals`: each goal's day, notes, sessions and readiness, at most 80 columns wide in
either language."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text

from planner.base.i18n import _, n_
from planner.base.inert import inert_line
from planner.ui.console import out
from planner.ui.dates import distance, weekday
from planner.ui.wrapping import wrap_text

if TYPE_CHECKING:
    from planner.memory.readiness import GoalReadiness, GoalReport

WIDTH = 80
MAX_NAMED = 10  # notes named one by one; the rest are counted


def goals_report(reports: Sequence[GoalReport], retentions: Sequence[float], today: _dt.date,
                 when_saved: Sequence[int | None] = ()) -> None:
    """One block per goal: its name and day, its notes, its sessions (and those missed, with
    the readiness now and when its plan was saved: `when_saved`, by goal) and, for a goal
    ahead, how many of its notes are ready on the day and which are not."""
    if not reports:
        _line(Text(_("No goals yet: \"goals\" in config.json sets them (a name, a date and the "
                     "notes).")))
        return
    for number, (report, retention) in enumerate(zip(reports, retentions, strict=True)):
        if number:
            _line(Text(""))
        saved = when_saved[number] if number < len(when_saved) else None
        _goal(report, retention, today, saved)


def _goal(report: GoalReport, retention: float, today: _dt.date,
          saved: int | None = None) -> None:
    day = report.date
    head = Text(inert_line(report.name), style="bold")
    when = _("{date} ({weekday}, {distance})").format(
        date=day.isoformat(), weekday=weekday(day), distance=distance(day, today))
    head.append("  " + when)
    if report.past:
        head.append("  " + _("past"), style="dim")
    _line(head)
    sessions = report.sessions
    _line(Text(_("Notes: {count}").format(count=f"{report.notes:,}")), 2)
    _line(Text(_("Sessions: {planned} planned ({minutes} min), {done} done ({done_minutes}"
                        " min)").format(planned=sessions.planned,
                                        minutes=f"{sessions.minutes_planned:,}",
                                        done=sessions.done,
                                        done_minutes=f"{sessions.minutes_done:,}")), 2)
    ready = report.ready
    _missed(sessions.missed, ready, report.notes, saved)
    if ready is None:
        return
    _line(Text(_("Ready on the day ({percent}% or more): {with_plans} of {total} with the "
                        "saved sessions, {without} with the reviews so far").format(
        percent=round(retention * 100), with_plans=ready.with_plans, total=report.notes,
        without=ready.without_plans), style="bold"), 2)
    best = report.best
    if best is not None and best.minutes:
        _line(Text(_("Planner's plan in your free time: {ready} of {total} ready with "
                     "{minutes} minutes more (planner plan --goal shows it)").format(
            ready=best.ready, total=report.notes, minutes=f"{best.minutes:,}")), 2)
    elif best is not None:
        _line(Text(_("Planner's plan in your free time adds nothing: no session would make "
                     "more notes ready")), 2)
    missing = report.not_ready
    if missing:
        named = _(", ").join(
            # A no-break space: a note and its recall stay on one line (N3 69%).
            f"{inert_line(note)}\u00a0{round(recall * 100)}%"
            for note, recall in missing[:MAX_NAMED])
        if len(missing) > MAX_NAMED:
            named += _(" and {count} more").format(count=len(missing) - MAX_NAMED)
        _line(Text(_("Not ready: {notes}").format(notes=named), style="yellow"), 2)


def _missed(count: int, ready: GoalReadiness | None, total: int, saved: int | None) -> None:
    """`3 sessions missed; ready on the day now 12 of 27 (18 when saved)`: said only when a
    session was missed, the readiness only for a goal ahead."""
    if not count:
        return
    missed = n_("1 session missed", "{count} sessions missed", count).format(count=count)
    if ready is not None and saved is not None:
        missed = _("{missed}; ready on the day now {ready} of {total} ({saved} when "
                   "saved)").format(missed=missed, ready=ready.with_plans, total=total,
                                    saved=saved)
    elif ready is not None:
        missed = _("{missed}; ready on the day now {ready} of {total}").format(
            missed=missed, ready=ready.with_plans, total=total)
    _line(Text(missed, style="red"), 2)


def _line(text: Text, indent: int = 0) -> None:
    """One line of the report wrapped to the screen (at most WIDTH), indented by `indent`."""
    wrapped = wrap_text(text, min(out.width, WIDTH) - indent)
    for part in wrapped.split("\n"):
        out.print(Text(" " * indent) + part, soft_wrap=True)
