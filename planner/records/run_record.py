"""A run's records as the flow writes them: its folder in tool-records/, its request and
response files, and its summary.json (typed in planner.records.summary), rewritten on each save.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from planner.base import storage
from planner.base.i18n import Lines, Message, encoded
from planner.records.summary import CallEntry, RunSummary, Step, to_json

RECORDS_DIR = "tool-records"
SUMMARY = "summary.json"
# Each program line of summary.json with its template and values (README "Records"), so
# `planner show` says it again in the person's language.
MESSAGES = "messages.json"


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


# --- The records of one run, as the flow writes them --------------------------------------------


class RunRecord:
    """The records of one run; every save rewrites summary.json atomically."""

    def __init__(self, folder: Path, summary: RunSummary) -> None:
        self.folder = folder
        self.summary = summary
        self.messages: dict[str, dict[str, Any]] = {}  # as messages.json holds them

    @classmethod
    def start(cls, home: Path, **fields: Any) -> RunRecord:
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
        summary = RunSummary(
            run_id, "running", stage="requesting", created_at=created, updated_at=created,
            pid=os.getpid(), process_start=process_start_ticks(os.getpid()),
        )._replace(**fields)
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
        return self.summary.run_id

    def change(self, **changes: Any) -> None:
        """Change the summary in memory; the next save writes it."""
        self.summary = self.summary._replace(**changes)

    def add_step(self, step: Step) -> None:
        """Add a step to the summary; it is written with the next save."""
        self.summary = self.summary._replace(steps=(*self.summary.steps, step))

    def add_call(self, entry: CallEntry) -> None:
        """Add a call's entry to the summary; it is written with the next save."""
        self.summary = self.summary._replace(calls=(*self.summary.calls, entry))

    def update_call(self, entry: CallEntry) -> None:
        """Replace the last call's entry (its duration, usage or error came in)."""
        calls: Sequence[CallEntry] = self.summary.calls
        self.summary = self.summary._replace(calls=(*calls[:-1], entry))

    def save(self, **changes: Any) -> None:
        """Apply changes to the summary and rewrite it atomically."""
        self.summary = self.summary._replace(**changes, updated_at=now_iso())
        data = to_json(self.summary)
        messages = recorded_messages(data)
        if messages != self.messages:
            # Before the summary: every line summary.json holds has its template on disk.
            storage.write_atomic(self.folder / MESSAGES, storage.to_json(messages))
            self.messages = messages
        storage.write_atomic(self.folder / SUMMARY, storage.to_json(data))

    def write_file(self, name: str, data: object) -> None:
        """Write one request or response record atomically."""
        storage.write_atomic(self.folder / name, storage.to_json(data))


def recorded_messages(data: object) -> dict[str, dict[str, Any]]:
    """Every program line in `data` (a summary's JSON value), by its English words."""
    found: dict[str, dict[str, Any]] = {}
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, Message):
            found.setdefault(value, encoded(value))
        elif isinstance(value, Lines):
            stack.extend(value.parts)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple)):
            stack.extend(value)
    return dict(sorted(found.items()))


def call_file_names(number: int) -> tuple[str, str]:
    """The request and response record names of call `number`: 01-request.json, ..."""
    return f"{number:02d}-request.json", f"{number:02d}-response.json"
