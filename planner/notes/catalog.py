"""The notes a plan can refer to: a folder of Markdown notes, notes.json, or built-in samples."""

# Start-up: this module (and planner.notes.folder) imports only the standard library's light
# parts. sqlite3 (the index) and yaml (front matter) are imported when a notes folder is read,
# or when notes.json or the samples are searched, never for --help, --dry-run or the demo on
# the samples.

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from planner.base import storage, strictjson
from planner.base.errors import UsageError
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.notes.folder import MAX_ID, id_fault, parse_tags, read_note, scan_folder

if TYPE_CHECKING:
    from planner.notes.index import FileStat, IndexRow, NoteIndex, Parsed

_T = TypeVar("_T")  # what a use of the index gives back
NOTES_FILE = "notes.json"
NOTES_CONFIG = "config.json"  # named in messages when no config file is given
NOTES_FOLDER = "notes"
INDEX_FOLDER = ".planner"
# A catalog this small whose listing fits in LISTED_MAX_BYTES is listed in the first request.
LISTED_MAX_NOTES = 20
LISTED_MAX_BYTES = 4096
MAX_WARNINGS = 10  # warning lines shown; the rest are counted in one more line
# Characters of a search: the model's search_notes has the same bound. A longer phrase costs a
# pass over the postings of each of its characters (a second on 10,000 notes at 1,000).
MAX_QUERY = 200


class NotesError(UsageError, ValueError):
    """The notes cannot be used; the message is the one line shown (exit 2)."""


class Note(NamedTuple):
    """One study note, referred to by its ID; `path` is its file under the notes folder."""

    id: str
    title: str
    text: str
    tags: tuple[str, ...] = ()
    path: str | None = None


SAMPLE_NOTES = (
    Note("N1", "RAG 的基本流程",
         "检索增强生成：先按问题检索相关片段，再把片段和问题一起交给模型生成答案。"),
    Note("N2", "切分与向量检索",
         "文档先切成段落大小的块并做向量化；检索时按相似度取前几块，块太大太小都会影响命中。"),
    Note("N3", "引用与校验",
         "答案里的每个引用都要能对回检索到的片段；程序校验引用，而不是相信模型说已经引用。"),
)


def listing(notes: Sequence[Note]) -> str:
    """The notes as the first request lists them, one line each."""
    return "\n".join(f"- {note.id}: {note.title} — {note.text}" for note in notes)


class Catalog:
    """The notes of one run or command: membership, lookup, listing and search."""

    source: str  # "samples" | "notes.json" | "folder"
    warnings: tuple[str, ...] = ()

    def __len__(self) -> int:
        raise NotImplementedError

    def __contains__(self, note_id: object) -> bool:
        raise NotImplementedError

    def __iter__(self) -> Iterator[str]:
        """The note IDs."""
        raise NotImplementedError

    def get(self, note_id: str) -> Note | None:
        """The note with this ID, its text included, or None."""
        raise NotImplementedError

    def listed(self) -> tuple[Note, ...] | None:
        """Every note, when there are few enough to list in the first request; else None."""
        if len(self) > LISTED_MAX_NOTES:
            return None
        notes = tuple(note for note_id in self if (note := self.get(note_id)) is not None)
        return notes if len(listing(notes).encode("utf-8")) <= LISTED_MAX_BYTES else None

    @property
    def offers_lookups(self) -> bool:
        """Whether the model gets search_notes and get_note: a folder, or notes not all listed."""
        return self.source == "folder" or self.listed() is None

    def search(self, query: str, limit: int) -> tuple[list[dict[str, Any]], int]:
        """The best `limit` matches as {"id", "title", "snippet"}, and how many match in all."""
        rows, total = self._search(query, limit)
        return [{"id": row.id, "title": row.title, "snippet": row.snippet} for row in rows], total

    def rows(self, query: str | None, limit: int | None) -> tuple[list[dict[str, Any]], int]:
        """`planner notes`: every note (or the best matches) as JSON rows, and the total."""
        if query is None:
            found, total = self._rows(limit), len(self)
        else:
            found, total = self._search(query, limit)
        # Rows are IndexRows, or Notes (no snippet) for a listing without the index.
        return [{"id": row.id, "title": row.title, "tags": list(row.tags), "path": row.path,
                 "snippet": getattr(row, "snippet", None)} for row in found], total

    def sr_due(self) -> dict[str, str]:
        """Obsidian Spaced Repetition's due dates (`sr-due:` in front matter) by note ID."""
        return {}

    def close(self) -> None:
        """Release the index, if one is open."""

    def _rows(self, limit: int | None) -> list[IndexRow] | list[Note]:
        raise NotImplementedError

    def _search(self, query: str, limit: int | None) -> tuple[list[IndexRow], int]:
        raise NotImplementedError


