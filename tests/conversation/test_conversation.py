"""The bounded turn loop (README "A conversation, not a dead end") at flow level: every path with a
scripted model and person.

Each test checks the outcome, what the person was shown and asked, the requests the model
received (roles in order, call IDs paired, tool_choice), the records and the plans on disk.
The same paths through the real `planner --request` in a terminal: test_conversation_pty.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripted_conversation import (
    BAD,
    EXPLAINED,
    NEAR_MISS_IDS,
    NEAR_MISSES,
    NEVER,
    PLAN,
    QUESTION,
    REVISED,
    ROLES_FIRST,
    assert_saved,
    calls,
    converse,
    peek,
    plans_on_disk,
    propose,
    roles,
    say,
    with_peek,
)
from stub_server import completion, text_reply, tool_call, tool_call_reply

from planner.conversation import protocol
from planner.conversation.events import Prompt
from planner.conversation.flow import MAX_ANSWER
from planner.conversation.tools import Registry, Tool
from planner.conversation.turn_values import is_near_miss
from planner.model.client import ModelCallError
from planner.notes.catalog import SAMPLE_NOTES

NO_PLAN_LINE = "No plan was proposed; nothing was saved."


# --- question → answer → plan ------------------------------------------------------------------


def test_question_answer_then_plan(home: Path) -> None:
    run = converse(home, [say(QUESTION), propose(), say(EXPLAINED)],
                   ["On 2026-10-05, please.\n", "SAVE\n"])
    assert (run.outcome.status, run.outcome.exit_code, run.outcome.error) == ("complete", 0, None)
    assert run.person.prompts == [Prompt("answer"), Prompt("save")]
    assert run.shown() == ["ModelText", "Proposed", "Result", "ModelText"]
    question, explanation = run.events("ModelText")
    assert (question.text, question.explanation) == (QUESTION, False)
    assert (explanation.text, explanation.explanation) == (EXPLAINED, True)
    assert [roles(body) for body in run.requests] == [
        ROLES_FIRST,
        [*ROLES_FIRST, "assistant", "user"],
        [*ROLES_FIRST, "assistant", "user", "assistant", "tool"],
    ]
    assert run.choices() == ["auto", "auto", "none"]
    second = run.requests[1]["messages"]
    assert second[2] == {"role": "assistant", "content": QUESTION}
    assert second[3] == {"role": "user", "content": "On 2026-10-05, please."}
    assert run.sent(3) == {"status": "saved", "path": run.relative}
    assert run.kinds() == ["question", "answer", "proposal", "decision", "explanation"]
    assert run.step_calls() == [1, 1, 2, 2, 3]
    steps = run.summary["steps"]
    assert steps[1]["text"] == "On 2026-10-05, please."
    assert steps[2]["call_id"] == "call_1" and steps[2]["plan"] == PLAN
    assert steps[3]["approved"] is True and steps[3]["near_misses"] == []
    assert (run.summary["status"], run.summary["stage"]) == ("complete", "done")
    assert run.summary["question"] == QUESTION and run.summary["explanation"] == EXPLAINED
    assert_saved(run, PLAN)


def test_answer_words_are_trimmed_and_an_empty_answer_finishes(home: Path) -> None:
    run = converse(home, [say(QUESTION), say("And how long?")], ["  tomorrow \t\n", "   \n"])
    assert (run.outcome.status, run.outcome.exit_code) == ("no_tool", 0)
    assert run.requests[1]["messages"][-1] == {"role": "user", "content": "tomorrow"}
    assert run.person.prompts == [Prompt("answer"), Prompt("answer")]
    assert run.kinds() == ["question", "answer", "question"]
    assert run.outcome.question == "And how long?"
    assert plans_on_disk(home) == []


def test_end_of_input_at_the_answer_prompt_is_no_tool(home: Path) -> None:
    run = converse(home, [say(QUESTION)], [])
    assert (run.outcome.status, run.outcome.exit_code) == ("no_tool", 0)
    assert len(run.requests) == 1 and run.kinds() == ["question"]
    assert run.summary["tool_result"] is None and run.summary["approved"] is None


# --- revise: cancel, feedback, a new proposal -------------------------------------------------


def test_cancel_with_feedback_then_a_new_proposal_is_saved(home: Path) -> None:
    run = converse(home, [propose(PLAN, "call_a"), propose(REVISED, "call_b"), say(EXPLAINED)],
                   ["no\n", "Use N3 instead of N2, and 30 minutes.\n", "SAVE\n"])
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert run.person.prompts == [Prompt("save"), Prompt("feedback"), Prompt("save")]
    assert run.shown() == ["Proposed", "Result", "Proposed", "Result", "ModelText"]
    assert [view.plan.as_dict() for view in run.person.views] == [PLAN, REVISED]
    assert [event.result for event in run.events("Result")] == [
        {"status": "cancelled"}, {"status": "saved", "path": run.relative},
    ]
    assert run.choices() == ["auto", "auto", "none"]
    assert [roles(body) for body in run.requests][1:] == [
        [*ROLES_FIRST, "assistant", "tool"],
        [*ROLES_FIRST, "assistant", "tool", "assistant", "tool"],
    ]
    assert run.requests[1]["messages"][-1]["tool_call_id"] == "call_a"
    assert run.sent(2) == {"status": "cancelled",
                           "feedback": "Use N3 instead of N2, and 30 minutes."}
    assert run.requests[2]["messages"][-1]["tool_call_id"] == "call_b"
    assert run.sent(3) == {"status": "saved", "path": run.relative}
    assert run.kinds() == ["proposal", "decision", "feedback", "proposal", "decision",
                           "explanation"]
    steps = run.summary["steps"]
    assert steps[1]["approved"] is False and steps[1]["result"] == {"status": "cancelled"}
    assert steps[2]["text"] == "Use N3 instead of N2, and 30 minutes."
    assert steps[3]["plan"] == REVISED and steps[3]["call_id"] == "call_b"
    # The summary describes the last proposal that reached the person.
    assert_saved(run, REVISED)


def test_cancel_with_an_empty_line_asks_for_the_explanation(home: Path) -> None:
    run = converse(home, [propose(), say("You cancelled; nothing was saved.")], ["no\n", "\n"])
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert run.person.prompts == [Prompt("save"), Prompt("feedback")]
    assert run.choices() == ["auto", "none"]
    assert run.sent(2) == {"status": "cancelled"}
    assert run.kinds() == ["proposal", "decision", "explanation"]
    summary = run.summary
    assert (summary["approved"], summary["tool_result"], summary["target"]) == (
        False, {"status": "cancelled"}, None)
    assert plans_on_disk(home) == []


def test_feedback_twice_then_cancel_ends_with_the_explanation(home: Path) -> None:
    run = converse(
        home, [propose(PLAN, "c1"), propose(REVISED, "c2"), propose(PLAN, "c3"), say("Fine.")],
        ["no\n", "30 minutes\n", "no\n", "back to 20\n", "no\n", "\n"])
    assert run.choices() == ["auto", "auto", "auto", "none"]
    assert [run.sent(n)["status"] for n in (2, 3, 4)] == ["cancelled"] * 3
    assert "feedback" not in run.sent(4)
    assert run.kinds() == ["proposal", "decision", "feedback"] * 2 + [
        "proposal", "decision", "explanation"]
    assert run.summary["approved"] is False and plans_on_disk(home) == []


def test_feedback_answered_with_a_question_then_a_plan(home: Path) -> None:
    run = converse(home, [propose(PLAN, "c1"), say("Which note instead of N2?"),
                          propose(REVISED, "c2"), say(EXPLAINED)],
                   ["no\n", "another note\n", "N3, 30 minutes\n", "SAVE\n"])
    assert run.person.prompts == [Prompt("save"), Prompt("feedback"), Prompt("answer"),
                                  Prompt("save")]
    assert roles(run.requests[3]) == [*ROLES_FIRST, "assistant", "tool", "assistant", "user",
                                      "assistant", "tool"]
    assert run.choices() == ["auto", "auto", "auto", "none"]
    assert run.kinds() == ["proposal", "decision", "feedback", "question", "answer", "proposal",
                           "decision", "explanation"]
    assert_saved(run, REVISED)


# --- repair ------------------------------------------------------------------------------------


def test_rejected_proposal_is_sent_back_and_the_correction_saved(home: Path) -> None:
    bad = {**PLAN, "minutes": "20"}
    run = converse(home, [propose(bad, "call_bad"), propose(PLAN, "call_good"), say(EXPLAINED)],
                   ["SAVE\n"], max_repairs=1)
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    # Not shown as a plan, no prompt: one program line, then the corrected proposal.
    assert run.person.prompts == [Prompt("save")]
    assert run.shown() == ["Rejected", "Proposed", "Result", "ModelText"]
    (rejected,) = run.events("Rejected")
    assert (rejected.repair, rejected.max_repairs) == (1, 1)
    assert rejected.error.startswith("minutes: must be an integer")
    assert run.choices() == ["auto", "auto", "none"]
    assert run.requests[1]["messages"][-1]["tool_call_id"] == "call_bad"
    assert run.sent(2) == {"status": "rejected", "error": rejected.error}
    assert run.kinds() == ["rejected", "proposal", "decision", "explanation"]
    step = run.summary["steps"][0]
    assert (step["call_id"], step["error"], step["repair"]) == ("call_bad", rejected.error, 1)
    assert_saved(run, PLAN)


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({**PLAN, "note_ids": ["N9"]}, "note_ids"),
        ({**PLAN, "date": "2026-02-30"}, "date"),
        ({**PLAN, "approved": True}, "approved"),
        ({k: v for k, v in PLAN.items() if k != "title"}, "title"),
        ('{"title": "x", "title": "y"}', "arguments"),
    ],
    ids=["unknown-note", "no-such-date", "extra-key", "missing-title", "duplicate-key"],
)
def test_every_rule_is_named_to_the_model_as_field_and_rule(
    home: Path, arguments: object, field: str
) -> None:
    run = converse(home, [tool_call_reply(arguments), propose(), say(EXPLAINED)], ["no\n"])
    sent = run.sent(2)
    assert sent["status"] == "rejected" and sent["error"].startswith(f"{field}: ")
    assert run.person.views[0].plan.as_dict() == PLAN  # only the valid proposal was shown


@pytest.mark.parametrize("max_repairs", [0, 1, 2])
def test_repairs_spent_stops_the_run(home: Path, max_repairs: int) -> None:
    bad = {**PLAN, "minutes": 0}
    replies = [propose(bad, f"call_{n}") for n in range(max_repairs + 1)]
    run = converse(home, replies, ["SAVE\n"], max_repairs=max_repairs)
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 1)
    error = run.outcome.error
    assert error.startswith("the model's proposal was rejected (minutes: must be from 1 to 120")
    assert error.endswith("nothing was saved") and "\n" not in error
    assert len(run.requests) == max_repairs + 1
    assert run.person.prompts == [] and run.person.views == []
    assert [event.repair for event in run.events("Rejected")] == list(range(1, max_repairs + 1))
    steps = run.summary["steps"]
    assert [step["kind"] for step in steps] == ["rejected"] * (max_repairs + 1)
    assert [step["repair"] for step in steps] == [*range(1, max_repairs + 1), 0]
    assert run.summary["status"] == "stopped" and run.summary["error"] == error
    assert run.summary["plan"] is None and run.summary["tool_result"] is None
    assert plans_on_disk(home) == []


# --- near misses at SAVE -----------------------------------------------------------------------


@pytest.mark.parametrize("typed", NEAR_MISSES, ids=NEAR_MISS_IDS)
def test_near_miss_is_named_and_asked_once_more_then_save_saves(home: Path, typed: str) -> None:
    assert is_near_miss(typed + "\n")
    run = converse(home, [propose(), say(EXPLAINED)], [typed + "\n", "SAVE\n"])
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert run.person.prompts == [Prompt("save"), Prompt("save", typed=typed)]
    assert run.summary["steps"][1]["near_misses"] == [typed]
    assert run.choices() == ["auto", "none"]
    assert_saved(run, PLAN)


@pytest.mark.parametrize("typed", NEAR_MISSES, ids=NEAR_MISS_IDS)
def test_second_near_miss_cancels(home: Path, typed: str) -> None:
    run = converse(home, [propose(), say("Nothing was saved.")], [typed + "\n", "save\n", "\n"])
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert run.person.prompts == [Prompt("save"), Prompt("save", typed=typed),
                                  Prompt("feedback")]
    decision = run.summary["steps"][1]
    assert decision["approved"] is False and decision["near_misses"] == [typed, "save"]
    assert run.sent(2) == {"status": "cancelled"} and run.choices() == ["auto", "none"]
    assert plans_on_disk(home) == []


@pytest.mark.parametrize("line", ["SAVE SAVE\n", "SAVED\n", "no\n", "是的\n", "S A V E\n", "\n", "",
                                  "save"], ids=repr)
def test_other_answers_cancel_at_once(home: Path, line: str) -> None:
    # "save" without a newline came with the end of input: nobody is there to ask again.
    run = converse(home, [propose(), say("Nothing was saved.")], [line, "\n"])
    assert run.person.prompts[0] == Prompt("save")
    assert Prompt("save", typed="save") not in run.person.prompts
    assert run.summary["approved"] is False and run.summary["steps"][1]["near_misses"] == []
    assert plans_on_disk(home) == []


# --- the call budget ---------------------------------------------------------------------------


BUDGET_CASES = {
    # (replies, lines, max_repairs, lookups): the second reply needs a third call. The lines
    # end with the person's "no" to the budget question (README "Going on with a conversation"),
    # asked after their words.
    "question-after-a-repair": ([propose(BAD), say(QUESTION)], ["tomorrow\n", "n\n"], 1,
                                False),
    "second-question": ([say(QUESTION), say("And how long?")], ["tomorrow\n", "20\n", "no\n"],
                        1, False),
    "repair-left-but-no-call": ([propose(BAD, "c1"), propose(BAD, "c2")], ["\n"], 2, False),
    "lookups-to-send-back": ([say(QUESTION), calls(peek("N1", "p1"))], ["N1\n", "nope\n"], 1,
                             True),
    "question-after-feedback": ([propose(), say(QUESTION)], ["no\n", "shorter\n", "45\n", ""],
                                1, False),
}


BUDGET_LINE = ("the run reached its limit of 2 model calls (max_calls) before the model "
               "finished; nothing more was sent; nothing was saved; to go on from here, run "
               "planner --continue -r TEXT")


@pytest.mark.parametrize(("replies", "lines", "max_repairs", "lookups"), BUDGET_CASES.values(),
                         ids=BUDGET_CASES.keys())
def test_budget_spent_ends_when_the_person_allows_no_more(
    home: Path, replies: list, lines: list, max_repairs: int, lookups: bool
) -> None:
    log: list = []
    run = converse(home, replies, lines, max_calls=2, max_repairs=max_repairs,
                   registry=with_peek(log) if lookups else None)
    assert (run.outcome.status, run.outcome.exit_code) == ("budget_exhausted", 1)
    error = run.outcome.error
    assert error == BUDGET_LINE
    assert len(run.requests) == 2
    # Every line was asked for, the last one by the budget question; nothing after it.
    assert len(run.person.prompts) == len(lines) and run.person.lines == []
    assert run.person.prompts[-1] == Prompt("budget", used=2, more=2)
    budget = [step for step in run.summary["steps"] if step["kind"] == "budget"]
    assert budget == [{"call": 2, "kind": "budget", "approved": False, "max_calls": 2}]
    assert log == []  # a lookup that cannot be sent back is not run either
    assert run.summary["status"] == "budget_exhausted" and run.summary["error"] == error
    assert plans_on_disk(home) == []


def test_twenty_calls_are_recorded_01_to_20_then_the_budget_ends(home: Path) -> None:
    replies = [say(f"Question {number}?") for number in range(1, 21)]
    lines = [f"Answer {number}\n" for number in range(1, 21)] + ["no\n"]
    run = converse(home, replies, lines, max_calls=20)
    assert (run.outcome.status, run.outcome.exit_code) == ("budget_exhausted", 1)
    assert len(run.requests) == 20 and len(run.person.prompts) == 21
    assert (run.folder / "20-response.json").is_file()  # check_records saw 01.. to 20..
    assert roles(run.requests[-1]) == ROLES_FIRST + ["assistant", "user"] * 19
    assert run.kinds() == ["question", "answer"] * 20 + ["budget"]


def test_save_on_the_last_call_is_kept_without_an_explanation(home: Path) -> None:
    run = converse(home, [say(QUESTION), propose()], ["2026-10-05\n", "SAVE\n"], max_calls=2)
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert len(run.requests) == 2
    assert run.notices() == ["No model call is left for an explanation (max_calls 2)."]
    assert run.kinds() == ["question", "answer", "proposal", "decision"]
    assert_saved(run, PLAN)


def test_cancel_on_the_last_call_still_asks_for_feedback(home: Path) -> None:
    # README "Going on with a conversation": the change is asked for first; Enter there needs no
    # call, so no budget question.
    run = converse(home, [say(QUESTION), propose()], ["2026-10-05\n", "no\n"], max_calls=2)
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert run.person.prompts == [Prompt("answer"), Prompt("save"), Prompt("feedback")]
    assert run.notices() == ["No model call is left for an explanation (max_calls 2)."]
    assert run.summary["tool_result"] == {"status": "cancelled"}


# --- at most one plan per run ------------------------------------------------------------------

REFUSED = {"status": "refused", "error": "a plan was already saved in this run"}


def test_second_save_call_is_refused_and_never_run(home: Path) -> None:
    again = propose(REVISED, "call_again")
    run = converse(home, [propose(PLAN, "call_first"), again, say(EXPLAINED)], ["SAVE\n"],
                   max_calls=3)
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert run.person.prompts == [Prompt("save")] and len(run.person.views) == 1
    assert run.shown() == ["Proposed", "Result", "RefusedCall", "ModelText"]
    assert run.choices() == ["auto", "none", "none"]
    assert [roles(body) for body in run.requests][2] == [
        *ROLES_FIRST, "assistant", "tool", "assistant", "tool"]
    assert run.requests[2]["messages"][-1]["tool_call_id"] == "call_again"
    assert run.sent(3) == REFUSED
    assert run.kinds() == ["proposal", "decision", "refused", "explanation"]
    refused = run.summary["steps"][2]
    assert (refused["call_id"], refused["tool"], refused["error"]) == (
        "call_again", "save_review_plan", REFUSED["error"])
    assert_saved(run, PLAN)


def test_save_calls_until_the_budget_ends_keep_the_one_plan(home: Path) -> None:
    replies = [propose(PLAN, "c1"), *(propose(REVISED, f"c{n}") for n in range(2, 5))]
    run = converse(home, replies, ["SAVE\n"], max_calls=4)
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 1)
    assert run.choices() == ["auto", "none", "none", "none"]
    assert [run.sent(n) for n in (3, 4)] == [REFUSED, REFUSED]
    error = run.outcome.error
    assert error.startswith(f"The plan is saved in {run.relative}; only the model's "
                            "explanation failed (the model asked for another tool call ")
    assert "save_review_plan" in error and "it was not run" in error
    assert error.endswith("). Do not run again, or you will have two plans.")
    # The last reply's call is named in the error and recorded as refused like the others.
    assert run.kinds() == ["proposal", "decision", "refused", "refused", "refused"]
    assert_saved(run, PLAN)


def test_tool_call_after_a_cancel_is_refused_too(home: Path) -> None:
    run = converse(home, [propose(), propose(REVISED, "c2"), say("Nothing saved.")],
                   ["no\n", "\n"])
    assert run.choices() == ["auto", "none", "none"]
    assert run.sent(3) == {"status": "refused",
                           "error": "no more tool calls in this run; explain the result in words"}
    assert len(run.person.views) == 1 and plans_on_disk(home) == []


# --- a failure after the save ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("second", "problem"),
    [
        (ModelCallError("500: the server failed or is overloaded (boom); try again later",
                        {"error": {"status": 500}}),
         "500: the server failed or is overloaded (boom); try again later"),
        (text_reply("The plan was", finish_reason="length"),
         "the reply was cut off at max_tokens (finish_reason length); raise max_tokens"),
    ],
    ids=["http-500", "cut-off"],
)
def test_failure_after_the_save_says_the_plan_is_saved(
    home: Path, second: object, problem: str
) -> None:
    run = converse(home, [propose(), second, NEVER], ["SAVE\n"])
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 1)
    assert run.outcome.error == (
        f"The plan is saved in {run.relative}; only the model's explanation failed ({problem}). "
        "Do not run again, or you will have two plans.")
    assert len(run.requests) == 2 and len(run.client.replies) == 1  # never retried
    assert run.summary["stage"] == "explaining"
    assert run.kinds() == ["proposal", "decision"]
    assert_saved(run, PLAN)


# --- no terminal -------------------------------------------------------------------------------


def test_no_terminal_question_ends_as_no_tool(home: Path) -> None:
    run = converse(home, [say(QUESTION), NEVER], interactive=False)
    assert (run.outcome.status, run.outcome.exit_code) == ("no_tool", 0)
    assert len(run.requests) == 1 and run.person.prompts == []
    assert run.kinds() == ["question"] and run.summary["status"] == "no_tool"


def test_no_terminal_proposal_is_cancelled_and_explained(home: Path) -> None:
    run = converse(home, [propose(), say("Nothing was saved.")], interactive=False)
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert run.person.prompts == [Prompt("save")]  # asked once, nobody there: no feedback asked
    assert run.notices() == ["No terminal to confirm on: treated as cancel."]
    assert run.choices() == ["auto", "none"] and run.sent(2) == {"status": "cancelled"}
    assert run.kinds() == ["proposal", "decision", "explanation"]
    assert run.summary["approved"] is False and plans_on_disk(home) == []


# --- the person's words: at most 2,000 characters ----------------------------------------------

TOO_LONG = "x" * (MAX_ANSWER + 1)
LONG_LINE = ("That is 2,001 characters; at most 2,000 can be sent. Shorten it, or press Enter "
             "to finish.")


def test_over_long_answer_is_refused_and_asked_again(home: Path) -> None:
    longest = "好" * MAX_ANSWER  # characters, not bytes
    run = converse(home, [say(QUESTION), propose(), say(EXPLAINED)],
                   [TOO_LONG + "\n", longest + "\n", "SAVE\n"])
    assert run.person.prompts == [Prompt("answer"), Prompt("answer"), Prompt("save")]
    assert run.notices() == [LONG_LINE]
    assert run.requests[1]["messages"][-1] == {"role": "user", "content": longest}
    assert all(TOO_LONG not in json.dumps(body) for body in run.requests)
    assert TOO_LONG not in (run.folder / "summary.json").read_text()
    assert_saved(run, PLAN)


def test_over_long_feedback_is_refused_and_asked_again(home: Path) -> None:
    run = converse(home, [propose(), propose(REVISED, "c2"), say(EXPLAINED)],
                   ["no\n", TOO_LONG + "\n", "30 minutes\n", "SAVE\n"])
    assert run.person.prompts == [Prompt("save"), Prompt("feedback"), Prompt("feedback"),
                                  Prompt("save")]
    assert run.notices() == [LONG_LINE]
    assert run.sent(2) == {"status": "cancelled", "feedback": "30 minutes"}
    assert_saved(run, REVISED)


def test_over_long_answers_again_and_again_finish_the_run(home: Path) -> None:
    run = converse(home, [say(QUESTION)], [TOO_LONG + "\n"] * 5)
    assert (run.outcome.status, run.outcome.exit_code) == ("no_tool", 0)
    assert len(run.requests) == 1 and len(run.person.prompts) == 3
    assert run.notices() == [LONG_LINE] * 3 + [NO_PLAN_LINE]


# --- Ctrl+C ------------------------------------------------------------------------------------


def test_ctrl_c_at_the_answer_prompt(home: Path) -> None:
    run = converse(home, [say(QUESTION)], [KeyboardInterrupt()])
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 130)
    assert run.outcome.error == "interrupted (Ctrl+C); nothing was saved"
    assert len(run.requests) == 1 and run.kinds() == ["question"]
    assert run.summary["error"] == run.outcome.error and plans_on_disk(home) == []


def test_ctrl_c_at_the_feedback_prompt(home: Path) -> None:
    run = converse(home, [propose()], ["no\n", KeyboardInterrupt()])
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 130)
    assert run.outcome.error == "interrupted (Ctrl+C); nothing was saved"
    assert len(run.requests) == 1 and run.kinds() == ["proposal", "decision"]
    assert run.summary["tool_result"] == {"status": "cancelled"}
    assert plans_on_disk(home) == []


def test_ctrl_c_after_the_save_says_the_plan_is_saved(home: Path) -> None:
    def interrupted(body: dict) -> dict:
        raise KeyboardInterrupt

    run = converse(home, [propose(), interrupted], ["SAVE\n"])
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 130)
    assert run.outcome.error == (f"interrupted (Ctrl+C); the plan is saved in {run.relative}; "
                                 "do not run again, or you will have two plans")
    assert run.summary["error"] == run.outcome.error
    assert_saved(run, PLAN)


# --- lookups -----------------------------------------------------------------------------------


def test_two_lookups_in_one_reply_are_answered_in_order_then_a_plan_saved(home: Path) -> None:
    log: list = []
    run = converse(home, [calls(peek("N2", "look_b"), peek("N1", "look_a")), propose(),
                          say(EXPLAINED)], ["SAVE\n"], registry=with_peek(log))
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert log == ["N2", "N1"]  # run at once, in the order asked, without asking the person
    assert run.person.prompts == [Prompt("save")]
    assert run.shown() == ["Looked", "Looked", "Proposed", "Result", "ModelText"]
    assert [event.summary for event in run.events("Looked")] == ["note N2", "note N1"]
    assert run.choices() == ["auto", "auto", "none"]
    assert [t["function"]["name"] for t in run.requests[0]["tools"]] == ["save_review_plan",
                                                                         "peek_note"]
    messages = run.requests[1]["messages"]
    assert roles(run.requests[1]) == [*ROLES_FIRST, "assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in messages[3:]] == ["look_b", "look_a"]
    assert [json.loads(m["content"]) for m in messages[3:]] == [
        {"id": "N2", "title": "title of N2"}, {"id": "N1", "title": "title of N1"}]
    assert run.kinds() == ["lookup", "lookup", "proposal", "decision", "explanation"]
    first = run.summary["steps"][0]
    assert (first["call_id"], first["tool"], first["arguments"], first["result"]) == (
        "look_b", "peek_note", {"id": "N2"}, "note N2")
    assert_saved(run, PLAN)


def test_lookups_need_no_terminal_and_a_huge_result_is_not_sent(home: Path) -> None:
    huge = Tool("dump", {"type": "function", "function": {"name": "dump", "parameters": {}}},
                check=lambda arguments: arguments, run=lambda arguments: {"text": "x" * 5000})
    registry = Registry([protocol.save_tool([note.id for note in SAMPLE_NOTES]), huge])
    dump = tool_call("{}", call_id="d1", name="dump")
    run = converse(home, [calls(dump), propose(), say("Nothing was saved.")],
                   interactive=False, registry=registry)
    assert run.sent(2) == {"error": "the result was longer than 4096 bytes; ask for less"}
    assert run.kinds() == ["lookup", "proposal", "decision", "explanation"]
    assert run.choices() == ["auto", "auto", "none"] and run.sent(3) == {"status": "cancelled"}


@pytest.mark.parametrize(
    ("reply_calls", "problem"),
    [
        ([peek("N1", "look"), tool_call(PLAN, call_id="save")],
         "save_review_plan must be the only call in its reply"),
        ([tool_call(PLAN, call_id="save1"), tool_call(REVISED, call_id="save2")],
         "only one save_review_plan call is allowed"),
        ([tool_call({"id": "N1"}, call_id="rm", name="delete_note")],
         "delete_note is not a tool offered here (only save_review_plan, peek_note)"),
    ],
    ids=["save-with-lookup", "two-saves", "unknown-tool"],
)
def test_mixed_or_unknown_calls_are_a_rejected_proposal(
    home: Path, reply_calls: list, problem: str
) -> None:
    log: list = []
    run = converse(home, [calls(*reply_calls), propose(PLAN, "fixed"), say(EXPLAINED)],
                   ["SAVE\n"], registry=with_peek(log))
    assert log == [] and run.person.views[0].plan.as_dict() == PLAN
    ids = [call["id"] for call in reply_calls]
    messages = run.requests[1]["messages"][3:]
    assert [m["tool_call_id"] for m in messages] == ids
    assert [json.loads(m["content"]) for m in messages] == [
        {"status": "rejected", "error": problem}] * len(ids)
    assert run.kinds() == ["rejected"] * len(ids) + ["proposal", "decision", "explanation"]
    assert [event.repair for event in run.events("Rejected")] == [1]
    assert_saved(run, PLAN)


def test_bad_lookup_argument_counts_against_max_repairs(home: Path) -> None:
    log: list = []
    run = converse(home, [calls(peek(7, "look")), propose(BAD, "bad"), NEVER],
                   ["SAVE\n"], max_repairs=1, registry=with_peek(log))
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 1)
    assert run.sent(2) == {"status": "rejected", "error": "peek_note id: must be a string"}
    assert run.outcome.error.startswith("the model's proposal was rejected (minutes: ")
    assert log == [] and run.person.prompts == [] and len(run.requests) == 2
    assert run.kinds() == ["rejected", "rejected"]


# --- the demo's model cannot read feedback -----------------------------------------------------


def test_a_model_that_cannot_revise_is_not_given_feedback(home: Path) -> None:
    run = converse(home, [propose(), say("Nothing was saved.")], ["no\n", "never asked\n"],
                   revisable=False)
    assert run.person.prompts == [Prompt("save")]
    assert run.notices() == ["The demo's scripted model cannot take your changes; to revise a "
                             "plan, use live mode (--request)."]
    assert run.choices() == ["auto", "none"] and run.sent(2) == {"status": "cancelled"}


def test_assistant_text_beside_a_call_goes_back_as_sent(home: Path) -> None:
    message = {"role": "assistant", "content": "Proposing now.",
               "tool_calls": [tool_call(PLAN, call_id="c9")]}
    run = converse(home, [completion(message, "tool_calls"), say(EXPLAINED)], ["SAVE\n"])
    assert run.requests[1]["messages"][2] == message
