"""The typed run record (records.py): one writer, one reader, version 1 read as 2, damage a value.

And what reads it back says the same thing: `planner runs`, `show` and `costs` name one run by
one word, and a live run's cost line comes from the run's own tally.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
from conftest import read_summary, run_dirs
from people import ScriptedPerson
from run_records import call, deepseek_usage, summary, tally_calls, write_run
from stub_server import text_reply, tool_call_reply, usage
from typer.testing import CliRunner

from planner.base import storage
from planner.base.config import Config
from planner.cli import run as run_modes
from planner.cli.app import app
from planner.conversation.events import Outcome
from planner.conversation.flow import run_flow
from planner.model import costs
from planner.model.client import ScriptedClient
from planner.notes.catalog import SAMPLE_NOTES
from planner.records.summary import (
    CallEntry,
    DamagedRun,
    PlanRecord,
    RunSummary,
    SessionRecord,
    Step,
    ToolResult,
    from_json,
    to_json,
)

RUN_ID = "20261101T000000000000Z-abc123"
PLAN = PlanRecord("RAG基础复习", ("N1", "N2"), "2026-12-05", 20)
EVERY_STEP = (
    Step(1, "lookup", "c1", tool="search_notes", arguments={"query": "RAG"},
         found="2 of 5 notes found"),
    Step(2, "rejected", "c2", tool="save_review_plan", error="minutes: must be an integer",
         repair=1),
    Step(3, "question", text="Which day?"),
    Step(3, "answer", text="Friday"),
    Step(4, "proposal", "c4", PLAN),
    Step(4, "decision", approved=False, result=ToolResult("cancelled"), near_misses=("save",)),
    Step(4, "feedback", text="make it 30 minutes"),
    Step(5, "proposal", "c5", PLAN),
    Step(5, "decision", approved=True, result=ToolResult("saved", f"plans/{RUN_ID}.json"),
         near_misses=()),
    Step(6, "refused", "c6", tool="save_review_plan", error="a plan was already saved"),
    Step(6, "explanation", text="计划已保存。"),
)
FULL = RunSummary(
    RUN_ID, "complete", mode="live", simulated=False, stage="done", request="复习 N1 和 N2",
    model="deepseek-v4-flash", base_url="https://api.deepseek.com", approved=True, plan=PLAN,
    target=f"plans/{RUN_ID}.json", tool_result=ToolResult("saved", f"plans/{RUN_ID}.json"),
    calls=(CallEntry("01-request.json", "01-response.json", "2026-11-01T09:00:00.000+08:00", 812,
                     deepseek_usage(1000, 200, 50)),
           CallEntry("02-request.json", "02-response.json", "2026-11-01T09:00:01.000+08:00",
                     None, None, "timeout after 60 s")),
    steps=EVERY_STEP, created_at="2026-11-01T09:00:00.000+08:00",
    updated_at="2026-11-01T09:00:02.000+08:00", pid=4242, process_start=99, question="Which day?",
    explanation="计划已保存。",
)


# --- one writer, one reader ----------------------------------------------------------------------

def test_a_summary_survives_the_round_trip() -> None:
    assert from_json(to_json(FULL)) == FULL
    # From the bytes on disk too, as `planner runs` reads them.
    assert from_json(storage.to_json(to_json(FULL)), RUN_ID) == FULL
    assert to_json(from_json(to_json(FULL))) == to_json(FULL)


def test_every_step_is_written_with_the_fields_of_its_kind() -> None:
    written = to_json(FULL)["steps"]
    assert [list(step) for step in written] == [
        ["call", "kind", "call_id", "tool", "arguments", "result"],
        ["call", "kind", "call_id", "tool", "error", "repair"],
        ["call", "kind", "text"], ["call", "kind", "text"],
        ["call", "kind", "call_id", "plan"],
        ["call", "kind", "approved", "result", "near_misses"],
        ["call", "kind", "text"],
        ["call", "kind", "call_id", "plan"],
        ["call", "kind", "approved", "result", "near_misses"],
        ["call", "kind", "call_id", "tool", "error"],
        ["call", "kind", "text"],
    ]
    assert written[0]["result"] == "2 of 5 notes found"
    assert written[5]["result"] == {"status": "cancelled"}
    assert written[8]["result"] == {"status": "saved", "path": f"plans/{RUN_ID}.json"}
    assert written[4]["plan"] == {"title": "RAG基础复习", "note_ids": ["N1", "N2"],
                                  "date": "2026-12-05", "minutes": 20}


def test_a_record_the_flow_wrote_reads_back_exactly(home: Path) -> None:
    plan = {"title": "RAG basics", "note_ids": ["N1"], "date": "2026-12-05", "minutes": 20}
    client = ScriptedClient([
        tool_call_reply(plan, call_id="call_1", usage_data=usage(500, 40)),
        text_reply("Nothing was saved.", usage_data=usage(550, 30)),
    ])
    client.simulated = False
    run_flow("review N1", client=client, person=ScriptedPerson(["no\n", "\n"]), home=home,
             config=Config(), notes=SAMPLE_NOTES, mode="live", today=dt.date(2026, 11, 1))
    (folder,) = run_dirs(home)
    on_disk = read_summary(folder)
    typed = from_json((folder / "summary.json").read_bytes(), folder.name)
    assert isinstance(typed, RunSummary)
    assert to_json(typed) == on_disk
    assert list(to_json(typed)) == list(on_disk)  # the same keys in the same order
    assert [step.kind for step in typed.steps] == ["proposal", "decision", "explanation"]
    assert typed.tool_result == ToolResult("cancelled") and typed.approved is False
    assert [entry.usage["completion_tokens"] for entry in typed.calls] == [40, 30]


# --- version 1 -----------------------------------------------------------------------------------

def test_version_1_is_read_as_version_2_with_its_steps_rebuilt() -> None:
    old = summary(RUN_ID)  # version 1: no steps
    assert old["version"] == 1 and "steps" not in old
    typed = from_json(old)
    assert isinstance(typed, RunSummary) and typed.version == 2
    assert typed.steps == (
        Step(1, "proposal", None, PlanRecord("RAG基础复习", ("N1", "N2"), "2026-12-05", 20)),
        Step(1, "decision", approved=True, result=ToolResult("saved", f"plans/{RUN_ID}.json")),
        Step(2, "explanation", text=old["explanation"]),
    )
    written = to_json(typed)
    assert written["version"] == 2 and len(written["steps"]) == 3
    # Everything else is as version 1 recorded it.
    assert {key: written[key] for key in old if key != "version"} == {
        key: value for key, value in old.items() if key != "version"}


def test_version_1_question_and_unanswered_proposal() -> None:
    question = from_json(summary("q", status="no_tool", plan=None, approved=None, target=None,
                                 tool_result=None, question="Which notes?", explanation=None))
    assert question.steps == (Step(1, "question", text="Which notes?"),)
    waiting = from_json(summary("w", status="running", approved=None, tool_result=None,
                                explanation=None))
    assert [step.kind for step in waiting.steps] == ["proposal"]


# --- damaged summaries are a value ---------------------------------------------------------------

DEEP = b'{"a": ' * 65 + b"1" + b"}" * 65


@pytest.mark.parametrize(("data", "why"), [
    (b"", "summary.json is empty"),
    (b"  \n", "summary.json is empty"),
    (b"{ broken", "summary.json is not JSON"),
    (b"\xff\xfe\x00garbage", "summary.json is not JSON"),
    (b"[1]", "summary.json is not a JSON object"),
    (b'"complete"', "summary.json is not a JSON object"),
    (b'{"status": "complete"}', "summary.json has no status or no calls list"),
    (b'{"status": 1, "calls": []}', "summary.json has no status or no calls list"),
    (b'{"status": "complete", "calls": {}}', "summary.json has no status or no calls list"),
    (b'{"status": "complete", "calls": [], "pid": NaN}',
     "summary.json contains NaN, which is not a JSON number"),
    (b'{"status": "complete", "calls": [{"usage": {"prompt_tokens": 1e400}}]}',
     "summary.json contains a number that overflows: 1e400"),
    (b'{"status": "complete", "calls": [], "pid": ' + b"9" * 5000 + b"}",
     "summary.json is not JSON"),
    (DEEP, "summary.json is nested deeper than 64 levels"),
    (b"[" * 100_000, "summary.json is nested deeper than 64 levels"),
], ids=["empty", "blank", "broken", "not utf-8", "list", "string", "no calls", "status not text",
        "calls not a list", "NaN", "overflow", "5000 digits", "65 deep", "100,000 deep"])
def test_a_damaged_summary_is_a_value_saying_why(data: bytes, why: str) -> None:
    assert from_json(data, RUN_ID) == DamagedRun(RUN_ID, why)


def test_text_around_the_json_is_checked_as_json_loads_would() -> None:
    written = storage.to_json(to_json(FULL))
    assert from_json(b"  \n" + written + b"\n\n") == FULL  # whitespace around: fine
    assert from_json(written.rstrip(b"\n")) == FULL
    assert from_json(written + b"{}", RUN_ID) == DamagedRun(RUN_ID, "summary.json is not JSON")


def test_a_recorded_summary_changes_and_compares_like_a_built_one() -> None:
    recorded = from_json(to_json(FULL))
    assert isinstance(recorded, RunSummary)
    changed = recorded._replace(status="stopped", error="interrupted (Ctrl+C)")
    assert changed == FULL._replace(status="stopped", error="interrupted (Ctrl+C)")
    assert changed != FULL and recorded.usages == FULL.usages == tuple(
        entry.usage for entry in FULL.calls)


def test_a_utf16_summary_with_a_bom_is_read() -> None:
    data = json.dumps(to_json(FULL), ensure_ascii=False).encode("utf-16")
    assert from_json(data) == FULL


def test_fields_of_the_wrong_type_read_as_nothing_known() -> None:
    odd = from_json({**summary(
        "odd", version=2, plan="not a plan", tool_result=[1], approved="yes",
        created_at=5, pid=True, mode=None, calls=["x", {"usage": "y", "duration_ms": True}],
        steps=["not a step", None, {"call": "1", "kind": "question", "text": 5},
               {"call": 2, "kind": "from a newer planner", "text": "kept out"},
               {"call": 3, "kind": "decision", "result": "saved", "near_misses": "save"}],
    ), "run_id": 5}, "folder-name")
    assert isinstance(odd, RunSummary)
    assert odd.run_id == "folder-name"  # the record's own ID is not text: the folder names it
    assert (odd.plan, odd.tool_result, odd.approved, odd.created_at, odd.pid, odd.mode) == (
        None, None, None, None, None, None)
    assert odd.calls == (CallEntry(), CallEntry())
    assert odd.steps == (Step(None, "question"), Step(2, "from a newer planner"),
                         Step(3, "decision"))
    assert [step.to_json() for step in odd.steps] == [
        {"call": None, "kind": "question", "text": None},
        {"call": 2, "kind": "from a newer planner"},
        {"call": 3, "kind": "decision", "approved": None, "result": None, "near_misses": []},
    ]
    tally = tally_calls(odd.calls)
    assert (tally.calls, tally.unknown_calls) == (2, 2)


def test_a_recorded_study_plan_reads_back_as_typed_sessions_and_is_written_as_recorded() -> None:
    sessions = [{"date": "2026-12-07", "start": "19:00", "minutes": 45, "note_ids": ["N1", "N2"]},
                {"date": 7, "minutes": "45", "note_ids": "N3", "from": "a newer planner"},
                {"date": "2026-12-09", "start": "20:00", "minutes": 30, "note_ids": ["N2", 3]}]
    recorded = from_json(summary("study", plan={"title": "Exam", "sessions": sessions}))
    assert isinstance(recorded, RunSummary) and recorded.plan is not None
    assert recorded.plan.sessions == (
        SessionRecord("2026-12-07", "19:00", 45, ("N1", "N2"), sessions[0]),
        # A field of the wrong type is not known; a note ID that is not text, its str().
        SessionRecord(None, None, None, None, sessions[1]),
        SessionRecord("2026-12-09", "20:00", 30, ("N2", "3"), sessions[2]))
    assert (recorded.plan.note_ids, recorded.plan.minutes) == (("N1", "N2", "3"), 75)
    # Written back as recorded, byte for byte.
    assert to_json(recorded)["plan"] == {"title": "Exam", "sessions": sessions}


# --- one run, one word ---------------------------------------------------------------------------

WORDED = {
    "20261101T000000000000Z-saved0": ("saved", {}),
    "20261102T000000000000Z-cancel": ("cancelled", {
        "approved": False, "target": None, "tool_result": {"status": "cancelled"}}),
    "20261103T000000000000Z-after0": ("saved, then stopped", {
        "status": "stopped", "stage": "explaining",
        "calls": [call(1, deepseek_usage(1000, 200, 50)), call(2, None, error="timeout")],
        "error": "The plan is saved in plans/x.json; only the model's explanation failed"}),
    "20261104T000000000000Z-notool": ("no plan proposed", {
        "status": "no_tool", "plan": None, "approved": None, "target": None,
        "tool_result": None, "question": "Which date?", "explanation": None}),
    "20261105T000000000000Z-budget": ("call limit reached", {
        "status": "budget_exhausted", "plan": None, "approved": None, "target": None,
        "tool_result": None}),
}


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def line_of(text: str, run_id: str) -> str:
    (line,) = [line for line in text.splitlines() if run_id in line]
    return line


def words_in(line: str) -> str:
    """The status words of a table line or the show panel's Status line."""
    found = [word for word, _ in WORDED.values() if word in line]
    return max(found, key=len)  # "saved, then stopped" holds "saved" and "stopped"


