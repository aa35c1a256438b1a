"""Time `planner plans --json` and `planner export --ics` against a bare loop over the plan files.

Usage: .venv/bin/python benchmarks/plans_bench.py [--plans N] [--repeat R]

Builds N plan files in plans/ of a temporary home (version 2 as the flow writes them through
planner.plans.files.plan_file_content, 1 in 10 version 1, 1 in 200 damaged; dates from a year ago to
a year ahead), then runs, interleaved, R times each:
(a) `planner plans --json --all`, (b) `planner export --ics --all` (every plan an event),
(c) a bare Python subprocess that opens and json-loads every plan file; and, to show where
the time goes: (d) `planner plans --json` in an empty home (planner's own start-up), a bare
Python that does nothing, (e) a bare Python that only imports icalendar, and (f) a bare
Python that reads every plan file and writes one icalendar VEVENT (with its VALARM) per plan,
the library's own cost for the same events. Prints the medians, the ratios a/c and b/c
(target: at most 2.0 each; the exit status says whether both are met) and, for reference,
a/c above start-up and b/f. Every timing includes its interpreter's start-up.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path

from timing import timed

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.notes.catalog import SAMPLE_NOTES  # noqa: E402
from planner.plans.files import plan_file_content  # noqa: E402
from planner.plans.plan import ReviewPlan  # noqa: E402

PLANNER = str(Path(sys.executable).with_name("planner"))
TARGET_RATIO = 2.0
TITLES = ["RAG基础复习", "向量检索与切分：从原理到实践的一次长复习", "Review N1", "周末复盘"]

BARE_LOOP = """
import json, os, sys
folder = os.path.join(sys.argv[1], "plans")
count = 0
for name in os.listdir(folder):
    try:
        with open(os.path.join(folder, name), "rb") as file:
            json.loads(file.read())
        count += 1
    except (OSError, ValueError):
        pass
print(count)
"""

BARE_ICALENDAR = """
import datetime as dt, json, os, sys
from icalendar import Alarm, Calendar, Event
folder = os.path.join(sys.argv[1], "plans")
calendar = Calendar()
calendar.add("prodid", "-//bench//EN")
calendar.add("version", "2.0")
stamp = dt.datetime.now(dt.UTC).replace(microsecond=0)
for name in os.listdir(folder):
    try:
        with open(os.path.join(folder, name), "rb") as file:
            plan = json.loads(file.read())["plan"]
    except (OSError, ValueError):
        continue
    event = Event()
    event.add("uid", name + "@bench")
    event.add("dtstamp", stamp)
    event.add("summary", plan["title"])
    event.add("description", "Notes: " + ", ".join(plan["note_ids"]))
    start = dt.datetime.combine(dt.date.fromisoformat(plan["date"]), dt.time(19), dt.UTC)
    event.add("dtstart", start)
    event.add("duration", dt.timedelta(minutes=plan["minutes"]))
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", plan["title"])
    alarm.add("trigger", dt.timedelta(minutes=-10))
    event.add_component(alarm)
    calendar.add_component(event)
sys.stdout.buffer.write(calendar.to_ical())
"""


def build(home: Path, count: int, seed: int = 12) -> None:
    """Write `count` plan files under home/plans."""
    rng = random.Random(seed)
    folder = home / "plans"
    folder.mkdir(parents=True)
    today = _dt.date.today()
    start = _dt.datetime(2026, 1, 1, tzinfo=_dt.UTC)
    for index in range(count):
        created = start + _dt.timedelta(seconds=index * 3607)
        run_id = f"{created.strftime('%Y%m%dT%H%M%S%fZ')}-{index:06x}"
        path = folder / f"{run_id}.json"
        if index % 200 == 199:
            path.write_text("{ damaged", encoding="utf-8")
            continue
        notes = rng.sample(SAMPLE_NOTES, rng.randint(1, 3))
        date = (today + _dt.timedelta(days=rng.randint(-365, 365))).isoformat()
        plan = ReviewPlan(rng.choice(TITLES), tuple(note.id for note in notes), date,
                          rng.randint(5, 120))
        if index % 10 == 9:
            data = json.dumps({"simulated": False, "plan": plan.as_dict()}, ensure_ascii=False,
                              indent=2) + "\n"
            path.write_text(data, encoding="utf-8")
        else:
            path.write_bytes(plan_file_content(
                plan, simulated=False, run_id=run_id,
                created_at=created.isoformat(timespec="milliseconds"), notes=notes))


def main() -> int:
    """Build the plans, time the commands interleaved, print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plans", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="planner-plans-bench-") as temp, \
            tempfile.TemporaryDirectory(prefix="planner-plans-empty-") as empty:
        home = Path(temp)
        build(home, args.plans)
        commands = {
            "planner plans --json": [PLANNER, "plans", "--json", "--all", "--home", temp],
            "planner export --ics": [PLANNER, "export", "--ics", "--all", "--home", temp],
            "bare json-load loop": [sys.executable, "-c", BARE_LOOP, temp],
            "(planner start-up)": [PLANNER, "plans", "--json", "--home", empty],
            "(python start-up)": [sys.executable, "-c", "pass"],
            "(import icalendar)": [sys.executable, "-c", "import icalendar"],
            "(bare icalendar loop)": [sys.executable, "-c", BARE_ICALENDAR, temp],
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for argv in commands.values():  # warm the page cache and .pyc files once
            timed(argv)
        for _ in range(args.repeat):
            for name, argv in commands.items():
                times[name].append(timed(argv))
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.plans} plans, {args.repeat} repetitions, interleaved (median wall time):")
    for name, value in medians.items():
        print(f"  {name:22} {value * 1000:8.1f} ms")
    bare = medians["bare json-load loop"]
    ok = True
    for name in ("planner plans --json", "planner export --ics"):
        ratio = medians[name] / bare
        ok = ok and ratio <= TARGET_RATIO
        verdict = "ok" if ratio <= TARGET_RATIO else "ABOVE TARGET"
        print(f"  ratio {name.split()[1]}/bare {ratio:10.2f}   (target <= {TARGET_RATIO}: "
              f"{verdict})")
    reading = ((medians["planner plans --json"] - medians["(planner start-up)"])
               / max(bare - medians["(python start-up)"], 1e-6))
    print(f"  ratio plans/bare above start-up {reading:4.2f}   (reference: the reading itself)")
    library = medians["planner export --ics"] / medians["(bare icalendar loop)"]
    print(f"  ratio export/bare icalendar {library:5.2f}   (reference: planner over the library "
          "alone)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
