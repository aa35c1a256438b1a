"""A conversation in a pseudo-terminal against the stub server: its prompts, its start, what
the server received."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect
from live_model import REQUEST, spawn_cli, write_config
from scripted_conversation import check_conversation
from stub_server import Reply, StubServer, text_reply

SAVE_PROMPT = "Type SAVE to save this plan; anything else cancels: "
ANSWER_PROMPT = "Your answer (Enter to finish): "
FEEDBACK_PROMPT = "What should change? (Enter to finish): "
QUESTION = "Which day should the review be on?"


def question(text: str = QUESTION) -> Reply:
    return Reply(body=text_reply(text))


def start(server: StubServer, home: Path, *replies: Reply, max_calls: int = 6,
          max_repairs: int = 1) -> tuple[pexpect.spawn, list[str]]:
    """Queue the replies and start `planner --request` in a terminal with these limits."""
    server.add(*replies)
    write_config(home, server.url, max_calls=max_calls, max_repairs=max_repairs)
    return spawn_cli("--request", REQUEST)


def bodies(server: StubServer) -> list[dict]:
    """The requests the server received, checked: each repeats the last, every call paired."""
    received = [request.body for request in server.chat_requests()]
    check_conversation(received)
    return received


def tool_content(body: dict) -> dict:
    message = body["messages"][-1]
    assert message["role"] == "tool", message
    return json.loads(message["content"])
