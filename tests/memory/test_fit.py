"""README "A memory fitted to you": planner fit on a simulated learner with known parameters,
memory.json, --reset, and
due dates that are fsrs's own with the fitted parameters."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import learner
import pytest
from conftest import run_planner, today

from planner.memory import fit as fitting
from planner.memory import log as review_log

NUMBERS = {"again": 1, "hard": 2, "good": 3, "easy": 4}
CARDS, DAYS = 500, 365


@pytest.fixture(scope="module")
def history() -> list[tuple[str, _dt.datetime, str]]:
    """A year of a simulated learner's reviews, ending now."""
    start = _dt.datetime.now(_dt.UTC).replace(microsecond=0) - _dt.timedelta(days=DAYS)
    return [(card, moment.replace(microsecond=0), rating)
            for card, moment, rating in learner.history(CARDS, DAYS, start=start)]


def write_home(home: Path, history, notes: int = CARDS) -> None:
    events = [review_log.Review(f"R{number:07d}", card, None, moment, rating,
                                12 if number % 5 == 0 else None)
              for number, (card, moment, rating) in enumerate(history)]
    review_log.append(home, events)
    (home / "notes.json").write_text(json.dumps(
        [{"id": f"C{number}", "title": f"Note {number}", "text": "x"}
         for number in range(notes)]), encoding="utf-8")


def test_fitted_parameters_beat_the_defaults_on_held_out_reviews(history):
    items = fitting.training_items(fitting.by_card(
        (card, moment, NUMBERS[rating]) for card, moment, rating in history))
    cut = len(items) * 4 // 5
    result = fitting.fit(items[:cut], fitting.default_parameters())
    import fsrs_rs_python

    fitted = fsrs_rs_python.FSRS(result.parameters).evaluate(items[cut:])
    defaults = fsrs_rs_python.FSRS(fitting.default_parameters()).evaluate(items[cut:])
    assert fitted.log_loss < defaults.log_loss
    assert fitted.rmse_bins < defaults.rmse_bins
    # The fit moves toward the learner's true memory: new cards are forgotten fast.
    assert result.parameters[2] < fitting.default_parameters()[2]


