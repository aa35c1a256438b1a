"""Anki's daily load (README "Your week"): the review cards a collection.anki2 has due on each
day, and the minutes they take at the person's median answer time, only ever read.

Anki's day n is the day n days after the collection's creation day (`col.crt`, in the zone of
its `creationOffset` when set); it begins at the `rollover` hour (default 4) of that calendar
date. Cards in the review and day-learning queues (2, 3) have `due` as that day number (a card
in a filtered deck its `odue`); cards in the learning queue (1) have `due` in seconds, placed on
the Anki day that holds the moment. Today's count also holds every overdue card. New,
suspended and buried cards do not count. A card takes the median `revlog.time` (milliseconds)
of the latest review and relearning answers, clamped to 2-60 s (10 s with none).

The file is never written and nothing is created beside it. A collection in rollback-journal
mode is opened `mode=ro`: SQLite takes a shared lock, so a program writing it (its lock) is
"in use". A WAL-mode collection (Anki's own, 2.1.28 and later) is opened only when its `-wal`
file is absent or empty, then with `immutable=1` as well: a plain `mode=ro` would create the
`-wal` and `-shm` files beside it. A non-empty `-wal` or `-journal` means Anki has it open (or
did not close it cleanly), and it is then not read at all, never with `immutable=1` in spite of
the writer: SQLite's own contract is that such a read may give wrong results without an error,
and the newest reviews, in the `-wal`, would be missed. Reading is bounded as planner.memory.anki
bounds it (the time, through SQLite's progress handler, and the size of the file).
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import stat
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import quote

from planner.base import strictjson
from planner.base.i18n import t
from planner.base.inert import inert_line, short
from planner.base.oserrors import os_reason
from planner.memory.anki import MAX_PACKAGE_BYTES, MAX_TEXT_BYTES, query_seconds

if TYPE_CHECKING:
    import sqlite3

    from planner.base.config import Config

MIN_SECONDS, MAX_SECONDS = 2.0, 60.0  # a card's answer time is clamped to these
DEFAULT_SECONDS = 10.0  # with no review answer in the log
ANSWERS = 5_000  # the latest answers the median is taken over
DEFAULT_ROLLOVER = 4
MAX_CONF_BYTES = 1024 * 1024  # a legacy `col.conf` JSON longer than this is not parsed
_SQLITE_MAGIC = b"SQLite format 3\x00"
_PROGRESS_STEPS = 100  # SQLite instructions between two looks at the clock (a costly row is one)
_FUTURE = _dt.timedelta(days=1)  # a revlog entry later than now by more does not count
_LAST_SECOND = 253402300799  # 9999-12-31 23:59:59 UTC
_EPOCH_DAY = _dt.date(1970, 1, 1)
_LAST_UNIX_DAY = (_dt.date(9999, 12, 31) - _EPOCH_DAY).days


class AnkiLoad(NamedTuple):
    """Anki's review cards due on one day and the whole minutes they take."""

    cards: int
    minutes: int


class AnkiDays(NamedTuple):
    """Anki's load by day (days without cards left out), the seconds a card takes, and the one
    warning when the collection could not be read (then no day has a load)."""

    days: dict[_dt.date, AnkiLoad]
    seconds: float
    warning: str | None


NO_LOAD = AnkiLoad(0, 0)
NOTHING = AnkiDays({}, DEFAULT_SECONDS, None)


class _Unread(Exception):
    """The collection cannot be read; str() names the file and why."""


def collection_path(config: Config) -> Path | None:
    """The config's anki_collection as planner uses it ($VAR and ~ expanded, relative to the
    config file's folder), or None when it is not set."""
    if config.anki_collection is None:
        return None
    from planner.base.config import expand_path

    return expand_path(config.anki_collection, config.file)


def anki_minutes_by_day(config: Config, first_day: _dt.date,
                        last_day: _dt.date) -> dict[_dt.date, AnkiLoad]:
    """Anki's load on each day from `first_day` to `last_day` (today holding the overdue
    cards); empty without a collection or when it cannot be read (read_load gives the
    warning)."""
    return read_load(collection_path(config), first_day, last_day).days


