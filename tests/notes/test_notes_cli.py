"""`planner notes` end to end: listing, searching, JSON, errors and warnings, the index on disk,
and the start-up of the other commands when there is no notes folder."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import PLANNER, all_files, run_planner
from note_files import make_folder, write_note

INDEX = Path(".planner") / "notes-index.sqlite3"
ROW_KEYS = {"id", "title", "tags", "path", "snippet"}


def notes_json(*args: str) -> list[dict]:
    result = run_planner("notes", "--json", *args)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert all(set(row) == ROW_KEYS for row in rows)
    return rows


# --- listing ------------------------------------------------------------------------------------


def test_samples_are_listed(home: Path) -> None:
    result = run_planner("notes")
    assert result.returncode == 0 and result.stderr == ""
    assert "Notes in the built-in samples: 3" in result.stdout
    for words in ("N1", "RAG 的基本流程", "N3", "引用与校验"):
        assert words in result.stdout
    rows = notes_json()
    assert [row["id"] for row in rows] == ["N1", "N2", "N3"]
    assert all(row["path"] is None and row["snippet"] is None and row["tags"] == []
               for row in rows)
    assert all_files(home) == []  # nothing written, no index for the samples


def test_notes_json_is_listed_with_its_tags(home: Path) -> None:
    (home / "notes.json").write_text(json.dumps(
        [{"id": "A7", "title": "向量数据库", "text": "索引与召回", "tags": ["db"], "x": 1}],
        ensure_ascii=False))
    assert notes_json() == [{"id": "A7", "title": "向量数据库", "tags": ["db"], "path": None,
                             "snippet": None}]
    assert "Notes in notes.json: 1" in run_planner("notes").stdout


@pytest.mark.slow
def test_folder_table_shows_50_and_json_all(home: Path) -> None:
    ids = make_folder(home / "notes", 60)
    result = run_planner("notes")
    assert result.returncode == 0, result.stderr
    assert "Notes in notes/: 60" in result.stdout
    assert "Showing 50 of 60 notes: --limit N shows more (0: all); --json lists them all." \
        in result.stdout
    rows = notes_json()
    assert len(rows) == 60 and {row["id"] for row in rows} == set(ids)
    assert [row["path"] for row in rows] == sorted(row["path"] for row in rows)
    assert rows[0] == {"id": "G0", "title": "Retrieval 0", "tags": ["retrieval", "检索增强生成"],
                       "path": "topic0/note-0000.md", "snippet": None}
    assert len(notes_json("--limit", "7")) == 7
    assert "Showing" not in run_planner("notes", "--limit", "0").stdout
    assert run_planner("notes", "--limit", "-1").returncode == 2


def test_home_option_and_the_home_before_the_command(tmp_path: Path) -> None:
    other = tmp_path / "other"
    write_note(other / "notes", "elsewhere.md", "内容")
    assert [row["id"] for row in notes_json("--home", str(other))] == ["elsewhere"]
    result = run_planner("--home", str(other), "notes", "--json")
    assert [row["id"] for row in json.loads(result.stdout)] == ["elsewhere"]
    assert (other / INDEX).is_file()
    missing = run_planner("notes", "--home", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr


def test_notes_dir_from_config(home: Path) -> None:
    write_note(home / "vault", "v.md", "配置的文件夹")
    (home / "config.json").write_text('{"notes_dir": "vault"}')
    assert [row["id"] for row in notes_json()] == ["v"]
    (home / "config.json").write_text('{"notes_dir": "gone"}')
    result = run_planner("notes")
    assert result.returncode == 2
    assert result.stderr.strip().endswith("notes_dir: gone does not exist; create it or change "
                                          "notes_dir in config.json")


# --- searching ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_search_in_chinese_and_english(home: Path) -> None:
    make_folder(home / "notes", 90)
    write_note(home / "notes", "rag.md", "RAG 先检索再生成。", title="RAG 入门")
    result = run_planner("notes", "检索")
    assert result.returncode == 0, result.stderr
    assert "Notes in notes/ matching '检索': 16, best first" in result.stdout
    assert "Showing 10 of 16 matches: --limit N shows more (0: all)." in result.stdout
    rows = notes_json("检索")
    assert len(rows) == 10 and all("检索" in (row["snippet"] + row["title"]) for row in rows)
    assert [row["id"] for row in notes_json("RAG")] == ["rag"]
    assert len(notes_json("检索", "--limit", "0")) == 16
    assert len(notes_json("retrieval", "--limit", "3")) == 3
    assert notes_json("找不到的词") == []
    empty = run_planner("notes", "找不到的词")
    assert empty.returncode == 0 and "No notes in notes/ match '找不到的词'." in empty.stdout
    assert run_planner("notes", "  ").returncode == 2
    assert len(notes_json("检索 " * 40)) == 10  # 200 characters, the same word 40 times
    long = run_planner("notes", "检" * 201)
    assert long.returncode == 2 and long.stdout == ""
    assert long.stderr == "Error: QUERY has 201 characters; at most 200 (a few words find a note)\n"


@pytest.mark.slow
def test_an_edited_note_is_found_by_its_new_text(home: Path) -> None:
    make_folder(home / "notes", 30)
    path = write_note(home / "notes", "draft.md", "第一版的内容 first draft")
    assert [row["id"] for row in notes_json("第一版")] == ["draft"]
    path.write_text("第二版的内容 second draft")  # at once: the same second, maybe the same tick
    assert [row["id"] for row in notes_json("第二版")] == ["draft"]
    assert notes_json("第一版") == []
    path.unlink()
    assert notes_json("第二版") == []


@pytest.mark.parametrize("damage", ["delete", "garbage", "truncate"])
def test_index_rebuilt_after_deletion_or_corruption(home: Path, damage: str) -> None:
    make_folder(home / "notes", 40)
    before = notes_json("检索增强生成")
    index = home / INDEX
    if damage == "delete":
        index.unlink()
    elif damage == "garbage":
        index.write_bytes(os.urandom(os.path.getsize(index)))
    else:
        os.truncate(index, 5000)
    result = run_planner("notes", "--json", "检索增强生成")
    assert result.returncode == 0 and result.stderr == ""
    assert json.loads(result.stdout) == before and len(before) == 7
    assert stat.S_IMODE(os.lstat(index).st_mode) == 0o600
    assert stat.S_IMODE(os.lstat(home / ".planner").st_mode) == 0o700


@pytest.mark.not_under_faketime("a sibling's new temporary file looks old (kernel file times)")
def test_several_planners_at_once_on_a_new_folder(home: Path) -> None:
    make_folder(home / "notes", 80)
    processes = [subprocess.Popen([PLANNER, "notes", "--json", "检索"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
                 for _ in range(4)]
    outputs = [process.communicate(timeout=60) for process in processes]
    assert [process.returncode for process in processes] == [0, 0, 0, 0]
    assert all(stderr == "" for _, stderr in outputs), outputs
    assert len({stdout for stdout, _ in outputs}) == 1
    assert sorted(p.name for p in (home / ".planner").iterdir()) == [".gitignore", INDEX.name]


# --- errors and warnings ------------------------------------------------------------------------


def test_duplicate_ids_are_one_warning_and_the_command_goes_on(home: Path) -> None:
    write_note(home / "notes", "a.md", "x", id="same")
    write_note(home / "notes", "sub/b.md", "y", id="same")
    write_note(home / "notes", "other.md", "z")
    result = run_planner("notes", "--json")
    assert result.returncode == 0, result.stderr
    assert [row["id"] for row in json.loads(result.stdout)] == ["other"]
    assert result.stderr == ('Warning: 2 notes have the ID "same" (notes/a.md and '
                             "notes/sub/b.md); neither is offered under it until one gets "
                             "another `id:` in its front matter\n")


def test_duplicate_ids_do_not_stop_a_run(home: Path) -> None:
    write_note(home / "notes", "a.md", "x", id="same")
    write_note(home / "notes", "b.md", "y", id="same")
    result = run_planner("--dry-run")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["messages"]
    assert '2 notes have the ID "same" (notes/a.md and notes/b.md)' in result.stderr
    assert "Error" not in result.stderr


def test_skipped_files_are_warned_and_the_command_goes_on(home: Path) -> None:
    write_note(home / "notes", "good.md", "可以用的笔记")
    (home / "notes" / "bad.md").write_text("---\ntitle: [x\n---\n")
    (home / "notes" / "latin.md").write_bytes(b"\xe9t\xe9")
    result = run_planner("notes", "--json", "笔记")
    assert result.returncode == 0
    assert [row["id"] for row in json.loads(result.stdout)] == ["good"]
    assert result.stderr.splitlines() == [
        "Warning: skipped notes/bad.md: front matter is not valid YAML (did not find expected "
        "',' or ']' at line 3)",
        "Warning: skipped notes/latin.md: not UTF-8 text",
    ]
    # Warned once per cause: the index remembers it, the next command is quiet (the files are
    # still skipped; tests/test_frontmatter_warning.py covers a new cause).
    again = run_planner("notes", "--json", "笔记")
    assert again.stderr == "" and again.stdout == result.stdout


@pytest.mark.parametrize(
    ("content", "line"),
    [
        ('[{"id": "N1", "title": "t", "text": "x"}, {"id": "N2", "title": 5, "text": "y"}]',
         'notes.json: item 2: key "title" must be a non-empty string'),
        ('[{"id": "N1", "text": "x"}]', 'notes.json: item 1: key "title" is missing'),
    ],
)
def test_bad_notes_json_is_one_line_exit_2(home: Path, content: str, line: str) -> None:
    (home / "notes.json").write_text(content)
    result = run_planner("notes")
    assert result.returncode == 2 and result.stderr == f"Error: {line}\n"


def test_notes_json_fifo_is_refused_at_once(home: Path) -> None:
    os.mkfifo(home / "notes.json")
    started = time.monotonic()
    result = run_planner("notes")
    assert time.monotonic() - started < 30
    assert result.returncode == 2
    assert result.stderr == "Error: notes.json is not a regular file (a FIFO)\n"


def test_titles_and_snippets_cannot_drive_the_terminal(home: Path) -> None:
    write_note(home / "notes", "evil.md", "正文 \x1b]52;c;AAAA\x07 \u202e反转",
               title="\x1b[2J\x1b[31mRED [bold]markup[/bold]")
    for args in (["notes"], ["notes", "正文"]):
        result = run_planner(*args, env={**os.environ, "COLUMNS": "200"})
        assert result.returncode == 0
        assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
        assert "\\x1b[2J\\x1b[31mRED [bold]markup[/bold]" in result.stdout
    assert notes_json("正文")[0]["title"] == "\x1b[2J\x1b[31mRED [bold]markup[/bold]"


def test_a_narrow_terminal_keeps_id_title_and_file(home: Path) -> None:
    write_note(home / "notes", "深层/文件夹/笔记.md", "x", title="一个相当长的中文标题" * 4,
               tags=["a", "b"])
    result = run_planner("notes", env={**os.environ, "COLUMNS": "80"})
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert "深层/文件夹/笔记" in result.stdout and "一个相当长的中文标题" in result.stdout
    assert "深层/文件夹/笔记.md" in result.stdout


# --- start-up: no notes folder, no index --------------------------------------------------------


@pytest.mark.parametrize("args", [["--help"], ["--dry-run"], ["notes"], ["notes", "--help"]])
def test_no_sqlite_or_yaml_without_a_notes_folder(home: Path, args: list[str]) -> None:
    result = run_planner("-X", "importtime", "-m", "planner", *args,
                         command=[sys.executable])
    assert result.returncode == 0, result.stderr
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines()
                if line.startswith("import time:")}
    assert imported, "importtime printed nothing"
    assert "sqlite3" not in imported and "yaml" not in imported
    assert "planner.notes.index" not in imported and "planner.notes.frontmatter" not in imported
    assert not (home / ".planner").exists()


# --- the first index build of a large folder shows its progress on a terminal (README "Going on
# with a conversation") ---------


@pytest.mark.slow
@pytest.mark.terminal
def test_the_first_build_of_a_large_folder_shows_progress_on_a_terminal(home: Path) -> None:
    import pexpect
    from terminal import finish, spawn

    make_folder(home / "notes", 600)
    child, _ = spawn("notes", "--json", "--limit", "1", home=home, columns=None, timeout=60)
    child.expect_exact("Indexing your notes for the first time: 100 of 600 files")
    child.expect_exact("Indexing your notes for the first time: 500 of 600 files")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    # The line is erased when done, and the JSON is whole after it.
    tail = child.before
    assert "\r\x1b[2K" in tail
    assert len(json.loads(tail.split("\r\x1b[2K")[-1])) == 1
    # Built once: the next look shows nothing, and a pipe never gets the line.
    child, seen = spawn("notes", "--limit", "1", home=home, columns=None)
    finish(child)
    again = seen.text()
    assert "Indexing" not in again
    (home / ".planner" / "notes-index.sqlite3").unlink()
    piped = run_planner("notes", "--json")
    assert piped.returncode == 0 and len(json.loads(piped.stdout)) == 600
    assert "Indexing" not in piped.stderr + piped.stdout


@pytest.mark.slow
@pytest.mark.terminal
def test_a_small_folder_shows_no_progress(home: Path) -> None:
    from terminal import finish, spawn

    make_folder(home / "notes", 50)
    child, seen = spawn("notes", "--limit", "1", home=home, columns=None)
    finish(child)
    shown = seen.text()
    assert "Indexing" not in shown and "Notes in notes/: 50" in shown
