"""Saved plan files: their content (v2 a plan, v3 a series), strict reading, listing, warnings."""

# One module reads plans and lays out their content for the flow, `planner plans` and `planner
# export`; planner.plans.store writes them.
#
# A series (README "Review memory") is one file, version 3, with `dates` where a plan has `date`;
# the listing
# gives each of its sessions as a row of its own (`session` 1, 2, ...). Rows say whether the
# review log marks them done (a review for the plan, or `<run_id>#n` for session n) or dropped
# (the whole plan); the log is only read here, never written.
#
# Reading is strict and never raises: a plan file that is a link, a FIFO, a device, a folder,
# larger than 1 MiB, not UTF-8 JSON, nested deeper than 64 levels or not a valid plan (a date at
# the edge of the calendar included, planner.base.days) becomes a row with its `problem`. Links
# are never followed (neither plans/ itself nor a file in it), so nothing outside the home folder
# is read, and nothing waits on a FIFO (O_NONBLOCK).
#
# Speed on thousands of plans: one os.scandir, one bounded read per file, plain str paths, and
# checks that touch each field once; nothing here imports pydantic, Rich or icalendar.

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from planner.base import days, storage, strictjson
from planner.base.errors import Failure
from planner.base.home import HomePath
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.plans.plan import (
    FIELDS,
    MAX_MINUTES,
    MAX_NOTES,
    MAX_SESSIONS,
    MAX_TITLE,
    MIN_SESSIONS,
    SERIES_FIELDS,
    START,
    ReviewSeries,
)
from planner.plans.study import Proposal, StudyPlan

PLANS_DIR = {"live": "plans", "demo": "demo-plans"}
PLAN_VERSION = 2
SERIES_VERSION = 3  # a series only; a single plan is still written as version 2
STUDY_VERSION = 4  # a study plan: sessions of their own, and the goal it was made for
MAX_STUDY_SESSIONS = 60
MAX_GOAL_NAME = 40
MAX_PLAN_BYTES = storage.MIB
MAX_DEPTH = 64  # README "A screen you can trust": nested JSON deeper than this is refused
# Plans examined for the SAVE screen's warnings: enough for decades of daily use, and a bound
# on the time a folder of millions of files can add before the prompt. Names sort by time, so
# the newest are the ones examined.
MAX_WARNING_FILES = 20_000
# `session`: n (from 1) for a series' session, None for a plan; `done`: the log has a review of
# it; `dropped`: `planner drop` said the plan (every session of a series) will not happen.
ROW_KEYS = ("file", "run_id", "date", "minutes", "title", "note_ids", "notes", "simulated",
            "session", "done", "dropped", "problem", "start")

_V1_KEYS = frozenset({"simulated", "plan"})
_V2_KEYS = frozenset({"version", "simulated", "run_id", "created_at", "plan", "notes"})
_V4_KEYS = _V2_KEYS | {"goal"}
_STUDY_KEYS = frozenset({"title", "sessions"})
_SESSION_KEYS = frozenset({"date", "start", "minutes", "note_ids"})
_PLAN_KEYS = frozenset(FIELDS)
_SERIES_KEYS = frozenset(SERIES_FIELDS)
_NOTE_KEYS = frozenset({"id", "title"})
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
_START = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]", re.ASCII)
# What a run ID may hold: it becomes part of a calendar UID and of a file name.
_RUN_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,99}", re.ASCII)
MAX_NOTE_TITLE = 1000




def is_run_id(value: object) -> bool:
    """Whether `value` has the form of a planner run ID, the only text a calendar UID holds."""
    return type(value) is str and _RUN_ID.fullmatch(value) is not None


class PlansError(Failure):
    """The plans folder exists but cannot be listed; one line for the person."""


class BadPlan(ValueError):
    """A plan file's content is not a valid plan; the message says what is wrong."""


class Marks(NamedTuple):
    """What the review log says about saved plans, by the `run_id` its lines carry."""

    done: frozenset[str] = frozenset()  # a plan's run ID, or `<run_id>#n` for a session
    dropped: frozenset[str] = frozenset()  # plans' run IDs, or `<run_id>#n` for a session
    # Where a moved plan or session happens now: (date, start) by its `<run_id>[#n]`.
    moved: Mapping[str, tuple[str, str]] = MappingProxyType({})


