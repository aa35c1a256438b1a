"""A session's notes one by one (README "Review memory"): `done RUN#n --note ID` records that
note of that session only; the session is done when each of its notes has a review; plans and
week show it partly done as 1/3; readiness keeps the planned review of the notes not yet
reviewed; the next note is never refused. Real processes, real files."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

from conftest import env_with, run_planner, snapshot, succeeded, today
from plan_files import day, session, study_plan, write_plan

from planner.memory import log as review_log
from planner.memory import readiness
from planner.memory.marking import quiet_marks
from planner.memory.review_memory import ReviewMemory

RUN = "20261130T100000000000Z-notes1"
GOAL_DAY = 20


def exam_home(home: Path) -> None:
    """A goal of N1-N3, and a study plan for it: yesterday N1 and N2, today and in three
    days N1, N2 and N3."""
    (home / "config.json").write_text(json.dumps({"goals": [
        {"name": "Exam", "date": day(GOAL_DAY), "notes": ["N1", "N2", "N3"]}]}),
        encoding="utf-8")
    write_plan(home, RUN, study_plan(session(day(-1), 20, ("N1", "N2"), "19:00"),
                                     session(day(0), 30, ("N1", "N2", "N3"), "19:00"),
                                     session(day(3), 30, ("N1", "N2", "N3"), "19:00"),
                                     title="Exam"), goal="Exam")


def reviews_of(home: Path) -> list[tuple[str, str]]:
    lines = [json.loads(line) for line in review_log.log_path(home).read_bytes().splitlines()]
    return [(line["run_id"], line["note_id"]) for line in lines if line["kind"] == "review"]


def session_row(home: Path, number: int) -> dict:
    rows = json.loads(succeeded(run_planner("plans", "--all", "--json")).stdout)
    (row,) = [row for row in rows if row["session"] == number]
    return row


def row_line(text: str, date: str) -> str:
    (line,) = [line for line in text.splitlines() if line.startswith(date)]
    return line


def test_notes_are_recorded_one_by_one_and_the_session_is_done_with_the_last(
        home: Path) -> None:
    exam_home(home)
    first = run_planner("done", f"{RUN}#2", "--note", "N1")
    assert first.returncode == 0, first.stderr
    assert " ".join(first.stderr.split()) == (
        f"plans/{RUN}.json (session 2): 1 of 3 notes reviewed; planner done {RUN}#2 records "
        "the rest (N2, N3).")
    assert reviews_of(home) == [(f"{RUN}#2", "N1")]
    assert session_row(home, 2)["done"] is False
    assert " 1/3 " in row_line(succeeded(run_planner("plans")).stdout, day(0))
    assert "1/3" in succeeded(run_planner("week")).stdout
    # The next note of a session partly done is never refused.
    succeeded(run_planner("done", f"{RUN}#2", "--note", "N2", "--rating", "hard"))
    assert " 2/3 " in row_line(succeeded(run_planner("plans")).stdout, day(0))
    chinese = run_planner("done", f"{RUN}#3", "--note", "N2",
                          env={**os.environ, "LANGUAGE": "zh"})
    assert (f"plans/{RUN}.json（第 3 次）：3 条笔记中已复习 1 条；planner done {RUN}#3 会记录"
            "其余的（N1, N3）。") in chinese.stderr.splitlines()
    # Without --note: the rest, the notes not reviewed yet; nothing is left to say.
    last = run_planner("done", f"{RUN}#2")
    assert last.returncode == 0 and last.stderr == "", last.stderr
    assert reviews_of(home) == [(f"{RUN}#2", "N1"), (f"{RUN}#2", "N2"), (f"{RUN}#3", "N2"),
                                (f"{RUN}#2", "N3")]
    assert session_row(home, 2)["done"] is True
    assert " done " in row_line(succeeded(run_planner("plans")).stdout, day(0))
    refused = run_planner("done", f"{RUN}#2")
    assert refused.returncode == 2 and "has reviews" in refused.stderr


def test_done_with_no_session_goes_on_with_the_one_partly_done(home: Path) -> None:
    exam_home(home)
    succeeded(run_planner("done", f"{RUN}#1", "--note", "N2", "--date", day(-1)))
    # the earliest session not done: #1, its note N1 still to review
    succeeded(run_planner("done", RUN))
    assert reviews_of(home) == [(f"{RUN}#1", "N2"), (f"{RUN}#1", "N1")]
    succeeded(run_planner("done"))  # the latest open plan dated today or earlier: session 2, whole
    assert reviews_of(home)[2:] == [(f"{RUN}#2", "N1"), (f"{RUN}#2", "N2"), (f"{RUN}#2", "N3")]


def test_a_past_session_partly_done_is_partly_done_and_missed(home: Path) -> None:
    exam_home(home)
    succeeded(run_planner("done", f"{RUN}#1", "--note", "N2", "--date", day(-1)))
    assert " 1/2 missed " in row_line(succeeded(run_planner("plans", "--all")).stdout, day(-1))
    assert " 1/2，已错过 " in row_line(
        succeeded(run_planner("plans", "--all", env=env_with(LANGUAGE="zh"))).stdout, day(-1))
    row = session_row(home, 1)
    assert (row["done"], row["missed"]) == (False, True)
    assert json.loads(succeeded(run_planner("goals",
                                            "--json")).stdout)[0]["sessions"]["missed"] == 1


def test_week_says_what_n_of_m_means_in_both_languages(home: Path) -> None:
    exam_home(home)
    succeeded(run_planner("done", f"{RUN}#2", "--note", "N3"))
    english = " ".join(succeeded(run_planner("week")).stdout.split())
    assert "n/m: n of the session's m notes have their review so far." in english
    chinese = " ".join(succeeded(run_planner("week", env=env_with(LANGUAGE="zh"))).stdout.split())
    assert "n/m：这次学习的 m 条笔记中目前已复习 n 条。" in chinese
    # week --json as ever: the session is simply not done.
    week = json.loads(succeeded(run_planner("week", "--json")).stdout)
    (session,) = week["days"][0]["sessions"]
    assert session == {"run_id": f"{RUN}#2", "title": "Exam", "start": "19:00",
                       "minutes": 30, "done": False}


def test_a_note_the_session_does_not_hold_is_one_line_and_changes_nothing(
        home: Path) -> None:
    exam_home(home)
    succeeded(run_planner("done", f"{RUN}#1", "--note", "N1", "--date", day(-1)))
    before = snapshot(home)
    refused = run_planner("done", f"{RUN}#1", "--note", "N3")
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.strip().splitlines() == [
        f"Error: --note N3: not a note of plans/{RUN}.json (session 1) (its notes: N1, N2)"]
    assert snapshot(home) == before


def test_readiness_keeps_the_planned_review_of_the_notes_not_yet_reviewed(
        home: Path) -> None:
    exam_home(home)
    succeeded(run_planner("done", f"{RUN}#3", "--note", "N1"))  # three days early
    goal_day = _dt.date.fromisoformat(day(GOAL_DAY))
    saved = readiness.read_saved_sessions(home, today(), quiet_marks(home))
    ahead = readiness.sessions_ahead(saved, today(), goal_day)
    assert [held for _moment, held in ahead] == [("N1", "N2", "N3"), ("N2", "N3")]
    memory = ReviewMemory(home, None)
    states, parameters = readiness.memory_states(memory)
    recall = readiness.recall_on_day(states, parameters, ["N1", "N2", "N3"], ahead, goal_day,
                                     today())
    (goal,) = json.loads(succeeded(run_planner("goals", "--json")).stdout)
    assert goal["ready"]["with_plans"] == readiness.ready_count(recall, 0.9)
    assert goal["not_ready"] == [{"id": note, "recall": round(value, 3)}
                                 for note, value in readiness.least_ready(recall, 0.9)]
    assert goal["sessions"]["done"] == 0
