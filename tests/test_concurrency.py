"""Many runs at once in one home, and private modes under any umask."""

from __future__ import annotations

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
    # Study hours with room for all sixteen 20-minute sessions, whichever order they save in
    # (the default 19:00-22:00 holds nine: a later run would find its day full, README "Your week").
    (home / "config.json").write_text('{"study_hours": {"daily": ["08:00-22:00"]}}')
    runs = [start(home) for _ in range(RUNS_AT_ONCE)]
    for run in runs:
        _, stderr = run.communicate(timeout=120)
        assert run.returncode == 0, stderr
    folders = run_dirs(home)
    assert len({folder.name for folder in folders}) == RUNS_AT_ONCE
    plans = sorted((home / "demo-plans").iterdir())
    assert [plan.stem for plan in plans] == [folder.name for folder in folders]
    for folder in folders:
        summary = read_summary(folder)
        assert summary["run_id"] == folder.name and summary["status"] == "complete"
        assert summary["tool_result"] == {"status": "saved",
                                          "path": f"demo-plans/{folder.name}.json"}
        for path in folder.iterdir():
            json.loads(path.read_text(encoding="utf-8"))
        request = json.loads((folder / "02-request.json").read_text(encoding="utf-8"))
        assert folder.name in request["messages"][-1]["content"]  # its own result, not another's
    assert [p for p in all_files(home) if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077], ids=["000", "022", "077"])
def test_private_modes_under_umask(home: Path, umask: int) -> None:
    run = start(home, umask)
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 0, stderr
    for folder in [home / "tool-records", home / "demo-plans", *run_dirs(home)]:
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    for path in all_files(home):
        assert path.stat().st_mode & 0o777 == 0o600, path
