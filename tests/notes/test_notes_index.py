"""The notes index: Chinese and English search, a cache rebuilt when missing, damaged or
outdated, updated incrementally, private on disk."""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from note_files import folder_catalog, make_folder, write_note

from planner.notes import index as notes_index
from planner.notes.catalog import Note, NotesError, load_catalog
from planner.notes.folder import read_note, scan_folder
from planner.notes.index import INDEX_FILE, SNIPPET_CHARS, VERSION, memory_index, synced_index


def index_path(home: Path) -> Path:
    return home / ".planner" / INDEX_FILE


def found(catalog, query: str, limit: int = 50) -> set[str]:
    return {item["id"] for item in catalog.search(query, limit)[0]}


def age(folder: Path) -> None:
    """Date every file in `folder` back to one fixed day, as notes written a while ago are."""
    past = 1_700_000_000  # 2023-11-14: an unchanged file keeps the same time on every call
    for path in folder.rglob("*"):
        os.utime(path, (past, past), follow_symlinks=False)


def synced(home: Path, rebuild: bool = False) -> tuple[notes_index.NoteIndex, int]:
    """The index of home/notes and how many files this sync read."""
    folder = home / "notes"
    files, _ = scan_folder(folder)
    return synced_index(home / ".planner", str(folder.resolve()), files,
                        lambda entry: read_note(folder, entry), rebuild)


# --- Chinese and English -------------------------------------------------------------------------


@pytest.fixture
def mixed(home: Path):
    notes = home / "notes"
    write_note(notes, "a.md", "检索增强生成：先按问题检索相关片段，再交给模型。",
               title="RAG 的基本流程")
    write_note(notes, "b.md", "先检查拼写，再建立索引。", title="写作习惯")
    write_note(notes, "c.md", "Retrieval-augmented generation (RAG) retrieves chunks first.",
               title="RAG in English")
    write_note(notes, "d.md", "Un café au lait. 向量数据库按相似度检索最近的块。", title="Vectors")
    write_note(notes, "e.md", "RAG基础复习要点", title="复习")
    catalog = folder_catalog(home)
    yield catalog
    catalog.close()


def test_a_two_character_chinese_word_finds_the_notes_that_contain_it(mixed) -> None:
    # b.md holds 检 and 索 but never side by side: a word is not its characters scattered.
    assert found(mixed, "检索") == {"a", "d"}
    assert found(mixed, "索引") == {"b"}
    assert found(mixed, "检") == {"a", "b", "d"}
    assert found(mixed, "向量数据库") == {"d"}
    assert found(mixed, "检索相关片段") == {"a"}
    assert found(mixed, "检索 模型") == {"a"}
    assert found(mixed, "数据库 检索") == {"d"}
    assert found(mixed, "索检") == set()


def test_the_trigram_tokenizer_alone_would_miss_them() -> None:
    # Why the index is not a plain trigram table: fewer than three characters match nothing.
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='trigram')")
    db.execute("INSERT INTO t VALUES ('检索增强生成')")
    assert db.execute("SELECT count(*) FROM t WHERE t MATCH '\"检索\"'").fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM t WHERE t MATCH '\"检索增\"'").fetchone() == (1,)


def test_english_words_case_endings_and_accents(mixed) -> None:
    assert found(mixed, "RAG") == {"a", "c", "e"}
    assert found(mixed, "rag") == found(mixed, "Rag") == {"a", "c", "e"}
    assert found(mixed, "retrieve") == {"c"}  # porter: retrieves, retrieval, retrieve
    assert found(mixed, "cafe") == found(mixed, "café") == {"d"}
    assert found(mixed, "retrieval augmented") == {"c"}
    assert found(mixed, "RAG基础") == {"e"}
    assert found(mixed, "rag chunks") == {"c"}
    assert found(mixed, "nothing-here") == set()


