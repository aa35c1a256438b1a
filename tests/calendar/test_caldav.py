"""planner's CalDAV sync against a real Radicale server on 127.0.0.1, read back with caldav.

The tests that start Radicale are marked slow, as the khal ones are."""

from __future__ import annotations

import datetime as _dt
import shlex
import socket
import subprocess
import sys
from zoneinfo import ZoneInfo

import caldav
import pytest
from calendar_plans import BERLIN, day
from radicale_server import PASSWORD, USER, Proxy, free_port

from planner.calendar import caldav_sync, ics
from planner.calendar.vdir import Counts

ZONE = ics.LocalZone(BERLIN, ZoneInfo(BERLIN))
RUN = "20261130T100000000000Z-ccccc"
FOREIGN = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Someone//Else//EN\r\nBEGIN:VEVENT\r\n"
           "UID:{uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20270105T090000Z\r\n"
           "DURATION:PT1H\r\nSUMMARY:{summary}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n")


def spec(n: int, **changes) -> ics.EventSpec:
    """Plan n, on its own day n days from now."""
    run_id = f"{RUN}{n}"
    return ics.EventSpec(ics.event_uid(run_id), _dt.date.fromisoformat(day(n)), 20,
                         f"Plan {n}", (("N1", "RAG"),),
                         f"plans/{run_id}.json", False, saved_order=run_id,
                         created=ics.created_from_run_id(run_id))._replace(**changes)


def items(*events: ics.EventSpec) -> list[ics.Item]:
    return ics.event_items(events, "19:00", zone=ZONE)


def push(url: str, calendar: caldav.Calendar, *events: ics.EventSpec,
         password: str = PASSWORD) -> Counts:
    return caldav_sync.sync(url, calendar.get_display_name(), USER, password, items(*events))


def on_server(calendar: caldav.Calendar) -> dict[str, tuple]:
    """Every event in the calendar as the caldav library reads it: UID -> (etag, component)."""
    return {str(found.icalendar_component["UID"]): (found.etag, found.icalendar_component)
            for found in calendar.search(event=True)}


@pytest.mark.slow
def test_sync_creates_the_events_and_the_calendar_shows_them(radicale: str,
                                                            calendar: caldav.Calendar) -> None:
    events = [spec(1), spec(2, done=True), spec(3, dropped=True)]
    assert push(radicale, calendar, *events) == Counts(3, 0, 0)
    stored = on_server(calendar)
    assert sorted(stored) == sorted(event.uid for event in events)
    first = stored[spec(1).uid][1]
    assert str(first["SUMMARY"]) == "Plan 1" and first["SEQUENCE"] == 0
    assert first.start == _dt.datetime.combine(_dt.date.fromisoformat(day(1)), _dt.time(19),
                                               ZoneInfo(BERLIN))
    assert first.duration == _dt.timedelta(minutes=20)
    assert str(stored[spec(2).uid][1]["DESCRIPTION"]).startswith("done")
    assert stored[spec(3).uid][1]["STATUS"] == "CANCELLED"


@pytest.mark.slow
def test_a_second_sync_changes_nothing_with_one_listing_request(
        radicale: str, calendar: caldav.Calendar, proxy: Proxy) -> None:
    many = [spec(n) for n in range(1, 13)]
    assert push(proxy.url, calendar, *many[:3]) == Counts(3, 0, 0)
    before = on_server(calendar)
    proxy.requests.clear()
    assert push(proxy.url, calendar, *many[:3]) == Counts(0, 0, 3)
    few = proxy.methods()
    assert few["REPORT"] == 1 and few["PUT"] == few["DELETE"] == 0
    assert on_server(calendar) == before  # same ETags: not even rewritten as it was
    push(proxy.url, calendar, *many)
    proxy.requests.clear()
    assert push(proxy.url, calendar, *many) == Counts(0, 0, 12)
    assert proxy.methods() == few  # the same requests for 12 events as for 3


