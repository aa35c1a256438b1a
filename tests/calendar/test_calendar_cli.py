"""Calendars that stay in step, through the real command line (README "Calendars"): `export --feed`,
`export --vdir` (read by khal) and `sync --caldav` (against a real Radicale server).

Every case runs the installed `planner` as a subprocess and checks its exit code, its one line,
and what is (and is not) on disk or on the server afterwards. khal and Radicale cases are slow.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import caldav
import icalendar
import pytest
from calendar_plans import BERLIN, KHAL, Khal, build_plans, check_in_khal, day, save
from conftest import ROOT, env_with, run_planner, snapshot
from radicale_server import PASSWORD, USER

from planner.memory import log as reviews

RUN = "20261201T090000000000Z-cal00"  # + a digit: plans saved one after another
CLI_TIMEOUT = 120


def plans(home: Path, count: int = 2) -> list[str]:
    """`count` upcoming plans (2, 3, ... days ahead); their run IDs."""
    ids = [f"{RUN}{n}" for n in range(1, count + 1)]
    for n, run_id in enumerate(ids, 1):
        save(home, run_id, n + 1, minutes=20 + n, title=f"Plan {n}")
    return ids


def events_of(data: bytes) -> dict[str, icalendar.Event]:
    return {str(event["UID"]): event for event in icalendar.Calendar.from_ical(data).events}


def one_error(result: subprocess.CompletedProcess) -> str:
    """The single stderr line of a refused command (and nothing on stdout)."""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    return lines[0]


def temp_files(folder: Path) -> list[str]:
    return [path.name for path in folder.iterdir() if path.name.endswith(".tmp")]


# --- export --feed FILE ----------------------------------------------------------------------


def test_the_feed_is_created_then_left_then_updated_in_place(home: Path) -> None:
    first, second = plans(home)
    made = run_planner("export", "--ics", "--feed", "reviews.ics", cwd=home,
                       env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert made.returncode == 0, made.stderr
    assert made.stdout == "Feed reviews.ics: created (2 events from plans/).\n"
    data = (home / "reviews.ics").read_bytes()
    calendar = icalendar.Calendar.from_ical(data)
    assert (str(calendar["METHOD"]), str(calendar["X-WR-CALNAME"]), str(calendar["NAME"])) == (
        "PUBLISH", "planner reviews", "planner reviews")
    assert sorted(events_of(data)) == [f"{first}@planner", f"{second}@planner"]
    # Nothing changed: the file is left exactly as it was (a subscriber sees no change).
    again = run_planner("export", "--ics", "--feed", "reviews.ics", cwd=home,
                        env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert again.returncode == 0, again.stderr
    assert again.stdout == "Feed reviews.ics: unchanged (2 events from plans/).\n"
    assert (home / "reviews.ics").read_bytes() == data
    # A dropped plan: its event is cancelled, its SEQUENCE raised; the other is as it was.
    reviews.record_drop(home, second)
    changed = run_planner("export", "--ics", "--feed", "reviews.ics", cwd=home,
                          env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert changed.returncode == 0, changed.stderr
    assert changed.stdout == "Feed reviews.ics: updated (2 events from plans/).\n"
    before, after = events_of(data), events_of((home / "reviews.ics").read_bytes())
    assert str(after[f"{second}@planner"]["STATUS"]) == "CANCELLED"
    assert (after[f"{second}@planner"]["SEQUENCE"], after[f"{first}@planner"]["SEQUENCE"]) == (
        1, 0)
    assert after[f"{first}@planner"].to_ical() == before[f"{first}@planner"].to_ical()
    assert temp_files(home) == []


def test_the_feed_carries_past_plans_and_done_marks(home: Path) -> None:
    save(home, f"{RUN}1", -3, title="Last week")
    save(home, f"{RUN}2", 4, title="Next week")
    reviews.record_reviews(home, ["N1", "N2"], "good", run_id=f"{RUN}1")
    made = run_planner("export", "--ics", "--feed", "reviews.ics", cwd=home,
                       env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert made.returncode == 0, made.stderr
    events = events_of((home / "reviews.ics").read_bytes())
    assert sorted(str(event["SUMMARY"]) for event in events.values()) == ["Last week",
                                                                          "Next week"]
    assert str(events[f"{RUN}1@planner"]["DESCRIPTION"]).startswith("done\n")
    assert not str(events[f"{RUN}2@planner"]["DESCRIPTION"]).startswith("done")


def test_a_file_planner_did_not_write_is_refused_and_left_as_it_is(home: Path) -> None:
    plans(home)
    theirs = (b"BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Someone//Else//EN\r\n"
              b"X-WR-CALNAME:Work\r\nEND:VCALENDAR\r\n")
    (home / "work.ics").write_bytes(theirs)
    before = snapshot(home)
    refused = run_planner("export", "--ics", "--feed", "work.ics", cwd=home,
                          env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert refused.returncode == 1
    assert "work.ics was not written by planner" in one_error(refused)
    assert snapshot(home) == before


def test_a_feed_in_a_missing_folder_is_one_line_and_nothing_is_written(home: Path) -> None:
    plans(home)
    before = snapshot(home)
    failed = run_planner("export", "--ics", "--feed", "nowhere/reviews.ics", cwd=home,
                         env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert failed.returncode == 1
    assert one_error(failed) == ("Error: the folder of nowhere/reviews.ics does not exist; "
                                 "nothing was written")
    assert snapshot(home) == before


def test_the_calendar_name_comes_from_config(home: Path) -> None:
    plans(home)
    (home / "config.json").write_text(json.dumps({"calendar_name": "Révisions"}),
                                      encoding="utf-8")
    assert run_planner("export", "--feed", "reviews.ics", cwd=home, env=env_with(TZ=BERLIN),
                       timeout=CLI_TIMEOUT).returncode == 0
    calendar = icalendar.Calendar.from_ical((home / "reviews.ics").read_bytes())
    assert (str(calendar["X-WR-CALNAME"]), str(calendar["NAME"])) == ("Révisions", "Révisions")
    assert run_planner("export", "--vdir", "cal", cwd=home, env=env_with(TZ=BERLIN),
                       timeout=CLI_TIMEOUT).returncode == 0
    assert (home / "cal" / "displayname").read_text(encoding="utf-8") == "Révisions"
    # --output and stdout carry the name too.
    printed = run_planner("export", "--ics", cwd=home, env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert "X-WR-CALNAME:Révisions" in printed.stdout


@pytest.mark.parametrize("value", ["", "two\nlines", "x" * 101, 7])
def test_a_bad_calendar_name_is_a_config_error(home: Path, value: object) -> None:
    plans(home)
    (home / "config.json").write_text(json.dumps({"calendar_name": value}))
    before = snapshot(home)
    refused = run_planner("export", "--feed", "reviews.ics", cwd=home, env=env_with(TZ=BERLIN),
                          timeout=CLI_TIMEOUT)
    assert refused.returncode == 2
    assert "calendar_name" in one_error(refused)
    assert snapshot(home) == before


@pytest.mark.parametrize("args", [
    ["--ics", "--output", "a.ics", "--feed", "b.ics"],
    ["--ics", "--feed", "b.ics", "--vdir", "cal"],
    ["--output", "a.ics"],
])
def test_one_target_and_a_format(home: Path, args: list[str]) -> None:
    plans(home)
    before = snapshot(home)
    refused = run_planner("export", *args, cwd=home, env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert refused.returncode == 2
    assert one_error(refused) in ("Error: choose one of --output, --feed and --vdir",
                                  "Error: choose the format: --ics (iCalendar)")
    assert snapshot(home) == before


def test_output_still_never_overwrites(home: Path) -> None:
    plans(home)
    assert run_planner("export", "--ics", "--output", "once.ics", cwd=home,
                       env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT).returncode == 0
    data = (home / "once.ics").read_bytes()
    again = run_planner("export", "--ics", "--output", "once.ics", cwd=home,
                        env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert again.returncode == 2 and "already exists" in one_error(again)
    assert (home / "once.ics").read_bytes() == data


# --- export --vdir DIR -----------------------------------------------------------------------


def test_the_vdir_writes_only_what_changed_and_never_touches_other_files(home: Path) -> None:
    first, second, third = plans(home, 3)
    folder = home / "cal"
    folder.mkdir()
    (folder / "theirs.ics").write_bytes(b"someone else's event")
    made = run_planner("export", "--vdir", "cal", cwd=home, env=env_with(TZ=BERLIN),
                       timeout=CLI_TIMEOUT)
    assert made.returncode == 0, made.stderr
    assert made.stdout == ("Vdir cal: 3 created, 0 updated, 0 unchanged "
                           "(3 events from plans/).\n")
    written = {path.name: path.read_bytes() for path in folder.iterdir()}
    assert sorted(written) == sorted([*(f"{run}@planner.ics" for run in (first, second, third)),
                                      "theirs.ics", "displayname"])
    assert written["displayname"] == b"planner reviews"
    stamps = {path.name: path.stat().st_mtime_ns for path in folder.iterdir()}
    again = run_planner("export", "--vdir", "cal", cwd=home, env=env_with(TZ=BERLIN),
                        timeout=CLI_TIMEOUT)
    assert again.stdout == ("Vdir cal: 0 created, 0 updated, 3 unchanged "
                            "(3 events from plans/).\n")
    assert {path.name: path.stat().st_mtime_ns for path in folder.iterdir()} == stamps
    reviews.record_drop(home, third)
    changed = run_planner("export", "--vdir", "cal", cwd=home, env=env_with(TZ=BERLIN),
                          timeout=CLI_TIMEOUT)
    assert changed.stdout == ("Vdir cal: 0 created, 1 updated, 2 unchanged "
                              "(3 events from plans/).\n")
    now = {path.name: path.read_bytes() for path in folder.iterdir()}
    assert [name for name in now if now[name] != written[name]] == [f"{third}@planner.ics"]
    assert b"STATUS:CANCELLED" in now[f"{third}@planner.ics"]
    assert temp_files(folder) == []


def test_a_file_at_an_events_name_that_planner_did_not_write_is_left_alone(home: Path) -> None:
    first, second = plans(home)
    folder = home / "cal"
    folder.mkdir()
    edited = folder / f"{first}@planner.ics"
    edited.write_bytes(b"BEGIN:VCALENDAR\r\nPRODID:-//khal//EN\r\nEND:VCALENDAR\r\n")
    made = run_planner("export", "--vdir", "cal", cwd=home, env=env_with(TZ=BERLIN),
                       timeout=CLI_TIMEOUT)
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("Vdir cal: 1 created, 0 updated, 0 unchanged")
    assert made.stderr == ("Left alone: 1 file(s) in cal at an event's name that planner did "
                           "not write.\n")
    assert edited.read_bytes() == b"BEGIN:VCALENDAR\r\nPRODID:-//khal//EN\r\nEND:VCALENDAR\r\n"


def test_a_vdir_that_is_a_file_is_one_line_and_nothing_changes(home: Path) -> None:
    plans(home)
    (home / "cal").write_text("not a folder")
    before = snapshot(home)
    failed = run_planner("export", "--vdir", "cal", cwd=home, env=env_with(TZ=BERLIN),
                         timeout=CLI_TIMEOUT)
    assert failed.returncode == 1
    assert one_error(failed) == "Error: cal is not a folder (a file); nothing was written"
    assert snapshot(home) == before


def test_a_name_already_in_the_vdir_is_kept(home: Path) -> None:
    plans(home)
    (home / "cal").mkdir()
    (home / "cal" / "displayname").write_text("Synced from the server")
    assert run_planner("export", "--vdir", "cal", cwd=home, env=env_with(TZ=BERLIN),
                       timeout=CLI_TIMEOUT).returncode == 0
    assert (home / "cal" / "displayname").read_text() == "Synced from the server"


@pytest.mark.slow
def test_khal_reads_the_vdir_folder_as_a_calendar(home: Path, tmp_path: Path) -> None:
    expected = build_plans(home)
    # --vdir carries every plan, the past one too.
    expected["20261130T100000000000Z-past01"] = (day(-2), 20, "Already past")
    agenda = Khal(tmp_path / "khal")
    done = run_planner("export", "--vdir", str(agenda.calendar), cwd=home,
                       env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(": 7 created, 0 updated, 0 unchanged (7 events from plans/).\n")
    check_in_khal(agenda, expected)
    # Exported again after a change: still one event per plan in khal, never a copy.
    save(home, "20261130T100000000000Z-aaaaa6", 2, minutes=15, title="One more")
    expected["20261130T100000000000Z-aaaaa6"] = (day(2), 15, "One more")
    again = run_planner("export", "--vdir", str(agenda.calendar), cwd=home,
                        env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert again.stdout.endswith(": 1 created, 0 updated, 7 unchanged (8 events from plans/).\n")
    check_in_khal(agenda, expected)


@pytest.mark.slow
def test_khal_names_the_vdir_and_sees_dropped_plans_cancelled(home: Path, tmp_path: Path) -> None:
    first, second = plans(home)
    root = tmp_path / "khal"
    (root / "calendars").mkdir(parents=True)
    config = root / "khal.conf"
    # khal finds the folder itself (type discover) and names it by its displayname file.
    config.write_text(
        f"[calendars]\n[[found]]\npath = {root / 'calendars'}/*\ntype = discover\n"
        f"[sqlite]\npath = {root / 'khal.db'}\n"
        f"[locale]\nlocal_timezone = {BERLIN}\ndefault_timezone = {BERLIN}\n"
        "timeformat = %H:%M\ndateformat = %Y-%m-%d\nlongdateformat = %Y-%m-%d\n"
        "datetimeformat = %Y-%m-%d %H:%M\nlongdatetimeformat = %Y-%m-%d %H:%M\n",
        encoding="utf-8")
    env = {**os.environ, "HOME": str(root), "XDG_CONFIG_HOME": str(root / "config"),
           "XDG_DATA_HOME": str(root / "data"), "XDG_CACHE_HOME": str(root / "cache")}

    def khal(*args: str) -> str:
        done = subprocess.run([KHAL, "-c", str(config), *args], capture_output=True, text=True,
                              timeout=120, env=env, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def listed() -> dict[str, dict]:
        out = khal("list", "--once", "--json", "title", "--json", "calendar", "--json", "status",
                   day(-1), day(30))
        return {event["title"]: event for line in out.splitlines() if line.strip()
                for event in json.loads(line)}

    folder = root / "calendars" / "reviews"
    assert run_planner("export", "--vdir", str(folder), cwd=home, env=env_with(TZ=BERLIN),
                       timeout=CLI_TIMEOUT).returncode == 0
    assert khal("printcalendars").split("\n")[0] == "planner reviews"
    assert {title: (event["calendar"], event["status"]) for title, event in listed().items()} \
        == {"Plan 1": ("planner reviews", "CONFIRMED"), "Plan 2": ("planner reviews", "CONFIRMED")}
    reviews.record_drop(home, second)
    assert run_planner("export", "--vdir", str(folder), cwd=home, env=env_with(TZ=BERLIN),
                       timeout=CLI_TIMEOUT).returncode == 0
    assert {title: event["status"] for title, event in listed().items()} == {
        "Plan 1": "CONFIRMED", "Plan 2": "CANCELLED"}


# --- sync --caldav URL: the fast refusals -------------------------------------------------------


def without_caldav(home: Path, *args: str) -> subprocess.CompletedProcess:
    """planner as if the caldav extra were not installed (the module cannot be found)."""
    code = ("import sys; sys.modules['caldav'] = None; sys.argv[0] = 'planner'; "
            "from planner.cli.app import main; main()")
    return run_planner(*args, command=(sys.executable, "-c", code), cwd=home,
                       env={**os.environ, "TZ": BERLIN}, timeout=CLI_TIMEOUT)


def test_sync_without_the_caldav_extra_says_how_to_install_it(home: Path) -> None:
    plans(home)
    before = snapshot(home)
    refused = without_caldav(home, "sync", "--caldav", "http://127.0.0.1:9/", "--user", "alice")
    assert refused.returncode == 2
    # README "中文界面": the install command for the Python that runs planner, not a bare pip.
    assert one_error(refused) == ("Error: planner sync needs the caldav library: "
                                  f"{shlex.quote(sys.executable)} -m pip install "
                                  "'planner[caldav]'")
    assert snapshot(home) == before


@pytest.mark.parametrize(("args", "line"), [
    ([], "Error: choose where to sync: --caldav URL"),
    (["--caldav", "dav.example.com"],
     "Error: --caldav takes the calendar's http:// or https:// URL"),
])
def test_sync_needs_a_caldav_url(home: Path, args: list[str], line: str) -> None:
    plans(home)
    refused = run_planner("sync", *args, cwd=home, env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert refused.returncode == 2 and one_error(refused) == line


def test_no_password_and_no_terminal_is_one_line_before_any_request(home: Path) -> None:
    plans(home)
    before = snapshot(home)
    # Port 9 (discard): nothing listens, and nothing is asked of it: the password comes first.
    refused = run_planner("sync", "--caldav", "http://127.0.0.1:9/dav/", "--user", "alice",
                          cwd=home, timeout=CLI_TIMEOUT,
                          env=env_with(TZ=BERLIN,
                                       PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring"))
    assert refused.returncode == 2
    assert one_error(refused) == (
        "Error: no CalDAV password for alice: set PLANNER_CALDAV_PASSWORD, store one with "
        "`planner key set caldav:alice@127.0.0.1:9`, or run in a terminal to type it at a "
        "hidden prompt")
    assert snapshot(home) == before


def test_sync_with_no_plans_sends_nothing(home: Path) -> None:
    done = run_planner("sync", "--caldav", "http://127.0.0.1:9/", "--user", "alice", cwd=home,
                       env=env_with(TZ=BERLIN), timeout=CLI_TIMEOUT)
    assert done.returncode == 0
    assert done.stderr == "No plans in plans/ to sync; nothing was sent.\n"


@pytest.mark.parametrize("args", [["--help"], ["export", "--help"], ["sync", "--help"],
                                  ["key", "--help"], ["plans"]])
def test_the_calendar_and_keyring_libraries_load_only_when_used(home: Path,
                                                               args: list[str]) -> None:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "planner", *args],
                          capture_output=True, text=True, cwd=home, timeout=CLI_TIMEOUT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    loaded = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
              if line.startswith("import time:")}
    assert "planner.cli.app" in loaded  # the check sees planner's own imports
    assert not {"caldav", "icalendar", "keyring", "planner.calendar.ics", "planner.calendar.vdir",
                "planner.calendar.caldav_sync"} & loaded


# --- sync --caldav URL against a real Radicale server ---------------------------------------------


def new_calendar(url: str, name: str | None = None) -> caldav.Calendar:
    client = caldav.DAVClient(url=url, username=USER, password=PASSWORD, enable_rfc6764=False)
    return client.principal().make_calendar(name=name or f"reviews {os.urandom(4).hex()}")


def on_server(calendar: caldav.Calendar) -> dict[str, bytes]:
    """Every event of the calendar by UID, as the server stores it."""
    found = {}
    for resource in calendar.search(event=True):
        data = resource.data.encode() if isinstance(resource.data, str) else resource.data
        found[str(icalendar.Calendar.from_ical(data).events[0]["UID"])] = data
    return found


def sync(home: Path, url: str, *args: str, password: str | None = PASSWORD,
         **env: str) -> subprocess.CompletedProcess:
    extra = {} if password is None else {"PLANNER_CALDAV_PASSWORD": password}
    return run_planner("sync", "--caldav", url, "--user", USER, *args, cwd=home,
                       env=env_with(TZ=BERLIN, **extra, **env), timeout=CLI_TIMEOUT)


@pytest.mark.slow
def test_sync_puts_every_plan_by_uid_and_a_second_run_changes_nothing(
        home: Path, radicale: str) -> None:  # noqa: F811 - the fixture
    calendar = new_calendar(radicale)
    foreign = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Someone//Else//EN\r\nBEGIN:VEVENT\r\n"
               "UID:dentist@example.com\r\nDTSTAMP:20260101T000000Z\r\n"
               "DTSTART:20270105T090000Z\r\nDURATION:PT1H\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\n"
               "END:VCALENDAR\r\n")
    calendar.add_event(foreign)
    first, second = plans(home)
    save(home, f"{RUN}9", -5, title="Past plan")
    before = snapshot(home)
    done = sync(home, str(calendar.url))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "CalDAV: 3 created, 0 updated, 0 unchanged (3 events from plans/).\n"
    stored = on_server(calendar)
    assert sorted(stored) == sorted(["dentist@example.com", f"{first}@planner",
                                     f"{second}@planner", f"{RUN}9@planner"])
    assert str(events_of(stored[f"{first}@planner"])[f"{first}@planner"]["SUMMARY"]) == "Plan 1"
    again = sync(home, str(calendar.url))
    assert again.stdout == "CalDAV: 0 created, 0 updated, 3 unchanged (3 events from plans/).\n"
    assert on_server(calendar) == stored
    # Nothing local changed, and the password is nowhere.
    assert snapshot(home) == before
    assert PASSWORD not in done.stdout + done.stderr + again.stdout + again.stderr
    # A drop reaches the server as a cancelled event; the dentist stays as it was.
    reviews.record_drop(home, second)
    changed = sync(home, str(calendar.url))
    assert changed.stdout == "CalDAV: 0 created, 1 updated, 2 unchanged (3 events from plans/).\n"
    now = on_server(calendar)
    event = events_of(now[f"{second}@planner"])[f"{second}@planner"]
    assert (str(event["STATUS"]), event["SEQUENCE"]) == ("CANCELLED", 1)
    assert now["dentist@example.com"] == stored["dentist@example.com"]


@pytest.mark.slow
def test_sync_finds_the_calendar_by_name_or_by_calendar_name(home: Path,
                                                            radicale: str) -> None:  # noqa: F811
    named = new_calendar(radicale)
    (first,) = plans(home, 1)
    by_option = sync(home, radicale, "--calendar", str(named.get_display_name()))
    assert by_option.returncode == 0, by_option.stderr
    assert list(on_server(named)) == [f"{first}@planner"]
    # The server's URL and no --calendar: the calendar named calendar_name in config.
    default = new_calendar(radicale, f"planner reviews {os.urandom(3).hex()}")
    (home / "config.json").write_text(json.dumps(
        {"calendar_name": str(default.get_display_name())}))
    by_config = sync(home, radicale)
    assert by_config.returncode == 0, by_config.stderr
    assert by_config.stdout.startswith("CalDAV: 1 created,")
    assert list(on_server(default)) == [f"{first}@planner"]


@pytest.mark.slow
def test_sync_failures_are_one_line_and_change_nothing(home: Path, radicale: str) -> None:  # noqa: F811
    calendar = new_calendar(radicale)
    plans(home)
    before = snapshot(home)
    wrong = sync(home, str(calendar.url), password="not-the-password")
    assert wrong.returncode == 1
    assert one_error(wrong) == (f"Error: the CalDAV server at {calendar.url} refused the login "
                                f"for user '{USER}'")
    missing = sync(home, radicale, "--calendar", "no such calendar")
    assert missing.returncode == 1
    assert one_error(missing).startswith(f"Error: no calendar named 'no such calendar' at "
                                         f"{radicale} (its calendars: ")
    closed = sync(home, "http://127.0.0.1:9/dav/")
    assert closed.returncode == 1
    assert one_error(closed) == ("Error: cannot reach the CalDAV server at http://127.0.0.1:9/dav/ "
                                 "(Connection refused); nothing was changed there")
    assert on_server(calendar) == {}
    assert snapshot(home) == before
    for result in (wrong, missing, closed):
        assert PASSWORD not in result.stdout + result.stderr


@pytest.mark.slow
def test_sync_takes_the_password_from_the_keyring(home: Path, tmp_path: Path,
                                                  radicale: str) -> None:  # noqa: F811
    calendar = new_calendar(radicale)
    (first,) = plans(home, 1)
    port = radicale.rstrip("/").rsplit(":", 1)[1]
    store = tmp_path / "keyring.json"
    store.write_text(json.dumps({f"planner\ncaldav:{USER}@127.0.0.1:{port}": PASSWORD}))
    env = {"PYTHON_KEYRING_BACKEND": "keyring_backends.FileKeyring",
           "PLANNER_TEST_KEYRING": str(store), "PYTHONPATH": str(ROOT / "tests")}
    done = sync(home, str(calendar.url), password=None, **env)
    assert done.returncode == 0, done.stderr
    assert list(on_server(calendar)) == [f"{first}@planner"]
    assert PASSWORD not in done.stdout + done.stderr
    # The variable comes first: a wrong one is used (and refused), the keyring not asked.
    wrong = sync(home, str(calendar.url), password="from-the-variable", **env)
    assert wrong.returncode == 1 and "refused the login" in one_error(wrong)


# --- the README's Calendars lines, run as written --------------------------------------------


def readme_lines(section: str) -> list[list[str]]:
    """The command lines of the text block in the README section `section`, as words."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```text\n(.*?)```", body, re.S)
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


