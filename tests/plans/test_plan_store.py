"""The plan store (planner.plans.store): one exclusive write under the plans folder's lock, after
a last check; and two real runs at their SAVE prompts for the same time save one plan."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from pathlib import Path

import pytest
from calendar_plans import DAY, results_sent, run, write_class_vdir
from conftest import read_summary, run_dirs
from live_model import (
    FUTURE,
    GOOD_PLAN,
    REQUEST,
    plain,
    plan_files,
    proposal,
    spawn_cli,
    write_config,
)
from live_model import explanation as explained
from plan_files import plan_bytes, review_plan
from stub_server import Reply, StubServer, text_reply, tool_call, tool_call_reply
from terminal import finish

from planner.conversation.events import Prompt
from planner.plans import store
from planner.plans.plan import InvalidArguments
from planner.records.run_record import now_iso

SAVE_PROMPT = "Type SAVE to save this plan; anything else cancels: "
ANSWER_PROMPT = "Your answer (Enter to finish): "
AT_SEVEN = {**GOOD_PLAN, "start": "19:00"}
OVERLAP = f"start: overlaps the saved plan at 19:00–19:20 on {FUTURE}"
NOT_SAVED = f"The plan was not saved: {OVERLAP} (another run saved a plan meanwhile)."
SORRY = "That time was taken meanwhile; shall I find another?"


def test_a_check_that_fails_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "plans" / "run.json"

    def taken() -> None:
        raise InvalidArguments("start", "overlaps the saved plan")

    with pytest.raises(InvalidArguments):
        store.save_plan(target, b"{}\n", taken)
    assert list((tmp_path / "plans").iterdir()) == []


def test_a_saved_plan_is_never_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "plans" / "run.json"
    store.save_plan(target, b"first\n")
    with pytest.raises(FileExistsError):
        store.save_plan(target, b"second\n")
    assert target.read_bytes() == b"first\n"
    assert target.stat().st_mode & 0o777 == 0o600
    assert [path.name for path in target.parent.iterdir()] == ["run.json"]  # no lock file


def test_the_check_and_the_write_wait_for_another_runs_lock(tmp_path: Path) -> None:
    folder = tmp_path / "plans"
    folder.mkdir()
    target = folder / "run.json"
    checked = threading.Event()
    saver = threading.Thread(target=store.save_plan, args=(target, b"{}\n", checked.set))
    with store.locked(folder):
        saver.start()
        time.sleep(0.1)
        # Another save holds the folder: this one has neither checked nor written yet.
        assert not checked.is_set() and not target.exists()
    saver.join(timeout=5)
    assert checked.is_set() and target.read_bytes() == b"{}\n"


@pytest.mark.slow
@pytest.mark.terminal
def test_two_runs_at_their_save_prompts_save_one_plan_in_the_slot(
        server: StubServer, home: Path) -> None:
    # Both proposals reach their SAVE prompt before either is saved: each was checked against a
    # week without the other. The second SAVE finds the first run's plan under the lock.
    server.add(proposal(AT_SEVEN, call_id="call_a"), proposal(AT_SEVEN, call_id="call_b"),
               explained(), Reply(body=text_reply(SORRY)))
    write_config(home, server.url, max_calls=6, max_repairs=1)
    first, _ = spawn_cli("--request", REQUEST)
    first.expect_exact(SAVE_PROMPT)
    second, seen = spawn_cli("--request", REQUEST)
    second.expect_exact(SAVE_PROMPT)
    first.sendline("SAVE")
    assert finish(first) == 0
    second.sendline("SAVE")
    second.expect_exact(ANSWER_PROMPT)
    second.sendline("")
    assert finish(second) == 0

    saved, refused = sorted(run_dirs(home))  # run IDs begin with the time they started
    # Exactly one plan in the slot: the first run's.
    assert plan_files(home) == [home / "plans" / f"{saved.name}.json"]
    assert read_summary(saved)["tool_result"]["status"] == "saved"
    summary = read_summary(refused)
    assert summary["status"] == "no_tool"
    assert summary["tool_result"] == {"status": "failed", "error": OVERLAP}
    assert [step["kind"] for step in summary["steps"]] == ["proposal", "decision", "rejected",
                                                           "question"]
    # The second person sees why on one line, and it is the run's last word.
    lines = [line.strip() for line in plain("".join(seen)).splitlines() if line.strip()]
    # On a terminal stderr's lines about the run itself (its cost, its records) follow stdout.
    words = lines[:next(n for n, line in enumerate(lines) if line.startswith("Records: ")) - 1]
    assert words.count(NOT_SAVED) == 2  # when it happened, and again as the run's last word
    assert words[-1] == NOT_SAVED, lines
    # The model's next request holds the rejection, for the refused call.
    repair = [request.body for request in server.chat_requests()][-1]
    message = repair["messages"][-1]
    assert (message["role"], message["tool_call_id"]) == ("tool", "call_b")
    assert json.loads(message["content"]) == {"status": "rejected", "error": OVERLAP}
    assert repair["tool_choice"] == "auto"


def test_a_series_that_would_pass_daily_minutes_after_another_save_is_not_written(
        home: Path, server: StubServer) -> None:
    # Checked and shown while the day held no plan; at SAVE another run has just saved 20 minutes
    # on DAY, so the series' 30 minutes there would make 50 of the 40 allowed.
    write_class_vdir(home / "classes")
    dates = [(DAY - dt.timedelta(days=1)).isoformat(), DAY.isoformat()]
    series = {"title": "RAG", "note_ids": ["N1"], "dates": dates, "minutes": 30, "start": "20:00"}
    other = home / "plans" / "other.json"

    def another_run_saves(prompt: Prompt) -> str:
        meanwhile = review_plan("Other", ("N2",), DAY.isoformat(), 20, "21:00")
        store.save_plan(other, plan_bytes("other", meanwhile, created_at=now_iso()))
        return "SAVE\n"

    outcome, person = run(home, server,
                          tool_call_reply(calls=[tool_call(series, name="save_review_series")]),
                          text_reply("Shall I move the second session?"),
                          answers=(another_run_saves,), daily_minutes=40)
    assert (outcome.status, outcome.exit_code) == ("no_tool", 0)
    assert plan_files(home) == [other]  # nothing of this run's on disk
    (rejected,) = results_sent(server)
    reason = (f"session 2 ({DAY.isoformat()}): would make {DAY.isoformat()} hold 50 planned "
              "minutes; daily_minutes is 40")
    assert rejected["status"] == "rejected" and reason in rejected["error"]
    notices = [event.text for event in person.events if type(event).__name__ == "Notice"]
    said = [text for text in notices if text.startswith("The plan was not saved: sessions: 1 of 2")]
    assert len(said) == 2 and notices[-1] == said[0]  # when it happened, and as the last word
