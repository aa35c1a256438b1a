"""A notes folder in a live run (README "Your notes"): the model looks notes up, then a plan is
saved.

The real `planner --request` in a pseudo-terminal, the real SDK against the local server: the
model calls search_notes and get_note in one reply, the program answers each call ID in order,
then the model proposes folder note IDs and the person types SAVE.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import env_with, plan_body, read_summary, run_dirs, run_planner
from live_model import FUTURE, KEY, one_line, spawn_cli, write_config
from note_files import make_folder, write_note
from stub_server import Reply, StubServer, completion, text_reply, tool_call, tool_call_reply
from terminal import finish

PLAN = {"title": "Retrieval week", "note_ids": ["rag/basics", "G3"], "date": FUTURE,
        "minutes": 25}




def lookups_reply() -> dict:
    """One reply with two read-only calls: search_notes, then get_note."""
    calls = [
        {**tool_call({"query": "basics"}, call_id="call_search"),
         "function": {"name": "search_notes", "arguments": json.dumps({"query": "basics"})}},
        {**tool_call({"id": "rag/basics"}, call_id="call_get"),
         "function": {"name": "get_note", "arguments": json.dumps({"id": "rag/basics"})}},
    ]
    return completion({"role": "assistant", "content": None, "tool_calls": calls}, "tool_calls")


def notes_folder(home: Path) -> None:
    folder = home / "notes"
    make_folder(folder, 40)
    write_note(folder, "rag/basics.md", "# RAG basics\n\n检索增强生成：先检索，再生成。\n")


@pytest.mark.slow
@pytest.mark.terminal
def test_lookups_then_a_saved_plan_with_folder_ids(server: StubServer, home: Path) -> None:
    notes_folder(home)
    server.add(Reply(body=lookups_reply()), Reply(body=tool_call_reply(PLAN, call_id="call_p")),
               Reply(body=text_reply("Saved.")))
    write_config(home, server.url, max_calls=6, max_repairs=1)
    child, seen = spawn_cli("--request", "review my RAG notes next week for 25 minutes")
    child.expect_exact("Type SAVE to save this plan")
    screen = one_line("".join(seen))
    # The confirmation shows each note's title and, for a folder, its relative path.
    assert "rag/basics RAG basics (rag/basics.md)" in screen
    assert "G3 Citation 3 (topic3/note-0003.md)" in screen
    assert "Looked up for the model: search_notes" in screen
    child.sendline("SAVE")
    assert finish(child) == 0

    first, second, third = (request.body for request in server.chat_requests())
    names = [tool["function"]["name"] for tool in first["tools"]]
    assert names == ["save_review_plan", "save_review_series", "save_study_plan", "search_notes",
                     "get_note", "free_slots"]
    # A folder's notes are not listed and note_ids has no enum; the program checks the IDs.
    assert "note-0001" not in first["messages"][0]["content"]
    assert "enum" not in first["tools"][0]["function"]["parameters"]["properties"]["note_ids"][
        "items"]
    assistant, found, got = second["messages"][2:]
    assert [call["id"] for call in assistant["tool_calls"]] == ["call_search", "call_get"]
    assert (found["tool_call_id"], got["tool_call_id"]) == ("call_search", "call_get")
    results = json.loads(found["content"])
    assert "rag/basics" in [row["id"] for row in results["results"]]
    assert len(found["content"].encode()) <= 4096 and len(got["content"].encode()) <= 4096
    assert json.loads(got["content"])["title"] == "RAG basics"
    assert second["tool_choice"] == "auto" and third["tool_choice"] == "none"

    (folder,) = run_dirs(home)
    relative = f"plans/{folder.name}.json"
    # No start was proposed: the first free one, 19:00 on an empty day (README "Your week").
    assert plan_body(home / relative) == {"simulated": False, "plan": {**PLAN, "start": "19:00"}}
    saved = json.loads((home / relative).read_text())
    assert saved["notes"] == [{"id": "rag/basics", "title": "RAG basics"},
                              {"id": "G3", "title": "Citation 3"}]
    steps = read_summary(folder)["steps"]
    assert [step["kind"] for step in steps] == [
        "lookup", "lookup", "proposal", "decision", "explanation"]
    assert [step["call_id"] for step in steps[:2]] == ["call_search", "call_get"]


@pytest.mark.slow
@pytest.mark.terminal
def test_an_id_not_in_the_folder_is_rejected_and_repaired(server: StubServer,
                                                         home: Path) -> None:
    notes_folder(home)
    wrong = {**PLAN, "note_ids": ["rag/missing"]}
    server.add(Reply(body=tool_call_reply(wrong, call_id="call_a")),
               Reply(body=tool_call_reply(PLAN, call_id="call_b")), Reply(body=text_reply("ok")))
    write_config(home, server.url, max_calls=6, max_repairs=1)
    child, seen = spawn_cli("--request", "review my RAG notes")
    child.expect_exact("Type SAVE to save this plan")
    child.sendline("no")
    child.expect_exact("What should change? (Enter to finish): ")
    child.sendline("")
    assert finish(child) == 0
    rejected = json.loads(server.chat_requests()[1].body["messages"][-1]["content"])
    assert rejected["status"] == "rejected"
    assert "is not an existing note; use search_notes" in rejected["error"]
    assert not (home / "plans").exists()


@pytest.mark.parametrize("count", [30, 300])
def test_the_first_request_does_not_grow_with_the_notes(home: Path, count: int) -> None:
    make_folder(home / "notes", count)
    result = run_planner("--dry-run", new_session=False)
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert "nothing was written but the notes index (.planner/)" in result.stderr
    assert sorted(path.name for path in home.iterdir()) == [".planner", "notes"]
    # Bounded whatever the notes: the three save tools' schemas (free_slots and start
    # included) and the system message, about 12.5 KiB.
    assert len(result.stdout.encode()) <= 13 * 1024
    assert f"The person has {count:,} notes" in body["messages"][0]["content"]


def test_the_demo_uses_the_samples_whatever_the_home_holds(home: Path) -> None:
    notes_folder(home)
    result = run_planner("--demo")
    assert result.returncode == 0, result.stderr
    assert "built-in sample notes" in result.stderr
    request = json.loads((run_dirs(home)[0] / "01-request.json").read_text())
    assert [tool["function"]["name"] for tool in request["tools"]] == [
        "save_review_plan", "save_review_series", "save_study_plan"]
    assert "N1: RAG 的基本流程" in request["messages"][0]["content"]


@pytest.mark.slow
@pytest.mark.parametrize(("goal", "most"), [(False, 8 * 1024), (True, 10 * 1024)])
def test_with_10000_notes_the_first_request_as_sent_stays_small(
        home: Path, goal: bool, most: int) -> None:
    """At most 8 KiB without a goal and 10 KiB for one, as the server received it: the tool
    definitions say each rule once (README "Your notes")."""
    folder = home / "notes"
    folder.mkdir()
    for number in range(10_000):
        (folder / f"n{number}.md").write_bytes(b"# Note %d\n\nbody\n" % number)
    day = (dt.date.today() + dt.timedelta(days=40)).isoformat()
    with StubServer() as server:
        server.add(Reply(body=text_reply("Which notes?")))
        # DeepSeek's preset (its extra_body sent too) at the local server.
        write_config(home, server.url, provider="deepseek", max_tokens=4096,
                     goals=[{"name": "JLPT N3", "date": day, "notes": ["n1", "n2"]}])
        result = run_planner("-r", "plan my reviews", *(["--goal", "JLPT"] if goal else []),
                             env=env_with(DEEPSEEK_API_KEY=KEY), timeout=120)
        assert result.returncode == 0, result.stderr
        (received,) = server.chat_requests()
    body = json.loads(received.raw)
    assert len(body["tools"]) == (8 if goal else 6)  # goal_notes and suggest_study_plan
    assert "The person has 10,000 notes" in body["messages"][0]["content"]
    assert body["thinking"] == {"type": "disabled"}
    assert len(received.raw) <= most
