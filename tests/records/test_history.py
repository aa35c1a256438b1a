"""Reading runs back: `planner runs` and `planner show`, damaged and interrupted runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import env_with, run_dirs, run_planner
from rich.cells import cell_len
from run_records import call, deepseek_usage, demo_runs, record_files, summary, write_run
from typer.testing import CliRunner

from planner.cli.app import app
from planner.records import history
from planner.records.run_record import process_start_ticks
from planner.records.summary import from_json

ROW_KEYS = ["run_id", "created_at", "mode", "simulated", "status", "approved", "tool_result",
            "calls", "title", "cost", "unknown_calls", "currency", "problem"]
LONG_TITLE = "检索增强生成的基础知识与向量数据库的切分策略、召回评估以及重排序的完整复习计划"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def runs_json(*args: str) -> list[dict]:
    result = invoke("runs", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def unused_pid() -> int:
    """A pid no process can have: above the kernel's limit."""
    return int(Path("/proc/sys/kernel/pid_max").read_text()) + 1


# --- damaged folders ----------------------------------------------------------------------------

DAMAGED = {
    "20261101T000000000000Z-000001": (None, "no summary.json"),
    "20261101T000000000000Z-000002": (b"", "summary.json is empty"),
    "20261101T000000000000Z-000003": (b'{"status": "complete", ', "summary.json is not JSON"),
    "20261101T000000000000Z-000004": (b'[{"status": "complete"}]',
                                      "summary.json is not a JSON object"),
    "20261101T000000000000Z-000005": (b'{"status": "complete"}',
                                      "summary.json has no status or no calls list"),
    "20261101T000000000000Z-000006": (b"\xff\xfe\x00garbage", "summary.json is not JSON"),
    "20261101T000000000000Z-000007": (b"[" * 100_000,
                                      "summary.json is nested deeper than 64 levels"),
    "20261101T000000000000Z-000008": (b'{"a": ' * 65 + b"1" + b"}" * 65,
                                      "summary.json is nested deeper than 64 levels"),
    "20261101T000000000000Z-000009": (b"\xef\xbb\xbf{}",
                                      "summary.json has no status or no calls list"),
}


def make_damaged(home: Path) -> None:
    for run_id, (raw, _problem) in DAMAGED.items():
        if raw is None:
            (home / "tool-records" / run_id).mkdir(parents=True)
        else:
            write_run(home, run_id, raw=raw)


def test_damaged_folders_are_listed_as_damaged_and_never_crash(home: Path) -> None:
    make_damaged(home)
    write_run(home, "20261102T000000000000Z-aaaaaa", summary("20261102T000000000000Z-aaaaaa"))
    rows = runs_json()
    assert rows[0]["run_id"] == "20261102T000000000000Z-aaaaaa"
    assert rows[0]["status"] == "complete"
    damaged = {row["run_id"]: row for row in rows[1:]}
    assert set(damaged) == set(DAMAGED)
    for run_id, (_raw, problem) in DAMAGED.items():
        assert damaged[run_id]["status"] == "damaged"
        assert damaged[run_id]["problem"] == problem
        assert list(damaged[run_id]) == ROW_KEYS
    human = invoke("runs")
    assert human.exit_code == 0
    assert "damaged" in human.stdout and "no summary.json" in human.stdout
    costs = invoke("costs", "--json")
    assert costs.exit_code == 0
    assert [run["run_id"] for run in json.loads(costs.stdout)["runs"]] == [rows[0]["run_id"]]


def test_summary_folder_and_fifo_are_damaged_not_a_hang(home: Path) -> None:
    (home / "tool-records" / "20261101T000000000000Z-dir000" / "summary.json").mkdir(parents=True)
    fifo_run = home / "tool-records" / "20261101T000000000000Z-fifo00"
    fifo_run.mkdir()
    os.mkfifo(fifo_run / "summary.json")
    rows = runs_json()
    assert [(row["status"], row["problem"]) for row in rows] == [
        ("damaged", "summary.json is not a regular file (a FIFO)"),
        ("damaged", "summary.json is not a regular file (a folder)"),
    ]


def test_show_of_a_damaged_run(home: Path) -> None:
    make_damaged(home)
    result = invoke("show", "20261101T000000000000Z-000003", "--json")
    assert result.exit_code == 0
    detail = json.loads(result.stdout)
    assert (detail["status"], detail["problem"]) == ("damaged", "summary.json is not JSON")
    assert detail["summary"] is None and detail["files"] == ["summary.json"]
    human = invoke("show", "20261101T000000000000Z-000001")
    assert human.exit_code == 0
    assert "no summary.json" in human.stdout


