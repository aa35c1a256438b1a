"""Output that cannot be written (README "A screen you can trust"): one line on stderr, the right
exit code, no run left
running.

The choices, made in planner.cli.app.main():

- stdout closed at start (`>&-`): refused before anything runs: `Error: standard output is
  closed; nothing was run ...`, exit 1, nothing written.
- stdout failing later (a full disk: /dev/full; a reader that stopped reading: broken pipe):
  the rest of the output is dropped, the command or run goes on to its end (a run's summary
  gets its final status, never `running`), then one line `Error: could not write the output to
  stdout: ...`, exit 1 (a run's own failure code, 1, 2 or 130, is kept). A broken pipe is
  quiet (README "中文界面": `planner plans | head -1` took what it wanted): no line, exit 1 still.
- An encoding without CJK (PYTHONIOENCODING=ascii) is no failure: what it cannot encode is
  written as a backslash escape (`\\u57fa`), JSON stays valid JSON of the same value, exit 0.

Broken pipes are made deterministic: stdout is the write end of a pipe whose read end is
closed before planner starts, so the very first write fails.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pexpect
import pytest
from conftest import PLANNER, plan_body, read_summary, run_dirs, run_planner, snapshot
from rich.cells import cell_len
from run_records import summary, write_run
from terminal import spawn

from planner.ui.conversation import SAVE_PROMPT

# libfaketime takes a low file descriptor, where these tests close or replace standard output.
pytestmark = pytest.mark.not_under_faketime("closed and full output streams")

SECONDS = 60
RUN_ID = "20261120T090000000000Z-abc123"
CLOSED = ("Error: standard output is closed; nothing was run (give planner somewhere to "
          "write, for example > /dev/null)\n")
LOST = "Error: could not write the output to stdout: "
COMMANDS = {
    "demo": ["--demo"],
    "dry-run": ["--dry-run"],
    "runs": ["runs"],
    "runs --json": ["runs", "--json"],
    "show": ["show", RUN_ID],
    "show --json": ["show", RUN_ID, "--json"],
    "costs": ["costs"],
    "costs --json": ["costs", "--json"],
}
# Python: make a pipe, close its read end, make the write end stdout, become planner.
BROKEN_PIPE = ("import os, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 1); os.close(w); "
               "os.execv(sys.argv[1], sys.argv[1:])")


@pytest.fixture
def records(home: Path) -> Path:
    """One recorded live run (its title in Chinese) for runs, show and costs."""
    write_run(home, RUN_ID, summary(RUN_ID))
    return home


def plain(raw: bytes, encoding: str = "utf-8") -> str:
    """Terminal bytes as text, without Rich's styles (NO_COLOR still allows bold)."""
    return re.sub(r"\x1b\[[0-9;]*m", "", raw.decode(encoding)).replace("\r\n", "\n")


def error_lines(stderr: bytes) -> list[str]:
    text = stderr.decode("utf-8")
    assert "Traceback" not in text and "Exception ignored" not in text, text
    return [line for line in text.splitlines() if line.startswith("Error:")]


def assert_no_run_left_running(home: Path) -> None:
    for folder in run_dirs(home):
        assert read_summary(folder)["status"] != "running", folder


# --- stdout closed ------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [*COMMANDS.values(), ["--request", "review N1"]],
                         ids=[*COMMANDS, "live"])
def test_closed_stdout_is_refused_before_anything_runs(records: Path, args: list[str]) -> None:
    before = snapshot(records)
    result = run_planner(*args, command=["/bin/sh", "-c", 'exec "$0" "$@" >&-', PLANNER],
                         text=False, timeout=SECONDS)
    assert result.returncode == 1
    assert result.stderr.decode() == CLOSED
    assert snapshot(records) == before  # no run started, nothing written


# --- a reader that stopped reading: broken pipe -------------------------------------------------


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_broken_pipe_ends_in_one_line(records: Path, args: list[str]) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = run_planner(*args, stdout=write_end, text=False, timeout=SECONDS)
    finally:
        os.close(write_end)
    assert result.returncode == 1
    # README "中文界面": a closed pipe is quiet; the exit code alone says the output was cut off.
    assert error_lines(result.stderr) == []
    assert "Traceback" not in result.stderr.decode()
    assert_no_run_left_running(records)
    if args == ["--demo"]:
        # With no terminal the demo is a cancel: it ran to its end, recorded as such.
        (demo,) = [f for f in run_dirs(records) if f.name != RUN_ID]
        assert read_summary(demo)["status"] == "complete"
        assert read_summary(demo)["tool_result"] == {"status": "cancelled"}


