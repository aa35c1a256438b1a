"""Series end to end (README "Review memory"): the version-3 plan file, its sessions in listings,
warnings and
calendars, done and dropped marks, and save_review_series in the turn loop (one SAVE for all).

Flow-level runs use the scripted model and person of test_conversation.py; the same series
through the real command: test_review_cli.py.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import NamedTuple

import pytest
from conftest import read_summary, run_dirs, today
from people import ScriptedPerson
from plan_files import day, review_plan, review_series, series
from plan_files import plan as single
from plan_files import write_plan as save
from scripted_conversation import Model
from stub_server import text_reply, tool_call, tool_call_reply

from planner.base.config import Config
from planner.calendar import ics
from planner.conversation.events import ConfirmRequest, Outcome
from planner.conversation.flow import run_flow
from planner.conversation.protocol import as_catalog
from planner.conversation.turn_values import Limits
from planner.memory import log as reviews
from planner.memory import marking
from planner.memory.review_memory import ReviewMemory
from planner.notes.catalog import SAMPLE_NOTES, Note
from planner.plans import files as plans
from planner.plans import store
from planner.plans.plan import SERIES_TOOL_NAME, ReviewPlan, ReviewSeries
from planner.ui import conversation

RUN = "20261130T100000000000Z-aaaaaa"


def listing(home: Path, include_past: bool = True) -> list[plans.PlanRow]:
    """The listing `planner plans` shows: marked by the review log, read quietly."""
    return store.list_plans(home, False, include_past, today(), marking.quiet_marks(home))


def sessions(rows: list[plans.PlanRow]) -> list[tuple]:
    return [(row.run_id, row.session, row.date.isoformat(), row.done, row.dropped)
            for row in rows]


# --- the version-3 file -------------------------------------------------------------------------


def test_a_series_is_written_as_version_3_and_a_plan_stays_version_2(home: Path) -> None:
    data = json.loads(save(home, RUN, series(1, 3, 7)).read_bytes())
    assert list(data) == ["version", "simulated", "run_id", "created_at", "plan", "notes"]
    assert data["version"] == 3
    assert data["plan"] == {"title": "间隔复习", "note_ids": ["N1", "N2"],
                            "dates": [day(1), day(3), day(7)], "minutes": 20}
    assert json.loads(save(home, "r-single", single(2)).read_bytes())["version"] == 2


def test_each_session_is_a_row_of_its_own_in_date_order(home: Path) -> None:
    save(home, RUN, series(-2, 3, 10))
    save(home, "r-single", single(5))
    rows = listing(home)
    assert sessions(rows) == [
        (RUN, 2, day(3), False, False), ("r-single", None, day(5), False, False),
        (RUN, 3, day(10), False, False), (RUN, 1, day(-2), False, False)]
    assert all(row.file == f"plans/{RUN}.json" for row in rows if row.run_id == RUN)
    assert [plans.row_ref(row) for row in rows] == [f"{RUN}#2", "r-single", f"{RUN}#3",
                                                    f"{RUN}#1"]
    assert list(rows[0].to_json()) == list(plans.ROW_KEYS)
    # Past sessions are left out like past plans.
    assert sessions(listing(home, include_past=False)) == sessions(rows)[:3]


@pytest.mark.parametrize(("dates", "problem"), [
    ([day(1)], "plan.dates: must be a list of 2 to 8 dates"),
    ([day(offset) for offset in range(1, 10)], "plan.dates: must be a list of 2 to 8 dates"),
    ([day(5), day(1)], "plan.dates: must be strictly increasing"),
    ([day(1), day(1)], "plan.dates: must be strictly increasing"),
    ([day(1), "2026-02-30"], "plan.dates: 2026-02-30 is not a real calendar date"),
    ([day(1), 20261205], "plan.dates: must be written YYYY-MM-DD"),
    (day(1), "plan.dates: must be a list of 2 to 8 dates"),
])
def test_a_damaged_series_file_is_listed_with_the_rule_it_breaks(home: Path, dates: object,
                                                                  problem: str) -> None:
    path = save(home, RUN, series(1, 2))
    data = json.loads(path.read_bytes())
    data["plan"]["dates"] = dates
    path.write_text(json.dumps(data))
    [row] = listing(home)
    assert row.to_json() == {**dict.fromkeys(plans.ROW_KEYS), "file": f"plans/{RUN}.json",
                             "problem": problem}


def test_a_version_2_file_with_dates_is_refused(home: Path) -> None:
    path = save(home, RUN, series(1, 2))
    data = json.loads(path.read_bytes())
    data["version"] = 2
    path.write_text(json.dumps(data))
    [row] = listing(home)
    assert row.problem == "plan: has no 'date'"


# --- done and dropped, from the review log --------------------------------------------------------


def test_reviews_mark_their_plan_or_session_done_and_an_undo_takes_it_back(home: Path) -> None:
    save(home, RUN, series(1, 3, 7))
    save(home, "r-single", single(2))
    reviews.record_reviews(home, ["N1", "N2"], "good", run_id=f"{RUN}#2")
    [undone] = reviews.record_reviews(home, ["N2"], "hard", run_id="r-single")
    reviews.record_undo(home, undone.review_id)
    reviews.record_reviews(home, ["N3"], "easy", run_id=None)  # a review of no plan
    assert sessions(listing(home)) == [
        (RUN, 1, day(1), False, False), ("r-single", None, day(2), False, False),
        (RUN, 2, day(3), True, False), (RUN, 3, day(7), False, False)]
    # Done once each of its notes has a review for it (README "Review memory"); one: partly.
    reviews.record_reviews(home, ["N1"], "good", run_id="r-single")
    assert [(row.done, row.reviewed) for row in listing(home)] == [
        (False, ()), (False, ("N1",)), (True, ("N1", "N2")), (False, ())]
    reviews.record_reviews(home, ["N2"], "good", run_id="r-single")
    assert [row.done for row in listing(home)] == [False, True, True, False]


def test_a_dropped_plan_is_marked_in_every_session_and_can_come_back(home: Path) -> None:
    save(home, RUN, series(1, 3))
    save(home, "r-single", single(2))
    reviews.record_drop(home, RUN)
    assert [(row.session, row.dropped) for row in listing(home)] == [
        (1, True), (None, False), (2, True)]
    reviews.record_drop_undo(home, RUN)
    assert not any(row.dropped for row in listing(home))


def test_given_marks_are_used_and_an_unreadable_log_marks_nothing(home: Path) -> None:
    save(home, RUN, series(1, 3))
    marks = plans.Marks(done=frozenset({f"{RUN}#1"}), dropped=frozenset({RUN}))
    rows = store.list_plans(home, False, True, today(), marks)
    assert [(row.done, row.dropped) for row in rows] == [(True, True), (False, True)]
    reviews.log_path(home).mkdir()  # a folder where the log should be: cannot be read
    assert [(row.done, row.dropped) for row in listing(home)] == [(False, False)] * 2
    with pytest.raises(reviews.ReviewLogError):
        marking.read_marks(home)


# --- warnings before SAVE look at every session -------------------------------------------------


def warnings_for(home: Path, plan: ReviewPlan | ReviewSeries) -> list[str]:
    return store.confirmation_warnings(home, "live", plan, today(),
                                       lambda: marking.quiet_marks(home).dropped)


def test_a_series_is_warned_about_each_session_date_that_holds_plans(home: Path) -> None:
    save(home, "r-same", single(3, note_ids=("N2", "N1"), minutes=25))
    save(home, "r-other", single(7, note_ids=("N3",), minutes=15))
    assert warnings_for(home, series(1, 3, 7)) == [
        f"session 2 ({day(3)}): the same review (same date, same notes) is already saved in "
        "plans/r-same.json",
        f"session 2 ({day(3)}): that day already holds 25 minutes in 1 plan",
        f"session 3 ({day(7)}): that day already holds 15 minutes in 1 plan",
    ]


def test_a_saved_series_session_is_seen_by_a_new_plan(home: Path) -> None:
    save(home, RUN, series(1, 4))
    assert warnings_for(home, single(4)) == [
        f"the same review (same date, same notes) is already saved in plans/{RUN}.json "
        "(session 2)",
        "that day already holds 20 minutes in 1 plan",
    ]
    assert warnings_for(home, single(4, note_ids=("N3",))) == [
        "that day already holds 20 minutes in 1 plan"]


def test_dropped_plans_are_left_out_of_the_warnings(home: Path) -> None:
    save(home, RUN, series(1, 4))
    save(home, "r-single", single(4, minutes=30))
    reviews.record_drop(home, RUN)
    assert warnings_for(home, single(4)) == [
        "the same review (same date, same notes) is already saved in plans/r-single.json",
        "that day already holds 30 minutes in 1 plan"]
    reviews.record_drop(home, "r-single")
    assert warnings_for(home, single(4)) == []


# --- calendar events of sessions ----------------------------------------------------------------


def test_rows_give_each_session_its_event_with_done_and_dropped(home: Path) -> None:
    save(home, RUN, series(1, 3))
    save(home, "r-single", single(2))
    reviews.record_reviews(home, ["N1", "N2"], "good", run_id=f"{RUN}#1")
    reviews.record_drop(home, "r-single")
    events = ics.events_from_rows(listing(home))
    assert [(event.uid, event.date.isoformat(), event.done, event.dropped)
            for event in events] == [
        (f"{RUN}-1@planner", day(1), True, False),
        ("r-single@planner", day(2), False, True),
        (f"{RUN}-2@planner", day(3), False, False)]
    assert {event.saved_order for event in events} == {RUN, "r-single"}
    calendar = ics.calendar_ics(events, "19:00")
    assert calendar.count(b"BEGIN:VEVENT") == 3 and b"STATUS:CANCELLED" in calendar


# --- save_review_series in the turn loop ----------------------------------------------------------

FLOW_TODAY = _dt.date(2026, 10, 1)
REQUEST = "Review N1 and N2 three times in the next two weeks, 20 minutes each, title: RAG"
SERIES = {"title": "RAG 间隔复习", "note_ids": ["N1", "N2"],
          "dates": ["2026-10-02", "2026-10-05", "2026-10-12"], "minutes": 20}
EXPLAINED = "The program saved the three sessions."


def propose_series(arguments: object = None, call_id: str = "call_1") -> dict:
    return tool_call_reply(SERIES if arguments is None else arguments, call_id=call_id,
                           name=SERIES_TOOL_NAME)


class Run(NamedTuple):
    outcome: Outcome
    client: Model
    person: ScriptedPerson
    home: Path

    @property
    def summary(self) -> dict:
        (folder,) = run_dirs(self.home)
        return read_summary(folder)

    def sent(self, number: int) -> dict:
        """The JSON content of the last (tool) message of request `number` (1-based)."""
        message = self.client.requests[number - 1]["messages"][-1]
        assert message["role"] == "tool", message
        return json.loads(message["content"])


def converse(home: Path, replies: list, lines: list | tuple = (), *,
             memory: ReviewMemory | None = None, max_repairs: int = 1) -> Run:
    client = Model(replies)
    person = ScriptedPerson(lines)
    outcome = run_flow(REQUEST, client=client, person=person, home=home, config=Config(),
                       notes=SAMPLE_NOTES, mode="live", today=FLOW_TODAY,
                       limits=Limits(6, max_repairs), memory=memory)
    assert client.replies == [], "scripted replies were never used"
    return Run(outcome, client, person, home)


def plan_files(home: Path) -> list[Path]:
    return sorted((home / "plans").glob("*.json")) if (home / "plans").exists() else []


def test_one_save_saves_the_whole_series_as_one_version_3_file(home: Path) -> None:
    run = converse(home, [propose_series(), text_reply(EXPLAINED)], ["SAVE\n"])
    assert (run.outcome.status, run.outcome.exit_code) == ("complete", 0)
    [path] = plan_files(home)
    data = json.loads(path.read_bytes())
    assert data["version"] == 3 and data["plan"] == SERIES and data["simulated"] is False
    assert [prompt.kind for prompt in run.person.prompts] == ["save"]  # one SAVE for all
    [view] = run.person.views
    assert isinstance(view.plan, ReviewSeries) and view.dates == tuple(
        _dt.date.fromisoformat(each) for each in SERIES["dates"])
    assert view.target == path
    # Both confirmed tools were offered; the saved result went back for the explanation.
    first, second = run.client.requests
    assert [tool["function"]["name"] for tool in first["tools"]][:2] == [
        "save_review_plan", SERIES_TOOL_NAME]
    assert second["tool_choice"] == "none"
    assert run.sent(2) == {"status": "saved", "path": f"plans/{path.name}"}
    summary = run.summary
    assert summary["plan"] == SERIES and summary["approved"] is True
    assert [step["kind"] for step in summary["steps"]] == ["proposal", "decision", "explanation"]
    assert summary["steps"][0]["plan"] == SERIES
    assert run.outcome.plan == review_series("RAG 间隔复习", ("N1", "N2"),
                                            tuple(SERIES["dates"]), 20)
    rows = listing_at(home, FLOW_TODAY)
    assert [(row.session, row.date.isoformat()) for row in rows] == [
        (1, "2026-10-02"), (2, "2026-10-05"), (3, "2026-10-12")]


def listing_at(home: Path, today: _dt.date) -> list[plans.PlanRow]:
    return store.list_plans(home, False, True, today)


def test_a_cancel_and_its_feedback_cover_the_whole_series(home: Path) -> None:
    revised = {**SERIES, "dates": ["2026-10-03", "2026-10-10"], "minutes": 30}
    run = converse(home, [propose_series(), propose_series(revised, "call_2"),
                          text_reply(EXPLAINED)],
                   ["no\n", "two sessions, 30 minutes\n", "SAVE\n"])
    assert run.sent(2) == {"status": "cancelled", "feedback": "two sessions, 30 minutes"}
    assert run.client.requests[1]["tool_choice"] == "auto"
    [path] = plan_files(home)
    assert json.loads(path.read_bytes())["plan"] == revised
    assert [len(view.dates) for view in run.person.views] == [3, 2]
    assert [prompt.kind for prompt in run.person.prompts] == ["save", "feedback", "save"]


def test_a_cancelled_series_writes_nothing(home: Path) -> None:
    run = converse(home, [propose_series(), text_reply("Nothing was saved.")], ["no\n", "\n"])
    assert plan_files(home) == [] and run.summary["approved"] is False
    assert run.sent(2) == {"status": "cancelled"}


@pytest.mark.parametrize(("dates", "minutes", "error"), [
    (["2026-10-02"], 20, "dates: must hold 2 to 8 dates, got 1"),
    ([f"2026-10-{day:02d}" for day in range(2, 11)], 20, "dates: must hold 2 to 8 dates, got 9"),
    (["2026-10-05", "2026-10-02"], 20,
     "dates: must be strictly increasing, but 2026-10-02 comes after 2026-10-05"),
    (["2026-10-02", "2027-10-03"], 20,
     "dates: 2027-10-03 is more than 366 days after today (2026-10-01); the last may be "
     "2027-10-02"),
    (SERIES["dates"], "20", 'minutes: must be an integer, got a string "20"'),
], ids=["one-date", "nine-dates", "out-of-order", "past-366-days", "string-minutes"])
def test_a_bad_series_is_rejected_and_sent_back_for_repair(home: Path, dates: list,
                                                           minutes: object, error: str) -> None:
    bad = {**SERIES, "dates": dates, "minutes": minutes}
    run = converse(home, [propose_series(bad), propose_series(call_id="call_2"),
                          text_reply(EXPLAINED)], ["SAVE\n"])
    [rejected] = [event for event in run.person.events if type(event).__name__ == "Rejected"]
    assert (rejected.tool, rejected.error, rejected.repair) == (SERIES_TOOL_NAME, error, 1)
    assert run.sent(2) == {"status": "rejected", "error": error}
    assert len(run.person.views) == 1  # the bad series never reached the person
    [path] = plan_files(home)
    assert json.loads(path.read_bytes())["plan"] == SERIES
    assert [step["kind"] for step in run.summary["steps"]][:2] == ["rejected", "proposal"]


def test_a_bad_series_with_no_repair_left_stops_the_run_with_nothing_written(home: Path) -> None:
    run = converse(home, [propose_series({**SERIES, "dates": ["2026-10-02"]})], max_repairs=0)
    assert (run.outcome.status, run.outcome.exit_code) == ("stopped", 1)
    assert run.outcome.error == ("the model's proposal was rejected (dates: must hold 2 to 8 "
                                 "dates, got 1); nothing was saved")
    assert plan_files(home) == [] and run.person.prompts == []


def test_a_plan_and_a_series_in_one_reply_are_rejected_together(home: Path) -> None:
    plan = {"title": "RAG", "note_ids": ["N1"], "date": "2026-10-05", "minutes": 20}
    both = tool_call_reply(calls=[tool_call(plan, call_id="a"),
                                  tool_call(SERIES, call_id="b", name=SERIES_TOOL_NAME)])
    run = converse(home, [both, propose_series(call_id="c"), text_reply(EXPLAINED)], ["SAVE\n"])
    problem = "propose one thing per reply: save_review_plan or save_review_series, not both"
    messages = run.client.requests[1]["messages"][-2:]
    assert [json.loads(message["content"]) for message in messages] == [
        {"status": "rejected", "error": problem}] * 2
    assert len(plan_files(home)) == 1


def test_after_a_saved_series_a_second_proposal_is_refused(home: Path) -> None:
    run = converse(home, [propose_series(), propose_series(call_id="call_2"),
                          text_reply(EXPLAINED)], ["SAVE\n"])
    assert run.sent(3) == {"status": "refused", "error": "a plan was already saved in this run"}
    assert len(plan_files(home)) == 1


def test_the_save_screen_gets_each_notes_schedule_from_the_review_memory(home: Path) -> None:
    now = _dt.datetime(2026, 10, 1, 12, tzinfo=_dt.UTC)
    reviews.record_reviews(home, ["N1"], "good",
                           reviewed_at=_dt.datetime(2026, 9, 20, 12, tzinfo=_dt.UTC))
    memory = ReviewMemory(home, as_catalog(SAMPLE_NOTES), now=now)
    expected = memory.due_dates(["N1"])["N1"]
    run = converse(home, [propose_series(), text_reply(EXPLAINED)], ["SAVE\n"], memory=memory)
    [view] = run.person.views
    assert view.due == {"N1": expected, "N2": None}
    assert expected is not None
    # Without review memory (the demo), nothing is said about schedules.
    assert converse_without_memory(home).person.views[0].due is None


def converse_without_memory(home: Path) -> Run:
    other = home / "other"
    other.mkdir()
    return converse(other, [propose_series(), text_reply(EXPLAINED)], ["no\n", "\n"])


# --- the SAVE screen: each note's schedule, every session ---------------------------------------


def drawn(view: ConfirmRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
          capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The plan panel as shown (no terminal: it goes to stdout), one stripped line each."""
    monkeypatch.setattr(conversation, "TTY", str(tmp_path / "none" / "tty"))
    conversation.show_plan(view, simulated=False)
    return [line.strip("│ ").rstrip() for line in capsys.readouterr().out.splitlines()]


