"""Calendars that stay in step (README "Calendars"): events, revisions, the feed file and the vdir
folder."""

from __future__ import annotations

import datetime as _dt
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
from calendar_plans import BERLIN, Khal, day, save
from conftest import today
from plan_files import write_raw as write

from planner.calendar import ics, vdir
from planner.plans import store

ZONE = ics.LocalZone(BERLIN, ZoneInfo(BERLIN))
NOW = _dt.datetime(2026, 12, 1, 12, tzinfo=_dt.UTC)
LATER = _dt.datetime(2026, 12, 2, 8, 30, tzinfo=_dt.UTC)
RUN = "20261130T100000000000Z-aaaaa"  # + a digit: run IDs saved one after another


def spec(n: int, offset: int = 3, minutes: int = 20, title: str | None = None,
         **changes) -> ics.EventSpec:
    """Plan n (saved n-th), `offset` days from today."""
    run_id = f"{RUN}{n}"
    event = ics.EventSpec(ics.event_uid(run_id), _dt.date.fromisoformat(day(offset)),
                          minutes, title or f"Plan {n}",
                          (("N1", "RAG 的基本流程"),), f"plans/{run_id}.json", False,
                          saved_order=run_id, created=ics.created_from_run_id(run_id))
    return event._replace(**changes)


def items(*events: ics.EventSpec, now: _dt.datetime = NOW) -> list[ics.Item]:
    return ics.event_items(events, "19:00", now=now, zone=ZONE)


def to_vdir(folder: Path, *events: ics.EventSpec, now: _dt.datetime = NOW) -> vdir.Counts:
    return vdir.write_vdir(folder, events, "19:00", zone=ZONE, now=now)


def feed(*events: ics.EventSpec, now: _dt.datetime = NOW, previous: bytes | None = None,
         name: str = ics.DEFAULT_NAME) -> bytes:
    return ics.calendar_ics(events, "19:00", name=name, now=now, zone=ZONE, previous=previous)


def parsed(data: bytes) -> dict[str, icalendar.Event]:
    return {str(event["UID"]): event for event in icalendar.Calendar.from_ical(data).events}


def files(folder: Path) -> dict[str, bytes]:
    """Every entry in a folder by name (dot names included: temporary files would show)."""
    return {path.name: path.read_bytes() if path.is_file() else b"<not a file>"
            for path in sorted(folder.iterdir())}


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """An empty folder to write into (tmp_path also holds the home folder)."""
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


# --- events ------------------------------------------------------------------------------------


def test_uids_for_plans_and_series_sessions() -> None:
    assert ics.event_uid("r1") == "r1@planner"
    assert ics.event_uid("r1", 2) == "r1-2@planner"
    for bad in (("../x",), ("r 1",), ("r1", 0), ("r1", True)):
        with pytest.raises(ValueError):
            ics.event_uid(*bad)
    with pytest.raises(ValueError, match="not a planner calendar UID"):
        items(spec(1, uid="x@elsewhere"))
    with pytest.raises(ValueError, match="appears twice"):
        items(spec(1), spec(2, uid=spec(1).uid))


def test_a_calendar_file_is_published_and_named() -> None:
    data = feed(spec(1))
    calendar = icalendar.Calendar.from_ical(data)
    assert calendar["METHOD"] == "PUBLISH"
    assert calendar["X-WR-CALNAME"] == calendar["NAME"] == "planner reviews"
    assert calendar["PRODID"] == ics.PRODID
    assert ics.calendar_identity(data) == (ics.PRODID, "planner reviews")
    named = icalendar.Calendar.from_ical(feed(spec(1), name="Révisions\x1b[2J"))
    assert named["X-WR-CALNAME"] == named["NAME"] == "Révisions\\x1b[2J"
    # A calendar object of its own (vdir, CalDAV) has no METHOD (RFC 4791 4.1) and no name.
    [item] = items(spec(1))
    assert b"METHOD" not in item.data and b"X-WR-CALNAME" not in item.data
    assert ics.is_planner_item(item.data) and ics.item_uid(item.data) == spec(1).uid


