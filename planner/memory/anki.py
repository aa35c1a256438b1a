"""Anki's review history (SPEC 24): the `revlog` of an .apkg / .colpkg package or a bare
collection.anki2 file, only ever read.

A package is a zip. Anki 23.10 and later put the real collection in `collection.anki21b`
(zstd-compressed SQLite) and add a decoy `collection.anki2` holding one "please update" card;
older packages hold `collection.anki21` or only `collection.anki2`. The newest one there is read
and the decoy never. A collection inside a zip is extracted, bounded, into a private temporary
folder (deleted after); a bare file is opened where it is, read-only and immutable (SQLite then
writes nothing, not even a journal). Nothing of the file is copied into the home.

From the revlog: `ease` 1-4 is again/hard/good/easy, `id` the time in milliseconds, `cid` the
card; types 0-2 (learning, review, relearning) count; type 3 (filtered) and 4 (manual) entries
and `ease` 0 are skipped and counted under `filtered`, `manual` and `no_rating`; a time at the
calendar's edge (SPEC 28) under `bad_time`.
"""

from __future__ import annotations

import datetime as _dt
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, NamedTuple
from urllib.parse import quote

from planner.base.days import usable_time
from planner.base.i18n import t
from planner.base.inert import inert_line
from planner.base.oserrors import os_reason

MAX_PACKAGE_BYTES = 2048 * 1024 * 1024
MAX_COLLECTION_BYTES = 4096 * 1024 * 1024
MAX_REVIEWS = 5_000_000
NEWEST_FIRST = ("collection.anki21b", "collection.anki21", "collection.anki2")
_ZIP_MAGIC = b"PK\x03\x04"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_CHUNK = 1 << 20


class AnkiError(Exception):
    """The file is damaged or not Anki's; str() is the one line naming it."""


class AnkiReview(NamedTuple):
    """One counting revlog entry: the card, when (UTC), the rating 1-4."""

    card: int
    reviewed_at: _dt.datetime
    rating: int


class AnkiHistory(NamedTuple):
    """The counting reviews of one file, oldest first, and the skipped entries by reason."""

    name: str
    reviews: list[AnkiReview]
    skipped: dict[str, int]
    member: str | None  # the collection read inside a package (None: a bare file)


def read_history(path: str | os.PathLike[str]) -> AnkiHistory:
    """The review history of an Anki package or collection; AnkiError when it cannot be read."""
    where = Path(path)
    name = inert_line(str(where))
    try:
        info = os.stat(where)
    except OSError as error:
        raise AnkiError(t("{file} cannot be read ({reason})", file=name,
                          reason=os_reason(error))) from None
    if not stat.S_ISREG(info.st_mode):
        raise AnkiError(t("{file} is not a regular file; give an Anki .apkg, .colpkg or "
                          "collection.anki2 file", file=name))
    if info.st_size > MAX_PACKAGE_BYTES:
        raise AnkiError(t("{file} is larger than the {size} planner reads", file=name,
                          size="2 GiB"))
    try:
        with open(where, "rb") as stream:
            magic = stream.read(16)
    except OSError as error:
        raise AnkiError(t("{file} cannot be read ({reason})", file=name,
                          reason=os_reason(error))) from None
    if magic.startswith(_ZIP_MAGIC):
        return _from_package(where, name)
    if magic == _SQLITE_MAGIC:
        reviews, skipped = _revlog(where, name)
        return AnkiHistory(name, reviews, skipped, None)
    raise AnkiError(t("{file} is not an Anki package (.apkg, .colpkg) or collection "
                      "(collection.anki2)", file=name))