@pytest.mark.parametrize("run_id", list(WORDED))
def test_runs_show_and_costs_call_a_run_by_one_word(home: Path, run_id: str) -> None:
    for each, (_word, changes) in WORDED.items():
        write_run(home, each, summary(each, **changes))
    word = WORDED[run_id][0]
    runs_line = line_of(invoke("runs"), run_id)
    costs_line = line_of(invoke("costs"), run_id)
    (show_line,) = [line for line in invoke("show", run_id).splitlines() if "Status" in line]
    for line in (runs_line, costs_line, show_line):
        assert words_in(line) == word, (line, word)
        assert not re.search(r"\bcomplete\b", line), line
    # The machine-readable outputs keep the recorded status names.
    recorded = summary(run_id, **WORDED[run_id][1])["status"]
    (row,) = [row for row in json.loads(invoke("runs", "--json")) if row["run_id"] == run_id]
    report = json.loads(invoke("costs", "--json"))
    (priced,) = [run for run in report["runs"] if run["run_id"] == run_id]
    assert row["status"] == priced["status"] == recorded
    assert json.loads(invoke("show", run_id, "--json"))["status"] == recorded


# --- the live run's cost line --------------------------------------------------------------------

def test_the_outcome_carries_the_runs_own_tally(home: Path) -> None:
    plan = {"title": "RAG basics", "note_ids": ["N1"], "date": "2026-12-05", "minutes": 20}
    explanation = text_reply("Nothing was saved.")
    del explanation["usage"]
    client = ScriptedClient([tool_call_reply(plan, usage_data=usage(500, 40, hit=None)),
                             explanation])
    client.simulated = False
    outcome = run_flow("review N1", client=client, person=ScriptedPerson(["no\n", "\n"]),
                       home=home, config=Config(), notes=SAMPLE_NOTES, mode="live",
                       today=dt.date(2026, 11, 1))
    assert outcome.tally is not None
    assert outcome.tally.counts == (2, 1, 0, 500, 40)  # the explanation reported no usage
    recorded = from_json((outcome.folder / "summary.json").read_bytes())
    assert outcome.tally == tally_calls(recorded.calls)


def test_the_cost_line_never_reads_the_summary_back(home: Path, capsys) -> None:
    # No summary.json at all: the line still comes, from the outcome's tally.
    folder = home / "tool-records" / RUN_ID
    outcome = Outcome("complete", 0, RUN_ID, folder, simulated=False,
                      tally=costs.Tally(2, 0, 0, 1050, 80))
    run_modes._finish(outcome, Config())
    lines = capsys.readouterr().err.splitlines()
    assert re.sub(" [·-] ", " · ", lines[0]) == "2 calls · 1,130 tokens · $0.0002"
    assert lines[1] == f"Records: {folder}"


