"""The log's marks on plans, without the command line: done (and --undo), drop, move, reviews.

planner/cli/app.py picks the run, asks for the rating and shows the results; everything these
commands decide and write is here. A refusal (the person asked for something that cannot be
done: a demo plan, a note not in the plan, a date in the future) is `Refused`, exit 2; a log
that cannot be read or appended to is `Failed`, exit 1, with the log as it was. Nothing here
imports fsrs: next due dates come through planner.memory.review_memory, which imports it when asked.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from planner.base import days
from planner.base.days import AfterLastDay, usable_time
from planner.base.errors import Failure, UsageError
from planner.base.home import HomePath
from planner.base.i18n import t
from planner.memory import log as review_log
from planner.plans import files as plans
from planner.plans import store

if TYPE_CHECKING:
    from planner.memory.review_memory import ReviewMemory

REVIEW_KEYS = ("review_id", "note_id", "title", "run_id", "reviewed_at", "rating", "minutes",
               "undone")


class Refused(UsageError):
    """The command cannot do what was asked; one line for the person (exit 2)."""


class Failed(Failure):
    """The log cannot be read or appended to; one line for the person (exit 1)."""


class Target(NamedTuple):
    """What `planner done` records: one plan, or one session of a series (its listing row)."""

    row: plans.PlanRow

    @property
    def ref(self) -> str | None:
        """The log's name for it: `<run_id>` or `<run_id>#n`; None for notes without a plan."""
        return None if self.row.run_id is None else plans.row_ref(self.row)

    @property
    def shown(self) -> str:
        """How a person reads it: `plans/<run_id>.json` and, for a session, which one."""
        if self.row.run_id is None:
            return t("notes without a plan")
        session = self.row.session
        if session is None:
            return self.row.file
        return t("{file} (session {session})", file=self.row.file, session=session)


def marks_from(events: Sequence[review_log.Event]) -> plans.Marks:
    """The done and dropped plans of the review log's events, and the notes reviewed for
    each (a plan or session is done when each of its notes is; README "Review memory")."""
    reviewed: dict[str, set[str]] = {}
    for review in review_log.effective_reviews(events):
        if review.run_id is not None:
            reviewed.setdefault(review.run_id, set()).add(review.note_id)
    return plans.Marks(frozenset(reviewed), review_log.dropped_runs(events),
                       review_log.moves(events),
                       {ref: frozenset(notes) for ref, notes in reviewed.items()})


def read_marks(home: HomePath) -> tuple[plans.Marks, list[str]]:
    """The marks of home's review log and its warnings; raises reviews.ReviewLogError."""
    log = review_log.read_log(home)
    return marks_from(log.events), log.warnings


def quiet_marks(home: HomePath) -> plans.Marks:
    """The marks of home's review log; none when it cannot be read (its warnings unsaid), nor
    when there is no log."""
    try:
        return read_marks(home)[0]
    except review_log.ReviewLogError:
        return plans.NO_MARKS


def read_log(home: HomePath) -> review_log.LogContents:
    """The log's events and warnings, or Failed with the one line saying why not."""
    try:
        return review_log.read_log(home)
    except review_log.ReviewLogError as error:
        raise Failed(str(error)) from None


# --- planner done -------------------------------------------------------------------------------


def plan_rows(home: HomePath, run_id: str, today: _dt.date,
              marks: plans.Marks) -> list[plans.PlanRow]:
    """The rows of the saved plan `run_id` in plans/ (one, or one per session); Refused when
    it is a demo plan, has a problem, or the run saved none."""
    try:
        listed = store.list_plans(home, False, True, today, marks)
    except plans.PlansError as error:
        raise Failed(str(error)) from None
    found = [row for row in plans.good_rows(listed) if row.run_id == run_id]
    if found:
        return found
    name = f"{plans.PLANS_DIR['live']}/{run_id}.json"
    for problem in plans.problems_of(listed):
        if problem.file == name:
            raise Refused(t("{name} cannot be used: {problem}", name=name,
                            problem=problem.problem))
    try:
        demo = plans.good_rows(store.list_plans(home, True, True, today, plans.NO_MARKS))
    except plans.PlansError:
        demo = []
    if any(row.run_id == run_id for row in demo):
        raise Refused(t("run {run_id} saved a demo plan (demo-plans/); demo plans are not real "
                        "reviews, so nothing is recorded for them", run_id=run_id))
    raise Refused(t("run {run_id} saved no plan in {folder}/; nothing to record (planner plans "
                    "--all lists the saved plans)", run_id=run_id, folder=plans.PLANS_DIR["live"]))


