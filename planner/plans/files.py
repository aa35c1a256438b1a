"""Saved plan files: their content (v2 a plan, v3 a series, v4 a study plan, v5 one saved for a
goal with its readiness), strict reading, listing, warnings."""

# One module reads plans and lays out their content for the flow, `planner plans` and `planner
# export`; planner.plans.store writes them.
#
# A series (README "Review memory") is one file, version 3, with `dates` where a plan has `date`;
# the listing gives each of its sessions as a row of its own (`session` 1, 2, ...). Rows say
# whether the review log marks them done (a review for the plan, or `<run_id>#n` for session n)
# or dropped (the whole plan); the log is only read here, never written.
#
# Reading is strict and never raises: a plan file that is a link, a FIFO, a device, a folder,
# larger than 1 MiB, not UTF-8 JSON, nested deeper than 64 levels or not a valid plan (the rules
# of planner.plans.schema, the same as the save tools') becomes a row with its `problem`. Links
# are never followed (neither plans/ itself nor a file in it), so nothing outside the home folder
# is read, and nothing waits on a FIFO (O_NONBLOCK).
#
# Speed on thousands of plans: one os.scandir, one bounded read per file, plain str paths, and
# checks that touch each field once; nothing here imports pydantic, Rich or icalendar.

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from planner.base import storage, strictjson
from planner.base.days import clock_text, read_clock, read_date
from planner.base.errors import Failure, UsageError
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.plans.plan import ReviewSeries
from planner.plans.schema import (
    PLAN_VERSION,
    READINESS_VERSION,
    SERIES_VERSION,
    STUDY_VERSION,
    PlanError,
    plan_file,
)
from planner.plans.schema import is_run_id as is_run_id
from planner.plans.study import Proposal, Session, StudyPlan

PLANS_DIR = {"live": "plans", "demo": "demo-plans"}
MAX_PLAN_BYTES = storage.MIB
MAX_DEPTH = 64  # README "A screen you can trust": nested JSON deeper than this is refused
# `session`: n (from 1) for a series' session, None for a plan; `done`: the log has a review of
# it; `dropped`: `planner drop` said the plan (every session of a series) will not happen.
ROW_KEYS = ("file", "run_id", "date", "minutes", "title", "note_ids", "notes", "simulated",
            "session", "done", "dropped", "problem", "start")


class SavedReadiness(NamedTuple):
    """The readiness a study plan for a goal was saved with: `ready` of `of` notes ready on
    the goal's day (the SAVE screen's line), and `best` for planner's own plan (None: not
    known)."""

    ready: int
    of: int
    best: int | None = None


class SavedNote(NamedTuple):
    """A note as its plan file names it: its ID and its title when saved (None: not known)."""

    id: str
    title: str | None


class PlanRow(NamedTuple):
    """One listing row: a plan, or one session of a series or study plan."""

    file: str
    run_id: str
    date: _dt.date
    minutes: int
    title: str
    note_ids: list[str]
    notes: tuple[SavedNote, ...]
    simulated: bool
    session: int | None  # n (from 1) for a session of a series or study plan
    done: bool
    dropped: bool
    problem: None  # always: a file that cannot be used is a PlanProblem (the key stays)
    start: _dt.time | None
    goal: str | None = None  # a study plan's goal (may be null in the file)
    moved: bool = False  # the review log moved it: `date` and `start` are where it is now
    study: bool = False  # from a study plan (version 4 or 5): `goal` is part of the row
    readiness: SavedReadiness | None = None  # what its plan was saved with (version 5)
    # The row's notes the log has a review of for it: all of them when done, some when partly.
    reviewed: tuple[str, ...] = ()
    missed: bool = False  # its day has passed, neither done nor dropped

    def to_json(self, mark_moved: bool = True) -> dict[str, Any]:
        """The row as a dict, keys as ever: `goal` for a study plan, `moved` when moved,
        `missed` when missed (only then: a home with none lists what it always did)."""
        data: dict[str, Any] = dict(zip(ROW_KEYS, self, strict=False))  # goal, moved...: below
        data["date"] = self.date.isoformat()
        data["notes"] = [{"id": note.id, "title": note.title} for note in self.notes]
        if self.start is not None:
            data["start"] = clock_text(self.start)
        if self.study:
            data["goal"] = self.goal
        if self.moved and mark_moved:
            data["moved"] = True
        if self.missed:
            data["missed"] = True
        return data

    @property
    def partly(self) -> bool:
        """Some of its notes have their review for it, not all."""
        return bool(self.reviewed) and not self.done