def test_title_matches_rank_first_and_snippets_are_one_short_line(mixed) -> None:
    results, total = mixed.search("RAG", 10)
    assert total == 3 and results[0]["id"] in {"a", "c"}
    (hit,) = mixed.search("相似度", 5)[0]
    assert hit["snippet"] == "Un café au lait. 向量数据库按相似度检索最近的块。"
    write_note(mixed.folder, "long.md", ("前言。" * 200) + "目标词在这里。" + ("后记。" * 200))
    catalog = folder_catalog(mixed.folder.parent)
    (hit,) = catalog.search("目标词", 5)[0]
    assert "目标词" in hit["snippet"] and len(hit["snippet"]) <= SNIPPET_CHARS
    assert "\n" not in hit["snippet"] and "\x01" not in hit["snippet"]


def test_total_counts_every_match_and_limit_bounds_the_results(home: Path) -> None:
    make_folder(home / "notes", 120)
    catalog = folder_catalog(home)
    results, total = catalog.search("检索增强生成", 5)
    assert total == 20 and len(results) == 5
    assert len(catalog.search("笔记", None)[0]) == catalog.search("笔记", 1)[1] == 120
    rows, total = catalog.rows("retrieval", 3)
    assert total == 20 and len(rows) == 3
    assert all(set(row) == {"id", "title", "tags", "path", "snippet"} for row in rows)
    assert all(row["path"].endswith(".md") and "retrieval" in row["snippet"] for row in rows)


def test_each_term_is_one_phrase_asked_once() -> None:
    assert notes_index.match_expression("RAG rag 检索 RAG") == '"rag" AND "\x01检\x01索\x01"'
    assert notes_index.match_expression('a"b') == '"a""b"'
    assert notes_index.match_expression("— 。 ！") is None


NASTY = ['"', '""', "*", "AND", "OR NOT", "NEAR(a b)", "a:b", "title:RAG", "-x", "(", ")", "^",
         "\x01", "\x00", "'; DROP TABLE files; --", "检索\"", "'", "{a b}", "a + b", "。，、", "~"]


@pytest.mark.parametrize("query", NASTY)
def test_query_syntax_in_the_text_is_only_text(mixed, query: str) -> None:
    results, total = mixed.search(query, 5)
    assert len(results) == min(total, 5)
    assert found(mixed, "检索") == {"a", "d"}  # and the index is as it was


@pytest.fixture(scope="module")
def sample_index():
    index = memory_index()
    index.add(notes_index.Parsed(note.id, note.title, note.tags, note.text)
              for note in [Note("X1", "RAG 检索", "检索增强生成 retrieval"),
                           Note("X2", "Vectors", "向量 embeddings")])
    yield index
    index.close()


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=200))
def test_any_query_text_is_searched_without_error(sample_index, query: str) -> None:
    rows, total = sample_index.search(query, 10)
    assert len(rows) == min(total, 10)


# --- on disk: private, a cache ------------------------------------------------------------------


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o077])
def test_index_is_private_and_ignored_by_git(home: Path, umask: int) -> None:
    make_folder(home / "notes", 5)
    old = os.umask(umask)
    try:
        load_catalog(home, None).close()
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.lstat(home / ".planner").st_mode) == 0o700
    assert stat.S_IMODE(os.lstat(index_path(home)).st_mode) == 0o600
    assert (home / ".planner" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert sorted(p.name for p in (home / ".planner").iterdir()) == [".gitignore", INDEX_FILE]


def test_no_index_without_a_notes_folder(home: Path) -> None:
    (home / "notes.json").write_text('[{"id": "A", "title": "t", "text": "x"}]')
    load_catalog(home, None).rows(None, None)
    assert not (home / ".planner").exists()


def test_warm_index_reads_nothing_and_changes_read_only_the_changed_files(home: Path) -> None:
    notes = home / "notes"
    make_folder(notes, 50)
    age(notes)
    index, read = synced(home)
    index.close()
    assert read == 50
    index, read = synced(home)
    index.close()
    assert read == 0
    write_note(notes, "new.md", "全新的笔记 brand new")
    (notes / "topic1" / "note-0001.md").write_text("# Edited\n改过的内容 edited text\n")
    (notes / "topic2" / "note-0002.md").unlink()
    age(notes)
    index, read = synced(home)
    index.close()
    assert read == 2
    catalog = folder_catalog(home)
    assert "new" in catalog and "topic2/note-0002" not in catalog and len(catalog) == 50
    assert found(catalog, "改过的内容") == {"topic1/note-0001"}
    assert found(catalog, "brand new") == {"new"}
    assert catalog.get("topic1/note-0001").title == "Edited"


@pytest.mark.not_under_faketime("file times come from the kernel, not the moved clock")
def test_an_edit_in_the_same_clock_tick_with_the_same_size_is_found(home: Path) -> None:
    notes = home / "notes"
    path = write_note(notes, "a.md", "旧的内容 old words")
    catalog = folder_catalog(home)
    assert found(catalog, "旧的内容") == {"a"}
    catalog.close()
    before = os.stat(path)
    path.write_text("新的内容 new words")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size, same time
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size, before.st_mtime_ns, before.st_ino)
    catalog = folder_catalog(home)
    assert found(catalog, "新的内容") == {"a"} and found(catalog, "旧的内容") == set()


