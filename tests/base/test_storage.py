"""Exclusive plan writes and atomic records: never overwrite, never follow a link."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from conftest import read_summary, run_dirs
from people import ScriptedPerson

from planner.base import storage
from planner.base.config import Config
from planner.conversation.demo import explanation_reply, proposal_reply
from planner.conversation.flow import run_flow
from planner.model.client import ScriptedClient
from planner.notes.catalog import SAMPLE_NOTES
from planner.records import run_record as records


def fingerprint(path: Path) -> tuple:
    """What a path is and holds, without following links."""
    if path.is_symlink():
        return ("link", os.readlink(path))
    if path.is_dir():
        return ("dir", sorted(p.name for p in path.iterdir()))
    return ("file", hashlib.sha256(path.read_bytes()).hexdigest())


def make_existing(kind: str, path: Path, elsewhere: Path) -> None:
    """Put something of `kind` where a new file is about to be written."""
    if kind == "file":
        path.write_text('{"simulated": false, "plan": "the person\'s earlier plan"}')
    elif kind == "symlink":
        elsewhere.write_text("a file the link points to")
        path.symlink_to(elsewhere)
    elif kind == "dangling-symlink":
        # To a file not there yet in a folder that is: a write that followed the link would
        # succeed and create it, so the test fails if the link is ever followed.
        assert elsewhere.parent.is_dir() and not os.path.lexists(elsewhere)
        path.symlink_to(elsewhere)
    else:
        path.mkdir()
        (path / "inside").write_text("x")


KINDS = ["file", "symlink", "dangling-symlink", "folder"]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """An empty folder of its own (tmp_path also holds the home folder)."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("kind", KINDS)
def test_create_exclusive_refuses_and_leaves_the_target_untouched(
    work: Path, kind: str
) -> None:
    target = work / "plan.json"
    make_existing(kind, target, work / "other")
    before = fingerprint(target)
    other_before = fingerprint(work / "other") if (work / "other").exists() else None
    with pytest.raises(OSError):
        storage.create_exclusive(target, b"new")
    assert fingerprint(target) == before
    if other_before is not None:
        assert fingerprint(work / "other") == other_before
    if kind == "dangling-symlink":
        assert not os.path.lexists(work / "other")  # nothing was written through the link


@pytest.mark.parametrize("kind", KINDS)
def test_flow_refuses_an_existing_target(
    home: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    run_id = "20260101T000000000000Z-abcdef"
    monkeypatch.setattr(records, "new_run_id", lambda: run_id)
    (home / "demo-plans").mkdir()
    target = home / "demo-plans" / f"{run_id}.json"
    make_existing(kind, target, home / "other")
    before = fingerprint(target)
    client = ScriptedClient([proposal_reply(), explanation_reply])
    outcome = run_flow("x", client=client, person=ScriptedPerson(["SAVE\n"]), home=home,
                       config=Config(), notes=SAMPLE_NOTES, mode="demo")
    assert (outcome.status, outcome.exit_code) == ("stopped", 1)
    assert "could not save the plan" in outcome.error
    assert fingerprint(target) == before
    if kind == "dangling-symlink":
        assert not os.path.lexists(home / "other")  # nothing was written through the link
    assert len(client.requests) == 1
    summary = read_summary(run_dirs(home)[0])
    assert summary["tool_result"]["status"] == "failed"


def test_atomic_write_replaces_whole_and_leaves_no_temporary(work: Path) -> None:
    path = work / "summary.json"
    storage.write_atomic(path, b"one")
    storage.write_atomic(path, b"two")
    assert path.read_bytes() == b"two"
    assert [p.name for p in work.iterdir()] == ["summary.json"]
    assert path.stat().st_mode & 0o777 == 0o600


def test_atomic_write_failure_keeps_the_old_file(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = work / "summary.json"
    storage.write_atomic(path, b"old")

    def no_space(fd: int, data: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", no_space)
    with pytest.raises(OSError):
        storage.write_atomic(path, b"new")
    monkeypatch.undo()
    assert path.read_bytes() == b"old"
    assert [p.name for p in work.iterdir()] == ["summary.json"]


def test_partial_plan_is_removed_when_the_write_fails(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_space(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    with pytest.raises(OSError):
        storage.create_exclusive(work / "plan.json", b"{}")
    monkeypatch.undo()
    assert list(work.iterdir()) == []


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_private_modes_whatever_the_umask(work: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        folder = work / "run"
        storage.make_private_dir(folder)
        storage.write_atomic(folder / "a.json", b"{}")
        storage.create_exclusive(folder / "b.json", b"{}")
    finally:
        os.umask(old)
    assert folder.stat().st_mode & 0o777 == 0o700
    assert (folder / "a.json").stat().st_mode & 0o777 == 0o600
    assert (folder / "b.json").stat().st_mode & 0o777 == 0o600
