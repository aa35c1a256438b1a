"""Plans that fit the person's week (README "Your week"), end to end: a vdir of classes written with
icalendar, the real SDK against the local stub server, the program's checks and its choice of
start, free_slots, --until, the plan file, the calendar export and `planner week`.

Every request the server received and every record written is searched for a busy event's
title: the model is told free/busy only.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from pathlib import Path

import pytest
from calendar_plans import (
    DAY,
    KEY,
    SECRET,
    configure,
    results_sent,
    run,
    write_class_vdir,
)
from conftest import ROOT, all_files, env_with, read_summary, run_dirs, run_planner, today
from plan_files import review_plan, write_plan
from rich.cells import cell_len
from stub_server import StubServer, text_reply, tool_call, tool_call_reply

CLI_TIMEOUT = 30


def plan(**fields: object) -> dict:
    return {"title": "RAG", "note_ids": ["N1"], "date": DAY.isoformat(), "minutes": 30,
            **fields}


def assert_title_never_left(home: Path, server: StubServer) -> None:
    """No request and no record holds the busy event's title, place or description."""
    for received in server.requests:
        for secret in (b"SECRET", b"Organic", b"lab coat"):
            assert secret not in received.raw
    for path in all_files(home / "tool-records"):
        assert b"SECRET" not in path.read_bytes(), path


# --- the program's checks, repaired -------------------------------------------------------------


def test_a_session_over_a_class_is_rejected_by_times_and_the_repair_is_saved(
        home: Path, server: StubServer) -> None:
    write_class_vdir(home / "classes")
    outcome, person = run(home, server,
                          tool_call_reply(plan(start="19:00")),
                          tool_call_reply(plan(start="20:15"), call_id="call_0002"),
                          text_reply("Saved at 20:15."))
    assert outcome.exit_code == 0
    rejected, saved = results_sent(server)[:2]
    assert rejected["status"] == "rejected"
    assert f"overlaps busy time 19:00–20:00 on {DAY.isoformat()}" in rejected["error"]
    assert saved["status"] == "saved"
    (path,) = (home / "plans").iterdir()
    assert json.loads(path.read_text())["plan"]["start"] == "20:15"
    (view,) = person.views
    assert view.plan.start == _dt.time(20, 15) and not view.start_chosen and view.busy_unknown == ()
    assert_title_never_left(home, server)


def test_without_start_the_program_chooses_the_first_free_slot_and_says_so(
        home: Path, server: StubServer) -> None:
    write_class_vdir(home / "classes")
    outcome, person = run(home, server, tool_call_reply(plan()), text_reply("ok"))
    assert outcome.exit_code == 0
    (view,) = person.views
    # 19:00-20:00 is the class; the cancelled, transparent, all-day and planner's own events
    # at 20:00-21:00 are not busy.
    assert view.plan.start == _dt.time(20) and view.start_chosen
    (path,) = (home / "plans").iterdir()
    assert json.loads(path.read_text())["plan"] == {**plan(), "start": "20:00"}
    assert_title_never_left(home, server)


@pytest.mark.parametrize(("fields", "words"), [
    ({"start": "18:00"}, "starts at 18:00 on {day}, outside the study hours of that day"),
    ({"start": "21:45"}, "ends at 22:15 on {day}, after the study hours of that day end (22:00)"),
    ({"minutes": 50, "start": "20:00"}, "would make {day} hold 50 planned minutes; "
                                        "daily_minutes is 40"),
    ({"start": "7pm"}, "start: must be a 24-hour time HH:MM"),
    ({"start": None}, "start: must be a string HH:MM, got null"),
])
def test_each_check_is_a_rejection_naming_its_reason(home: Path, server: StubServer,
                                                    fields: dict, words: str) -> None:
    write_class_vdir(home / "classes")
    outcome, person = run(home, server, tool_call_reply(plan(**fields)), text_reply("sorry"),
                          daily_minutes=40, max_repairs=1)
    (rejected,) = results_sent(server)
    assert rejected["status"] == "rejected"
    assert words.format(day=DAY.isoformat()) in rejected["error"]
    assert person.views == [] and not (home / "plans").exists()