class PlanProblem(NamedTuple):
    """A plan file that cannot be used: the file, as shown, and why (one line)."""

    file: str
    problem: str

    def to_json(self, mark_moved: bool = True) -> dict[str, Any]:
        """As the listing has always written it: a row's keys, null but `file` and
        `problem`."""
        return {**dict.fromkeys(ROW_KEYS), "file": self.file, "problem": self.problem}


# What the listing holds: the rows of the plans, then the files that cannot be used.
ListedPlan = PlanRow | PlanProblem


def good_rows(listed: Iterable[ListedPlan]) -> list[PlanRow]:
    """The rows of the plans, in order; the files that cannot be used left out."""
    return [row for row in listed if isinstance(row, PlanRow)]


def problems_of(listed: Iterable[ListedPlan]) -> list[PlanProblem]:
    """The files that cannot be used, in order."""
    return [row for row in listed if isinstance(row, PlanProblem)]


class PlansError(Failure):
    """The plans folder exists but cannot be listed; one line for the person."""


class Marks(NamedTuple):
    """What the review log says about saved plans, by the `run_id` its lines carry."""

    done: frozenset[str] = frozenset()  # a plan's run ID, or `<run_id>#n` for a session
    dropped: frozenset[str] = frozenset()  # plans' run IDs, or `<run_id>#n` for a session
    # Where a moved plan or session happens now: (date, start) by its `<run_id>[#n]`.
    moved: Mapping[str, tuple[_dt.date, _dt.time]] = MappingProxyType({})
    # The notes reviewed for each plan or session of `done`: it is done when all of its own
    # notes are there (README "Review memory"); a ref of `done` not here is done whole.
    reviewed: Mapping[str, frozenset[str]] = MappingProxyType({})


NO_MARKS = Marks()


def session_ref(run_id: str, session: int | None) -> str:
    """How the log names a plan (its run ID) or session n of a series (`<run_id>#n`)."""
    return run_id if session is None else f"{run_id}#{session}"


def split_ref(text: str) -> tuple[str, int | None]:
    """`RUN#n` as (RUN, n); anything else as (text, None). UsageError when RUN is empty or n
    is not 1 to 60."""
    run, mark, number = text.partition("#")
    if not mark:
        return text, None
    if not run:
        raise UsageError(t("{ref}: name a run before # (as for planner show), then the session "
                           "number", ref=text))
    # At most 3 digits are read: int() of thousands says Python's own error instead.
    if not (number.isascii() and number.isdigit() and len(number) <= 3
            and 1 <= int(number) <= 60):
        raise UsageError(t("{ref}: the session number after # must be 1 to 60", ref=text))
    return run, int(number)


def study_plan_of(rows: Sequence[PlanRow]) -> StudyPlan:
    """The study plan a file's rows were read from (every session, in order): the same
    StudyPlan and Sessions the save tool made."""
    return StudyPlan(rows[0].title, tuple(Session(row.date, row.minutes, tuple(row.note_ids),
                                                  row.start) for row in rows))


def row_ref(row: PlanRow) -> str:
    """The log's name for a listing row: `<run_id>` or `<run_id>#n`."""
    return session_ref(row.run_id, row.session)


def plan_file_content(
    plan: Proposal, *, simulated: bool, run_id: str,
    created_at: str, notes: Sequence[Any], goal: str | None = None,
    readiness: SavedReadiness | None = None,
) -> bytes:
    """The plan file (version 2; a series version 3; a study plan version 4, with its goal;
    version 5 when the readiness it is saved with is known): indented UTF-8 JSON ending in a
    newline."""
    study = isinstance(plan, StudyPlan)
    saved = readiness if study else None  # a plan or a series has no goal to be ready for
    data: dict[str, object] = {
        "version": READINESS_VERSION if saved is not None else STUDY_VERSION if study else
        SERIES_VERSION if isinstance(plan, ReviewSeries) else PLAN_VERSION,
        "simulated": simulated,
        "run_id": run_id,
        "created_at": created_at,
    }
    if study:
        data["goal"] = goal
    if saved is not None:
        data["readiness"] = {"ready": saved.ready, "of": saved.of, "best": saved.best}
    # The titles as they are now: the notes may be renamed later, the plan keeps its words.
    data.update(plan=plan.as_dict(), notes=[{"id": note.id, "title": note.title}
                                            for note in notes])
    # The plan is the person's own file: indented to be read by eye.
    return storage.to_json(data, indent=2)


