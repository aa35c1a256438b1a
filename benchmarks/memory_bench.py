"""The fitted memory's speed targets (README "A memory fitted to you"), side by side, as medians of
interleaved runs.

Usage: .venv/bin/python benchmarks/memory_bench.py [--lines N] [--notes N] [--repeat R]

A home of N notes and a review log of the given number of lines (due_bench's: a year of reviews,
about 1 in 100 lines an undo), then:
- warm `planner due --json` (the cache in .planner/ up to date) against `planner --help`:
  at most 1.5x;
- `planner due --json` after one more review line (appended as `planner done` appends it; the
  cache replays it on top) against `planner --help`: at most 2x;
- cold `planner due --json` (no cache) against a bare json + fsrs replay: at most 1.5x;
- a live run's first request (`planner --dry-run`, which builds it and prints it) with the long
  log (warm) against an empty log: at most 100 ms later;
- `planner fit` on 12,580 reviews of a simulated learner, minus `planner --help`: at most 2 s;
- `planner forecast --days 365` over the long log: at most 1 s.
Every timing includes its interpreter's start-up. The exit status says whether all were met.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from due_bench import BARE_REPLAY, write_log, write_notes
from timing import timed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import learner  # noqa: E402

from planner.memory import log as reviews  # noqa: E402

PLANNER = str(Path(sys.executable).with_name("planner"))
FIT_REVIEWS = 12_580


def fit_home(home: Path) -> int:
    """A log of exactly 12,580 reviews of a simulated learner, ending now."""
    start = _dt.datetime.now(_dt.UTC).replace(microsecond=0) - _dt.timedelta(days=365)
    found = learner.history(600, 365, start=start)[:FIT_REVIEWS]
    reviews.append(home, [reviews.Review(f"F{number:07d}", card, None,
                                         moment.replace(microsecond=0), rating, None)
                          for number, (card, moment, rating) in enumerate(found)])
    return len(found)


def in_process_split(home: Path, notes: int) -> dict[str, float]:
    """A warm `due`'s own steps, timed once in this process."""
    from planner.base.config import Config
    from planner.memory.review_memory import ReviewMemory
    from planner.notes.catalog import load_catalog

    marks = [time.perf_counter()]
    catalog = load_catalog(home, Config().notes_dir, str(home / "config.json"))
    marks.append(time.perf_counter())
    memory = ReviewMemory(home, catalog, 0.9)
    memory.memory()
    marks.append(time.perf_counter())
    memory.schedules()
    marks.append(time.perf_counter())
    memory.due(_dt.date.today())
    marks.append(time.perf_counter())
    catalog.close()
    names = (f"notes catalog ({notes:,} notes)", "memory cache (warm)",
             "schedules (recall now)", "due rows")
    return {name: marks[index + 1] - marks[index] for index, name in enumerate(names)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    results: list[tuple[str, str, bool]] = []
    with tempfile.TemporaryDirectory(prefix="planner-memory-bench-") as temp:
        big, empty, fitting = Path(temp, "big"), Path(temp, "empty"), Path(temp, "fit")
        for home in (big, empty, fitting):
            home.mkdir()
            write_notes(home, args.notes)
        write_log(big, args.lines, args.notes)
        count = fit_home(fitting)
        due = [PLANNER, "due", "--json", "--home", str(big)]
        helped = [PLANNER, "--help"]
        for argv in (due, helped, [sys.executable, "-c", BARE_REPLAY, str(big)]):
            timed(argv)  # the page cache, the .pyc files, and the memory cache
        cache = big / ".planner"

        def one_more() -> None:
            reviews.record_reviews(big, ["N1"], "good")

        def no_cache() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        times: dict[str, list[float]] = {name: [] for name in (
            "help", "warm", "due, empty log", "appended", "cold", "bare", "dry big",
            "dry empty", "forecast")}
        for _ in range(args.repeat):
            times["help"].append(timed(helped))
            timed(due)
            times["warm"].append(timed(due))
            times["due, empty log"].append(timed([PLANNER, "due", "--json", "--home",
                                                  str(empty)]))
            one_more()
            times["appended"].append(timed(due))
            no_cache()
            times["cold"].append(timed(due))
            times["bare"].append(timed([sys.executable, "-c", BARE_REPLAY, str(big)]))
            timed(due)
            times["dry big"].append(timed([PLANNER, "--dry-run", "--home", str(big)]))
            times["dry empty"].append(timed([PLANNER, "--dry-run", "--home", str(empty)]))
            times["forecast"].append(timed([PLANNER, "forecast", "--days", "365", "--home",
                                            str(big)]))
        fits = []
        for _ in range(max(3, args.repeat // 2)):
            Path(fitting, "memory.json").unlink(missing_ok=True)
            started = time.perf_counter()
            timed([PLANNER, "fit", "--home", str(fitting)])
            fits.append(time.perf_counter() - started)
        log_bytes = reviews.log_path(big).stat().st_size
        split = in_process_split(big, args.notes)
    medians = {name: statistics.median(values) for name, values in times.items()}
    fit = statistics.median(fits)
    ms = {name: value * 1000 for name, value in medians.items()}
    print(f"{args.lines:,} log lines ({log_bytes / 2**20:.1f} MiB), {args.notes:,} notes, "
          f"{args.repeat} repetitions, interleaved (median wall time, start-up included):")
    for name, value in ms.items():
        print(f"  {name:14} {value:8.1f} ms")
    print(f"  fit ({count:,} reviews) {fit * 1000:8.1f} ms")
    print("warm due in process, once (where the time goes beyond start-up):")
    for name, value in split.items():
        print(f"  {name:30} {value * 1000:8.1f} ms")
    checks = [
        ("warm due / help", medians["warm"] / medians["help"], 1.5, "x"),
        ("due after one more done / help", medians["appended"] / medians["help"], 2.0, "x"),
        ("cold due / bare fsrs replay", medians["cold"] / medians["bare"], 1.5, "x"),
        ("first request: long log - empty (ms)", ms["dry big"] - ms["dry empty"], 100.0, ""),
        ("fit above start-up (s)", fit - medians["help"], 2.0, ""),
        ("forecast --days 365 (s)", medians["forecast"], 1.0, ""),
    ]
    for name, value, target, unit in checks:
        met = value <= target
        results.append((name, f"{value:.2f}{unit} (target <= {target:g}{unit})", met))
    print("targets:")
    for name, text, met in results:
        print(f"  {name:38} {text:28} {'ok' if met else 'ABOVE TARGET'}")
    return 0 if all(met for _name, _text, met in results) else 1


if __name__ == "__main__":
    sys.exit(main())
