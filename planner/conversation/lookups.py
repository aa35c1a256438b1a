"""The read-only lookup tools the model may call: search_notes, get_note (README "Your notes"),
due_notes
(README "Review memory"), free_slots (README "Your week"), goal_notes (README "A study plan to a
goal")."""

# Checked as strictly as save_review_plan: the same loading of the arguments text (one JSON
# object of at most 4 KiB; repeated keys, NaN, overflowing numbers refused), exactly the
# allowed keys, values of the right type and never converted. Every result fits in
# tools.MAX_RESULT_BYTES as the flow serializes it (storage.to_json), whatever the notes hold.

from __future__ import annotations

import datetime as _dt
import unicodedata
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.base import storage
from planner.base.i18n import t
from planner.conversation.tools import MAX_RESULT_BYTES, Tool
from planner.notes.catalog import MAX_QUERY
from planner.plans.plan import InvalidArguments, field_name, kind_of, load_object

if TYPE_CHECKING:
    from planner.calendar.timetable import Timetable
    from planner.memory.readiness import GoalTarget
    from planner.memory.review_memory import ReviewMemory
    from planner.notes.catalog import Catalog

SEARCH_NOTES = "search_notes"
GET_NOTE = "get_note"
DUE_NOTES = "due_notes"
FREE_SLOTS = "free_slots"
GOAL_NOTES = "goal_notes"
MAX_GOAL_LIMIT = 50
MAX_SLOT_DAYS = 42
SLOT_MINUTES = (5, 120)
MAX_SLOTS_AHEAD = 366
MAX_DUE_DAYS = 30
MAX_DUE_LIMIT = 20
MAX_LIMIT = 10
DEFAULT_LIMIT = 5
MAX_ID = 500
MAX_TEXT = 3000  # characters of a note's text sent back; the rest is cut, and it says so
_TITLE = 120  # characters of a title in a result
_TAGS = 10  # tags in a result, each cut at 30 characters
_SPACES = " \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u202f\u205f\u3000"
NO_NOTE = {"error": t("no note with this ID")}


class SearchArguments(NamedTuple):
    """Checked search_notes arguments."""

    query: str
    limit: int


class GetArguments(NamedTuple):
    """Checked get_note arguments."""

    id: str


class DueArguments(NamedTuple):
    """Checked due_notes arguments."""

    days: int
    limit: int


class SlotArguments:
    """Checked free_slots arguments (`from` is `first` here: a Python keyword)."""

    __slots__ = ("first", "days", "minutes")

    def __init__(self, first: str, days: int, minutes: int) -> None:
        self.first, self.days, self.minutes = first, days, minutes

    def _asdict(self) -> dict[str, Any]:
        """As the model gave them, for the records and the screen."""
        return {"from": self.first, "days": self.days, "minutes": self.minutes}


SEARCH_SCHEMA = {
    "type": "function",
    "function": {
        "name": SEARCH_NOTES,
        "description": (
            "Search the person's notes by words (Chinese or English; every word must appear). "
            "Use it to find the IDs of the notes a request is about before proposing a plan. "
            "Read-only. Returns {\"results\": [{\"id\", \"title\", \"snippet\"}], \"total\": N}, "
            "best matches first."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY,
                          "description": "Words to look for, separated by spaces."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                          "description": f"How many results (default {DEFAULT_LIMIT})."},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
}

GET_SCHEMA = {
    "type": "function",
    "function": {
        "name": GET_NOTE,
        "description": (
            "Read one note by its ID (as search_notes returns it). Read-only. Returns "
            "{\"id\", \"title\", \"tags\", \"text\"} (a long text is cut and says so), or "
            "{\"error\": \"no note with this ID\"}."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "minLength": 1, "maxLength": MAX_ID,
                       "description": "The note's ID, exactly."},
            },
            "required": ["id"],
            "additionalProperties": False,
        },
    },
}


DUE_SCHEMA = {
    "type": "function",
    "function": {
        "name": DUE_NOTES,
        "description": (
            "List the person's notes that are due for review by today + days, most overdue "
            "first, as the program schedules them from the reviews it recorded (FSRS). "
            "Read-only. Returns {\"due\": [{\"id\", \"title\", \"due\", \"last_reviewed\", "
            "\"last_rating\", \"retrievability\", \"reviews\"}], \"total\": N, "
            "\"next_due\": date or null}: due dates are YYYY-MM-DD, retrievability is the chance "
            "of recall now in percent, total counts every note due, next_due is the first due "
            "date after that day."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "days": {"type": "integer", "minimum": 0, "maximum": MAX_DUE_DAYS,
                         "description": "Notes due by today plus this many days (0: today)."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_DUE_LIMIT,
                          "description": "How many notes at most."},
            },
            "required": ["days", "limit"],
            "additionalProperties": False,
        },
    },
}