def test_deleted_index_is_rebuilt(home: Path) -> None:
    make_folder(home / "notes", 40)
    catalog = folder_catalog(home)
    before = catalog.search("检索增强生成", 50)
    catalog.close()
    index_path(home).unlink()
    catalog = folder_catalog(home)
    assert catalog.search("检索增强生成", 50) == before and len(catalog) == 40
    assert index_path(home).is_file()


def _garbage_header(path: Path) -> None:
    with open(path, "r+b") as handle:
        handle.write(b"this is not a database at all" * 4)


def _truncated(path: Path) -> None:
    os.truncate(path, os.path.getsize(path) // 3)


def _zeroed_middle(path: Path) -> None:
    size = os.path.getsize(path)
    with open(path, "r+b") as handle:
        handle.seek(4096)
        handle.write(b"\0" * (size - 8192))


def _random_pages(path: Path) -> None:
    size = os.path.getsize(path)
    with open(path, "r+b") as handle:
        for offset in range(4096, size, 4096):
            handle.seek(offset)
            handle.write(os.urandom(4096))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _other_version(path: Path) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE meta SET value = '0' WHERE key = 'version'")
        db.execute("DELETE FROM notes_fts")  # an old layout: if it were used, nothing is found
    db.close()


@pytest.mark.parametrize(
    "damage", [_garbage_header, _truncated, _zeroed_middle, _random_pages, _empty, _other_version]
)
def test_damaged_or_outdated_index_is_rebuilt(home: Path, damage) -> None:
    make_folder(home / "notes", 60)
    catalog = folder_catalog(home)
    before = (catalog.search("检索增强生成", 50), catalog.search("embedding", 50))
    catalog.close()
    damage(index_path(home))
    catalog = folder_catalog(home)
    assert (catalog.search("检索增强生成", 50), catalog.search("embedding", 50)) == before
    assert len(catalog) == 60 and catalog.get("G3").title == "Citation 3"
    catalog.close()
    db = sqlite3.connect(index_path(home))
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() == (VERSION,)
    db.close()


def test_index_of_another_folder_is_rebuilt(home: Path) -> None:
    write_note(home / "notes", "a.md", "第一个文件夹")
    write_note(home / "vault", "b.md", "第二个文件夹")
    assert list(folder_catalog(home)) == ["a"]
    catalog = folder_catalog(home, "vault")
    assert list(catalog) == ["b"] and found(catalog, "文件夹") == {"b"}


def test_index_that_is_a_link_is_replaced_and_its_target_untouched(home: Path,
                                                                   tmp_path: Path) -> None:
    write_note(home / "notes", "a.md", "内容")
    (home / ".planner").mkdir(mode=0o700)
    target = tmp_path / "elsewhere"
    target.write_text("keep me")
    os.symlink(target, index_path(home))
    catalog = folder_catalog(home)
    assert found(catalog, "内容") == {"a"}
    assert target.read_text() == "keep me" and not index_path(home).is_symlink()


def test_without_a_place_for_the_index_it_is_built_in_memory(home: Path) -> None:
    write_note(home / "notes", "a.md", "内容 text")
    (home / ".planner").write_text("a file where the folder would be")
    catalog = folder_catalog(home)
    assert found(catalog, "内容") == {"a"}
    (warning,) = catalog.warnings
    assert warning.startswith(f"the notes index cannot be kept in {home / '.planner'}")
    assert "built in memory" in warning
    assert (home / ".planner").read_text() == "a file where the folder would be"


def test_index_damaged_during_a_run_is_rebuilt_and_the_search_answers(home: Path) -> None:
    make_folder(home / "notes", 30)
    catalog = folder_catalog(home)
    expected = catalog.search("检索增强生成", 10)
    catalog._index._db.close()  # as if the file went bad under the open catalog
    assert catalog.search("检索增强生成", 10) == expected
    catalog._index._db.close()
    assert catalog.get("G0").title == "Retrieval 0"


def test_a_catalog_answers_from_another_thread_without_a_rebuild(home: Path) -> None:
    import threading

    make_folder(home / "notes", 30)
    catalog = folder_catalog(home)
    before = os.stat(index_path(home)).st_ino
    answers = []
    worker = threading.Thread(target=lambda: answers.append(
        (catalog.search("检索增强生成", 3), catalog.get("G0").title)))
    worker.start()
    worker.join()
    assert answers == [(catalog.search("检索增强生成", 3), "Retrieval 0")]
    assert os.stat(index_path(home)).st_ino == before and catalog.warnings == ()


def test_an_interrupted_build_leaves_the_old_index_and_no_temporary_file(home: Path) -> None:
    notes = home / "notes"
    make_folder(notes, 10)
    age(notes)
    folder_catalog(home).close()
    before = index_path(home).read_bytes()

    def interrupted(entry):
        raise KeyboardInterrupt

    folder = notes.resolve()
    files, _ = scan_folder(notes)
    with pytest.raises(KeyboardInterrupt):
        synced_index(home / ".planner", str(folder), files, interrupted, rebuild=True)
    assert index_path(home).read_bytes() == before
    assert sorted(p.name for p in (home / ".planner").iterdir()) == [".gitignore", INDEX_FILE]


@pytest.mark.not_under_faketime("file times come from the kernel, not the moved clock")
def test_old_temporary_files_are_swept_by_the_next_build(home: Path) -> None:
    write_note(home / "notes", "a.md", "x")
    (home / ".planner").mkdir(mode=0o700)
    old = home / ".planner" / f".{INDEX_FILE}.dead0001.tmp"
    recent = home / ".planner" / f".{INDEX_FILE}.live0002.tmp"
    old.write_bytes(b"left by a killed build")
    recent.write_bytes(b"another planner building right now")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    folder_catalog(home).close()
    assert not old.exists() and recent.exists()


def test_two_catalogs_on_one_index(home: Path) -> None:
    notes = home / "notes"
    make_folder(notes, 20)
    first = folder_catalog(home)
    write_note(notes, "later.md", "后来加的")
    second = folder_catalog(home)
    assert "later" in second
    assert found(second, "后来") == {"later"}
    assert len(first.search("笔记", None)[0]) == 20  # the first one still answers
    first.close()
    second.close()


def test_index_errors_become_one_notes_error(home: Path, monkeypatch) -> None:
    write_note(home / "notes", "a.md", "x")

    def broken(*args, **kwargs):
        raise notes_index.IndexFailed("disk I/O error")

    monkeypatch.setattr(notes_index, "synced_index", broken)
    monkeypatch.setattr(notes_index, "memory_index", broken)
    with pytest.raises(NotesError, match=r"cannot be indexed \(disk I/O error\)"):
        load_catalog(home, None)
