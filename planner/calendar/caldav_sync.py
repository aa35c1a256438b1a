"""planner's events put by UID into a CalDAV calendar; the only module that imports caldav."""

# caldav (with lxml and niquests, ~200 ms) is an optional extra, imported inside sync only.
#
# One pass: the calendar's events are listed once (one REPORT with their data), each planner
# event is compared with the server's copy by content (ics.revise: SEQUENCE and LAST-MODIFIED
# are kept when nothing changed, raised when it did), and only new or changed ones are PUT.
# Events whose UID is not one planner is pushing are never written or deleted. A server may
# rewrite PRODID or re-serialize what it stores, so an event is recognised by its UID here.
#
# The password goes to the caldav client only; every message is built here from known parts
# (never the server's text or the exception's), and scrubbed of the password besides.

from __future__ import annotations

import datetime as _dt
import re
import urllib.parse
from collections.abc import Iterable
from types import ModuleType, TracebackType
from typing import Any

from planner.base.deadline import MARGIN_SECONDS, Deadline, DeadlinePassed, Sockets
from planner.base.errors import Failure, UsageError
from planner.base.i18n import Message, t
from planner.base.install import install_command
from planner.base.oserrors import os_reason, said_reason
from planner.calendar import ics
from planner.calendar.vdir import Counts

TIMEOUT_SECONDS = 30
_ERRNO_TEXT = re.compile(r"\[Errno -?[0-9]+\] ([^'\")\]]+)")
_NAMES_SHOWN = 5


class SyncError(Failure):
    """A sync that could not be done or finished; one line naming which, never the password."""


class MissingLibrary(UsageError, SyncError):
    """The caldav library (the optional extra) is not installed."""


def available() -> bool:
    """Whether the caldav library (the optional extra) is installed; it is not imported."""
    from importlib.util import find_spec

    return find_spec("caldav") is not None


def sync(url: str, calendar_name: str | None, user: str | None, password: str | None,
         events: Iterable[ics.Item], timeout: int | None = None,
         default_name: str | None = None, create: bool = False) -> Counts:
    """Put every event into the calendar by UID: create new, update changed, leave the rest.

    The calendar is the one named `calendar_name`; without a name, the one at `url`, else the
    one named `default_name` (config's calendar_name) among the calendars found from `url`.
    `create`: a calendar named `calendar_name` that is not there is made (MKCALENDAR).
    `timeout`: seconds per read (None: TIMEOUT_SECONDS, read now); each request ends after it
    plus MARGIN_SECONDS in all.
    """
    dav_error = _library()
    from caldav.calendarobjectresource import Event

    items = list(events)
    shown = _shown_url(url)
    user, password = _credentials(url, user, password)
    stage = "login"
    written = 0
    try:
        with _client(url, user, password, timeout) as client:
            calendar = _find_calendar(client, url, calendar_name, shown, default_name,
                                      create)
            stage = "listing"
            found: dict[str, tuple[Any, bytes]] = {}
            for resource in calendar.search(event=True):
                data = resource.raw_data or str(resource.data or "").encode("utf-8")
                uid = ics.item_uid(data)
                if uid is not None:
                    found.setdefault(uid, (resource, data))
            created = updated = unchanged = 0
            stage = "writing"
            for item in items:
                resource, data = found.get(item.uid, (None, None))
                revision = ics.revise(item.data, data)
                if revision.change == "unchanged":
                    unchanged += 1
                    continue
                if resource is None:
                    resource = Event(client=client, parent=calendar,
                                            data=revision.data.decode("utf-8"))
                    # raw_data: the bytes as they are (no SEQUENCE raised by the library).
                    resource.save(raw_data=revision.data)
                    created += 1
                else:
                    # If-Match with the listed ETag: an event changed meanwhile is not lost.
                    resource.save(raw_data=revision.data, precondition="etag")
                    updated += 1
                written += 1
            return Counts(created, updated, unchanged)
    except SyncError as error:
        raise SyncError(_scrub(str(error), password)) from None
    except dav_error.NotFoundError:
        if stage == "login":
            # Not a login problem: the URL names a calendar (or folder) the server lacks.
            problem: str = t("the CalDAV server at {url} has no calendar there (HTTP 404); add "
                        "--create to make it there", url=shown)
        else:
            problem = t("the CalDAV server at {url} says the calendar is gone (HTTP 404 "
                        "{during})", url=shown, during=_during(stage))
        raise SyncError(_scrub(_so_far(problem, written, items), password)) from None
    except Exception as error:
        problem = _failure(error, dav_error, stage, shown, user)
        if not (stage == "login" and isinstance(error, dav_error.AuthorizationError)):
            problem = _so_far(problem, written, items)
        raise SyncError(_scrub(problem, password)) from None


