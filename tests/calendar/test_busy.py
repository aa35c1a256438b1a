"""README "Your week": busy time read from real calendar files, vdir folders and a real Radicale
server.

The calendars are written with icalendar, as a calendar program would; read_busy takes its days
as arguments and reads no clock, so the dates here are fixed: three weeks around the end of
summer time in Europe (25 October 2026), while New York keeps its own until 1 November.
"""

from __future__ import annotations

import datetime as _dt
import os
import time
from pathlib import Path
from zoneinfo import ZoneInfo

import caldav
import icalendar
import pytest
from radicale_server import PASSWORD, USER, Proxy

from planner.calendar import busy
from planner.calendar.busy import BusyEvent, read_busy

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
FIRST, LAST = _dt.date(2026, 10, 19), _dt.date(2026, 11, 8)


def local(text: str) -> _dt.datetime:
    return _dt.datetime.fromisoformat(text)


def event(uid: str, summary: str | None, start, end=None, **properties) -> icalendar.Event:
    found = icalendar.Event()
    found.add("uid", uid)
    found.add("dtstamp", _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC))
    if summary is not None:
        found.add("summary", summary)
    found.add("dtstart", start)
    if end is not None:
        found.add("dtend", end)
    for name, value in properties.items():
        found.add(name.replace("_", "-"), value)
    return found


def week_events() -> list[list[icalendar.Event]]:
    """Each inner list: the events of one UID (one vdir file)."""
    class_ = event("class@school.example", "Evening class", _dt.datetime(2026, 10, 6, 18, 0,
                   tzinfo=BERLIN), _dt.datetime(2026, 10, 6, 19, 30, tzinfo=BERLIN),
                   rrule={"freq": "weekly", "count": 6},
                   exdate=_dt.datetime(2026, 10, 20, 18, 0, tzinfo=BERLIN))
    moved = event("class@school.example", "Evening class (moved)",
                  _dt.datetime(2026, 10, 28, 20, 0, tzinfo=BERLIN),
                  _dt.datetime(2026, 10, 28, 21, 0, tzinfo=BERLIN),
                  recurrence_id=_dt.datetime(2026, 10, 27, 18, 0, tzinfo=BERLIN))
    return [
        [class_, moved],
        [event("call@ny.example", "Call with New York",
               _dt.datetime(2026, 10, 28, 9, 0, tzinfo=NEW_YORK),
               _dt.datetime(2026, 10, 28, 10, 0, tzinfo=NEW_YORK))],
        [event("dentist@x.example", "Dentist", _dt.datetime(2026, 10, 22, 12, 0, tzinfo=_dt.UTC),
               duration=_dt.timedelta(minutes=45))],
        [event("floating@x.example", "Run", _dt.datetime(2026, 10, 23, 8, 0),
               _dt.datetime(2026, 10, 23, 9, 0))],
        [event("holiday@x.example", "Holiday", _dt.date(2026, 10, 24), _dt.date(2026, 10, 25))],
        [event("trip@x.example", "Trip", _dt.date(2026, 10, 25), _dt.date(2026, 10, 26),
               transp="OPAQUE")],
        [event("cancelled@x.example", "Cancelled", _dt.datetime(2026, 10, 26, 10, 0),
               _dt.datetime(2026, 10, 26, 11, 0), status="CANCELLED")],
        [event("free@x.example", "Free", _dt.datetime(2026, 10, 26, 11, 0),
               _dt.datetime(2026, 10, 26, 12, 0), transp="TRANSPARENT")],
        [event("20261001T100000000000Z-aaaaa@planner", "Review plan",
               _dt.datetime(2026, 10, 26, 19, 0), _dt.datetime(2026, 10, 26, 19, 30))],
        [event("moment@x.example", "A moment", _dt.datetime(2026, 10, 26, 13, 0))],
        [event("night@x.example", None, _dt.datetime(2026, 10, 18, 23, 0, tzinfo=BERLIN),
               _dt.datetime(2026, 10, 19, 1, 0, tzinfo=BERLIN))],
        [event("before@x.example", "Before", _dt.datetime(2026, 10, 18, 22, 0),
               _dt.datetime(2026, 10, 19, 0, 0))],
        [event("after@x.example", "After", _dt.datetime(2026, 11, 9, 0, 0),
               _dt.datetime(2026, 11, 9, 1, 0))],
        [event("old@x.example", "Long ago", _dt.datetime(2020, 1, 1, 9, 0),
               _dt.datetime(2020, 1, 1, 10, 0))],
    ]


