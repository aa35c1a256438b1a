"""The bounded turn loop (README "A conversation, not a dead end") through the real `planner
--request` in a pseudo-terminal.

The real SDK talks HTTP to tests/stub_server.py. Each path checks the exit code, the screen,
the requests the server received (roles, call IDs paired, tool_choice), the records and the
plans on disk. Flow-level cases of the same paths, and lookups: test_conversation.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import plan_body, read_summary, run_dirs
from live_model import (
    FUTURE,
    GOOD_PLAN,
    REQUEST,
    SLOW,
    explanation,
    one_line,
    plain,
    plan_files,
    proposal,
    run_cli,
    spawn_cli,
    wait_for,
    write_config,
)
from pty_conversation import (
    ANSWER_PROMPT,
    FEEDBACK_PROMPT,
    QUESTION,
    SAVE_PROMPT,
    bodies,
    question,
    start,
    tool_content,
)
from run_records import record_files
from scripted_conversation import (
    NEAR_MISS_IDS,
    NEAR_MISSES,
    ROLES_FIRST,
    check_conversation,
    roles,
)
from stub_server import Reply, StubServer, error_body, text_reply
from terminal import finish

# README "Live mode" and 10's own words, written out: a change on the screen must show up here.
# every case is a live run in a pseudo-terminal
pytestmark = [pytest.mark.slow, pytest.mark.terminal]

NO_PLAN_LINE = "No plan was proposed; nothing was saved."
ASKS_LINE = "The model asks (nothing is saved yet):"
BUDGET_PROMPT = "The run has used its 2 model calls. Allow 2 more? [y/N]: "
REVISED = {**GOOD_PLAN, "note_ids": ["N1", "N3"], "minutes": 30}
BAD = {**GOOD_PLAN, "minutes": "20"}
BAD_RULE = 'minutes: must be an integer, got a string "20"'
TOO_LONG_LINE = ("That is 2,001 characters; at most 2,000 can be sent. Shorten it, or press "
                 "Enter to finish.")
DEMO_LINE = ("The demo's scripted model cannot take your changes; to revise a plan, use live "
             "mode (--request).")


def offer(plan: dict, call_id: str) -> Reply:
    return proposal(plan, call_id=call_id)


def screen(seen: list[str]) -> str:
    return plain("".join(seen))


def records(home: Path, received: list[dict], answered: int | None = None) -> dict:
    """The run's files: NN-request (exactly as received) and NN-response; its summary."""
    (folder,) = run_dirs(home)
    count = len(received)
    answered = count if answered is None else answered
    names = record_files(folder)
    expected = [f"{n:02d}-request.json" for n in range(1, count + 1)]
    expected += [f"{n:02d}-response.json" for n in range(1, answered + 1)]
    assert names == sorted([*expected, "summary.json"])
    for number, body in enumerate(received, start=1):
        assert json.loads((folder / f"{number:02d}-request.json").read_text()) == body
    summary = read_summary(folder)
    assert summary["version"] == 2 and len(summary["calls"]) == count
    return summary


def kinds(summary: dict) -> list[str]:
    return [step["kind"] for step in summary["steps"]]


def error_lines(output: str) -> list[str]:
    """Each failure line from "Error:" on (after Ctrl+C the terminal's ^C echo precedes it)."""
    return [line[line.index("Error:"):].strip() for line in output.splitlines()
            if "Error:" in line]


def assert_saved(home: Path, summary: dict, plan: dict) -> str:
    # A proposal without a start is saved with the first free one: 19:00 on an empty day.
    plan = {**plan, "start": plan.get("start", "19:00")}
    relative = f"plans/{summary['run_id']}.json"
    assert plan_files(home) == [home / relative]
    assert plan_body(home / relative) == {"simulated": False, "plan": plan}
    assert (summary["plan"], summary["approved"], summary["target"]) == (plan, True, relative)
    assert summary["tool_result"] == {"status": "saved", "path": relative}
    return relative


# --- question → answer → plan ------------------------------------------------------------------


