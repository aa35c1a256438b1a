"""Search across Chinese and Japanese forms: simplified, traditional and Japanese forms of the same
characters find each other in `planner notes QUERY` and the model's search_notes, while every
screen shows the note's own text."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_planner
from note_files import write_note

from planner.conversation.lookups import check_search, run_search
from planner.notes import index as notes_index
from planner.notes.catalog import ListCatalog, Note, load_catalog
from planner.notes.folding import fold

INDEX = Path(".planner") / "notes-index.sqlite3"


# --- the fold itself ------------------------------------------------------------------------------


@pytest.mark.parametrize(("forms", "folded"), [
    (("読", "讀", "读"), "读"),  # Japanese, traditional, simplified
    (("語", "语"), "语"),
    (("敬語", "敬语"), "敬语"),
    (("読解", "讀解", "读解"), "读解"),
    (("図書館", "圖書館", "图书馆"), "图书馆"),
])
def test_the_forms_of_a_character_fold_together(forms: tuple[str, ...], folded: str) -> None:
    assert {fold(form) for form in forms} == {folded}


def test_a_fold_keeps_everything_else_and_the_length() -> None:
    for text in ("RAG retrieval, Straße — naïve", "", "a\x00b\x01c", "读解の練習、敬語と語彙。"):
        assert len(fold(text)) == len(text)
    assert fold("RAG retrieval, Straße — naïve") == "RAG retrieval, Straße — naïve"
    # Kana and punctuation stay; only the ideographs change form.
    assert fold("読解の練習、敬語。") == "读解の练习、敬语。"


def test_english_text_never_loads_opencc() -> None:
    code = ("import sys; from planner.notes.folding import fold; fold('retrieval RAG'); "
            "print('opencc' in sys.modules); fold('敬語'); print('opencc' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.split() == ["False", "True"]


# --- the index: folded text in, the note's own text out -----------------------------------------


JAPANESE = Note("J1", "敬語の基本", "尊敬語と謙譲語を区別する。読解の練習は毎日。", ("日本語",))
TRADITIONAL = Note("T1", "閱讀理解", "讀解與語法：先讀後寫。")
SIMPLIFIED = Note("S1", "敬语小结", "中文里的敬语：您、贵姓、请问。")


def search(query: str, notes: tuple[Note, ...] = (JAPANESE, TRADITIONAL, SIMPLIFIED)) -> dict:
    catalog = ListCatalog(notes, "notes.json")
    try:
        items, total = catalog.search(query, 10)
    finally:
        catalog.close()
    assert total == len(items)
    return {item["id"]: item["snippet"] for item in items}


@pytest.mark.parametrize(("query", "found"), [
    ("敬语", {"J1", "S1"}),  # simplified finds Japanese and simplified
    ("敬語", {"J1", "S1"}),  # and the reverse
    ("读解", {"J1", "T1"}),  # 読解 (Japanese) and 讀解 (traditional)
    ("読解", {"J1", "T1"}),
    ("讀解", {"J1", "T1"}),
    ("日本语", {"J1"}),  # tags are folded too
    ("阅读", {"T1"}),  # and titles
    ("检索", set()),
])
def test_every_form_finds_every_form(query: str, found: set[str]) -> None:
    assert set(search(query)) == found


def test_snippets_and_texts_are_the_notes_own() -> None:
    snippets = search("读解")
    assert "読解の練習" in snippets["J1"] and "讀解與語法" in snippets["T1"]
    assert "读" not in snippets["J1"] + snippets["T1"]
    catalog = ListCatalog((JAPANESE,), "notes.json")
    assert catalog.get("J1") == JAPANESE
    catalog.close()


def test_a_snippet_from_the_middle_of_a_long_note_is_cut_from_its_own_text() -> None:
    long = Note("L1", "長文", "前置き。" * 80 + "ここで敬語を読む。" + "後書き。" * 80)
    (snippet,) = search("敬语", (long,)).values()
    assert snippet.startswith("…") and snippet.endswith("…") and "ここで敬語を読む" in snippet
    assert len(snippet) <= notes_index.SNIPPET_CHARS


def test_the_models_search_notes_matches_across_forms() -> None:
    catalog = ListCatalog((JAPANESE, TRADITIONAL, SIMPLIFIED), "notes.json")
    result = run_search(catalog, check_search(json.dumps({"query": "读解", "limit": 5})))
    catalog.close()
    assert result["total"] == 2
    assert {item["id"] for item in result["results"]} == {"J1", "T1"}
    assert any("読解" in item["snippet"] for item in result["results"])


# --- a notes folder, through the command --------------------------------------------------------


def test_planner_notes_finds_japanese_notes_with_a_chinese_query(home: Path) -> None:
    write_note(home / "notes", "jlpt/keigo.md", "尊敬語と謙譲語。読解の練習。", title="敬語")
    write_note(home / "notes", "zh.md", "检索增强生成。")
    result = run_planner("notes", "--json", "敬语")
    assert result.returncode == 0 and result.stderr == ""
    (row,) = json.loads(result.stdout)
    assert (row["id"], row["title"]) == ("jlpt/keigo", "敬語")
    assert "尊敬語と謙譲語" in row["snippet"]
    table = run_planner("notes", "读解")
    assert table.returncode == 0 and "jlpt/keigo" in table.stdout and "読解" in table.stdout
    # The index holds the folded text and the note's own beside it.
    with sqlite3.connect(home / INDEX) as db:
        (body,) = db.execute("SELECT body FROM notes_fts WHERE id LIKE 'jlpt%'").fetchone()
        (original,) = db.execute("SELECT original FROM files WHERE path = 'jlpt/keigo.md'"
                                 ).fetchone()
    assert "读" in body and "読" not in body and original == "尊敬語と謙譲語。読解の練習。"


def test_an_index_of_the_old_version_is_built_again(home: Path) -> None:
    write_note(home / "notes", "keigo.md", "尊敬語と謙譲語。")
    assert run_planner("notes", "--json", "敬语").returncode == 0
    with sqlite3.connect(home / INDEX) as db:
        # As version 3 left it: the text as written, not folded.
        db.execute("UPDATE meta SET value = '3' WHERE key = 'version'")
        db.execute("UPDATE notes_fts SET body = '尊敬語と謙譲語。'")
        db.execute("DELETE FROM meta WHERE key = 'scan'")
    rows = json.loads(run_planner("notes", "--json", "敬语").stdout)
    assert [row["id"] for row in rows] == ["keigo"]
    with sqlite3.connect(home / INDEX) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == (
            notes_index.VERSION,)


@pytest.mark.parametrize("damage", [
    "UPDATE meta SET value = substr(value, 1, length(value) - 1) WHERE key = 'folds'",
    "UPDATE meta SET value = substr(value, 1, length(value) - 2) WHERE key = 'folds'",
    "UPDATE meta SET value = 42 WHERE key = 'folds'",
    "UPDATE meta SET value = x'00ff' WHERE key = 'folds'",
    "UPDATE meta SET value = '' WHERE key = 'folds'",
    "UPDATE meta SET value = 'abcd' WHERE key = 'folds'",
    "UPDATE meta SET value = substr(value, 2) || substr(value, 1, 1) WHERE key = 'folds'",
    "DELETE FROM meta WHERE key = 'folds'",
], ids=["odd-cut", "pair-cut", "integer", "blob", "empty", "ascii", "shifted", "missing"])
def test_a_damaged_fold_table_makes_the_index_rebuild(home: Path, damage: str) -> None:
    write_note(home / "notes", "jlpt/keigo.md", "尊敬語と謙譲語。読解の練習。", title="敬語")
    assert run_planner("notes", "--json", "读解").returncode == 0  # the index is built
    with sqlite3.connect(home / INDEX) as db:
        table = db.execute("SELECT value FROM meta WHERE key = 'folds'").fetchone()
        db.execute(damage)
    for query in ("读解", "讀解", "読解"):
        result = run_planner("notes", "--json", query)
        assert result.returncode == 0 and result.stderr == "", result.stderr
        assert [row["id"] for row in json.loads(result.stdout)] == ["jlpt/keigo"]
    with sqlite3.connect(home / INDEX) as db:  # built again, with a sound table
        assert db.execute("SELECT value FROM meta WHERE key = 'folds'").fetchone() == table


@pytest.mark.parametrize("query", [b"\xff", "敬".encode() + b"\xff", b"\xed\xa0\x80"],
                         ids=["lone-byte", "after-a-word", "encoded-surrogate"])
@pytest.mark.parametrize("json_flag", [(), ("--json",)], ids=["table", "json"])
def test_a_query_that_is_not_utf8_is_one_line_exit_2(home: Path, query: bytes,
                                                     json_flag: tuple[str, ...]) -> None:
    write_note(home / "notes", "zh.md", "检索增强生成。")
    result = subprocess.run([str(Path(sys.executable).with_name("planner")), "notes",
                             *json_flag, query], capture_output=True, cwd=home)
    assert result.returncode == 2
    error = result.stderr.decode()
    assert error.startswith("Error: QUERY holds text that is not UTF-8 (") and \
        error.count("\n") == 1 and "\\udc" in error
    assert "Traceback" not in error
    if json_flag:
        assert json.loads(result.stdout)["exit_code"] == 2


def test_a_folder_catalog_gives_the_model_the_notes_own_text(home: Path) -> None:
    write_note(home / "notes", "keigo.md", "尊敬語と謙譲語。", title="敬語")
    catalog = load_catalog(home, None)
    try:
        note = catalog.get("keigo")
        assert note is not None and note.text == "尊敬語と謙譲語。" and note.title == "敬語"
        items, total = catalog.search("谦让语", 5)
        assert total == 1 and items[0]["snippet"] == "尊敬語と謙譲語。"
    finally:
        catalog.close()


def test_a_fold_settles_where_the_tables_chain() -> None:
    # OpenCC turns 滬 into 沪 and 沪 (a Japanese form to it) into 滤: both fold to where the
    # chain ends, so the traditional and simplified forms still find each other.
    assert fold("滬") == fold("沪")
    for text in ("滬沪", "戱戯", "敘叙敍", "読讀读"):
        assert fold(fold(text)) == fold(text)
