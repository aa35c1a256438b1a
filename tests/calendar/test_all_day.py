"""All-day events follow the calendar standard (README "Calendars"): a trip made with a real
`khal new START END Trip` blocks its days for free_slots and `planner move`, `week` shows it as a
line (its title on the screen, never in what the model is sent), `where` counts it; a calendar
may say `"all_day": "free"`; any other value is a config error in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from calendar_plans import Khal
from conftest import run_planner, today
from plan_files import session, study_plan, write_plan
from study_week import day

from planner.base.config import load_config
from planner.cli.run import timetable_for
from planner.conversation.lookups import SlotArguments, run_slots

pytestmark = pytest.mark.slow

RUN = "20261130T100000000000Z-aaaaaa"


def configure(home: Path, calendar: Path, **source: str) -> None:
    (home / "config.json").write_text(json.dumps({
        "study_hours": {"daily": ["19:00-22:00"]},
        "busy_calendars": [{"vdir": str(calendar), **source}]}), encoding="utf-8")


@pytest.fixture
def trip(home: Path, tmp_path: Path) -> Path:
    """khal's own calendar folder holding a trip from Wednesday to Friday (all-day, as khal
    writes it: DTSTART;VALUE=DATE, no TRANSP), and a plan with a session on Monday."""
    agenda = Khal(tmp_path / "khal")
    agenda.run("new", "-a", "planner", day(2), day(4), "Trip")
    (written,) = agenda.calendar.glob("*.ics")
    text = written.read_text(encoding="utf-8")
    assert f"DTSTART;VALUE=DATE:{day(2).replace('-', '')}" in text and "TRANSP" not in text
    write_plan(home, RUN, study_plan(session(day(0), 30, ("N1",), "19:00")))
    return agenda.calendar


def slots(home: Path) -> dict[str, list]:
    config = load_config(home / "config.json")
    found = run_slots(timetable_for(config, home, "live", today()),
                      SlotArguments(day(0), 7, 30))
    assert "Trip" not in json.dumps(found)  # free/busy only, never a title
    return {entry["date"]: entry["slots"] for entry in found["days"]}


def test_a_khal_trip_blocks_its_days_everywhere(home: Path, trip: Path) -> None:
    configure(home, trip)
    free = slots(home)
    assert [free[day(offset)] for offset in (2, 3, 4)] == [[], [], []]
    assert free[day(1)] and free[day(5)]
    refused = run_planner("move", f"{RUN}#1", "--date", day(3))
    assert refused.returncode == 2
    assert refused.stderr == (f"Error: plans/{RUN}.json (session 1) cannot move there: overlaps "
                              f"busy time {day(2)} 00:00–{day(5)} 00:00 on {day(3)}; nothing "
                              "was changed\n")
    assert not (home / "reviews.jsonl").exists()
    week = run_planner("week", "--json", "--start", day(0))
    assert week.returncode == 0, week.stderr
    days = {entry["date"]: entry["busy"] for entry in json.loads(week.stdout)["days"]}
    assert days[day(3)] == [{"start": "00:00", "end": "24:00", "title": "Trip", "all_day": True}]
    assert days[day(1)] == [] and days[day(5)] == []
    screen = run_planner("week", "--start", day(0))
    assert screen.returncode == 0, screen.stderr
    assert screen.stdout.count("■Trip") == 3 and "■00:00-24:00" not in screen.stdout
    assert "an all-day event, busy all that day" in " ".join(screen.stdout.split())
    where = run_planner("where", "--json")
    (source,) = json.loads(where.stdout)["busy_calendars"]
    assert (source["all_day"], source["all_day_events"]) == ("busy", 1)
    said = " ".join(run_planner("where").stdout.split())
    assert "1 all-day event(s) in the next 60 days count as busy" in said


def test_a_calendar_whose_all_day_events_are_free(home: Path, trip: Path) -> None:
    configure(home, trip, all_day="free")
    free = slots(home)
    assert all(free[day(offset)] for offset in (2, 3, 4))
    moved = run_planner("move", f"{RUN}#1", "--date", day(3))
    assert moved.returncode == 0, moved.stderr
    week = json.loads(run_planner("week", "--json", "--start", day(0)).stdout)
    assert all(entry["busy"] == [] for entry in week["days"])
    (source,) = json.loads(run_planner("where", "--json").stdout)["busy_calendars"]
    assert source["all_day"] == "free"
    assert "its all-day events are free (all_day: free)" in " ".join(
        run_planner("where").stdout.split())


@pytest.mark.parametrize("value", ["maybe", "Free", True, None])
def test_any_other_all_day_value_is_a_config_error(home: Path, trip: Path, value: object) -> None:
    (home / "config.json").write_text(json.dumps(
        {"busy_calendars": [{"vdir": str(trip), "all_day": value}]}), encoding="utf-8")
    done = run_planner("week")
    assert done.returncode == 2
    assert done.stderr == ("Error: config.json: key 'busy_calendars[1].all_day' must be "
                           "\"free\" or \"busy\"\n")
