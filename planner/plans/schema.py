"""One plan schema: every field's rule and its words, for the save tools and for plan files.

The model's arguments to a save tool (planner.plans.plan, planner.plans.study) and a plan file
read back (planner.plans.files) are checked here by the same rules and fail with one error,
PlanError (field, reason). Where the two really differ, a rule says so by `stored=True` (a file
planner wrote, read back):

- title: an argument is trimmed of spaces; a stored title must have been trimmed already.
- note_ids: an argument names existing notes; a stored plan's notes may be gone since, so its
  IDs need only be non-empty printable strings.
- date(s): an argument's last day is at most MAX_DAYS_AHEAD after today; a file may be old.
- start: optional in arguments; a stored study session always has one (it is placed before it is
  saved), a stored plan or series may not (written before start existed).
- sessions: arguments must come in time order without overlaps; a file is not checked for it.
- version, run_id, created_at, simulated, goal, readiness, notes: only a file has them.
- words: an argument's reason names the value it got (the model corrects it); a file's names
  the rule only, and its fields are named by their place in the file ("plan.title").
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from planner.base import days, study_hours
from planner.base.i18n import t

FIELDS = ("title", "note_ids", "date", "minutes")
SERIES_FIELDS = ("title", "note_ids", "dates", "minutes")
STUDY_FIELDS = ("title", "sessions")
SESSION_FIELDS = ("date", "minutes", "note_ids")
# Optional in the save tools (README "Your week"): without it the program chooses the first
# free slot.
START = "start"
MIN_SESSIONS = 2
MAX_SESSIONS = 8
MAX_STUDY_SESSIONS = 60
MAX_DAYS_AHEAD = 366  # the last session proposed is at most this far after today
MAX_TITLE = 80
MAX_NOTES = 3
MAX_MINUTES = 120
MAX_GOAL_NAME = 40
MAX_NOTE_TITLE = 1000
PLAN_VERSION = 2
SERIES_VERSION = 3  # a series only; a single plan is still written as version 2
STUDY_VERSION = 4  # a study plan: sessions of their own, and the goal it was made for
READINESS_VERSION = 5  # a study plan saved for a goal, with the readiness it was saved with
MAX_GOAL_NOTES = 500  # a goal's notes, at most (README "A study plan to a goal")
_V1_KEYS = ("plan", "simulated")
_V2_KEYS = ("created_at", "notes", "plan", "run_id", "simulated", "version")
_V4_KEYS = (*_V2_KEYS, "goal")
_V5_KEYS = (*_V4_KEYS, "readiness")
_READINESS_KEYS = ("best", "of", "ready")
_NOTE_KEYS = ("id", "title")
_LISTED_IDS = 20  # an error names every known note ID only when there are this few
# What a run ID may hold: it becomes part of a calendar UID and of a file name.
_RUN_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,99}", re.ASCII)
# Characters that may stand inside a title although str.isprintable() says no:
# ordinary and full-width spaces (category Zs). Line and paragraph separators are not here.
_SPACE_CATEGORIES = frozenset({"Zs"})
# Trimming removes only these spaces: a tab or newline at an end is rejected, never dropped.
# (every category Zs character: U+0020, U+00A0, U+1680, U+2000-U+200A, U+202F, U+205F, U+3000)
SPACES = " \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"


class Timed(Protocol):
    """What the time order of study sessions looks at (planner.plans.study.Session)."""

    @property
    def date(self) -> _dt.date: ...
    @property
    def start(self) -> _dt.time | None: ...
    @property
    def minutes(self) -> int: ...


class PlanError(ValueError):
    """A plan broke a rule: the field (empty: the whole file) and the reason, which make its
    line."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(t("{field}: {rule}", field=field, rule=reason) if field else reason)
        self.field = field
        self.reason = reason

    @property
    def rule(self) -> str:
        """The reason, by the name the conversation records it under."""
        return self.reason


# --- the fields of a plan ------------------------------------------------------------------

