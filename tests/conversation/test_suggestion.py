"""What a plan buys, for the model and the person (README "A study plan to a goal"): the
suggest_study_plan lookup through the real SDK (paged, strict, at most 4 KiB), the readiness
every save_study_plan result carries back, and the SAVE screen's bound and addition lines."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

import pexpect
import pytest
from conftest import run_planner, today
from plan_files import session
from stub_server import Reply, StubServer, text_reply, tool_call, tool_call_reply
from terminal import spawn

from planner.conversation.tools import MAX_RESULT_BYTES

KEY = "sk-suggest-test-0123456789"
NOTES = [f"N{number}" for number in range(1, 13)]
EXAM = today() + _dt.timedelta(days=21)


def setup_home(home: Path, url: str) -> None:
    folder = home / "notes"
    folder.mkdir()
    for note in NOTES:
        (folder / f"{note}.md").write_text(f"---\nid: {note}\ntags: [exam]\n---\n# {note}\nb\n",
                                           encoding="utf-8")
    (home / "config.json").write_text(json.dumps({
        "model": "stub-model", "base_url": url, "timeout_seconds": 5, "max_calls": 5,
        "max_repairs": 1, "daily_minutes": 60,
        "study_hours": {"daily": ["18:00-21:00"]},
        "goals": [{"name": "Exam", "date": EXAM.isoformat(), "notes": ["tag:exam"]}]}),
        encoding="utf-8")


def env() -> dict[str, str]:
    return {**os.environ, "DEEPSEEK_API_KEY": KEY}


def weak_plan() -> dict:
    """Two notes, twice each: makes two of twelve ready."""
    days = [today() + _dt.timedelta(days=offset) for offset in (3, 18)]
    return {"title": "Exam", "sessions": [
        {"date": day.isoformat(), "start": "18:00", "minutes": 30, "note_ids": ["N1", "N2"]}
        for day in days]}


def answers(server: StubServer) -> list[dict]:
    """Each request's last message, as JSON, after the first request."""
    return [json.loads(request.body["messages"][-1]["content"])
            for request in server.chat_requests()[1:]]


def test_the_lookup_pages_planner_plan_and_refuses_bad_pages(server: StubServer,
                                                              home: Path) -> None:
    setup_home(home, server.url)
    server.add(
        Reply(body=tool_call_reply(calls=[tool_call({"offset": 0, "limit": 2},
                                                    name="suggest_study_plan")])),
        Reply(body=tool_call_reply(calls=[
            tool_call({"offset": 2, "limit": 30}, name="suggest_study_plan")])),
        Reply(body=tool_call_reply(calls=[
            tool_call({"offset": -1, "limit": 2}, name="suggest_study_plan",
                      call_id="call_0002"),
            tool_call({"offset": 0, "limit": 31}, name="suggest_study_plan",
                      call_id="call_0003"),
            tool_call({"offset": 0, "limit": "2"}, name="suggest_study_plan",
                      call_id="call_0004")])),
        Reply(body=text_reply("Shall I propose it?")))
    expected = json.loads(run_planner("plan", "--goal", "exam", "--json").stdout)
    result = run_planner("-r", "plan my exam", "--goal", "exam", env=env())
    assert result.returncode == 0, result.stderr
    first = server.chat_requests()[0].body
    assert (f"Planner's own plan in the free time makes {expected['ready']} ready in "
            f"{expected['minutes']:,} minutes; suggest_study_plan gives it."
            in first["messages"][0]["content"])
    page = answers(server)[0]
    assert list(page) == ["goal", "ready", "of", "minutes", "total", "sessions"]
    assert (page["goal"], page["ready"], page["of"], page["minutes"], page["total"]) == (
        "Exam", expected["ready"], 12, expected["minutes"], expected["total"])
    assert page["sessions"] == expected["sessions"][:2]
    assert expected["ready"] == 12
    rest = answers(server)[1]
    assert rest["sessions"] == expected["sessions"][2:]
    later = server.chat_requests()[3].body["messages"]
    refused = [json.loads(message["content"]) for message in later[-3:]]
    assert [answer["status"] for answer in refused] == ["rejected"] * 3
    assert "offset: must be 0 or more, got -1" in refused[0]["error"]
    assert not (home / "plans").exists()


def test_every_page_fits_4_kib() -> None:
    from planner.calendar.best_plan import BestPlan
    from planner.conversation.lookups import GoalNotesArguments
    from planner.conversation.suggestion import Suggestion
    from planner.memory.readiness import GoalTarget
    from planner.plans.study import StudyPlan

    goal = GoalTarget("Exam", EXAM, 0.9, ("x" * 200,))
    # 60 sessions of three 200-character IDs: a page of 30 is far over 4 KiB whole.
    sessions = tuple(session("2027-01-01", 45, ("x" * 200, "y" * 200, "z" * 200), "19:00")
                     for _ in range(60))
    suggestion = Suggestion(goal, None, None)  # type: ignore[arg-type]
    suggestion._best = BestPlan(goal, StudyPlan("t", sessions), 1, 1, 2700, {}, ())
    page = suggestion.page(GoalNotesArguments(0, 30))
    assert len(json.dumps(page, ensure_ascii=False).encode()) <= MAX_RESULT_BYTES
    assert page["total"] == 60 and 0 < len(page["sessions"]) < 30
    assert page["sessions"][0]["note_ids"] == ["x" * 200, "y" * 200, "z" * 200]


@pytest.mark.terminal
def test_a_short_plan_is_told_what_planner_reaches_and_what_closes_the_gap(
        server: StubServer, home: Path) -> None:
    setup_home(home, server.url)
    server.add(Reply(body=tool_call_reply(weak_plan(), name="save_study_plan")),
               Reply(body=text_reply("Saved as you asked.")))
    child, seen = spawn("-r", "plan my exam", "--goal", "exam", home=home, env=env())
    child.expect("Type SAVE")
    screen = " ".join(seen.text().split())
    assert f"On {EXAM.isoformat()}: 2 of 12 notes ready" in screen
    assert "Planner's plan in your free time: 12 of 12 ready in" in screen
    assert "(this plan: 60)" in screen
    assert "Adding reviews of these 10 notes between" in screen
    assert "makes 12 ready" in screen
    child.sendline("cancel")
    child.expect("What should change")
    child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    cancelled = answers(server)[0]
    assert cancelled["status"] == "cancelled"
    assert cancelled["readiness"]["ready"] == 2 and cancelled["readiness"]["of"] == 12
    assert cancelled["readiness"]["best"] == 12
    assert cancelled["readiness"]["best_minutes"] > 0
    assert not (home / "plans").exists()


def test_a_rejected_study_plan_carries_its_readiness_too(server: StubServer,
                                                          home: Path) -> None:
    setup_home(home, server.url)
    bad = weak_plan()
    bad["sessions"][0]["start"] = "07:00"  # outside the study hours
    server.add(Reply(body=tool_call_reply(bad, name="save_study_plan")),
               Reply(body=text_reply("I will mend it.")))
    result = run_planner("-r", "plan my exam", "--goal", "exam", env=env())
    assert result.returncode == 0, result.stderr
    rejected = answers(server)[0]
    assert rejected["status"] == "rejected"
    assert rejected["readiness"] == {"ready": 2, "of": 12, "best": 12,
                                     "best_minutes": rejected["readiness"]["best_minutes"]}
    assert not (home / "plans").exists()
