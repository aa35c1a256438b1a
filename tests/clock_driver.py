"""Runs `planner` in this process with its clock at a given instant, ticking from there.

Usage: python clock_driver.py SECONDS -- due --json ...   (SECONDS: a Unix time, UTC)

A review dated late in year 9999 counts only for a clock past it (README "A memory fitted to
you": a review from the future is skipped). libfaketime cannot give planner that clock: CPython
counts its time in 64-bit nanoseconds, so its clock ends at 2262-04-11 (past it, `date.today()`
raises OverflowError and `datetime.now()` stops there). time-machine moves Python's own clock
(time, datetime) to any instant; the time zone stays the process's TZ. Everything else is the
installed planner's entry point, unchanged.
"""

from __future__ import annotations

import datetime as _dt
import os
import sys
from pathlib import Path

import time_machine


def clock_at(now: _dt.datetime, **variables: str) -> dict[str, object]:
    """run_planner's `command` and `env` that start planner through this driver, its clock at
    `now`, with `variables` set: run_planner(*args, **clock_at(now, TZ="UTC")). Without
    libfaketime, whatever clock make test-clock gives the other processes."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("LD_PRELOAD", "FAKETIME")}
    return {"command": (sys.executable, str(Path(__file__)), str(now.timestamp()), "--"),
            "env": {**env, **variables}}


def main() -> None:
    seconds = float(sys.argv[1])
    assert sys.argv[2] == "--"
    # A number, not an aware datetime: time-machine would also set TZ to the datetime's zone.
    time_machine.travel(seconds, tick=True).start()
    from planner.cli.app import main as planner

    sys.argv = ["planner", *sys.argv[3:]]
    sys.exit(planner())


if __name__ == "__main__":
    main()
