"""`planner plan --goal NAME [--replan]`: planner's own plan for a goal, with no model and no key
(README "A study plan to a goal")."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from planner import ui
from planner.base.i18n import t
from planner.cli.common import (
    ConfigOption,
    HomeOption,
    JsonFlag,
    complete_goal,
    open_workspace,
    say_warnings,
)
from planner.cli.exits import ended, exit_failed, exit_usage

if TYPE_CHECKING:
    from planner.base.config import Config
    from planner.calendar.best_plan import BestPlan
    from planner.calendar.timetable import Timetable
    from planner.memory.readiness import GoalOutlook, GoalTarget
    from planner.memory.review_memory import ReviewMemory
    from planner.notes.catalog import Catalog


def _complete_goal(ctx: typer.Context, param: object, incomplete: str) -> list[str]:
    return complete_goal(ctx, incomplete)


GoalOption = Annotated[str | None, typer.Option(
    "--goal", metavar="NAME", show_default=False, shell_complete=_complete_goal,
    help="The goal of config.json to plan for (a unique start of its name is enough).")]
ReplanFlag = Annotated[bool, typer.Option(
    "--replan", help="Replace the goal's sessions still ahead with a new plan from today.")]


def plan_command(
    ctx: typer.Context,
    goal: GoalOption = None,
    replan: ReplanFlag = False,
    as_json: JsonFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Planner's own plan for a goal: the sessions in your free time that make the most notes
    ready on the day. Shown, then saved after you type SAVE; --json prints it.

    Example: planner plan --goal "JLPT N3"
    """
    from planner.cli.goals import goal_catalog
    from planner.cli.run import goal_ahead, goal_target, timetable_for
    from planner.memory.review_memory import ReviewMemory

    workspace = open_workspace(ctx, home, config_path)
    folder, config = workspace.home, workspace.config()
    if goal is None:
        ahead = ", ".join(each.name for each in config.goals if each.is_ahead(_dt.date.today()))
        exit_usage(t("planner plan needs --goal NAME; goals still ahead: {goals}",
                     goals=ahead or "-"))
    chosen = goal_ahead(config, goal)
    catalog = goal_catalog(folder, config)
    target = goal_target(catalog, config, chosen)
    assert target is not None
    if not target.note_ids:
        exit_usage(t("the goal {name} has no notes: its selectors match none; change its "
                     "notes in {file}", name=target.name, file=config.file))
    now = _dt.datetime.now().replace(second=0, microsecond=0)
    today = now.date()
    memory = ReviewMemory(folder, catalog, config.desired_retention)
    memory.memory()
    if memory.problem is not None:
        exit_failed(memory.problem)
    say_warnings(memory.log_warnings())
    timetable = timetable_for(config, folder, "live", today, target.deadline, goal=target)
    if replan:
        replan_goal(folder, config, catalog, memory, timetable, target, now, as_json)
        return
    best = own_plan(timetable, target, memory, config, now, folder, frozenset())
    say_warnings(list(timetable.unsaid_warnings()))
    if as_json:
        ui.print_json(plan_json(best))
        return
    if best.plan is None:
        ui.notice(nothing_to_add(best))
        return
    _confirm(best, folder, config, catalog, timetable, memory, today,
             f"planner plan --goal {target.name}")


def own_plan(timetable: Timetable, goal: GoalTarget, memory: ReviewMemory, config: Config,
             now: _dt.datetime, home: Path, replaced: frozenset[str]) -> BestPlan:
    """Planner's plan for `goal` on top of the saved sessions still ahead, less `replaced`."""
    from planner.calendar.best_plan import best_plan
    from planner.memory import readiness
    from planner.memory.marking import quiet_marks

    timetable.replaced = replaced
    states, parameters = readiness.memory_states(memory)
    saved = readiness.sessions_ahead(
        readiness.read_saved_sessions(home, now.date(), quiet_marks(home), leave_out=replaced),
        now.date(), goal.date, config.review_time)
    return best_plan(timetable, goal, states, parameters, saved, config.minutes_per_note, now,
                     goal.name)


def plan_json(best: BestPlan) -> dict[str, Any]:
    """Planner's plan as `plan --json` prints it (suggest_study_plan's shape, every session)."""
    sessions = () if best.plan is None else best.plan.sessions
    return {"goal": best.goal.name, "date": best.goal.date.isoformat(), "ready": best.ready,
            "of": best.of, "minutes": best.minutes, "total": len(sessions),
            "sessions": [session.as_dict() for session in sessions]}


def nothing_to_add(best: BestPlan) -> str:
    return t("Nothing to add for {name}: {ready} of {total} notes are ready on {date} with "
             "what is saved, and no session in your free time would make more ready.",
             name=best.goal.name, ready=best.ready, total=best.of,
             date=best.goal.date.isoformat())


def _confirm(best: BestPlan, folder: Path, config: Config, catalog: Catalog, timetable: Timetable,
             memory: ReviewMemory, today: _dt.date, request: str) -> None:
    from planner.conversation.own_plan import confirm_own_plan
    from planner.memory.readiness import readiness_line
    from planner.ui.conversation import TerminalPerson

    assert best.plan is not None
    outlook = _needed(readiness_line(folder, "live", best.goal, best.plan, memory, today,
                                     config))
    outcome = confirm_own_plan(best.plan, request=request, goal_name=best.goal.name,
                               person=TerminalPerson(str(folder)), home=folder, config=config,
                               catalog=catalog, timetable=timetable, readiness=outlook,
                               today=today)
    if outcome.error is not None:
        ui.error(outcome.error)
    if outcome.exit_code:
        ended(outcome.exit_code)


def replan_goal(folder: Path, config: Config, catalog: Catalog, memory: ReviewMemory,
                timetable: Timetable, goal: GoalTarget, now: _dt.datetime,
                as_json: bool) -> None:
    """Plan the goal again from now, show what changes and the readiness before and after,
    and on SAVE write the new plan with the replaced sessions dropped, in one change."""
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
    outlook = _needed(readiness_line(folder, "live", goal, best.plan, memory, today, config,
                                     replacing))
    outcome = confirm_own_plan(best.plan, request=f"planner plan --goal {goal.name} --replan",
                               goal_name=goal.name, person=TerminalPerson(str(folder)),
                               home=folder, config=config, catalog=catalog, timetable=timetable,
                               readiness=outlook, today=today,
                               replacing=tuple(sorted(replacing)))
    if outcome.error is not None:
        ui.error(outcome.error)
    if outcome.exit_code:
        ended(outcome.exit_code)


def _needed(outlook: GoalOutlook) -> GoalOutlook:
    """Planner's own plan leaves out only the notes it could not make ready: a note ready
    without a session is not named as left out."""
    short = {note for note, _recall in outlook.not_ready}
    return outlook._replace(uncovered=tuple(note for note in outlook.uncovered if note in short))
