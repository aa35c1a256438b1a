"""The notes' full-text index: a SQLite FTS5 cache of a notes folder; the only sqlite3 import."""

# Chinese and English in one index. FTS5's trigram tokenizer cannot match a query shorter than
# three characters, and a two-character Chinese word (检索) is the common case. So the text is
# indexed with unicode61 (words; porter folds English endings), after a marker is put around
# every CJK character: each becomes a token of its own, and a CJK query of any length is an
# FTS5 phrase of consecutive characters, which matches exactly where those characters stand
# side by side. The marker (U+0001) is a separator to unicode61 and is removed from the text
# beforehand, so the stored body turns back into the note's text by deleting it.
#
# The file is a cache. It is rebuilt from nothing (into a temporary file, then renamed over
# the old one, so no reader sees half an index) when it is missing, damaged, of another
# version or of another folder; otherwise only the files whose (size, modification time,
# inode) changed are read again. Files modified within the last two seconds are re-read on
# the next search too: a file system clock ticks coarsely, so an edit in the same tick as the
# last look could keep its size and time.
#
# Every text is folded before it is indexed, and so is every query (planner.notes.folding):
# the simplified, traditional and Japanese forms of a character are one form in the index, so
# 敬语 finds 敬語. The fold's table is kept in meta ('folds', with its SHA-256: a damaged one
# means a rebuild): a search folds its query with it, never OpenCC. A note whose text the fold
# changed keeps its own text beside (files.original): get_note gives it back, and a snippet is
# cut from it at the place the folded match stands.
#
# A file skipped for a problem (damaged front matter, not UTF-8, ...) is warned about once per
# cause: files.cause is (size, modification time, problem) and files.warned says the person has
# been told; a file read again with the same cause keeps the mark.

from __future__ import annotations

import os
import re
import sqlite3
import stat
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, cast

from planner.base import storage, strictjson
from planner.base.i18n import kept_words, restored
from planner.base.oserrors import os_reason
from planner.notes.folding import Folder, fold, sound_table, table_digest, table_pairs

# 3: sr-due dates kept beside each note; 4 to 6: folded text (simplified, traditional and
# Japanese forms as one; from 5 character by character, the table kept; 6: the table settled)
# and warnings once per cause.
VERSION = "7"
INDEX_FILE = "notes-index.sqlite3"
TOKENIZER = "porter unicode61 remove_diacritics 2"
SNIPPET_TOKENS = 24
SNIPPET_CHARS = 160
_RACY_NS = 2_000_000_000
_BUSY_MS = 5000
_STALE_SECONDS = 3600  # a build takes seconds: a temporary file this old was left by a crash
_MARK = "\x01"
# The first build of a folder this large shows its progress (on a terminal), every STEP files.
PROGRESS_FILES = 500
PROGRESS_STEP = 100
# Scripts written without spaces between words (Han, kana, Hangul): one token per character.
_CJK = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
    "\U00020000-\U0003134f]+"
)
# What unicode61 keeps as token characters (letters and digits); a term without one is empty.
_WORDY = re.compile(r"[^\W_]")
_SPACES = re.compile(r"\s+")
_CONTROLS = re.compile("[\x00-\x1f\x7f]")

_SCHEMA = (
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
    # One row per file seen: a note (id set) or a file skipped with the reason (problem set).
    # sr_due: Obsidian Spaced Repetition's `sr-due` date (YYYY-MM-DD) from the front matter.
    # original: the note's text when folding changed it (else NULL: the indexed body is it).
    # cause and warned: a skipped file's (size, time, problem), and whether it was warned about.
    # said: the problem's template and values (JSON), to say it in the person's language.
    "CREATE TABLE files(rowid INTEGER PRIMARY KEY, path TEXT UNIQUE, size INTEGER, "
    "mtime_ns INTEGER, ino INTEGER, id TEXT, title TEXT, tags TEXT, problem TEXT, sr_due TEXT, "
    "original TEXT, cause TEXT, warned INTEGER NOT NULL DEFAULT 0, said TEXT)",
    "CREATE INDEX files_by_id ON files(id)",
    "CREATE INDEX files_skipped ON files(path) WHERE problem IS NOT NULL",
    f"CREATE VIRTUAL TABLE notes_fts USING fts5(id, title, tags, body, tokenize='{TOKENIZER}')",
)
# bm25 weights for id, title, tags, body: a match in the title says most about the note.
_RANK = "bm25(notes_fts, 2.0, 5.0, 3.0, 1.0)"
# An ID that two files share names neither (README "Your notes"): such notes are left out of every
# answer,
# and notes.py warns about them. Through the index on id: a few ms on 10,000 notes.
_SHARED = "SELECT id FROM files WHERE id IS NOT NULL GROUP BY id HAVING count(*) > 1"
_OFFERED = f"id IS NOT NULL AND id NOT IN ({_SHARED})"
_HIDDEN_ROWS = f"SELECT rowid FROM files WHERE id IN ({_SHARED})"


