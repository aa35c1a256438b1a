"""search_notes and get_note: strict argument checks, bounded results, real notes behind them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from note_files import folder_catalog, make_folder, write_note

from planner.base import storage
from planner.conversation.lookups import (
    DEFAULT_LIMIT,
    MAX_TEXT,
    GetArguments,
    SearchArguments,
    check_get,
    check_search,
    lookup_tools,
    run_get,
    run_search,
)
from planner.conversation.tools import MAX_RESULT_BYTES, Registry
from planner.notes.catalog import load_catalog
from planner.plans.plan import InvalidArguments

CORPUS_FILES = sorted((Path(__file__).parent.parent / "jsontestsuite").glob("*.json"))


def size(result: dict) -> int:
    """As the flow measures a lookup's result before sending it."""
    return len(storage.to_json(result))


def rejected(check, arguments: object) -> InvalidArguments:
    with pytest.raises(InvalidArguments) as caught:
        check(arguments)
    return caught.value


# --- the tools in the registry -------------------------------------------------------------------


def test_two_read_only_tools_with_strict_schemas(home: Path) -> None:
    search, get = lookup_tools(load_catalog(home, None))
    assert (search.name, get.name) == ("search_notes", "get_note")
    assert not search.needs_confirmation and not get.needs_confirmation
    assert search.run is not None and get.run is not None
    registry = Registry([search, get])
    for definition in registry.definitions():
        assert definition["type"] == "function"
        parameters = definition["function"]["parameters"]
        assert parameters["additionalProperties"] is False
        assert definition["function"]["description"]
    query = search.schema["function"]["parameters"]["properties"]
    assert query["query"]["maxLength"] == 200 and query["limit"]["maximum"] == 10
    assert search.schema["function"]["parameters"]["required"] == ["query"]
    assert get.schema["function"]["parameters"]["required"] == ["id"]


def test_tools_run_through_the_registry_on_a_folder(home: Path) -> None:
    make_folder(home / "notes", 40)
    search, get = lookup_tools(folder_catalog(home))
    result = search.run(search.check('{"query": "检索增强生成"}'))
    assert result["total"] == 7 and len(result["results"]) == DEFAULT_LIMIT
    assert all(set(item) == {"id", "title", "snippet"} for item in result["results"])
    note = get.run(get.check(json.dumps({"id": result["results"][0]["id"]})))
    assert set(note) == {"id", "title", "tags", "text"} and "检索增强生成" in note["text"]
    assert get.run(get.check('{"id": "N1"}')) == {"error": "no note with this ID"}


# --- checking the arguments ----------------------------------------------------------------------


def test_search_arguments_accepted() -> None:
    assert check_search('{"query": "检索"}') == SearchArguments("检索", DEFAULT_LIMIT)
    assert check_search('{"query": " RAG　basics ", "limit": 10}') == SearchArguments(
        "RAG　basics", 10)
    assert check_search(json.dumps({"query": "x" * 200, "limit": 1})).limit == 1