def target_of(rows: Sequence[plans.PlanRow], run_id: str) -> Target:
    """The plan of `rows` (one saved plan), or its earliest session not yet done."""
    if rows[0].dropped:
        raise Refused(t("{file} was dropped (planner drop); planner drop --undo {run_id} brings "
                        "it back", file=rows[0].file, run_id=run_id))
    open_rows = sorted((row for row in rows if not row.done),
                       key=lambda row: row.session or 0)
    if not open_rows:
        if rows[0].session is not None:
            raise Refused(t("{file}: every session of this series has reviews (planner reviews "
                            "lists them; planner done --undo REVIEW_ID takes one back)",
                            file=rows[0].file))
        raise Refused(t("{file}: it already has reviews (planner reviews lists them; planner "
                        "done --undo REVIEW_ID takes one back)", file=rows[0].file))
    return Target(open_rows[0])


def latest_open(home: HomePath, today: _dt.date, marks: plans.Marks) -> Target:
    """With no RUN: the most recent saved plan dated today or earlier with no reviews yet (a
    series: its earliest open session)."""
    try:
        rows = plans.good_rows(store.list_plans(home, False, True, today, marks))
    except plans.PlansError as error:
        raise Failed(str(error)) from None
    candidates = [row for row in rows if not row.done and not row.dropped
                  and row.date <= today]
    if not candidates:
        raise Refused(t("no saved plan dated today or earlier is waiting for its review; name "
                        "one: planner done RUN (planner plans --all lists them)"))
    newest = max(candidates, key=lambda row: (row.date, row.run_id))
    return target_of([row for row in rows if row.run_id == newest.run_id],
                     newest.run_id)


def without_plan(wanted: Sequence[str], notes: object, today: _dt.date) -> Target:
    """`done --note ID ...` when no saved plan holds them: a review of those notes alone
    (recorded with run_id null); Refused for a note that does not exist."""
    found = []
    for note_id in dict.fromkeys(wanted):
        note = notes.get(note_id)  # type: ignore[attr-defined]
        if note is None:
            raise Refused(t("--note {note_id}: no such note (planner notes lists them)",
                            note_id=note_id))
        found.append(plans.SavedNote(note.id, note.title))
    # No file, no run: the row has only what `done` records (the rest is None).
    return Target(plans.PlanRow._make((
        None, None, today, None, ", ".join(note.id for note in found),
        [note.id for note in found], tuple(found), None, None, False, False, None, None, None,
        False, False, None, (), False)))


def chosen_notes(target: Target, wanted: Sequence[str]) -> list[str]:
    """The notes to record: the plan's not yet reviewed for it (all of them, but for a plan
    or session partly done), or those of them that --note names (in its order)."""
    note_ids = list(target.row.note_ids)
    if not wanted:
        reviewed = target.row.reviewed or ()
        return [note_id for note_id in note_ids if note_id not in reviewed]
    for note_id in wanted:
        if note_id not in note_ids:
            raise Refused(t("--note {note_id}: not a note of {target} (its notes: {notes})",
                            note_id=note_id, target=target.shown, notes=", ".join(note_ids)))
    return list(dict.fromkeys(wanted))


