"""The save_review_plan tool and the strict checks of its arguments (README "What the model
may propose")."""

from __future__ import annotations

import json

import pytest

from planner.plans.plan import InvalidArguments, ReviewPlan, parse_arguments, tool_definition

# Four known notes, so that "4 items" is wrong only because of its length.
NOTES = frozenset({"N1", "N2", "N3", "N4"})
VALID = {"title": "RAG basics", "note_ids": ["N1", "N2"], "date": "2026-10-05", "minutes": 20}
FIELDS = ("title", "note_ids", "date", "minutes")
DROP = object()


def plan_text(ensure_ascii: bool = True, **changes: object) -> str:
    """A valid plan with some fields replaced (or dropped with DROP), as JSON text."""
    data = {**VALID, **changes}
    data = {key: value for key, value in data.items() if value is not DROP}
    return json.dumps(data, ensure_ascii=ensure_ascii)


def rejected(arguments: object, notes=NOTES) -> InvalidArguments:
    """Parse arguments that must be rejected; return the validation error."""
    with pytest.raises(InvalidArguments) as info:
        parse_arguments(arguments, notes)
    return info.value


# --- accepted ------------------------------------------------------------------------------

ACCEPTED = [
    pytest.param({}, {}, id="the-valid-plan"),
    pytest.param({"title": "  RAG basics  "}, {"title": "RAG basics"}, id="title-trimmed-spaces"),
    pytest.param(
        {"title": "\u3000RAG basics\u3000"}, {"title": "RAG basics"}, id="title-trimmed-u3000"
    ),
    pytest.param(
        {"title": " \u3000 RAG \u3000"}, {"title": "RAG"}, id="title-trimmed-mixed-spaces"
    ),
    pytest.param({"title": "RAG\u3000basics"}, {}, id="title-u3000-inside"),
    pytest.param({"title": "RAG  basics"}, {}, id="title-double-space-inside"),
    pytest.param({"title": "a" * 80}, {}, id="title-80-chars"),
    pytest.param({"title": "  " + "a" * 80 + "\u3000"}, {"title": "a" * 80}, id="title-80-trimmed"),
    pytest.param({"title": "x"}, {}, id="title-1-char"),
    pytest.param({"title": "RAG基础复习"}, {}, id="title-chinese"),
    pytest.param({"title": "检" * 80}, {}, id="title-80-chinese"),
    pytest.param({"title": "Café déjà vu — «RAG» №1 😀"}, {}, id="title-punctuation-emoji"),
    pytest.param({"note_ids": ["N3"]}, {}, id="note-ids-1"),
    pytest.param({"note_ids": ["N3", "N1", "N2"]}, {}, id="note-ids-3-order-kept"),
    pytest.param({"date": "2024-02-29"}, {}, id="date-leap-day"),
    pytest.param({"date": "2026-12-31"}, {}, id="date-year-end"),
    pytest.param({"minutes": 1}, {}, id="minutes-1"),
    pytest.param({"minutes": 120}, {}, id="minutes-120"),
]


@pytest.mark.parametrize("ensure_ascii", [True, False], ids=["ascii", "utf8"])
@pytest.mark.parametrize(("changes", "corrections"), ACCEPTED)
def test_accepted(changes: dict, corrections: dict, ensure_ascii: bool) -> None:
    """A valid proposal comes back exactly as proposed, apart from the trimmed title."""
    plan = parse_arguments(plan_text(ensure_ascii, **changes), NOTES)
    assert isinstance(plan, ReviewPlan)
    assert plan.as_dict() == {**VALID, **changes, **corrections}
    assert type(plan.minutes) is int


def test_accepted_key_order_and_whitespace() -> None:
    """Key order and JSON whitespace around the object do not matter."""
    text = ' \n\t{"minutes":20,"date":"2026-10-05","note_ids":["N1","N2"],"title":"RAG basics"}\r\n'
    assert parse_arguments(text, NOTES).as_dict() == VALID


def test_accepted_at_exactly_4096_bytes() -> None:
    """A plan padded with JSON whitespace to exactly 4096 bytes is still accepted."""
    text = plan_text()
    text += " " * (4096 - len(text.encode()))
    assert parse_arguments(text, NOTES).as_dict() == VALID


