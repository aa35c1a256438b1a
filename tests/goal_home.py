"""A home with goals, notes tagged for the nearest and a config; the system prompt sent."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

from conftest import today

from planner.memory import log as review_log

KEY = "sk-goal-test-0123456789"


def setup_home(home: Path, url: str = "http://127.0.0.1:9", notes: int = 6) -> _dt.date:
    """Notes N1..N6 tagged exam (N2 reviewed), goals ahead and past; the goal's day."""
    day = today() + _dt.timedelta(days=20)
    folder = home / "notes"
    folder.mkdir()
    for number in range(1, notes + 1):
        (folder / f"n{number}.md").write_text(
            f"---\nid: N{number}\ntags: [exam]\n---\n# Kanji {number}\nbody\n", encoding="utf-8")
    (home / "config.json").write_text(json.dumps({
        "model": "stub-model", "base_url": url, "timeout_seconds": 5, "max_calls": 4,
        "goals": [{"name": "JLPT N2", "date": day.isoformat(), "notes": ["tag:exam"]},
                  {"name": "JLPT N1", "date": "2099-07-01", "notes": ["N1"]},
                  {"name": "Last spring", "date": "2026-03-01", "notes": ["N1"]}]}),
        encoding="utf-8")
    review_log.record_reviews(home, ["N2"], "easy",
                              reviewed_at=_dt.datetime.now(_dt.UTC) - _dt.timedelta(days=2))
    return day


def system_text(body: object) -> str:
    assert isinstance(body, dict)
    return body["messages"][0]["content"]
