"""Looking back (README "Looking back"): show last/-N, one line for no records, words a person
knows, tables that fit.

Every case runs the installed `planner` with no terminal (stdin closed, a new session) and
checks the exit code, the message and what is, and is not, on disk. The pseudo-terminal cases
(tables at 80 and 120 columns, the demo screen, the waiting line) are in test_terminal.py.
"""


from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import all_files, env_with, one_error, run_planner, snapshot
from rich.cells import cell_len
from run_records import (
    MIDDLE,
    NEWEST,
    OLDEST,
    call,
    deepseek_usage,
    demo_runs,
    summary,
    three_runs,
    write_run,
)

# --- show last, -1, -2, ... ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [([], NEWEST), (["last"], NEWEST), (["-1"], NEWEST), (["-2"], MIDDLE), (["-3"], OLDEST),
     (["20261102"], MIDDLE), (["--", "-2"], MIDDLE)],
    ids=["no argument", "last", "-1", "-2", "-3", "a unique start", "-- -2"])
def test_show_picks_the_newest_runs(home: Path, args: list[str], expected: str) -> None:
    three_runs(home)
    before = snapshot(home)
    result = run_planner("show", "--json", *args)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["run_id"] == expected
    table = run_planner("show", *args)
    assert table.returncode == 0 and f"Run {expected}" in table.stdout
    assert snapshot(home) == before