def test_question_answer_then_plan(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, question(), proposal(), explanation())
    child.expect_exact(ANSWER_PROMPT)
    child.sendline(f"On {FUTURE}, please.")
    child.expect_exact(SAVE_PROMPT)
    child.sendline("SAVE")
    assert finish(child) == 0
    output = screen(seen)
    assert output.index(ASKS_LINE) < output.index("Model question") < output.index(QUESTION)
    # a question in the middle is not the end (README "Going on with a conversation")
    assert NO_PLAN_LINE not in output
    assert output.index(QUESTION) < output.index(ANSWER_PROMPT) < output.index("Proposed plan")

    received = bodies(server)
    assert [roles(body) for body in received] == [
        ROLES_FIRST,
        [*ROLES_FIRST, "assistant", "user"],
        [*ROLES_FIRST, "assistant", "user", "assistant", "tool"],
    ]
    assert [body["tool_choice"] for body in received] == ["auto", "auto", "none"]
    assert received[1]["messages"][2:] == [
        {"role": "assistant", "content": QUESTION},
        {"role": "user", "content": f"On {FUTURE}, please."},
    ]
    summary = records(home, received)
    relative = assert_saved(home, summary, GOOD_PLAN)
    assert tool_content(received[2]) == {"status": "saved", "path": relative}
    assert output.index(f"Saved to {relative}") < output.index("Model explanation")
    assert (summary["status"], summary["stage"]) == ("complete", "done")
    assert kinds(summary) == ["question", "answer", "proposal", "decision", "explanation"]


def test_end_of_input_at_the_answer_prompt_is_no_tool(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, question(), explanation())
    child.expect_exact(ANSWER_PROMPT)
    child.sendeof()  # Ctrl+D
    assert finish(child) == 0
    assert error_lines(screen(seen)) == []
    received = bodies(server)
    assert len(received) == 1
    summary = records(home, received)
    assert summary["status"] == "no_tool" and kinds(summary) == ["question"]
    assert plan_files(home) == []


# --- revise ------------------------------------------------------------------------------------


def test_cancel_feedback_then_a_new_proposal_is_saved(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, offer(GOOD_PLAN, "call_a"), offer(REVISED, "call_b"),
                        explanation())
    child.expect_exact(SAVE_PROMPT)
    child.sendline("no")
    child.expect_exact(FEEDBACK_PROMPT)
    child.sendline("Use N3 instead of N2, and 30 minutes.")
    child.expect_exact(SAVE_PROMPT)
    shown = one_line("".join(seen))
    assert shown.count("Proposed plan") == 2 and "Minutes 30" in shown
    child.sendline("SAVE")
    assert finish(child) == 0
    output = screen(seen)
    assert output.index("Cancelled: nothing saved.") < output.index(FEEDBACK_PROMPT)

    received = bodies(server)
    assert [body["tool_choice"] for body in received] == ["auto", "auto", "none"]
    assert roles(received[1]) == [*ROLES_FIRST, "assistant", "tool"]
    assert received[1]["messages"][-1]["tool_call_id"] == "call_a"
    assert tool_content(received[1]) == {"status": "cancelled",
                                         "feedback": "Use N3 instead of N2, and 30 minutes."}
    assert received[2]["messages"][-1]["tool_call_id"] == "call_b"
    summary = records(home, received)
    relative = assert_saved(home, summary, REVISED)
    assert tool_content(received[2]) == {"status": "saved", "path": relative}
    assert kinds(summary) == ["proposal", "decision", "feedback", "proposal", "decision",
                              "explanation"]
    assert output.index("Cancelled: nothing saved.") < output.index(f"Saved to {relative}")


# --- repair ------------------------------------------------------------------------------------


def test_rejected_proposal_is_repaired_then_saved(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, offer(BAD, "call_bad"), offer(GOOD_PLAN, "call_good"),
                        explanation(), max_repairs=1)
    child.expect_exact(SAVE_PROMPT)
    child.sendline("SAVE")
    assert finish(child) == 0
    output = screen(seen)
    line = (f"The model's proposal was rejected ({BAD_RULE}); asking it to correct it "
            "(1 of 1).")
    assert line in one_line(output)
    # The rejected proposal was never shown as a plan nor asked about.
    assert output.count("Proposed plan") == 1 and output.count(SAVE_PROMPT) == 1
    assert one_line(output).index(line) < one_line(output).index("Proposed plan")

    received = bodies(server)
    assert [body["tool_choice"] for body in received] == ["auto", "auto", "none"]
    assert received[1]["messages"][-1]["tool_call_id"] == "call_bad"
    assert tool_content(received[1]) == {"status": "rejected", "error": BAD_RULE}
    summary = records(home, received)
    assert_saved(home, summary, GOOD_PLAN)
    assert kinds(summary) == ["rejected", "proposal", "decision", "explanation"]
    assert summary["steps"][0]["repair"] == 1