# The busy intervals those events make in Berlin, by hand: the class's 20 October is excluded,
# its 27 October moved to the 28th, its 10 November is past the window; New York is still on
# summer time on 28 October (13:00 UTC), Berlin no longer (14:00); the dentist is in UTC during
# Berlin's summer time; the floating run is Berlin wall time; the all-day events are busy,
# marked opaque or not (the calendar standard's default); the cancelled, transparent and
# planner's own are free, and an event with no end takes no time.
EXPECTED = [
    BusyEvent(local("2026-10-18T23:00"), local("2026-10-19T01:00"), ""),
    BusyEvent(local("2026-10-22T14:00"), local("2026-10-22T14:45"), "Dentist"),
    BusyEvent(local("2026-10-23T08:00"), local("2026-10-23T09:00"), "Run"),
    BusyEvent(local("2026-10-24T00:00"), local("2026-10-25T00:00"), "Holiday", all_day=True),
    BusyEvent(local("2026-10-25T00:00"), local("2026-10-26T00:00"), "Trip", all_day=True),
    BusyEvent(local("2026-10-28T14:00"), local("2026-10-28T15:00"), "Call with New York"),
    BusyEvent(local("2026-10-28T20:00"), local("2026-10-28T21:00"), "Evening class (moved)"),
    BusyEvent(local("2026-11-03T18:00"), local("2026-11-03T19:30"), "Evening class"),
]


def calendar_bytes(components: list[icalendar.Event]) -> bytes:
    found = icalendar.Calendar()
    found.add("prodid", "-//Example//Calendar//EN")
    found.add("version", "2.0")
    for component in components:
        found.add_component(component)
    found.add_missing_timezones()
    return found.to_ical()


def write_ics(path: Path, components: list[icalendar.Event]) -> Path:
    path.write_bytes(calendar_bytes(components))
    return path


def write_vdir(folder: Path, groups: list[list[icalendar.Event]]) -> Path:
    folder.mkdir()
    for group in groups:
        write_ics(folder / f"{group[0]['UID']}.ics", group)
    (folder / "displayname").write_text("Personal\n", encoding="utf-8")  # not an .ics: skipped
    (folder / "color").write_text("#ff0000\n", encoding="utf-8")
    return folder


def busy_of(home: Path, *sources: dict, zone=BERLIN, first=FIRST, last=LAST):
    return read_busy(list(sources), first, last, home=home, zone=zone)


def test_an_ics_file_gives_exactly_the_busy_intervals(home: Path) -> None:
    write_ics(home / "personal.ics", [item for group in week_events() for item in group])
    found = busy_of(home, {"ics": "personal.ics"})
    assert list(found.events) == EXPECTED
    assert found.unknown == found.warnings == ()


def test_a_vdir_gives_the_same_intervals(home: Path) -> None:
    write_vdir(home / "personal", week_events())
    found = busy_of(home, {"vdir": "personal"})
    assert list(found.events) == EXPECTED
    assert found.unknown == found.warnings == ()


