"""Anki's review history (README "A memory fitted to you"): the `revlog` of an .apkg / .colpkg
package or a bare
collection.anki2 file, only ever read.

A package is a zip. Anki 23.10 and later put the real collection in `collection.anki21b`
(zstd-compressed SQLite) and add a decoy `collection.anki2` holding one "please update" card;
older packages hold `collection.anki21` or only `collection.anki2`. The newest one there is read
and the decoy never. A collection inside a zip is extracted, bounded, into a private temporary
folder (deleted after); a bare file is opened where it is, read-only and immutable (SQLite then
writes nothing, not even a journal). Nothing of the file is copied into the home.

Bounded whatever the file holds: the bytes a member unpacks to are counted while they stream,
before they reach the disk (at most 100 times its packed size or 64 MiB, whichever is more, and
never past 2 GiB: a zip or zstd bomb stops there), and reading the database stops after
QUERY_SECONDS (SQLite's progress handler: a collection whose revlog is made costly to read, by
a computed column say, is interrupted). Either is one line naming the file, and the temporary
folder is gone.

From the revlog: `ease` 1-4 is again/hard/good/easy, `id` the time in milliseconds, `cid` the
card; types 0-2 (learning, review, relearning) count; type 3 (filtered) and 4 (manual) entries
and `ease` 0 are skipped and counted under `filtered`, `manual` and `no_rating`; a time at the
calendar's edge (README "A screen you can trust") under `bad_time`; one dated more than a day after
now (a clock that
was wrong) under `future`, a key there only when some were.
"""

from __future__ import annotations

import datetime as _dt
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import IO, NamedTuple
from urllib.parse import quote

from planner.base.days import usable_time
from planner.base.errors import UsageError
from planner.base.i18n import t
from planner.base.inert import inert_line
from planner.base.oserrors import os_reason

MAX_PACKAGE_BYTES = 2048 * 1024 * 1024
MAX_COLLECTION_BYTES = 2048 * 1024 * 1024  # what one member may unpack to, whatever its size
MIN_INFLATE_BYTES = 64 * 1024 * 1024  # a member may always unpack to this much
INFLATE_RATIO = 100  # else to this many times its packed size
QUERY_SECONDS = 10.0  # reading the database stops after this long
# Only lowers QUERY_SECONDS (the tests' costly collection ends in a moment, not in 10 s).
QUERY_SECONDS_VARIABLE = "PLANNER_ANKI_QUERY_SECONDS"
MAX_TEXT_BYTES = 16 * 1024 * 1024  # SQLite's length limit: no value planner reads is longer
_PROGRESS_STEPS = 1000  # SQLite instructions between two looks at the clock
FUTURE_MARGIN = _dt.timedelta(days=1)  # a review later than now by more is not counted
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


def history_for_fit(path: str | os.PathLike[str]) -> AnkiHistory:
    """read_history's history for a fit; a file it cannot read is a UsageError saying so and
    that nothing was changed (exit 2)."""
    try:
        return read_history(path)
    except AnkiError as error:
        raise UsageError(t("{problem}; nothing was changed", problem=error)) from None


def read_history(path: str | os.PathLike[str],
                 now: _dt.datetime | None = None) -> AnkiHistory:
    """The review history of an Anki package or collection as of `now` (None: the clock's);
    AnkiError when it cannot be read."""
    latest = (now or _dt.datetime.now(_dt.UTC)) + FUTURE_MARGIN
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
        return _from_package(where, name, latest)
    if magic == _SQLITE_MAGIC:
        reviews, skipped = _revlog(where, name, latest)
        return AnkiHistory(name, reviews, skipped, None)
    raise AnkiError(t("{file} is not an Anki package (.apkg, .colpkg) or collection "
                      "(collection.anki2)", file=name))


def _from_package(path: Path, name: str, latest: _dt.datetime) -> AnkiHistory:
    import zipfile

    try:
        with zipfile.ZipFile(path) as package:
            names = set(package.namelist())
            member = next((candidate for candidate in NEWEST_FIRST if candidate in names), None)
            if member is None:
                raise AnkiError(t("{file} holds no Anki collection (collection.anki21b, "
                                  "collection.anki21 or collection.anki2)", file=name))
            info = package.getinfo(member)
            limit = inflate_limit(info.compress_size)
            if info.file_size > limit:
                raise AnkiError(_too_large(name, member, limit))
            with tempfile.TemporaryDirectory(prefix="planner-anki-") as folder:
                copy = Path(folder) / "collection.sqlite"
                with package.open(member) as stream:
                    # Counted as it inflates, and again as it is written (zstd's own output).
                    counted = _Counted(stream, limit, _too_large(name, member, limit))
                    if member.endswith("b"):
                        _unzstd(counted, copy, name, limit, member)
                    else:
                        _copy(counted, copy, limit, _too_large(name, member, limit))
                reviews, skipped = _revlog(copy, name, latest)
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


