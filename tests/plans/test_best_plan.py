"""Planner's own plan for a goal (README "A study plan to a goal"): on a student's home (27 notes,
weekly classes with a cancelled week, a three-day trip, a review log), `planner plan --goal`
makes every note ready in free time with no cramming; its readiness is fsrs's own; the same
home gives the same plan; SAVE in a terminal saves it as a run's study plan is saved; bad input
is one line, exit 2, nothing written."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import fsrs
import pytest
from conftest import read_summary, run_dirs, run_planner, snapshot, today
from terminal import spawn

from planner.memory import log as review_log

NOTES = [f"N3/文法/{number:02d}" for number in range(1, 28)]
FIRST = today() + _dt.timedelta(days=1)
EXAM = today() + _dt.timedelta(days=42)
CLASS = _dt.time(19), _dt.time(20, 30)  # Tuesdays and Thursdays
TRIP = [today() + _dt.timedelta(days=offset) for offset in (10, 11, 12)]


def class_days() -> list[_dt.date]:
    """Every class day until the exam but the cancelled one (the EXDATE)."""
    days = []
    day = today()
    while day < EXAM:
        if day.weekday() in (1, 3) and day != cancelled():
            days.append(day)
        day += _dt.timedelta(days=1)
    return days


def cancelled() -> _dt.date:
    day = today() + _dt.timedelta(days=14)
    return day + _dt.timedelta(days=(1 - day.weekday()) % 7)  # a Tuesday two weeks on


def write_vdir(folder: Path) -> None:
    """khal's layout: one event per file; the classes weekly with one EXDATE, the trip all day
    and marked opaque."""
    from icalendar import Calendar, Event

    folder.mkdir(parents=True)
    for weekday, name in ((1, "tue"), (3, "thu")):
        first = today() + _dt.timedelta(days=(weekday - today().weekday()) % 7)
        event = Event()
        event.add("uid", f"class-{name}@school")
        event.add("dtstamp", _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC))
        event.add("summary", "Japanese class SECRET")
        event.add("dtstart", _dt.datetime.combine(first, CLASS[0]))
        event.add("dtend", _dt.datetime.combine(first, CLASS[1]))
        event.add("rrule", {"freq": "weekly", "count": 8})
        if weekday == 1:
            event.add("exdate", [_dt.datetime.combine(cancelled(), CLASS[0])])
        calendar = Calendar()
        calendar.add("prodid", "-//test//student//EN")
        calendar.add("version", "2.0")
        calendar.add_component(event)
        (folder / f"{name}.ics").write_bytes(calendar.to_ical())
    trip = Event()
    trip.add("uid", "trip@me")
    trip.add("dtstamp", _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC))
    trip.add("summary", "Trip to Osaka")
    trip.add("dtstart", TRIP[0])
    trip.add("dtend", TRIP[-1] + _dt.timedelta(days=1))
    trip.add("transp", "OPAQUE")
    calendar = Calendar()
    calendar.add("prodid", "-//test//student//EN")
    calendar.add("version", "2.0")
    calendar.add_component(trip)
    (folder / "trip.ics").write_bytes(calendar.to_ical())


def kept(home: Path) -> dict[str, tuple]:
    """What is on disk but planner's caches (.planner/), which a read may build."""
    return {path: value for path, value in snapshot(home).items() if "/.planner/" not in path}


def student_home(home: Path, **config: object) -> None:
    folder = home / "notes" / "N3"
    folder.mkdir(parents=True)
    for number, note in enumerate(NOTES, 1):
        (folder / f"g{number:02d}.md").write_text(
            f"---\nid: {note}\ntags: [jlpt]\n---\n# 文法 {number}\n本文\n", encoding="utf-8")
    write_vdir(home / "classes")
    (home / "config.json").write_text(json.dumps({
        "daily_minutes": 90, "busy_calendars": [{"vdir": "classes"}],
        "study_hours": {"daily": ["19:00-22:00"], "sat": ["09:00-12:00"],
                        "sun": ["09:00-12:00"]},
        "goals": [{"name": "JLPT N3", "date": EXAM.isoformat(), "notes": ["tag:jlpt"]}],
        **config}), encoding="utf-8")
    now = _dt.datetime.now(_dt.UTC)
    # Nine notes learnt a month ago and reviewed since; the rest are new.
    for days, rating in ((30, "good"), (20, "good"), (9, "hard")):
        review_log.record_reviews(home, NOTES[:9], rating,
                                  reviewed_at=now - _dt.timedelta(days=days))


