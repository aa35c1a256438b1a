"""Review memory: what the review log and the notes say is due, for every part that shows it.

SPEC 16. `planner due`, the model's `due_notes` lookup, the first request's line about notes due
today, the SAVE screen's schedules and `planner done`'s next due dates all read it here, so they
agree. The program schedules (planner.memory.schedule, through fsrs); the model only reads the
result.

Everything is read lazily and once: the log when first needed (a log that cannot be read is a
`problem`, and nothing is due from it), the notes' sr-due dates when first needed, and the
schedules of every note only for a listing; one note's schedule replays only its own reviews.
fsrs is imported by planner.memory.schedule when a schedule is first computed, never at start-up.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from planner.base.days import AfterLastDay, usable_day
from planner.base.i18n import t
from planner.memory import log as review_log

if TYPE_CHECKING:
    from planner.memory.schedule import NoteSchedule
    from planner.notes.catalog import Catalog

DEFAULT_RETENTION = 0.9


class DueList(NamedTuple):
    """Notes due by a day, most overdue first (`due --json` rows), how many in all, and the
    first due date after that day (None: nothing is scheduled later; AFTER_LAST_DAY: nothing
    before 9999-12-31)."""

    rows: list[dict[str, object]]
    total: int
    next_due: _dt.date | AfterLastDay | None


class ReviewMemory:
    """The review log of `home` and the due dates of `catalog`'s notes (None: the log only,
    for a command that shows no titles and no sr-due dates)."""

    def __init__(self, home: str | os.PathLike[str], catalog: Catalog | None,
                 desired_retention: float = DEFAULT_RETENTION,
                 now: _dt.datetime | None = None) -> None:
        self.home = home
        self.catalog = catalog
        self.desired_retention = desired_retention
        self.now = now if now is not None else _dt.datetime.now(_dt.UTC)
        self.problem: str | None = None  # why the log cannot be read, once it was tried
        self._log: review_log.LogContents | None = None
        self._reviews: list[review_log.Review] | None = None
        self._sr_due: dict[str, _dt.date] | None = None
        self._all: dict[str, NoteSchedule] | None = None
        self._titles: dict[str, str] | None = None

    # --- what it is made from ----------------------------------------------------------------

    def log(self) -> review_log.LogContents:
        """The log's events and warnings; empty (with `problem` set) when it cannot be read."""
        if self._log is None:
            try:
                self._log = review_log.read_log(self.home)
            except review_log.ReviewLogError as error:
                self.problem = str(error)
                self._log = review_log.LogContents([], [])
        return self._log

    def warnings(self) -> list[str]:
        """One line per log line skipped, and why the log cannot be read (if it cannot)."""
        lines = list(self.log().warnings)
        if self.problem is not None:
            lines.append(t("{problem}; no review counts until it can be read",
                           problem=self.problem))
        return lines

    def reviews(self) -> list[review_log.Review]:
        """The reviews that count (not undone), in file order."""
        if self._reviews is None:
            self._reviews = review_log.effective_reviews(self.log().events)
        return self._reviews

    def sr_due(self) -> dict[str, _dt.date]:
        """Obsidian Spaced Repetition's due dates of the notes, by note ID; one at the edge of
        the calendar is ignored, as a typo is (an index made before that was checked holds
        them)."""
        if self._sr_due is None:
            found = {} if self.catalog is None else self.catalog.sr_due()
            dates = {note_id: _dt.date.fromisoformat(day) for note_id, day in found.items()}
            self._sr_due = {note_id: day for note_id, day in dates.items()
                            if usable_day(day)}
        return self._sr_due

    def has_due_info(self) -> bool:
        """Whether the log or the notes hold any due date for a note there is."""
        if self.sr_due():
            return True
        catalog = self.catalog
        return catalog is not None and any(review.note_id in catalog
                                           for review in self.reviews())

    # --- schedules ---------------------------------------------------------------------------

    def schedules(self) -> dict[str, NoteSchedule]:
        """Every note's schedule that has reviews or an sr-due date (computed once)."""
        if self._all is None:
            from planner.memory.schedule import schedule_notes

            self._all = schedule_notes(self.reviews(), now=self.now,
                                       desired_retention=self.desired_retention,
                                       sr_due=self.sr_due())
        return self._all

    def schedules_of(self, note_ids: Iterable[str]) -> dict[str, NoteSchedule]:
        """The schedules of a few notes (new ones included): only their reviews are replayed."""
        from planner.memory.schedule import schedule_notes, schedule_of

        wanted = frozenset(note_ids)
        if self._all is not None:
            return {note_id: schedule_of(self._all, note_id) for note_id in wanted}
        own = [review for review in self.reviews() if review.note_id in wanted]
        sr_due = {note_id: day for note_id, day in self.sr_due().items() if note_id in wanted}
        found = schedule_notes(own, now=self.now, desired_retention=self.desired_retention,
                               sr_due=sr_due)
        return {note_id: schedule_of(found, note_id) for note_id in wanted}

    def due_dates(self, note_ids: Iterable[str]) -> dict[str, _dt.date | AfterLastDay | None]:
        """Each note's local due date (None: new; AFTER_LAST_DAY: past 9999-12-31), for the
        SAVE screen and `planner done`."""
        from planner.memory.schedule import local_date

        return {note_id: None if schedule.due is None else local_date(schedule.due)
                for note_id, schedule in self.schedules_of(note_ids).items()}

    def titles(self) -> Mapping[str, str]:
        """Every note's title by ID (the notes that are there now)."""
        if self._titles is None:
            rows = [] if self.catalog is None else self.catalog.rows(None, None)[0]
            self._titles = {row["id"]: row["title"] for row in rows}
        return self._titles

    def due(self, today: _dt.date, days: int = 0, limit: int | None = None) -> DueList:
        """The notes due by today + `days`, most overdue first (at most `limit` of them)."""
        from planner.memory.schedule import due, due_by, earliest, local_date

        schedules, titles = self.schedules(), self.titles()
        every = due(schedules, titles, today, days)
        horizon = today + _dt.timedelta(days=days)
        later = [local_date(schedule.due) for note_id, schedule in schedules.items()
                 if schedule.due is not None and note_id in titles
                 and not due_by(schedule.due, horizon)]
        rows = every if limit is None else every[:limit]
        return DueList(rows, len(every), earliest(later))

    def due_today(self, today: _dt.date) -> int:
        """How many notes are due today or overdue."""
        from planner.memory.schedule import due_by

        titles = self.titles()
        return sum(1 for note_id, schedule in self.schedules().items()
                   if schedule.due is not None and due_by(schedule.due, today)
                   and note_id in titles)