# One note file as the folder scan saw it, (relative path, size, mtime_ns, inode): the key that
# decides whether to read it again. A plain tuple, not a NamedTuple: 10,000 of them are made
# and fingerprinted on every search, and a plain tuple's repr runs in C.
FileStat = tuple[str, int, int, int]


class Parsed(NamedTuple):
    """What a note file holds, as the index stores it."""

    id: str
    title: str
    tags: tuple[str, ...]
    text: str
    sr_due: str | None = None  # a checked YYYY-MM-DD from front matter `sr-due:`


class IndexRow(NamedTuple):
    """A note as the index gives it back; `snippet` only from a search."""

    id: str
    title: str
    tags: tuple[str, ...]
    path: str | None
    snippet: str | None = None


# How notes.py reads one file: its Parsed contents, or the one-line reason it is skipped.
Reader = Callable[[FileStat], "Parsed | str"]
# Told (files read, files to read) while a build reads a large folder; None: nothing is shown.
Progress = Callable[[int, int], None] | None


class IndexFailed(Exception):
    """The index cannot be used (damaged, locked, unwritable); one line for the person."""


def spaced(text: str) -> str:
    """The text as it is indexed: a marker on both sides of every CJK character."""
    return _CJK.sub(_spread, text.replace(_MARK, ""))


def _spread(match: re.Match[str]) -> str:
    return _MARK + _MARK.join(match.group()) + _MARK


def match_expression(query: str, folding: Callable[[str], str] = fold) -> str | None:
    """An FTS5 query: every whitespace-separated term must appear, each character in its folded
    form (as the notes are indexed); None when none can match."""
    phrases: dict[str, None] = {}
    # Control characters are never in a token; a NUL would end FTS5's reading of the string.
    for term in folding(_CONTROLS.sub(" ", query)).split():
        if _WORDY.search(term):
            # A quoted string is one phrase: its tokens must stand in this order, side by side.
            # A repeated term is asked once: each costs a pass over its words' postings.
            phrases['"' + spaced(term.lower()).replace('"', '""') + '"'] = None
    return " AND ".join(phrases) if phrases else None