def read_load(path: Path | None, first_day: _dt.date, last_day: _dt.date,
              today: _dt.date | None = None, now: _dt.datetime | None = None) -> AnkiDays:
    """Anki's load on each day from `first_day` to `last_day`, as of `now` (None: the clock's,
    local); NOTHING without a path, and no load with one warning when it cannot be read."""
    if path is None:
        return NOTHING
    moment = now or _dt.datetime.now().astimezone()
    today = today or moment.date()
    name = short(inert_line(str(path)))
    try:
        return _read(path, name, first_day, last_day, today, moment)
    except _Unread as problem:
        return AnkiDays({}, DEFAULT_SECONDS, t(
            "Warning: anki_collection: {problem}; Anki's reviews are not counted in the daily "
            "minutes", problem=problem))


def _read(path: Path, name: str, first_day: _dt.date, last_day: _dt.date, today: _dt.date,
          now: _dt.datetime) -> AnkiDays:
    """The load, once the file is known to be whole and not in use; _Unread otherwise."""
    header = _header(path, name)
    wal = header[18] == 2 or header[19] == 2
    for suffix in ("-wal", "-journal"):
        try:
            pending = os.stat(f"{path}{suffix}").st_size > 0
        except OSError:
            pending = False
        if pending:
            raise _Unread(t("{file} is in use: Anki has it open (or did not close it "
                            "cleanly); close Anki and run planner again", file=name))
    options = "mode=ro&immutable=1" if wal else "mode=ro"
    uri = f"file:{quote(str(path.resolve()))}?{options}"
    import sqlite3

    seconds = query_seconds()
    deadline = time.monotonic() + seconds
    late = False

    def too_late() -> bool:
        nonlocal late
        late = time.monotonic() > deadline
        return late

    try:
        # No wait for a lock: a collection being written is in use, said at once.
        connection = sqlite3.connect(uri, uri=True, timeout=0)
    except sqlite3.Error as error:
        raise _Unread(_not_anki(name, error)) from None
    try:
        connection.set_progress_handler(too_late, _PROGRESS_STEPS)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_TEXT_BYTES)
        return _load(connection, name, first_day, last_day, today, now)
    except sqlite3.OperationalError as error:
        if late:
            raise _Unread(t("{file}: reading it took more than {seconds:g} s, so planner "
                            "stopped", file=name, seconds=seconds)) from None
        if "locked" in str(error) or "busy" in str(error):
            raise _Unread(t("{file} is in use: Anki has it open (or did not close it "
                            "cleanly); close Anki and run planner again", file=name)) from None
        raise _Unread(_not_anki(name, error)) from None
    except sqlite3.Error as error:
        raise _Unread(_not_anki(name, error)) from None
    finally:
        connection.close()