def test_each_note_shows_its_schedule_and_a_series_every_session(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    today = _dt.date(2026, 12, 1)
    notes = (Note("N1", "RAG 的基本流程", "t"), Note("N2", "切分", "t"), Note("N3", "引用", "t"),
             Note("N4", "new one", "t"))
    plan = review_series("间隔复习", ("N1", "N2", "N3"), ("2026-12-01", "2026-12-03",
                                                        "2026-12-10"), 25)
    due = {"N1": today, "N2": _dt.date(2026, 11, 28), "N3": _dt.date(2026, 12, 6), "N4": None}
    view = ConfirmRequest(plan, notes, Path("plans/x.json"), today, (), due)
    lines = drawn(view, monkeypatch, tmp_path, capsys)
    assert "Proposed series of 3 sessions" in lines[0]
    assert lines[1:-1] == [
        "Title    间隔复习",
        "Notes    N1  RAG 的基本流程  [due today]",
        "N2  切分  [overdue 3 days]",
        "N3  引用  [due in 5 days (2026-12-06)]",
        "N4  new one  [new]",
        "Sessions 1. 2026-12-01 (Tuesday, today), 25 min",
        "2. 2026-12-03 (Thursday, in 2 days), 25 min",
        "3. 2026-12-10 (Thursday, in 9 days), 25 min",
        "Minutes  25",
        "Save to  plans/x.json",
    ]


def test_a_single_plan_keeps_its_date_row_and_no_memory_says_nothing(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    today = _dt.date(2026, 12, 1)
    plan = review_plan("RAG", ("N1",), "2026-12-02", 20)
    note = (Note("N1", "RAG \x1b[31mred\x1b[0m", "t"),)
    lines = drawn(ConfirmRequest(plan, note, Path("plans/x.json"), today, (),
                                 {"N1": _dt.date(2026, 11, 30)}), monkeypatch, tmp_path, capsys)
    assert "Proposed plan" in lines[0] and "series" not in lines[0]
    assert lines[2] == "Notes    N1  RAG \\x1b[31mred\\x1b[0m  [overdue 1 day]"
    assert lines[3] == "Date     2026-12-02 (Wednesday, tomorrow)"
    lines = drawn(ConfirmRequest(plan, note, Path("plans/x.json"), today), monkeypatch,
                  tmp_path, capsys)
    assert lines[2] == "Notes    N1  RAG \\x1b[31mred\\x1b[0m"


@pytest.mark.parametrize(("due", "words"), [
    (None, "new"), (0, "due today"), (-1, "overdue 1 day"), (-3, "overdue 3 days"),
    (1, "due in 1 day (2026-12-02)"), (5, "due in 5 days (2026-12-06)"),
    (-1200, "overdue 1,200 days"),
])
def test_schedule_words(due: int | None, words: str) -> None:
    today = _dt.date(2026, 12, 1)
    day_due = None if due is None else today + _dt.timedelta(days=due)
    assert conversation.schedule_words(day_due, today) == words


def test_past_sessions_of_a_series_are_warned_about(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    today = _dt.date(2026, 12, 1)
    notes = (Note("N1", "RAG", "t"),)
    for dates, warning in [
        (("2026-11-29", "2026-12-03"), "warning: session 1 is in the past (today is 2026-12-01)"),
        (("2026-11-20", "2026-11-30", "2026-12-03"),
         "warning: sessions 1 to 2 are in the past (today is 2026-12-01)"),
    ]:
        view = ConfirmRequest(review_series("S", ("N1",), dates, 20), notes, Path("p.json"), today)
        assert warning in drawn(view, monkeypatch, tmp_path, capsys)
    view = ConfirmRequest(review_series("S", ("N1",), ("2026-12-01", "2026-12-03"), 20), notes,
                          Path("p.json"), today)
    assert not any("warning" in line for line in drawn(view, monkeypatch, tmp_path, capsys))