def test_an_absolute_path_and_the_systems_zone(home: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_ics(home / "personal.ics", [item for group in week_events() for item in group])
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        found = read_busy([{"ics": str(path)}], FIRST, LAST, home=Path("/nowhere"), zone=None)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert list(found.events) == EXPECTED


def test_another_zone_moves_the_zoned_times_but_not_the_floating(home: Path) -> None:
    write_ics(home / "personal.ics", [item for group in week_events() for item in group])
    found = busy_of(home, {"ics": "personal.ics"}, zone=ZoneInfo("Asia/Shanghai"))
    by_title = {item.title: (item.start, item.end) for item in found.events}
    assert by_title["Run"] == (local("2026-10-23T08:00"), local("2026-10-23T09:00"))
    assert by_title["Trip"] == (local("2026-10-25T00:00"), local("2026-10-26T00:00"))
    assert by_title["Dentist"] == (local("2026-10-22T20:00"), local("2026-10-22T20:45"))
    assert by_title["Call with New York"] == (local("2026-10-28T21:00"),
                                              local("2026-10-28T22:00"))


def test_titles_are_inert_and_bounded(home: Path) -> None:
    write_ics(home / "x.ics", [
        event("a@x", "\x1b]52;c;AAAA\x07Meeting\u202e", _dt.datetime(2026, 10, 20, 9, 0),
              _dt.datetime(2026, 10, 20, 10, 0)),
        event("b@x", "long " * 200, _dt.datetime(2026, 10, 21, 9, 0),
              _dt.datetime(2026, 10, 21, 10, 0))])
    first, second = busy_of(home, {"ics": "x.ics"}).events
    assert "\x1b" not in first.title and "\u202e" not in first.title
    assert first.title.startswith("\\x1b]52") and "Meeting" in first.title
    assert len(second.title) == busy.TITLE_CHARS and second.title.endswith("…")


def test_files_outside_the_window_are_not_parsed_but_all_that_touch_it_are(home: Path) -> None:
    """The byte scan: a file is skipped only when every event of it lies outside the window."""
    window = busy._Window(FIRST, LAST, local("2026-10-19T00:00"), local("2026-11-09T00:00"))
    for group in week_events():
        data = calendar_bytes(group)
        uid = str(group[0]["UID"])
        assert busy._may_touch(data, window) is (uid not in ("old@x.example",)), uid
    series = event("s@x", "S", _dt.datetime(2020, 1, 6, 9, 0), _dt.datetime(2020, 1, 6, 10, 0),
                   rrule={"freq": "weekly", "until": _dt.datetime(2020, 6, 1, tzinfo=_dt.UTC)})
    assert busy._may_touch(calendar_bytes([series]), window) is False
    open_series = event("s@x", "S", _dt.datetime(2020, 1, 6, 9, 0),
                        _dt.datetime(2020, 1, 6, 10, 0), rrule={"freq": "weekly"})
    assert busy._may_touch(calendar_bytes([open_series]), window) is True
    counted = event("s@x", "S", _dt.datetime(2020, 1, 6, 9, 0), _dt.datetime(2020, 1, 6, 10, 0),
                    rrule={"freq": "weekly", "count": 3})
    assert busy._may_touch(calendar_bytes([counted]), window) is True  # not worked out: parsed
    later = event("s@x", "S", _dt.datetime(2027, 1, 6, 9, 0), _dt.datetime(2027, 1, 6, 10, 0),
                  rrule={"freq": "daily"})
    assert busy._may_touch(calendar_bytes([later]), window) is False
    # A master far away with an instance moved into the window is parsed.
    moved = event("s@x", "S", _dt.datetime(2026, 11, 2, 9, 0), _dt.datetime(2026, 11, 2, 10, 0),
                  recurrence_id=_dt.datetime(2027, 1, 13, 9, 0))
    assert busy._may_touch(calendar_bytes([later, moved]), window) is True
    long_ago = event("l@x", "L", _dt.date(2026, 9, 1), duration=_dt.timedelta(days=60),
                     transp="OPAQUE")
    assert busy._may_touch(calendar_bytes([long_ago]), window) is True
    assert busy._may_touch(b"not a calendar", window) is True


def test_the_scan_and_the_full_parse_agree_on_a_mixed_vdir(home: Path) -> None:
    folder = write_vdir(home / "personal", week_events())
    scanned = read_busy([{"vdir": "personal"}], FIRST, LAST, home=home, zone=BERLIN,
                        cache=False)
    original = busy._may_touch
    busy._may_touch = lambda data, window: True
    try:
        parsed = read_busy([{"vdir": str(folder)}], FIRST, LAST, home=home, zone=BERLIN,
                           cache=False)
    finally:
        busy._may_touch = original
    assert scanned == parsed
    assert not (home / ".planner").exists()  # cache=False writes nothing


def cache_files(home: Path) -> list[Path]:
    return sorted((home / ".planner").glob("busy-*.txt"))


def test_an_unchanged_vdir_is_served_from_the_cache_without_reading_a_file(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_vdir(home / "personal", week_events())
    later = FIRST + _dt.timedelta(days=7), LAST + _dt.timedelta(days=30)
    expected_later = read_busy([{"vdir": "personal"}], *later, home=home, zone=BERLIN,
                               cache=False)
    assert expected_later.events[-1].start == local("2026-11-10T18:00")
    first = busy_of(home, {"vdir": "personal"})
    [cache] = cache_files(home)
    assert cache.stat().st_mode & 0o777 == 0o600
    assert (home / ".planner").stat().st_mode & 0o777 == 0o700

    def no_reading(*args):
        raise AssertionError("a calendar file was read")

    monkeypatch.setattr(busy, "_read_file", no_reading)
    assert busy_of(home, {"vdir": "personal"}) == first
    # A later window inside the days the cache worked out is served from it too.
    assert busy_of(home, {"vdir": "personal"}, first=later[0], last=later[1]) == expected_later
    monkeypatch.undo()
    assert list(first.events) == EXPECTED


def test_a_changed_added_or_removed_file_is_seen_through_the_cache(home: Path) -> None:
    folder = write_vdir(home / "personal", week_events())
    busy_of(home, {"vdir": "personal"})
    dentist = folder / "dentist@x.example.ics"
    write_ics(dentist, [event("dentist@x.example", "Dentist, later",
                              _dt.datetime(2026, 10, 22, 16, 0, tzinfo=_dt.UTC),
                              duration=_dt.timedelta(minutes=45))])
    os.utime(dentist, ns=(1, 2))  # even an older modification time is a change
    (folder / "floating@x.example.ics").unlink()
    write_ics(folder / "new.ics", [event("new@x", "New", _dt.datetime(2026, 11, 2, 9, 0),
                                         _dt.datetime(2026, 11, 2, 10, 0))])
    titles = [item.title for item in busy_of(home, {"vdir": "personal"}).events]
    assert "Dentist" not in titles and "Run" not in titles
    assert "Dentist, later" in titles and "New" in titles
    assert busy_of(home, {"vdir": "personal"}) == read_busy(
        [{"vdir": "personal"}], FIRST, LAST, home=home, zone=BERLIN, cache=False)


def test_a_damaged_cache_or_another_zone_is_worked_out_again(home: Path) -> None:
    write_ics(home / "personal.ics", [item for group in week_events() for item in group])
    busy_of(home, {"ics": "personal.ics"})
    [cache] = cache_files(home)
    cache.write_bytes(b"planner-busy-cache-1\tgarbage\n+\tnot a date\n")
    assert list(busy_of(home, {"ics": "personal.ics"}).events) == EXPECTED
    shanghai = busy_of(home, {"ics": "personal.ics"}, zone=ZoneInfo("Asia/Shanghai"))
    assert len(cache_files(home)) == 2
    assert shanghai.events != tuple(EXPECTED) and len(shanghai.events) == len(EXPECTED)
    assert list(busy_of(home, {"ics": "personal.ics"}).events) == EXPECTED


def test_a_home_where_no_cache_can_be_written_still_reads(home: Path) -> None:
    write_ics(home / "personal.ics", [item for group in week_events() for item in group])
    (home / ".planner").write_text("not a folder", encoding="utf-8")
    assert list(busy_of(home, {"ics": "personal.ics"}).events) == EXPECTED


def warned(found, label: str, *words: str) -> None:
    assert label in found.unknown
    line = next(line for line in found.warnings if label in line)
    assert line.endswith("its busy time is unknown") and "\n" not in line
    for word in words:
        assert word in line, line


def test_a_source_that_cannot_be_read_is_unknown_and_the_others_still_count(home: Path) -> None:
    write_ics(home / "good.ics", [item for group in week_events() for item in group])
    (home / "notes.txt").write_text("Just some text.\n", encoding="utf-8")
    (home / "empty.ics").write_bytes(b"")
    (home / "folder.ics").mkdir()
    (home / "plain-file").write_text("x", encoding="utf-8")
    found = busy_of(home, {"ics": "missing.ics"}, {"ics": "notes.txt"}, {"ics": "good.ics"},
                    {"ics": "empty.ics"}, {"ics": "folder.ics"}, {"vdir": "no-such-dir"},
                    {"vdir": "plain-file"})
    assert list(found.events) == EXPECTED
    assert found.unknown == ("missing.ics", "notes.txt", "empty.ics", "folder.ics",
                             "no-such-dir", "plain-file")
    assert len(found.warnings) == 6
    warned(found, "missing.ics", "does not exist")
    warned(found, "notes.txt", "is not an iCalendar file")
    warned(found, "folder.ics", "not a regular file")
    warned(found, "no-such-dir", "does not exist")
    warned(found, "plain-file", "is not a folder")


def test_a_broken_file_makes_the_whole_vdir_unknown(home: Path) -> None:
    write_vdir(home / "personal", week_events())
    write_vdir(home / "work", [week_events()[2]])
    (home / "personal" / "zz-broken.ics").write_bytes(
        b"BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:b@x\r\nDTSTART:2026-10-20 nine\r\n"
        b"END:VEVENT\r\nEND:VCALENDAR\r\n")
    found = busy_of(home, {"vdir": "personal"}, {"vdir": "work"})
    assert [item.title for item in found.events] == ["Dentist"]
    warned(found, "personal", "zz-broken.ics", "planner cannot read")


def test_a_file_past_16_mib_is_refused_before_it_is_read(home: Path) -> None:
    with (home / "huge.ics").open("wb") as huge:
        huge.write(b"BEGIN:VCALENDAR\r\n")
        huge.truncate(16 * 1024 * 1024 + 1)  # sparse: nothing is written
    write_ics(home / "good.ics", week_events()[2])
    found = busy_of(home, {"ics": "huge.ics"}, {"ics": "good.ics"})
    assert [item.title for item in found.events] == ["Dentist"]
    warned(found, "huge.ics", "larger than 16 MiB")


@pytest.mark.slow
def test_more_than_10000_events_in_the_window_is_unknown(home: Path) -> None:
    # Every two minutes for two weeks: 10,080 occurrences, cut off at the 10,001st.
    write_ics(home / "busy.ics", [event("often@x", "Often", _dt.datetime(2026, 10, 19, 0, 0),
                                        _dt.datetime(2026, 10, 19, 0, 1),
                                        rrule={"freq": "minutely", "interval": 2})])
    write_ics(home / "good.ics", week_events()[2])
    found = busy_of(home, {"ics": "busy.ics"}, {"ics": "good.ics"}, last=_dt.date(2026, 11, 1))
    assert [item.title for item in found.events] == ["Dentist"]
    warned(found, "busy.ics", "more than 10,000 events from 2026-10-19 to 2026-11-01")


@pytest.mark.slow
def test_10000_events_is_still_within_the_bound(home: Path) -> None:
    write_ics(home / "busy.ics", [event("often@x", "Often", _dt.datetime(2026, 10, 19, 0, 0),
                                        _dt.datetime(2026, 10, 19, 0, 1),
                                        rrule={"freq": "minutely", "interval": 2,
                                               "count": 10_000})])
    found = busy_of(home, {"ics": "busy.ics"})
    assert len(found.events) == 10_000 and found.unknown == ()


def test_the_bound_of_events_counts_occurrences_of_every_file_of_a_source(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same bound, made small so the test is fast: 10 occurrences in all, 11 not."""
    monkeypatch.setattr(busy, "MAX_EVENTS", 10)
    folder = write_vdir(home / "personal", [week_events()[2]])  # 1 occurrence
    write_ics(folder / "nine.ics", [event("nine@x", "Nine", _dt.datetime(2026, 10, 19, 9, 0),
                                          _dt.datetime(2026, 10, 19, 9, 30),
                                          rrule={"freq": "daily", "count": 9})])
    found = busy_of(home, {"vdir": "personal"})
    assert len(found.events) == 10 and found.unknown == ()
    write_ics(folder / "one.ics", [event("one@x", "One", _dt.datetime(2026, 11, 1, 9, 0),
                                         _dt.datetime(2026, 11, 1, 9, 30))])
    found = busy_of(home, {"vdir": "personal"}, {"ics": "personal/one.ics"})
    assert [item.title for item in found.events] == ["One"]
    warned(found, "personal", "more than 10 events from 2026-10-19 to 2026-11-08")


def test_a_rule_that_would_take_too_long_to_expand_is_unknown(home: Path) -> None:
    write_ics(home / "busy.ics", [event("tick@x", "Tick", _dt.datetime(2000, 1, 1, 0, 0),
                                        _dt.datetime(2000, 1, 1, 0, 0, 1),
                                        rrule={"freq": "secondly"})])
    started = time.perf_counter()
    found = busy_of(home, {"ics": "busy.ics"})
    assert time.perf_counter() - started < 1
    warned(found, "busy.ics", "repeats too often", "tick@x")


@pytest.mark.slow
def test_a_vdir_past_its_bound_of_events_is_unknown(home: Path) -> None:
    folder = write_vdir(home / "personal", [week_events()[2]])
    write_ics(folder / "often.ics", [event("often@x", "Often", _dt.datetime(2026, 10, 19, 0, 0),
                                           _dt.datetime(2026, 10, 19, 0, 1),
                                           rrule={"freq": "minutely", "interval": 2,
                                                  "count": 9_999})])
    write_ics(folder / "two.ics", [event("two@x", "Two", _dt.datetime(2026, 10, 30, 9, 0),
                                         _dt.datetime(2026, 10, 30, 10, 0),
                                         rrule={"freq": "daily", "count": 2})])
    found = busy_of(home, {"vdir": "personal"})
    assert found.events == ()
    warned(found, "personal", "more than 10,000 events")


def test_hidden_and_other_files_of_a_vdir_are_skipped(home: Path) -> None:
    folder = write_vdir(home / "personal", [week_events()[2]])
    (folder / ".tmp-garbage.ics").write_bytes(b"garbage")
    (folder / "readme.txt").write_bytes(b"garbage")
    os.mkfifo(folder / "pipe")
    found = busy_of(home, {"vdir": "personal"})
    assert [item.title for item in found.events] == ["Dentist"] and found.unknown == ()


def test_a_fifo_named_like_a_calendar_file_is_refused_without_waiting(home: Path) -> None:
    os.mkfifo(home / "pipe.ics")
    found = busy_of(home, {"ics": "pipe.ics"})
    warned(found, "pipe.ics", "not a regular file")


def test_labels_never_show_a_password_or_a_control_character(home: Path) -> None:
    assert busy.source_label({"caldav": "https://me:secret@dav.example/cal/"}) == \
        "https://dav.example/cal/"
    assert busy.source_label({"caldav": "https://dav.example/", "calendar": "Work"}) == \
        "https://dav.example/ (Work)"
    assert busy.source_label({"ics": "a\x1b[2Jb.ics"}) == "a\\x1b[2Jb.ics"


# --- a real CalDAV server --------------------------------------------------------------------


def fill(calendar_: caldav.Calendar) -> None:
    for group in week_events():
        calendar_.add_event(calendar_bytes(group).decode("utf-8"))


@pytest.mark.slow
def test_a_caldav_calendar_is_read_with_one_time_range_query(
        calendar: caldav.Calendar, proxy: Proxy) -> None:  # noqa: F811
    fill(calendar)
    proxy.requests.clear()
    found = read_busy([{"caldav": proxy.url, "calendar": calendar.get_display_name(),
                        "user": USER}], FIRST, LAST, home=Path("/"), zone=BERLIN,
                      caldav_password=lambda url, user: PASSWORD)
    assert found.unknown == found.warnings == ()
    assert list(found.events) == EXPECTED
    assert proxy.methods()["REPORT"] == 1
    assert proxy.methods()["PUT"] == proxy.methods()["DELETE"] == 0
    # The all-day events came from the server as busy, as from a file (the calendar standard).
    assert [event.title for event in found.events if event.all_day] == ["Holiday", "Trip"]


@pytest.mark.slow
def test_a_caldav_calendar_whose_all_day_events_are_free(
        calendar: caldav.Calendar, radicale: str) -> None:  # noqa: F811
    fill(calendar)
    found = read_busy([{"caldav": radicale, "calendar": calendar.get_display_name(),
                        "user": USER, "all_day": "free"}], FIRST, LAST, home=Path("/"),
                      zone=BERLIN, caldav_password=lambda url, user: PASSWORD)
    assert list(found.events) == [event for event in EXPECTED if not event.all_day]


@pytest.mark.slow
def test_a_caldav_server_that_refuses_or_lacks_the_calendar_is_unknown(
        home: Path, radicale: str, calendar: caldav.Calendar) -> None:  # noqa: F811
    fill(calendar)
    write_ics(home / "good.ics", week_events()[2])
    asked = []
    found = read_busy(
        [{"caldav": radicale, "calendar": calendar.get_display_name(), "user": USER},
         {"caldav": radicale, "calendar": "No such calendar", "user": USER},
         {"ics": "good.ics"}],
        FIRST, LAST, home=home, zone=BERLIN,
        caldav_password=lambda url, user: asked.append((url, user)) or (
            "wrong" if len(asked) == 1 else PASSWORD))
    assert [item.title for item in found.events] == ["Dentist"]
    assert asked == [(radicale, USER), (radicale, USER)]
    refused, missing = found.warnings
    assert "refused the login for user 'alice'" in refused and "wrong" not in refused
    assert "no calendar named 'No such calendar'" in missing
    # The fix is in config, not in sync's options.
    assert 'set "calendar" in busy_calendars to one of them' in missing
    assert "--create" not in missing and "--calendar" not in missing
    for line in found.warnings:
        assert line.endswith("its busy time is unknown") and radicale in line
    assert found.unknown == (f"{radicale} ({calendar.get_display_name()})",
                             f"{radicale} (No such calendar)")


@pytest.mark.slow
def test_a_caldav_server_that_is_not_there_is_unknown(home: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    found = read_busy([{"caldav": url}], FIRST, LAST, home=home, zone=BERLIN, timeout=2)
    warned(found, url, "cannot reach the CalDAV server")
