"""README "Your week": Anki's daily load, from a collection.anki2 made by Anki's own code (the
`anki` wheel, a test dependency only) with review cards due on chosen days (Anki's own
set_due_date) and a review log of answer times. Its minutes are in week, forecast --json, due,
free_slots' minutes_left and the program's checks; the collection is never written (its bytes,
its mtime, and no file beside it); every bad file is one warning, no load, exit 0."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import run_planner, today
from plan_files import day, review_plan, session

from planner.base.config import load_config
from planner.memory import anki_load

# Anki's own code takes a second to start: one worker builds the collection once. Its
# scheduler (Rust) dates the cards it sets due by the real clock, which the moved test clock
# (make test-clock) does not move: its days and planner's would differ by one.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("anki"),
              pytest.mark.not_under_faketime("Anki dates its cards by the real clock")]

SECONDS = 30  # the median answer time of the review log below
# Days from today -> review cards due that day (0 also holds the overdue ones, below).
DUE = {0: 5, 2: 17, 4: 40}
OVERDUE = 2
SUSPENDED, NEW = 5, 10


def minutes(cards: int) -> int:
    return -(-cards * SECONDS // 60)


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A collection Anki made and closed: cards due today, in 2 and in 4 days, two overdue,
    suspended and new ones, and answers of 20, 30 and 40 s (with a 10-minute outlier and one
    dated in the future)."""
    from anki.collection import Collection

    folder = tmp_path_factory.mktemp("anki-load") / "User 1"
    folder.mkdir()
    path = folder / "collection.anki2"
    col = Collection(str(path))
    # Anki's day begins at midnight here, so its days are the calendar's at any hour the test
    # runs (the rollover hour itself is tested on its own below).
    col.set_config("rollover", 0)
    model = col.models.by_name("Basic")
    deck = col.decks.id("Default")
    total = sum(DUE.values()) + OVERDUE + SUSPENDED + NEW
    for number in range(total):
        note = col.new_note(model)
        note["Front"], note["Back"] = f"question {number}", "answer"
        col.add_note(note, deck)
    cards = sorted(col.find_cards(""))
    taken = 0
    for days, count in DUE.items():
        col.sched.set_due_date(cards[taken:taken + count], str(days))
        taken += count
    overdue = cards[taken:taken + OVERDUE]
    col.sched.set_due_date(overdue, "0")
    col.db.execute(f"UPDATE cards SET due = due - 3 WHERE id IN ({','.join(map(str, overdue))})")
    taken += OVERDUE
    suspended = cards[taken:taken + SUSPENDED]
    col.sched.set_due_date(suspended, "2")
    col.sched.suspend_cards(suspended)
    now = int(_dt.datetime.now(_dt.UTC).timestamp() * 1000)
    answers = [20_000, 30_000, 40_000] * 20 + [600_000]
    for number, milliseconds in enumerate(answers):
        col.db.execute("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
                       " VALUES (?, ?, -1, 3, 1, 1, 2500, ?, 1)", now - 86_400_000 + number,
                       cards[0], milliseconds)
    # Dated two days ahead (a wrong clock): not counted.
    col.db.execute("INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
                   " VALUES (?, ?, -1, 3, 1, 1, 2500, 900000, 1)", now + 2 * 86_400_000,
                   cards[0])
    col.close()
    return path


def state(path: Path) -> tuple:
    """The collection's bytes, its mtime and the files beside it."""
    return (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns,
            sorted(os.listdir(path.parent)))


def configure(home: Path, path: Path | str, **more: object) -> None:
    (home / "config.json").write_text(json.dumps({"anki_collection": str(path), **more}))


EXPECTED = {0: (DUE[0] + OVERDUE, minutes(DUE[0] + OVERDUE)), 2: (17, 9), 4: (40, 20)}


def test_the_load_by_day_is_anki_s_own_due_days_at_the_median_answer_time(collection):
    first = today()
    found = anki_load.read_load(collection, first, first + _dt.timedelta(days=6))
    assert found.warning is None and found.seconds == SECONDS
    assert found.days == {first + _dt.timedelta(days=offset): anki_load.AnkiLoad(*load)
                          for offset, load in EXPECTED.items()}
    assert EXPECTED[2] == (17, 9)  # "Anki 17 cards ≈ 9 min"
    from planner.base.config import Config

    config = Config(anki_collection=str(collection))
    assert anki_load.anki_minutes_by_day(config, first, first + _dt.timedelta(days=6)) \
        == found.days
    assert anki_load.anki_minutes_by_day(Config(), first, first) == {}


