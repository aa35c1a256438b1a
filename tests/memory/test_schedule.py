"""Due dates: planner's replay of the log equals the fsrs library's own, sr-due, the due list."""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import fsrs
import pytest
from conftest import in_zone
from review_log import at

from planner.memory import log as reviews
from planner.memory import schedule
from planner.memory.log import Review
from planner.memory.schedule import NoteSchedule

UTC = _dt.UTC
NOW = _dt.datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
RATINGS = {"again": fsrs.Rating.Again, "hard": fsrs.Rating.Hard, "good": fsrs.Rating.Good,
           "easy": fsrs.Rating.Easy}


@pytest.fixture
def zone() -> Iterator[None]:
    """Local time is UTC unless a test sets TZ itself (and calls time.tzset)."""
    with in_zone("UTC"):
        yield


def library_card(history: list[tuple[str, str]],
                 retention: float = 0.9) -> tuple[fsrs.Card, float]:
    """The card and its retrievability at NOW, by fsrs directly from (time, rating) pairs."""
    scheduler = fsrs.Scheduler(desired_retention=retention, learning_steps=(),
                               relearning_steps=(), enable_fuzzing=False)
    card = fsrs.Card(card_id=1)
    for moment, rating in sorted(history):
        card, _ = scheduler.review_card(card, RATINGS[rating], at(moment))
    return card, scheduler.get_card_retrievability(card, NOW)


HISTORIES = {
    "one-good": [("2026-05-01T09:00:00", "good")],
    "one-again": [("2026-05-01T09:00:00", "again")],
    "steady": [("2026-01-05T08:00:00", "good"), ("2026-01-08T08:00:00", "good"),
               ("2026-01-20T21:00:00", "easy"), ("2026-03-01T07:30:00", "hard")],
    "forgotten": [("2026-02-01T10:00:00", "easy"), ("2026-04-20T10:00:00", "again"),
                  ("2026-04-22T10:00:00", "good")],
    "same-day": [("2026-05-10T08:00:00", "again"), ("2026-05-10T08:20:00", "hard"),
                 ("2026-05-10T18:00:00", "good")],
    # Logged out of time order: a review recorded later with --date for an earlier day.
    "back-dated": [("2026-05-20T09:00:00", "good"), ("2026-05-02T09:00:00", "hard"),
                   ("2026-05-12T09:00:00", "easy")],
}


def schedule_notes(history: Iterable[Review], *, now: _dt.datetime | None = None,
                   desired_retention: float = schedule.DEFAULT_RETENTION,
                   sr_due: Mapping[str, _dt.date] | None = None) -> dict[str, NoteSchedule]:
    """Every note's schedule from its effective reviews, as ReviewMemory makes it."""
    used = schedule.scheduler_parameters(None)
    states = schedule.replay(history, parameters=used, desired_retention=desired_retention)
    return schedule.schedules_of_states(states, used, now=now, sr_due=sr_due)


def log_histories(home: Path) -> list[Review]:
    """Record HISTORIES in the log, in the order listed; the effective reviews read back."""
    for note_id, history in HISTORIES.items():
        for moment, rating in history:
            reviews.record_reviews(home, [note_id], rating, reviewed_at=at(moment))
    contents = reviews.read_log(home)
    assert contents.warnings == []
    return reviews.effective_reviews(contents.events)


@pytest.mark.parametrize("retention", [0.9, 0.8, 0.97])
def test_due_dates_equal_the_librarys_own(home: Path, retention: float) -> None:
    schedules = schedule_notes(log_histories(home), now=NOW,
                                        desired_retention=retention)
    assert sorted(schedules) == sorted(HISTORIES)
    for note_id, history in HISTORIES.items():
        card, recall = library_card(history, retention)
        last_moment, last_rating = max(history)
        assert schedules[note_id] == NoteSchedule(note_id, card.due, at(last_moment), last_rating,
                                                  len(history), recall * 100), note_id


def test_one_good_review_is_due_two_days_later() -> None:
    # Good's initial stability is 2.3065 days; at 90 % retention the interval is round(2.3065).
    [made] = [Review("r1", "n1", None, at("2026-05-01T09:00:00"), "good", 30)]
    [(note_id, result)] = schedule_notes([made], now=at("2026-05-01T20:00:00")).items()
    assert result == NoteSchedule("n1", at("2026-05-03T09:00:00"), at("2026-05-01T09:00:00"),
                                  "good", 1, 100.0)
    assert not result.is_new
    assert result.due is not None and result.due.tzinfo is UTC