def _library() -> ModuleType:
    """caldav's error module, once caldav is known to be there; MissingLibrary when not."""
    try:
        from caldav.lib import error as dav_error
    except ImportError:
        raise MissingLibrary(t("the caldav library is not installed: {hint}",
                               hint=install_command("caldav"))) from None
    return dav_error


def _client(url: str, user: str | None, password: str | None, timeout: float | None) -> Any:
    """A caldav client for `url`: `timeout` seconds per read (None: TIMEOUT_SECONDS), every
    request ended after it plus MARGIN_SECONDS in all (README "A screen you can trust")."""
    from caldav.davclient import DAVClient

    timeout = TIMEOUT_SECONDS if timeout is None else timeout
    client_class = _with_deadline(DAVClient, timeout + MARGIN_SECONDS)
    return client_class(url=url, username=user, password=password, timeout=timeout,
                        enable_rfc6764=False)


def _with_deadline(client_class: type, seconds: float) -> type:
    """caldav's client class with a total deadline of `seconds` on every request (README "A screen
    you can trust")."""

    class Client(client_class):  # type: ignore[misc]  # caldav's client, untyped here
        deadline_passed = False

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # The socket of every answer, known once its headers are in: closing the session
            # leaves a body still being read to finish, however slowly it comes.
            self._sockets = Sockets()
            self.session.hooks.setdefault("response", []).append(self._traced)

        def _traced(self, response: Any, **_kwargs: Any) -> None:
            """niquests' response hook, called with the headers, before the body is read."""
            self._sockets.add(getattr(getattr(response.raw, "connection", None), "sock", None))

        def request(self, *args: Any, **kwargs: Any) -> Any:
            if self.deadline_passed:
                # The session is closed; a request caldav tries after swallowing the timeout
                # would only open a new connection to the same slow server.
                raise DeadlinePassed
            with Deadline(seconds, self._end):
                return super().request(*args, **kwargs)

        def _end(self) -> None:
            """From the watchdog: a read of a body is woken by shutting its socket down, a read
            of headers by closing the session (which shuts the sockets it still holds)."""
            self.deadline_passed = True
            self._sockets.shut_down()
            self.session.close()

        def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                     traceback: TracebackType | None) -> None:
            super().__exit__(kind, error, traceback)
            # caldav turns some failures into others (a search that finds nothing, say): once
            # a deadline passed, whatever came of the sync is that timeout.
            if self.deadline_passed and (error is None or isinstance(error, Exception)):
                raise DeadlinePassed from None

    return Client