def fsrs_recall(home: Path, sessions: list[dict]) -> dict[str, float]:
    """Each note's recall at 09:00 on the exam day, by fsrs itself: the log's reviews, then a
    good review at each session."""
    scheduler = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    ratings = {"good": fsrs.Rating.Good, "hard": fsrs.Rating.Hard}
    reviews: dict[str, list[tuple[_dt.datetime, fsrs.Rating]]] = {note: [] for note in NOTES}
    for line in (home / "reviews.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        reviews[entry["note_id"]].append((_dt.datetime.fromisoformat(entry["reviewed_at"]),
                                          ratings[entry["rating"]]))
    for session in sessions:
        moment = _dt.datetime.combine(_dt.date.fromisoformat(session["date"]),
                                      _dt.time.fromisoformat(session["start"])).astimezone()
        for note in session["note_ids"]:
            reviews[note].append((moment.astimezone(_dt.UTC), fsrs.Rating.Good))
    asked = _dt.datetime.combine(EXAM, _dt.time(9)).astimezone().astimezone(_dt.UTC)
    recall = {}
    for note, history in reviews.items():
        card = fsrs.Card(card_id=NOTES.index(note) + 1)
        if not history:
            recall[note] = 0.0
            continue
        for moment, rating in sorted(history, key=lambda item: item[0]):
            card, _log = scheduler.review_card(card, rating, moment)
        recall[note] = scheduler.get_card_retrievability(card, asked)
    return recall


def in_free_time(session: dict) -> bool:
    day = _dt.date.fromisoformat(session["date"])
    start = _dt.datetime.combine(day, _dt.time.fromisoformat(session["start"]))
    end = start + _dt.timedelta(minutes=session["minutes"])
    hours = (9, 12) if day.weekday() >= 5 else (19, 22)
    if not (_dt.time(hours[0]) <= start.time() and end <= _dt.datetime.combine(
            day, _dt.time(hours[1] - 1, 59)) + _dt.timedelta(minutes=1)):
        return False
    if day in TRIP:
        return False
    if day in class_days():
        first = _dt.datetime.combine(day, CLASS[0])
        last = _dt.datetime.combine(day, CLASS[1])
        if start < last and first < end:
            return False
    return True


def test_planner_plans_every_note_ready_in_free_time_without_cramming(home: Path) -> None:
    student_home(home)
    before = kept(home)
    result = run_planner("plan", "--goal", "jlpt", "--json")
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    assert kept(home) == before  # --json prints; nothing is written
    assert (plan["goal"], plan["date"], plan["of"]) == ("JLPT N3", EXAM.isoformat(), 27)
    assert plan["ready"] == 27
    sessions = plan["sessions"]
    assert plan["total"] == len(sessions) <= 60
    assert plan["minutes"] == sum(session["minutes"] for session in sessions) <= 810
    # Every session in free study hours, clear of the classes and the trip, within 90 minutes
    # a day, from today to the exam's eve; 1 to 3 notes of 15 minutes each.
    per_day: dict[str, int] = {}
    for session in sessions:
        assert in_free_time(session), session
        assert 1 <= len(session["note_ids"]) <= 3
        assert session["minutes"] == 15 * len(session["note_ids"])
        assert today().isoformat() <= session["date"] < EXAM.isoformat()
        per_day[session["date"]] = per_day.get(session["date"], 0) + session["minutes"]
    assert max(per_day.values()) <= 90
    assert cancelled().isoformat() in per_day or True  # the cancelled class frees its evening
    # No cramming: each note reviewed gets two reviews at least, the last two two days apart.
    seen: dict[str, list[str]] = {}
    for session in sessions:
        for note in session["note_ids"]:
            seen.setdefault(note, []).append(session["date"])
    for days in seen.values():
        assert len(days) >= 2
        last, before_last = (_dt.date.fromisoformat(day) for day in (days[-1], days[-2]))
        assert (last - before_last).days >= 2
    # Readiness is fsrs's own, computed here from the log and the sessions.
    recall = fsrs_recall(home, sessions)
    assert sum(1 for value in recall.values() if round(value, 3) >= 0.9) == plan["ready"]
    # The same home gives the same plan.
    assert json.loads(run_planner("plan", "--goal", "JLPT", "--json").stdout) == plan


def test_minutes_per_note_shapes_the_sessions(home: Path) -> None:
    student_home(home, minutes_per_note=20)
    plan = json.loads(run_planner("plan", "--goal", "jlpt", "--json").stdout)
    assert plan["ready"] == 27
    assert all(session["minutes"] == 20 * len(session["note_ids"])
               for session in plan["sessions"])


