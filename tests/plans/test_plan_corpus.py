"""parse_arguments against the JSONTestSuite corpus and property-based inputs (README "What the
tests prove")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from plan_corpus import (
    FIELDS,
    LIMIT,
    NOTES,
    expected,
    json_values,
    mutated_plans,
    near_plans,
    valid_plans,
)

from planner.plans.plan import InvalidArguments, ReviewPlan, parse_arguments

CORPUS = Path(__file__).parent.parent / "jsontestsuite"
CORPUS_FILES = sorted(CORPUS.glob("*.json"))

PROPERTY = settings(
    max_examples=400,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)


def outcome(arguments: object) -> ReviewPlan | InvalidArguments:
    """The plan, or the validation error; any other exception fails the test."""
    try:
        return parse_arguments(arguments, NOTES)
    except InvalidArguments as error:
        return error


# --- the JSONTestSuite corpus ------------------------------------------------------------------


def test_corpus_is_complete() -> None:
    """The project's copy holds all 318 parsing files."""
    assert len(CORPUS_FILES) == 318
    assert {path.name[:2] for path in CORPUS_FILES} == {"y_", "n_", "i_"}


@pytest.mark.parametrize("path", CORPUS_FILES, ids=[path.name for path in CORPUS_FILES])
def test_corpus_file(path: Path) -> None:
    """No corpus file crashes the parser or becomes a plan; every n_ file is invalid JSON."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    result = outcome(text)
    assert not isinstance(result, ReviewPlan), "no corpus file is a valid plan"
    assert isinstance(result, InvalidArguments)
    if path.name.startswith("n_"):
        assert result.field == "arguments"


# --- an independent oracle for the rules of README "What the model may propose" -------------------


# --- strategies --------------------------------------------------------------------------------


# --- properties --------------------------------------------------------------------------------


@pytest.mark.slow
@PROPERTY
@given(plan=valid_plans, ensure_ascii=st.booleans())
def test_valid_plans_are_accepted_unchanged(plan: dict, ensure_ascii: bool) -> None:
    """(a) Every valid plan is accepted and comes back exactly as proposed."""
    result = parse_arguments(json.dumps(plan, ensure_ascii=ensure_ascii), NOTES)
    assert result.as_dict() == plan
    assert type(result.minutes) is int


@PROPERTY
@given(text=st.one_of(st.text(), st.binary().map(lambda raw: raw.decode("utf-8", "replace"))))
def test_any_text_gives_a_plan_or_the_validation_error(text: str) -> None:
    """(b) Arbitrary text never raises anything but InvalidArguments."""
    result = outcome(text)
    if isinstance(result, ReviewPlan):
        assert expected(json.loads(text), text) == result.as_dict()


@pytest.mark.slow
@PROPERTY
@given(data=st.one_of(json_values, near_plans), ensure_ascii=st.booleans())
def test_any_json_value_is_judged_as_the_spec_says(data: object, ensure_ascii: bool) -> None:
    """(c) Arbitrary JSON values: only the validation error, and accepted exactly when valid."""
    text = json.dumps(data, ensure_ascii=ensure_ascii)
    result = outcome(text)
    want = expected(data, text)
    if want is None:
        assert isinstance(result, InvalidArguments)
    else:
        assert isinstance(result, ReviewPlan)
        assert result.as_dict() == want


@pytest.mark.slow
@PROPERTY
@given(case=mutated_plans(), ensure_ascii=st.booleans())
def test_mutated_plans_are_rejected(case: tuple[dict, str | None], ensure_ascii: bool) -> None:
    """(d) One wrong value, one extra key or one missing key: rejected, naming the field."""
    data, field = case
    text = json.dumps(data, ensure_ascii=ensure_ascii)
    result = outcome(text)
    assert isinstance(result, InvalidArguments)
    if len(text.encode("utf-8", "surrogatepass")) > LIMIT:
        assert result.field == "arguments"
    elif field is None:
        assert result.field not in (*FIELDS, "arguments")
    else:
        assert result.field == field


# --- huge inputs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("[" * 2**20, id="1MiB-of-open-brackets"),
        pytest.param("{" * 2**20, id="1MiB-of-open-braces"),
        pytest.param(
            json.dumps(
                {
                    "title": "a" * 2**20,
                    "note_ids": ["N1"],
                    "date": "2026-10-05",
                    "minutes": 20,
                }
            ),
            id="1MiB-plan",
        ),
        pytest.param("[" + "1," * 2**19 + "1]", id="1MiB-array"),
        pytest.param("9" * 2**20, id="1MiB-integer"),
    ],
)
def test_huge_input_is_rejected(text: str) -> None:
    """Megabyte inputs are refused as too long, before any parsing."""
    assert len(text) >= 2**20
    with pytest.raises(InvalidArguments) as info:
        parse_arguments(text, NOTES)
    assert info.value.field == "arguments"
