"""The review log: `reviews.jsonl` in the home, one event a line, only ever appended to."""

# README "Review memory". Each line is one event (review, undo, drop, drop-undo). Nothing in the log
# is changed
# or removed: an undo is a line of its own, and so is bringing back a dropped plan.
#
# Writing: one open, one write of every line of the call, fsync, close, under an exclusive
# flock. A single write either lands whole or leaves a torn tail; on a failure we cut the file
# back to its size before, so the log is as it was. The lock is what makes that cut safe: without
# it a second process could append between our write and the cut, and we would cut its line too.
#
# Reading: at most 64 MiB, never through a link, never waiting on a FIFO; a line that cannot be
# read is skipped with one warning naming its number, and every other line still counts. So is a
# line whose time lies at the edge of the calendar (README "A screen you can trust",
# planner.base.days): before
# 0001-01-02 or after 9999-12-30 it may not exist as a local time, wherever it is read.
#
# A review dated more than a day after now (FUTURE_MARGIN: clocks differ) does not count: it is
# no event, for `due`, the fit and everything else, and one warning says how many were skipped.
# As time passes it comes to count, so the reader notes the earliest one skipped.

from __future__ import annotations

import datetime as _dt
import errno
import fcntl
import json
import os
import re
import stat
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from planner.base import days, storage, strictjson
from planner.base.errors import Failure
from planner.base.i18n import t
from planner.base.oserrors import os_reason

LOG_NAME = "reviews.jsonl"
LOG_VERSION = 1
MAX_LOG_BYTES = 64 * storage.MIB
RATINGS = ("again", "hard", "good", "easy")
MAX_MINUTES = 120
FUTURE_MARGIN = _dt.timedelta(days=1)

# O_RDWR, not O_WRONLY: we read the last byte to end a torn line before ours; it also keeps a
# FIFO from blocking the open (as O_NONBLOCK does), so fstat can refuse it.
_APPEND = (os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
_UTC_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?"
                       r"(Z|\+00:00)", re.ASCII)
_SEPARATORS = (",", ":")


class Review(NamedTuple):
    """A review of one note: `reviewed_at` is UTC; `run_id` names the plan (`<run>#n` a session)."""

    review_id: str
    note_id: str
    run_id: str | None
    reviewed_at: _dt.datetime
    rating: str
    minutes: int | None


class Undo(NamedTuple):
    """The review `review_id` stops counting."""

    review_id: str
    undone_at: _dt.datetime


class Drop(NamedTuple):
    """The saved plan `run_id` will not happen (`replaced_by`: the replan's run, see read_log)."""

    run_id: str
    dropped_at: _dt.datetime
    replaced_by: str | None = None


class DropUndo(NamedTuple):
    """The dropped plan `run_id` is back."""

    run_id: str
    undone_at: _dt.datetime


class Move(NamedTuple):
    """Session `run_id` (`<run>#n`, or a plan's run ID) now happens on `date` at `start`."""

    run_id: str
    date: str
    start: str
    moved_at: _dt.datetime


Event = Review | Undo | Drop | DropUndo | Move


class LogContents(NamedTuple):
    """The events of the log in file order, and one warning per line that was skipped (then
    one more saying how many reviews from the future were skipped, if any were)."""

    events: list[Event]
    warnings: list[str]


class ReviewLogError(Failure):
    """The log cannot be read or appended to; str() is the one line for the person."""


class _BadLine(ValueError):
    """Why one line is not an event, in a few words."""


def log_path(home: str | os.PathLike[str]) -> Path:
    """Where the review log of `home` is."""
    return Path(home) / LOG_NAME


_last_micros = 0