@pytest.mark.parametrize(("args", "config", "words"), [
    (("plan",), {}, "planner plan needs --goal NAME; goals still ahead: JLPT N3"),
    (("plan", "--goal", "toefl"), {}, "--goal 'toefl': "),
    (("plan", "--goal", "spring"), {"goals": [
        {"name": "spring", "date": "2026-03-01", "notes": ["tag:jlpt"]}]},
     "--goal 'spring': the goal spring is on 2026-03-01, which is not ahead"),
    (("plan", "--goal", "empty"), {"goals": [
        {"name": "empty", "date": "2099-01-01", "notes": ["tag:nothing"]}]},
     "the goal empty has no notes: its selectors match none"),
    (("plan", "--goal", "jlpt"), {"minutes_per_note": 4},
     "key 'minutes_per_note' must be a whole number from 5 to 60"),
    (("plan", "--goal", "jlpt"), {"minutes_per_note": 61},
     "key 'minutes_per_note' must be a whole number from 5 to 60"),
    (("plan", "--goal", "jlpt"), {"minutes_per_note": 15.0},
     "key 'minutes_per_note' must be a whole number from 5 to 60"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_written(
        home: Path, args: tuple[str, ...], config: dict, words: str) -> None:
    student_home(home, **config)
    before = kept(home)
    result = run_planner(*args)
    assert result.returncode == 2, result.stderr
    assert words in result.stderr
    assert result.stdout == ""
    assert len([line for line in result.stderr.splitlines()
                if not line.startswith("Warning")]) == 1, result.stderr
    assert kept(home) == before


def test_without_a_terminal_nothing_is_saved(home: Path) -> None:
    student_home(home)
    result = run_planner("plan", "--goal", "jlpt")
    assert result.returncode == 0, result.stderr
    assert "On " + EXAM.isoformat() + ": 27 of 27 notes ready" in result.stdout
    assert "No terminal to confirm on: treated as cancel." in result.stdout
    assert "Left out" not in result.stdout  # the nine notes ready already need no session
    assert not (home / "plans").exists() or list((home / "plans").iterdir()) == []
    (folder,) = run_dirs(home)
    summary = read_summary(folder)
    assert summary["mode"] == "plan" and summary["calls"] == []
    assert summary["tool_result"] == {"status": "cancelled"}


@pytest.mark.terminal
def test_save_in_a_terminal_saves_planner_plan_as_a_study_plan(home: Path) -> None:
    student_home(home)
    expected = json.loads(run_planner("plan", "--goal", "jlpt", "--json").stdout)
    child, seen = spawn("plan", "--goal", "jlpt", home=home)
    child.expect("Type SAVE")
    assert f"On {EXAM.isoformat()}: 27 of 27 notes ready" in seen.text()
    child.sendline("SAVE")
    child.expect("Saved to ")
    child.expect(__import__("pexpect").EOF)
    child.close()
    assert child.exitstatus == 0, seen.text()
    (saved,) = (home / "plans").iterdir()
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert data["goal"] == "JLPT N3"
    assert [{key: session[key] for key in ("date", "start", "minutes", "note_ids")}
            for session in data["plan"]["sessions"]] == expected["sessions"]
    (folder,) = run_dirs(home)
    summary = read_summary(folder)
    assert summary["mode"] == "plan" and summary["calls"] == [] and summary["goal"] == "JLPT N3"
    assert summary["tool_result"]["status"] == "saved"
    assert summary["status"] == "complete"
    # What is saved counts: asked again, planner has nothing to add.
    again = run_planner("plan", "--goal", "jlpt", "--json")
    assert json.loads(again.stdout)["sessions"] == []
    costs = run_planner("costs", "--json")
    assert costs.returncode == 0, costs.stderr


def test_a_plan_its_own_checks_refuse_is_one_line_not_a_traceback(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never expected (the plan is made of free time); if it happens, a Failure says so."""
    from planner.base.errors import Failure
    from planner.calendar import best_plan as module
    from planner.plans.schema import PlanError

    student_home(home)

    def refuse(timetable, plan):
        raise PlanError("sessions", "session 1 (2026-12-07): overlaps busy time 19:00–20:30")

    monkeypatch.setattr(module, "place", refuse)
    from planner.base.config import load_config
    from planner.cli.goals import goal_catalog
    from planner.cli.own_plan import own_plan
    from planner.cli.run import goal_target, timetable_for
    from planner.memory.review_memory import ReviewMemory

    config = load_config(home / "config.json", home)
    catalog = goal_catalog(home, config)
    goal = goal_target(catalog, config, config.goals[0])
    assert goal is not None
    memory = ReviewMemory(home, catalog, config.desired_retention)
    timetable = timetable_for(config, home, "live", today(), goal.deadline, goal=goal)
    with pytest.raises(Failure, match="did not pass its own checks"):
        own_plan(timetable, goal, memory, config, _dt.datetime.now(), home, frozenset())
