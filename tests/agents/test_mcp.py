"""planner mcp driven by the mcp package's own stdio client (README "planner for other agents"):
every lookup answers byte for byte as in a run, hostile arguments get the run's rejections, a
proposal that passes is staged in pending/ and nothing else is written, a client that goes away
mid-call leaves nothing behind; `planner pending ID` saves a staged plan only on SAVE."""

from __future__ import annotations

import datetime as _dt
import json
import os
import subprocess
from pathlib import Path

import anyio
import pexpect
import pytest
from conftest import PLANNER, read_summary, run_dirs, run_planner, snapshot, today
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import Implementation
from plan_files import day
from terminal import spawn

from planner.agents import staged
from planner.memory import log as review_log

# Each test starts planner mcp (the mcp package's imports take seconds on a busy machine):
# make check leaves them to make test.
pytestmark = pytest.mark.slow
GOAL_DAY = today() + _dt.timedelta(days=20)


def make_home(home: Path) -> None:
    """Five notes in a notes folder, two reviewed, evening study hours, a busy calendar, a goal."""
    (home / "notes").mkdir()
    for number in range(1, 6):
        (home / "notes" / f"n{number}.md").write_text(
            f"---\nid: N{number}\n---\n# Note {number}\ngrammar point {number}\n",
            encoding="utf-8")
    review_log.record_reviews(home, ["N1", "N2"], "good",
                              reviewed_at=_dt.datetime.now(_dt.UTC) - _dt.timedelta(days=3))
    (home / "config.json").write_text(json.dumps({
        "study_hours": {"daily": ["19:00-22:00"]}, "daily_minutes": 90,
        "busy_calendars": [{"ics": "busy.ics"}],
        "goals": [{"name": "JLPT N2", "date": GOAL_DAY.isoformat(), "notes": ["N1", "N2", "N3"]}],
    }), encoding="utf-8")
    write_busy(home)


