"""Due dates from the review log: FSRS through the `fsrs` library, the only module importing it."""

# README "Review memory". Each note is one card; its state is its reviews replayed in time order
# through
# Scheduler.review_card, with no learning or relearning steps and no fuzzing, so a note's due date
# depends only on its reviews and the desired retention. `fsrs` is imported inside the functions:
# commands that show no schedule do not pay for it at start-up.
#
# Speed: one sort of all reviews, one dict of per-note lists, then the library's own calls only.
# Cards are made with an explicit card_id and due: fsrs.Card() without an ID sleeps 1 ms to keep
# its time-based IDs apart, ten seconds for 10,000 notes.
#
# The calendar's end (README "A screen you can trust"): a review late in year 9999 (a hand edit, a
# wrong clock) makes
# FSRS compute a due date past 9999-12-31, which no datetime holds. That note is due
# AFTER_LAST_DAY (planner.base.days), never an OverflowError; so is a due time whose local date
# would pass 9999-12-31.

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any, NamedTuple

from planner.base.days import AFTER_LAST_DAY, LAST_DAY, AfterLastDay
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


class NoteState(NamedTuple):
    """One note's FSRS card after its reviews, as the cache keeps it: `exact` False when the
    card was replayed shifted in time (README "A screen you can trust", a due date past 9999-12-31)
    and cannot be
    continued by replaying more reviews on top."""

    note_id: str
    stability: float | None  # None: unknown (a history from the first century to the last)
    difficulty: float | None
    state: int
    step: int | None
    due: _dt.datetime | AfterLastDay
    last_review: _dt.datetime
    last_rating: str
    reviews: int
    exact: bool


# fsrs's own defaults (FSRS-6, fsrs.Scheduler().parameters; tests/test_schedule.py checks them),
# here so that a warm cache needs no import of fsrs at all.
DEFAULT_PARAMETERS = (0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722,
                      0.1666, 0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425,
                      0.0912, 0.0658, 0.1542)


def scheduler_parameters(parameters: Sequence[float] | None) -> tuple[float, ...]:
    """The FSRS parameters to schedule with: the fitted ones, else fsrs's defaults."""
    return DEFAULT_PARAMETERS if parameters is None else tuple(parameters)


def check_parameters(parameters: Sequence[float]) -> str | None:
    """Why fsrs would refuse these parameters (out of its bounds), or None when it takes them."""
    import fsrs

    try:
        fsrs.Scheduler(parameters=tuple(parameters))
    except ValueError as error:
        return " ".join(str(error).split())
    return None