def test_fields_of_the_wrong_type_do_not_crash(home: Path) -> None:
    odd = summary("20261101T000000000000Z-odd000", plan="not a plan", tool_result=[1],
                  approved="yes", created_at=5, calls=["x", {"usage": "y"}], mode=None)
    write_run(home, "20261101T000000000000Z-odd000", odd)
    (row,) = runs_json()
    assert row["title"] is None and row["tool_result"] is None and row["approved"] is None
    assert row["created_at"] is None
    assert (row["calls"], row["unknown_calls"], row["cost"]) == (2, 2, 0.0)
    assert invoke("runs").exit_code == 0
    assert invoke("show", "20261101T000000000000Z-odd000").exit_code == 0


# --- interrupted runs ---------------------------------------------------------------------------

def test_running_with_a_dead_pid_is_interrupted(home: Path) -> None:
    write_run(home, "20261101T000000000000Z-dead00",
              summary("20261101T000000000000Z-dead00", status="running", stage="confirming",
                      pid=unused_pid(), process_start=12345))
    (row,) = runs_json()
    assert row["status"] == "interrupted"
    detail = json.loads(invoke("show", "20261101T000000000000Z-dead00", "--json").stdout)
    assert detail["status"] == "interrupted"
    assert detail["summary"]["status"] == "running"  # the record itself is left as it was


def test_running_with_a_reused_pid_is_interrupted() -> None:
    # A live process (our own parent) whose start time differs from the recorded one.
    pid = os.getppid()
    started = process_start_ticks(pid)
    assert started is not None
    data = summary("x", status="running", pid=pid, process_start=started + 1)
    assert history.derived_status(from_json(data)) == "interrupted"
    assert history.derived_status(from_json({**data, "pid": None})) == "interrupted"


def test_a_truly_running_run_stays_running(home: Path) -> None:
    pid = os.getpid()
    write_run(home, "20261101T000000000000Z-live00",
              summary("20261101T000000000000Z-live00", status="running", pid=pid,
                      process_start=process_start_ticks(pid), tool_result=None))
    (row,) = runs_json()
    assert row["status"] == "running"


def test_a_live_child_process_recorded_as_running() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        data = from_json(summary("x", status="running", pid=child.pid,
                                 process_start=process_start_ticks(child.pid)))
        assert history.derived_status(data) == "running"
    finally:
        child.kill()
        child.wait()
    assert history.derived_status(data) == "interrupted"


# --- planner runs -------------------------------------------------------------------------------

def test_runs_lists_real_demo_runs_newest_first(home: Path) -> None:
    demo_runs(home, 2)
    rows = runs_json()
    assert [row["run_id"] for row in rows] == [p.name for p in reversed(run_dirs(home))]
    for row in rows:
        assert list(row) == ROW_KEYS
        assert row["mode"] == "demo" and row["simulated"] is True
        assert (row["status"], row["approved"], row["tool_result"]) == (
            "complete", False, "cancelled")
        assert (row["calls"], row["unknown_calls"], row["cost"]) == (2, 2, None)
        assert row["title"] == "RAG基础复习" and row["problem"] is None
        assert isinstance(row["created_at"], str)


def test_runs_json_types_for_a_live_run(home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"prices": {"currency": "CNY"}}))
    calls = [call(1, deepseek_usage(1000, 200, 50)), call(2, None, error="timeout")]
    write_run(home, "20261101T000000000000Z-abcdef",
              summary("20261101T000000000000Z-abcdef", calls=calls))
    (row,) = runs_json()
    assert row == {
        "run_id": "20261101T000000000000Z-abcdef", "created_at": "2026-11-20T09:00:00.000+08:00",
        "mode": "live", "simulated": False, "status": "complete", "approved": True,
        "tool_result": "saved", "calls": 2, "title": "RAG基础复习",
        "cost": 0.0000448, "unknown_calls": 1,  # 2.8 + 28 + 14 per million
        "currency": "CNY", "problem": None,
    }


def test_no_records_is_an_empty_list(home: Path, tmp_path: Path) -> None:
    assert runs_json() == []
    (tmp_path / "empty").mkdir()
    assert runs_json("--home", str(tmp_path / "empty")) == []
    (home / "tool-records").mkdir()
    (home / "tool-records" / ".gitkeep").write_text("")
    (home / "tool-records" / ".hidden-run").mkdir()
    assert runs_json() == []
    result = invoke("runs")
    assert result.exit_code == 0
    assert result.stdout == ("No runs in tool-records/ yet: planner --demo makes one (offline, "
                             "nothing to pay).\n")


