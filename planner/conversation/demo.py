"""The offline demo's scripted model: fixed replies shaped like a real endpoint's."""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any

from planner.base import strictjson
from planner.model.client import ScriptedClient

DEMO_CALL_ID = "call_demo_0001"
DEMO_TITLE = "RAG基础复习"
# The example plan of README "Commands", dated; tests script it. The demo itself proposes
# demo_plan(today).
DEMO_PLAN = {"title": DEMO_TITLE, "note_ids": ["N1", "N2"], "date": "2026-10-05", "minutes": 20}


def demo_request(today: _dt.date) -> str:
    """The demo's request: review N1 and N2 tomorrow, so the first screen has no past date."""
    day = (today + _dt.timedelta(days=1)).isoformat()
    return f"请把N1和N2安排在{day}复习20分钟，标题为{DEMO_TITLE}。只保存本地计划。"


def demo_plan(today: _dt.date) -> dict[str, Any]:
    """The plan the scripted model proposes for the demo request."""
    day = (today + _dt.timedelta(days=1)).isoformat()
    return {"title": DEMO_TITLE, "note_ids": ["N1", "N2"], "date": day, "minutes": 20}


def _completion(message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    """A Chat Completions response body with one choice and unknown usage."""
    return {
        "id": "demo-completion",
        "object": "chat.completion",
        "model": "demo-scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": None,
    }


def proposal_reply(plan: dict[str, Any] = DEMO_PLAN, call_id: str = DEMO_CALL_ID) -> dict[str, Any]:
    """A scripted reply with one save_review_plan call."""
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": "save_review_plan", "arguments": json.dumps(plan, ensure_ascii=False)},
    }
    return _completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")


def explanation_reply(body: dict[str, Any]) -> dict[str, Any]:
    """The scripted second reply: explains (in Chinese, the request's language) the real result."""
    # The last message is the tool result: a Chat Completions tool message, or a Responses
    # function_call_output item when config's api is "responses".
    last = (body.get("messages") or body.get("input") or [{}])[-1]
    result = strictjson.loads(last["content"] if "content" in last else last["output"])
    if not isinstance(result, dict):
        result = {}
    status = result.get("status")
    if status == "saved":
        text = f"计划已由程序保存到 {result.get('path')}。到时按计划复习 N1 和 N2 即可。"
    elif status == "cancelled":
        text = "你没有确认，所以计划没有保存。需要时可以重新运行并输入 SAVE。"
    else:
        text = f"保存没有成功（{status}），磁盘上没有新的计划。"
    return _completion({"role": "assistant", "content": text}, "stop")


def demo_client(today: _dt.date) -> ScriptedClient:
    """The demo's model: proposes the demo plan, then explains the real result.

    It cannot read feedback, so the flow tells the person that revising needs live mode.
    """
    return ScriptedClient([proposal_reply(demo_plan(today)), explanation_reply], revisable=False)
