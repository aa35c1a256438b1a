"""`planner goals`: the goals of config.json, each with its sessions and its readiness."""

from __future__ import annotations

import datetime as _dt
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from planner import ui
from planner.cli.common import (
    ConfigOption,
    HomeOption,
    JsonFlag,
    open_workspace,
    say_warnings,
)
from planner.cli.exits import exit_failed

if TYPE_CHECKING:
    from planner.base.config import Config
    from planner.memory.readiness import GoalTarget, OwnPlanBound, Planned
    from planner.memory.review_memory import ReviewMemory
    from planner.notes.catalog import Catalog
    from planner.plans.files import Marks, PlanRow


def goals_command(
    ctx: typer.Context,
    as_json: JsonFlag = False,
    home: HomeOption = None,
    config_path: ConfigOption = None,
) -> None:
    """Each goal of config.json: its day, its notes, the sessions saved for it, and how many
    of its notes are ready on the day (with the saved sessions, and without).

    Example: planner goals --json
    """
    from planner.memory import readiness
    from planner.memory.marking import marks_from
    from planner.memory.review_memory import ReviewMemory

    workspace = open_workspace(ctx, home, config_path)
    folder, config = workspace.home, workspace.config()
    today = _dt.date.today()
    if not config.goals:
        if as_json:
            ui.print_json([])
        else:
            from planner.ui.goals_view import goals_report

            goals_report([], [], today)
        return
    catalog = goal_catalog(folder, config)
    targets = goal_targets(catalog, config)
    memory = ReviewMemory(folder, catalog, config.desired_retention)
    memory.memory()
    if memory.problem is not None:
        exit_failed(memory.problem)
    say_warnings(memory.log_warnings())
    states, parameters = readiness.memory_states(memory)
    marks = marks_from(memory.log().events)
    rows = _rows(folder, today, marks)  # the plans read once, for the readiness and the best
    sessions = readiness.sessions_from_rows(rows)
    reports = []
    for goal in targets:
        recall: dict[str, float] = {}
        report = readiness.goal_report(goal, sessions, states, parameters, today,
                                       config.review_time, recall)
        reports.append(report._replace(best=None if report.past else _best(
            folder, config, goal, memory, rows,
            readiness.sessions_ahead(sessions, today, goal.date, config.review_time), recall)))
    if as_json:
        ui.print_json([report.to_json() for report in reports])
        return
    from planner.ui.goals_view import goals_report

    goals_report(reports, [goal.retention for goal in targets], today,
                 [readiness.ready_when_saved(sessions, goal.name) for goal in targets])


def goal_catalog(folder: Path, config: Config) -> Catalog:
    """The notes goals are resolved against; exit 2 when they cannot be read."""
    from planner.notes.catalog import load_catalog

    catalog = load_catalog(folder, config.notes_dir, config.file)  # a NotesError is exit 2
    for warning in catalog.warnings:
        ui.notice(warning)
    return catalog


def goal_targets(catalog: Catalog, config: Config) -> list[GoalTarget]:
    """Every goal with its notes; a selector matching nothing is one warning naming it, a goal
    of too many notes a config error (exit 2)."""
    from planner.memory.readiness import target
    from planner.notes.selectors import goal_scope

    targets = []
    for goal in config.goals:
        scope = goal_scope(catalog, goal, config.file)
        say_warnings(scope.warnings(goal.name))
        targets.append(target(goal, scope.note_ids))
    return targets


def _rows(folder: Path, today: _dt.date, marks: Marks) -> list[PlanRow]:
    from planner.plans import files as plans
    from planner.plans import store

    with suppress(plans.PlansError):  # a plans folder that cannot be read: no sessions
        return plans.good_rows(store.list_plans(folder, False, True, today, marks))
    return []


def _best(folder: Path, config: Config, goal: GoalTarget, memory: ReviewMemory, rows: list[PlanRow],
          saved: list[Planned], recall: dict[str, float]) -> OwnPlanBound | None:
    """What planner's own plan would reach for a goal ahead, on top of its saved sessions
    (`rows` and `saved`, read once for every goal, and `recall` with them)."""
    from planner.cli.run import timetable_for
    from planner.conversation.suggestion import Suggestion

    today = _dt.date.today()
    timetable = timetable_for(config, folder, "live", today, goal.deadline, goal=goal)
    timetable.use_rows([row for row in rows if row.date >= today])
    bound = Suggestion(goal, memory, timetable, saved, recall).bound()
    say_warnings(list(timetable.unsaid_warnings()))
    return bound