@pytest.mark.slow
def test_a_changed_plan_is_updated_with_a_higher_sequence(radicale: str,
                                                         calendar: caldav.Calendar) -> None:
    push(radicale, calendar, spec(1), spec(2), spec(3))
    before = on_server(calendar)
    assert push(radicale, calendar, spec(1), spec(2, title="Renamed"),
                spec(3, dropped=True)) == Counts(0, 2, 1)
    after = on_server(calendar)
    assert after[spec(1).uid] == before[spec(1).uid]
    for n in (2, 3):
        old, new = before[spec(n).uid][1], after[spec(n).uid][1]
        assert (old["SEQUENCE"], new["SEQUENCE"]) == (0, 1)
        assert new["LAST-MODIFIED"].dt > old["LAST-MODIFIED"].dt
    assert str(after[spec(2).uid][1]["SUMMARY"]) == "Renamed"
    assert after[spec(3).uid][1]["STATUS"] == "CANCELLED"
    assert push(radicale, calendar, spec(1), spec(2, title="Renamed"),
                spec(3, dropped=True)) == Counts(0, 0, 3)


@pytest.mark.slow
def test_events_planner_did_not_create_are_never_touched(radicale: str,
                                                        calendar: caldav.Calendar) -> None:
    calendar.add_event(FOREIGN.format(uid="meeting@example.org", summary="Meeting"),
                       increase_seqno=False)
    # An event of a plan that is no longer exported: left, never deleted.
    calendar.add_event(FOREIGN.format(uid=f"{RUN}9@planner", summary="Old plan"),
                       increase_seqno=False)
    before = on_server(calendar)
    push(radicale, calendar, spec(1))
    push(radicale, calendar, spec(1, title="Changed"))
    after = on_server(calendar)
    assert sorted(after) == sorted([*before, spec(1).uid])
    for uid in before:
        assert after[uid] == before[uid]


@pytest.mark.slow
def test_the_calendar_can_be_named_by_its_url(radicale: str, calendar: caldav.Calendar) -> None:
    url = str(calendar.url)
    assert caldav_sync.sync(url, None, USER, PASSWORD, items(spec(1))) == Counts(1, 0, 0)
    assert list(on_server(calendar)) == [spec(1).uid]
    with pytest.raises(caldav_sync.SyncError) as caught:
        caldav_sync.sync(radicale, None, USER, PASSWORD, items(spec(1)))
    assert str(caught.value).startswith(f"{radicale} is not a calendar (its calendars: ")
    assert str(caught.value).endswith("); name one with --calendar")


def refused(url: str, name: str | None, user: str | None, password: str | None,
            events: list[ics.Item] | None = None, timeout: int = 30) -> str:
    """The one-line message of a sync that fails; it never holds the password."""
    with pytest.raises(caldav_sync.SyncError) as caught:
        caldav_sync.sync(url, name, user, password, items(spec(1)) if events is None else events,
                         timeout=timeout)
    message = str(caught.value)
    assert "\n" not in message and PASSWORD not in message and "Tr0ub4dor" not in message
    return message


@pytest.mark.slow
def test_a_refused_login_is_one_line(radicale: str, calendar: caldav.Calendar,
                                     capfd: pytest.CaptureFixture) -> None:
    wrong = PASSWORD + "x"
    assert refused(radicale, "planner reviews", USER, wrong) == (
        f"the CalDAV server at {radicale} refused the login for user 'alice'")
    # User and password in the URL itself: the URL is shown without them.
    port = radicale.rsplit(":", 1)[1]
    assert refused(f"http://alice:{wrong}@127.0.0.1:{port}", "x", None, None) == (
        f"the CalDAV server at http://127.0.0.1:{port} refused the login for user 'alice'")
    assert refused(radicale, "x", None, None) == (
        f"the CalDAV server at {radicale} refused the login (no user given)")
    out, err = capfd.readouterr()
    assert "Tr0ub4dor" not in out + err
    assert on_server(calendar) == {}


