"""The SAVE prompt in a real pseudo-terminal: only the exact line SAVE saves."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pexpect
import pytest
from conftest import PLANNER, read_summary, run_dirs

from planner.ui import SAVE_PROMPT


def spawn(home: Path, command: str | None = None) -> pexpect.spawn:
    """Start `planner --demo` attached to a new pseudo-terminal."""
    command = command or f"exec {PLANNER} --demo"
    return pexpect.spawn("/bin/sh", ["-c", command], cwd=str(home), encoding="utf-8",
                         timeout=30, dimensions=(40, 120))


def finish(child: pexpect.spawn) -> tuple[int, str]:
    """Wait for the end; return the exit status and everything printed."""
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus, child.before


def plans(home: Path) -> list[Path]:
    folder = home / "demo-plans"
    return sorted(folder.iterdir()) if folder.exists() else []


def test_save_writes_the_plan(home: Path) -> None:
    child = spawn(home)
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


@pytest.mark.parametrize("answer", ["", "yes", "SAVE SAVE", "no"])
def test_anything_else_cancels(home: Path, answer: str) -> None:
    child = spawn(home)
    child.expect_exact(SAVE_PROMPT)
    child.sendline(answer)
    status, output = finish(child)
    assert status == 0
    assert "Cancelled: nothing saved." in output
    assert plans(home) == []
    summary = read_summary(run_dirs(home)[0])
    assert summary["approved"] is False and summary["tool_result"] == {"status": "cancelled"}


def test_end_of_input_cancels(home: Path) -> None:
    child = spawn(home)
    child.expect_exact(SAVE_PROMPT)
    child.sendeof()
    status, output = finish(child)
    assert status == 0 and "Cancelled: nothing saved." in output
    assert plans(home) == []


def test_ctrl_c_stops_with_130_and_saves_nothing(home: Path) -> None:
    child = spawn(home)
    child.expect_exact(SAVE_PROMPT)
    child.sendintr()
    status, output = finish(child)
    assert status == 130
    assert "interrupted (Ctrl+C)" in output and "Traceback" not in output
    assert plans(home) == []
    summary = read_summary(run_dirs(home)[0])
    assert summary["status"] == "stopped" and summary["tool_result"] is None


def test_piped_save_is_ignored_the_terminal_decides(home: Path) -> None:
    child = spawn(home, f"echo SAVE | {PLANNER} --demo")
    child.expect_exact(SAVE_PROMPT)
    child.sendline("no")
    status, output = finish(child)
    assert status == 0 and "Cancelled: nothing saved." in output
    assert plans(home) == []


def test_no_terminal_is_a_cancel(home: Path) -> None:
    result = subprocess.run([PLANNER, "--demo"], input="SAVE\n", capture_output=True,
                            text=True, start_new_session=True, timeout=60)
    assert result.returncode == 0
    assert "No terminal to confirm on: treated as cancel." in result.stdout
    assert plans(home) == []
    assert read_summary(run_dirs(home)[0])["tool_result"] == {"status": "cancelled"}


def test_dry_run_in_a_terminal_asks_for_no_key_and_writes_nothing(home: Path) -> None:
    child = spawn(home, f"exec {PLANNER} --dry-run")
    status, output = finish(child)
    assert status == 0
    assert "input hidden" not in output and '"tool_choice": "auto"' in output
    assert list(home.iterdir()) == []
