"""A conversation that never strands you (README "Going on with a conversation") at flow level: the
budget checkpoint, what a
later proposal changes, a question that is not a failure, and the limits in plain view.

Through the real `planner --request` in a terminal: test_conversation_pty.py (the budget
question) and test_conversation_continue.py (`--continue`).
"""

from __future__ import annotations

import datetime as _dt
import json

import pytest
from conftest import ROOT, run_planner
from plan_files import review_plan, review_series
from scripted_conversation import (
    BAD,
    EXPLAINED,
    PLAN,
    QUESTION,
    REVISED,
    ROLES_FIRST,
    assert_saved,
    converse,
    plans_on_disk,
    propose,
    roles,
    say,
)

from planner.conversation.events import ConfirmRequest, ModelText, Prompt
from planner.conversation.run_state import MAX_RUN_CALLS
from planner.plans.changes import Change, plan_changes
from planner.plans.plan import (
    InvalidArguments,
    ReviewPlan,
    parse_arguments,
    series_tool_definition,
    tool_definition,
)
from planner.ui.change_words import change_rows, change_words
from planner.ui.conversation import prompt_text

DROPPED = {**PLAN, "note_ids": ["N1"], "minutes": 30}  # N2 silently left out


def budget_steps(run) -> list[dict]:
    return [step for step in run.summary["steps"] if step["kind"] == "budget"]


# --- the budget is a checkpoint when a person is there -----------------------------------------


def test_done_when_questions_two_cancels_with_changes_and_no_calls_left_still_save(
    home,
) -> None:
    """The issue's story: four questions and two proposals use all six calls; the person's
    last change is still asked for, they allow more calls, and they save the plan they wanted."""
    wanted = {**PLAN, "note_ids": ["N1", "N2"], "minutes": 30}
    replies = [say(f"Question {number}?") for number in range(1, 5)]
    replies += [propose(PLAN, "p1"), propose(DROPPED, "p2"), propose(wanted, "p3"),
                say(EXPLAINED)]
    lines = [f"Answer {number}\n" for number in range(1, 5)]
    lines += ["no\n", "30 minutes\n", "no\n", "Keep N2 too\n", "y\n", "SAVE\n"]
    run = converse(home, replies, lines, max_calls=6)
    assert (run.outcome.status, run.outcome.exit_code, run.outcome.error) == ("complete", 0, None)
    assert [prompt.kind for prompt in run.person.prompts] == [
        "answer"] * 4 + ["save", "feedback", "save", "feedback", "budget", "save"]
    assert run.person.prompts[-2] == Prompt("budget", used=6, more=6)
    # The change typed on the last call reached the model, after the person allowed it.
    assert len(run.requests) == 8
    assert run.sent(7) == {"status": "cancelled", "feedback": "Keep N2 too"}
    assert run.choices() == ["auto"] * 7 + ["none"]
    assert roles(run.requests[6]) == ROLES_FIRST + ["assistant", "user"] * 4 + [
        "assistant", "tool"] * 2
    # Each later proposal showed what it changed: the dropped note was visible.
    first, second, third = run.person.views
    assert first.changes is None
    assert second.changes == (Change("note_removed", "N2", None), Change("minutes", 20, 30))
    assert third.changes == (Change("note_added", None, "N2"),)
    assert budget_steps(run) == [{"call": 6, "kind": "budget", "approved": True,
                                  "max_calls": 12}]
    assert run.kinds()[-5:] == ["feedback", "budget", "proposal", "decision", "explanation"]
    assert_saved(run, wanted)


@pytest.mark.parametrize("yes", ["y\n", "Y\n", "yes\n", "YES\n", "Yes\n", " y \n"])
def test_only_y_or_yes_allows_more_calls(home, yes: str) -> None:
    run = converse(home, [say(QUESTION), propose()], ["2026-10-05\n", yes, "SAVE\n"],
                   max_calls=1)
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert run.person.prompts == [Prompt("answer"), Prompt("budget", used=1, more=1),
                                  Prompt("save")]
    assert [event.text for event in run.events("Notice")] == [
        "Sending your answer needs another model call.",
        "No model call is left for an explanation (all 2 calls allowed are used)."]
    # One more call allowed: the plan, and no call left for the explanation.
    assert len(run.requests) == 2
    assert budget_steps(run) == [{"call": 1, "kind": "budget", "approved": True,
                                  "max_calls": 2}]
    assert_saved(run, PLAN)


@pytest.mark.parametrize("answer", ["\n", "n\n", "no\n", "yeah\n", "ye\n", "y es\n", "SAVE\n",
                                    ""])  # "": end of input (Ctrl+D)
def test_anything_else_ends_the_run_as_budget_exhausted(home, answer: str) -> None:
    run = converse(home, [say(QUESTION)], ["2026-10-05\n", answer], max_calls=1)
    assert (run.outcome.status, run.outcome.exit_code) == ("budget_exhausted", 1)
    assert run.outcome.error == (
        "the run reached its limit of 1 model calls (max_calls) before the model finished; "
        "nothing more was sent; nothing was saved; to go on from here, run planner --continue "
        "-r TEXT")
    assert len(run.requests) == 1
    assert budget_steps(run) == [{"call": 1, "kind": "budget", "approved": False,
                                  "max_calls": 1}]
    assert run.kinds() == ["question", "answer", "budget"]
    assert plans_on_disk(home) == []