class NoteIndex:
    """An open index: sync it with a folder scan, then list, count, look up and search notes."""

    def __init__(self, connection: sqlite3.Connection, location: str) -> None:
        self._db = connection
        self.location = location
        self._folder: Folder | None = None

    def _fold(self) -> Folder:
        """The fold the notes were indexed with (its table is in meta)."""
        if self._folder is None:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'folds'").fetchone()
            self._folder = Folder(table_pairs() if row is None else row[0])
        return self._folder

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    # --- building and updating -----------------------------------------------------------------

    def create(self, root: str) -> None:
        """Create the empty schema for the folder `root` (a new, empty database)."""
        db = self._db
        db.execute("BEGIN")
        for statement in _SCHEMA:
            db.execute(statement)
        self._folder = Folder(table_pairs())
        pairs = self._folder.pairs
        db.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("version", VERSION), ("root", root), ("folds", pairs),
            ("folds_digest", table_digest(pairs))])
        db.execute("COMMIT")

    def sync(self, files: list[FileStat], read: Reader, progress: Progress = None) -> int:
        """Bring the index up to date with a folder scan; returns how many files were read."""
        try:
            return self._sync(files, read, progress)
        except sqlite3.Error as error:
            raise IndexFailed(_reason(error)) from None

    def _sync(self, files: list[FileStat], read: Reader, progress: Progress) -> int:
        db = self._db
        scan = _fingerprint(files)
        racy_after = time.time_ns() - _RACY_NS
        # Never remembered while a file is that new: its next edit could keep size and time.
        settled = all(entry[2] < racy_after for entry in files)
        known = db.execute("SELECT value FROM meta WHERE key = 'scan'").fetchone()
        if known is not None and known[0] == scan:
            return 0
        changed, gone = _changes(self._stored(), files)
        warned: dict[str, str] = {}
        # Look again under the write lock: another planner may have updated the same files.
        db.execute("BEGIN IMMEDIATE")
        try:
            if changed or gone:
                stored = self._stored()
                # The causes already warned about, kept when a file is read again unchanged.
                warned = {path: row[5] for path, row in stored.items() if row[6]}
                changed, gone = _changes(stored, files)
            db.executemany("DELETE FROM notes_fts WHERE rowid = ?", gone)
            db.executemany("DELETE FROM files WHERE rowid = ?", gone)
            for number, entry in enumerate(changed, 1):
                self._insert(entry, read(entry), racy_after, warned.get(entry[0]))
                if progress is not None and number % PROGRESS_STEP == 0:
                    progress(number, len(changed))
            if progress is not None:
                progress(len(changed), len(changed))
            if settled:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('scan', ?)", (scan,))
            else:
                db.execute("DELETE FROM meta WHERE key = 'scan'")
            db.execute("COMMIT")
        except BaseException:
            db.rollback()
            raise
        return len(changed)

    def _stored(self) -> dict[str, tuple[Any, ...]]:
        """path -> (path, size, mtime_ns, ino, rowid, cause, warned) of every file seen last
        time."""
        return {row[0]: row for row in self._db.execute(
            "SELECT path, size, mtime_ns, ino, rowid, cause, warned FROM files")}

    def _insert(self, entry: FileStat, parsed: Parsed | str, racy_after: int,
                warned: str | None = None) -> None:
        """Store one file; `warned` is the cause last warned about for its path, if any."""
        db = self._db
        path, real_size, mtime_ns, ino = entry
        # A file changed moments ago is stored with no size, so the next sync reads it again:
        # an edit within the same clock tick may have kept its size and time.
        size = -1 if mtime_ns >= racy_after else real_size
        if isinstance(parsed, str):
            # Its cause, by its real size: read again unchanged, it keeps the warned mark.
            cause = f"{real_size}:{mtime_ns}:{parsed}"
            db.execute("INSERT INTO files(path, size, mtime_ns, ino, problem, cause, warned, said) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (path, size, mtime_ns, ino, parsed, cause, int(cause == warned),
                        kept_words(parsed)))
            return
        fields, original = _folded(parsed, self._fold())
        rowid = db.execute(
            "INSERT INTO files(path, size, mtime_ns, ino, id, title, tags, sr_due, original) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (path, size, mtime_ns, ino, parsed.id, parsed.title, "\n".join(parsed.tags),
             parsed.sr_due, original),
        ).lastrowid
        self._insert_text(rowid, fields)

    def _insert_text(self, rowid: int | None, fields: tuple[str, str, str, str]) -> None:
        self._db.execute(
            "INSERT INTO notes_fts(rowid, id, title, tags, body) VALUES (?, ?, ?, ?, ?)",
            (rowid, *fields))

    def add(self, notes: Iterable[Parsed]) -> None:
        """Index notes that have no file (notes.json, the samples), in the order given."""
        db = self._db
        try:
            db.execute("BEGIN")
            for note in notes:
                fields, original = _folded(note, self._fold())
                rowid = db.execute("INSERT INTO files(id, title, tags, original) "
                                   "VALUES (?, ?, ?, ?)",
                                   (note.id, note.title, "\n".join(note.tags), original)
                                   ).lastrowid
                self._insert_text(rowid, fields)
            db.execute("COMMIT")
        except sqlite3.Error as error:
            db.rollback()
            raise IndexFailed(_reason(error)) from None

    # --- reading -------------------------------------------------------------------------------

    def problems(self, new_only: bool = False) -> list[tuple[str, str]]:
        """(path, reason) for every file that was skipped, by path; with new_only, only those
        not warned about yet (see warned)."""
        rows = self._query("SELECT path, problem, said FROM files WHERE problem IS NOT NULL "
                           + ("AND warned = 0 " if new_only else "") + "ORDER BY path")
        return [(path, restored(problem, _kept(said))) for path, problem, said in rows]

    def warned(self) -> None:
        """Remember that the person has been told of every skipped file's present cause."""
        try:
            self._db.execute("UPDATE files SET warned = 1 WHERE problem IS NOT NULL AND "
                             "warned = 0")
        except sqlite3.Error:
            pass  # busy or read-only: the warning is simply given again next time

    def ids(self) -> list[str]:
        """Every note's ID (an ID two files share is no note's)."""
        return [row[0] for row in self._query(f"SELECT id FROM files WHERE {_OFFERED}")]

    def sr_due(self) -> list[tuple[str, str]]:
        """(note ID, date) of every note whose front matter has an `sr-due:` date."""
        return self._query(f"SELECT id, sr_due FROM files WHERE {_OFFERED} AND "
                           "sr_due IS NOT NULL")

    def count(self) -> int:
        """How many notes (those whose ID another file shares left out)."""
        return cast(int, self._query(f"SELECT count(*) FROM files WHERE {_OFFERED}")[0][0])

    def duplicates(self) -> list[tuple[str, list[str]]]:
        """(id, the paths of the files that have it) for every ID two or more files share."""
        found: dict[str, list[str]] = {}
        for note_id, path in self._query(f"SELECT id, path FROM files WHERE id IN ({_SHARED}) "
                                         "ORDER BY id, path"):
            found.setdefault(note_id, []).append(path)
        return list(found.items())

    def rows(self, limit: int | None = None) -> Iterator[IndexRow]:
        """Notes in listing order (by path; notes without a file in the order added)."""
        sql = (f"SELECT id, title, tags, path FROM files WHERE {_OFFERED} "
               "ORDER BY path, rowid LIMIT ?")
        for note_id, title, tags, path in self._query(sql, (-1 if limit is None else limit,)):
            yield IndexRow(note_id, title, _tags(tags), path)

    def note(self, note_id: str) -> tuple[IndexRow, str] | None:
        """One note's row and its full text, or None when no note has this ID."""
        rows = self._query(
            "SELECT f.id, f.title, f.tags, f.path, coalesce(f.original, n.body) FROM files f "
            "JOIN notes_fts n ON n.rowid = f.rowid WHERE f.id = ?1 AND (SELECT count(*) FROM "
            "files WHERE id = ?1) = 1", (note_id,))
        if not rows:
            return None
        found_id, title, tags, path, body = rows[0]
        return IndexRow(found_id, title, _tags(tags), path), body.replace(_MARK, "")

    def search(self, query: str, limit: int | None) -> tuple[list[IndexRow], int]:
        """The best matches for `query` (all when limit is None) and how many match in all."""
        try:
            expression = match_expression(query, self._fold())
        except sqlite3.Error as error:
            raise IndexFailed(_reason(error)) from None
        if expression is None:
            return [], 0
        total = self._query("SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ? AND "
                            f"rowid NOT IN ({_HIDDEN_ROWS})", (expression,))[0][0]
        # The best rowids first, then their rows and snippets: joining every match before
        # sorting costs twice as much when a common word matches all 10,000 notes.
        # A note whose text folding changed: its folded body too, to cut the snippet from its own.
        found = self._query(
            "SELECT f.id, f.title, f.tags, f.path, "
            f"snippet(notes_fts, 3, '', '', '…', {SNIPPET_TOKENS}), f.original, "
            "CASE WHEN f.original IS NULL THEN NULL ELSE notes_fts.body END "
            f"FROM (SELECT rowid AS best, {_RANK} AS score FROM notes_fts "
            f"WHERE notes_fts MATCH ?1 AND rowid NOT IN ({_HIDDEN_ROWS}) "
            "ORDER BY score, rowid LIMIT ?2) "
            "JOIN notes_fts ON notes_fts.rowid = best JOIN files f ON f.rowid = best "
            "WHERE notes_fts MATCH ?1 ORDER BY score, best",
            (expression, -1 if limit is None else limit))
        rows = [IndexRow(note_id, title, _tags(tags), path,
                         _snippet(snippet if original is None
                                  else _unfolded(snippet, body, original)))
                for note_id, title, tags, path, snippet, original, body in found]
        return rows, total

    def _query(self, sql: str, parameters: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, parameters).fetchall()
        except sqlite3.Error as error:
            raise IndexFailed(_reason(error)) from None


