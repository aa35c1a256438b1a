"""One session on its own: planner move RUN#n --date YYYY-MM-DD [--start HH:MM]."""

import datetime as _dt
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from planner import ui
from planner.base.days import clock_text, parse_clock, parse_date, read_clock
from planner.base.i18n import t
from planner.cli.common import (
    ConfigOption,
    HomeOption,
    complete_run,
    open_workspace,
    say_warnings,
)
from planner.cli.exits import exit_usage

if TYPE_CHECKING:
    from planner.plans.files import PlanRow


def move_command(
    ctx: typer.Context,
    session: Annotated[
        str,
        typer.Argument(metavar="RUN#n", show_default=False, autocompletion=complete_run,
                       help="The session: a run (last or -1: the newest run that saved a plan; "
                       "else as for planner show) and its session number after # (RUN alone "
                       "for a single plan)."),
    ],
    date: Annotated[
        str,
        typer.Option("--date", metavar="YYYY-MM-DD", show_default=False,
                     help="The session's new day."),
    ],
    start: Annotated[
        str | None,
        typer.Option("--start", metavar="HH:MM", show_default=False,
                     help="Its new start (default: it keeps its start)."),
    ] = None,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Move one saved session to another day or time, checked as a proposed one is.

    Study hours, busy time, the other sessions, the daily minutes and the plan's deadline
    (its goal's day) all count. The move is recorded in the review log; the plan file stays
    as it was, and plans, week and the calendars show the session where it was moved to.

    Example: planner move 20261204T101500000000Z-ab12cd#3 --date 2026-12-20 --start 19:30
    """
    from planner.cli.reviews import pick_plan_run
    from planner.cli.run import timetable_for
    from planner.memory import log as review_log
    from planner.memory import marking
    from planner.plans import files as plans

    workspace = open_workspace(ctx, home, config_path)
    folder = workspace.home
    if session.startswith("-") and not session.partition("#")[0][1:].isdigit():
        exit_usage(t("no such option: {option} (planner move -h lists the options)",
                 option=session))
    wanted, number = plans.split_ref(session)  # a UsageError rises
    day = _day(date)
    asked = None if start is None else parse_clock(start)
    if start is not None and asked is None:
        exit_usage(t("--start {start}: must be a 24-hour time HH:MM", start=start))
    config = workspace.config()
    today = _dt.date.today()
    log = marking.read_log(folder)
    say_warnings(log.warnings)
    found = pick_plan_run(folder, wanted)
    rows = marking.plan_rows(folder, found, today, marking.marks_from(log.events))
    row = _session_row(rows, found, number)
    time = asked or row.start or read_clock(config.review_time)  # review_time: checked
    until = _deadline(folder, config, row)
    timetable = timetable_for(config, folder, "live", today, until)
    timetable.leave_out = plans.row_ref(row)
    from planner.calendar.moving import move_problem

    moment = _dt.datetime.combine(day, time)
    problem = move_problem(timetable, moment, row.minutes)
    for line in timetable.unsaid_warnings():
        ui.notice(line)
    if problem is not None:
        exit_usage(t("{session} cannot move there: {problem}; nothing was changed",
                 session=_shown(row), problem=problem))
    # A log that cannot be appended to is one line, exit 1 (planner.cli.app).
    review_log.record_move(folder, plans.row_ref(row), day.isoformat(), clock_text(time))
    ui.info(t("Moved {session} to {date} {start}: plans, week and the calendars show it "
              "there (planner sync or export updates the calendars).", session=_shown(row),
              date=day.isoformat(), start=clock_text(time)))


def _day(text: str) -> _dt.date:
    from planner.base import days

    day = parse_date(text)
    if day is None:
        exit_usage(t("--date {date}: must be a real date YYYY-MM-DD", date=text[:40]))
    if not days.usable_day(day):
        exit_usage(t("--date {date}: planner uses dates from {first} to {last}", date=text,
                 first=days.FIRST_DAY.isoformat(), last=days.LAST_DAY.isoformat()))
    return day


def _session_row(rows: list["PlanRow"], run_id: str, number: int | None) -> "PlanRow":
    """The row to move: the plan's one row, or session `number`; one line, exit 2, else."""
    if number is None:
        if len(rows) > 1 or rows[0].session is not None:
            exit_usage(t("{file} has {count} sessions: name one as {run_id}#n",
                         file=rows[0].file, count=len(rows), run_id=run_id))
        row = rows[0]
    else:
        from planner.cli.reviews import session_rows

        row = session_rows(rows, number)[0]
    if row.dropped:
        exit_usage(t("{session} was dropped; planner drop --undo brings it back first",
                 session=_shown(row)))
    if row.done:
        exit_usage(t("{session} is done (it has reviews); a done session is not moved",
                 session=_shown(row)))
    return row


def _deadline(folder: Path, config: object, row: "PlanRow") -> _dt.date | None:
    """The day before the plan's goal, or the --until of the run that saved it, else None."""
    goal = row.goal
    if goal is not None:
        for each in getattr(config, "goals", ()) or ():
            if str(getattr(each, "name", "")).casefold() == goal.casefold():
                return _dt.date.fromisoformat(str(each.date)) - _dt.timedelta(days=1)
    from planner.records import history
    from planner.records.summary import DamagedRun

    # No records, or a run's --until that is no date: no limit.
    with suppress(OSError, ValueError):
        summary = history.read_run(str(Path(history.records_dir(folder)) / row.run_id),
                                   row.run_id, False)[0]
        until = None if isinstance(summary, DamagedRun) else summary.until
        return _dt.date.fromisoformat(until) if until else None
    return None


def _shown(row: "PlanRow") -> str:
    if row.session is None:
        return row.file
    return t("{file} (session {session})", file=row.file, session=row.session)
