"""One home as another agent sees it (README "planner for other agents"): the run's own lookups
and the run's own checks, over the home's config, notes, review memory and week.

Nothing here is new logic: each lookup is planner.conversation.lookups' Tool, checked and run
by the same functions a run calls, and every answer is bounded as a run bounds it.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.base.i18n import Lines, t
from planner.conversation import lookups, suggestion
from planner.conversation.tools import MAX_RESULT_BYTES, MAX_TURN_RESULT_BYTES, Tool
from planner.conversation.turn_values import argument_problem, bounded_result
from planner.model.turns import tool_message
from planner.plans.plan import InvalidArguments, field_name, kind_of, load_object

if TYPE_CHECKING:
    from planner.base.config import Config
    from planner.base.goals import Goal
    from planner.calendar.timetable import Timetable
    from planner.memory.readiness import GoalTarget
    from planner.memory.review_memory import ReviewMemory
    from planner.notes.catalog import Catalog
    from planner.plans.files import Marks

GOALS = "goals"
_MISSING = object()


class World:
    """The home for one call: its config and notes as given, its memory and week read fresh."""

    def __init__(self, home: Path, config: Config, catalog: Catalog, today: _dt.date,
                 password: Callable[[str, str | None], str | None] | None = None) -> None:
        self.home, self.config, self.catalog, self.today = home, config, catalog, today
        self.password = password or _no_password
        self._memory: ReviewMemory | None = None

    @property
    def memory(self) -> ReviewMemory:
        """The review memory, read when first asked (as a run reads it)."""
        if self._memory is None:
            from planner.memory.review_memory import ReviewMemory

            self._memory = ReviewMemory(self.home, self.catalog, self.config.desired_retention)
        return self._memory

    def timetable(self, goal: GoalTarget | None = None) -> Timetable:
        """The week as a live run for `goal` (or for none) sees it, read again on each call."""
        from planner.base.config import study_windows
        from planner.calendar.ics import local_zone
        from planner.calendar.timetable import Timetable

        def marks() -> Marks:
            from planner.memory.marking import quiet_marks

            return quiet_marks(self.home)

        until = None if goal is None else goal.date - _dt.timedelta(days=1)
        from planner.memory.anki_load import collection_path

        timetable = Timetable(home=self.home, mode="live", hours=study_windows(self.config),
                              daily_minutes=self.config.daily_minutes,
                              review_time=self.config.review_time, today=self.today,
                              until=until, sources=self.config.busy_calendars,
                              zone=local_zone().tzinfo, password=self.password, marks=marks,
                              anki_collection=collection_path(self.config))
        timetable.goal = goal
        timetable.minutes_per_note = self.config.minutes_per_note
        return timetable

    def goal(self, wanted: object) -> GoalTarget:
        """The goal `wanted` names as --goal does (a unique start of its name, any case, still
        ahead) with its notes; InvalidArguments naming `goal` otherwise."""
        from planner.base.goals import find_goal

        if wanted is _MISSING:
            raise InvalidArguments("goal", t("is required but missing"))
        if not isinstance(wanted, str):
            raise InvalidArguments("goal", t("must be a string, got {kind}", kind=kind_of(wanted)))
        found = find_goal(self.config.goals, wanted) if wanted.strip() else []
        if len(found) == 1 and found[0].is_ahead(self.today):
            return self.target(found[0])
        ahead = ", ".join(goal.name for goal in self.config.goals if goal.is_ahead(self.today))
        raise InvalidArguments("goal", t("names no goal ahead (goals ahead: {names})",
                                         names=ahead or "-"))

    def target(self, goal: Goal) -> GoalTarget:
        """A goal of the config with its notes resolved against the home's notes."""
        from planner.memory.readiness import target
        from planner.notes.selectors import goal_scope

        return target(goal, goal_scope(self.catalog, goal, self.config.file).note_ids)

    def goal_reports(self) -> dict[str, Any]:
        """Every goal as `planner goals --json` lists it, cut to fit an answer."""
        from planner.base.errors import PlannerError
        from planner.memory import readiness
        from planner.memory.marking import marks_from

        try:
            targets = [self.target(goal) for goal in self.config.goals]
        except PlannerError as error:
            return {"error": str(error)}
        if not targets:
            return {GOALS: []}
        memory = self.memory
        memory.memory()
        if memory.problem is not None:
            return {"error": str(memory.problem)}
        states, parameters = readiness.memory_states(memory)
        sessions = readiness.read_saved_sessions(self.home, self.today,
                                                 marks_from(memory.log().events))
        reports = []
        for goal in targets:
            report = readiness.goal_report(goal, sessions, states, parameters, self.today,
                                           self.config.review_time)
            # As planner goals: what planner's own plan reaches for a goal ahead.
            reports.append(report._replace(best=None if report.past else suggestion.Suggestion(
                goal, memory, self.timetable(goal)).bound()).to_json())
        result = {GOALS: reports}
        # Rare: many goals with many notes not ready. The least ready notes stay longest.
        while _size(result) > MAX_RESULT_BYTES:
            longest = max(reports, key=lambda report: len(report["not_ready"] or ()))
            if not longest["not_ready"]:
                reports.pop()
                continue
            longest["not_ready"].pop()
        return result