def test_a_second_plan_goes_after_the_first_and_the_budget_holds(
        home: Path, server: StubServer) -> None:
    write_class_vdir(home / "classes")
    run(home, server, tool_call_reply(plan(minutes=25)), text_reply("ok"), daily_minutes=40)
    _, person = run(home, server, tool_call_reply(plan(minutes=15)), text_reply("ok"),
                    daily_minutes=40)
    assert person.views[0].plan.start == _dt.time(20, 25)  # after the class and the first plan
    # A third of 10 minutes would pass daily_minutes: rejected with the day's minutes left.
    outcome, person = run(home, server, tool_call_reply(plan(minutes=10)), text_reply("no"),
                          daily_minutes=40, max_repairs=1)
    rejected = results_sent(server)[-1]
    assert rejected["status"] == "rejected"
    assert "has 0 of its daily 40 minutes left" in rejected["error"]
    assert len(list((home / "plans").iterdir())) == 2


def test_a_session_after_the_deadline_is_rejected_and_the_summary_records_it(
        home: Path, server: StubServer) -> None:
    write_class_vdir(home / "classes")
    until = DAY - _dt.timedelta(days=1)
    outcome, _ = run(home, server, tool_call_reply(plan(start="20:00")), text_reply("no"),
                     until=until, max_repairs=1)
    (rejected,) = results_sent(server)
    assert f"{DAY.isoformat()} is after the deadline {until.isoformat()}" in rejected["error"]
    system = server.requests[0].body["messages"][0]["content"]
    assert f"Deadline: every session must be on or before {until.isoformat()}." in system
    (folder,) = run_dirs(home)
    assert read_summary(folder)["until"] == until.isoformat()
    assert not (home / "plans").exists()


def test_a_series_gets_one_start_free_on_every_date(home: Path, server: StubServer) -> None:
    write_class_vdir(home / "classes")
    dates = [(DAY - _dt.timedelta(days=1)).isoformat(), DAY.isoformat()]
    series = {"title": "RAG", "note_ids": ["N1"], "dates": dates, "minutes": 30}
    outcome, person = run(home, server,
                          tool_call_reply(calls=[tool_call(series, name="save_review_series")]),
                          text_reply("ok"))
    assert outcome.exit_code == 0
    # The day before has no class, but a common start must miss the class on DAY.
    assert person.views[0].plan.start == _dt.time(20)


# --- free_slots ---------------------------------------------------------------------------------


def test_free_slots_gives_times_only(home: Path, server: StubServer) -> None:
    write_class_vdir(home / "classes")
    arguments = {"from": DAY.isoformat(), "days": 2, "minutes": 30}
    run(home, server, tool_call_reply(calls=[tool_call(arguments, name="free_slots")]),
        text_reply("Tuesday 20:00 is free."), daily_minutes=40)
    (result,) = results_sent(server)
    (folder,) = run_dirs(home)
    (lookup,) = [step for step in read_summary(folder)["steps"] if step["kind"] == "lookup"]
    assert lookup["arguments"] == arguments and lookup["result"] == "2 free slots in 2 days"
    assert result["days"][0] == {"date": DAY.isoformat(),
                                 "slots": [{"start": "20:00", "end": "22:00"}],
                                 "minutes_left": 40}
    assert result["days"][1]["slots"] == [{"start": "19:00", "end": "22:00"}]
    tools = [tool["function"]["name"] for tool in server.requests[0].body["tools"]]
    assert "free_slots" in tools
    assert_title_never_left(home, server)


@pytest.mark.parametrize(("arguments", "words"), [
    ({"from": "2020-01-01", "days": 1, "minutes": 30}, "from: must be from today"),
    ({"days": 1, "minutes": 30}, "from: is required but missing"),
    ({"from": "{day}", "days": 43, "minutes": 30}, "days: must be from 1 to 42"),
    ({"from": "{day}", "days": 1, "minutes": 4}, "minutes: must be from 5 to 120"),
    ({"from": "{day}", "days": 1, "minutes": 30, "x": 1}, "x: is not an allowed field"),
])
def test_free_slots_arguments_are_checked(home: Path, server: StubServer, arguments: dict,
                                          words: str) -> None:
    arguments = {key: value.format(day=DAY.isoformat()) if isinstance(value, str) else value
                 for key, value in arguments.items()}
    run(home, server, tool_call_reply(calls=[tool_call(arguments, name="free_slots")]),
        text_reply("sorry"), max_repairs=1)
    (result,) = results_sent(server)
    assert result["status"] == "rejected" and words in result["error"]


# --- a source that cannot be read ---------------------------------------------------------------


