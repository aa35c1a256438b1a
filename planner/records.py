"""A run's records: its folder, request and response files, and summary.json."""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path

from planner import storage

RECORDS_DIR = "tool-records"
SUMMARY = "summary.json"
RECORD_VERSION = 2  # 2 adds `steps`: the conversation, step by step (SPEC 10)


def now_iso() -> str:
    """The current time, local zone, ISO 8601 with milliseconds."""
    return _dt.datetime.now().astimezone().isoformat(timespec="milliseconds")


def new_run_id() -> str:
    """A run ID that sorts by creation time (UTC) and is unique through its random tail."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return f"{stamp}-{os.urandom(3).hex()}"


def process_start_ticks(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot), to tell it from a reused pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


class RunRecord:
    """The records of one run; every change rewrites summary.json atomically."""

    def __init__(self, folder: Path, summary: dict) -> None:
        self.folder = folder
        self.summary = summary

    @classmethod
    def start(cls, home: Path, **fields: object) -> RunRecord:
        """Create the run's private folder and its first summary (status running)."""
        records = home / RECORDS_DIR
        storage.ensure_dir(records)
        while True:
            run_id = new_run_id()
            try:
                storage.make_private_dir(records / run_id)
                break
            except FileExistsError:  # same microsecond and same random tail: draw again
                continue
        created = now_iso()
        summary = {
            "version": RECORD_VERSION,
            "run_id": run_id,
            "mode": None,
            "simulated": None,
            "status": "running",
            "stage": "requesting",
            "request": None,
            "model": None,
            "base_url": None,
            "approved": None,
            "plan": None,
            "target": None,
            "tool_result": None,
            "calls": [],
            "steps": [],
            "error": None,
            "created_at": created,
            "updated_at": created,
            # Lets `planner runs` tell a live run from one whose process was killed.
            "pid": os.getpid(),
            "process_start": process_start_ticks(os.getpid()),
        }
        summary.update(fields)
        record = cls(records / run_id, summary)
        try:
            record.save()
        except BaseException:
            # No summary, no run: leave no empty folder that would read as a damaged run.
            storage.remove_empty_dir(record.folder)
            raise
        return record

    @property
    def run_id(self) -> str:
        return self.summary["run_id"]

    def save(self, **changes: object) -> None:
        """Apply changes to the summary and rewrite it atomically."""
        self.summary.update(changes)
        self.summary["updated_at"] = now_iso()
        storage.write_atomic(self.folder / SUMMARY, storage.to_json(self.summary))

    def write_file(self, name: str, data: object) -> None:
        """Write one request or response record atomically."""
        storage.write_atomic(self.folder / name, storage.to_json(data))


def call_file_names(number: int) -> tuple[str, str]:
    """The request and response record names of call `number`: 01-request.json, ..."""
    return f"{number:02d}-request.json", f"{number:02d}-response.json"
