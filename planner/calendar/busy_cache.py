"""Busy time of calendar files kept in `.planner/` (README "Your week" Speed), so an unchanged vdir
of
thousands of events is neither read nor parsed again.

One text file per file source (an .ics file or a vdir folder) and local zone, written atomically,
only ever planner's own: a header (format, a digest of the source's path and the zone, and the
days its occurrences were worked out for), then per calendar file its key (size, modification
time in nanoseconds, inode; as the notes index keys its files) and name, each followed by its
occurrences on those days as local wall-clock times: `+` busy (with its title, already inert),
`*` busy and all-day (with its title; config's `"all_day": "free"` is applied after the cache),
`-` not busy (cancelled, transparent, planner's own): those still count towards the
bound of events. A file whose key changed is read again; a window outside the cached days or a
cache of another format rebuilds the whole cache. A cache is checked field by field when read
back (a time with a zone, an end not after its start, a negative count, a title that is not
inert, a line cut short): one that fails is Damaged, said in one warning line and rebuilt. A
cache that cannot be written is no failure: the next run works it out again.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
from pathlib import Path
from typing import NamedTuple

from planner.base import storage
from planner.base.days import usable_day
from planner.base.i18n import t
from planner.base.inert import inert_line

CACHE_FOLDER = ".planner"  # the notes index's and the memory cache's folder
FORMAT = "planner-busy-cache-2"
MAX_CACHE_BYTES = 64 * storage.MIB

# (start, end, title, all-day): local wall-clock times; title None for an occurrence that is not
# busy.
Occurrence = tuple[_dt.datetime, _dt.datetime, str | None, bool]


class FileKey(NamedTuple):
    size: int
    mtime_ns: int
    inode: int


class Cached(NamedTuple):
    """What a cache holds: the days worked out, and each file's key and occurrences."""

    first: _dt.date
    last: _dt.date
    files: dict[str, tuple[FileKey, list[Occurrence]]]


def key_of(info: os.stat_result) -> FileKey:
    return FileKey(info.st_size, info.st_mtime_ns, info.st_ino)


def cache_path(home: Path, source: Path, zone: _dt.tzinfo | None) -> tuple[Path, str]:
    """Where the cache of one source in one zone is kept, and the digest its header holds."""
    try:
        where = str(source.resolve())
    except (OSError, RuntimeError):
        where = os.path.abspath(source)
    digest = hashlib.sha256(f"{where}\0{zone_key(zone)}".encode("utf-8", "surrogateescape"))
    name = digest.hexdigest()
    return home / CACHE_FOLDER / f"busy-{name[:24]}.txt", name


def zone_key(zone: _dt.tzinfo | None) -> str:
    """A name for the zone local times are in: its IANA key, or what the system's depends on."""
    if zone is None:
        try:
            link = os.path.realpath("/etc/localtime")
        except OSError:
            link = ""
        return f"system:{os.environ.get('TZ', '')}:{link}"
    return str(getattr(zone, "key", None) or repr(zone))


class Damaged(NamedTuple):
    """A cache that is there but not what planner writes (a hand edit, a disk fault): `why`."""

    why: str


def load(path: Path, digest: str) -> Cached | Damaged | None:
    """The cache at `path` when it is one for `digest`; None when there is none (or it is of
    another format or source: rebuilt without a word); Damaged when it is there but cannot be
    trusted, checked field by field. Never raises."""
    try:
        data = storage.read_regular_file(path, MAX_CACHE_BYTES, follow_links=False)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        return Damaged(str(getattr(error, "reason", None) or t("it cannot be read")))
    text = data.decode("utf-8", "surrogateescape")
    lines = text.split("\n")
    head = lines[0].split("\t")
    if head[0] != FORMAT:
        if head[0].startswith(FORMAT.rsplit("-", 1)[0] + "-") and len(head) == 4:
            return None  # another version's: rebuilt
        return Damaged(t("it is not a busy cache"))
    if len(head) != 4 or lines[-1] != "":
        return Damaged(t("it is cut short"))
    if head[1] != digest:
        return None  # another source's or zone's
    try:
        return _parsed(head, lines[1:-1])
    except _Wrong as wrong:
        return Damaged(str(wrong))
    except (ValueError, TypeError, OverflowError):  # a date, time or number that is not one
        return Damaged(t("it holds a value that cannot be read"))


