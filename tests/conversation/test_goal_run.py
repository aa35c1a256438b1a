"""A run for a goal (--goal NAME): the goal found by a unique start of its name, its eve the
deadline, one line of the first request, the goal_notes lookup (strict, least ready first,
bounded), the summary's goal and until, --continue keeping the goal; free_slots up to 42 days."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import pytest
from conftest import env_with, read_summary, run_dirs, run_planner, today
from goal_home import KEY, setup_home, system_text
from stub_server import Reply, text_reply, tool_call, tool_call_reply

from planner.conversation import lookups
from planner.conversation.lookups import GoalNotesArguments, check_goal_notes, run_slots
from planner.conversation.tools import MAX_RESULT_BYTES
from planner.plans.plan import InvalidArguments


def test_the_dry_run_says_the_goal_in_one_line_and_offers_goal_notes(home: Path) -> None:
    day = setup_home(home)
    result = run_planner("--dry-run", "-r", "plan my exam", "--goal", "jlpt n2",
                         env=env_with(DEEPSEEK_API_KEY=KEY))
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    text = system_text(body)
    eve = (day - _dt.timedelta(days=1)).isoformat()
    assert f"Deadline: every session must be on or before {eve}." in text
    (line,) = [line for line in text.splitlines() if line.startswith("Goal: ")]
    assert line == (f"Goal: JLPT N2, on {day.isoformat()} ({day.strftime('%A')}), covers 6 "
                    "notes; with the sessions saved now, 0 of them would be ready on that day "
                    "(recall 90% or more); goal_notes lists them, least ready first. "
                    "Planner's own plan in the free time makes 6 ready in 180 minutes; "
                    "suggest_study_plan gives it.")
    names = [tool["function"]["name"] for tool in body["tools"]]
    assert "goal_notes" in names and "free_slots" in names and "suggest_study_plan" in names
    plain = json.loads(run_planner("--dry-run", "-r", "plan my exam",
                                   env=env_with(DEEPSEEK_API_KEY=KEY)).stdout)
    assert "Goal: " not in system_text(plain)
    assert not {"goal_notes", "suggest_study_plan"} & {
        tool["function"]["name"] for tool in plain["tools"]}


@pytest.mark.parametrize(("given", "words"), [
    ("jlpt", "--goal 'jlpt' could be JLPT N2, JLPT N1; give more of the name"),
    ("last", "--goal 'last': the goal Last spring is on 2026-03-01, which is not ahead"),
    ("toefl", "--goal 'toefl': "),
])
def test_a_past_unknown_or_unclear_goal_is_exit_2_naming_the_goals_ahead(
        home: Path, given: str, words: str) -> None:
    day = setup_home(home)
    result = run_planner("--dry-run", "-r", "plan", "--goal", given,
                         env=env_with(DEEPSEEK_API_KEY=KEY))
    assert result.returncode == 2 and result.stdout == ""
    assert words in result.stderr
    assert (f"goals still ahead: JLPT N2 ({day.isoformat()}), JLPT N1 (2099-07-01)"
            in result.stderr)
    assert len(result.stderr.strip().splitlines()) == 1


def test_goal_and_until_together_and_goal_with_the_demo_are_usage_errors(home: Path) -> None:
    setup_home(home)
    both = run_planner("--dry-run", "-r", "plan", "--goal", "JLPT N2", "--until", "2099-01-01",
                       env=env_with(DEEPSEEK_API_KEY=KEY))
    assert both.returncode == 2 and "give --goal or --until, not both" in both.stderr
    demo = run_planner("--demo", "--goal", "JLPT N2", env=env_with(DEEPSEEK_API_KEY=KEY))
    assert demo.returncode == 2 and "--goal is for a live run" in demo.stderr
    assert not (home / "tool-records").exists()


def test_a_live_run_asks_goal_notes_and_records_goal_and_until(server, home: Path) -> None:
    day = setup_home(home, server.url)
    server.add(Reply(body=tool_call_reply(calls=[tool_call({"offset": 0, "limit": 3},
                                                           name="goal_notes")])),
               Reply(body=tool_call_reply(calls=[tool_call({"offset": -1, "limit": 3},
                                                           name="goal_notes",
                                                           call_id="call_0002")])),
               Reply(body=text_reply("Which weekdays suit you?")))
    result = run_planner("-r", "plan my exam", "--goal", "JLPT N2",
                         env=env_with(DEEPSEEK_API_KEY=KEY))
    assert result.returncode == 0, result.stderr
    first, second, third = (request.body for request in server.chat_requests())
    assert "Goal: JLPT N2, on " in system_text(first)
    answer = json.loads(second["messages"][-1]["content"])
    assert (answer["goal"], answer["date"], answer["total"]) == ("JLPT N2", day.isoformat(), 6)
    assert [note["id"] for note in answer["notes"]] == ["N1", "N3", "N4"]  # least ready first
    assert list(answer["notes"][0]) == ["id", "title", "due", "recall_now", "recall_on_day",
                                        "sessions_planned"]
    assert answer["notes"][0] == {"id": "N1", "title": "Kanji 1", "due": None,
                                  "recall_now": 0.0, "recall_on_day": 0.0,
                                  "sessions_planned": 0}
    refused = json.loads(third["messages"][-1]["content"])
    assert refused["status"] == "rejected" and "offset: must be 0 or more, got -1" in \
        refused["error"]
    (folder,) = run_dirs(home)
    summary = read_summary(folder)
    assert summary["goal"] == "JLPT N2"
    assert summary["until"] == (day - _dt.timedelta(days=1)).isoformat()
    # --continue keeps the run's goal.
    server.add(Reply(body=text_reply("Noted.")))
    again = run_planner("--continue", "-r", "weekday evenings", env=env_with(DEEPSEEK_API_KEY=KEY))
    assert again.returncode == 0, again.stderr
    assert "Goal: JLPT N2, on " in system_text(server.chat_requests()[-1].body)
    assert read_summary(run_dirs(home)[-1])["goal"] == "JLPT N2"


def test_goal_notes_arguments_are_checked_strictly() -> None:
    assert check_goal_notes('{"offset": 0, "limit": 50}') == GoalNotesArguments(0, 50)
    for arguments, error in [
            ('{"offset": 0}', "limit: is required but missing"),
            ('{"limit": 5}', "offset: is required but missing"),
            ('{"offset": 0, "limit": 51}', "limit: must be from 1 to 50, got 51"),
            ('{"offset": 0, "limit": 0}', "limit: must be from 1 to 50, got 0"),
            ('{"offset": "1", "limit": 5}', 'offset: must be an integer, got a string "1"'),
            ('{"offset": true, "limit": 5}', "offset: must be an integer, got a boolean true"),
            ('{"offset": 0, "limit": 5.0}', "limit: must be an integer, got a number with a "
             "fraction 5.0"),
            ('{"offset": 0, "limit": 5, "goal": "x"}', "goal: is not an allowed field (only "
             "offset, limit)")]:
        with pytest.raises(InvalidArguments) as caught:
            check_goal_notes(arguments)
        assert str(caught.value) == error
    parameters = lookups.GOAL_NOTES_SCHEMA["function"]["parameters"]
    assert parameters["required"] == ["offset", "limit"]
    assert parameters["additionalProperties"] is False


def test_goal_notes_fits_4_kib_with_long_ids(home: Path) -> None:
    from planner.conversation.lookups import run_goal_notes
    from planner.memory.readiness import GoalTarget
    from planner.memory.review_memory import ReviewMemory

    ids = tuple(f"{'n' * 300}{number}" for number in range(50))

    class Table:
        home = Path(".")
        review_time = "19:00"

    goal = GoalTarget("Long", today() + _dt.timedelta(days=9), 0.9, ids)
    result = run_goal_notes(goal, ReviewMemory(home, None), Table(),  # type: ignore[arg-type]
                            today(), GoalNotesArguments(0, 50))
    assert len(json.dumps(result, ensure_ascii=False).encode()) <= MAX_RESULT_BYTES
    assert result["total"] == 50 and 0 < len(result["notes"]) < 50


def test_free_slots_takes_42_days_and_ends_at_the_last_whole_day_that_fits() -> None:
    from planner.conversation.lookups import SlotArguments, check_slots

    day = today()
    assert check_slots(json.dumps({"from": day.isoformat(), "days": 42, "minutes": 30}),
                       day).days == 42
    with pytest.raises(InvalidArguments) as caught:
        check_slots(json.dumps({"from": day.isoformat(), "days": 43, "minutes": 30}), day)
    assert str(caught.value) == "days: must be from 1 to 42, got 43"

    class Busy:
        def free_days(self, first: _dt.date, days: int, minutes: int) -> list[dict]:
            return [{"date": (first + _dt.timedelta(days=n)).isoformat(),
                     "slots": [{"start": f"{8 + hour:02d}:00", "end": f"{8 + hour:02d}:30"}
                               for hour in range(6)], "minutes_left": None}
                    for n in range(days)]

    result = run_slots(Busy(), SlotArguments(day.isoformat(), 42, 30))  # type: ignore[arg-type]
    assert len(json.dumps(result, ensure_ascii=False).encode()) <= MAX_RESULT_BYTES
    shown = result["days"]
    assert 1 < len(shown) < 42 and all(len(each["slots"]) == 6 for each in shown)
    assert result["more_from"] == (day + _dt.timedelta(days=len(shown))).isoformat()
    whole = run_slots(Busy(), SlotArguments(day.isoformat(), 3, 30))  # type: ignore[arg-type]
    assert "more_from" not in whole and len(whole["days"]) == 3


def test_the_save_screen_of_a_goal_run_shows_its_readiness(server, home: Path) -> None:
    from people import ScriptedPerson

    from planner.base.config import load_config
    from planner.cli.run import goal_target, timetable_for
    from planner.conversation.flow import run_flow
    from planner.memory.review_memory import ReviewMemory
    from planner.model.client import LiveClient
    from planner.notes.catalog import load_catalog

    day = setup_home(home, server.url)
    settings = load_config(home / "config.json")
    catalog = load_catalog(home, None)
    goal = goal_target(catalog, settings, settings.goals[0])
    first = today() + _dt.timedelta(days=3)
    sessions = [{"date": (first + _dt.timedelta(days=n)).isoformat(), "start": "19:00",
                 "minutes": 30, "note_ids": ["N1", "N3"]} for n in range(0, 12, 4)]
    server.add(Reply(body=tool_call_reply({"title": "Exam", "sessions": sessions},
                                          name="save_study_plan")),
               Reply(body=text_reply("Saved.")))
    person = ScriptedPerson(["SAVE\n"], save_only=True)
    timetable = timetable_for(settings, home, "live", today(), goal.deadline, goal=goal)
    outcome = run_flow("plan my exam", client=LiveClient(settings, KEY), person=person,
                       home=home, config=settings, notes=catalog, mode="live", today=today(),
                       memory=ReviewMemory(home, catalog), timetable=timetable)
    assert outcome.exit_code == 0, outcome.error
    (view,) = person.views
    outlook = view.readiness
    assert (outlook.name, outlook.date, outlook.total) == ("JLPT N2", day, 6)
    assert outlook.ready_with == outlook.ready_without + 2  # N1 and N3, three times each
    assert outlook.uncovered == ("N2", "N4", "N5", "N6")
    (saved,) = (home / "plans").glob("*.json")
    assert json.loads(saved.read_text(encoding="utf-8"))["goal"] == "JLPT N2"
    assert read_summary(run_dirs(home)[0])["goal"] == "JLPT N2"
