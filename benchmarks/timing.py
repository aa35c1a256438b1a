"""Timing shared by the benchmarks: one subprocess's wall time."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str]) -> float:
    """Wall time of one subprocess, output discarded; it must succeed."""
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - started
