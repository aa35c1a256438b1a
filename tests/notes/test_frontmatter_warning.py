"""A warning once per cause: a note file whose front matter is damaged is warned about once per
change of the file (the notes index remembers it), not by every command."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from conftest import run_planner
from note_files import write_note

from planner.notes.catalog import load_catalog

BAD = "---\ntitle: [x\n---\n正文\n"
WORSE = "---\ntags: {a: [\n---\n正文，改过了\n"


def warnings(*args: str) -> list[str]:
    result = run_planner("notes", "--json", *args)
    assert result.returncode == 0, result.stderr
    json.loads(result.stdout)
    return result.stderr.splitlines()


def test_a_damaged_note_is_warned_about_once_per_change(home: Path) -> None:
    write_note(home / "notes", "good.md", "可以用的笔记")
    bad = home / "notes" / "bad.md"
    bad.write_text(BAD, encoding="utf-8")
    first = warnings()
    assert len(first) == 1 and first[0].startswith("Warning: skipped notes/bad.md: front matter")
    # Written a moment ago (the index reads such a file again each time): still said once.
    assert warnings() == [] and warnings("笔记") == []
    # New damaged content: a new cause, warned again, once.
    bad.write_text(WORSE, encoding="utf-8")
    second = warnings()
    assert len(second) == 1 and "notes/bad.md" in second[0] and second[0] != first[0]
    assert warnings() == []
    # Touched (same content, a new time): the file changed, so it is said again.
    later = time.time() + 5
    os.utime(bad, (later, later))
    assert warnings() == second
    assert warnings() == []


def test_mended_then_damaged_again_is_warned_again(home: Path) -> None:
    bad = write_note(home / "notes", "bad.md", "")
    bad.write_text(BAD, encoding="utf-8")
    assert len(warnings()) == 1
    write_note(home / "notes", "bad.md", "好了", title="修好")
    assert warnings() == []
    assert [row["id"] for row in json.loads(run_planner("notes", "--json").stdout)] == ["bad"]
    bad.write_text(BAD, encoding="utf-8")
    assert len(warnings()) == 1
    assert warnings() == []


def test_every_command_shares_the_memory(home: Path) -> None:
    (home / "notes").mkdir()
    (home / "notes" / "bad.md").write_text(BAD, encoding="utf-8")
    catalog = load_catalog(home, None)
    catalog.close()
    assert len(catalog.warnings) == 1 and "bad.md" in catalog.warnings[0]
    # planner notes, then a dry run: neither repeats what the first look said.
    assert warnings() == []
    dry = run_planner("--dry-run")
    assert dry.returncode == 0 and "bad.md" not in dry.stderr
    again = load_catalog(home, None)
    again.close()
    assert again.warnings == ()


def test_a_new_index_warns_again(home: Path) -> None:
    (home / "notes").mkdir()
    (home / "notes" / "bad.md").write_text(BAD, encoding="utf-8")
    assert len(warnings()) == 1
    (home / ".planner" / "notes-index.sqlite3").unlink()
    # The index is a cache: built from nothing, it has told nobody anything yet.
    assert len(warnings()) == 1
    assert warnings() == []
