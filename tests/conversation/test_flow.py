"""The flow with the scripted model: every step's effect on disk."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import all_files, plan_body, read_summary, run_dirs
from people import ScriptedPerson, saying

from planner.base.config import Config
from planner.conversation.demo import DEMO_PLAN, explanation_reply, proposal_reply
from planner.conversation.flow import run_flow
from planner.conversation.protocol import DEFAULT_REQUEST
from planner.conversation.turn_values import Limits
from planner.model.client import ModelCallError, ScriptedClient
from planner.notes.catalog import SAMPLE_NOTES

TODAY = dt.date(2026, 10, 1)


def text_reply(text: str, finish: str = "stop") -> dict:
    """A reply with plain text and no tool call."""
    message = {"role": "assistant", "content": text}
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish}]}


def go(home: Path, replies: list, answer: bool = True, person=None, **kwargs):
    """Run the flow in demo mode with scripted replies and a fixed answer."""
    client = ScriptedClient(replies)
    # A cancel is followed by an empty line at "What should change?": no feedback.
    person = person or saying(answer)
    outcome = run_flow(
        DEFAULT_REQUEST, client=client, person=person, home=home, config=Config(),
        notes=SAMPLE_NOTES, mode=kwargs.pop("mode", "demo"), today=TODAY, **kwargs,
    )
    return outcome, client, person.views


def test_saved_run_writes_plan_and_five_records(home: Path) -> None:
    outcome, client, shown = go(home, [proposal_reply(), explanation_reply])
    assert (outcome.status, outcome.exit_code) == ("complete", 0)
    assert client.replies == [], "scripted replies were never used"
    (folder,) = run_dirs(home)
    assert sorted(p.name for p in folder.iterdir()) == [
        "01-request.json", "01-response.json", "02-request.json", "02-response.json",
        "summary.json",
    ]
    plan_file = home / "demo-plans" / f"{folder.name}.json"
    assert plan_body(plan_file) == {"simulated": True, "plan": DEMO_PLAN}
    summary = read_summary(folder)
    assert summary["status"] == "complete" and summary["stage"] == "done"
    assert summary["approved"] is True
    assert summary["plan"] == DEMO_PLAN
    assert summary["target"] == f"demo-plans/{folder.name}.json"
    assert summary["tool_result"] == {"status": "saved", "path": summary["target"]}
    assert summary["mode"] == "demo" and summary["simulated"] is True
    assert summary["base_url"] is None
    assert [c["usage"] for c in summary["calls"]] == [None, None]
    assert [c["duration_ms"] for c in summary["calls"]] == [None, None]
    assert summary["explanation"] == outcome.explanation
    assert len(client.requests) == 2
    assert shown[0].plan.as_dict() == DEMO_PLAN
    assert shown[0].target == plan_file


def test_second_request_pairs_the_call_and_carries_the_real_result(home: Path) -> None:
    _, client, _ = go(home, [proposal_reply(call_id="call_xyz"), explanation_reply])
    first, second = client.requests
    assert first["tool_choice"] == "auto" and second["tool_choice"] == "none"
    assert first["stream"] is False and first["thinking"] == {"type": "disabled"}
    assert second["messages"][:2] == first["messages"]
    assistant, tool = second["messages"][2:]
    assert assistant == proposal_reply(call_id="call_xyz")["choices"][0]["message"]
    assert tool["role"] == "tool" and tool["tool_call_id"] == "call_xyz"
    (folder,) = run_dirs(home)
    assert json.loads(tool["content"]) == read_summary(folder)["tool_result"]
    # What was recorded is what was sent.
    assert json.loads((folder / "02-request.json").read_text()) == second


def test_cancel_saves_nothing_and_tells_the_model(home: Path) -> None:
    outcome, client, _ = go(home, [proposal_reply(), explanation_reply], answer=False)
    assert (outcome.status, outcome.exit_code) == ("complete", 0)
    assert not (home / "demo-plans").exists() or not list((home / "demo-plans").iterdir())
    summary = read_summary(run_dirs(home)[0])
    assert summary["approved"] is False
    assert summary["tool_result"] == {"status": "cancelled"}
    assert summary["target"] is None
    assert json.loads(client.requests[1]["messages"][-1]["content"]) == {"status": "cancelled"}


def test_text_answer_is_no_tool_and_one_call(home: Path) -> None:
    # No terminal to answer on: the run ends as no_tool after one call, as in part one.
    outcome, client, shown = go(home, [text_reply("Which date do you mean?")],
                                person=ScriptedPerson(interactive=False))
    assert (outcome.status, outcome.exit_code) == ("no_tool", 0)
    assert outcome.question == "Which date do you mean?"
    assert len(client.requests) == 1 and shown == []
    summary = read_summary(run_dirs(home)[0])
    assert summary["status"] == "no_tool" and summary["question"] == outcome.question
    assert summary["tool_result"] is None


def test_invalid_proposal_stops_before_confirmation(home: Path) -> None:
    # max_repairs 0: the strict rule of README "What the model may propose", no repair round.
    bad = dict(DEMO_PLAN, minutes="20")
    outcome, client, shown = go(home, [proposal_reply(plan=bad)],
                                limits=Limits(max_calls=6, max_repairs=0))
    assert (outcome.status, outcome.exit_code) == ("stopped", 1)
    assert "minutes" in outcome.error and "integer" in outcome.error
    assert shown == [] and len(client.requests) == 1
    summary = read_summary(run_dirs(home)[0])
    assert summary["status"] == "stopped" and summary["error"] == outcome.error
    assert not (home / "demo-plans").exists()


def test_failed_first_call_is_recorded_and_not_retried(home: Path) -> None:
    failure = ModelCallError("503: the server is overloaded; try again later",
                             {"error": {"status": 503}})
    outcome, client, _ = go(home, [failure, proposal_reply()], mode="demo")
    assert (outcome.status, outcome.exit_code) == ("stopped", 1)
    assert len(client.requests) == 1
    folder = run_dirs(home)[0]
    assert json.loads((folder / "01-response.json").read_text()) == {"error": {"status": 503}}
    summary = read_summary(folder)
    assert summary["calls"][0]["error"] == outcome.error == summary["error"]


def test_failed_second_call_keeps_the_saved_plan(home: Path) -> None:
    outcome, client, _ = go(home, [proposal_reply(), ModelCallError("timeout", {"error": 1})])
    assert (outcome.status, outcome.exit_code) == ("stopped", 1)
    summary = read_summary(run_dirs(home)[0])
    assert summary["tool_result"]["status"] == "saved"
    assert (home / summary["tool_result"]["path"]).exists()
    assert len(client.requests) == 2


@pytest.mark.parametrize(
    "second",
    [
        text_reply("", "stop"),
        text_reply("cut", "length"),
        proposal_reply(),  # another tool call instead of an explanation
        {"choices": []},
    ],
    ids=["empty", "length", "tool-call-again", "no-choices"],
)
def test_bad_explanation_stops_without_undoing(home: Path, second: dict) -> None:
    # max_calls 2: no call is left to answer a second tool call with "refused".
    outcome, client, _ = go(home, [proposal_reply(), second], limits=Limits(max_calls=2))
    assert (outcome.status, outcome.exit_code) == ("stopped", 1)
    assert len(client.requests) == 2
    summary = read_summary(run_dirs(home)[0])
    assert summary["tool_result"]["status"] == "saved" and summary["status"] == "stopped"
    assert len(list((home / "demo-plans").iterdir())) == 1


def test_plan_write_failure_records_failed_and_makes_no_second_call(home: Path) -> None:
    (home / "demo-plans").write_text("a file where the folder should be")
    outcome, client, _ = go(home, [proposal_reply(), explanation_reply])
    assert (outcome.status, outcome.exit_code) == ("stopped", 1)
    assert len(client.requests) == 1
    summary = read_summary(run_dirs(home)[0])
    assert summary["tool_result"]["status"] == "failed"
    assert summary["stage"] == "executing" and summary["approved"] is True
    assert "could not save the plan" in outcome.error


def test_interrupt_at_confirmation_saves_nothing(home: Path) -> None:
    outcome = run_flow(
        DEFAULT_REQUEST, client=ScriptedClient([proposal_reply()]),
        person=ScriptedPerson([KeyboardInterrupt()]), home=home,
        config=Config(), notes=SAMPLE_NOTES, mode="demo", today=TODAY,
    )
    assert (outcome.status, outcome.exit_code) == ("stopped", 130)
    summary = read_summary(run_dirs(home)[0])
    assert summary["status"] == "stopped" and "Ctrl+C" in summary["error"]
    assert summary["tool_result"] is None and summary["approved"] is None
    assert not (home / "demo-plans").exists()


def test_past_date_is_flagged_for_the_person(home: Path) -> None:
    late = dt.date(2026, 10, 6)
    client = ScriptedClient([proposal_reply(), explanation_reply])
    person = ScriptedPerson(["no\n"])
    run_flow(DEFAULT_REQUEST, client=client, person=person,
             home=home, config=Config(), notes=SAMPLE_NOTES, mode="demo", today=late)
    assert person.views[0].date_in_past
    assert "2026-10-06" in client.requests[0]["messages"][0]["content"]


def test_records_are_private(home: Path) -> None:
    go(home, [proposal_reply(), explanation_reply])
    folder = run_dirs(home)[0]
    assert folder.stat().st_mode & 0o777 == 0o700
    for path in all_files(home / "tool-records") + all_files(home / "demo-plans"):
        assert path.stat().st_mode & 0o777 == 0o600, path


def test_records_unwritable_means_nothing_sent(home: Path) -> None:
    (home / "tool-records").write_text("a file where the folder should be")
    outcome, client, _ = go(home, [proposal_reply(), explanation_reply])
    assert (outcome.status, outcome.exit_code) == ("stopped", 1)
    assert client.requests == []
    assert "tool-records" in outcome.error


def test_record_failure_after_the_write_points_at_the_saved_plan(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from planner.records import run_record as records

    save = records.RunRecord.save

    def fail_once_saved(self, **changes):
        result = self.summary.tool_result
        if result and result.status == "saved":
            raise OSError(28, "No space left on device")
        save(self, **changes)

    monkeypatch.setattr(records.RunRecord, "save", fail_once_saved)
    outcome, client, _ = go(home, [proposal_reply(), explanation_reply])
    (plan,) = (home / "demo-plans").iterdir()
    assert (outcome.status, outcome.exit_code) == ("stopped", 1)
    assert f"the plan was saved to {plan}" in outcome.error and f"check {plan}" in outcome.error
    assert len(client.requests) == 1  # stopped: no explanation call
    assert json.loads(plan.read_text())["plan"] == DEMO_PLAN


def test_the_scripted_model_says_when_a_reply_was_never_asked_for(home: Path) -> None:
    # A run that stops early leaves the explanation unused: a test expecting more turns fails.
    _, client, _ = go(home, [text_reply("Which date?"), explanation_reply],
                      person=ScriptedPerson(interactive=False))
    assert len(client.replies) == 1  # what the tests check after each run: none left
