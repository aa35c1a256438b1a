"""Hostile input at scale: 4,000 property-based proposals, huge and deeply nested arguments."""

from __future__ import annotations

import json
import tempfile
import tracemalloc
from pathlib import Path

import pytest
from conftest import plan_body
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from people import ScriptedPerson
from plan_corpus import NOTES, expected, mutated_plans, near_plans, valid_plans

from planner.base.config import Config
from planner.conversation.demo import explanation_reply, proposal_reply
from planner.conversation.flow import run_flow
from planner.conversation.turn_values import Limits
from planner.model.client import ScriptedClient
from planner.notes.catalog import SAMPLE_NOTES
from planner.plans.plan import InvalidArguments, parse_arguments

pytestmark = pytest.mark.slow

# 2,000 of each kind: the suite's time goes to the cases that find something (README "What the tests
# prove").
AT_SCALE = settings(max_examples=2_000, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


@AT_SCALE
@given(plan=valid_plans, ensure_ascii=st.booleans())
def test_two_thousand_valid_proposals_are_accepted_exactly(plan: dict, ensure_ascii: bool):
    assert parse_arguments(json.dumps(plan, ensure_ascii=ensure_ascii), NOTES).as_dict() == plan


@AT_SCALE
@given(case=mutated_plans(), ensure_ascii=st.booleans())
def test_two_thousand_mutated_proposals_are_rejected(case: tuple, ensure_ascii: bool):
    data, _ = case
    with pytest.raises(InvalidArguments):
        parse_arguments(json.dumps(data, ensure_ascii=ensure_ascii), NOTES)


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.one_of(valid_plans, near_plans))
def test_through_the_whole_flow_saved_exactly_as_proposed_or_not_at_all(data: dict) -> None:
    """The plan on disk is the proposal (title trimmed), or there is no plan and no prompt."""
    text = json.dumps(data, ensure_ascii=False)
    want = expected(data, text)
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        reply = proposal_reply()
        reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = text
        person = ScriptedPerson(["SAVE\n"])
        # max_repairs 0: a rejected proposal ends the run, as README "What the model may propose"
        # says.
        outcome = run_flow(
            "x", client=ScriptedClient([reply, explanation_reply]), person=person, home=home,
            config=Config(), notes=SAMPLE_NOTES, mode="demo", limits=Limits(max_repairs=0),
        )
        asked = person.views
        plans = list((home / "demo-plans").glob("*.json")) if (home / "demo-plans").exists() \
            else []
        if want is None:
            assert outcome.exit_code == 1 and asked == [] and plans == []
        else:
            assert outcome.exit_code == 0
            (plan,) = plans
            assert plan_body(plan) == {"simulated": True, "plan": want}


HUGE = {
    "1MiB-title": json.dumps({"title": "x" * 2**20, "note_ids": ["N1"], "date": "2026-10-05",
                              "minutes": 20}),
    "1MiB-nesting": "[" * 2**20 + "]" * 2**20,
    "16MiB-string": '"' + "a" * 2**24 + '"',
    "deep-within-limit": "[" * 4000 + "]" * 4000,
    "deep-objects-within-limit": '{"a":' * 800 + "1" + "}" * 800,
}


@pytest.mark.parametrize("text", list(HUGE.values()), ids=list(HUGE))
def test_huge_or_deep_arguments_are_rejected_in_bounded_memory(text: str) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(InvalidArguments) as info:
            parse_arguments(text, NOTES)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.field == "arguments"
    # The input is never copied or parsed whole: far less than its own size, at most 1 MiB.
    assert peak < 2**20, peak