def test_repairs_spent_stops_with_exit_1(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, offer(BAD, "c1"), offer(BAD, "c2"), explanation(),
                        max_repairs=1)
    assert finish(child) == 1
    output = screen(seen)
    stop = f"Error: the model's proposal was rejected ({BAD_RULE}); nothing was saved"
    assert error_lines(output) == [stop]
    assert SAVE_PROMPT not in output and "Proposed plan" not in output
    assert "Traceback" not in output

    received = bodies(server)
    assert len(received) == 2 and [body["tool_choice"] for body in received] == ["auto", "auto"]
    summary = records(home, received)
    assert (summary["status"], summary["error"]) == ("stopped", stop.removeprefix("Error: "))
    assert kinds(summary) == ["rejected", "rejected"]
    assert [step["repair"] for step in summary["steps"]] == [1, 0]
    assert summary["plan"] is None and summary["tool_result"] is None
    assert plan_files(home) == []


# --- near misses -------------------------------------------------------------------------------


@pytest.mark.parametrize("typed", NEAR_MISSES, ids=NEAR_MISS_IDS)
def test_near_miss_is_named_then_save_saves(
    typed: str, server: StubServer, home: Path
) -> None:
    child, seen = start(server, home, proposal(), explanation())
    child.expect_exact(SAVE_PROMPT)
    child.sendline(typed)
    # Full-width ＳＡＶＥ is in capitals already: what it lacks is half-width (README "中文界面").
    capitals = "half-width capitals" if typed == "\uff33\uff21\uff36\uff25" else "capitals"
    child.expect_exact(f'You typed "{typed}"; only SAVE in {capitals} saves. {SAVE_PROMPT}')
    child.sendline("SAVE")
    assert finish(child) == 0
    received = bodies(server)
    assert [body["tool_choice"] for body in received] == ["auto", "none"]
    summary = records(home, received)
    relative = assert_saved(home, summary, GOOD_PLAN)
    assert f"Saved to {relative}" in screen(seen)
    assert summary["steps"][1]["near_misses"] == [typed]


def test_second_near_miss_cancels(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, proposal(), explanation("Nothing was saved."))
    child.expect_exact(SAVE_PROMPT)
    child.sendline("Save")
    child.expect_exact('You typed "Save"; only SAVE in capitals saves.')
    child.sendline("save")
    child.expect_exact(FEEDBACK_PROMPT)
    child.sendline("")
    assert finish(child) == 0
    output = screen(seen)
    assert output.count("You typed") == 1 and "Cancelled: nothing saved." in output
    received = bodies(server)
    assert [body["tool_choice"] for body in received] == ["auto", "none"]
    assert tool_content(received[1]) == {"status": "cancelled"}
    summary = records(home, received)
    assert summary["approved"] is False and summary["tool_result"] == {"status": "cancelled"}
    assert summary["steps"][1]["near_misses"] == ["Save", "save"]
    assert plan_files(home) == []


# --- the call budget ---------------------------------------------------------------------------


@pytest.mark.parametrize("no", ["n", "", "yeah"])
def test_budget_exhausted_when_the_person_allows_no_more(
    no: str, server: StubServer, home: Path
) -> None:
    child, seen = start(server, home, offer(BAD, "c1"), question(), explanation(),
                        max_calls=2, max_repairs=1)
    child.expect_exact(ANSWER_PROMPT)
    child.sendline("tomorrow")
    child.expect_exact(BUDGET_PROMPT)
    child.sendline(no)
    assert finish(child) == 1
    output = screen(seen)
    line = ("Error: the run reached its limit of 2 model calls (max_calls) before the model "
            "finished; nothing more was sent; nothing was saved; to go on from here, run "
            "planner --continue -r TEXT")
    assert error_lines(output) == [line]
    assert output.index(ANSWER_PROMPT) < output.index(BUDGET_PROMPT)
    assert SAVE_PROMPT not in output
    received = bodies(server)
    assert len(received) == 2
    summary = records(home, received)
    assert (summary["status"], summary["error"]) == ("budget_exhausted",
                                                     line.removeprefix("Error: "))
    assert kinds(summary) == ["rejected", "question", "answer", "budget"]
    assert summary["steps"][-1] == {"call": 2, "kind": "budget", "approved": False,
                                    "max_calls": 2}
    assert plan_files(home) == []


# --- one plan per run --------------------------------------------------------------------------


