"""Busy time of calendar files kept in `.planner/` (SPEC 23 Speed), so an unchanged vdir of
thousands of events is neither read nor parsed again.

One text file per file source (an .ics file or a vdir folder) and local zone, written atomically,
only ever planner's own: a header (format, a digest of the source's path and the zone, and the
days its occurrences were worked out for), then per calendar file its key (size, modification
time in nanoseconds, inode; as the notes index keys its files) and name, each followed by its
occurrences on those days as local wall-clock times: `+` busy (with its title, already inert),
`-` not busy (cancelled, transparent, planner's own, all-day): those still count towards the
bound of events. A file whose key changed is read again; a window outside the cached days, a
cache of another format, or one that cannot be read rebuilds the whole cache. A cache that
cannot be written is no failure: the next run works it out again.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
from pathlib import Path
from typing import NamedTuple

from planner.base import storage

CACHE_FOLDER = ".planner"  # the notes index's and the memory cache's folder
FORMAT = "planner-busy-cache-1"
MAX_CACHE_BYTES = 64 * storage.MIB

# (start, end, title): local wall-clock times; title None for an occurrence that is not busy.
Occurrence = tuple[_dt.datetime, _dt.datetime, str | None]


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


def load(path: Path, digest: str) -> Cached | None:
    """The cache at `path` when it is one for `digest`, else None (never raises)."""
    try:
        text = storage.read_regular_file(path, MAX_CACHE_BYTES, follow_links=False).decode(
            "utf-8", "surrogateescape")
    except (OSError, ValueError):
        return None
    lines = text.split("\n")
    head = lines[0].split("\t")
    if len(head) != 4 or head[0] != FORMAT or head[1] != digest or lines[-1] != "":
        return None
    try:
        first, last = _dt.date.fromisoformat(head[2]), _dt.date.fromisoformat(head[3])
        files: dict[str, tuple[FileKey, list[Occurrence]]] = {}
        occurrences: list[Occurrence] = []
        parse = _dt.datetime.fromisoformat
        for line in lines[1:-1]:
            kind = line[:1]
            if kind == "+":
                _, start, end, title = line.split("\t", 3)
                occurrences.append((parse(start), parse(end), title))
            elif kind == "-":
                _, start, end = line.split("\t")
                occurrences.append((parse(start), parse(end), None))
            elif kind == "F":
                _, size, mtime, inode, name = line.split("\t", 4)
                occurrences = []
                files[name] = (FileKey(int(size), int(mtime), int(inode)), occurrences)
            else:
                return None
    except ValueError:
        return None
    return Cached(first, last, files)


def save(home: Path, path: Path, digest: str, cached: Cached) -> None:
    """Write the cache atomically; a cache that cannot be written is left for the next run."""
    rows = [f"{FORMAT}\t{digest}\t{cached.first.isoformat()}\t{cached.last.isoformat()}"]
    for name, (key, occurrences) in cached.files.items():
        if any(char in name for char in "\t\n\r"):
            continue  # read again next time
        rows.append(f"F\t{key.size}\t{key.mtime_ns}\t{key.inode}\t{name}")
        for start, end, title in occurrences:
            if title is None:
                rows.append(f"-\t{start.isoformat()}\t{end.isoformat()}")
            else:
                rows.append(f"+\t{start.isoformat()}\t{end.isoformat()}\t{title}")
    try:
        storage.ensure_dir(home / CACHE_FOLDER)
        storage.write_atomic(path, ("\n".join(rows) + "\n").encode("utf-8", "surrogateescape"))
    except (OSError, ValueError):
        pass