def review_time(date: str | None, now: _dt.datetime) -> _dt.datetime:
    """When the review happened: now, or local noon of a past --date (never a future one)."""
    if date is None:
        return now
    day = parse_date(date)
    today = now.astimezone().date()
    if day > today:
        raise Refused(t("--date {date} is in the future (today is {today}); record a review "
                        "once it has happened", date=date, today=today.isoformat()))
    if day == today:
        return now
    try:
        moment = _dt.datetime.combine(day, _dt.time(12)).astimezone().astimezone(_dt.UTC)
    except (OverflowError, ValueError):  # ValueError: "year 0 is out of range"
        moment = None
    if moment is None or not usable_time(moment):
        # README "A screen you can trust": the log reads no time before 0001-01-02 (UTC), and
        # planner writes none.
        raise Refused(t("--date {date} is at the very start of the calendar, before any review "
                        "the log can hold; record a later date", date=date))
    return moment


def log_revisions(events: Sequence[review_log.Event]) -> dict[str, tuple[int, _dt.datetime]]:
    """For each plan (`<run_id>`) or session (`<run_id>#n`) the log has changed: how many
    changes (a done, an undo, a drop, a drop-undo, a move; the review lines of one `done` are
    one) and when the last one was, so a plain export moves SEQUENCE and LAST-MODIFIED with the
    log (README "中文界面"). A drop belongs to the run ID, and so to every session of a series."""
    refs: dict[str, str] = {}
    moments: dict[str, set[tuple[str, _dt.datetime]]] = {}
    for event in events:
        if type(event) is review_log.Review:
            if event.run_id is None:
                continue
            refs[event.review_id] = event.run_id
            ref, moment = event.run_id, event.reviewed_at
        elif type(event) is review_log.Undo:
            if event.review_id not in refs:
                continue
            ref, moment = refs[event.review_id], event.undone_at
        elif type(event) is review_log.Drop:
            ref, moment = event.run_id, event.dropped_at
        elif type(event) is review_log.DropUndo:
            ref, moment = event.run_id, event.undone_at
        elif type(event) is review_log.Move:
            # A moved session is a new revision for every calendar, as sync makes it one.
            ref, moment = event.run_id, event.moved_at
        else:
            continue
        # One change per line, but the review lines one `done` wrote (one moment) are one.
        moments.setdefault(ref, set()).add((type(event).__name__ + (
            "" if type(event) is review_log.Review else f" {len(moments.get(ref, ()))}"),
            moment))
    return {ref: (len(changes), max(moment for _, moment in changes))
            for ref, changes in moments.items()}


def saved_day(run_id: str | None) -> _dt.date | None:
    """The local day a plan was saved, from planner's own run-ID form (UTC time first); None
    for a run ID of another form (a version-1 file's name)."""
    if not run_id:
        return None
    stamp = run_id.partition("-")[0]
    try:
        moment = _dt.datetime.strptime(stamp, "%Y%m%dT%H%M%S%fZ").replace(tzinfo=_dt.UTC)
        return moment.astimezone().date()
    except (ValueError, OverflowError):
        return None


def check_after_saved(target: Target, reviewed_at: _dt.datetime) -> None:
    """Refused when the review would come before its plan was saved (README "中文界面")."""
    saved = saved_day(target.row.run_id)
    day = reviewed_at.astimezone().date()
    if saved is not None and day < saved:
        raise Refused(t("--date {date} is before {file} was saved ({saved}); a review cannot "
                        "come before its plan", date=day.isoformat(), file=target.row.file,
                        saved=saved.isoformat()))


def days_early(target: Target, reviewed_at: _dt.datetime) -> int:
    """How many days before its date the plan (or session) is recorded; 0 when not early."""
    return max(0, (target.row.date - reviewed_at.astimezone().date()).days)


def parse_date(text: str) -> _dt.date:
    """A YYYY-MM-DD date, exactly; Refused otherwise."""
    if not days.date_form(text):
        raise Refused(t("--date {date}: must be written YYYY-MM-DD", date=text))
    day = days.parse_date(text)
    if day is None:
        raise Refused(t("--date {date}: not a real calendar date", date=text))
    return day