def test_accepts_any_collection_of_known_ids() -> None:
    """The known note IDs may come as any collection (set, list, tuple, dict keys)."""
    for known in ({"N1", "N2"}, ["N1", "N2"], ("N2", "N1"), {"N1": 1, "N2": 2}.keys()):
        assert parse_arguments(plan_text(), known).note_ids == ("N1", "N2")


def test_plan_is_frozen() -> None:
    """A checked plan cannot be changed afterwards."""
    plan = parse_arguments(plan_text(), NOTES)
    with pytest.raises(AttributeError):
        plan.minutes = 90  # type: ignore[misc]


# --- rejected: the arguments text --------------------------------------------------------------

VALID_TEXT = plan_text()
BODY = VALID_TEXT[1:-1]  # the valid object's members, without braces

NOT_A_STRING = [
    pytest.param(None, id="None"),
    pytest.param(dict(VALID), id="dict"),
    pytest.param(VALID_TEXT.encode(), id="bytes"),
    pytest.param(bytearray(VALID_TEXT.encode()), id="bytearray"),
    pytest.param(20, id="int"),
    pytest.param(1.5, id="float"),
    pytest.param(True, id="bool"),
    pytest.param([VALID_TEXT], id="list"),
]


@pytest.mark.parametrize("arguments", NOT_A_STRING)
def test_rejected_not_a_string(arguments: object) -> None:
    """The arguments must be JSON text, never an already-parsed or binary value."""
    assert rejected(arguments).field == "arguments"


TEXT_PROBLEMS = [
    # invalid JSON
    pytest.param("", id="empty"),
    pytest.param("   ", id="whitespace-only"),
    pytest.param("{", id="unclosed"),
    pytest.param(VALID_TEXT[:-1], id="truncated"),
    pytest.param(VALID_TEXT + "}", id="trailing-brace"),
    pytest.param(VALID_TEXT + VALID_TEXT, id="two-objects"),
    pytest.param(VALID_TEXT + " x", id="trailing-garbage"),
    pytest.param("{" + BODY + ",}", id="trailing-comma"),
    pytest.param(VALID_TEXT.replace('"', "'"), id="single-quotes"),
    pytest.param("{" + BODY.replace('"title"', "title") + "}", id="unquoted-key"),
    pytest.param("/* c */" + VALID_TEXT, id="comment"),
    pytest.param(VALID_TEXT.replace("20}", "020}"), id="leading-zero"),
    pytest.param(VALID_TEXT.replace("20}", "+20}"), id="plus-sign"),
    pytest.param(VALID_TEXT.replace("RAG basics", "RAG\tbasics"), id="raw-tab-in-string"),
    pytest.param(VALID_TEXT.replace("RAG basics", "RAG\\x41"), id="bad-escape"),
    pytest.param("\ufeff" + VALID_TEXT, id="byte-order-mark"),
    # duplicate keys
    pytest.param("{" + BODY + ', "title": "RAG basics"}', id="duplicate-key-same-value"),
    pytest.param("{" + BODY + ', "minutes": 30}', id="duplicate-key-other-value"),
    pytest.param("{" + BODY + ', "titl\\u0065": "x"}', id="duplicate-key-escaped"),
    pytest.param(VALID_TEXT.replace('"RAG basics"', '{"a": 1, "a": 2}'), id="duplicate-key-nested"),
    # NaN, infinities and overflowing numbers
    pytest.param(VALID_TEXT.replace("20}", "NaN}"), id="NaN"),
    pytest.param(VALID_TEXT.replace("20}", "Infinity}"), id="Infinity"),
    pytest.param(VALID_TEXT.replace("20}", "-Infinity}"), id="-Infinity"),
    pytest.param(VALID_TEXT.replace("20}", "1e400}"), id="1e400"),
    pytest.param(VALID_TEXT.replace("20}", "-1e400}"), id="-1e400"),
    pytest.param(VALID_TEXT.replace("20}", "[1E999]}"), id="1E999-nested"),
    pytest.param('{"extra": NaN, ' + BODY + "}", id="NaN-in-extra-field"),
    # too long
    pytest.param(VALID_TEXT + " " * (4097 - len(VALID_TEXT)), id="4097-bytes-of-ascii"),
    pytest.param(plan_text(title="a" * 5000), id="5000-char-title"),
    pytest.param(plan_text(False, title="检" * 1400), id="1400-chars-over-4096-bytes"),
    pytest.param("[" * 100_000, id="deep-nesting"),
    # not an object
    pytest.param("[]", id="list-empty"),
    pytest.param("[" + VALID_TEXT + "]", id="list-holding-plan"),
    pytest.param('"' + VALID_TEXT.replace('"', '\\"') + '"', id="string-holding-plan"),
    pytest.param('"RAG basics"', id="string"),
    pytest.param("20", id="number"),
    pytest.param("1.5", id="fraction"),
    pytest.param("null", id="null"),
    pytest.param("true", id="true"),
]


