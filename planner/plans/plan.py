"""The review plan and series, their tool schemas, and strict checking of the model's arguments."""

from __future__ import annotations

import datetime as _dt
import json
import re
import unicodedata
from collections.abc import Collection
from typing import NamedTuple

from planner.base import days, strictjson
from planner.base.i18n import t

TOOL_NAME = "save_review_plan"
FIELDS = ("title", "note_ids", "date", "minutes")
SERIES_TOOL_NAME = "save_review_series"
SERIES_FIELDS = ("title", "note_ids", "dates", "minutes")
# Optional in both tools (README "Your week"): without it the program chooses the first free slot.
START = "start"
MIN_SESSIONS = 2
MAX_SESSIONS = 8
MAX_DAYS_AHEAD = 366  # the last session of a series is at most this far after today
MAX_ARGUMENTS_BYTES = 4096
MAX_TITLE = 80
MAX_NOTES = 3
MAX_MINUTES = 120
# The limits a person meets, stated to the model as the README states them (README "Going on with a
# conversation").
LIMITS = (f"Limits: 1 to {MAX_NOTES} existing notes, each once; 1 to {MAX_MINUTES} minutes; "
          f"a title of 1 to {MAX_TITLE} characters on one line. A proposal outside them is "
          "rejected with the limit it broke.")
_LISTED_IDS = 20  # an error names every known note ID only when there are this few
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
_ABSENT = object()
_START = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])", re.ASCII)
# Characters that may stand inside a title although str.isprintable() says no:
# ordinary and full-width spaces (category Zs). Line and paragraph separators are not here.
_SPACE_CATEGORIES = frozenset({"Zs"})
# Trimming removes only these spaces: a tab or newline at an end is rejected, never dropped.
# (every category Zs character: U+0020, U+00A0, U+1680, U+2000-U+200A, U+202F, U+205F, U+3000)
_SPACES = " \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"


class InvalidArguments(ValueError):
    """The model's proposal broke a rule; names the field and the rule."""

    def __init__(self, field: str, rule: str) -> None:
        super().__init__(t("{field}: {rule}", field=field, rule=rule))
        self.field = field
        self.rule = rule


# A NamedTuple, not a dataclass: building dataclasses costs ~1 ms each at every start-up.
class ReviewPlan(NamedTuple):
    """A checked plan, exactly as proposed apart from the trimmed title."""

    title: str
    note_ids: tuple[str, ...]
    date: str
    minutes: int
    # "HH:MM" local; None: not given (the program chooses one before the plan is shown).
    start: str | None = None

    @property
    def days(self) -> tuple[str, ...]:
        """The review's date, as a one-session tuple (a series gives all of its dates)."""
        return (self.date,)

    def as_dict(self) -> dict:
        """The plan as the JSON object that is saved and recorded (start only when known)."""
        data = {
            "title": self.title,
            "note_ids": list(self.note_ids),
            "date": self.date,
            "minutes": self.minutes,
        }
        if self.start is not None:
            data[START] = self.start
        return data


class ReviewSeries(NamedTuple):
    """A checked series: the same notes reviewed on 2 to 8 strictly increasing dates."""

    title: str
    note_ids: tuple[str, ...]
    dates: tuple[str, ...]
    minutes: int
    # "HH:MM" local, the same for every session; None: not given.
    start: str | None = None

    @property
    def days(self) -> tuple[str, ...]:
        """Every session's date, in order."""
        return self.dates

    def as_dict(self) -> dict:
        """The series as the JSON object that is saved and recorded (start only when known)."""
        data = {
            "title": self.title,
            "note_ids": list(self.note_ids),
            "dates": list(self.dates),
            "minutes": self.minutes,
        }
        if self.start is not None:
            data[START] = self.start
        return data


