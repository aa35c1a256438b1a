"""A conversation with a scripted model in this process: its replies, a run, what it saved."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from conftest import all_files, plan_body, read_summary, run_dirs
from people import ScriptedPerson
from run_records import record_files
from stub_server import text_reply, tool_call, tool_call_reply

from planner.base.config import Config
from planner.conversation import protocol
from planner.conversation.events import Outcome
from planner.conversation.flow import run_flow
from planner.conversation.tools import Registry, Tool
from planner.conversation.turn_values import Limits
from planner.model.client import ScriptedClient
from planner.notes.catalog import SAMPLE_NOTES
from planner.plans.plan import InvalidArguments

TODAY = dt.date(2026, 10, 1)
REQUEST = "Review N1 and N2 on 2026-10-05 for 20 minutes, title: RAG basics"
PLAN = {"title": "RAG basics", "note_ids": ["N1", "N2"], "date": "2026-10-05", "minutes": 20}
REVISED = {**PLAN, "note_ids": ["N1", "N3"], "minutes": 30}
QUESTION = "Which day should the review be on?"
EXPLAINED = "The program saved the plan; review the notes on that day."
# README "中文界面": the words for "yes, save" in Chinese and English are near misses too.
NEAR_MISSES = ["save", "Save", " SAVE", "SAVE ", "\uff33\uff21\uff36\uff25", "保存", "确认", "是",
               "y", "yes", "YES"]
NEAR_MISS_IDS = ["save", "Save", "lead", "trail", "wide", "baocun", "queren", "shi", "y", "yes",
                 "YES"]
ROLES_FIRST = ["system", "user"]


class Model(ScriptedClient):
    """The scripted model, speaking for a live endpoint (plans are not marked simulated)."""

    simulated = False


def propose(plan: dict | None = None, call_id: str = "call_1") -> dict:
    return tool_call_reply(plan or PLAN, call_id=call_id)


def say(text: str) -> dict:
    return text_reply(text)


NEVER = say("never sent")  # scripted after the last expected call: proves none was made


def calls(*tool_calls: dict) -> dict:
    """One reply holding several tool calls."""
    return tool_call_reply(calls=list(tool_calls))


@dataclass
class Run:
    """What one run_flow() call left behind."""

    outcome: Outcome
    client: Model
    person: ScriptedPerson
    home: Path

    @property
    def folder(self) -> Path:
        (folder,) = run_dirs(self.home)
        return folder

    @property
    def summary(self) -> dict:
        return read_summary(self.folder)

    @property
    def requests(self) -> list[dict]:
        return self.client.requests

    @property
    def relative(self) -> str:
        return f"plans/{self.outcome.run_id}.json"

    def kinds(self) -> list[str]:
        return [step["kind"] for step in self.summary["steps"]]

    def step_calls(self) -> list[int]:
        return [step["call"] for step in self.summary["steps"]]

    def shown(self) -> list[str]:
        """The events the person saw, without the waiting marks around each call."""
        return [kind for kind in self.person.kinds() if kind not in ("Calling", "Called")]

    def events(self, kind: str) -> list:
        return [event for event in self.person.events if type(event).__name__ == kind]

    def notices(self) -> list[str]:
        return [event.text for event in self.events("Notice")]

    def choices(self) -> list[str]:
        return [body["tool_choice"] for body in self.requests]

    def sent(self, number: int, index: int = -1) -> dict:
        """The JSON content of a tool message in request `number` (1-based)."""
        message = self.requests[number - 1]["messages"][index]
        assert message["role"] == "tool", message
        return json.loads(message["content"])


def converse(home: Path, replies: list, lines: list | tuple = (), *, max_calls: int = 6,
             max_repairs: int = 1, interactive: bool = True, registry: Registry | None = None,
             revisable: bool = True) -> Run:
    """One run of the loop with scripted replies and a person typing `lines` in turn."""
    client = Model(replies, revisable=revisable)
    person = ScriptedPerson(lines, interactive=interactive)
    outcome = run_flow(
        REQUEST, client=client, person=person, home=home, config=Config(), notes=SAMPLE_NOTES,
        mode="live", today=TODAY, limits=Limits(max_calls, max_repairs), registry=registry,
    )
    run = Run(outcome, client, person, home)
    # Every scripted reply was asked for (but NEVER, the reply that proves no more calls):
    # a run that stopped early cannot pass unnoticed.
    if not any(reply is NEVER for reply in client.replies):
        assert client.replies == [], "scripted replies were never used"
    check_conversation(run.requests)
    check_records(run)
    return run


def roles(body: dict) -> list[str]:
    return [message["role"] for message in body["messages"]]


def check_conversation(requests: list[dict]) -> None:
    """Each request repeats the one before and adds to it; every call is answered, in order."""
    previous: list[dict] = []
    for body in requests:
        messages = body["messages"]
        assert roles(body)[:2] == ROLES_FIRST
        assert messages[: len(previous)] == previous
        pending: list[str] = []
        for message in messages[2:]:
            if message["role"] == "tool":
                assert pending, f"a tool message answers no call: {message}"
                assert message["tool_call_id"] == pending.pop(0), message
                continue
            assert not pending, f"calls left unanswered: {pending}"
            if message["role"] == "assistant":
                pending = [call["id"] for call in message.get("tool_calls") or ()]
        assert not pending, f"calls left unanswered: {pending}"
        assert body["tool_choice"] in ("auto", "none")
        previous = messages


def check_records(run: Run) -> None:
    """NN-request/response for each call (requests exactly as sent), a version 2 summary."""
    names = record_files(run.folder)
    count = len(run.requests)
    expected = [f"{number:02d}-{kind}.json" for number in range(1, count + 1)
                for kind in ("request", "response")]
    if run.outcome.exit_code == 130 and names == sorted([*expected[:-1], "summary.json"]):
        expected = expected[:-1]  # Ctrl+C while the last call was waiting: it has no response
    assert names == sorted([*expected, "summary.json"])
    for number, body in enumerate(run.requests, start=1):
        assert json.loads((run.folder / f"{number:02d}-request.json").read_text()) == body
    summary = run.summary
    assert summary["version"] == 2 and summary["status"] == run.outcome.status
    assert [call["request"] for call in summary["calls"]] == expected[::2][:count]
    assert summary["error"] == run.outcome.error
    assert all(step["call"] <= count for step in summary["steps"])


def plans_on_disk(home: Path) -> list[Path]:
    return all_files(home / "plans")


def assert_saved(run: Run, plan: dict) -> None:
    """Exactly one plan on disk, the one the summary names, holding `plan`."""
    assert plans_on_disk(run.home) == [run.home / run.relative]
    assert plan_body(run.home / run.relative) == {"simulated": False, "plan": plan}
    summary = run.summary
    assert summary["plan"] == plan and summary["approved"] is True
    assert summary["target"] == run.relative
    assert summary["tool_result"] == {"status": "saved", "path": run.relative}


BAD = {**PLAN, "minutes": "20"}


def peek_tool(log: list) -> Tool:
    """A read-only lookup for tests: the flow runs it at once, without asking the person."""

    def check(arguments: object) -> dict:
        data = json.loads(arguments) if isinstance(arguments, str) else None
        if not isinstance(data, dict) or set(data) != {"id"}:
            raise InvalidArguments("arguments", "must be an object with only id")
        if not isinstance(data["id"], str):
            raise InvalidArguments("id", "must be a string")
        return data

    def run(arguments: dict) -> dict:
        log.append(arguments["id"])
        return {"id": arguments["id"], "title": f"title of {arguments['id']}"}

    schema = {"type": "function", "function": {
        "name": "peek_note", "description": "Read one note's title (read-only).",
        "parameters": {"type": "object", "properties": {"id": {"type": "string"}},
                       "required": ["id"], "additionalProperties": False}}}
    return Tool("peek_note", schema, check, needs_confirmation=False, run=run)


def with_peek(log: list) -> Registry:
    return Registry([protocol.save_tool([note.id for note in SAMPLE_NOTES]), peek_tool(log)])


def peek(note_id: object, call_id: str) -> dict:
    return tool_call({"id": note_id}, call_id=call_id, name="peek_note")


def earlier(home: Path, replies: list, lines: list | tuple = (), *, request: str = "Plan it",
            max_calls: int = 6, max_repairs: int = 1, interactive: bool = True,
            client: ScriptedClient | None = None, config: Config | None = None) -> str:
    """One finished run made by the real flow; its run ID."""
    outcome = run_flow(
        request, client=client or Model(replies), person=ScriptedPerson(lines, interactive),
        home=home, config=config or Config(), notes=SAMPLE_NOTES, mode="live", today=TODAY,
        limits=Limits(max_calls, max_repairs),
    )
    assert outcome.run_id is not None
    return outcome.run_id


def one_error(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), stderr
    assert "Traceback" not in stderr
    return lines[0].removeprefix("Error: ")
