"""The memory cached in `.planner/` (README "A memory fitted to you"): every note's FSRS card, so a
long review log is not
parsed and replayed on every command.

Two files, both written atomically and both only ever planner's own:
- `memory-cache.txt`: a header line (the cache's key: the log's size, modification time and a
  digest of its last 4 KiB, its line count, and the parameters and retention scheduled with;
  then the counts, and the minutes per review of the counting reviews, for `forecast`), the
  log's warnings, then one line per reviewed note: its card (stability, difficulty, state,
  step, due, last review) and its last rating and review count.
- `memory-cache-ids.txt`: the same header, then every review ID and every undone ID. Read only
  when lines were appended since the cache was written, and only searched, never parsed.

A cache is a cache: written without fsync (a file torn by a crash fails its own counts and is
rebuilt).

Read back, it is checked like any other file: every count a whole number of 0 or more, every
number finite, every time in UTC with its zone, every field of its kind. A damaged cache is
rebuilt from the log and says so in one line (`Memory.damaged`); a cache of another version, or
of another log, parameters or retention, is rebuilt without a word.

Reviews dated more than a day after now are not replayed (planner.memory.log): the header keeps
how many there were and the earliest; once that one is due to count, the cache is rebuilt.

Warm (the log as it was): the header, one stat and 4 KiB of the log are read; no JSON, no fsrs.
Appended lines (the prefix's last 4 KiB unchanged, the log longer): only the new lines are read
and checked, and their reviews replayed on top of the cached cards. Anything else rebuilds: a
changed or shorter log, other parameters or retention, an undo of a counted review, a review
earlier than its note's last one, a cache that cannot be read. A cache that cannot be written
is no failure: the next command rebuilds it.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from planner.base import storage, strictjson
from planner.base.days import AFTER_LAST_DAY, AfterLastDay, usable_time
from planner.base.i18n import kept_words, restored, t
from planner.memory import log as review_log
from planner.memory.schedule import DEFAULT_PARAMETERS, MAX_RETENTION, MIN_RETENTION, NoteState

CACHE_FOLDER = ".planner"  # the notes index's folder (planner.notes.catalog.INDEX_FOLDER)
CACHE_NAME = "memory-cache.txt"
IDS_NAME = "memory-cache-ids.txt"
FORMAT = "planner-memory-cache-3"
FORMAT_FAMILY = "planner-memory-cache-"  # an earlier or later version: rebuilt, not damaged
HEADER_FIELDS = 12
TAIL_BYTES = 4096
MAX_CACHE_BYTES = 64 * storage.MIB
_READ = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOFOLLOW


class Memory(NamedTuple):
    """The log's reviewed notes as cards, its skipped-line warnings, its counting reviews, and
    how they were had: `warm`, `appended` (lines replayed on top) or `rebuilt`."""

    states: dict[str, NoteState]
    warnings: list[str]  # the log's, the future reviews' line last (as read_log has them)
    reviews: int
    how: str
    minutes: dict[float, int]  # minutes one review took (plan minutes / its notes): how often
    future: int = 0  # reviews dated more than a day after now, not replayed
    first_future: _dt.datetime | None = None  # the earliest of them
    damaged: str | None = None  # the line saying the cache was damaged and rebuilt


class _Rebuild(Exception):
    """The cache cannot serve this log: build it again from the whole log."""


class _Damaged(_Rebuild):
    """The cache is not what planner wrote: rebuilt, and said so; str() is why."""


def cache_path(home: str | os.PathLike[str], name: str = CACHE_NAME) -> Path:
    """Where the cache of `home`'s memory is kept."""
    return Path(home) / CACHE_FOLDER / name


def memory(home: str | os.PathLike[str], parameters: Sequence[float],
           desired_retention: float, now: _dt.datetime | None = None) -> Memory:
    """Every reviewed note's card as of `now` (None: the clock's), from the cache when it
    serves, else from the whole log (ReviewLogError when the log cannot be read, as read_log)."""
    now = now or _dt.datetime.now(_dt.UTC)
    try:
        return _from_cache(home, parameters, desired_retention, now)
    except _Damaged as damaged:
        line = t("{path} is damaged ({reason}); rebuilt from {log}", path=cache_path(home),
                 reason=str(damaged), log=review_log.LOG_NAME)
        return rebuild(home, parameters, desired_retention, now)._replace(damaged=line)
    except _Rebuild:
        pass
    return rebuild(home, parameters, desired_retention, now)


