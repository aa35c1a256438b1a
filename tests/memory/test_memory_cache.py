"""README "A memory fitted to you": the memory cached in .planner/: warm, appended lines replayed
on top, anything else
rebuilt; always the same cards as a replay of the whole log."""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path

from conftest import run_planner

from planner.memory import cache
from planner.memory import log as review_log
from planner.memory.schedule import replay, scheduler_parameters

NOW = _dt.datetime.now(_dt.UTC).replace(microsecond=0)
PARAMETERS = scheduler_parameters(None)
RATINGS = ("again", "hard", "good", "easy")


def reviews(count: int, start: int = 0, days_ago: float = 60) -> list[review_log.Review]:
    first = NOW - _dt.timedelta(days=days_ago)
    return [review_log.Review(f"R{number:06d}", f"N{number % 7}", None,
                              first + _dt.timedelta(hours=9 * number), RATINGS[number % 4], None)
            for number in range(start, start + count)]


def whole(home: Path, parameters=PARAMETERS) -> dict:
    """The cards of a replay of the whole log, as a reference."""
    log = review_log.read_log(home)
    return replay(review_log.effective_reviews(log.events), parameters=parameters,
                  desired_retention=0.9)


def cards(home: Path, parameters=PARAMETERS) -> cache.Memory:
    return cache.memory(home, parameters, 0.9)


def same(found: dict, expected: dict) -> bool:
    """The same cards (the order of notes and card IDs aside)."""
    return found.keys() == expected.keys() and all(
        found[key]._replace(state=0) == expected[key]._replace(state=0)
        and found[key].state == expected[key].state for key in found)


def test_warm_then_appended_then_rebuilt_always_equal_a_whole_replay(home):
    review_log.append(home, reviews(100, days_ago=60))
    first = cards(home)
    assert first.how == "rebuilt" and same(first.states, whole(home))
    assert (home / ".planner" / "memory-cache.txt").is_file()
    warm = cards(home)
    assert warm.how == "warm" and warm.states == first.states and warm.reviews == 100
    review_log.append(home, reviews(10, start=100, days_ago=60))  # the next 10, in the past
    appended = cards(home)
    assert appended.how == "appended" and appended.reviews == 110
    assert same(appended.states, whole(home))
    again = cards(home)
    assert again.how == "warm" and again.states == appended.states
    # An undo of a counted review: its note is replayed from its start.
    review_log.record_undo(home, "R000003")
    undone = cards(home)
    assert undone.how == "rebuilt" and undone.reviews == 109
    assert same(undone.states, whole(home))


def test_an_earlier_review_appended_rebuilds(home):
    review_log.append(home, reviews(50))
    cards(home)
    review_log.append(home, [review_log.Review("late", "N1", None, NOW - _dt.timedelta(days=90),
                                               "again", None)])
    found = cards(home)
    assert found.how == "rebuilt" and same(found.states, whole(home))


def test_a_changed_log_of_the_same_size_or_shorter_rebuilds(home):
    review_log.append(home, reviews(40))
    cards(home)
    path = review_log.log_path(home)
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"rating":"good"', b'"rating":"easy"', 1))
    found = cards(home)
    assert found.how == "rebuilt" and same(found.states, whole(home))
    path.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 1])
    shorter = cards(home)
    assert shorter.how == "rebuilt" and shorter.reviews == 39


def test_other_parameters_rebuild(home):
    review_log.append(home, reviews(40))
    cards(home)
    other = list(PARAMETERS)
    other[0] = 0.5
    found = cards(home, tuple(other))
    assert found.how == "rebuilt" and same(found.states, whole(home, tuple(other)))


def test_appended_lines_keep_the_logs_own_warnings(home):
    review_log.append(home, reviews(20))
    cards(home)
    with review_log.log_path(home).open("ab") as log:
        log.write(b"not json\n")
    found = cards(home)
    assert found.how == "appended"
    assert found.warnings == review_log.read_log(home).warnings and len(found.warnings) == 1
    with review_log.log_path(home).open("ab") as log:
        log.write(review_log.encode(reviews(1)[0]))  # repeats R000000 of line 1
    repeated = cards(home)
    assert repeated.how == "rebuilt" and repeated.reviews == 20
    assert repeated.warnings == review_log.read_log(home).warnings
    assert "repeats the review_id of line 1" in repeated.warnings[1]


def test_minutes_per_review_survive_appends(home):
    from planner.memory.forecast import minutes_per_review

    first = NOW - _dt.timedelta(days=5)
    review_log.append(home, [review_log.Review(f"M{n}", f"N{n}", "R1", first, "good", 30)
                             for n in range(3)])
    assert minutes_per_review(cards(home).minutes) == 10.0
    review_log.append(home, [review_log.Review(f"M{n}", f"N{n}", "R2", NOW, "good", 40)
                             for n in range(3, 5)])
    found = cards(home)
    assert found.how == "appended" and found.minutes == {10.0: 3, 20.0: 2}
    assert minutes_per_review(found.minutes) == 10.0
    assert minutes_per_review({}) == 5.0 and minutes_per_review({10.0: 1, 20.0: 1}) == 15.0


def test_a_damaged_cache_rebuilds_and_due_agrees(home):
    review_log.append(home, reviews(30))
    plain = run_planner("due", "--json", "--days", "400")
    assert plain.returncode == 0, plain.stderr
    cached = home / ".planner" / "memory-cache.txt"
    text = cached.read_text(encoding="utf-8")
    cached.write_text(text.replace("\t", " ", 5), encoding="utf-8")
    assert cards(home).how == "rebuilt"
    again = run_planner("due", "--json", "--days", "400")
    assert again.stdout == plain.stdout
    os.remove(cached)
    assert run_planner("due", "--json", "--days", "400").stdout == plain.stdout


def test_planners_own_lines_read_without_the_json_decoder_give_the_same_events():
    from planner.base import strictjson

    moment = _dt.datetime(2026, 5, 1, 9, 30, tzinfo=_dt.UTC)
    cases = [review_log.Review("a", "N1", None, moment, "good", None),
             review_log.Review("复习-1", "笔记 N\u2028x\x7f", "run#2", moment, "again", 120),
             review_log.Review("q\"uote", "back\\slash", "r", moment, "easy", 1),
             review_log.Review("tab\tid", "N", None, moment, "hard", 7)]
    for review in cases:
        line = review_log.encode(review).decode("utf-8").rstrip("\n")
        assert review_log._event(strictjson.loads(line)) == review
        assert review_log.parse_lines(line.encode("utf-8")).events == [review]
    for line in ('{"version":1,"kind":"review","review_id":"a","note_id":"N","run_id":null,'
                 '"reviewed_at":"2026-02-30T00:00:00Z","rating":"good","minutes":null}',
                 '{"version":1,"kind":"review","review_id":"a","note_id":"N","run_id":null,'
                 '"reviewed_at":"2026-02-01T00:00:00Z","rating":"good","minutes":121}'):
        contents = review_log.parse_lines(line.encode())
        assert contents.events == [] and len(contents.warnings) == 1