def test_a_new_event_has_sequence_0_and_last_modified_when_its_plan_was_saved() -> None:
    [event] = parsed(feed(spec(1))).values()
    assert event["SEQUENCE"] == 0
    assert event["LAST-MODIFIED"].dt == _dt.datetime(2026, 11, 30, 10, tzinfo=_dt.UTC)
    assert event["DTSTAMP"].dt == NOW
    # A run ID without a time in it: a fixed moment, never "now" (which would change each time).
    [event] = parsed(feed(spec(1, uid="r1@planner", created=None))).values()
    assert event["LAST-MODIFIED"].dt == _dt.datetime(2000, 1, 1, tzinfo=_dt.UTC)


def test_only_dtstamp_changes_between_exports_of_the_same_plans() -> None:
    first, second = feed(spec(1), spec(2)), feed(spec(1), spec(2), now=LATER)
    assert first != second
    assert ics.without_stamps(first) == ics.without_stamps(second)
    assert first.count(b"DTSTAMP:") == 2


def test_rows_from_list_plans_become_events(home: Path) -> None:
    save(home, f"{RUN}1", 2, minutes=35, title="RAG基础复习")
    save(home, "r-old", 3)
    write(home, "broken.json", b"{")
    rows = store.list_plans(home, False, False, today(BERLIN))
    events = ics.events_from_rows(rows)
    assert [event.uid for event in events] == [f"{RUN}1@planner", "r-old@planner"]
    first = events[0]
    assert (first.date, first.minutes, first.title, first.file) == (
        _dt.date.fromisoformat(day(2)), 35, "RAG基础复习", f"plans/{RUN}1.json")
    assert first.notes == (("N1", "RAG 的基本流程"), ("N2", "切分与向量检索"))
    assert first.created == _dt.datetime(2026, 11, 30, 10, tzinfo=_dt.UTC)
    assert (first.done, first.dropped, first.saved_order) == (False, False, f"{RUN}1")
    assert events[1].created is None


def test_same_day_plans_follow_one_another_in_the_order_they_were_saved() -> None:
    # Given out of order; the third was saved first; the fourth is dropped and takes no time.
    events = [spec(2, minutes=30), spec(3, minutes=45), spec(0, minutes=15),
              spec(1, dropped=True, minutes=60), spec(4, offset=4, minutes=50)]
    starts = {uid.removesuffix("@planner")[-1]: (event.start.date().isoformat(),
                                                 event.start.strftime("%H:%M"),
                                                 event.end.strftime("%H:%M"))
              for uid, event in parsed(feed(*events)).items()}
    assert starts == {"0": (day(3), "19:00", "19:15"), "1": (day(3), "19:15", "20:15"),
                      "2": (day(3), "19:15", "19:45"), "3": (day(3), "19:45", "20:30"),
                      "4": (day(4), "19:00", "19:50")}
    # Late plans run past midnight rather than overlap.
    late = parsed(ics.calendar_ics([spec(1, minutes=90), spec(2, minutes=30)], "22:45",
                                   now=NOW, zone=ZONE))
    assert late[spec(2).uid].start == _dt.datetime.combine(
        _dt.date.fromisoformat(day(4)), _dt.time(0, 15), ZoneInfo(BERLIN))


def test_done_and_dropped_events_stay_and_say_so() -> None:
    events = parsed(feed(spec(1), spec(2, done=True), spec(3, dropped=True)))
    live, done, dropped = (events[spec(n).uid] for n in (1, 2, 3))
    assert live["STATUS"] == "CONFIRMED" and [c.name for c in live.subcomponents] == ["VALARM"]
    assert str(done["DESCRIPTION"]).startswith("done\n\nNotes to review:\nN1  RAG 的基本流程")
    assert not str(live["DESCRIPTION"]).startswith("done")
    assert dropped["STATUS"] == "CANCELLED"
    # No reminder for a review that happened or will not happen.
    assert done.subcomponents == [] and dropped.subcomponents == []


# --- revisions ---------------------------------------------------------------------------------


