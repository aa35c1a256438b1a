"""Time `planner week` with Anki's load counted against `planner plans` on one home (README "Your
week").

Usage: .venv/bin/python benchmarks/anki_week_bench.py [--plans N] [--cards C] [--answers A]
[--repeat R]

Builds a home with N plan files (as plans_bench builds them) and an Anki collection.anki2 made
by Anki's own code (the `anki` wheel of the test extras), then grown to C review cards due
over the next 60 days (a tenth overdue) and A review-log answers, named in anki_collection.
Then, interleaved, R times each: (a) `planner plans`, (b) `planner week` with
anki_collection, (c) `planner week` without it (both weeks at 80 columns). Prints the medians
and b/a (target: at most 1.5); the exit status says whether it is met.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from plans_bench import build
from timing import timed

PLANNER = str(Path(sys.executable).with_name("planner"))
TARGET_RATIO = 1.5


def make_collection(path: Path, cards: int, answers: int, seed: int = 20) -> None:
    """A collection Anki creates and closes, grown to `cards` review cards and `answers`
    revlog entries (copies of the one card Anki made, each with its own id and due day)."""
    from anki.collection import Collection

    col = Collection(str(path))
    note = col.new_note(col.models.by_name("Basic"))
    note["Front"], note["Back"] = "question", "answer"
    col.add_note(note, col.decks.id("Default"))
    first = col.find_cards("")[0]
    col.sched.set_due_date([first], "0")
    today = col.sched.today
    col.close()
    rng = random.Random(seed)
    with sqlite3.connect(path) as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(cards)")]
        template = dict(zip(columns, connection.execute(
            "SELECT * FROM cards WHERE id = ?", (first,)).fetchone(), strict=True))
        rows = []
        for number in range(1, cards):
            rows.append({**template, "id": first + number, "due": today + rng.randint(-6, 60)})
        connection.executemany(
            f"INSERT INTO cards ({', '.join(columns)}) VALUES "
            f"({', '.join('?' for _ in columns)})",
            [tuple(row[name] for name in columns) for row in rows])
        now = int(_dt.datetime.now(_dt.UTC).timestamp() * 1000)
        connection.executemany(
            "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) "
            "VALUES (?, ?, -1, 3, 10, 5, 2500, ?, 1)",
            [(now - (answers - number) * 60_000, first + rng.randrange(cards),
              rng.randint(3_000, 40_000)) for number in range(answers)])
    connection.close()


def main() -> int:
    """Build the home, time the commands interleaved, print medians and the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plans", type=int, default=1_000)
    parser.add_argument("--cards", type=int, default=20_000)
    parser.add_argument("--answers", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    os.environ.update(COLUMNS="80", NO_COLOR="1")
    with tempfile.TemporaryDirectory(prefix="planner-anki-week-") as folder:
        home = Path(folder) / "home"
        home.mkdir()
        build(home, args.plans)
        profile = Path(folder) / "User 1"
        profile.mkdir()
        make_collection(profile / "collection.anki2", args.cards, args.answers)
        anki = home / "anki.json"
        anki.write_text(json.dumps({"anki_collection": str(profile / "collection.anki2"),
                                    "daily_minutes": 120}))
        plain = home / "plain.json"
        plain.write_text(json.dumps({"daily_minutes": 120}))
        commands = {
            "planner plans": [PLANNER, "--home", str(home), "plans"],
            "planner week, anki_collection": [PLANNER, "--home", str(home), "week", "-c",
                                              str(anki)],
            "planner week, none": [PLANNER, "--home", str(home), "week", "-c", str(plain)],
        }
        size = (profile / "collection.anki2").stat().st_size
        # Once, before the rounds: the page cache warm, and the load really counted.
        shown = subprocess.run([*commands["planner week, anki_collection"], "--json"],
                               check=True, capture_output=True, text=True)
        loads = [day["anki"] for day in json.loads(shown.stdout)["days"]]
        assert shown.stderr == "" and all(loads) and loads[0]["cards"] > 0, shown.stderr
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, argv in commands.items():
                times[name].append(timed(argv))
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.plans:,} plans, a collection of {args.cards:,} review cards and "
          f"{args.answers:,} answers ({size / 1024 / 1024:.1f} MiB); {args.repeat} interleaved "
          "rounds, medians")
    for name, value in median.items():
        print(f"  {name:32} {value * 1000:7.0f} ms")
    ratio = median["planner week, anki_collection"] / median["planner plans"]
    extra = median["planner week, anki_collection"] - median["planner week, none"]
    print(f"week with anki_collection / plans: {ratio:.2f}x (target <= {TARGET_RATIO}); "
          f"Anki's load adds {extra * 1000:.0f} ms to week")
    met = ratio <= TARGET_RATIO
    print("target met" if met else "TARGET MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
