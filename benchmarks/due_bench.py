"""Time `planner due --json` over a long review log against a bare json + fsrs replay (README
"Review memory").

Usage: .venv/bin/python benchmarks/due_bench.py [--lines N] [--notes N] [--repeat R]

Builds a temporary home with N notes in notes.json and a reviews.jsonl of the given number of
lines, written with planner.memory.log' own append (each line through reviews.encode): reviews of
every note over the past year, oldest first, about 1 in 100 lines an undo of an earlier review.
Then runs, interleaved, R times each: (a) `planner due --json --home DIR`, (b) a bare Python
subprocess that reads notes.json and the log with json, drops the undone reviews, sorts them
and replays each note through fsrs as planner.memory.schedule does (Scheduler(learning_steps=(),
relearning_steps=(), enable_fuzzing=False), Card(card_id=...) per note, retrievability now);
and, to show where the time goes: (c) `planner due --json` on the same notes with an empty log
(planner's start-up and notes), (d) a bare Python that only imports json and fsrs, and (e) the
bare script stopping after it has parsed the log. Prints the medians and the ratio a/b (target:
at most 2.0; the exit status says whether it is met), an in-process split of planner's own
reading and replaying, and the size of the first request (`planner --dry-run`) with no log, a
short log and the long one: the log must not make it grow. Every timing includes its
interpreter's start-up.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import timed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.memory import log as reviews  # noqa: E402

PLANNER = str(Path(sys.executable).with_name("planner"))
TARGET_RATIO = 2.0
# The first request may differ between logs only by the digits of its count of notes due.
MAX_BODY_GROWTH = 16
RATINGS = ("again", "hard", "good", "easy")
RATING_WEIGHTS = (10, 15, 60, 15)

BARE_REPLAY = """
import datetime as dt, json, os, sys
from fsrs import Card, Rating, Scheduler
home, parse_only = sys.argv[1], len(sys.argv) > 2
with open(os.path.join(home, "notes.json"), "rb") as file:
    titles = {note["id"]: note["title"] for note in json.loads(file.read())}
found, undone = [], set()
with open(os.path.join(home, "reviews.jsonl"), "rb") as file:
    for line in file:
        event = json.loads(line)
        if event["kind"] == "review":
            found.append((dt.datetime.fromisoformat(event["reviewed_at"]), event["note_id"],
                          event["rating"], event["review_id"]))
        elif event["kind"] == "undo":
            undone.add(event["review_id"])
if parse_only:
    print(len(found))
    sys.exit(0)
found.sort(key=lambda review: review[0])
histories = {}
for review in found:
    if review[3] not in undone:
        histories.setdefault(review[1], []).append(review)
scheduler = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
ratings = {"again": Rating.Again, "hard": Rating.Hard, "good": Rating.Good, "easy": Rating.Easy}
now = dt.datetime.now(dt.UTC)
due = []
for number, (note_id, history) in enumerate(histories.items()):
    card = Card(card_id=number, due=history[0][0])
    for moment, _, rating, _ in history:
        card, _ = scheduler.review_card(card, ratings[rating], moment)
    recall = scheduler.get_card_retrievability(card, now)
    if card.due <= now and note_id in titles:
        due.append({"id": note_id, "title": titles[note_id], "due": card.due.date().isoformat(),
                    "retrievability": round(recall * 100), "reviews": len(history)})
due.sort(key=lambda row: row["due"])
sys.stdout.write("".join(json.dumps(row, ensure_ascii=False) + "\\n" for row in due))
"""


def write_notes(home: Path, count: int) -> None:
    """notes.json with `count` short notes (planner reads at most 1 MiB of it)."""
    notes = [{"id": f"N{index}", "title": f"复习笔记 {index}", "text": f"第 {index} 条笔记。"}
             for index in range(1, count + 1)]
    (home / "notes.json").write_text(json.dumps(notes, ensure_ascii=False), encoding="utf-8")


def write_log(home: Path, lines: int, notes: int, seed: int = 16) -> None:
    """reviews.jsonl: `lines` events, oldest first, through planner's own append."""
    rng = random.Random(seed)
    now = _dt.datetime.now(_dt.UTC).replace(microsecond=0)
    start = now - _dt.timedelta(days=365)
    step = _dt.timedelta(days=365) / lines
    events: list[reviews.Event] = []
    review_ids: list[str] = []
    for index in range(lines):
        moment = start + step * index
        if review_ids and index % 100 == 99:
            events.append(reviews.Undo(review_ids.pop(rng.randrange(len(review_ids))),
                                       moment.replace(microsecond=0)))
            continue
        review_id = f"{moment:%Y%m%dT%H%M%S}{index % 1_000_000:06d}Z-{index:06x}"
        review_ids.append(review_id)
        rating = rng.choices(RATINGS, RATING_WEIGHTS)[0]
        events.append(reviews.Review(
            review_id, f"N{rng.randint(1, notes)}", None, moment.replace(microsecond=0), rating,
            rng.choice((None, 10, 20, 30))))
    reviews.append(home, events)


