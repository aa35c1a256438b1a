"""Notes folders for the tests: a note with front matter, a generated folder, its catalog."""

from __future__ import annotations

import json
from pathlib import Path

from planner.notes.catalog import (
    load_catalog,
)

ZH_TOPICS = ["检索增强生成", "向量数据库", "切分策略", "引用校验", "重排序模型", "提示工程"]
EN_TOPICS = ["retrieval", "embedding", "chunking", "citation", "reranking", "prompting"]


def write_note(folder: Path, relative: str, body: str, **front: object) -> Path:
    """A Markdown note at folder/relative; keyword arguments become YAML front matter."""
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    text = body
    if front:
        lines = [f"{key}: {json.dumps(value, ensure_ascii=False)}" for key, value in front.items()]
        text = "---\n" + "\n".join(lines) + "\n---\n" + body
    path.write_text(text, encoding="utf-8")
    return path


def make_folder(folder: Path, count: int, start: int = 0) -> list[str]:
    """`count` generated notes in Chinese and English, in nested folders; their IDs."""
    ids = []
    for number in range(start, start + count):
        zh, en = ZH_TOPICS[number % 6], EN_TOPICS[number % 6]
        body = (f"# {en.title()} {number}\n\n{zh}的笔记第{number}篇。关于{en}的要点：先理解概念，"
                f"再做练习。\nNotes about {en}, number {number}.\n")
        relative = f"topic{number % 7}/note-{number:04d}.md"
        if number % 3 == 0:
            write_note(folder, relative, body, id=f"G{number}", tags=[en, zh])
            ids.append(f"G{number}")
        else:
            write_note(folder, relative, body)
            ids.append(relative.removesuffix(".md"))
    return ids


def folder_catalog(home: Path, notes_dir: str | None = None):
    catalog = load_catalog(home, notes_dir)
    assert catalog.source == "folder"
    return catalog