def _find_calendar(client: Any, url: str, name: str | None, shown: str,
                   default_name: str | None = None, create: bool = False,
                   for_busy_time: bool = False) -> Any:
    """The calendar named `name` (display name or its last path part), or the one at `url`,
    or (no name, `url` not a calendar) the one named `default_name`; with `create`, a calendar
    named `name` (or `default_name`) that is not there is made, at `url` itself when `url`
    names a calendar the server lacks. `for_busy_time`: the advice names busy_calendars."""
    from caldav.lib import error as dav_error

    try:
        principal = client.principal()
    except dav_error.NotFoundError:
        if not create:
            raise
        # The URL names a calendar the server does not have (HTTP 404): it is made there.
        return _make_at(client, url, name or default_name)
    calendars = principal.get_calendars()
    wanted = _path(url)
    for calendar in calendars:
        path = _path(str(calendar.url))
        if name is None and path == wanted:
            return calendar
        if name is not None and name in (calendar.get_display_name(), path.rsplit("/", 1)[-1]):
            return calendar
    if name is None and default_name is not None:
        for calendar in calendars:
            if default_name in (calendar.get_display_name(),
                                _path(str(calendar.url)).rsplit("/", 1)[-1]):
                return calendar
    names = [str(calendar.get_display_name() or _path(str(calendar.url))) for calendar in
             calendars]
    there = ", ".join(repr(found) for found in names[:_NAMES_SHOWN]) + (
        ", ..." if len(names) > _NAMES_SHOWN else "")
    # Each line whole, with or without the calendars found, so the screen can translate it.
    if name is None and default_name is not None and not create:
        if names:
            raise SyncError(t("{url} is not a calendar and has no calendar named {name} "
                              "(its calendars: {there}); name one with --calendar",
                              url=shown, name=repr(default_name), there=there))
        raise SyncError(t("{url} is not a calendar and has no calendar named {name} "
                          "(it has no calendars); name one with --calendar",
                          url=shown, name=repr(default_name)))
    if name is None and for_busy_time:
        if names:
            raise SyncError(t("{url} is not a calendar (its calendars: {there}); set "
                              "\"calendar\" in busy_calendars to one of them", url=shown,
                              there=there))
        raise SyncError(t("{url} is not a calendar (it has no calendars); check the URL in "
                          "busy_calendars", url=shown))
    if name is None and not create:
        if names:
            raise SyncError(t("{url} is not a calendar (its calendars: {there}); name one with "
                              "--calendar", url=shown, there=there))
        raise SyncError(t("{url} is not a calendar (it has no calendars); name one with "
                          "--calendar", url=shown))
    if create:
        return principal.make_calendar(name=name or default_name)
    if for_busy_time:
        # Read for busy time: the fix is in config's busy_calendars, not a sync option.
        if names:
            raise SyncError(t("no calendar named {name} at {url} (its calendars: {there}); "
                              "set \"calendar\" in busy_calendars to one of them",
                              name=repr(name), url=shown, there=there))
        raise SyncError(t("no calendar named {name} at {url} (it has no calendars); check "
                          "the URL in busy_calendars", name=repr(name), url=shown))
    if names:
        raise SyncError(t("no calendar named {name} at {url} (its calendars: {there}); add "
                          "--create to make it", name=repr(name), url=shown, there=there))
    raise SyncError(t("no calendar named {name} at {url} (it has no calendars); add --create "
                      "to make it", name=repr(name), url=shown))


def _make_at(client: Any, url: str, name: str | None) -> Any:
    """A new calendar (MKCALENDAR) at `url`, shown as `name`: the URL's last part is its ID,
    the collection above it its parent."""
    from caldav.collection import CalendarSet

    parts = urllib.parse.urlsplit(url)
    path = parts.path.rstrip("/")
    parent, _slash, last = path.rpartition("/")
    if not last:
        raise SyncError(t("the CalDAV server at {url} has no calendar there (HTTP 404), and "
                          "the URL names none to make; give the calendar's URL",
                          url=_shown_url(url)))
    above = urllib.parse.urlunsplit(parts._replace(path=parent + "/", query="", fragment=""))
    return CalendarSet(client=client, url=above).make_calendar(
        name=name or urllib.parse.unquote(last), cal_id=urllib.parse.unquote(last))


def _path(url: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlsplit(url).path).rstrip("/")


def _credentials(url: str, user: str | None,
                 password: str | None) -> tuple[str | None, str | None]:
    """The user and password given, else those in the URL itself (http://user:pw@host/)."""
    in_url = urllib.parse.urlsplit(url)
    user = user or (urllib.parse.unquote(in_url.username) if in_url.username else None)
    password = password or (urllib.parse.unquote(in_url.password) if in_url.password else None)
    return user, password