@pytest.mark.slow
def test_the_readme_calendar_lines_run(home: Path, tmp_path: Path,
                                       radicale: str) -> None:  # noqa: F811
    lines = readme_lines("Calendars")
    assert [words[:2] for words in lines] == [["planner", "export"]] * 2 + [["planner", "sync"]]
    user_home = tmp_path / "user"
    (user_home / "public").mkdir(parents=True)
    (user_home / ".calendars").mkdir()
    calendar = new_calendar(radicale)
    first, second = plans(home)
    outputs = []
    for words in lines:
        # What the shell would do with ~; the example server is the test's Radicale.
        args = [str(user_home) + word[1:] if word.startswith("~/") else word
                for word in words[1:]]
        args = [str(calendar.url) if arg.startswith("https://dav.example.com/") else arg
                for arg in args]
        if args[-2:] == ["--user", "alice"]:
            args[-1] = USER
        done = run_planner(*args, cwd=home, timeout=CLI_TIMEOUT,
                           env=env_with(TZ=BERLIN, PLANNER_CALDAV_PASSWORD=PASSWORD))
        assert done.returncode == 0, (words, done.stderr)
        outputs.append(done.stdout)
    assert outputs[0].endswith(": created (2 events from plans/).\n")
    assert outputs[1].endswith(": 2 created, 0 updated, 0 unchanged (2 events from plans/).\n")
    assert outputs[2] == "CalDAV: 2 created, 0 updated, 0 unchanged (2 events from plans/).\n"
    uids = [f"{first}@planner", f"{second}@planner"]
    assert sorted(events_of((user_home / "public" / "reviews.ics").read_bytes())) == uids
    assert sorted(path.name for path in (user_home / ".calendars" / "reviews").iterdir()) == [
        *(f"{uid}.ics" for uid in uids), "displayname"]
    assert sorted(on_server(calendar)) == uids
