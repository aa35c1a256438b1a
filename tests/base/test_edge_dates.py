"""Dates at the edges of the calendar: year 1 and year 9999, wherever planner reads one.

A review dated late in 9999 (a hand edit, a wrong clock, a sync conflict) makes FSRS compute a due
date past 9999-12-31: it is shown as `after 9999-12-31` (the same text in --json), never a
traceback. A time or date at the very edge (before 0001-01-02 or after 9999-12-30) may not exist
in another time zone: a log line holding one is skipped with its one warning, a plan file is a
problem row, an `sr-due` date is ignored as a typo is, `done --date` refuses it. Every case runs
the installed `planner`, in the time zone where the edge used to crash it; the read-only commands
leave the home exactly as it was.

A review more than a day after now does not count (README "A memory fitted to you"), so the late
reviews are read by a planner whose clock is at the end of the calendar (tests/clock_driver.py:
libfaketime cannot take CPython past 2262); on the real clock the same log is skipped as from
the future.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import subprocess
from pathlib import Path

import fsrs
import pytest
from clock_driver import clock_at
from conftest import env_with, run_planner, snapshot, today
from plan_files import plan, review_plan
from plan_files import write_plan as save
from review_log import OTHER, RUN, log_lines

from planner.calendar import ics
from planner.memory.log import future_warning
from planner.memory.review_memory import ReviewMemory
from planner.plans.plan import InvalidArguments, parse_arguments

LATE = "9999-12-30T10:00:00Z"  # FSRS's next due date after it passes 9999-12-31
# The clock of the planner that reads them: an hour after the latest review it can use.
END = _dt.datetime(9999, 12, 30, 21, 0, tzinfo=_dt.UTC)
AFTER = "after 9999-12-31"
EARLY = "0001-01-01T00:00:00Z"  # year 0 in any zone west of UTC
NEW_YORK, TOKYO = "America/New_York", "Asia/Tokyo"
# A zone with no IANA name: exported events are converted to UTC with its rules.
WEST_12 = "<-12>12"
EDGE = "at the edge of the calendar: planner reads times from 0001-01-02 to 9999-12-30"
DATES = "is at the edge of the calendar; planner uses dates from 0001-01-02 to 9999-12-30"


def review_line(review_id: str, note_id: str, at: str, rating: str = "good") -> str:
    return (f'{{"version":1,"kind":"review","review_id":"{review_id}","note_id":"{note_id}",'
            f'"run_id":null,"reviewed_at":"{at}","rating":"{rating}","minutes":null}}\n')


def write_log(home: Path, *lines: str) -> None:
    (home / "reviews.jsonl").write_text("".join(lines), encoding="utf-8")


def checked(done: subprocess.CompletedProcess, code: int = 0) -> subprocess.CompletedProcess:
    """The exit code `code`, and never a traceback."""
    assert done.returncode == code, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def read_only(home: Path, *args: str, tz: str = "UTC",
              now: _dt.datetime | None = None) -> subprocess.CompletedProcess:
    """A command that must leave the home as it was."""
    before = snapshot(home)
    done = checked(run_planner(*args, **clock_at(now, TZ=tz)) if now is not None
                   else run_planner(*args, env=env_with(TZ=tz)))
    assert snapshot(home) == before
    return done


def skipped(number: int, value: str) -> str:
    return (f'Warning: reviews.jsonl line {number} cannot be read (reviewed_at is "{value}", '
            f"{EDGE}); skipped")


def words(text: str) -> str:
    return " ".join(text.split())


def days_from_today(day: _dt.date, zone: str) -> str:
    return f"in {(day - today(zone)).days:,} days"


# --- a review late in 9999: its next due date passes the calendar's end ----------------------


def test_due_says_after_9999_12_31_and_its_json_stays_valid(home: Path) -> None:
    write_log(home, review_line("r1", "N1", LATE))
    assert read_only(home, "due", now=END).stdout == (
        f"Nothing is due by today; the next review is due {AFTER}.\n")
    done = read_only(home, "due", "--days", "1", "--json", now=END)
    assert json.loads(done.stdout) == [] and done.stderr == ""
    # Ten years ahead of a clock at the calendar's end: the horizon stops at its last day.
    done = read_only(home, "due", "--days", "3650", "--json", now=END)
    assert json.loads(done.stdout) == [] and done.stderr == ""


def test_a_due_time_whose_local_date_passes_9999_is_after_9999_12_31_there(home: Path) -> None:
    # FSRS puts it at 9999-12-31T20:00Z: still that day in UTC, already year 10000 in Tokyo.
    write_log(home, review_line("r1", "N1", "9999-12-30T20:00:00Z", "again"))
    assert read_only(home, "due", now=END).stdout == (
        "Nothing is due by today; the next review is due 9999-12-31 Fri, tomorrow.\n")
    assert read_only(home, "due", tz=TOKYO, now=END).stdout == (
        f"Nothing is due by today; the next review is due {AFTER}.\n")


def test_the_dry_run_counts_nothing_due_today(home: Path) -> None:
    write_log(home, review_line("r1", "N1", LATE))
    request = json.loads(read_only(home, "--dry-run", now=END).stdout)
    system = request["messages"][0]["content"]
    assert "0 notes are due for review today" in system
    assert "due_notes" in [tool["function"]["name"] for tool in request["tools"]]


def next_due_text(reviewed_at: str) -> str:
    """What `done` shows for a new card rated good at `reviewed_at` (UTC): fsrs's own answer,
    or `after 9999-12-31` where fsrs cannot compute a date past the end."""
    scheduler = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    try:
        card, _ = scheduler.review_card(fsrs.Card(card_id=1), fsrs.Rating.Good,
                                        _dt.datetime.fromisoformat(reviewed_at))
        return card.due.astimezone(_dt.UTC).date().isoformat()
    except OverflowError:
        return AFTER


def test_done_shows_a_next_due_date_after_9999_12_31(home: Path) -> None:
    write_log(home, review_line("r1", "N1", LATE))
    last = END.date().isoformat()
    save(home, RUN, review_plan("RAG基础复习", ("N1", "N2"), last, 20))
    save(home, OTHER, review_plan("RAG基础复习", ("N1",), last, 20))
    done = checked(run_planner("done", RUN, **clock_at(END, TZ="UTC")))
    assert done.stderr == ""
    n2 = next(line for line in log_lines(home) if line["note_id"] == "N2")
    assert n2["reviewed_at"].startswith(last)
    # A new note rated good on 9999-12-30 falls due in year 10000 too: fsrs itself overflows.
    assert next_due_text(n2["reviewed_at"]) == AFTER
    screen = words(done.stdout)
    assert f"N1 RAG 的基本流程 next due {AFTER}" in screen
    assert f"N2 切分与向量检索 next due {AFTER}" in screen
    assert len(log_lines(home)) == 3
    [row] = json.loads(
        checked(run_planner("done", OTHER, "--json", **clock_at(END, TZ="UTC"))).stdout)
    # In --json the date past the end is this text: valid JSON, and it sorts after any date.
    assert row["note_id"] == "N1" and row["next_due"] == AFTER > "9999-12-31"


def test_reviews_lists_a_late_review_and_skips_one_it_cannot_show(home: Path) -> None:
    # 9999-12-31T20:00Z is year 10000 in Tokyo: that line is skipped, the one before it is not.
    write_log(home, review_line("r1", "N1", LATE), review_line("r2", "N2", "9999-12-31T20:00:00Z"))
    done = read_only(home, "reviews", tz=TOKYO, now=END)
    assert done.stderr.splitlines() == [skipped(2, "9999-12-31T20:00:00Z")]
    assert "9999-12-30 19:00 N1 RAG 的基本流程 good - - r1" in words(done.stdout)
    rows = json.loads(read_only(home, "reviews", "--json", tz=TOKYO, now=END).stdout)
    assert [(row["review_id"], row["reviewed_at"]) for row in rows] == [("r1", LATE)]


def test_on_todays_clock_the_late_reviews_are_from_the_future(home: Path) -> None:
    # The same log on the real clock: both reviews are skipped with the one line that counts
    # them, and nothing is due or scheduled.
    write_log(home, review_line("r1", "N1", LATE),
              review_line("r2", "N2", "9999-12-30T20:00:00Z", "again"))
    warning = [f"Warning: {future_warning(2)}"]
    done = read_only(home, "due")
    assert done.stderr.splitlines() == warning and AFTER not in done.stdout
    assert done.stdout.startswith("Nothing is due by today, and no note has a due date yet")
    done = read_only(home, "due", "--json")
    assert json.loads(done.stdout) == [] and done.stderr.splitlines() == warning
    done = read_only(home, "reviews", "--json", tz=TOKYO)
    assert json.loads(done.stdout) == [] and done.stderr.splitlines() == warning
    done = read_only(home, "--dry-run")
    assert done.stderr.splitlines()[0] == warning[0]
    # The model is told what it would be told with no log at all.
    (home / "reviews.jsonl").unlink()
    assert json.loads(done.stdout) == json.loads(read_only(home, "--dry-run").stdout)


# --- a review in year 1: skipped with one warning, every other line still counts ------------------


def test_a_review_in_year_1_is_skipped_by_reviews_and_due_west_of_utc(home: Path) -> None:
    yesterday = (today(NEW_YORK) - _dt.timedelta(days=1)).isoformat() + "T12:00:00Z"
    write_log(home, review_line("r1", "N1", EARLY), review_line("r2", "N2", yesterday))
    warning = [skipped(1, EARLY)]
    done = read_only(home, "reviews", tz=NEW_YORK)
    assert done.stderr.splitlines() == warning
    assert "r2" in done.stdout and "r1" not in done.stdout
    done = read_only(home, "reviews", "--json", tz=NEW_YORK)
    assert done.stderr.splitlines() == warning
    assert [row["review_id"] for row in json.loads(done.stdout)] == ["r2"]
    done = read_only(home, "due", "--days", "30", tz=NEW_YORK)
    assert done.stderr.splitlines() == warning
    assert "N2" in done.stdout and "N1" not in done.stdout
    done = read_only(home, "due", "--days", "30", "--json", tz=NEW_YORK)
    assert done.stderr.splitlines() == warning
    assert [row["id"] for row in json.loads(done.stdout)] == ["N2"]


def test_done_refuses_a_date_in_year_1_and_records_nothing(home: Path) -> None:
    save(home, RUN, plan(-1))
    before = snapshot(home)
    done = checked(run_planner("done", RUN, "--date", "0001-01-01", env=env_with(TZ="UTC")), 2)
    assert done.stderr == ("Error: --date 0001-01-01 is at the very start of the calendar, before "
                           "any review the log can hold; record a later date\n")
    assert snapshot(home) == before


# --- plan files dated 0001-01-01 or 9999-12-31 --------------------------------------------------


def edge_plans(home: Path) -> None:
    """Plans on the calendar's first and last days (skipped), and a day inside each (kept)."""
    for run_id, date in (("20261130T100000000000Z-aaaaaa", "9999-12-31"),
                         ("20261130T100000000000Z-bbbbbb", "0001-01-01"),
                         ("20261130T100000000000Z-cccccc", "9999-12-30"),
                         ("20261130T100000000000Z-dddddd", "0001-01-02")):
        save(home, run_id, review_plan("复习", ("N1",), date, 20))


