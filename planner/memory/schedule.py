"""Due dates from the review log: FSRS through the `fsrs` library, the only module importing it."""

# SPEC 16. Each note is one card; its state is its reviews replayed in time order through
# Scheduler.review_card, with no learning or relearning steps and no fuzzing, so a note's due date
# depends only on its reviews and the desired retention. `fsrs` is imported inside the functions:
# commands that show no schedule do not pay for it at start-up.
#
# Speed: one sort of all reviews, one dict of per-note lists, then the library's own calls only.
# Cards are made with an explicit card_id and due: fsrs.Card() without an ID sleeps 1 ms to keep
# its time-based IDs apart, ten seconds for 10,000 notes.
#
# The calendar's end (SPEC 28): a review late in year 9999 (a hand edit, a wrong clock) makes
# FSRS compute a due date past 9999-12-31, which no datetime holds. That note is due
# AFTER_LAST_DAY (planner.base.days), never an OverflowError; so is a due time whose local date
# would pass 9999-12-31.

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from operator import itemgetter
from typing import Any, NamedTuple

from planner.base.days import AFTER_LAST_DAY, AfterLastDay
from planner.base.i18n import t
from planner.memory.log import Review

DEFAULT_RETENTION = 0.9
MIN_RETENTION, MAX_RETENTION = 0.70, 0.99


class NoteSchedule(NamedTuple):
    """Where one note stands: `due` in UTC (None: new; AFTER_LAST_DAY: past 9999-12-31),
    retrievability now in percent."""

    note_id: str
    due: _dt.datetime | AfterLastDay | None
    last_reviewed: _dt.datetime | None
    last_rating: str | None
    reviews: int
    retrievability: float | None

    @property
    def is_new(self) -> bool:
        """No review and no sr-due date: not due at all."""
        return self.due is None


def schedule_notes(reviews: Iterable[Review], *, now: _dt.datetime | None = None,
                   desired_retention: float = DEFAULT_RETENTION,
                   sr_due: Mapping[str, _dt.date] | None = None) -> dict[str, NoteSchedule]:
    """The schedule of every note with a review or an sr-due date; pass effective reviews only."""
    import fsrs

    if not MIN_RETENTION <= desired_retention <= MAX_RETENTION:
        raise ValueError(t("desired_retention {value} is not from 0.70 to 0.99",
                           value=desired_retention))
    moment = now if now is not None else _dt.datetime.now(_dt.UTC)
    scheduler = fsrs.Scheduler(desired_retention=desired_retention, learning_steps=(),
                               relearning_steps=(), enable_fuzzing=False)
    ratings = {"again": fsrs.Rating.Again, "hard": fsrs.Rating.Hard, "good": fsrs.Rating.Good,
               "easy": fsrs.Rating.Easy}
    histories: dict[str, list[Review]] = {}
    # A stable sort: two reviews at the same second keep the order of their lines.
    for review in sorted(reviews, key=itemgetter(3)):  # 3: reviewed_at
        history = histories.get(review.note_id)
        if history is None:
            histories[review.note_id] = [review]
        else:
            history.append(review)
    review_card = scheduler.review_card
    schedules: dict[str, NoteSchedule] = {}
    for number, (note_id, history) in enumerate(histories.items()):
        due: _dt.datetime | AfterLastDay
        recall: float | None
        try:
            card = fsrs.Card(card_id=number, due=history[0].reviewed_at)
            for review in history:
                card, _ = review_card(card, ratings[review.rating], review.reviewed_at)
            due, recall = card.due, scheduler.get_card_retrievability(card, moment) * 100
        except OverflowError:
            due, recall = _past_the_end(fsrs, scheduler, ratings, number, history, moment)
        last = history[-1]
        schedules[note_id] = NoteSchedule(note_id, due, last.reviewed_at, last.rating,
                                          len(history), recall)
    # Obsidian Spaced Repetition's own date counts until planner has a review of the note.
    for note_id, day in (sr_due or {}).items():
        if note_id not in schedules:
            schedules[note_id] = NoteSchedule(note_id, local_midnight(day), None, None, 0, None)
    return schedules


