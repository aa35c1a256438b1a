"""One plan schema (planner.plans.schema): each field's rule once, for the save tools' arguments
and for plan files read back, with one error (field, reason) that makes the line."""

from __future__ import annotations

import copy
import datetime as dt
import json

import pytest

from planner.base import i18n
from planner.base.i18n import t
from planner.notes.catalog import Note
from planner.plans import files, schema
from planner.plans.plan import InvalidArguments, parse_arguments, parse_series_arguments
from planner.plans.schema import PlanError
from planner.plans.study import parse_study_arguments

TODAY = dt.date(2026, 12, 1)
KNOWN = ("N1", "N2", "N3")
NOTES = [Note("N1", "One", "t"), Note("N2", "Two", "t"), Note("N3", "Three", "t")]
PLAN = {"title": "Review", "note_ids": ["N1", "N2"], "date": "2026-12-05", "minutes": 20}
SERIES = {"title": "Review", "note_ids": ["N1"], "dates": ["2026-12-02", "2026-12-05"],
          "minutes": 20}
STUDY = {"title": "Exam", "sessions": [
    {"date": "2026-12-02", "start": "09:00", "minutes": 30, "note_ids": ["N1", "N2"]},
    {"date": "2026-12-02", "start": "10:00", "minutes": 30, "note_ids": ["N3"]}]}


def file_of(proposal: object, goal: str | None = None) -> dict:
    """A plan file's content exactly as planner writes it, decoded."""
    notes = [note for note in NOTES if note.id in proposal.note_ids]  # type: ignore[attr-defined]
    notes.sort(key=lambda note: proposal.note_ids.index(note.id))  # type: ignore[attr-defined]
    return json.loads(files.plan_file_content(
        proposal, simulated=False, run_id="20261201T000000Z-abc", created_at="2026-12-01T08:00:00",
        notes=notes, goal=goal))


def file_problem(data: dict) -> PlanError:
    with pytest.raises(PlanError) as caught:
        schema.plan_file(data, "20261201T000000Z-abc.json")
    return caught.value


def argument_problem(arguments: dict) -> PlanError:
    with pytest.raises(InvalidArguments) as caught:
        parse_arguments(json.dumps(arguments), KNOWN)
    return caught.value


def test_the_save_tools_and_the_files_fail_with_one_error_type() -> None:
    assert InvalidArguments is PlanError
    assert issubclass(PlanError, ValueError)


@pytest.mark.parametrize(("field", "reason", "line"), [
    ("plan.title", t("must be a string"), "plan.title: must be a string"),
    ("minutes", t("must be an integer, got {kind}", kind="null"),
     "minutes: must be an integer, got null"),
    ("", t("is not a JSON object"), "is not a JSON object"),  # the whole file
])
def test_the_line_is_made_from_field_and_reason(field: str, reason: str, line: str) -> None:
    error = PlanError(field, reason)
    assert (error.field, error.reason, error.rule, str(error)) == (field, reason, reason, line)
    assert isinstance(str(error), i18n.Message)  # said in the person's language where shown


def test_what_a_save_tool_accepts_its_file_passes_when_read_back() -> None:
    plan = parse_arguments(json.dumps({**PLAN, "start": "09:30"}), KNOWN)
    series = parse_series_arguments(json.dumps(SERIES), KNOWN, TODAY)
    study = parse_study_arguments(json.dumps(STUDY), KNOWN, TODAY)
    assert schema.plan_file(file_of(plan), "x.json") == schema.PLAN_VERSION
    assert schema.plan_file(file_of(series), "x.json") == schema.SERIES_VERSION
    assert schema.plan_file(file_of(study, goal="exam"), "x.json") == schema.STUDY_VERSION


@pytest.mark.parametrize(("name", "value", "argument_line", "file_line"), [
    ("minutes", 0, "minutes: must be from 1 to 120, got 0",
     "plan.minutes: must be an integer from 1 to 120"),
    ("minutes", "20", 'minutes: must be an integer, got a string "20"',
     "plan.minutes: must be an integer from 1 to 120"),
    ("title", 7, "title: must be a string, got an integer 7", "plan.title: must be a string"),
    ("title", "x" * 81, "title: has 81 characters; at most 80",
     "plan.title: must be 1 to 80 characters"),
    ("title", "a\x1bb", "title: contains a non-printable character U+001B",
     "plan.title: contains a control or format character"),
    ("date", "2026-02-30", "date: 2026-02-30 is not a real calendar date",
     "plan.date: 2026-02-30 is not a real calendar date"),
    ("date", "0001-01-01", "date: 0001-01-01 is at the edge of the calendar; planner uses dates "
     "from 0001-01-02 to 9999-12-30", "plan.date: 0001-01-01 is at the edge of the calendar; "
     "planner uses dates from 0001-01-02 to 9999-12-30"),
    ("date", "2026-1-5", 'date: must be written YYYY-MM-DD, got "2026-1-5"',
     "plan.date: must be written YYYY-MM-DD"),
    ("note_ids", ["N1", "N1"], "note_ids: repeats a note ID", "plan.note_ids: repeats a note ID"),
    ("note_ids", [], "note_ids: must hold 1 to 3 note IDs, got 0",
     "plan.note_ids: must be a list of 1 to 3 note IDs"),
    ("start", "24:00", 'start: must be a 24-hour time HH:MM, got "24:00"',
     "plan.start: must be a 24-hour time HH:MM"),
])
def test_one_rule_breaks_the_same_way_in_arguments_and_in_a_file(
        name: str, value: object, argument_line: str, file_line: str) -> None:
    """The argument names the value it got (the model corrects it), the file the rule only."""
    data = file_of(parse_arguments(json.dumps(PLAN), KNOWN))
    data["plan"][name] = value
    if name == "note_ids":
        data["notes"] = [{"id": note, "title": "x"} for note in value]  # type: ignore[attr-defined]
    assert str(argument_problem({**PLAN, name: value})) == argument_line
    assert str(file_problem(data)) == file_line


