"""Building requests: the system message, the first messages, the tools and the body."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Collection, Sequence

from planner.config import Config
from planner.notes import Note
from planner.plan import TOOL_NAME, parse_arguments, tool_definition
from planner.tools import Registry, Tool

DEFAULT_REQUEST = "请把N1和N2安排在2026-10-05复习20分钟，标题为RAG基础复习。只保存本地计划。"


def save_tool(note_ids: Collection[str], listed: Collection[str] | None = None) -> Tool:
    """save_review_plan: checked strictly, run only after the person types SAVE."""
    return Tool(
        name=TOOL_NAME,
        schema=tool_definition(note_ids if listed is None else listed),
        check=lambda arguments: parse_arguments(arguments, note_ids),
        needs_confirmation=True,
    )


def registry_for(notes: Sequence[Note], lookups: Sequence[Tool] = ()) -> Registry:
    """The tools of one run: save_review_plan first, then any read-only lookups."""
    return Registry((save_tool([note.id for note in notes]), *lookups))


def system_message(notes: Sequence[Note], today: _dt.date, lookups: bool = False) -> dict:
    """The assistant's role, the notes it may refer to, and today's date."""
    listing = "\n".join(f"- {note.id}: {note.title} — {note.text}" for note in notes)
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
        f"Today is {today.isoformat()} ({today.strftime('%A')}, {zone}); resolve words like "
        "'tomorrow' against it and always give the date as YYYY-MM-DD.\n"
    )
    if lookups:
        content += ("Use search_notes and get_note to find the notes the person means; "
                    "they only read.\n")
    content += f"Notes you may refer to:\n{listing}"
    return {"role": "system", "content": content}


def first_messages(request: str, notes: Sequence[Note], today: _dt.date,
                   lookups: bool = False) -> list[dict]:
    """The messages of the first request: system, then the person's request."""
    return [system_message(notes, today, lookups), {"role": "user", "content": request}]


def build_request(
    config: Config, messages: list[dict], registry: Registry, tool_choice: str
) -> dict:
    """The exact JSON body sent to /chat/completions (dry-run prints this same body)."""
    body = {
        "model": config.model,
        "messages": messages,
        "tools": registry.definitions(),
        "tool_choice": tool_choice,
        "stream": False,
        "max_tokens": config.max_tokens,
    }
    # Provider-specific fields go at the top level of the body, as the SDK's extra_body sends
    # them; config refuses an extra_body that would replace one of the fields above.
    body.update({key: value for key, value in config.extra_body.items() if key not in body})
    return body