def problems() -> list[str]:
    return [f"plans/20261130T100000000000Z-aaaaaa.json: plan.date: 9999-12-31 {DATES}",
            f"plans/20261130T100000000000Z-bbbbbb.json: plan.date: 0001-01-01 {DATES}"]


def test_plans_lists_a_plan_on_the_first_or_last_day_as_one_it_cannot_use(home: Path) -> None:
    edge_plans(home)
    done = read_only(home, "plans", "--all", tz=WEST_12)
    lines = [line for line in done.stdout.splitlines() if line.startswith("Cannot use")]
    assert lines == [f"Cannot use {problem}" for problem in problems()]
    assert "9999-12-30 Thu" in done.stdout and "0001-01-02 Tue" in done.stdout
    rows = json.loads(read_only(home, "plans", "--all", "--json", tz=WEST_12).stdout)
    assert [(row["date"], row["problem"]) for row in rows] == [
        ("9999-12-30", None), ("0001-01-02", None),
        (None, problems()[0].split(": ", 1)[1]), (None, problems()[1].split(": ", 1)[1])]


def test_export_skips_them_with_one_line_each_and_writes_the_others(home: Path) -> None:
    edge_plans(home)
    done = read_only(home, "export", "--ics", "--all", tz=WEST_12)
    assert done.stderr.splitlines() == [f"Skipped {problem}" for problem in problems()]
    starts = [line for line in done.stdout.splitlines() if line.startswith("DTSTART")]
    assert starts == ["DTSTART:99991231T070000Z", "DTSTART:00010103T070000Z"]


