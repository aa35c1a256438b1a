"""Due dates from the review log: FSRS through the `fsrs` library, the only module importing it."""

# SPEC 16. Each note is one card; its state is its reviews replayed in time order through
# Scheduler.review_card, with no learning or relearning steps and no fuzzing, so a note's due date
# depends only on its reviews and the desired retention. `fsrs` is imported inside the functions:
# commands that show no schedule do not pay for it at start-up.
#
# Speed: one sort of all reviews, one dict of per-note lists, then the library's own calls only.
# Cards are made with an explicit card_id and due: fsrs.Card() without an ID sleeps 1 ms to keep
# its time-based IDs apart, ten seconds for 10,000 notes.

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping
from operator import itemgetter
from typing import NamedTuple

from planner.base.i18n import t
from planner.memory.log import Review

DEFAULT_RETENTION = 0.9
MIN_RETENTION, MAX_RETENTION = 0.70, 0.99


class NoteSchedule(NamedTuple):
    """Where one note stands: `due` in UTC (None: new), retrievability now in percent."""

    note_id: str
    due: _dt.datetime | None
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
        card = fsrs.Card(card_id=number, due=history[0].reviewed_at)
        for review in history:
            card, _ = review_card(card, ratings[review.rating], review.reviewed_at)
        last = history[-1]
        recall = scheduler.get_card_retrievability(card, moment)
        schedules[note_id] = NoteSchedule(note_id, card.due, last.reviewed_at, last.rating,
                                          len(history), recall * 100)
    # Obsidian Spaced Repetition's own date counts until planner has a review of the note.
    for note_id, day in (sr_due or {}).items():
        if note_id not in schedules:
            schedules[note_id] = NoteSchedule(note_id, local_midnight(day), None, None, 0, None)
    return schedules


def schedule_of(schedules: Mapping[str, NoteSchedule], note_id: str) -> NoteSchedule:
    """One note's schedule; a note with neither reviews nor sr-due is new."""
    found = schedules.get(note_id)
    return found if found is not None else NoteSchedule(note_id, None, None, None, 0, None)


def local_date(moment: _dt.datetime) -> _dt.date:
    """The person's calendar date at `moment` (the system's local time zone)."""
    return moment.astimezone().date()


def local_midnight(day: _dt.date) -> _dt.datetime:
    """The start of a local calendar date, in UTC: how an sr-due date is held beside FSRS's."""
    return _dt.datetime(day.year, day.month, day.day).astimezone().astimezone(_dt.UTC)


def due(schedules: Mapping[str, NoteSchedule], titles: Mapping[str, str], today: _dt.date,
        days: int = 0, limit: int | None = None) -> list[dict[str, object]]:
    """The notes in `titles` due by today + `days`, most overdue first, as `due --json` shows."""
    horizon = today + _dt.timedelta(days=days)
    rows = [(schedule.due, note_id, schedule) for note_id, schedule in schedules.items()
            if schedule.due is not None and note_id in titles
            and local_date(schedule.due) <= horizon]
    rows.sort(key=itemgetter(0, 1))
    if limit is not None:
        rows = rows[:limit]
    return [_row(schedule, moment, titles[note_id]) for moment, note_id, schedule in rows]


def next_due(schedules: Mapping[str, NoteSchedule], titles: Mapping[str, str]) -> _dt.date | None:
    """The earliest local due date of the notes in `titles`, or None when none has one."""
    moments = [schedule.due for note_id, schedule in schedules.items()
               if schedule.due is not None and note_id in titles]
    return local_date(min(moments)) if moments else None


def _row(schedule: NoteSchedule, due: _dt.datetime, title: str) -> dict[str, object]:
    last = schedule.last_reviewed
    recall = schedule.retrievability
    return {"id": schedule.note_id, "title": title, "due": local_date(due).isoformat(),
            "last_reviewed": local_date(last).isoformat() if last is not None else None,
            "last_rating": schedule.last_rating,
            "retrievability": round(recall) if recall is not None else None,
            "reviews": schedule.reviews}