@pytest.mark.parametrize(
    ("arguments", "field", "rule"),
    [
        ({"query": "x"}, "arguments", "must be a JSON text"),
        (None, "arguments", "must be a JSON text"),
        ("not json", "arguments", "are not valid JSON"),
        ('["query"]', "arguments", "must be a JSON object"),
        ('{"query": "a", "query": "b"}', "arguments", 'repeat the key "query"'),
        ('{"query": "a", "limit": NaN}', "arguments", "NaN"),
        ('{"query": "a", "limit": Infinity}', "arguments", "Infinity"),
        ('{"query": "a", "limit": 1e999}', "arguments", "overflows"),
        (json.dumps({"query": "a", "pad": "x" * 5000}), "arguments", "longer than 4096 bytes"),
        ("[" * 100000, "arguments", "longer than 4096 bytes"),
        ("{}", "query", "is required but missing"),
        ('{"limit": 3}', "query", "is required but missing"),
        ('{"query": "a", "approved": true}', "approved", "is not an allowed field"),
        ('{"query": "a", "path": "/etc"}', "path", "is not an allowed field"),
        ('{"query": 5}', "query", "must be a string, got an integer 5"),
        ('{"query": ["a"]}', "query", "must be a string, got a list"),
        ('{"query": null}', "query", "must be a string, got null"),
        ('{"query": ""}', "query", "is empty after trimming spaces"),
        ('{"query": " \\u3000 "}', "query", "is empty after trimming spaces"),
        (json.dumps({"query": "x" * 201}), "query", "has 201 characters; at most 200"),
        ('{"query": "a\\nb"}', "query", "non-printable character U+000A"),
        ('{"query": "a\\tb"}', "query", "non-printable character U+0009"),
        ('{"query": "\\u202eab"}', "query", "non-printable character U+202E"),
        ('{"query": "\\u001b[31m"}', "query", "non-printable character U+001B"),
        ('{"query": "a", "limit": "5"}', "limit", 'must be an integer, got a string "5"'),
        ('{"query": "a", "limit": 5.0}', "limit", "must be an integer, got a number"),
        ('{"query": "a", "limit": true}', "limit", "must be an integer, got a boolean"),
        ('{"query": "a", "limit": null}', "limit", "must be an integer, got null"),
        ('{"query": "a", "limit": 0}', "limit", "must be from 1 to 10, got 0"),
        ('{"query": "a", "limit": 11}', "limit", "must be from 1 to 10, got 11"),
        ('{"query": "a", "limit": -1}', "limit", "must be from 1 to 10, got -1"),
    ],
)
def test_search_arguments_refused(arguments: object, field: str, rule: str) -> None:
    error = rejected(check_search, arguments)
    assert error.field == field and rule in error.rule, str(error)


def test_get_arguments_accepted() -> None:
    assert check_get('{"id": "rag/basics"}') == GetArguments("rag/basics")
    assert check_get('{"id": " N1"}') == GetArguments(" N1")  # exact: looked up as given


@pytest.mark.parametrize(
    ("arguments", "field", "rule"),
    [
        ("{}", "id", "is required but missing"),
        ('{"id": "N1", "text": "x"}', "text", "is not an allowed field (only id)"),
        ('{"id": "N1", "id": "N2"}', "arguments", 'repeat the key "id"'),
        ('{"id": 1}', "id", "must be a string, got an integer 1"),
        ('{"id": ["N1"]}', "id", "must be a string, got a list"),
        ('{"id": ""}', "id", "is empty"),
        (json.dumps({"id": "x" * 501}), "id", "has 501 characters; at most 500"),
        ('{"id": "N1\\n"}', "id", "non-printable character U+000A"),
        ('"N1"', "arguments", "must be a JSON object, got a string"),
    ],
)
def test_get_arguments_refused(arguments: object, field: str, rule: str) -> None:
    error = rejected(check_get, arguments)
    assert error.field == field and rule in error.rule, str(error)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=[path.name for path in CORPUS_FILES])
def test_corpus_file_never_crashes_either_check(path: Path) -> None:
    text = path.read_bytes().decode("utf-8", errors="replace")
    for check in (check_search, check_get):
        try:
            check(text)
        except InvalidArguments:
            continue
        pytest.fail(f"{path.name} accepted by {check.__name__}")


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(
    st.text(max_size=300),
    st.dictionaries(st.text(max_size=8), st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=250),
        st.lists(st.integers(), max_size=3)), max_size=4).map(json.dumps),
))
def test_any_arguments_are_checked_or_refused_never_crash(arguments: str) -> None:
    for check in (check_search, check_get):
        try:
            result = check(arguments)
        except InvalidArguments:
            continue
        data = json.loads(arguments)
        if check is check_search:
            assert set(data) <= {"query", "limit"} and isinstance(data["query"], str)
            assert type(result.limit) is int and 1 <= result.limit <= 10
            assert 1 <= len(result.query) <= 200
        else:
            assert set(data) == {"id"} and result.id == data["id"]


