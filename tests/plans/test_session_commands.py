"""Each session of a study plan on its own (README "A study plan to a goal"): planner move
RUN#n checked as a proposal and recorded in the log, drop and done of one session, and what
plans, plans --json and the calendar export show afterwards. Real processes, real files."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

import pytest
from calendar_plans import write_class_vdir
from conftest import run_planner, snapshot
from plan_files import session, study_plan, write_plan
from run_records import demo_runs
from study_week import MONDAY, day

RUN = "20261130T100000000000Z-aaaaaa"


def configure(home: Path, **values: object) -> None:
    data = {"study_hours": {"daily": ["19:00-22:00"]}, "busy_calendars": [{"vdir": "classes"}],
            **values}
    (home / "config.json").write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture
def week(home: Path) -> Path:
    write_class_vdir(home / "classes", MONDAY + _dt.timedelta(days=2))  # Wednesdays 19-20
    configure(home, daily_minutes=60)
    write_plan(home, RUN, study_plan(session(day(0), 30, ("N1",), "19:00"),
                                     session(day(1), 30, ("N2", "N3"), "19:00"),
                                     session(day(3), 40, ("N1",), "19:00")))
    return home


def listing(home: Path) -> list[dict]:
    done = run_planner("plans", "--json", "--all")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_session_moves_to_free_time_and_every_view_shows_it_there(week: Path) -> None:
    plan_file = (week / "plans" / f"{RUN}.json").read_bytes()
    done = run_planner("move", f"{RUN}#2", "--date", day(4), "--start", "20:00")
    assert done.returncode == 0, done.stderr
    assert f"Moved plans/{RUN}.json (session 2) to {day(4)} 20:00" in done.stdout
    # The plan file is never rewritten; the log holds the move.
    assert (week / "plans" / f"{RUN}.json").read_bytes() == plan_file
    (line,) = (week / "reviews.jsonl").read_text().splitlines()
    move = json.loads(line)
    assert move == {"version": 1, "kind": "move", "run_id": f"{RUN}#2", "date": day(4),
                    "start": "20:00", "moved_at": move["moved_at"]}
    rows = listing(week)
    moved = next(row for row in rows if row["session"] == 2)
    assert (moved["date"], moved["start"]) == (day(4), "20:00")
    assert "moved" not in moved  # plans --json: simply the new date and start
    shown = run_planner("plans")
    assert "moved" in shown.stdout and "20:00" in shown.stdout
    # The calendar export places the event at its new time.
    exported = run_planner("export", "--ics", "--output", str(week / "out.ics"))
    assert exported.returncode == 0, exported.stderr
    text = (week / "out.ics").read_text()
    assert "DTSTART;TZID=" in text or "DTSTART:" in text
    assert day(4).replace("-", "") + "T200000" in text
    assert f"UID:{RUN}-2@planner" in text
    # The week marks it moved (↷, and a line saying what ↷ is); its JSON is as plans --json.
    shown = run_planner("week", "--start", day(0), env={**os.environ, "COLUMNS": "120"})
    assert shown.returncode == 0, shown.stderr
    assert "↷20:00" in shown.stdout and "↷: a session moved with planner move." in shown.stdout
    assert shown.stdout.count("↷") == 2 and "●19:00" in shown.stdout
    found = json.loads(run_planner("week", "--start", day(0), "--json").stdout)
    sessions = [session for each in found["days"] for session in each["sessions"]]
    assert [session["start"] for session in sessions if session["run_id"] == f"{RUN}#2"] == \
        ["20:00"] and all("moved" not in session for session in sessions)
    # The latest move wins.
    again = run_planner("move", f"{RUN}#2", "--date", day(4), "--start", "21:00")
    assert again.returncode == 0, again.stderr
    assert next(row for row in listing(week) if row["session"] == 2)["start"] == "21:00"


@pytest.mark.parametrize(("where", "words"), [
    (("--date", "{wed}", "--start", "19:30"), "overlaps busy time 19:00–20:00 on {wed}"),
    (("--date", "{mon}", "--start", "18:00"), "starts at 18:00 on {mon}, outside the study "
                                              "hours"),
    (("--date", "{mon}", "--start", "19:15"), "overlaps the saved plan at 19:00–19:30"),
    (("--date", "{thu}", "--start", "20:00"), "would make {thu} hold 70 planned minutes; "
                                              "daily_minutes is 60"),
    (("--date", "2020-01-06",), "2020-01-06 is in the past"),
])
def test_a_move_into_taken_time_is_one_line_exit_2_and_nothing_changes(
        week: Path, where: tuple[str, ...], words: str) -> None:
    names = {"wed": day(2), "mon": day(0), "thu": day(3)}
    before = snapshot(week / "plans")
    done = run_planner("move", f"{RUN}#2", *(part.format(**names) for part in where))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert words.format(**names) in done.stderr and "nothing was changed" in done.stderr
    # The busy cache (.planner/) may be written; the plans and the log are as they were.
    assert snapshot(week / "plans") == before and not (week / "reviews.jsonl").exists()


def test_a_move_past_the_goal_is_refused(week: Path) -> None:
    exam = MONDAY + _dt.timedelta(days=10)
    configure(week, daily_minutes=60, goals=[{"name": "JLPT", "date": exam.isoformat(),
                                              "notes": ["N1"]}])
    write_plan(week, "20261130T110000000000Z-bbbbbb",
               study_plan(session(day(5), 30, ("N1",), "19:00")), goal="JLPT")
    done = run_planner("move", "20261130T110000000000Z-bbbbbb#1", "--date", day(11))
    assert done.returncode == 2, done.stdout
    assert f"is after the deadline {day(9)}" in done.stderr


@pytest.mark.parametrize(("ref", "words"), [
    (f"{RUN}#9", f"plans/{RUN}.json has no session 9 (it has 3)"),
    (f"{RUN}#0", "the session number after # must be 1 to 60"),
    (f"{RUN}#x", "the session number after # must be 1 to 60"),
    (RUN, f"has 3 sessions: name one as {RUN}#n"),
])
def test_a_wrong_session_is_named(week: Path, ref: str, words: str) -> None:
    done = run_planner("move", ref, "--date", day(4))
    assert done.returncode == 2 and words in done.stderr


@pytest.mark.parametrize("command", ["move", "done", "drop"])
@pytest.mark.parametrize(("ref", "words"), [
    ("#1", "#1: name a run before # (as for planner show), then the session number"),
    ("", "no run ''"),
    (f"{RUN}#{'1' * 5000}", "the session number after # must be 1 to 60"),
    (f"{RUN}#0061", "the session number after # must be 1 to 60"),
], ids=["no-run", "empty", "5000-digits", "4-digits"])
def test_a_session_reference_is_exact(week: Path, command: str, ref: str, words: str) -> None:
    before = snapshot(week)
    extra = ("--date", day(4)) if command == "move" else ()
    done = run_planner(command, ref, *extra)
    assert done.returncode == 2, done.stdout
    assert done.stderr.count("\n") == 1 and words in done.stderr, done.stderr
    assert "digits" not in done.stderr and len(done.stderr) < 300
    assert snapshot(week) == before


def test_a_plain_export_after_a_move_is_a_new_revision(week: Path) -> None:
    def exported(name: str) -> dict[str, str]:
        done = run_planner("export", "--ics", "--output", str(week / name))
        assert done.returncode == 0, done.stderr
        events = (week / name).read_bytes().decode().split("BEGIN:VEVENT")[1:]
        return {event.split("UID:")[1].split("\r\n")[0]: event for event in events}

    before = exported("before.ics")
    assert run_planner("move", f"{RUN}#2", "--date", day(4), "--start", "20:00").returncode == 0
    after = exported("after.ics")
    moved = after[f"{RUN}-2@planner"]
    assert "SEQUENCE:1\r\n" in moved and "T200000" in moved and "LAST-MODIFIED:" in moved
    assert "SEQUENCE:0\r\n" in before[f"{RUN}-2@planner"]
    assert "SEQUENCE:0\r\n" in after[f"{RUN}-1@planner"]  # the others as they were
    assert run_planner("move", f"{RUN}#2", "--date", day(4), "--start", "21:00").returncode == 0
    assert "SEQUENCE:2\r\n" in exported("again.ics")[f"{RUN}-2@planner"]


def test_one_session_is_dropped_and_done_on_its_own(week: Path) -> None:
    dropped = run_planner("drop", f"{RUN}#3")
    assert dropped.returncode == 0, dropped.stderr
    rows = listing(week)
    assert [row["dropped"] for row in rows] == [False, False, True]
    recorded = run_planner("done", f"{RUN}#2", "--rating", "good", "--json")
    assert recorded.returncode == 0, recorded.stderr
    reviews = json.loads(recorded.stdout)
    assert [review["note_id"] for review in reviews] == ["N2", "N3"]
    assert {review["run_id"] for review in reviews} == {f"{RUN}#2"}
    rows = listing(week)
    assert [row["done"] for row in rows] == [False, True, False]
    # A done or dropped session is not moved.
    assert run_planner("move", f"{RUN}#2", "--date", day(4)).returncode == 2
    assert run_planner("move", f"{RUN}#3", "--date", day(4)).returncode == 2
    back = run_planner("drop", "--undo", f"{RUN}#3")
    assert back.returncode == 0, back.stderr
    assert [row["dropped"] for row in listing(week)] == [False, False, False]


def test_last_and_minus_n_are_the_newest_runs_that_saved_a_plan(week: Path) -> None:
    # After the run that saved the plan: a demo plan, and a run that saved none (no terminal).
    write_plan(week, "20261130T110000000000Z-dddddd", study_plan(session(day(0), 30, ("N1",))),
               folder="demo-plans", simulated=True)
    demo_runs(week, 1)
    (newest,) = os.listdir(week / "tool-records")
    moved = run_planner("move", "-1#3", "--date", day(4))
    assert moved.returncode == 0, moved.stderr
    assert f"Moved plans/{RUN}.json (session 3) to {day(4)} 19:00" in moved.stdout
    assert run_planner("done", "last#1", "--rating", "hard").returncode == 0
    assert run_planner("drop", "-1#2").returncode == 0
    lines = [json.loads(line) for line in (week / "reviews.jsonl").read_text().splitlines()]
    assert [(line["kind"], line["run_id"]) for line in lines] == [
        ("move", f"{RUN}#3"), ("review", f"{RUN}#1"), ("drop", f"{RUN}#2")]
    before = snapshot(week)
    older = run_planner("done", "-2")
    assert (older.returncode, older.stderr) == (2, "Error: only 1 run(s) saved a plan in "
                                                   "plans/; -1 is the oldest of them\n")
    assert snapshot(week) == before
    # show keeps the newest run: the one that saved nothing.
    shown = run_planner("show", "last")
    assert shown.returncode == 0, shown.stderr
    assert newest in shown.stdout and RUN not in shown.stdout


def test_no_saved_plan_is_one_line(home: Path) -> None:
    demo_runs(home, 1)
    done = run_planner("done", "last")
    assert (done.returncode, done.stderr) == (2, "Error: no plan saved in plans/ yet; last "
                                                 "names the newest run that saved one\n")
    assert not (home / "reviews.jsonl").exists()


def test_a_review_needs_no_plan(home: Path) -> None:
    configure(home)
    done = run_planner("done", "--note", "N1", "--note", "N2", "--rating", "hard")
    assert done.returncode == 0, done.stderr
    assert "Recorded hard for notes without a plan: N1, N2" in done.stdout
    lines = [json.loads(line) for line in (home / "reviews.jsonl").read_text().splitlines()]
    assert [(line["note_id"], line["run_id"]) for line in lines] == [("N1", None), ("N2", None)]
    missing = run_planner("done", "--note", "N99")
    assert missing.returncode == 2
    assert missing.stderr == "Error: --note N99: no such note (planner notes lists them)\n"
    assert len((home / "reviews.jsonl").read_text().splitlines()) == 2


def test_forecast_counts_the_minutes_planned_each_day(week: Path) -> None:
    run_planner("drop", f"{RUN}#3")
    run_planner("move", f"{RUN}#2", "--date", day(4), "--start", "20:00")
    done = run_planner("forecast", "--days", "14", "--json")
    assert done.returncode == 0, done.stderr
    planned = {row["date"]: row["planned_minutes"] for row in json.loads(done.stdout)["days"]}
    assert planned[day(0)] == 30 and planned[day(4)] == 30  # session 2, moved
    assert planned[day(1)] == 0 and planned[day(3)] == 0  # moved away; dropped
    chart = run_planner("forecast", "--days", "14")
    assert "30 min planned" in chart.stdout


@pytest.mark.slow
def test_khal_reads_each_session_and_the_moved_one_at_its_new_time(week: Path,
                                                                   tmp_path: Path) -> None:
    from calendar_plans import Khal

    assert run_planner("move", f"{RUN}#3", "--date", day(4), "--start", "21:00").returncode == 0
    out = tmp_path / "plan.ics"
    exported = run_planner("export", "--ics", "--output", str(out), env={**os.environ,
                                                                         "TZ": "UTC"})
    assert exported.returncode == 0, exported.stderr
    agenda = Khal(tmp_path / "khal", zone="UTC")
    agenda.import_file(out)
    events = {event["uid"]: event for event in agenda.events(day(-1), day(10))}
    assert sorted(events) == [f"{RUN}-{number}@planner" for number in (1, 2, 3)]
    assert (events[f"{RUN}-2@planner"]["start-date"],
            events[f"{RUN}-2@planner"]["start-time"]) == (day(1), "19:00")
    moved = events[f"{RUN}-3@planner"]
    assert (moved["start-date"], moved["start-time"], moved["end-time"]) == (day(4), "21:00",
                                                                             "21:40")
