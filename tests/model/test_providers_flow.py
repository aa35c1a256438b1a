"""Each provider end to end through the real loop: proposal, SAVE, explanation (README "Providers").

The reply shapes are the cited ones in provider_replies.py, sent by the local server to the
real SDK; the person is scripted; the plan is really written. What the second request carries
back is checked against the provider's rules with test_providers.check_assistant.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import plan_body, read_summary, run_dirs
from people import saying
from provider_replies import PRESET, PROVIDERS, THINKING, Provider, check_assistant
from stub_server import PLAN, Reply, StubServer

from planner.base.config import parse_config
from planner.base.secrets import find_key
from planner.conversation.flow import run_flow
from planner.model.client import LiveClient
from planner.notes.catalog import SAMPLE_NOTES

KEY = "sk-provider-flow-0123456789"



def run(case: Provider, server: StubServer, home: Path, *answers: bool):
    """One whole live run with the case's preset, pointed at the local server."""
    config = parse_config({"provider": PRESET[case.name], "base_url": server.url + "/v1",
                           "timeout_seconds": 5, "max_tokens": 333,
                           **THINKING.get(case.name, {})})
    key = find_key(config, None) if config.api_key_env is None else KEY
    person = saying(*answers)
    outcome = run_flow("Review N1 and N2 on 2026-10-05 for 20 minutes, title RAG basics",
                       client=LiveClient(config, key), person=person, home=home,
                       config=config, notes=SAMPLE_NOTES, mode="live")
    return outcome, person


@pytest.mark.parametrize("case", PROVIDERS.values(), ids=PROVIDERS.keys())
def test_saved_and_explained_through_the_loop(case: Provider, server: StubServer,
                                              home: Path) -> None:
    server.add(Reply(body=case.proposal), Reply(body=case.explanation))
    outcome, person = run(case, server, home, True)

    assert (outcome.status, outcome.exit_code, outcome.error) == ("complete", 0, None)
    relative = f"plans/{outcome.run_id}.json"
    assert plan_body(home / relative) == {"simulated": False, "plan": PLAN}
    first, second = (request.body for request in server.chat_requests())
    assert (first["tool_choice"], second["tool_choice"]) == ("auto", "none")
    assistant, result = second["messages"][2:]
    check_assistant(case.name, assistant, case.proposal)
    call_id = case.proposal["choices"][0]["message"]["tool_calls"][0]["id"]
    assert result["tool_call_id"] == call_id
    assert json.loads(result["content"]) == {"status": "saved", "path": relative}
    (folder,) = run_dirs(home)
    # The records keep each reply exactly as the provider sent it.
    assert json.loads((folder / "01-response.json").read_text()) == case.proposal
    assert json.loads((folder / "02-response.json").read_text()) == case.explanation
    summary = read_summary(folder)
    assert [step["kind"] for step in summary["steps"]] == ["proposal", "decision", "explanation"]


@pytest.mark.parametrize("case", PROVIDERS.values(), ids=PROVIDERS.keys())
def test_question_then_no_answer_is_no_plan(case: Provider, server: StubServer,
                                            home: Path) -> None:
    server.add(Reply(body=case.question))
    outcome, person = run(case, server, home)

    assert (outcome.status, outcome.exit_code) == ("no_tool", 0)
    # The question is the model's text, never its reasoning.
    (shown,) = [event.text for event in person.events if type(event).__name__ == "ModelText"]
    assert shown == outcome.question and "save_review_plan" not in shown
    assert len(server.chat_requests()) == 1
    assert not (home / "plans").exists()