FREE_SLOTS_SCHEMA = {
    "type": "function",
    "function": {
        "name": FREE_SLOTS,
        "description": (
            "List the free time in the person's study hours, day by day, after their busy time "
            "(times only), saved plans and each day's daily minutes. Read-only. Returns "
            "{\"days\": [{\"date\", \"slots\": [{\"start\", \"end\"}], \"minutes_left\"}]}: "
            "slots (HH:MM) of at least `minutes`; minutes_left null: no daily limit; "
            "\"busy_unknown\": true: busy time unreadable, slots may not be free; "
            "\"more_from\": date: the answer stopped before that day (ask again from it)."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "from": {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                         "description": f"First day, YYYY-MM-DD: today to {MAX_SLOTS_AHEAD} "
                                        "days on."},
                "days": {"type": "integer", "minimum": 1, "maximum": MAX_SLOT_DAYS,
                         "description": "How many days."},
                "minutes": {"type": "integer", "minimum": SLOT_MINUTES[0],
                            "maximum": SLOT_MINUTES[1],
                            "description": "The session's length."},
            },
            "required": ["from", "days", "minutes"],
            "additionalProperties": False,
        },
    },
}


class GoalNotesArguments(NamedTuple):
    """Checked goal_notes arguments."""

    offset: int
    limit: int


GOAL_NOTES_SCHEMA = {
    "type": "function",
    "function": {
        "name": GOAL_NOTES,
        "description": (
            "List the notes of the goal this run plans for, least ready first: how likely the "
            "person is to recall each now and on the goal's day (0-1, with the sessions saved "
            "so far, each counted as one good review), its due date and how many saved "
            "sessions ahead hold it. Read-only. Returns {\"goal\", \"date\", \"total\", "
            "\"notes\": [{\"id\", \"title\", \"due\", \"recall_now\", \"recall_on_day\", "
            "\"sessions_planned\"}]}."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "offset": {"type": "integer", "minimum": 0,
                           "description": "How many of the least ready notes to skip."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_GOAL_LIMIT,
                          "description": "How many notes at most."},
            },
            "required": ["offset", "limit"],
            "additionalProperties": False,
        },
    },
}


def goal_notes_tool(goal: GoalTarget, memory: ReviewMemory, timetable: Timetable,
                    today: _dt.date) -> Tool:
    """goal_notes over the run's goal: run at once, never confirmed."""
    return Tool(GOAL_NOTES, GOAL_NOTES_SCHEMA, check_goal_notes, False,
                lambda arguments: run_goal_notes(goal, memory, timetable, today, arguments))


def free_slots_tool(timetable: Timetable, today: _dt.date) -> Tool:
    """free_slots over the run's timetable: run at once, never confirmed."""
    return Tool(FREE_SLOTS, FREE_SLOTS_SCHEMA, lambda arguments: check_slots(arguments, today),
                False, lambda arguments: run_slots(timetable, arguments))


def lookup_tools(catalog: Catalog) -> tuple[Tool, Tool]:
    """search_notes and get_note over `catalog`: run at once, never confirmed."""
    return (
        Tool(SEARCH_NOTES, SEARCH_SCHEMA, check_search, False,
             lambda arguments: run_search(catalog, arguments)),
        Tool(GET_NOTE, GET_SCHEMA, check_get, False,
             lambda arguments: run_get(catalog, arguments)),
    )


def due_tool(memory: ReviewMemory, today: _dt.date) -> Tool:
    """due_notes over the review memory: run at once, never confirmed."""
    return Tool(DUE_NOTES, DUE_SCHEMA, check_due, False,
                lambda arguments: run_due(memory, today, arguments))


# --- checking --------------------------------------------------------------------------------


def check_search(arguments: object) -> SearchArguments:
    """search_notes arguments, or InvalidArguments naming the field and the rule."""
    data = _object(arguments, required=("query",), allowed=("query", "limit"))
    query = data["query"]
    if not isinstance(query, str):
        raise InvalidArguments("query", t("must be a string, got {kind}", kind=kind_of(query)))
    if len(query) > MAX_QUERY:
        raise InvalidArguments("query", t("has {count} characters; at most {limit}",
                                          count=len(query), limit=MAX_QUERY))
    query = query.strip(_SPACES)
    if not query:
        raise InvalidArguments("query", t("is empty after trimming spaces"))
    _printable("query", query)
    limit = data.get("limit", DEFAULT_LIMIT)
    # bool is an int subclass, and 5.0 or "5" are not integers: none is converted.
    if type(limit) is not int:
        raise InvalidArguments("limit", t("must be an integer, got {kind}", kind=kind_of(limit)))
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidArguments("limit", t("must be from {low} to {high}, got {value}", low=1,
                                          high=MAX_LIMIT, value=limit))
    return SearchArguments(query, limit)


