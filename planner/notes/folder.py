"""Reading a notes folder: finding its Markdown files and turning each into a row for the index."""

# Start-up: like catalog.py, only the standard library's light parts at the top. yaml (front
# matter) and the index module (sqlite3) are imported when a note file is read, not before.

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from planner.base import storage
from planner.base.i18n import t
from planner.base.oserrors import os_reason

if TYPE_CHECKING:
    from planner.notes.index import FileStat, Parsed

MAX_NOTE_BYTES = storage.MIB
MAX_ID = 500  # characters: a path several folders deep fits
MAX_TITLE = 300  # characters kept from a title; a longer one is cut with …
# One `# ` heading (ATX level 1, CommonMark: up to 3 spaces before, an optional closing #-run).
_TAG_SPLIT = re.compile(r"[,\s]+")
_SR_DUE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
# Why a file is skipped (kept in the index as they are, translated where shown).
_LARGER = t("larger than 1 MiB")
_NOT_REGULAR = t("not a regular file")


def scan_folder(folder: Path) -> tuple[list[FileStat], list[tuple[str, str]]]:
    """Every *.md file under `folder` as (path, size, mtime_ns, inode), hidden folders skipped
    and links not followed, and the files skipped on sight as (relative path, reason)."""
    files: list[FileStat] = []
    skipped: list[tuple[str, str]] = []
    pending = [""]
    root = os.fspath(folder)
    while pending:
        relative = pending.pop()
        try:
            with os.scandir(os.path.join(root, relative) if relative else root) as listing:
                entries = list(listing)
        except OSError as error:
            skipped.append((relative or ".", t("folder cannot be read ({reason})",
                                               reason=os_reason(error))))
            continue
        # The loop runs once per file of the folder: kept to the calls it needs.
        for entry in entries:
            name = entry.name
            # Hidden names (.obsidian/, .git/, .trash/, editors' files) are never notes.
            if name[0] == ".":
                continue
            path = f"{relative}/{name}" if relative else name
            try:
                if name.endswith(".md") and entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    if not name.isascii() and not _utf8(name):
                        skipped.append((_shown(path), t("its name is not UTF-8")))
                    elif info.st_size > MAX_NOTE_BYTES:
                        skipped.append((path, _LARGER))
                    else:
                        files.append((path, info.st_size, info.st_mtime_ns, info.st_ino))
                elif entry.is_dir(follow_symlinks=False):  # False for a link: not followed
                    if not name.isascii() and not _utf8(name):
                        skipped.append((_shown(path), t("its name is not UTF-8")))
                    else:
                        pending.append(path)
                elif name.endswith(".md") and not entry.is_symlink():
                    skipped.append((path, _NOT_REGULAR))
            except OSError:
                continue  # gone since the folder was listed
    return files, skipped


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _shown(path: str) -> str:
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def read_note(folder: Path, entry: FileStat) -> Parsed | str:
    """A note file's ID, title, tags and text, or the reason it is skipped."""
    try:
        data = storage.read_regular_file(folder / entry[0], MAX_NOTE_BYTES, follow_links=False)
    except storage.FileRefused as error:
        return _LARGER if "larger" in str(error) else _NOT_REGULAR
    except OSError as error:
        return t("cannot be read ({reason})", reason=os_reason(error))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return t("not UTF-8 text")
    from planner.notes.frontmatter import FrontMatterError, split_front_matter

    try:
        meta, body = split_front_matter(text.removeprefix("\ufeff"))
    except FrontMatterError as error:
        return str(error)
    return note_fields(meta, body, entry[0])


def note_fields(meta: dict[object, object], body: str, path: str) -> Parsed | str:
    """ID, title and tags from front matter, a heading and the file name; or why not."""
    from planner.notes.index import Parsed

    note_id = meta.get("id")
    if note_id is None or note_id == "":
        note_id = path.removesuffix(".md")
    elif not isinstance(note_id, str):
        return t("front matter `id:` must be text")
    note_id = note_id.strip()
    problem = _id_problem(note_id)
    if problem:
        return problem
    title = meta.get("title")
    if title is not None and not isinstance(title, str):
        return t("front matter `title:` must be text")
    title = " ".join((title or "").split()) or _heading(body) or _stem(path)
    if len(title) > MAX_TITLE:
        title = title[:MAX_TITLE - 1] + "…"
    tags = parse_tags(meta.get("tags"))
    if tags is None:
        return t("front matter `tags:` must be a list of words")
    return Parsed(note_id, title, tags, body, _sr_due(meta.get("sr-due")))


def _sr_due(value: object) -> str | None:
    """Obsidian Spaced Repetition's `sr-due: YYYY-MM-DD`, when it is a real date planner can
    use; else None.

    Another plugin's value or a typo is ignored, not a reason to skip the note; so is a date at
    the edge of the calendar (README "A screen you can trust": before 0001-01-02 or after
    9999-12-30, planner.base.days).
    """
    if not isinstance(value, str) or not _SR_DUE.fullmatch(value.strip()):
        return None
    import datetime as _dt

    from planner.base.days import usable_day

    try:
        day = _dt.date.fromisoformat(value.strip())
    except ValueError:
        return None
    return day.isoformat() if usable_day(day) else None


def _id_problem(note_id: str) -> str | None:
    """Why a note file's ID cannot be used, or None."""
    fault = id_fault(note_id)
    if fault == "empty":
        return t("its ID is empty")
    if fault == "long":
        return t("its ID is longer than {count} characters", count=MAX_ID)
    if fault == "line":
        return t("its ID must be one line of printable text")
    return None


def id_fault(note_id: str) -> str | None:
    """What is wrong with an ID: "empty", "long" or "line" (not one printable line); or None."""
    if not note_id:
        return "empty"
    if len(note_id) > MAX_ID:
        return "long"
    if not note_id.isprintable():
        import unicodedata

        # Spaces of every kind (U+3000 in a Chinese file name) are fine; controls and breaks not.
        if any(not char.isprintable() and unicodedata.category(char) != "Zs"
               for char in note_id):
            return "line"
    return None


def _heading(body: str) -> str:
    """The text of a `# ` heading that is the first non-empty line of the body, or ''."""
    for line in body.splitlines():
        if line.strip():
            return " ".join(_heading_text(line).split())
    return ""


def _heading_text(line: str) -> str:
    """The text of an ATX heading line `# text #` ('' when it is none), by string methods: a
    pattern for it backtracks on a long run of blanks (quadratic time on a note's text)."""
    rest = line[len(line) - len(line.lstrip(" ")):]
    if len(line) - len(rest) > 3 or rest[:1] != "#" or rest[1:2] not in (" ", "\t"):
        return ""
    rest = rest[1:].strip(" \t")
    # A closing run of #s goes when blanks part it from the text (`# #` is a heading "#").
    kept = rest.rstrip("#")
    return kept.rstrip(" \t") if kept[-1:] in (" ", "\t") else rest


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


def parse_tags(value: object) -> tuple[str, ...] | None:
    """Tags as written in front matter: a list, or one string of words; None when neither."""
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        items: list[str] = _TAG_SPLIT.split(value)
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = value
    else:
        return None
    tags = (" ".join(item.split()).lstrip("#") for item in items)
    return tuple(dict.fromkeys(tag for tag in tags if tag))
