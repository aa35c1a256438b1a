"""The study plan: many sessions, each with its own date, start, minutes and notes.

`save_study_plan` is the third confirmed tool (README, "A study plan to a goal"). Each session's
fields follow the rules of `save_review_plan` exactly (planner.plans.schema); nothing is
converted and unknown fields are refused. The sessions come in time order and no two of them
overlap.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Collection
from typing import Any, NamedTuple

from planner.base.days import clock_text
from planner.base.i18n import t
from planner.plans import schema
from planner.plans.plan import (
    LIMITS,
    RESULT,
    START,
    InvalidArguments,
    ReviewPlan,
    ReviewSeries,
    load_object,
    note_ids_property,
    start_property,
    title_property,
)
from planner.plans.rejections import rejection
from planner.plans.schema import MAX_DAYS_AHEAD, MAX_STUDY_SESSIONS, SESSION_FIELDS, STUDY_FIELDS

STUDY_TOOL_NAME = "save_study_plan"
# 60 sessions of three notes each are about 6 KB of JSON: the arguments' bound for this tool.
MAX_STUDY_BYTES = 16384


class Session(NamedTuple):
    """One session of a study plan: its day, start (local; None until placed), minutes, notes."""

    date: _dt.date
    minutes: int
    note_ids: tuple[str, ...]
    start: _dt.time | None = None

    def as_dict(self) -> dict[str, object]:
        """The session as the plan file holds it (start only when known)."""
        data: dict[str, object] = {"date": self.date.isoformat()}
        if self.start is not None:
            data[START] = clock_text(self.start)
        data["minutes"] = self.minutes
        data["note_ids"] = list(self.note_ids)
        return data


class StudyPlan(NamedTuple):
    """A checked study plan: a title and 1 to 60 sessions in time order."""

    title: str
    sessions: tuple[Session, ...]

    @property
    def days(self) -> tuple[_dt.date, ...]:
        """Every session's date, in order (a day may come twice)."""
        return tuple(session.date for session in self.sessions)

    @property
    def note_ids(self) -> tuple[str, ...]:
        """Every note of the plan once, in the order the sessions first name them."""
        return tuple(dict.fromkeys(note for session in self.sessions
                                   for note in session.note_ids))

    @property
    def minutes(self) -> int:
        """The minutes of all sessions together."""
        return sum(session.minutes for session in self.sessions)

    @property
    def start(self) -> None:
        """A study plan has no common start: each session has its own."""
        return None

    def as_dict(self) -> dict[str, object]:
        """The plan as the JSON object that is saved and recorded."""
        return {"title": self.title,
                "sessions": [session.as_dict() for session in self.sessions]}


def study_tool_definition(note_ids: Collection[str] | None) -> dict[str, Any]:
    """save_study_plan as a Chat Completions `tools` entry; None: IDs not listed (no enum)."""
    session = {
        "type": "object",
        "properties": {
            "date": {"type": "string", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                     "description": "The day, YYYY-MM-DD."},
            START: start_property("the session"),
            "minutes": {"type": "integer", "minimum": 1, "maximum": 120,
                        "description": "Minutes, 1 to 120."},
            "note_ids": note_ids_property(note_ids),
        },
        "required": list(SESSION_FIELDS),
        "additionalProperties": False,
    }
    return {
        "type": "function",
        "function": {
            "name": STUDY_TOOL_NAME,
            "description": (
                "Propose a whole study plan (for example to an exam): 1 to "
                f"{MAX_STUDY_SESSIONS} sessions, each with its own date, minutes and 1 to 3 "
                "notes, in time order, no two overlapping; saved together after one "
                "confirmation. " + LIMITS + " Each session is checked like a single plan "
                "(this plan's sessions of a day count toward its daily minutes). A rejection "
                "names every failing session by its number: correct them all at once. " +
                RESULT),
            "parameters": {
                "type": "object",
                "properties": {
                    "title": title_property(),
                    "sessions": {"type": "array", "items": session, "minItems": 1,
                                 "maxItems": MAX_STUDY_SESSIONS,
                                 "description": "In time order, numbered from 1."},
                },
                "required": list(STUDY_FIELDS),
                "additionalProperties": False,
            },
        },
    }


def parse_study_arguments(arguments: object, note_ids: Collection[str],
                          today: _dt.date) -> StudyPlan:
    """Turn the model's `arguments` text into a StudyPlan, or raise InvalidArguments."""
    data = load_object(arguments, MAX_STUDY_BYTES)
    schema.exact(data, STUDY_FIELDS)
    title = schema.title(data["title"])
    last = today + _dt.timedelta(days=MAX_DAYS_AHEAD)
    values = schema.sessions(data["sessions"])
    checked: list[Session | None] = []
    failures: list[tuple[int, object, InvalidArguments]] = []
    for number, value in enumerate(values, 1):
        try:
            checked.append(_session(number, value, note_ids, last))
        except InvalidArguments as error:
            checked.append(None)
            failures.append((number, value, error))
    failures += [(number, values[number - 1], error)
                 for number, error in schema.order_problems(checked)]
    if len(failures) == 1:
        raise failures[0][2]
    if failures:
        # Every failing session is named, one line each, as when sessions do not fit.
        failures.sort(key=lambda failure: failure[0])
        raise rejection([(number, _date_shown(value), _reason(number, error))
                         for number, value, error in failures], len(values),
                        t("{count} of {total} sessions break the rules; mend them all and "
                          "propose the plan again", count=len(failures), total=len(values)))
    return StudyPlan(title, tuple(session for session in checked if session is not None))


def _date_shown(value: object) -> str:
    date = value.get("date") if isinstance(value, dict) else None
    # Model text: shown only in the form of a date (a wrong one says why in its reason).
    return date if isinstance(date, str) and len(date) == 10 and date.isascii() \
        and date.isprintable() else "?"


def _reason(number: int, error: InvalidArguments) -> str:
    """The error without the session's own name, which its line starts with."""
    field = error.field.removeprefix(t("session {number}", number=number)).strip()
    return t("{field}: {rule}", field=field, rule=error.reason) if field and \
        field != "sessions" else error.reason


def _session(number: int, value: object, known: Collection[str], last: _dt.date) -> Session:
    prefix = t("session {number}", number=number)
    session = schema.an_object(value, prefix)
    required, optional = schema.session_fields(stored=False)
    schema.exact(session, required, optional, prefix)
    try:
        return Session(schema.date(session["date"], last=last), schema.minutes(session["minutes"]),
                       schema.note_ids(session["note_ids"], known),
                       schema.start(session[START]) if START in session else None)
    except InvalidArguments as error:
        raise InvalidArguments(schema.within(prefix, error.field), error.reason) from None


# Whatever a confirmed tool proposes: one plan, a series or a study plan.
Proposal = ReviewPlan | ReviewSeries | StudyPlan