def check_get(arguments: object) -> GetArguments:
    """get_note arguments, or InvalidArguments naming the field and the rule."""
    data = _object(arguments, required=("id",), allowed=("id",))
    note_id = data["id"]
    if not isinstance(note_id, str):
        raise InvalidArguments("id", t("must be a string, got {kind}", kind=kind_of(note_id)))
    if not note_id:
        raise InvalidArguments("id", t("is empty"))
    if len(note_id) > MAX_ID:
        raise InvalidArguments("id", t("has {count} characters; at most {limit}",
                                       count=len(note_id), limit=MAX_ID))
    _printable("id", note_id)
    return GetArguments(note_id)


def check_due(arguments: object) -> DueArguments:
    """due_notes arguments, or InvalidArguments naming the field and the rule."""
    data = _object(arguments, required=("days", "limit"), allowed=("days", "limit"))
    return DueArguments(_whole(data, "days", 0, MAX_DUE_DAYS),
                        _whole(data, "limit", 1, MAX_DUE_LIMIT))


def check_goal_notes(arguments: object) -> GoalNotesArguments:
    """goal_notes arguments, or InvalidArguments naming the field and the rule."""
    return check_page(arguments, MAX_GOAL_LIMIT)


def check_page(arguments: object, most: int) -> GoalNotesArguments:
    """A page's `offset` (0 or more) and `limit` (1 to `most`), both required integers."""
    data = _object(arguments, required=("offset", "limit"), allowed=("offset", "limit"))
    offset = data["offset"]
    # bool is an int subclass, and 7.0 or "7" are not integers: none is converted.
    if type(offset) is not int:
        raise InvalidArguments("offset", t("must be an integer, got {kind}",
                                           kind=kind_of(offset)))
    if offset < 0:
        raise InvalidArguments("offset", t("must be 0 or more, got {value}", value=offset))
    return GoalNotesArguments(offset, _whole(data, "limit", 1, most))


def check_slots(arguments: object, today: _dt.date) -> SlotArguments:
    """free_slots arguments, or InvalidArguments naming the field and the rule."""
    fields = ("from", "days", "minutes")
    data = _object(arguments, required=fields, allowed=fields)
    from planner.plans.plan import check_date

    first = check_date(data["from"], "from")
    last = today + _dt.timedelta(days=MAX_SLOTS_AHEAD)
    if not today <= first <= last:
        raise InvalidArguments("from", t("must be from today ({today}) to {last}, got {date}",
                                         today=today.isoformat(), last=last.isoformat(),
                                         date=first.isoformat()))
    return SlotArguments(first.isoformat(), _whole(data, "days", 1, MAX_SLOT_DAYS),
                         _whole(data, "minutes", *SLOT_MINUTES))


def _whole(data: dict[str, Any], field: str, low: int, high: int) -> int:
    value = data[field]
    # bool is an int subclass, and 7.0 or "7" are not integers: none is converted.
    if type(value) is not int:
        raise InvalidArguments(field, t("must be an integer, got {kind}", kind=kind_of(value)))
    if not low <= value <= high:
        raise InvalidArguments(field, t("must be from {low} to {high}, got {value}", low=low,
                                        high=high, value=value))
    return value


def _object(arguments: object, required: tuple[str, ...],
            allowed: tuple[str, ...]) -> dict[str, Any]:
    data = load_object(arguments)
    for name in required:
        if name not in data:
            raise InvalidArguments(name, t("is required but missing"))
    extra = sorted(name for name in data if name not in allowed)
    if extra:
        name = field_name(extra[0])
        raise InvalidArguments(name, t("is not an allowed field (only {fields})",
                                       fields=", ".join(allowed)))
    return data


def _printable(field: str, value: str) -> None:
    for char in value:
        if not (char.isprintable() or unicodedata.category(char) == "Zs"):
            raise InvalidArguments(field, t("contains a non-printable character U+{code:04X}",
                                            code=ord(char)))


# --- running ---------------------------------------------------------------------------------