def test_a_lower_retention_schedules_later() -> None:
    history = [Review("r1", "n1", None, at("2026-05-01T09:00:00"), "easy", None)]
    dates = [schedule_notes(history, now=NOW, desired_retention=retention)["n1"].due
             for retention in (0.95, 0.9, 0.8)]
    assert dates[0] is not None and dates[1] is not None and dates[2] is not None
    assert dates[0] < dates[1] < dates[2]


def test_an_undone_review_stops_counting(home: Path) -> None:
    first, = reviews.record_reviews(home, ["n1"], "good", reviewed_at=at("2026-05-01T09:00:00"))
    second, = reviews.record_reviews(home, ["n1"], "again", reviewed_at=at("2026-05-04T09:00:00"))
    reviews.record_undo(home, second.review_id)
    effective = reviews.effective_reviews(reviews.read_log(home).events)
    assert effective == [first]
    card, recall = library_card([("2026-05-01T09:00:00", "good")])
    assert schedule_notes(effective, now=NOW)["n1"] == NoteSchedule(
        "n1", card.due, first.reviewed_at, "good", 1, recall * 100)


def test_retrievability_falls_with_time_as_the_library_says() -> None:
    history = [Review("r1", "n1", None, at("2026-05-01T09:00:00"), "good", None)]
    values = [schedule_notes(history, now=now)["n1"].retrievability or 0.0
              for now in (at("2026-05-01T09:00:00"), at("2026-05-03T09:00:00"), NOW)]
    scheduler = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    card, _ = scheduler.review_card(fsrs.Card(card_id=1), fsrs.Rating.Good,
                                    at("2026-05-01T09:00:00"))
    assert values == [100.0, scheduler.get_card_retrievability(card, at("2026-05-03T09:00:00"))
                      * 100, scheduler.get_card_retrievability(card, NOW) * 100]
    # At the due date it is near the desired 90 %: a little above, as 2.31 days round down to 2.
    assert round(values[1], 2) == 90.95
    assert values[0] > values[1] > values[2]


def test_a_retention_outside_the_range_is_refused() -> None:
    for retention in (0.69, 0.995, 1.0):
        with pytest.raises(ValueError, match="not from 0.70 to 0.99"):
            schedule_notes([], desired_retention=retention)


# --- sr-due ------------------------------------------------------------------------------------


def test_sr_due_is_the_due_date_until_planner_has_a_review(home: Path, zone: None) -> None:
    sr_due = {"obsidian/a": _dt.date(2026, 5, 20), "obsidian/b": _dt.date(2026, 5, 25)}
    made, = reviews.record_reviews(home, ["obsidian/b"], "good",
                                   reviewed_at=at("2026-05-28T09:00:00"))
    effective = reviews.effective_reviews(reviews.read_log(home).events)
    schedules = schedule_notes(effective, now=NOW, sr_due=sr_due)
    card, recall = library_card([("2026-05-28T09:00:00", "good")])
    assert schedules == {
        "obsidian/a": NoteSchedule("obsidian/a", at("2026-05-20T00:00:00"), None, None, 0, None),
        "obsidian/b": NoteSchedule("obsidian/b", card.due, made.reviewed_at, "good", 1,
                                   recall * 100),
    }
    assert card.due == at("2026-05-30T09:00:00")
    # Undo planner's review and Obsidian's date counts again.
    reviews.record_undo(home, made.review_id)
    effective = reviews.effective_reviews(reviews.read_log(home).events)
    assert effective == []
    assert schedule_notes(effective, now=NOW, sr_due=sr_due)["obsidian/b"] == \
        NoteSchedule("obsidian/b", at("2026-05-25T00:00:00"), None, None, 0, None)


def test_a_note_with_neither_is_new() -> None:
    assert schedule.schedule_of({}, "n1") == NoteSchedule("n1", None, None, None, 0, None)
    assert schedule.schedule_of({}, "n1").is_new
    known = NoteSchedule("n2", NOW, NOW, "good", 1, 100.0)
    assert schedule.schedule_of({"n2": known}, "n2") is known


