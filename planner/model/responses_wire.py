"""The Responses API wire format (POST /responses), beside Chat Completions (model.chat_wire).

The loop keeps one conversation of Chat-style messages whatever the wire format. This module
turns that conversation into a Responses request (`input` items: messages, `function_call`
and `function_call_output` paired by `call_id`; flat function tools; `store: false`) and reads
a Responses reply into the same `Turn` the Chat Completions reader produces. Without stored
state the API needs every `reasoning` and `function_call` item it returned sent back as it was,
so the Turn's assistant message carries the reply's output items (OUTPUT_ITEMS) and the next
request sends them back unchanged. Imported only when config's `api` is "responses".
Standard library only.

Shapes: https://developers.openai.com/api/docs/guides/function-calling (function_call,
function_call_output, call_id), https://developers.openai.com/api/docs/guides/reasoning
(status incomplete, reasoning items, encrypted content with store false), the openai SDK's
types/responses (Response, ResponseUsage, ResponseReasoningItem, ResponseFunctionToolCall).
"""

from __future__ import annotations

import json
from typing import Any

from planner.base.i18n import t
from planner.model.chat_wire import GENERIC, Dialect, error_fields, looks_like_tool_markup
from planner.model.turns import CutOff, ReplyError, ToolCall, Turn

# The assistant message's field that holds the reply's output items, sent back unchanged.
OUTPUT_ITEMS = "output_items"
# Output item types planner reads; any other is refused (planner offers no built-in tools).
_READ = ("message", "reasoning", "function_call")
# Chat Completions body fields that have a Responses counterpart built here.
_CHAT_FIELDS = ("model", "messages", "tools", "tool_choice", "stream", "max_tokens",
                "max_completion_tokens")


def request_body(chat: dict[str, Any]) -> dict[str, Any]:
    """The Responses body for a Chat Completions body built by protocol.build_request.

    Provider fields (config's extra_body) stay at the top level, except `reasoning_effort`,
    which the Responses API calls `reasoning.effort`.
    """
    limit = chat.get("max_completion_tokens", chat.get("max_tokens"))
    body: dict[str, Any] = {
        "model": chat["model"],
        "input": input_items(chat["messages"]),
        "tools": [flat_tool(tool) for tool in chat.get("tools", ())],
        "tool_choice": chat["tool_choice"],
        "stream": False,
        # No state kept on the server: every request carries the whole conversation.
        "store": False,
        "max_output_tokens": limit,
        # Reasoning items come back with their encrypted content, to be sent back next time.
        "include": ["reasoning.encrypted_content"],
    }
    body.update((name, value) for name, value in chat.items() if name not in _CHAT_FIELDS)
    if "reasoning_effort" in body:
        # reasoning.effort given explicitly (extra_body "reasoning") wins.
        effort = body.pop("reasoning_effort")
        reasoning = body.get("reasoning")
        body["reasoning"] = {"effort": effort, **(reasoning if isinstance(reasoning, dict)
                                                  else {})}
    return body


def flat_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions tool ({"type", "function": {...}}) as a Responses function tool."""
    function = tool.get("function", {})
    flat = {"type": "function", "name": function.get("name")}
    if "description" in function:
        flat["description"] = function["description"]
    flat["parameters"] = function.get("parameters")
    # Responses makes strict the default; planner checks every call itself and its schemas
    # are not written for strict mode, so strict is off unless the tool asks for it.
    flat["strict"] = bool(function.get("strict", False))
    return flat


def input_items(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat-style messages as Responses input items, in order.

    An assistant message read from a Responses reply brings back that reply's output items
    exactly as received (reasoning, function_call, message); one from elsewhere (a Chat
    Completions run being continued) becomes an assistant message and function_call items.
    A tool message becomes the function_call_output paired with its call by call_id.
    """
    items: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role")
        if role in ("system", "developer", "user"):
            items.append({"role": role, "content": _input_content(message.get("content"))})
        elif role == "assistant":
            kept = message.get(OUTPUT_ITEMS)
            if isinstance(kept, list):
                items.extend(kept)
                continue
            text = _chat_text(message.get("content"))
            if text:
                items.append({"role": "assistant", "content": text})
            for call in message.get("tool_calls") or ():
                function = call.get("function", {})
                items.append({"type": "function_call", "call_id": call.get("id"),
                              "name": function.get("name"),
                              "arguments": function.get("arguments")})
        elif role == "tool":
            items.append({"type": "function_call_output", "call_id": message.get("tool_call_id"),
                          "output": message.get("content")})
        else:
            raise ValueError(t("a message with role {role} has no Responses form",
                               role=json.dumps(role)[:40]))
    return items


