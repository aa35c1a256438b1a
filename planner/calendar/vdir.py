"""Calendar files planner owns: a feed file and a vdir folder, each file replaced atomically."""

# A calendar that subscribes to the feed, khal reading the vdir and vdirsyncer syncing it may
# read at any moment: every file is written to a temporary name in the same folder, flushed,
# renamed over the old one and the folder flushed, so a reader sees the old file or the new
# one, never half of one. Temporary names start with "." and end ".tmp": khal and vdirsyncer
# only read names ending ".ics". Files planner did not write are never replaced.

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import re
import stat
from collections.abc import Iterable
from typing import NamedTuple

from planner.base import storage
from planner.base.errors import Failure
from planner.base.i18n import t
from planner.base.oserrors import os_reason
from planner.calendar import ics

MAX_FEED_BYTES = 64 * storage.MIB
MAX_ITEM_BYTES = storage.MIB
NEW_FILE_MODE = 0o600
# The vdir metadata file holding the calendar's name (vdirsyncer's and khal's `displayname`).
DISPLAYNAME = "displayname"
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# A UID written as a file name as it is (what vdirsyncer does for such UIDs).
_SAFE_NAME = re.compile(r"[0-9A-Za-z@_+-][0-9A-Za-z@._+-]*", re.ASCII)


class CalendarFileError(Failure):
    """A feed or vdir that cannot be written; one line for the person, nothing half-written."""


class Counts(NamedTuple):
    """What a vdir export or a CalDAV sync did, event by event."""

    created: int
    updated: int
    unchanged: int
    skipped: int = 0  # a file at a planner event's name that planner did not write: left alone


def write_feed(path: str | os.PathLike[str], calendar_bytes: bytes) -> str:
    """Create the feed file, or replace planner's own one atomically: created/updated/unchanged."""
    path = os.fspath(path)
    _check_folder(os.path.dirname(path) or ".", path)
    try:
        existing = storage.read_regular_file(path, MAX_FEED_BYTES, follow_links=False)
    except FileNotFoundError:
        _write_feed(path, calendar_bytes, NEW_FILE_MODE)
        return "created"
    except storage.FileRefused as error:
        raise CalendarFileError(t("{error}; it is left as it is", error=error)) from None
    except OSError as error:
        raise CalendarFileError(t("cannot read {path} ({reason})", path=path,
                                  reason=_reason(error))) from None
    theirs, ours = ics.calendar_identity(existing), ics.calendar_identity(calendar_bytes)
    defaults = set(ics.DEFAULT_NAMES.values())
    if theirs[0] == ours[0] and {theirs[1], ours[1]} <= defaults:
        # planner's default name in another language: the same feed (README "中文界面")
        theirs = ours
    if theirs != ours:
        if theirs[0] != ours[0]:
            raise CalendarFileError(t("{path} was not written by planner (its PRODID differs); "
                                      "it is left as it is: choose another file", path=path))
        raise CalendarFileError(t("{path} was not written by planner (its calendar name "
                                  "(X-WR-CALNAME) differs); it is left as it is: choose "
                                  "another file", path=path))
    if ics.without_stamps(existing) == ics.without_stamps(calendar_bytes):
        return "unchanged"
    _write_feed(path, calendar_bytes, _mode_of(path))
    return "updated"


def _write_feed(path: str, data: bytes, mode: int) -> None:
    try:
        _replace(path, data, mode)
    except OSError as error:
        raise CalendarFileError(t("could not write {path} ({reason}); it is as it was",
                                  path=path, reason=_reason(error))) from None


def update_feed(path: str | os.PathLike[str], events: Iterable[ics.EventSpec], review_time: str,
                *, name: str = ics.DEFAULT_NAME, zone: ics.LocalZone | None = None,
                now: _dt.datetime | None = None) -> str:
    """`planner export --feed`: the feed made from `events`, each event keeping its revision
    (SEQUENCE, LAST-MODIFIED) from the feed as it is, then written by write_feed."""
    data = ics.calendar_ics(events, review_time, name=name, now=now, zone=zone,
                            previous=read_feed(path))
    return write_feed(path, data)


def read_feed(path: str | os.PathLike[str]) -> bytes | None:
    """The feed file as it is now (to keep its events' revisions), or None when there is none."""
    path = os.fspath(path)
    try:
        return storage.read_regular_file(path, MAX_FEED_BYTES, follow_links=False)
    except FileNotFoundError:
        return None
    except storage.FileRefused as error:
        raise CalendarFileError(t("{error}; it is left as it is", error=error)) from None
    except OSError as error:
        raise CalendarFileError(t("cannot read {path} ({reason})", path=path,
                                  reason=_reason(error))) from None


