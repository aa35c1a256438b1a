"""Saved plan files in a test home, written by planner's own plan_file_content: the bytes it
writes."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from conftest import today

from planner.base.days import read_clock, read_date
from planner.notes.catalog import SAMPLE_NOTES, Note
from planner.plans.files import SavedReadiness, plan_file_content
from planner.plans.plan import ReviewPlan, ReviewSeries
from planner.plans.study import Proposal, Session, StudyPlan

NOTES = {note.id: note for note in SAMPLE_NOTES}
# Planner never reads a plan's created_at back (only checks its form), so one time serves all.
CREATED = "2026-11-30T10:00:00.000+08:00"


def day(offset: int, zone: str | None = None) -> str:
    """The date `offset` days from today (in `zone`, as conftest.today), as YYYY-MM-DD."""
    return (today(zone) + _dt.timedelta(days=offset)).isoformat()


def plan(offset: int = 0, note_ids: Sequence[str] = ("N1", "N2"), minutes: int = 20,
         title: str = "RAG基础复习", start: str | None = None,
         zone: str | None = None) -> ReviewPlan:
    """A review plan `offset` days from today."""
    return review_plan(title, note_ids, day(offset, zone), minutes, start)


def series(*offsets: int, note_ids: Sequence[str] = ("N1", "N2"), minutes: int = 20,
           title: str = "间隔复习") -> ReviewSeries:
    """A review series with a session on each of the days `offsets` from today."""
    return review_series(title, note_ids, [day(offset) for offset in offsets], minutes)


def session(date: str, minutes: int, note_ids: Sequence[str], start: str | None = None
            ) -> Session:
    """A study session from the text a plan file holds (YYYY-MM-DD, HH:MM): typed values."""
    return Session(read_date(date), minutes, tuple(note_ids),
                   None if start is None else read_clock(start))


def review_plan(title: str, note_ids: Sequence[str], date: str, minutes: int,
                start: str | None = None) -> ReviewPlan:
    """A review plan from the text a plan file holds: typed values."""
    return ReviewPlan(title, tuple(note_ids), read_date(date), minutes,
                      None if start is None else read_clock(start))


def review_series(title: str, note_ids: Sequence[str], dates: Sequence[str], minutes: int,
                  start: str | None = None) -> ReviewSeries:
    """A review series from the text a plan file holds: typed values."""
    return ReviewSeries(title, tuple(note_ids), tuple(read_date(each) for each in dates),
                        minutes, None if start is None else read_clock(start))


def study_plan(*sessions: Session, title: str = "Exam") -> StudyPlan:
    """A study plan of these sessions."""
    return StudyPlan(title, tuple(sessions))


def write_plan(home: Path, run_id: str, proposal: Proposal, folder: str = "plans",
               simulated: bool = False, *, notes: Mapping[str, Note] | Sequence = NOTES,
               created_at: str = CREATED, goal: str | None = None,
               readiness: SavedReadiness | None = None) -> Path:
    """Write `<folder>/<run_id>.json` (plans/ or demo-plans/) as planner saves it.

    `notes`: a mapping by ID, of which the plan's own notes are written in its order, or the
    notes to write as they are (objects with `id` and `title`). `readiness`: a study plan's
    when saved (version 5)."""
    path = home / folder / f"{run_id}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(plan_bytes(run_id, proposal, simulated, notes=notes, created_at=created_at,
                                goal=goal, readiness=readiness))
    return path


def plan_bytes(run_id: str, proposal: Proposal, simulated: bool = False, *,
               notes: Mapping[str, Note] | Sequence = NOTES, created_at: str = CREATED,
               goal: str | None = None, readiness: SavedReadiness | None = None) -> bytes:
    """The content of the plan file write_plan writes, for a test that saves it another way."""
    written = ([notes[note_id] for note_id in proposal.note_ids] if isinstance(notes, Mapping)
               else list(notes))
    return plan_file_content(proposal, simulated=simulated, run_id=run_id,
                             created_at=created_at, notes=written, goal=goal,
                             readiness=readiness)


def save_review(home: Path, run_id: str, offset: int, minutes: int = 20,
                note_ids: Sequence[str] = ("N1", "N2"), title: str = "RAG基础复习",
                folder: str = "plans", simulated: bool = False, zone: str | None = None) -> Path:
    """A version-2 plan file `offset` days from today (in `zone`): write_plan of plan()."""
    return write_plan(home, run_id, plan(offset, note_ids, minutes, title, zone=zone), folder,
                      simulated)


def write_raw(home: Path, name: str, content: object, folder: str = "plans") -> Path:
    """A file `name` in the plans folder with any content: bytes as they are, anything else as
    JSON (a broken or hostile plan file)."""
    path = home / folder / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
    return path
