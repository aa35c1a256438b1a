"""Review memory through the real command (README "Review memory"): planner done (and --undo),
reviews, drop,
due; what each writes to the review log, what it prints, and the exit codes.

Every case runs the installed `planner` in a subprocess with no terminal (so the rating is
good unless --rating says otherwise); the rating prompt in a real terminal, from a saved plan
to `planner due`: test_review_cli's pty case at the end. Due dates are compared with the fsrs
library's own for the same history.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import fsrs
import pytest
from conftest import PLANNER, ROOT, run_planner, snapshot, succeeded, today
from plan_files import NOTES, day, plan, review_plan, series
from plan_files import write_plan as save
from review_log import OTHER, RATING_PROMPT, RUN, log_lines

from planner.memory import log as reviews
from planner.memory import marking
from planner.notes.catalog import Note
from planner.plans import store

SERIES_RUN = "20250202T100000000000Z-cccccc"


def refused(*args: str, code: int = 2) -> str:
    """Run a command that must fail: its one line on stderr (no traceback)."""
    done = run_planner(*args)
    assert done.returncode == code, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), done.stderr
    return lines[0].removeprefix("Error: ")


def as_json(*args: str) -> object:
    return json.loads(succeeded(run_planner(*args, "--json")).stdout)


# --- planner done ---------------------------------------------------------------------------------


def test_done_records_one_review_per_note_and_prints_the_next_due_dates(home: Path) -> None:
    save(home, RUN, plan(0))
    done = succeeded(run_planner("done", RUN, "--rating", "hard", "--minutes", "25"))
    lines = log_lines(home)
    assert [(line["kind"], line["note_id"], line["run_id"], line["rating"], line["minutes"])
            for line in lines] == [("review", "N1", RUN, "hard", 25),
                                   ("review", "N2", RUN, "hard", 25)]
    assert {line["version"] for line in lines} == {1}
    screen = " ".join(done.stdout.split())
    assert f"Recorded hard for plans/{RUN}.json: RAG基础复习, reviewed today." in screen
    schedules = library_schedules(home)
    for note_id in ("N1", "N2"):
        due = schedules[note_id].astimezone().date()
        assert f"{note_id} {NOTES[note_id].title} next due {due.isoformat()}" in screen
    assert lines[0]["review_id"] in screen  # named, so it can be undone


def test_done_json_gives_each_review_and_its_next_due_date(home: Path) -> None:
    save(home, RUN, plan(-1, note_ids=("N3",)))
    [row] = as_json("done", RUN[:12], "--rating", "easy")
    [line] = log_lines(home)
    assert row == {"review_id": line["review_id"], "note_id": "N3", "title": "引用与校验",
                   "run_id": RUN, "reviewed_at": line["reviewed_at"], "rating": "easy",
                   "minutes": None, "undone": False,
                   "next_due": library_schedules(home)["N3"].astimezone().date().isoformat()}


def test_with_no_terminal_and_no_rating_the_rating_is_good(home: Path) -> None:
    save(home, RUN, plan(0))
    succeeded(run_planner("done", RUN))
    assert {line["rating"] for line in log_lines(home)} == {"good"}


def test_the_rating_is_taken_in_the_words_of_either_language(home: Path) -> None:
    # The words the rating prompt offers in Chinese, on an English screen and a Chinese one.
    save(home, RUN, plan(0))
    save(home, OTHER, plan(0))
    succeeded(run_planner("done", RUN, "--rating", "吃力"))
    chinese = {**os.environ, "LANGUAGE": "zh_CN"}
    done = run_planner("done", OTHER, "--rating", "easy", env=chinese)
    assert done.returncode == 0, done.stderr
    assert [line["rating"] for line in log_lines(home)] == ["hard", "hard", "easy", "easy"]
    before = snapshot(home)
    wrong = run_planner("done", OTHER, "--rating", "great", env=chinese)
    assert (wrong.returncode, wrong.stderr) == (
        2, "错误：--rating great：必须是忘了、吃力、记得或轻松"
           "（也可以写 again、hard、good、easy）\n")
    assert snapshot(home) == before


def test_config_expands_home_and_variables_as_config_paths_do(home: Path, tmp_path) -> None:
    save(home, RUN, plan(0))
    (tmp_path / "mine.json").write_text('{"desired_retention": 0.95}', encoding="utf-8")
    env = {**os.environ, "HOME": str(tmp_path), "MINE": str(tmp_path)}
    for given in ("~/mine.json", "$MINE/mine.json", "${MINE}/mine.json"):
        done = run_planner("-c", given, "due", "--json", env=env)
        assert done.returncode == 0, done.stderr
    unset = run_planner("due", "--config", "$NOPE/mine.json", env=env)
    assert (unset.returncode, unset.stderr) == (
        2, "Error: --config $NOPE/mine.json: the variable $NOPE is not set\n")
    missing = run_planner("due", "--config", "~/other.json", env=env)
    assert missing.returncode == 2 and f"{tmp_path}/other.json" in missing.stderr


def test_no_run_picks_the_latest_plan_due_by_today_without_reviews(home: Path) -> None:
    save(home, RUN, plan(-3, note_ids=("N1",)))
    save(home, OTHER, plan(-1, note_ids=("N2",)))
    save(home, "20250203T100000000000Z-dddddd", plan(2, note_ids=("N3",)))  # not yet
    succeeded(run_planner("done"))
    succeeded(run_planner("done"))
    assert [(line["note_id"], line["run_id"]) for line in log_lines(home)] == [
        ("N2", OTHER), ("N1", RUN)]
    assert refused("done") == ("no saved plan dated today or earlier is waiting for its "
                               "review; name one: planner done RUN (planner plans --all lists "
                               "them)")


def test_a_series_records_its_earliest_open_session_each_time(home: Path) -> None:
    save(home, SERIES_RUN, series(-2, 0, 5))
    succeeded(run_planner("done", SERIES_RUN))
    succeeded(run_planner("done", SERIES_RUN, "--rating", "hard"))
    assert [(line["run_id"], line["rating"]) for line in log_lines(home)] == [
        (f"{SERIES_RUN}#1", "good"), (f"{SERIES_RUN}#1", "good"),
        (f"{SERIES_RUN}#2", "hard"), (f"{SERIES_RUN}#2", "hard")]
    rows = as_json("plans", "--all")
    assert [(row["session"], row["done"]) for row in rows] == [(2, True), (3, False), (1, True)]
    table = succeeded(run_planner("plans", "--all")).stdout
    assert "#2" in table and "done" in table
    succeeded(run_planner("done", SERIES_RUN))  # the last session, planned for later: done early
    assert refused("done", SERIES_RUN) == (
        f"plans/{SERIES_RUN}.json: every session of this series has reviews (planner reviews "
        "lists them; planner done --undo REVIEW_ID takes one back)")


def test_note_limits_the_review_to_some_notes_of_the_plan(home: Path) -> None:
    save(home, RUN, plan(0, note_ids=("N1", "N2", "N3")))
    succeeded(run_planner("done", RUN, "--note", "N3", "--note", "N1"))
    assert [line["note_id"] for line in log_lines(home)] == ["N3", "N1"]
    save(home, OTHER, plan(0))
    before = snapshot(home)
    assert refused("done", OTHER, "--note", "N3") == (
        f"--note N3: not a note of plans/{OTHER}.json (its notes: N1, N2)")
    assert snapshot(home) == before


def test_date_records_a_past_review_and_never_a_future_one(home: Path) -> None:
    save(home, RUN, plan(-5))
    succeeded(run_planner("done", RUN, "--date", day(-4)))
    reviewed = [_dt.datetime.fromisoformat(line["reviewed_at"]) for line in log_lines(home)]
    assert {moment.astimezone().date().isoformat() for moment in reviewed} == {day(-4)}
    save(home, OTHER, plan(0))
    before = snapshot(home)
    assert refused("done", OTHER, "--date", day(1)) == (
        f"--date {day(1)} is in the future (today is {today().isoformat()}); record a review "
        "once it has happened")
    assert refused("done", OTHER, "--date", "2026-2-3") == "--date 2026-2-3: must be written " \
        "YYYY-MM-DD"
    assert refused("done", OTHER, "--date", "2026-02-30") == ("--date 2026-02-30: not a real "
                                                             "calendar date")
    assert snapshot(home) == before


def test_demo_plans_and_runs_that_saved_nothing_are_refused(home: Path) -> None:
    save(home, RUN, plan(0), folder="demo-plans", simulated=True)
    assert refused("done", RUN) == (f"run {RUN} saved a demo plan (demo-plans/); demo plans "
                                    "are not real reviews, so nothing is recorded for them")
    succeeded(run_planner("--demo"))  # a real demo run: no terminal, so its plan is not saved
    # last is the newest run that saved a plan in plans/: there is none.
    assert refused("done", "last") == ("no plan saved in plans/ yet; last names the newest run "
                                       "that saved one")
    assert not reviews.log_path(home).exists()


def test_run_is_picked_as_show_picks_it_last_and_minus_n(home: Path) -> None:
    # Runs are named by their IDs, newest first; last and -N count the runs that saved a plan.
    for run_id in (RUN, OTHER):
        (home / "tool-records" / run_id).mkdir(parents=True)
    save(home, RUN, plan(0, note_ids=("N1", "N2", "N3")))
    save(home, OTHER, plan(3))
    succeeded(run_planner("done", "-2", "--rating", "hard", "--minutes", "25", "--note", "N1"))
    succeeded(run_planner("drop", "-1"))
    assert [(line.get("note_id"), line["run_id"], line.get("minutes")) for line in
            log_lines(home)] == [("N1", RUN, 25), (None, OTHER, None)]
    succeeded(run_planner("drop", "--undo", "last"))
    assert log_lines(home)[-1]["kind"] == "drop-undo"
    assert refused("done", "-3") == ("only 2 run(s) saved a plan in plans/; -2 is the oldest "
                                     "of them")


def test_bad_options_are_refused_before_anything_is_written(home: Path) -> None:
    save(home, RUN, plan(0))
    before = snapshot(home)
    assert refused("done", RUN, "--rating", "great") == ("--rating great: must be again, hard, "
                                                         "good or easy")
    assert refused("done", RUN, "--rating", "得") == "--rating 得: must be again, hard, good " \
        "or easy"
    assert "Invalid value for '--minutes'" in run_planner("done", RUN, "--minutes", "0").stderr
    assert refused("done", "-x") == "no such option: -x (planner done -h lists the options)"
    assert refused("done", "--undo", "r1", RUN) == ("--undo REVIEW_ID takes no RUN, --rating, "
                                                    "--minutes, --note or --date")
    assert snapshot(home) == before


# --- planner done --undo and planner reviews ------------------------------------------------------


def test_undo_appends_a_line_and_the_review_stops_counting(home: Path) -> None:
    save(home, RUN, plan(0, note_ids=("N1",)))
    succeeded(run_planner("done", RUN, "--rating", "again"))
    [first] = log_lines(home)
    before = reviews.log_path(home).read_bytes()
    done = succeeded(run_planner("done", "--undo", first["review_id"]))
    assert "no longer counts" in " ".join(done.stdout.split())
    assert "N1 has no review left: it is new again." in " ".join(done.stdout.split())
    after = reviews.log_path(home).read_bytes()
    assert after.startswith(before)  # appended, nothing rewritten
    assert log_lines(home)[-1]["kind"] == "undo"
    assert refused("done", "--undo", first["review_id"]) == (
        f"review {first['review_id']} is already undone; it no longer counts")
    assert refused("done", "--undo", "nope") == ("no review 'nope' in reviews.jsonl (planner "
                                                 "reviews lists them)")
    # The plan has no review that counts now: it can be done again.
    succeeded(run_planner("done", RUN))
    [second] = [line for line in log_lines(home) if line["kind"] == "review"][1:]
    undone = as_json("done", "--undo", second["review_id"][:24])
    assert undone == {"review_id": second["review_id"], "note_id": "N1", "title": None,
                      "run_id": RUN, "reviewed_at": second["reviewed_at"], "rating": "good",
                      "minutes": None, "undone": True, "next_due": None}
    succeeded(run_planner("done", RUN))
    rows = as_json("reviews")
    assert [(row["rating"], row["undone"]) for row in rows] == [
        ("good", False), ("good", True), ("again", True)]


def test_reviews_lists_the_log_newest_first_and_by_note(home: Path) -> None:
    save(home, RUN, plan(-3))
    save(home, OTHER, plan(0, note_ids=("N3",)))
    succeeded(run_planner("done", OTHER, "--rating", "easy"))
    # recorded later, happened earlier
    succeeded(run_planner("done", RUN, "--date", day(-2), "--rating", "hard"))
    rows = as_json("reviews")
    assert [(row["note_id"], row["run_id"], row["rating"]) for row in rows] == [
        ("N3", OTHER, "easy"), ("N2", RUN, "hard"), ("N1", RUN, "hard")]
    assert list(rows[0]) == ["review_id", "note_id", "title", "run_id", "reviewed_at", "rating",
                             "minutes", "undone"]
    assert rows[0]["title"] == "引用与校验"
    assert [row["note_id"] for row in as_json("reviews", "--note", "N1")] == ["N1"]
    table = succeeded(run_planner("reviews")).stdout
    assert "Reviews in reviews.jsonl: 3, newest first" in table
    assert "引用与校验" in table and "easy" in table


def test_no_reviews_is_one_line_and_an_empty_list(home: Path) -> None:
    assert succeeded(run_planner("reviews")).stdout == \
        "No reviews in reviews.jsonl yet: planner done records one.\n"
    assert as_json("reviews") == []


# --- planner drop ---------------------------------------------------------------------------------


def test_drop_hides_a_plan_and_its_sessions_and_undo_brings_them_back(home: Path) -> None:
    save(home, RUN, plan(2))
    save(home, SERIES_RUN, series(1, 3))
    plan_bytes = (home / "plans" / f"{SERIES_RUN}.json").read_bytes()
    done = succeeded(run_planner("drop", SERIES_RUN))
    assert f"Dropped plans/{SERIES_RUN}.json" in " ".join(done.stdout.split())
    assert (home / "plans" / f"{SERIES_RUN}.json").read_bytes() == plan_bytes
    assert log_lines(home)[-1] == {**log_lines(home)[-1], "kind": "drop", "run_id": SERIES_RUN}
    assert [row["run_id"] for row in as_json("plans")] == [RUN]
    every = as_json("plans", "--all")
    assert [(row["run_id"], row["dropped"]) for row in every] == [
        (SERIES_RUN, True), (RUN, False), (SERIES_RUN, True)]
    table = succeeded(run_planner("plans")).stdout
    assert "1 dropped plan(s) not shown: planner plans --all lists them." in table
    assert "dropped" in succeeded(run_planner("plans", "--all")).stdout
    calendar = succeeded(run_planner("export", "--ics")).stdout
    assert calendar.count("STATUS:CANCELLED") == 2 and calendar.count("BEGIN:VEVENT") == 3
    assert refused("drop", SERIES_RUN) == (f"plans/{SERIES_RUN}.json is already dropped "
                                           f"(planner drop --undo {SERIES_RUN} brings it back)")
    assert refused("done", SERIES_RUN).startswith(f"plans/{SERIES_RUN}.json was dropped")
    succeeded(run_planner("drop", "--undo", SERIES_RUN))
    assert [row["run_id"] for row in as_json("plans")] == [SERIES_RUN, RUN, SERIES_RUN]
    assert refused("drop", "--undo", SERIES_RUN) == (f"plans/{SERIES_RUN}.json is not dropped; "
                                                     "nothing to bring back")


def test_a_dropped_plan_is_not_a_duplicate_on_the_save_screen(home: Path) -> None:
    save(home, RUN, plan(4))
    succeeded(run_planner("drop", RUN))
    dropped = lambda: marking.quiet_marks(home).dropped  # noqa: E731 - as the flow passes it
    assert store.confirmation_warnings(home, "live", plan(4), today(), dropped) == []


# --- planner due ----------------------------------------------------------------------------------


def library_schedules(home: Path, retention: float = 0.9) -> dict[str, _dt.datetime]:
    """Each note's due moment, computed by fsrs itself from the log's effective reviews."""
    scheduler = fsrs.Scheduler(desired_retention=retention, learning_steps=(),
                               relearning_steps=(), enable_fuzzing=False)
    ratings = {"again": fsrs.Rating.Again, "hard": fsrs.Rating.Hard, "good": fsrs.Rating.Good,
               "easy": fsrs.Rating.Easy}
    lines = log_lines(home)
    undone = {line["review_id"] for line in lines if line["kind"] == "undo"}
    cards: dict[str, fsrs.Card] = {}
    for line in sorted((line for line in lines if line["kind"] == "review"
                        and line["review_id"] not in undone),
                       key=lambda line: line["reviewed_at"]):
        card = cards.get(line["note_id"]) or fsrs.Card(card_id=len(cards) + 1)
        cards[line["note_id"]], _ = scheduler.review_card(
            card, ratings[line["rating"]], _dt.datetime.fromisoformat(line["reviewed_at"]))
    return {note_id: card.due for note_id, card in cards.items()}


def history(home: Path) -> None:
    """Reviews over the past weeks, written as `planner done --date` writes them."""
    save(home, RUN, plan(-40, note_ids=("N1", "N2", "N3")))
    succeeded(run_planner("done", RUN, "--date", day(-40), "--rating", "good"))
    save(home, OTHER, plan(-30, note_ids=("N1", "N2")))
    succeeded(run_planner("done", OTHER, "--date", day(-30), "--rating", "again"))
    save(home, SERIES_RUN, series(-20, -3, note_ids=("N2",)))
    succeeded(run_planner("done", SERIES_RUN, "--date", day(-20), "--rating", "easy"))
    succeeded(run_planner("done", SERIES_RUN, "--date", day(-3), "--rating", "hard"))


def test_due_dates_are_the_fsrs_librarys_own(home: Path) -> None:
    history(home)
    expected = library_schedules(home)
    rows = {row["id"]: row for row in as_json("due", "--days", "3650")}
    assert set(rows) == {"N1", "N2", "N3"}
    for note_id, moment in expected.items():
        assert rows[note_id]["due"] == moment.astimezone().date().isoformat(), note_id
    assert (rows["N2"]["reviews"], rows["N2"]["last_rating"]) == (4, "hard")
    assert rows["N2"]["last_reviewed"] == day(-3)
    # Most overdue first, and only what is due by today without --days.
    order = sorted(expected, key=lambda note_id: (expected[note_id], note_id))
    assert [row["id"] for row in as_json("due", "--days", "3650")] == order
    due_today = [note_id for note_id in order if expected[note_id].astimezone().date() <= today()]
    assert [row["id"] for row in as_json("due")] == due_today


def test_desired_retention_from_config_changes_the_schedule_as_fsrs_does(home: Path) -> None:
    history(home)
    (home / "config.json").write_text(json.dumps({"desired_retention": 0.75}))
    expected = library_schedules(home, retention=0.75)
    rows = {row["id"]: row["due"] for row in as_json("due", "--days", "3650")}
    assert rows == {note_id: moment.astimezone().date().isoformat()
                    for note_id, moment in expected.items()}
    assert expected != library_schedules(home)  # the setting made a difference
    (home / "config.json").write_text(json.dumps({"desired_retention": 0.5}))
    assert refused("due").endswith("key 'desired_retention' must be a number from 0.70 to "
                                   "0.99 (the chance of recall a review is scheduled for, e.g. "
                                   "0.9)")


@pytest.mark.slow  # several commands in a row
def test_due_table_limit_and_nothing_due(home: Path) -> None:
    history(home)
    table = succeeded(run_planner("due", "--days", "3650")).stdout
    assert "Due by" in table and "most overdue first" in table
    for note_id in ("N1", "N2", "N3"):
        assert note_id in table
    assert len(as_json("due", "--days", "3650", "--limit", "2")) == 2
    assert "Showing 1 of 3 due notes" in succeeded(run_planner("due", "--days", "3650", "--limit",
                                                               "1")).stdout
    other = home / "fresh"
    other.mkdir()
    assert succeeded(run_planner("--home", str(other), "due")).stdout == (
        "Nothing is due by today, and no note has a due date yet: planner done records a "
        "review.\n")
    save(other, RUN, plan(0, note_ids=("N1",)))
    succeeded(run_planner("--home", str(other), "done", RUN, "--rating", "easy"))
    following = library_schedules(other)["N1"].astimezone().date()
    assert succeeded(run_planner("--home", str(other), "due")).stdout.split("\n")[0] == (
        f"Nothing is due by today; the next review is due {following.isoformat()} "
        f"{following.strftime('%a')}, in {(following - today()).days} days.")
    assert as_json("--home", str(other), "due") == []


@pytest.mark.slow  # several commands in a row
def test_sr_due_from_an_obsidian_vault_counts_until_planner_reviews_the_note(home: Path) -> None:
    vault = home / "notes"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "alpha.md").write_text(f"---\nsr-due: {day(-2)}\nsr-interval: 4\nsr-ease: 230\n"
                                    "---\n# Alpha\n", encoding="utf-8")
    (vault / "beta.md").write_text(f"---\nsr-due: {day(1)}\n---\nBeta text\n", encoding="utf-8")
    rows = as_json("due", "--days", "1")
    assert [(row["id"], row["due"], row["reviews"], row["last_reviewed"]) for row in rows] == [
        ("alpha", day(-2), 0, None), ("beta", day(1), 0, None)]
    assert "sr-due" in succeeded(run_planner("due", "--days", "1")).stdout
    save(home, RUN, review_plan("Alpha", ("alpha",), day(0), 10),
         notes=[Note("alpha", "Alpha", "")])
    succeeded(run_planner("done", RUN, "--rating", "easy"))
    rows = {row["id"]: row for row in as_json("due", "--days", "3650")}
    assert rows["alpha"]["due"] == library_schedules(home)["alpha"].astimezone().date() \
        .isoformat() and rows["alpha"]["reviews"] == 1
    assert rows["beta"]["due"] == day(1)


@pytest.mark.slow  # several commands in a row
def test_titles_and_ids_from_files_are_shown_inert_by_every_review_command(home: Path) -> None:
    hostile = "Bad\x1b[2J\x1b]0;owned\x07 \u202eevil [bold]x[/bold]"
    (home / "notes.json").write_text(json.dumps([
        {"id": "H1", "title": hostile, "text": "t"}, {"id": "N2", "title": "ok", "text": "t"}]))
    save(home, RUN, review_plan(
        hostile.replace("\x1b", "").replace("\x07", "").replace("\u202e", "")[:80],
        ("H1", "N2"), day(0), 10), notes=[Note("H1", hostile, ""), Note("N2", "ok", "")])
    shown = [succeeded(run_planner("done", RUN, "--rating", "again")),
             succeeded(run_planner("due", "--days", "5")), succeeded(run_planner("reviews")),
             succeeded(run_planner("plans")), succeeded(run_planner("reviews", "--note",
                                                                    "\x1b[2J"))]
    for result in shown:
        text = result.stdout + result.stderr
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text, text
    assert "\\x1b[2J" in shown[0].stdout and "\\u202e" in shown[1].stdout
    assert "[bold]x[/bold]" in shown[1].stdout  # markup shown, never obeyed
    assert "Bad\\x1b[2J" in shown[2].stdout and "reviews of \\x1b[2J in" in shown[4].stdout


# --- a log that cannot be read or appended to -----------------------------------------------------


def test_a_log_that_is_a_fifo_or_a_link_is_one_line_and_never_a_hang(home: Path,
                                                                     tmp_path: Path) -> None:
    save(home, RUN, plan(0))
    os.mkfifo(reviews.log_path(home))
    assert refused("done", RUN, code=1).endswith("is not a regular file (a FIFO)")
    assert refused("due", code=1).endswith("is not a regular file (a FIFO)")
    assert refused("reviews", code=1).endswith("is not a regular file (a FIFO)")
    reviews.log_path(home).unlink()
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("")
    reviews.log_path(home).symlink_to(target)
    before = snapshot(home, tmp_path / "elsewhere.jsonl")
    assert "symbolic link" in refused("done", RUN, code=1)
    assert snapshot(home, tmp_path / "elsewhere.jsonl") == before


def test_a_torn_line_is_named_and_every_other_line_still_counts(home: Path) -> None:
    save(home, RUN, plan(0, note_ids=("N1",)))
    save(home, OTHER, plan(0, note_ids=("N2",)))
    succeeded(run_planner("done", RUN))
    with open(reviews.log_path(home), "ab") as log:
        log.write(b'{"version": 1, "kind": "rev')  # a crash mid-write
    done = succeeded(run_planner("done", OTHER))
    assert "reviews.jsonl line 2 cannot be read" in done.stderr
    assert [row["note_id"] for row in as_json("reviews")] == ["N2", "N1"]


FULL_DISK = """
import os, sys
real = os.write
def disk_fills(fd, data):
    return real(fd, data[:len(data) // 2])
os.write = disk_fills
from planner.cli.app import main
sys.argv = ["planner", *sys.argv[1:]]
main()
"""


def test_a_full_disk_ends_done_with_one_line_and_the_log_as_it_was(home: Path) -> None:
    save(home, RUN, plan(0))
    save(home, OTHER, plan(0, note_ids=("N3",)))
    succeeded(run_planner("done", OTHER))
    before = snapshot(home)
    done = run_planner("done", RUN, "--rating", "hard", command=(sys.executable, "-c", FULL_DISK))
    assert done.returncode == 1, done.stderr
    [line] = done.stderr.strip().splitlines()
    # The home is the current folder: the log is named as the person would type it.
    assert line.startswith("Error: could not record the reviews in reviews.jsonl (only ")
    assert line.endswith("is the disk full?); nothing was recorded")
    assert done.stdout == ""
    assert snapshot(home) == before


@pytest.mark.skipif(os.geteuid() == 0 and not os.path.exists("/usr/bin/setpriv"),
                    reason="needs setpriv to give up root's privileges")
@pytest.mark.not_under_faketime("libfaketime's shared memory, made by root, is closed to the "
                                "other user this test runs planner as")
def test_a_read_only_home_records_nothing(home: Path) -> None:
    save(home, RUN, plan(0))
    before = snapshot(home)
    command = ((("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", PLANNER))
               if os.geteuid() == 0 else (PLANNER,))
    home.chmod(0o555)
    try:
        done = run_planner("done", RUN, command=command)
    finally:
        home.chmod(0o755)
    assert done.returncode == 1, done.stderr
    assert done.stderr == ("Error: could not record the reviews in reviews.jsonl (Permission "
                           "denied); nothing was recorded\n")
    assert snapshot(home) == before


# --- two at once ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_two_done_processes_at_once_lose_no_line(home: Path) -> None:
    run_ids = [f"20261130T1000000000{number:02d}Z-aaaaaa" for number in range(16)]
    for run_id in run_ids:
        save(home, run_id, plan(0, note_ids=("N1", "N2", "N3")))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    for first, second in zip(run_ids[::2], run_ids[1::2], strict=True):
        both = [subprocess.Popen([PLANNER, "done", run_id, "--rating", "hard"], env=env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, start_new_session=True)
                for run_id in (first, second)]
        for process in both:
            _out, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
    lines = log_lines(home)  # every line parses: none torn, none glued to another
    assert len(lines) == 3 * len(run_ids)
    assert {line["run_id"] for line in lines} == set(run_ids)
    assert len({line["review_id"] for line in lines}) == len(lines)
    assert reviews.read_log(home).warnings == []


# --- start-up -------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["--help"], ["done", "--help"], ["plans"], ["reviews"],
                                  ["drop", "--help"]])
def test_fsrs_is_imported_only_by_what_computes_a_due_date(home: Path, args: list[str]) -> None:
    probe = ("import sys; from planner.cli.app import main\n"
             "sys.argv = ['planner', *sys.argv[1:]]\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print('fsrs' in sys.modules, 'planner.memory.schedule' in sys.modules,\n"
             "      file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True,
                          cwd=home, timeout=60, stdin=subprocess.DEVNULL)
    assert done.stderr.strip().splitlines()[-1] == "False False", done.stderr

    def due() -> str:
        done = subprocess.run([sys.executable, "-c", probe, "due"], capture_output=True,
                              text=True, cwd=home, timeout=60, stdin=subprocess.DEVNULL)
        return done.stderr.strip().splitlines()[-1]

    # No review yet: nothing to replay, so not even `due` loads fsrs (nor does --dry-run).
    assert due() == "False True"
    save(home, RUN, plan(0))
    succeeded(run_planner("done", RUN))
    (home / ".planner" / "memory-cache.txt").unlink()  # replayed, not read from the cache
    assert due() == "True True"


def readme_section() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Review memory"):]
    return section[:section.index("\n## ", 4)]


@pytest.mark.slow  # several commands in a row
def test_the_readme_review_examples_run_in_order(home: Path) -> None:
    """The README's review block, line by line, with two saved plans (run -2 and -1)."""
    [block] = re.findall(r"```text\n(.*?)```", readme_section(), re.S)
    lines = [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]
    assert len(lines) == 7 and all(words[0] == "planner" for words in lines)
    for run_id in (RUN, OTHER):
        (home / "tool-records" / run_id).mkdir(parents=True)
    save(home, RUN, plan(-1, note_ids=("N1", "N2")))  # -2
    save(home, OTHER, plan(0, note_ids=("N3",)))  # -1, the newest
    for words in lines:
        if "REVIEW_ID" in words:
            words[words.index("REVIEW_ID")] = log_lines(home)[0]["review_id"]
        succeeded(run_planner(*words[1:]))
    logged = log_lines(home)
    assert [line["kind"] for line in logged] == ["review", "review", "undo", "drop",
                                                 "drop-undo"]
    assert [(line["note_id"], line["run_id"], line["rating"], line["minutes"])
            for line in logged[:2]] == [("N3", OTHER, "good", None), ("N1", RUN, "hard", 25)]
    assert logged[2]["review_id"] == logged[0]["review_id"]
    assert (logged[3]["run_id"], logged[4]["run_id"]) == (OTHER, OTHER)
    section = readme_section()
    for claim in ("save_review_series", "due_notes", "desired_retention", "sr-due:",
                  "[due today]", "[new]", RATING_PROMPT.strip()):
        assert " ".join(claim.split()) in " ".join(section.split()), claim


@pytest.mark.slow  # several commands in a row
def test_each_review_commands_help_has_an_example_that_runs(home: Path) -> None:
    for run_id in (RUN, OTHER):
        (home / "tool-records" / run_id).mkdir(parents=True)
    save(home, RUN, plan(-1, note_ids=("N1", "N2")))
    save(home, OTHER, plan(0, note_ids=("N3",)))
    for command in ("done", "reviews", "drop", "due"):
        [line] = [row for row in succeeded(run_planner(command, "-h")).stdout.splitlines()
                  if "Example:" in row]
        words = shlex.split(line.split("Example:")[1])
        assert words[:2] == ["planner", command], line
        succeeded(run_planner(*words[1:]))


# --- in a real terminal: plan, SAVE, done, due, and a request built from due_notes ----------------


@pytest.mark.slow
@pytest.mark.terminal
def test_plan_save_done_due_and_a_request_from_due_notes_in_a_terminal(home: Path) -> None:
    from live_model import one_line, spawn_cli, write_config
    from stub_server import Reply, StubServer, text_reply, tool_call_reply
    from terminal import finish

    today_plan = {"title": "RAG today", "note_ids": ["N1", "N2"], "date": day(0), "minutes": 20}
    with StubServer() as server:
        write_config(home, server.url)
        server.add(Reply(body=tool_call_reply(today_plan)),
                   Reply(body=text_reply("Saved; review it today.")))
        child, seen = spawn_cli("--request", "review N1 and N2 today for 20 minutes")
        child.expect_exact("Type SAVE to save this plan")
        screen = one_line("".join(seen))
        assert "N1 RAG 的基本流程 [new]" in screen and "N2 切分与向量检索 [new]" in screen
        child.sendline("SAVE")
        assert finish(child) == 0
        [saved] = sorted((home / "plans").glob("*.json"))

        # planner done: the rating is asked; what was typed before the prompt never answers it.
        child, seen = spawn_cli("done")
        child.send("again\n")  # typed ahead, before the question is on the screen
        child.expect_exact(RATING_PROMPT)
        assert child.isalive() and not reviews.log_path(home).exists()
        child.sendline("great")
        child.expect_exact('"great" is not a rating.')
        # Lines are read in order: had the line typed ahead been read, it was refused first.
        assert '"again"' not in "".join(seen) and not reviews.log_path(home).exists()
        child.expect_exact(RATING_PROMPT)
        child.sendline("hard")
        assert finish(child) == 0
        lines = log_lines(home)
        assert [(line["note_id"], line["rating"], line["run_id"]) for line in lines] == [
            ("N1", "hard", saved.stem), ("N2", "hard", saved.stem)]
        expected = library_schedules(home)
        screen = one_line("".join(seen))
        assert f"Recorded hard for plans/{saved.name}" in screen
        for note_id in ("N1", "N2"):
            assert f"next due {expected[note_id].astimezone().date().isoformat()}" in screen

        # planner due: nothing due today; the next due date is FSRS's.
        child, seen = spawn_cli("due", "--days", "30")
        assert finish(child) == 0
        screen = one_line("".join(seen))
        first_due = min(expected.values()).astimezone().date().isoformat()
        assert f"{first_due}" in screen and "N1" in screen and "N2" in screen

        # A new request: the model reads due_notes, then proposes from what it returned.
        lookup = tool_call_reply({"days": 30, "limit": 5}, call_id="call_due", name="due_notes")
        later = {**today_plan, "title": "Due soon", "date": first_due}
        server.add(Reply(body=lookup), Reply(body=tool_call_reply(later, call_id="call_p")),
                   Reply(body=text_reply("Saved the next review.")))
        child, seen = spawn_cli("--request", "plan my next review from what is due")
        child.expect_exact("Type SAVE to save this plan")
        screen = one_line("".join(seen))
        assert "Looked up for the model: due_notes" in screen
        assert f"[due in {(_dt.date.fromisoformat(first_due) - today()).days} day" in screen
        child.sendline("SAVE")
        assert finish(child) == 0
        bodies = [request.body for request in server.chat_requests()][2:]
        assert "due_notes" in [tool["function"]["name"] for tool in bodies[0]["tools"]]
        assert "0 notes are due for review today; due_notes lists them" in \
            bodies[0]["messages"][0]["content"]
        sent = json.loads(bodies[1]["messages"][-1]["content"])
        assert [row["id"] for row in sent["due"]] == sorted(
            expected, key=lambda note_id: (expected[note_id], note_id))
        assert [row["due"] for row in sent["due"]] == sorted(
            moment.astimezone().date().isoformat() for moment in expected.values())