class ListCatalog(Catalog):
    """Notes held in memory: the built-in samples or notes.json."""

    def __init__(self, notes: Sequence[Note], source: str) -> None:
        self.source = source
        self._notes = tuple(notes)
        self._by_id = {note.id: note for note in self._notes}
        self._index: NoteIndex | None = None

    def __len__(self) -> int:
        return len(self._notes)

    def __contains__(self, note_id: object) -> bool:
        return note_id in self._by_id

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def get(self, note_id: str) -> Note | None:
        return self._by_id.get(note_id)

    def listed(self) -> tuple[Note, ...] | None:
        if len(self._notes) > LISTED_MAX_NOTES:
            return None
        return self._notes if len(listing(self._notes).encode()) <= LISTED_MAX_BYTES else None

    def _rows(self, limit: int | None) -> list[Note]:
        return list(self._notes[:limit])  # no index (nor sqlite3) needed for a listing

    def _search(self, query: str, limit: int | None) -> tuple[list[IndexRow], int]:
        from planner.notes import index as notes_index

        # Same search as a folder's, on an index in memory made at the first search.
        if self._index is None:
            index = notes_index.memory_index()
            try:
                index.add(notes_index.Parsed(note.id, note.title, note.tags, note.text)
                          for note in self._notes)
            except notes_index.IndexFailed as error:
                raise NotesError(t("the notes cannot be searched ({error})", error=error)) from None
            self._index = index
        try:
            return self._index.search(query, limit)
        except notes_index.IndexFailed as error:
            raise NotesError(t("the notes cannot be searched ({error})", error=error)) from None

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None


class FolderCatalog(Catalog):
    """A folder of Markdown notes, through its full-text index; texts are read when asked for."""

    source = "folder"

    def __init__(self, folder: Path, index: NoteIndex, count: int,
                 warnings: Sequence[str], rebuild: Callable[[], NoteIndex]) -> None:
        self.folder = folder
        self.warnings = tuple(warnings)
        self._index = index
        self._count = count
        self._ids: frozenset[str] | None = None  # loaded at the first membership test
        self._rebuild = rebuild

    def __len__(self) -> int:
        return self._count

    def __contains__(self, note_id: object) -> bool:
        return note_id in self._all_ids()

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._all_ids()))

    def _all_ids(self) -> frozenset[str]:
        if self._ids is None:
            self._ids = frozenset(self._with_index(lambda index: index.ids()))
        return self._ids

    def get(self, note_id: str) -> Note | None:
        if note_id not in self._all_ids():
            return None
        found = self._with_index(lambda index: index.note(note_id))
        if found is None:
            return None
        row, text = found
        return Note(row.id, row.title, text, row.tags, row.path)

    def _rows(self, limit: int | None) -> list[IndexRow]:
        return self._with_index(lambda index: list(index.rows(limit)))

    def sr_due(self) -> dict[str, str]:
        return dict(self._with_index(lambda index: index.sr_due()))

    def _search(self, query: str, limit: int | None) -> tuple[list[IndexRow], int]:
        return self._with_index(lambda index: index.search(query, limit))

    def _with_index(self, use: Callable[[NoteIndex], _T]) -> _T:
        from planner.notes.index import IndexFailed

        try:
            return use(self._index)
        except IndexFailed:
            # Damaged under our feet (or by another program): it is a cache, build it again.
            self._index.close()
            self._index = self._rebuild()
            try:
                return use(self._index)
            except IndexFailed as error:
                raise NotesError(t("the notes index cannot be read ({error})",
                                   error=error)) from None

    def close(self) -> None:
        self._index.close()


def check_query(query: str | None) -> None:
    """A search's words as the person typed them; a UsageError (exit 2) names what is wrong."""
    if query is None:
        return
    if not query.strip():
        raise UsageError(t("QUERY needs some words (or leave it out to list the notes)"))
    if len(query) > MAX_QUERY:
        raise UsageError(t("QUERY has {count:,} characters; at most {limit} (a few words find a "
                           "note)", count=len(query), limit=MAX_QUERY))
    if not query.isascii():
        try:
            query.encode("utf-8")
        except UnicodeEncodeError:
            # Bytes that are not UTF-8 reach Python as lone surrogates, which no index holds.
            raise UsageError(t("QUERY holds text that is not UTF-8 ({query}); type the words "
                               "again", query=query)) from None


# --- choosing the source ---------------------------------------------------------------------


