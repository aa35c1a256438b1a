"""Missed sessions are seen (README "A study plan to a goal"): a session whose day has passed,
neither done nor dropped, is missed in `plans`, `week` and `goals`, on the screen in both
languages and in --json; a home with none lists what it always did. Real processes, real
files."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

from conftest import env_with, run_planner, succeeded, today
from plan_files import day, save_review, session, study_plan, write_plan
from rich.cells import cell_len

from planner.memory import log as review_log
from planner.plans.files import ROW_KEYS, SavedReadiness

RUN = "20261130T100000000000Z-exam01"
PLAN = "20261130T110000000000Z-single"


def exam_home(home: Path) -> None:
    """A goal of N1-N3 in 20 days, a study plan saved for it (ready 3 of 3 when saved): one
    session past and done, two past and missed, one past and dropped, two ahead; and a
    single plan tomorrow."""
    (home / "config.json").write_text(json.dumps({"goals": [
        {"name": "Exam", "date": day(20), "notes": ["N1", "N2", "N3"]}]}), encoding="utf-8")
    write_plan(home, RUN, study_plan(
        session(day(-5), 20, ("N1",), "19:00"),
        session(day(-3), 20, ("N2",), "19:00"),
        session(day(-2), 20, ("N3",), "19:00"),
        session(day(-1), 30, ("N1", "N2"), "19:00"),
        session(day(2), 20, ("N3",), "19:00"),
        session(day(4), 30, ("N1", "N2", "N3"), "19:00"), title="To the exam"),
        goal="Exam", readiness=SavedReadiness(3, 3, None))
    save_review(home, PLAN, 1)
    moment = _dt.datetime.now(_dt.UTC) - _dt.timedelta(days=5)
    review_log.record_reviews(home, ["N1"], "good", run_id=f"{RUN}#1", reviewed_at=moment)
    review_log.append(home, [review_log.Drop(f"{RUN}#3", moment)])


def screen(*args: str, language: str = "en") -> str:
    return " ".join(succeeded(run_planner(*args, env=env_with(LANGUAGE=language))).stdout.split())


def test_plans_json_marks_only_the_missed_sessions(home: Path) -> None:
    exam_home(home)
    rows = json.loads(succeeded(run_planner("plans", "--all", "--json")).stdout)
    missed = [(row["run_id"], row["session"]) for row in rows if "missed" in row]
    assert missed == [(RUN, 4), (RUN, 2)]  # past rows newest first
    assert all(row["missed"] is True and not row["done"] and not row["dropped"]
               for row in rows if "missed" in row)
    # Every other row keeps its keys as ever (a study plan's adds its goal).
    for row in rows:
        if "missed" not in row:
            assert set(row) == set(ROW_KEYS) | ({"goal"} if row["run_id"] == RUN else set())
    # Upcoming only (no --all): nothing missed is listed, nothing is marked.
    upcoming = json.loads(succeeded(run_planner("plans", "--json")).stdout)
    assert [row["date"] for row in upcoming] == [day(1), day(2), day(4)]
    assert not any("missed" in row for row in upcoming)


def test_a_home_with_no_missed_session_lists_what_it_always_did(home: Path) -> None:
    write_plan(home, RUN, study_plan(session(day(-1), 20, ("N1",), "19:00"),
                                     session(day(3), 20, ("N2",), "19:00")), goal="Exam")
    review_log.record_reviews(home, ["N1"], "good", run_id=f"{RUN}#1")
    rows = json.loads(succeeded(run_planner("plans", "--all", "--json")).stdout)
    assert [list(row) for row in rows] == [[*ROW_KEYS, "goal"]] * 2
    week = json.loads(succeeded(run_planner("week", "--start", day(-1), "--json")).stdout)
    sessions = [session for each in week["days"] for session in each["sessions"]]
    assert [list(session) for session in sessions] == [
        ["run_id", "title", "start", "minutes", "done"]] * 2
    assert "missed" not in succeeded(run_planner("plans", "--all")).stdout \
        and "missed" not in succeeded(run_planner("week", "--start", day(-1))).stdout


def test_plans_screen_says_missed_in_both_languages(home: Path) -> None:
    exam_home(home)
    every = succeeded(run_planner("plans", "--all")).stdout.splitlines()
    assert [line for line in every if "missed" in line] == [
        line for line in every if day(-3) in line or day(-1) in line]
    assert not any("missed" in line for line in every if day(-2) in line or day(-5) in line)
    assert ("2 of the past ones not shown were missed (neither done nor dropped)."
            in screen("plans"))
    chinese = succeeded(run_planner("plans", "--all",
                                    env=env_with(LANGUAGE="zh"))).stdout.splitlines()
    assert [line for line in chinese if "已错过" in line] == [
        line for line in chinese if day(-3) in line or day(-1) in line]
    assert "没有显示的过去计划中有 2 个已错过（既未完成也未放弃）。" in screen(
        "plans", language="zh")


def test_week_marks_the_missed_sessions_in_json_and_on_the_screen(home: Path) -> None:
    exam_home(home)
    week = json.loads(succeeded(run_planner("week", "--start", day(-5), "--json")).stdout)
    sessions = {each["date"]: each["sessions"] for each in week["days"]}
    assert sessions[day(-5)] == [{"run_id": f"{RUN}#1", "title": "To the exam",
                                  "start": "19:00", "minutes": 20, "done": True}]
    assert sessions[day(-3)] == [{"run_id": f"{RUN}#2", "title": "To the exam",
                                  "start": "19:00", "minutes": 20, "done": False,
                                  "missed": True}]
    assert sessions[day(-2)] == []  # dropped
    assert sessions[day(-1)][0]["missed"] is True
    assert not any("missed" in session for each in sessions.values() for session in each
                   if session["run_id"] != f"{RUN}#2" and session["run_id"] != f"{RUN}#4")
    shown = succeeded(run_planner("week", "--start", day(-5))).stdout
    assert shown.count("✗19:00") == 2 and "✓19:00" in shown
    assert "✗: a session missed (its day has passed, neither done nor dropped)." in \
        " ".join(shown.split())
    assert "✗：已错过的学习（日期已过，既未完成也未放弃）。" in screen("week", "--start", day(-5),
                                                         language="zh")


def test_goals_count_the_missed_sessions_and_the_readiness_when_saved(home: Path) -> None:
    exam_home(home)
    (goal,) = json.loads(succeeded(run_planner("goals", "--json")).stdout)
    assert goal["sessions"] == {"planned": 5, "done": 1, "minutes_planned": 120,
                                "minutes_done": 20, "missed": 2}
    ready = goal["ready"]["with_plans"]
    assert (f"2 sessions missed; ready on the day now {ready} of 3 (3 when saved)"
            in screen("goals"))
    assert f"错过 2 次学习；现在当天就绪 3 条中 {ready} 条（保存时 3 条）" in screen(
        "goals", language="zh")
    for language in ("en", "zh"):
        done = run_planner("goals", env={**os.environ, "LANGUAGE": language, "COLUMNS": "80"})
        assert all(cell_len(line) <= 80 for line in done.stdout.splitlines()), done.stdout


def test_goals_without_a_recorded_readiness_say_the_readiness_now(home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"goals": [
        {"name": "Exam", "date": day(20), "notes": ["N1", "N2"]}]}), encoding="utf-8")
    write_plan(home, RUN, study_plan(session(day(-1), 20, ("N1",), "19:00"),
                                     session(day(3), 20, ("N2",), "19:00")), goal="exam")
    (goal,) = json.loads(succeeded(run_planner("goals", "--json")).stdout)
    assert goal["sessions"]["missed"] == 1
    text = screen("goals")
    assert f"1 session missed; ready on the day now {goal['ready']['with_plans']} of 2" in text
    assert "when saved" not in text
    assert "错过 1 次学习；现在当天就绪 2 条中" in screen("goals", language="zh")


def test_a_missed_session_is_today_no_longer_only_once_its_day_has_passed(home: Path) -> None:
    write_plan(home, RUN, study_plan(session(today().isoformat(), 20, ("N1",), "19:00")))
    rows = json.loads(succeeded(run_planner("plans", "--all", "--json")).stdout)
    assert "missed" not in rows[0]