def test_an_unreadable_source_is_unknown_never_free(home: Path, server: StubServer) -> None:
    outcome, person = run(home, server, tool_call_reply(plan(start="19:00")), text_reply("ok"),
                          busy_calendars=[{"ics": "missing.ics"}])
    (view,) = person.views
    assert view.busy_unknown and "missing.ics" in view.busy_unknown[0]
    assert outcome.exit_code == 0
    notices = [event.text for event in person.events if type(event).__name__ == "Notice"]
    (said,) = [line for line in notices if "missing.ics" in line]  # once, when first read
    assert said.startswith("busy calendar missing.ics") and "busy time is unknown" in said


# --- the command line ---------------------------------------------------------------------------


def test_until_is_checked_and_told_in_the_dry_run(home: Path) -> None:
    configure(home)
    until = today() + _dt.timedelta(days=20)
    result = run_planner("--dry-run", "-r", "plan N1", "--until", until.isoformat(),
                         env=env_with(DEEPSEEK_API_KEY=KEY), timeout=CLI_TIMEOUT)
    assert result.returncode == 0
    body = json.loads(result.stdout)
    assert f"on or before {until.isoformat()}" in body["messages"][0]["content"]
    for bad, words in [("2020-01-01", "is in the past"), ("20-12-2026", "must be a real date"),
                       ("2026-02-30", "must be a real date")]:
        result = run_planner("--dry-run", "-r", "x", "--until", bad,
                             env=env_with(DEEPSEEK_API_KEY=KEY), timeout=CLI_TIMEOUT)
        assert result.returncode == 2 and words in result.stderr
        assert result.stderr.count("\n") == 1
    assert not (home / "tool-records").exists()


def seed_plans(home: Path) -> None:
    """Two plans on DAY: one with a start, one laid out from review_time; and a series."""
    for run_id, start in (("20261201T100000000000Z-aaaaaa", "20:30"),
                          ("20261201T110000000000Z-bbbbbb", None)):
        write_plan(home, run_id, review_plan("复习 " + run_id[-6:], ("N1",), DAY.isoformat(), 20,
                                            start))


def test_week_json_has_every_day_with_busy_time_and_sessions(home: Path) -> None:
    write_class_vdir(home / "classes")
    configure(home, daily_minutes=40)
    seed_plans(home)
    start = DAY - _dt.timedelta(days=1)
    result = run_planner("week", "--start", start.isoformat(), "--json",
                         env=env_with(DEEPSEEK_API_KEY=KEY), timeout=CLI_TIMEOUT)
    assert result.returncode == 0, result.stderr
    week = json.loads(result.stdout)
    assert week["start"] == start.isoformat() and len(week["days"]) == 7
    day = week["days"][1]
    assert day["date"] == DAY.isoformat()
    assert day["study_hours"] == ["19:00-22:00"]
    assert day["busy"] == [{"start": "19:00", "end": "20:00", "title": SECRET}]
    assert [(s["start"], s["minutes"], s["done"]) for s in day["sessions"]] == [
        ("19:00", 20, False), ("20:30", 20, False)]
    assert day["planned_minutes"] == 40 and day["daily_minutes"] == 40
    assert week["days"][0]["busy"] == [] and week["days"][0]["sessions"] == []
    # The class repeats weekly: a week later it is busy again.
    later = json.loads(run_planner("week", "--start", (DAY + _dt.timedelta(weeks=1)).isoformat(),
                                   "--json", env=env_with(DEEPSEEK_API_KEY=KEY),
                                   timeout=CLI_TIMEOUT).stdout)
    assert later["days"][0]["busy"][0]["start"] == "19:00"


WIDE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.mark.parametrize("language", ["en", "zh"])
def test_week_fits_80_columns_in_both_languages(home: Path, language: str) -> None:
    write_class_vdir(home / "classes")
    configure(home, daily_minutes=40, language=language)
    seed_plans(home)
    result = run_planner("week", "--start", DAY.isoformat(),
                         env=env_with(DEEPSEEK_API_KEY=KEY, COLUMNS="80"), timeout=CLI_TIMEOUT)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    text = result.stdout
    assert "19:00-20:00" in text or "19-20" in text
    assert ("today" if language == "en" else "今天") in text or DAY != today()
    assert ("due 0" if language == "en" else "到期 0") in text
    assert ("40/40 min" if language == "en" else "40/40 分钟") in text


