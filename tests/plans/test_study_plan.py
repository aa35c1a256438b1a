"""save_study_plan end to end (README "A study plan to a goal"): the real SDK against the local
stub server, a vdir of weekly classes, every session checked at once, the repair, the v4 file,
its sessions as rows of their own, and the strict checks of the arguments."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import calendar_plans
import pytest
from calendar_plans import results_sent, write_class_vdir
from conftest import read_summary, run_dirs, today
from plan_files import write_plan
from stub_server import StubServer, text_reply, tool_call_reply
from study_week import MONDAY, day

from planner.base import i18n
from planner.conversation.continuing import earlier_conversation
from planner.plans import files, store
from planner.plans.plan import InvalidArguments
from planner.plans.study import parse_study_arguments

KEY = "sk-test-study"
CLASS_DAY = MONDAY + _dt.timedelta(days=2)  # a weekly class, 19:00-20:00, on Wednesdays
UNTIL = MONDAY + _dt.timedelta(days=20)


def session(offset: int, start: str | None = None, minutes: int = 30,
            notes: tuple[str, ...] = ("N1",)) -> dict:
    data: dict = {"date": day(offset), "minutes": minutes, "note_ids": list(notes)}
    if start is not None:
        data["start"] = start
    return data


def study(*sessions: dict, title: str = "Exam") -> dict:
    return {"title": title, "sessions": list(sessions)}


def proposal(arguments: dict, call_id: str = "call_0001") -> dict:
    return tool_call_reply(arguments, name="save_study_plan", call_id=call_id)


def run(home: Path, server: StubServer, *replies: dict, answers=("SAVE\n",), **config):
    """A live run asking for the exam, busy time read until UNTIL."""
    return calendar_plans.run(home, server, *replies, answers=answers, until=UNTIL,
                              request="plan my exam", **config)


TWELVE_WITH_FOUR_FAILING = study(
    session(0, "19:00"), session(1, "19:00", notes=("N2",)),
    session(2, "19:00"),                               # 3: the weekly class, 19:00-20:00
    session(3), session(4, "23:00"),                   # 5: outside the study hours
    session(5, "19:00", minutes=30), session(5, "20:00", minutes=30),  # 7: past 40 minutes
    session(6, "19:30"), session(7), session(8, notes=("N2", "N3")), session(10),
    session(25, "19:00"),                              # 12: after the deadline
)


def test_twelve_sessions_four_failing_for_four_reasons_then_repaired_and_saved(
        home: Path, server: StubServer) -> None:
    write_class_vdir(home / "classes", CLASS_DAY)
    repaired = dict(TWELVE_WITH_FOUR_FAILING)
    repaired["sessions"] = [*TWELVE_WITH_FOUR_FAILING["sessions"]]
    repaired["sessions"][2] = session(2, "20:00")
    repaired["sessions"][4] = session(4, "21:00")
    repaired["sessions"][6] = session(5, "20:00", minutes=10)
    repaired["sessions"][11] = session(19, "19:00")
    outcome, person = run(home, server, proposal(TWELVE_WITH_FOUR_FAILING),
                          proposal(repaired, call_id="call_0002"),
                          text_reply("Saved."), daily_minutes=40)
    assert outcome.exit_code == 0
    rejected, saved = results_sent(server)[:2]
    assert rejected["status"] == "rejected"
    lines = rejected["error"].splitlines()
    assert lines[0] == "sessions: 4 of 12 sessions do not fit; mend them all and propose the " \
                       "plan again"
    assert lines[1] == f"session 3 ({day(2)}): overlaps busy time 19:00–20:00 on {day(2)}"
    assert lines[2].startswith(f"session 5 ({day(4)}): starts at 23:00 on {day(4)}, outside")
    assert lines[3] == (f"session 7 ({day(5)}): would make {day(5)} hold 60 planned minutes; "
                        "daily_minutes is 40")
    assert lines[4] == (f"session 12 ({day(25)}): {day(25)} is after the deadline "
                        f"{UNTIL.isoformat()}")
    assert len(lines) == 5
    # The person saw the same lines.
    (event,) = [event for event in person.events if type(event).__name__ == "Rejected"]
    assert list(event.lines) == lines[1:]
    assert saved["status"] == "saved"
    (path,) = (home / "plans").iterdir()
    data = json.loads(path.read_text())
    assert data["version"] == 4 and data["goal"] is None
    starts = [item["start"] for item in data["plan"]["sessions"]]
    assert None not in starts and len(starts) == 12
    # A session without start goes to the first free time: session 4 on day 3 at 19:00.
    assert data["plan"]["sessions"][3] == {"date": day(3), "start": "19:00", "minutes": 30,
                                           "note_ids": ["N1"]}
    (view,) = person.views
    assert view.sessions_chosen[3] and not view.sessions_chosen[0]
    rows = store.list_plans(home, False, False, today())
    assert [row.session for row in rows] == list(range(1, 13))
    assert rows[9].note_ids == ["N2", "N3"] and rows[9].start == _dt.time(19, 0)
    assert [note.id for note in rows[9].notes] == ["N2", "N3"]


def test_a_study_plan_that_is_never_repaired_ends_with_its_lines_and_the_way_back(
        home: Path, server: StubServer) -> None:
    write_class_vdir(home / "classes", CLASS_DAY)
    outcome, person = run(home, server, proposal(TWELVE_WITH_FOUR_FAILING),
                          daily_minutes=40, max_repairs=0)
    assert outcome.exit_code == 1 and outcome.call_failed
    assert "4 of 12 sessions do not fit" in outcome.error
    # Its lines under a heading of their own: a Rejected sent back for no correction.
    (rejected,) = [event for event in person.events if type(event).__name__ == "Rejected"]
    assert rejected.repair == 0 and rejected.lines[0].startswith("session 3 (")
    assert not (home / "plans").exists()
    # The conversation is kept: --continue sends the rejection's every line back to the model.
    (folder,) = run_dirs(home)
    assert "rejected" in read_summary(folder)["error"]
    earlier = earlier_conversation(home, folder.name)
    sent = json.loads(earlier[-1]["content"])
    assert sent["status"] == "rejected" and "session 12 (" in sent["error"]


def test_sessions_of_a_saved_study_plan_block_a_later_one(home: Path,
                                                          server: StubServer) -> None:
    write_class_vdir(home / "classes", CLASS_DAY)
    run(home, server, proposal(study(session(0, "19:00"), session(1))),
        text_reply("ok"))
    outcome, person = run(home, server, proposal(study(session(1, "19:10"))),
                          text_reply("no"), max_repairs=1)
    rejected = results_sent(server)[-1]
    assert rejected["status"] == "rejected"
    assert f"overlaps the saved plan at 19:00–19:30 on {day(1)}" in rejected["error"]
    assert len(list((home / "plans").iterdir())) == 1


KNOWN = {"N1", "N2", "N3", "N4"}


@pytest.mark.parametrize(("arguments", "words"), [
    (study(session(0) | {"extra": 1}), "session 1 extra: is not an allowed field"),
    ({"title": "x", "sessions": [session(0)], "goal": "y"}, "goal: is not an allowed field"),
    (study(*[session(0)] * 61), "sessions: must hold 1 to 60 sessions, got 61"),
    (study(), "sessions: must hold 1 to 60 sessions, got 0"),
    (study(session(0, notes=("N1", "N2", "N3", "N4"))),
     "session 1 note_ids: must hold 1 to 3 note IDs, got 4"),
    (study(session(0) | {"minutes": "30"}), 'session 1 minutes: must be an integer, got a '
                                             'string "30"'),
    (study(session(0) | {"minutes": 30.0}), "session 1 minutes: must be an integer"),
    (study(session(0) | {"date": 20261208}), "session 1 date: must be a string YYYY-MM-DD"),
    (study(session(0, notes=("N9",))), "session 1 note_ids: \"N9\" is not an existing note"),
    (study(session(1), session(0)), "sessions: must be in time order"),
    (study(session(0, "19:30"), session(0, "19:00")), "sessions: must be in time order, but "
                                                      "session 2 starts at 19:00"),
    (study(session(0, "19:00"), session(0, "19:20")), "sessions: session 2"),
    (study(session(0) | {"start": None}), "session 1 start: must be a string HH:MM, got null"),
    ({"title": "x", "sessions": {"date": day(0)}}, "sessions: must be a list of sessions"),
    ({"title": "x", "sessions": ["N1"]}, "session 1: must be an object, got a string"),
])
def test_every_field_of_every_session_is_checked_without_coercion(arguments: dict,
                                                                  words: str) -> None:
    with pytest.raises(InvalidArguments) as caught:
        parse_study_arguments(json.dumps(arguments), KNOWN, today())
    assert words in str(caught.value)


@pytest.mark.parametrize(("changed", "english", "chinese"), [
    ({"date": 20261208}, "session 1 date: must be a string YYYY-MM-DD",
     "第 1 次的 date：必须是 YYYY-MM-DD 格式的字符串"),
    ({"extra": 1}, "session 1 extra: is not an allowed field", "第 1 次的 extra：不是允许的字段"),
    ({"minutes": None}, "session 1 minutes: must be an integer", "第 1 次的 minutes：必须是整数"),
])
def test_a_sessions_field_is_named_in_chinese(changed: dict, english: str, chinese: str) -> None:
    # "session 1" and the field make one template, so neither is left in English.
    with pytest.raises(InvalidArguments) as caught:
        parse_study_arguments(json.dumps(study(session(0) | changed)), KNOWN, today())
    line = str(caught.value)
    assert str.__str__(line).startswith(english)
    i18n.install("zh")
    try:
        assert i18n.shown(line).startswith(chinese)
    finally:
        i18n.install("en")


def test_a_good_plan_is_read_as_given() -> None:
    plan = parse_study_arguments(json.dumps(study(session(0, "19:00"), session(0, "19:30"),
                                                  session(3, notes=("N2", "N3")))),
                                 KNOWN, today())
    assert plan.days == tuple(_dt.date.fromisoformat(each) for each in (day(0), day(0), day(3)))
    assert plan.note_ids == ("N1", "N2", "N3") and plan.minutes == 90
    assert plan.sessions[2].start is None


def test_a_study_plan_read_back_from_its_file_is_the_plan_the_save_tool_made(home: Path) -> None:
    plan = parse_study_arguments(json.dumps(study(session(0, "09:05"), session(0, "19:30"),
                                                  session(3, "07:00", notes=("N2", "N3")))),
                                 KNOWN, today())
    path = write_plan(home, "20261130T100000000000Z-aaaaaa", plan, goal="Exam")
    rows = files.read_plan(str(path.parent), path.name, "plans")
    assert isinstance(rows, list) and files.study_plan_of(rows) == plan
    assert [(row.date, row.start) for row in rows] == [
        (_dt.date.fromisoformat(day(0)), _dt.time(9, 5)),
        (_dt.date.fromisoformat(day(0)), _dt.time(19, 30)),
        (_dt.date.fromisoformat(day(3)), _dt.time(7, 0))]
    # The file holds the text the schema accepts, written back byte for byte.
    assert json.loads(path.read_bytes())["plan"]["sessions"][0] == {
        "date": day(0), "start": "09:05", "minutes": 30, "note_ids": ["N1"]}


TEN_BREAKING_FIVE_RULES = study(
    session(5), session(1),                            # 2: back in time
    session(6, "19:00"), session(6, "19:10"),          # 4: overlaps session 3
    session(7, "19:00"), session(7, "18:00"),          # 6: starts before session 5
    session(8), session(9, minutes=0),                 # 8: bad minutes
    session(10), session(11) | {"minutes": "30"},     # 10: not an integer
)


def test_every_session_breaking_an_argument_rule_is_named(home: Path,
                                                          server: StubServer) -> None:
    outcome, person = run(home, server, proposal(TEN_BREAKING_FIVE_RULES), text_reply("no"),
                          max_repairs=1)
    rejected = results_sent(server)[-1]
    assert rejected["status"] == "rejected"
    lines = rejected["error"].splitlines()
    assert lines[0] == ("sessions: 5 of 10 sessions break the rules; mend them all and propose "
                        "the plan again")
    assert [line.split(" (")[0] for line in lines[1:]] == [
        "session 2", "session 4", "session 6", "session 8", "session 10"]
    assert lines[1] == (f"session 2 ({day(1)}): must be in time order, but session 2 "
                        f"({day(1)}) comes after session 1 ({day(5)})")
    assert lines[4] == f"session 8 ({day(9)}): minutes: must be from 1 to 120, got 0"
    assert lines[5] == f'session 10 ({day(11)}): minutes: must be an integer, got a string "30"'
    # The person saw the same lines; nothing was saved.
    (event,) = [event for event in person.events if type(event).__name__ == "Rejected"]
    assert list(event.lines) == lines[1:]
    assert not (home / "plans").exists()


def test_past_twenty_failing_sessions_the_rest_are_counted() -> None:
    arguments = study(*[session(0) | {"minutes": 0} for _ in range(25)])
    with pytest.raises(InvalidArguments) as caught:
        parse_study_arguments(json.dumps(arguments), KNOWN, today())
    lines = getattr(caught.value, "lines", ())
    assert str(caught.value).startswith("sessions: 25 of 25 sessions break the rules")
    assert len(lines) == 21 and lines[-1] == "and 5 more"
    assert lines[0] == f"session 1 ({day(0)}): minutes: must be from 1 to 120, got 0"