def _kept(said: str | None) -> object:
    """The template and values kept beside a skipped file's reason, or None."""
    if said is None:
        return None
    try:
        return strictjson.loads(said)
    except strictjson.JSONRefused:
        return None


def _changes(stored: dict[str, Any], files: list[FileStat]) -> tuple[list[FileStat], list[Any]]:
    """The files to read again (new or changed) and the rowids to delete (changed or gone).

    `stored` is used up: what is left in it at the end is gone from the folder."""
    changed: list[FileStat] = []
    replaced = []
    for entry in files:
        known = stored.pop(entry[0], None)
        if known is None or known[:4] != entry:
            changed.append(entry)
            if known is not None:
                replaced.append((known[4],))
    return changed, replaced + [(known[4],) for known in stored.values()]


def _fingerprint(files: list[FileStat]) -> str:
    """The whole scan in a short string: when it equals the last one, nothing changed and the
    stored rows need not even be loaded (a quarter of a warm search on 10,000 notes)."""
    # Two independent checksums and the length (zlib: hashlib's import alone costs 4 ms). A
    # collision needs a different scan with the same 64 bits; the notes folder is the person's.
    data = repr(files).encode("utf-8", "surrogatepass")
    return f"{len(data)}:{zlib.crc32(data):08x}:{zlib.adler32(data):08x}"