class _Wrong(ValueError):
    """What is wrong with a cache's line, in words for the person."""


def _parsed(head: list[str], lines: list[str]) -> Cached:
    """The cache's days and files; ValueError naming the first thing wrong."""
    first, last = _day(head[2]), _day(head[3])
    if first > last:
        raise _Wrong(t("its days end before they begin"))
    files: dict[str, tuple[FileKey, list[Occurrence]]] = {}
    occurrences: list[Occurrence] | None = None
    for line in lines:
        kind = line[:1]
        if kind in ("+", "*", "-"):
            if occurrences is None:
                raise _Wrong(t("it holds an event before its file"))
            if kind != "-":
                _, start, end, title = line.split("\t", 3)
                if inert_line(title) != title:
                    raise _Wrong(t("it holds a title that is not inert"))
                occurrences.append((*_span(start, end), title, kind == "*"))
            else:
                _, start, end = line.split("\t")
                occurrences.append((*_span(start, end), None, False))
        elif kind == "F":
            _, size, mtime, inode, name = line.split("\t", 4)
            key = FileKey(_count(size), _number(mtime), _count(inode))
            if name in files or any(char in name for char in "\t\r"):
                raise _Wrong(t("it names a file twice"))
            occurrences = []
            files[name] = (key, occurrences)
        else:
            raise _Wrong(t("it holds a line of unknown kind"))
    return Cached(first, last, files)


def _day(text: str) -> _dt.date:
    day = _dt.date.fromisoformat(text)
    if not usable_day(day):
        raise _Wrong(t("it holds a day outside the calendar"))
    return day


def _span(start: str, end: str) -> tuple[_dt.datetime, _dt.datetime]:
    """An occurrence's times: naive local times (a time with a zone is damage), end after
    start, both a day inside the calendar's ends."""
    first, last = _dt.datetime.fromisoformat(start), _dt.datetime.fromisoformat(end)
    if first.tzinfo is not None or last.tzinfo is not None:
        raise _Wrong(t("it holds a time with a zone"))
    if not last > first:
        raise _Wrong(t("it holds an event that ends before it starts"))
    if not (usable_day(first.date()) or usable_day(last.date())):
        raise _Wrong(t("it holds a day outside the calendar"))
    return first, last


def _number(text: str) -> int:
    if not text.lstrip("-").isdigit() or not text.isascii() or len(text) > 30:
        raise _Wrong(t("it holds a number that is not one"))
    return int(text)


def _count(text: str) -> int:
    number = _number(text)
    if number < 0:
        raise _Wrong(t("it holds a negative count"))
    return number


def save(home: Path, path: Path, digest: str, cached: Cached) -> None:
    """Write the cache atomically; a cache that cannot be written is left for the next run."""
    rows = [f"{FORMAT}\t{digest}\t{cached.first.isoformat()}\t{cached.last.isoformat()}"]
    for name, (key, occurrences) in cached.files.items():
        if any(char in name for char in "\t\n\r"):
            continue  # read again next time
        rows.append(f"F\t{key.size}\t{key.mtime_ns}\t{key.inode}\t{name}")
        for start, end, title, all_day in occurrences:
            if title is None:
                rows.append(f"-\t{start.isoformat()}\t{end.isoformat()}")
            else:
                mark = "*" if all_day else "+"
                rows.append(f"{mark}\t{start.isoformat()}\t{end.isoformat()}\t{title}")
    try:
        storage.ensure_dir(home / CACHE_FOLDER)
        storage.write_atomic(path, ("\n".join(rows) + "\n").encode("utf-8", "surrogateescape"))
    except (OSError, ValueError):
        pass