def _no_password(url: str, user: str | None) -> str | None:
    """A CalDAV password from its stored sources only: a server never asks (no terminal)."""
    from planner.base.secrets import KeyProblem, MissingKey, find_caldav_password

    try:
        return find_caldav_password(url, user, None)
    except (KeyProblem, MissingKey):
        return None  # that calendar's busy time is unknown, never taken as free


class Lookup(NamedTuple):
    """One read-only lookup for other agents: its name, description and input schema, and the
    run's own Tool for it over a World."""

    name: str
    description: str
    input_schema: dict[str, Any]
    tool: Callable[[World], Tool]


def _from_run(schema: dict[str, Any], build: Callable[[World], Tool]) -> Lookup:
    """A lookup offered exactly as a run offers it to the model."""
    function = schema["function"]
    return Lookup(function["name"], function["description"], function["parameters"], build)


def _goal_notes(world: World) -> Tool:
    """goal_notes with the goal as an argument (a run has its goal already)."""
    def check(arguments: object) -> tuple[GoalTarget, lookups.GoalNotesArguments]:
        data = load_object(arguments)
        goal = world.goal(data.pop("goal", _MISSING))
        return goal, lookups.check_goal_notes(json.dumps(data, ensure_ascii=False))

    def run(checked: tuple[GoalTarget, lookups.GoalNotesArguments]) -> dict[str, Any]:
        goal, arguments = checked
        return lookups.run_goal_notes(goal, world.memory, world.timetable(goal), world.today,
                                      arguments)

    return Tool(lookups.GOAL_NOTES, GOAL_NOTES_SCHEMA, check, False, run)


def _suggest(world: World) -> Tool:
    """suggest_study_plan with the goal as an argument: planner's own plan for it, a page at a
    time, exactly as a run for that goal answers it."""
    from planner.conversation.suggestion import MAX_SUGGEST_LIMIT, Suggestion

    def check(arguments: object) -> tuple[GoalTarget, lookups.GoalNotesArguments]:
        data = load_object(arguments)
        goal = world.goal(data.pop("goal", _MISSING))
        return goal, lookups.check_page(json.dumps(data, ensure_ascii=False), MAX_SUGGEST_LIMIT)

    def run(checked: tuple[GoalTarget, lookups.GoalNotesArguments]) -> dict[str, Any]:
        goal, arguments = checked
        return Suggestion(goal, world.memory, world.timetable(goal)).page(arguments)

    return Tool(suggestion.SUGGEST, SUGGEST_SCHEMA, check, False, run)


def _goals(world: World) -> Tool:
    """goals: `planner goals --json`, as an object ({"goals": [...]})."""
    def check(arguments: object) -> None:
        data = load_object(arguments)
        if data:
            raise InvalidArguments(field_name(sorted(data)[0]),
                                   t("is not an allowed field (goals takes no arguments)"))

    return Tool(GOALS, GOALS_SCHEMA, check, False, lambda _checked: world.goal_reports())


_RUN_GOAL_NOTES: Any = lookups.GOAL_NOTES_SCHEMA["function"]
_GOAL_PROPERTY = {"type": "string", "minLength": 1, "maxLength": 40,
                  "description": "The goal's name in the person's config (a unique start of "
                                 "it is enough, any case); the goals tool lists them."}
