"""`planner plan --goal NAME --replan`: the goal planned again from today; the new plan replaces
every session of the goal's plans still ahead in one change (README "A study plan to a goal")."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from planner import ui
from planner.base.i18n import t
from planner.cli.common import exit_usage, say_warnings

if TYPE_CHECKING:
    from planner.base.config import Config
    from planner.calendar.timetable import Timetable
    from planner.memory.readiness import GoalTarget
    from planner.memory.review_memory import ReviewMemory


def replan_goal(folder: Path, config: Config, catalog, memory: ReviewMemory,
                timetable: Timetable, goal: GoalTarget, now: _dt.datetime,
                as_json: bool) -> None:
    """Plan the goal again from now, show what changes and the readiness before and after,
    and on SAVE write the new plan with the replaced sessions dropped, in one change."""
    from planner.cli.own_plan import own_plan, plan_json
    from planner.conversation.own_plan import confirm_own_plan
    from planner.conversation.replacing import changes, sessions_ahead
    from planner.memory.readiness import readiness_line, ready_now
    from planner.ui.conversation import TerminalPerson

    today = now.date()
    old = sessions_ahead(folder, goal, today)
    if not old:
        exit_usage(t("--replan: no session of {name} is still ahead to replace; planner plan "
                     "--goal {name} plans it", name=goal.name))
    replacing = frozenset(each.ref for each in old)
    before = ready_now(folder, goal, memory, today, config.review_time)
    best = own_plan(timetable, goal, memory, config, now, folder, replacing)
    say_warnings(list(timetable.unsaid_warnings()))
    if as_json:
        ui.print_json({**plan_json(best), "replaces": sorted(replacing)})
        return
    if best.plan is None:
        exit_usage(t("--replan: planner finds no session in your free time that helps {name}; "
                     "nothing was changed", name=goal.name))
    ui.notice(t("Replanning {name}: {count} saved sessions still ahead are replaced.",
                name=goal.name, count=len(old)))
    for line in changes(old, best.plan.sessions):
        ui.notice(line)
    ui.notice(t("Ready on {date}: {before} of {total} now, {after} with the new plan.",
                date=goal.date.isoformat(), before=before, total=len(goal.note_ids),
                after=best.ready))
    outlook = readiness_line(folder, "live", goal, best.plan, memory, today, config, replacing)
    outcome = confirm_own_plan(best.plan, request=f"planner plan --goal {goal.name} --replan",
                               goal_name=goal.name, person=TerminalPerson(str(folder)),
                               home=folder, config=config, catalog=catalog, timetable=timetable,
                               readiness=outlook, today=today,
                               replacing=tuple(sorted(replacing)))
    if outcome.error is not None:
        ui.error(outcome.error)
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)