def rebuild(home: str | os.PathLike[str], parameters: Sequence[float],
            desired_retention: float, now: _dt.datetime | None = None) -> Memory:
    """Read and replay the whole log, and keep the result in the cache (when it can)."""
    from planner.memory.schedule import replay

    path = review_log.log_path(home)
    before = _log_stat(path)
    first_line: dict[str, int] = {}
    future: list[_dt.datetime] = []
    contents = review_log.read_log(home, first_line, now, future)
    after = _log_stat(path)
    undone = review_log.undone_ids(contents.events)
    reviews = [event for event in contents.events
               if type(event) is review_log.Review and event.review_id not in undone]
    if reviews or tuple(parameters) != DEFAULT_PARAMETERS \
            or not MIN_RETENTION <= desired_retention <= MAX_RETENTION:
        states = replay(reviews, parameters=parameters, desired_retention=desired_retention)
    else:
        # Nothing to replay with fsrs's own parameters, nothing it could refuse: no card, and
        # no import of fsrs (a dry run in a home with no reviews yet starts that much sooner).
        states = {}
    result = Memory(states, list(contents.warnings), len(reviews), "rebuilt",
                    minute_shares(reviews), len(future), min(future, default=None))
    if before is not None and after is not None and (
            before.st_size, before.st_mtime_ns) == (after.st_size, after.st_mtime_ns):
        undone_rows = [event.review_id for event in contents.events
                       if type(event) is review_log.Undo]
        _write(home, _key(parameters, desired_retention), path, after, result, "",
               list(first_line), undone_rows)
    return result


def minute_shares(reviews: Sequence[review_log.Review]) -> dict[float, int]:
    """How often each share of minutes occurs: a recorded plan's minutes over the notes recorded
    with it (the lines of one `done`: the same run and time)."""
    groups: dict[tuple[str | None, _dt.datetime], list[int]] = {}
    for review in reviews:
        if review.minutes is not None:
            groups.setdefault((review.run_id, review.reviewed_at), []).append(review.minutes)
    shares: dict[float, int] = {}
    for minutes in groups.values():
        share = round(minutes[0] / len(minutes), 3)
        shares[share] = shares.get(share, 0) + len(minutes)
    return shares


# --- reading ------------------------------------------------------------------------------------


def _from_cache(home: str | os.PathLike[str], parameters: Sequence[float],
                desired_retention: float, now: _dt.datetime) -> Memory:
    path = review_log.log_path(home)
    header, body = _read_cache(home, CACHE_NAME)
    fields = header.split("\t")
    if fields[0] != FORMAT:
        if fields[0].startswith(FORMAT_FAMILY):
            raise _Rebuild  # written by another version of planner
        raise _Damaged(t("its first line is not planner's"))
    if len(fields) != HEADER_FIELDS:
        raise _Damaged(t("its first line has {count} fields, not {wanted}", count=len(fields),
                         wanted=HEADER_FIELDS))
    size, lines, warning_count, note_count, count, future = (
        _count(fields[index]) for index in (1, 4, 6, 7, 8, 10))
    mtime = _whole(fields[2])
    if not (_HEX.fullmatch(fields[3]) and len(fields[3]) == 64 and _HEX.fullmatch(fields[5])):
        raise _Damaged(t("a value is not of its kind"))
    minutes = _minutes(fields[9])
    first_future = None if fields[11] == "" else _time(fields[11])
    if (future == 0) != (first_future is None):
        raise _Damaged(t("a value is not of its kind"))
    key = _key(parameters, desired_retention)
    if fields[5] != key:
        raise _Rebuild  # other parameters or retention
    if first_future is not None and first_future <= now + review_log.FUTURE_MARGIN:
        raise _Rebuild  # a review skipped as from the future counts now
    digest = fields[3]
    try:
        fd = os.open(path, _READ)
    except OSError:
        raise _Rebuild from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size < size:
            raise _Rebuild
        if _digest(fd, size) != digest:
            raise _Rebuild
        if info.st_size == size and info.st_mtime_ns == mtime:
            states, warnings = _parse_body(body, warning_count, note_count)
            return Memory(states, _with_future(warnings, future), count, "warm", minutes,
                          future, first_future)
        if info.st_size == size or info.st_size > review_log.MAX_LOG_BYTES:
            raise _Rebuild
        added = _read_from(fd, size, info.st_size)
        after = (info.st_size, info.st_mtime_ns)
    finally:
        os.close(fd)
    states, warnings = _parse_body(body, warning_count, note_count)
    kept = dict(zip(states, body[warning_count:], strict=True))
    return _appended(home, key, path, header, parameters, desired_retention,
                     Memory(states, warnings, count, "appended", minutes, future, first_future),
                     lines, added, after, kept, now)


