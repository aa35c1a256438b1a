"""Shared fixtures: every test runs in its own home folder with no API key set."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from stub_server import StubServer

ROOT = Path(__file__).resolve().parent.parent
PLANNER = str(Path(sys.executable).with_name("planner"))


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh home folder as the working directory; key variables cleared."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(home)
    for name in list(os.environ):
        if name.endswith("_API_KEY") or name in ("NO_COLOR", "FORCE_COLOR"):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "120")
    return home


def run_dirs(home: Path) -> list[Path]:
    """The run folders under home/tool-records, oldest first."""
    records = home / "tool-records"
    return sorted(p for p in records.iterdir() if p.is_dir()) if records.exists() else []


def read_summary(folder: Path) -> dict:
    """A run's summary.json."""
    return json.loads((folder / "summary.json").read_text(encoding="utf-8"))


def all_files(root: Path) -> list[Path]:
    """Every file under root, recursively, sorted."""
    return sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink())


def plan_body(path: Path) -> dict:
    """What a plan file says was planned: {"simulated", "plan"} (version 2 adds run facts)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 2 and data["run_id"] == path.stem, data
    return {"simulated": data["simulated"], "plan": data["plan"]}


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy configured on the machine must not carry the test traffic to 127.0.0.1."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")


@pytest.fixture
def server():
    """A scripted Chat Completions server on 127.0.0.1, stopped after the test."""
    with StubServer() as stub:
        yield stub