def test_a_rewritten_feed_raises_sequence_only_for_changed_events() -> None:
    first = feed(spec(1), spec(2), spec(3))
    second = feed(spec(1, title="Renamed"), spec(2), spec(3, done=True), spec(4),
                  now=LATER, previous=first)
    events = parsed(second)
    assert [events[spec(n).uid]["SEQUENCE"] for n in (1, 2, 3, 4)] == [1, 0, 1, 0]
    saved = _dt.datetime(2026, 11, 30, 10, tzinfo=_dt.UTC)
    assert [events[spec(n).uid]["LAST-MODIFIED"].dt for n in (1, 2, 3, 4)] == [
        LATER, saved, LATER, saved]
    # Written again with nothing changed: every revision kept, only DTSTAMP moves on.
    third = feed(spec(1, title="Renamed"), spec(2), spec(3, done=True), spec(4),
                 now=LATER + _dt.timedelta(days=1), previous=second)
    assert ics.without_stamps(third) == ics.without_stamps(second)
    # Changed again: SEQUENCE goes on rising.
    fourth = feed(spec(1, title="Again"), spec(2), spec(3, done=True), spec(4),
                  now=LATER + _dt.timedelta(days=2), previous=third)
    assert parsed(fourth)[spec(1).uid]["SEQUENCE"] == 2


def test_last_modified_always_moves_forward() -> None:
    # A clock set back (or two changes in one second) still gives a later LAST-MODIFIED.
    [old] = items(spec(1))
    moved = ics.revise(old.data, None).data
    moved = ics.revise(items(spec(1, title="B"))[0].data, moved, LATER).data
    back = ics.revise(items(spec(1, title="C"))[0].data, moved, NOW)
    assert back.change == "updated"
    event = parsed(back.data)[spec(1).uid]
    assert event["SEQUENCE"] == 2 and event["LAST-MODIFIED"].dt == LATER + _dt.timedelta(
        seconds=1)


def test_a_copy_written_another_way_with_the_same_content_is_unchanged() -> None:
    # A CalDAV server stores what it parsed: other line ends, order and folding.
    [item] = items(spec(1, title="A long title " * 8))
    stamped = ics.revise(items(spec(1, title="x"))[0].data, item.data, LATER).data
    restated = ics.revise(item.data, stamped, LATER).data  # SEQUENCE 2 in its copy
    lines = restated.replace(b"\r\n ", b"").split(b"\r\n")
    begin = lines.index(b"BEGIN:VEVENT")
    body = lines[begin + 1:lines.index(b"BEGIN:VALARM")]
    server = b"\n".join(lines[:begin + 1] + list(reversed(body))
                        + lines[lines.index(b"BEGIN:VALARM"):])
    assert server != restated
    again = ics.revise(item.data, server, LATER + _dt.timedelta(days=3))
    assert again.change == "unchanged"
    assert parsed(again.data)[spec(1).uid]["SEQUENCE"] == 2
    changed = ics.revise(items(spec(1, minutes=25))[0].data, server, LATER)
    assert changed.change == "updated" and parsed(changed.data)[spec(1).uid]["SEQUENCE"] == 3


# --- the feed file -----------------------------------------------------------------------------


def test_feed_is_created_then_replaced_atomically(out: Path) -> None:
    path = out / "planner.ics"
    assert vdir.read_feed(path) is None
    first = feed(spec(1))
    assert vdir.write_feed(path, first) == "created"
    assert path.read_bytes() == first
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    before = path.stat()
    second = feed(spec(1), spec(2), now=LATER, previous=vdir.read_feed(path))
    assert vdir.write_feed(path, second) == "updated"
    assert path.read_bytes() == second
    # Replaced by a rename (a new inode), never rewritten in place where a reader could see half.
    assert path.stat().st_ino != before.st_ino
    assert files(out) == {"planner.ics": second}


def test_feed_with_only_a_new_time_stamp_is_left_alone(out: Path) -> None:
    path = out / "planner.ics"
    vdir.write_feed(path, feed(spec(1)))
    os.utime(path, (1_000_000_000, 1_000_000_000))
    assert vdir.write_feed(path, feed(spec(1), now=LATER, previous=path.read_bytes())) == \
        "unchanged"
    assert path.stat().st_mtime == 1_000_000_000


def test_feed_keeps_the_permissions_it_was_given(out: Path) -> None:
    path = out / "planner.ics"
    vdir.write_feed(path, feed(spec(1)))
    path.chmod(0o644)  # served to a phone, say
    vdir.write_feed(path, feed(spec(2)))
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.mark.parametrize("content", [
    b"BEGIN:VCALENDAR\r\nPRODID:-//Someone//Else//EN\r\nX-WR-CALNAME:planner reviews\r\n"
    b"VERSION:2.0\r\nEND:VCALENDAR\r\n",
    b"my own notes\n",
    b"",
])
def test_a_feed_planner_did_not_write_is_refused(out: Path, content: bytes) -> None:
    path = out / "theirs.ics"
    path.write_bytes(content)
    with pytest.raises(vdir.CalendarFileError) as caught:
        vdir.write_feed(path, feed(spec(1)))
    assert str(caught.value) == (f"{path} was not written by planner (its PRODID differs); "
                                 "it is left as it is: choose another file")
    assert files(out) == {"theirs.ics": content}


