"""Review memory: what the review log and the notes say is due, for every part that shows it.

README "Review memory". `planner due`, the model's `due_notes` lookup, the first request's line
about notes due
today, the SAVE screen's schedules and `planner done`'s next due dates all read it here, so they
agree. The program schedules (planner.memory.schedule, through fsrs); the model only reads the
result.

Everything is read lazily and once: the notes' cards through the cache in `.planner/`
(planner.memory.cache: a warm cache reads neither the log nor fsrs; a log that cannot be read is
a `problem`, and nothing is due from it), the notes' sr-due dates when first needed.

The FSRS parameters are the person's own (README "A memory fitted to you"): ReviewMemory reads
`memory.json` of its
home itself (planner.memory.memory_file), so every caller that builds one from the home (due, done,
the SAVE screen, due_notes, week) schedules with the fitted parameters, or fsrs's defaults when
there are none.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from planner.base.days import LAST_DAY, AfterLastDay, usable_day
from planner.base.i18n import t
from planner.memory import cache
from planner.memory import log as review_log
from planner.memory.memory_file import MEMORY_NAME, NO_MEMORY, Memory, MemoryFileError, read_memory

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
        self._fitted: Memory | None = None
        self._fitted_problem: str | None = None
        self._cached: cache.Memory | None = None

    # --- what it is made from ----------------------------------------------------------------

    def log(self) -> review_log.LogContents:
        """The log's events and warnings; empty (with `problem` set) when it cannot be read."""
        if self._log is None:
            try:
                self._log = review_log.read_log(self.home, now=self.now)
            except review_log.ReviewLogError as error:
                self.problem = str(error)
                self._log = review_log.LogContents([], [])
        return self._log

    def fitted(self) -> Memory:
        """The fitted memory (memory.json, README "A memory fitted to you"); a damaged one counts
        as none, and
        `warnings()` says so."""
        if self._fitted is None:
            try:
                self._fitted = read_memory(self.home)
            except MemoryFileError as error:
                self._fitted_problem = t("{problem}; the default parameters are used",
                                         problem=error)
                self._fitted = NO_MEMORY
        return self._fitted

    def parameters(self) -> tuple[float, ...] | None:
        """The FSRS parameters scheduled with: the fitted ones, None for fsrs's defaults."""
        return self.fitted().parameters

    def memory(self) -> cache.Memory:
        """Every reviewed note's card, through the cache in `.planner/` (computed once); an
        unreadable log is empty, with `problem` set."""
        if self._cached is None:
            if self._log is not None and self.problem is not None:
                self._cached = cache.Memory({}, [], 0, "none", {})
                return self._cached
            from planner.memory.schedule import scheduler_parameters

            used = scheduler_parameters(self.parameters())
            try:
                try:
                    self._cached = cache.memory(self.home, used, self.desired_retention,
                                                self.now)
                except ValueError as refused:
                    if self.fitted().parameters is None:
                        raise
                    # Fitted parameters fsrs refuses (a hand edit): the defaults, said once.
                    self._fitted_problem = t(
                        "{file}: fsrs refuses its parameters ({reason}); the default "
                        "parameters are used", file=MEMORY_NAME,
                        reason=" ".join(str(refused).split())[:200])
                    self._fitted = NO_MEMORY
                    self._cached = cache.memory(self.home, scheduler_parameters(None),
                                                self.desired_retention, self.now)
            except review_log.ReviewLogError as error:
                self.problem = str(error)
                self._cached = cache.Memory({}, [], 0, "none", {})
        return self._cached

    def log_warnings(self) -> list[str]:
        """One line per log line skipped (from the cache when it serves) and one for the
        reviews from the future skipped, a damaged cache (rebuilt) and a damaged memory.json."""
        lines = list(self._log.warnings if self._log is not None else self.memory().warnings)
        if self._cached is not None and self._cached.damaged is not None:
            lines.append(self._cached.damaged)
        self.fitted()
        if self._fitted_problem is not None:
            lines.append(self._fitted_problem)
        return lines

    def counting_reviews(self) -> int:
        """How many reviews count (not undone)."""
        return self.memory().reviews

    def warnings(self) -> list[str]:
        """One line per log line skipped, and why the log cannot be read (if it cannot)."""
        lines = self.log_warnings()
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
        return catalog is not None and any(note_id in catalog for note_id in self.memory().states)

    # --- schedules ---------------------------------------------------------------------------

    def schedules(self) -> dict[str, NoteSchedule]:
        """Every note's schedule that has reviews or an sr-due date (computed once)."""
        if self._all is None:
            from planner.memory.schedule import scheduler_parameters, schedules_of_states

            states = self.memory().states
            used = scheduler_parameters(self.parameters()) if states else ()
            self._all = schedules_of_states(states, used, now=self.now, sr_due=self.sr_due())
        return self._all

    def schedules_of(self, note_ids: Iterable[str]) -> dict[str, NoteSchedule]:
        """The schedules of a few notes (new ones included)."""
        from planner.memory.schedule import schedule_of

        schedules = self.schedules()
        return {note_id: schedule_of(schedules, note_id) for note_id in frozenset(note_ids)}

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
        from planner.memory.schedule import day_end, due, due_by, earliest, local_date

        schedules, titles = self.schedules(), self.titles()
        every = due(schedules, titles, today, days)
        horizon = today + _dt.timedelta(days=min(days, max((LAST_DAY - today).days, 0)))
        cutoff = day_end(horizon)
        moments = [schedule.due for note_id, schedule in schedules.items()
                   if schedule.due is not None and note_id in titles]
        if cutoff is None:
            later = [local_date(moment) for moment in moments if not due_by(moment, horizon)]
        else:
            # The earliest moment has the earliest local date: one conversion, not one a note.
            times = [moment for moment in moments
                     if isinstance(moment, _dt.datetime) and moment >= cutoff]
            later = [local_date(min(times))] if times else []
            later += [moment for moment in moments if isinstance(moment, AfterLastDay)]
        rows = every if limit is None else every[:limit]
        return DueList(rows, len(every), earliest(later))

    def due_today(self, today: _dt.date) -> int:
        """How many notes are due today or overdue."""
        from planner.memory.schedule import day_end, due_by

        titles = self.titles()
        cutoff = day_end(today)
        if cutoff is None:
            return sum(1 for note_id, schedule in self.schedules().items()
                       if schedule.due is not None and due_by(schedule.due, today)
                       and note_id in titles)
        return sum(1 for note_id, schedule in self.schedules().items()
                   if isinstance(schedule.due, _dt.datetime) and schedule.due < cutoff
                   and note_id in titles)

