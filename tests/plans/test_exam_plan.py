"""The student of README "A study plan to a goal", end to end: fifteen notes, a class timetable
in a khal-style vdir, a goal five weeks ahead. One conversation (the real SDK against the local
stub model) ends in one SAVE of a study plan whose every session sits in free study hours before
the exam, the screen having said how many of the fifteen notes will be ready with and without
it; then a session moved later is checked, recorded and moved in the calendar export."""

from __future__ import annotations

import datetime as _dt
import json
import re
from pathlib import Path

import pexpect
import pytest
from calendar_plans import write_class_vdir
from conftest import run_planner
from screens import ANSI, ENGLISH, KEYED
from stub_server import Reply, StubServer, text_reply, tool_call, tool_call_reply
from study_week import MONDAY, day
from terminal import spawn

from planner.memory import log as review_log

pytestmark = [pytest.mark.slow, pytest.mark.terminal]
EXAM = MONDAY + _dt.timedelta(days=32)  # a Saturday, five weeks ahead
CLASS_DAY = MONDAY + _dt.timedelta(days=1)  # Tuesdays 19:00-20:00, weekly


def student_home(home: Path, url: str) -> None:
    folder = home / "notes" / "N2"
    folder.mkdir(parents=True)
    for number in range(1, 16):
        (folder / f"n{number}.md").write_text(
            f"---\nid: N{number}\ntags: [jlpt]\n---\n# 文法 {number}\n本文\n", encoding="utf-8")
    write_class_vdir(home / "classes", CLASS_DAY)
    (home / "config.json").write_text(json.dumps({
        "model": "stub-model", "base_url": url, "timeout_seconds": 5, "max_calls": 5,
        "max_repairs": 1, "daily_minutes": 40, "busy_calendars": [{"vdir": "classes"}],
        "study_hours": {"daily": ["19:00-22:00"], "sat": ["09:00-12:00"],
                        "sun": ["09:00-12:00"]},
        "goals": [{"name": "JLPT N2", "date": EXAM.isoformat(), "notes": ["folder:N2/"]}]}),
        encoding="utf-8")
    # Three notes reviewed well a few days ago: already strong before any plan.
    review_log.record_reviews(home, ["N1", "N2", "N3"], "easy",
                              reviewed_at=_dt.datetime.now(_dt.UTC) - _dt.timedelta(days=1))


def study_plan() -> dict:
    """Twelve sessions over the five weeks, every note held; Tuesdays after the class."""
    sessions = []
    notes = [f"N{number}" for number in range(4, 16)]
    for index in range(12):
        offset = index * 21 // 12 + (index // 4) * 4
        start = "20:00" if (MONDAY + _dt.timedelta(days=offset)).weekday() == 1 else None
        session = {"date": day(offset), "minutes": 40,
                   "note_ids": [notes[index], f"N{index % 3 + 1}"]}
        if start:
            session["start"] = start
        sessions.append(session)
    return {"title": "JLPT N2 准备", "sessions": sessions}


def in_study_hours(moment: _dt.datetime, minutes: int) -> bool:
    end = moment + _dt.timedelta(minutes=minutes)
    if moment.weekday() >= 5:
        return _dt.time(9) <= moment.time() and end.time() <= _dt.time(12)
    return _dt.time(19) <= moment.time() and end.time() <= _dt.time(22)


def test_one_conversation_plans_the_exam_and_a_moved_session_follows(
        home: Path, server: StubServer) -> None:
    student_home(home, server.url)
    server.add(
        Reply(body=tool_call_reply(calls=[tool_call({"offset": 0, "limit": 20},
                                                    name="goal_notes")])),
        Reply(body=tool_call_reply(study_plan(), name="save_study_plan", call_id="call_0002")),
        Reply(body=text_reply("计划已保存。")))
    child, seen = spawn("-r", "get me ready for the JLPT, 40 minutes a day, weekends "
                        "in the morning", "--goal", "jlpt", home=home, **ENGLISH, **KEYED)
    child.expect(r"Type SAVE[^\n]*: $")
    child.sendline("SAVE")
    child.expect(pexpect.EOF)
    child.close()
    shown = " ".join(ANSI.sub("", "".join(seen)).replace("│", " ").split())
    assert child.exitstatus == 0, shown
    # The screen said how many of the fifteen notes will be ready, with the plan and without.
    found = re.search(rf"On {EXAM.isoformat()}: (\d+) of 15 notes ready \(90% or more\); "
                      r"without this plan: (\d+)", shown)
    assert found is not None, shown
    assert int(found.group(1)) > int(found.group(2))
    lookup = json.loads(server.requests[1].body["messages"][-1]["content"])
    assert lookup["total"] == 15 and lookup["goal"] == "JLPT N2"
    # One plan, every session in free study hours before the exam.
    (path,) = (home / "plans").iterdir()
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["version"] == 5 and saved["goal"] == "JLPT N2"
    # The file records the readiness the person said SAVE to, and planner's own plan's.
    best = json.loads(server.requests[-1].body["messages"][-1]["content"])["readiness"]["best"]
    assert saved["readiness"] == {"ready": int(found.group(1)), "of": 15, "best": best}
    assert best >= int(found.group(1))
    for session in saved["plan"]["sessions"]:
        moment = _dt.datetime.fromisoformat(f"{session['date']}T{session['start']}")
        assert moment.date() < EXAM and in_study_hours(moment, session["minutes"])
        if moment.weekday() == 1:  # the class, 19:00-20:00 on Tuesdays
            assert moment.time() >= _dt.time(20)
    run = path.stem
    # A session moved later: checked (the class is busy), recorded, moved in the calendar.
    later = (MONDAY + _dt.timedelta(days=29)).isoformat()  # a Wednesday before the exam
    refused = run_planner("move", f"{run}#5", "--date", day(8), "--start", "19:15")
    assert refused.returncode == 2 and "overlaps busy time 19:00–20:00" in refused.stderr
    moved = run_planner("move", f"{run}#5", "--date", later, "--start", "20:30")
    assert moved.returncode == 0, moved.stderr
    log = (home / "reviews.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(log[-1])["kind"] == "move"
    exported = run_planner("export", "--ics", "--output", str(home / "exam.ics"))
    assert exported.returncode == 0, exported.stderr
    calendar = (home / "exam.ics").read_text(encoding="utf-8")
    assert later.replace("-", "") + "T203000" in calendar
    assert f"UID:{run}-5@planner" in calendar
    past_exam = run_planner("move", f"{run}#5", "--date", EXAM.isoformat())
    assert past_exam.returncode == 2 and "is after the deadline" in past_exam.stderr