def replay(reviews: Iterable[Review], *, parameters: Sequence[float] | None = None,
           desired_retention: float = DEFAULT_RETENTION,
           start: Mapping[str, NoteState] | None = None) -> dict[str, NoteState]:
    """Every reviewed note's card: its reviews replayed in time order through fsrs, on top of
    `start` (cards already replayed; every review given must be later than its card's last)."""
    import fsrs

    if not MIN_RETENTION <= desired_retention <= MAX_RETENTION:
        raise ValueError(t("desired_retention {value} is not from 0.70 to 0.99",
                           value=desired_retention))
    scheduler = fsrs.Scheduler(parameters=scheduler_parameters(parameters),
                               desired_retention=desired_retention, learning_steps=(),
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
    states: dict[str, NoteState] = dict(start or {})
    base = len(states)
    for number, (note_id, history) in enumerate(histories.items(), base):
        before = states.get(note_id)
        if before is not None and not before.exact:
            raise ValueError(f"note {note_id!r} cannot be replayed on top of its card")
        card: Any
        try:
            if before is None:
                card = fsrs.Card(card_id=number, due=history[0].reviewed_at)
            else:
                card = fsrs.Card(card_id=number, state=fsrs.State(before.state),
                                 step=before.step, stability=before.stability,
                                 difficulty=before.difficulty,
                                 due=before.due if isinstance(before.due, _dt.datetime) else None,
                                 last_review=before.last_review)
            for review in history:
                card, _ = review_card(card, ratings[review.rating], review.reviewed_at)
            due: _dt.datetime | AfterLastDay = card.due
            exact = True
        except OverflowError:
            if before is not None:
                raise
            card, due = _past_the_end(fsrs, scheduler, ratings, number, history)
            exact = False
        last = history[-1]
        count = len(history) + (before.reviews if before is not None else 0)
        states[note_id] = NoteState(note_id, card.stability, card.difficulty, int(card.state),
                                    card.step, due, last.reviewed_at, last.rating, count, exact)
    return states


def retrievability(parameters: Sequence[float], stability: float | None,
                   last_review: _dt.datetime, moment: _dt.datetime) -> float | None:
    """The chance of recall at `moment`, as fsrs's Scheduler.get_card_retrievability computes
    it (the same arithmetic, so the same number), without importing fsrs."""
    if stability is None:
        return None
    decay = -parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    elapsed_days = max(0, (moment - last_review).days)
    return float((1 + factor * elapsed_days / stability) ** decay)


def schedules_of_states(states: Mapping[str, NoteState], parameters: Sequence[float], *,
                        now: _dt.datetime | None = None,
                        sr_due: Mapping[str, _dt.date] | None = None) -> dict[str, NoteSchedule]:
    """The schedules of replayed notes (retrievability now), and of notes with only sr-due."""
    moment = now if now is not None else _dt.datetime.now(_dt.UTC)
    schedules: dict[str, NoteSchedule] = {}
    for note_id, state in states.items():
        try:
            recall = retrievability(parameters, state.stability, state.last_review, moment)
        except (OverflowError, ZeroDivisionError):
            recall = None
        if recall is not None:
            recall *= 100
        schedules[note_id] = NoteSchedule(note_id, state.due, state.last_review,
                                          state.last_rating, state.reviews, recall)
    # Obsidian Spaced Repetition's own date counts until planner has a review of the note.
    for note_id, day in (sr_due or {}).items():
        if note_id not in schedules:
            schedules[note_id] = NoteSchedule(note_id, local_midnight(day), None, None, 0, None)
    return schedules


def _past_the_end(fsrs: Any, scheduler: Any, ratings: Mapping[str, Any], number: int,
                  history: list[Review]) -> tuple[Any, _dt.datetime | AfterLastDay]:
    """The card and due date of a history FSRS cannot schedule: it puts the due date past
    9999-12-31. FSRS counts only the days between times, so the same history replayed earlier
    by more than the longest interval gives the same card, that much earlier, without overflow
    (its stability and difficulty are the real ones; its recall is computed from the real last
    review, schedules_of_states)."""
    shift = _dt.timedelta(days=scheduler.maximum_interval + 1)
    try:
        card = fsrs.Card(card_id=number, due=history[0].reviewed_at - shift)
        for review in history:
            card, _ = scheduler.review_card(card, ratings[review.rating],
                                            review.reviewed_at - shift)
    except OverflowError:
        # A history from the first century to the last: unknown, shown after the last day.
        return fsrs.Card(card_id=number, due=history[-1].reviewed_at), AFTER_LAST_DAY
    try:
        due: _dt.datetime | AfterLastDay = card.due + shift
    except OverflowError:
        due = AFTER_LAST_DAY
    return card, due


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


def day_end(day: _dt.date) -> _dt.datetime | None:
    """The first moment (UTC) after the local date `day`: a due time before it is due by `day`
    (due_by without a time zone conversion per note); None at the calendar's end."""
    try:
        return local_midnight(day + _dt.timedelta(days=1))
    except (OverflowError, ValueError):
        return None


def local_midnight(day: _dt.date) -> _dt.datetime:
    """The start of a local calendar date, in UTC: how an sr-due date is held beside FSRS's."""
    return _dt.datetime(day.year, day.month, day.day).astimezone().astimezone(_dt.UTC)


def due(schedules: Mapping[str, NoteSchedule], titles: Mapping[str, str], today: _dt.date,
        days: int = 0, limit: int | None = None) -> list[dict[str, object]]:
    """The notes in `titles` due by today + `days`, most overdue first, as `due --json` shows."""
    # Never past the calendar's last usable day, whatever today and --days are.
    horizon = today + _dt.timedelta(days=min(days, max((LAST_DAY - today).days, 0)))
    cutoff = day_end(horizon)
    rows = [(schedule.due, note_id, schedule) for note_id, schedule in schedules.items()
            if isinstance(schedule.due, _dt.datetime) and note_id in titles
            and (schedule.due < cutoff if cutoff is not None else due_by(schedule.due, horizon))]
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