def test_second_save_call_is_refused_one_plan_on_disk(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, offer(GOOD_PLAN, "call_first"),
                        offer(REVISED, "call_again"), explanation(), max_calls=3)
    child.expect_exact(SAVE_PROMPT)
    child.sendline("SAVE")
    assert finish(child) == 0
    output = screen(seen)
    refused = ("The model called save_review_plan; not run (a plan was already saved in "
               "this run).")
    assert refused in one_line(output) and output.count(SAVE_PROMPT) == 1
    received = bodies(server)
    assert [body["tool_choice"] for body in received] == ["auto", "none", "none"]
    assert roles(received[2]) == [*ROLES_FIRST, "assistant", "tool", "assistant", "tool"]
    assert received[2]["messages"][-1]["tool_call_id"] == "call_again"
    assert tool_content(received[2]) == {"status": "refused",
                                         "error": "a plan was already saved in this run"}
    summary = records(home, received)
    assert_saved(home, summary, GOOD_PLAN)
    assert kinds(summary) == ["proposal", "decision", "refused", "explanation"]


# --- failure after the save --------------------------------------------------------------------


def test_failure_after_the_save_says_so_first(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, proposal(), Reply(500, error_body("Internal server error")),
                        explanation())
    child.expect_exact(SAVE_PROMPT)
    child.sendline("SAVE")
    assert finish(child) == 1
    output = screen(seen)
    received = bodies(server)
    assert len(received) == 2  # never retried
    summary = records(home, received)
    relative = assert_saved(home, summary, GOOD_PLAN)
    line = (f"Error: The plan is saved in {relative}; only the model's explanation failed (500: "
            "the server failed or is overloaded (“Internal server error”); try again later). "
            "Do not run again, or you will have two plans.")
    # One error, wrapped at the terminal's width between words (README "中文界面").
    joined = " ".join(output.split())
    assert len(error_lines(output)) == 1 and joined.count(line) == 1
    assert joined.index(f"Saved to {relative}") < joined.index(line)
    assert (summary["status"], summary["error"]) == ("stopped", line.removeprefix("Error: "))


# --- no terminal -------------------------------------------------------------------------------


def test_no_terminal_question_is_no_tool(server: StubServer, home: Path) -> None:
    server.add(question(), explanation())
    write_config(home, server.url, max_calls=6, max_repairs=1)
    result = run_cli("--request", REQUEST)
    assert result.returncode == 0, result.stderr
    assert result.stdout.index(NO_PLAN_LINE) < result.stdout.index(QUESTION)
    assert ANSWER_PROMPT not in result.stdout + result.stderr
    received = bodies(server)
    assert len(received) == 1
    summary = records(home, received)
    assert summary["status"] == "no_tool" and kinds(summary) == ["question"]


def test_no_terminal_cancel_asks_for_the_explanation(server: StubServer, home: Path) -> None:
    server.add(proposal(), explanation("Nothing was saved."))
    write_config(home, server.url, max_calls=6, max_repairs=1)
    result = run_cli("--request", REQUEST)
    assert result.returncode == 0, result.stderr
    assert FEEDBACK_PROMPT not in result.stdout + result.stderr
    assert "No terminal to confirm on: treated as cancel." in result.stdout
    received = bodies(server)
    assert [body["tool_choice"] for body in received] == ["auto", "none"]
    assert tool_content(received[1]) == {"status": "cancelled"}
    summary = records(home, received)
    assert (summary["status"], summary["approved"]) == ("complete", False)
    assert kinds(summary) == ["proposal", "decision", "explanation"]
    assert plan_files(home) == []


# --- the person's words ------------------------------------------------------------------------


def test_over_long_answer_and_feedback_are_refused_and_asked_again(
    server: StubServer, home: Path
) -> None:
    child, seen = start(server, home, question(), proposal(), explanation("Nothing was saved."))
    child.expect_exact(ANSWER_PROMPT)
    child.sendline("x" * 2001)
    child.expect_exact(TOO_LONG_LINE)
    child.expect_exact(ANSWER_PROMPT)
    child.sendline(FUTURE)
    child.expect_exact(SAVE_PROMPT)
    child.sendline("no")
    child.expect_exact(FEEDBACK_PROMPT)
    child.sendline("y" * 2001)
    child.expect_exact(TOO_LONG_LINE)
    child.expect_exact(FEEDBACK_PROMPT)
    child.sendline("")
    assert finish(child) == 0
    received = bodies(server)
    assert [body["tool_choice"] for body in received] == ["auto", "auto", "none"]
    assert received[1]["messages"][-1] == {"role": "user", "content": FUTURE}
    assert tool_content(received[2]) == {"status": "cancelled"}
    for long in ("x" * 2001, "y" * 2001):
        assert all(long not in json.dumps(body) for body in received)
    summary = records(home, received)
    assert kinds(summary) == ["question", "answer", "proposal", "decision", "explanation"]
    assert plan_files(home) == []