def new_review_id() -> str:
    """A review ID that sorts by creation time (UTC) and is unique through its random tail."""
    global _last_micros
    # Strictly increasing within a process, so the IDs of one `done` sort in the order made.
    micros = max(time.time_ns() // 1000, _last_micros + 1)
    _last_micros = micros
    moment = _dt.datetime.fromtimestamp(micros // 1_000_000, _dt.UTC)
    return f"{moment:%Y%m%dT%H%M%S}{micros % 1_000_000:06d}Z-{os.urandom(3).hex()}"


# --- Writing ----------------------------------------------------------------------------------


def record_reviews(home: str | os.PathLike[str], note_ids: Sequence[str], rating: str, *,
                   run_id: str | None = None, minutes: int | None = None,
                   reviewed_at: _dt.datetime | None = None) -> list[Review]:
    """Append one review per note in a single write (all or none) and return them."""
    moment = _utc(reviewed_at)
    events = [Review(new_review_id(), note_id, run_id, moment, rating, minutes)
              for note_id in note_ids]
    append(home, events, t("the review") if len(events) == 1 else t("the reviews"))
    return events


def record_undo(home: str | os.PathLike[str], review_id: str, *,
                at: _dt.datetime | None = None) -> Undo:
    """Append an undo line: the review stops counting."""
    event = Undo(review_id, _utc(at))
    append(home, [event], t("the undo"))
    return event


def record_drop(home: str | os.PathLike[str], run_id: str, *,
                at: _dt.datetime | None = None) -> Drop:
    """Append a drop line: the plan will not happen."""
    event = Drop(run_id, _utc(at))
    append(home, [event], t("the drop"))
    return event


def record_drop_undo(home: str | os.PathLike[str], run_id: str, *,
                     at: _dt.datetime | None = None) -> DropUndo:
    """Append a drop-undo line: the dropped plan is back."""
    event = DropUndo(run_id, _utc(at))
    append(home, [event], t("the undo of the drop"))
    return event


def record_move(home: str | os.PathLike[str], run_id: str, date: str, start: str, *,
                at: _dt.datetime | None = None) -> Move:
    """Append a move line: the session happens at its new date and start (the latest wins)."""
    event = Move(run_id, date, start, _utc(at))
    append(home, [event], t("the move"))
    return event


def append(home: str | os.PathLike[str], events: Iterable[Event],
           what: str = t("the events")) -> None:
    """Append `events` to the log in one write, or raise ReviewLogError with the log as it was."""
    path = log_path(home)
    data = b"".join(encode(event) for event in events)
    if not data:
        return
    try:
        fd = os.open(path, _APPEND, storage.FILE_MODE)
    except OSError as error:
        raise ReviewLogError(_not_recorded(what, path, _reason(error))) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = storage.file_kind(info.st_mode)
            raise ReviewLogError(_not_recorded(what, path, t("it is {kind}", kind=kind)))
        fcntl.flock(fd, fcntl.LOCK_EX)
        # Measured under the lock: no other planner appends until we close.
        before = os.fstat(fd).st_size
        if before and os.pread(fd, 1, before - 1) != b"\n":
            # A torn line (a crash mid-write) ends here, so ours is not glued onto it and lost.
            data = b"\n" + data
        if before + len(data) > MAX_LOG_BYTES:
            # Past 64 MiB the log could no longer be read: refuse now rather than lose it all.
            raise ReviewLogError(_not_recorded(what, path, t("the log would pass 64 MiB")))
        _write_whole(fd, data, before, what, path)
        if before == 0:
            _sync_dir_quietly(path.parent)
    except OSError as error:
        raise ReviewLogError(_not_recorded(what, path, _reason(error))) from None
    finally:
        os.close(fd)  # also releases the lock


def _write_whole(fd: int, data: bytes, before: int, what: str, path: Path) -> None:
    """One write and fsync; on any failure (Ctrl+C too), cut the file back to `before` bytes."""
    try:
        written = os.write(fd, data)
        if written != len(data):
            # How a filling disk shows itself: the kernel takes what fits and says how much.
            raise ReviewLogError(_not_recorded(
                what, path, t("only {written} of {total} bytes could be written; is the disk "
                              "full?", written=written, total=len(data))))
        os.fsync(fd)
    except BaseException as failure:
        if not _cut_back(fd, before) and isinstance(failure, (OSError, ReviewLogError)):
            # Only here can the log keep part of a call: the rarest case, and said so.
            reason = (_reason(failure) if isinstance(failure, OSError)
                      else t("only part of it could be written"))
            raise ReviewLogError(t("could not record {what} in {path} ({reason}) nor cut the "
                                   "log back; the log may hold part of it",
                                   what=what, path=path, reason=reason)) from None
        raise


def _cut_back(fd: int, size: int) -> bool:
    """Truncate the log to `size` bytes, durably; False when even that fails."""
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError:
        return False
    return True


def encode(event: Event) -> bytes:
    """The log line of `event`: compact UTF-8 JSON and a newline; ValueError if not valid."""
    data: dict[str, object]
    match event:
        case Review():
            data = {"version": LOG_VERSION, "kind": "review", "review_id": event.review_id,
                    "note_id": event.note_id, "run_id": event.run_id,
                    "reviewed_at": _iso(event.reviewed_at), "rating": event.rating,
                    "minutes": event.minutes}
        case Undo():
            data = {"version": LOG_VERSION, "kind": "undo", "review_id": event.review_id,
                    "undone_at": _iso(event.undone_at)}
        case Drop():
            data = {"version": LOG_VERSION, "kind": "drop", "run_id": event.run_id,
                    "dropped_at": _iso(event.dropped_at)}
            if event.replaced_by is not None:
                data["replaced_by"] = event.replaced_by
        case DropUndo():
            data = {"version": LOG_VERSION, "kind": "drop-undo", "run_id": event.run_id,
                    "undone_at": _iso(event.undone_at)}
        case Move():
            data = {"version": LOG_VERSION, "kind": "move", "run_id": event.run_id,
                    "date": event.date, "start": event.start, "moved_at": _iso(event.moved_at)}
        case _:
            raise TypeError(f"not a review log event: {event!r}")
    # Checked by the reader's own rules: planner never writes a line it would skip.
    try:
        _event(data)
    except _BadLine as bad:
        raise ValueError(t("not a valid review log event: {problem}", problem=bad)) from None
    text = json.dumps(data, ensure_ascii=False, separators=_SEPARATORS)
    return (text + "\n").encode("utf-8")


def _utc(moment: _dt.datetime | None) -> _dt.datetime:
    """`moment` (now if None) in UTC, to the second as the log keeps it."""
    if moment is None:
        moment = _dt.datetime.now(_dt.UTC)
    elif moment.tzinfo is None:
        raise ValueError(t("a review time must carry its time zone"))
    return moment.astimezone(_dt.UTC).replace(microsecond=0)


def _iso(moment: _dt.datetime) -> str:
    return moment.astimezone(_dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _not_recorded(what: str, path: Path, reason: str) -> str:
    return t("could not record {what} in {path} ({reason}); nothing was recorded",
             what=what, path=path, reason=reason)


def _reason(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return t("it is a symbolic link, which is not followed")
    return os_reason(error)


def _sync_dir_quietly(folder: Path) -> None:
    """Make a new log's name durable; the line itself is already on disk, so failing is no loss."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- Reading ----------------------------------------------------------------------------------


def read_log(home: str | os.PathLike[str], first_line: dict[str, int] | None = None,
             now: _dt.datetime | None = None,
             future: list[_dt.datetime] | None = None) -> LogContents:
    """Every readable event of the log in file order, as of `now` (None: the clock's); no log
    is an empty one. `first_line` (when given) is filled with each review ID's line, `future`
    with the time of each review skipped as from the future."""
    path = log_path(home)
    try:
        data = storage.read_regular_file(path, MAX_LOG_BYTES, follow_links=False)
    except FileNotFoundError:
        return LogContents([], [])
    except storage.FileRefused as refused:
        raise ReviewLogError(_refused(path, str(refused))) from None
    except OSError as error:
        raise ReviewLogError(t("{path} cannot be read ({reason})", path=path,
                               reason=_reason(error))) from None
    contents = parse_lines(data, 1, first_line, now, future)
    # A replan's drops are written before its plan: they stand once it is (a crash: neither).
    return contents._replace(events=[event for event in contents.events if type(event) is not Drop
                                     or _replacement_saved(home, event.replaced_by)])


def _replacement_saved(home: str | os.PathLike[str], run_id: str | None) -> bool:
    from planner.plans.files import PLANS_DIR
    from planner.plans.schema import is_run_id

    return run_id is None or is_run_id(run_id) and os.path.isfile(
        os.path.join(os.fspath(home), PLANS_DIR["live"], run_id + ".json"))


def parse_lines(data: bytes, first_number: int = 1,
                first_line: dict[str, int] | None = None,
                now: _dt.datetime | None = None,
                future: list[_dt.datetime] | None = None) -> LogContents:
    """The events of log lines (`data`, whose first line is line `first_number`), each line
    checked as read_log does; `first_line` maps each review ID met so far to its line (a
    review repeating one is skipped) and is updated. A review dated more than FUTURE_MARGIN
    after `now` (None: the clock's) is no event: its time goes to `future`, and one warning
    says how many there were."""
    events: list[Event] = []
    warnings: list[str] = []
    latest = (now or _dt.datetime.now(_dt.UTC)) + FUTURE_MARGIN
    skipped: list[_dt.datetime] = []
    if first_line is None:
        first_line = {}
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    fast = _PLANNERS_REVIEW.fullmatch
    for number, raw in enumerate(lines, first_number):
        if not raw.strip():
            continue  # a blank line (a hand edit) holds nothing to lose
        try:
            text = raw.decode("utf-8")
            found = fast(text)
            event: Event | None = _fast_review(found) if found is not None else None
            if event is None:
                event = _event(strictjson.loads(text))
            if type(event) is Review:
                seen = first_line.setdefault(event.review_id, number)
                if seen != number:
                    raise _BadLine(t("repeats the review_id of line {line}", line=seen))
        except UnicodeDecodeError:
            warnings.append(_skipped(number, t("not UTF-8")))
        except strictjson.JSONRefused as refused:
            warnings.append(_skipped(number, refused.bare))
        except _BadLine as bad:
            warnings.append(_skipped(number, str(bad)))
        else:
            if type(event) is Review and event.reviewed_at > latest:
                skipped.append(event.reviewed_at)
            else:
                events.append(event)
    if skipped:
        warnings.append(future_warning(len(skipped)))
        if future is not None:
            future += skipped
    return LogContents(events, warnings)


def future_warning(count: int) -> str:
    """The one line saying how many reviews were dated after now and skipped."""
    return t("{log}: {count} reviews dated more than a day after now were skipped; they do not "
             "count (is a clock wrong?)", log=LOG_NAME, count=count)


def _refused(path: Path, message: str) -> str:
    """storage's refusal, with the size a too-large log actually has."""
    try:
        size = os.lstat(path).st_size
    except OSError:
        return message
    if size > MAX_LOG_BYTES:
        return t("{path} is {size:,} bytes, more than the 64 MiB planner reads", path=path,
                 size=size)
    return message


def _skipped(number: int, reason: str) -> str:
    return t("{log} line {number} cannot be read ({reason}); skipped", log=LOG_NAME,
             number=number, reason=reason)


_KEYS = {
    "review": frozenset({"version", "kind", "review_id", "note_id", "run_id", "reviewed_at",
                         "rating", "minutes"}),
    "undo": frozenset({"version", "kind", "review_id", "undone_at"}),
    "drop": frozenset({"version", "kind", "run_id", "dropped_at"}),
    "drop-undo": frozenset({"version", "kind", "run_id", "undone_at"}),
    "move": frozenset({"version", "kind", "run_id", "date", "start", "moved_at"}),
}


def _event(data: object) -> Event:
    """The event a decoded line holds, every field checked; _BadLine says what is wrong."""
    if type(data) is not dict:
        raise _BadLine(t("not a JSON object"))
    version = data.get("version")
    if type(version) is not int or version != LOG_VERSION:
        raise _BadLine(t("version is {value}, not 1", value=_show(version)))
    kind = data.get("kind")
    keys = _KEYS.get(kind) if type(kind) is str else None
    if keys is None:
        raise _BadLine(t("kind is {value}, not review, undo, drop, drop-undo or move",
                         value=_show(kind)))
    keys = keys | {"replaced_by"} if kind == "drop" and "replaced_by" in data else keys
    if data.keys() != keys:
        missing = sorted(keys - data.keys())
        if missing:
            raise _BadLine(t("has no {key}", key=missing[0]))
        raise _BadLine(t("has the unknown key {key}", key=_show(sorted(data.keys() - keys)[0])))
    match kind:
        case "review":
            return Review(_text(data, "review_id"), _text(data, "note_id"),
                          _optional_text(data, "run_id"), _moment(data, "reviewed_at"),
                          _rating(data), _minutes(data))
        case "undo":
            return Undo(_text(data, "review_id"), _moment(data, "undone_at"))
        case "drop":
            return Drop(_text(data, "run_id"), _moment(data, "dropped_at"),
                        _text(data, "replaced_by") if "replaced_by" in data else None)
        case "move":
            return Move(_text(data, "run_id"), _day(data), _start(data),
                        _moment(data, "moved_at"))
        case _:
            return DropUndo(_text(data, "run_id"), _moment(data, "undone_at"))


# A review line exactly as planner writes it (encode: these keys in this order, no spaces, strings
# with nothing to unescape) is read without the JSON decoder, each value checked as _event
# checks it; any other line, and any value _event would refuse, takes the strict path, so the
# events and warnings are the same either way. The cold replay of a long log is most of its
# time here (README "A memory fitted to you").
_STRING = r'"([^"\\\x00-\x1f]+)"'
_PLANNERS_REVIEW = re.compile(
    r'\{"version":1,"kind":"review","review_id":' + _STRING + r',"note_id":' + _STRING
    + r',"run_id":(?:null|' + _STRING + r'),"reviewed_at":"([0-9]{4}-[0-9]{2}-[0-9]{2}T'
    r'[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?(?:Z|\+00:00))","rating":"(again|'
    r'hard|good|easy)","minutes":(null|[1-9][0-9]{0,2})\}')


def _fast_review(found: re.Match[str]) -> Review | None:
    """The review of a line planner wrote; None when a value needs the strict path's word."""
    review_id, note_id, run_id, moment_text, rating, minutes_text = found.groups()
    minutes = None if minutes_text == "null" else int(minutes_text)
    if minutes is not None and minutes > MAX_MINUTES:
        return None
    try:
        moment = _dt.datetime.fromisoformat(moment_text)  # checked by the pattern as _moment
    except ValueError:
        return None
    if not days.FIRST_TIME <= moment <= days.LAST_TIME:  # days.usable_time
        return None
    return Review(review_id, note_id, run_id, moment, rating, minutes)


def _text(data: Mapping[str, object], key: str) -> str:
    value = data[key]
    if type(value) is not str or not value:
        raise _BadLine(t("{key} is {value}, not a non-empty string", key=key, value=_show(value)))
    return value


def _optional_text(data: Mapping[str, object], key: str) -> str | None:
    return None if data[key] is None else _text(data, key)


def _moment(data: Mapping[str, object], key: str) -> _dt.datetime:
    value = data[key]
    if type(value) is str and _UTC_TIME.fullmatch(value):
        try:
            # "Z" and "+00:00" both read as datetime.UTC, the zone fsrs insists on.
            moment = _dt.datetime.fromisoformat(value)
        except ValueError:
            pass  # e.g. a 30 February
        else:
            if days.usable_time(moment):
                return moment
            # README "A screen you can trust": a time at the calendar's very edge cannot be shown in
            # every time zone.
            raise _BadLine(t("{key} is {value}, at the edge of the calendar: planner reads "
                             "times from {first} to {last}", key=key, value=_show(value),
                             first=days.FIRST_DAY.isoformat(), last=days.LAST_DAY.isoformat()))
    raise _BadLine(t("{key} is {value}, not a UTC time such as 2026-05-01T09:30:00Z", key=key,
                     value=_show(value)))


def _rating(data: Mapping[str, object]) -> str:
    value = data["rating"]
    if type(value) is not str or value not in RATINGS:
        raise _BadLine(t("rating is {value}, not again, hard, good or easy", value=_show(value)))
    return value


def _minutes(data: Mapping[str, object]) -> int | None:
    value = data["minutes"]
    if value is None or (type(value) is int and 1 <= value <= MAX_MINUTES):
        return value
    raise _BadLine(t("minutes is {value}, not a whole number from 1 to 120 or null",
                     value=_show(value)))


def _show(value: object) -> str:
    """A value from the file, short and with no control characters."""
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


# --- What the log says ------------------------------------------------------------------------


def undone_ids(events: Iterable[Event]) -> frozenset[str]:
    """The IDs of the reviews that were undone."""
    return frozenset(event.review_id for event in events if type(event) is Undo)


def effective_reviews(events: Sequence[Event]) -> list[Review]:
    """The reviews that count, in file order: every review not undone."""
    undone = undone_ids(events)
    return [event for event in events if type(event) is Review and event.review_id not in undone]


def moves(events: Iterable[Event]) -> dict[str, tuple[_dt.date, _dt.time]]:
    """Where each moved session happens now, (date, start), the latest move winning."""
    return {event.run_id: (days.read_date(event.date), days.read_clock(event.start))
            for event in events if type(event) is Move}


def _day(data: Mapping[str, object]) -> str:
    value = data["date"]
    day = days.parse_date(value)
    if day is None:
        raise _BadLine(t("date is {value}, not a date YYYY-MM-DD", value=_show(value)))
    assert type(value) is str  # parse_date reads text only
    if not days.usable_day(day):
        raise _BadLine(t("date is {value}, at the edge of the calendar", value=_show(value)))
    return value


def _start(data: Mapping[str, object]) -> str:
    value = data["start"]
    if days.parse_clock(value) is None:
        raise _BadLine(t("start is {value}, not a 24-hour time HH:MM", value=_show(value)))
    assert type(value) is str  # parse_clock reads text only
    return value




def dropped_runs(events: Iterable[Event]) -> frozenset[str]:
    """The run IDs dropped and not brought back, the later line deciding."""
    dropped: set[str] = set()
    for event in events:
        if type(event) is Drop:
            dropped.add(event.run_id)
        elif type(event) is DropUndo:
            dropped.discard(event.run_id)
    return frozenset(dropped)