def title(value: object, *, stored: bool = False) -> str:
    """1 to MAX_TITLE printable characters or spaces, on one line, no spaces at the ends."""
    field = "plan.title" if stored else "title"
    if type(value) is not str:
        raise PlanError(field, t("must be a string") if stored else
                        t("must be a string, got {kind}", kind=kind_of(value)))
    text = value if stored else value.strip(SPACES)
    if not 1 <= len(text) <= MAX_TITLE:
        if stored:
            raise PlanError(field, t("must be 1 to {max_title} characters", max_title=MAX_TITLE))
        if not text:
            raise PlanError(field, t("is empty after trimming spaces; a title has 1 to {limit} "
                                     "characters", limit=MAX_TITLE))
        raise PlanError(field, t("has {count} characters; at most {limit}", count=len(text),
                                 limit=MAX_TITLE))
    if not text.isprintable():
        for char in text:
            if not (char.isprintable() or unicodedata.category(char) in _SPACE_CATEGORIES):
                raise PlanError(field, t("contains a control or format character") if stored
                                else t("contains a non-printable character U+{code:04X}",
                                       code=ord(char)))
    if text[0] in SPACES or text[-1] in SPACES:
        raise PlanError(field, t("has spaces at its ends"))
    return text


def note_ids(value: object, known: Collection[str] = (), *,
             stored: bool = False) -> tuple[str, ...]:
    """1 to MAX_NOTES note IDs, each once: of notes in `known`, or (stored) any printable."""
    field = "plan.note_ids" if stored else "note_ids"
    if type(value) is not list or not 1 <= len(value) <= MAX_NOTES:
        if stored:
            raise PlanError(field, t("must be a list of 1 to {max_notes} note IDs",
                                     max_notes=MAX_NOTES))
        if type(value) is not list:
            raise PlanError(field, t("must be a list of note IDs, got {kind}",
                                     kind=kind_of(value)))
        raise PlanError(field, t("must hold 1 to {limit} note IDs, got {count}", limit=MAX_NOTES,
                                 count=len(value)))
    for item in value:
        if stored:
            if type(item) is not str or not item or not item.isprintable():
                raise PlanError(field, t("must hold non-empty printable strings"))
        elif type(item) is not str:
            raise PlanError(field, t("must hold strings, got {kind}", kind=kind_of(item)))
        elif item not in known:
            # A large notes folder is not listed: the model is told to search instead.
            if len(known) <= _LISTED_IDS:
                raise PlanError(field, t("{note} is not an existing note ({known})",
                                         note=shown_value(item), known=", ".join(sorted(known))))
            raise PlanError(field, t("{note} is not an existing note; use search_notes to find "
                                     "the right ID", note=shown_value(item)))
    if len(set(value)) != len(value):
        raise PlanError(field, t("repeats a note ID"))
    return tuple(value)


def date(value: object, field: str | None = None, *, stored: bool = False,
         last: _dt.date | None = None) -> _dt.date:
    """A real calendar day written YYYY-MM-DD, inside the days planner uses; proposed for a
    study plan, at most `last` (MAX_DAYS_AHEAD after today)."""
    field = field or ("plan.date" if stored else "date")
    if not days.date_form(value):
        if stored:
            raise PlanError(field, t("must be written YYYY-MM-DD"))
        if type(value) is not str:
            raise PlanError(field, t("must be a string YYYY-MM-DD, got {kind}",
                                     kind=kind_of(value)))
        raise PlanError(field, t("must be written YYYY-MM-DD, got {value}",
                                 value=shown_value(value)))
    day = days.parse_date(value)
    if day is None:
        raise PlanError(field, t("{date} is not a real calendar date", date=value))
    if not days.usable_day(day):
        # README "A screen you can trust": a day at the calendar's very edge may not exist in UTC
        # (nor in the zone an event is placed in): no such plan is saved, nor read back.
        raise PlanError(field, t("{date} is at the edge of the calendar; planner uses dates from "
                                 "{first} to {last}", date=value,
                                 first=days.FIRST_DAY.isoformat(),
                                 last=days.LAST_DAY.isoformat()))
    if last is not None and day > last:
        raise PlanError(field, t("{date} is more than {days} days after today; the last may be "
                                 "{last}", date=value, days=MAX_DAYS_AHEAD,
                                 last=last.isoformat()))
    return day