@pytest.mark.slow  # planner in subprocesses
def test_a_reviewed_session_keeps_its_mark_and_the_dates_share_a_line(home: Path) -> None:
    configure(home, language="zh")
    seed_plans(home)
    done = run_planner("done", "20261201T100000000000Z-aaaaaa", "--rating", "good",
                       env=env_with(DEEPSEEK_API_KEY=KEY), timeout=CLI_TIMEOUT)
    assert done.returncode == 0, done.stderr
    start = today()
    result = run_planner("week", "--start", start.isoformat(),
                         env=env_with(DEEPSEEK_API_KEY=KEY, COLUMNS="80"), timeout=CLI_TIMEOUT)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # ✓ replaces ●, so a narrow column cannot cut it; the open session keeps its ●.
    assert "✓20:30 20′" in result.stdout and "●19:00 20′" in result.stdout
    # Today's second header line does not push the other days' dates down.
    assert all(f"{(start + _dt.timedelta(days=k)).strftime('%m-%d')}" in lines[0]
               for k in range(7)), lines[:2]
    assert max(cell_len(line) for line in lines) <= 80


def test_week_with_a_bad_start_is_exit_2(home: Path) -> None:
    result = run_planner("week", "--start", "tomorrow", env=env_with(DEEPSEEK_API_KEY=KEY),
                         timeout=CLI_TIMEOUT)
    assert result.returncode == 2 and "--start 'tomorrow'" in result.stderr
    assert result.stderr.count("\n") == 1


def test_the_exported_event_starts_at_the_plans_start(home: Path) -> None:
    seed_plans(home)
    result = run_planner("export", "--ics", env=env_with(DEEPSEEK_API_KEY=KEY), timeout=CLI_TIMEOUT)
    assert result.returncode == 0, result.stderr
    events = result.stdout.split("BEGIN:VEVENT")[1:]  # a VTIMEZONE has DTSTART lines too
    starts = [re.search(r"DTSTART[^:]*:(\S+)", event)[1] for event in events]
    stamp = DAY.strftime("%Y%m%d")
    # The plan with a start keeps it; the one without is laid out from review_time (19:00).
    assert sorted(starts) == [f"{stamp}T190000", f"{stamp}T203000"] or \
        sorted(starts) == sorted(f"{stamp}T{h}" for h in ("190000Z", "203000Z"))


def test_readme_lists_the_week_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "planner week" in readme and "study_hours" in readme and "--until" in readme


def test_the_learners_week_before_an_exam(home: Path, server: StubServer) -> None:
    """README "Your week"'s 'done when': classes in a vdir, 40 minutes a day, an exam; the series
    lands in
    free study hours, within the budget, before the exam, in `week` and in the calendar."""
    write_class_vdir(home / "classes")
    exam = DAY + _dt.timedelta(days=2)
    dates = [(DAY - _dt.timedelta(days=1)).isoformat(), DAY.isoformat(), exam.isoformat()]
    series = {"title": "N1-N3 before the exam", "note_ids": ["N1", "N2", "N3"],
              "dates": dates, "minutes": 40}
    late = {**series, "dates": [*dates[:2], (exam + _dt.timedelta(days=1)).isoformat()]}
    outcome, person = run(
        home, server,
        tool_call_reply(calls=[tool_call(late, name="save_review_series")]),
        tool_call_reply(calls=[tool_call(series, name="save_review_series",
                                         call_id="call_0002")]),
        text_reply("Saved three sessions."), until=exam, daily_minutes=40)
    assert outcome.exit_code == 0
    assert "is after the deadline" in results_sent(server)[0]["error"]
    (view,) = person.views
    assert view.plan.start == _dt.time(20)  # free on every date: the class holds 19:00-20:00 on DAY
    week = json.loads(run_planner("week", "--start", dates[0], "--json",
                                  env=env_with(DEEPSEEK_API_KEY=KEY), timeout=CLI_TIMEOUT).stdout)
    by_date = {day["date"]: day for day in week["days"]}
    for date in dates:
        day = by_date[date]
        (session,) = day["sessions"]
        assert session["start"] == "20:00" and day["planned_minutes"] <= day["daily_minutes"]
        for busy in day["busy"]:
            assert not (busy["start"] < "20:40" and busy["end"] > "20:00")
    calendar = home / "calendar"
    assert run_planner("export", "--vdir", str(calendar), env=env_with(DEEPSEEK_API_KEY=KEY),
                       timeout=CLI_TIMEOUT).returncode == 0
    events = sorted(path.read_text() for path in calendar.glob("*.ics"))
    assert len(events) == 3
    for text in events:
        assert re.search(r"DTSTART[^:]*:\d{8}T200000", text), text
    assert_title_never_left(home, server)


