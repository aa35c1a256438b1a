"""The plan store (planner.plans.store): one exclusive write under the plans folder's lock, after
a last check; and two real runs at their SAVE prompts for the same time save one plan."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from conftest import read_summary, run_dirs
from stub_server import Reply, StubServer, text_reply
from test_live import (
    FUTURE,
    GOOD_PLAN,
    REQUEST,
    finish,
    plain,
    plan_files,
    proposal,
    spawn_cli,
    write_config,
)
from test_live import explanation as explained

from planner.plans import store
from planner.plans.plan import InvalidArguments

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