def tool_definition(note_ids: Collection[str] | None) -> dict:
    """save_review_plan as a Chat Completions `tools` entry; None: IDs not listed (no enum)."""
    properties = _properties(note_ids)
    properties["date"] = {
        "type": "string",
        "pattern": _DATE_PATTERN,
        "description": "Review day as YYYY-MM-DD (an absolute date).",
    }
    properties[START] = start_property("the session")
    return _function(TOOL_NAME, (
        "Propose a review plan for existing notes. Use it only when the request gives "
        "a title, the notes, the date and the minutes. If any of these is missing or "
        "unclear, do not call the tool: ask the person instead. " + LIMITS + " " + _TIMES +
        " The program "
        "checks the proposal, the person confirms or cancels it, and the tool returns the "
        'real result: {"status": "saved", "path": ...}, {"status": "cancelled"} or '
        '{"status": "failed", "error": ...}.'
    ), properties, FIELDS)


def series_tool_definition(note_ids: Collection[str] | None) -> dict:
    """save_review_series as a `tools` entry: one title, notes and minutes on several dates."""
    properties = _properties(note_ids)
    properties["dates"] = {
        "type": "array",
        "items": {"type": "string", "pattern": _DATE_PATTERN},
        "minItems": MIN_SESSIONS,
        "maxItems": MAX_SESSIONS,
        "description": (f"{MIN_SESSIONS} to {MAX_SESSIONS} review days as YYYY-MM-DD, "
                        f"strictly increasing, the last at most {MAX_DAYS_AHEAD} days after "
                        "today."),
    }
    properties[START] = start_property("every session")
    return _function(SERIES_TOOL_NAME, (
        "Propose a series of review sessions of the same notes at growing intervals (for "
        "spaced repetition), saved together with one confirmation. Use it only when the "
        "person asks for several sessions; for one session use save_review_plan. " + LIMITS +
        f" A series has {MIN_SESSIONS} to {MAX_SESSIONS} dates. " + _TIMES +
        " The program checks the proposal, the person confirms or cancels the whole series, "
        "and the tool "
        'returns the real result: {"status": "saved", "path": ...}, {"status": "cancelled"} '
        'or {"status": "failed", "error": ...}.'
    ), properties, SERIES_FIELDS)


_DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
_TIMES = ("A session must lie inside the person's study hours, overlap no busy time and no "
          "other plan, and keep the day within its daily minutes; free_slots tells where it "
          "fits.")


def start_property(whose: str) -> dict:
    return {
        "type": "string",
        "pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$",
        "description": f"Optional start time of {whose} as HH:MM, 24-hour, local time. "
                       "Leave it out to let the program choose the first free slot.",
    }


def title_property() -> dict:
    """The schema of `title`, the same in every save tool."""
    return {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_TITLE,
        "description": f"Short title of the review session, one line, 1 to {MAX_TITLE} "
                       "characters.",
    }


def note_ids_property(note_ids: Collection[str] | None) -> dict:
    """The schema of `note_ids`, the same in every save tool; None: IDs not listed."""
    items: dict = {"type": "string"}
    if note_ids is not None:
        items["enum"] = sorted(note_ids)
    return {
        "type": "array",
        "items": items,
        "minItems": 1,
        "maxItems": MAX_NOTES,
        "uniqueItems": True,
        "description": f"IDs of existing notes to review: 1 to {MAX_NOTES}, each once.",
    }


def _properties(note_ids: Collection[str] | None) -> dict:
    """The fields a plan and a series share: title, note_ids and minutes."""
    return {
        "title": title_property(),
        "note_ids": note_ids_property(note_ids),
        "minutes": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_MINUTES,
            "description": f"Length of the review in minutes, 1 to {MAX_MINUTES}.",
        },
    }


def _function(name: str, description: str, properties: dict, fields: tuple[str, ...]) -> dict:
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
    data = _exact_fields(load_object(arguments), FIELDS)
    return ReviewPlan(
        title=check_title(data["title"]),
        note_ids=check_note_ids(data["note_ids"], note_ids),
        date=check_date(data["date"]),
        minutes=check_minutes(data["minutes"]),
        start=check_start(data.get(START, _ABSENT)),
    )