def test_week_counts_due_notes_with_the_fitted_parameters(home: Path) -> None:
    """README "A memory fitted to you" reaches `week`: a fitted memory.json moves the due dates it
    counts."""
    from planner.memory.log import record_reviews
    from planner.memory.schedule import DEFAULT_PARAMETERS

    configure(home)
    record_reviews(home, ["N1"], "good")

    def due_in_week() -> int:
        result = run_planner("week", "--json", env=env_with(DEEPSEEK_API_KEY=KEY),
                             timeout=CLI_TIMEOUT)
        assert result.returncode == 0, result.stderr
        return sum(day["due"] for day in json.loads(result.stdout)["days"])

    assert due_in_week() == 1  # defaults: a first "good" is due again in about two days
    slow = list(DEFAULT_PARAMETERS)
    slow[2] = 60.0  # the stability after a first "good": about two months
    (home / "memory.json").write_text(json.dumps({"version": 1, "parameters": slow,
                                                  "reviews": 1}))
    assert due_in_week() == 0


@pytest.mark.parametrize(("template", "values"), [
    ("starts at {time} on {date}, outside the study hours of that day ({hours})",
     {"time": "19:00", "date": "2026-12-05", "hours": "09:30–11:45,14:00–17:00"}),
    ("ends at {time} on {date}, after the study hours of that day end ({end})",
     {"time": "22:15", "date": "2026-12-08", "end": "22:00"}),
    ("overlaps busy time {start}–{end} on {date}",
     {"start": "19:00", "end": "20:00", "date": "2026-12-08"}),
    ("overlaps the saved plan at {start}–{end} on {date}",
     {"start": "19:00", "end": "19:30", "date": "2026-12-08"}),
    ("would make {date} hold {total} planned minutes; daily_minutes is {most}",
     {"date": "2026-12-08", "total": 70, "most": 40}),
    ("{date} is after the deadline {until}", {"date": "2026-12-21", "until": "2026-12-20"}),
])
def test_each_rejection_reads_whole_in_chinese(template: str, values: dict) -> None:
    """The screen says a rejection from its template (README "中文界面"): none of the week's
    reasons is left half English, inside the line that carries it."""
    from planner.base import i18n
    from planner.calendar import free_time

    # The reasons are the program's own templates (read from its source, not copied wrong).
    assert template in Path(free_time.__file__).read_text(encoding="utf-8").replace(
        '"\n' + " " * 12 + '"', "").replace('"\n' + " " * 16 + '"', "")
    i18n.install("zh")
    try:
        rule = i18n.t("{field}: {rule}", field="start", rule=i18n.t(template, **values))
        line = i18n.shown(i18n.t("the model's proposal was rejected ({problem}); nothing was "
                                 "saved", problem=rule))
    finally:
        i18n.install("en")
    words = set(re.findall(r"[A-Za-z]{3,}", line)) - {"start", "free_slots", "daily_minutes",
                                                      "slots", "free", "daily", "minutes"}
    assert words == set(), line


def test_busy_time_past_the_window_read_is_unknown_never_free(home: Path,
                                                              server: StubServer) -> None:
    """Busy time is read for today to 60 days on: a session later than that is shown with its
    busy times unknown, and free_slots says so for those days."""
    write_class_vdir(home / "classes")
    far = today() + _dt.timedelta(days=90)
    arguments = {"from": far.isoformat(), "days": 1, "minutes": 30}
    outcome, person = run(
        home, server, tool_call_reply(calls=[tool_call(arguments, name="free_slots")]),
        tool_call_reply(plan(date=far.isoformat()), call_id="call_0002"), text_reply("ok"))
    (slots,) = results_sent(server)[:1]
    assert slots["days"][0]["busy_unknown"] is True
    (view,) = person.views
    last = (today() + _dt.timedelta(days=60)).isoformat()
    assert view.busy_unknown == () and view.busy_read_until.isoformat() == last
    # Inside the window the calendar was read: no such mark.
    near = {"from": DAY.isoformat(), "days": 1, "minutes": 30}
    run(home, server, tool_call_reply(calls=[tool_call(near, name="free_slots")]),
        text_reply("ok"))
    (slots,) = results_sent(server)
    assert "busy_unknown" not in slots["days"][0]
