"""The wire format of a run, chosen once from config's `api`: Chat Completions or Responses.

A wire builds the body it sends from the run's Chat-shaped request, names its endpoint and the
SDK's method for it (planner.model.client calls it), and reads its reply into a Turn. Nothing
else asks which wire it is; this module is the only place that reads the `api` setting's words.
"""

from __future__ import annotations

from typing import Any

from planner.model.chat_wire import GENERIC, Dialect, parse_reply
from planner.model.turns import Turn

# responses_wire.OUTPUT_ITEMS, named here so a Chat request never imports the Responses code.
OUTPUT_ITEMS = "output_items"


class ChatWire:
    """POST /chat/completions: the request as it is, the reply's one choice."""

    endpoint = "/chat/completions"
    # Body fields the SDK's create() takes by name; anything else goes through extra_body.
    sdk_params: tuple[str, ...] = ("model", "messages", "tools", "tool_choice", "stream",
                                   "max_tokens", "max_completion_tokens")
    # Where the SDK client keeps this API's create(): client.chat.completions.
    sdk_path: tuple[str, ...] = ("chat", "completions")
    # A 404 here is a wrong base_url or model; nothing about another API to suggest.
    has_other_api = False

    def request_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """The body to send; a conversation continued from a Responses run loses the output
        items kept for that API (they are not a Chat field)."""
        if any(OUTPUT_ITEMS in message for message in body["messages"]):
            body = {**body, "messages": [
                {name: value for name, value in message.items() if name != OUTPUT_ITEMS}
                for message in body["messages"]]}
        return body

    def read(self, body: object, dialect: Dialect | None = None) -> Turn:
        """The reply as a Turn, or ReplyError."""
        return parse_reply(body, dialect)


class ResponsesWire(ChatWire):
    """POST /responses: the request converted by planner.model.responses_wire (imported only
    then), the output items of earlier replies sent back unchanged."""

    endpoint = "/responses"
    # `input` goes through extra_body, so the output items sent back reach the server exactly
    # as they were received.
    sdk_params = ("model", "tools", "tool_choice", "store", "max_output_tokens", "include")
    sdk_path = ("responses",)
    # A 404 may mean a server without the Responses API: the line suggests "api": "chat".
    has_other_api = True

    def request_body(self, body: dict[str, Any]) -> dict[str, Any]:
        from planner.model.responses_wire import request_body

        return request_body(body)

    def read(self, body: object, dialect: Dialect | None = None) -> Turn:
        from planner.model.responses_wire import parse_response

        return parse_response(body, dialect or GENERIC)


CHAT = ChatWire()
RESPONSES = ResponsesWire()


def wire_for(api: str) -> ChatWire:
    """The wire for config's `api` ("chat" or "responses", checked when the config is read)."""
    return RESPONSES if api == "responses" else CHAT