def body_size(home: str) -> int:
    """Bytes of the first request `planner --dry-run` prints (its JSON body, on stdout)."""
    done = subprocess.run([PLANNER, "--dry-run", "--home", home], check=True,
                          capture_output=True, stdin=subprocess.DEVNULL, cwd=ROOT)
    json.loads(done.stdout)
    return len(done.stdout)


def in_process_split(home: str) -> dict[str, float]:
    """planner's own steps timed once in this process: reading the log, replaying it."""
    from planner.memory import schedule

    started = time.perf_counter()
    log = reviews.read_log(home)
    read = time.perf_counter()
    counted = reviews.effective_reviews(log.events)
    used = schedule.scheduler_parameters(None)
    schedule.schedules_of_states(schedule.replay(counted, parameters=used), used)
    replayed = time.perf_counter()
    return {"read_log (parse + check)": read - started, "replay (fsrs)": replayed - read}


def main() -> int:
    """Build the homes, time the commands interleaved, print medians, ratio and body sizes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planner-due-bench-") as temp, \
            tempfile.TemporaryDirectory(prefix="planner-due-empty-") as empty, \
            tempfile.TemporaryDirectory(prefix="planner-due-short-") as short:
        for home in (temp, empty, short):
            write_notes(Path(home), args.notes)
        write_log(Path(temp), args.lines, args.notes)
        write_log(Path(short), 1_000, args.notes)
        log_bytes = reviews.log_path(temp).stat().st_size
        commands = {
            "planner due --json": [PLANNER, "due", "--json", "--home", temp],
            "bare json + fsrs": [sys.executable, "-c", BARE_REPLAY, temp],
            "(planner, empty log)": [PLANNER, "due", "--json", "--home", empty],
            "(import json, fsrs)": [sys.executable, "-c", "import json, fsrs"],
            "(bare, parse only)": [sys.executable, "-c", BARE_REPLAY, temp, "parse-only"],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for argv in commands.values():  # warm the page cache and .pyc files once
            timed(argv)
        for _ in range(args.repeat):
            for name, argv in commands.items():
                times[name].append(timed(argv))
        split = in_process_split(temp)
        sizes = {"no log": body_size(empty), "1,000 lines": body_size(short),
                 f"{args.lines:,} lines": body_size(temp)}
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.lines:,} log lines ({log_bytes / 2**20:.1f} MiB), {args.notes:,} notes, "
          f"{args.repeat} repetitions, interleaved (median wall time):")
    for name, value in medians.items():
        print(f"  {name:22} {value * 1000:8.1f} ms")
    ratio = medians["planner due --json"] / medians["bare json + fsrs"]
    verdict = "ok" if ratio <= TARGET_RATIO else "ABOVE TARGET"
    print(f"  ratio due/bare        {ratio:8.2f}   (target <= {TARGET_RATIO}: {verdict})")
    print("in process, once (where planner's time goes):")
    for name, value in split.items():
        print(f"  {name:26} {value * 1000:8.1f} ms")
    print("first request (planner --dry-run), body bytes, same notes:")
    for name, value in sizes.items():
        print(f"  {name:22} {value:8,d}")
    growth = sizes[f"{args.lines:,} lines"] - sizes["1,000 lines"]
    steady = abs(growth) <= MAX_BODY_GROWTH
    print(f"  long log - short log  {growth:+8d}   (the log must not make it grow: "
          f"{'ok' if steady else 'GROWS'}; no log: no due_notes tool, a fixed difference)")
    return 0 if ratio <= TARGET_RATIO and steady else 1


if __name__ == "__main__":
    sys.exit(main())