def write_vdir(folder: str | os.PathLike[str], events: Iterable[ics.EventSpec],
               review_time: str, *, zone: ics.LocalZone | None = None,
               now: _dt.datetime | None = None) -> Counts:
    """One `<uid>.ics` per event in a vdir folder, rewritten only when its content changed."""
    folder = os.fspath(folder)
    zone = ics.local_zone() if zone is None else zone
    planned = sorted(ics.plan_events(events, review_time, zone), key=lambda event: event.spec.uid)
    _vdir_folder(folder)
    unchanged = skipped = 0
    pending = []
    for event in planned:
        path = os.path.join(folder, vdir_name(event.spec.uid))
        try:
            previous: bytes | None = storage.read_regular_file(path, MAX_ITEM_BYTES,
                                                               follow_links=False)
        except FileNotFoundError:
            previous = None
        except storage.FileRefused:
            skipped += 1  # a link, a folder, ...: not a file planner wrote
            continue
        except OSError as error:
            raise CalendarFileError(t("cannot read {path} ({reason}); nothing was written",
                                      path=path, reason=_reason(error))) from None
        if previous is not None and not ics.is_planner_item(previous):
            skipped += 1  # written or edited by someone else (khal, a person): theirs now
            continue
        if previous is not None and ics.source_of(previous) == ics.written_source(event):
            unchanged += 1  # made from the same plan as before: not even written anew
            continue
        pending.append((event, path, previous))
    created = updated = 0
    try:
        for (_, path, previous), item in zip(
                pending, ics.render_items([event for event, _, _ in pending], zone, now),
                strict=True):
            revision = ics.revise(item.data, previous, now)
            if revision.change == "unchanged":
                unchanged += 1
                continue
            try:
                _replace(path, revision.data,
                         NEW_FILE_MODE if previous is None else _mode_of(path), sync=False)
            except OSError as error:
                raise CalendarFileError(_not_written(path, error, created + updated)) from None
            if revision.change == "created":
                created += 1
            else:
                updated += 1
    finally:
        if created + updated:
            # Once for every rename rather than once per file; each file was flushed already.
            with contextlib.suppress(OSError):
                storage.sync_dir(folder)
    return Counts(created, updated, unchanged, skipped)


def name_vdir(folder: str | os.PathLike[str], name: str) -> bool:
    """Give the vdir folder a name when it has none: the vdir metadata file `displayname`,
    which khal and vdirsyncer read. A name already there (the person's, or one vdirsyncer
    brought from a server) is kept. True when the name was written."""
    path = os.path.join(os.fspath(folder), DISPLAYNAME)
    if os.path.lexists(path):
        return False
    temp = os.path.join(os.fspath(folder), f".{DISPLAYNAME}.{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(temp, _TEMP_FLAGS, NEW_FILE_MODE)
        try:
            os.write(fd, name.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            # A link, not a rename: a name that appeared meanwhile is never replaced.
            os.link(temp, path)
        except FileExistsError:
            return False
        finally:
            os.unlink(temp)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise CalendarFileError(t("could not write {path} ({reason}); the events were written",
                                  path=path, reason=_reason(error))) from None
    with contextlib.suppress(OSError):
        storage.sync_dir(folder)
    return True


def vdir_name(uid: str) -> str:
    """The vdir file name of an event: its UID and .ics (planner's UIDs are file-name safe)."""
    if not _SAFE_NAME.fullmatch(uid) or len(uid) > 200:
        raise ics.CalendarRefused(t("{uid} cannot be written as a file name", uid=repr(uid)))
    return f"{uid}.ics"


def _vdir_folder(folder: str) -> None:
    """Make sure the vdir folder is a folder, creating it (not its parents) the first time."""
    try:
        info = os.stat(folder)
    except FileNotFoundError:
        _check_folder(os.path.dirname(os.path.abspath(folder)), folder)
        try:
            os.mkdir(folder, storage.DIR_MODE)
        except OSError as error:
            raise CalendarFileError(t("could not create the folder {folder} ({reason}); "
                                      "nothing was written",
                                      folder=folder, reason=_reason(error))) from None
        return
    except OSError as error:
        raise CalendarFileError(t("cannot look at {folder} ({reason})", folder=folder,
                                  reason=_reason(error))) from None
    if not stat.S_ISDIR(info.st_mode):
        kind = t("a file") if stat.S_ISREG(info.st_mode) else storage.file_kind(info.st_mode)
        raise CalendarFileError(t("{folder} is not a folder ({kind}); nothing was written",
                                  folder=folder, kind=kind))


def _check_folder(folder: str, path: str) -> None:
    if not os.path.isdir(folder):
        raise CalendarFileError(t("the folder of {path} does not exist; nothing was written",
                                  path=path))


def _replace(path: str, data: bytes, mode: int, sync: bool = True) -> None:
    """Write `path` all at once: temporary file beside it, fsync, rename, fsync the folder
    (unless the caller does that once for many files)."""
    folder = os.path.dirname(path) or "."
    temp = os.path.join(folder, f".{os.path.basename(path)}.{os.urandom(4).hex()}.tmp")
    fd = os.open(temp, _TEMP_FLAGS, mode)
    try:
        try:
            os.fchmod(fd, mode)  # exact whatever the umask says
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    if sync:
        storage.sync_dir(folder)


def _mode_of(path: str) -> int:
    """The permissions of the file being replaced: a feed someone made public stays public."""
    try:
        return stat.S_IMODE(os.lstat(path).st_mode)
    except OSError:
        return NEW_FILE_MODE


def _not_written(path: str, error: OSError, count: int) -> str:
    """The line for a vdir file that could not be written, after `count` others were."""
    if count == 0:
        return t("could not write {path} ({reason}); nothing was written", path=path,
                 reason=_reason(error))
    return t("could not write {path} ({reason}); {count} event file(s) were written before",
             path=path, reason=_reason(error), count=count)


def _reason(error: OSError) -> str:
    return os_reason(error)