@pytest.mark.parametrize("arguments", TEXT_PROBLEMS)
def test_rejected_text(arguments: str) -> None:
    """Problems of the text as a whole are reported against "arguments"."""
    assert rejected(arguments).field == "arguments"


# --- rejected: keys ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", FIELDS)
def test_rejected_missing_field(name: str) -> None:
    """Each of the four fields is required."""
    assert rejected(plan_text(**{name: DROP})).field == name


def test_rejected_empty_object() -> None:
    """An empty object misses every field; the error names one of them."""
    assert rejected("{}").field in FIELDS


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("approved", True),
        ("path", "/etc/passwd"),
        ("command", "rm -rf ~"),
        ("code", "print(1)"),
        ("Title", "RAG basics"),
        ("", None),
    ],
)
def test_rejected_extra_field(name: str, value: object) -> None:
    """Any key beyond the four is refused, and the error names it."""
    error = rejected(plan_text(**{name: value}))
    assert error.field not in FIELDS
    assert error.field != "arguments"
    assert json.dumps(name) in error.field or error.field == name


# --- rejected: one field's value ---------------------------------------------------------------

FIELD_PROBLEMS = [
    # title
    pytest.param("title", "RAG\tbasics", id="title-tab"),
    pytest.param("title", "RAG\nbasics", id="title-newline"),
    pytest.param("title", "RAG\rbasics", id="title-carriage-return"),
    pytest.param("title", "RAG\x00basics", id="title-nul"),
    pytest.param("title", "RAG\x07basics", id="title-bell"),
    pytest.param("title", "RAG\x1bbasics", id="title-escape"),
    pytest.param("title", "RAG\x7fbasics", id="title-delete"),
    pytest.param("title", "RAG\x85basics", id="title-next-line-c1"),
    pytest.param("title", "RAG\u202ebasics", id="title-bidi-override-U+202E"),
    pytest.param("title", "RAG\u200fbasics", id="title-right-to-left-mark-U+200F"),
    pytest.param("title", "RAG\u200bbasics", id="title-zero-width-space-U+200B"),
    pytest.param("title", "RAG\u200dbasics", id="title-zero-width-joiner-U+200D"),
    pytest.param("title", "RAG\ufeffbasics", id="title-BOM-U+FEFF"),
    pytest.param("title", "RAG\u2028basics", id="title-line-separator-U+2028"),
    pytest.param("title", "RAG\u2029basics", id="title-paragraph-separator-U+2029"),
    pytest.param("title", "RAG\ue000basics", id="title-private-use"),
    pytest.param("title", "RAG\U000e0001basics", id="title-language-tag"),
    pytest.param("title", "\u202e", id="title-only-bidi"),
    pytest.param("title", "", id="title-empty"),
    pytest.param("title", "     ", id="title-spaces-only"),
    pytest.param("title", "\u3000\u3000", id="title-u3000-only"),
    pytest.param("title", " \t\n ", id="title-whitespace-only"),
    pytest.param("title", "a" * 81, id="title-81-chars"),
    pytest.param("title", " " + "a" * 81 + " ", id="title-81-after-trim"),
    pytest.param("title", "检" * 81, id="title-81-chinese"),
    pytest.param("title", None, id="title-null"),
    pytest.param("title", 42, id="title-number"),
    pytest.param("title", ["RAG basics"], id="title-list"),
    pytest.param("title", {"text": "RAG basics"}, id="title-object"),
    # note_ids
    pytest.param("note_ids", [], id="note-ids-empty"),
    pytest.param("note_ids", ["N1", "N2", "N3", "N4"], id="note-ids-4-items"),
    pytest.param("note_ids", ["N1", "N2", "N3", "N1"], id="note-ids-4-with-repeat"),
    pytest.param("note_ids", "N1", id="note-ids-string"),
    pytest.param("note_ids", "N1,N2", id="note-ids-comma-string"),
    pytest.param("note_ids", ["N1", "N1"], id="note-ids-repeat"),
    pytest.param("note_ids", ["N9"], id="note-ids-unknown"),
    pytest.param("note_ids", ["N1", "N9"], id="note-ids-one-unknown"),
    pytest.param("note_ids", ["n1"], id="note-ids-wrong-case"),
    pytest.param("note_ids", ["N1 "], id="note-ids-padded"),
    pytest.param("note_ids", ["Ｎ1"], id="note-ids-full-width"),
    pytest.param("note_ids", [""], id="note-ids-empty-string"),
    pytest.param("note_ids", [1], id="note-ids-integer"),
    pytest.param("note_ids", [None], id="note-ids-null-item"),
    pytest.param("note_ids", [["N1"]], id="note-ids-nested-list"),
    pytest.param("note_ids", None, id="note-ids-null"),
    pytest.param("note_ids", {"N1": True}, id="note-ids-object"),
    # date
    pytest.param("date", "2026-02-30", id="date-february-30"),
    pytest.param("date", "2026-02-29", id="date-not-leap-year"),
    pytest.param("date", "2026-04-31", id="date-april-31"),
    pytest.param("date", "2026-10-5", id="date-short-day"),
    pytest.param("date", "2026-1-05", id="date-short-month"),
    pytest.param("date", "26-10-05", id="date-short-year"),
    pytest.param("date", "20261005", id="date-basic-format"),
    pytest.param("date", "2026/10/05", id="date-slashes"),
    pytest.param("date", "2026-10-05T00:00", id="date-with-time"),
    pytest.param("date", "2026-W40-1", id="date-week-format"),
    pytest.param("date", "\u0662\u0660\u0662\u0666-\u0661\u0660-\u0660\u0665", id="date-arabic"),
    pytest.param("date", "\uff12\uff10\uff12\uff16-\uff11\uff10-\uff10\uff15", id="date-fullwidth"),
    pytest.param("date", "2026\uff0d10\uff0d05", id="date-fullwidth-hyphens"),
    pytest.param("date", " 2026-10-05", id="date-leading-space"),
    pytest.param("date", "2026-10-05 ", id="date-trailing-space"),
    pytest.param("date", "2026-10-05\n", id="date-trailing-newline"),
    pytest.param("date", "0000-01-01", id="date-year-0"),
    pytest.param("date", "2026-13-01", id="date-month-13"),
    pytest.param("date", "2026-00-10", id="date-month-0"),
    pytest.param("date", "2026-10-00", id="date-day-0"),
    pytest.param("date", "tomorrow", id="date-relative"),
    pytest.param("date", "", id="date-empty"),
    pytest.param("date", 20261005, id="date-integer"),
    pytest.param("date", None, id="date-null"),
    pytest.param("date", [2026, 10, 5], id="date-list"),
    # minutes
    pytest.param("minutes", "20", id="minutes-string"),
    pytest.param("minutes", 20.0, id="minutes-float-20.0"),
    pytest.param("minutes", 20.5, id="minutes-fraction"),
    pytest.param("minutes", 1e2, id="minutes-1e2"),
    pytest.param("minutes", True, id="minutes-true"),
    pytest.param("minutes", False, id="minutes-false"),
    pytest.param("minutes", 0, id="minutes-0"),
    pytest.param("minutes", 121, id="minutes-121"),
    pytest.param("minutes", -1, id="minutes-negative"),
    pytest.param("minutes", 10**30, id="minutes-huge"),
    pytest.param("minutes", None, id="minutes-null"),
    pytest.param("minutes", [20], id="minutes-list"),
]