def _from_package(path: Path, name: str) -> AnkiHistory:
    import zipfile

    try:
        with zipfile.ZipFile(path) as package:
            names = set(package.namelist())
            member = next((candidate for candidate in NEWEST_FIRST if candidate in names), None)
            if member is None:
                raise AnkiError(t("{file} holds no Anki collection (collection.anki21b, "
                                  "collection.anki21 or collection.anki2)", file=name))
            if package.getinfo(member).file_size > MAX_COLLECTION_BYTES:
                raise AnkiError(t("{file}: its collection is larger than the {size} planner "
                                  "reads", file=name, size="4 GiB"))
            with tempfile.TemporaryDirectory(prefix="planner-anki-") as folder:
                copy = Path(folder) / "collection.sqlite"
                with package.open(member) as stream:
                    if member.endswith("b"):
                        _unzstd(stream, copy, name)
                    else:
                        _copy(stream, copy, name)
                reviews, skipped = _revlog(copy, name)
    except AnkiError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError,
            NotImplementedError) as error:
        raise AnkiError(t("{file} is a damaged zip ({reason}); export it again from Anki",
                          file=name, reason=inert_line(str(error)))) from None
    except OSError as error:
        raise AnkiError(t("{file} cannot be read ({reason})", file=name,
                          reason=os_reason(error))) from None
    return AnkiHistory(name, reviews, skipped, member)


def _copy(stream: IO[bytes], target: Path, name: str) -> None:
    left = MAX_COLLECTION_BYTES
    with open(target, "xb") as out:
        while chunk := stream.read(_CHUNK):
            left -= len(chunk)
            if left < 0:
                raise AnkiError(t("{file}: its collection is larger than the {size} planner "
                                  "reads", file=name, size="4 GiB"))
            out.write(chunk)


def _unzstd(stream: IO[bytes], target: Path, name: str) -> None:
    import zstandard

    try:
        reader = zstandard.ZstdDecompressor().stream_reader(stream)
        _copy(reader, target, name)
    except zstandard.ZstdError as error:
        raise AnkiError(t("{file}: its collection.anki21b is not a valid zstd stream ({reason}); "
                          "export it again from Anki", file=name,
                          reason=inert_line(str(error)))) from None


def _revlog(path: Path, name: str) -> tuple[list[AnkiReview], dict[str, int]]:
    """The counting revlog entries (oldest first) and the skipped ones by reason."""
    import sqlite3

    uri = f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"
    skipped = {"filtered": 0, "manual": 0, "no_rating": 0, "bad_time": 0}
    reviews: list[AnkiReview] = []
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as error:
        raise AnkiError(_not_anki(name, error)) from None
    try:
        tables = {row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "revlog" not in tables or "cards" not in tables:
            raise AnkiError(t("{file} is an SQLite database but not an Anki collection (it has "
                              "no revlog table)", file=name))
        rows = connection.execute("SELECT id, cid, ease, type FROM revlog ORDER BY id")
        for moment_ms, card, ease, kind in rows:
            if len(reviews) >= MAX_REVIEWS:
                raise AnkiError(t("{file} holds more than {count:,} reviews, more than planner "
                                  "reads", file=name, count=MAX_REVIEWS))
            if type(kind) is not int or type(ease) is not int or type(card) is not int \
                    or type(moment_ms) is not int:
                skipped["no_rating"] += 1
            elif kind in (3, 4):
                skipped["filtered" if kind == 3 else "manual"] += 1
            elif not 1 <= ease <= 4 or kind not in (0, 1, 2):
                skipped["no_rating"] += 1
            else:
                try:
                    moment = _EPOCH + _dt.timedelta(milliseconds=moment_ms)
                except OverflowError:
                    moment = None
                if moment is None or not usable_time(moment):
                    skipped["bad_time"] += 1
                    continue
                reviews.append(AnkiReview(card, moment, ease))
    except sqlite3.Error as error:
        raise AnkiError(_not_anki(name, error)) from None
    finally:
        connection.close()
    return reviews, skipped


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


def _not_anki(name: str, error: Exception) -> str:
    return t("{file} is not a readable Anki collection ({reason})", file=name,
             reason=inert_line(str(error)))