# A terminal in canonical mode keeps at most 4,095 bytes of a line (Linux N_TTY_BUF_SIZE): 1,365
# Chinese characters. The answer prompt edits the line itself (README "Going on with a
# conversation"), so nothing is cut there:
# a longer line arrives whole, and one over the limit is refused with the limit named.
@pytest.mark.parametrize("length", [1400, 2001])
def test_a_chinese_answer_longer_than_the_terminal_keeps_is_whole_or_refused(
    length: int, server: StubServer, home: Path
) -> None:
    child, seen = start(server, home, question(), question("Anything else?"))
    child.expect_exact(ANSWER_PROMPT)
    child.sendline("复" * length)
    if length > 2000:
        child.expect_exact(f"That is {length:,} characters; at most 2,000 can be sent.")
        child.expect_exact(ANSWER_PROMPT)
        child.sendline("好")
    child.expect_exact("Anything else?")
    child.expect_exact(ANSWER_PROMPT)
    child.sendline("")
    assert finish(child) == 0
    received = bodies(server)
    assert len(received) == 2
    sent = "复" * length if length <= 2000 else "好"
    assert received[1]["messages"][-1] == {"role": "user", "content": sent}
    if length > 2000:
        assert all("复" * 2001 not in json.dumps(body, ensure_ascii=False) for body in received)


def test_a_long_chinese_answer_the_terminal_keeps_arrives_whole(
    server: StubServer, home: Path
) -> None:
    answer = "复" * 1300  # 3,900 bytes: within what the terminal keeps
    child, seen = start(server, home, question(), question("Anything else?"))
    child.expect_exact(ANSWER_PROMPT)
    child.sendline(answer)
    child.expect_exact(ANSWER_PROMPT)
    child.sendline("")
    assert finish(child) == 0
    assert bodies(server)[1]["messages"][-1] == {"role": "user", "content": answer}


# --- Ctrl+C ------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["answer", "feedback"])
def test_ctrl_c_at_a_prompt_exits_130(where: str, server: StubServer, home: Path) -> None:
    first = question() if where == "answer" else proposal()
    child, seen = start(server, home, first, explanation())
    if where == "feedback":
        child.expect_exact(SAVE_PROMPT)
        child.sendline("no")
    child.expect_exact(ANSWER_PROMPT if where == "answer" else FEEDBACK_PROMPT)
    child.sendintr()
    assert finish(child) == 130
    output = screen(seen)
    assert error_lines(output) == ["Error: interrupted (Ctrl+C); nothing was saved"]
    assert "Traceback" not in output
    received = bodies(server)
    assert len(received) == 1
    summary = records(home, received)
    assert summary["status"] == "stopped"
    assert summary["error"] == "interrupted (Ctrl+C); nothing was saved"
    assert kinds(summary) == (["question"] if where == "answer" else ["proposal", "decision"])
    assert plan_files(home) == []


def test_ctrl_c_line_starts_on_a_line_of_its_own(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, question(), explanation())
    child.expect_exact(ANSWER_PROMPT)
    child.sendintr()
    assert finish(child) == 130
    lines = screen(seen).splitlines()
    assert "Error: interrupted (Ctrl+C); nothing was saved" in lines


def test_ctrl_c_after_the_save_says_the_plan_is_saved(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, proposal(), Reply(body=text_reply("late"), delay=SLOW))
    child.expect_exact(SAVE_PROMPT)
    child.sendline("SAVE")
    wait_for(lambda: len(server.requests) == 2)
    child.sendintr()
    assert finish(child) == 130
    output = screen(seen)
    received = bodies(server)
    summary = records(home, received, answered=1)
    relative = assert_saved(home, summary, GOOD_PLAN)
    line = (f"Error: interrupted (Ctrl+C); the plan is saved in {relative}; do not run again, "
            "or you will have two plans")
    assert error_lines(output) == [line]
    assert (summary["status"], summary["error"]) == ("stopped", line.removeprefix("Error: "))


# --- the demo ----------------------------------------------------------------------------------