@pytest.mark.parametrize("ensure_ascii", [True, False], ids=["ascii", "utf8"])
@pytest.mark.parametrize(("name", "value"), FIELD_PROBLEMS)
def test_rejected_field(name: str, value: object, ensure_ascii: bool) -> None:
    """A bad value is refused, never converted, and the error names its field."""
    error = rejected(plan_text(ensure_ascii, **{name: value}))
    assert error.field == name
    assert error.rule


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        pytest.param("title", '"RAG\\ud800basics"', id="title-lone-high-surrogate"),
        pytest.param("title", '"RAG\\udc00basics"', id="title-lone-low-surrogate"),
        pytest.param("title", '"\\ud800"', id="title-only-surrogate"),
        pytest.param("title", '"RAG\\u0000"', id="title-escaped-nul-at-end"),
        pytest.param("title", '"\\u202eRAG"', id="title-escaped-bidi-at-start"),
        pytest.param("note_ids", '["N\\u0031", "N1"]', id="note-ids-escaped-repeat"),
        pytest.param("minutes", "1e2", id="minutes-exponent"),
        pytest.param("minutes", "20.0", id="minutes-20.0-text"),
        pytest.param("minutes", "-0", id="minutes-minus-zero"),
        pytest.param("minutes", "1E-400", id="minutes-underflow"),
    ],
)
def test_rejected_field_raw_json(name: str, raw: str) -> None:
    """Values written directly as JSON text (escapes, number forms) are checked too."""
    member = f'"{name}": {json.dumps(VALID[name])}'
    assert VALID_TEXT.count(member) == 1
    text = VALID_TEXT.replace(member, f'"{name}": {raw}')
    assert rejected(text).field == name