def test_tool_records_that_is_not_a_folder_is_one_clear_error(home: Path) -> None:
    (home / "tool-records").write_text("oops")
    for command in ("runs", "costs", "show"):
        result = invoke(command, "--json")
        assert result.exit_code == 1
        assert result.stdout == ""
        assert result.stderr.startswith("Error: cannot list") and "\n" == result.stderr[-1]
        assert result.stderr.endswith("(Not a directory); check the folder's permissions\n")
        assert result.stderr.count("\n") == 1


def test_home_before_or_after_the_subcommand(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    write_run(other, "20261101T000000000000Z-other0", summary("20261101T000000000000Z-other0"))
    assert runs_json() == []
    assert len(runs_json("--home", str(other))) == 1
    result = invoke("--home", str(other), "runs", "--json")
    assert len(json.loads(result.stdout)) == 1
    # the subcommand's own --home wins
    result = invoke("--home", str(other), "runs", "--json", "--home", str(home))
    assert json.loads(result.stdout) == []


def test_limit_reads_only_the_runs_shown(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for index in range(5):
        run_id = f"2026110{index}T000000000000Z-00000{index}"
        write_run(home, run_id, summary(run_id))
    reads: list[str] = []
    original = history._read_bytes
    monkeypatch.setattr(history, "_read_bytes", lambda path: reads.append(path) or original(path))
    rows, total = history.list_runs(home, limit=2)
    assert ([row.run_id[:9] for row in rows], total) == (["20261104T", "20261103T"], 5)
    assert len(reads) == 2
    reads.clear()
    history.list_runs(home)
    history.cost_report(home)
    assert len(reads) == 10  # each summary exactly once per command, and nothing else
    assert all(path.endswith("/summary.json") for path in reads)


def test_runs_table_with_chinese_titles_fits_the_width(home: Path) -> None:
    write_run(home, "20261101T000000000000Z-long00",
              summary("20261101T000000000000Z-long00",
                      plan={"title": LONG_TITLE, "note_ids": ["N1"], "date": "2026-12-01",
                            "minutes": 30}))
    write_run(home, "20261102T000000000000Z-short0", summary("20261102T000000000000Z-short0"))
    make_damaged(home)
    for columns in (120, 80):
        result = run_planner("runs", "--home", str(home), env=env_with(COLUMNS=str(columns)))
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert max(cell_len(line) for line in lines) <= columns
        assert "RAG基础复习" in result.stdout
        # the long title is cut with an ellipsis on one line, never wrapped
        (long_line,) = [line for line in lines if "20261101T000000000000Z-long00" in line]
        assert "检索增强生成" in long_line and "…" in long_line
        assert "20261101T000000000000Z-long00" in long_line  # the ID itself is never cut
    wide = run_planner("runs", "--home", str(home)).stdout
    assert "2026-11-20 09:00" in wide and "live" in wide


def test_runs_table_shows_the_newest_fifty_by_default(home: Path) -> None:
    for index in range(52):
        run_id = f"20261101T0000{index:02d}000000Z-000000"
        write_run(home, run_id, summary(run_id))
    result = invoke("runs")
    assert result.exit_code == 0
    assert "Showing the newest 50 of 52 runs" in result.stdout
    assert "20261101T000051000000Z" in result.stdout
    assert "20261101T000001000000Z" not in result.stdout
    assert len(runs_json()) == 52


# --- planner show -------------------------------------------------------------------------------

def test_show_a_complete_demo_run(home: Path) -> None:
    demo_runs(home, 1)
    (folder,) = run_dirs(home)
    result = run_planner("show", folder.name, "--home", str(home))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    date = json.loads((folder / "summary.json").read_text())["plan"]["date"]
    for expected in ("RAG基础复习", f"notes N1, N2; {date}; 20 min",
                     "not approved", "cancelled: nothing written", "simulated run: not priced",
                     "01-request.json", "02-response.json", "Simulated model",
                     "你没有确认"):
        assert expected in text, expected
    # A cancelled run is called cancelled, as `planner runs` and `costs` call it (recorded as
    # complete: --json keeps that).
    (status_line,) = [line for line in text.splitlines() if "Status" in line]
    assert "cancelled" in status_line and "complete" not in status_line
    detail = json.loads(invoke("show", folder.name, "--json").stdout)
    assert list(detail) == ["run_id", "folder", "status", "problem", "simulated", "currency",
                            "cost", "unknown_calls", "calls", "steps", "files", "summary"]
    assert detail["summary"] == json.loads((folder / "summary.json").read_text())
    assert detail["files"] == ["01-request.json", "01-response.json", "02-request.json",
                               "02-response.json", "summary.json"]
    assert record_files(folder) == ["01-request.json", "01-response.json", "02-request.json",
                                    "02-response.json", "summary.json"]
    assert [call["request"] for call in detail["calls"]] == ["01-request.json", "02-request.json"]
    assert detail["cost"] is None and detail["unknown_calls"] == 2


def test_show_a_live_run_prices_each_call(home: Path) -> None:
    calls = [call(1, deepseek_usage(1000, 200, 50)), call(2, None, error="HTTP 503: overloaded")]
    write_run(home, "20261101T000000000000Z-abcdef",
              summary("20261101T000000000000Z-abcdef", calls=calls, status="stopped",
                      error="the model is overloaded (HTTP 503); try again later"))
    detail = json.loads(invoke("show", "20261101T000000000000Z-abcdef", "--json").stdout)
    first, second = detail["calls"]
    assert (first["input_cache_hit_tokens"], first["input_cache_miss_tokens"],
            first["output_tokens"]) == (1000, 200, 50)
    assert first["cost"] == detail["cost"] == 0.0000448
    assert (second["cost"], second["output_tokens"], second["error"]) == (
        None, None, "HTTP 503: overloaded")
    assert detail["unknown_calls"] == 1
    human = invoke("show", "20261101T000000000000Z-abcdef")
    assert "HTTP 503: overloaded" in human.stdout
    assert "1 call(s) with unknown usage" in human.stdout
    assert "1,000/200/50" in human.stdout and "unknown" in human.stdout


def test_show_accepts_a_unique_prefix(home: Path) -> None:
    for run_id in ("20261101T000000000000Z-aaaaaa", "20261101T000000000000Z-bbbbbb"):
        write_run(home, run_id, summary(run_id))
    detail = json.loads(invoke("show", "20261101T000000000000Z-a", "--json").stdout)
    assert detail["run_id"] == "20261101T000000000000Z-aaaaaa"
    ambiguous = invoke("show", "20261101T")
    assert ambiguous.exit_code == 2
    assert "matches 2 runs" in ambiguous.stderr


@pytest.mark.parametrize("wanted", ["nope", "../tool-records", "", "20991231T000000000000Z"])
def test_show_of_an_unknown_run_is_a_usage_error(home: Path, wanted: str) -> None:
    write_run(home, "20261101T000000000000Z-aaaaaa", summary("20261101T000000000000Z-aaaaaa"))
    result = invoke("show", wanted)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1
    assert "see planner runs" in result.stderr
    assert invoke("show", wanted, "--json").exit_code == 2


def test_show_with_no_records_at_all_is_a_usage_error() -> None:
    result = run_planner("show", "20261101T000000000000Z-aaaaaa")
    assert result.returncode == 2
    assert "no run '20261101T000000000000Z-aaaaaa'" in result.stderr


# --- version 2 summaries and the steps of a run --------------------------------------------------

V2_STEPS = [
    {"call": 1, "kind": "lookup", "call_id": "c1", "tool": "search_notes",
     "arguments": {"query": "RAG"}, "result": "2 results"},
    {"call": 2, "kind": "rejected", "call_id": "c2", "tool": "save_review_plan",
     "error": "minutes: must be an integer", "repair": 1},
    "not a step",
    {"call": 3, "kind": "proposal", "call_id": "c3",
     "plan": {"title": "RAG基础复习", "note_ids": ["N1"], "date": "2026-12-05", "minutes": 20}},
    {"call": 3, "kind": "decision", "approved": False, "result": {"status": "cancelled"},
     "near_misses": ["save"]},
    {"call": 3, "kind": "feedback", "text": "make it 30 minutes"},
    None,
]


def test_show_json_steps_of_a_version_2_summary_keep_only_objects(home: Path) -> None:
    run_id = "20261101T000000000000Z-v2aaaa"
    write_run(home, run_id, summary(run_id, version=2, steps=V2_STEPS,
                                    status="budget_exhausted"))
    detail = json.loads(invoke("show", run_id, "--json").stdout)
    assert detail["steps"] == [step for step in V2_STEPS if isinstance(step, dict)]
    assert detail["status"] == "budget_exhausted"
    assert detail["summary"]["steps"] == V2_STEPS  # the record itself, untouched
    broken = summary("x", version=2, steps={"call": 1})
    assert from_json(broken).steps == ()


def test_show_json_steps_rebuilt_from_a_version_1_summary(home: Path) -> None:
    run_id = "20261101T000000000000Z-v1aaaa"
    data = summary(run_id)
    write_run(home, run_id, data)
    detail = json.loads(invoke("show", run_id, "--json").stdout)
    assert detail["steps"] == [
        {"call": 1, "kind": "proposal", "call_id": None, "plan": data["plan"]},
        {"call": 1, "kind": "decision", "approved": True, "result": data["tool_result"],
         "near_misses": []},
        {"call": 2, "kind": "explanation", "text": data["explanation"]},
    ]
    question = summary("q", status="no_tool", plan=None, approved=None, target=None,
                       tool_result=None, question="Which notes?", explanation=None)
    assert [step.to_json() for step in from_json(question).steps] == [
        {"call": 1, "kind": "question", "text": "Which notes?"}]
    waiting = summary("w", status="running", approved=None, tool_result=None, explanation=None)
    assert [step.kind for step in from_json(waiting).steps] == ["proposal"]


def test_budget_exhausted_is_listed_and_priced_like_any_recorded_status(home: Path) -> None:
    run_id = "20261101T000000000000Z-budget"
    write_run(home, run_id, summary(run_id, version=2, status="budget_exhausted", steps=[]))
    (row,) = runs_json()
    # (2.8 + 28 + 14) + (3.08 + 21 + 11.2) per million at the default prices
    assert (row["status"], row["cost"], row["problem"]) == ("budget_exhausted", 0.00008008, None)
    report = json.loads(invoke("costs", "--json").stdout)
    assert [(run["run_id"], run["status"]) for run in report["runs"]] == [
        (run_id, "budget_exhausted")]
    assert report["total"]["calls"] == 2 and report["total"]["unknown_calls"] == 0
    table = invoke("runs")
    assert table.exit_code == 0 and run_id in table.stdout


# --- links, sizes ------------------------------------------------------------------------------

def test_a_linked_run_folder_is_damaged_and_nothing_behind_it_is_read(
        home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write_run(outside, "20261101T000000000000Z-out000", summary("x"))
    os.mkfifo(outside / "tool-records" / "20261101T000000000000Z-out000" / "other")
    (home / "tool-records").mkdir()
    run_id = "20261101T000000000000Z-link00"
    os.symlink(outside / "tool-records" / "20261101T000000000000Z-out000",
               home / "tool-records" / run_id)
    (home / "tool-records" / "20261101T000000000000Z-file00").symlink_to(outside / "nowhere")
    (row,) = runs_json()
    assert (row["run_id"], row["status"], row["problem"]) == (
        run_id, "damaged", "run folder is a symbolic link (not followed)")
    detail = json.loads(invoke("show", run_id, "--json").stdout)
    assert (detail["status"], detail["files"], detail["summary"]) == ("damaged", [], None)
    assert json.loads(invoke("costs", "--json").stdout)["runs"] == []


def test_a_linked_or_oversized_summary_is_damaged(home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "summary.json"
    outside.write_text(json.dumps(summary("x")))
    folder = write_run(home, "20261101T000000000000Z-link00", raw=b"")
    (folder / "summary.json").unlink()
    (folder / "summary.json").symlink_to(outside)
    big = summary("y", explanation="x" * (1024 * 1024))
    write_run(home, "20261101T000000000000Z-big000", big)
    exact = summary("z")
    text = json.dumps(exact)
    exact["explanation"] = "x" * (1024 * 1024 - len(text) + 1)  # exactly 1 MiB: still fine
    write_run(home, "20261101T000000000000Z-exact0", exact)
    rows = {row["run_id"][-6:]: (row["status"], row["problem"]) for row in runs_json()}
    assert rows == {
        "link00": ("damaged", "summary.json is a symbolic link (not followed)"),
        "big000": ("damaged", "summary.json is larger than 1 MiB"),
        "exact0": ("complete", None),
    }
    assert (folder / "summary.json").stat().st_size == outside.stat().st_size


def test_a_summary_that_grows_while_read_is_bounded(home: Path, monkeypatch) -> None:
    folder = write_run(home, "20261101T000000000000Z-grow00", summary("g"))
    real_fstat = os.fstat

    def shrunk(fd: int):  # fstat says 10 bytes: the reader must read on, and stop at 1 MiB
        info = real_fstat(fd)
        return os.stat_result((info.st_mode, *info[1:6], 10, *info[7:]))

    monkeypatch.setattr(history.os, "fstat", shrunk)
    summary_path = f"{folder}/summary.json"
    assert json.loads(history._read_bytes(summary_path)) == summary("g")
    (folder / "summary.json").write_bytes(b" " * (1024 * 1024 + 1))
    with pytest.raises(history._Refused, match="larger than 1 MiB"):
        history._read_bytes(summary_path)