def load_catalog(home: Path, notes_dir: str | None, config_file: str | None = None,
                 progress: Callable[[int, int], None] | None = None) -> Catalog:
    """The notes: notes_dir (or home/notes/ when it exists), else home/notes.json, else samples;
    notes_dir is taken from the folder of `config_file` (where it was set; None: the home's
    config.json), which is named when notes_dir is wrong; `progress` is told (files read,
    files to read) while a large folder is indexed from nothing."""
    folder = _notes_folder(home, notes_dir, config_file)
    if folder is not None:
        return _folder_catalog(home, folder, progress)
    notes = _json_notes(home / NOTES_FILE)
    if notes is not None:
        return ListCatalog(notes, "notes.json")
    return sample_catalog()


def notes_source(home: Path, notes_dir: str | None,
                 config_file: str | None = None) -> tuple[str, Path | None]:
    """Where load_catalog would take the notes from, nothing read: ("folder", its path),
    ("notes.json", its path) or ("samples", None)."""
    if notes_dir is not None:
        return "folder", notes_path(home, notes_dir, config_file)
    if (home / NOTES_FOLDER).is_dir():
        return "folder", home / NOTES_FOLDER
    if os.path.lexists(home / NOTES_FILE):
        return "notes.json", home / NOTES_FILE
    return "samples", None


def sample_catalog() -> Catalog:
    """The built-in sample notes (the demo uses them whatever the home folder holds)."""
    return ListCatalog(SAMPLE_NOTES, "samples")


def notes_path(home: Path, notes_dir: str, config_file: str | None = None) -> Path:
    """The folder notes_dir names: ~ and $VAR expanded, a relative path taken from the folder
    of the config file that set it (None: the home's config.json)."""
    from planner.base.config import DEFAULT_CONFIG_FILE, expand_path

    return expand_path(notes_dir, config_file or home / DEFAULT_CONFIG_FILE)


def _notes_folder(home: Path, notes_dir: str | None, config_file: str | None) -> Path | None:
    if notes_dir is None:
        default = home / NOTES_FOLDER
        return default if default.is_dir() else None
    folder = notes_path(home, notes_dir, config_file)
    if not folder.is_dir():
        # Named as written (a relative path is the config file's folder's, and that file is
        # named); with ~ or $VAR in it, the folder it became as well.
        shown = notes_dir if not any(mark in notes_dir for mark in "~$") \
            else f"{notes_dir} ({folder})"
        config = config_file or NOTES_CONFIG
        if os.path.lexists(folder):
            raise NotesError(t("notes_dir: {folder} is not a folder; create it or change "
                               "notes_dir in {config}", folder=shown, config=config))
        raise NotesError(t("notes_dir: {folder} does not exist; create it or change notes_dir in "
                           "{config}", folder=shown, config=config))
    return folder


# --- a folder of Markdown notes ----------------------------------------------------------------


def _folder_catalog(home: Path, folder: Path,
                    progress: Callable[[int, int], None] | None = None) -> FolderCatalog:
    from planner.notes import index as notes_index

    files, skipped = scan_folder(folder)
    root = str(folder.resolve())
    place = home / INDEX_FOLDER
    notices: list[str] = []

    def read(entry: FileStat) -> Parsed | str:
        return read_note(folder, entry)

    def index_for(rebuild: bool) -> NoteIndex:
        try:
            return notes_index.synced_index(place, root, files, read, rebuild, progress)[0]
        except notes_index.IndexFailed as error:
            notices.append(t("the notes index cannot be kept in {place} ({error}); it is built in "
                             "memory for this run", place=place, error=error))
        try:
            index = notes_index.memory_index(root)
            index.sync(files, read)
            return index
        except notes_index.IndexFailed as error:
            raise NotesError(t("the notes in {folder} cannot be indexed ({error})", folder=folder,
                               error=error)) from None

    def checked(index: NoteIndex) -> tuple[int, list[tuple[str, str]], list[str]]:
        # A skipped file is warned about once per cause (the index remembers it), not by
        # every command.
        problems = index.problems(new_only=True)
        if problems:
            index.warned()
        return index.count(), problems, _shared_ids(folder, index.duplicates())

    index = index_for(rebuild=False)
    try:
        try:
            count, problems, shared = checked(index)
        except notes_index.IndexFailed:
            # Damaged in a way opening and updating did not show: build it again, once.
            index.close()
            index = index_for(rebuild=True)
            count, problems, shared = checked(index)
    except notes_index.IndexFailed as error:
        index.close()
        raise NotesError(t("the notes index in {place} cannot be read ({error})", place=place,
                           error=error)) from None
    except BaseException:
        index.close()
        raise
    warnings = _warnings(folder, skipped + problems) + shared + notices
    return FolderCatalog(folder, index, count, warnings, lambda: index_for(rebuild=True))