def test_planner_fit_adopts_better_parameters_and_due_schedules_with_them(home, history):
    import fsrs

    write_home(home, history)
    done = run_planner("fit", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["adopted"] is True, shown["reason"]
    kept = json.loads((home / "memory.json").read_text(encoding="utf-8"))
    assert {**kept, "adopted": True, "reason": shown["reason"]} == shown
    assert len(kept["parameters"]) == 21 and kept["reviews"] == len(history)
    assert kept["sources"] == [{"kind": "log", "name": "reviews.jsonl",
                                "reviews": len(history),
                                "skipped": {"undone": 0, "unreadable": 0}}]
    assert kept["log_loss"] < kept["previous"]["log_loss"]
    assert kept["rmse_bins"] < kept["previous"]["rmse_bins"]

    due = run_planner("due", "--json", "--days", "3650")
    assert due.returncode == 0, due.stderr
    rows = {row["id"]: row["due"] for row in json.loads(due.stdout)}
    scheduler = fsrs.Scheduler(parameters=kept["parameters"], learning_steps=(),
                               relearning_steps=(), enable_fuzzing=False)
    default = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    cards: dict[str, fsrs.Card] = {}
    plain: dict[str, fsrs.Card] = {}
    for number, (card, moment, rating) in enumerate(sorted(history, key=lambda r: r[1])):
        cards.setdefault(card, fsrs.Card(card_id=number, due=moment))
        plain.setdefault(card, fsrs.Card(card_id=number, due=moment))
        cards[card], _ = scheduler.review_card(cards[card], fsrs.Rating[rating.title()], moment)
        plain[card], _ = default.review_card(plain[card], fsrs.Rating[rating.title()], moment)
    expected = {card: state.due.astimezone().date().isoformat()
                for card, state in cards.items()
                if state.due.astimezone().date() <= today() + _dt.timedelta(days=3650)}
    assert rows == expected
    defaults = {card: state.due.astimezone().date().isoformat() for card, state in plain.items()}
    assert sum(rows[card] != defaults[card] for card in rows) > len(rows) // 4


def test_a_second_fit_that_is_not_better_keeps_the_first(home, history):
    write_home(home, history)
    assert run_planner("fit").returncode == 0
    first = (home / "memory.json").read_bytes()
    again = run_planner("fit")
    assert again.returncode == 0, again.stderr
    # The first fit saw every review, so on the later ones it is hard to beat: side by side.
    assert "last fit" in again.stdout and "fitted" in again.stdout
    assert "log loss" in again.stdout and "RMSE(bins)" in again.stdout
    if "Not adopted" in again.stdout:
        assert (home / "memory.json").read_bytes() == first
        assert "the ones in use stay" in again.stdout


def test_fewer_than_50_reviews_say_how_many_more_and_change_nothing(home):
    moment = _dt.datetime.now(_dt.UTC).replace(microsecond=0) - _dt.timedelta(days=30)
    review_log.append(home, [review_log.Review(f"R{number}", f"N{number % 5}", None,
                                               moment + _dt.timedelta(days=number), "good", None)
                             for number in range(12)])
    done = run_planner("fit")
    assert done.returncode == 0
    assert done.stdout.strip() == ("12 counting reviews; a fit needs at least 50: 38 more. "
                                   "Nothing was changed.")
    assert not (home / "memory.json").exists()


def test_a_memory_json_that_cannot_be_written_is_exit_1_and_left_as_it_was(home) -> None:
    # A damaged memory.json is the person's to mend (exit 2); one that cannot be written is a
    # failure (exit 1): both MemoryFileErrors, each with its own exit code.
    (home / "memory.json").mkdir()
    for extra in ((), ("--json",)):
        reset = run_planner("fit", "--reset", *extra)
        assert reset.returncode == 1, reset.stderr
        line = "could not write memory.json (Is a directory); it is as it was"
        assert reset.stderr == f"Error: {line}\n"
        if extra:
            assert json.loads(reset.stdout) == {"error": line, "exit_code": 1}
    assert (home / "memory.json").is_dir() and list((home / "memory.json").iterdir()) == []


def test_reset_returns_to_the_defaults_and_keeps_the_last_fit_under_previous(home, history):
    write_home(home, history)
    assert run_planner("fit").returncode == 0
    fitted = json.loads((home / "memory.json").read_text(encoding="utf-8"))
    before = run_planner("due", "--json", "--days", "3650").stdout
    reset = run_planner("fit", "--reset", "--json")
    assert reset.returncode == 0, reset.stderr
    kept = json.loads((home / "memory.json").read_text(encoding="utf-8"))
    assert kept["parameters"] is None and kept["version"] == 1 and "reset_at" in kept
    assert kept["previous"]["parameters"] == fitted["parameters"]
    assert kept["previous"]["log_loss"] == fitted["log_loss"]
    after = run_planner("due", "--json", "--days", "3650").stdout
    assert after != before
    # With no fit, 200 or more reviews bring the hint.
    assert "planner fit" in run_planner("due").stderr


def test_due_hints_at_a_fit_when_reviews_doubled(home, history):
    write_home(home, history[: len(history) // 3])
    assert run_planner("fit").returncode == 0
    assert "planner fit" not in run_planner("due").stderr
    events = [review_log.Review(f"S{number:07d}", card, None, moment, rating, None)
              for number, (card, moment, rating) in enumerate(history[len(history) // 3:])]
    review_log.append(home, events)
    hint = run_planner("due").stderr
    assert "Your reviews have doubled since the last fit" in hint and "planner fit" in hint


def test_a_damaged_memory_file_is_one_line_and_stays_as_it_was(home, history):
    write_home(home, history[:400])
    (home / "memory.json").write_text('{"version": 1, "parameters": [1, 2]}', encoding="utf-8")
    done = run_planner("fit")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "memory.json" in done.stderr
    assert "Traceback" not in done.stderr
    assert (home / "memory.json").read_text(encoding="utf-8") == \
        '{"version": 1, "parameters": [1, 2]}'
    due = run_planner("due")
    assert due.returncode == 0 and "the default parameters are used" in due.stderr


def test_parameters_fsrs_refuses_fall_back_to_the_defaults_with_one_warning(home, history):
    write_home(home, history[:200])
    plain = run_planner("due", "--json", "--days", "3650").stdout
    memory = home / "memory.json"
    memory.write_text(json.dumps({"version": 1, "parameters": [50.0] * 21, "reviews": 200}),
                      encoding="utf-8")
    done = run_planner("due", "--json", "--days", "3650")
    assert done.returncode == 0
    assert "fsrs refuses its parameters" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == plain