NO_MARKS = Marks()


def session_ref(run_id: str, session: int | None) -> str:
    """How the log names a plan (its run ID) or session n of a series (`<run_id>#n`)."""
    return run_id if session is None else f"{run_id}#{session}"


def split_ref(text: str) -> tuple[str, int | None]:
    """`RUN#n` as (RUN, n); anything else as (text, None). ValueError when n is not 1 to 60."""
    run, mark, number = text.partition("#")
    if not mark:
        return text, None
    if not number.isascii() or not number.isdigit() or not 1 <= int(number) <= 60:
        raise ValueError(t("{ref}: the session number after # must be 1 to 60", ref=text))
    return run, int(number)


def row_ref(row: dict) -> str:
    """The log's name for a listing row: `<run_id>` or `<run_id>#n`."""
    return session_ref(row["run_id"], row["session"])


def plan_file_content(
    plan: Proposal, *, simulated: bool, run_id: str,
    created_at: str, notes: Sequence, goal: str | None = None
) -> bytes:
    """The plan file (version 2; a series version 3; a study plan version 4, with its goal):
    indented UTF-8 JSON ending in a newline."""
    study = isinstance(plan, StudyPlan)
    data: dict = {
        "version": STUDY_VERSION if study else
        SERIES_VERSION if isinstance(plan, ReviewSeries) else PLAN_VERSION,
        "simulated": simulated,
        "run_id": run_id,
        "created_at": created_at,
    }
    if study:
        data["goal"] = goal
    # The titles as they are now: the notes may be renamed later, the plan keeps its words.
    data.update(plan=plan.as_dict(), notes=[{"id": note.id, "title": note.title}
                                            for note in notes])
    # The plan is the person's own file: indented to be read by eye.
    return storage.to_json(data, indent=2)


def plans_dir(home: HomePath, demo: bool) -> str:
    """The path of home/plans (or home/demo-plans) as a plain string."""
    return os.path.join(os.fspath(home), PLANS_DIR["demo" if demo else "live"])