def _shared_ids(folder: Path, duplicates: list[tuple[str, list[str]]]) -> list[str]:
    """One line per ID that two or more files share (neither is offered under it), the first
    MAX_WARNINGS of them, then how many more."""
    lines: list[str] = []
    for note_id, paths in duplicates[:MAX_WARNINGS]:
        files = [str(folder / path) for path in paths]
        shown_id = json.dumps(note_id, ensure_ascii=False)
        if len(files) == 2:
            lines.append(t("{count} notes have the ID {id} ({first} and {second}); neither is "
                           "offered under it until one gets another `id:` in its front matter",
                           count=2, id=shown_id, first=files[0], second=files[1]))
        else:
            lines.append(t("{count} notes have the ID {id} ({files}); none is offered under it "
                           "until one gets another `id:` in its front matter",
                           count=len(files), id=shown_id, files=", ".join(files)))
    if len(duplicates) > MAX_WARNINGS:
        lines.append(t("… and {count} more IDs shared by notes in {folder}",
                       count=len(duplicates) - MAX_WARNINGS, folder=folder))
    return lines


def _warnings(folder: Path, skipped: list[tuple[str, str]]) -> list[str]:
    """One line per skipped file, the first MAX_WARNINGS of them, then how many more."""
    skipped.sort()
    lines: list[str] = [t("skipped {path}: {reason}", path=folder / path, reason=reason)
             for path, reason in skipped[:MAX_WARNINGS]]
    if len(skipped) > MAX_WARNINGS:
        lines.append(t("… and {count} more files skipped in {folder}",
                       count=len(skipped) - MAX_WARNINGS, folder=folder))
    return lines




# --- notes.json --------------------------------------------------------------------------------


def _json_notes(path: Path) -> tuple[Note, ...] | None:
    """The notes in notes.json, or None when there is no such file."""
    try:
        data = storage.read_regular_file(path, storage.MIB)
    except FileNotFoundError:
        return None
    except storage.FileRefused as error:
        raise NotesError(str(error)) from None
    except OSError as error:
        raise NotesError(t("{path}: cannot be read ({reason})", path=path,
                           reason=os_reason(error))) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotesError(t("{path}: is not UTF-8 text", path=path)) from None
    try:
        items = strictjson.loads(text)
    except strictjson.JSONRefused as error:
        raise NotesError(t("{path}: {problem}", path=path, problem=error)) from None
    if not isinstance(items, list) or not items:
        # The braces as a value: a template holds no literal braces.
        raise NotesError(t("{path}: must be a non-empty list of {shape} objects", path=path,
                           shape='{"id", "title", "text"}'))
    notes = tuple(_json_note(path, number, item) for number, item in enumerate(items, 1))
    first: dict[str, int] = {}
    for number, note in enumerate(notes, 1):
        if note.id in first:
            raise NotesError(t("{path}: items {first} and {second} have the same ID {id}",
                               path=path, first=first[note.id], second=number,
                               id=json.dumps(note.id, ensure_ascii=False)))
        first[note.id] = number
    return notes


def _json_note(path: Path, number: int, item: object) -> Note:
    """One notes.json item; extra keys are kept in the file and ignored here (tags are used)."""
    if not isinstance(item, dict):
        raise NotesError(t('{path}: item {number} must be an object with "id", "title" and "text"',
                           path=path, number=number))
    for key in ("id", "title", "text"):
        if key not in item:
            raise NotesError(t('{path}: item {number}: key "{key}" is missing', path=path,
                               number=number, key=key))
        if not isinstance(item[key], str) or not item[key].strip():
            raise NotesError(t('{path}: item {number}: key "{key}" must be a non-empty string',
                               path=path, number=number, key=key))
    fault = id_fault(item["id"].strip())
    if fault == "empty":
        raise NotesError(t('{path}: item {number}: key "id": is empty', path=path,
                           number=number))
    if fault == "long":
        raise NotesError(t('{path}: item {number}: key "id": is longer than {count} characters',
                           path=path, number=number, count=MAX_ID))
    if fault == "line":
        raise NotesError(t('{path}: item {number}: key "id": must be one line of printable text',
                           path=path, number=number))
    tags = item.get("tags")
    tags = parse_tags(tags) if isinstance(tags, list) else None
    title = " ".join(item["title"].split())
    return Note(item["id"].strip(), title, item["text"], tags or ())