def _folded(note: Parsed, fold: Folder) -> tuple[tuple[str, str, str, str], str | None]:
    """The note's id, title, tags and body as indexed (folded, CJK spaced), and its own text
    when folding changed it (else None)."""
    text = note.text.replace(_MARK, "")
    body = fold(text)
    return ((spaced(fold(note.id)), spaced(fold(note.title)),
             spaced(fold(" ".join(note.tags))), spaced(body)),
            None if body == text else text)


def _unfolded(snippet: str | None, body: str, original: str) -> str | None:
    """The snippet FTS5 cut from the folded `body`, taken from the note's `original` text at
    the same place (a fold keeps every character's place); the folded one if not found."""
    if not snippet:
        return snippet
    core, before, after = snippet, False, False
    at = body.find(core)
    if at < 0 and core.startswith("…"):
        core, before = core[1:], True
        at = body.find(core)
    if at < 0 and core.endswith("…"):
        core, after = core[:-1], True
        at = body.find(core)
    if at < 0 or not core:
        return snippet
    start = at - body.count(_MARK, 0, at)
    end = start + len(core) - core.count(_MARK)
    return ("…" if before else "") + original[start:end] + ("…" if after else "")


def _tags(text: str | None) -> tuple[str, ...]:
    return tuple(text.split("\n")) if text else ()


def _snippet(text: str | None) -> str:
    """A snippet on one line of at most SNIPPET_CHARS characters, markers removed."""
    line = _SPACES.sub(" ", (text or "").replace(_MARK, "")).strip()
    return line if len(line) <= SNIPPET_CHARS else line[:SNIPPET_CHARS - 1] + "…"


