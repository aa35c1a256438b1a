"""Building requests: the system message, the first messages, the tools and the body."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any

from planner.base import i18n
from planner.base.config import Config
from planner.conversation.tools import Registry, Tool
from planner.notes.catalog import Catalog, ListCatalog, Note, listing
from planner.plans.plan import (
    SERIES_TOOL_NAME,
    TOOL_NAME,
    parse_arguments,
    parse_series_arguments,
    series_tool_definition,
    tool_definition,
)

STUDY_TOOL_NAME = "save_study_plan"  # planner.plans.study's, without importing it at start-up

if TYPE_CHECKING:
    from planner.calendar.timetable import Timetable
    from planner.conversation.suggestion import Suggestion
    from planner.memory.review_memory import ReviewMemory

DEFAULT_REQUEST = "请把N1和N2安排在2026-10-05复习20分钟，标题为RAG基础复习。只保存本地计划。"


def save_tool(note_ids: Collection[str], listed: Collection[str] | None = None) -> Tool:
    """save_review_plan: checked strictly, run only after the person types SAVE.

    `note_ids` answers "does this note exist?" for every proposed ID; `listed` are the IDs the
    schema names in its enum (None: too many notes to list, so no enum).
    """
    return Tool(
        name=TOOL_NAME,
        schema=tool_definition(listed),
        check=lambda arguments: parse_arguments(arguments, note_ids),
        needs_confirmation=True,
    )


def series_tool(note_ids: Collection[str], listed: Collection[str] | None,
                today: _dt.date) -> Tool:
    """save_review_series: the second confirmed tool; one SAVE saves every session."""
    return Tool(
        name=SERIES_TOOL_NAME,
        schema=series_tool_definition(listed),
        check=lambda arguments: parse_series_arguments(arguments, note_ids, today),
        needs_confirmation=True,
    )


def study_tool(note_ids: Collection[str], listed: Collection[str] | None,
               today: _dt.date) -> Tool:
    """save_study_plan: the third confirmed tool; one SAVE saves every session."""
    from planner.plans.study import parse_study_arguments, study_tool_definition

    return Tool(
        name=STUDY_TOOL_NAME,
        schema=study_tool_definition(listed),
        check=lambda arguments: parse_study_arguments(arguments, note_ids, today),
        needs_confirmation=True,
    )


def as_catalog(notes: Sequence[Note] | Catalog) -> Catalog:
    """A catalog for notes given as a plain sequence (tests, the samples)."""
    return notes if isinstance(notes, Catalog) else ListCatalog(tuple(notes), "samples")


def registry_for(notes: Sequence[Note] | Catalog, today: _dt.date | None = None,
                 memory: ReviewMemory | None = None,
                 timetable: Timetable | None = None,
                 suggestion: Suggestion | None = None) -> Registry:
    """The tools of one run: save_review_plan, save_review_series and save_study_plan;
    search_notes and
    get_note when the notes are not all listed; due_notes when `memory` knows of due notes;
    free_slots with a timetable (every live run)."""
    catalog = as_catalog(notes)
    today = today or _dt.date.today()
    listed = catalog.listed()
    ids = None if listed is None else [note.id for note in listed]
    tools = [save_tool(catalog, ids), series_tool(catalog, ids, today),
             study_tool(catalog, ids, today)]
    if catalog.offers_lookups:
        from planner.conversation.lookups import lookup_tools

        tools += lookup_tools(catalog)
    if memory is not None and memory.has_due_info():
        from planner.conversation.lookups import due_tool

        tools.append(due_tool(memory, today))
    if timetable is not None:
        from planner.conversation.lookups import free_slots_tool

        tools.append(free_slots_tool(timetable, today))
        if timetable.goal is not None and memory is not None:
            from planner.conversation.lookups import goal_notes_tool

            tools.append(goal_notes_tool(timetable.goal, memory, timetable, today))
            from planner.conversation.suggestion import Suggestion, suggestion_for

            found = suggestion or suggestion_for(timetable, memory)
            assert isinstance(found, Suggestion)
            tools.append(found.tool())
    return Registry(tools)


def system_message(notes: Sequence[Note] | Catalog, today: _dt.date,
                   memory: ReviewMemory | None = None,
                   timetable: Timetable | None = None) -> dict[str, Any]:
    """The assistant's role, the notes it may refer to (or how to find them), today's date,
    and (with due information) one line on the notes due today."""
    catalog = as_catalog(notes)
    zone = _dt.datetime.now().astimezone().tzname() or "local time"
    content = (
        "You help a person plan the review of their study notes. When the request names the "
        f"notes, the date, the minutes and a title, call {TOOL_NAME} once with exactly those "
        "values. If anything is missing or unclear, do not call the tool: ask in one short "
        "question, and the person's answer comes as their next message. The program checks "
        "your proposal and the person decides whether it is saved; you never save anything "
        "yourself, so never claim a plan was saved unless the tool result says so. A tool "
        "result with status rejected names the rule your call broke: correct the call. A "
        "result with status cancelled and feedback says what the person wants changed: "
        "propose again with that change.\n"
        f"For several review sessions of the same notes (spaced repetition), call "
        f"{SERIES_TOOL_NAME} once with all the dates instead; it is confirmed and saved as "
        "one.\n"
        f"For a whole plan of sessions with their own dates and notes (for example to an "
        f"exam), call {STUDY_TOOL_NAME} once with every session.\n"
        f"Today is {today.isoformat()} ({today.strftime('%A')}, {zone}); resolve words like "
        "'tomorrow' against it and always give the date as YYYY-MM-DD.\n"
    )
    if i18n.language() == "zh":
        # The program's own lines are Chinese: the model's words should be too (README "中文界面").
        content += ("The person reads Chinese (Simplified): write your questions and "
                    "explanations in Chinese; keep note IDs, dates and tool arguments as they "
                    "are.\n")
    listed = catalog.listed()
    if catalog.offers_lookups:
        content += ("Use search_notes to find notes by their words and get_note to read one; "
                    "both only read. Use only note IDs you found.\n")
    if memory is not None and memory.has_due_info():
        # One line whatever the log holds: the request does not grow with the reviews.
        count = memory.due_today(today)
        notes_due = "1 note is" if count == 1 else f"{count:,} notes are"
        content += (f"By the person's review history, {notes_due} due for review today; "
                    "due_notes lists them (and those due in the next days), most overdue "
                    "first.\n")
    if timetable is not None:
        content += ("Each session must lie inside the person's study hours, overlap no busy "
                    "time and no saved plan, and keep its day within the daily minutes; give "
                    "start (HH:MM) or leave it out for the first free slot. free_slots lists "
                    "where sessions fit.\n")
        if timetable.until is not None:
            # One line: the deadline the person gave (--until).
            content += (f"Deadline: every session must be on or before "
                        f"{timetable.until.isoformat()}.\n")
        if timetable.goal is not None:
            content += _goal_line(timetable, memory, today)
    if listed is None:
        # Not listed at all: the request stays the same size however many notes there are.
        content += f"The person has {len(catalog):,} notes; they are not listed here."
    else:
        content += f"Notes you may refer to:\n{listing(listed)}"
    return {"role": "system", "content": content}


def _goal_line(timetable: Timetable, memory: ReviewMemory | None, today: _dt.date) -> str:
    """One line: the run's goal, its day, its notes and how many would be ready then with the
    sessions saved now (README "A study plan to a goal")."""
    from planner.memory.readiness import ready_now

    goal = timetable.goal
    assert goal is not None
    ready = ready_now(timetable.home, goal, memory, today, timetable.review_time)
    count = len(goal.note_ids)
    return (f"Goal: {goal.name}, on {goal.date.isoformat()} ({goal.date.strftime('%A')}), "
            f"covers {count:,} note{'' if count == 1 else 's'}; with the sessions saved now, "
            f"{ready:,} of them would be ready on that day (recall {round(goal.retention * 100)}%"
            f" or more); goal_notes lists them, least ready first.{_best_words(timetable, memory)}"
            f"{_replan_words(timetable)}\n")


def _replan_words(timetable: Timetable) -> str:
    """A replan run (--replan): the goal's missed sessions and those a proposal replaces."""
    if not timetable.replaced or timetable.goal is None:
        return ""
    from planner.conversation.replacing import missed_count

    missed = missed_count(timetable.home, timetable.goal, timetable.today)
    count = len(timetable.replaced)
    return (f" Replanning: {missed:,} saved session{'' if missed == 1 else 's'} of this goal "
            f"{'was' if missed == 1 else 'were'} missed; the {count:,} still ahead "
            f"{'is' if count == 1 else 'are'} replaced by the study plan you propose (left out "
            "of its checks).")