def _header(path: Path, name: str) -> bytes:
    """The file's 100-byte SQLite header, once it is known to be a whole SQLite file."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise _Unread(t("{file} is not a regular file; give the path of a collection.anki2",
                            file=name))
        if info.st_size > MAX_PACKAGE_BYTES:
            raise _Unread(t("{file} is larger than the {size} planner reads", file=name,
                            size="2 GiB"))
        with open(path, "rb") as stream:
            header = stream.read(100)
    except OSError as error:
        raise _Unread(t("{file} cannot be read ({reason})", file=name,
                        reason=os_reason(error))) from None
    if not header.startswith(_SQLITE_MAGIC):
        raise _Unread(t("{file} is not an Anki collection (collection.anki2): it is not an "
                        "SQLite database", file=name))
    page = int.from_bytes(header[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(header[28:32], "big") if len(header) == 100 else 0
    # The header's page count is valid when its change counter matches (SQLite 3.7.0 and later).
    counted = len(header) == 100 and header[24:28] == header[92:96] and pages > 0
    if len(header) < 100 or (counted and info.st_size < page * pages):
        raise _Unread(t("{file} is truncated ({size:,} bytes); point anki_collection at the "
                        "collection.anki2 in Anki's profile folder", file=name,
                        size=info.st_size))
    return header


def _load(connection: sqlite3.Connection, name: str, first_day: _dt.date, last_day: _dt.date,
          today: _dt.date, now: _dt.datetime) -> AnkiDays:
    """The load from an open connection: Anki's settings, the cards due, the answer time."""
    tables = {row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"col", "cards", "revlog"} <= tables:
        raise _Unread(t("{file} is an SQLite database but not an Anki collection (it has no "
                        "cards table)", file=name))
    row = connection.execute(
        "SELECT crt, CASE WHEN length(conf) <= ? THEN conf END FROM col LIMIT 1",
        (MAX_CONF_BYTES,)).fetchone()
    if row is None or type(row[0]) is not int or not 0 < row[0] <= _LAST_SECOND:
        raise _Unread(t("{file} is not a readable Anki collection ({reason})", file=name,
                        reason="col.crt"))
    settings = _legacy_settings(row[1])
    if "config" in tables:
        for key, value in connection.execute(
                "SELECT key, CASE WHEN length(val) <= 64 THEN val END FROM config "
                "WHERE key IN ('rollover', 'creationOffset')"):
            settings[key] = _json(value)
    rollover = settings.get("rollover")
    if type(rollover) is not int or not 0 <= rollover <= 23:
        rollover = DEFAULT_ROLLOVER
    offset = settings.get("creationOffset")  # minutes west of UTC, as Anki keeps it
    created = _dt.datetime.fromtimestamp(row[0], _dt.UTC)
    if type(offset) is int and -1440 <= offset <= 1440:
        base = (created - _dt.timedelta(minutes=offset)).date()
    else:
        base = created.astimezone(now.tzinfo).date()
    first, last = max(first_day, today), last_day
    days: dict[_dt.date, int] = {}
    if first <= last:
        today_number, last_number = (today - base).days, (last - base).days

        def count(day: _dt.date, cards: int) -> None:
            day = max(day, today)
            if first <= day <= last and cards > 0:
                days[day] = days.get(day, 0) + cards

        for number, cards in connection.execute(
                "SELECT max(d, ?), count(*) FROM (SELECT CASE WHEN odid != 0 AND odue != 0 "
                "THEN odue ELSE due END AS d FROM cards WHERE queue IN (2, 3)) "
                "WHERE typeof(d) = 'integer' AND d <= ? GROUP BY 1",
                (today_number, last_number)):
            if type(number) is int and type(cards) is int:
                count(base + _dt.timedelta(days=number), cards)
        # A learning card's moment, shifted so that Anki's day begins at midnight: the zone's
        # offset now, less the rollover hour.
        shift = int((now.utcoffset() or _dt.timedelta()).total_seconds()) - rollover * 3600
        end = _dt.datetime.combine(min(last, _dt.date(9999, 12, 30)) + _dt.timedelta(days=1),
                                   _dt.time(rollover), now.tzinfo).timestamp()
        for number, cards in connection.execute(
                "SELECT (due + ?) / 86400, count(*) FROM cards WHERE queue = 1 AND "
                "typeof(due) = 'integer' AND due BETWEEN 0 AND ? GROUP BY 1",
                (shift, min(int(end), _LAST_SECOND))):
            if type(number) is int and type(cards) is int and number <= _LAST_UNIX_DAY:
                count(_EPOCH_DAY + _dt.timedelta(days=max(number, 0)), cards)
    seconds = _seconds(connection, now)
    return AnkiDays({day: AnkiLoad(cards, math.ceil(cards * seconds / 60))
                     for day, cards in sorted(days.items())}, seconds, None)


def _seconds(connection: sqlite3.Connection, now: _dt.datetime) -> float:
    """The median answer time of the latest review and relearning answers, 2-60 s."""
    latest = int((now + _FUTURE).timestamp() * 1000)
    times: list[int] = [value for (value,) in connection.execute(
        "SELECT time FROM revlog WHERE type IN (1, 2) AND typeof(time) = 'integer' AND time > 0 "
        "AND id <= ? ORDER BY id DESC LIMIT ?", (latest, ANSWERS))]
    if not times:
        return DEFAULT_SECONDS
    return min(max(statistics.median(times) / 1000, MIN_SECONDS), MAX_SECONDS)


def _legacy_settings(conf: object) -> dict[str, object]:
    """rollover and creationOffset from a legacy collection's `col.conf` JSON."""
    found = _json(conf)
    if not isinstance(found, dict):
        return {}
    return {key: found[key] for key in ("rollover", "creationOffset") if key in found}


def _json(value: object) -> object:
    """A JSON value from text or bytes (read strictly: a hostile one is bounded); None when it
    is not one."""
    try:
        text = value.decode("utf-8") if isinstance(value, bytes) else value
    except UnicodeDecodeError:
        return None
    if not isinstance(text, str):
        return None
    try:
        return strictjson.loads(text)
    except strictjson.JSONRefused:
        return None


def _not_anki(name: str, error: Exception) -> str:
    return t("{file} is not a readable Anki collection ({reason})", file=name,
             reason=inert_line(str(error)))
