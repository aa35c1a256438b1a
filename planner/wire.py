"""The Chat Completions wire format: a reply read once into a typed turn, and messages back."""

from __future__ import annotations

import json
from typing import NamedTuple


class ReplyError(ValueError):
    """The model's reply cannot be used at all; the message says why."""


class ToolCall(NamedTuple):
    """One tool call as the model sent it; its arguments are checked later by the tool."""

    id: str
    name: object
    arguments: object


class Turn(NamedTuple):
    """One reply: its text (None when empty), its tool calls, and the message to send back."""

    text: str | None
    calls: tuple[ToolCall, ...]
    finish: object
    message: dict


def parse_reply(body: object) -> Turn:
    """Read a decoded Chat Completions body into a Turn, or raise ReplyError."""
    choice = _only_choice(body)
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ReplyError("the reply has no message")
    finish = choice.get("finish_reason")
    raw_calls = message.get("tool_calls")
    if raw_calls is not None and not isinstance(raw_calls, list):
        raise ReplyError("the reply's tool_calls is not a list")
    text = content_text(message.get("content"))
    if not raw_calls:
        if finish != "stop":
            raise ReplyError(finish_problem(finish, with_calls=False))
        return Turn(text, (), finish, {"role": "assistant", "content": message.get("content")})
    if finish != "tool_calls":
        raise ReplyError(finish_problem(finish, with_calls=True))
    calls = tuple(_tool_call(raw) for raw in raw_calls)
    ids = [call.id for call in calls]
    if len(set(ids)) != len(ids):
        # Results are paired with calls by ID; two calls with one ID cannot be answered apart.
        raise ReplyError("two tool calls in the reply share one ID, so their results could not "
                         "be paired with them")
    # Sent back exactly as proposed, so the model sees its own call beside the real result.
    assistant = {"role": "assistant", "content": message.get("content"), "tool_calls": raw_calls}
    return Turn(text, calls, finish, assistant)


def content_text(content: object) -> str | None:
    """The visible text of a message's content (a string, null, or a list of parts)."""
    if isinstance(content, str):
        return content.strip() or None
    if isinstance(content, list):
        # Text parts are the answer; other parts (e.g. thinking) are not shown as the answer.
        parts = [part.get("text") for part in content
                 if isinstance(part, dict) and part.get("type") == "text"]
        joined = "".join(part for part in parts if isinstance(part, str))
        return joined.strip() or None
    return None


def tool_message(call_id: str, result: dict) -> dict:
    """The real result of one call, paired with it by the model's call ID."""
    return {"role": "tool", "tool_call_id": call_id,
            "content": json.dumps(result, ensure_ascii=False)}


def _tool_call(raw: object) -> ToolCall:
    if not isinstance(raw, dict) or raw.get("type") != "function":
        kind = raw.get("type") if isinstance(raw, dict) else None
        raise ReplyError(f"a tool call has type {json.dumps(kind)[:40]}; only 'function' is "
                         "allowed")
    call_id = raw.get("id")
    if not isinstance(call_id, str) or not call_id.strip():
        raise ReplyError("a tool call has no ID, so its result could not be paired with it")
    function = raw.get("function")
    if not isinstance(function, dict):
        raise ReplyError("a tool call has no function")
    return ToolCall(call_id, function.get("name"), function.get("arguments"))


def _only_choice(body: object) -> dict:
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices:
        raise ReplyError("the reply has no choices")
    if len(choices) != 1:
        raise ReplyError(f"the reply has {len(choices)} choices; exactly one is expected")
    if not isinstance(choices[0], dict):
        raise ReplyError("the reply's choice is not an object")
    return choices[0]


def finish_problem(finish: object, with_calls: bool) -> str:
    """Why a finish_reason cannot be used, in words."""
    if finish == "length":
        return "the reply was cut off at max_tokens (finish_reason length); raise max_tokens"
    if finish == "content_filter":
        return "the provider's content filter stopped the reply (finish_reason content_filter)"
    if finish == "stop" and with_calls:
        return ("the reply mixes finish_reason stop with tool calls, so the calls were not "
                "used")
    return f"the reply ended with an unexpected finish_reason {json.dumps(finish)[:40]}"