def test_a_feed_of_another_calendar_name_is_refused(out: Path) -> None:
    path = out / "work.ics"
    mine = feed(spec(1), name="work reviews")
    path.write_bytes(mine)
    with pytest.raises(vdir.CalendarFileError, match=r"its calendar name \(X-WR-CALNAME\)"):
        vdir.write_feed(path, feed(spec(1)))
    assert path.read_bytes() == mine


def test_a_feed_in_a_missing_folder_is_one_line(out: Path) -> None:
    path = out / "no" / "such" / "planner.ics"
    with pytest.raises(vdir.CalendarFileError) as caught:
        vdir.write_feed(path, feed(spec(1)))
    assert str(caught.value) == f"the folder of {path} does not exist; nothing was written"
    assert files(out) == {}


def test_a_feed_that_is_a_link_fifo_or_folder_is_refused(out: Path) -> None:
    victim = out / "victim.ics"
    victim.write_bytes(feed(spec(1)))
    (out / "link.ics").symlink_to(victim)
    os.mkfifo(out / "fifo.ics")
    (out / "folder.ics").mkdir()
    for name, what in (("link.ics", "is a symbolic link"), ("fifo.ics", "a FIFO"),
                       ("folder.ics", "a folder")):
        with pytest.raises(vdir.CalendarFileError, match=what):
            vdir.write_feed(out / name, feed(spec(2)))
        with pytest.raises(vdir.CalendarFileError, match=what):
            vdir.read_feed(out / name)
    assert victim.read_bytes() == feed(spec(1))
    assert sorted(files(out)) == ["fifo.ics", "folder.ics", "link.ics", "victim.ics"]