def test_show_counts_back_with_options_around_it(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    three_runs(other)
    result = run_planner("show", "--home", str(other), "-2", "--json")
    assert json.loads(result.stdout)["run_id"] == MIDDLE
    result = run_planner("--home", str(other), "show", "-3", "--json")
    assert json.loads(result.stdout)["run_id"] == OLDEST


@pytest.mark.parametrize(
    ("args", "words"),
    [(["-4"], "there are only 3 run(s) in tool-records/; -3 is the oldest"),
     (["-0"], "-0 names no run: -1 is the newest, -2 the one before"),
     (["-1x"], "no such option: -1x"),
     (["nope"], "no run 'nope'"),
     (["2026110"], "'2026110' matches 3 runs")],
    ids=["past the oldest", "-0", "-1x", "unknown", "ambiguous"])
def test_show_names_what_is_wrong(home: Path, args: list[str], words: str) -> None:
    three_runs(home)
    before = snapshot(home)
    result = run_planner("show", *args)
    one_error(result, 2, words)
    assert result.stdout == ""
    assert snapshot(home) == before


def test_show_with_no_runs_says_how_to_make_one(home: Path) -> None:
    for args in ([], ["last"], ["-1"]):
        result = run_planner("show", *args)
        one_error(result, 2, "no runs in tool-records/ yet; planner --demo makes one")
    assert all_files(home) == []


# --- no records: one line ----------------------------------------------------------------------


def test_no_records_is_one_line(home: Path) -> None:
    runs = run_planner("runs")
    assert runs.returncode == 0 and runs.stderr == ""
    assert runs.stdout == "No runs in tool-records/ yet: planner --demo makes one (offline, " \
                          "nothing to pay).\n"
    costs = run_planner("costs")
    assert costs.returncode == 0 and costs.stderr == ""
    assert costs.stdout == "No runs in tool-records/ yet, so nothing has cost anything.\n"
    assert run_planner("runs", "--json").stdout == "[]\n"
    empty = {"runs": 0, "calls": 0, "unknown_calls": 0, "input_cache_hit_tokens": 0,
             "input_cache_miss_tokens": 0, "output_tokens": 0, "cost": 0.0}
    assert json.loads(run_planner("costs", "--json").stdout) == {
        "currency": "USD", "runs": [], "total": empty, "simulated_runs_skipped": 0}
    assert all_files(home) == []


def test_no_records_in_another_home_names_it(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    result = run_planner("runs", "--home", str(other))
    assert result.stdout.startswith(f"No runs in {other}/tool-records/ yet")
    assert result.stdout.count("\n") == 1


def test_costs_with_only_unpriced_runs_says_what_was_left_out(home: Path) -> None:
    demo_runs(home, 1)
    write_run(home, "20261101T000000000000Z-dddddd", raw=b"")
    before = snapshot(home)
    result = run_planner("costs")
    assert result.returncode == 0
    assert result.stdout == ("No priced runs in tool-records/: left out 1 simulated (demo) "
                             "run(s) and 1 damaged run(s).\n")
    assert snapshot(home) == before


# --- words a person knows ----------------------------------------------------------------------


def mixed_runs(home: Path) -> None:
    """One run of each ending a person may meet."""
    write_run(home, "20261101T000000000000Z-saved0", summary("20261101T000000000000Z-saved0"))
    write_run(home, "20261102T000000000000Z-notool", summary(
        "20261102T000000000000Z-notool", status="no_tool", plan=None, approved=None,
        tool_result=None, target=None, question="Which date?", explanation=None))
    write_run(home, "20261103T000000000000Z-budget", summary(
        "20261103T000000000000Z-budget", status="budget_exhausted", plan=None, approved=None,
        tool_result=None, target=None, error="the run reached its limit of 6 model calls"))
    write_run(home, "20261104T000000000000Z-stop00", summary(
        "20261104T000000000000Z-stop00", status="stopped", stage="requesting", plan=None,
        approved=None, tool_result=None, target=None,
        calls=[call(1, None, error="HTTP 503: overloaded")],
        error="the model is overloaded (HTTP 503); try again later"))
    write_run(home, "20261105T000000000000Z-after0", summary(
        "20261105T000000000000Z-after0", status="stopped", stage="explaining",
        calls=[call(1, deepseek_usage(1000, 200, 50)), call(2, None, error="timeout")],
        error="The plan is saved in plans/x.json; only the model's explanation failed"))
    write_run(home, "20261106T000000000000Z-cancel", summary(
        "20261106T000000000000Z-cancel", approved=False, tool_result={"status": "cancelled"},
        target=None))


def test_tables_say_what_happened_in_words(home: Path) -> None:
    mixed_runs(home)
    before = snapshot(home)
    table = run_planner("runs").stdout
    for words in ("no plan proposed", "call limit reached", "saved, then stopped", "stopped",
                  "cancelled", "saved"):
        assert words in table, words
    costs = run_planner("costs").stdout
    assert "no plan proposed" in costs and "call limit reached" in costs
    for internal in ("no_tool", "budget_exhausted", "requesting", "explaining"):
        assert internal not in table + costs, internal
    # The machine-readable output keeps the recorded names.
    statuses = {row["status"] for row in json.loads(run_planner("runs", "--json").stdout)}
    assert {"no_tool", "budget_exhausted", "stopped", "complete"} == statuses
    assert snapshot(home) == before


@pytest.mark.parametrize(
    ("run_id", "words"),
    [("20261104T000000000000Z-stop00", "stopped while asking the model"),
     ("20261105T000000000000Z-after0", "stopped while asking the model to explain the result"),
     ("20261102T000000000000Z-notool", "no plan proposed"),
     ("20261103T000000000000Z-budget", "call limit reached")],
    ids=["stopped", "stopped after saving", "no_tool", "budget_exhausted"])
def test_show_says_what_the_run_was_doing(home: Path, run_id: str, words: str) -> None:
    mixed_runs(home)
    result = run_planner("show", run_id)
    assert result.returncode == 0
    (status_line,) = [line for line in result.stdout.splitlines() if "Status" in line]
    assert words in status_line
    for internal in ("Stage", "requesting", "explaining", "no_tool", "budget_exhausted"):
        assert internal not in result.stdout, internal


def test_interrupted_show_says_where_it_stopped(home: Path) -> None:
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    write_run(home, "20261101T000000000000Z-intr00", summary(
        "20261101T000000000000Z-intr00", status="running", stage="confirming",
        pid=pid_max + 1, approved=None, tool_result=None, target=None))
    result = run_planner("show", "-1")
    assert "interrupted while waiting for you to type SAVE" in result.stdout
    assert "recorded as running; its process is gone" in result.stdout


# --- tables that fit ---------------------------------------------------------------------------


@pytest.mark.parametrize("columns", [60, 80, 100, 120])
def test_tables_fit_the_width_and_keep_status_title_and_cost(home: Path, columns: int) -> None:
    mixed_runs(home)
    long_title = "检索增强生成的基础知识与向量数据库的切分策略、召回评估以及重排序的完整复习计划"
    write_run(home, "20261107T000000000000Z-long00", summary(
        "20261107T000000000000Z-long00",
        plan={"title": long_title, "note_ids": ["N1"], "date": "2026-12-01", "minutes": 30}))
    runs = run_planner("runs", env=env_with(COLUMNS=str(columns))).stdout
    costs = run_planner("costs", env=env_with(COLUMNS=str(columns))).stdout
    show = run_planner("show", "20261105", env=env_with(COLUMNS=str(columns))).stdout
    for text in (runs, costs, show):
        assert max(cell_len(line) for line in text.splitlines()) <= columns, text
        assert "…" not in re.sub(r"[\u4e00-\u9fff]+ ?…", "", text), text  # only titles are cut
    for cost in ("0.000080", "0.000000 +1?", "0.000045 +1?"):
        assert cost in runs, cost
        # Wide, the calls with unknown usage have their own column; narrower, a +N? mark.
        assert cost[:8] in costs, cost
        assert "+" not in cost or (cost in costs) == ("Unknown" not in costs), cost
    assert "检索增强" in runs and "RAG基础复习" in runs
    if columns >= 80:
        for text in (runs, costs):
            assert "20261107T000000000000Z-long00" in text  # whole IDs from 80 columns on
    if columns == 120:
        for header in ("Time", "Mode", "Calls", "Status", "Title"):
            assert header in runs.splitlines()[1], header
        for header in ("Calls", "Unknown", "Input hit", "Input miss", "Output"):
            assert header in costs, header
        assert "Not shown" not in runs
    if columns < 80:
        # No room for whole IDs: each run is named by what `planner show` takes.
        assert "-1" in runs and "planner show -1 opens it" in " ".join(runs.split())
    one = " ".join(re.sub("[│╭╮╰╯─]", " ", show).split())  # the words, without the panel
    assert "the model's explanation failed" in one and "timeout" in one