def dates(value: object, today: _dt.date | None = None, *,
          stored: bool = False) -> tuple[_dt.date, ...]:
    """A series' MIN_SESSIONS to MAX_SESSIONS days, strictly increasing; proposed, the last at
    most MAX_DAYS_AHEAD after `today`."""
    field = "plan.dates" if stored else "dates"
    if type(value) is not list or not MIN_SESSIONS <= len(value) <= MAX_SESSIONS:
        if stored:
            raise PlanError(field, t("must be a list of {least} to {most} dates",
                                     least=MIN_SESSIONS, most=MAX_SESSIONS))
        if type(value) is not list:
            raise PlanError(field, t("must be a list of dates YYYY-MM-DD, got {kind}",
                                     kind=kind_of(value)))
        raise PlanError(field, t("must hold {low} to {high} dates, got {count}",
                                 low=MIN_SESSIONS, high=MAX_SESSIONS, count=len(value)))
    checked = tuple(date(item, field, stored=stored) for item in value)
    for earlier, later in zip(checked, checked[1:], strict=False):
        if later <= earlier:
            raise PlanError(field, t("must be strictly increasing") if stored else
                            t("must be strictly increasing, but {later} comes after {earlier}",
                              later=later.isoformat(), earlier=earlier.isoformat()))
    if today is not None:
        last = today + _dt.timedelta(days=MAX_DAYS_AHEAD)
        if checked[-1] > last:
            raise PlanError(field, t("{date} is more than {days} days after today ({today}); the "
                                     "last may be {last}", date=checked[-1].isoformat(),
                                     days=MAX_DAYS_AHEAD,
                                     today=today.isoformat(), last=last.isoformat()))
    return checked


def start(value: object, *, stored: bool = False) -> _dt.time:
    """A start time "HH:MM", 24-hour (absent is the caller's matter; null is refused)."""
    field = "plan.start" if stored else START
    clock = days.parse_clock(value)
    if clock is None:
        if stored:
            raise PlanError(field, t("must be a 24-hour time HH:MM"))
        if type(value) is not str:
            raise PlanError(field, t("must be a string HH:MM, got {kind}", kind=kind_of(value)))
        raise PlanError(field, t("must be a 24-hour time HH:MM, got {value}",
                                 value=shown_value(value)))
    return clock


def minutes(value: object, *, stored: bool = False) -> int:
    """An integer from 1 to MAX_MINUTES."""
    field = "plan.minutes" if stored else "minutes"
    # bool is an int subclass in Python, and 20.0 or "20" are not integers: none is converted.
    if type(value) is not int or not 1 <= value <= MAX_MINUTES:
        if stored:
            raise PlanError(field, t("must be an integer from 1 to {max_minutes}",
                                     max_minutes=MAX_MINUTES))
        if type(value) is not int:
            raise PlanError(field, t("must be an integer, got {kind}", kind=kind_of(value)))
        raise PlanError(field, t("must be from {low} to {high}, got {value}", low=1,
                                 high=MAX_MINUTES, value=value))
    return value


def sessions(value: object, *, stored: bool = False) -> list[Any]:
    """A study plan's 1 to MAX_STUDY_SESSIONS sessions (each checked by the caller)."""
    field = "plan.sessions" if stored else "sessions"
    if type(value) is not list or not 1 <= len(value) <= MAX_STUDY_SESSIONS:
        if stored:
            raise PlanError(field, t("must be a list of 1 to {most} sessions",
                                     most=MAX_STUDY_SESSIONS))
        if type(value) is not list:
            raise PlanError(field, t("must be a list of sessions, got {kind}",
                                     kind=kind_of(value)))
        raise PlanError(field, t("must hold 1 to {limit} sessions, got {count}",
                                 limit=MAX_STUDY_SESSIONS, count=len(value)))
    return value


