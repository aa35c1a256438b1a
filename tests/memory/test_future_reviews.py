"""Reviews from the future do not count: a review line dated more than a day after now is
skipped and counted, in `due`, `reviews`, the fit and the memory cache, and said in one line
where skipped lines are said; one up to a day ahead (clocks differ) counts."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from conftest import run_planner

from planner.memory import cache
from planner.memory import log as review_log
from planner.memory.schedule import scheduler_parameters

NOW = _dt.datetime.now(_dt.UTC).replace(microsecond=0)
RATINGS = ("again", "hard", "good", "easy")
PARAMETERS = scheduler_parameters(None)
SKIPPED = "reviews.jsonl: 3 reviews dated more than a day after now were skipped"


def past(count: int, start: int = 0) -> list[review_log.Review]:
    first = NOW - _dt.timedelta(days=60)
    return [review_log.Review(f"R{number:05d}", f"N{number % 7}", None,
                              first + _dt.timedelta(hours=20 * number), RATINGS[number % 4], None)
            for number in range(start, start + count)]


def ahead(*hours: float, prefix: str = "F") -> list[review_log.Review]:
    return [review_log.Review(f"{prefix}{number}", "N1", None, NOW + _dt.timedelta(hours=value),
                              "again", None) for number, value in enumerate(hours)]


def write_notes(home: Path) -> None:
    (home / "notes.json").write_text(json.dumps(
        [{"id": f"N{number}", "title": f"Note {number}", "text": "x"} for number in range(7)]),
        encoding="utf-8")


def test_the_log_skips_and_counts_reviews_more_than_a_day_ahead(home):
    review_log.append(home, past(20) + ahead(30, 24 * 40, 24 * 365 * 50) + ahead(20, prefix="S"))
    future: list[_dt.datetime] = []
    log = review_log.read_log(home, future=future)
    ids = [event.review_id for event in log.events]
    # F0 at 30 h ahead is skipped; S0, 20 h ahead, counts (clocks differ).
    assert not any(name.startswith("F") for name in ids) and ids[-1] == "S0"
    assert len(ids) == 21
    assert len(future) == 3 and min(future) == NOW + _dt.timedelta(hours=30)
    assert log.warnings == [SKIPPED + "; they do not count (is a clock wrong?)"]
    # Reading as of a later moment: what was ahead then counts now.
    later = review_log.read_log(home, now=NOW + _dt.timedelta(days=2))
    assert len(later.events) == 22 and later.warnings[0].startswith(
        "reviews.jsonl: 2 reviews dated")


def test_due_is_the_same_as_without_them_and_says_how_many_in_one_line(home):
    write_notes(home)
    review_log.append(home, past(40))
    plain = run_planner("due", "--json", "--days", "3650")
    assert plain.returncode == 0 and plain.stderr == ""
    review_log.append(home, ahead(48, 72, 24 * 400))
    for how in ("appended", "warm"):  # the cache replays appended lines, then serves them
        done = run_planner("due", "--json", "--days", "3650")
        assert done.returncode == 0, (how, done.stderr)
        assert done.stdout == plain.stdout, how
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and SKIPPED in lines[0], (how, lines)
    (home / ".planner" / "memory-cache.txt").unlink()
    rebuilt = run_planner("due", "--json", "--days", "3650")
    assert rebuilt.stdout == plain.stdout and SKIPPED in rebuilt.stderr


def test_reviews_lists_them_not_and_says_so(home):
    review_log.append(home, past(5) + ahead(48, 72, 96))
    done = run_planner("reviews", "--json")
    assert done.returncode == 0
    listed = json.loads(done.stdout)
    assert len(listed) == 5 and not any(row["review_id"].startswith("F") for row in listed)
    assert SKIPPED in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_cache_counts_one_once_its_time_has_come(home):
    review_log.append(home, past(30) + ahead(24 * 5))
    first = cache.memory(home, PARAMETERS, 0.9, now=NOW)
    assert first.reviews == 30 and first.future == 1
    assert first.warnings[-1].startswith("reviews.jsonl: 1 reviews dated")
    warm = cache.memory(home, PARAMETERS, 0.9, now=NOW + _dt.timedelta(days=1))
    assert warm.how == "warm" and warm.reviews == 30 and warm.future == 1
    # Four days on it is at most a day ahead: the cache is rebuilt and it counts.
    later = cache.memory(home, PARAMETERS, 0.9, now=NOW + _dt.timedelta(days=4))
    assert later.how == "rebuilt" and later.reviews == 31 and later.future == 0
    assert later.warnings == []


def test_a_fit_never_counts_them(home):
    review_log.append(home, past(40) + ahead(*(24.0 * day for day in range(2, 32))))
    done = run_planner("fit")
    assert done.returncode == 0, done.stderr
    # 40 counting reviews, not 70: the 30 from the future are neither fitted nor scored on.
    assert "40 counting reviews; a fit needs at least 50: 10 more" in done.stdout
    assert "reviews.jsonl: 30 reviews dated more than a day after now were skipped" in \
        done.stderr
    assert not (home / "memory.json").exists()


def test_a_fit_counts_them_under_skipped_and_memory_json_reads_back(home):
    import learner

    from planner.memory import memory_file

    start = NOW - _dt.timedelta(days=120)
    counted = [review_log.Review(f"R{number:06d}", card, None, moment.replace(microsecond=0),
                                 rating, None)
               for number, (card, moment, rating) in enumerate(learner.history(60, 120,
                                                                               start=start))
               if moment <= NOW]
    review_log.append(home, counted + ahead(72, 96, 24 * 30))
    done = run_planner("fit", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["reviews"] == len(counted)
    assert shown["sources"][0]["skipped"] == {"undone": 0, "unreadable": 0, "future": 3}
    assert SKIPPED in done.stderr
    if shown["adopted"]:
        assert memory_file.read_memory(home).data["sources"] == shown["sources"]