def _with_future(warnings: list[str], future: int) -> list[str]:
    """The log's warnings with the line about reviews from the future, when there were any."""
    return [*warnings, review_log.future_warning(future)] if future else warnings


def _line_warnings(result: Memory) -> list[str]:
    """The warnings of the log's lines, without the line about reviews from the future."""
    return result.warnings[:-1] if result.future else result.warnings


def _appended(home: str | os.PathLike[str], key: str, path: Path, header: str,
              parameters: Sequence[float], desired_retention: float, cached: Memory,
              lines: int, added: bytes, after: tuple[int, int],
              kept: dict[str, str], now: _dt.datetime) -> Memory:
    """The cached cards with the appended lines' reviews replayed on top (`kept`: each cached
    note's line, written again as it is when none of its reviews was appended; `cached.warnings`
    the log's lines' only)."""
    from planner.memory.schedule import replay

    try:
        ids = _read_text(home, IDS_NAME)
    except _Damaged:
        raise _Rebuild from None  # only searched: a torn one is rebuilt without a word
    if not ids.startswith(header + "\n"):
        raise _Rebuild
    appended_ids: dict[str, int] = {}
    future: list[_dt.datetime] = []
    contents = review_log.parse_lines(added, lines + 1, appended_ids, now, future)
    new_reviews = [event for event in contents.events if type(event) is review_log.Review]
    new_undone = review_log.undone_ids(contents.events)
    for review_id in appended_ids:
        if f"\nR\t{review_id}\n" in ids:
            raise _Rebuild  # a repeated review ID: the whole log says which line it repeats
    for review_id in new_undone:
        if f"\nR\t{review_id}\n" in ids and f"\nU\t{review_id}\n" not in ids:
            raise _Rebuild  # a counted review taken back: its note is replayed from its start
    reviews = [review for review in new_reviews if review.review_id not in new_undone
               and f"\nU\t{review.review_id}\n" not in ids]
    states = cached.states
    for review in reviews:
        before = states.get(review.note_id)
        if before is not None and (not before.exact or review.reviewed_at < before.last_review):
            raise _Rebuild  # an earlier review (done --date) changes the whole replay
    try:
        states = replay(reviews, parameters=parameters, desired_retention=desired_retention,
                        start=states)
    except (ValueError, OverflowError):
        raise _Rebuild from None
    minutes = dict(cached.minutes)
    for share, times in minute_shares(reviews).items():
        minutes[share] = minutes.get(share, 0) + times
    # The appended lines' warnings without their line about the future: one line says all.
    line_warnings = cached.warnings + (contents.warnings[:-1] if future else contents.warnings)
    count = cached.future + len(future)
    if cached.first_future is not None:
        future.append(cached.first_future)
    result = Memory(states, _with_future(line_warnings, count), cached.reviews + len(reviews),
                    "appended", minutes, count, min(future, default=None))
    latest = _log_stat(path)
    if latest is not None and (latest.st_size, latest.st_mtime_ns) == after:
        changed = {review.note_id for review in reviews}
        _write(home, key, path, latest, result, ids[len(header) + 1:],
               list(appended_ids), sorted(new_undone), lines + added.count(b"\n"),
               {note_id: row for note_id, row in kept.items() if note_id not in changed})
    return result


def _read_text(home: str | os.PathLike[str], name: str) -> str:
    """A cache file's text; _Rebuild when there is none or it cannot be read, _Damaged when it
    is not a file planner wrote."""
    try:
        data = storage.read_regular_file(cache_path(home, name), MAX_CACHE_BYTES,
                                         follow_links=False)
    except storage.FileRefused as refused:
        raise _Damaged(refused.reason) from None
    except OSError:
        raise _Rebuild from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise _Damaged(t("not UTF-8")) from None