def run_search(catalog: Catalog, arguments: SearchArguments) -> dict[str, Any]:
    """The best matches, cut to fit MAX_RESULT_BYTES (`total` still counts every match)."""
    from planner.notes.catalog import NotesError

    try:
        results, total = catalog.search(arguments.query, arguments.limit)
    except NotesError as error:
        return {"error": t("the notes cannot be searched now ({error})", error=error)}
    shown = [{"id": item["id"], "title": _cut(item["title"], _TITLE),
              "snippet": item["snippet"]} for item in results]
    result = {"results": shown, "total": total}
    # Rare: very long IDs or wide snippets. Shorten snippets first, then drop the last results.
    while _size(result) > MAX_RESULT_BYTES and shown:
        longest = max(shown, key=lambda item: len(item["snippet"] or ""))
        if len(longest["snippet"] or "") > 40:
            longest["snippet"] = _cut(longest["snippet"], len(longest["snippet"]) // 2)
        else:
            shown.pop()
    return result


def run_get(catalog: Catalog, arguments: GetArguments) -> dict[str, Any]:
    """One note, its text cut at MAX_TEXT characters (or less, to fit) and saying so."""
    from planner.notes.catalog import NotesError

    try:
        note = catalog.get(arguments.id)
    except NotesError as error:
        return {"error": t("the note cannot be read now ({error})", error=error)}
    if note is None:
        return dict(NO_NOTE)
    result = {"id": note.id, "title": _cut(note.title, _TITLE),
              "tags": [_cut(tag, 30) for tag in note.tags[:_TAGS]], "text": note.text}
    if _size(result) <= MAX_RESULT_BYTES and len(note.text) <= MAX_TEXT:
        return result
    # The longest start of the text that fits with its notice: a binary search on its length.
    low, high = 0, min(len(note.text), MAX_TEXT)
    while low < high:
        middle = (low + high + 1) // 2
        result["text"] = _with_notice(note.text, middle)
        if _size(result) <= MAX_RESULT_BYTES:
            low = middle
        else:
            high = middle - 1
    result["text"] = _with_notice(note.text, low)
    return result


def run_due(memory: ReviewMemory, today: _dt.date, arguments: DueArguments) -> dict[str, Any]:
    """The notes due by today + days, as `planner due --json` lists them, cut to fit."""
    from planner.notes.catalog import NotesError

    try:
        found = memory.due(today, arguments.days, arguments.limit)
    except NotesError as error:
        return {"error": t("the notes cannot be read now ({error})", error=error)}
    rows = [{**row, "title": _cut(str(row["title"]), _TITLE)} for row in found.rows]
    result = {"due": rows, "total": found.total,
              "next_due": None if found.next_due is None else found.next_due.isoformat()}
    # Rare: IDs hundreds of characters long. The last (least overdue) notes go first.
    while _size(result) > MAX_RESULT_BYTES and rows:
        rows.pop()
    return result


def run_slots(timetable: Timetable, arguments: SlotArguments) -> dict[str, Any]:
    """Each day's free slots, cut to fit: the last days go first, then a day's last slots."""
    days = timetable.free_days(_dt.date.fromisoformat(arguments.first), arguments.days,
                               arguments.minutes)
    result: dict[str, Any] = {"days": days}
    # Whole days while more than one is left: the answer ends at the last day that fits, and
    # says where to go on from.
    while _size(result) > MAX_RESULT_BYTES and len(days) > 1:
        result["more_from"] = days.pop()["date"]
    while _size(result) > MAX_RESULT_BYTES and days:
        longest = max(days, key=lambda day: len(day["slots"]))
        if len(longest["slots"]) > 4:
            del longest["slots"][len(longest["slots"]) // 2:]
        else:
            days.pop()
    return result


def run_goal_notes(goal: GoalTarget, memory: ReviewMemory, timetable: Timetable,
                   today: _dt.date, arguments: GoalNotesArguments) -> dict[str, Any]:
    """The goal's notes least ready first, from `offset`, cut to fit."""
    from planner.memory.readiness import goal_notes
    from planner.notes.catalog import NotesError

    try:
        every = goal_notes(timetable.home, goal, memory, today, timetable.review_time)
    except NotesError as error:
        return {"error": t("the notes cannot be read now ({error})", error=error)}
    rows = [{**row, "title": None if row["title"] is None else _cut(str(row["title"]), _TITLE)}
            for row in every[arguments.offset:arguments.offset + arguments.limit]]
    result = {"goal": goal.name, "date": goal.date.isoformat(), "total": len(every),
              "notes": rows}
    # Rare: IDs hundreds of characters long. The last (most ready) notes go first.
    while _size(result) > MAX_RESULT_BYTES and rows:
        rows.pop()
    return result


def _with_notice(text: str, shown: int) -> str:
    return (f"{text[:shown]}\n[cut: the first {shown:,} of {len(text):,} characters are shown; "
            "the rest of this note is not]")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _size(result: dict[str, Any]) -> int:
    """The result's size as the flow sends and bounds it."""
    return len(storage.to_json(result))

