"""The notes a plan can refer to: built-in samples, or the home folder's notes.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

NOTES_FILE = "notes.json"


class NotesError(ValueError):
    """notes.json exists but cannot be used."""


class Note(NamedTuple):
    """One study note, referred to by its ID."""

    id: str
    title: str
    text: str


SAMPLE_NOTES = (
    Note("N1", "RAG 的基本流程",
         "检索增强生成：先按问题检索相关片段，再把片段和问题一起交给模型生成答案。"),
    Note("N2", "切分与向量检索",
         "文档先切成段落大小的块并做向量化；检索时按相似度取前几块，块太大太小都会影响命中。"),
    Note("N3", "引用与校验",
         "答案里的每个引用都要能对回检索到的片段；程序校验引用，而不是相信模型说已经引用。"),
)


def load_notes(home: Path) -> tuple[Note, ...]:
    """The notes in `home/notes.json` if it exists, else the built-in samples."""
    path = home / NOTES_FILE
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return SAMPLE_NOTES
    except (OSError, UnicodeDecodeError) as error:
        raise NotesError(f"{path}: cannot be read ({error})") from None
    try:
        data = json.loads(raw)
    except ValueError as error:
        raise NotesError(f"{path}: is not valid JSON ({error})") from None
    if not isinstance(data, list) or not data:
        raise NotesError(f'{path}: must be a non-empty list of {{"id", "title", "text"}} objects')
    notes: list[Note] = []
    for index, item in enumerate(data):
        if not isinstance(item, dict) or set(item) != {"id", "title", "text"}:
            raise NotesError(f'{path}: item {index} must have exactly "id", "title" and "text"')
        if not all(isinstance(item[key], str) and item[key].strip() for key in item):
            raise NotesError(f"{path}: item {index} must have non-empty strings")
        notes.append(Note(item["id"], item["title"], item["text"]))
    ids = [note.id for note in notes]
    if len(set(ids)) != len(ids):
        raise NotesError(f"{path}: note IDs must be unique")
    return tuple(notes)