def _reason(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


# --- opening, validating and rebuilding the file -------------------------------------------------


def memory_index(root: str = "") -> NoteIndex:
    """A new, empty index in memory (notes.json and the samples, or when no file can be kept)."""
    index = NoteIndex(sqlite3.connect(":memory:", isolation_level=None,
                                      check_same_thread=False), "memory")
    index.create(root)
    return index


def synced_index(
    place: Path, root: str, files: list[FileStat], read: Reader, rebuild: bool = False,
    progress: Progress = None,
) -> tuple[NoteIndex, int]:
    """The index kept in folder `place`, up to date with `files`, and how many files were read.

    An existing index is used when it is sound and of this version and folder; otherwise (or
    with rebuild=True) a new one is built from nothing, told to `progress` when the folder has
    at least PROGRESS_FILES files. Raises IndexFailed (with the reason) when no index can be
    kept there; the caller then indexes in memory.
    """
    try:
        _private_folder(place)
        path = place / INDEX_FILE
        index = None if rebuild else _open_sound(path, root)
        if index is not None:
            try:
                return index, index.sync(files, read)
            except IndexFailed as error:
                index.close()
                if _is_busy(error):
                    raise
                # Damaged in a way opening did not show: build a new one below.
        return _build(path, root, files, read,
                      progress if len(files) >= PROGRESS_FILES else None)
    except OSError as error:
        raise IndexFailed(os_reason(error)) from None


def _private_folder(place: Path) -> None:
    """The index's folder (0700), ignored by git so a home inside a repository stays clean."""
    storage.ensure_dir(place)
    ignore = place / ".gitignore"
    if not os.path.lexists(ignore):
        try:
            storage.create_exclusive(ignore, b"# planner's caches: never commit them\n*\n")
        except FileExistsError:
            pass


def _connect(path: Path) -> sqlite3.Connection:
    # Autocommit: every transaction here is an explicit BEGIN ... COMMIT. A catalog is used by
    # one thread at a time, but not always the one that opened it (a run may look up from a
    # worker thread): sqlite3's same-thread check would turn that into a needless rebuild.
    db = sqlite3.connect(path, timeout=_BUSY_MS / 1000, isolation_level=None,
                         check_same_thread=False)
    db.execute("PRAGMA synchronous = NORMAL")
    return db


def _open_sound(path: Path, root: str) -> NoteIndex | None:
    """The index at `path` when it opens, is of this version and of this folder; else None."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        _discard(path)  # a link or anything else in planner's own folder is not followed
        return None
    if stat.S_IMODE(info.st_mode) != storage.FILE_MODE:
        os.chmod(path, storage.FILE_MODE)
    db = None
    try:
        db = _connect(path)
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        # Touch both tables: a damaged file usually fails here already.
        db.execute("SELECT count(*) FROM files").fetchone()
        db.execute("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'planner' LIMIT 1")
    except sqlite3.Error as error:
        if db is not None:
            db.close()
        if _is_busy(error):
            raise IndexFailed(_reason(error)) from None
        return None
    if meta.get("version") != VERSION or meta.get("root") != root \
            or not sound_table(meta.get("folds"), meta.get("folds_digest")):
        db.close()
        return None
    return NoteIndex(db, str(path))


def _build(path: Path, root: str, files: list[FileStat], read: Reader,
           progress: Progress = None) -> tuple[NoteIndex, int]:
    """Build a new index from nothing next to `path`, then put it in place in one rename."""
    _sweep(path)
    temp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 storage.FILE_MODE)
    os.close(fd)
    try:
        os.chmod(temp, storage.FILE_MODE)  # exact, whatever the umask
        db = sqlite3.connect(temp, isolation_level=None)
        try:
            # Nothing to protect while building: a crash leaves a temporary file, never the index.
            db.execute("PRAGMA journal_mode = OFF")
            db.execute("PRAGMA synchronous = OFF")
            index = NoteIndex(db, str(path))
            index.create(root)
            count = index.sync(files, read, progress)
        finally:
            db.close()
        # A journal left by a crash belongs to the old file: it must not roll back the new one.
        _discard(path.with_name(path.name + "-journal"))
        os.replace(temp, path)
    except BaseException as error:
        _discard(temp)
        if isinstance(error, sqlite3.Error):
            raise IndexFailed(_reason(error)) from None
        raise
    try:
        return NoteIndex(_connect(path), str(path)), count
    except sqlite3.Error as error:
        raise IndexFailed(_reason(error)) from None


def _sweep(path: Path) -> None:
    """Remove temporary files that builds killed long ago (SIGKILL, power loss) left behind."""
    stale = time.time() - _STALE_SECONDS
    for leftover in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            if leftover.lstat().st_mtime < stale:
                leftover.unlink()
        except OSError:
            pass


def _discard(path: Path) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _is_busy(error: BaseException) -> bool:
    text = str(error)
    return "locked" in text or "busy" in text
