"""Time checking a 60-session study plan against checking a single plan, on one busy home.

Usage: .venv/bin/python benchmarks/study_bench.py [--plans N] [--events E] [--repeat R]

Builds a home with N plan files (as plans_bench builds them) and a vdir of E events (as
busy_bench builds it) named in busy_calendars, study hours every evening and weekend morning,
and daily_minutes 600 (room beside the saved plans). Then, interleaved, R times each, in this
process and each with a new timetable (the saved plans and busy time read again, from the busy
cache after the first):
(a) a single plan placed and checked (Timetable.place), (b) a 60-session study plan over the
next six weeks placed and checked (every session without a start: each gets the first free
slot, the costliest case). Prints the medians and b-a (target: at most 50 ms); the exit status
says whether it is met.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from busy_bench import make_vdir
from plans_bench import build

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planner.base.config import load_config  # noqa: E402
from planner.calendar.rejections import SessionsRejected  # noqa: E402
from planner.calendar.study_placing import place_study  # noqa: E402
from planner.cli.run import timetable_for  # noqa: E402
from planner.plans.plan import InvalidArguments, ReviewPlan  # noqa: E402
from planner.plans.study import Session, StudyPlan  # noqa: E402

TARGET_EXTRA = 0.050
SESSIONS = 60


def study_plan(today: _dt.date) -> StudyPlan:
    """60 sessions of 20 minutes over the next six weeks, no start given."""
    sessions = []
    for index in range(SESSIONS):
        day = today + _dt.timedelta(days=1 + index * 42 // SESSIONS)
        sessions.append(Session(day.isoformat(), 20, (f"N{index % 3 + 1}",)))
    return StudyPlan("Exam", tuple(sessions))


def main() -> int:
    """Build the home, time both checks interleaved, print medians and the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plans", type=int, default=1_000)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    today = _dt.date.today()
    with tempfile.TemporaryDirectory(prefix="planner-study-") as folder:
        home = Path(folder) / "home"
        home.mkdir()
        build(home, args.plans)
        make_vdir(home / "classes", today, args.events)
        (home / "config.json").write_text(json.dumps({
            "busy_calendars": [{"vdir": "classes"}], "daily_minutes": 600,
            "study_hours": {"daily": ["18:00-23:00"], "sat": ["08:00-12:00", "18:00-23:00"],
                            "sun": ["08:00-12:00", "18:00-23:00"]}}))
        config = load_config(home / "config.json")
        single = ReviewPlan("One", ("N1",), (today + _dt.timedelta(days=3)).isoformat(), 20)
        study = study_plan(today)

        def check(plan: object) -> str:
            timetable = timetable_for(config, home, "live", today)
            try:
                if isinstance(plan, StudyPlan):
                    place_study(timetable, plan)
                else:
                    timetable.place(plan)  # type: ignore[arg-type]
            except SessionsRejected as rejected:
                return f"rejected: {rejected.lines[0]}"
            except InvalidArguments as error:
                return f"rejected ({error})"
            return "placed"

        outcome = {"single": check(single), "study": check(study)}  # fills the busy cache
        times: dict[str, list[float]] = {"single": [], "study": []}
        for _ in range(args.repeat):
            for name, plan in (("single", single), ("study", study)):
                started = time.perf_counter()
                check(plan)
                times[name].append(time.perf_counter() - started)
    median = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.plans:,} plans, a vdir of {args.events:,} events; {args.repeat} interleaved "
          "rounds, medians")
    print(f"  a single plan checked      {median['single'] * 1000:7.1f} ms  "
          f"({outcome['single']})")
    print(f"  {SESSIONS} sessions checked       {median['study'] * 1000:7.1f} ms  "
          f"({outcome['study']})")
    extra = median["study"] - median["single"]
    print(f"60 sessions add {extra * 1000:.1f} ms (target <= {TARGET_EXTRA * 1000:.0f} ms)")
    met = extra <= TARGET_EXTRA
    print("all targets met" if met else "TARGET MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
