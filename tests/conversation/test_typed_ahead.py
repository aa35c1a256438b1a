"""Nothing typed before a plan is shown can confirm it (README "A screen you can trust"), in a real
pseudo-terminal.

A pasted block whose last line is SAVE, or SAVE typed while the model is thinking, reaches the
terminal's input queue before the SAVE prompt exists. The prompt drops that queue unread, so the
plan waits for a fresh line; a fresh SAVE then saves it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import read_summary, run_dirs
from live_model import FUTURE, explanation, plan_files, proposal, wait_for
from pty_conversation import ANSWER_PROMPT, SAVE_PROMPT, start
from stub_server import Reply, StubServer, text_reply
from terminal import finish

# pseudo-terminals and a slow server
pytestmark = [pytest.mark.slow, pytest.mark.terminal]

PAUSE = 0.5  # seconds the prompt is watched for a save that must not happen


def assert_still_waiting(child, home: Path) -> None:
    """The SAVE prompt is up, nothing is saved, and the program is still waiting for a line."""
    time.sleep(PAUSE)
    assert child.isalive()
    assert plan_files(home) == []
    (folder,) = run_dirs(home)
    summary = read_summary(folder)
    assert summary["approved"] is None and summary["stage"] == "confirming"


def assert_saved_once(home: Path) -> None:
    (folder,) = run_dirs(home)
    summary = read_summary(folder)
    assert summary["approved"] is True and summary["status"] == "complete"
    assert plan_files(home) == [home / summary["target"]]


def test_a_pasted_block_ending_in_save_does_not_confirm(server: StubServer,
                                                        home: Path) -> None:
    child, _ = start(server, home, Reply(body=text_reply("Which day?")), proposal(),
                     explanation())
    child.expect_exact(ANSWER_PROMPT)
    child.send(f"On {FUTURE}, please.\nSAVE\n")  # one paste: the answer, then a SAVE
    child.expect_exact(SAVE_PROMPT)
    assert_still_waiting(child, home)
    # Only the first line was the answer; the SAVE after it was never read by anything.
    answer = server.chat_requests()[1].body["messages"][-1]
    assert answer == {"role": "user", "content": f"On {FUTURE}, please."}
    child.sendline("SAVE")
    assert finish(child) == 0
    assert_saved_once(home)


def test_save_typed_while_the_model_thinks_does_not_confirm(server: StubServer,
                                                            home: Path) -> None:
    slow = proposal()
    slow.delay = 1.5
    child, _ = start(server, home, slow, explanation())
    wait_for(lambda: len(server.chat_requests()) == 1)
    child.sendline("SAVE")  # typed ahead, while the waiting line shows
    child.expect_exact(SAVE_PROMPT)
    assert_still_waiting(child, home)
    child.sendline("SAVE")
    assert finish(child) == 0
    assert_saved_once(home)


def test_save_pasted_after_a_near_miss_is_not_read_by_the_second_prompt(
        server: StubServer, home: Path) -> None:
    child, _ = start(server, home, proposal(), explanation())
    child.expect_exact(SAVE_PROMPT)
    child.send("save\nSAVE\n")  # the SAVE lands before the near miss is even named
    child.expect_exact('You typed "save"; only SAVE in capitals saves.')
    child.expect_exact(SAVE_PROMPT)
    assert_still_waiting(child, home)
    child.sendline("SAVE")
    assert finish(child) == 0
    assert_saved_once(home)
    (folder,) = run_dirs(home)
    decision = [step for step in read_summary(folder)["steps"] if step["kind"] == "decision"]
    assert [step["near_misses"] for step in decision] == [["save"]]