def test_dates_are_shown_in_the_local_zone(zone: None) -> None:
    os.environ["TZ"] = "Asia/Shanghai"
    time.tzset()
    assert schedule.local_date(at("2026-01-03T15:59:59")) == _dt.date(2026, 1, 3)
    assert schedule.local_date(at("2026-01-03T16:00:00")) == _dt.date(2026, 1, 4)
    # An sr-due date starts at local midnight: 16:00 UTC the day before, in Shanghai.
    assert schedule.local_midnight(_dt.date(2026, 3, 1)) == at("2026-02-28T16:00:00")
    schedules = schedule_notes([], now=NOW, sr_due={"a": _dt.date(2026, 3, 1)})
    assert schedule.due(schedules, {"a": "A"}, _dt.date(2026, 3, 1))[0]["due"] == "2026-03-01"
    assert schedule.due(schedules, {"a": "A"}, _dt.date(2026, 2, 28)) == []


# --- the due list -----------------------------------------------------------------------------


def sample() -> dict[str, NoteSchedule]:
    return {
        "late": NoteSchedule("late", at("2026-05-28T09:00:00"), at("2026-05-20T09:00:00"), "hard",
                             3, 71.6),
        "today": NoteSchedule("today", at("2026-06-01T23:00:00"), at("2026-05-30T08:00:00"),
                              "good", 1, 89.5),
        "sr": NoteSchedule("sr", at("2026-05-30T00:00:00"), None, None, 0, None),
        "soon": NoteSchedule("soon", at("2026-06-04T10:00:00"), at("2026-05-25T10:00:00"),
                             "easy", 2, 93.2),
        "later": NoteSchedule("later", at("2026-07-01T10:00:00"), at("2026-05-25T10:00:00"),
                              "easy", 4, 97.9),
        "gone": NoteSchedule("gone", at("2026-05-01T09:00:00"), at("2026-04-29T09:00:00"),
                             "good", 1, 60.0),
        "new": NoteSchedule("new", None, None, None, 0, None),
    }


TITLES = {"late": "RAG 的基本流程", "today": "Today", "sr": "From Obsidian", "soon": "Soon",
          "later": "Later", "new": "Never reviewed"}  # "gone" is no longer a note


def test_due_lists_the_notes_due_most_overdue_first(zone: None) -> None:
    today = _dt.date(2026, 6, 1)
    assert schedule.due(sample(), TITLES, today) == [
        {"id": "late", "title": "RAG 的基本流程", "due": "2026-05-28",
         "last_reviewed": "2026-05-20", "last_rating": "hard", "retrievability": 72,
         "reviews": 3},
        {"id": "sr", "title": "From Obsidian", "due": "2026-05-30", "last_reviewed": None,
         "last_rating": None, "retrievability": None, "reviews": 0},
        {"id": "today", "title": "Today", "due": "2026-06-01", "last_reviewed": "2026-05-30",
         "last_rating": "good", "retrievability": 90, "reviews": 1},
    ]
    assert [row["id"] for row in schedule.due(sample(), TITLES, today, days=3)] == [
        "late", "sr", "today", "soon"]
    assert [row["id"] for row in schedule.due(sample(), TITLES, today, days=30)] == [
        "late", "sr", "today", "soon", "later"]
    assert [row["id"] for row in schedule.due(sample(), TITLES, today, days=30, limit=2)] == [
        "late", "sr"]
    assert schedule.due(sample(), TITLES, _dt.date(2026, 5, 27)) == []


def test_next_due_names_the_earliest_date_of_existing_notes(zone: None) -> None:
    assert schedule.next_due(sample(), TITLES) == _dt.date(2026, 5, 28)
    assert schedule.next_due(sample(), {"later": "Later", "new": "New"}) == _dt.date(2026, 7, 1)
    assert schedule.next_due(sample(), {"new": "New"}) is None


def test_fsrs_is_imported_only_when_a_schedule_is_made() -> None:
    code = ("import sys, planner.memory.log, planner.memory.schedule\n"
            "print('fsrs' in sys.modules)\n"
            "planner.memory.schedule.replay([])\n"
            "print('fsrs' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "False\nTrue\n", "")


def test_the_default_parameters_are_fsrs_own():
    import fsrs

    from planner.memory.schedule import DEFAULT_PARAMETERS

    assert DEFAULT_PARAMETERS == tuple(fsrs.Scheduler().parameters)