def _shown_url(url: str) -> str:
    """The URL without any user or password in it."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def _why(error: OSError) -> str:
    if error.strerror:
        return os_reason(error)
    match = _ERRNO_TEXT.search(str(error))
    if match:
        return said_reason(match[1].strip())
    return t("timed out") if "timed out" in str(error).lower() else type(error).__name__


def _during(stage: str) -> str:
    """`while login`, `while listing` or `while writing`: one program line each."""
    if stage == "login":
        return t("while login")
    if stage == "listing":
        return t("while listing")
    return t("while writing")


def _so_far(problem: str, written: int, items: list[ics.Item]) -> str:
    """The problem, then how far the sync got."""
    if written == 0:
        return t("{problem}; nothing was changed there", problem=problem)
    return t("{problem}; {written} of {total} event(s) were written before it stopped",
             problem=problem, written=written, total=len(items))


def _scrub(message: str, password: str | None) -> str:
    """The message, and never the password, even when it is part of a name or URL."""
    if password and isinstance(message, Message):
        # Hidden in each value, the line keeps its template when that hides the same.
        kept = message.with_values(lambda value: _scrub(value, password))
        plain = _scrub(str.__str__(message), password)
        return kept if kept == plain else plain
    if password:
        for form in {password, urllib.parse.quote(password, safe=""),
                     urllib.parse.quote(password)}:
            if len(form) >= _WHOLE_WORDS_BELOW:
                message = message.replace(form, "***")
            else:
                # A short password is also a piece of many words: `p` inside `http` and
                # `planner` would garble the line; it is hidden where it stands alone.
                message = re.sub(rf"(?<![^\W_]){re.escape(form)}(?![^\W_])", "***", message)
    return message


_WHOLE_WORDS_BELOW = 8  # characters: a password shorter than this is hidden as a whole word


# --- busy time (README "Your week"): one time-range query, read only
# -----------------------------------


class TooMany(SyncError):
    """A time-range query found more events than the caller takes."""


def shown_url(url: str) -> str:
    """The URL as planner shows it: without any user or password in it."""
    return _shown_url(url)


def time_range(url: str, calendar_name: str | None, user: str | None, password: str | None,
               start: _dt.datetime, end: _dt.datetime, *, timeout: float | None = None,
               most: int) -> list[bytes]:
    """The calendar text of every event the server finds from `start` to `end` (aware), from
    one time-range query (REPORT), not expanded: recurring events come as the server keeps
    them, and the caller expands them. Nothing is written. TooMany past `most` events;
    SyncError (one line naming the server, never the password) when it cannot be done."""
    dav_error = _library()
    shown = _shown_url(url)
    user, password = _credentials(url, user, password)
    stage = "login"
    try:
        with _client(url, user, password, timeout) as client:
            calendar = _find_calendar(client, url, calendar_name, shown, for_busy_time=True)
            stage = "listing"
            # post_filter=False: the server's answer as it is; the caller cuts it exactly.
            found = calendar.search(start=start, end=end, event=True, expand=False,
                                    post_filter=False)
            if len(found) > most:
                raise TooMany(t("more than {most:,} events at {url}", most=most - 1,
                                url=shown))
            return [resource.raw_data or str(resource.data or "").encode("utf-8")
                    for resource in found]
    except SyncError as error:
        raise type(error)(_scrub(str(error), password)) from None
    except dav_error.NotFoundError:
        message = t("the CalDAV server at {url} says nothing is there (HTTP 404 {during})",
                    url=shown, during=_during(stage))
        raise SyncError(_scrub(message, password)) from None
    except Exception as error:
        raise SyncError(_scrub(_failure(error, dav_error, stage, shown, user),
                               password)) from None


def _failure(error: Exception, dav_error: ModuleType, stage: str, shown: str,
             user: str | None) -> str:
    """One line for what went wrong talking to the server at `stage`, built from known parts
    only (never the server's text); `dav_error` is caldav's error module."""
    if isinstance(error, dav_error.AuthorizationError):
        if stage == "login" and user:
            return t("the CalDAV server at {url} refused the login for user {user}", url=shown,
                     user=repr(user))
        if stage == "login":
            return t("the CalDAV server at {url} refused the login (no user given)", url=shown)
        return t("the CalDAV server at {url} refused access {during} (HTTP {status})",
                 url=shown, during=_during(stage), status=error.status or 403)
    if isinstance(error, dav_error.DAVError):
        status = f"HTTP {error.status}" if error.status else type(error).__name__
        return t("the CalDAV server at {url} failed {during} ({status})", url=shown,
                 during=_during(stage), status=status)
    if isinstance(error, DeadlinePassed):
        # The line of a server that never answers (niquests' own read timeout).
        return t("cannot reach the CalDAV server at {url} ({why})", url=shown,
                 why=t("timed out"))
    if isinstance(error, OSError):  # niquests' connection errors and timeouts are OSErrors
        return t("cannot reach the CalDAV server at {url} ({why})", url=shown, why=_why(error))
    # Anything else the library raises on a strange answer.
    return t("the CalDAV server at {url} gave an answer planner cannot use {during} ({kind})",
             url=shown, during=_during(stage), kind=type(error).__name__)
