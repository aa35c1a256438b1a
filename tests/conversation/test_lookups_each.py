"""Several lookups in one reply are answered one by one (README "Your week"): a bad one is
rejected alone, the good one beside it answered with its result; with the real openai SDK
against the local stub server."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

import pytest
from conftest import read_summary, run_dirs, run_planner, today
from stub_server import Reply, StubServer, text_reply, tool_call, tool_call_reply

# Real processes against a local server: not in the quick lane (make check).
pytestmark = pytest.mark.slow

KEY = "sk-lookups-test-0123456789"


def _run(home: Path, *calls: dict, max_repairs: int = 1):
    with StubServer() as server:
        (home / "config.json").write_text(json.dumps({
            "model": "stub-model", "base_url": server.url, "timeout_seconds": 5,
            "max_calls": 3, "max_repairs": max_repairs}), encoding="utf-8")
        server.add(Reply(body=tool_call_reply(calls=calls)),
                   Reply(body=text_reply("Tuesday evening is free.")))
        result = run_planner("-r", "when am I free?",
                             env={**os.environ, "DEEPSEEK_API_KEY": KEY})
        bodies = [received.body for received in server.chat_requests()]
    return result, bodies


def _answers(body: dict) -> dict[str, dict]:
    return {message["tool_call_id"]: json.loads(message["content"])
            for message in body["messages"] if message["role"] == "tool"}


def test_a_bad_free_slots_is_rejected_alone_and_the_good_one_beside_it_answered(
        home: Path) -> None:
    tomorrow = (today() + _dt.timedelta(days=1)).isoformat()
    good = tool_call({"from": tomorrow, "days": 3, "minutes": 30}, call_id="call_good",
                     name="free_slots")
    bad = tool_call({"from": "2020-01-01", "days": 3, "minutes": 30}, call_id="call_bad",
                    name="free_slots")
    result, bodies = _run(home, good, bad)
    assert result.returncode == 0, result.stderr
    assert len(bodies) == 2
    answers = _answers(bodies[1])
    assert answers["call_bad"]["status"] == "rejected"
    assert answers["call_bad"]["error"].startswith("free_slots from: must be from today")
    # The good one has its slots, not the bad one's rejection.
    assert "status" not in answers["call_good"] or answers["call_good"]["status"] != "rejected"
    assert "slots" in json.dumps(answers["call_good"])
    assert "2020-01-01" not in json.dumps(answers["call_good"])
    (folder,) = run_dirs(home)
    steps = [(step["kind"], step.get("call_id")) for step in read_summary(folder)["steps"]]
    assert ("lookup", "call_good") in steps and ("rejected", "call_bad") in steps
    assert ("rejected", "call_good") not in steps
    assert "free_slots from: must be from today" in result.stdout


def test_with_no_repair_left_one_bad_lookup_still_stops_the_run(home: Path) -> None:
    tomorrow = (today() + _dt.timedelta(days=1)).isoformat()
    good = tool_call({"from": tomorrow, "days": 3, "minutes": 30}, call_id="call_good",
                     name="free_slots")
    bad = tool_call({"from": tomorrow, "days": 0, "minutes": 30}, call_id="call_bad",
                    name="free_slots")
    result, bodies = _run(home, good, bad, max_repairs=0)
    assert result.returncode == 1
    assert len(bodies) == 1
    assert "free_slots days: must be" in result.stderr