# --- bounded results -----------------------------------------------------------------------------


def test_a_long_note_is_cut_at_3000_characters_and_says_so(home: Path) -> None:
    text = "".join(f"word{n} " for n in range(2000))  # ASCII: 3,000 characters fit in 4 KiB
    write_note(home / "notes", "long.md", text)
    result = run_get(folder_catalog(home), GetArguments("long"))
    assert result["text"].startswith(text[:MAX_TEXT])
    assert result["text"].endswith(f"[cut: the first 3,000 of {len(text):,} characters are "
                                   "shown; the rest of this note is not]")
    assert size(result) <= MAX_RESULT_BYTES


def test_a_long_chinese_note_is_cut_to_fit_4_kib_and_says_so(home: Path) -> None:
    text = "检索增强生成的要点。" * 500
    tags = [f"标签{n}" * 15 for n in range(40)]
    write_note(home / "notes", "长笔记.md", text, tags=tags, title="标" * 500)
    result = run_get(folder_catalog(home), GetArguments("长笔记"))
    shown = result["text"].split("\n[cut: the first ")[0]
    assert text.startswith(shown) and 800 < len(shown) < MAX_TEXT
    assert f"of {len(text):,} characters are shown" in result["text"]
    assert len(result["tags"]) == 10 and size(result) <= MAX_RESULT_BYTES
    assert MAX_RESULT_BYTES - size(result) < 100  # cut no more than needed


def test_a_short_note_is_whole(home: Path) -> None:
    write_note(home / "notes", "a.md", "短\n笔记", title="T", tags=["x"])
    result = run_get(folder_catalog(home), GetArguments("a"))
    assert result == {"id": "a", "title": "T", "tags": ["x"], "text": "短\n笔记"}


def test_search_results_fit_4_kib_even_with_huge_ids_and_titles(home: Path) -> None:
    notes = home / "notes"
    for number in range(12):
        write_note(notes, f"{number}.md", "检索 " + "长文本" * 300,
                   id=f"{number}-" + "很长的编号" * 99, title="很长的标题" * 60)
    catalog = folder_catalog(home)
    result = run_search(catalog, SearchArguments("检索", 10))
    assert result["total"] == 12 and 1 <= len(result["results"]) < 10
    assert size(result) <= MAX_RESULT_BYTES


def test_ten_ordinary_results_fit_whole(home: Path) -> None:
    make_folder(home / "notes", 200)
    result = run_search(folder_catalog(home), SearchArguments("笔记", 10))
    assert len(result["results"]) == 10 and result["total"] == 200
    assert size(result) <= MAX_RESULT_BYTES


def test_unknown_ids_and_samples(home: Path) -> None:
    catalog = load_catalog(home, None)
    assert run_get(catalog, GetArguments("N9")) == {"error": "no note with this ID"}
    assert run_get(catalog, GetArguments("N1"))["title"] == "RAG 的基本流程"
    result = run_search(catalog, SearchArguments("向量", 5))
    assert [item["id"] for item in result["results"]] == ["N2"] and result["total"] == 1


def test_another_tools_bad_argument_is_said_in_chinese() -> None:
    from planner.base import i18n
    from planner.conversation.turn_values import argument_problem

    rule = i18n.t("must be an integer from 0 to {most}", most=60)
    line = argument_problem("free_slots", InvalidArguments("days", rule))
    assert line == "free_slots days: must be an integer from 0 to 60"
    i18n.install("zh")
    try:
        # The tool's name and the field stay as the model wrote them; the rule is Chinese.
        assert i18n.shown(line) == "free_slots days：必须是 0 到 60 的整数"
    finally:
        i18n.install("en")