def plan_names(folder: str) -> list[str]:
    """The `*.json` names in a plans folder, sorted; [] when it does not exist; else PlansError."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return []
    except OSError as error:
        raise PlansError(t("cannot look at {folder} ({reason})", folder=folder,
                           reason=os_reason(error))) from None
    if stat.S_ISLNK(info.st_mode):
        # A link could lead anywhere on the disk: plans are read only inside the home folder.
        raise PlansError(t("{folder} is a symbolic link, which is not followed; make it a real "
                           "folder", folder=folder))
    if not stat.S_ISDIR(info.st_mode):
        raise PlansError(t("{folder} is not a folder", folder=folder))
    try:
        with os.scandir(folder) as entries:
            # Dot names are never plans (.gitkeep, editors' files), nor are names not ending .json.
            names = [entry.name for entry in entries
                     if entry.name[0] != "." and entry.name.endswith(".json")]
    except OSError as error:
        raise PlansError(t("cannot list {folder} ({reason})", folder=folder,
                           reason=os_reason(error))) from None
    names.sort()
    return names


def read_plan(folder: str, name: str, label: str) -> list[dict]:
    """The listing rows of the plan file `folder/name`, shown as `label/name`: one for a plan,
    one per session for a series, or one row with its problem; never raises."""
    shown = _printable_name(name)
    if shown != name:
        return [_problem_row(label, shown, t("its name is not valid UTF-8"))]
    path = f"{folder}/{name}"
    try:
        data = storage.read_regular_file(path, MAX_PLAN_BYTES, follow_links=False)
    except storage.FileRefused as error:
        # The row names the file: storage's refusal without the path in front.
        return [_problem_row(label, shown, error.reason)]
    except FileNotFoundError:
        return [_problem_row(label, shown, t("disappeared while being read"))]
    except OSError as error:
        return [_problem_row(label, shown, t("cannot be read ({reason})",
                                             reason=os_reason(error)))]
    try:
        value = _decode(data)
    except BadPlan as error:
        return [_problem_row(label, shown, str(error))]
    try:
        return _rows(f"{label}/{name}", name, value)
    except BadPlan as error:
        # A valid plan nests 3 levels, so anything deeper has failed a check by now: the depth
        # is measured only then, never on the way of a good plan.
        problem = t("is JSON nested deeper than {max_depth} levels",
                    max_depth=MAX_DEPTH) if _deeper_than(value, MAX_DEPTH) else str(error)
        return [_problem_row(label, shown, problem)]


def list_plans(home: HomePath, demo: bool, include_past: bool, today: _dt.date,
               marks: Marks = NO_MARKS) -> list[dict]:
    """`planner plans --json` rows: upcoming first, then (include_past) past newest first,
    then every file that has a problem; raises PlansError when the folder cannot be listed.

    A series gives one row per session. Dropped plans are listed too, marked (`plans` hides
    them, exports cancel their events). `marks`: from the review log, read by the caller
    (the review memory owns the log; this layer sits below it).
    """
    label = PLANS_DIR["demo" if demo else "live"]
    folder = plans_dir(home, demo)
    names = plan_names(folder)
    upcoming, past, problems = [], [], []
    first_file: dict[str, str] = {}
    now = today.isoformat()
    for name in names:
        rows = read_plan(folder, name, label)
        first = rows[0]
        if first["problem"] is None:
            # A copied file keeps the run ID: two calendar events with one UID would merge.
            earlier = first_file.setdefault(first["run_id"], first["file"])
            if earlier != first["file"]:
                rows = [_problem_row(label, name, t("has the same run_id as {file} (a copy?)",
                                                    file=earlier))]
        for row in rows:
            if row["problem"] is not None:
                problems.append(row)
                continue
            _mark(row, marks)
            if row["date"] >= now:
                upcoming.append(row)
            elif include_past:
                past.append(row)
    # Names sort by creation time (run IDs), so ties on a date keep the order they were saved.
    upcoming.sort(key=_date_key)
    past.sort(key=_date_key, reverse=True)
    return upcoming + past + problems


def _mark(row: dict, marks: Marks) -> None:
    if marks.done:
        row["done"] = row_ref(row) in marks.done
    if marks.dropped:
        row["dropped"] = row["run_id"] in marks.dropped or row_ref(row) in marks.dropped
    if marks.moved:
        where = marks.moved.get(row_ref(row))
        if where is not None:
            # Plan files are never rewritten: the log's latest move says where it is now.
            row["date"], row["start"] = where
            row["moved"] = True


def confirmation_warnings(home: HomePath, mode: str, plan: Proposal,
                          today: _dt.date,
                          dropped: Callable[[], frozenset[str]] = frozenset) -> list[str]:
    """One-line warnings for the SAVE screen about plans already saved; never raises.

    A saved plan (or session) of the same mode with the same date and the same set of note IDs
    is named as a duplicate; other plans on that date are counted with their minutes. For a
    series, every session's date is looked at, and each warning names its session. Dropped
    plans and files that cannot be read are left out (`planner plans` lists them). `today` is
    accepted for the screen's own use and does not change the result. `dropped()` gives the run
    IDs the review log says were dropped: asked only when there are plans to look at, so an
    empty folder costs no read of the log.
    """
    label = PLANS_DIR.get(mode)
    if label is None:
        return []
    folder = os.path.join(os.fspath(home), label)
    try:
        names = plan_names(folder)
    except PlansError:
        return []
    warnings = []
    if len(names) > MAX_WARNING_FILES:
        warnings.append(t("only the newest {checked:,} of {count:,} files in {folder}/ were "
                          "checked for plans on this date", checked=MAX_WARNING_FILES,
                          count=len(names), folder=label))
        names = names[-MAX_WARNING_FILES:]
    days = plan_days(plan)
    wanted = frozenset(plan.note_ids)
    same: dict[str, list[str]] = {day: [] for day in days}
    minutes = dict.fromkeys(days, 0)
    count = dict.fromkeys(days, 0)
    left_out = dropped() if names else frozenset()
    for name in names:
        try:
            rows = read_plan(folder, name, label)
        except Exception:  # a warning must never stop the person from deciding
            continue
        for row in rows:
            day = row["date"]
            if row["problem"] is not None or day not in count or row["run_id"] in left_out:
                continue
            count[day] += 1
            minutes[day] += row["minutes"]
            if frozenset(row["note_ids"]) == wanted:
                where = row["file"]
                if row["session"] is not None:
                    where = t("{file} (session {session})", file=where, session=row["session"])
                same[day].append(where)
    series = len(days) > 1 or isinstance(plan, ReviewSeries)
    for number, day in enumerate(days, 1):
        found, day_warnings = same[day], []
        if len(found) > 1:
            day_warnings.append(t("the same review (same date, same notes) is already saved in "
                                  "{file} and {more} more", file=found[0], more=len(found) - 1))
        elif found:
            day_warnings.append(t("the same review (same date, same notes) is already saved in "
                                  "{file}", file=found[0]))
        if count[day] == 1:
            day_warnings.append(t("that day already holds {minutes} minutes in 1 plan",
                                  minutes=minutes[day]))
        elif count[day]:
            day_warnings.append(t("that day already holds {minutes} minutes in {count} plans",
                                  minutes=minutes[day], count=count[day]))
        for warning in day_warnings:
            warnings.append(t("session {number} ({day}): {warning}", number=number, day=day,
                              warning=warning) if series else warning)
    return warnings


def plan_days(plan: Proposal) -> tuple[str, ...]:
    """The dates of a plan (one) or of a series (each session's, in order)."""
    return plan.days


def _date_key(row: dict) -> str:
    return row["date"]


# --- strict reading --------------------------------------------------------------------------

def _decode(data: bytes) -> object:
    """The JSON value in a plan file, refusing anything ambiguous."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadPlan(t("is not UTF-8 text")) from None
    if not text.strip():
        raise BadPlan(t("is empty"))
    try:
        # Every number in a plan file has a range: one too large is named with its key.
        return strictjson.loads(text, overflow_as_infinity=True)
    except strictjson.JSONRefused as error:
        raise BadPlan(str(error)) from None


def _deeper_than(value: object, limit: int) -> bool:
    """Whether a decoded JSON value nests lists and objects more than `limit` levels deep."""
    level = [value] if type(value) in (dict, list) else []
    for _depth in range(limit):
        level = [child for node in level for child in _children(node)
                 if type(child) in (dict, list)]
        if not level:
            return False
    return True


def _children(node: object) -> Iterable[object]:
    return node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()


def _rows(file: str, name: str, data: object) -> list[dict]:
    """The listing rows of a decoded plan file (version 1, 2 or 3), or BadPlan."""
    if type(data) is not dict:
        raise BadPlan(t("is not a JSON object"))
    version = data.get("version")
    series = False
    if version is None and "version" not in data:
        _exact_keys(data, _V1_KEYS, t("a version-1 plan file"))
        run_id = name[:-5]  # version 1 files are named after their run; ".json" removed
        if not is_run_id(run_id):
            # It would become a calendar UID and a run to look up: only planner's own form.
            raise BadPlan(t("its name is not a run ID (letters, digits, '.', '_' or '-', "
                            "at most 100, then .json)"))
        notes = None
    elif version in (PLAN_VERSION, SERIES_VERSION) and type(version) is int:
        series = version == SERIES_VERSION
        _exact_keys(data, _V2_KEYS, t("a plan file"))
        run_id = data["run_id"]
        if not is_run_id(run_id):
            raise BadPlan(t("run_id: must be letters, digits, '.', '_' or '-' (at most 100)"))
        _check_created_at(data["created_at"])
        notes = data["notes"]
    elif version == STUDY_VERSION and type(version) is int:
        return _study_rows(file, data)
    elif type(version) is int and version > STUDY_VERSION:
        raise BadPlan(t("is a version-{version} plan file; this planner reads versions 1 to 4",
                        version=version))
    else:
        raise BadPlan(t("version: must be 2, 3 or 4 (or absent, for version 1)"))
    simulated = data["simulated"]
    if type(simulated) is not bool:
        raise BadPlan(t("simulated: must be true or false"))
    plan = data["plan"]
    if type(plan) is not dict:
        raise BadPlan(t("plan: must be an object"))
    # start is optional (README "Your week"): plans written before it keep the old layout.
    start = plan.get(START)
    _exact_keys({key: value for key, value in plan.items() if key != START},
                _SERIES_KEYS if series else _PLAN_KEYS, "plan")
    if START in plan and (type(start) is not str or not _START.fullmatch(start)):
        raise BadPlan(t("plan.start: must be a 24-hour time HH:MM"))
    title, note_ids = plan["title"], plan["note_ids"]
    _check_title(title)
    _check_note_ids(note_ids)
    dates = _check_dates(plan["dates"]) if series else [_check_date(plan["date"], "plan.date")]
    minutes = plan["minutes"]
    if type(minutes) is not int or not 1 <= minutes <= MAX_MINUTES:
        raise BadPlan(t("plan.minutes: must be an integer from 1 to {max_minutes}",
                        max_minutes=MAX_MINUTES))
    if notes is None:
        notes = [{"id": note_id, "title": None} for note_id in note_ids]
    else:
        _check_notes(notes, note_ids)
    return [{
        "file": file, "run_id": run_id, "date": date, "minutes": minutes, "title": title,
        "note_ids": note_ids, "notes": notes, "simulated": simulated,
        "session": number if series else None, "done": False, "dropped": False,
        "problem": None, "start": start,
    } for number, date in enumerate(dates, 1)]


def _study_rows(file: str, data: dict) -> list[dict]:
    """The rows of a version-4 file: one per session, each with its own notes and start."""
    _exact_keys(data, _V4_KEYS, t("a plan file"))
    run_id, goal, plan = data["run_id"], data["goal"], data["plan"]
    if not is_run_id(run_id):
        raise BadPlan(t("run_id: must be letters, digits, '.', '_' or '-' (at most 100)"))
    _check_created_at(data["created_at"])
    if type(data["simulated"]) is not bool:
        raise BadPlan(t("simulated: must be true or false"))
    if goal is not None and (type(goal) is not str or not 1 <= len(goal) <= MAX_GOAL_NAME
                             or not goal.isprintable()):
        raise BadPlan(t("goal: must be null or a goal's name of 1 to {most} characters",
                        most=MAX_GOAL_NAME))
    if type(plan) is not dict:
        raise BadPlan(t("plan: must be an object"))
    _exact_keys(plan, _STUDY_KEYS, "plan")
    _check_title(plan["title"])
    sessions = plan["sessions"]
    if type(sessions) is not list or not 1 <= len(sessions) <= MAX_STUDY_SESSIONS:
        raise BadPlan(t("plan.sessions: must be a list of 1 to {most} sessions",
                        most=MAX_STUDY_SESSIONS))
    for session in sessions:
        if type(session) is not dict:
            raise BadPlan(t("plan.sessions: must hold objects"))
        _exact_keys(session, _SESSION_KEYS, t("plan.sessions item"))
        _check_date(session["date"], "plan.sessions.date")
        start, minutes = session["start"], session["minutes"]
        if type(start) is not str or not _START.fullmatch(start):
            raise BadPlan(t("plan.start: must be a 24-hour time HH:MM"))
        if type(minutes) is not int or not 1 <= minutes <= MAX_MINUTES:
            raise BadPlan(t("plan.minutes: must be an integer from 1 to {max_minutes}",
                            max_minutes=MAX_MINUTES))
        _check_note_ids(session["note_ids"])
    every = list(dict.fromkeys(note for session in sessions for note in session["note_ids"]))
    _check_notes(data["notes"], every)
    titles = {note["id"]: note for note in data["notes"]}
    return [{
        "file": file, "run_id": run_id, "date": session["date"],
        "minutes": session["minutes"], "title": plan["title"],
        "note_ids": session["note_ids"], "notes": [titles[note] for note in session["note_ids"]],
        "simulated": data["simulated"], "session": number, "done": False, "dropped": False,
        "problem": None, "start": session["start"], "goal": goal,
    } for number, session in enumerate(sessions, 1)]


def _check_date(date: object, field: str) -> str:
    if type(date) is not str or not _DATE.fullmatch(date):
        raise BadPlan(t("{field}: must be written YYYY-MM-DD", field=field))
    try:
        day = _dt.date.fromisoformat(date)
    except ValueError:
        raise BadPlan(t("{field}: {date} is not a real calendar date", field=field,
                        date=date)) from None
    if not days.usable_day(day):
        # README "A screen you can trust": a day at the calendar's very edge may not exist in UTC
        # (nor in the zone an
        # event is placed in): the file is a problem row, as for any other wrong value.
        raise BadPlan(t("{field}: {date} is at the edge of the calendar; planner uses dates "
                        "from {first} to {last}", field=field, date=date,
                        first=days.FIRST_DAY.isoformat(), last=days.LAST_DAY.isoformat()))
    return date


def _check_dates(dates: object) -> list[str]:
    if type(dates) is not list or not MIN_SESSIONS <= len(dates) <= MAX_SESSIONS:
        raise BadPlan(t("plan.dates: must be a list of {least} to {most} dates",
                        least=MIN_SESSIONS, most=MAX_SESSIONS))
    checked = [_check_date(date, "plan.dates") for date in dates]
    for earlier, later in zip(checked, checked[1:], strict=False):
        if later <= earlier:
            raise BadPlan(t("plan.dates: must be strictly increasing"))
    return checked


def _exact_keys(data: dict, keys: frozenset, what: str) -> None:
    if len(data) != len(keys) or not keys.issuperset(data):
        missing = sorted(keys - data.keys())
        if missing:
            raise BadPlan(t("{what}: has no {key}", what=what, key=repr(missing[0])))
        extra = sorted(data.keys() - keys)
        raise BadPlan(t("{what}: has an unknown key {key}", what=what, key=_short_text(extra[0])))


def _check_title(title: object) -> None:
    if type(title) is not str:
        raise BadPlan(t("plan.title: must be a string"))
    if not 1 <= len(title) <= MAX_TITLE:
        raise BadPlan(t("plan.title: must be 1 to {max_title} characters", max_title=MAX_TITLE))
    if not title.isprintable() and not _printable_or_space(title):
        raise BadPlan(t("plan.title: contains a control or format character"))
    # Printable characters and spaces only by now, so isspace() means a space at an end.
    if title[0].isspace() or title[-1].isspace():
        raise BadPlan(t("plan.title: has spaces at its ends"))


def _check_note_ids(note_ids: object) -> None:
    if type(note_ids) is not list or not 1 <= len(note_ids) <= MAX_NOTES:
        raise BadPlan(t("plan.note_ids: must be a list of 1 to {max_notes} note IDs",
                        max_notes=MAX_NOTES))
    for note_id in note_ids:
        if type(note_id) is not str or not note_id or not note_id.isprintable():
            raise BadPlan(t("plan.note_ids: must hold non-empty printable strings"))
    if len(set(note_ids)) != len(note_ids):
        raise BadPlan(t("plan.note_ids: repeats a note ID"))


def _check_notes(notes: object, note_ids: list) -> None:
    if type(notes) is not list or len(notes) != len(note_ids):
        raise BadPlan(t("notes: must list the plan's notes"))
    for note, note_id in zip(notes, note_ids, strict=True):
        if type(note) is not dict:
            raise BadPlan(t("notes: must hold objects"))
        _exact_keys(note, _NOTE_KEYS, t("notes item"))
        if note["id"] != note_id:
            raise BadPlan(t("notes: must be the plan's notes, in the order of plan.note_ids"))
        title = note["title"]
        if type(title) is not str or len(title) > MAX_NOTE_TITLE:
            raise BadPlan(t("notes: each title must be a string of at most {max_title:,} "
                            "characters", max_title=MAX_NOTE_TITLE))


def _check_created_at(value: object) -> None:
    if type(value) is not str or len(value) > 40:
        raise BadPlan(t("created_at: must be an ISO 8601 time"))
    try:
        _dt.datetime.fromisoformat(value)
    except ValueError:
        raise BadPlan(t("created_at: must be an ISO 8601 time")) from None


def _printable_or_space(text: str) -> bool:
    """Every character printable or a space separator (full-width U+3000 and the like)."""
    import unicodedata

    return all(char.isprintable() or unicodedata.category(char) == "Zs" for char in text)


def _problem_row(label: str, name: str, problem: str) -> dict:
    row = dict.fromkeys(ROW_KEYS)
    row["file"] = f"{label}/{name}"
    row["problem"] = problem
    return row


def _printable_name(name: str) -> str:
    """A file name as text that can be printed: undecodable bytes shown as \\xNN."""
    if name.isascii():
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _short_text(value: str) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."
