"""`planner --continue [RUN] -r TEXT` (README "Going on with a conversation"): a new run that goes
on with an earlier one.

The earlier runs are made by the real flow with a scripted model (chat or Responses); the new
ones by the installed `planner`: --dry-run shows the request it would send, a live run in a
pseudo-terminal talks to tests/stub_server.py. Each case checks the exit code, the line shown,
the request (roles, order, TEXT last) and that the earlier run's records are only read.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import plan_body, read_summary, run_dirs, run_planner, snapshot, today
from live_model import explanation, proposal, spawn_cli, write_config
from people import ScriptedPerson
from provider_replies import CALL_ITEM, RESPONSES_EXPLANATION, RESPONSES_PROPOSAL
from scripted_conversation import (
    BAD,
    EXPLAINED,
    PLAN,
    QUESTION,
    earlier,
    one_error,
    propose,
    roles,
    say,
)
from stub_server import StubServer
from terminal import finish

from planner.base.config import parse_config
from planner.conversation.continuing import NOT_RUN, CannotContinue, earlier_conversation
from planner.conversation.flow import run_flow
from planner.model.client import ScriptedClient
from planner.model.wire import RESPONSES
from planner.notes.catalog import SAMPLE_NOTES

TEXT = "Make it 30 minutes, please."


def request_of(home: Path, run_id: str, number: int) -> dict:
    return json.loads((home / "tool-records" / run_id / f"{number:02d}-request.json").read_text())


def dry_run(home: Path, *args: str):
    """`planner --dry-run --continue ...` with no terminal; (exit code, body or None, stderr)."""
    result = run_planner("--home", str(home), "-n", *args)
    body = json.loads(result.stdout) if result.returncode == 0 else None
    return result.returncode, body, result.stderr


# --- what the model is sent -------------------------------------------------------------------


@pytest.mark.slow  # planner in a subprocess
def test_a_saved_run_goes_on_with_its_result_its_explanation_then_text(home: Path) -> None:
    run_id = earlier(home, [propose(), say(EXPLAINED)], ["SAVE\n"])
    before = snapshot(home)
    code, body, stderr = dry_run(home, "-C", "-r", TEXT)
    assert code == 0, stderr
    assert f"the first request continuing run {run_id}" in stderr
    assert roles(body) == ["system", "user", "assistant", "tool", "assistant", "user"]
    last_request = request_of(home, run_id, 2)
    # The earlier last request's messages after its system message, as they were sent ...
    assert body["messages"][1:4] == last_request["messages"][1:]
    saved = json.loads(body["messages"][3]["content"])
    assert saved == {"status": "saved", "path": f"plans/{run_id}.json"}  # the model sees it
    # ... then the reply to it, then the person's next message.
    assert body["messages"][4] == {"role": "assistant", "content": EXPLAINED}
    assert body["messages"][5] == {"role": "user", "content": TEXT}
    # Today's system message: "tomorrow" means tomorrow from now, not from the earlier run.
    assert today().isoformat() in body["messages"][0]["content"]
    assert body["tool_choice"] == "auto"
    assert snapshot(home) == before  # only read: every earlier file byte-identical


def test_a_question_run_goes_on_after_the_question(home: Path) -> None:
    run_id = earlier(home, [say(QUESTION)], interactive=False)
    assert earlier_conversation(home, run_id) == [
        {"role": "user", "content": "Plan it"}, {"role": "assistant", "content": QUESTION}]


def test_calls_left_unanswered_are_answered_with_what_happened(home: Path) -> None:
    # Stopped on a rejected proposal with no repair left: the model hears it was rejected.
    rejected = earlier(home, [propose(BAD, "c1")], max_repairs=0, interactive=False)
    conversation = earlier_conversation(home, rejected)
    assert [message["role"] for message in conversation] == ["user", "assistant", "tool"]
    assert conversation[2]["tool_call_id"] == "c1"
    assert json.loads(conversation[2]["content"]) == {
        "status": "rejected", "error": 'minutes: must be an integer, got a string "20"'}
    # Cancelled on the last call, the change typed, more calls refused: the change is kept.
    cancelled = earlier(home, [propose(PLAN, "c9")], ["no\n", "30 minutes\n", "n\n"],
                        max_calls=1)
    assert json.loads(earlier_conversation(home, cancelled)[-1]["content"]) == {
        "status": "cancelled", "feedback": "30 minutes"}


def test_a_call_the_earlier_run_never_ran_is_answered_not_run(home: Path) -> None:
    run_id = earlier(home, [propose(PLAN, "c1")], interactive=False, max_calls=1)
    assert json.loads(earlier_conversation(home, run_id)[-1]["content"]) == {
        "status": "cancelled"}  # no terminal: cancelled, and no call left to explain it
    folder = home / "tool-records" / run_id
    summary = read_summary(folder)
    summary["steps"] = []  # as if it stopped before recording the proposal
    (folder / "summary.json").write_text(json.dumps(summary))
    assert json.loads(earlier_conversation(home, run_id)[-1]["content"]) == NOT_RUN


@pytest.mark.slow  # planner in a subprocess
def test_a_responses_run_continues_over_chat(home: Path) -> None:
    client = ScriptedClient([RESPONSES_PROPOSAL, RESPONSES_EXPLANATION], wire=RESPONSES)
    client.simulated = False
    run_id = earlier(home, [], ["SAVE\n"], client=client, config=parse_config({"api": "responses"}))
    assert "input" in request_of(home, run_id, 2)
    code, body, stderr = dry_run(home, "-C", run_id, "-r", TEXT)  # config: chat
    assert code == 0, stderr
    assert roles(body) == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert all("output_items" not in message for message in body["messages"])
    call = body["messages"][2]["tool_calls"][0]
    assert call["id"] == body["messages"][3]["tool_call_id"] == CALL_ITEM["call_id"]
    assert body["messages"][-1] == {"role": "user", "content": TEXT}


# --- which run: as `planner show` names them ---------------------------------------------------


@pytest.mark.slow  # planner in a subprocess
def test_the_run_is_named_as_show_names_it(home: Path) -> None:
    older = earlier(home, [say(QUESTION)], request="older request", interactive=False)
    newer = earlier(home, [say(QUESTION)], request="newer request", interactive=False)
    assert older < newer
    cases = {("-C",): "newer", ("-C", "last"): "newer", ("-C", "-1"): "newer",
             ("-C", "-2"): "older", ("--continue", older[:-3]): "older",
             ("--continue=-2",): "older", ("-C", newer): "newer"}
    for args, which in cases.items():
        code, body, stderr = dry_run(home, *args, "-r", TEXT)
        assert code == 0, (args, stderr)
        assert body["messages"][1]["content"] == f"{which} request", args
    code, body, stderr = dry_run(home, "-r", TEXT, "-C")  # -C last, without a RUN
    assert code == 0 and body["messages"][1]["content"] == "newer request"


@pytest.mark.slow  # planner in a subprocess
def test_a_missing_run_is_one_line_exit_2(home: Path) -> None:
    code, _, stderr = dry_run(home, "-C", "-r", TEXT)
    assert code == 2 and one_error(stderr).startswith("no runs in ")
    earlier(home, [say(QUESTION)], interactive=False)
    before = snapshot(home)
    code, _, stderr = dry_run(home, "-C", "20990101", "-r", TEXT)
    assert code == 2 and one_error(stderr).startswith("no run '20990101' in ")
    code, _, stderr = dry_run(home, "-C", "-3", "-r", TEXT)
    assert code == 2 and "there are only 1 run(s)" in one_error(stderr)
    assert snapshot(home) == before


DAMAGE = {
    "not-json": ("02-request.json", b"{not json", "02-request.json is not valid JSON (Expecting "
                 "property name enclosed in double quotes: column 2)"),
    "missing": ("02-request.json", None, "its last request (02-request.json) is missing"),
    "not-a-request": ("02-request.json", b'{"messages": [{"role": "hacker"}]}',
                      "02-request.json is not a request planner wrote"),
    "duplicate-keys": ("02-request.json", b'{"messages": [], "messages": []}',
                       "02-request.json repeats the key \"messages\""),
    "summary": ("summary.json", b"[1, 2", "summary.json is not JSON"),
    "a-fifo": ("02-request.json", "fifo", "02-request.json is not a regular file (a FIFO)"),
}


@pytest.mark.slow  # planner in a subprocess
@pytest.mark.parametrize(("name", "content", "said"), DAMAGE.values(), ids=DAMAGE.keys())
def test_a_damaged_or_missing_earlier_request_is_one_line_exit_2_nothing_written(
    home: Path, name: str, content: object, said: str
) -> None:
    import os

    run_id = earlier(home, [propose(), say(EXPLAINED)], ["SAVE\n"])
    path = home / "tool-records" / run_id / name
    path.unlink()
    if content == "fifo":
        os.mkfifo(path)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    before = snapshot(home)
    # Live, with a key: refused before anything is asked, sent or written.
    result = run_planner("--home", str(home), "-C", "-r", TEXT,
                         env={**os.environ, "DEEPSEEK_API_KEY": "sk-test"})
    assert result.returncode == 2
    error = one_error(result.stderr)
    assert error.startswith(f"run {run_id} cannot be continued: ") and error.endswith(said), error
    assert snapshot(home) == before and len(run_dirs(home)) == 1


def test_a_json_error_in_the_request_is_named_strictly(home: Path) -> None:
    run_id = earlier(home, [say(QUESTION)], interactive=False)
    (home / "tool-records" / run_id / "01-request.json").write_text('{"messages": NaN}')
    with pytest.raises(CannotContinue, match="01-request.json contains NaN"):
        earlier_conversation(home, run_id)


@pytest.mark.slow  # planner in a subprocess
def test_demo_and_a_missing_text_are_refused(home: Path) -> None:
    earlier(home, [say(QUESTION)], interactive=False)
    result = run_planner("--home", str(home), "--demo", "-C")
    assert result.returncode == 2
    assert one_error(result.stderr).startswith("--continue cannot be used with --demo")
    result = run_planner("--home", str(home), "-C")
    assert result.returncode == 2
    assert one_error(result.stderr) == ("--continue needs your next message: planner "
                                        "--continue [RUN] -r TEXT")


# --- live, in a terminal -------------------------------------------------------------------------


@pytest.mark.slow  # a live run in a pseudo-terminal
@pytest.mark.terminal
def test_continue_a_saved_run_live_and_save_the_change(server: StubServer, home: Path) -> None:
    saved = {**PLAN, "date": (today() + dt.timedelta(days=3)).isoformat()}
    run_id = earlier(home, [propose(saved), say(EXPLAINED)], ["SAVE\n"])
    first_plan = (home / "plans" / f"{run_id}.json").read_bytes()
    records_before = snapshot(home / "tool-records" / run_id)
    changed = {**saved, "minutes": 30}
    server.add(proposal(changed, call_id="call_new"), explanation())
    write_config(home, server.url, max_calls=6, max_repairs=1)
    child, seen = spawn_cli("--home", str(home), "--continue", "-r", TEXT)
    child.expect_exact("Type SAVE to save this plan; anything else cancels: ")
    child.sendline("SAVE")
    assert finish(child) == 0
    shown = "".join(seen)
    assert "Minutes 20 → 30" not in shown  # the first proposal of this run: nothing to compare

    first = server.chat_requests()[0].body
    assert roles(first) == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert json.loads(first["messages"][3]["content"])["status"] == "saved"
    assert first["messages"][-1] == {"role": "user", "content": TEXT}

    new_id = next(folder.name for folder in run_dirs(home) if folder.name != run_id)
    summary = read_summary(home / "tool-records" / new_id)
    assert (summary["continues"], summary["request"], summary["status"]) == (
        run_id, TEXT, "complete")
    # Placed after the earlier run's 20-minute plan at 19:00 on the same day (README "Your week").
    assert plan_body(home / "plans" / f"{new_id}.json")["plan"] == {**changed, "start": "19:20"}
    # The earlier run is only read: its plan and records as they were.
    assert (home / "plans" / f"{run_id}.json").read_bytes() == first_plan
    assert snapshot(home / "tool-records" / run_id) == records_before

    show = run_planner("--home", str(home), "show", new_id)
    assert show.returncode == 0 and f"Continues  run {run_id}" in show.stdout
    shown_json = json.loads(run_planner("--home", str(home), "show", new_id, "--json").stdout)
    assert shown_json["summary"]["continues"] == run_id
    older = json.loads(run_planner("--home", str(home), "show", run_id, "--json").stdout)
    assert "continues" not in older["summary"]  # old records without it still read
    shutil.rmtree(home / "tool-records" / new_id)  # nothing else depends on it


@pytest.mark.slow  # planner in a subprocess
@pytest.mark.parametrize("failure", ["429", "timeout"])
def test_an_answer_typed_again_after_a_failed_call_is_sent_once(server: StubServer, home: Path,
                                                               failure: str) -> None:
    # The person answered; the call carrying the answer failed (a 429, or no reply in time).
    from live_model import KEY, KEY_ENV
    from stub_server import Reply, error_body, text_reply

    from planner.model.client import LiveClient

    failed = Reply(429, error_body("Rate limit reached", "rate_limit_error")) \
        if failure == "429" else Reply(body=text_reply("Too late."), delay=3)
    server.add(Reply(body=text_reply(QUESTION)), failed, Reply(body=text_reply("Friday it is.")))
    config = write_config(home, server.url, max_calls=6, max_repairs=1, timeout_seconds=1)
    outcome = run_flow("Plan it", client=LiveClient(config, KEY),
                       person=ScriptedPerson(["Friday please\n"]), home=home, config=config,
                       notes=SAMPLE_NOTES, mode="live", today=today())
    assert outcome.exit_code == 1 and outcome.call_failed
    # Typed again as --continue -r TEXT: the next request carries it once, as its last message.
    again = run_planner("--home", str(home), "--continue", "-r", " Friday please ",
                        env={**os.environ, KEY_ENV: KEY})
    assert again.returncode == 0, again.stderr
    sent = server.chat_requests()[-1].body
    contents = [message.get("content") for message in sent["messages"]]
    assert sum("Friday please" in str(content) for content in contents) == 1, contents
    assert roles(sent) == ["system", "user", "assistant", "user"]
    assert contents[-1] == " Friday please " and contents[-2] == QUESTION