def _past_the_end(fsrs: Any, scheduler: Any, ratings: Mapping[str, Any], number: int,
                  history: list[Review], moment: _dt.datetime
                  ) -> tuple[_dt.datetime | AfterLastDay, float | None]:
    """The due date and recall of a history FSRS cannot schedule: it puts the due date past
    9999-12-31. FSRS counts only the days between times, so the same history replayed earlier
    by more than the longest interval gives the same card, that much earlier, without overflow."""
    shift = _dt.timedelta(days=scheduler.maximum_interval + 1)
    try:
        card = fsrs.Card(card_id=number, due=history[0].reviewed_at - shift)
        for review in history:
            card, _ = scheduler.review_card(card, ratings[review.rating],
                                            review.reviewed_at - shift)
    except OverflowError:
        return AFTER_LAST_DAY, None  # a history from the first century to the last: unknown
    try:
        due: _dt.datetime | AfterLastDay = card.due + shift
    except OverflowError:
        due = AFTER_LAST_DAY
    try:
        recall: float | None = scheduler.get_card_retrievability(card, moment - shift) * 100
    except OverflowError:
        recall = None
    return due, recall


def schedule_of(schedules: Mapping[str, NoteSchedule], note_id: str) -> NoteSchedule:
    """One note's schedule; a note with neither reviews nor sr-due is new."""
    found = schedules.get(note_id)
    return found if found is not None else NoteSchedule(note_id, None, None, None, 0, None)


def local_date(moment: _dt.datetime | AfterLastDay) -> _dt.date | AfterLastDay:
    """The person's calendar date at `moment` (the system's local time zone); AFTER_LAST_DAY
    when it passes 9999-12-31 (a due time late on that day, east of UTC, does)."""
    if isinstance(moment, AfterLastDay):
        return moment
    try:
        return moment.astimezone().date()
    except (OverflowError, ValueError):
        # Year 1 cannot get here (planner reads no earlier time than 0001-01-02, base.days).
        return AFTER_LAST_DAY if moment.year > 1 else _dt.date.min


def due_by(moment: _dt.datetime | AfterLastDay, day: _dt.date) -> bool:
    """Whether a due time falls on the local date `day` or earlier."""
    local = local_date(moment)
    return not isinstance(local, AfterLastDay) and local <= day


def local_midnight(day: _dt.date) -> _dt.datetime:
    """The start of a local calendar date, in UTC: how an sr-due date is held beside FSRS's."""
    return _dt.datetime(day.year, day.month, day.day).astimezone().astimezone(_dt.UTC)


def due(schedules: Mapping[str, NoteSchedule], titles: Mapping[str, str], today: _dt.date,
        days: int = 0, limit: int | None = None) -> list[dict[str, object]]:
    """The notes in `titles` due by today + `days`, most overdue first, as `due --json` shows."""
    horizon = today + _dt.timedelta(days=days)
    rows = [(schedule.due, note_id, schedule) for note_id, schedule in schedules.items()
            if isinstance(schedule.due, _dt.datetime) and note_id in titles
            and due_by(schedule.due, horizon)]
    rows.sort(key=itemgetter(0, 1))
    if limit is not None:
        rows = rows[:limit]
    return [_row(schedule, moment, titles[note_id]) for moment, note_id, schedule in rows]


def next_due(schedules: Mapping[str, NoteSchedule],
             titles: Mapping[str, str]) -> _dt.date | AfterLastDay | None:
    """The earliest local due date of the notes in `titles`, or None when none has one."""
    found = [schedule.due for note_id, schedule in schedules.items()
             if schedule.due is not None and note_id in titles]
    return earliest(local_date(moment) for moment in found)


def earliest(days: Iterable[_dt.date | AfterLastDay]) -> _dt.date | AfterLastDay | None:
    """The earliest of local due dates (AFTER_LAST_DAY after every date); None for none."""
    dates, after = [], None
    for day in days:
        if isinstance(day, AfterLastDay):
            after = day
        else:
            dates.append(day)
    return min(dates) if dates else after


def _row(schedule: NoteSchedule, due: _dt.datetime | AfterLastDay,
         title: str) -> dict[str, object]:
    last = schedule.last_reviewed
    recall = schedule.retrievability
    return {"id": schedule.note_id, "title": title, "due": local_date(due).isoformat(),
            "last_reviewed": local_date(last).isoformat() if last is not None else None,
            "last_rating": schedule.last_rating,
            "retrievability": round(recall) if recall is not None else None,
            "reviews": schedule.reviews}