def write_busy(home: Path, *events: tuple[str, str, str]) -> None:
    """busy.ics with `events` (date, start HH:MM, end HH:MM), titled 'Secret dentist'."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"]
    for number, (date, start, end) in enumerate(events):
        compact = date.replace("-", "")
        lines += ["BEGIN:VEVENT", f"UID:busy-{number}@test", "DTSTAMP:20260101T000000Z",
                  f"DTSTART:{compact}T{start.replace(':', '')}00",
                  f"DTEND:{compact}T{end.replace(':', '')}00", "SUMMARY:Secret dentist",
                  "END:VEVENT"]
    lines.append("END:VCALENDAR")
    (home / "busy.ics").write_text("\r\n".join(lines) + "\r\n", encoding="utf-8")


def files(home: Path) -> dict[str, tuple]:
    """Every file of the home but the notes index (a cache any command may update)."""
    return {path: entry for path, entry in snapshot(home).items()
            if f"{os.sep}.planner" not in path}


def session_calls(home: Path, calls: list[tuple[str, dict]]) -> tuple[list[str], list]:
    """Start `planner mcp` in `home` with the mcp client, initialise, list the tools, make each
    call; the tool names and each result."""
    async def main() -> tuple[list[str], list]:
        parameters = StdioServerParameters(command=PLANNER, args=["mcp"], cwd=str(home),
                                           env=dict(os.environ))
        async with stdio_client(parameters) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(
                    name="test-agent", version="9.1")) as session:
                await session.initialize()
                listed = await session.list_tools()
                results = [await session.call_tool(name, arguments)
                           for name, arguments in calls]
                return [tool.name for tool in listed.tools], results

    return anyio.run(main)


def in_a_run(home: Path, name: str, arguments: dict) -> str:
    """The same lookup as a live run for the goal offers it to the model: its tool message."""
    from planner.agents.world import World
    from planner.base.config import load_config
    from planner.conversation.protocol import registry_for
    from planner.conversation.tools import MAX_TURN_RESULT_BYTES
    from planner.conversation.turn_values import bounded_result
    from planner.model.turns import tool_message
    from planner.notes.catalog import load_catalog

    config = load_config(home / "config.json", home)._replace(file=str(home / "config.json"))
    catalog = load_catalog(home, config.notes_dir, config.file)
    world = World(home, config, catalog, today())
    goal = world.goal("JLPT")
    registry = registry_for(catalog, today(), world.memory, world.timetable(goal))
    tool = registry.get(name)
    given = {key: value for key, value in arguments.items() if key != "goal"}
    result = bounded_result(tool.run(tool.check(json.dumps(given))), MAX_TURN_RESULT_BYTES)
    return tool_message("", result)["content"]


LOOKUPS = [
    ("search_notes", {"query": "grammar", "limit": 3}),
    ("get_note", {"id": "N2"}),
    ("due_notes", {"days": 3, "limit": 5}),
    ("free_slots", {"from": day(1), "days": 3, "minutes": 30}),
    ("goal_notes", {"goal": "jlpt", "offset": 0, "limit": 5}),
    ("suggest_study_plan", {"goal": "jlpt", "offset": 0, "limit": 5}),
]


def test_every_lookup_answers_through_mcp_as_in_a_run(home: Path) -> None:
    make_home(home)
    before = files(home)
    names, results = session_calls(home, [*LOOKUPS, ("goals", {})])
    assert names == ["search_notes", "get_note", "due_notes", "free_slots", "goal_notes",
                     "suggest_study_plan", "goals", "propose_study_plan",
                     "propose_review_plan"]
    for (name, arguments), result in zip(LOOKUPS, results[:-1], strict=True):
        assert not result.is_error, (name, result.content)
        # Byte for byte the tool message a run sends the model; structured output alike.
        assert result.content[0].text == in_a_run(home, name, arguments)
        assert result.structured_content == json.loads(result.content[0].text)
    goals = run_planner("goals", "--json", cwd=home)
    assert results[-1].structured_content == {"goals": json.loads(goals.stdout)}
    assert files(home) == before  # read-only: nothing written


HOSTILE = [
    ("search_notes", {"query": "x", "limit": True}, "search_notes limit: must be an integer, "
                                                    "got a boolean"),
    ("search_notes", {"query": "a\u202eb"}, "search_notes query: contains a non-printable "
                                            "character U+202E"),
    ("get_note", {"id": 5}, "get_note id: must be a string, got an integer"),
    ("due_notes", {"days": 1.0, "limit": 3}, "due_notes days: must be an integer"),
    ("free_slots", {"from": day(1), "days": 43, "minutes": 30},
     "free_slots days: must be from 1 to 42, got 43"),
    ("goal_notes", {"goal": "nope", "offset": 0, "limit": 5}, "goal: names no goal ahead "
                                                               "(goals ahead: JLPT N2)"),
    ("goals", {"all": True}, "is not an allowed field"),
    ("propose_review_plan", {"title": "t", "note_ids": ["N1"], "date": day(2), "minutes": 20,
                             "extra": 1}, "extra"),
    ("propose_review_plan", {"title": "t", "note_ids": ["N9"], "date": day(2), "minutes": 20},
     "N9"),
]


def test_hostile_arguments_get_the_runs_rejections_and_nothing_is_written(home: Path) -> None:
    make_home(home)
    write_busy(home, (day(4), "19:00", "20:00"), (day(5), "19:00", "20:00"))
    # Sessions 2 and 3 both overlap busy time: both are named.
    study = {"title": "Exam", "sessions": [
        {"date": day(2), "minutes": 30, "note_ids": ["N1"]},
        {"date": day(4), "start": "19:30", "minutes": 30, "note_ids": ["N2"]},
        {"date": day(5), "start": "19:00", "minutes": 30, "note_ids": ["N3"]},
    ]}
    before = files(home)
    calls = [(name, arguments) for name, arguments, _ in HOSTILE]
    _, results = session_calls(home, [*calls, ("propose_study_plan", study),
                                      ("propose_study_plan", {**study, "goal": 7})])
    for (name, _arguments, words), result in zip(HOSTILE, results, strict=False):
        assert result.is_error
        assert result.structured_content["status"] == "rejected", name
        assert words in result.structured_content["error"], (name, result.structured_content)
    placing = results[len(HOSTILE)].structured_content["error"]
    # Every failing session named, free/busy only: never the busy event's title.
    assert "2 of 3 sessions do not fit" in placing
    assert f"session 2 ({day(4)}): overlaps busy time 19:00–20:00" in placing
    assert f"session 3 ({day(5)}): overlaps busy time 19:00–20:00" in placing
    assert "dentist" not in placing
    assert "goal: must be a string" in results[-1].structured_content["error"]
    assert files(home) == before  # nothing staged, nothing else written


@pytest.mark.terminal
def test_a_staged_plan_is_saved_only_on_save_with_its_source(home: Path) -> None:
    make_home(home)
    study = {"goal": "JLPT", "title": "Exam", "sessions": [
        {"date": day(2), "minutes": 30, "note_ids": ["N1", "N2"]},
        {"date": day(3), "start": "20:00", "minutes": 30, "note_ids": ["N3"]}]}
    _, (result,) = session_calls(home, [("propose_study_plan", study)])
    answer = result.structured_content
    assert not result.is_error and answer["status"] == "pending"
    assert answer["confirm"] == f"planner pending {answer['id']}"
    assert answer["readiness"]["goal"] == "JLPT N2" and answer["readiness"]["total"] == 3
    staged_file = home / "pending" / f"{answer['id']}.json"
    assert staged_file.exists() and not (home / "plans").exists()
    assert not (home / "tool-records").exists()
    listing = run_planner("pending", cwd=home)
    assert listing.returncode == 0
    assert f"{answer['id']} " in listing.stdout and "test-agent 9.1" in listing.stdout
    assert f"study plan Exam: 2 sessions, {day(2)} to {day(3)}" in listing.stdout
    # A unique start of the ID is enough; SAVE typed at the flushed prompt saves.
    child, seen = spawn("pending", answer["id"][:20], home=home)
    child.expect(r"Type SAVE[^\n]*: $")
    child.sendline("SAVE")
    child.expect(pexpect.EOF)
    child.close()
    shown = seen.text()
    assert child.exitstatus == 0, shown
    assert "test-agent 9.1" in shown and "Proposed study plan of 2 sessions" in shown
    assert "On " + GOAL_DAY.isoformat() in shown
    saved = sorted((home / "plans").glob("*.json"))
    assert len(saved) == 1
    plan = json.loads(saved[0].read_text(encoding="utf-8"))
    assert plan["goal"] == "JLPT N2"
    assert [session["start"] for session in plan["plan"]["sessions"]] == ["19:00", "20:00"]
    (folder,) = run_dirs(home)
    assert json.loads((folder / "source.json").read_text(encoding="utf-8"))["client"] == {
        "name": "test-agent", "version": "9.1"}
    summary = read_summary(folder)
    assert summary["tool_result"]["status"] == "saved" and summary["approved"] is True
    assert not staged_file.exists()  # applied: no longer pending


@pytest.mark.terminal
def test_typed_ahead_save_is_discarded_cancelled_stays_drop_discards(home: Path) -> None:
    make_home(home)
    review = {"title": "One", "note_ids": ["N1"], "date": day(2), "minutes": 20}
    _, (result,) = session_calls(home, [("propose_review_plan", review)])
    staged_id = result.structured_content["id"]
    child, seen = spawn("pending", staged_id, home=home)
    # SAVE typed before the plan is on screen is discarded, never read as the decision.
    child.send("SAVE\r")
    child.expect(r"Type SAVE[^\n]*: $")
    child.sendline("no")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Nothing was saved" in seen.text()
    assert not (home / "plans").exists()
    assert (home / "pending" / f"{staged_id}.json").exists()
    dropped = run_planner("pending", staged_id, "--drop", cwd=home)
    assert dropped.returncode == 0 and not (home / "pending" / f"{staged_id}.json").exists()


def test_an_edited_or_stale_or_no_longer_fitting_proposal_is_refused(home: Path) -> None:
    make_home(home)
    review = {"title": "One", "note_ids": ["N1"], "date": day(2), "start": "19:00",
              "minutes": 20}
    _, results = session_calls(home, [("propose_review_plan", review)] * 3)
    edited, old, busy = (result.structured_content["id"] for result in results)
    # Edited after staging: the digest no longer matches.
    path = home / "pending" / f"{edited}.json"
    path.write_text(path.read_text(encoding="utf-8").replace('"minutes": 20', '"minutes": 90'),
                    encoding="utf-8")
    # Staged eight days ago (a well-formed file): stale, listed so, never saved.
    path = home / "pending" / f"{old}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["staged_at"] = (_dt.datetime.now(_dt.UTC) - _dt.timedelta(days=8)).isoformat()
    data["digest"] = staged.digest(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    # A busy event arrived where the session is.
    write_busy(home, (day(2), "18:30", "19:10"))
    expected = {edited: "was changed after it was staged",
                old: "more than 7 days ago: it is never saved",
                busy: f"overlaps busy time 18:30–19:10 on {day(2)}"}
    for staged_id, words in expected.items():
        refused = run_planner("pending", staged_id, cwd=home)
        assert refused.returncode == 2, refused.stderr
        assert words in refused.stderr and "saved" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
        assert "dentist" not in refused.stderr
    assert not (home / "plans").exists() and not (home / "tool-records").exists()
    listing = run_planner("pending", cwd=home).stdout
    assert "stale" in listing and "damaged: was changed after it was staged" in listing


def test_a_client_that_disconnects_mid_call_leaves_nothing_behind(home: Path) -> None:
    make_home(home)
    before = files(home)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "gone", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "propose_review_plan", "arguments": {
                "title": "t", "note_ids": ["N1"], "date": day(2), "minutes": 20}}},
    ]
    # The call and the end of input arrive together: the client is gone before the answer.
    done = subprocess.run([PLANNER, "mcp"], cwd=home, timeout=60, capture_output=True,
                          input="".join(json.dumps(item) + "\n" for item in messages).encode())
    assert done.returncode == 0, done.stderr
    answered = [json.loads(line) for line in done.stdout.splitlines()]
    # The call is answered "connection closed", never with a staged ID.
    assert [item.get("id") for item in answered] == [1, 2] and "result" not in answered[1]
    assert files(home) == before  # no pending file, no temporary file


def test_planner_starts_without_the_mcp_package() -> None:
    found = subprocess.run([str(Path(PLANNER).with_name("python")), "-c",
                            "import sys, planner.cli.app; print('mcp' in sys.modules)"],
                           capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"


def test_hostile_staged_files_are_listed_as_damaged_and_never_saved(home: Path) -> None:
    make_home(home)
    pending = home / "pending"
    pending.mkdir()
    names = [f"20261201T00000{number}000000Z-abcdef" for number in range(5)]
    (pending / f"{names[0]}.json").symlink_to("/etc/passwd")
    (pending / f"{names[1]}.json").write_bytes(b"{" * (staged.MAX_STAGED_BYTES + 10))
    (pending / f"{names[2]}.json").write_bytes(b'{"version": 1, "version": 1}')
    # Well formed, its digest right, but its client's name holds an escape sequence and a newline.
    data = {"version": 1, "id": names[3], "kind": "review_plan",
            "staged_at": _dt.datetime.now(_dt.UTC).isoformat(),
            "client": {"name": "evil\x1b[2J\nrm -rf ~", "version": None}, "goal": None,
            "proposal": {"title": "t", "note_ids": ["N1"], "date": day(2), "minutes": 20,
                         "start": "19:00"}, "chosen": [False]}
    data["digest"] = staged.digest(data)
    (pending / f"{names[3]}.json").write_text(json.dumps(data), encoding="utf-8")
    # Its proposal breaks the tool's rules: read back by the save tool's parser, it is listed
    # as damaged, and re-checked as a model's arguments are before any SAVE.
    bad = {**data, "id": names[4], "proposal": {**data["proposal"], "minutes": 9999}}
    bad["digest"] = staged.digest(bad)
    (pending / f"{names[4]}.json").write_text(json.dumps(bad), encoding="utf-8")
    listing = run_planner("pending", cwd=home)
    assert listing.returncode == 0 and "\x1b" not in listing.stdout
    lines = listing.stdout.splitlines()
    assert len(lines) == 5 and sum("damaged" in line for line in lines) == 4
    assert f"{names[4]} damaged: minutes: must be from 1 to 120, got 9999" in listing.stdout
    assert "evil\\x1b[2J\\nrm -rf ~" in listing.stdout  # shown inert, on its own line
    for name, words in zip(names, ["cannot be read", "is longer than 65536 bytes",
                                   "is not planner's JSON", None, "minutes: must be"],
                           strict=True):
        if words is None:
            continue
        refused = run_planner("pending", name, cwd=home)
        assert refused.returncode == 2 and words in refused.stderr, refused.stderr
    assert not (home / "plans").exists() and not (home / "tool-records").exists()