def record_done(home: HomePath, target: Target, note_ids: Sequence[str], rating: str,
                minutes: int | None, reviewed_at: _dt.datetime) -> list[review_log.Review]:
    """One review line per note, in one append; Failed with the log as it was."""
    try:
        return review_log.record_reviews(home, note_ids, rating, run_id=target.ref,
                                         minutes=minutes, reviewed_at=reviewed_at)
    except review_log.ReviewLogError as error:
        raise Failed(str(error)) from None


def next_due(memory: ReviewMemory,
             note_ids: Sequence[str]) -> dict[str, _dt.date | AfterLastDay | None]:
    """Each note's local due date now (None: new; AFTER_LAST_DAY: past 9999-12-31), after
    what was just recorded."""
    return memory.due_dates(note_ids)


# --- planner done --undo --------------------------------------------------------------------------


def find_review(log: review_log.LogContents, wanted: str) -> review_log.Review:
    """The review with this ID, or the only one starting with it; Refused otherwise."""
    found = [event for event in log.events if type(event) is review_log.Review]
    exact = [review for review in found if review.review_id == wanted]
    matches = exact or [review for review in found if wanted and
                        review.review_id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise Refused(t("'{wanted}' starts {count} review IDs; give more of it (planner reviews "
                        "lists them)", wanted=wanted, count=len(matches)))
    raise Refused(t("no review '{wanted}' in {log} (planner reviews lists them)", wanted=wanted,
                    log=review_log.LOG_NAME))


def undo(home: HomePath, log: review_log.LogContents, review: review_log.Review) -> None:
    """Append the undo line of `review`; Refused when it is already undone."""
    if review.review_id in review_log.undone_ids(log.events):
        raise Refused(t("review {review_id} is already undone; it no longer counts",
                        review_id=review.review_id))
    try:
        review_log.record_undo(home, review.review_id)
    except review_log.ReviewLogError as error:
        raise Failed(str(error)) from None


# --- planner reviews ------------------------------------------------------------------------------


def review_rows(log: review_log.LogContents, titles: dict[str, str],
                note: str | None = None) -> list[dict[str, Any]]:
    """`planner reviews --json`: every review, newest first (by when it happened, then by the
    log's order), undone ones marked; `note`: only that note's."""
    undone = review_log.undone_ids(log.events)
    found = [(event, number) for number, event in enumerate(log.events)
             if type(event) is review_log.Review and (note is None or event.note_id == note)]
    found.sort(key=lambda pair: (pair[0].reviewed_at, pair[1]), reverse=True)
    return [review_row(review, titles.get(review.note_id), review.review_id in undone)
            for review, _number in found]


def review_row(review: review_log.Review, title: str | None,
               undone: bool = False) -> dict[str, Any]:
    """One review as `planner reviews --json` and `planner done --json` give it."""
    return {"review_id": review.review_id, "note_id": review.note_id, "title": title,
            "run_id": review.run_id,
            "reviewed_at": review.reviewed_at.isoformat().replace("+00:00", "Z"),
            "rating": review.rating, "minutes": review.minutes, "undone": undone}


# --- planner drop ---------------------------------------------------------------------------------


def drop(home: HomePath, rows: Sequence[plans.PlanRow], run_id: str, undo: bool = False) -> None:
    """Say that a saved plan will not happen (or, `undo`, that it will after all)."""
    if undo and not rows[0].dropped:
        raise Refused(t("{file} is not dropped; nothing to bring back", file=rows[0].file))
    if not undo and rows[0].dropped:
        raise Refused(t("{file} is already dropped (planner drop --undo {run_id} brings it back)",
                        file=rows[0].file, run_id=run_id))
    try:
        if undo:
            review_log.record_drop_undo(home, run_id)
        else:
            review_log.record_drop(home, run_id)
    except review_log.ReviewLogError as error:
        raise Failed(str(error)) from None