def test_an_event_pushed_past_the_calendars_end_is_one_line(home: Path) -> None:
    # Sixteen two-hour plans on 9999-12-30 from 19:00: the last ones would start in year 10000.
    for number in range(16):
        save(home, f"20261130T1000000000{number:02d}Z-eeeeee",
             review_plan("复习", ("N1",), "9999-12-30", 120))
    before = snapshot(home)
    done = checked(run_planner("export", "--ics", env=env_with(TZ="UTC")), 2)
    assert done.stderr == (
        "Error: plans/20261130T100000000015Z-eeeeee.json: its event on 9999-12-30 would start "
        "too near the end of the calendar (9999-12-31), after the plans before it that day\n")
    assert snapshot(home) == before


def test_a_model_proposing_the_first_or_last_day_is_told_the_range() -> None:
    for date in ("9999-12-31", "0001-01-01"):
        with pytest.raises(InvalidArguments) as refused:
            parse_arguments(json.dumps({"title": "T", "note_ids": ["N1"], "date": date,
                                        "minutes": 20}), {"N1"})
        assert str(refused.value) == f"date: {date} {DATES}"


def test_a_calendar_copy_stamped_in_the_last_second_is_updated_without_overflow() -> None:
    spec = ics.EventSpec(ics.event_uid("20261130T100000000000Z-aaaaaa", None),
                         _dt.date(2026, 12, 1), 20,
                         "复习", (("N1", "RAG"),), "plans/x.json", False)
    zone = ics.LocalZone("UTC", _dt.UTC)
    new = ics.event_items([spec], "19:00", zone=zone)[0].data
    earlier = ics.event_items([spec._replace(title="旧的")], "19:00", zone=zone)[0].data
    earlier = re.sub(rb"LAST-MODIFIED:[0-9TZ]+", b"LAST-MODIFIED:99991231T235959Z", earlier)
    now = _dt.datetime(2026, 12, 1, 8, 0, tzinfo=_dt.UTC)
    revision = ics.revise(new, earlier, now=now)
    # No second follows it: the new copy is stamped now, as a copy with no stamp would be.
    assert revision.change == "updated" and b"LAST-MODIFIED:20261201T080000Z" in revision.data