def test_demo_cancel_points_to_live_mode_instead_of_asking(home: Path) -> None:
    child, seen = spawn_cli("--demo", key=None)
    child.expect_exact(SAVE_PROMPT)
    child.sendline("no")
    child.expect_exact(DEMO_LINE)
    assert finish(child) == 0
    output = screen(seen)
    assert FEEDBACK_PROMPT not in output
    assert output.index("Cancelled: nothing saved.") < output.index(DEMO_LINE)
    assert output.index(DEMO_LINE) < output.index("Simulated model explanation")
    (folder,) = run_dirs(home)
    second = json.loads((folder / "02-request.json").read_text())
    assert second["tool_choice"] == "none" and tool_content(second) == {"status": "cancelled"}
    check_conversation([json.loads((folder / "01-request.json").read_text()), second])
    summary = read_summary(folder)
    assert (summary["status"], summary["approved"]) == ("complete", False)
    assert kinds(summary) == ["proposal", "decision", "explanation"]
    assert not (home / "demo-plans").exists() or not any((home / "demo-plans").iterdir())


# --- README "Going on with a conversation": a conversation that never strands you
# ----------------------------------------------


def test_questions_two_cancels_and_no_calls_left_still_save(server: StubServer, home: Path) -> None:
    """The issue's done-when: four questions and two proposals use the six calls; the last
    change is still asked for, the person allows more calls and saves the plan they wanted."""
    dropped = {**GOOD_PLAN, "note_ids": ["N1"], "minutes": 30}
    wanted = {**GOOD_PLAN, "minutes": 30}
    child, seen = start(server, home, *(question(f"Question {n}?") for n in range(1, 5)),
                        offer(GOOD_PLAN, "p1"), offer(dropped, "p2"), offer(wanted, "p3"),
                        explanation(), max_calls=6)
    for number in range(1, 5):
        child.expect_exact(ANSWER_PROMPT)
        child.sendline(f"Answer {number}")
    child.expect_exact(SAVE_PROMPT)
    child.sendline("no")
    child.expect_exact(FEEDBACK_PROMPT)
    child.sendline("30 minutes")
    child.expect_exact(SAVE_PROMPT)
    # The second proposal dropped N2: the screen says so before the person answers.
    shown = one_line("".join(seen))
    assert "Changed Note N2 removed" in shown and "Minutes 20 → 30" in shown
    child.sendline("no")
    child.expect_exact(FEEDBACK_PROMPT)
    child.sendline("Keep N2 too")
    child.expect_exact("The run has used its 6 model calls. Allow 6 more? [y/N]: ")
    child.sendline("y")
    child.expect_exact(SAVE_PROMPT)
    child.sendline("SAVE")
    assert finish(child) == 0
    output = screen(seen)
    assert error_lines(output) == [] and output.count(ASKS_LINE) == 4
    assert output.index("Sending your change needs another model call.") < output.index(
        "The run has used its 6 model calls.")

    received = bodies(server)
    assert len(received) == 8
    assert tool_content(received[6]) == {"status": "cancelled", "feedback": "Keep N2 too"}
    summary = records(home, received)
    assert_saved(home, summary, wanted)
    assert kinds(summary)[-5:] == ["feedback", "budget", "proposal", "decision", "explanation"]
    assert {"call": 6, "kind": "budget", "approved": True, "max_calls": 12} in summary["steps"]


def test_a_yes_typed_ahead_never_allows_more_calls(server: StubServer, home: Path) -> None:
    child, seen = start(server, home, offer(GOOD_PLAN, "p1"), offer(REVISED, "p2"),
                        explanation(), max_calls=2)
    child.expect_exact(SAVE_PROMPT)
    child.sendline("no")
    child.expect_exact(FEEDBACK_PROMPT)
    child.sendline("shorter")
    child.expect_exact(SAVE_PROMPT)
    child.sendline("no")
    child.expect_exact(FEEDBACK_PROMPT)
    # The change and a "y" pasted together: the "y" was typed before the question was shown.
    child.send("N3 please\ny\n")
    child.expect_exact("The run has used its 2 model calls. Allow 2 more? [y/N]: ")
    child.sendline("n")
    assert finish(child) == 1
    assert len(bodies(server)) == 2
    summary = records(home, bodies(server))
    assert summary["status"] == "budget_exhausted"
    assert [step for step in summary["steps"] if step["kind"] == "budget"] == [
        {"call": 2, "kind": "budget", "approved": False, "max_calls": 2}]
    assert plan_files(home) == []
