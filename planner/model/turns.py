"""One model reply, read: the neutral shape every wire format produces and the flow reads.

Chat Completions (planner.model.chat_wire) and any other wire format turn a provider's reply into a
`Turn`; the flow's conversation is kept as Chat-style messages, which each wire format converts
when it sends. Standard library only (planner.base.i18n is too).
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from planner.base.i18n import t


class ReplyError(ValueError):
    """The model's reply cannot be used at all; the message says why."""


class CutOff(ReplyError):
    """The reply was cut at max_tokens; `how` is the wire's own words for it (the run's line
    adds the config's value and what to set instead: planner.model.client.cut_off_line)."""

    def __init__(self, message: str, how: str) -> None:
        super().__init__(message)
        self.how = how


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
    message: dict[str, Any]
    # The model's reasoning (thinking) when the provider sent it apart; never shown as the answer.
    reasoning: str | None = None


def tool_message(call_id: str, result: dict[str, Any]) -> dict[str, Any]:
    """The real result of one call, paired with it by the model's call ID."""
    return {"role": "tool", "tool_call_id": call_id,
            "content": json.dumps(result, ensure_ascii=False)}


def calls_instead_of_text(turn: Turn) -> str:
    """Why tool calls are not run when only an explanation was asked for (tool_choice none)."""
    names = ", ".join(sorted({str(call.name)[:40] for call in turn.calls})) or t("a tool")
    return t("the model asked for another tool call ({names}) instead of explaining, although "
             "the request said tool_choice none; it was not run", names=names)
