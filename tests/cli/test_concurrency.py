"""Many runs at once in one home, and private modes under any umask."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, all_files, read_summary, run_dirs

pytestmark = pytest.mark.slow  # many runs at once

DRIVER = str(ROOT / "tests" / "fault_driver.py")
RUNS_AT_ONCE = 16


def start(home: Path, umask: int | None = None) -> subprocess.Popen:
    """A saved demo run through the driver (answers SAVE), with no terminal."""
    return subprocess.Popen(
        [sys.executable, DRIVER, '{"answer": "SAVE"}', "--", "--home", str(home), "--demo"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        start_new_session=True, preexec_fn=None if umask is None else lambda: os.umask(umask),
    )


def test_sixteen_runs_at_once(home: Path) -> None:
    # All sixteen are shown the first free slot of the same day before any of them saves; under
    # the plans folder's lock each SAVE finds the plans saved meanwhile. A run whose slot was
    # taken is refused with one line and tells the model, which cannot repair (the demo's), so
    # the run ends there with nothing saved. Never two plans in one slot.
    (home / "config.json").write_text('{"study_hours": {"daily": ["08:00-22:00"]}}')
    runs = [start(home) for _ in range(RUNS_AT_ONCE)]
    outputs = []
    for run in runs:
        stdout, stderr = run.communicate(timeout=120)
        assert run.returncode == 0, stderr
        outputs.append(stdout.decode("utf-8"))
    folders = run_dirs(home)
    assert len({folder.name for folder in folders}) == RUNS_AT_ONCE
    saved = []
    for folder in folders:
        summary = read_summary(folder)
        assert summary["run_id"] == folder.name
        for path in folder.iterdir():
            json.loads(path.read_text(encoding="utf-8"))
        request = json.loads((folder / "02-request.json").read_text(encoding="utf-8"))
        answer = json.loads(request["messages"][-1]["content"])
        if summary["status"] == "complete":
            assert summary["tool_result"] == {"status": "saved",
                                              "path": f"demo-plans/{folder.name}.json"}
            assert answer == {"status": "saved", "path": f"demo-plans/{folder.name}.json"}
            saved.append(folder.name)
            continue
        # Refused: the person saw why, the model got the rejection, nothing is on disk.
        assert summary["status"] == "no_tool", summary
        assert summary["tool_result"]["status"] == "failed"
        assert "overlaps the saved plan at" in summary["tool_result"]["error"]
        assert answer == {"status": "rejected", "error": summary["tool_result"]["error"]}
        (output,) = [text for text in outputs if folder.name in text]
        line = f"The plan was not saved: {summary['tool_result']['error']} (another run saved " \
               "a plan meanwhile)."
        lines = [text.strip() for text in output.splitlines() if text.strip()]
        assert line in lines and lines[-1] == line, output
    assert saved, "at least the first SAVE finds its slot free"
    plans = sorted((home / "demo-plans").iterdir())
    assert [plan.stem for plan in plans] == sorted(saved)
    sessions = sorted(_session(plan) for plan in plans)
    for before, after in itertools.pairwise(sessions):
        assert before[1] <= after[0], (before, after)  # no two saved plans overlap
    assert [p for p in all_files(home) if p.name.endswith(".tmp")] == []


def _session(path: Path) -> tuple[dt.datetime, dt.datetime]:
    """A saved plan's session: its start and its end."""
    plan = json.loads(path.read_text(encoding="utf-8"))["plan"]
    begins = dt.datetime.fromisoformat(f"{plan['date']}T{plan['start']}")
    return begins, begins + dt.timedelta(minutes=plan["minutes"])


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077], ids=["000", "022", "077"])
def test_private_modes_under_umask(home: Path, umask: int) -> None:
    run = start(home, umask)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 0, stderr
    for folder in [home / "tool-records", home / "demo-plans", *run_dirs(home)]:
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    for path in all_files(home):
        assert path.stat().st_mode & 0o777 == 0o600, path
