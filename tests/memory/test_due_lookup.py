"""The model reads what is due (README "Review memory"): the read-only lookup due_notes, checked as
strictly as
the other lookups, offered only when there is due information, and one line in the first request
saying how many notes are due today (the request does not grow with the log).

Due dates themselves: test_schedule.py (planner's equal fsrs's own) and test_review_cli.py
(`planner due` through the real command).
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import pytest
from note_files import write_note
from people import ScriptedPerson
from scripted_conversation import Model
from stub_server import completion, text_reply, tool_call, tool_call_reply

from planner.base import storage
from planner.base.config import Config
from planner.conversation import lookups
from planner.conversation.flow import run_flow
from planner.conversation.lookups import DueArguments, check_due, run_due
from planner.conversation.protocol import as_catalog, first_messages, registry_for
from planner.conversation.tools import MAX_RESULT_BYTES
from planner.conversation.turn_values import Limits
from planner.memory import log as reviews
from planner.memory.review_memory import ReviewMemory
from planner.notes.catalog import SAMPLE_NOTES, load_catalog
from planner.plans.plan import InvalidArguments

UTC = _dt.UTC
NOW = _dt.datetime(2026, 10, 1, 12, tzinfo=UTC)
TODAY = _dt.date(2026, 10, 1)
SAMPLES = as_catalog(SAMPLE_NOTES)
DUE_LINE = "due_notes lists them (and those due in the next days), most overdue first."


def at(days_ago: int) -> _dt.datetime:
    return NOW - _dt.timedelta(days=days_ago)


def memory_of(home: Path, catalog=SAMPLES) -> ReviewMemory:
    return ReviewMemory(home, catalog, now=NOW)


def system_text(home: Path, catalog=SAMPLES) -> str:
    return first_messages("plan my reviews", catalog, TODAY, memory_of(home, catalog))[0][
        "content"]


def tool_names(home: Path, catalog=SAMPLES) -> list[str]:
    return registry_for(catalog, TODAY, memory_of(home, catalog)).names


# --- strict arguments -----------------------------------------------------------------------------


def test_good_arguments_are_read_exactly() -> None:
    assert check_due('{"days": 0, "limit": 1}') == DueArguments(0, 1)
    assert check_due('{"limit": 20, "days": 30}') == DueArguments(30, 20)


@pytest.mark.parametrize(("arguments", "error"), [
    ('{"days": 0}', "limit: is required but missing"),
    ('{"limit": 5}', "days: is required but missing"),
    ('{"days": 31, "limit": 5}', "days: must be from 0 to 30, got 31"),
    ('{"days": -1, "limit": 5}', "days: must be from 0 to 30, got -1"),
    ('{"days": 0, "limit": 0}', "limit: must be from 1 to 20, got 0"),
    ('{"days": 0, "limit": 21}', "limit: must be from 1 to 20, got 21"),
    ('{"days": "7", "limit": 5}', 'days: must be an integer, got a string "7"'),
    ('{"days": 7.0, "limit": 5}', "days: must be an integer, got a number with a fraction 7.0"),
    ('{"days": true, "limit": 5}', "days: must be an integer, got a boolean true"),
    ('{"days": 0, "limit": null}', "limit: must be an integer, got null"),
    ('{"days": 0, "limit": 5, "all": true}', "all: is not an allowed field (only days, limit)"),
    ('{"days": 0, "days": 1, "limit": 5}', 'arguments: repeat the key "days"'),
    ('{"days": NaN, "limit": 5}', "arguments: contain NaN, which is not a JSON number"),
    ("[0, 5]", "arguments: must be a JSON object, got a list"),
    ('{"days": 0, "limit": 5, "x": "' + "a" * 5000 + '"}', "arguments: are longer than 4096 "
     "bytes"),
])
def test_bad_arguments_are_refused_naming_the_field_and_rule(arguments: str, error: str) -> None:
    with pytest.raises(InvalidArguments) as caught:
        check_due(arguments)
    assert str(caught.value) == error


def test_the_schema_says_both_fields_are_required_integers_in_range() -> None:
    parameters = lookups.DUE_SCHEMA["function"]["parameters"]
    assert parameters["required"] == ["days", "limit"]
    assert parameters["additionalProperties"] is False
    assert parameters["properties"]["days"] == {**parameters["properties"]["days"],
                                                "type": "integer", "minimum": 0, "maximum": 30}
    assert parameters["properties"]["limit"] == {**parameters["properties"]["limit"],
                                                 "type": "integer", "minimum": 1, "maximum": 20}


# --- what it returns ------------------------------------------------------------------------------


def test_the_result_has_the_rows_of_due_json_most_overdue_first(home: Path) -> None:
    reviews.record_reviews(home, ["N1"], "again", reviewed_at=at(20))
    reviews.record_reviews(home, ["N2"], "good", reviewed_at=at(10))
    reviews.record_reviews(home, ["N3"], "easy", reviewed_at=at(1))
    memory = memory_of(home)
    result = run_due(memory, TODAY, DueArguments(30, 20))
    listed = memory.due(TODAY, 30, 20)  # what `planner due --days 30 --json` prints
    assert result["due"] == listed.rows and result["total"] == listed.total
    assert [row["id"] for row in result["due"]] == ["N1", "N2", "N3"][:len(result["due"])]
    for row in result["due"]:
        assert list(row) == ["id", "title", "due", "last_reviewed", "last_rating",
                             "retrievability", "reviews"]
    first = result["due"][0]
    assert (first["id"], first["last_rating"], first["reviews"]) == ("N1", "again", 1)
    assert first["last_reviewed"] == at(20).astimezone().date().isoformat()
    today_only = run_due(memory, TODAY, DueArguments(0, 1))
    assert len(today_only["due"]) <= 1
    assert today_only["total"] == memory.due_today(TODAY)


def test_nothing_due_names_the_next_due_date(home: Path) -> None:
    reviews.record_reviews(home, ["N1"], "easy", reviewed_at=NOW)
    result = run_due(memory_of(home), TODAY, DueArguments(0, 5))
    due = memory_of(home).schedules()["N1"].due
    assert result == {"due": [], "total": 0,
                      "next_due": due.astimezone().date().isoformat()}


def test_a_result_never_passes_4_kib_whatever_the_ids(home: Path) -> None:
    folder = home / "notes"
    for number in range(20):
        write_note(folder, f"n{number}.md", "text\n", id=f"{number:02d}-" + "长" * 490,
                   title="标题" * 200)
    catalog = load_catalog(home, None)
    reviews.record_reviews(home, [f"{number:02d}-" + "长" * 490 for number in range(20)],
                           "again", reviewed_at=at(30))
    result = run_due(memory_of(home, catalog), TODAY, DueArguments(0, 20))
    assert result["total"] == 20 and 0 < len(result["due"]) < 20
    assert len(storage.to_json(result)) <= MAX_RESULT_BYTES
    assert all(len(row["title"]) <= 120 for row in result["due"])


# --- when it is offered, and the first request's one line -------------------------------------


def test_no_log_and_no_sr_due_offers_nothing_and_says_nothing(home: Path) -> None:
    assert "due_notes" not in tool_names(home)
    assert "due for review" not in system_text(home)
    # Reviews of notes that are gone are no due information either.
    reviews.record_reviews(home, ["gone"], "good", reviewed_at=at(3))
    assert "due_notes" not in tool_names(home)
    # Nor is a review that was undone.
    [undone] = reviews.record_reviews(home, ["N1"], "good", reviewed_at=at(3))
    reviews.record_undo(home, undone.review_id)
    assert "due_notes" not in tool_names(home)


def test_a_review_offers_the_lookup_and_one_line_counts_the_notes_due_today(home: Path) -> None:
    reviews.record_reviews(home, ["N1", "N2"], "again", reviewed_at=at(30))
    reviews.record_reviews(home, ["N3"], "easy", reviewed_at=NOW)
    assert tool_names(home)[-1] == "due_notes"
    text = system_text(home)
    lines = [line for line in text.splitlines() if "due_notes" in line]
    assert lines == [f"By the person's review history, 2 notes are due for review today; "
                     f"{DUE_LINE}"]
    assert memory_of(home).due_today(TODAY) == 2


def test_the_first_request_does_not_grow_with_the_log(home: Path, tmp_path: Path) -> None:
    small, big = tmp_path / "small", tmp_path / "big"
    small.mkdir()
    big.mkdir()
    for where in (small, big):
        reviews.record_reviews(where, ["N1"], "again", reviewed_at=at(40))
    # 7,500 more lines (one append): reviews of notes that are gone, and reviews undone.
    more: list[reviews.Event] = []
    for number in range(2500):
        gone = reviews.Review(reviews.new_review_id(), f"gone-{number}", None, at(40), "good",
                              None)
        undone = reviews.Review(reviews.new_review_id(), "N2", None, at(40), "good", None)
        more += [gone, undone, reviews.Undo(undone.review_id, NOW)]
    reviews.append(big, more)
    assert reviews.log_path(big).stat().st_size > 100 * reviews.log_path(small).stat().st_size

    def first(where: Path) -> str:
        memory = memory_of(where)
        return json.dumps([first_messages("x", SAMPLES, TODAY, memory),
                           registry_for(SAMPLES, TODAY, memory).definitions()])

    assert first(small) == first(big)


def test_sr_due_in_front_matter_counts_for_notes_planner_has_not_reviewed(home: Path) -> None:
    folder = home / "notes"
    (folder / "a.md").parent.mkdir(parents=True)
    # As Obsidian Spaced Repetition writes it: unquoted dates beside its other keys.
    (folder / "a.md").write_text("---\nsr-due: 2026-09-28\nsr-interval: 3\nsr-ease: 250\n---\n"
                                 "# Alpha\n", encoding="utf-8")
    (folder / "b.md").write_text("---\nsr-due: 2026-10-06\n---\n# Beta\n", encoding="utf-8")
    (folder / "c.md").write_text("---\nsr-due: someday\n---\n# Gamma\n", encoding="utf-8")
    (folder / "d.md").write_text("---\nsr-due: 2026-09-01\n---\n# Delta\n", encoding="utf-8")
    catalog = load_catalog(home, None)
    # d was reviewed in planner: FSRS decides, its sr-due no longer counts.
    reviews.record_reviews(home, ["d"], "easy", reviewed_at=NOW)
    assert catalog.sr_due() == {"a": "2026-09-28", "b": "2026-10-06", "d": "2026-09-01"}
    assert "due_notes" in tool_names(home, catalog)
    assert "1 note is due for review today" in system_text(home, catalog)
    result = run_due(memory_of(home, catalog), TODAY, DueArguments(7, 10))
    assert [(row["id"], row["due"], row["reviews"]) for row in result["due"]] == [
        ("a", "2026-09-28", 0), ("b", "2026-10-06", 0)]
    assert result["due"][0]["title"] == "Alpha" and result["due"][0]["last_reviewed"] is None


def test_sr_due_alone_offers_the_lookup_with_no_log(home: Path) -> None:
    write_note(home / "notes", "a.md", "# A\n", **{"sr-due": "2026-10-01"})
    catalog = load_catalog(home, None)
    assert "due_notes" in tool_names(home, catalog)
    write_note(home / "notes", "a.md", "# A\n")  # the date removed: nothing due any more
    catalog = load_catalog(home, None)
    assert "due_notes" not in tool_names(home, catalog)


# --- in the turn loop -----------------------------------------------------------------------------


def due_call(arguments: object, call_id: str = "call_due") -> dict:
    return tool_call_reply(arguments, call_id=call_id, name="due_notes")


def test_the_model_reads_due_notes_then_proposes_from_them(home: Path) -> None:
    reviews.record_reviews(home, ["N3"], "again", reviewed_at=at(30))
    plan = {"title": "Due today", "note_ids": ["N3"], "date": "2026-10-01", "minutes": 15}
    client = Model([due_call({"days": 0, "limit": 5}), tool_call_reply(plan, call_id="call_p"),
                    text_reply("Saved.")])
    person = ScriptedPerson(["SAVE\n"])
    outcome = run_flow("review what is due", client=client, person=person, home=home,
                       config=Config(), notes=SAMPLE_NOTES, mode="live", today=TODAY,
                       memory=memory_of(home))
    assert outcome.exit_code == 0
    answer = client.requests[1]["messages"][-1]
    assert answer["role"] == "tool" and answer["tool_call_id"] == "call_due"
    sent = json.loads(answer["content"])
    assert [row["id"] for row in sent["due"]] == ["N3"] and sent["total"] == 1
    [looked] = [event for event in person.events if type(event).__name__ == "Looked"]
    assert (looked.tool, looked.summary) == ("due_notes", "1 of 1 due notes")
    [view] = person.views
    assert view.due is not None and view.due["N3"] <= TODAY


def test_a_bad_due_notes_call_is_rejected_and_sent_back(home: Path) -> None:
    reviews.record_reviews(home, ["N3"], "again", reviewed_at=at(30))
    client = Model([due_call({"days": 31, "limit": 5}), due_call({"days": 3, "limit": 5}, "c2"),
                    text_reply("N3 is due.")])
    person = ScriptedPerson(["\n"])
    outcome = run_flow("what is due?", client=client, person=person, home=home,
                       config=Config(), notes=SAMPLE_NOTES, mode="live", today=TODAY,
                       limits=Limits(6, 1), memory=memory_of(home))
    assert outcome.status == "no_tool"
    rejected = json.loads(client.requests[1]["messages"][-1]["content"])
    assert rejected == {"status": "rejected",
                        "error": "due_notes days: must be from 0 to 30, got 31"}


def test_without_due_information_a_due_notes_call_is_not_offered(home: Path) -> None:
    calls = [tool_call({"days": 0, "limit": 5}, call_id="c1", name="due_notes")]
    client = Model([completion({"role": "assistant", "content": None, "tool_calls": calls},
                               "tool_calls")])
    outcome = run_flow("what is due?", client=client, person=ScriptedPerson(), home=home,
                       config=Config(), notes=SAMPLE_NOTES, mode="live", today=TODAY,
                       limits=Limits(6, 0), memory=memory_of(home))
    assert outcome.exit_code == 1
    assert "due_notes is not a tool offered here" in (outcome.error or "")
