"""What planner wrote itself is checked when read back: a damaged memory cache (.planner/) is one
warning and rebuilt from the review log, a damaged memory.json one warning and the default
parameters; `due`, `week`, `forecast` and a run each say so in one line, never a traceback."""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import run_planner

from planner.memory import cache, memory_file
from planner.memory import log as review_log
from planner.memory.schedule import DEFAULT_PARAMETERS, scheduler_parameters

NOW = _dt.datetime.now(_dt.UTC).replace(microsecond=0)
RATINGS = ("again", "hard", "good", "easy")
PARAMETERS = scheduler_parameters(None)
CACHE = Path(".planner") / "memory-cache.txt"


def write_home(home: Path, count: int = 60) -> None:
    """Reviews of seven notes over the last two months, the notes, and a config for a run."""
    first = NOW - _dt.timedelta(days=60)
    review_log.append(home, [
        review_log.Review(f"R{number:05d}", f"N{number % 7}", None,
                          first + _dt.timedelta(hours=20 * number), RATINGS[number % 4], None)
        for number in range(count)])
    (home / "notes.json").write_text(json.dumps(
        [{"id": f"N{number}", "title": f"Note {number}", "text": "x"} for number in range(7)]),
        encoding="utf-8")
    (home / "config.json").write_text(json.dumps(
        {"model": "stub-model", "base_url": "http://127.0.0.1:9"}), encoding="utf-8")


def due(*extra: str):
    return run_planner("due", "--json", "--days", "3650", *extra)


# --- the memory cache ------------------------------------------------------------------------


def _field(row: str, index: int, value: str) -> str:
    fields = row.split("\t")
    fields[index] = value
    return "\t".join(fields)


def _card(text: str, index: int, value: str) -> str:
    rows = text.split("\n")
    header = rows[0].split("\t")
    first_card = 1 + int(header[6])
    rows[first_card] = _field(rows[first_card], index, value)
    return "\n".join(rows)


def _header(text: str, index: int, value: str) -> str:
    rows = text.split("\n")
    rows[0] = _field(rows[0], index, value)
    return "\n".join(rows)