def test_ctrl_c_at_the_budget_question_exits_130(home) -> None:
    run = converse(home, [say(QUESTION)], ["2026-10-05\n", KeyboardInterrupt()], max_calls=1)
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 130)
    assert run.outcome.error == "interrupted (Ctrl+C); nothing was saved"
    assert plans_on_disk(home) == []


def test_each_yes_adds_max_calls_again_and_a_no_ends_it(home) -> None:
    replies = [say(f"Question {number}?") for number in range(1, 7)]
    lines = ["A1\n", "A2\n", "y\n", "A3\n", "A4\n", "y\n", "A5\n", "A6\n", "n\n"]
    run = converse(home, replies, lines, max_calls=2)
    assert (run.outcome.status, run.outcome.exit_code) == ("budget_exhausted", 1)
    assert len(run.requests) == 6  # 2, then 2 more, then 2 more, then no
    assert [prompt for prompt in run.person.prompts if prompt.kind == "budget"] == [
        Prompt("budget", used=2, more=2), Prompt("budget", used=4, more=2),
        Prompt("budget", used=6, more=2)]
    assert [(step["approved"], step["max_calls"]) for step in budget_steps(run)] == [
        (True, 4), (True, 6), (False, 6)]
    assert run.outcome.error.startswith(
        "the run reached the 6 model calls allowed for it (max_calls 2, raised at the prompt) "
        "before the model finished")


@pytest.mark.slow  # 60 calls, each with its records on disk
def test_sixty_calls_in_one_run_at_most(home) -> None:
    # max_calls 7: 7, 14, ... 56, then only 4 more, for 60 in all; never a 61st call.
    replies = [say(f"Question {number}?") for number in range(1, MAX_RUN_CALLS + 1)]
    lines: list[str] = []
    for number in range(1, MAX_RUN_CALLS):
        lines.append(f"Answer {number}\n")
        if number % 7 == 0:
            lines.append("y\n")
    run = converse(home, replies, lines, max_calls=7)
    assert (run.outcome.status, run.outcome.exit_code) == ("budget_exhausted", 1)
    assert len(run.requests) == MAX_RUN_CALLS == 60
    budgets = [prompt for prompt in run.person.prompts if prompt.kind == "budget"]
    assert budgets[-1] == Prompt("budget", used=56, more=4)
    assert len(budgets) == 8 and run.person.lines == []
    # The 60th question is not asked to be answered: no call could send the answer.
    last = run.events("ModelText")[-1]
    assert (last.text, last.asking) == ("Question 60?", False)
    assert run.outcome.error == (
        "the run reached planner's limit of 60 model calls in one run before the model "
        "finished; nothing more was sent; nothing was saved; to go on from here, run planner "
        "--continue -r TEXT")
    assert (run.folder / "60-response.json").is_file()


def test_without_a_terminal_nothing_changes(home) -> None:
    run = converse(home, [propose(BAD, "c1"), propose(BAD, "c2")], max_calls=2, max_repairs=2,
                   interactive=False)
    assert (run.outcome.status, run.outcome.exit_code) == ("budget_exhausted", 1)
    assert run.person.prompts == [] and budget_steps(run) == []
    assert "--continue" in run.outcome.error


def test_a_repair_asks_too_before_it_spends(home) -> None:
    run = converse(home, [propose(BAD, "c1"), propose(PLAN, "c2")], ["yes\n", "SAVE\n"],
                   max_calls=1)
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    assert run.person.prompts == [Prompt("budget", used=1, more=1), Prompt("save")]
    assert run.notices()[0] == ("Asking the model to correct its proposal needs another model "
                                "call.")
    assert run.kinds()[:2] == ["budget", "rejected"]
    assert_saved(run, PLAN)


def test_the_budget_question_discards_typed_ahead_input() -> None:
    # Like SAVE: it allows spending, so only a line typed after it was shown counts.
    assert Prompt("budget", used=6, more=6).confirming
    assert not Prompt("answer").confirming
    assert prompt_text("budget", used=6, more=6) == (
        "The run has used its 6 model calls. Allow 6 more? [y/N]: ")


# --- a question is not a failure ----------------------------------------------------------------


def test_a_question_in_the_middle_says_the_model_asks(home) -> None:
    run = converse(home, [say(QUESTION), propose(), say(EXPLAINED)],
                   ["2026-10-05\n", "SAVE\n"])
    question = run.events("ModelText")[0]
    assert (question.explanation, question.asking) == (False, True)
    assert run.notices() == []  # the run went on: no "nothing was saved" line


