"""Building the requests, and checking each model reply into a typed result."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Sequence
from typing import NamedTuple

from planner.config import Config
from planner.notes import Note
from planner.plan import TOOL_NAME, InvalidArguments, ReviewPlan, parse_arguments, tool_definition

DEFAULT_REQUEST = "请把N1和N2安排在2026-10-05复习20分钟，标题为RAG基础复习。只保存本地计划。"


class ReplyError(ValueError):
    """The model's reply cannot be used; the message says why."""


class Question(NamedTuple):
    """The model answered in text instead of proposing (e.g. it asks for missing details)."""

    text: str


class Proposal(NamedTuple):
    """A checked save_review_plan call."""

    call_id: str
    plan: ReviewPlan
    assistant_message: dict


def system_message(notes: Sequence[Note], today: _dt.date) -> dict:
    """The assistant's role, the notes it may refer to, and today's date."""
    listing = "\n".join(f"- {note.id}: {note.title} — {note.text}" for note in notes)
    zone = _dt.datetime.now().astimezone().tzname() or "local time"
    content = (
        "You help a person plan the review of their study notes. When the request names the "
        f"notes, the date, the minutes and a title, call {TOOL_NAME} once with exactly those "
        "values. If anything is missing or unclear, do not call the tool: ask in one short "
        "question. The program checks your proposal and the person decides whether it is "
        "saved; you never save anything yourself, so never claim a plan was saved unless the "
        "tool result says so.\n"
        f"Today is {today.isoformat()} ({today.strftime('%A')}, {zone}); resolve words like "
        "'tomorrow' against it and always give the date as YYYY-MM-DD.\n"
        f"Notes you may refer to:\n{listing}"
    )
    return {"role": "system", "content": content}


def first_messages(request: str, notes: Sequence[Note], today: _dt.date) -> list[dict]:
    """The messages of the first request: system, then the person's request."""
    return [system_message(notes, today), {"role": "user", "content": request}]


def build_request(
    config: Config, messages: list[dict], notes: Sequence[Note], tool_choice: str
) -> dict:
    """The exact JSON body sent to /chat/completions (dry-run prints this same body)."""
    body = {
        "model": config.model,
        "messages": messages,
        "tools": [tool_definition([note.id for note in notes])],
        "tool_choice": tool_choice,
        "stream": False,
        "max_tokens": config.max_tokens,
    }
    # Provider-specific fields go at the top level of the body, as the SDK's extra_body sends them.
    body.update(config.extra_body)
    return body


def after_tool_messages(proposal: Proposal, tool_result: dict) -> list[dict]:
    """The assistant's call exactly as proposed, then the real result paired by call ID."""
    return [
        proposal.assistant_message,
        {
            "role": "tool",
            "tool_call_id": proposal.call_id,
            "content": json.dumps(tool_result, ensure_ascii=False),
        },
    ]


def check_proposal_reply(body: object, note_ids: Sequence[str]) -> Question | Proposal:
    """Step 3: one choice that is either plain text or exactly one valid tool call."""
    choice = _only_choice(body)
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ReplyError("the reply has no message")
    finish = choice.get("finish_reason")
    calls = message.get("tool_calls")
    content = message.get("content")
    if finish == "stop" and not calls:
        if isinstance(content, str) and content.strip():
            return Question(content.strip())
        raise ReplyError("the model sent an empty reply")
    if finish != "tool_calls":
        raise ReplyError(_finish_problem(finish, with_calls=bool(calls)))
    if not isinstance(calls, list) or len(calls) != 1:
        count = len(calls) if isinstance(calls, list) else 0
        raise ReplyError(f"the model proposed {count} tool calls; exactly one is allowed")
    call = calls[0]
    if not isinstance(call, dict) or call.get("type") != "function":
        kind = call.get("type") if isinstance(call, dict) else None
        raise ReplyError(f"the tool call has type {json.dumps(kind)}; only 'function' is allowed")
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id.strip():
        raise ReplyError("the tool call has no ID, so its result could not be paired with it")
    function = call.get("function")
    name = function.get("name") if isinstance(function, dict) else None
    if name != TOOL_NAME:
        raise ReplyError(f"the model called an unknown tool {json.dumps(name)[:60]}")
    try:
        plan = parse_arguments(function.get("arguments"), note_ids)
    except InvalidArguments as error:
        raise ReplyError(f"the proposed plan was rejected: {error}") from None
    assistant = {"role": "assistant", "content": content, "tool_calls": calls}
    return Proposal(call_id=call_id, plan=plan, assistant_message=assistant)


def check_explanation_reply(body: object) -> str:
    """Step 8: one choice, finish_reason stop, non-empty text and no tool calls."""
    choice = _only_choice(body)
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ReplyError("the explanation reply has no message")
    finish = choice.get("finish_reason")
    if message.get("tool_calls"):
        raise ReplyError("the model asked for another tool call instead of explaining")
    if finish != "stop":
        raise ReplyError(_finish_problem(finish, with_calls=False))
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        raise ReplyError("the model sent an empty explanation")
    return content.strip()


def _only_choice(body: object) -> dict:
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices:
        raise ReplyError("the reply has no choices")
    if len(choices) != 1:
        raise ReplyError(f"the reply has {len(choices)} choices; exactly one is expected")
    if not isinstance(choices[0], dict):
        raise ReplyError("the reply's choice is not an object")
    return choices[0]


def _finish_problem(finish: object, with_calls: bool) -> str:
    if finish == "length":
        return "the reply was cut off at max_tokens (finish_reason length); raise max_tokens"
    if finish == "content_filter":
        return "the provider's content filter stopped the reply (finish_reason content_filter)"
    if finish == "stop" and with_calls:
        return "the reply mixes finish_reason stop with tool calls"
    return f"the reply ended with an unexpected finish_reason {json.dumps(finish)[:40]}"
