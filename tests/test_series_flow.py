"""Series end to end (SPEC 16): the version-3 plan file, its sessions in listings, warnings and
calendars, done and dropped marks, and save_review_series in the turn loop (one SAVE for all).

Flow-level runs use the scripted model and person of test_conversation.py; the same series
through the real command: test_review_cli.py.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import pytest

from planner import ics, plans, reviews
from planner.notes import Note
from planner.plan import ReviewPlan, ReviewSeries

TODAY = _dt.date.today()
NOTES = {"N1": Note("N1", "RAG 的基本流程", "t"), "N2": Note("N2", "切分与向量检索", "t"),
         "N3": Note("N3", "引用与校验", "t")}
CREATED = "2026-11-30T10:00:00.000+08:00"
RUN = "20261130T100000000000Z-aaaaaa"


def day(offset: int) -> str:
    return (TODAY + _dt.timedelta(days=offset)).isoformat()


def save(home: Path, run_id: str, plan: ReviewPlan | ReviewSeries, folder: str = "plans",
         simulated: bool = False) -> Path:
    """A plan file exactly as the flow writes it (plan_file_content)."""
    path = home / folder / f"{run_id}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(plans.plan_file_content(
        plan, simulated=simulated, run_id=run_id, created_at=CREATED,
        notes=[NOTES[note_id] for note_id in plan.note_ids]))
    return path


def series(*offsets: int, note_ids=("N1", "N2"), minutes: int = 20) -> ReviewSeries:
    return ReviewSeries("间隔复习", tuple(note_ids), tuple(day(offset) for offset in offsets),
                        minutes)


def single(offset: int, note_ids=("N1", "N2"), minutes: int = 20) -> ReviewPlan:
    return ReviewPlan("RAG基础复习", tuple(note_ids), day(offset), minutes)


def listing(home: Path, include_past: bool = True) -> list[dict]:
    return plans.list_plans(home, False, include_past, TODAY)


def sessions(rows: list[dict]) -> list[tuple]:
    return [(row["run_id"], row["session"], row["date"], row["done"], row["dropped"])
            for row in rows]


# --- the version-3 file -------------------------------------------------------------------------


def test_a_series_is_written_as_version_3_and_a_plan_stays_version_2(home: Path) -> None:
    data = json.loads(save(home, RUN, series(1, 3, 7)).read_bytes())
    assert list(data) == ["version", "simulated", "run_id", "created_at", "plan", "notes"]
    assert data["version"] == 3
    assert data["plan"] == {"title": "间隔复习", "note_ids": ["N1", "N2"],
                            "dates": [day(1), day(3), day(7)], "minutes": 20}
    assert json.loads(save(home, "r-single", single(2)).read_bytes())["version"] == 2


def test_each_session_is_a_row_of_its_own_in_date_order(home: Path) -> None:
    save(home, RUN, series(-2, 3, 10))
    save(home, "r-single", single(5))
    rows = listing(home)
    assert sessions(rows) == [
        (RUN, 2, day(3), False, False), ("r-single", None, day(5), False, False),
        (RUN, 3, day(10), False, False), (RUN, 1, day(-2), False, False)]
    assert all(row["file"] == f"plans/{RUN}.json" for row in rows if row["run_id"] == RUN)
    assert [plans.row_ref(row) for row in rows] == [f"{RUN}#2", "r-single", f"{RUN}#3",
                                                    f"{RUN}#1"]
    assert list(rows[0]) == list(plans.ROW_KEYS)
    # Past sessions are left out like past plans.
    assert sessions(listing(home, include_past=False)) == sessions(rows)[:3]


@pytest.mark.parametrize(("dates", "problem"), [
    ([day(1)], "plan.dates: must be a list of 2 to 8 dates"),
    ([day(offset) for offset in range(1, 10)], "plan.dates: must be a list of 2 to 8 dates"),
    ([day(5), day(1)], "plan.dates: must be strictly increasing"),
    ([day(1), day(1)], "plan.dates: must be strictly increasing"),
    ([day(1), "2026-02-30"], "plan.dates: 2026-02-30 is not a real calendar date"),
    ([day(1), 20261205], "plan.dates: must be written YYYY-MM-DD"),
    (day(1), "plan.dates: must be a list of 2 to 8 dates"),
])
def test_a_damaged_series_file_is_listed_with_the_rule_it_breaks(home: Path, dates: object,
                                                                  problem: str) -> None:
    path = save(home, RUN, series(1, 2))
    data = json.loads(path.read_bytes())
    data["plan"]["dates"] = dates
    path.write_text(json.dumps(data))
    [row] = listing(home)
    assert row == {**dict.fromkeys(plans.ROW_KEYS), "file": f"plans/{RUN}.json",
                   "problem": problem}


def test_a_version_2_file_with_dates_is_refused(home: Path) -> None:
    path = save(home, RUN, series(1, 2))
    data = json.loads(path.read_bytes())
    data["version"] = 2
    path.write_text(json.dumps(data))
    [row] = listing(home)
    assert row["problem"] == "plan: has no 'date'"


# --- done and dropped, from the review log --------------------------------------------------------


def test_reviews_mark_their_plan_or_session_done_and_an_undo_takes_it_back(home: Path) -> None:
    save(home, RUN, series(1, 3, 7))
    save(home, "r-single", single(2))
    reviews.record_reviews(home, ["N1"], "good", run_id=f"{RUN}#2")
    [undone] = reviews.record_reviews(home, ["N2"], "hard", run_id="r-single")
    reviews.record_undo(home, undone.review_id)
    reviews.record_reviews(home, ["N3"], "easy", run_id=None)  # a review of no plan
    assert sessions(listing(home)) == [
        (RUN, 1, day(1), False, False), ("r-single", None, day(2), False, False),
        (RUN, 2, day(3), True, False), (RUN, 3, day(7), False, False)]
    reviews.record_reviews(home, ["N1"], "good", run_id="r-single")
    assert [row["done"] for row in listing(home)] == [False, True, True, False]


def test_a_dropped_plan_is_marked_in_every_session_and_can_come_back(home: Path) -> None:
    save(home, RUN, series(1, 3))
    save(home, "r-single", single(2))
    reviews.record_drop(home, RUN)
    assert [(row["session"], row["dropped"]) for row in listing(home)] == [
        (1, True), (None, False), (2, True)]
    reviews.record_drop_undo(home, RUN)
    assert not any(row["dropped"] for row in listing(home))


def test_given_marks_are_used_and_an_unreadable_log_marks_nothing(home: Path) -> None:
    save(home, RUN, series(1, 3))
    marks = plans.Marks(done=frozenset({f"{RUN}#1"}), dropped=frozenset({RUN}))
    rows = plans.list_plans(home, False, True, TODAY, marks)
    assert [(row["done"], row["dropped"]) for row in rows] == [(True, True), (False, True)]
    reviews.log_path(home).mkdir()  # a folder where the log should be: cannot be read
    assert [(row["done"], row["dropped"]) for row in listing(home)] == [(False, False)] * 2
    with pytest.raises(reviews.ReviewLogError):
        plans.read_marks(home)


# --- warnings before SAVE look at every session -------------------------------------------------


def warnings_for(home: Path, plan: ReviewPlan | ReviewSeries) -> list[str]:
    return plans.confirmation_warnings(home, "live", plan, TODAY)


def test_a_series_is_warned_about_each_session_date_that_holds_plans(home: Path) -> None:
    save(home, "r-same", single(3, note_ids=("N2", "N1"), minutes=25))
    save(home, "r-other", single(7, note_ids=("N3",), minutes=15))
    assert warnings_for(home, series(1, 3, 7)) == [
        f"session 2 ({day(3)}): the same review (same date, same notes) is already saved in "
        "plans/r-same.json",
        f"session 2 ({day(3)}): that day already holds 25 minutes in 1 plan",
        f"session 3 ({day(7)}): that day already holds 15 minutes in 1 plan",
    ]


def test_a_saved_series_session_is_seen_by_a_new_plan(home: Path) -> None:
    save(home, RUN, series(1, 4))
    assert warnings_for(home, single(4)) == [
        f"the same review (same date, same notes) is already saved in plans/{RUN}.json "
        "(session 2)",
        "that day already holds 20 minutes in 1 plan",
    ]
    assert warnings_for(home, single(4, note_ids=("N3",))) == [
        "that day already holds 20 minutes in 1 plan"]


def test_dropped_plans_are_left_out_of_the_warnings(home: Path) -> None:
    save(home, RUN, series(1, 4))
    save(home, "r-single", single(4, minutes=30))
    reviews.record_drop(home, RUN)
    assert warnings_for(home, single(4)) == [
        "the same review (same date, same notes) is already saved in plans/r-single.json",
        "that day already holds 30 minutes in 1 plan"]
    reviews.record_drop(home, "r-single")
    assert warnings_for(home, single(4)) == []


# --- calendar events of sessions ----------------------------------------------------------------


def test_rows_give_each_session_its_event_with_done_and_dropped(home: Path) -> None:
    save(home, RUN, series(1, 3))
    save(home, "r-single", single(2))
    reviews.record_reviews(home, ["N1", "N2"], "good", run_id=f"{RUN}#1")
    reviews.record_drop(home, "r-single")
    events = ics.events_from_rows(listing(home))
    assert [(event.uid, event.date, event.done, event.dropped) for event in events] == [
        (f"{RUN}-1@planner", day(1), True, False),
        ("r-single@planner", day(2), False, True),
        (f"{RUN}-2@planner", day(3), False, False)]
    assert {event.saved_order for event in events} == {RUN, "r-single"}
    calendar = ics.export_ics(listing(home), "19:00")
    assert calendar.count(b"BEGIN:VEVENT") == 3 and b"STATUS:CANCELLED" in calendar