def messages_from_input(items: list[Any]) -> list[dict[str, Any]]:
    """The Chat-style messages of a recorded Responses `input` (to continue a run).

    The inverse of input_items: consecutive reasoning, function_call and assistant message
    items become one assistant message that sends them back as they were; function_call_output
    items become tool messages.
    """
    messages: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []

    def flush() -> None:
        if pending:
            messages.append(assistant_message(list(pending)))
            pending.clear()

    for item in items:
        if not isinstance(item, dict):
            raise ValueError(t("an input item is not an object"))
        kind = item.get("type")
        role = item.get("role")
        if kind == "function_call_output":
            flush()
            messages.append({"role": "tool", "tool_call_id": item.get("call_id"),
                             "content": item.get("output")})
        elif kind in ("reasoning", "function_call") or role == "assistant":
            pending.append(item)
        elif role in ("system", "developer", "user") and kind in (None, "message"):
            flush()
            messages.append({"role": role, "content": item.get("content")})
        else:
            raise ValueError(t("an input item of type {kind} cannot be continued",
                               kind=json.dumps(kind)[:40]))
    flush()
    return messages


def assistant_message(output: list[Any]) -> dict[str, Any]:
    """The Chat-style assistant message for a reply's output items (kept unchanged inside)."""
    text = "".join(_message_texts(output)).strip() or None
    message: dict[str, Any] = {"role": "assistant", "content": text}
    calls = [{"id": item.get("call_id"), "type": "function",
              "function": {"name": item.get("name"), "arguments": item.get("arguments")}}
             for item in output if isinstance(item, dict) and item.get("type") == "function_call"]
    if calls:
        message["tool_calls"] = calls
    message[OUTPUT_ITEMS] = output
    return message


def parse_response(body: object, dialect: Dialect = GENERIC) -> Turn:
    """Read a decoded Responses body into a Turn, or raise ReplyError.

    The same strictness as Chat Completions: a cut reply, an error, a call without an ID, an
    item planner does not know, or two calls sharing an ID are refused and nothing is run.
    """
    if not isinstance(body, dict):
        raise ReplyError(t("the reply is not a Responses object"))
    status = body.get("status")
    if body.get("error") or status == "failed":
        said, code = error_fields({"error": body.get("error") or {}})
        said = said or t("status failed, no message")
        if isinstance(code, (int, str)) and str(code):
            raise ReplyError(t("the server answered with an error {code} instead of a reply "
                               "({said})", code=code, said=said))
        raise ReplyError(t("the server answered with an error instead of a reply ({said})",
                           said=said))
    if status == "incomplete":
        details = body.get("incomplete_details")
        problem = incomplete_problem(details)
        if isinstance(details, dict) and details.get("reason") == "max_output_tokens":
            raise CutOff(problem, t("status incomplete, max_output_tokens; reasoning tokens "
                                    "count against it too"))
        raise ReplyError(problem)
    if status != "completed":
        raise ReplyError(t("the reply has status {status}; only a completed reply is used",
                           status=json.dumps(status)[:40]))
    output = body.get("output")
    if not isinstance(output, list):
        raise ReplyError(t("the reply has no output list"))
    calls: list[ToolCall] = []
    thoughts: list[str] = []
    for item in output:
        kind = item.get("type") if isinstance(item, dict) else None
        if not isinstance(item, dict) or kind not in _READ:
            raise ReplyError(t("the reply has an output item of type {kind}; planner reads "
                               "only messages, reasoning and function calls, so nothing was "
                               "run", kind=json.dumps(kind)[:40]))
        if kind == "reasoning":
            thoughts.extend(_parts(item.get("summary"), ("summary_text",)))
            thoughts.extend(_parts(item.get("content"), ("reasoning_text",)))
        elif kind == "function_call":
            calls.append(_function_call(item, dialect))
    ids = [call.id for call in calls]
    if len(set(ids)) != len(ids):
        raise ReplyError(t("two tool calls in the reply share one ID, so their results could "
                           "not be paired with them"))
    message = assistant_message(output)
    text = message["content"]
    if not calls and text is not None and looks_like_tool_markup(text):
        raise ReplyError(t("the server did not parse the tool call (it sent the call as "
                           "text); {hint}", hint=dialect.parser_hint))
    reasoning = "".join(thoughts).strip() or None
    return Turn(text, tuple(calls), "tool_calls" if calls else "stop", message, reasoning)