GOAL_NOTES_SCHEMA = {
    "type": "function",
    "function": {
        "name": lookups.GOAL_NOTES,
        "description": (
            "List the notes of one of the person's goals, least ready first: how likely the "
            "person is to recall each now and on the goal's day (0-1, with the sessions saved "
            "so far, each counted as one good review), its due date and how many saved "
            "sessions ahead hold it. Read-only. Returns {\"goal\", \"date\", \"total\", "
            "\"notes\": [{\"id\", \"title\", \"due\", \"recall_now\", \"recall_on_day\", "
            "\"sessions_planned\"}]}."),
        "parameters": {
            "type": "object",
            "properties": {"goal": _GOAL_PROPERTY, **_RUN_GOAL_NOTES["parameters"]["properties"]},
            "required": ["goal", "offset", "limit"],
            "additionalProperties": False,
        },
    },
}
_RUN_SUGGEST: Any = suggestion.SUGGEST_SCHEMA["function"]
SUGGEST_SCHEMA = {
    "type": "function",
    "function": {
        "name": suggestion.SUGGEST,
        "description": (
            "Planner's own plan for one of the person's goals: sessions in the person's free "
            "time that make the most notes ready on the goal's day, then take the fewest "
            "minutes. Read-only; propose it (or better) with propose_study_plan. Returns "
            "{\"goal\", \"ready\", \"of\", \"minutes\", \"total\", \"sessions\": [{\"date\", "
            "\"start\", \"minutes\", \"note_ids\"}]}, a page of the sessions."),
        "parameters": {
            "type": "object",
            "properties": {"goal": _GOAL_PROPERTY, **_RUN_SUGGEST["parameters"]["properties"]},
            "required": ["goal", "offset", "limit"],
            "additionalProperties": False,
        },
    },
}
GOALS_SCHEMA = {
    "type": "function",
    "function": {
        "name": GOALS,
        "description": (
            "List the person's goals (an exam, a trip) as `planner goals --json` does: each "
            "with its date, whether it is past, its notes, its sessions planned and done, how "
            "many notes are ready on the day with the saved sessions and without, and the "
            "notes not ready (least ready first), and what planner's own plan would reach "
            "(best). Read-only. Returns {\"goals\": [{\"name\", \"date\", \"past\", "
            "\"notes\", \"sessions\", \"ready\", \"not_ready\", \"best\"}]}."),
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
}

# The lookups other agents may call, in the order they are listed. A lookup the conversation
# gains is offered here by one more entry (its run schema and how to build its Tool).
LOOKUPS: tuple[Lookup, ...] = (
    _from_run(lookups.SEARCH_SCHEMA, lambda world: lookups.lookup_tools(world.catalog)[0]),
    _from_run(lookups.GET_SCHEMA, lambda world: lookups.lookup_tools(world.catalog)[1]),
    _from_run(lookups.DUE_SCHEMA, lambda world: lookups.due_tool(world.memory, world.today)),
    _from_run(lookups.FREE_SLOTS_SCHEMA,
              lambda world: lookups.free_slots_tool(world.timetable(), world.today)),
    _from_run(GOAL_NOTES_SCHEMA, _goal_notes),
    _from_run(SUGGEST_SCHEMA, _suggest),
    _from_run(GOALS_SCHEMA, _goals),
)


def answer(lookup: Lookup, world: World, arguments: str) -> tuple[dict[str, Any], bool]:
    """The lookup's answer to `arguments` (a JSON text) as a run gives it to the model, and
    whether it is a rejection."""
    tool = lookup.tool(world)
    try:
        checked = tool.check(arguments)
    except InvalidArguments as error:
        return rejected(argument_problem(tool.name, error)), True
    assert tool.run is not None  # every entry is a lookup
    return bounded_result(tool.run(checked), MAX_TURN_RESULT_BYTES), False


def rejected(problem: str, lines: tuple[str, ...] = ()) -> dict[str, Any]:
    """A rejection as a run sends it to the model: the problem, then one line per session."""
    return {"status": "rejected", "error": Lines((problem, *lines))}


def answer_text(result: dict[str, Any]) -> str:
    """An answer's JSON text, byte for byte the tool message a run sends the model."""
    text: str = tool_message("", result)["content"]
    return text


def _size(result: dict[str, Any]) -> int:
    """The answer's size as bounded_result measures it."""
    from planner.base import storage

    return len(storage.to_json(result))