@pytest.mark.slow
@pytest.mark.terminal
def test_broken_pipe_during_the_demo_in_a_terminal(home: Path) -> None:
    """The person still sees the plan where SAVE is asked; the run ends complete, saved."""
    child, log = spawn("-c", BROKEN_PIPE, PLANNER, "--demo", program=sys.executable, home=home,
                       columns=100, encoding=None, timeout=SECONDS)
    child.expect_exact(SAVE_PROMPT.encode())
    assert b"Proposed plan (simulated model)" in log.text()
    child.sendline(b"SAVE")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    shown = plain(log.text())
    assert "Traceback" not in shown
    # quiet (README "中文界面")
    assert "its reader stopped reading" not in shown and LOST not in shown
    (folder,) = run_dirs(home)
    run = read_summary(folder)
    relative = f"demo-plans/{folder.name}.json"
    assert run["status"] == "complete" and run["tool_result"] == {"status": "saved",
                                                                   "path": relative}
    assert plan_body(home / relative)["simulated"] is True


# --- a full disk --------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["--demo"], ["--dry-run"], ["runs"], ["show", RUN_ID, "--json"]],
                         ids=["demo", "dry-run", "runs", "show --json"])
def test_full_disk_ends_in_one_line(records: Path, args: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        result = run_planner(*args, stdout=full, text=False, timeout=SECONDS)
    assert result.returncode == 1
    assert error_lines(result.stderr) == [f"{LOST}No space left on device; what was written is "
                                          "incomplete"]
    assert_no_run_left_running(records)


# --- an encoding without CJK --------------------------------------------------------------------

ASCII = {**os.environ, "PYTHONIOENCODING": "ascii"}


@pytest.mark.parametrize("args", COMMANDS.values(), ids=COMMANDS.keys())
def test_ascii_output_is_escaped_not_a_failure(records: Path, args: list[str]) -> None:
    result = run_planner(*args, env=ASCII, text=False, timeout=SECONDS)
    assert result.returncode == 0, result.stderr
    assert error_lines(result.stderr) == []
    assert result.stdout.isascii() and result.stderr.isascii()
    assert_no_run_left_running(records)
    if args[-1] == "--json" or args == ["--dry-run"]:
        # The same JSON value as on a UTF-8 stream, written with \u escapes.
        same = run_planner(*args, env={**os.environ, "PYTHONIOENCODING": "utf-8"}, text=False,
                           timeout=SECONDS)
        start = same.stdout.index(b"{") if args == ["--dry-run"] else 0
        data, utf = json.loads(result.stdout[start:]), json.loads(same.stdout[start:])
        if args == ["--dry-run"]:
            assert data == utf
        else:
            assert json.dumps(data, sort_keys=True).count("\u57fa") \
                == json.dumps(utf, sort_keys=True).count("\u57fa")
    elif args[0] in ("runs", "show"):
        assert b"RAG\\u57fa\\u7840\\u590d\\u4e60" in result.stdout  # the title, escaped


def test_ascii_json_lists_stay_valid_json_beyond_the_bmp(home: Path) -> None:
    write_run(home, RUN_ID, summary(RUN_ID, plan={"title": "复习 \U0001f600", "note_ids": ["N1"],
                                                  "date": "2026-12-05", "minutes": 20}))
    result = run_planner("runs", "--json", env=ASCII, text=False, timeout=SECONDS)
    assert json.loads(result.stdout)[0]["title"] == "复习 \U0001f600"


def test_ascii_show_json_stays_valid_json_beyond_the_bmp(home: Path) -> None:
    title = "复习 \U0001f600 \u202e"
    write_run(home, RUN_ID, summary(RUN_ID, plan={"title": title, "note_ids": ["N1"],
                                                  "date": "2026-12-05", "minutes": 20}))
    result = run_planner("show", RUN_ID, "--json", env=ASCII, text=False, timeout=SECONDS)
    assert result.returncode == 0 and result.stdout.isascii()
    assert json.loads(result.stdout)["summary"]["plan"]["title"] == title


@pytest.mark.slow
@pytest.mark.terminal
def test_ascii_demo_in_a_terminal_keeps_the_panel_in_shape(home: Path) -> None:
    child, log = spawn("--demo", home=home, columns=80, measure=True, encoding=None,
                       timeout=SECONDS, PYTHONIOENCODING="ascii")
    child.expect_exact(SAVE_PROMPT.encode())
    plan = plain(log.text(), "ascii")
    child.sendline(b"SAVE")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Title    RAG\\u57fa\\u7840\\u590d\\u4e60" in plan
    panel = [line for line in plan.split("\n") if line[:1] in "+|"]
    # Escaped before measuring: every line of the box as wide as its border, within 80.
    assert panel and len({cell_len(line) for line in panel}) == 1
    assert cell_len(panel[0]) <= 80
    (folder,) = run_dirs(home)
    assert read_summary(folder)["status"] == "complete"
    assert (home / "demo-plans" / f"{folder.name}.json").is_file()