def parse_series_arguments(arguments: object, note_ids: Collection[str],
                           today: _dt.date) -> ReviewSeries:
    """Turn the model's `arguments` text into a ReviewSeries, or raise InvalidArguments."""
    data = _exact_fields(load_object(arguments), SERIES_FIELDS)
    return ReviewSeries(
        title=check_title(data["title"]),
        note_ids=check_note_ids(data["note_ids"], note_ids),
        dates=check_dates(data["dates"], today),
        minutes=check_minutes(data["minutes"]),
        start=check_start(data.get(START, _ABSENT)),
    )


def _exact_fields(data: dict, fields: tuple[str, ...]) -> dict:
    """Every field present (start may be) and no other: the first missing, else the first
    unknown, is named."""
    missing = [name for name in fields if name not in data]
    if missing:
        raise InvalidArguments(missing[0], t("is required but missing"))
    extra = sorted(name for name in data if name not in fields and name != START)
    if extra:
        name = field_name(extra[0])
        raise InvalidArguments(name, t("is not an allowed field (only {fields})",
                                       fields=", ".join((*fields, START))))
    return data


def load_object(arguments: object, limit: int = MAX_ARGUMENTS_BYTES) -> dict:
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
        # The reader says "repeats the key ..."; here "arguments" is the subject.
        verb, _, rest = str(error).partition(" ")
        raise InvalidArguments("arguments", f"{_PLURAL.get(verb, verb)} {rest}") from None
    if not isinstance(data, dict):
        raise InvalidArguments("arguments", t("must be a JSON object, got {kind}",
                                              kind=kind_of(data)))
    return data


_PLURAL = {"repeats": "repeat", "contains": "contain", "is": "are"}
# The strict reader's reasons as load_object words them, with "arguments" as the subject:
# marked here (t() without values gives the template back) so that the screen translates them.
_PLURAL_REASONS = (
    t("repeat the key {key}"),
    t("contain {name}, which is not a JSON number"),
    t("contain a number that overflows: {number}"),
    t("contain a number too long to read ({digits:,} digits)"),
    t("are not valid JSON ({reason})"),
    t("are JSON nested deeper than {max_depth} levels"),
)


