"""planner export --ics: the file a real calendar program (khal) imports, and the CLI paths."""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import icalendar
import pytest
from calendar_plans import BERLIN, Khal, build_plans, check_in_khal, day, save
from conftest import PLANNER, env_with, run_planner, today
from plan_files import write_raw as write

from planner.calendar import ics
from planner.plans import store

# The same rules as Europe/Berlin written as a POSIX TZ string: a zone with no IANA name.
BERLIN_POSIX = "CET-1CEST,M3.5.0,M10.5.0/3"


@pytest.mark.slow
def test_khal_imports_every_upcoming_plan_at_its_date_time_and_duration(home: Path,
                                                                      tmp_path: Path) -> None:
    expected = build_plans(home)
    done = run_planner("export", "--ics", "--output", "plans.ics", cwd=home,
                       env=env_with(TZ=BERLIN), text=False, new_session=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b""
    assert done.stderr.decode().strip() == ("Exported 6 calendar event(s) from plans/ to "
                                            "plans.ics.")
    agenda = Khal(tmp_path / "khal")
    agenda.import_file(home / "plans.ics")
    check_in_khal(agenda, expected)
    events = {event["uid"]: event for event in agenda.events(day(-400), day(800))}
    described = events["20261130T100000000000Z-aaaaa1@planner"]["description"]
    assert "N1  RAG 的基本流程" in described and "N2  切分与向量检索" in described
    assert "N3" in events["20261001T000000000000Z-0b0b0b@planner"]["description"]


@pytest.mark.slow
def test_a_second_import_updates_and_never_duplicates(home: Path, tmp_path: Path) -> None:
    expected = build_plans(home)
    agenda = Khal(tmp_path / "khal")
    first = run_planner("export", "--ics", "-o", "first.ics", cwd=home, env=env_with(TZ=BERLIN),
                        text=False, new_session=False)
    assert first.returncode == 0, first.stderr
    agenda.import_file(home / "first.ics")
    agenda.import_file(home / "first.ics")
    check_in_khal(agenda, expected)
    # A later export (stdout this time) carries the same UIDs: importing it updates the events.
    second = run_planner("export", "--ics", cwd=home, env=env_with(TZ=BERLIN), text=False,
                         new_session=False)
    assert second.returncode == 0, second.stderr
    (home / "second.ics").write_bytes(second.stdout)
    agenda.import_file(home / "second.ics")
    check_in_khal(agenda, expected)


@pytest.mark.slow
def test_review_time_from_config(home: Path, tmp_path: Path) -> None:
    expected = build_plans(home)
    (home / "settings.json").write_text('{"review_time": "07:05"}')
    done = run_planner("export", "--ics", "--config", "settings.json", "-o", "early.ics",
                       cwd=home, env=env_with(TZ=BERLIN), text=False, new_session=False)
    assert done.returncode == 0, done.stderr
    agenda = Khal(tmp_path / "khal")
    agenda.import_file(home / "early.ics")
    check_in_khal(agenda, expected, start="07:05")


@pytest.mark.slow
def test_the_local_zone_is_named_with_its_vtimezone(home: Path, tmp_path: Path) -> None:
    build_plans(home)
    calendar = icalendar.Calendar.from_ical(run_planner(
        "export", "--ics", cwd=home, env=env_with(TZ=BERLIN), text=False, new_session=False
    ).stdout)
    assert [zone.tz_name for zone in calendar.timezones] == [BERLIN]
    assert calendar.get_missing_tzids() == set()
    for event in calendar.events:
        assert str(event.start.tzinfo) == BERLIN and (event.start.hour, event.start.minute) == (
            19, 0)
    # Seen from another zone the moment is right, summer time included: 19:00 in Berlin is
    # 13:00 in New York, except between Berlin's autumn change and New York's a week later.
    agenda = Khal(tmp_path / "khal", zone="America/New_York")
    (home / "a.ics").write_bytes(run_planner("export", "--ics", cwd=home, env=env_with(TZ=BERLIN),
                                             text=False, new_session=False).stdout)
    agenda.import_file(home / "a.ics")
    times = {event["title"]: event["start-time"]
             for event in agenda.events(day(-400), day(800))}
    assert times["Spring forward"] == "13:00"
    assert times["Fall back"] == "14:00"


@pytest.mark.slow
def test_a_zone_without_a_name_is_written_in_utc_with_its_own_rules(home: Path,
                                                                     tmp_path: Path) -> None:
    expected = build_plans(home)
    done = run_planner("export", "--ics", cwd=home, env=env_with(TZ=BERLIN_POSIX), text=False,
                       new_session=False)
    assert done.returncode == 0, done.stderr
    calendar = icalendar.Calendar.from_ical(done.stdout)
    assert calendar.timezones == []
    assert all(event.start.utcoffset() == _dt.timedelta(0) for event in calendar.events)
    assert b"DTSTART:" in done.stdout and b"Z\r\n" in done.stdout
    (home / "utc.ics").write_bytes(done.stdout)
    agenda = Khal(tmp_path / "khal")
    agenda.import_file(home / "utc.ics")
    check_in_khal(agenda, expected)


def test_all_exports_past_plans_too(home: Path, tmp_path: Path) -> None:
    expected = build_plans(home)
    done = run_planner("export", "--ics", "--all", cwd=home, env=env_with(TZ=BERLIN), text=False,
                       new_session=False)
    assert done.returncode == 0, done.stderr
    calendar = icalendar.Calendar.from_ical(done.stdout)
    assert len(calendar.events) == len(expected) + 1
    assert "Already past" in [str(event["SUMMARY"]) for event in calendar.events]


def test_events_carry_the_spec_fields(home: Path) -> None:
    save(home, "20261130T100000000000Z-abc123", 8, minutes=35, title="RAG基础复习",
         note_ids=("N2", "N1"))
    calendar = icalendar.Calendar.from_ical(run_planner(
        "export", "--ics", cwd=home, env=env_with(TZ=BERLIN), text=False, new_session=False
    ).stdout)
    assert calendar["VERSION"] == "2.0" and calendar["PRODID"] == ics.PRODID
    [event] = calendar.events
    assert event["UID"] == "20261130T100000000000Z-abc123@planner"
    assert event["SUMMARY"] == "RAG基础复习"
    assert event.duration == _dt.timedelta(minutes=35)
    assert event.start.date().isoformat() == day(8)
    assert event["DESCRIPTION"] == (
        "Notes to review:\nN2  切分与向量检索\nN1  RAG 的基本流程\n\n"
        "Saved by planner in plans/20261130T100000000000Z-abc123.json")
    [alarm] = event.subcomponents
    assert alarm.name == "VALARM" and alarm["ACTION"] == "DISPLAY"
    assert alarm["TRIGGER"].dt == _dt.timedelta(minutes=-10)


def test_control_characters_in_note_titles_never_reach_the_file(home: Path) -> None:
    write(home, "r1.json", {
        "version": 2, "simulated": False, "run_id": "r1", "created_at": "2026-11-30T10:00:00",
        "plan": {"title": "T", "note_ids": ["N1"], "date": day(2), "minutes": 5},
        "notes": [{"id": "N1", "title": "bad\x1b[2J\x00title\nline"}]})
    data = run_planner("export", "--ics", cwd=home, env=env_with(TZ=BERLIN), text=False,
                       new_session=False).stdout
    assert b"\x1b" not in data and b"\x00" not in data
    [event] = icalendar.Calendar.from_ical(data).events
    assert "N1  bad\\x1b[2J\\x00title\\x0aline" in event["DESCRIPTION"]


def test_export_is_the_same_apart_from_its_time_stamp(home: Path) -> None:
    build_plans(home)
    rows = store.list_plans(home, False, False, today(BERLIN))
    zone = ics.LocalZone(BERLIN, ZoneInfo(BERLIN))
    now = _dt.datetime(2026, 11, 30, 12, tzinfo=_dt.UTC)
    assert ics.calendar_ics(ics.events_from_rows(rows), "19:00", now=now, zone=zone) == \
        ics.calendar_ics(ics.events_from_rows(rows), "19:00", now=now, zone=zone)


# --- the command line -----------------------------------------------------------------------


def test_an_existing_output_file_is_refused_and_left_untouched(home: Path) -> None:
    save(home, "r1", 2)
    target = home / "mine.ics"
    target.write_bytes(b"my own calendar\n")
    os.utime(target, (1_000_000_000, 1_000_000_000))
    done = run_planner("export", "--ics", "--output", "mine.ics", cwd=home,
                       env=env_with(TZ=BERLIN), text=False, new_session=False)
    assert done.returncode == 2
    assert done.stderr.decode() == ("Error: mine.ics already exists; planner never overwrites "
                                    "a file: choose another name or remove it\n")
    assert target.read_bytes() == b"my own calendar\n"
    assert target.stat().st_mtime == 1_000_000_000
    assert done.stdout == b""


def test_an_output_link_is_refused_and_never_written_through(home: Path, tmp_path: Path) -> None:
    save(home, "r1", 2)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (home / "link.ics").symlink_to(victim)
    (home / "dangling.ics").symlink_to(tmp_path / "would-be-created.ics")
    for name in ("link.ics", "dangling.ics"):
        done = run_planner("export", "--ics", "--output", name, cwd=home, env=env_with(TZ=BERLIN),
                           text=False, new_session=False)
        assert done.returncode == 2 and b"already exists" in done.stderr
    assert victim.read_text() == "keep me"
    assert not (tmp_path / "would-be-created.ics").exists()


def test_output_is_created_private_and_complete(home: Path) -> None:
    save(home, "r1", 2)
    done = run_planner("export", "--ics", "--output", "new.ics", cwd=home,
                       env=env_with(TZ=BERLIN), text=False, new_session=False)
    assert done.returncode == 0
    assert (home / "new.ics").stat().st_mode & 0o777 == 0o600
    assert icalendar.Calendar.from_ical((home / "new.ics").read_bytes()).events[0]["UID"] == \
        "r1@planner"


def test_output_in_a_missing_folder_is_one_line_exit_1(home: Path) -> None:
    save(home, "r1", 2)
    done = run_planner("export", "--ics", "--output", "no/such/folder.ics", cwd=home,
                       env=env_with(TZ=BERLIN), text=False, new_session=False)
    assert done.returncode == 1
    assert done.stderr.decode() == ("Error: could not create no/such/folder.ics (No such file or "
                                    "directory); nothing was written\n")


def test_export_without_a_format_is_a_usage_error(home: Path) -> None:
    save(home, "r1", 2)
    done = run_planner("export", "--output", "x.ics", cwd=home, env=env_with(TZ=BERLIN),
                       text=False, new_session=False)
    assert done.returncode == 2
    assert done.stderr.decode() == "Error: choose the format: --ics (iCalendar)\n"
    assert not (home / "x.ics").exists()


def test_nothing_to_export_writes_nothing(home: Path) -> None:
    save(home, "r-past", -1)
    done = run_planner("export", "--ics", "--output", "x.ics", cwd=home, env=env_with(TZ=BERLIN),
                       text=False, new_session=False)
    assert done.returncode == 0
    assert done.stderr.decode() == ("No upcoming plans in plans/ to export (--all exports past "
                                    "ones too); nothing was written.\n")
    assert not (home / "x.ics").exists() and done.stdout == b""


def test_problem_files_are_skipped_with_one_line_each(home: Path, tmp_path: Path) -> None:
    save(home, "r1", 2)
    write(home, "broken.json", b"{")
    os.mkfifo(home / "plans" / "fifo.json")
    done = run_planner("export", "--ics", cwd=home, env=env_with(TZ=BERLIN), text=False,
                       new_session=False)
    assert done.returncode == 0
    assert done.stderr.decode().splitlines() == [
        "Skipped plans/broken.json: is not valid JSON (Expecting property name enclosed in "
        "double quotes: column 2)",
        "Skipped plans/fifo.json: is not a regular file (a FIFO)",
    ]
    assert len(icalendar.Calendar.from_ical(done.stdout).events) == 1


def test_demo_exports_demo_plans(home: Path) -> None:
    save(home, "live1", 2)
    save(home, "demo1", 2, folder="demo-plans", simulated=True)
    [event] = icalendar.Calendar.from_ical(run_planner(
        "export", "--ics", "--demo", cwd=home, env=env_with(TZ=BERLIN), text=False,
        new_session=False).stdout).events
    assert event["UID"] == "demo1@planner"
    assert "(a simulated demo plan)" in event["DESCRIPTION"]


def test_a_bad_review_time_in_config_is_a_usage_error(home: Path) -> None:
    save(home, "r1", 2)
    (home / "settings.json").write_text('{"review_time": "25:00"}')
    done = run_planner("export", "--ics", "--config", "settings.json", cwd=home,
                       env=env_with(TZ=BERLIN), text=False, new_session=False)
    assert done.returncode == 2 and b"review_time" in done.stderr
    assert done.stdout == b"" and b"Traceback" not in done.stderr


def test_a_closed_stdout_is_one_line_exit_1(home: Path) -> None:
    save(home, "r1", 2)
    process = subprocess.Popen([PLANNER, "export", "--ics"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=home)
    process.stdout.close()  # the reader is gone before planner writes
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert err.decode() == "Error: could not write the calendar to stdout (Broken pipe)\n"


def test_export_help_has_an_example(home: Path) -> None:
    done = run_planner("export", "--help", cwd=home, env=env_with(TZ=BERLIN), text=False,
                       new_session=False)
    assert done.returncode == 0
    assert b"Example: planner export --ics --output plans.ics" in done.stdout


def test_plans_command_never_imports_icalendar(home: Path) -> None:
    save(home, "r1", 2)
    probe = ("import sys; from planner.cli.app import main; sys.argv = ['planner', 'plans', "
             "'--json']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
             "print('icalendar' in sys.modules, file=sys.stderr)")
    done = run_planner(command=[sys.executable, "-c", probe], cwd=home, stdin=None,
                       new_session=False)
    assert done.stderr.strip() == "False"


@pytest.mark.parametrize(("text", "ok"), [("19:00", True), ("00:00", True), ("23:59", True),
                                          ("24:00", False), ("7:00", False), ("19:60", False),
                                          ("19:00 ", False), ("１９:００", False)])
def test_parse_clock(text: str, ok: bool) -> None:
    if ok:
        assert ics.parse_clock(text).strftime("%H:%M") == text
    else:
        with pytest.raises(ValueError, match="review_time"):
            ics.parse_clock(text)


@pytest.mark.parametrize(("tz", "name"), [
    ("Asia/Shanghai", "Asia/Shanghai"), (":Europe/Berlin", "Europe/Berlin"), ("UTC", "UTC"),
    ("", "UTC"), ("Etc/UTC", "UTC"), (BERLIN_POSIX, None), ("CST-8", None),
    ("/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"), ("Not/AZone", None), ("../etc", None),
])
def test_local_zone_names(monkeypatch, tz: str, name: str | None) -> None:
    monkeypatch.setenv("TZ", tz)
    if name not in (None, "UTC") and not Path("/usr/share/zoneinfo", name).exists():
        pytest.skip("no zoneinfo file for this zone on this machine")
    assert ics.local_zone().name == name