DAMAGED_CACHES: dict[str, tuple[Callable[[str], str], str]] = {
    "NaN stability": (lambda text: _card(text, 1, "nan"), "not finite"),
    "infinite difficulty": (lambda text: _card(text, 2, "inf"), "not finite"),
    "a due time without a zone": (lambda text: _card(text, 5, _card_value(text, 5)[:19]),
                                  "no time zone"),
    "a last review without a zone": (lambda text: _card(text, 6, "2026-01-01T10:00:00"),
                                     "no time zone"),
    "a negative review count": (lambda text: _card(text, 8, "-3"), "negative"),
    "a negative count in the header": (lambda text: _header(text, 8, "-1"), "negative"),
    "a state of the wrong type": (lambda text: _card(text, 3, "review"), "not of its kind"),
    "a size of the wrong type": (lambda text: _header(text, 1, "1e3"), "not of its kind"),
    "a torn file": (lambda text: text[: len(text) // 2].rstrip("\n") + "\t", "last line"),
    "a missing card": (lambda text: text.rsplit("\n", 2)[0] + "\n", "lines"),
    "not planner's": (lambda text: "hello\n" + text, "first line"),
}


def _card_value(text: str, index: int) -> str:
    rows = text.split("\n")
    return rows[1 + int(rows[0].split("\t")[6])].split("\t")[index]


@pytest.mark.parametrize("kind", DAMAGED_CACHES)
def test_a_damaged_cache_is_one_warning_and_rebuilt_the_same(home, kind):
    write_home(home)
    expected = cache.memory(home, PARAMETERS, 0.9)
    assert expected.how == "rebuilt" and expected.damaged is None
    damage, words = DAMAGED_CACHES[kind]
    path = home / CACHE
    path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")
    found = cache.memory(home, PARAMETERS, 0.9)
    assert found.how == "rebuilt"
    assert found.damaged is not None and words in found.damaged, found.damaged
    assert str(path) in found.damaged and "rebuilt from reviews.jsonl" in found.damaged
    assert found.states == expected.states and found.reviews == expected.reviews
    # Rebuilt means written again: the next read is warm and says nothing.
    again = cache.memory(home, PARAMETERS, 0.9)
    assert again.how == "warm" and again.damaged is None and again.states == expected.states


def test_bytes_that_are_not_utf_8_are_damage_too(home):
    write_home(home)
    cache.memory(home, PARAMETERS, 0.9)
    path = home / CACHE
    path.write_bytes(path.read_bytes().replace(b"\t", b"\t\xff", 1))
    found = cache.memory(home, PARAMETERS, 0.9)
    assert found.damaged is not None and "not UTF-8" in found.damaged


def test_a_cache_of_another_version_or_other_parameters_is_rebuilt_without_a_word(home):
    write_home(home)
    cache.memory(home, PARAMETERS, 0.9)
    path = home / CACHE
    path.write_text(_header(path.read_text(encoding="utf-8"), 0, "planner-memory-cache-1"),
                    encoding="utf-8")
    older = cache.memory(home, PARAMETERS, 0.9)
    assert older.how == "rebuilt" and older.damaged is None
    other = cache.memory(home, PARAMETERS, 0.85)
    assert other.how == "rebuilt" and other.damaged is None


def test_due_week_forecast_and_a_run_say_a_damaged_cache_in_one_line(home):
    write_home(home)
    plain = due()
    assert plain.returncode == 0 and plain.stderr == ""
    path = home / CACHE
    good = path.read_text(encoding="utf-8")
    for args in (("due", "--json", "--days", "3650"), ("week", "--json"),
                 ("forecast", "--json"), ("--dry-run", "-r", "plan N1")):
        path.write_text(_card(good, 1, "nan"), encoding="utf-8")
        done = run_planner(*args)
        assert done.returncode == 0, (args, done.stderr)
        lines = [line for line in done.stderr.splitlines() if "memory-cache" in line]
        assert len(lines) == 1, (args, done.stderr)
        assert "is damaged (a number is not finite); rebuilt from reviews.jsonl" in lines[0]
        assert "Traceback" not in done.stderr
        if args[0] == "due":
            assert done.stdout == plain.stdout
    assert due().stderr == ""


# --- memory.json ------------------------------------------------------------------------------


def _fit(**changes: object) -> str:
    data = {"version": 1, "parameters": list(DEFAULT_PARAMETERS),
            "fitted_at": "2026-11-01T10:00:00Z", "reviews": 60,
            "sources": [{"kind": "log", "name": "reviews.jsonl", "reviews": 60,
                         "skipped": {"undone": 0, "unreadable": 0}}],
            "log_loss": 0.3, "rmse_bins": 0.05, "previous": {"log_loss": 0.33, "rmse_bins": 0.07}}
    data.update(changes)
    return json.dumps(data)


DAMAGED_MEMORY = {
    "bad JSON": ('{"version": 1, "parameters": [0.2,', "not JSON"),
    "NaN": ('{"version": 1, "parameters": NaN}', "not JSON"),
    "NaN inside the parameters": (_fit().replace("0.212", "NaN"), "not JSON"),
    "a time without a zone": (_fit(fitted_at="2026-11-01T10:00:00"), "fitted_at"),
    "a reset time without a zone": ('{"version": 1, "parameters": null, "reset_at": '
                                    '"2026-11-01 10:00", "previous": {}}', "reset_at"),
    "a negative count": (_fit(reviews=-5), "reviews"),
    "a negative count in a source": (_fit(sources=[{"kind": "log", "name": "reviews.jsonl",
                                                    "reviews": -1, "skipped": {}}]), "sources"),
    "parameters of the wrong type": (_fit(parameters="fast"), "21 finite numbers"),
    "a score of the wrong type": (_fit(log_loss="0.3"), "log_loss"),
    "a negative score": (_fit(previous={"log_loss": -1, "rmse_bins": 0.1}), "previous.log_loss"),
    "sources of the wrong type": (_fit(sources={"kind": "log"}), "sources"),
    "a count of the wrong type": (_fit(reviews=True), "reviews"),
    "no parameters": ('{"version": 1}', "no parameters"),
}


@pytest.mark.parametrize("kind", DAMAGED_MEMORY)
def test_a_damaged_memory_file_is_refused_with_what_is_wrong(home, kind):
    text, words = DAMAGED_MEMORY[kind]
    (home / "memory.json").write_text(text, encoding="utf-8")
    with pytest.raises(memory_file.MemoryFileError) as refused:
        memory_file.read_memory(home)
    message = str(refused.value)
    assert "memory.json is damaged" in message and words in message, message
    assert "\n" not in message


def test_what_fit_and_reset_write_reads_back(home):
    (home / "memory.json").write_text(_fit(), encoding="utf-8")
    assert memory_file.read_memory(home).parameters == tuple(DEFAULT_PARAMETERS)
    (home / "memory.json").write_text(json.dumps(
        {"version": 1, "parameters": None, "reset_at": "2026-11-02T10:00:00Z",
         "previous": {"log_loss": 0.3, "rmse_bins": 0.05, "parameters": list(DEFAULT_PARAMETERS),
                      "fitted_at": "2026-11-01T10:00:00Z"}}), encoding="utf-8")
    assert memory_file.read_memory(home).parameters is None


@pytest.mark.parametrize("kind", ["NaN", "a time without a zone"])  # every kind: above
def test_due_week_forecast_and_a_run_use_the_defaults_and_say_so_in_one_line(home, kind):
    write_home(home)
    plain = due()
    assert plain.returncode == 0 and plain.stderr == ""
    memory = home / "memory.json"
    memory.write_text(DAMAGED_MEMORY[kind][0], encoding="utf-8")
    before = memory.read_bytes()
    for args in (("due", "--json", "--days", "3650"), ("week", "--json"),
                 ("forecast", "--json"), ("--dry-run", "-r", "plan N1")):
        done = run_planner(*args, env={**os.environ})
        assert done.returncode == 0, (args, done.stderr)
        lines = [line for line in done.stderr.splitlines() if "memory.json" in line]
        assert len(lines) == 1, (args, done.stderr)
        assert "is damaged" in lines[0] and "the default parameters are used" in lines[0]
        assert "Traceback" not in done.stderr
        if args[0] == "due":
            assert done.stdout == plain.stdout  # the defaults, as with no memory.json
    assert memory.read_bytes() == before  # said, never overwritten