def _best_words(timetable: Timetable, memory: ReviewMemory | None) -> str:
    """What planner's own plan reaches, for the goal line; nothing when it cannot be known."""
    from planner.conversation.suggestion import suggestion_for

    suggestion = suggestion_for(timetable, memory)
    try:
        return "" if suggestion is None else suggestion.goal_words()
    except Exception:  # a prediction helps the model; it must never stop the run
        return ""


def first_messages(request: str, notes: Sequence[Note] | Catalog, today: _dt.date,
                   memory: ReviewMemory | None = None,
                   timetable: Timetable | None = None) -> list[dict[str, Any]]:
    """The messages of the first request: system, then the person's request."""
    return [system_message(notes, today, memory, timetable),
            {"role": "user", "content": request}]


def continued_messages(request: str, earlier: Sequence[dict[str, Any]],
                       notes: Sequence[Note] | Catalog, today: _dt.date,
                       memory: ReviewMemory | None = None,
                       timetable: Timetable | None = None) -> list[dict[str, Any]]:
    """The first messages of a continued run (README "Going on with a conversation"): today's
    system message, the earlier
    run's conversation after its own system message, then the person's next message."""
    # Today's system message, not the earlier one: "tomorrow" means tomorrow from now.
    return [system_message(notes, today, memory, timetable), *earlier,
            {"role": "user", "content": request}]


def build_request(
    config: Config, messages: list[dict[str, Any]], registry: Registry, tool_choice: str
) -> dict[str, Any]:
    """The exact JSON body sent over the run's wire (dry-run prints this same body): config's
    max_tokens in `max_tokens_field`, built in the Chat shape and given to the wire
    (planner.model.wire), which sends it as it is or as a Responses request."""
    from planner.model.wire import wire_for

    body = {
        "model": config.model,
        "messages": messages,
        "tools": registry.definitions(),
        "tool_choice": tool_choice,
        "stream": False,
        config.max_tokens_field: config.max_tokens,
    }
    # Provider-specific fields go at the top level of the body, as the SDK's extra_body sends
    # them; config refuses an extra_body that would replace one of the fields above.
    body.update(config.extra_body)
    return wire_for(config.api).request_body(body)


# The same function under the name the edge uses for "the body of the configured api".
request_body = build_request


def endpoint(config: Config) -> str:
    """The path the request is sent to, after base_url (dry-run names it)."""
    from planner.model.wire import wire_for

    return wire_for(config.api).endpoint
