"""Recall on a goal's day: planner's prediction equals the fsrs library's own on the same
history plus one good review at each planned session; which sessions count; the saved ones."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterator
from pathlib import Path

import fsrs
import plan_files
import pytest
from conftest import in_zone
from plan_files import session as study_session
from review_log import at

from planner.memory import log as review_log
from planner.memory import memory_file, readiness
from planner.memory.review_memory import ReviewMemory
from planner.memory.schedule import DEFAULT_PARAMETERS, replay
from planner.notes.catalog import Note
from planner.plans.study import Session

UTC = _dt.UTC
TODAY = _dt.date(2026, 12, 4)
GOAL_DAY = _dt.date(2027, 1, 8)
RATINGS = {"again": fsrs.Rating.Again, "hard": fsrs.Rating.Hard, "good": fsrs.Rating.Good,
           "easy": fsrs.Rating.Easy}
# A fitted memory (as planner fit would keep it): not fsrs's defaults.
FITTED = (0.3, 1.5, 2.8, 9.0, 6.2, 0.7, 2.9, 0.01, 1.7, 0.2, 0.8, 1.5, 0.07, 0.3, 1.6, 0.5,
          1.9, 0.5, 0.1, 0.07, 0.2)
HISTORIES = {
    "steady": [("2026-09-05T08:00", "good"), ("2026-09-08T08:00", "good"),
               ("2026-10-20T21:00", "easy")],
    "shaky": [("2026-11-01T10:00", "again"), ("2026-11-02T10:00", "hard")],
    "today": [("2026-12-04T06:00", "good")],
}


@pytest.fixture(autouse=True)
def zone() -> Iterator[None]:
    """Local time is Berlin's: 09:00 on the goal's day is 08:00 UTC."""
    with in_zone("Europe/Berlin"):
        yield


def local(day: _dt.date, clock: str) -> _dt.datetime:
    hours, minutes = map(int, clock.split(":"))
    return _dt.datetime.combine(day, _dt.time(hours, minutes)).astimezone().astimezone(UTC)


def library_recall(history: list[tuple[_dt.datetime, str]], parameters: tuple[float, ...],
                   day: _dt.date) -> float:
    """fsrs directly: the card after every review in time order, its recall at 09:00 local."""
    scheduler = fsrs.Scheduler(parameters=parameters, learning_steps=(), relearning_steps=(),
                               enable_fuzzing=False)
    card = fsrs.Card(card_id=1)
    for moment, rating in sorted(history):
        card, _ = scheduler.review_card(card, RATINGS[rating], moment)
    return scheduler.get_card_retrievability(card, local(day, "09:00"))


def states_of(parameters: tuple[float, ...]) -> dict:
    reviews = [review_log.Review(f"r{number}", note_id, None, at(moment), rating, None)
               for note_id, history in HISTORIES.items()
               for number, (moment, rating) in enumerate(history)]
    return replay(reviews, parameters=parameters)


@pytest.mark.parametrize("parameters", [DEFAULT_PARAMETERS, FITTED], ids=["default", "fitted"])
def test_recall_equals_fsrs_on_the_same_history_with_good_reviews_at_the_sessions(
        parameters: tuple[float, ...]) -> None:
    sessions = [(_dt.date(2026, 12, 10), "19:30", ("steady", "shaky")),
                (_dt.date(2026, 12, 20), "20:00", ("shaky", "new")),
                (_dt.date(2027, 1, 7), "21:00", ("shaky",))]
    planned = [(local(day, clock), notes) for day, clock, notes in sessions]
    recall = readiness.recall_on_day(states_of(parameters), parameters,
                                     ["steady", "shaky", "today", "new", "never"], planned,
                                     GOAL_DAY, TODAY)
    for note_id in ("steady", "shaky", "today", "new"):
        history = [(at(moment), rating) for moment, rating in HISTORIES.get(note_id, [])]
        history += [(local(day, clock), "good") for day, clock, notes in sessions
                    if note_id in notes]
        assert recall[note_id] == pytest.approx(library_recall(history, parameters, GOAL_DAY),
                                                abs=1e-12), note_id
    assert recall["never"] == 0.0  # no review and no session
    assert recall["shaky"] > readiness.recall_on_day(
        states_of(parameters), parameters, ["shaky"], [], GOAL_DAY, TODAY)["shaky"]


def test_only_sessions_from_today_to_the_day_before_the_goal_count() -> None:
    states = states_of(DEFAULT_PARAMETERS)
    without = readiness.recall_on_day(states, DEFAULT_PARAMETERS, ["shaky"], [], GOAL_DAY,
                                      TODAY)
    for day in (TODAY - _dt.timedelta(days=1), GOAL_DAY, GOAL_DAY + _dt.timedelta(days=3)):
        planned = [(local(day, "19:00"), ("shaky",))]
        assert readiness.recall_on_day(states, DEFAULT_PARAMETERS, ["shaky"], planned,
                                       GOAL_DAY, TODAY) == without, day
    counted = readiness.recall_on_day(states, DEFAULT_PARAMETERS, ["shaky"],
                                      [(local(TODAY, "05:00"), ("shaky",))], GOAL_DAY, TODAY)
    assert counted["shaky"] > without["shaky"]


def test_a_session_earlier_today_than_the_latest_review_counts_from_that_review() -> None:
    # "today" was reviewed at 06:00 UTC (07:00 Berlin); a session at 05:00 local is earlier.
    recall = readiness.recall_on_day(states_of(DEFAULT_PARAMETERS), DEFAULT_PARAMETERS,
                                     ["today"], [(local(TODAY, "05:00"), ("today",))],
                                     GOAL_DAY, TODAY)
    history = [(at("2026-12-04T06:00"), "good"), (at("2026-12-04T06:00"), "good")]
    assert recall["today"] == pytest.approx(library_recall(history, DEFAULT_PARAMETERS,
                                                           GOAL_DAY), abs=1e-12)


def test_ready_counts_and_least_ready_first() -> None:
    recall = {"a": 0.95, "b": 0.4, "c": 0.8999, "d": 0.1}
    assert readiness.ready_count(recall, 0.9) == 2  # 0.8999 shows as 0.900
    assert readiness.least_ready(recall, 0.9) == [("d", 0.1), ("b", 0.4)]


def write_plan(home: Path, run_id: str, sessions: list[Session], goal: str | None) -> None:
    notes = dict.fromkeys(note for each in sessions for note in each.note_ids)
    plan_files.write_plan(home, run_id, plan_files.study_plan(*sessions, title="To the exam"),
                          notes=[Note(note, note, "") for note in notes], goal=goal)


def session(day: str, note_ids: list[str], start: str = "19:00", minutes: int = 30) -> Session:
    return study_session(day, minutes, tuple(note_ids), start)


def test_the_saved_sessions_ahead_leave_out_the_dropped_the_done_and_the_past(
        home: Path) -> None:
    write_plan(home, "20261201T100000Z-aaaaaa", [
        session("2026-12-01", ["steady"]), session("2026-12-10", ["shaky"]),
        session("2026-12-11", ["shaky"]), session("2026-12-12", ["steady"]),
        session("2027-01-08", ["steady"])], "JLPT N2")
    review_log.append(home, [review_log.Drop("20261201T100000Z-aaaaaa#3", at("2026-12-02T10:00"))])
    review_log.record_reviews(home, ["steady"], "good", run_id="20261201T100000Z-aaaaaa#4",
                              reviewed_at=at("2026-12-03T10:00"))
    from planner.memory.marking import quiet_marks

    saved = readiness.read_saved_sessions(home, TODAY, quiet_marks(home))
    assert len(saved) == 5 and {each.goal for each in saved} == {"JLPT N2"}
    ahead = readiness.sessions_ahead(saved, TODAY, GOAL_DAY)
    assert ahead == [(local(_dt.date(2026, 12, 10), "19:00"), ("shaky",))]


def test_the_save_screen_line_with_the_plan_and_without_it(home: Path) -> None:
    for note_id, history in HISTORIES.items():
        for moment, rating in history:
            review_log.record_reviews(home, [note_id], rating, reviewed_at=at(moment))
    memory_file.write_memory(home, {"version": 1, "parameters": list(FITTED),
                               "fitted_at": "2026-12-01T10:00:00Z", "reviews": 60,
                               "sources": [], "log_loss": 0.3, "rmse_bins": 0.05,
                               "previous": {"log_loss": 0.4, "rmse_bins": 0.07}})
    memory = ReviewMemory(home, None, now=at("2026-12-04T12:00"))
    assert memory.parameters() == FITTED
    from planner.base.config import Config
    from planner.plans.study import StudyPlan

    goal = readiness.GoalTarget("JLPT N2", GOAL_DAY, 0.9, ("steady", "shaky", "new"))
    plan = StudyPlan("Exam", (study_session("2027-01-06", 30, ("shaky", "new"), "19:00"),
                              study_session("2027-01-07", 30, ("shaky", "new"), "19:00")))
    outlook = readiness.readiness_line(home, "live", goal, plan, memory, TODAY, Config())
    with_plan, without = {}, {}
    for note_id in goal.note_ids:
        history = [(at(moment), rating) for moment, rating in HISTORIES.get(note_id, [])]
        without[note_id] = library_recall(history, FITTED, GOAL_DAY) if history else 0.0
        if note_id != "steady":
            history += [(local(_dt.date(2027, 1, day), "19:00"), "good") for day in (6, 7)]
        with_plan[note_id] = library_recall(history, FITTED, GOAL_DAY)
    assert (outlook.total, outlook.uncovered) == (3, ("steady",))
    assert outlook.ready_with == sum(round(value, 3) >= 0.9 for value in with_plan.values())
    assert outlook.ready_without == sum(round(value, 3) >= 0.9 for value in without.values())
    assert outlook.ready_with > outlook.ready_without
    assert outlook.not_ready == tuple(sorted(
        ((note_id, round(value, 3)) for note_id, value in with_plan.items()
         if round(value, 3) < 0.9), key=lambda item: (item[1], item[0])))
