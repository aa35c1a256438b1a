"""A plan as a run's records hold it (`plan` of summary.json and of its proposal steps), typed:
a field of the wrong type reads as None, as everywhere in a summary (planner.records.summary)."""

from __future__ import annotations

from typing import Any, NamedTuple

_new = tuple.__new__


class SessionRecord(NamedTuple):
    """One session of a recorded study plan: each field as recorded ("HH:MM" start), None when
    of another type; `recorded`, the session as its plan file holds it, is what is written."""

    date: str | None
    start: str | None
    minutes: int | None
    note_ids: tuple[str, ...] | None
    recorded: dict[str, Any]


def session_record(recorded: dict[str, Any]) -> SessionRecord:
    """A study session as recorded (README "Records"), its fields typed as the screens read
    them: a note ID that is not text as its str()."""
    date, start, minutes, notes = map(recorded.get, SessionRecord._fields[:4])
    return _new(SessionRecord, (
        date if type(date) is str else None, start if type(start) is str else None,
        minutes if type(minutes) is int else None,
        tuple(map(str, notes)) if type(notes) is list else None, recorded))


class PlanRecord(NamedTuple):
    """A proposal as recorded: `plan` of the summary and of a proposal step.

    A series (README "Review memory") has `dates`, its sessions' dates, and no `date`.
    """

    title: str | None
    note_ids: tuple[str, ...] | None
    date: str | None
    minutes: int | None
    dates: tuple[str, ...] | None = None
    start: str | None = None  # "HH:MM" (README "Study hours"), written only when known
    # A study plan's sessions; then no date, dates or start.
    sessions: tuple[SessionRecord, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        notes = None if self.note_ids is None else list(self.note_ids)
        if self.sessions is not None:
            return {"title": self.title, "sessions": [dict(item.recorded)
                                                      for item in self.sessions]}
        if self.dates is not None:
            # As the series' plan file has it: dates in the place of date.
            data = {"title": self.title, "note_ids": notes, "dates": list(self.dates),
                    "minutes": self.minutes}
        else:
            data = {"title": self.title, "note_ids": notes, "date": self.date,
                    "minutes": self.minutes}
        if self.start is not None:
            data["start"] = self.start
        return data


def plan_record(value: object) -> PlanRecord | None:
    """The `plan` of a summary or of a proposal step as recorded; None when not an object."""
    if type(value) is not dict:
        return None
    title, notes, date, minutes, dates, start, sessions = map(value.get, PlanRecord._fields)
    if type(sessions) is list:
        return _study_plan(title, sessions)
    return _new(PlanRecord, (
        title if type(title) is str else None,
        # str() of a note ID that is not text (the screens show it; nothing else reads it).
        tuple(map(str, notes)) if type(notes) is list else None,
        date if type(date) is str else None, minutes if type(minutes) is int else None,
        tuple(map(str, dates)) if type(dates) is list else None,
        start if type(start) is str else None, None,
    ))


def _study_plan(title: object, sessions: list[Any]) -> PlanRecord:
    """A recorded study plan: its sessions, and for the screens the union of their notes,
    their dates and their minutes in all."""
    kept = tuple(session_record(item) for item in sessions if type(item) is dict)
    return _new(PlanRecord, (
        title if type(title) is str else None,
        tuple(dict.fromkeys(note for item in kept for note in item.note_ids or ())),
        None,
        sum(item.minutes for item in kept if item.minutes is not None),
        tuple(str(item.date) for item in kept),
        None, kept,
    ))
