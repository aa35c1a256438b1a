"""README "A memory fitted to you": planner forecast: reviews and minutes per day from today's
memory (day 1 holds the
overdue notes), the person's median minutes, a bar chart at 80 columns in both languages, and
the retention simulation."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

import pytest
from conftest import run_planner, today
from rich.cells import cell_len

from planner.memory import log as review_log


def write_home(home: Path) -> dict[str, _dt.date]:
    """Six notes reviewed at different times; returns each one's local due date by fsrs."""
    import fsrs

    now = _dt.datetime.now(_dt.UTC).replace(microsecond=0)
    scheduler = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    plans = [  # (run, notes, days ago, rating, minutes)
        ("R1", ["N1", "N2"], 30, "good", 30), ("R2", ["N3"], 3, "again", 10),
        ("R3", ["N4", "N5"], 1, "good", 30), ("R4", ["N6"], 0, "easy", None)]
    events, due = [], {}
    for run, notes, ago, rating, minutes in plans:
        moment = now - _dt.timedelta(days=ago, hours=1)
        for note in notes:
            events.append(review_log.Review(f"{run}-{note}", note, run, moment, rating, minutes))
            card, _ = scheduler.review_card(fsrs.Card(card_id=len(due), due=moment),
                                            fsrs.Rating[rating.title()], moment)
            due[note] = card.due.astimezone().date()
    review_log.append(home, events)
    (home / "notes.json").write_text(json.dumps(
        [{"id": f"N{number}", "title": f"Note {number}", "text": "x"} for number in range(1, 8)]),
        encoding="utf-8")
    return due


def test_forecast_json_counts_each_day_from_todays_memory(home):
    due = write_home(home)
    done = run_planner("forecast", "--days", "7", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    first = today()
    expected = []
    for index in range(7):
        day = first + _dt.timedelta(days=index)
        count = sum(1 for date in due.values()
                    if (date <= first if index == 0 else date == day))
        # Minutes per review: 30/2, 30/2, 10, 30/2, 30/2 -> the median is 15.
        expected.append({"date": day.isoformat(), "reviews": count, "minutes": count * 15.0,
                         "planned_minutes": 0})
    assert shown == {"days": expected, "simulation": []}
    assert sum(row["reviews"] for row in shown["days"]) >= 2


def test_the_bar_chart_fits_80_columns_in_english_and_chinese(home):
    write_home(home)
    for language, word in (("en", "min"), ("zh", "分钟")):
        env = {**os.environ, "COLUMNS": "200", "LANGUAGE": language}
        done = run_planner("forecast", "--days", "14", env=env)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        bars = [line for line in lines if "█" in line]
        assert bars and all(cell_len(line) <= 80 for line in lines[1:]), lines
        assert all(word in line for line in lines[1:15])
        assert len(lines) == 15  # the heading and one line per day


@pytest.mark.slow
def test_the_retention_simulation_is_a_table_per_retention(home):
    write_home(home)
    done = run_planner("forecast", "--days", "30", "--retention", "0.8,0.95", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["simulation"]
    assert [row["retention"] for row in rows] == [0.8, 0.95]
    for row in rows:
        assert set(row) == {"retention", "reviews_per_day", "minutes_per_day", "memorised"}
        assert row["reviews_per_day"] > 0 and row["minutes_per_day"] > 0
    # A higher retention costs more reviews and keeps more in memory.
    assert rows[1]["reviews_per_day"] > rows[0]["reviews_per_day"]
    assert rows[1]["memorised"] > rows[0]["memorised"]
    table = run_planner("forecast", "--days", "30", "--retention", "0.8,0.9")
    assert "0.90 *" in table.stdout and "Reviews/day" in table.stdout


def test_a_retention_outside_the_range_is_one_line_exit_2(home):
    for value in ("0.5", "abc", "0.9,1.2"):
        done = run_planner("forecast", "--retention", value)
        assert done.returncode == 2
        assert len(done.stderr.strip().splitlines()) == 1 and "0.70 to 0.99" in done.stderr