def read_plan(folder: str, name: str, label: str) -> list[PlanRow] | PlanProblem:
    """The listing rows of the plan file `folder/name`, shown as `label/name`: one for a plan,
    one per session for a series; or its problem. Never raises."""
    shown = _printable_name(name)
    if shown != name:
        return PlanProblem(f"{label}/{shown}", t("its name is not valid UTF-8"))
    path = f"{folder}/{name}"
    try:
        data = storage.read_regular_file(path, MAX_PLAN_BYTES, follow_links=False)
    except storage.FileRefused as error:
        # The row names the file: storage's refusal without the path in front.
        return PlanProblem(f"{label}/{shown}", error.reason)
    except FileNotFoundError:
        return PlanProblem(f"{label}/{shown}", t("disappeared while being read"))
    except OSError as error:
        return PlanProblem(f"{label}/{shown}", t("cannot be read ({reason})",
                                                 reason=os_reason(error)))
    try:
        value = _decode(data)
    except PlanError as error:
        return PlanProblem(f"{label}/{shown}", str(error))
    try:
        return _rows(f"{label}/{name}", name, value)
    except PlanError as error:
        # A valid plan nests 3 levels, so anything deeper has failed a check by now: the depth
        # is measured only then, never on the way of a good plan.
        problem = t("is JSON nested deeper than {max_depth} levels",
                    max_depth=MAX_DEPTH) if _deeper_than(value, MAX_DEPTH) else str(error)
        return PlanProblem(f"{label}/{shown}", problem)


def plan_days(plan: Proposal) -> tuple[_dt.date, ...]:
    """The dates of a plan (one) or of a series (each session's, in order)."""
    return plan.days


def _decode(data: bytes) -> object:
    """The JSON value in a plan file, refusing anything ambiguous."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PlanError("", t("is not UTF-8 text")) from None
    if not text.strip():
        raise PlanError("", t("is empty"))
    try:
        # Every number in a plan file has a range: one too large is named with its key.
        return strictjson.loads(text, overflow_as_infinity=True)
    except strictjson.JSONRefused as error:
        raise PlanError("", str(error)) from None


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


def _rows(file: str, name: str, data: object) -> list[PlanRow]:
    """The listing rows of a decoded plan file (versions 1 to 5), or PlanError."""
    version = plan_file(data, name)
    assert type(data) is dict  # plan_file refuses anything else
    if version >= STUDY_VERSION:
        return _study_rows(file, data)
    plan = data["plan"]
    note_ids = plan["note_ids"]
    series = version == SERIES_VERSION
    # Version 1 files are named after their run (".json" removed) and name no titles; a
    # version-2 file's notes may be null too.
    run_id = data["run_id"] if version > 1 else name[:-5]
    notes = tuple(SavedNote(note["id"], note["title"]) for note in data["notes"]) \
        if data.get("notes") else tuple(SavedNote(note_id, None) for note_id in note_ids)
    # Positional, in the order of ROW_KEYS: the cheapest build for thousands of plans.
    start = plan.get("start")
    clock = None if start is None else read_clock(start)
    return [PlanRow(file, run_id, read_date(date), plan["minutes"], plan["title"], note_ids,
                    notes, data["simulated"], number if series else None, False, False, None,
                    clock)
            for number, date in enumerate(plan["dates"] if series else [plan["date"]], 1)]


def _study_rows(file: str, data: dict[str, Any]) -> list[PlanRow]:
    """The rows of a version-4 or 5 file: one per session, each with its own notes and start
    (and, version 5, its plan's readiness when saved)."""
    plan = data["plan"]
    titles = {note["id"]: SavedNote(note["id"], note["title"]) for note in data["notes"]}
    saved = data.get("readiness")
    readiness = None if saved is None else SavedReadiness(saved["ready"], saved["of"],
                                                          saved["best"])
    return [PlanRow(file, data["run_id"], read_date(session["date"]), session["minutes"],
                    plan["title"], session["note_ids"],
                    tuple(titles[note] for note in session["note_ids"]), data["simulated"], number,
                    False, False, None, read_clock(session["start"]), data["goal"], False, True,
                    readiness)
            for number, session in enumerate(plan["sessions"], 1)]


def _printable_name(name: str) -> str:
    """A file name as text that can be printed: undecodable bytes shown as \\xNN."""
    if name.isascii():
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
