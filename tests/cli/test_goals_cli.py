"""`planner goals [--json]`: each goal's day, notes, the sessions saved for it and its
readiness, as memory.readiness predicts it; 80 columns in English and Chinese."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

from conftest import run_planner, today
from plan_files import session, study_plan, write_plan
from rich.cells import cell_len

from planner.memory import log as review_log
from planner.memory import readiness
from planner.memory.marking import quiet_marks
from planner.memory.review_memory import ReviewMemory
from planner.notes.catalog import Note

RUN = "20261201T100000Z-goal01"


def setup_home(home: Path, ahead_days: int = 30) -> _dt.date:
    """Fourteen notes tagged jlpt (N1-N14), two goals (one past), a study plan saved for the
    first, reviews of N1 and N2; the goal's day."""
    day = today() + _dt.timedelta(days=ahead_days)
    notes = home / "notes"
    notes.mkdir()
    for number in range(1, 15):
        (notes / f"n{number}.md").write_text(
            f"---\nid: N{number}\ntags: [jlpt]\n---\n# Word list {number}\nbody\n",
            encoding="utf-8")
    (home / "config.json").write_text(json.dumps({"goals": [
        {"name": "JLPT N2", "date": day.isoformat(), "notes": ["tag:jlpt", "N99"],
         "retention": 0.8},
        {"name": "Spring quiz", "date": "2026-01-10", "notes": ["N1"]}]}), encoding="utf-8")
    first, second = (today() + _dt.timedelta(days=n) for n in (2, 5))
    write_plan(home, RUN, study_plan(
        session("2026-11-20", 20, ("N1",), "19:00"),
        session(first.isoformat(), 30, ("N1", "N2"), "19:00"),
        session(second.isoformat(), 25, ("N3",), "19:00"),
        session(second.isoformat(), 15, ("N4",), "20:00"), title="To the exam"),
        notes=[Note(f"N{n}", f"Word list {n}", "") for n in range(1, 5)], goal="JLPT N2")
    moment = _dt.datetime.now(_dt.UTC) - _dt.timedelta(days=3)
    review_log.record_reviews(home, ["N1"], "good", run_id=f"{RUN}#1", reviewed_at=moment,
                              minutes=20)
    review_log.record_reviews(home, ["N2"], "easy", reviewed_at=moment)
    review_log.append(home, [review_log.Drop(f"{RUN}#4", moment)])
    return day


def test_goals_json_is_the_readiness_memory_predicts(home: Path) -> None:
    day = setup_home(home)
    result = run_planner("goals", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count('goal JLPT N2: "N99" matches no note') == 1
    goals = json.loads(result.stdout)
    assert [goal["name"] for goal in goals] == ["JLPT N2", "Spring quiz"]
    first, past = goals
    assert set(first) == {"name", "date", "past", "notes", "sessions", "ready", "not_ready",
                          "best"}
    assert (first["date"], first["past"], first["notes"]) == (day.isoformat(), False, 14)
    # Dropped sessions do not count; done ones count in both.
    assert first["sessions"] == {"planned": 3, "done": 1, "minutes_planned": 75,
                                 "minutes_done": 20, "missed": 0}
    memory = ReviewMemory(home, None)
    states, parameters = readiness.memory_states(memory)
    ids = [f"N{n}" for n in range(1, 15)]
    saved = readiness.sessions_ahead(readiness.read_saved_sessions(home, today(),
                                                                   quiet_marks(home)),
                                     today(), day)
    assert len(saved) == 2
    with_plans = readiness.recall_on_day(states, parameters, ids, saved, day, today())
    without = readiness.recall_on_day(states, parameters, ids, [], day, today())
    assert first["ready"] == {"with_plans": readiness.ready_count(with_plans, 0.8),
                              "without_plans": readiness.ready_count(without, 0.8)}
    assert first["ready"]["with_plans"] > first["ready"]["without_plans"]
    assert first["not_ready"] == [{"id": note, "recall": round(value, 3)} for note, value
                                  in readiness.least_ready(with_plans, 0.8)]
    recalls = [item["recall"] for item in first["not_ready"]]
    assert recalls == sorted(recalls) and len(recalls) >= 11
    assert past == {"name": "Spring quiz", "date": "2026-01-10", "past": True, "notes": 1,
                    "sessions": {"planned": 0, "done": 0, "minutes_planned": 0,
                                 "minutes_done": 0, "missed": 0}, "ready": None,
                    "not_ready": None, "best": None}
    # best: what planner plan --goal would reach on top of the saved sessions, and its minutes.
    own = json.loads(run_planner("plan", "--goal", "JLPT N2", "--json").stdout)
    assert first["best"] == {"ready": own["ready"], "minutes": own["minutes"]}
    assert first["best"]["ready"] > first["ready"]["with_plans"]


def test_goals_screen_fits_80_columns_in_english_and_chinese(home: Path) -> None:
    setup_home(home)
    for language in ("en", "zh"):
        env = {**os.environ, "COLUMNS": "80", "LANGUAGE": language}
        result = run_planner("goals", env=env)
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert all(cell_len(line) <= 80 for line in lines), lines
        text = result.stdout
        if language == "en":
            assert "JLPT N2" in lines[0] and "in 30 days" in lines[0]
            assert "Notes: 14" in text
            assert "Sessions: 3 planned (75 min), 1 done (20 min)" in text
            assert "Ready on the day (80% or more):" in text
            assert " and 2 more" in text  # at most 10 notes named
            assert "Spring quiz  2026-01-10" in text and "past" in text
        else:
            assert "30 天后" in lines[0] and "笔记：14" in text
            assert "已过" in text
            assert "Notes:" not in text and "Sessions:" not in text


def test_no_goals_is_one_line_and_an_empty_list(home: Path) -> None:
    result = run_planner("goals", "--json")
    assert (result.returncode, json.loads(result.stdout)) == (0, [])
    result = run_planner("goals")
    assert result.returncode == 0 and "No goals yet" in result.stdout


def test_a_goal_of_too_many_notes_is_exit_2_in_one_line(home: Path) -> None:
    notes = home / "notes"
    notes.mkdir()
    for number in range(501):
        (notes / f"n{number}.md").write_text(f"body #exam {number}\n", encoding="utf-8")
    (home / "config.json").write_text(json.dumps({"goals": [
        {"name": "Exam", "date": "2099-01-01", "notes": ["tag:exam"]}]}), encoding="utf-8")
    result = run_planner("goals", "--json")
    assert result.returncode == 2 and json.loads(result.stdout)["exit_code"] == 2
    assert "goal Exam: its notes selectors name 501 notes; a goal holds at most 500" \
        in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_warning_cuts_the_config_value_it_repeats(home: Path) -> None:
    (home / "notes").mkdir()
    (home / "notes" / "n1.md").write_text("---\nid: N1\n---\n# One\n", encoding="utf-8")
    long_tag, spaced = "tag:" + "x" * 476, "folder:" + "a b " * 120
    (home / "config.json").write_text(json.dumps({"goals": [
        {"name": "JLPT", "date": "2099-07-04", "notes": ["N1", long_tag, spaced]}]}),
        encoding="utf-8")
    result = run_planner("goals")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("Warning:")]
    assert len(warnings) == 2, result.stderr
    for line in warnings:
        # The selector is cut to 120 characters, start and end kept, as in an error line.
        assert len(line) <= len('Warning: goal JLPT: "" matches no note') + 120, line
        assert "…" in line and line.endswith('" matches no note')
    assert '"tag:xxx' in warnings[0] and 'xxx" matches' in warnings[0]