def inflate_limit(packed: int) -> int:
    """How many bytes a member packed in `packed` bytes may unpack to."""
    return min(MAX_COLLECTION_BYTES, max(INFLATE_RATIO * packed, MIN_INFLATE_BYTES))


def _too_large(name: str, member: str, limit: int) -> str:
    return t("{file}: its {member} unpacks to more than {size} (100 times its packed size, at "
             "least 64 MiB, never past 2 GiB); planner reads no more of it", file=name,
             member=member, size=_mib(limit))


def _mib(size: int) -> str:
    return f"{size / (1024 * 1024):,.0f} MiB"


class _Counted:
    """A stream that refuses to give more than `limit` bytes in all (AnkiError `refusal`)."""

    def __init__(self, stream: IO[bytes], limit: int, refusal: str) -> None:
        self._stream, self._left, self._refusal = stream, limit, refusal

    def read(self, size: int = -1) -> bytes:
        # Never more than one chunk at once, so a bomb is stopped a chunk past the limit.
        chunk = self._stream.read(_CHUNK if size is None or size < 0 else min(size, _CHUNK))
        self._left -= len(chunk)
        if self._left < 0:
            raise AnkiError(self._refusal)
        return chunk


def _copy(stream: IO[bytes] | _Counted, target: Path, limit: int, refusal: str) -> None:
    """Write `stream` to `target`, each chunk counted before it is written."""
    left = limit
    with open(target, "xb") as out:
        while chunk := stream.read(_CHUNK):
            left -= len(chunk)
            if left < 0:
                raise AnkiError(refusal)
            out.write(chunk)


def _unzstd(stream: _Counted, target: Path, name: str, limit: int, member: str) -> None:
    import zstandard

    try:
        reader = zstandard.ZstdDecompressor().stream_reader(stream)  # type: ignore[arg-type]
        _copy(reader, target, limit, _too_large(name, member, limit))
    except zstandard.ZstdError as error:
        raise AnkiError(t("{file}: its collection.anki21b is not a valid zstd stream ({reason}); "
                          "export it again from Anki", file=name,
                          reason=inert_line(str(error)))) from None


def _revlog(path: Path, name: str,
            latest: _dt.datetime) -> tuple[list[AnkiReview], dict[str, int]]:
    """The counting revlog entries up to `latest` (oldest first) and the skipped ones by
    reason."""
    import sqlite3

    uri = f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"
    skipped = {"filtered": 0, "manual": 0, "no_rating": 0, "bad_time": 0}
    reviews: list[AnkiReview] = []
    seconds = query_seconds()
    deadline = time.monotonic() + seconds
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as error:
        raise AnkiError(_not_anki(name, error)) from None
    late = False

    def too_late() -> bool:
        nonlocal late
        late = time.monotonic() > deadline
        return late

    try:
        # Every statement, and every row fetched, stops once reading took QUERY_SECONDS.
        connection.set_progress_handler(too_late, _PROGRESS_STEPS)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_TEXT_BYTES)
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
                if moment > latest:
                    skipped["future"] = skipped.get("future", 0) + 1
                    continue
                reviews.append(AnkiReview(card, moment, ease))
    except sqlite3.Error as error:
        if late:
            raise AnkiError(t("{file}: reading its reviews took more than {seconds:g} s, so "
                              "planner stopped; export the collection again from Anki",
                              file=name, seconds=seconds)) from None
        raise AnkiError(_not_anki(name, error)) from None
    finally:
        connection.close()
    return reviews, skipped


def query_seconds() -> float:
    """QUERY_SECONDS, or less when PLANNER_ANKI_QUERY_SECONDS asks for less."""
    try:
        wanted = float(os.environ.get(QUERY_SECONDS_VARIABLE, ""))
    except ValueError:
        return QUERY_SECONDS
    return wanted if 0 < wanted < QUERY_SECONDS else QUERY_SECONDS


_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.UTC)


def _not_anki(name: str, error: Exception) -> str:
    return t("{file} is not a readable Anki collection ({reason})", file=name,
             reason=inert_line(str(error)))