def incomplete_problem(details: object) -> str:
    """Why an incomplete reply cannot be used, in words (like a cut Chat Completions reply)."""
    reason = details.get("reason") if isinstance(details, dict) else None
    if reason == "max_output_tokens":
        return t("the reply was cut off at max_tokens (status incomplete, max_output_tokens); "
                 "raise max_tokens in config.json (reasoning tokens count against it too)")
    if reason == "content_filter":
        return t("the provider's content filter stopped the reply (status incomplete, "
                 "content_filter)")
    return t("the reply is incomplete (reason {reason}); nothing in it was run",
             reason=json.dumps(reason)[:40])


def chat_usage(usage: object) -> dict[str, Any] | None:
    """Responses usage in the Chat Completions shape costs.split_usage reads.

    input_tokens -> prompt_tokens, output_tokens -> completion_tokens, and the cached and
    reasoning details under their Chat names. Values are copied as they are: costs checks them
    (a missing or broken count makes the usage unknown, never zero).
    """
    if not isinstance(usage, dict) or "input_tokens" not in usage:
        return None
    converted: dict[str, Any] = {"prompt_tokens": usage.get("input_tokens"),
                       "completion_tokens": usage.get("output_tokens")}
    if "total_tokens" in usage:
        converted["total_tokens"] = usage["total_tokens"]
    details = usage.get("input_tokens_details")
    if isinstance(details, dict) and "cached_tokens" in details:
        converted["prompt_tokens_details"] = {"cached_tokens": details["cached_tokens"]}
    details = usage.get("output_tokens_details")
    if isinstance(details, dict) and "reasoning_tokens" in details:
        converted["completion_tokens_details"] = {"reasoning_tokens": details["reasoning_tokens"]}
    return converted


def _function_call(item: dict[str, Any], dialect: Dialect) -> ToolCall:
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not call_id.strip():
        if dialect.missing_id_hint:
            raise ReplyError(t("a tool call has no ID, so its result could not be paired with "
                               "it; it was not run; {hint}", hint=dialect.missing_id_hint))
        raise ReplyError(t("a tool call has no ID, so its result could not be paired with it; "
                           "it was not run"))
    if item.get("status") not in (None, "completed"):
        raise ReplyError(t("a tool call has status {status} (cut short), so it was not run; "
                           "raise max_tokens in config.json",
                           status=json.dumps(item.get("status"))[:40]))
    # Arguments are checked by the tool, as for Chat Completions (a bad one is repairable).
    return ToolCall(call_id, item.get("name"), item.get("arguments"))


def _message_texts(output: list[Any]) -> list[str]:
    texts: list[str] = []
    for item in output:
        if not (isinstance(item, dict) and item.get("type") == "message"):
            continue
        parts = item.get("content")
        for part in parts if isinstance(parts, list) else ():
            if not isinstance(part, dict):
                continue
            # A refusal is the model's answer in its own words; shown like any text.
            field = "text" if part.get("type") == "output_text" else \
                "refusal" if part.get("type") == "refusal" else None
            if field is not None and isinstance(part.get(field), str):
                texts.append(part[field])
    return texts


def _parts(parts: object, kinds: tuple[str, ...]) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [part["text"] for part in parts if isinstance(part, dict)
            and part.get("type") in kinds and isinstance(part.get("text"), str)]


def _chat_text(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content
                       if isinstance(part, dict) and part.get("type") == "text") or None
    return None


def _input_content(content: object) -> object:
    """A message's content as Responses takes it: a string, or input_text parts."""
    if isinstance(content, list):
        return [{"type": "input_text", "text": part.get("text", "")} for part in content
                if isinstance(part, dict) and part.get("type") == "text"]
    return content
