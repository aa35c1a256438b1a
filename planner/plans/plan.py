"""The review plan and series, their tool schemas, and strict checking of the model's arguments."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

from planner.base import strictjson
from planner.base.days import clock_text
from planner.base.i18n import Message, t
from planner.plans import schema
from planner.plans.schema import (
    FIELDS,
    MAX_DAYS_AHEAD,
    MAX_MINUTES,
    MAX_NOTES,
    MAX_SESSIONS,
    MAX_TITLE,
    MIN_SESSIONS,
    SERIES_FIELDS,
)
from planner.plans.schema import START as START
from planner.plans.schema import field_name as field_name
from planner.plans.schema import kind_of as kind_of

TOOL_NAME = "save_review_plan"
SERIES_TOOL_NAME = "save_review_series"
MAX_ARGUMENTS_BYTES = 4096
# The error a tool's arguments raise, by the name its callers catch.
InvalidArguments = schema.PlanError
# A tool's `date` is checked by the plan's rule (planner.conversation.lookups' `from`, too).
check_date = schema.date
# The limits a person meets, stated to the model as the README states them (README "Going on with a
# conversation").
LIMITS = (f"Limits: 1 to {MAX_NOTES} existing notes, each once; 1 to {MAX_MINUTES} minutes; "
          f"a title of 1 to {MAX_TITLE} characters on one line.")
# What a save tool answers once the person has decided, said the same way by each.
RESULT = 'Returns the real result: status saved (with path), cancelled or failed (with error).'



# A NamedTuple, not a dataclass: building dataclasses costs ~1 ms each at every start-up.
class ReviewPlan(NamedTuple):
    """A checked plan, exactly as proposed apart from the trimmed title."""

    title: str
    note_ids: tuple[str, ...]
    date: _dt.date
    minutes: int
    # Local; None: not given (the program chooses one before the plan is shown).
    start: _dt.time | None = None

    @property
    def days(self) -> tuple[_dt.date, ...]:
        """The review's date, as a one-session tuple (a series gives all of its dates)."""
        return (self.date,)

    def as_dict(self) -> dict[str, object]:
        """The plan as the JSON object that is saved and recorded (start only when known)."""
        data = {
            "title": self.title,
            "note_ids": list(self.note_ids),
            "date": self.date.isoformat(),
            "minutes": self.minutes,
        }
        if self.start is not None:
            data[START] = clock_text(self.start)
        return data


class ReviewSeries(NamedTuple):
    """A checked series: the same notes reviewed on 2 to 8 strictly increasing dates."""

    title: str
    note_ids: tuple[str, ...]
    dates: tuple[_dt.date, ...]
    minutes: int
    # Local, the same for every session; None: not given.
    start: _dt.time | None = None

    @property
    def days(self) -> tuple[_dt.date, ...]:
        """Every session's date, in order."""
        return self.dates

    def as_dict(self) -> dict[str, object]:
        """The series as the JSON object that is saved and recorded (start only when known)."""
        data = {
            "title": self.title,
            "note_ids": list(self.note_ids),
            "dates": [day.isoformat() for day in self.dates],
            "minutes": self.minutes,
        }
        if self.start is not None:
            data[START] = clock_text(self.start)
        return data


def tool_definition(note_ids: Collection[str] | None) -> dict[str, Any]:
    """save_review_plan as a Chat Completions `tools` entry; None: IDs not listed (no enum)."""
    properties = _properties(note_ids)
    properties["date"] = {
        "type": "string",
        "pattern": _DATE_PATTERN,
        "description": "The day, YYYY-MM-DD.",
    }
    properties[START] = start_property("the session")
    return _function(TOOL_NAME, (
        "Propose a review plan for existing notes. Use it only when the request gives "
        "a title, the notes, the date and the minutes. If any of these is missing or "
        "unclear, do not call the tool: ask the person instead. " + LIMITS + " " + RESULT
    ), properties, FIELDS)


def series_tool_definition(note_ids: Collection[str] | None) -> dict[str, Any]:
    """save_review_series as a `tools` entry: one title, notes and minutes on several dates."""
    properties = _properties(note_ids)
    properties["dates"] = {
        "type": "array",
        "items": {"type": "string", "pattern": _DATE_PATTERN},
        "minItems": MIN_SESSIONS,
        "maxItems": MAX_SESSIONS,
        "description": (f"{MIN_SESSIONS} to {MAX_SESSIONS} days, YYYY-MM-DD, increasing, the "
                        f"last at most {MAX_DAYS_AHEAD} days after today."),
    }
    properties[START] = start_property("every session")
    return _function(SERIES_TOOL_NAME, (
        "Propose a series of review sessions of the same notes at growing intervals (for "
        "spaced repetition), saved together with one confirmation. Use it only when the "
        "person asks for several sessions; for one session use save_review_plan. " + LIMITS +
        " The person confirms or cancels the whole series. " + RESULT
    ), properties, SERIES_FIELDS)


_DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


def start_property(whose: str) -> dict[str, object]:
    return {
        "type": "string",
        "pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$",
        "description": f"Optional start of {whose}, HH:MM 24-hour local; left out: the first "
                       "free slot.",
    }


def title_property() -> dict[str, object]:
    """The schema of `title`, the same in every save tool."""
    return {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_TITLE,
        "description": f"One line, 1 to {MAX_TITLE} characters.",
    }


def note_ids_property(note_ids: Collection[str] | None) -> dict[str, object]:
    """The schema of `note_ids`, the same in every save tool; None: IDs not listed."""
    items: dict[str, object] = {"type": "string"}
    if note_ids is not None:
        items["enum"] = sorted(note_ids)
    return {
        "type": "array",
        "items": items,
        "minItems": 1,
        "maxItems": MAX_NOTES,
        "uniqueItems": True,
        "description": f"Existing note IDs: 1 to {MAX_NOTES}, each once.",
    }


def _properties(note_ids: Collection[str] | None) -> dict[str, object]:
    """The fields a plan and a series share: title, note_ids and minutes."""
    return {
        "title": title_property(),
        "note_ids": note_ids_property(note_ids),
        "minutes": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_MINUTES,
            "description": f"Minutes, 1 to {MAX_MINUTES}.",
        },
    }


def _function(name: str, description: str, properties: Mapping[str, object],
              fields: tuple[str, ...]) -> dict[str, object]:
    # Properties in the order of `fields`, as the model reads them.
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {field: properties[field] for field in (*fields, START)},
                "required": list(fields),
                "additionalProperties": False,
            },
        },
    }


def parse_arguments(arguments: object, note_ids: Collection[str]) -> ReviewPlan:
    """Turn the model's `arguments` text into a ReviewPlan, or raise InvalidArguments."""
    data = load_object(arguments)
    schema.exact(data, FIELDS, (START,))
    return ReviewPlan(
        title=schema.title(data["title"]),
        note_ids=schema.note_ids(data["note_ids"], note_ids),
        date=schema.date(data["date"]),
        minutes=schema.minutes(data["minutes"]),
        start=schema.start(data[START]) if START in data else None,
    )


def parse_series_arguments(arguments: object, note_ids: Collection[str],
                           today: _dt.date) -> ReviewSeries:
    """Turn the model's `arguments` text into a ReviewSeries, or raise InvalidArguments."""
    data = load_object(arguments)
    schema.exact(data, SERIES_FIELDS, (START,))
    return ReviewSeries(
        title=schema.title(data["title"]),
        note_ids=schema.note_ids(data["note_ids"], note_ids),
        dates=schema.dates(data["dates"], today),
        minutes=schema.minutes(data["minutes"]),
        start=schema.start(data[START]) if START in data else None,
    )


def load_object(arguments: object, limit: int = MAX_ARGUMENTS_BYTES) -> dict[str, Any]:
    """Parse the arguments text as one JSON object of at most `limit` bytes, refusing anything
    ambiguous."""
    if not isinstance(arguments, str):
        raise InvalidArguments("arguments", t("must be a JSON text, got {kind}",
                                              kind=kind_of(arguments)))
    # Checked before parsing so a huge or deeply nested text costs almost nothing.
    if len(arguments) > limit or len(arguments.encode("utf-8", "surrogatepass")) > limit:
        raise InvalidArguments("arguments", t("are longer than {limit} bytes", limit=limit))
    try:
        data = strictjson.loads(arguments)
    except strictjson.JSONRefused as error:
        # The reader says "repeats the key ..."; here "arguments" is the subject: the same
        # values in the plural line's template, so the screen says it in the person's language.
        reason = error.reason
        plural = _PLURAL_REASONS.get(reason.template)
        raise InvalidArguments("arguments", reason if plural is None
                               else Message(plural, reason.values)) from None
    if not isinstance(data, dict):
        raise InvalidArguments("arguments", t("must be a JSON object, got {kind}",
                                              kind=kind_of(data)))
    return data


# The strict reader's reasons (by template) as load_object words them, with "arguments" as the
# subject: marked here (t() without values gives the template back) so that the screen
# translates them.
_PLURAL_REASONS: dict[str, str] = {
    "repeats the key {key}": t("repeat the key {key}"),
    "contains {name}, which is not a JSON number": t("contain {name}, which is not a JSON number"),
    "contains a number that overflows: {number}": t("contain a number that overflows: {number}"),
    "contains a number too long to read ({digits:,} digits)":
        t("contain a number too long to read ({digits:,} digits)"),
    "is not valid JSON ({reason})": t("are not valid JSON ({reason})"),
    "is JSON nested deeper than {max_depth} levels":
        t("are JSON nested deeper than {max_depth} levels"),
}