def test_a_feed_that_cannot_be_written_is_left_as_it_was(out: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = out / "planner.ics"
    first = feed(spec(1))
    vdir.write_feed(path, first)

    def full(fd: int, data) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(vdir.os, "write", full)
    with pytest.raises(vdir.CalendarFileError) as caught:
        vdir.write_feed(path, feed(spec(2)))
    assert str(caught.value) == f"could not write {path} (No space left on device); it is as it was"
    assert files(out) == {"planner.ics": first}


# --- the vdir folder ---------------------------------------------------------------------------


def test_vdir_counts_created_then_unchanged(out: Path) -> None:
    folder = out / "calendar"
    events = [spec(1), spec(2, done=True), spec(3, dropped=True)]
    assert to_vdir(folder, *events) == vdir.Counts(3, 0, 0)
    written = files(folder)
    assert sorted(written) == sorted(f"{event.uid}.ics" for event in events)
    for name, data in written.items():
        assert ics.item_uid(data) == name.removesuffix(".ics") and ics.is_planner_item(data)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert {stat.S_IMODE(path.stat().st_mode) for path in folder.iterdir()} == {0o600}
    mtimes = {path.name: path.stat().st_mtime_ns for path in folder.iterdir()}
    # Exported again later: every file as it was, not even touched.
    assert to_vdir(folder, *events, now=LATER) == vdir.Counts(0, 0, 3)
    assert files(folder) == written
    assert {path.name: path.stat().st_mtime_ns for path in folder.iterdir()} == mtimes


def test_vdir_rewrites_only_the_changed_event_with_a_higher_sequence(out: Path) -> None:
    folder = out / "calendar"
    # Different days: a longer plan would move the next one on its day (and change it too).
    three = [spec(1, offset=1), spec(2, offset=2), spec(3, offset=3)]
    longer = [three[0], spec(2, offset=2, minutes=45), three[2]]
    to_vdir(folder, *three)
    (folder / f"{spec(2).uid}.ics").chmod(0o640)  # the person's choice is kept
    before = files(folder)
    assert to_vdir(folder, *longer, now=LATER) == vdir.Counts(0, 1, 2)
    after = files(folder)
    name = f"{spec(2).uid}.ics"
    assert {changed for changed in after if after[changed] != before[changed]} == {name}
    old, new = parsed(before[name])[spec(2).uid], parsed(after[name])[spec(2).uid]
    assert (old["SEQUENCE"], new["SEQUENCE"]) == (0, 1)
    assert (old["LAST-MODIFIED"].dt, new["LAST-MODIFIED"].dt) == (
        _dt.datetime(2026, 11, 30, 10, tzinfo=_dt.UTC), LATER)
    assert new.duration == _dt.timedelta(minutes=45)
    assert stat.S_IMODE((folder / name).stat().st_mode) == 0o640
    # The next run finds it unchanged, at its new revision.
    assert to_vdir(folder, *longer) == vdir.Counts(0, 0, 3)
    assert files(folder) == after


def test_vdir_unchanged_events_are_not_even_written_again(out: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    folder = out / "calendar"
    to_vdir(folder, spec(1), spec(2, offset=4))
    rendered = []
    render = ics._render
    monkeypatch.setattr(ics, "_render", lambda *args: rendered.append(args) or render(*args))
    # The digest of what each event is made from matches: icalendar is not called at all.
    assert to_vdir(folder, spec(1), spec(2, offset=4), now=LATER) == vdir.Counts(0, 0, 2)
    assert rendered == []
    # An event whose digest is stale but whose content is the same stays unchanged.
    name = folder / f"{spec(1).uid}.ics"
    stale = name.read_bytes().replace(ics.source_of(name.read_bytes()).encode(), b"0" * 32)
    name.write_bytes(stale)
    assert to_vdir(folder, spec(1), spec(2, offset=4, title="New"), now=LATER) == \
        vdir.Counts(0, 1, 1)
    assert [args[0].spec.uid for args in rendered] == [spec(1).uid, spec(2).uid]
    assert name.read_bytes() == stale


def test_vdir_never_touches_files_planner_did_not_write(out: Path) -> None:
    folder = out / "calendar"
    folder.mkdir()
    birthday = (b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Someone//Else//EN\r\n"
                b"BEGIN:VEVENT\r\nUID:birthday@example.org\r\nDTSTAMP:20260101T000000Z\r\n"
                b"DTSTART;VALUE=DATE:20261224\r\nSUMMARY:Birthday\r\nEND:VEVENT\r\n"
                b"END:VCALENDAR\r\n")
    (folder / "birthday.ics").write_bytes(birthday)
    (folder / "notes.txt").write_bytes(b"mine")
    # A planner event edited in khal: khal's PRODID now, so it is the person's.
    [edited] = items(spec(2))
    theirs = edited.data.replace(ics.PRODID.encode(), b"-//PIMUTILS.ORG//NONSGML khal//EN")
    (folder / f"{spec(2).uid}.ics").write_bytes(theirs)
    (folder / f"{spec(3).uid}.ics").symlink_to(folder / "birthday.ics")
    before = files(folder)
    assert to_vdir(folder, spec(1), spec(2, title="New"), spec(3)) == \
        vdir.Counts(1, 0, 0, skipped=2)
    after = files(folder)
    assert {name: data for name, data in after.items() if name in before} == before
    assert set(after) - set(before) == {f"{spec(1).uid}.ics"}
    assert (folder / f"{spec(3).uid}.ics").is_symlink()


def test_vdir_folder_is_created_once_but_not_its_parents(out: Path) -> None:
    assert to_vdir(out / "new", spec(1)) == vdir.Counts(1, 0, 0)
    missing = out / "no" / "calendar"
    with pytest.raises(vdir.CalendarFileError) as caught:
        to_vdir(missing, spec(1))
    assert str(caught.value) == f"the folder of {missing} does not exist; nothing was written"
    assert not (out / "no").exists()


def test_vdir_that_is_a_file_is_one_line(out: Path) -> None:
    path = out / "calendar"
    path.write_bytes(b"not a folder")
    with pytest.raises(vdir.CalendarFileError) as caught:
        to_vdir(path, spec(1))
    assert str(caught.value) == f"{path} is not a folder (a file); nothing was written"
    assert files(out) == {"calendar": b"not a folder"}


_WRITE_AS_ANOTHER = """
import sys, datetime, zoneinfo
from planner.calendar import ics
from planner.calendar import vdir
zone = ics.LocalZone("Europe/Berlin", zoneinfo.ZoneInfo("Europe/Berlin"))
events = [ics.EventSpec(f"r{n}@planner", datetime.date(2027, 3, n), 20 + int(sys.argv[2]), "T",
                        (), "plans/r.json", False) for n in (1, 2)]
try:
    print(vdir.write_vdir(sys.argv[1], events, "19:00", zone=zone))
except vdir.CalendarFileError as error:
    print(error, file=sys.stderr)
    sys.exit(1)
"""


def _as_another_user(folder: Path, minutes: int) -> subprocess.CompletedProcess:
    """write_vdir run without root's power to write anywhere (the tests run as root)."""
    command = [sys.executable, "-c", _WRITE_AS_ANOTHER, str(folder), str(minutes)]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("setpriv is needed to drop root's capabilities")
        command = ["setpriv", "--inh-caps=-all", "--bounding-set=-all", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_vdir_in_a_read_only_folder_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "calendar"
    folder.mkdir()
    assert _as_another_user(folder, 0).returncode == 0
    before = files(folder)
    folder.chmod(0o555)
    try:
        done = _as_another_user(folder, 5)  # both events changed
        unchanged = _as_another_user(folder, 0)  # nothing to write: fine even read-only
    finally:
        folder.chmod(0o700)
    assert done.returncode == 1, done
    assert done.stderr == (f"could not write {folder}/r1@planner.ics (Permission denied); "
                           "nothing was written\n")
    assert files(folder) == before
    assert unchanged.returncode == 0 and unchanged.stdout.startswith(
        "Counts(created=0, updated=0, unchanged=2")


def test_vdir_failing_half_way_leaves_whole_files_and_no_temporary_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "calendar"
    replace = os.replace
    calls = []

    def second_fails(source, target) -> None:
        calls.append(target)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        replace(source, target)

    monkeypatch.setattr(vdir.os, "replace", second_fails)
    with pytest.raises(vdir.CalendarFileError) as caught:
        to_vdir(folder, spec(1), spec(2), spec(3))
    assert str(caught.value) == (f"could not write {folder}/{spec(2).uid}.ics (No space left on "
                                 "device); 1 event file(s) were written before")
    assert list(files(folder)) == [f"{spec(1).uid}.ics"]
    monkeypatch.setattr(vdir.os, "replace", replace)
    assert to_vdir(folder, spec(1), spec(2), spec(3)) == vdir.Counts(2, 0, 1)


def test_vdir_names_only_file_name_safe_uids() -> None:
    assert vdir.vdir_name("r1-2@planner") == "r1-2@planner.ics"
    for bad in ("../x@planner", ".hidden@planner", "a/b@planner", ""):
        with pytest.raises(ValueError):
            vdir.vdir_name(bad)


@pytest.mark.slow
def test_khal_reads_the_vdir_folder_directly(tmp_path: Path) -> None:
    agenda = Khal(tmp_path / "khal")
    events = [spec(1, minutes=30), spec(2, minutes=45), spec(3, offset=5), spec(4, offset=6,
                                                                                done=True)]
    assert to_vdir(agenda.calendar, *events) == vdir.Counts(4, 0, 0)

    def listed() -> dict[str, tuple]:
        found = agenda.events(day(-1), day(30))
        uids = [event["uid"] for event in found]
        assert len(uids) == len(set(uids)), uids  # each event once
        return {event["uid"]: (event["title"], event["start-date"], event["start-time"],
                               event["end-time"]) for event in found}

    assert listed() == {
        spec(1).uid: ("Plan 1", day(3), "19:00", "19:30"),
        spec(2).uid: ("Plan 2", day(3), "19:30", "20:15"),
        spec(3).uid: ("Plan 3", day(5), "19:00", "19:20"),
        spec(4).uid: ("Plan 4", day(6), "19:00", "19:20"),
    }
    assert to_vdir(agenda.calendar, *events, now=LATER) == vdir.Counts(0, 0, 4)
    events[0] = spec(1, minutes=30, title="Renamed")
    assert to_vdir(agenda.calendar, *events, now=LATER) == vdir.Counts(0, 1, 3)
    assert listed()[spec(1).uid][0] == "Renamed"
    assert agenda.files() == sorted(f"{event.uid}.ics" for event in events)