def check_title(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidArguments("title", t("must be a string, got {kind}", kind=kind_of(value)))
    title = value.strip(_SPACES)
    if not title:
        raise InvalidArguments("title", t("is empty after trimming spaces; a title has 1 to "
                                          "{limit} characters", limit=MAX_TITLE))
    if len(title) > MAX_TITLE:
        raise InvalidArguments("title", t("has {count} characters; at most {limit}",
                                          count=len(title), limit=MAX_TITLE))
    for char in title:
        if not (char.isprintable() or unicodedata.category(char) in _SPACE_CATEGORIES):
            raise InvalidArguments("title", t("contains a non-printable character U+{code:04X}",
                                              code=ord(char)))
    return title


def check_note_ids(value: object, known: Collection[str]) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise InvalidArguments("note_ids", t("must be a list of note IDs, got {kind}",
                                             kind=kind_of(value)))
    if not 1 <= len(value) <= MAX_NOTES:
        raise InvalidArguments("note_ids", t("must hold 1 to {limit} note IDs, got {count}",
                                             limit=MAX_NOTES, count=len(value)))
    for item in value:
        if not isinstance(item, str):
            raise InvalidArguments("note_ids", t("must hold strings, got {kind}",
                                                 kind=kind_of(item)))
        if item not in known:
            # A large notes folder is not listed: the model is told to search instead.
            if len(known) <= _LISTED_IDS:
                raise InvalidArguments("note_ids", t("{note} is not an existing note ({known})",
                                                     note=shown_value(item),
                                                     known=", ".join(sorted(known))))
            raise InvalidArguments("note_ids", t("{note} is not an existing note; use "
                                                 "search_notes to find the right ID",
                                                 note=shown_value(item)))
    if len(set(value)) != len(value):
        raise InvalidArguments("note_ids", t("repeats a note ID"))
    return tuple(value)


def check_date(value: object, field: str = "date") -> str:
    if not isinstance(value, str):
        raise InvalidArguments(field, t("must be a string YYYY-MM-DD, got {kind}",
                                        kind=kind_of(value)))
    if not _DATE.fullmatch(value):
        raise InvalidArguments(field, t("must be written YYYY-MM-DD, got {value}",
                                        value=shown_value(value)))
    try:
        day = _dt.date.fromisoformat(value)
    except ValueError:
        raise InvalidArguments(field, t("{date} is not a real calendar date",
                                        date=value)) from None
    if not days.usable_day(day):
        # README "A screen you can trust": planner reads no plan file dated there
        # (planner.plans.files), so none is saved.
        raise InvalidArguments(field, t("{date} is at the edge of the calendar; planner uses "
                                        "dates from {first} to {last}", date=value,
                                        first=days.FIRST_DAY.isoformat(),
                                        last=days.LAST_DAY.isoformat()))
    return value


def check_dates(value: object, today: _dt.date) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise InvalidArguments("dates", t("must be a list of dates YYYY-MM-DD, got {kind}",
                                          kind=kind_of(value)))
    if not MIN_SESSIONS <= len(value) <= MAX_SESSIONS:
        raise InvalidArguments("dates", t("must hold {low} to {high} dates, got {count}",
                                          low=MIN_SESSIONS, high=MAX_SESSIONS, count=len(value)))
    dates = tuple(check_date(item, "dates") for item in value)
    for earlier, later in zip(dates, dates[1:], strict=False):
        if later <= earlier:
            raise InvalidArguments("dates", t("must be strictly increasing, but {later} comes "
                                              "after {earlier}", later=later, earlier=earlier))
    last = today + _dt.timedelta(days=MAX_DAYS_AHEAD)
    if dates[-1] > last.isoformat():
        raise InvalidArguments("dates", t("{date} is more than {days} days after today ({today}); "
                                          "the last may be {last}", date=dates[-1],
                                          days=MAX_DAYS_AHEAD, today=today.isoformat(),
                                          last=last.isoformat()))
    return dates


def check_start(value: object) -> str | None:
    """The optional start: absent is None; anything else must be "HH:MM" (null is refused)."""
    if value is _ABSENT:
        return None
    if not isinstance(value, str):
        raise InvalidArguments(START, t("must be a string HH:MM, got {kind}", kind=kind_of(value)))
    if not _START.fullmatch(value):
        raise InvalidArguments(START, t("must be a 24-hour time HH:MM, got {value}",
                                        value=shown_value(value)))
    return value


def check_minutes(value: object) -> int:
    # bool is an int subclass in Python, and 20.0 or "20" are not integers: none is converted.
    if type(value) is not int:
        raise InvalidArguments("minutes", t("must be an integer, got {kind}", kind=kind_of(value)))
    if not 1 <= value <= MAX_MINUTES:
        raise InvalidArguments("minutes", t("must be from {low} to {high}, got {value}", low=1,
                                            high=MAX_MINUTES, value=value))
    return value


def kind_of(value: object) -> str:
    """A short description of a JSON value for error messages: "an integer 5", "a list"."""
    kind = type(value)
    # One template per kind: a value is shown in words of the person's language.
    if kind is bool:
        return t("a boolean {value}", value=shown_value(value))
    if kind is int:
        return t("an integer {value}", value=shown_value(value))
    if kind is float:
        return t("a number with a fraction {value}", value=shown_value(value))
    if kind is str:
        return t("a string {value}", value=shown_value(value))
    if kind is list:
        return t("a list")
    if kind is dict:
        return t("an object")
    if value is None:
        return "null"
    if isinstance(value, (str, int, float, bool)):
        return f"{kind.__name__} {shown_value(value)}"
    return kind.__name__


def field_name(name: str) -> str:
    """An unknown field's name for an error: as it is when it looks like a name, else quoted."""
    return name if name.isidentifier() and len(name) <= 40 else shown_value(name)


def shown_value(value: object) -> str:
    """A value for an error message: JSON-quoted, ASCII-escaped and cut short."""
    text = json.dumps(value, ensure_ascii=True) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