def _read_cache(home: str | os.PathLike[str], name: str) -> tuple[str, list[str]]:
    """The header and the other lines of a cache file; _Rebuild when it cannot be read,
    _Damaged when it is torn."""
    rows = _read_text(home, name).split("\n")
    if len(rows) < 2 or rows[-1] != "":
        raise _Damaged(t("it does not end its last line"))
    rows.pop()
    return rows[0], rows[1:]


def _parse_body(body: list[str], warning_count: int,
                note_count: int) -> tuple[dict[str, NoteState], list[str]]:
    """The warnings and the cards the lines after the header hold, every field checked;
    _Damaged otherwise."""
    if len(body) != warning_count + note_count:
        raise _Damaged(t("it has {count} lines where its first line says {wanted}",
                         count=len(body) + 1, wanted=warning_count + note_count + 1))
    warnings = [_warning(row) for row in body[:warning_count]]
    states: dict[str, NoteState] = {}
    for row in body[warning_count:]:
        fields = row.split("\t")
        if len(fields) != 10:
            raise _Damaged(t("a card's line has {count} fields, not {wanted}",
                             count=len(fields), wanted=10))
        (note_id, stability, difficulty, state, step, due, last, rating, reviews,
         exact) = fields
        if not note_id or note_id in states or rating not in review_log.RATINGS \
                or exact not in ("0", "1") or state not in _STATES:
            raise _Damaged(t("a value is not of its kind"))
        count = _count(reviews)
        if count == 0:
            raise _Damaged(t("a value is not of its kind"))
        states[note_id] = NoteState(
            note_id, _positive(stability), _positive(difficulty), int(state),
            _count(step) if step else None, AFTER_LAST_DAY if due == "after" else _time(due),
            _time(last), rating, count, exact == "1")
    return states, warnings


def _warning(row: str) -> str:
    """A warning's line: its words, then (a tab apart) its template and values as JSON."""
    words, _tab, kept = row.partition("\t")
    try:
        return restored(words, strictjson.loads(kept) if kept else None)
    except strictjson.JSONRefused:
        return words


def _warning_row(warning: str) -> str:
    kept = kept_words(warning)
    return warning if kept is None else f"{warning}\t{kept}"


_COUNT = re.compile(r"-?[0-9]{1,19}", re.ASCII)
_HEX = re.compile(r"[0-9a-f]{32,64}", re.ASCII)
_STATES = ("0", "1", "2", "3")


def _whole(text: str) -> int:
    """A whole number as the cache writes it; _Damaged otherwise."""
    if not _COUNT.fullmatch(text):
        raise _Damaged(t("a value is not of its kind"))
    return int(text)


def _count(text: str) -> int:
    """A whole number of 0 or more; _Damaged otherwise."""
    value = _whole(text)
    if value < 0:
        raise _Damaged(t("a count is negative"))
    return value


def _positive(text: str) -> float | None:
    """A card's stability or difficulty: empty (unknown) or a finite number above 0."""
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise _Damaged(t("a value is not of its kind")) from None
    if not math.isfinite(value):
        raise _Damaged(t("a number is not finite"))
    if value <= 0:
        raise _Damaged(t("a value is not of its kind"))
    return value


def _time(text: str) -> _dt.datetime:
    """A time in UTC, with its zone, that every zone can show; _Damaged otherwise."""
    try:
        moment = _dt.datetime.fromisoformat(text)
    except ValueError:
        raise _Damaged(t("a value is not of its kind")) from None
    if moment.tzinfo is None:
        raise _Damaged(t("a time has no time zone"))
    if moment.utcoffset() != _dt.timedelta(0) or not usable_time(moment):
        raise _Damaged(t("a value is not of its kind"))
    return moment.astimezone(_dt.UTC)


def _minutes(text: str) -> dict[float, int]:
    """The header's minutes per review: `share:times` pairs, each share finite and above 0."""
    minutes: dict[float, int] = {}
    for pair in text.split(",") if text else ():
        share, _, times = pair.partition(":")
        value = _positive(share)
        if value is None:
            raise _Damaged(t("a value is not of its kind"))
        minutes[value] = _count(times)
    return minutes