def test_an_unreachable_server_is_one_line() -> None:
    port = free_port()
    assert refused(f"http://127.0.0.1:{port}/", "planner reviews", USER, PASSWORD) == (
        f"cannot reach the CalDAV server at http://127.0.0.1:{port}/ (Connection refused); "
        "nothing was changed there")


@pytest.mark.slow
def test_a_server_that_never_answers_is_one_line() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        message = refused(f"http://127.0.0.1:{port}/", "planner reviews", USER, PASSWORD,
                          timeout=1)
    assert message.startswith(f"cannot reach the CalDAV server at http://127.0.0.1:{port}/ (")
    assert message.endswith("); nothing was changed there")


@pytest.mark.slow
def test_a_missing_calendar_is_one_line(radicale: str, calendar: caldav.Calendar) -> None:
    message = refused(radicale, "no such calendar", USER, PASSWORD)
    assert message.startswith(f"no calendar named 'no such calendar' at {radicale} "
                              "(its calendars: ")
    # The list is cut after a few names: the test's own calendar may be past the cut.
    assert repr(calendar.get_display_name()) in message or ", ...)" in message


@pytest.mark.slow
def test_a_server_failing_half_way_is_one_line_and_the_next_sync_finishes(
        calendar: caldav.Calendar, proxy: Proxy) -> None:
    events = [spec(1), spec(2), spec(3)]
    proxy.fail = lambda method, count: 500 if method == "PUT" and count >= 2 else None
    assert refused(proxy.url, calendar.get_display_name(), USER, PASSWORD, items(*events)) == (
        f"the CalDAV server at {proxy.url} failed while writing (HTTP 500); "
        "1 of 3 event(s) were written before it stopped")
    assert list(on_server(calendar)) == [spec(1).uid]
    proxy.fail = lambda method, count: None
    assert push(proxy.url, calendar, *events) == Counts(2, 0, 1)
    # A failure while listing: nothing written.
    proxy.fail = lambda method, count: 503 if method == "REPORT" else None
    assert refused(proxy.url, calendar.get_display_name(), USER, PASSWORD,
                   items(spec(1, title="New"))) == (
        f"the CalDAV server at {proxy.url} failed while listing (HTTP 503); "
        "nothing was changed there")
    assert str(on_server(calendar)[spec(1).uid][1]["SUMMARY"]) == "Plan 1"


def test_without_the_caldav_library_the_install_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [name for name in sys.modules if name == "caldav" or name.startswith("caldav.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "caldav", None)
    with pytest.raises(caldav_sync.MissingLibrary) as caught:
        caldav_sync.sync("http://127.0.0.1:1/", "x", USER, PASSWORD, [])
    assert str(caught.value) == ("the caldav library is not installed: "
                                 f"{shlex.quote(sys.executable)} -m pip install "
                                 "'planner[caldav]'")


def test_the_calendar_modules_import_neither_caldav_nor_icalendar() -> None:
    probe = ("import sys\nfrom planner.calendar import caldav_sync, ics, vdir\n"
             "print(sorted(n for n in ('caldav', 'icalendar', 'niquests', 'lxml') "
             "if n in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


def test_messages_never_hold_the_password_even_in_the_url() -> None:
    for url in ("http://alice:Tr0ub4dor&3:planner@127.0.0.1:1/",
                f"http://127.0.0.1:1/{PASSWORD}/"):
        assert PASSWORD not in caldav_sync._scrub(f"at {url}", PASSWORD)
    assert caldav_sync._shown_url("https://u:p%40ss@host.example:8443/dav/") == \
        "https://host.example:8443/dav/"
    assert caldav_sync._scrub("no secret here", "") == "no secret here"
    # A short password is hidden where it stands alone, not inside every word holding it.
    assert caldav_sync._scrub("http://h/p/ 'planner' p@h", "p") == "http://h/***/ 'planner' ***@h"
    assert caldav_sync._scrub("at http://h/复习p/", "p") == "at http://h/复习p/"