def test_rejection_message_names_field_and_rule() -> None:
    """The error's text names the field and the rule it broke."""
    error = rejected(plan_text(minutes=121))
    assert error.field == "minutes"
    assert "minutes" in str(error)
    assert error.rule in str(error)
    assert isinstance(error, ValueError)


def test_escaped_note_id_is_the_same_id() -> None:
    """A JSON escape that spells an existing ID is that ID, not a conversion."""
    text = VALID_TEXT.replace('"N1"', '"N\\u0031"')
    assert parse_arguments(text, NOTES).note_ids == ("N1", "N2")


# --- the tool definition -----------------------------------------------------------------------


def test_tool_definition() -> None:
    """One function tool, four required fields, nothing else allowed."""
    tool = tool_definition(["N2", "N1", "N3"])
    json.dumps(tool)  # it is sent as JSON
    assert tool["type"] == "function"
    function = tool["function"]
    assert function["name"] == "save_review_plan"
    assert function["description"]
    schema = function["parameters"]
    assert schema["type"] == "object"
    assert set(schema["required"]) == set(FIELDS)
    assert len(schema["required"]) == 4
    assert set(schema["properties"]) == {*FIELDS, "start"}
    assert schema["additionalProperties"] is False
    for forbidden in ("path", "command", "code", "approval", "approved", "confirm"):
        assert forbidden not in schema["properties"]
        assert forbidden not in schema["required"]


def test_tool_definition_field_schemas() -> None:
    """The schema describes the same limits that parse_arguments enforces."""
    properties = tool_definition({"N2", "N1", "N3"})["function"]["parameters"]["properties"]
    assert properties["title"]["type"] == "string"
    assert (properties["title"]["minLength"], properties["title"]["maxLength"]) == (1, 80)
    note_ids = properties["note_ids"]
    assert note_ids["type"] == "array"
    assert (note_ids["minItems"], note_ids["maxItems"]) == (1, 3)
    assert note_ids["uniqueItems"] is True
    assert note_ids["items"]["type"] == "string"
    assert sorted(note_ids["items"]["enum"]) == ["N1", "N2", "N3"]
    assert properties["date"]["type"] == "string"
    assert properties["minutes"]["type"] == "integer"
    assert (properties["minutes"]["minimum"], properties["minutes"]["maximum"]) == (1, 120)
    for name in FIELDS:
        assert properties[name].get("description")


@pytest.mark.parametrize("name", ["approved", "path", "command"])
def test_extra_field_is_named_plainly(name: str) -> None:
    """The message shows the extra key as the model wrote it."""
    error = rejected(plan_text(**{name: 1}))
    assert error.field == name and "is not an allowed field" in str(error)


@pytest.mark.parametrize("edge", ["\t", "\n", "\r", "\x1f", "\x85", "\u2028", "\u200b"])
def test_title_trimming_removes_spaces_only(edge: str) -> None:
    """Trimming drops spaces; a control or separator character at an end is rejected."""
    for title in (edge + "RAG", "RAG" + edge):
        assert rejected(plan_text(title=title)).field == "title"
    assert parse_arguments(plan_text(title="\u3000 RAG \u3000"), NOTES).title == "RAG"
