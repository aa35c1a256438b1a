"""Faults on purpose: kill the run at each step, fail each file operation in turn."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from conftest import ROOT, all_files, plan_body, read_summary, run_dirs, run_planner
from terminal import spawn
from typer.testing import CliRunner

from planner import ui
from planner.base import storage
from planner.base.inert import short_values
from planner.cli.app import app
from planner.ui.conversation import SAVE_PROMPT

# fault injection: runs killed or failed at every step
pytestmark = pytest.mark.slow

DRIVER = str(ROOT / "tests" / "fault_driver.py")


def drive(spec: dict, *args: str, home: Path) -> subprocess.CompletedProcess:
    """Run planner through the fault driver, with no terminal."""
    return run_planner("--home", str(home), *args,
                       command=[sys.executable, DRIVER, json.dumps(spec), "--"])


def check_truthful(home: Path) -> dict:
    """Records parse, no plan is partial, a plan exists only where the intent says so."""
    (folder,) = run_dirs(home)
    for path in all_files(home / "tool-records"):
        if not path.name.endswith(".tmp"):
            json.loads(path.read_text(encoding="utf-8"))
    summary = read_summary(folder)
    for plan in all_files(home / "demo-plans"):
        assert plan_body(plan) == {"simulated": True, "plan": summary["plan"]}
        assert summary["approved"] is True and summary["target"] == f"demo-plans/{plan.name}"
        assert summary["stage"] in ("executing", "explaining", "done")
    return summary


KILL_POINTS = {
    "during-call-1": ("requesting", False),
    "at-prompt": ("confirming", False),
    "after-intent": ("executing", False),
    "after-plan-write": ("executing", True),
    "during-call-2": ("explaining", True),
}


@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_sigkill_at_each_step_leaves_truthful_records(home: Path, point: str) -> None:
    result = drive({"answer": "SAVE", "kill": point}, "--demo", home=home)
    assert result.returncode == -signal.SIGKILL, result.stderr
    stage, plan_exists = KILL_POINTS[point]
    summary = check_truthful(home)
    assert summary["status"] == "running" and summary["stage"] == stage
    assert (home / "demo-plans").exists() and any((home / "demo-plans").iterdir()) or \
        not plan_exists
    if not plan_exists:
        assert not (home / "demo-plans").exists() or not any((home / "demo-plans").iterdir())
    listed = run_planner("--home", str(home), "runs", "--json", stdin=None, new_session=False)
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    assert row["status"] == "interrupted"


@pytest.mark.terminal
def test_sigkill_at_the_real_prompt(home: Path) -> None:
    child, _ = spawn("--demo", home=home, columns=None)
    child.expect_exact(SAVE_PROMPT)
    child.kill(signal.SIGKILL)
    child.expect(pexpect.EOF)
    child.close()
    assert child.signalstatus == signal.SIGKILL
    summary = check_truthful(home)
    assert summary["stage"] == "confirming" and summary["tool_result"] is None


class FaultyOS:
    """The os module as storage sees it, except that the Nth call of one operation fails."""

    def __init__(self, operation: str, nth: int, code: int) -> None:
        self.operation, self.nth, self.code, self.count = operation, nth, code, 0

    def __getattr__(self, name: str):
        real = getattr(os, name)
        if name != self.operation:
            return real

        def maybe_fail(*args, **kwargs):
            if args and str(args[0]).endswith("config.json"):
                # Only the run's own file operations are failed here; reading the config is
                # tested in test_config.py and test_hostile_files.py.
                return real(*args, **kwargs)
            self.count += 1
            if self.count == self.nth:
                raise OSError(self.code, os.strerror(self.code))
            return real(*args, **kwargs)

        return maybe_fail


OPERATIONS = ["mkdir", "open", "write", "fsync", "replace", "chmod"]


def demo_in_process(home: Path, monkeypatch: pytest.MonkeyPatch, faulty: FaultyOS | None):
    """`planner --demo` in this process, answering SAVE, with storage's os swapped."""
    # SAVE at the SAVE prompt; Enter at any later prompt.
    monkeypatch.setattr(ui, "read_tty_line", lambda prompt, discard_typed_ahead=False:
                        "SAVE\n" if prompt.endswith(SAVE_PROMPT) else "\n")
    monkeypatch.setattr(ui, "read_edited_line", lambda prompt, **_: "\n")  # Enter elsewhere
    monkeypatch.setattr(ui, "has_terminal", lambda: True)
    if faulty is not None:
        monkeypatch.setattr(storage, "os", faulty)
    result = CliRunner().invoke(app, ["--home", str(home), "--demo"])
    monkeypatch.setattr(storage, "os", os)
    return result


def count_operations(home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many times a whole saved demo run calls each file operation."""
    counts = {}
    for operation in OPERATIONS:
        fresh = home / operation
        fresh.mkdir()
        probe = FaultyOS(operation, 0, errno.EIO)
        result = demo_in_process(fresh, monkeypatch, probe)
        assert result.exit_code == 0, result.output
        counts[operation] = probe.count
    return counts


def fault_cases() -> list[tuple[str, int, int]]:
    """Every file operation of a saved run, each failed in turn with ENOSPC, EIO or EACCES."""
    # Counted from one saved demo run (test_operation_counts_are_known keeps this honest).
    counts = EXPECTED_COUNTS
    codes = [errno.ENOSPC, errno.EIO, errno.EACCES]
    return [
        (operation, nth, codes[(index + nth) % len(codes)])
        for index, operation in enumerate(OPERATIONS)
        for nth in range(1, counts[operation] + 1)
    ]


EXPECTED_COUNTS = {"mkdir": 3, "open": 15, "write": 14, "fsync": 15, "replace": 13, "chmod": 3}


def test_operation_counts_are_known(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert count_operations(home, monkeypatch) == EXPECTED_COUNTS


@pytest.mark.parametrize(("operation", "nth", "code"), fault_cases())
def test_failing_each_file_operation(
    home: Path, monkeypatch: pytest.MonkeyPatch, operation: str, nth: int, code: int
) -> None:
    result = demo_in_process(home, monkeypatch, FaultyOS(operation, nth, code))
    output = result.output
    assert "Traceback" not in output, output
    assert result.exception is None or isinstance(result.exception, SystemExit), output
    assert result.exit_code == 1, output
    assert output.count("Error:") == 1 and os.strerror(code) in output
    folders = run_dirs(home)
    leftovers = [p for p in all_files(home) if p.name.endswith(".tmp")]
    assert leftovers == []
    if not folders:
        assert "could not write the run's records" in output
        return
    summary = check_truthful(home)
    plans = all_files(home / "demo-plans")
    requests = [p for p in folders[0].iterdir() if p.name.endswith("-request.json")]
    if summary["tool_result"] and summary["tool_result"]["status"] == "failed":
        assert plans == [] and len(requests) == 1  # no second call after a failed plan write
    if summary["status"] == "stopped":
        # The screen's line is the recorded one, long values cut as every echoed value is.
        assert summary["error"] and short_values(summary["error"]) in " ".join(output.split())
