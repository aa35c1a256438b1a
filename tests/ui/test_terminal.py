"""A real pseudo-terminal: the SAVE prompt (only the exact line SAVE saves), and everyday use:
tables at 80 and 120 columns, the demo screen, the line shown while the model thinks."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pexpect
import pytest
from conftest import PLANNER, all_files, read_summary, run_dirs, run_planner, today
from rich.cells import cell_len
from run_records import call, summary, write_run
from stub_server import Reply, StubServer, text_reply, tool_call_reply, usage
from terminal import finish_with_output as finish
from terminal import screen_lines, spawn, spawn_shell

from planner.ui.conversation import SAVE_PROMPT

# pseudo-terminals and waiting lines
pytestmark = [pytest.mark.slow, pytest.mark.terminal]


def demo(home: Path, command: str = f"exec {PLANNER} --demo") -> pexpect.spawn:
    """`planner --demo` (or a shell command line around planner) in a 120-column terminal."""
    child, _ = spawn_shell(command, home=home, columns=120, rows=40)
    return child


def plans(home: Path) -> list[Path]:
    folder = home / "demo-plans"
    return sorted(folder.iterdir()) if folder.exists() else []


def test_save_writes_the_plan(home: Path) -> None:
    child = demo(home)
    child.expect_exact(SAVE_PROMPT)
    child.sendline("SAVE")
    status, output = finish(child)
    assert status == 0
    (folder,) = run_dirs(home)
    assert f"Saved to demo-plans/{folder.name}.json" in output
    assert output.index("Saved to") < output.index("Simulated model explanation")
    (plan,) = plans(home)
    assert json.loads(plan.read_text())["simulated"] is True
    summary = read_summary(folder)
    assert summary["approved"] is True and summary["tool_result"]["status"] == "saved"


# "yes" is a near miss since README "中文界面": named and asked again, so it is not among these.
@pytest.mark.parametrize("answer", ["", "ok", "SAVE SAVE", "no"])
def test_anything_else_cancels(home: Path, answer: str) -> None:
    child = demo(home)
    child.expect_exact(SAVE_PROMPT)
    child.sendline(answer)
    status, output = finish(child)
    assert status == 0
    assert "Cancelled: nothing saved." in output
    assert plans(home) == []
    summary = read_summary(run_dirs(home)[0])
    assert summary["approved"] is False and summary["tool_result"] == {"status": "cancelled"}


def test_end_of_input_cancels(home: Path) -> None:
    child = demo(home)
    child.expect_exact(SAVE_PROMPT)
    child.sendeof()
    status, output = finish(child)
    assert status == 0 and "Cancelled: nothing saved." in output
    assert plans(home) == []


def test_ctrl_c_stops_with_130_and_saves_nothing(home: Path) -> None:
    child = demo(home)
    child.expect_exact(SAVE_PROMPT)
    child.sendintr()
    status, output = finish(child)
    assert status == 130
    assert "interrupted (Ctrl+C)" in output and "Traceback" not in output
    assert plans(home) == []
    summary = read_summary(run_dirs(home)[0])
    assert summary["status"] == "stopped" and summary["tool_result"] is None


def test_piped_save_is_ignored_the_terminal_decides(home: Path) -> None:
    child = demo(home, f"echo SAVE | {PLANNER} --demo")
    child.expect_exact(SAVE_PROMPT)
    child.sendline("no")
    status, output = finish(child)
    assert status == 0 and "Cancelled: nothing saved." in output
    assert plans(home) == []


def test_no_terminal_is_a_cancel(home: Path) -> None:
    result = run_planner("--demo", input="SAVE\n")
    assert result.returncode == 0
    assert "No terminal to confirm on: treated as cancel." in result.stdout
    assert plans(home) == []
    assert read_summary(run_dirs(home)[0])["tool_result"] == {"status": "cancelled"}


def test_dry_run_in_a_terminal_asks_for_no_key_and_writes_nothing(home: Path) -> None:
    child = demo(home, f"exec {PLANNER} --dry-run")
    status, output = finish(child)
    assert status == 0
    assert "input hidden" not in output and '"tool_choice": "auto"' in output
    assert list(home.iterdir()) == []


# --- Everyday use in a real terminal: widths, the demo screen, the waiting line (README "Looking
# back") ------


def at_width(home: Path, columns: int, *args: str, **env: str) -> pexpect.spawn:
    """`planner ARGS` in a pseudo-terminal `columns` wide; COLUMNS unset, so Rich asks it.

    Everything shown is in `child.logfile_read.text()`.
    """
    child, _ = spawn(*args, home=home, columns=columns, rows=60, measure=True, **env)
    return child


def fits(lines: list[str], columns: int) -> None:
    too_wide = [line for line in lines if cell_len(line) > columns]
    assert not too_wide, too_wide


def everyday_runs(home: Path) -> None:
    """A saved, a cancelled demo, a no-plan, a stopped and a long-titled run."""
    write_run(home, "20261101T000000000000Z-saved0", summary("20261101T000000000000Z-saved0"))
    write_run(home, "20261102T000000000000Z-notool", summary(
        "20261102T000000000000Z-notool", status="no_tool", plan=None, approved=None,
        tool_result=None, target=None, question="Which date?", explanation=None))
    write_run(home, "20261103T000000000000Z-stop00", summary(
        "20261103T000000000000Z-stop00", status="stopped", stage="requesting", plan=None,
        approved=None, tool_result=None, target=None,
        calls=[call(1, None, error="HTTP 503: the server is overloaded right now")],
        error="the model is overloaded (HTTP 503); try again later"))
    write_run(home, "20261104T000000000000Z-long00", summary(
        "20261104T000000000000Z-long00", plan={
            "title": "检索增强生成的基础知识与向量数据库的切分策略、召回评估以及重排序的复习",
            "note_ids": ["N1"], "date": "2026-12-01", "minutes": 30}))
    write_run(home, "20261105T000000000000Z-demo00", summary(
        "20261105T000000000000Z-demo00", mode="demo", simulated=True, model=None, base_url=None,
        approved=False, tool_result={"status": "cancelled"}, target=None,
        calls=[call(1), call(2)]))


@pytest.mark.parametrize("columns", [80, 120])
def test_runs_table_in_a_terminal(home: Path, columns: int) -> None:
    everyday_runs(home)
    before = all_files(home)
    child = at_width(home, columns, "runs")
    status, output = finish(child)
    assert status == 0
    lines = screen_lines(output, redrawn=False)
    fits(lines, columns)
    text = "\n".join(lines)
    header = next(line for line in lines if line.startswith("Run ID"))
    for name in ("Status", "Title", "Cost USD"):
        assert name in header
    for run_id in ("20261101T000000000000Z-saved0", "20261105T000000000000Z-demo00"):
        assert run_id in text  # whole, never cut
    for words in ("saved", "cancelled", "no plan proposed", "stopped", "simulated",
                  "0.000080", "0.000000 +1?", "RAG基础复习", "检索增强"):
        assert words in text, words
    assert "no_tool" not in text
    if columns == 120:
        assert all(name in header for name in ("Time", "Mode", "Calls"))
        assert "2026-11-20 09:00" in text and "Not shown" not in text
    else:
        assert "Not shown at this width" in text
    assert all_files(home) == before


@pytest.mark.parametrize("columns", [80, 120])
def test_costs_table_in_a_terminal(home: Path, columns: int) -> None:
    everyday_runs(home)
    before = all_files(home)
    status, output = finish(at_width(home, columns, "costs"))
    assert status == 0
    lines = screen_lines(output, redrawn=False)
    fits(lines, columns)
    text = "\n".join(lines)
    header = next(line for line in lines if line.startswith("Run ID"))
    assert "Status" in header and "Cost" in header
    assert "20261103T000000000000Z-stop00" in text and "no plan proposed" in text
    assert "total, 4 runs" in text and "Left out: 1 simulated (demo) run(s)." in text
    if columns == 120:
        for name in ("Calls", "Unknown", "Input hit", "Input miss", "Output"):
            assert name in header, name
    else:
        assert "Tokens" in header and "0.000000 +1?" in text
    assert all_files(home) == before


@pytest.mark.parametrize("columns", [80, 120])
def test_show_in_a_terminal(home: Path, columns: int) -> None:
    everyday_runs(home)
    before = all_files(home)
    status, output = finish(at_width(home, columns, "show", "20261103"))
    assert status == 0
    lines = screen_lines(output, redrawn=False)
    fits(lines, columns)
    words = " ".join(" ".join(lines).replace("│", " ").split())
    assert "Status stopped while asking the model" in words
    assert "HTTP 503: the server is overloaded right now" in words  # whole, wrapped if need be
    assert "Stage" not in words and "requesting" not in words
    assert ("01-request.json 01-response.json" in words) == (columns == 120)
    assert all_files(home) == before


@pytest.mark.parametrize("columns", [80, 120])
def test_the_demo_screen_fits_and_has_no_past_date(home: Path, columns: int) -> None:
    child = at_width(home, columns, "--demo")
    child.expect_exact(SAVE_PROMPT)
    child.sendline("SAVE")
    status, _output = finish(child)
    assert status == 0
    lines = screen_lines(child.logfile_read.text(), redrawn=False)
    fits(lines, columns)
    text = "\n".join(lines)
    tomorrow = (today() + dt.timedelta(days=1)).isoformat()
    assert "Proposed plan (simulated model)" in text and f"Date     {tomorrow}" in text
    assert "in the past" not in text and "warning" not in text
    # The demo's replies take no time: no waiting line, and no cost line (nothing is priced).
    assert "Asking" not in text and " · " not in text
    (plan,) = plans(home)
    assert json.loads(plan.read_text())["plan"]["date"] == tomorrow


@pytest.fixture
def slow_server(home: Path):
    """A local model server that thinks for 1.5 s before each reply; config.json points at it."""
    plan = {"title": "RAG basics", "note_ids": ["N1"], "date": "2099-01-05", "minutes": 20}
    with StubServer() as server:
        server.add(Reply(body=tool_call_reply(plan, usage_data=usage(500, 40, hit=None)),
                         delay=1.5),
                   Reply(body=text_reply("Saved.", usage_data=usage(550, 40, hit=None)),
                         delay=1.5))
        (home / "config.json").write_text(json.dumps({"base_url": server.url,
                                                      "model": "slow-model",
                                                      "prices": {"model": "slow-model"}}))
        yield server


LIVE_ENV = {"DEEPSEEK_API_KEY": "sk-test", "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1",
            "TERM": "xterm"}


def test_waiting_line_while_the_model_thinks(home: Path, slow_server: StubServer) -> None:
    child = at_width(home, 80, "-r", "review N1 on 2099-01-05", **LIVE_ENV)
    seen = child.expect_exact([f"Asking slow-model at 127.0.0.1:{slow_server.port}… 1 s",
                               SAVE_PROMPT])
    assert seen == 0, "no waiting line with its seconds before the plan"
    child.expect_exact(SAVE_PROMPT)
    before_prompt = child.before
    child.sendline("SAVE")
    status, _output = finish(child)
    assert status == 0
    # Removed when the reply comes: the line is erased (ESC [2K) before the plan is drawn.
    assert "\x1b[2K" in before_prompt
    lines = screen_lines(child.logfile_read.text(), redrawn=False)
    assert "2 calls · 1,130 tokens · $0.0002" in lines
    assert len(slow_server.requests) == 2
    (folder,) = run_dirs(home)
    assert read_summary(folder)["tool_result"]["status"] == "saved"


def test_no_waiting_line_when_stderr_is_not_the_terminal(
    home: Path, slow_server: StubServer
) -> None:
    child, _ = spawn_shell(f"exec {PLANNER} -r 'review N1' 2>err.txt", home=home, columns=80,
                           rows=40, measure=True, **LIVE_ENV)
    child.expect_exact(SAVE_PROMPT)
    child.sendline("no")
    child.expect_exact("What should change? (Enter to finish): ")
    child.sendline("")
    status, _output = finish(child)
    assert status == 0
    errors = (home / "err.txt").read_text(encoding="utf-8")
    assert "Asking" not in errors + child.logfile_read.text()
    assert "2 calls · 1,130 tokens · $0.0002" in errors.splitlines()
    assert plans(home) == [] and not (home / "plans").exists()
