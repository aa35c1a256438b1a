"""Time `planner week` against `planner plans` on one home (README "Your week"), and what busy
calendars add
before a live run's first request.

Usage: .venv/bin/python benchmarks/week_bench.py [--plans N] [--events E] [--repeat R]

Builds a home with N plan files (as plans_bench builds them) and a vdir of E events, a quarter
weekly recurring (as busy_bench builds it), named in busy_calendars. Then, interleaved, R times
each: (a) `planner plans`, (b) `planner week` (both at 80 columns; the first `week`, which
fills the busy-time cache in .planner/, is timed once before), (c) `planner --dry-run`
with the vdir in busy_calendars and (d) without it: everything a live run does before its
first request (busy time is read only when the first session is placed, never before).
Prints the medians and b/a (target: at most 1.5) and c-d (target: at most 200 ms); the exit
status says whether both are met.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from busy_bench import make_vdir
from plans_bench import build
from timing import timed

PLANNER = str(Path(sys.executable).with_name("planner"))
TARGET_RATIO = 1.5
TARGET_EXTRA = 0.200


def main() -> int:
    """Build the home, time the commands interleaved, print medians and the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plans", type=int, default=1_000)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    os.environ.update(COLUMNS="80", NO_COLOR="1")
    with tempfile.TemporaryDirectory(prefix="planner-week-") as folder:
        home = Path(folder) / "home"
        home.mkdir()
        build(home, args.plans)
        make_vdir(home / "classes", _dt.date.today(), args.events)
        busy = home / "busy.json"
        busy.write_text(json.dumps({"busy_calendars": [{"vdir": "classes"}],
                                    "daily_minutes": 120}))
        plain = home / "plain.json"
        plain.write_text(json.dumps({"daily_minutes": 120}))
        commands = {
            "planner plans": [PLANNER, "--home", str(home), "plans"],
            "planner week": [PLANNER, "--home", str(home), "week", "-c", str(busy)],
            "--dry-run, busy_calendars": [PLANNER, "--home", str(home), "-c", str(busy),
                                          "--dry-run"],
            "--dry-run, none": [PLANNER, "--home", str(home), "-c", str(plain), "--dry-run"],
        }
        # Once, before the rounds: the first `week` reads and parses the vdir and keeps what
        # it found in .planner/ (informational; the rounds below find it there).
        cold = timed(commands["planner week"])
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, argv in commands.items():
                times[name].append(timed(argv))
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.plans:,} plans, a vdir of {args.events:,} events; {args.repeat} interleaved "
          "rounds, medians")
    for name, value in median.items():
        print(f"  {name:28} {value * 1000:7.0f} ms")
    print(f"  {'planner week, first (cold)':28} {cold * 1000:7.0f} ms  (once)")
    ratio = median["planner week"] / median["planner plans"]
    extra = median["--dry-run, busy_calendars"] - median["--dry-run, none"]
    print(f"week / plans: {ratio:.2f}x (target <= {TARGET_RATIO})")
    print(f"before the first request, busy_calendars add {extra * 1000:.0f} ms "
          f"(target <= {TARGET_EXTRA * 1000:.0f} ms)")
    met = ratio <= TARGET_RATIO and extra <= TARGET_EXTRA
    print("all targets met" if met else "TARGET MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
