"""Time a goal's readiness: the SAVE screen's line and `planner goals` (README "A study plan to
a goal").

Usage: .venv/bin/python benchmarks/goals_bench.py [--notes N] [--reviews-per-note K]
                                                  [--plans P] [--repeat R]

Builds a temporary home with N notes in notes.json (each holding #exam), one goal of all of
them (`tag:exam`), a review log of K reviews per note spread over the past year (written with
planner.memory.log's own append), P saved study plans of 60 sessions each for the goal, and a
proposed study plan of 60 sessions. Then measures, R times each:

- (a) the SAVE screen's readiness line (planner.memory.readiness.readiness_line: the memory from
  its cache, the saved sessions read, recall on the goal's day with the proposal and without
  it), in process, a new review memory each time (the cache on disk warm). Target: at most
  200 ms (the exit status says whether it is met). The same with no cache (rebuilt) is shown.
- (b) `planner goals --json` against (c) `planner plans --json` on the same home, subprocesses
  interleaved. Target: a/c at most 1.5.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from timing import timed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.memory import log as reviews  # noqa: E402

PLANNER = str(Path(sys.executable).with_name("planner"))
TARGET_LINE_MS = 200
TARGET_RATIO = 1.5
RATINGS = ("again", "hard", "good", "easy")
RATING_WEIGHTS = (10, 15, 60, 15)
GOAL = "Exam"


def build_home(home: Path, notes: int, per_note: int, plans: int) -> _dt.date:
    """The notes, the goal, the log and the saved plans; the goal's day."""
    rng = random.Random(7)
    today = _dt.date.today()
    day = today + _dt.timedelta(days=70)
    ids = [f"N{number}" for number in range(1, notes + 1)]
    (home / "notes.json").write_text(json.dumps(
        [{"id": note, "title": f"Note {note}", "text": f"words of {note} #exam"}
         for note in ids]), encoding="utf-8")
    (home / "config.json").write_text(json.dumps({"goals": [
        {"name": GOAL, "date": day.isoformat(), "notes": ["tag:exam"]}]}), encoding="utf-8")
    now = _dt.datetime.now(_dt.UTC)
    events = []
    for note in ids:
        for step in sorted(rng.uniform(1, 365) for _ in range(per_note)):
            events.append(reviews.Review(reviews.new_review_id(), note, None,
                                         now - _dt.timedelta(days=365 - step),
                                         rng.choices(RATINGS, RATING_WEIGHTS)[0], None))
    events.sort(key=lambda event: event.reviewed_at)
    for start in range(0, len(events), 5000):
        reviews.append(home, events[start:start + 5000], "the reviews")
    folder = home / "plans"
    folder.mkdir()
    for number in range(plans):
        run_id = f"2026{number:04d}T000000000000Z-bench{number % 10}"
        sessions = [{"date": (today + _dt.timedelta(days=1 + index % 60)).isoformat(),
                     "start": f"{8 + index % 12:02d}:{(number % 4) * 15:02d}", "minutes": 10,
                     "note_ids": rng.sample(ids, 3)} for index in range(60)]
        sessions.sort(key=lambda session: (session["date"], session["start"]))
        used = list(dict.fromkeys(note for session in sessions for note in session["note_ids"]))
        (folder / f"{run_id}.json").write_text(json.dumps({
            "version": 4, "simulated": False, "run_id": run_id,
            "created_at": "2026-12-01T10:00:00Z", "goal": GOAL,
            "plan": {"title": f"Plan {number}", "sessions": sessions},
            "notes": [{"id": note, "title": f"Note {note}"} for note in used]}),
            encoding="utf-8")
    return day


def proposal(notes: int, today: _dt.date):
    from planner.plans.study import Session, StudyPlan

    rng = random.Random(11)
    ids = [f"N{number}" for number in range(1, notes + 1)]
    return StudyPlan("Proposed", tuple(
        Session((today + _dt.timedelta(days=1 + index)).isoformat(), 30,
                tuple(rng.sample(ids, 3)), "19:00") for index in range(60)))


def line_ms(home: Path, notes: int, repeat: int, cold: bool) -> float:
    """The median time of the SAVE screen's readiness line, in milliseconds."""
    from planner.base.config import load_config
    from planner.memory import cache, readiness
    from planner.memory.review_memory import ReviewMemory
    from planner.notes.catalog import load_catalog
    from planner.notes.selectors import goal_scope

    config = load_config(home / "config.json")
    catalog = load_catalog(home, None)
    (goal,) = config.goals
    target = readiness.target(goal, goal_scope(catalog, goal).note_ids)
    today = _dt.date.today()
    plan = proposal(notes, today)
    times = []
    for _ in range(repeat):
        if cold:
            for path in cache.cache_path(home).parent.glob("memory-cache*"):
                path.unlink()
        memory = ReviewMemory(home, catalog, config.desired_retention)
        started = time.perf_counter()
        outlook = readiness.readiness_line(home, "live", target, plan, memory, today, config)
        times.append((time.perf_counter() - started) * 1000)
    assert outlook.total == notes
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--reviews-per-note", type=int, default=24)
    parser.add_argument("--plans", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        build_home(home, args.notes, args.reviews_per_note, args.plans)
        print(f"goals_bench: {args.notes} notes, {args.notes * args.reviews_per_note:,} "
              f"reviews over a year, {args.plans} saved plans of 60 sessions, a proposal of 60")
        cold = line_ms(home, args.notes, max(3, args.repeat // 2), cold=True)
        warm = line_ms(home, args.notes, args.repeat, cold=False)
        print(f"  readiness line, memory cache warm: {warm:7.1f} ms  (target <= "
              f"{TARGET_LINE_MS} ms)")
        print(f"  readiness line, cache rebuilt:     {cold:7.1f} ms")
        import subprocess

        listed = json.loads(subprocess.run([PLANNER, "--home", str(home), "goals", "--json"],
                                           check=True, capture_output=True).stdout)
        # Every saved session is read (a plan file with a problem would not count).
        assert listed[0]["sessions"]["planned"] == 60 * args.plans, listed[0]["sessions"]
        goals, plans = [], []
        for _ in range(args.repeat):
            goals.append(timed([PLANNER, "--home", str(home), "goals", "--json"]))
            plans.append(timed([PLANNER, "--home", str(home), "plans", "--json"]))
        ratio = statistics.median(goals) / statistics.median(plans)
        print(f"  planner goals --json: {statistics.median(goals) * 1000:7.1f} ms")
        print(f"  planner plans --json: {statistics.median(plans) * 1000:7.1f} ms")
        print(f"  ratio goals/plans: {ratio:.2f}  (target <= {TARGET_RATIO})")
        met = warm <= TARGET_LINE_MS and ratio <= TARGET_RATIO
        print("  target met" if met else "  TARGET MISSED")
        return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
