"""The plain values of a run's turns: its limits, the next step, and small pure helpers."""

from __future__ import annotations

import json
import unicodedata
from typing import Any, NamedTuple

from planner.base import storage
from planner.base.days import clock_text
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.conversation.events import Notice, Person, Prompt
from planner.conversation.tools import MAX_RESULT_BYTES, MAX_TURN_RESULT_BYTES
from planner.plans.plan import InvalidArguments, ReviewSeries
from planner.plans.study import Proposal, StudyPlan
from planner.records.summary import PlanRecord, session_record


class Limits(NamedTuple):
    """Bounds of one run (README "A conversation, not a dead end"); the defaults come from config.

    With a terminal, the person may allow `max_calls` more each time they run out, up to
    MAX_RUN_CALLS in all (README "Going on with a conversation"); without one, `max_calls` is the
    hard cap.
    """

    max_calls: int = 6
    max_repairs: int = 1


# Words a person may type meaning "yes, save" (README "中文界面"): named and asked once more, never
# accepted.
YES_WORDS = frozenset({"保存", "确认", "是", "y", "yes"})


def is_near_miss(line: str) -> bool:
    """save, Save, ' SAVE', 'SAVE ', full-width ＳＡＶＥ, 保存, 确认, 是, y or yes: close to SAVE,
    never accepted."""
    typed = line.removesuffix("\n")
    folded = unicodedata.normalize("NFKC", typed).strip()
    return typed != "SAVE" and (folded.upper() == "SAVE" or folded.lower() in YES_WORDS)


# --- The next step, as a value: what a turn decided should happen after it -----------------


class Continue(NamedTuple):
    """Send these messages next; the model may call tools again."""

    messages: tuple[dict[str, Any], ...]


class ExplainOnly(NamedTuple):
    """Send these messages next; the model may only explain (tool_choice none)."""

    messages: tuple[dict[str, Any], ...]


class Finish(NamedTuple):
    """The run is over: nothing more is sent."""


FINISH = Finish()
NextStep = Continue | ExplainOnly | Finish


def shown_name(name: object) -> str:
    """A tool name the model sent, safe to put in a message: short, quoted if odd."""
    if isinstance(name, str) and name.isidentifier() and len(name) <= 64:
        return name
    return json.dumps(name, ensure_ascii=True)[:60]


def argument_problem(tool: str, error: InvalidArguments) -> str:
    """A lookup's bad argument: the tool's name, then the field and its rule.

    One template for each lookup tool: a generic "{tool} {field}: {rule}" would match every
    line with a space and a colon in it (a note's title too) when lines are shown.
    """
    from planner.conversation.lookups import DUE_NOTES, GET_NOTE, SEARCH_NOTES

    values = {"field": error.field, "rule": error.rule}
    if tool == SEARCH_NOTES:
        return t("search_notes {field}: {rule}", **values)
    if tool == GET_NOTE:
        return t("get_note {field}: {rule}", **values)
    if tool == DUE_NOTES:
        return t("due_notes {field}: {rule}", **values)
    # Any other tool: its name and the line, one template (text joined to a line is English).
    if error.field:
        return t("{tool} {field}: {rule}", tool=tool, **values)
    return t("{tool} {rule}", tool=tool, rule=error.rule)


def plan_record(plan: Proposal) -> PlanRecord:
    """A proposal as the summary records it: a plan's date, or a series' dates."""
    if isinstance(plan, StudyPlan):
        sessions = tuple(session_record(session.as_dict()) for session in plan.sessions)
        return PlanRecord(plan.title, plan.note_ids, None, plan.minutes,
                          tuple(day.isoformat() for day in plan.days), None, sessions)
    start = None if plan.start is None else clock_text(plan.start)
    if isinstance(plan, ReviewSeries):
        return PlanRecord(plan.title, plan.note_ids, None, plan.minutes,
                          tuple(day.isoformat() for day in plan.dates), start)
    return PlanRecord(plan.title, plan.note_ids, plan.date.isoformat(), plan.minutes, None,
                      start)


def bounded_result(result: dict[str, Any], room: int) -> dict[str, Any]:
    """A lookup's result as sent to the model: at most MAX_RESULT_BYTES of JSON, within room."""
    size = len(storage.to_json(result))
    if size > MAX_RESULT_BYTES:
        return {"error": t("the result was longer than {limit} bytes; ask for less",
                           limit=MAX_RESULT_BYTES)}
    if size > room:
        return {"error": t("the results of one reply's lookups may add up to at most {limit} "
                           "bytes; ask for this again in a later reply",
                           limit=MAX_TURN_RESULT_BYTES)}
    return result


def short_summary(result: dict[str, Any]) -> str:
    """A lookup's result in a few words, for the screen and the summary."""
    if "error" in result:
        return t("error: {error}", error=str(result["error"])[:120])
    if isinstance(result.get("results"), list):
        return t("{count} of {total} notes found", count=len(result["results"]),
                 total=result.get("total", "?"))
    if "id" in result:
        return t("note {id}", id=str(result["id"])[:60])
    if isinstance(result.get("due"), list):
        return t("{count} of {total} due notes", count=len(result["due"]),
                 total=result.get("total", "?"))
    if isinstance(result.get("days"), list):
        slots = sum(len(day.get("slots", ())) for day in result["days"])
        return t("{slots} free slots in {days} days", slots=slots, days=len(result["days"]))
    return t("done")


def jsonable(arguments: object) -> object:
    return arguments._asdict() if hasattr(arguments, "_asdict") else arguments


def os_error_reason(error: OSError) -> str:
    """An OSError in words, without a traceback: 'No space left on device'."""
    return os_reason(error)


def ask_to_save(person: Person) -> tuple[bool, list[str]]:
    """Read the decision: only the exact line SAVE saves; a near miss is asked once more."""
    near_misses: list[str] = []
    prompt = Prompt("save")
    while True:
        line = person.ask(prompt)
        if line is None:
            person.show(Notice(t("No terminal to confirm on: treated as cancel.")))
            return False, near_misses
        if line == "SAVE\n":
            return True, near_misses
        # A line cut by end of input is never asked again: nobody is there to answer.
        if line.endswith("\n") and is_near_miss(line):
            near_misses.append(line.removesuffix("\n"))
            if len(near_misses) == 1:
                prompt = Prompt("save", typed=near_misses[0])
                continue
        return False, near_misses