def session_fields(stored: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A study session's required and optional fields: a stored session has its start."""
    return ((*SESSION_FIELDS, START), ()) if stored else (SESSION_FIELDS, (START,))


def an_object(value: object, field: str, *, stored: bool = False,
              items: bool = False) -> dict[str, Any]:
    """A JSON object (`items`: the field is a list of them)."""
    if type(value) is not dict:
        raise PlanError(field, t("must be an object, got {kind}", kind=kind_of(value))
                        if not stored else t("must hold objects") if items
                        else t("must be an object"))
    return value


def exact(data: Mapping[str, object], required: tuple[str, ...], optional: tuple[str, ...] = (),
          where: str = "", *, stored: bool = False) -> None:
    """Every required field present and no other: the first missing (a file's by name), else the
    first unknown by name. Arguments name the field itself (within `where`, if given); a file
    names `where`, the object that holds it."""
    missing = [name for name in required if name not in data]
    if missing:
        if stored:
            raise PlanError(where, t("has no {key}", key=repr(min(missing))))
        raise PlanError(within(where, missing[0]), t("is required but missing"))
    if len(data) == len(required):
        return
    allowed = (*required, *optional)
    extra = sorted(name for name in data if name not in allowed)
    if extra:
        if stored:
            raise PlanError(where, t("has an unknown key {key}", key=shown_value(extra[0])))
        raise PlanError(within(where, field_name(extra[0])),
                        t("is not an allowed field (only {fields})", fields=", ".join(allowed)))


def in_time_order(sessions: Sequence[Timed]) -> None:
    """Proposed study sessions in time order: dates never go back; starts on a day neither, nor
    overlap (a file is not held to it)."""
    problems = order_problems(sessions)
    if problems:
        raise problems[0][1]


def order_problems(sessions: Sequence[Timed | None]) -> list[tuple[int, PlanError]]:
    """Each session (by number) that goes back in time or overlaps the one before it, with its
    error; a session None (refused by its own fields) is left out of the comparison."""
    problems: list[tuple[int, PlanError]] = []
    previous, earlier = 0, None
    for number, later in enumerate(sessions, 1):
        if later is None:
            continue
        problem = None if earlier is None else _out_of_order(number, later, previous, earlier)
        if problem is not None:
            problems.append((number, problem))
        previous, earlier = number, later
    return problems


def _out_of_order(number: int, later: Timed, previous: int, earlier: Timed) -> PlanError | None:
    if later.date < earlier.date:
        return PlanError("sessions", t(
            "must be in time order, but session {number} ({later}) comes after session "
            "{previous} ({earlier})", number=number, later=later.date.isoformat(),
            previous=previous, earlier=earlier.date.isoformat()))
    if later.date == earlier.date and later.start is not None and earlier.start is not None:
        if later.start < earlier.start:
            return PlanError("sessions", t(
                "must be in time order, but session {number} starts at {later} on {date}, "
                "before session {previous} at {earlier}", number=number,
                later=days.clock_text(later.start), date=later.date.isoformat(),
                previous=previous, earlier=days.clock_text(earlier.start)))
        end = days.minutes_of(earlier.start) + earlier.minutes
        if days.minutes_of(later.start) < end:
            return PlanError("sessions", t(
                "session {number} ({date} {start}) overlaps session {previous}, which "
                "runs to {end}", number=number, date=later.date.isoformat(),
                start=days.clock_text(later.start), previous=previous,
                end=study_hours.clock(end)))
    return None


# --- what only a plan file holds -----------------------------------------------------------

def is_run_id(value: object) -> bool:
    """Whether `value` has the form of a planner run ID, the only text a calendar UID holds."""
    return type(value) is str and _RUN_ID.fullmatch(value) is not None


def plan_file(data: object, name: str) -> int:
    """Check a decoded plan file named `name` (versions 1 to 5): its version, or PlanError."""
    if type(data) is not dict:
        raise PlanError("", t("is not a JSON object"))
    version = data.get("version")
    notes_ = None
    if version is None and "version" not in data:
        exact(data, _V1_KEYS, (), t("a version-1 plan file"), stored=True)
        # Version 1 files are named after their run; the name becomes a calendar UID and a run
        # to look up: only planner's own form.
        if not is_run_id(name[:-5]):
            raise PlanError("", t("its name is not a run ID (letters, digits, '.', '_' or '-', "
                                  "at most 100, then .json)"))
        version = 1
    elif version in (PLAN_VERSION, SERIES_VERSION) and type(version) is int:
        _run(data, _V2_KEYS)
        notes_ = data["notes"]
    elif version in (STUDY_VERSION, READINESS_VERSION) and type(version) is int:
        _study_file(data, version)
        return version
    elif type(version) is int and version > READINESS_VERSION:
        raise PlanError("", t("is a version-{version} plan file; this planner reads versions 1 "
                              "to 5", version=version))
    else:
        raise PlanError("version", t("must be 2, 3, 4 or 5 (or absent, for version 1)"))
    simulated(data["simulated"])
    plan = an_object(data["plan"], "plan", stored=True)
    series = version == SERIES_VERSION
    # start is optional (README "Your week"): plans written before it keep the old layout.
    exact(plan, SERIES_FIELDS if series else FIELDS, (START,), "plan", stored=True)
    if START in plan:
        start(plan[START], stored=True)
    title(plan["title"], stored=True)
    note_ids(plan["note_ids"], stored=True)
    if series:
        dates(plan["dates"], stored=True)
    else:
        date(plan["date"], stored=True)
    minutes(plan["minutes"], stored=True)
    if notes_ is not None:
        notes(notes_, plan["note_ids"])
    return version


def _run(data: dict[str, Any], keys: tuple[str, ...]) -> None:
    exact(data, keys, (), t("a plan file"), stored=True)
    if not is_run_id(data["run_id"]):
        raise PlanError("run_id", t("must be letters, digits, '.', '_' or '-' (at most 100)"))
    created_at(data["created_at"])


def _study_file(data: dict[str, Any], version: int) -> None:
    """A version-4 file: a goal, and sessions each with its own date, start, minutes, notes;
    version 5: the same and the readiness it was saved with."""
    _run(data, _V5_KEYS if version == READINESS_VERSION else _V4_KEYS)
    simulated(data["simulated"])
    goal(data["goal"])
    if version == READINESS_VERSION:
        readiness(data["readiness"])
    plan = an_object(data["plan"], "plan", stored=True)
    exact(plan, STUDY_FIELDS, (), "plan", stored=True)
    title(plan["title"], stored=True)
    required, _optional = session_fields(stored=True)
    for session in sessions(plan["sessions"], stored=True):
        an_object(session, "plan.sessions", stored=True, items=True)
        exact(session, required, (), t("plan.sessions item"), stored=True)
        date(session["date"], "plan.sessions.date", stored=True)
        start(session["start"], stored=True)
        minutes(session["minutes"], stored=True)
        note_ids(session["note_ids"], stored=True)
    every = list(dict.fromkeys(note for session in plan["sessions"]
                               for note in session["note_ids"]))
    notes(data["notes"], every)


def simulated(value: object) -> bool:
    if type(value) is not bool:
        raise PlanError("simulated", t("must be true or false"))
    return value


def created_at(value: object) -> str:
    if type(value) is not str or len(value) > 40:
        raise PlanError("created_at", t("must be an ISO 8601 time"))
    try:
        _dt.datetime.fromisoformat(value)
    except ValueError:
        raise PlanError("created_at", t("must be an ISO 8601 time")) from None
    return value


def goal(value: object) -> str | None:
    """The goal a study plan was made for: null or a goal's name."""
    if value is not None and (type(value) is not str or not 1 <= len(value) <= MAX_GOAL_NAME
                              or not value.isprintable()):
        raise PlanError("goal", t("must be null or a goal's name of 1 to {most} characters",
                                  most=MAX_GOAL_NAME))
    return value


def readiness(value: object) -> tuple[int, int, int | None]:
    """The readiness a study plan was saved with: `ready` of `of` notes ready on the goal's
    day, and `best`, what planner's own plan made ready then (null: not known)."""
    value = an_object(value, "readiness", stored=True)
    exact(value, _READINESS_KEYS, (), "readiness", stored=True)
    of = value["of"]
    if type(of) is not int or not 0 <= of <= MAX_GOAL_NOTES:
        raise PlanError("readiness.of", t("must be an integer from 0 to {most}",
                                          most=MAX_GOAL_NOTES))
    for key in ("ready", "best"):
        count = value[key]
        if count is None and key == "best":
            continue
        if type(count) is not int or not 0 <= count <= of:
            raise PlanError(f"readiness.{key}", t("must be an integer from 0 to readiness.of")
                            if key == "ready" else
                            t("must be null or an integer from 0 to readiness.of"))
    return value["ready"], of, value["best"]


def notes(value: object, ids: list[str]) -> list[Any]:
    """The plan's notes as they were titled when it was saved, in the order of `ids`."""
    if type(value) is not list or len(value) != len(ids):
        raise PlanError("notes", t("must list the plan's notes"))
    for note, note_id in zip(value, ids, strict=True):
        an_object(note, "notes", stored=True, items=True)
        exact(note, _NOTE_KEYS, (), t("notes item"), stored=True)
        if note["id"] != note_id:
            raise PlanError("notes", t("must be the plan's notes, in the order of plan.note_ids"))
        if type(note["title"]) is not str or len(note["title"]) > MAX_NOTE_TITLE:
            raise PlanError("notes", t("each title must be a string of at most {max_title:,} "
                                       "characters", max_title=MAX_NOTE_TITLE))
    return value


# --- how values are named in a reason ------------------------------------------------------

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


def within(where: str, field: str) -> str:
    """A field of the object `where` names (`session 1 date`), one template in any language."""
    return t("{prefix} {field}", prefix=where, field=field) if where else field


def field_name(name: str) -> str:
    """An unknown field's name for an error: as it is when it looks like a name, else quoted."""
    return name if name.isidentifier() and len(name) <= 40 else shown_value(name)


def shown_value(value: object) -> str:
    """A value for an error message: JSON-quoted, ASCII-escaped and cut short."""
    text = json.dumps(value, ensure_ascii=True) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
