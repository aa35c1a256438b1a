"""save_review_series (README "Review memory"): checked as strictly as save_review_plan, nothing
converted."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from plan_files import review_series

from planner.base import i18n
from planner.plans.plan import (
    SERIES_TOOL_NAME,
    InvalidArguments,
    ReviewSeries,
    load_object,
    parse_series_arguments,
    series_tool_definition,
)

TODAY = dt.date(2026, 12, 1)
KNOWN = ("N1", "N2", "N3")
GOOD = {"title": "RAG 间隔复习", "note_ids": ["N1", "N2"],
        "dates": ["2026-12-02", "2026-12-05", "2026-12-12"], "minutes": 20}


def check(**changes: object) -> ReviewSeries:
    data = {**GOOD, **changes}
    return parse_series_arguments(json.dumps({k: v for k, v in data.items() if v is not None}),
                                  KNOWN, TODAY)


def test_a_good_series_is_read_exactly() -> None:
    series = check()
    assert series == review_series("RAG 间隔复习", ("N1", "N2"),
                                  ("2026-12-02", "2026-12-05", "2026-12-12"), 20)
    assert series.as_dict() == GOOD


def test_eight_dates_and_the_last_on_day_366_are_allowed() -> None:
    dates = [(TODAY + dt.timedelta(days=days)).isoformat() for days in (1, 2, 4, 8, 16, 32, 64,
                                                                        366)]
    assert check(dates=dates).dates == tuple(dt.date.fromisoformat(each) for each in dates)


@pytest.mark.parametrize(("changes", "field", "rule"), [
    ({"dates": ["2026-12-02"]}, "dates", "must hold 2 to 8 dates, got 1"),
    ({"dates": [f"2026-12-{day:02d}" for day in range(2, 11)]}, "dates",
     "must hold 2 to 8 dates, got 9"),
    ({"dates": []}, "dates", "must hold 2 to 8 dates, got 0"),
    ({"dates": ["2026-12-05", "2026-12-02"]}, "dates",
     "must be strictly increasing, but 2026-12-02 comes after 2026-12-05"),
    ({"dates": ["2026-12-05", "2026-12-05"]}, "dates",
     "must be strictly increasing, but 2026-12-05 comes after 2026-12-05"),
    ({"dates": ["2026-12-05", "2027-12-03"]}, "dates",
     "2027-12-03 is more than 366 days after today (2026-12-01); the last may be 2027-12-02"),
    ({"dates": ["2026-12-05", "2026-12-5"]}, "dates",
     'must be written YYYY-MM-DD, got "2026-12-5"'),
    ({"dates": ["2026-12-05", "2026-02-30"]}, "dates", "2026-02-30 is not a real calendar date"),
    ({"dates": ["2026-12-05", 20261206]}, "dates",
     "must be a string YYYY-MM-DD, got an integer 20261206"),
    ({"dates": "2026-12-05"}, "dates", 'must be a list of dates YYYY-MM-DD, got a string '
     '"2026-12-05"'),
    ({"minutes": "20"}, "minutes", 'must be an integer, got a string "20"'),
    ({"minutes": 20.0}, "minutes", "must be an integer, got a number with a fraction 20.0"),
    ({"minutes": 121}, "minutes", "must be from 1 to 120, got 121"),
    ({"note_ids": ["N9"]}, "note_ids", '"N9" is not an existing note (N1, N2, N3)'),
    ({"title": ""}, "title", "is empty after trimming spaces; a title has 1 to 80 characters"),
    ({"dates": None}, "dates", "is required but missing"),
    ({"date": "2026-12-02"}, "date", "is not an allowed field (only title, note_ids, dates, "
     "minutes, start)"),
], ids=["one-date", "nine-dates", "no-dates", "out-of-order", "same-day", "past-366-days",
        "short-date", "unreal-date", "number-date", "string-dates", "string-minutes",
        "float-minutes", "too-long", "unknown-note", "empty-title", "no-dates-key",
        "plan-field"])
def test_each_rule_is_named_with_its_field(changes: dict, field: str, rule: str) -> None:
    with pytest.raises(InvalidArguments) as caught:
        check(**changes)
    assert (caught.value.field, caught.value.rule) == (field, rule)


def test_repeated_keys_are_refused() -> None:
    with pytest.raises(InvalidArguments, match='repeat the key "minutes"'):
        parse_series_arguments('{"title": "t", "note_ids": ["N1"], "dates": ["2026-12-02", '
                               '"2026-12-03"], "minutes": 5, "minutes": 6}', KNOWN, TODAY)


@pytest.mark.parametrize(("text", "english", "chinese"), [
    ('{"title": "t", "minutes": 5, "minutes": 6}', 'arguments: repeat the key "minutes"',
     'arguments：重复了键 "minutes"'),
    ('{"minutes": NaN}', "arguments: contain NaN, which is not a JSON number",
     "arguments：含有 NaN，它不是 JSON 数字"),
    ('{"minutes": 1e999}', "arguments: contain a number that overflows: 1e999",
     "arguments：含有溢出的数字：1e999"),
    ('{"minutes": }', "arguments: are not valid JSON (Expecting value",
     "arguments：不是有效的 JSON（"),
    pytest.param('{"minutes": ' + "1" * 5000 + "}",
                 "arguments: contain a number too long to read (5,000 digits)",
                 "arguments：含有一个长得无法读取的数字（5,000 位）", id="long-number"),
    pytest.param("[" * 100 + "]" * 100, "arguments: are JSON nested deeper than",
                 "arguments：是嵌套超过", id="nested"),
])
def test_the_strict_readers_reasons_are_said_in_chinese(text: str, english: str,
                                                        chinese: str) -> None:
    # The plural wording ("repeat", not "repeats") is a template of its own, never text cut
    # from the reader's line, so the Chinese screen does not show it in English.
    with pytest.raises(InvalidArguments) as caught:
        load_object(text, 100_000)
    line = str(caught.value)
    assert str.__str__(line).startswith(english)
    i18n.install("zh")
    try:
        assert i18n.shown(line).startswith(chinese)
    finally:
        i18n.install("en")


def test_the_schema_names_every_field_and_bound() -> None:
    definition = series_tool_definition(KNOWN)["function"]
    assert definition["name"] == SERIES_TOOL_NAME == "save_review_series"
    parameters = definition["parameters"]
    assert parameters["required"] == ["title", "note_ids", "dates", "minutes"]
    assert parameters["additionalProperties"] is False
    dates = parameters["properties"]["dates"]
    assert (dates["minItems"], dates["maxItems"]) == (2, 8)
    assert parameters["properties"]["note_ids"]["items"]["enum"] == list(KNOWN)
    assert "enum" not in series_tool_definition(None)["function"]["parameters"]["properties"][
        "note_ids"]["items"]