def test_week_shows_and_counts_anki_and_never_writes_the_collection(home, collection):
    configure(home, collection, daily_minutes=60)
    before = state(collection)
    done = run_planner("week", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    days = json.loads(done.stdout)["days"]
    assert [entry["anki"] for entry in days] == [
        {"cards": EXPECTED.get(offset, (0, 0))[0], "minutes": EXPECTED.get(offset, (0, 0))[1]}
        for offset in range(7)]
    assert all(entry["planned_minutes"] == 0 for entry in days)
    shown = run_planner("week", env={**os.environ, "COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    assert "Anki 17 cards ≈ 9 min" in shown.stdout and "Anki 40 cards ≈ 20 min" in shown.stdout
    assert "20/60 min" in shown.stdout  # Anki's minutes count against the daily limit
    narrow = run_planner("week", env={**os.environ, "COLUMNS": "80"})
    assert narrow.returncode == 0 and "Anki 17" in narrow.stdout
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 80
    chinese = run_planner("week", env={**os.environ, "COLUMNS": "200", "LANGUAGE": "zh"})
    assert "Anki 17 张卡 ≈ 9 分钟" in chinese.stdout
    assert state(collection) == before


def test_forecast_json_and_due_have_anki_s_minutes(home, collection):
    configure(home, collection)
    before = state(collection)
    done = run_planner("forecast", "--json", "--days", "5")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["days"]
    assert [(row["anki_cards"], row["anki_minutes"]) for row in rows] == [
        EXPECTED.get(offset, (0, 0)) for offset in range(5)]
    chart = run_planner("forecast", "--days", "5")
    assert chart.returncode == 0 and "Anki 20 min" in chart.stdout
    due = run_planner("due")
    assert due.returncode == 0, due.stderr
    assert f"Anki: {DUE[0] + OVERDUE} review cards due by today ≈ {EXPECTED[0][1]} min" \
        in " ".join(due.stdout.split())
    ahead = run_planner("due", "--days", "2")
    assert f"Anki: {DUE[0] + OVERDUE + 17} review cards due by {day(2)} ≈ " \
           f"{EXPECTED[0][1] + 9} min" in " ".join(ahead.stdout.split())
    plain = run_planner("due", "--json")
    assert plain.returncode == 0 and "Anki" not in plain.stdout
    assert state(collection) == before


def test_free_slots_and_the_checks_count_anki_s_minutes(home, collection):
    from planner.calendar.study_placing import place_study
    from planner.cli.run import timetable_for
    from planner.conversation.lookups import SlotArguments, run_slots
    from planner.plans.plan import InvalidArguments
    from planner.plans.study import StudyPlan

    configure(home, collection, daily_minutes=30, study_hours={"daily": ["18:00-22:00"]})
    before = state(collection)
    config = load_config(home / "config.json", home)
    timetable = timetable_for(config, home, "live", today())
    found = run_slots(timetable, SlotArguments(day(0), 5, 10))
    assert [entry["minutes_left"] for entry in found["days"]] == [
        30 - EXPECTED.get(offset, (0, 0))[1] for offset in range(5)]
    assert found["days"][4]["slots"] == [{"start": "18:00", "end": "22:00"}]
    assert timetable.minutes_left(today() + _dt.timedelta(days=4)) == 10
    # A 15-minute session on day 4 (20 of Anki's minutes) passes daily_minutes; on day 3, none.
    late = review_plan(title="Kanji", date=day(4), minutes=15, note_ids=("N1",), start="19:00")
    with pytest.raises(InvalidArguments) as refused:
        timetable.place(late)
    assert str(refused.value).endswith(
        f"would make {day(4)} hold 35 minutes of review, 20 of them Anki's; daily_minutes is 30")
    later = late._replace(date=_dt.date.fromisoformat(day(3)))
    assert timetable.place(later).plan.start == _dt.time(19)
    chosen = late._replace(start=None)
    with pytest.raises(InvalidArguments) as no_room:
        timetable.place(chosen)
    assert f"{day(4)} has 10 of its daily 30 minutes left (Anki's reviews take 20)" \
        in str(no_room.value)
    study = StudyPlan(title="N3", sessions=(
        session(date=day(3), minutes=15, note_ids=("N1",), start=None),
        session(date=day(4), minutes=10, note_ids=("N2",), start=None),
        session(date=day(4), minutes=10, note_ids=("N3",), start=None)))
    with pytest.raises(InvalidArguments) as study_refused:
        place_study(timetable, study)
    lines = study_refused.value.lines  # type: ignore[attr-defined]
    assert len(lines) == 1 and "session 3" in lines[0], lines
    assert timetable.unsaid_warnings() == ()
    assert state(collection) == before


def test_a_move_onto_anki_s_busy_day_is_refused_and_nothing_changes(home, collection):
    from plan_files import save_review

    configure(home, collection, daily_minutes=30, study_hours={"daily": ["18:00-22:00"]})
    save_review(home, "20261201T100000000000Z-aaaaaa", 3, minutes=15)
    before = state(collection)
    refused = run_planner("move", "20261201T100000000000Z-aaaaaa", "--date", day(4))
    assert refused.returncode == 2, refused.stderr
    assert f"would make {day(4)} hold 35 minutes of review, 20 of them Anki's; daily_minutes " \
           "is 30" in refused.stderr and "nothing was changed" in refused.stderr
    assert not (home / "reviews.jsonl").exists()
    moved = run_planner("move", "20261201T100000000000Z-aaaaaa", "--date", day(1))
    assert moved.returncode == 0, moved.stderr
    assert state(collection) == before


def test_without_anki_collection_nothing_changes(home):
    (home / "config.json").write_text(json.dumps({"daily_minutes": 30}))
    done = run_planner("week", "--json")
    assert done.returncode == 0 and all("anki" not in entry
                                        for entry in json.loads(done.stdout)["days"])
    rows = json.loads(run_planner("forecast", "--json").stdout)["days"]
    assert all("anki_minutes" not in row for row in rows)


def test_the_path_is_expanded_as_other_config_paths(home, collection, monkeypatch):
    monkeypatch.setenv("ANKI_PROFILE", str(collection.parent))
    configure(home, "$ANKI_PROFILE/collection.anki2")
    done = run_planner("week", "--json")
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout)["days"][2]["anki"] == {"cards": 17, "minutes": 9}
    configure(home, "$NOT_SET_ANYWHERE/collection.anki2")
    refused = run_planner("week")
    assert refused.returncode == 2 and "NOT_SET_ANYWHERE" in refused.stderr


# --- files that cannot be read -----------------------------------------------------------------

def _one_warning(home: Path, path: Path, words: str, **env: str) -> None:
    """week --json, forecast --json and due: exit 0, one warning naming the file, no load."""
    configure(home, path, daily_minutes=60)
    environment = {**os.environ, **env}
    week = run_planner("week", "--json", env=environment)
    assert week.returncode == 0, week.stderr
    lines = week.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and words in lines[0], lines
    assert lines[0].endswith("Anki's reviews are not counted in the daily minutes")
    assert all(entry["anki"] is None for entry in json.loads(week.stdout)["days"])
    forecast = run_planner("forecast", "--json", env=environment)
    assert forecast.returncode == 0 and len(forecast.stderr.strip().splitlines()) == 1
    assert all(row["anki_minutes"] is None for row in json.loads(forecast.stdout)["days"])
    due = run_planner("due", env=environment)
    assert due.returncode == 0 and words in due.stderr and "Anki:" not in due.stdout


def test_a_missing_collection_is_one_warning(home, tmp_path):
    _one_warning(home, tmp_path / "gone" / "collection.anki2", "cannot be read")


def test_a_collection_locked_by_a_writer_is_one_warning_and_not_read(home, collection,
                                                                     tmp_path):
    # A rollback-journal collection (as Anki before 2.1.28 kept it) held by a writer.
    copy = tmp_path / "old" / "collection.anki2"
    copy.parent.mkdir()
    shutil.copy(collection, copy)
    with sqlite3.connect(copy) as setup:
        setup.execute("PRAGMA journal_mode = delete")
    setup.close()
    writer = sqlite3.connect(copy, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        _one_warning(home, copy, "is in use")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    configure(home, copy)
    assert json.loads(run_planner("week", "--json").stdout)["days"][2]["anki"]["cards"] == 17


def test_a_collection_anki_has_open_is_one_warning_and_not_read(home, collection, tmp_path):
    # Anki keeps its collection in WAL mode: its newest changes are in the -wal file.
    copy = tmp_path / "open" / "collection.anki2"
    copy.parent.mkdir()
    shutil.copy(collection, copy)
    anki = sqlite3.connect(copy, isolation_level=None)
    anki.execute("PRAGMA wal_autocheckpoint = 0")
    anki.execute("UPDATE cards SET mod = mod + 1")
    try:
        assert (copy.parent / "collection.anki2-wal").stat().st_size > 0
        before = state(copy)
        _one_warning(home, copy, "Anki has it open")
        assert state(copy) == before
    finally:
        anki.close()


ANKI_OPEN = """
import sys
from anki.collection import Collection
col = Collection(sys.argv[1])
cards = sorted(col.find_cards("is:new"))
col.sched.set_due_date(cards[:3], "1")  # a change Anki keeps in its -wal until it closes
print("open", flush=True)
sys.stdin.readline()
col.close()
"""


def test_while_anki_itself_has_the_collection_open_it_is_not_read(home, collection, tmp_path):
    import subprocess
    import sys

    copy = tmp_path / "running" / "collection.anki2"
    copy.parent.mkdir()
    shutil.copy(collection, copy)
    anki = subprocess.Popen([sys.executable, "-c", ANKI_OPEN, str(copy)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert anki.stdout is not None and anki.stdout.readline() == "open\n"
        before = state(copy)
        _one_warning(home, copy, "Anki has it open")
        assert state(copy) == before
    finally:
        anki.communicate("\n", timeout=60)
    assert anki.returncode == 0
    # Closed, Anki wrote its change back: read now, with the three cards it moved.
    configure(home, copy)
    days = json.loads(run_planner("week", "--json").stdout)["days"]
    assert days[1]["anki"] == {"cards": 3, "minutes": 2}


def test_truncated_foreign_and_hostile_files_are_one_warning(home, collection, tmp_path):
    truncated = tmp_path / "truncated.anki2"
    truncated.write_bytes(collection.read_bytes()[:8192])
    _one_warning(home, truncated, "is truncated")
    text = tmp_path / "notes.anki2"
    text.write_text("not a database\n" * 20)
    _one_warning(home, text, "not an SQLite database")
    other = tmp_path / "other.anki2"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE things (x)")
    connection.close()
    _one_warning(home, other, "not an Anki collection")
    odd = tmp_path / "odd.anki2"
    shutil.copy(collection, odd)
    with sqlite3.connect(odd) as connection:
        connection.execute("PRAGMA journal_mode = delete")
        connection.execute("UPDATE col SET crt = 'yesterday'")
    connection.close()
    _one_warning(home, odd, "not a readable Anki collection")


def test_a_costly_collection_is_interrupted_after_the_query_bound(home, collection, tmp_path):
    slow = tmp_path / "slow.anki2"
    shutil.copy(collection, slow)
    with sqlite3.connect(slow) as connection:
        # Anki's own collation, which its indexes name (planner never needs it).
        connection.create_collation("unicase", lambda one, other: (one.lower() > other.lower())
                                    - (one.lower() < other.lower()))
        # `queue` made costly to compute on every row read (a generated column, made costly
        # once its rows are in: read whole, it would take minutes).
        connection.executescript("""
            PRAGMA journal_mode = delete;
            ALTER TABLE cards RENAME TO plain;
            CREATE TABLE cards (id INTEGER PRIMARY KEY, odid INTEGER, odue INTEGER,
                due INTEGER, kind INTEGER, queue INTEGER GENERATED ALWAYS AS (
                length(replace(printf('%.*c', 1 + kind, 'x'), 'x', 'yy')) * 0 + kind)
                VIRTUAL);
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n LIMIT 1000)
                INSERT INTO cards (id, odid, odue, due, kind) SELECT x, 0, 0, 0, 2 FROM n;
            DROP TABLE plain;
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = replace(sql, '1 + kind', '2000000 + kind')
                WHERE name = 'cards';
            PRAGMA writable_schema = OFF;
        """)
    connection.close()
    started = _dt.datetime.now()
    _one_warning(home, slow, "took more than 0.5 s", PLANNER_ANKI_QUERY_SECONDS="0.5")
    assert (_dt.datetime.now() - started).total_seconds() < 10  # three commands


def test_the_rollover_hour_places_a_learning_card_on_anki_s_day(tmp_path, collection):
    # A relearning card due at 02:00 tomorrow belongs to today's Anki day with the rollover at
    # 4, to tomorrow's with it at 0.
    copy = tmp_path / "collection.anki2"
    shutil.copy(collection, copy)
    zone = _dt.datetime.now().astimezone().tzinfo
    now = _dt.datetime.combine(today(), _dt.time(12), zone)
    moment = _dt.datetime.combine(today() + _dt.timedelta(days=1), _dt.time(2), zone)
    with sqlite3.connect(copy) as connection:
        connection.execute("PRAGMA journal_mode = delete")
        connection.execute("UPDATE cards SET queue = 0, type = 0 WHERE queue != 1")
        connection.execute("UPDATE cards SET queue = 1, type = 3, due = ? WHERE id = "
                           "(SELECT min(id) FROM cards)", (int(moment.timestamp()),))
    connection.close()
    first, last = today(), today() + _dt.timedelta(days=2)
    found = anki_load.read_load(copy, first, last, first, now)
    assert found.days == {first + _dt.timedelta(days=1): anki_load.AnkiLoad(1, 1)}
    with sqlite3.connect(copy) as connection:
        connection.execute("UPDATE config SET val = CAST('4' AS BLOB) WHERE key = 'rollover'")
    connection.close()
    found = anki_load.read_load(copy, first, last, first, now)
    assert found.days == {first: anki_load.AnkiLoad(1, 1)}