def test_a_title_is_trimmed_when_proposed_and_must_be_trimmed_when_stored() -> None:
    assert parse_arguments(json.dumps({**PLAN, "title": "\u3000Review "}), KNOWN).title == "Review"
    data = file_of(parse_arguments(json.dumps(PLAN), KNOWN))
    data["plan"]["title"] = "Review "
    assert str(file_problem(data)) == "plan.title: has spaces at its ends"


def test_a_stored_plan_may_name_notes_that_are_gone_a_proposal_may_not() -> None:
    assert schema.note_ids(["gone"], stored=True) == ("gone",)
    with pytest.raises(PlanError) as caught:
        schema.note_ids(["gone"], KNOWN)
    assert str(caught.value) == 'note_ids: "gone" is not an existing note (N1, N2, N3)'


def test_a_stored_series_may_be_old_or_far_ahead_a_proposal_may_not() -> None:
    far = ["2026-12-02", "2030-01-01"]
    assert schema.dates(far, stored=True) == tuple(dt.date.fromisoformat(each) for each in far)
    with pytest.raises(PlanError) as caught:
        schema.dates(far, TODAY)
    assert str(caught.value) == ("dates: 2030-01-01 is more than 366 days after today "
                                 "(2026-12-01); the last may be 2027-12-02")


def test_a_stored_study_session_has_its_start_a_proposed_one_may_not() -> None:
    proposed = copy.deepcopy(STUDY)
    del proposed["sessions"][1]["start"]
    assert parse_study_arguments(json.dumps(proposed), KNOWN, TODAY).sessions[1].start is None
    data = file_of(parse_study_arguments(json.dumps(STUDY), KNOWN, TODAY))
    del data["plan"]["sessions"][1]["start"]
    assert str(file_problem(data)) == "plan.sessions item: has no 'start'"


def test_proposed_sessions_must_not_overlap_stored_ones_are_not_held_to_it() -> None:
    overlapping = copy.deepcopy(STUDY)
    overlapping["sessions"][1]["start"] = "09:15"
    with pytest.raises(PlanError) as caught:
        parse_study_arguments(json.dumps(overlapping), KNOWN, TODAY)
    assert str(caught.value) == ("sessions: session 2 (2026-12-02 09:15) overlaps session 1, "
                                 "which runs to 09:30")
    data = file_of(parse_study_arguments(json.dumps(STUDY), KNOWN, TODAY))
    data["plan"]["sessions"][1]["start"] = "09:15"
    assert schema.plan_file(data, "x.json") == schema.STUDY_VERSION


def test_unknown_and_missing_fields_are_named_in_each_ones_words() -> None:
    assert str(argument_problem({**PLAN, "path": "/etc"})) == (
        "path: is not an allowed field (only title, note_ids, date, minutes, start)")
    assert str(argument_problem({"title": "T"})) == "note_ids: is required but missing"
    data = file_of(parse_arguments(json.dumps(PLAN), KNOWN))
    data["plan"]["path"] = "/etc"
    assert str(file_problem(data)) == 'plan: has an unknown key "path"'
    del data["plan"]["path"], data["plan"]["minutes"], data["plan"]["date"]
    assert str(file_problem(data)) == "plan: has no 'date'"  # the first by name


def test_a_file_line_is_said_in_chinese_from_its_field_and_reason() -> None:
    data = file_of(parse_arguments(json.dumps(PLAN), KNOWN))
    data["plan"]["title"] = 7
    line = str(file_problem(data))
    i18n.install("zh")
    try:
        assert i18n.shown(line) == "plan.title：必须是字符串"
        assert i18n.shown(str(argument_problem({**PLAN, "title": 7}))) == (
            "title：必须是字符串，收到的是整数 7")
    finally:
        i18n.install("en")