def test_a_question_that_ends_the_run_says_no_plan_was_proposed(home) -> None:
    run = converse(home, [say(QUESTION)], ["\n"])
    assert (run.outcome.status, run.outcome.exit_code) == ("no_tool", 0)
    assert run.events("ModelText")[0].asking is True
    assert run.notices() == ["No plan was proposed; nothing was saved."]
    without = converse(home / "..", [say(QUESTION)], interactive=False)
    assert without.events("ModelText")[0].asking is False
    assert without.notices() == []


# --- what changed -------------------------------------------------------------------------------


def plan(**fields) -> ReviewPlan:
    return review_plan(**{"title": "RAG basics", "note_ids": ("N1", "N2"),
                         "date": "2026-10-05", "minutes": 45, **fields})


def test_plan_changes_names_every_difference() -> None:
    assert plan_changes(plan(), plan()) == ()
    assert plan_changes(plan(), plan(note_ids=("N2", "N1"))) == ()  # the same notes
    assert plan_changes(plan(), plan(title="RAG", note_ids=("N1", "N3"), date="2026-10-06",
                                     minutes=30)) == (
        Change("title", "RAG basics", "RAG"), Change("note_added", None, "N3"),
        Change("note_removed", "N2", None),
        Change("date", _dt.date(2026, 10, 5), _dt.date(2026, 10, 6)),
        Change("minutes", 45, 30))
    series = review_series("RAG basics", ("N1", "N2"), ("2026-10-05", "2026-10-12"), 45)
    assert plan_changes(plan(), series) == (
        Change("kind", "plan", "series"),
        Change("dates", (_dt.date(2026, 10, 5),),
               (_dt.date(2026, 10, 5), _dt.date(2026, 10, 12))))


def test_changes_are_shown_in_words_and_inert() -> None:
    words = [change_words(change) for change in plan_changes(
        plan(), plan(title="RAG\x1b[2J", note_ids=("N1",), minutes=30))]
    assert words == ['Title "RAG basics" → "RAG\\x1b[2J"', "Note N2 removed", "Minutes 45 → 30"]
    assert change_rows(()) == [("Changed", "nothing since the previous proposal", "")]
    assert [label for label, _, _ in change_rows((Change("minutes", 45, 30),
                                                  Change("note_added", None, "N3")))] == [
        "Changed", ""]


def test_the_first_proposal_shows_no_changes_the_second_does(home) -> None:
    run = converse(home, [propose(PLAN, "p1"), propose(REVISED, "p2"), say(EXPLAINED)],
                   ["no\n", "N3 and 30 minutes\n", "SAVE\n"])
    first, second = run.person.views
    assert isinstance(first, ConfirmRequest) and first.changes is None
    assert second.changes == (Change("note_added", None, "N3"),
                              Change("note_removed", "N2", None), Change("minutes", 20, 30))
    assert isinstance(run.events("ModelText")[0], ModelText)
    assert_saved(run, REVISED)


# --- limits in plain view ------------------------------------------------------------------------

LIMIT_CASES = [
    ({"minutes": 0}, "minutes", "from 1 to 120"),
    ({"minutes": 121}, "minutes", "from 1 to 120"),
    ({"note_ids": []}, "note_ids", "1 to 3 note IDs"),
    ({"note_ids": ["N1", "N2", "N3", "N4"]}, "note_ids", "1 to 3 note IDs"),
    ({"note_ids": ["N1", "N1"]}, "note_ids", "repeats a note ID"),
    ({"title": " "}, "title", "1 to 80 characters"),
    ({"title": "x" * 81}, "title", "at most 80"),
]


@pytest.mark.parametrize(("changes", "field", "limit"), LIMIT_CASES)
def test_every_rejection_names_the_limit_it_broke(changes: dict, field: str, limit: str) -> None:
    notes = ["N1", "N2", "N3", "N4"]
    with pytest.raises(InvalidArguments) as caught:
        parse_arguments(json.dumps({**PLAN, **changes}), notes)
    assert caught.value.field == field and limit in caught.value.rule


def test_the_tools_tell_the_model_the_limits_and_the_readme_tells_the_person() -> None:
    for definition in (tool_definition(["N1"]), series_tool_definition(None)):
        function = definition["function"]
        assert ("Limits: 1 to 3 existing notes, each once; 1 to 120 minutes; a title of 1 to 80 "
                "characters on one line.") in function["description"]
        properties = function["parameters"]["properties"]
        assert "1 to 80 characters" in properties["title"]["description"]
        assert "1 to 3, each once" in properties["note_ids"]["description"]
        assert "1 to 120" in properties["minutes"]["description"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for words in ("**1 to 3 notes per plan**", "**1 to 120 minutes**",
                  "**title of\n1 to 80 characters**"):
        assert words in readme


@pytest.mark.slow  # planner show in a subprocess
def test_show_tells_each_budget_decision(home) -> None:
    replies = [say(f"Question {number}?") for number in range(1, 5)]
    converse(home, replies, ["A1\n", "A2\n", "yes\n", "A3\n", "A4\n", ""], max_calls=2)
    shown = run_planner("--home", str(home), "show", "last")
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "#2 you allowed more model calls (up to 4 in this run)" in text
    assert "#4 you allowed no more model calls (the limit stayed 4)" in text
    assert "call limit reached" in text
