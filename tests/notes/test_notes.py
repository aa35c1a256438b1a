"""Where the notes come from and what a note is: folder rules, notes.json rules, the catalog."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from note_files import folder_catalog, make_folder, write_note

from planner.notes.catalog import (
    LISTED_MAX_BYTES,
    MAX_WARNINGS,
    SAMPLE_NOTES,
    Note,
    NotesError,
    listing,
    load_catalog,
)

# --- where the notes come from ------------------------------------------------------------------


def test_samples_when_nothing_else(home: Path) -> None:
    catalog = load_catalog(home, None)
    assert catalog.source == "samples" and list(catalog) == ["N1", "N2", "N3"]
    assert catalog.listed() == SAMPLE_NOTES and not catalog.offers_lookups
    assert catalog.get("N1") == SAMPLE_NOTES[0] and catalog.get("n1") is None
    assert "N2" in catalog and "N9" not in catalog and len(catalog) == 3
    assert not (home / ".planner").exists()


def test_notes_json_when_no_folder(home: Path) -> None:
    (home / "notes.json").write_text(json.dumps(
        [{"id": "A7", "title": "向量数据库", "text": "索引与召回", "tags": ["db"], "extra": 1}],
        ensure_ascii=False))
    catalog = load_catalog(home, None)
    assert catalog.source == "notes.json" and list(catalog) == ["A7"]
    assert catalog.get("A7") == Note("A7", "向量数据库", "索引与召回", ("db",), None)
    assert not catalog.offers_lookups


def test_the_default_notes_folder_wins_over_notes_json(home: Path) -> None:
    (home / "notes.json").write_text('[{"id": "A7", "title": "t", "text": "x"}]')
    write_note(home / "notes", "rag/basics.md", "text")
    catalog = folder_catalog(home)
    assert list(catalog) == ["rag/basics"] and catalog.offers_lookups


def test_notes_dir_relative_to_home_wins(home: Path) -> None:
    write_note(home / "notes", "a.md", "default folder")
    write_note(home / "vault" / "sub", "b.md", "configured folder")
    catalog = folder_catalog(home, "vault/sub")
    assert list(catalog) == ["b"]
    assert catalog.get("b").text == "configured folder"


@pytest.mark.parametrize("make", ["missing", "file"])
def test_notes_dir_that_is_not_a_folder_is_an_error(home: Path, make: str) -> None:
    if make == "file":
        (home / "vault").write_text("not a folder")
    with pytest.raises(NotesError) as caught:
        load_catalog(home, "vault")
    message = str(caught.value)
    assert message.startswith("notes_dir: ") and "vault" in message
    assert ("does not exist" if make == "missing" else "is not a folder") in message
    assert "\n" not in message


# --- what a note is -----------------------------------------------------------------------------


def test_ids_from_front_matter_or_the_relative_path(home: Path) -> None:
    notes = home / "notes"
    write_note(notes, "rag/deep/basics.md", "body")
    write_note(notes, "rag/named.md", "body", id="R1")
    write_note(notes, "top.md", "body", id="  spaced id  ")
    write_note(notes, "空格　名字.md", "full-width space in the name")
    catalog = folder_catalog(home)
    assert set(catalog) == {"rag/deep/basics", "R1", "spaced id", "空格　名字"}
    assert catalog.get("R1").path == "rag/named.md"
    assert catalog.get("rag/deep/basics").path == "rag/deep/basics.md"


def test_yaml_scalars_stay_the_text_written(home: Path) -> None:
    notes = home / "notes"
    (notes).mkdir()
    (notes / "a.md").write_text("---\nid: 0123\ntitle: 2026-10-05\ntags: yes\n---\nbody\n")
    (notes / "b.md").write_text("---\nid: 42\ntitle: no\n---\n")
    catalog = folder_catalog(home)
    assert set(catalog) == {"0123", "42"}
    assert catalog.get("0123").title == "2026-10-05" and catalog.get("0123").tags == ("yes",)
    assert catalog.get("42").title == "no" and catalog.get("42").text == ""


@pytest.mark.parametrize(
    ("body", "front", "title"),
    [
        ("# Heading title\n\ntext", {"title": "Front title"}, "Front title"),
        ("\n\n  # Heading title #\n\ntext", {}, "Heading title"),
        ("# 检索的基本流程\ntext", {}, "检索的基本流程"),
        ("First line\n\n# Later heading\n", {}, "file-name"),
        ("#tag is not a heading\n", {}, "file-name"),
        ("## Second level\n", {}, "file-name"),
        ("", {}, "file-name"),
        ("# Heading\n", {"title": ""}, "Heading"),
        ("text", {"title": "  many   spaces\tand tab "}, "many spaces and tab"),
    ],
)
def test_title_from_front_matter_then_first_heading_then_file_name(
    home: Path, body: str, front: dict, title: str
) -> None:
    write_note(home / "notes", "dir/file-name.md", body, **front)
    catalog = folder_catalog(home)
    (note_id,) = list(catalog)
    assert catalog.get(note_id).title == title


def test_text_is_the_body_without_front_matter_and_tags_are_kept(home: Path) -> None:
    notes = home / "notes"
    write_note(notes, "a.md", "# Title\nbody line\n", tags=["rag", "#检索", "rag", " "])
    write_note(notes, "b.md", "body", tags="alpha, #beta gamma")
    (notes / "c.md").write_text("\ufeff---\r\ntitle: CRLF note\r\n---\r\ncrlf body\r\n")
    catalog = folder_catalog(home)
    assert catalog.get("a") == Note("a", "Title", "# Title\nbody line\n", ("rag", "检索"), "a.md")
    assert catalog.get("b").tags == ("alpha", "beta", "gamma")
    assert catalog.get("c").title == "CRLF note" and catalog.get("c").text == "crlf body\r\n"


def test_hidden_folders_links_and_other_files_are_not_notes(home: Path, tmp_path: Path) -> None:
    notes = home / "notes"
    write_note(notes, "real.md", "the one note")
    write_note(notes, ".obsidian/workspace.md", "hidden folder")
    write_note(notes, ".git/x.md", "hidden folder")
    write_note(notes, "sub/.draft.md", "hidden file")
    write_note(notes, "readme.txt", "not markdown")
    write_note(notes, "sub/notes.md.bak", "not markdown")
    outside = write_note(tmp_path / "outside", "secret.md", "outside the folder")
    os.symlink(outside, notes / "link.md")
    os.symlink(outside.parent, notes / "linked-folder")
    os.symlink(notes / "real.md", notes / "sub" / "inner-link.md")
    catalog = folder_catalog(home)
    assert list(catalog) == ["real"] and catalog.warnings == ()


def test_bad_files_are_skipped_with_one_warning_each(home: Path) -> None:
    notes = home / "notes"
    write_note(notes, "good.md", "fine")
    (notes / "big.md").write_bytes(b"x" * (1024 * 1024 + 1))
    (notes / "latin1.md").write_bytes("caf\xe9".encode("latin-1"))
    (notes / "bad-yaml.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    (notes / "unclosed.md").write_text("---\ntitle: x\nbody without a closing line\n")
    (notes / "list.md").write_text("---\n- a\n- b\n---\nbody\n")
    (notes / "tags.md").write_text("---\ntags: {a: b}\n---\nbody\n")
    (notes / "title.md").write_text("---\ntitle: [a, b]\n---\nbody\n")
    (notes / "id.md").write_text('---\nid: "two\\nlines"\n---\nbody\n')
    os.mkfifo(notes / "pipe.md")
    catalog = folder_catalog(home)
    assert list(catalog) == ["good"]
    reasons = {
        "bad-yaml.md": "front matter is not valid YAML",
        "big.md": "larger than 1 MiB",
        "id.md": "its ID must be one line of printable text",
        "latin1.md": "not UTF-8 text",
        "list.md": "front matter is not a YAML mapping",
        "pipe.md": "not a regular file",
        "tags.md": "front matter `tags:` must be a list of words",
        "title.md": "front matter `title:` must be text",
        "unclosed.md": "has no closing --- line",
    }
    assert len(catalog.warnings) == len(reasons) == MAX_WARNINGS - 1
    for line, (name, reason) in zip(catalog.warnings, sorted(reasons.items()), strict=True):
        assert line.startswith(f"skipped {notes / name}: ") and reason in line, line
        assert "\n" not in line


def test_bad_yaml_warning_names_the_line(home: Path) -> None:
    (home / "notes").mkdir()
    (home / "notes" / "x.md").write_text("---\nid: a\ntitle: b: c\n---\n")
    (warning,) = folder_catalog(home).warnings
    assert "x.md: front matter is not valid YAML" in warning and "line 3" in warning


def test_warnings_are_capped_with_a_count(home: Path) -> None:
    for number in range(MAX_WARNINGS + 5):
        (home / "notes").mkdir(exist_ok=True)
        (home / "notes" / f"bad{number:02d}.md").write_bytes(b"\xff")
    warnings = folder_catalog(home).warnings
    assert len(warnings) == MAX_WARNINGS + 1
    assert warnings[-1] == f"… and 5 more files skipped in {home / 'notes'}"


def test_a_file_name_that_is_not_utf8_is_skipped_with_a_warning(home: Path) -> None:
    notes = home / "notes"
    write_note(notes, "ok.md", "fine")
    with open(os.path.join(os.fsencode(notes), b"bad\xff.md"), "w") as handle:
        handle.write("text")
    catalog = folder_catalog(home)
    assert list(catalog) == ["ok"]
    (warning,) = catalog.warnings
    assert "bad\ufffd.md: its name is not UTF-8" in warning


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("a.md", {"id": "same"}), ("sub/b.md", {"id": "same"})),
        (("rag/basics.md", {}), ("other.md", {"id": "rag/basics"})),
    ],
)
def test_two_notes_with_one_id_offer_neither_and_warn_once(
    home: Path, first: tuple, second: tuple
) -> None:
    notes = home / "notes"
    for name, front in (first, second):
        write_note(notes, name, "shared body", **front)
    write_note(notes, "kept.md", "shared body too", id="kept")
    note_id = second[1]["id"]
    one, other = sorted(notes / name for name in (first[0], second[0]))
    # The index is only a cache: the second load says the same.
    for _ in range(2):
        catalog = load_catalog(home, None)
        try:
            (warning,) = catalog.warnings
            assert warning == (
                f'2 notes have the ID "{note_id}" ({one} and {other}); '
                "neither is offered under it until one gets another `id:` in its front matter")
            # Everything else goes on: the other note is listed, found and offered.
            assert list(catalog) == ["kept"] and len(catalog) == 1
            assert note_id not in catalog and catalog.get(note_id) is None
            assert [row["id"] for row in catalog.rows(None, None)[0]] == ["kept"]
            assert catalog.search("shared", 10) == (
                [{"id": "kept", "title": "kept", "snippet": "shared body too"}], 1)
        finally:
            catalog.close()


def test_three_notes_with_one_id_are_named_in_one_warning(home: Path) -> None:
    notes = home / "notes"
    for name in ("a.md", "b.md", "c.md"):
        write_note(notes, name, "x", id="same")
    catalog = load_catalog(home, None)
    try:
        assert catalog.warnings == (
            f'3 notes have the ID "same" ({notes / "a.md"}, {notes / "b.md"}, {notes / "c.md"}); '
            "none is offered under it until one gets another `id:` in its front matter",)
        assert len(catalog) == 0 and list(catalog) == []
    finally:
        catalog.close()


def test_a_larger_folder_is_loaded_and_read_on_demand(home: Path) -> None:
    ids = make_folder(home / "notes", 300)
    catalog = folder_catalog(home)
    assert len(catalog) == 300 and set(catalog) == set(ids)
    assert all(note_id in catalog for note_id in ids) and "G1" not in catalog
    note = catalog.get("G3")
    assert note.title == "Citation 3" and note.path == "topic3/note-0003.md"
    assert note.tags == ("citation", "引用校验") and "引用校验的笔记第3篇" in note.text
    assert catalog.listed() is None and catalog.offers_lookups
    rows, total = catalog.rows(None, 5)
    assert total == 300 and [row["path"] for row in rows] == sorted(
        f"topic{n % 7}/note-{n:04d}.md" for n in range(300))[:5]


# --- what the first request may list -------------------------------------------------------------


def test_a_small_folder_is_listed_and_still_offers_lookups(home: Path) -> None:
    make_folder(home / "notes", 20)
    catalog = folder_catalog(home)
    listed = catalog.listed()
    assert len(listed) == 20 and all(isinstance(note, Note) and note.text for note in listed)
    assert catalog.offers_lookups


def test_more_than_twenty_notes_are_not_listed(home: Path) -> None:
    items = [{"id": f"N{n}", "title": "t", "text": "x"} for n in range(21)]
    (home / "notes.json").write_text(json.dumps(items))
    catalog = load_catalog(home, None)
    assert catalog.listed() is None and catalog.offers_lookups
    (home / "notes.json").write_text(json.dumps(items[:20]))
    assert len(load_catalog(home, None).listed()) == 20


def test_a_listing_over_4_kib_is_not_listed(home: Path) -> None:
    text = "检" * 700  # 2,100 bytes each in UTF-8
    items = [{"id": "A", "title": "t", "text": text}, {"id": "B", "title": "t", "text": text}]
    (home / "notes.json").write_text(json.dumps(items, ensure_ascii=False))
    catalog = load_catalog(home, None)
    assert len(listing([catalog.get("A"), catalog.get("B")]).encode()) > LISTED_MAX_BYTES
    assert catalog.listed() is None and catalog.offers_lookups
    (home / "notes.json").write_text(json.dumps(items[:1], ensure_ascii=False))
    assert load_catalog(home, None).listed() == (Note("A", "t", text),)


# --- notes.json ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("not json", "is not valid JSON"),
        ("[]", "must be a non-empty list"),
        ('{"id": "N1"}', "must be a non-empty list"),
        ('[{"id": "N1", "title": "t", "text": "x"}, 3]', "item 2 must be an object"),
        ('[{"id": "N1", "title": "t"}]', 'item 1: key "text" is missing'),
        ('[{"id": "N1", "title": "t", "text": "x"}, {"id": 2, "title": "t", "text": "x"}]',
         'item 2: key "id" must be a non-empty string'),
        ('[{"id": "N1", "title": "  ", "text": "x"}]', 'item 1: key "title" must be a non-empty'),
        ('[{"id": "N1", "title": "t", "text": ""}]', 'item 1: key "text" must be a non-empty'),
        ('[{"id": "a\\nb", "title": "t", "text": "x"}]', 'item 1: key "id": must be one line'),
        ('[{"id": "N1", "title": "a", "text": "b"}, {"id": "N1", "title": "c", "text": "d"}]',
         'items 1 and 2 have the same ID "N1"'),
        ('[{"id": "N1", "id": "N2", "title": "t", "text": "x"}]', 'repeats the key "id"'),
        ('[{"id": "N1", "title": "t", "text": "x", "w": NaN}]', "NaN, which is not a JSON number"),
        ('[{"id": "N1", "title": "t", "text": "x", "w": 1e999}]', "a number that overflows"),
        ("[" * 65 + "]" * 65, "nested deeper than 64 levels"),
    ],
)
def test_bad_notes_json_names_the_item_from_1_and_the_key(
    home: Path, content: str, expected: str
) -> None:
    (home / "notes.json").write_text(content)
    with pytest.raises(NotesError) as caught:
        load_catalog(home, None)
    message = str(caught.value)
    assert message.startswith(f"{home / 'notes.json'}: ") and expected in message, message
    assert "\n" not in message


def test_notes_json_that_is_huge_a_fifo_or_not_utf8_is_refused(home: Path) -> None:
    path = home / "notes.json"
    path.write_bytes(b"[" + b" " * (1024 * 1024) + b"]")
    with pytest.raises(NotesError, match="larger than 1 MiB"):
        load_catalog(home, None)
    path.write_bytes(b'[{"id": "\xff", "title": "t", "text": "x"}]')
    with pytest.raises(NotesError, match="is not UTF-8 text"):
        load_catalog(home, None)
    path.unlink()
    os.mkfifo(path)  # opened without waiting for a writer: refused at once, never a hang
    with pytest.raises(NotesError, match="is not a regular file"):
        load_catalog(home, None)


def test_notes_json_is_searched_like_a_folder(home: Path) -> None:
    items = [{"id": f"J{n}", "title": f"第{n}篇", "text": "检索增强" if n % 2 else "向量"}
             for n in range(30)]
    (home / "notes.json").write_text(json.dumps(items, ensure_ascii=False))
    catalog = load_catalog(home, None)
    results, total = catalog.search("检索", 5)
    assert total == 15 and len(results) == 5
    assert all(set(item) == {"id", "title", "snippet"} for item in results)
    assert all(int(item["id"][1:]) % 2 == 1 for item in results)
    rows, total = catalog.rows(None, None)
    assert total == 30 and [row["id"] for row in rows] == [f"J{n}" for n in range(30)]
    assert all(row["path"] is None and row["snippet"] is None for row in rows)
    catalog.close()


def test_samples_are_searchable(home: Path) -> None:
    catalog = load_catalog(home, None)
    results, total = catalog.search("检索", 10)
    assert total == 3 and {item["id"] for item in results} == {"N1", "N2", "N3"}
    assert catalog.search("校验", 10)[0][0]["id"] == "N3"
    assert not (home / ".planner").exists()  # the samples' index lives in memory