def _digest(fd: int, size: int) -> str:
    """The digest of the log's last 4 KiB before byte `size`."""
    import hashlib  # here: with no log and no cache, nothing is hashed (OpenSSL's load is slow)

    start = max(0, size - TAIL_BYTES)
    return hashlib.sha256(os.pread(fd, size - start, start)).hexdigest()


def _read_from(fd: int, start: int, end: int) -> bytes:
    parts, offset = [], start
    while offset < end and (chunk := os.pread(fd, min(end - offset, 1 << 20), offset)):
        parts.append(chunk)
        offset += len(chunk)
    return b"".join(parts)


def _log_stat(path: Path) -> os.stat_result | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def _key(parameters: Sequence[float], desired_retention: float) -> str:
    import hashlib

    text = repr((tuple(float(value) for value in parameters), float(desired_retention)))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


# --- writing ------------------------------------------------------------------------------------


def _write(home: str | os.PathLike[str], key: str, path: Path, info: os.stat_result,
           result: Memory, ids_before: str, review_ids: Sequence[str],
           undone: Sequence[str], lines: int | None = None,
           kept: dict[str, str] | None = None) -> None:
    """Keep `result` as the cache of the log as `info` describes it (`ids_before`: the ID
    rows already kept, then these review and undone IDs); quietly nothing when the log does not
    end a line, when a text cannot be kept on a line, or when it cannot be written."""
    try:
        fd = os.open(path, _READ)
    except OSError:
        return
    try:
        size = info.st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            return  # a torn last line: an append would end it, so the cache could not follow
        digest = _digest(fd, size)
        if lines is None:
            lines = _count_lines(fd, size)
    finally:
        os.close(fd)
    minutes = ",".join(f"{share!r}:{times}" for share, times in result.minutes.items())
    warnings = _line_warnings(result)
    first_future = "" if result.first_future is None else result.first_future.isoformat()
    header = "\t".join((FORMAT, str(size), str(info.st_mtime_ns), digest, str(lines), key,
                        str(len(warnings)), str(len(result.states)),
                        str(result.reviews), minutes, str(result.future), first_future))
    texts = [*warnings, *review_ids, *undone]
    rows = [header, *(_warning_row(warning) for warning in warnings)]
    kept = kept or {}
    for state in result.states.values():
        row = kept.get(state.note_id)
        if row is not None:  # the line it was read from: the same card, written as it was
            rows.append(row)
            continue
        texts += (state.note_id, state.last_rating)
        rows.append("\t".join((
            state.note_id, _number(state.stability), _number(state.difficulty), str(state.state),
            "" if state.step is None else str(state.step),
            "after" if isinstance(state.due, AfterLastDay) else state.due.isoformat(),
            state.last_review.isoformat(), state.last_rating, str(state.reviews),
            "1" if state.exact else "0")))
    if not all(_fits_a_field(text) for text in texts):
        return  # a hand-written ID with a tab or a line break: no cache, every time rebuilt
    id_text = "".join((header, "\n", ids_before, *(f"R\t{review_id}\n" for review_id in review_ids),
                       *(f"U\t{review_id}\n" for review_id in undone)))
    try:
        storage.ensure_dir(Path(home) / CACHE_FOLDER)
        _replace(cache_path(home, IDS_NAME), id_text.encode())
        _replace(cache_path(home), ("\n".join(rows) + "\n").encode())
    except (OSError, ValueError):
        pass


def _replace(path: Path, data: bytes) -> None:
    """Replace a cache file all at once (a temporary file renamed), without fsync."""
    temp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                 storage.FILE_MODE)
    try:
        storage.write_all(fd, data)
    except BaseException:
        os.close(fd)
        os.unlink(temp)
        raise
    os.close(fd)
    try:
        os.replace(temp, path)
    except OSError:
        os.unlink(temp)
        raise


def _fits_a_field(text: str) -> bool:
    """Whether `text` reads back the same from one tab-separated field of one line."""
    return "\t" not in text and "\n" not in text


def _number(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def _count_lines(fd: int, size: int) -> int:
    count, offset = 0, 0
    while offset < size and (chunk := os.pread(fd, min(size - offset, 1 << 20), offset)):
        count += chunk.count(b"\n")
        offset += len(chunk)
    return count
