"""PlanRow.to_json: the listing row as `planner plans --json` has always written it."""

from __future__ import annotations

import datetime as _dt

from planner.plans import files as plans

ROW = plans.PlanRow("plans/r1.json", "r1", _dt.date(2026, 12, 5), 20, "T", ["N1"],
                    (plans.SavedNote("N1", None),), False, None, False, False, None, None)


def test_a_plan_row_has_the_keys_of_the_listing_in_order() -> None:
    assert list(ROW.to_json()) == list(plans.ROW_KEYS)
    assert ROW.to_json()["note_ids"] == ["N1"] and ROW.to_json()["start"] is None
    assert ROW.to_json()["date"] == "2026-12-05"
    assert ROW.to_json()["notes"] == [{"id": "N1", "title": None}]
    assert ROW._replace(start=_dt.time(9, 5)).to_json()["start"] == "09:05"


def test_goal_is_written_for_a_study_plan_only_even_when_null() -> None:
    study = ROW._replace(session=1, goal=None, study=True)
    assert list(study.to_json()) == [*plans.ROW_KEYS, "goal"]
    assert study.to_json()["goal"] is None
    assert "goal" not in ROW._replace(goal="JLPT").to_json()


def test_moved_is_written_after_goal_unless_left_out() -> None:
    moved = ROW._replace(goal="JLPT", study=True, moved=True)
    assert list(moved.to_json()) == [*plans.ROW_KEYS, "goal", "moved"]
    assert moved.to_json()["moved"] is True
    assert "moved" not in moved.to_json(mark_moved=False)


def test_a_problem_row_has_only_its_file_and_problem() -> None:
    row = plans.PlanProblem("plans/bad.json", "is empty")
    assert row.to_json() == {**dict.fromkeys(plans.ROW_KEYS), "file": "plans/bad.json",
                             "problem": "is empty"}
