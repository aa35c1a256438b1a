"""The review log as the tests read it back: its lines, the runs reviewed, the rating prompt."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from planner.memory import log as reviews

RUN = "20250130T100000000000Z-aaaaaa"
OTHER = "20250201T100000000000Z-bbbbbb"


def log_lines(home: Path) -> list[dict]:
    path = reviews.log_path(home)
    return [json.loads(line) for line in path.read_bytes().splitlines()] if path.exists() else []


RATING_PROMPT = "How did it go? again / hard / good / easy (Enter: good): "


def at(text: str) -> _dt.datetime:
    """An ISO time without a zone, read as UTC (as the review log's times are)."""
    return _dt.datetime.fromisoformat(text).replace(tzinfo=_dt.UTC)