# --- sr-due: a date at the edge is ignored, as a typo is ------------------------------------------


def vault(home: Path, **dates: str) -> None:
    """Notes with these sr-due dates, indexed: `due` then only reads."""
    folder = home / "notes"
    folder.mkdir()
    for name, date in dates.items():
        path = folder / f"{name}.md"
        path.write_text(f"---\nsr-due: {date}\n---\n# {name}\n", encoding="utf-8")
        # An hour old: a file changed this very second is indexed again on the next run.
        os.utime(path, (path.stat().st_mtime - 3600,) * 2)
    checked(run_planner("notes", env=env_with(TZ="UTC")))


def test_sr_due_in_year_1_is_ignored_east_of_utc(home: Path) -> None:
    vault(home, early="0001-01-01", inside="9999-12-30")
    last = _dt.date(9999, 12, 30)
    assert read_only(home, "due", tz=TOKYO).stdout == (
        f"Nothing is due by today; the next review is due 9999-12-30 Thu, "
        f"{days_from_today(last, TOKYO)}.\n")
    assert json.loads(read_only(home, "due", "--json", tz=TOKYO).stdout) == []


def test_sr_due_on_the_last_day_is_ignored(home: Path) -> None:
    vault(home, late="9999-12-31")
    done = read_only(home, "due", tz=NEW_YORK)
    assert done.stdout == ("Nothing is due by today, and no note has a due date yet: planner "
                           "done records a review.\n") and done.stderr == ""


def test_sr_due_at_the_edge_in_an_index_made_before_is_ignored(home: Path) -> None:
    class OldIndex:
        def sr_due(self) -> dict[str, str]:
            return {"a": "0001-01-01", "b": "9999-12-31", "c": "2026-05-01"}

    memory = ReviewMemory(home, OldIndex())  # type: ignore[arg-type]
    assert memory.sr_due() == {"c": _dt.date(2026, 5, 1)}
