"""propose_study_plan and propose_review_plan: a save tool's arguments checked exactly as a run
checks them (the argument rules, then every session placed in the week, free/busy only), staged
when they pass, never saved (README "planner for other agents")."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.agents import staged
from planner.agents.world import World, rejected
from planner.base.errors import UsageError
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.plans.plan import InvalidArguments, load_object, parse_arguments, tool_definition
from planner.plans.study import (
    MAX_STUDY_BYTES,
    StudyPlan,
    parse_study_arguments,
    study_tool_definition,
)

if TYPE_CHECKING:
    from planner.calendar.timetable import Timetable
    from planner.memory.readiness import GoalTarget
    from planner.plans.study import Proposal

PROPOSE_STUDY = "propose_study_plan"
PROPOSE_REVIEW = "propose_review_plan"
KINDS = {PROPOSE_STUDY: staged.STUDY, PROPOSE_REVIEW: staged.REVIEW}


class Checked(NamedTuple):
    """A proposal that passed: placed in the week, with which starts planner chose."""

    plan: Proposal
    chosen: tuple[bool, ...]
    goal: GoalTarget | None
    timetable: Timetable


def check(world: World, kind: str, arguments: str) -> Checked:
    """The proposal checked and placed as a run does; InvalidArguments (SessionsRejected with a
    line per failing session) otherwise."""
    from planner.calendar.study_placing import place

    if kind == staged.STUDY:
        data = load_object(arguments, MAX_STUDY_BYTES)
        goal = world.goal(data.pop("goal")) if "goal" in data else None
        plan = parse_study_arguments(json.dumps(data, ensure_ascii=False), world.catalog,
                                     world.today)
        timetable = world.timetable(goal)
        placed, chosen = place(timetable, plan)
        return Checked(placed, chosen, goal, timetable)
    timetable = world.timetable()
    single, chosen = place(timetable, parse_arguments(arguments, world.catalog))
    return Checked(single, chosen, None, timetable)


def propose(world: World, tool: str, arguments: str,
            client: tuple[str | None, str | None]) -> tuple[dict[str, Any], bool]:
    """Check the proposal; staged when it passes. The answer, and whether it is a rejection."""
    kind = KINDS[tool]
    try:
        passed = check(world, kind, arguments)
    except InvalidArguments as error:
        return rejected(str(error), tuple(getattr(error, "lines", ()))), True
    readiness = outlook(world, passed)
    try:
        staged_id = staged.stage(world.home, kind, passed.plan.as_dict(), passed.chosen,
                                 None if passed.goal is None else passed.goal.name, client)
    except OSError as error:
        return {"status": "failed", "error": os_reason(error)}, True
    return {"status": "pending", "id": staged_id, "readiness": readiness,
            "confirm": f"planner pending {staged_id}"}, False


def check_again(world: World, proposal: staged.Staged) -> Checked:
    """A staged proposal checked again before its SAVE (the week may have changed); a
    UsageError saying why it cannot be saved now, every failing session named (exit 2)."""
    try:
        return check(world, proposal.kind, json.dumps(proposal.arguments, ensure_ascii=False))
    except InvalidArguments as error:
        lines = getattr(error, "lines", ())
        if not lines:
            raise UsageError(t("{id} cannot be saved now: {problem}; nothing was saved",
                               id=proposal.id, problem=str(error))) from None
        raise UsageError(t("{id} cannot be saved now: {problem} ({sessions}); nothing was saved",
                           id=proposal.id, problem=str(error), sessions=_joined(lines))) from None


def _joined(lines: tuple[str, ...]) -> str:
    """Every failing session on one line, each said in the person's language."""
    joined = lines[0]
    for line in lines[1:]:
        joined = t("{first}; {next}", first=joined, next=line)
    return joined


def outlook(world: World, passed: Checked) -> dict[str, Any] | None:
    """The goal's readiness on its day with this plan and without it; None without a goal."""
    if passed.goal is None or not isinstance(passed.plan, StudyPlan):
        return None
    from planner.memory.readiness import readiness_line

    line = readiness_line(world.home, "live", passed.goal, passed.plan, world.memory,
                          world.today, world.config)
    return {"goal": line.name, "date": line.date.isoformat(), "total": line.total,
            "ready_with": line.ready_with, "ready_without": line.ready_without,
            "retention": line.retention}


def schemas() -> dict[str, tuple[str, dict[str, Any]]]:
    """Each propose tool's description and input schema: the save tool's, with a study plan's
    optional goal, and saying that it stages rather than saves."""
    study = study_tool_definition(None)["function"]
    review = tool_definition(None)["function"]
    study_parameters = dict(study["parameters"])
    study_parameters["properties"] = {
        "goal": {"type": "string", "minLength": 1, "maxLength": 40,
                 "description": "Optional: the goal this plan is for (its name in the person's "
                                "config); its day before is the deadline."},
        **study_parameters["properties"]}
    staging = (" Here nothing is saved: a proposal that passes every check is staged and "
               "answered {\"status\": \"pending\", \"id\", \"readiness\", \"confirm\"}; tell the "
               "person to run the confirm command in their own terminal, where they type SAVE.")
    return {PROPOSE_STUDY: (_before_result(study["description"]) + staging, study_parameters),
            PROPOSE_REVIEW: (_before_result(review["description"]) + staging,
                             review["parameters"])}


def _before_result(description: str) -> str:
    """A save tool's description without what it says about its own result."""
    for said in (" The tool returns", " The program checks the proposal, the person"):
        description = description.split(said, 1)[0]
    return description
